//! The textbook analysis of a whole Markov chain in one report ([`ChainReport`], what
//! `kolmo analyze` shows): its communicating classes and their stationary distributions, where it
//! ends up and the long-run fraction of time from a start, the steps until a closed class is
//! entered, the absorption probabilities, the fundamental matrix, the mean first-passage times,
//! and on request the hitting probabilities and times of a target, the distribution after `k`
//! steps, the gain, bias and expected reward to the target of every reward model, and the exact
//! fractions (Kemeny & Snell, *Finite Markov Chains*, 1960, ch. III–V).
//!
//! [`chain_report`] decides which analyses run, in which order, and which are too large to tabulate;
//! the report only holds results: a printer formats it (the command line: text, JSON, CSV).

use super::exact::{ExactAbsorptionTime, absorption_time_exact, reach_probability_exact};
use super::stationary::{GainBias, RecurrentClass};
use super::{
    AbsorbingChain, AbsorptionTime, ClassAnalysis, FirstPassage, FundamentalMatrix, LongRun,
    MAX_FIRST_PASSAGE_MATRIX, ReachProbability, TransientDistribution, mean_first_passage_matrix,
    reach_probability_given, transient_distribution,
};
use crate::exact::Rational;
use crate::linsolve::SolveMethod;
use crate::model::{Dtmc, StateSet};
use crate::{Error, Result, StateId};
use serde::Serialize;

/// Largest number of transient states for which the fundamental matrix is computed.
pub const MAX_FUNDAMENTAL: usize = 200;
/// Largest `n × closed classes` for which absorption probabilities are computed for every state.
pub const MAX_ABSORPTION_TABLE: usize = 10_000_000;
/// Most closed classes for which absorption probabilities are computed for every state (one
/// solve each).
pub const MAX_ABSORPTION_CLASSES: usize = 50;
/// Work limit of the distribution after `k` steps, in steps × transitions (about 2 ns each).
pub const MAX_STEP_WORK: u64 = 2_000_000_000;

/// What to put in a [`ChainReport`] beyond the analysis every chain gets.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// The start state; `None`: uniform over the model's initial states.
    pub from: Option<StateId>,
    /// The target of the hitting probabilities and times (ascending, without repeats).
    pub target: Option<Vec<StateId>>,
    /// The number of steps of the distribution after `k` steps.
    pub steps: Option<u64>,
    /// How `I − Q` is solved for the target (see [`AbsorbingChain::with_method`]).
    pub method: SolveMethod,
    /// Whether to add the exact fractions (stationary distributions; the target's hitting
    /// probabilities, expected steps and variances).
    pub exact: bool,
    /// Which analyses to run beyond the target's hitting probabilities and expected steps.
    pub parts: Parts,
}

/// Which parts of a [`ChainReport`] to compute beyond a target's hitting probabilities and
/// expected steps (each costs at least one more solve or pass over the chain). The default is
/// everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    /// The whole-chain analysis: classes, stationary distributions, the long run from the start,
    /// the steps to recurrence, absorption probabilities, fundamental matrix, first passages and
    /// each reward model's gain and bias.
    pub chain: bool,
    /// The target's variances of the steps (a second solve).
    pub variance: bool,
    /// Each reward model's expected total before the target (a solve each, unless the reward is
    /// the same on every transient state).
    pub target_rewards: bool,
}

impl Default for Parts {
    fn default() -> Self {
        Self::ALL
    }
}

/// Up to this many states a report with a target still computes every part: at this size the
/// whole-chain analysis costs well under a second.
pub const CHEAP_REPORT_STATES: usize = 100_000;

impl Parts {
    /// Every part.
    pub const ALL: Self = Self {
        chain: true,
        variance: true,
        target_rewards: true,
    };

    /// What a report computes unless asked for more: everything without a target or up to
    /// [`CHEAP_REPORT_STATES`] states; beyond that, with a target, only the target's hitting
    /// probabilities and expected steps (the question asked), the rest on request.
    #[must_use]
    pub fn by_default(n: usize, target: bool) -> Self {
        if !target || n <= CHEAP_REPORT_STATES {
            Self::ALL
        } else {
            Self {
                chain: false,
                variance: false,
                target_rewards: false,
            }
        }
    }
}

