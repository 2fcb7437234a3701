//! Transient analysis: the distribution after `k` steps, `π_k = π_0 P^k`, and the distribution of
//! the absorption time `T` computed forward, step by step, until the probability not yet absorbed
//! falls below a tolerance.
//!
//! Both move a distribution on with a [`Propagator`]: while its support is small (a start in one
//! state), only the rows of the support are multiplied; once it covers more than
//! `1/`[`SPARSE_FRACTION`](crate::sparse::SPARSE_FRACTION) of the states, every step is a
//! parallel sweep over a sliced transpose of `P`. Each step equals the plain sequential product
//! bit for bit, so the results do not depend on the number of threads.

use crate::account::{Account, Guarantee, Method};
use crate::graph::Qualitative;
use crate::interrupt;
use crate::model::{Dtmc, StateSet};
use crate::numeric::NeumaierSum;
use crate::sparse::Propagator;
use crate::{Error, Result, StateId};

/// The distribution after `k` steps from the initial distribution `initial` (length `n`):
/// `π_k = π_0 P^k`, by `k` vector–matrix products. See [`transient_distribution`] for the same
/// with its error figure and a work limit.
///
/// # Errors
/// [`Error::InvalidArgument`] if `initial` has the wrong length, negative or non-finite entries, or
/// does not sum to 1 within 1e-12; [`Error::Interrupted`] if a stop is requested
/// ([`crate::interrupt`], checked every step).
///
/// # Complexity
/// O(k · nnz) time, on all threads once the support is large; O(nnz) extra memory for the sliced
/// transpose (built only then).
pub fn distribution_after(dtmc: &Dtmc, initial: &[f64], k: u64) -> Result<Vec<f64>> {
    check_initial(dtmc, initial)?;
    Ok(step(dtmc, initial, k)?.into_vector())
}

fn step<'a>(dtmc: &'a Dtmc, initial: &[f64], k: u64) -> Result<Propagator<'a>> {
    let mut p = Propagator::new(dtmc.matrix(), initial.to_vec());
    p.run(|p| {
        for _ in 0..k {
            interrupt::check()?;
            p.step();
        }
        Ok::<_, Error>(())
    })?;
    Ok(p)
}

/// Largest chain whose `P^k` is formed by repeated squaring when `k` steps one at a time would
/// exceed the work limit of [`distribution_after_limited`].
pub const MAX_SQUARING_STATES: usize = 400;

/// A distribution after `k` steps, with how it was computed.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TransientDistribution {
    /// `π_k(s)` for every state `s`; length `n`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub probabilities: Vec<f64>,
    /// `k`.
    pub steps: u64,
    /// `|Σ_s π_k(s) − 1|`, the sum taken with compensated (Neumaier) summation: every step keeps
    /// the total mass in exact arithmetic (rows sum to 1), so this is the mass gained or lost to
    /// rounding (and to rows or an initial distribution that sum to 1 only within their
    /// tolerance) — the error figure of the result.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub mass_error: f64,
    /// Guaranteed bound on `Σ_s |π_k(s) − π̂_k(s)|` (so on every entry's absolute error) against
    /// the chain as written, from `initial` as given: each step moves the error by a stochastic
    /// matrix, which does not enlarge it in the 1-norm, and adds at most `δ` (the rounding of each
    /// row's products and sums, `γ_{m+1}` for rows of `m` entries, and of the written
    /// probabilities to `f64`, as much again), so after `k` steps `(1 + δ)^k − 1` bounds it
    /// (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §3.1 and §3.5, for
    /// sums and products of nonnegative numbers). Squaring doubles the error of each power and
    /// adds the rounding of an `n`-term product and of the rows' renormalisation, which the same
    /// form covers with `δ` four times the rounding of `n + 1` terms.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
    /// How it was computed.
    pub method: Method,
}

impl TransientDistribution {
    /// How the distribution was obtained: `k` steps (or squarings), with the mass defect as its
    /// error figure.
    #[must_use]
    pub fn account(&self) -> Account {
        Account {
            method: self.method.clone(),
            iterations: Some(self.steps),
            residual: f64::NAN,
            bound: self.mass_error,
            guarantee: Guarantee::MassDefect,
        }
    }
}

