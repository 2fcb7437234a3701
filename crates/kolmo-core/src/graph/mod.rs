//! Graph analysis on the transition structure, done before any numbers (Storm's
//! `utility/graph.h`): strongly connected components, communicating classes and their periods, reachability, the qualitative sets of
//! states that reach a target with probability 0 or 1 (in chains, and maximising or minimising in
//! MDPs and games), maximal end components and attractors.

mod classes;
mod mdp;
mod reach;
mod scc;

pub use classes::{Class, Classes, classes};
pub use mdp::{choices_within, end_components, prob01_max, prob01_min, prob1e, steer_to};
pub use reach::{
    Qualitative, backward_reachable, forward_reachable, longest_distance, prob0, prob1, shortest_distance,
};
pub use scc::{Sccs, finishing_order, sccs, sccs_of};
