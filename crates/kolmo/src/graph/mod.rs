//! Graph analysis on the transition structure, done before any numbers (Storm's
//! `utility/graph.h`): strongly connected components, communicating classes and their periods, reachability, and the qualitative sets of
//! states that reach a target with probability 0 or 1.

mod classes;
mod reach;
mod scc;

pub use classes::{Class, Classes, classes};
pub use reach::{Qualitative, backward_reachable, forward_reachable, prob0, prob1, shortest_distance};
pub use scc::{Sccs, sccs, sccs_of};