/// `|Σ p − 1|` with compensated summation: the error figure of a distribution (see
/// [`TransientDistribution::mass_error`]).
#[must_use]
pub fn mass_error(p: &[f64]) -> f64 {
    let mut sum = NeumaierSum::default();
    p.iter().for_each(|&v| sum.add(v));
    (sum.value() - 1.0).abs()
}

/// [`distribution_after`] within a work limit, with its error figure: `k` vector–matrix products
/// when `k · nnz ≤ max_work`; otherwise, for chains of at most [`MAX_SQUARING_STATES`] states,
/// `π_0 P^k` with `P^k` by repeated squaring of the dense matrix (O(n³ log k); Golub & Van Loan,
/// *Matrix Computations*, §11.2.5), each power's rows renormalised to sum to 1.
///
/// # Errors
/// As [`distribution_after`]; [`Error::InvalidArgument`] if neither method fits the limit.
pub fn transient_distribution(
    dtmc: &Dtmc,
    initial: &[f64],
    k: u64,
    max_work: u64,
) -> Result<TransientDistribution> {
    let nnz = dtmc.matrix().nnz() as u64;
    let (probabilities, method) = if k.saturating_mul(nnz) <= max_work {
        (distribution_after(dtmc, initial, k)?, Method::Stepping)
    } else {
        (squared(dtmc, initial, k, max_work)?, Method::Squaring)
    };
    let m = dtmc.matrix();
    let delta = match method {
        Method::Squaring => 4.0 * crate::numeric::entry_rounding(dtmc.n() + 1),
        _ => {
            2.0 * crate::numeric::entry_rounding(
                (0..m.nrows()).map(|r| m.row(r).0.len()).max().unwrap_or(0) + 1,
            )
        }
    };
    // (1 + δ)^k − 1, rounded up; never more than 2, the 1-norm distance of two distributions.
    let error_bound = ((k as f64 * delta.ln_1p()).exp_m1() * (1.0 + 16.0 * f64::EPSILON)).min(2.0);
    Ok(TransientDistribution {
        mass_error: mass_error(&probabilities),
        error_bound,
        probabilities,
        steps: k,
        method,
    })
}

/// [`transient_distribution`]'s probabilities alone.
///
/// # Errors
/// As [`transient_distribution`].
pub fn distribution_after_limited(dtmc: &Dtmc, initial: &[f64], k: u64, max_work: u64) -> Result<Vec<f64>> {
    Ok(transient_distribution(dtmc, initial, k, max_work)?.probabilities)
}

fn squared(dtmc: &Dtmc, initial: &[f64], k: u64, max_work: u64) -> Result<Vec<f64>> {
    check_initial(dtmc, initial)?;
    let nnz = dtmc.matrix().nnz() as u64;
    let n = dtmc.n();
    if n > MAX_SQUARING_STATES {
        return Err(Error::arg(
            "steps",
            format!(
                "{k} steps on a chain of {nnz} transitions is more work than the limit of {max_work} (steps × transitions)"
            ),
        ));
    }
    // Binary powering: x ← x·P^(2^i) for the set bits of k.
    let mut power = vec![0.0; n * n];
    for s in 0..n {
        let (cols, vals) = dtmc.matrix().row(s);
        for (&t, &p) in cols.iter().zip(vals) {
            power[s * n + t as usize] = p;
        }
    }
    let mut x = initial.to_vec();
    let mut rest = k;
    let mut next = vec![0.0; n * n];
    loop {
        interrupt::check()?;
        if rest & 1 == 1 {
            let mut y = vec![0.0; n];
            for (i, &xi) in x.iter().enumerate() {
                if xi != 0.0 {
                    for (yj, pij) in y.iter_mut().zip(&power[i * n..(i + 1) * n]) {
                        *yj += xi * pij;
                    }
                }
            }
            x = y;
        }
        rest >>= 1;
        if rest == 0 {
            break;
        }
        next.fill(0.0);
        for i in 0..n {
            for l in 0..n {
                let a = power[i * n + l];
                if a != 0.0 {
                    let (row, src) = (&mut next[i * n..(i + 1) * n], &power[l * n..(l + 1) * n]);
                    for (r, b) in row.iter_mut().zip(src) {
                        *r += a * b;
                    }
                }
            }
        }
        // Each row of P^(2^i) is a distribution: renormalising keeps rounding errors from
        // compounding through the squarings (without it the row sums drift like (1 + ε)^(2^i)).
        for row in next.chunks_mut(n) {
            let mut acc = NeumaierSum::default();
            row.iter().for_each(|&v| acc.add(v));
            let sum = acc.value();
            row.iter_mut().for_each(|v| *v /= sum);
        }
        std::mem::swap(&mut power, &mut next);
    }
    Ok(x)
}

