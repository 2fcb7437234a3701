//! How a result was obtained, in types: the method ([`Method`], with the linear solver it used,
//! [`LinearSolver`]), and what its error bound guarantees ([`Guarantee`]), gathered with the
//! iterations and the residual in an [`Account`]. Every analysis and solve records its method as
//! a [`Method`]; its `Display` is the one-line description the reports print.
//!
//! The serde helpers in [`ser`] write numbers by the JSON conventions of the project's design
//! (numbers as numbers, `+∞` as the string `"inf"`, exact fractions as `"p/q"` strings); the
//! result structs use them in their `Serialize` derives. (The status-and-guarantee enums follow
//! Storm's `solver/SolverGuarantee.h` and faer's `BicgInfo`: a result says how it was obtained in
//! types, not in a string.)
//!
//! This module sits in the lowest layer (beside `numeric` and `error`; it uses no other module of
//! the crate): every solver and analysis above may use it.

use serde::Serialize;
use std::fmt;

/// The largest error bound with which kolmo gives a floating-point result — relative for
/// expected times, absolute for probabilities, relative to the largest value for other values;
/// beyond it the result is refused with [`crate::Error::Uncertified`] rather than given (a
/// number that may be wrong is worse than none). Exact values are never refused.
pub const MAX_ERROR_BOUND: f64 = 1e-6;

/// `Ok` if `bound` is a number at most [`MAX_ERROR_BOUND`] times `max(1, scale)` (`scale`: the
/// size of the values the bound is absolute on, 1 for probabilities and relative bounds), else
/// [`crate::Error::Uncertified`] naming `what`, with the `residual` and the `hint` (advice
/// starting with "; ", or empty).
///
/// # Errors
/// [`crate::Error::Uncertified`] as above (also for a `NaN` or infinite bound).
pub fn certify(what: &'static str, bound: f64, scale: f64, residual: f64, hint: &str) -> crate::Result<()> {
    let allowed = MAX_ERROR_BOUND
        * if scale.is_finite() {
            scale.abs().max(1.0)
        } else {
            1.0
        };
    if bound <= allowed {
        return Ok(());
    }
    Err(crate::Error::Uncertified {
        what,
        bound,
        residual,
        hint: hint.to_string(),
    })
}

/// How a linear system was solved: the method the automatic choice (or `--method`) took, with its
/// size; `Display` gives the one-line description of the reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LinearSolver {
    /// A factorisation (dense or sparse LU, Gaussian elimination in rationals), named as its
    /// implementation names itself (`"dense LU (faer)"`, ...), of an `n × n` system.
    Factorization {
        /// The implementation's name.
        name: &'static str,
        /// Unknowns.
        n: usize,
        /// Whether the arithmetic is exact rationals.
        exact: bool,
    },
    /// A preconditioned Krylov method, approximate and refined by its caller.
    Krylov {
        /// The method and preconditioner (`"BiCGSTAB, block Gauss-Seidel preconditioned"`).
        name: &'static str,
        /// Unknowns.
        n: usize,
        /// The work done so far (`"41 preconditioned products in 3 solves"`).
        work: String,
    },
    /// A sparse triangular solve, plus a rank-`rank` Woodbury correction when `rank > 0`.
    Triangular {
        /// Unknowns.
        n: usize,
        /// The rank of the Woodbury correction (0: none).
        rank: usize,
        /// Whether the arithmetic is exact rationals.
        exact: bool,
    },
    /// Block triangular form by strongly connected components, solved in reverse topological
    /// order, each block by its own method.
    Topological {
        /// Unknowns.
        n: usize,
        /// Components.
        components: usize,
        /// Components of a single state (one substitution each).
        singles: usize,
        /// The largest component's size and the method of the largest block solved as a system
        /// (`None` when every component is a single state).
        largest: Option<(usize, Box<LinearSolver>)>,
    },
}

