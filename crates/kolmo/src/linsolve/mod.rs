//! Linear solvers for `(I − Q)x = b` and its transpose, in `f64` or exact rationals.
//!
//! - [`DenseLu`]: dense LU with partial pivoting (faer), for general `f64` systems of up to a few
//!   thousand unknowns;
//! - [`GaussLu`]: Gaussian elimination over any [`Scalar`](crate::exact::Scalar), the dense method
//!   for exact systems;
//! - [`TriangularWoodbury`]: sparse triangular solves plus a low-rank correction, for systems whose
//!   entries below the diagonal sit in few columns (chains that mostly move "forward");
//! - [`Factored`]: whichever suits, chosen by [`Factored::new`].

mod dense;
mod factored;
mod gauss;
mod woodbury;

pub use dense::DenseLu;
pub use factored::{Factored, MAX_DENSE};
pub use gauss::GaussLu;
pub use woodbury::TriangularWoodbury;