fn check_initial(dtmc: &Dtmc, initial: &[f64]) -> Result<()> {
    if initial.len() != dtmc.n() {
        return Err(Error::arg(
            "initial distribution",
            format!("length {} for a chain of {} states", initial.len(), dtmc.n()),
        ));
    }
    if let Some((s, p)) = initial
        .iter()
        .enumerate()
        .find(|(_, p)| !(p.is_finite() && **p >= 0.0))
    {
        return Err(Error::arg(
            "initial distribution",
            format!("state {s} has probability {p}"),
        ));
    }
    let sum: f64 = initial.iter().sum();
    if (sum - 1.0).abs() > 1e-12 {
        return Err(Error::arg(
            "initial distribution",
            format!("sums to {sum}, not 1"),
        ));
    }
    Ok(())
}

/// Options for [`absorption_time_distribution`].
#[derive(Clone, Copy, Debug)]
pub struct TimeDistributionOptions {
    /// Stop once the probability of not yet being absorbed is below this (default 1e-12).
    pub tail_tolerance: f64,
    /// Always compute at least this many steps (to answer `P(T ≤ k)` for a given `k`).
    pub min_steps: u64,
    /// Never compute more than this many steps (default 10⁷); the result then reports the tail
    /// left.
    pub max_steps: u64,
    /// Never do more than this much work, counted as steps × transitions (default 2·10⁹, a few
    /// seconds); the result then reports the tail left.
    pub max_work: u64,
}

impl Default for TimeDistributionOptions {
    fn default() -> Self {
        Self {
            tail_tolerance: 1e-12,
            min_steps: 0,
            max_steps: 10_000_000,
            max_work: 2_000_000_000,
        }
    }
}

/// A quantile of an absorption time as far as the computation decides it
/// ([`TimeDistribution::quantile_decided`]). In JSON: the number of steps; `null` beyond the
/// horizon; `"unbounded"`; `{"within_rounding": [low, high]}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantile {
    /// The quantile, decided beyond rounding.
    At(u64),
    /// The probability computed at step `low` falls short of the level by rounding only, and
    /// reaches it at `high`: the quantile is one of `low ..= high`.
    WithinRounding {
        /// The first candidate.
        low: u64,
        /// The last candidate (the level is surely reached by then).
        high: u64,
    },
    /// Beyond the computed horizon (the computation stopped, or rounding left it undecided there).
    BeyondHorizon,
    /// Level 1 when the absorption time has no upper bound (a cycle is reachable).
    Unbounded,
}

impl Quantile {
    /// The quantile when decided.
    #[must_use]
    pub fn value(self) -> Option<u64> {
        match self {
            Quantile::At(t) => Some(t),
            _ => None,
        }
    }
}

impl std::fmt::Display for Quantile {
    /// `57`, `57 or 58 (within rounding)`, `57 to 60 (within rounding)`, `beyond horizon`,
    /// `unbounded`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Quantile::At(t) => write!(f, "{t}"),
            Quantile::WithinRounding { low, high } if high == low + 1 => {
                write!(f, "{low} or {high} (within rounding)")
            }
            Quantile::WithinRounding { low, high } => write!(f, "{low} to {high} (within rounding)"),
            Quantile::BeyondHorizon => f.write_str("beyond horizon"),
            Quantile::Unbounded => f.write_str("unbounded"),
        }
    }
}

impl serde::Serialize for Quantile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match *self {
            Quantile::At(t) => s.serialize_u64(t),
            Quantile::BeyondHorizon => s.serialize_none(),
            Quantile::Unbounded => s.serialize_str("unbounded"),
            Quantile::WithinRounding { low, high } => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("within_rounding", &[low, high])?;
                m.end()
            }
        }
    }
}

