//! Turn-based stochastic games (and MDPs, games with one player) on the row-grouped matrix:
//! the Bellman step "multiply and reduce over each group" ([`bellman`]), finite horizons by
//! backward induction ([`finite_horizon`]) and the long-run average reward (gain) bracketed by
//! value-iteration increments ([`long_run`]); reachability and total rewards with certified
//! bounds by strategy iteration from both sides ([`reach_bounds`], [`total_reward_bounds`],
//! [`total_forever_bounds`]; [`reach_value`] on a [`crate::model::Game`]); their exact values
//! ([`reach_exact`], [`total_reward_exact`], [`long_run_exact`]) and the states of value 0 and
//! 1 ([`qualitative`]).

mod bellman;
mod exact;
mod horizon;
mod reach;
mod solve;
mod strategy;

pub use crate::mdp::{LongRun, LongRunOptions};
pub use bellman::bellman;
pub use exact::{long_run_exact, reach_exact, total_reward_exact};
pub use horizon::{FiniteHorizon, finite_horizon, finite_horizon_exact, finite_horizon_strategy, long_run};
pub use reach::reach_value;
pub use solve::solve;
pub use strategy::{qualitative, reach_bounds, total_forever_bounds, total_reward_bounds};
