//! `kolmo._kolmo`: the engine's Python bindings (PyO3). The Python package `kolmo` (in
//! `python/kolmo/`) wraps these in its public classes; this module only converts between NumPy
//! arrays and the engine's types, releases the GIL while the engine works (Ctrl-C stopping it:
//! [`interrupt`]) and turns the engine's errors into Python exceptions. Every number it returns
//! comes with the engine's certificate.

mod interrupt;
mod plot;

use interrupt::{interruptible, interruptible_with};
use kolmo::analysis::{AbsorbingChain, reach_probability, stationary::stationary_distribution};
use kolmo::model::{Dtmc, StateSet};
use kolmo::sparse::CsrBuilder;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    _kolmo,
    InputError,
    PyValueError,
    "The input is not a valid model or argument; the message names the place (state, row, argument)."
);
create_exception!(
    _kolmo,
    NotCertified,
    PyRuntimeError,
    "The engine could not certify an answer (an iteration limit, a singular system, a bound that does not close): no number is returned."
);

/// The engine's error as a Python exception: bad input is an [`InputError`], a stop (Ctrl-C, see
/// [`interrupt`]) a `KeyboardInterrupt`, everything else a [`NotCertified`].
fn to_py(e: kolmo::Error) -> PyErr {
    use kolmo::Error as E;
    match e {
        E::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err(e.to_string()),
        E::InvalidArgument { .. }
        | E::InvalidDistribution { .. }
        | E::Deadlock { .. }
        | E::Parse { .. }
        | E::Io { .. }
        | E::TooManyStates { .. }
        | E::TooLarge { .. } => InputError::new_err(e.to_string()),
        _ => NotCertified::new_err(e.to_string()),
    }
}

/// What to try when a floating-point result is refused.
const EXACT_HINT: &str = "; try exact=True (exact rationals, on models of up to a few thousand states)";

/// The library's one rule for giving a floating-point result ([`kolmo::account::certify`]), with
/// the Python advice.
fn certify(what: &'static str, bound: f64, scale: f64, residual: f64) -> kolmo::Result<()> {
    kolmo::account::certify(what, bound, scale, residual, EXACT_HINT)
}

/// The largest finite magnitude in `v` (the scale of an absolute bound on `v`).
fn largest(v: &[f64]) -> f64 {
    v.iter()
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()))
}

/// A discrete-time Markov chain held by the engine: built from coordinates `(row, column,
/// probability)`, repeats summed.
#[pyclass(module = "kolmo._kolmo", name = "_Chain", frozen)]
struct Chain {
    dtmc: Dtmc,
}

/// The chain's target states as a set, each checked.
fn target_set(n: usize, target: &[i64]) -> PyResult<StateSet> {
    let mut states = Vec::with_capacity(target.len());
    for &t in target {
        if t < 0 || t as usize >= n {
            return Err(InputError::new_err(format!(
                "target: state {t} is not a state of the chain (0 to {})",
                n.saturating_sub(1)
            )));
        }
        states.push(t as u32);
    }
    if states.is_empty() {
        return Err(InputError::new_err("target: no state given"));
    }
    Ok(StateSet::from_states(n, states))
}

/// Transition coordinates `(row, column, probability)` from Python, checked at once and sorted
/// once; [`add_row`](Self::add_row) then adds rows (a chain's states, an MDP's choices) to a
/// builder in increasing order, repeats summed. With exact fractions, the rows' sums are kept
/// (in storage order, zeros left out) and the `f64` values are their roundings.
struct Coordinates<'a> {
    rows: &'a [i64],
    cols: &'a [i64],
    probs: &'a [f64],
    exact: Option<Vec<kolmo::exact::Rational>>,
    /// The entries' indices by (row, column), and the next one to add.
    order: Vec<usize>,
    next: usize,
    /// The exact sums added so far.
    written: Vec<kolmo::exact::Rational>,
}