/// The distribution of the absorption time `T` (steps until the target is first entered).
#[derive(Clone, Debug, serde::Serialize)]
pub struct TimeDistribution {
    /// `pmf[t] = P(T = t)` for `t = 0 .. horizon`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub pmf: Vec<f64>,
    /// `survival[t] = P(T > t)`, the probability not yet absorbed after `t` steps, computed as
    /// the mass left in the transient states (no cancellation).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub survival: Vec<f64>,
    /// `P(T > horizon)`: the probability not accounted for by `pmf` (below the tolerance unless
    /// `max_steps` or `max_work` stopped the computation).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub tail: f64,
    /// Whether the tail fell below the requested tolerance.
    pub converged: bool,
}

impl TimeDistribution {
    /// The last step computed.
    #[must_use]
    pub fn horizon(&self) -> u64 {
        self.pmf.len() as u64 - 1
    }

    /// `P(T ≤ t)`, the probability of being absorbed by step `t`: the summed pmf while that is
    /// below 1/2, `1 − P(T > t)` above (each accurate where the other cancels; exactly 1 once no
    /// mass is left). Beyond the horizon it returns `1 − tail`.
    #[must_use]
    pub fn cdf(&self, t: u64) -> f64 {
        if t > self.horizon() {
            return 1.0 - self.tail;
        }
        self.cdf_curve().nth(t as usize).expect("t is within the horizon")
    }

    /// `P(T ≤ t)` when it is known to within the tolerance: exactly for `t` up to the horizon,
    /// as `1 − tail` beyond it if the computation converged; `None` beyond an unconverged horizon.
    #[must_use]
    pub fn cdf_checked(&self, t: u64) -> Option<f64> {
        (t <= self.horizon() || self.converged).then(|| self.cdf(t))
    }

    /// `P(T > t)` (the survival function); `tail` beyond the horizon (an upper bound).
    #[must_use]
    pub fn survival(&self, t: u64) -> f64 {
        self.survival.get(t as usize).copied().unwrap_or(self.tail)
    }

    /// The `q`-quantile, the least `t` with `P(T ≤ t) ≥ q` (`0 < q ≤ 1`), when the computed
    /// distribution decides it beyond rounding ([`Self::quantile_decided`]); `None` otherwise.
    ///
    /// # Panics
    /// - panics unless `0 < q <= 1`.
    #[must_use]
    #[track_caller]
    pub fn quantile(&self, q: f64) -> Option<u64> {
        self.quantile_decided(q).value()
    }

    /// The `q`-quantile, the least `t` with `P(T ≤ t) ≥ q` (`0 < q ≤ 1`), decided from the
    /// computed distribution without trusting its last digits: levels up to 1/2 compare the
    /// summed pmf with `q`, higher levels the survival (the mass not yet absorbed, computed
    /// without cancellation) with `1 − q`, so that `P(T ≤ t)` rounding to 1 decides nothing. A
    /// computed value equal to the level counts as reaching it (exact for dyadic chains); where
    /// one falls short of it by less than a relative `8ε(t + 1)`, the steps from there to the
    /// first that reaches it are all candidates ([`Quantile::WithinRounding`]). Level 1 is decided only where the survival is exactly 0
    /// (the maximum of the support: `graph::longest_distance` finds it by graph search).
    ///
    /// # Panics
    /// - panics unless `0 < q <= 1`.
    #[must_use]
    #[track_caller]
    pub fn quantile_decided(&self, q: f64) -> Quantile {
        assert!(q > 0.0 && q <= 1.0, "quantile level must be in (0, 1]");
        let slack = |t: usize| 8.0 * f64::EPSILON * (t + 1) as f64;
        let (low, high) = if q <= 0.5 {
            // The cdf as `cdf_curve` computes it: the summed pmf while at most 1/2 is absorbed,
            // which is where a level up to 1/2 is crossed.
            let mut low = None;
            let mut high = None;
            for (t, c) in self.cdf_curve().enumerate() {
                if low.is_none() && c >= q * (1.0 - slack(t)) {
                    low = Some(t);
                }
                if c >= q {
                    high = Some(t);
                    break;
                }
            }
            (low, high)
        } else {
            let threshold = 1.0 - q;
            let low = (0..self.survival.len()).find(|&t| self.survival[t] <= threshold * (1.0 + slack(t)));
            let high = low.and_then(|l| (l..self.survival.len()).find(|&t| self.survival[t] <= threshold));
            (low, high)
        };
        match (low, high) {
            (Some(l), Some(h)) if l == h => Quantile::At(l as u64),
            (Some(l), Some(h)) => Quantile::WithinRounding {
                low: l as u64,
                high: h as u64,
            },
            _ => Quantile::BeyondHorizon,
        }
    }

