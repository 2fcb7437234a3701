//! Linear solvers for `(I − Q)x = b` and its transpose.
//!
//! - [`DenseLu`]: dense LU with partial pivoting (faer), for general systems of up to a few
//!   thousand unknowns;
//! - [`TriangularWoodbury`]: sparse triangular solves plus a low-rank correction, for systems whose
//!   entries below the diagonal sit in few columns (chains that mostly move "forward");
//! - [`Factored`]: either, chosen by [`Factored::new`].

mod dense;
mod factored;
mod woodbury;

pub use dense::DenseLu;
pub use factored::{Factored, MAX_DENSE};
pub use woodbury::TriangularWoodbury;