impl<'a> Coordinates<'a> {
    /// The coordinates of a matrix of `nrows` rows (`rows_are`: what a row is, for messages) over
    /// `ncols` states, each entry checked; `exact` one fraction `"p/q"` per entry.
    fn new(
        (rows, cols, probs): (&'a [i64], &'a [i64], &'a [f64]),
        exact: Option<Vec<String>>,
        (nrows, ncols): (usize, usize),
        rows_are: &str,
    ) -> PyResult<Self> {
        if rows.len() != cols.len() || rows.len() != probs.len() {
            return Err(InputError::new_err(format!(
                "coordinates: {} rows, {} columns and {} probabilities (one of each per entry)",
                rows.len(),
                cols.len(),
                probs.len()
            )));
        }
        for (k, (&i, &j)) in rows.iter().zip(cols).enumerate() {
            if i < 0 || j < 0 || i as usize >= nrows || j as usize >= ncols {
                return Err(InputError::new_err(format!(
                    "entry {k}: ({i}, {j}) is outside the {nrows} {rows_are} x {ncols} states"
                )));
            }
        }
        let exact = match exact {
            None => None,
            Some(texts) if texts.len() != probs.len() => {
                return Err(InputError::new_err("exact: one fraction per entry"));
            }
            Some(texts) => Some(fractions(texts, "entry")?),
        };
        Ok(Self {
            rows,
            cols,
            probs,
            exact,
            order: Vec::new(),
            next: 0,
            written: Vec::new(),
        })
    }

    /// Sorts the entries by (row, column): before the first [`add_row`](Self::add_row).
    fn sort(&mut self) {
        let (rows, cols) = (self.rows, self.cols);
        self.order = (0..rows.len()).collect();
        self.order.sort_unstable_by_key(|&k| (rows[k], cols[k]));
    }

    /// Adds row `r`'s entries to `b` (rows in increasing order) and finishes the row; `name`
    /// names the row in messages ("state 3", "state 3, choice 1").
    ///
    /// With exact fractions the row must sum to exactly 1 (the fractions are kept as given, not
    /// repaired) and each must be representable as a nonzero `f64` (a probability below 2⁻¹⁰⁷⁴
    /// would vanish from the floating-point matrix the other analyses use).
    fn add_row(&mut self, r: i64, b: &mut CsrBuilder, name: impl Fn() -> String) -> kolmo::Result<()> {
        use kolmo::exact::{Rational, Scalar};
        let (order, rows, cols) = (&self.order, self.rows, self.cols);
        let mut sum = Rational::ZERO;
        while self.next < order.len() && rows[order[self.next]] == r {
            let j = cols[order[self.next]];
            let (mut p, mut x) = (0.0, Rational::ZERO);
            while self.next < order.len() && rows[order[self.next]] == r && cols[order[self.next]] == j {
                p += self.probs[order[self.next]];
                if let Some(e) = &self.exact {
                    x = x.plus(&e[order[self.next]]);
                }
                self.next += 1;
            }
            if self.exact.is_some() {
                if x.is_zero() {
                    continue;
                }
                p = Scalar::to_f64(&x);
                if p == 0.0 {
                    return Err(kolmo::Error::arg(
                        "probabilities",
                        format!(
                            "{}: the probability of moving to state {j} is below the smallest positive float (2^-1074); kolmo cannot analyse it",
                            name()
                        ),
                    ));
                }
                sum = sum.plus(&x);
                self.written.push(x);
            }
            b.add(j as u32, p);
        }
        if self.exact.is_some() && sum != Rational::ONE {
            return Err(kolmo::Error::arg(
                "probabilities",
                format!(
                    "{}: the fractions given {} 1 by {:.3e} (exactly: they must sum to 1)",
                    name(),
                    if sum > Rational::ONE {
                        "exceed"
                    } else {
                        "fall short of"
                    },
                    Scalar::to_f64(&(sum.clone() - Rational::ONE)).abs()
                ),
            ));
        }
        b.finish_row();
        Ok(())
    }

    /// The exact probabilities added, when the coordinates had them.
    fn written(self) -> Option<kolmo::model::Written> {
        self.exact.map(|_| kolmo::model::Written {
            probabilities: self.written,
            rewards: Default::default(),
        })
    }
}

#[pymethods]
impl Chain {
    /// The `n`-state chain with transition probabilities `probs[k]` from `rows[k]` to `cols[k]`
    /// (repeats summed; every row must sum to 1). With `exact` (one fraction `"p/q"` per entry)
    /// the chain keeps those probabilities exactly, for the exact analyses; the `f64`
    /// probabilities are then their roundings.
    #[staticmethod]
    #[pyo3(signature = (n, rows, cols, probs, exact=None))]
    fn from_coo(
        py: Python<'_>,
        n: i64,
        rows: PyReadonlyArray1<'_, i64>,
        cols: PyReadonlyArray1<'_, i64>,
        probs: PyReadonlyArray1<'_, f64>,
        exact: Option<Vec<String>>,
    ) -> PyResult<Self> {
        if n <= 0 || n >= i64::from(u32::MAX) {
            return Err(InputError::new_err(format!("n: {n} states (1 to 2^32 - 2)")));
        }
        let n = n as usize;
        let coo = (rows.as_slice()?, cols.as_slice()?, probs.as_slice()?);
        // Every state needs an outgoing transition: refused before anything of size n is made.
        if n > coo.0.len() {
            return Err(InputError::new_err(format!(
                "{n} states but {} transitions: some state has no outgoing transition (every row must sum to 1)",
                coo.0.len()
            )));
        }
        let mut entries = Coordinates::new(coo, exact, (n, n), "states")?;
        let dtmc = interruptible(py, || {
            entries.sort();
            let mut b = CsrBuilder::new(n);
            for i in 0..n as i64 {
                entries.add_row(i, &mut b, || format!("state {i}"))?;
            }
            let dtmc = Dtmc::new(b.build(), vec![0])?;
            match entries.written() {
                Some(written) => dtmc.with_written(written),
                None => Ok(dtmc),
            }
        })?;
        Ok(Self { dtmc })
    }

    /// The number of states.
    #[getter]
    fn n(&self) -> usize {
        self.dtmc.n()
    }