    /// `P(T ≤ t)` for `t = 0 ..= horizon`, in one pass: the values of [`cdf`](Self::cdf) (the
    /// summed pmf while the survival is at least 1/2, `1 − P(T > t)` after), without summing the
    /// pmf again for each `t`.
    pub fn cdf_curve(&self) -> impl Iterator<Item = f64> + '_ {
        let mut summed = 0.0;
        self.pmf.iter().zip(&self.survival).map(move |(p, s)| {
            summed += p;
            if *s < 0.5 { 1.0 - s } else { summed }
        })
    }

    /// The median, [`quantile(0.5)`](Self::quantile).
    #[must_use]
    pub fn median(&self) -> Option<u64> {
        self.quantile(0.5)
    }

    /// The most likely absorption time (the smallest one if tied).
    #[must_use]
    pub fn mode(&self) -> u64 {
        let mut best = 0;
        for (t, &p) in self.pmf.iter().enumerate() {
            if p > self.pmf[best] {
                best = t;
            }
        }
        best as u64
    }

    /// The least number of steps with positive probability, if any within the horizon. Beware:
    /// a probability that underflows to 0 is missed; see [`crate::graph::shortest_distance`].
    #[must_use]
    pub fn min(&self) -> Option<u64> {
        self.pmf.iter().position(|&p| p > 0.0).map(|t| t as u64)
    }

    /// `|Σ_t P(T = t) + P(T > horizon) − 1|` (compensated sums): the mass gained or lost to
    /// rounding while the distribution was moved on (and to rows that sum to 1 only within their
    /// tolerance) — the error figure of the pmf.
    #[must_use]
    pub fn mass_error(&self) -> f64 {
        let mut sum = NeumaierSum::default();
        self.pmf.iter().for_each(|&p| sum.add(p));
        sum.add(self.tail);
        (sum.value() - 1.0).abs()
    }

    /// `Σ t·P(T = t)` over the computed horizon: the mean, short by at most the tail's share.
    #[must_use]
    pub fn truncated_mean(&self) -> f64 {
        self.pmf.iter().enumerate().map(|(t, p)| t as f64 * p).sum()
    }
}

/// The distribution of the time to reach `target` from the initial distribution `initial`
/// (length `n`), computed forward: the mass entering the target at step `t` is `P(T = t)`, and it
/// is removed from the chain; stops when the mass left is below `options.tail_tolerance` (after at
/// least `options.min_steps` steps), or after `options.max_steps` steps or `options.max_work`
/// work, whichever comes first.
///
/// # Errors
/// [`Error::InvalidArgument`] for a bad `initial` or `target`; [`Error::NotAlmostSure`] if
/// `initial` puts mass on a state that does not reach the target with probability 1 (the tail would
/// never vanish); [`Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked
/// every step).
///
/// `survival` is each step's sum of the mass left (in fixed slices, see
/// [`StepSums`](crate::sparse::StepSums)), not `1 −` the summed pmf.
///
/// # Complexity
/// O(nnz) for the qualitative analysis, then O(steps · nnz): a sparse frontier while the mass is
/// on few states, then parallel sweeps (see [`Propagator`]).
pub fn absorption_time_distribution(
    dtmc: &Dtmc,
    initial: &[f64],
    target: &StateSet,
    options: &TimeDistributionOptions,
) -> Result<TimeDistribution> {
    check_initial(dtmc, initial)?;
    dtmc.check_set("target", target)?;
    let q = Qualitative::new(dtmc, target);
    if let Some(s) = (0..dtmc.n()).find(|&s| initial[s] > 0.0 && !q.yes.contains(s as u32)) {
        return Err(Error::NotAlmostSure {
            state: s as u32,
            states: q.yes.complement().to_vec(),
        });
    }
    // Move the mass on in the whole chain with the target as a sink: what enters the target at
    // step t is P(T = t), and is taken out. States outside `q.yes` never get mass: the successors
    // of a state that reaches the target almost surely do too, or are in the target.
    let sink: Vec<StateId> = target.to_vec();
    let absorbed0 = sink.iter().fold(0.0, |a, &s| a + initial[s as usize]);
    let mut start = initial.to_vec();
    for &s in &sink {
        start[s as usize] = 0.0;
    }
    let mut left = crate::sparse::sliced_sum(&start);
    let mut pmf = vec![absorbed0];
    let mut survival = vec![left];
    let n = dtmc.n() as u64;
    let per_step = (dtmc.matrix().nnz() as u64 + n).max(1);
    let max_steps = options.max_steps.min(options.max_work / per_step);
    let mut walk = Propagator::new(dtmc.matrix(), start).with_sink(sink);
    let mut t = 0u64;
    walk.run(|walk| {
        // Once no mass is left every later pmf entry is exactly 0: stop even before `min_steps`.
        while (left >= options.tail_tolerance || t < options.min_steps) && t < max_steps && left > 0.0 {
            interrupt::check()?;
            let moved = walk.step();
            left = moved.mass;
            pmf.push(moved.absorbed);
            survival.push(left);
            t += 1;
        }
        Ok::<_, Error>(())
    })?;
    Ok(TimeDistribution {
        pmf,
        survival,
        tail: left,
        converged: left < options.tail_tolerance,
    })
}

