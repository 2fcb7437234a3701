//! kolmo's lower layers, which need no linear algebra: numbers, the sparse matrix and its
//! multiply-and-reduce kernel, exact arithmetic, models, graph algorithms, exploration, Monte
//! Carlo and model files. They are a crate of their own so that a build compiles them while it
//! compiles faer; use them through the `kolmo` crate, which re-exports every module here under
//! the same name (`kolmo::io`, `kolmo::model`, ...) and documents the layers.
#![deny(missing_docs)]

pub mod account;
mod error;
pub mod exact;
pub mod explore;
pub mod graph;
pub mod interrupt;
pub mod io;
pub mod lang;
pub mod model;
pub mod numeric;
pub mod progress;
pub mod sim;
pub mod sparse;

#[doc(hidden)]
pub use error::preview;
pub use error::{Error, Result, excerpt};

/// Index of a state in a model: states are numbered `0..n` in exploration order.
pub type StateId = u32;