/// The hitting probabilities and times of a target.
#[derive(Clone, Debug, Serialize)]
pub struct TargetReport {
    /// The target's states, ascending.
    pub states: Vec<StateId>,
    /// `P(reach the target)` from every state.
    pub reach: ReachProbability,
    /// The steps until the target is entered, from every state.
    pub time: AbsorptionTime,
}

/// Values from every state by one solve, with its residual and a guaranteed absolute error
/// bound: the probability of being absorbed into one closed class, or the expected reward
/// accumulated before the target is entered.
#[derive(Clone, Debug, Serialize)]
pub struct StateValues {
    /// From every state (length `n`).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub values: Vec<f64>,
    /// The solve's max-norm residual.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
    /// Guaranteed absolute error bound.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
}

impl From<(Vec<f64>, f64, f64)> for StateValues {
    fn from((values, residual, error_bound): (Vec<f64>, f64, f64)) -> Self {
        Self {
            values,
            residual,
            error_bound,
        }
    }
}

/// One reward model's long run and, with a target, its expected total to the target.
#[derive(Clone, Debug, Serialize)]
pub struct RewardReport {
    /// The reward model's name.
    pub name: String,
    /// Gain and bias per closed class (order of [`ClassAnalysis::closed`]; `None` without
    /// [`Parts::chain`]).
    pub classes: Option<Vec<GainBias>>,
    /// The gain from the start: `Σ_c absorption_c · gain_c` over the classes reached (`None`
    /// without [`Parts::chain`]).
    #[serde(serialize_with = "crate::account::ser::optional_number")]
    pub gain_from_start: Option<f64>,
    /// The expected reward accumulated before the target is entered.
    pub to_target: Option<StateValues>,
}

/// The exact fractions.
#[derive(Clone, Debug, Serialize)]
pub struct ExactReport {
    /// Per closed class: `π` and the mean recurrence times.
    pub stationary: Vec<ExactStationary>,
    /// With a target: the hitting probabilities, and the expected steps and variances (`None` =
    /// +∞).
    pub target: Option<ExactTarget>,
}

/// One closed class's stationary distribution in fractions.
#[derive(Clone, Debug, Serialize)]
pub struct ExactStationary {
    /// `π` in the class's order.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub pi: Vec<Rational>,
    /// `1/π_j`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub mean_recurrence_times: Vec<Rational>,
}

/// A target's hitting probabilities and times in fractions.
#[derive(Clone, Debug, Serialize)]
pub struct ExactTarget {
    /// `P(reach the target)` from every state.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub hitting_probability: Vec<Rational>,
    /// Expected steps and variances.
    pub time: ExactAbsorptionTime,
}

/// Everything the textbook analysis finds about a chain from a start (see the module docs).
#[derive(Debug, Serialize)]
pub struct ChainReport<'a> {
    /// The initial distribution (length `n`).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub initial: Vec<f64>,
    /// Classes and stationary distributions, with the factorisations kept (`None` without
    /// [`Parts::chain`]).
    #[serde(serialize_with = "class_analysis")]
    pub analysis: Option<ClassAnalysis<'a>>,
    /// Where the chain ends and the long-run fraction of time (`None` without [`Parts::chain`]).
    pub long_run: Option<LongRun>,
    /// The steps until a closed class is entered (`None` when every state is recurrent).
    pub recurrence: Option<AbsorptionTime>,
    /// The absorption probabilities into each closed class, when there are at least two and the
    /// table is small enough ([`MAX_ABSORPTION_CLASSES`], [`MAX_ABSORPTION_TABLE`]).
    pub absorption: Option<Vec<StateValues>>,
    /// The fundamental matrix, up to [`MAX_FUNDAMENTAL`] transient states.
    pub fundamental: Option<FundamentalMatrix>,
    /// The mean first-passage times, up to [`MAX_FIRST_PASSAGE_MATRIX`] states.
    pub passage: Option<FirstPassage>,
    /// The target's hitting probabilities and times.
    pub target: Option<TargetReport>,
    /// The distribution after `k` steps.
    pub after: Option<TransientDistribution>,
    /// One per reward model of the chain, in name order.
    pub rewards: Vec<RewardReport>,
    /// The exact fractions, when asked for and obtained.
    pub exact: Option<ExactReport>,
    /// Why the exact fractions, asked for, could not be had (too large, probabilities that are
    /// not simple fractions): the report keeps the decimals.
    pub exact_error: Option<String>,
}