    /// The absorbing-chain analysis towards `target`: the expected number of steps to reach it
    /// from every state (+inf where it is not reached with probability 1) with its certified
    /// relative error, and the probability of ever reaching it with its certified absolute error.
    #[pyo3(signature = (target, variance=true))]
    fn absorbing<'py>(
        &self,
        py: Python<'py>,
        target: Vec<i64>,
        variance: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let target = target_set(self.dtmc.n(), &target)?;
        let dtmc = &self.dtmc;
        let clock = std::time::Instant::now();
        let (time, reach) = interruptible(py, || -> kolmo::Result<_> {
            let time = AbsorbingChain::new(dtmc, &target)?.absorption_time_with(variance);
            let reach = reach_probability(dtmc, &target)?;
            // (Certified where some time is finite and positive, or when one overflowed.)
            if time.mean.iter().any(|x| x.is_finite() && *x > 0.0) || !time.error_bound.is_finite() {
                certify("the expected steps", time.error_bound, 1.0, time.residual)?;
            }
            certify(
                "the probability of reaching the target",
                reach.error_bound,
                1.0,
                reach.residual,
            )?;
            Ok((time, reach))
        })?;
        let seconds = clock.elapsed().as_secs_f64();
        let d = PyDict::new(py);
        d.set_item("seconds", seconds)?;
        d.set_item("expected_steps", time.mean.into_pyarray(py))?;
        d.set_item("expected_steps_error_bound", time.error_bound)?;
        d.set_item("method", time.method.to_string())?;
        d.set_item("variance", time.variance.map(|v| v.into_pyarray(py)))?;
        d.set_item("second_moment_residual", time.second_moment_residual)?;
        d.set_item("hitting_probability", reach.values.into_pyarray(py))?;
        d.set_item("hitting_probability_error_bound", reach.error_bound)?;
        Ok(d)
    }

    /// The exact expected steps to `target` and their variance from every state, as fractions
    /// `"p/q"` (`None`: +inf), on the probabilities as given (the exact ones when the chain was
    /// built with them, else the `f64` values' exact binary fractions).
    #[allow(clippy::type_complexity)]
    fn absorbing_exact(
        &self,
        py: Python<'_>,
        target: Vec<i64>,
    ) -> PyResult<(Vec<Option<String>>, Vec<Option<String>>)> {
        let target = target_set(self.dtmc.n(), &target)?;
        let dtmc = &self.dtmc;
        let t = interruptible(py, || {
            kolmo::analysis::exact::absorption_time_exact(dtmc, &target)
        })?;
        let text = |v: Vec<Option<kolmo::exact::Rational>>| -> Vec<Option<String>> {
            v.into_iter().map(|x| x.map(|x| x.to_string())).collect()
        };
        Ok((text(t.mean), text(t.variance)))
    }