#[cfg(test)]
mod tests {
    use super::{Quantile, TimeDistribution};

    /// A distribution given by its survival `s` (pmf the differences).
    fn by_survival(s: &[f64]) -> TimeDistribution {
        let pmf = (0..s.len())
            .map(|t| if t == 0 { 1.0 - s[0] } else { s[t - 1] - s[t] })
            .collect();
        TimeDistribution {
            pmf,
            survival: s.to_vec(),
            tail: *s.last().unwrap(),
            converged: true,
        }
    }

    // Quantiles are decided only beyond rounding (issue 15 §3): a survival equal to 1 − q up to a
    // few units in the last place leaves two candidates; one clearly past the threshold decides.
    #[test]
    fn quantiles_within_rounding_are_flagged() {
        let d = by_survival(&[0.5, 0.25, 0.1 * (1.0 + 4.0 * f64::EPSILON), 0.05, 0.0]);
        assert_eq!(
            d.quantile_decided(0.9),
            Quantile::WithinRounding { low: 2, high: 3 }
        );
        assert_eq!(d.quantile(0.9), None);
        assert_eq!(d.quantile_decided(0.8), Quantile::At(2));
        // P(T ≤ 0) = 0.5 exactly as computed: the level, reached.
        assert_eq!(d.quantile_decided(0.5), Quantile::At(0));
        assert_eq!(d.quantile_decided(0.3), Quantile::At(0));
        assert_eq!(d.quantile_decided(1.0), Quantile::At(4));
        // The summed pmf for low levels: 0.25 at step 0, 0.5 − ε by step 1 (short of 1/2 by
        // rounding), all by step 2.
        let low = by_survival(&[0.75, 0.5 * (1.0 + 2.0 * f64::EPSILON), 0.0]);
        assert_eq!(low.quantile_decided(0.25), Quantile::At(0));
        assert_eq!(
            low.quantile_decided(0.5),
            Quantile::WithinRounding { low: 1, high: 2 }
        );
        // A survival that never reaches 0 decides level 1 nowhere.
        let tail = by_survival(&[0.5, 1e-300]);
        assert_eq!(tail.quantile_decided(1.0), Quantile::BeyondHorizon);
        assert_eq!(
            Quantile::WithinRounding { low: 2, high: 3 }.to_string(),
            "2 or 3 (within rounding)"
        );
        assert_eq!(
            serde_json::to_string(&Quantile::WithinRounding { low: 2, high: 5 }).unwrap(),
            r#"{"within_rounding":[2,5]}"#
        );
        assert_eq!(
            serde_json::to_string(&Quantile::Unbounded).unwrap(),
            r#""unbounded""#
        );
        assert_eq!(serde_json::to_string(&Quantile::BeyondHorizon).unwrap(), "null");
    }

