//! The PRISM modelling and property languages (the PRISM manual, prismmodelchecker.org/manual:
//! "The PRISM Language", "Property Specification"): a lexer ([`lex`]), the syntax tree
//! ([`ast`]) and the parser ([`parse_model`], [`parse_properties`]).
//!
//! Supported: model types `dtmc` and `mdp` (`smg` is parsed), constants, formulas, labels,
//! global and local `bool` and bounded `int` variables, `init ... endinit`, module renaming,
//! synchronisation, reward structures; the property operators `P`, `R`, `S`, Storm's `T`, and
//! `filter`. What is not (CTMCs, `system ... endsystem`, LTL, reward bounds) is refused with a
//! message naming the construct and its place.

pub mod ast;
mod build;
mod compile;
mod exact;
pub mod lex;
mod packed;
mod parse;
mod property;

pub use build::{BuildOptions, BuiltModel, NAMED_STATES, VariableInfo, build_model};
pub use compile::{Code, OperatorHook, Scope, Value, parse_constants};
pub use packed::{Layout, PackedStates};
pub use parse::{parse_expression, parse_model, parse_properties};
pub use property::{PropertyContext, StateValues};