    /// The fundamental matrix `N = (I − Q)⁻¹` of the chain absorbed in `target` (at most 5,000
    /// transient states): the transient states and `N` row-major, with the residual of its solves
    /// and the certified bound on every entry's absolute error.
    fn fundamental<'py>(&self, py: Python<'py>, target: Vec<i64>) -> PyResult<Bound<'py, PyDict>> {
        let target = target_set(self.dtmc.n(), &target)?;
        let dtmc = &self.dtmc;
        let f = interruptible(py, || {
            let f = AbsorbingChain::new(dtmc, &target)?.fundamental()?;
            certify(
                "the fundamental matrix",
                f.error_bound,
                largest(&f.matrix),
                f.residual,
            )?;
            Ok(f)
        })?;
        let d = PyDict::new(py);
        d.set_item("states", f.states)?;
        d.set_item("matrix", f.matrix.into_pyarray(py))?;
        d.set_item("residual", f.residual)?;
        d.set_item("error_bound", f.error_bound)?;
        Ok(d)
    }

    /// The distribution after `k` steps from the distribution `initial` (length n), with the
    /// certified bound on its 1-norm error (so on every entry's) and `|Σ p − 1|`.
    fn distribution_after<'py>(
        &self,
        py: Python<'py>,
        k: u64,
        initial: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let initial = initial.as_slice()?;
        let dtmc = &self.dtmc;
        let t = interruptible(py, || {
            let t = kolmo::analysis::transient::transient_distribution(
                dtmc,
                initial,
                k,
                kolmo::analysis::report::MAX_STEP_WORK,
            )?;
            certify("the distribution", t.error_bound, 1.0, t.mass_error)?;
            Ok(t)
        })?;
        let d = PyDict::new(py);
        d.set_item("distribution", t.probabilities.into_pyarray(py))?;
        d.set_item("mass_error", t.mass_error)?;
        d.set_item("error_bound", t.error_bound)?;
        Ok(d)
    }

    /// The mean first-passage matrix (row-major `n × n`, 0 on the diagonal, +inf where a state is
    /// not reached surely) with its certified relative error bound.
    fn first_passage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dtmc = &self.dtmc;
        let f = interruptible(py, || {
            let f = kolmo::analysis::mean_first_passage_matrix(dtmc)?;
            certify("the mean first-passage times", f.error_bound, 1.0, f64::NAN)?;
            Ok(f)
        })?;
        let d = PyDict::new(py);
        d.set_item("matrix", f.matrix.into_pyarray(py))?;
        d.set_item("error_bound", f.error_bound)?;
        Ok(d)
    }

    /// The stationary distribution of a chain with one closed class, with its certified bound on
    /// every entry's absolute error.
    fn stationary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dtmc = &self.dtmc;
        let clock = std::time::Instant::now();
        let s = interruptible(py, || stationary_distribution(dtmc.matrix()))?;
        let seconds = clock.elapsed().as_secs_f64();
        let d = PyDict::new(py);
        d.set_item("seconds", seconds)?;
        d.set_item("distribution", s.pi.into_pyarray(py))?;
        d.set_item("error_bound", s.error_bound)?;
        d.set_item("residual", s.residual)?;
        d.set_item("period", s.period)?;
        d.set_item("states", s.class)?;
        Ok(d)
    }

    /// The exact stationary distribution of a chain with one closed class, as fractions `"p/q"`
    /// (length n, 0 on transient states), on the chain's exact probabilities (the fractions it
    /// was built with, else the simplest fractions within 2 ulps of its `f64` values).
    fn stationary_exact(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let dtmc = &self.dtmc;
        let s = interruptible(py, || {
            stationary_distribution::<kolmo::exact::Rational>(&dtmc.exact_matrix()?)
        })?;
        Ok(s.pi.iter().map(ToString::to_string).collect())
    }

    /// The exact distribution after `k` steps from state `start`, as fractions `"p/q"`.
    fn distribution_after_exact(&self, py: Python<'_>, k: u64, start: i64) -> PyResult<Vec<String>> {
        let n = self.dtmc.n();
        if start < 0 || start as usize >= n {
            return Err(InputError::new_err(format!(
                "start: {start} is not a state (0 to {})",
                n - 1
            )));
        }
        let dtmc = &self.dtmc;
        let d = interruptible(py, || {
            kolmo::analysis::exact::distributions_exact(dtmc, start as u32, &[k])
        })?;
        Ok(d[0].iter().map(ToString::to_string).collect())
    }

    /// The expected total reward earned before `target` is entered, `rewards[s]` earned at each
    /// visit to a state `s` outside it (Kemeny & Snell §3.3): the values (+inf where the target
    /// is not reached surely) and a certified bound on each value's absolute error. With
    /// `exact` also the exact values as fractions (`None`: +inf), on the rewards `texts` (one
    /// fraction `"p/q"` per state) or, without them, the simplest fractions near the `f64` ones.
    #[pyo3(signature = (target, rewards, exact=false, texts=None))]
    #[allow(clippy::type_complexity)]
    fn expected_reward<'py>(
        &self,
        py: Python<'py>,
        target: Vec<i64>,
        rewards: PyReadonlyArray1<'_, f64>,
        exact: bool,
        texts: Option<Vec<String>>,
    ) -> PyResult<(Bound<'py, numpy::PyArray1<f64>>, f64, Option<Vec<Option<String>>>)> {
        let target = target_set(self.dtmc.n(), &target)?;
        let rewards = rewards.as_slice()?;
        let exact = match (exact, texts) {
            (false, _) => None,
            (true, Some(t)) => Some(fractions(t, "rewards")?),
            (true, None) => Some(kolmo::exact::rationalize_rewards(rewards).map_err(to_py)?),
        };
        let dtmc = &self.dtmc;
        let (values, bound, fractions) = interruptible(py, || -> kolmo::Result<_> {
            let (values, residual, bound) = AbsorbingChain::new(dtmc, &target)?.expected_reward(rewards)?;
            let x = match &exact {
                Some(r) => Some(kolmo::analysis::exact::expected_reward_exact(dtmc, &target, r)?),
                // (An overflowed value makes the bound +∞: refused.)
                None => {
                    certify("the expected reward", bound, largest(&values), residual)?;
                    None
                }
            };
            Ok((values, bound, x))
        })?;
        let text = fractions.map(|x| x.into_iter().map(|v| v.map(|v| v.to_string())).collect());
        Ok((values.into_pyarray(py), bound, text))
    }

    /// The long-run average reward per step (gain) of `rewards[s]` per step in state `s`, on each
    /// closed class (Puterman §8.2): for each class its states, the gain, its certified bound, and
    /// the bias on the class (`π h = 0`) with its residual.
    #[allow(clippy::type_complexity)]
    fn long_run_reward<'py>(
        &self,
        py: Python<'py>,
        rewards: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Vec<(Vec<u32>, f64, f64, Bound<'py, numpy::PyArray1<f64>>, f64)>> {
        let rewards = rewards.as_slice()?;
        let dtmc = &self.dtmc;
        let per_class = interruptible(py, || -> kolmo::Result<_> {
            let a = kolmo::analysis::ClassAnalysis::new(dtmc)?;
            let gb = a.gain_bias(rewards)?;
            for g in &gb {
                certify("the gain", g.gain_error_bound, g.gain, g.bias_residual)?;
            }
            let states: Vec<Vec<u32>> = a
                .closed
                .iter()
                .map(|&c| a.classes.classes[c].states.clone())
                .collect();
            Ok(states.into_iter().zip(gb).collect::<Vec<_>>())
        })?;
        Ok(per_class
            .into_iter()
            .map(|(states, g)| {
                (
                    states,
                    g.gain,
                    g.gain_error_bound,
                    g.bias.into_pyarray(py),
                    g.bias_residual,
                )
            })
            .collect())
    }

    /// The communicating classes: for each, its states, whether it is closed, and its period
    /// (`None` for a single state without a self-loop).
    fn classes(&self, py: Python<'_>) -> Vec<(Vec<u32>, bool, Option<u64>)> {
        let dtmc = &self.dtmc;
        let c = py.detach(|| kolmo::graph::classes(dtmc.matrix()));
        c.classes
            .into_iter()
            .map(|c| (c.states, c.closed, c.period))
            .collect()
    }
}