/// The class analysis as `{classes, closed, stationary}`, or null.
#[allow(clippy::ref_option)]
fn class_analysis<S: serde::Serializer>(
    a: &Option<ClassAnalysis<'_>>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let Some(a) = a else {
        return s.serialize_none();
    };
    let mut st = s.serialize_struct("ClassAnalysis", 3)?;
    st.serialize_field("classes", &a.classes.classes)?;
    st.serialize_field("closed", &a.closed)?;
    st.serialize_field("stationary", &a.stationary)?;
    st.end()
}

/// The report on `dtmc` asked for by `options`: with [`Parts::chain`], the class analysis and
/// long run from the start, then (each within its size limit) the steps to recurrence, the
/// absorption probabilities, the fundamental matrix and the mean first-passage times; then the
/// target (one absorbing-chain factorisation, shared with the class analysis when the target is
/// exactly the recurrent states; the variances with [`Parts::variance`]), the distribution after
/// `k` steps, the reward models (gains with the chain part, totals to the target with
/// [`Parts::target_rewards`]), and the exact fractions.
///
/// # Errors
/// [`Error::InvalidArgument`] for a start or target state out of range, an empty target, or no
/// start (neither `options.from` nor an initial state in the model); the errors of the analyses
/// ([`Error::Singular`], [`Error::Uncertified`], [`Error::LimitReached`] for too many steps). A
/// failure of the exact part is not an error: it is kept in [`ChainReport::exact_error`].
pub fn chain_report<'a>(dtmc: &'a Dtmc, options: &ReportOptions) -> Result<ChainReport<'a>> {
    let n = dtmc.n();
    let parts = options.parts;
    let initial = initial_distribution(dtmc, options.from)?;
    if let Some(states) = &options.target {
        if states.is_empty() {
            return Err(Error::arg("target", "no state"));
        }
        if let Some(&s) = states.iter().find(|&&s| s as usize >= n) {
            return Err(Error::arg("target", format!("state {s} of a chain of {n}")));
        }
    }
    let analysis = if parts.chain {
        Some(ClassAnalysis::new(dtmc)?)
    } else {
        None
    };
    let whole = match &analysis {
        Some(analysis) => WholeChain::of(dtmc, analysis, &initial)?,
        None => WholeChain::default(),
    };
    // One absorbing-chain factorisation per target: the recurrent part's when the target is exactly
    // the set of recurrent states (absorbing states as a label, typically).
    let owned_chain;
    let target_chain: Option<&AbsorbingChain> = match &options.target {
        Some(states) => {
            let shared = analysis.as_ref().and_then(|analysis| {
                let recurrent: Vec<StateId> = (0..n as StateId)
                    .filter(|&s| {
                        analysis.classes.classes[analysis.classes.class_of[s as usize] as usize].closed
                    })
                    .collect();
                (*states == recurrent && options.method == SolveMethod::Auto)
                    .then(|| analysis.absorbing())
                    .flatten()
            });
            match shared {
                Some(a) => Some(a),
                None => {
                    owned_chain = AbsorbingChain::with_method(
                        dtmc,
                        &StateSet::from_states(n, states.iter().copied()),
                        options.method,
                    )?;
                    Some(&owned_chain)
                }
            }
        }
        None => None,
    };
    let target = match (&options.target, target_chain) {
        (Some(states), Some(chain)) => Some(TargetReport {
            states: states.clone(),
            reach: reach_probability_given(dtmc, chain.qualitative().clone())?,
            time: chain.absorption_time_with(parts.variance),
        }),
        _ => None,
    };
    // A Krylov solve stopped by a stop request left NaN: report the stop.
    crate::interrupt::check()?;
    let after = match options.steps {
        Some(k) => Some(transient_distribution(dtmc, &initial, k, MAX_STEP_WORK)?),
        None => None,
    };
    let mut rewards = Vec::new();
    for (name, model) in dtmc.reward_models() {
        if analysis.is_none() && !(parts.target_rewards && target_chain.is_some()) {
            continue;
        }
        let r = model.expected_per_choice(dtmc.matrix());
        let (classes, gain_from_start) = match (&analysis, &whole.long_run) {
            (Some(analysis), Some(long_run)) => {
                let classes = analysis.gain_bias(&r)?;
                let gain = classes
                    .iter()
                    .zip(&long_run.absorption)
                    .map(|(g, w)| if *w > 0.0 { g.gain * w } else { 0.0 })
                    .sum();
                (Some(classes), Some(gain))
            }
            _ => (None, None),
        };
        let to_target = match target_chain {
            Some(a) if parts.target_rewards => Some(
                a.expected_reward_with(&r, target.as_ref().map(|t| &t.time))?
                    .into(),
            ),
            _ => None,
        };
        rewards.push(RewardReport {
            name: name.clone(),
            classes,
            gain_from_start,
            to_target,
        });
    }
    let WholeChain {
        long_run,
        recurrence,
        absorption,
        fundamental,
        passage,
    } = whole;
    let (exact, exact_error) = if options.exact {
        match exact_part(dtmc, analysis.as_ref(), target.as_ref()) {
            Ok(x) => (Some(x), None),
            Err(e) => (None, Some(e.to_string())),
        }
    } else {
        (None, None)
    };
    Ok(ChainReport {
        initial,
        analysis,
        long_run,
        recurrence,
        absorption,
        fundamental,
        passage,
        target,
        after,
        rewards,
        exact,
        exact_error,
    })
}