impl fmt::Display for LinearSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arithmetic = |exact: bool| if exact { ", exact rationals" } else { "" };
        match self {
            Self::Factorization { name, n, exact } => write!(f, "{name}, n = {n}{}", arithmetic(*exact)),
            Self::Krylov { name, n, work } => write!(f, "{name}, n = {n}, {work}"),
            Self::Triangular { n, rank: 0, exact } => {
                write!(f, "sparse triangular solve, n = {n}{}", arithmetic(*exact))
            }
            Self::Triangular { n, rank, exact } => write!(
                f,
                "sparse triangular solve + rank-{rank} Woodbury correction, n = {n}{}",
                arithmetic(*exact)
            ),
            Self::Topological {
                n,
                components,
                singles,
                largest,
            } => {
                write!(
                    f,
                    "strongly connected components in reverse topological order, n = {n}: {components} components, {singles} single states"
                )?;
                match largest {
                    Some((size, solver)) => write!(f, "; largest {size}: {solver}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// How an analysis or a solve obtained its numbers; `Display` gives the one-line description of
/// the reports (the `method` of the command line's text and JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    /// Graph analysis alone: every value is 0 or 1.
    GraphAnalysis,
    /// A stationary distribution as the expected visits between returns to a most likely state
    /// `r`: `x (I − Q) = P[r, ·]` (Kemeny & Snell, *Finite Markov Chains*, Theorem 6.2.3).
    ReturnVisits {
        /// How `I − Q` was solved.
        solver: LinearSolver,
        /// Whether the solve was iteratively refined (in `f64`; exact solves need none).
        refined: bool,
    },
    /// An absorbing-chain solve of `I − Q`, iteratively refined against its residual.
    AbsorbingSolve {
        /// How `I − Q` was solved.
        solver: LinearSolver,
    },
    /// An absorbing-chain solve of `I − Q` in exact rationals, its residual verified zero.
    ExactSolve {
        /// How `I − Q` was solved.
        solver: LinearSolver,
    },
    /// A board's `I − Q` solved matrix-free from its jump table by a preconditioned Krylov
    /// method, iteratively refined.
    MatrixFree {
        /// The Krylov method and preconditioner.
        name: &'static str,
        /// Unknowns.
        n: usize,
        /// Rows kept explicit (those the jump table does not describe).
        explicit_rows: usize,
        /// The work done (`"41 preconditioned products in 3 solves"`).
        work: String,
    },
    /// `k` vector–matrix products.
    Stepping,
    /// Repeated squaring of the dense matrix.
    Squaring,
    /// Backward induction over a finite horizon.
    BackwardInduction,
    /// Reachability in an MDP: graph analysis (and end components collapsed when maximising),
    /// then policy iteration on the undecided states; certified by `‖Tv − v‖∞` times the longest
    /// expected stay among them.
    ReachPolicyIteration {
        /// Whether maximal end components were collapsed first (maximising).
        end_components_collapsed: bool,
        /// The states with a value strictly between 0 and 1.
        undecided: usize,
        /// The longest expected stay among them, in steps (an upper bound).
        longest_stay: f64,
    },
    /// Reachability in an MDP: interval iteration (Haddad & Monmege, TCS 735, 2018; Baier et al.,
    /// CAV 2017) on the quotient with end components collapsed, in Gauss–Seidel sweeps rounded
    /// outwards.
    ReachIntervalIteration {
        /// Whether maximal end components were collapsed first (maximising).
        end_components_collapsed: bool,
        /// The states with a value strictly between 0 and 1.
        undecided: usize,
        /// Sweeps over the component that needed the most (each updates the lower and the
        /// upper bound).
        sweeps: u64,
    },
    /// Total reward in an MDP: topological value iteration, the lower bound by Gauss–Seidel sweeps
    /// from 0 and the upper bound verified inductive (`T u ≤ u`) with a Lyapunov function of each
    /// cyclic component (see `kolmo::mdp::total_reward`).
    TopologicalValueIteration {
        /// States solved in cyclic components (the rest in closed form, one pass).
        cyclic: usize,
        /// Sweeps over the cyclic component that needed the most.
        sweeps: u64,
        /// Of the cyclic states, those of components solved by policy iteration instead
        /// (value iteration converging too slowly there).
        by_policy_iteration: usize,
        /// Policy-iteration rounds over those components.
        rounds: u64,
    },
    /// A reachability game: strategy iteration from both sides, each strategy evaluated by the
    /// certified MDP solver against the other side's best response.
    GameStrategyIteration {
        /// Rounds of improvement.
        rounds: u64,
    },
    /// Maximal total reward over all time: `+∞` where an end component that earns can be
    /// reached, elsewhere end components collapsed, each with a choice to stop.
    TotalOverEndComponents {
        /// How the collapsed model's total reward was solved.
        inner: Box<Method>,
    },
    /// Total reward in an MDP: policy iteration from an attractor policy.
    AttractorPolicyIteration {
        /// How the last policy was evaluated.
        evaluation: Box<Method>,
    },
    /// Policy iteration whose evaluations solve `(I − γ P_π) v = r_π`.
    PolicyIteration {
        /// How the first evaluation was solved.
        evaluation: LinearSolver,
    },
    /// Gauss–Seidel value iteration.
    GaussSeidelValueIteration,
    /// Value iteration by whole (Jacobi) sweeps, stopped by MacQueen's bounds on the span of
    /// `Tv − v` (MacQueen, J. Math. Anal. Appl. 14, 1966).
    MacQueenValueIteration,
    /// Gauss–Seidel value iteration (depth-first finishing order) until its policy is quiet, then
    /// policy iteration from that policy (Puterman, *Markov Decision Processes*, 1994, §6.5:
    /// modified policy iteration's idea), later evaluations by low-rank updates.
    ValueThenPolicyIteration {
        /// Value-iteration sweeps done first.
        sweeps: u64,
        /// Policy-iteration rounds after them.
        rounds: u64,
        /// How the first evaluation was solved.
        evaluation: LinearSolver,
    },
    /// A discounted objective, certified by MacQueen's bounds `Tv + γ/(1 − γ)·[min, max](Tv − v)`
    /// whatever produced `v` (the middle of that interval is reported).
    DiscountCertified {
        /// What produced the values.
        by: Box<Method>,
    },
    /// The gain by value iteration, bracketed by the stage increments' minimum and maximum
    /// (Odoni, Operations Research 17, 1969).
    BracketedValueIteration,
    /// Average reward in an MDP: maximal end components, their gains by value iteration on
    /// `(I + P)/2`, then the best gain to settle for by policy iteration.
    EndComponentGains {
        /// Maximal end components.
        components: usize,
        /// Of them, those with one choice per state (closed classes of a chain), whose gains come
        /// from their stationary distributions instead of value iteration.
        chains: usize,
    },
}

/// Method name of stepping (see [`Method::Stepping`]).
const STEPPING: &str = "k vector-matrix products (sparse frontier, then parallel sweeps)";
/// Method name of squaring (see [`Method::Squaring`]).
const SQUARING: &str = "repeated squaring of the dense matrix, rows renormalised";

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::GraphAnalysis => f.write_str("graph analysis (every value is 0 or 1)"),
            Self::ReturnVisits { solver, refined } => write!(
                f,
                "visits between returns to a most likely state r, x (I - Q) = P[r, .], by {solver}{}",
                if *refined { ", iterative refinement" } else { "" }
            ),
            Self::AbsorbingSolve { solver } => write!(f, "{solver} on I - Q, iterative refinement"),
            Self::ExactSolve { solver } => write!(f, "{solver} on I - Q, residual verified zero"),
            Self::MatrixFree {
                name,
                n,
                explicit_rows,
                work,
            } => write!(
                f,
                "{name}, matrix-free from the jump table, n = {n} ({explicit_rows} rows explicit), {work} on I - Q, iterative refinement"
            ),
            Self::Stepping => f.write_str(STEPPING),
            Self::Squaring => f.write_str(SQUARING),
            Self::BackwardInduction => f.write_str("backward induction"),
            Self::ReachIntervalIteration {
                end_components_collapsed,
                undecided,
                sweeps,
            } => write!(
                f,
                "graph analysis, {}topological interval iteration on {undecided} undecided states (up to {sweeps} Gauss-Seidel sweeps of a lower and an upper bound per component, rounded outwards)",
                if *end_components_collapsed {
                    "end components collapsed, "
                } else {
                    ""
                },
            ),
            Self::ReachPolicyIteration {
                end_components_collapsed,
                undecided,
                longest_stay,
            } => write!(
                f,
                "graph analysis, {}policy iteration on {undecided} undecided states; certified by ‖Tv − v‖ × the longest expected stay among them ({longest_stay:.3e} steps)",
                if *end_components_collapsed {
                    "end components collapsed, "
                } else {
                    ""
                },
            ),
            Self::TopologicalValueIteration {
                cyclic,
                sweeps,
                by_policy_iteration,
                rounds,
            } => {
                write!(
                    f,
                    "topological value iteration: components of one state in closed form; {} states of cyclic components by Gauss-Seidel sweeps from below (up to {sweeps}) with an upper bound verified inductive (T u <= u, a Lyapunov function of the expected stay)",
                    cyclic - by_policy_iteration
                )?;
                if *by_policy_iteration > 0 {
                    write!(
                        f,
                        ", {by_policy_iteration} by policy iteration with certified evaluations ({rounds} rounds)"
                    )?;
                }
                f.write_str("; rounded outwards")
            }
            Self::GameStrategyIteration { rounds } => write!(
                f,
                "strategy iteration from both sides ({rounds} round{}): each side's strategy fixed, the other's best response by the certified MDP solver; the value between the two",
                if *rounds == 1 { "" } else { "s" }
            ),
            Self::TotalOverEndComponents { inner } => write!(
                f,
                "+inf where an end component that earns can be reached; elsewhere end components collapsed with a choice to stop, then {inner}"
            ),
            Self::AttractorPolicyIteration { evaluation } => {
                write!(
                    f,
                    "policy iteration from an attractor policy; evaluation: {evaluation}"
                )
            }
            Self::PolicyIteration { evaluation } => write!(f, "policy iteration, evaluation by {evaluation}"),
            Self::GaussSeidelValueIteration => f.write_str("Gauss-Seidel value iteration"),
            Self::MacQueenValueIteration => f.write_str("value iteration (Jacobi sweeps, MacQueen's bounds)"),
            Self::ValueThenPolicyIteration {
                sweeps,
                rounds,
                evaluation,
            } => write!(
                f,
                "Gauss–Seidel value iteration ({sweeps} sweeps in depth-first finishing order) until \
                 its policy was quiet, then policy iteration ({rounds} rounds, evaluation by \
                 {evaluation}; later rounds by low-rank updates where few choices changed)"
            ),
            Self::DiscountCertified { by } => write!(
                f,
                "{by}; certified by MacQueen's bounds Tv + γ/(1 − γ)·[min, max](Tv − v)"
            ),
            Self::BracketedValueIteration => {
                f.write_str("value iteration, the gain bracketed by the stage increments (Odoni 1969)")
            }
            Self::EndComponentGains { components, chains } => {
                let gains = match (*chains, components - chains) {
                    (0, _) => "their gains by value iteration on (I + P)/2".to_string(),
                    (_, 0) => {
                        "their gains from their stationary distributions (one choice per state)".to_string()
                    }
                    (c, v) => format!(
                        "their gains by value iteration on (I + P)/2 ({v}) or, with one choice per state, \
                         from their stationary distributions ({c})"
                    ),
                };
                write!(
                    f,
                    "maximal end components ({components}), {gains}, then the best gain to settle for by policy iteration"
                )
            }
        }
    }
}