/// A Markov decision process held by the engine, with one reward per choice.
#[pyclass(module = "kolmo._kolmo", name = "_Mdp", frozen)]
struct Mdp {
    mdp: kolmo::model::Mdp,
    rewards: Vec<f64>,
    /// The rewards as exact fractions, when they were given as such.
    exact_rewards: Option<Vec<kolmo::exact::Rational>>,
}

/// Fractions `"p/q"` from Python, each checked; `what` names the argument in messages.
fn fractions(texts: Vec<String>, what: &str) -> PyResult<Vec<kolmo::exact::Rational>> {
    texts
        .iter()
        .enumerate()
        .map(|(k, t)| {
            kolmo::exact::parse_exact(t)
                .ok_or_else(|| InputError::new_err(format!("{what}[{k}]: {t:?} is not a fraction p/q")))
        })
        .collect()
}

#[pymethods]
impl Mdp {
    /// The MDP of `n` states whose state `s` has the choices `choice_ptr[s]..choice_ptr[s + 1]`;
    /// choice `choice[k]` moves to `cols[k]` with probability `probs[k]` (repeats summed, every
    /// choice's probabilities summing to 1); `rewards` has one entry per choice. With `exact`
    /// (one fraction `"p/q"` per entry) and `exact_rewards` (one per choice) the MDP keeps those
    /// numbers exactly for the exact solvers; the `f64` values are then their roundings.
    #[staticmethod]
    #[pyo3(signature = (choice_ptr, choice, cols, probs, rewards, exact=None, exact_rewards=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_choices(
        py: Python<'_>,
        choice_ptr: PyReadonlyArray1<'_, i64>,
        choice: PyReadonlyArray1<'_, i64>,
        cols: PyReadonlyArray1<'_, i64>,
        probs: PyReadonlyArray1<'_, f64>,
        rewards: PyReadonlyArray1<'_, f64>,
        exact: Option<Vec<String>>,
        exact_rewards: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let ptr = choice_ptr.as_slice()?;
        let mut rewards = rewards.as_slice()?.to_vec();
        let n = ptr.len().saturating_sub(1);
        if n == 0 || ptr[0] != 0 || ptr.windows(2).any(|w| w[0] >= w[1]) {
            return Err(InputError::new_err(
                "choices: every state needs at least one choice (choice pointers from 0, increasing)",
            ));
        }
        if n >= u32::MAX as usize {
            return Err(InputError::new_err(format!(
                "choices: {n} states (at most 2^32 - 2)"
            )));
        }
        let m = ptr[n] as usize;
        if rewards.len() != m {
            return Err(InputError::new_err(format!(
                "rewards: {} for {m} choices (one per choice)",
                rewards.len()
            )));
        }
        if let Some(k) = rewards.iter().position(|r| !r.is_finite()) {
            return Err(InputError::new_err(format!(
                "rewards: choice {k} has the reward {} (rewards must be finite)",
                rewards[k]
            )));
        }
        let exact_rewards = match exact_rewards {
            Some(t) if t.len() != m => {
                return Err(InputError::new_err(format!(
                    "exact rewards: {} for {m} choices (one per choice)",
                    t.len()
                )));
            }
            Some(t) => {
                let x = fractions(t, "rewards")?;
                rewards = x.iter().map(kolmo::exact::Scalar::to_f64).collect();
                Some(x)
            }
            None => None,
        };
        let coo = (choice.as_slice()?, cols.as_slice()?, probs.as_slice()?);
        let mut entries = Coordinates::new(coo, exact, (m, n), "choices")?;
        let mdp = interruptible(py, || {
            entries.sort();
            let mut b = CsrBuilder::new(n);
            for s in 0..n {
                // (Also for state 0: explicit groups even when there is one state.)
                b.new_row_group();
                for c in ptr[s]..ptr[s + 1] {
                    entries.add_row(c, &mut b, || format!("state {s}, choice {}", c - ptr[s]))?;
                }
            }
            let mdp = kolmo::model::Mdp::new(b.build(), vec![0])?;
            match entries.written() {
                Some(written) => mdp.with_written(written),
                None => Ok(mdp),
            }
        })?;
        Ok(Self {
            mdp,
            rewards,
            exact_rewards,
        })
    }

    /// The number of states.
    #[getter]
    fn n(&self) -> usize {
        self.mdp.n()
    }

    /// State `s` has the choices `choice_ptr[s]..choice_ptr[s + 1]` (length n + 1).
    #[getter]
    fn choice_ptr<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<i64>> {
        let m = self.mdp.matrix();
        let mut ptr: Vec<i64> = (0..self.mdp.n()).map(|s| m.group_rows(s).start as i64).collect();
        ptr.push(self.mdp.choices() as i64);
        ptr.into_pyarray(py)
    }

    /// Optimal values and an optimal policy (each state's choice, counted within the state) for
    /// `objective` through the library's one entry point (`kolmo::mdp::solve`, as `kolmo solve`):
    /// "discounted" (with `discount`, a decimal or fraction as text), "average", "reach" or
    /// "total" (with `target`), "horizon" (with `steps`, and `discount` or none). Returns values,
    /// policy, error_bound, iterations, method; with `exact` the exact values as fractions
    /// (`None` for ±inf) or why they were refused (`exact_refused`); the bias for "average"
    /// (unichain policies), every stage's choices for "horizon" (`decisions`, stages × n).
    ///
    /// With `maximiser` (one bool per state: the maximiser owns it, else the minimiser) the model
    /// is a two-player turn-based stochastic game (`kolmo::game::solve`): every objective above
    /// gives its values, each state's owner's optimal choice the policy.
    #[pyo3(signature = (objective, discount=None, minimize=false, target=None, maximiser=None, steps=None, exact=false))]
    #[allow(clippy::too_many_arguments)]
    fn solve<'py>(
        &self,
        py: Python<'py>,
        objective: &str,
        discount: Option<String>,
        minimize: bool,
        target: Option<Vec<i64>>,
        maximiser: Option<Vec<bool>>,
        steps: Option<u64>,
        exact: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        use kolmo::exact::Rational;
        use kolmo::mdp::{MdpOptions, Objective, Optimum};
        let optimum = if minimize { Optimum::Min } else { Optimum::Max };
        let options = MdpOptions::default();
        let n = self.mdp.n();
        let gamma = |upto_one: bool| -> PyResult<Option<Rational>> {
            let Some(text) = &discount else { return Ok(None) };
            match kolmo::exact::parse_exact(text) {
                Some(x) if x < Rational::ONE && kolmo::exact::Scalar::to_f64(&x) >= 1.0 => {
                    Err(InputError::new_err(format!(
                        "discount: {} is below 1 but rounds to 1 in floating point, where the discounted values are computed",
                        kolmo::excerpt(text)
                    )))
                }
                Some(x) if x >= Rational::ZERO && (x < Rational::ONE || (upto_one && x == Rational::ONE)) => {
                    Ok(Some(x))
                }
                _ => Err(InputError::new_err(format!(
                    "discount: {text} is not a number from 0 to {}",
                    if upto_one { "1" } else { "below 1" }
                ))),
            }
        };
        let target = |what: &str| -> PyResult<StateSet> {
            match &target {
                Some(t) => target_set(n, t),
                None => Err(InputError::new_err(format!("objective {what:?} needs a target"))),
            }
        };
        let objective = match objective {
            "discounted" => Objective::Discounted(
                gamma(false)?
                    .ok_or_else(|| InputError::new_err("objective \"discounted\" needs a discount"))?,
            ),
            "average" => Objective::Average,
            "reach" => Objective::Reach(target("reach")?),
            "total" => Objective::Total(target("total")?),
            "horizon" => Objective::Horizon {
                steps: steps.ok_or_else(|| InputError::new_err("objective \"horizon\" needs steps"))?,
                discount: gamma(true)?,
            },
            other => {
                return Err(InputError::new_err(format!(
                    "objective: {other:?} is not one of \"discounted\", \"average\", \"reach\", \"total\", \"horizon\""
                )));
            }
        };
        let (mdp, rewards) = (&self.mdp, &self.rewards);
        let exact_rewards = exact.then(|| match &self.exact_rewards {
            Some(x) => Ok(x.clone()),
            None => kolmo::exact::rationalize_rewards(rewards),
        });
        let solved = match &maximiser {
            Some(max) => interruptible(py, || {
                kolmo::game::solve(mdp, max, &objective, rewards, exact_rewards, &options)
            }),
            None => interruptible(py, || {
                kolmo::mdp::solve(mdp, &objective, optimum, rewards, exact_rewards, &options)
            }),
        }?;
        let d = solution_dict(py, solved.solution)?;
        let text = solved.exact.map(|x| {
            x.into_iter()
                .map(|v| v.map(|v| v.to_string()))
                .collect::<Vec<_>>()
        });
        d.set_item("exact", text)?;
        d.set_item("exact_refused", solved.exact_refused)?;
        d.set_item("bias", solved.bias.map(|b| b.into_pyarray(py)))?;
        d.set_item("decisions", solved.decisions)?;
        Ok(d)
    }
}