/// The whole-chain part of a report (see [`Parts::chain`]).
#[derive(Default)]
struct WholeChain {
    long_run: Option<LongRun>,
    recurrence: Option<AbsorptionTime>,
    absorption: Option<Vec<StateValues>>,
    fundamental: Option<FundamentalMatrix>,
    passage: Option<FirstPassage>,
}

impl WholeChain {
    /// The long run from `initial`, then each analysis within its size limit.
    fn of(dtmc: &Dtmc, analysis: &ClassAnalysis<'_>, initial: &[f64]) -> Result<Self> {
        let n = dtmc.n();
        let long_run = analysis.long_run(initial)?;
        let recurrence = analysis.time_to_recurrence().cloned();
        let closed = analysis.closed.len();
        let absorption = (recurrence.is_some()
            && (2..=MAX_ABSORPTION_CLASSES).contains(&closed)
            && n.saturating_mul(closed) <= MAX_ABSORPTION_TABLE)
            .then(|| {
                (0..closed)
                    .map(|c| analysis.absorption_probabilities(c).into())
                    .collect()
            });
        let fundamental = match analysis.absorbing() {
            Some(a) if a.transient_states().len() <= MAX_FUNDAMENTAL => Some(a.fundamental()?),
            _ => None,
        };
        let passage = if n <= MAX_FIRST_PASSAGE_MATRIX {
            Some(mean_first_passage_matrix(dtmc)?)
        } else {
            None
        };
        Ok(Self {
            long_run: Some(long_run),
            recurrence,
            absorption,
            fundamental,
            passage,
        })
    }
}

/// The point mass on `from`, else uniform over the model's initial states.
fn initial_distribution(dtmc: &Dtmc, from: Option<StateId>) -> Result<Vec<f64>> {
    let n = dtmc.n();
    let mut initial = vec![0.0; n];
    match from {
        Some(s) if (s as usize) < n => initial[s as usize] = 1.0,
        Some(s) => return Err(Error::arg("from", format!("state {s} of a chain of {n}"))),
        None if dtmc.initial().is_empty() => {
            return Err(Error::arg("from", "the model has no initial state; name one"));
        }
        None => {
            let init = dtmc.initial();
            for &s in init {
                initial[s as usize] = 1.0 / init.len() as f64;
            }
        }
    }
    Ok(initial)
}

