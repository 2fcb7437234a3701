//! Analyses of Markov chains. Each takes a model and options and returns a result struct that
//! records how the numbers were obtained (method, residual, error bound); nothing here prints.
//!
//! - [`absorbing`]: expected steps to a target set, their variance, expected visits, the
//!   fundamental matrix `N = (I − Q)⁻¹` (Kemeny & Snell, *Finite Markov Chains*, ch. III).
//! - [`reach`]: the probability of ever reaching a target.
//! - [`transient`]: the distribution after `k` steps and the distribution of the absorption
//!   time (pmf, cdf, survival, quantiles).
//! - [`exact`]: the same absorbing and transient analyses in exact rational arithmetic.
//! - [`stationary`]: the stationary distribution of a closed class with a certified error bound,
//!   mean recurrence times, gain and bias.
//! - [`passage`]: the matrix of mean first-passage times.
//! - [`multichain`]: any chain: classes, each closed class's stationary distribution, absorption
//!   into the closed classes, the long-run distribution, gain and bias per class.
//! - [`race`](mod@race): several independent copies of a chain racing to the target (players taking
//!   turns).

pub mod absorbing;
pub mod exact;
pub mod multichain;
pub mod passage;
pub mod race;
pub mod reach;
pub mod report;
pub mod stationary;
mod subsystem;
pub mod transient;

pub use absorbing::{AbsorbingChain, AbsorptionTime, ExpectedVisits, FundamentalMatrix};
pub use multichain::{ClassAnalysis, LongRun};
pub use passage::{FirstPassage, MAX_FIRST_PASSAGE_MATRIX, mean_first_passage_matrix};
pub use race::{MAX_PLAYERS, Race, race};
pub use reach::{ReachProbability, reach_probability, reach_probability_given};
pub use report::{ChainReport, ReportOptions, chain_report};
pub use transient::{
    Quantile, TimeDistribution, TimeDistributionOptions, TransientDistribution, absorption_time_distribution,
    distribution_after, distribution_after_limited, transient_distribution,
};
