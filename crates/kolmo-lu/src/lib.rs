//! The LU factorisations of kolmo's linear solvers, computed by faer: [`DenseLu`] (partial
//! pivoting, for dense `f64` systems) and [`SparseLu`] (a fill-reducing column ordering, for large
//! sparse `f64` systems). Both sit in the `linsolve` layer and are used through
//! `kolmo::linsolve`, which re-exports them and chooses between them and its other methods.
//!
//! Errors are `kolmo_core`'s: a zero or non-finite pivot is [`kolmo_core::Error::Singular`].

mod dense;
mod sparse_lu;

pub use dense::DenseLu;
pub use sparse_lu::SparseLu;
