//! Stationary distributions of closed classes, mean recurrence times, and the long-run average
//! reward (gain) and bias of a Markov reward process on a closed class.
//!
//! # Method
//! For a closed class `C` and a reference state `r ∈ C`, let `Q` be `P` restricted to `C \ {r}`:
//! every state there reaches `r` with probability 1, so `I − Q` is non-singular and `N = (I − Q)⁻¹ ≥
//! 0`. The expected numbers of visits to each `j ≠ r` between two visits to `r` solve
//! `x (I − Q) = P[r, ·]`, and `π ∝ (1 at r, x)` (Kemeny & Snell, *Finite Markov Chains*, 1960,
//! Theorem 6.2.3 / the "cycle" formula; Stewart, *Introduction to the Numerical Solution of Markov
//! Chains*, 1994, §2.3). The factorisation is reused for the bias.
//!
//! # Error bound
//! With `e = x̂(I − Q) − b` the computed residual and `ŷ` the solution of `y (I − Q) = 1ᵀ` (whose
//! residual `f` has `‖f‖∞ < 1`), `x − x̂ = −e N`, so `|x_j − x̂_j| ≤ ‖e‖∞ (1ᵀN)_j ≤ ‖e‖∞ ŷ_j /
//! (1 − ‖f‖∞)` componentwise. Dividing by `1 + Σx` propagates this to a guaranteed absolute bound
//! on every `π_j` (up to the rounding of the residual evaluation, which is done in twice the
//! working precision). Unlike `‖πP − π‖∞`, this bound accounts for the chain's conditioning: a
//! slowly mixing chain (a long ring) has a tiny residual but a larger bound.

use super::subsystem::Subsystem;
use crate::account::{Account, Guarantee, Method};
use crate::exact::Scalar;
use crate::graph::classes;
use crate::linsolve::Factored;
use crate::linsolve::Solvable;
use crate::sparse::CsrMatrix;
use crate::{Error, Result, StateId};

/// The stationary distribution of a chain with a single closed class (unichain).
#[derive(Clone, Debug, serde::Serialize)]
#[serde(bound(serialize = "T: crate::account::ser::JsonScalar"))]
pub struct Stationary<T = f64> {
    /// `π`, length `n`: 0 on the transient states; `π P = π`, `Σ π = 1`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub pi: Vec<T>,
    /// The states of the closed class, ascending.
    pub class: Vec<StateId>,
    /// The period of the closed class (1 = aperiodic).
    pub period: u64,
    /// Whether the closed class is the whole chain (irreducible).
    pub irreducible: bool,
    /// `‖π P − π‖∞` (0 for exact arithmetic).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
    /// Guaranteed bound on `max_j |π_j − π̂_j|` (0 for exact arithmetic); see the module docs.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
}

/// The stationary distribution of the Markov chain with transition matrix `p` (`n × n`, one row
/// per state), which must have exactly one closed class; computed by [`RecurrentClass`].
///
/// # Errors
/// [`Error::InvalidArgument`] if the chain has several closed classes (multichain: no single
/// stationary distribution); [`Error::Singular`] / [`Error::TooLarge`] from the solve.
pub fn stationary_distribution<T: Solvable>(p: &CsrMatrix<T>) -> Result<Stationary<T>> {
    let n = p.ncols();
    let cls = classes(&pattern(p));
    let closed: Vec<_> = cls.closed().collect();
    if closed.len() != 1 {
        return Err(Error::arg(
            "chain",
            format!(
                "{} closed classes: the stationary distribution is not unique (multichain)",
                closed.len()
            ),
        ));
    }
    let class = closed[0].states.clone();
    let period = closed[0].period.unwrap_or(1);
    let st = RecurrentClass::new(p, &class)?.stationary()?;
    let mut pi = vec![T::zero(); n];
    for (&v, x) in class.iter().zip(st.pi) {
        pi[v as usize] = x;
    }
    Ok(Stationary {
        pi,
        irreducible: class.len() == n,
        class,
        period,
        residual: st.residual,
        error_bound: st.error_bound,
    })
}

/// The `0/1` pattern of `p` in `f64`, for the graph algorithms.
fn pattern<T: Solvable>(p: &CsrMatrix<T>) -> CsrMatrix {
    let (row_ptr, cols, vals) = p.as_parts();
    CsrMatrix::from_sorted_parts(
        p.ncols(),
        row_ptr.to_vec(),
        cols.to_vec(),
        vals.iter().map(|v| if v.is_zero() { 0.0 } else { 1.0 }).collect(),
    )
}