/// What a result's `bound` guarantees about its values `x̂` (the true values `x`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Guarantee {
    /// The values are exact (rational arithmetic, residual verified zero); the bound is 0.
    Exact,
    /// `|x − x̂| ≤ bound · |x̂|` in every component: the relative error of the solve (for
    /// `(I − Q)⁻¹ ≥ 0` with residual `r < 1`, `bound = r/(1 − r)`).
    RelativeError,
    /// `|x − x̂| ≤ bound` in every (finite) component: an absolute bound on the values.
    AbsoluteError,
    /// `lo ≤ x ≤ hi` for the one value reported.
    Interval {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// `bound` is an error figure, not a guarantee: for a distribution moved on step by step,
    /// the total mass gained or lost to rounding, `|Σ x̂ − 1|`.
    MassDefect,
}

/// How a result was obtained: the method, the iterations it took, its residual, its error bound
/// and what the bound guarantees.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Account {
    /// The method.
    pub method: Method,
    /// Iterations (sweeps, improvement rounds, steps); `None` for a direct method.
    pub iterations: Option<u64>,
    /// The residual of the equations the values solve, in the max norm (`NaN` when the method
    /// has none).
    #[serde(serialize_with = "ser::number")]
    pub residual: f64,
    /// The error bound; see `guarantee`.
    #[serde(serialize_with = "ser::number")]
    pub bound: f64,
    /// What `bound` guarantees.
    pub guarantee: Guarantee,
}

