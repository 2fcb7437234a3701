//! Built-in models. Each implements only a [`Generator`](crate::explore::Generator) (and, where it
//! pays, a fast simulator); the engine builds and analyses the model.

mod error;
pub mod ladders;
pub mod rps_cards;
pub mod snakes;

pub use error::{BoardError, InputError};
