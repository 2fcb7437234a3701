//! Linear solvers for `(I − Q)x = b` and its transpose, in `f64` or exact rationals.
//!
//! - [`DenseLu`]: dense LU with partial pivoting (faer), for general `f64` systems of up to a few
//!   thousand unknowns;
//! - [`GaussLu`]: Gaussian elimination over any [`Scalar`](crate::exact::Scalar), the dense method
//!   for exact systems;
//! - [`TriangularWoodbury`]: sparse triangular solves plus a low-rank correction, for systems whose
//!   entries below the diagonal sit in few columns (chains that mostly move "forward");
//! - [`SparseLu`]: sparse LU with a fill-reducing ordering (faer), for large `f64` systems with
//!   local structure;
//! - [`Iterative`]: preconditioned GMRES or BiCGSTAB, for large systems with long-range structure;
//! - [`GthLu`]: cancellation-free elimination for `I − Q` given by its off-diagonal entries and
//!   leaving probabilities, for systems too close to singular for pivoting (nearly closed
//!   chains);
//! - [`Factored`]: whichever suits, chosen by [`Factored::new`] — beyond a few hundred unknowns
//!   first block by block along the strongly connected components (topological solving).

mod factored;
mod gauss;
mod gth;
mod krylov;
mod solvable;
mod topological;
mod woodbury;

pub use factored::{Factored, MAX_DENSE, SPARSE_FROM, SolveMethod};
pub use gauss::GaussLu;
pub use gth::{GTH_LIMIT, GthLu};
pub use kolmo_lu::DenseLu;
pub use kolmo_lu::SparseLu;
pub(crate) use krylov::prefetch;
pub use krylov::{
    Iterative, KrylovMethod, KrylovOptions, KrylovStats, MatrixFree, Preconditioner, SplitOperator,
};
pub use solvable::{DenseSolve, Solvable};
pub use woodbury::TriangularWoodbury;
