//! Analyses of Markov chains. Each takes a model and options and returns a result struct that
//! records how the numbers were obtained (method, residual, error bound); nothing here prints.
//!
//! - [`absorbing`]: expected steps to a target set, their variance, expected visits, the
//!   fundamental matrix `N = (I − Q)⁻¹` (Kemeny & Snell, *Finite Markov Chains*, ch. III).
//! - [`reach`]: the probability of ever reaching a target.
//! - [`transient`]: the distribution after `k` steps and the distribution of the absorption
//!   time (pmf, cdf, survival, quantiles).
//! - [`exact`]: the same absorbing and transient analyses in exact rational arithmetic.
//! - [`stationary`]: stationary distribution, period and irreducibility of a unichain chain.
//! - [`race`](mod@race): several independent copies of a chain racing to the target (players taking
//!   turns).

pub mod absorbing;
pub mod exact;
pub mod race;
pub mod reach;
pub mod stationary;
mod subsystem;
pub mod transient;

pub use absorbing::{AbsorbingChain, AbsorptionTime, ExpectedVisits, FundamentalMatrix};
pub use race::{MAX_PLAYERS, Race, race};
pub use reach::{ReachProbability, reach_probability};
pub use transient::{
    TimeDistribution, TimeDistributionOptions, absorption_time_distribution, distribution_after,
};