/// The stationary distribution of one closed class.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(bound(serialize = "T: crate::account::ser::JsonScalar"))]
pub struct ClassStationary<T = f64> {
    /// The class's states, ascending (length `k`).
    pub class: Vec<StateId>,
    /// `π` on the class, in the order of `class` (length `k`); sums to 1.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub pi: Vec<T>,
    /// Mean recurrence times `1/π_j`, in steps, in the order of `class` (length `k`) (Kemeny &
    /// Snell, Theorem 4.4.5).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub mean_recurrence_times: Vec<T>,
    /// `‖π P − π‖∞` over the class (0 in exact arithmetic).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub residual: f64,
    /// Guaranteed bound on `max_j |π_j − π̂_j|` (0 in exact arithmetic), `π` the stationary
    /// distribution of the model as written: the solve's certificate with what the rounding of
    /// the input probabilities to `f64` can do (O'Cinneide 1993, via
    /// [`perturbation_growth`](crate::numeric::perturbation_growth)).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub error_bound: f64,
    /// Guaranteed bound on `max_j |π_j − π̂_j| / π̂_j`, which is also the relative error bound of
    /// the mean recurrence times to first order (0 in exact arithmetic).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub relative_error_bound: f64,
    /// How the numbers were obtained.
    pub method: Method,
}

impl<T> ClassStationary<T> {
    /// How `pi` was obtained: the bound is absolute on every entry (`relative_error_bound` is
    /// the relative one); exact arithmetic has bound 0.
    #[must_use]
    pub fn account(&self) -> Account {
        let exact = self.error_bound == 0.0 && self.residual == 0.0;
        Account {
            method: self.method.clone(),
            iterations: None,
            residual: self.residual,
            bound: self.error_bound,
            guarantee: if exact {
                Guarantee::Exact
            } else {
                Guarantee::AbsoluteError
            },
        }
    }
}

/// The long-run average reward and the bias of a Markov reward process on a closed class.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GainBias {
    /// The gain `g = Σ_j π_j r_j`: the long-run average reward per step from any state of the class
    /// (Puterman, *Markov Decision Processes*, 1994, §8.2.1).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub gain: f64,
    /// Guaranteed bound on `|g − ĝ|`: `Σ_j |π_j − π̂_j| |r_j|`.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub gain_error_bound: f64,
    /// The bias `h` on the class (order of the class), normalised by `π h = 0`: `h = r − g + P h`;
    /// `h_j − h_i` is the extra total reward of starting in `j` rather than `i` (Puterman §8.2.3).
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub bias: Vec<f64>,
    /// `‖h + g − r − P h‖∞` over the class.
    #[serde(serialize_with = "crate::account::ser::number")]
    pub bias_residual: f64,
}

/// A closed class of a Markov chain with `I − Q` factored once (`Q` = the class without its
/// reference state): see the module docs for the method.
///
/// In `f64` the reference state is chosen where `π` is largest, so that the visit counts `x =
/// π/π_r` stay at most 1 and do not overflow: a first guess from a few steps of the lazy chain
/// `(I + P)/2` from the uniform distribution, then, while the solve shows a state more than 4
/// times as likely, that state (a few rounds at most).
#[derive(Debug)]
pub struct RecurrentClass<'a, T: Solvable = f64> {
    p: &'a CsrMatrix<T>,
    class: Vec<StateId>,
    /// Index in `class` of the reference state `r`.
    reference: usize,
    rest: Subsystem<T>,
    lu: Factored<T>,
}