/// The exact fractions: each closed class's stationary distribution, and the target's hitting
/// probabilities and times, on the chain's probabilities as fractions.
fn exact_part(
    dtmc: &Dtmc,
    analysis: Option<&ClassAnalysis<'_>>,
    target: Option<&TargetReport>,
) -> Result<ExactReport> {
    let p = dtmc.exact_matrix()?;
    let mut stationary = Vec::new();
    for (&c, analysis) in analysis.iter().flat_map(|a| a.closed.iter().map(move |c| (c, a))) {
        let st = RecurrentClass::new(&p, &analysis.classes.classes[c].states)?.stationary()?;
        stationary.push(ExactStationary {
            pi: st.pi,
            mean_recurrence_times: st.mean_recurrence_times,
        });
    }
    let target = match target {
        Some(t) => {
            let set = StateSet::from_states(dtmc.n(), t.states.iter().copied());
            Some(ExactTarget {
                hitting_probability: reach_probability_exact(dtmc, &set)?,
                time: absorption_time_exact(dtmc, &set)?,
            })
        }
        None => None,
    };
    Ok(ExactReport { stationary, target })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 → 1 → 2 (absorbing) with a self-loop on 1.
    fn chain() -> Dtmc {
        let p = crate::sparse::from_rows(&[&[(1, 1.0)], &[(1, 0.5), (2, 0.5)], &[(2, 1.0)]]);
        Dtmc::new(p, vec![0]).unwrap()
    }

    #[test]
    fn report_on_a_small_chain() {
        let d = chain();
        let options = ReportOptions {
            target: Some(vec![2]),
            steps: Some(2),
            exact: true,
            ..ReportOptions::default()
        };
        let r = chain_report(&d, &options).unwrap();
        let t = r.target.as_ref().unwrap();
        // From 0: one step to 1, then geometric with mean 2.
        assert!((t.time.mean[0] - 3.0).abs() < 1e-14);
        assert_eq!(r.recurrence.as_ref().unwrap().mean, t.time.mean);
        assert!(r.fundamental.is_some() && r.passage.is_some() && r.absorption.is_none());
        let x = r.exact.as_ref().unwrap().target.as_ref().unwrap();
        assert_eq!(x.time.mean[0].as_ref().unwrap().to_string(), "3");
        assert_eq!(r.after.as_ref().unwrap().probabilities, vec![0.0, 0.5, 0.5]);
        let account = t.time.account();
        assert_eq!(account.guarantee, crate::account::Guarantee::RelativeError);
        assert_eq!(account.bound, t.time.error_bound);
        assert_eq!(x.time.account().guarantee, crate::account::Guarantee::Exact);
        assert_eq!(r.after.as_ref().unwrap().account().iterations, Some(2));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["analysis"]["closed"], serde_json::json!([2]));
        assert_eq!(json["target"]["time"]["method"]["kind"], "absorbing_solve");
        assert_eq!(json["exact"]["target"]["time"]["mean"][0], "3");
    }

    /// Without the optional parts: no class analysis, long run, variances or rewards, and the
    /// same expected steps as the full report.
    #[test]
    fn parts_left_out_are_not_computed() {
        let d = chain();
        let lean = ReportOptions {
            target: Some(vec![2]),
            parts: Parts::by_default(CHEAP_REPORT_STATES + 1, true),
            ..ReportOptions::default()
        };
        let r = chain_report(&d, &lean).unwrap();
        assert!(r.analysis.is_none() && r.long_run.is_none() && r.recurrence.is_none());
        let t = r.target.as_ref().unwrap();
        assert!(t.time.variance.is_none());
        let full = chain_report(
            &d,
            &ReportOptions {
                target: Some(vec![2]),
                ..ReportOptions::default()
            },
        )
        .unwrap();
        assert_eq!(full.target.unwrap().time.mean, t.time.mean);
        assert_eq!(Parts::by_default(CHEAP_REPORT_STATES, true), Parts::ALL);
        assert_eq!(Parts::by_default(usize::MAX, false), Parts::ALL);
    }

    #[test]
    fn bad_options_are_errors() {
        let d = chain();
        let bad = |options: ReportOptions| chain_report(&d, &options).unwrap_err();
        assert!(matches!(
            bad(ReportOptions {
                from: Some(3),
                ..ReportOptions::default()
            }),
            Error::InvalidArgument { .. }
        ));
        assert!(matches!(
            bad(ReportOptions {
                target: Some(vec![]),
                ..ReportOptions::default()
            }),
            Error::InvalidArgument { .. }
        ));
    }
}
