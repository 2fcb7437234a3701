//! Linear solvers. For now: dense LU with partial pivoting (faer), used for chains of up to a
//! few thousand transient states; sparse and iterative methods come with large models.

mod dense;

pub use dense::DenseLu;