/// Reads a model file in any format the engine reads (by its extension): `("chain", _Chain)` or
/// `("mdp", _Mdp)` with the state names and the labels (name → states); an MDP's rewards are its
/// reward model `reward` (or its only one; none: zeros).
#[pyfunction]
#[pyo3(signature = (path, reward=None))]
fn read(py: Python<'_>, path: std::path::PathBuf, reward: Option<String>) -> PyResult<Py<PyAny>> {
    use kolmo::io::{Model, ReadOptions, read_model};
    let file = interruptible(py, || read_model(&path, &ReadOptions::default()))?;
    let labels = |l: &std::collections::BTreeMap<String, StateSet>| -> Vec<(String, Vec<u32>)> {
        l.iter().map(|(k, v)| (k.clone(), v.to_vec())).collect()
    };
    let result = match file.model {
        Model::Dtmc(dtmc) => {
            let names: Vec<String> = (0..dtmc.n() as u32).map(|s| dtmc.state_name(s)).collect();
            let l = labels(dtmc.labels());
            ("chain", Chain { dtmc }, names, l)
                .into_pyobject(py)?
                .into_any()
                .unbind()
        }
        Model::Mdp(mdp) => {
            let models = mdp.reward_models();
            let chosen = match &reward {
                Some(r) => Some(models.get(r).ok_or_else(|| {
                    InputError::new_err(format!(
                        "reward: no reward model {r:?} (the file has: {})",
                        models.keys().cloned().collect::<Vec<_>>().join(", ")
                    ))
                })?),
                None if models.len() == 1 => models.values().next(),
                None if models.is_empty() => None,
                None => {
                    return Err(InputError::new_err(format!(
                        "reward: the file has several reward models ({}); name one",
                        models.keys().cloned().collect::<Vec<_>>().join(", ")
                    )));
                }
            };
            let rewards = chosen.map_or_else(
                || vec![0.0; mdp.choices()],
                |r| r.expected_per_choice(mdp.matrix()),
            );
            let names: Vec<String> = (0..mdp.n() as u32).map(|s| mdp.state_name(s)).collect();
            let l = labels(mdp.labels());
            (
                "mdp",
                Mdp {
                    mdp,
                    rewards,
                    exact_rewards: None,
                },
                names,
                l,
            )
                .into_pyobject(py)?
                .into_any()
                .unbind()
        }
    };
    Ok(result)
}

