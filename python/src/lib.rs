//! `kolmo._kolmo`: the engine's Python bindings (PyO3). The Python package `kolmo` (in
//! `python/kolmo/`) wraps these in its public classes; this module only converts between NumPy
//! arrays and the engine's types, releases the GIL while the engine works and turns the engine's
//! errors into Python exceptions. Every number it returns comes with the engine's certificate.

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

/// The engine's error as a Python exception: bad input is an [`InputError`], everything else a
/// [`NotCertified`].
fn to_py(e: kolmo::Error) -> PyErr {
    use kolmo::Error as E;
    match e {
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

#[pymethods]
impl Chain {
    /// The `n`-state chain with transition probabilities `probs[k]` from `rows[k]` to `cols[k]`
    /// (repeats summed; every row must sum to 1).
    #[staticmethod]
    fn from_coo(
        py: Python<'_>,
        n: i64,
        rows: PyReadonlyArray1<'_, i64>,
        cols: PyReadonlyArray1<'_, i64>,
        probs: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Self> {
        let (rows, cols, probs) = (rows.as_slice()?, cols.as_slice()?, probs.as_slice()?);
        if n <= 0 || n >= i64::from(u32::MAX) {
            return Err(InputError::new_err(format!("n: {n} states (1 to 2^32 - 2)")));
        }
        let n = n as usize;
        if rows.len() != cols.len() || rows.len() != probs.len() {
            return Err(InputError::new_err(format!(
                "coordinates: {} rows, {} columns and {} probabilities (one of each per entry)",
                rows.len(),
                cols.len(),
                probs.len()
            )));
        }
        for (k, (&i, &j)) in rows.iter().zip(cols).enumerate() {
            if i < 0 || j < 0 || i as usize >= n || j as usize >= n {
                return Err(InputError::new_err(format!(
                    "entry {k}: ({i}, {j}) is outside the {n} x {n} matrix"
                )));
            }
        }
        let dtmc = py
            .detach(|| {
                let mut order: Vec<usize> = (0..rows.len()).collect();
                order.sort_unstable_by_key(|&k| (rows[k], cols[k]));
                let mut b = CsrBuilder::new(n);
                let mut k = 0;
                for i in 0..n as i64 {
                    while k < order.len() && rows[order[k]] == i {
                        let j = cols[order[k]];
                        let mut p = 0.0;
                        while k < order.len() && rows[order[k]] == i && cols[order[k]] == j {
                            p += probs[order[k]];
                            k += 1;
                        }
                        b.add(j as u32, p);
                    }
                    b.finish_row();
                }
                Dtmc::new(b.build(), vec![0])
            })
            .map_err(to_py)?;
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
    fn absorbing<'py>(&self, py: Python<'py>, target: Vec<i64>) -> PyResult<Bound<'py, PyDict>> {
        let target = target_set(self.dtmc.n(), &target)?;
        let dtmc = &self.dtmc;
        let (time, reach) = py
            .detach(|| -> kolmo::Result<_> {
                let time = AbsorbingChain::new(dtmc, &target)?.absorption_time_with(false);
                let reach = reach_probability(dtmc, &target)?;
                Ok((time, reach))
            })
            .map_err(to_py)?;
        let d = PyDict::new(py);
        d.set_item("expected_steps", time.mean.into_pyarray(py))?;
        d.set_item("expected_steps_error_bound", time.error_bound)?;
        d.set_item("expected_steps_method", time.method.to_string())?;
        d.set_item("hitting_probability", reach.values.into_pyarray(py))?;
        d.set_item("hitting_probability_error_bound", reach.error_bound)?;
        Ok(d)
    }

    /// The stationary distribution of a chain with one closed class, with its certified bound on
    /// every entry's absolute error.
    fn stationary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dtmc = &self.dtmc;
        let s = py
            .detach(|| stationary_distribution(dtmc.matrix()))
            .map_err(to_py)?;
        let d = PyDict::new(py);
        d.set_item("distribution", s.pi.into_pyarray(py))?;
        d.set_item("error_bound", s.error_bound)?;
        d.set_item("residual", s.residual)?;
        d.set_item("period", s.period)?;
        d.set_item("states", s.class)?;
        Ok(d)
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

/// The extension module.
#[pymodule]
fn _kolmo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Chain>()?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("NotCertified", m.py().get_type::<NotCertified>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