    // Land of Oz (Grinstead & Snell, Example 11.1): P² = [[7/16, 3/16, 3/8], ...] (published in
    // the case file); far powers approach w = (2/5, 1/5, 2/5). Squaring agrees with stepping.
    #[test]
    fn squaring_beyond_the_work_limit() {
        let p = crate::sparse::from_rows(&[
            &[(0, 0.5), (1, 0.25), (2, 0.25)],
            &[(0, 0.5), (2, 0.5)],
            &[(0, 0.25), (1, 0.25), (2, 0.5)],
        ]);
        let d = Dtmc::new(p, vec![0]).unwrap();
        let x = distribution_after_limited(&d, &[1.0, 0.0, 0.0], 2, 0).unwrap();
        for (a, b) in x.iter().zip([7.0 / 16.0, 3.0 / 16.0, 3.0 / 8.0]) {
            assert!((a - b).abs() < 1e-16);
        }
        let stepped = distribution_after(&d, &[0.0, 1.0, 0.0], 37).unwrap();
        let squared = distribution_after_limited(&d, &[0.0, 1.0, 0.0], 37, 0).unwrap();
        for (a, b) in stepped.iter().zip(&squared) {
            assert!((a - b).abs() < 1e-15);
        }
        let far = distribution_after_limited(&d, &[0.0, 1.0, 0.0], 1_000_000_000_000, 1000).unwrap();
        for (a, b) in far.iter().zip([0.4, 0.2, 0.4]) {
            assert!((a - b).abs() < 1e-14);
        }
    }

    use super::*;
    use crate::analysis::absorbing::tests::walk;

    #[test]
    fn walk_absorption_time() {
        let d = walk(0.5);
        let init = [0.0, 0.0, 1.0, 0.0, 0.0];
        let target = StateSet::from_states(5, [0, 4]);
        let dist = absorption_time_distribution(&d, &init, &target, &Default::default()).unwrap();
        // From the middle: T is even; P(T = 2) = 1/2, P(T = 4) = 1/4, ...
        assert_eq!(dist.pmf[..5], [0.0, 0.0, 0.5, 0.0, 0.25]);
        assert!(dist.converged && dist.tail < 1e-12);
        assert!((dist.truncated_mean() - 4.0).abs() < 1e-9);
        assert_eq!(dist.median(), Some(2));
        assert_eq!(dist.quantile(0.75), Some(4));
        assert_eq!(dist.mode(), 2);
        assert_eq!(dist.min(), Some(2));
        assert_eq!(dist.cdf(3), 0.5);
        let curve: Vec<f64> = dist.cdf_curve().collect();
        assert_eq!(curve.len() as u64, dist.horizon() + 1);
        // P(T ≤ t) = 1 − 2^-⌊t/2⌋: the one-pass curve against the closed form.
        for (t, c) in curve.iter().enumerate() {
            let exact = 1.0 - 0.5f64.powi((t / 2) as i32);
            assert!((c - exact).abs() <= 1e-15, "t = {t}: {c} vs {exact}");
        }
        assert_eq!(dist.survival(2), 0.5);
        let p2 = distribution_after(&d, &init, 2).unwrap();
        assert_eq!(p2, vec![0.25, 0.0, 0.5, 0.0, 0.25]);
    }

    /// The certified bound holds against exact rational stepping, for both methods: 1000 steps
    /// by vector products and by squaring, on a chain whose probabilities (thirds, sevenths) are
    /// not binary fractions.
    #[test]
    fn error_bound_holds_against_exact_stepping() {
        let p = crate::sparse::from_rows(&[
            &[(0, 1.0 / 3.0), (1, 2.0 / 3.0)],
            &[(0, 1.0 / 7.0), (1, 2.0 / 7.0), (2, 4.0 / 7.0)],
            &[(0, 0.5), (2, 0.5)],
        ]);
        let d = Dtmc::new(p, vec![0]).unwrap();
        let exact = crate::analysis::exact::distributions_exact(&d, 0, &[1000]).unwrap();
        for max_work in [u64::MAX, 10] {
            let got = transient_distribution(&d, &[1.0, 0.0, 0.0], 1000, max_work).unwrap();
            let l1: f64 = got
                .probabilities
                .iter()
                .zip(&exact[0])
                .map(|(x, e)| (x - crate::exact::Scalar::to_f64(e)).abs())
                .sum();
            // (+ the three roundings of the exact values to f64.)
            assert!(
                l1 <= got.error_bound + 3.0 * f64::EPSILON,
                "{l1} > {}",
                got.error_bound
            );
            assert!(got.error_bound < 1e-11, "{:?}: {}", got.method, got.error_bound);
        }
    }