/// An MDP's or a game's solution as a dict: values, policy, error_bound, iterations, method.
fn solution_dict<'py>(py: Python<'py>, solution: kolmo::mdp::MdpSolution) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("values", solution.values.into_pyarray(py))?;
    d.set_item("policy", solution.policy.into_pyarray(py))?;
    d.set_item("error_bound", solution.error_bound)?;
    d.set_item("iterations", solution.iterations)?;
    d.set_item("method", solution.method.to_string())?;
    Ok(d)
}

/// A board's or its analysis' error: a bad board (naming the cell) is an [`InputError`].
fn board_error(e: kolmo::Error) -> PyErr {
    match kolmo::games::InputError::try_from_error(e) {
        Ok(input) => InputError::new_err(input.to_string()),
        Err(e) => to_py(e),
    }
}

/// A Snakes and Ladders board (`kolmo snakes`) built once from Python's arguments (a bad board
/// raises `InputError` naming the cell); its analysis here, its figures in `plot.rs`.
#[pyclass(module = "kolmo._kolmo", name = "_Board", frozen)]
pub(crate) struct SnakesBoard {
    pub(crate) board: kolmo::games::snakes::Board,
}

#[pymethods]
impl SnakesBoard {
    /// The board of cells `0..=size`, the token starting at `start`, the die (`faces` for a fair
    /// die, else `weights`), the `rule` for rolls past the end ("clamp", "stay", "bounce") and
    /// its portals `(kind, from, to)` with kind "snake", "ladder" or "portal"; `classic` takes
    /// the built-in 100-cell board instead.
    #[new]
    #[pyo3(signature = (size=100, start=0, faces=6, weights=None, rule="clamp", portals=Vec::new(), classic=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        size: i64,
        start: i64,
        faces: usize,
        weights: Option<Vec<f64>>,
        rule: &str,
        portals: Vec<(String, i64, i64)>,
        classic: bool,
    ) -> PyResult<Self> {
        use kolmo::games::snakes::{Board, BoardSpec, Die, PortalKind, Rule};
        let spec = if classic {
            BoardSpec::classic()
        } else {
            let rule: Rule = rule
                .parse()
                .map_err(|e| InputError::new_err(format!("rule: {e}")))?;
            let mut list = Vec::with_capacity(portals.len());
            for (kind, from, to) in portals {
                let kind = match kind.as_str() {
                    "snake" => PortalKind::Snake,
                    "ladder" => PortalKind::Ladder,
                    "portal" => PortalKind::Portal,
                    other => {
                        return Err(InputError::new_err(format!(
                            "portals: kind {other:?} is not \"snake\", \"ladder\" or \"portal\""
                        )));
                    }
                };
                list.push((kind, from, to, None));
            }
            BoardSpec {
                name: "python".into(),
                start,
                die: weights.map_or(Die::Fair(faces), Die::Weighted),
                rule,
                portals: list,
                ..BoardSpec::empty(size)
            }
        };
        let board = Board::new(&spec).map_err(board_error)?;
        Ok(Self { board })
    }

    /// The board analysed as an absorbing chain, with its certified bounds; with `players` > 1
    /// the race's win probabilities.
    #[pyo3(signature = (players=1))]
    fn analyze<'py>(&self, py: Python<'py>, players: usize) -> PyResult<Bound<'py, PyDict>> {
        use kolmo::games::snakes::AnalysisOptions;
        let options = AnalysisOptions {
            players,
            ..AnalysisOptions::default()
        };
        let a = interruptible_with(py, || self.board.analyze(&options), board_error)?;
        let d = PyDict::new(py);
        d.set_item("expected_rolls", a.expected_rolls)?;
        d.set_item("variance", a.variance)?;
        d.set_item("std_dev", a.std_dev)?;
        d.set_item("error_bound", a.solve.error_bound)?;
        d.set_item(
            "expected_rolls_by_cell",
            a.expected_rolls_by_cell.into_pyarray(py),
        )?;
        d.set_item("variance_by_cell", a.variance_by_cell.into_pyarray(py))?;
        d.set_item("pmf", a.time.pmf.into_pyarray(py))?;
        d.set_item("median", a.median)?;
        d.set_item("mode", a.mode)?;
        d.set_item("min_rolls", a.min_rolls)?;
        let usage: Vec<(&str, u32, u32, f64)> = a
            .portal_usage
            .iter()
            .map(|u| (u.portal.kind.name(), u.portal.from, u.portal.to, u.expected_uses))
            .collect();
        d.set_item("portal_usage", usage)?;
        if let Some(r) = a.race {
            d.set_item("win_probability", r.win_probability.into_pyarray(py))?;
            d.set_item("expected_rounds", r.expected_rounds)?;
        }
        Ok(d)
    }
}