impl<'a, T: Solvable> RecurrentClass<'a, T> {
    /// Factors the class `class` (ascending states of a closed class of `p`, `n × n`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `class` is empty, not ascending, out of range or not closed
    /// (a transition leaves it); [`Error::Singular`] if the factorisation breaks down (it cannot
    /// for a closed communicating class in exact arithmetic).
    pub fn new(p: &'a CsrMatrix<T>, class: &[StateId]) -> Result<Self> {
        let n = p.ncols();
        if class.is_empty() || class.windows(2).any(|w| w[0] >= w[1]) || *class.last().unwrap() as usize >= n
        {
            return Err(Error::arg(
                "class",
                "an ascending, non-empty list of states of the chain",
            ));
        }
        for &v in class {
            let (cols, vals) = p.row(v as usize);
            if let Some((&t, _)) = cols
                .iter()
                .zip(vals)
                .find(|(t, x)| !x.is_zero() && class.binary_search(t).is_err())
            {
                return Err(Error::arg(
                    "class",
                    format!("not closed: state {v} moves to state {t} outside it"),
                ));
            }
        }
        let mut reference = if T::EXACT { 0 } else { Self::likely_state(p, class) };
        let mut rounds = 0;
        loop {
            crate::interrupt::check()?;
            let states: Vec<StateId> = class
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != reference)
                .map(|(_, &v)| v)
                .collect();
            let rest = Subsystem::from_sorted_states(p, states);
            let lu = rest.factor_i_minus_q("stationary distribution (I - Q)")?;
            let this = Self {
                p,
                class: class.to_vec(),
                reference,
                rest,
                lu,
            };
            rounds += 1;
            if T::EXACT || class.len() == 1 || rounds > 6 {
                return Ok(this);
            }
            // x = π/π_r: move the reference to a state more than 4 times as likely (or to the
            // largest finite value where the counts overflowed).
            let mut x = this.reference_row();
            this.lu.solve_transpose_in_place(&mut x);
            let best = x
                .iter()
                .map(Scalar::to_f64)
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let overflow = x.iter().any(|v| !v.to_f64().is_finite());
            match best {
                Some((i, v)) if v > 4.0 || overflow => reference = this.class_index(i),
                _ => return Ok(this),
            }
        }
    }

    /// Index in `class` of the rest's position `i`.
    fn class_index(&self, i: usize) -> usize {
        if i < self.reference { i } else { i + 1 }
    }

    /// A guess of the class's most likely state: 32 steps of the lazy chain `(I + P)/2` from the
    /// uniform distribution on the class.
    fn likely_state(p: &CsrMatrix<T>, class: &[StateId]) -> usize {
        let k = class.len();
        let mut v = vec![1.0 / k as f64; k];
        let mut next = vec![0.0; k];
        for _ in 0..32 {
            next.copy_from_slice(&v);
            next.iter_mut().for_each(|x| *x *= 0.5);
            for (i, &s) in class.iter().enumerate() {
                let (cols, vals) = p.row(s as usize);
                for (&t, x) in cols.iter().zip(vals) {
                    if let Ok(j) = class.binary_search(&t) {
                        next[j] += 0.5 * v[i] * x.to_f64();
                    }
                }
            }
            std::mem::swap(&mut v, &mut next);
        }
        v.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |m| m.0)
    }

    /// The class's states, ascending.
    #[must_use]
    pub fn states(&self) -> &[StateId] {
        &self.class
    }

    /// `b = P[r, ·]` restricted to the rest of the class, in subsystem order.
    fn reference_row(&self) -> Vec<T> {
        let mut b = vec![T::zero(); self.rest.len()];
        let (cols, vals) = self.p.row(self.class[self.reference] as usize);
        for (&t, x) in cols.iter().zip(vals) {
            if let Some(i) = self.rest.position(t) {
                b[i] = x.clone();
            }
        }
        b
    }

    /// The stationary distribution of the class and its mean recurrence times.
    ///
    /// # Errors
    /// [`Error::Singular`] if an exact solve does not verify (it cannot); in `f64`,
    /// [`Error::Uncertified`] if no error bound can be given (the chain is too ill-conditioned).
    pub fn stationary(&self) -> Result<ClassStationary<T>> {
        let k = self.class.len();
        let b = self.reference_row();
        let (x, error_bound_x) = if T::EXACT {
            (
                self.rest.solve_transposed_verified(&self.lu, &b)?,
                vec![0.0; k - 1],
            )
        } else {
            self.solve_f64(&b)?
        };
        // π ∝ x with x_r = 1, in class order.
        let total = x.iter().fold(T::one(), |a, v| a.plus(v));
        let mut x = x.into_iter();
        let pi: Vec<T> = (0..k)
            .map(|j| {
                if j == self.reference {
                    T::one()
                } else {
                    x.next().expect("k − 1 values")
                }
            })
            .map(|v| v.over(&total))
            .collect();
        let mean_recurrence_times: Vec<T> = pi.iter().map(|v| T::one().over(v)).collect();
        let (mut error_bound, mut relative_error_bound) = (0.0, 0.0);
        if !T::EXACT {
            // |π_j − π̂_j| ≤ δ_j/(Ŝ − Δ) + x̂_j Δ/(Ŝ (Ŝ − Δ)), δ_r = 0, x̂_r = 1.
            let s = total.to_f64();
            let delta: f64 = error_bound_x.iter().sum();
            if delta >= s {
                return Err(Error::Uncertified {
                    what: "stationary distribution",
                    bound: f64::INFINITY,
                    residual: f64::NAN,
                    hint: String::new(),
                });
            }
            // What the rounding of the input probabilities can do: x = N b moves by a relative
            // `g` at most (Subsystem::input_growth; for π this is O'Cinneide's entrywise
            // bound), and π = x/Σx by (1 + g)/(1 − g) − 1.
            let g = self.rest.input_growth(true);
            let input = if g < 1.0 {
                2.0 * g / (1.0 - g)
            } else {
                f64::INFINITY
            };
            // + one rounding of each π̂_j to f64 (2/5 is not a binary fraction).
            for (j, pj) in pi.iter().enumerate() {
                let dj = match j.cmp(&self.reference) {
                    std::cmp::Ordering::Less => error_bound_x[j],
                    std::cmp::Ordering::Equal => 0.0,
                    std::cmp::Ordering::Greater => error_bound_x[j - 1],
                };
                let xj = pj.to_f64() * s;
                let solve = dj / (s - delta) + xj * delta / (s * (s - delta)) + pj.to_f64() * f64::EPSILON;
                let bound = solve + input * (pj.to_f64() + solve);
                error_bound = f64::max(error_bound, bound);
                if pj.to_f64() >= f64::MIN_POSITIVE {
                    relative_error_bound = f64::max(relative_error_bound, bound / pj.to_f64());
                }
            }
        }
        let residual = if T::EXACT { 0.0 } else { self.balance_residual(&pi) };
        Ok(ClassStationary {
            class: self.class.clone(),
            pi,
            mean_recurrence_times,
            residual,
            error_bound,
            relative_error_bound,
            method: Method::ReturnVisits {
                solver: self.lu.solver(),
                refined: !T::EXACT,
            },
        })
    }

    /// `‖πP − π‖∞` over the class, for `π` in class order.
    fn balance_residual(&self, pi: &[T]) -> f64 {
        let mut r: Vec<f64> = pi.iter().map(|v| -v.to_f64()).collect();
        let position = |t: StateId| self.class.binary_search(&t).ok();
        for (i, &v) in self.class.iter().enumerate() {
            let (cols, vals) = self.p.row(v as usize);
            for (&t, x) in cols.iter().zip(vals) {
                if let Some(j) = position(t) {
                    r[j] += pi[i].to_f64() * x.to_f64();
                }
            }
        }
        r.iter().fold(0.0f64, |m, v| m.max(v.abs()))
    }

    /// `x̂` for `x (I − Q) = b` in `f64` and the componentwise bound on `|x − x̂|`.
    fn solve_f64(&self, b: &[T]) -> Result<(Vec<T>, Vec<f64>)> {
        let (rest, lu) = self.as_f64();
        let b: Vec<f64> = b.iter().map(Scalar::to_f64).collect();
        let (x, e) = rest.solve_transposed_refined(lu, &b);
        let (y, f) = rest.solve_transposed_refined(lu, &vec![1.0; b.len()]);
        // A Krylov solve stopped by a stop request left NaN: report the stop.
        crate::interrupt::check()?;
        if f.is_nan() || f >= 1.0 || !e.is_finite() || x.iter().any(|v| !v.is_finite()) {
            return Err(Error::Uncertified {
                what: "stationary distribution",
                bound: f64::INFINITY,
                residual: e,
                hint: String::new(),
            });
        }
        let bound = y.iter().map(|yj| e * yj.max(0.0) / (1.0 - f)).collect();
        Ok((x.into_iter().map(T::from_f64).collect(), bound))
    }

    fn as_f64(&self) -> (&Subsystem<f64>, &Factored<f64>) {
        let any: (&dyn std::any::Any, &dyn std::any::Any) = (&self.rest, &self.lu);
        match (any.0.downcast_ref(), any.1.downcast_ref()) {
            (Some(r), Some(l)) => (r, l),
            _ => unreachable!("called for f64 only"),
        }
    }
}