    /// A slowly spreading walk on 20 000 states: the propagator steps its sparse frontier, then
    /// sweeps the whole chain in parallel.
    fn spreading_walk() -> Dtmc {
        Dtmc::new(crate::sparse::random::local_walk(20_000, 0.002, 5), vec![10_000]).unwrap()
    }

    #[test]
    fn stepping_equals_the_plain_products() {
        let d = spreading_walk();
        let mut x = vec![0.0; d.n()];
        x[10_000] = 1.0;
        let got = transient_distribution(&d, &x, 400, u64::MAX).unwrap();
        for _ in 0..400 {
            let mut y = vec![0.0; d.n()];
            d.matrix().vec_mul(&x, &mut y);
            x = y;
        }
        assert!(
            got.probabilities
                .iter()
                .zip(&x)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        assert_eq!(got.method, Method::Stepping);
        // Both kernels ran.
        let start: Vec<f64> = (0..d.n()).map(|s| f64::from(u8::from(s == 10_000))).collect();
        let p = step(&d, &start, 400).unwrap();
        assert!(p.sparse_steps() > 0 && p.full_steps() > 0);
        assert!(got.mass_error < 1e-13, "{}", got.mass_error);
        assert_eq!(got.mass_error, mass_error(&x));
        // 400 steps of rows of a few entries: (1 + δ)^400 − 1 ≈ 400 · 2 γ, a few 1e-13.
        assert!(
            got.error_bound > 400.0 * 2.0 * f64::EPSILON && got.error_bound < 1e-12,
            "{}",
            got.error_bound
        );
    }

    #[test]
    fn absorption_time_equals_the_plain_computation() {
        let d = spreading_walk();
        let target = StateSet::from_states(d.n(), [0, 123, 19_999]);
        let mut x = vec![0.0; d.n()];
        x[10_000] = 0.75;
        x[123] = 0.25;
        let options = TimeDistributionOptions {
            min_steps: 500,
            max_steps: 500,
            ..Default::default()
        };
        let got = absorption_time_distribution(&d, &x, &target, &options).unwrap();
        assert_eq!(got.horizon(), 500);
        assert_eq!(got.pmf[0], 0.25);
        // The plain computation: a product, then the target's mass taken out.
        x[123] = 0.0;
        for t in 1..=500 {
            let mut y = vec![0.0; d.n()];
            d.matrix().vec_mul(&x, &mut y);
            let absorbed: f64 = target.iter().map(|s| std::mem::take(&mut y[s as usize])).sum();
            let left: f64 = y.iter().sum();
            x = y;
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 + 1e-13 * b;
            assert!(
                close(got.pmf[t], absorbed),
                "t = {t}: {} vs {absorbed}",
                got.pmf[t]
            );
            assert!(
                close(got.survival[t], left),
                "t = {t}: {} vs {left}",
                got.survival[t]
            );
        }
        assert!(got.mass_error() < 1e-13);
        // At the horizon the cdf is the summed pmf (below 1/2), not 1 − survival.
        assert!(got.survival[500] > 0.5);
        assert_eq!(got.cdf(500), got.pmf.iter().sum::<f64>());
        assert_eq!(got.cdf(501), 1.0 - got.tail);
    }

    #[test]
    fn results_do_not_depend_on_the_threads() {
        let d = spreading_walk();
        let target = StateSet::from_states(d.n(), [0, 19_999]);
        let mut x = vec![0.0; d.n()];
        x[10_000] = 1.0;
        let options = TimeDistributionOptions {
            min_steps: 300,
            max_steps: 300,
            ..Default::default()
        };
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let time = absorption_time_distribution(&d, &x, &target, &options).unwrap();
                (time.pmf, time.survival, distribution_after(&d, &x, 300).unwrap())
            })
        };
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let (pmf, survival, after) = run(1);
        for threads in [2, 3] {
            let (p, s, a) = run(threads);
            assert_eq!(bits(&p), bits(&pmf));
            assert_eq!(bits(&s), bits(&survival));
            assert_eq!(bits(&a), bits(&after));
        }
    }

    #[test]
    fn trapped_start_is_an_error() {
        let d = walk(0.5);
        let e = absorption_time_distribution(
            &d,
            &[0.0, 0.0, 1.0, 0.0, 0.0],
            &StateSet::from_states(5, [4]),
            &Default::default(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::NotAlmostSure { state: 2, .. }));
    }
}