/// The 3-card rock-paper-scissors game (`kolmo cards`): Alice's optimal expected total over
/// `rounds` rounds from the hands `alice` and `bob` (e.g. "RPS"), its guaranteed error bound, and
/// the gain per round.
#[pyfunction]
#[pyo3(signature = (rounds, alice="RPS", bob="RPS"))]
fn cards_value(py: Python<'_>, rounds: u64, alice: &str, bob: &str) -> PyResult<(f64, f64, f64)> {
    use kolmo::games::rps_cards::{CardGame, Hand};
    let a = Hand::parse(alice).map_err(|e| InputError::new_err(format!("alice: {e}")))?;
    let b = Hand::parse(bob).map_err(|e| InputError::new_err(format!("bob: {e}")))?;
    interruptible(py, || -> kolmo::Result<_> {
        let g = CardGame::new()?;
        let sol = g.solve()?;
        let (value, bound) = sol.value(rounds, g.alice_state(a, b));
        Ok((value, bound, sol.gain()))
    })
}

/// Checks the properties `properties` (pairs: a name for messages, the text) on the model file
/// `model` (the PRISM language by its extension, or any format the engine reads) with the
/// constants `constants` (`N=20,K=4`, as `kolmo check --const`); `exact` adds exact fractions
/// where the operator has them; a model with more than `max_states` reachable states is refused.
/// Returns the JSON document `kolmo check --json` writes and each
/// property's certified bound on the absolute error of its values.
#[pyfunction]
#[pyo3(signature = (model, properties, constants="", exact=false, max_states=kolmo::check::DEFAULT_MAX_STATES))]
fn check(
    py: Python<'_>,
    model: std::path::PathBuf,
    properties: Vec<(String, String)>,
    constants: &str,
    exact: bool,
    max_states: usize,
) -> PyResult<(String, Vec<f64>)> {
    use kolmo::check::{CheckOptions, CheckRequest, check_file};
    let request = CheckRequest {
        model,
        properties: properties
            .into_iter()
            .map(|(name, text)| (name.into(), text))
            .collect(),
        constants: kolmo::lang::parse_constants(constants).map_err(to_py)?,
        fix_deadlocks: true,
        max_states: Some(max_states),
        options: CheckOptions {
            exact,
            ..CheckOptions::default()
        },
        ..CheckRequest::default()
    };
    let report = interruptible(py, || check_file(&request))?;
    // The document `kolmo check --json` writes (the library's serialisation of the report), and
    // each property's certified bound, which the document leaves to its intervals.
    let document = serde_json::to_string(&report)
        .map_err(|e| NotCertified::new_err(format!("the report could not be written: {e}")))?;
    Ok((document, report.results.iter().map(|r| r.error_bound).collect()))
}

/// The extension module.
#[pymodule]
fn _kolmo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Chain>()?;
    m.add_class::<Mdp>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_class::<SnakesBoard>()?;
    m.add_function(wrap_pyfunction!(cards_value, m)?)?;
    plot::register(m)?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("NotCertified", m.py().get_type::<NotCertified>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_MAX_STATES", kolmo::check::DEFAULT_MAX_STATES)?;
    Ok(())
}