/// Serde helpers for the project's JSON conventions: `f64` as a number, `±∞` as `"inf"` /
/// `"-inf"`, NaN as null, `−0` as `0`; exact fractions as `"p/q"` strings (`"inf"` for an infinite
/// value given as `None`); a [`Method`] as its one-line description. For `#[serde(serialize_with)]`.
pub mod ser {
    // dashu's rational (`kolmo::exact::Rational`), named directly: this module is below `exact`.
    use dashu_ratio::RBig as Rational;
    use serde::ser::{SerializeSeq, Serializer};

    /// A scalar as JSON: `f64` by [`number`], exact rationals as `"p/q"` strings; options of
    /// them with null for `None`, vectors of them as arrays.
    pub trait JsonScalar {
        /// Writes the value.
        ///
        /// # Errors
        /// The serializer's.
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
    }

    impl JsonScalar for f64 {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            number(self, s)
        }
    }

    impl JsonScalar for Rational {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(self)
        }
    }

    /// A vector of scalars as an array (by [`scalars`]).
    impl<T: JsonScalar> JsonScalar for Vec<T> {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            scalars(self, s)
        }
    }

    /// `None` as null.
    impl<T: JsonScalar> JsonScalar for Option<T> {
        fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self {
                Some(v) => v.write(s),
                None => s.serialize_none(),
            }
        }
    }

    /// Adapts a [`JsonScalar`] to `Serialize`.
    struct Scalar<'a, T>(&'a T);

    impl<T: JsonScalar> serde::Serialize for Scalar<'_, T> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.write(s)
        }
    }

    /// One `f64`: a number, `"inf"` / `"-inf"` for infinities, null for NaN, `−0` as `0`.
    ///
    /// # Errors
    /// The serializer's.
    pub fn number<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        let x = *x + 0.0; // −0 prints as 0
        if x.is_nan() {
            s.serialize_none()
        } else if x.is_infinite() {
            s.serialize_str(if x > 0.0 { "inf" } else { "-inf" })
        } else {
            s.serialize_f64(x)
        }
    }

    /// An optional `f64` by [`number`], null when absent.
    ///
    /// # Errors
    /// The serializer's.
    #[allow(clippy::ref_option)]
    pub fn optional_number<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match x {
            Some(x) => number(x, s),
            None => s.serialize_none(),
        }
    }

    /// Optional scalars by [`scalars`], null when absent.
    ///
    /// # Errors
    /// The serializer's.
    #[allow(clippy::ref_option)]
    pub fn optional_scalars<T: JsonScalar, S: Serializer>(
        values: &Option<Vec<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match values {
            Some(v) => scalars(v, s),
            None => s.serialize_none(),
        }
    }

    /// One scalar by [`JsonScalar`].
    ///
    /// # Errors
    /// The serializer's.
    pub fn scalar<T: JsonScalar, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.write(s)
    }

    /// A slice of scalars, each by [`JsonScalar`].
    ///
    /// # Errors
    /// The serializer's.
    pub fn scalars<T: JsonScalar, S: Serializer>(values: &[T], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(values.len()))?;
        for v in values {
            seq.serialize_element(&Scalar(v))?;
        }
        seq.end()
    }

    /// Pairs `(key, value)` as two-element arrays, the value by [`JsonScalar`] (a step count
    /// and the probability at it, or the distribution after it).
    ///
    /// # Errors
    /// The serializer's.
    pub fn keyed<K: serde::Serialize, T: JsonScalar, S: Serializer>(
        pairs: &[(K, T)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(pairs.len()))?;
        for (k, v) in pairs {
            seq.serialize_element(&(k, Scalar(v)))?;
        }
        seq.end()
    }

    /// Exact values that may be `+∞` (`None`): `"p/q"` strings and `"inf"`.
    ///
    /// # Errors
    /// The serializer's.
    pub fn fractions_or_inf<S: Serializer>(values: &[Option<Rational>], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(values.len()))?;
        for v in values {
            match v {
                Some(v) => seq.serialize_element(&Scalar(v))?,
                None => seq.serialize_element("inf")?,
            }
        }
        seq.end()
    }

    /// A row-major `rows × columns` matrix of `f64` (`values.len() = rows · columns`) as an array
    /// of rows of `columns` numbers each (by [`number`]); `columns` is the serialized field's
    /// row length, given by the caller through a wrapper (see [`Matrix`]).
    ///
    /// # Errors
    /// The serializer's.
    pub fn matrix<S: Serializer>(values: &[f64], columns: usize, s: S) -> Result<S::Ok, S::Error> {
        let columns = columns.max(1);
        let mut seq = s.serialize_seq(Some(values.len().div_ceil(columns)))?;
        for row in values.chunks(columns) {
            seq.serialize_element(&Scalars(row))?;
        }
        seq.end()
    }

    /// A row-major matrix of `f64` with its row length, serialized by [`matrix`].
    #[derive(Clone, Copy, Debug)]
    pub struct Matrix<'a> {
        /// The entries, row by row.
        pub values: &'a [f64],
        /// The row length.
        pub columns: usize,
    }

    impl serde::Serialize for Matrix<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            matrix(self.values, self.columns, s)
        }
    }

    /// A slice of scalars serialized by [`scalars`] (numbers, or `"p/q"` strings).
    #[derive(Clone, Copy, Debug)]
    pub struct Scalars<'a, T>(pub &'a [T]);

    impl<T: JsonScalar> serde::Serialize for Scalars<'_, T> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            scalars(self.0, s)
        }
    }

    /// Exact values that may be `+∞`, serialized by [`fractions_or_inf`].
    #[derive(Clone, Copy, Debug)]
    pub struct FractionsOrInf<'a>(pub &'a [Option<Rational>]);

    impl serde::Serialize for FractionsOrInf<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            fractions_or_inf(self.0, s)
        }
    }

    /// Anything by its `Display`, serialized by [`display`] (a [`super::Method`] as its one-line
    /// description).
    #[derive(Clone, Copy, Debug)]
    pub struct Text<T>(pub T);

    impl<T: std::fmt::Display> serde::Serialize for Text<T> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            display(&self.0, s)
        }
    }

    /// One `f64` serialized by [`number`].
    #[derive(Clone, Copy, Debug)]
    pub struct Number(pub f64);

    impl serde::Serialize for Number {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            number(&self.0, s)
        }
    }

    /// Anything by its `Display` (a [`super::Method`] as its one-line description).
    ///
    /// # Errors
    /// The serializer's.
    pub fn display<T: std::fmt::Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_read_as_before() {
        let lu = LinearSolver::Factorization {
            name: "dense LU (faer)",
            n: 5,
            exact: false,
        };
        assert_eq!(lu.to_string(), "dense LU (faer), n = 5");
        let m = Method::AbsorbingSolve { solver: lu.clone() };
        assert_eq!(
            m.to_string(),
            "dense LU (faer), n = 5 on I - Q, iterative refinement"
        );
        let t = LinearSolver::Topological {
            n: 9,
            components: 3,
            singles: 2,
            largest: Some((7, Box::new(lu))),
        };
        assert_eq!(
            t.to_string(),
            "strongly connected components in reverse topological order, n = 9: 3 components, 2 single states; largest 7: dense LU (faer), n = 5"
        );
        let w = LinearSolver::Triangular {
            n: 4,
            rank: 0,
            exact: true,
        };
        assert_eq!(w.to_string(), "sparse triangular solve, n = 4, exact rationals");
        let d = Method::DiscountCertified {
            by: Box::new(Method::GaussSeidelValueIteration),
        };
        assert_eq!(
            d.to_string(),
            "Gauss-Seidel value iteration; certified by MacQueen's bounds Tv + γ/(1 − γ)·[min, max](Tv − v)"
        );
    }

    #[test]
    fn json_conventions() {
        #[derive(Serialize)]
        struct S {
            #[serde(serialize_with = "ser::number")]
            a: f64,
            #[serde(serialize_with = "ser::scalars")]
            b: Vec<f64>,
            #[serde(serialize_with = "ser::fractions_or_inf")]
            c: Vec<Option<dashu_ratio::RBig>>,
            #[serde(serialize_with = "ser::display")]
            m: Method,
        }
        let s = S {
            a: f64::INFINITY,
            b: vec![-0.0, 2.5, f64::NAN, f64::NEG_INFINITY],
            c: vec![
                Some(dashu_ratio::RBig::from(1u8) / dashu_ratio::RBig::from(3u8)),
                None,
            ],
            m: Method::Stepping,
        };
        // (Moved with the CLI's `num`, which this replaces.)
        assert_eq!(
            serde_json::to_value(ser::Number(f64::INFINITY)).unwrap(),
            serde_json::json!("inf")
        );
        assert_eq!(
            serde_json::to_value(ser::Number(2.5)).unwrap(),
            serde_json::json!(2.5)
        );
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"a":"inf","b":[0.0,2.5,null,"-inf"],"c":["1/3","inf"],"m":"k vector-matrix products (sparse frontier, then parallel sweeps)"}"#
        );
        let typed = serde_json::to_value(Method::PolicyIteration {
            evaluation: LinearSolver::Triangular {
                n: 3,
                rank: 1,
                exact: false,
            },
        })
        .unwrap();
        assert_eq!(typed["kind"], "policy_iteration");
        assert_eq!(typed["evaluation"]["rank"], 1);
    }
}