impl RecurrentClass<'_, f64> {
    /// The gain and bias on the class for the reward `rewards[s]` earned per step in state `s`
    /// (length `n`), given the class's stationary distribution `stationary` (from
    /// [`stationary`](Self::stationary)). The bias solves `(I − Q) h' = r − g` on the class
    /// without the reference state (`h'_r = 0`), then `h = h' − π h'`.
    ///
    /// # Panics
    /// - panics if `rewards.len()` is not the chain's `n` or `stationary` is of another class.
    #[must_use]
    #[track_caller]
    pub fn gain_bias(&self, stationary: &ClassStationary, rewards: &[f64]) -> GainBias {
        assert!(rewards.len() == self.p.ncols() && stationary.class == self.class);
        let r: Vec<f64> = self.class.iter().map(|&v| rewards[v as usize]).collect();
        let mut acc = crate::numeric::NeumaierSum::default();
        for (p, x) in stationary.pi.iter().zip(&r) {
            acc.add(p * x);
        }
        let gain = acc.value();
        let gain_error_bound = stationary.error_bound * r.iter().map(|x| x.abs()).sum::<f64>();
        let rhs: Vec<f64> = r
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != self.reference)
            .map(|(_, x)| x - gain)
            .collect();
        let (h_rest, _) = self.rest.solve_refined(&self.lu, &rhs);
        let mut h_rest = h_rest.into_iter();
        let mut h: Vec<f64> = (0..r.len())
            .map(|j| {
                if j == self.reference {
                    0.0
                } else {
                    h_rest.next().expect("k − 1 values")
                }
            })
            .collect();
        let shift: f64 = stationary.pi.iter().zip(&h).map(|(p, x)| p * x).sum();
        h.iter_mut().for_each(|x| *x -= shift);
        // ‖h + g − r − P h‖∞ over the whole class (the reference row included).
        let mut bias_residual = 0.0f64;
        for (i, &v) in self.class.iter().enumerate() {
            let (cols, vals) = self.p.row(v as usize);
            let mut ph = 0.0;
            for (&t, x) in cols.iter().zip(vals) {
                let j = self.class.binary_search(&t).expect("the class is closed");
                ph += x * h[j];
            }
            bias_residual = bias_residual.max((h[i] + gain - r[i] - ph).abs());
        }
        GainBias {
            gain,
            gain_error_bound,
            bias: h,
            bias_residual,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Rational;
    use crate::sparse::from_rows as matrix;

    // Grinstead & Snell, Example 11.1 (Land of Oz) — published: w = (2/5, 1/5, 2/5).
    #[test]
    fn land_of_oz() {
        let p = matrix(&[
            &[(0, 0.5), (1, 0.25), (2, 0.25)],
            &[(0, 0.5), (2, 0.5)],
            &[(0, 0.25), (1, 0.25), (2, 0.5)],
        ]);
        let s = stationary_distribution(&p).unwrap();
        for (x, y) in s.pi.iter().zip([0.4, 0.2, 0.4]) {
            assert!((x - y).abs() < 1e-15);
        }
        assert_eq!((s.period, s.irreducible), (1, true));
        let exact = crate::exact::rationalize_matrix(&p, true).unwrap();
        let s = stationary_distribution::<Rational>(&exact).unwrap();
        assert_eq!(s.pi[1], Rational::from(1) / Rational::from(5));
    }

    // Land of Oz with reward 1 on rain (R): gain = π_R = 2/5; bias h = Z r − g 1 with the
    // fundamental matrix Z of Grinstead & Snell §11.5 (Z[·][R] = (86/75, 2/25, −14/75)):
    // h = (56/75, −24/75, −44/75).
    #[test]
    fn land_of_oz_gain_and_bias() {
        let p = matrix(&[
            &[(0, 0.5), (1, 0.25), (2, 0.25)],
            &[(0, 0.5), (2, 0.5)],
            &[(0, 0.25), (1, 0.25), (2, 0.5)],
        ]);
        let c = RecurrentClass::new(&p, &[0, 1, 2]).unwrap();
        let st = c.stationary().unwrap();
        for (x, y) in st.mean_recurrence_times.iter().zip([2.5, 5.0, 2.5]) {
            assert!((x - y).abs() < 1e-14, "{x} vs {y}");
        }
        // The bound includes what rounding the written probabilities could do (a few ulps here).
        assert!(st.error_bound < 1e-14, "{}", st.error_bound);
        let gb = c.gain_bias(&st, &[1.0, 0.0, 0.0]);
        assert!((gb.gain - 0.4).abs() < 1e-15);
        for (x, y) in gb.bias.iter().zip([56.0 / 75.0, -24.0 / 75.0, -44.0 / 75.0]) {
            assert!((x - y).abs() < 1e-14, "{x} vs {y}");
        }
        assert!(gb.bias_residual < 1e-15);
        assert!(RecurrentClass::new(&p, &[0, 1]).is_err());
    }

    // A ring of 3001 states moving +1 with probability p and −1 otherwise: doubly stochastic, so
    // π = 1/3001 exactly everywhere. With p = 1/2 Storm's default solver returns −0.998 for one
    // entry (issue 5); here the certified bound must hold and be small.
    #[test]
    fn long_ring_is_uniform_with_a_certified_bound() {
        let n = 3001u32;
        for right in [0.5, 0.3] {
            let rows: Vec<Vec<(u32, f64)>> = (0..n)
                .map(|s| {
                    let mut r = vec![((s + n - 1) % n, 1.0 - right), ((s + 1) % n, right)];
                    r.sort_by_key(|e| e.0);
                    r
                })
                .collect();
            let refs: Vec<&[(u32, f64)]> = rows.iter().map(|r| &r[..]).collect();
            let s = stationary_distribution(&matrix(&refs)).unwrap();
            let worst = s.pi.iter().fold(0.0f64, |m, x| m.max((x - 1.0 / 3001.0).abs()));
            assert!(
                worst <= s.error_bound,
                "p = {right}: actual {worst:e} > bound {:e}",
                s.error_bound
            );
            assert!(s.error_bound < 1e-12, "p = {right}: bound {:e}", s.error_bound);
            assert_eq!((s.period, s.irreducible), (1, true));
        }
    }

    // A reflecting walk on 0..n−1 drifting up (up p, down 1 − p, self-loops at the ends): π_i ∝
    // ρ^i with ρ = p/(1 − p), so state 0 has π ≈ ρ^−(n−1) and counting visits relative to it
    // overflows. The reference moves to the top; the answer must match the closed form.
    #[test]
    fn up_drifting_walk_is_referenced_at_the_top() {
        for (n, up) in [(20usize, 0.95), (1000, 0.75), (300, 0.6)] {
            let rows: Vec<Vec<(u32, f64)>> = (0..n as u32)
                .map(|i| {
                    let (lo, hi) = (i.saturating_sub(1), (i + 1).min(n as u32 - 1));
                    if lo == i {
                        vec![(i, 1.0 - up), (hi, up)]
                    } else if hi == i {
                        vec![(lo, 1.0 - up), (i, up)]
                    } else {
                        vec![(lo, 1.0 - up), (hi, up)]
                    }
                })
                .collect();
            let refs: Vec<&[(u32, f64)]> = rows.iter().map(|r| &r[..]).collect();
            let s = stationary_distribution(&matrix(&refs)).unwrap();
            let rho: f64 = up / (1.0 - up);
            // π_{n−1−m} = ρ^−m (1 − 1/ρ) / (1 − ρ^−n).
            for m in 0..n.min(40) {
                let want = rho.powi(-(m as i32)) * (1.0 - 1.0 / rho) / (1.0 - rho.powi(-(n as i32)));
                let got = s.pi[n - 1 - m];
                assert!(
                    (got - want).abs() <= s.error_bound + 1e-15 * want,
                    "n {n} m {m}: {got} vs {want}"
                );
            }
            assert!(s.error_bound < 1e-10, "n {n}: bound {:e}", s.error_bound);
        }
    }

    // Grinstead & Snell, Example 11.17 (Ehrenfest urn, 4 balls) — period 2, stationary (1, 4, 6, 4, 1)/16.
    #[test]
    fn ehrenfest_is_periodic() {
        let p = matrix(&[
            &[(1, 1.0)],
            &[(0, 0.25), (2, 0.75)],
            &[(1, 0.5), (3, 0.5)],
            &[(2, 0.75), (4, 0.25)],
            &[(3, 1.0)],
        ]);
        let s = stationary_distribution(&p).unwrap();
        assert_eq!(s.period, 2);
        for (x, y) in s.pi.iter().zip([1.0, 4.0, 6.0, 4.0, 1.0]) {
            assert!((x - y / 16.0).abs() < 1e-15);
        }
        // Two absorbing states: multichain.
        let p = matrix(&[&[(0, 1.0)], &[(0, 0.5), (2, 0.5)], &[(2, 1.0)]]);
        assert!(stationary_distribution(&p).is_err());
    }
}
