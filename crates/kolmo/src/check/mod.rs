//! Model checking of the PRISM property language (PCTL with rewards; the PRISM manual, "Property
//! Specification"; Baier & Katoen, *Principles of Model Checking*, 2008, §10.2 (PCTL), §10.5
//! (rewards), §10.6 (MDPs)) over a Markov chain or an MDP, built from the PRISM language or read
//! from a file.
//!
//! Each operator is mapped to the analysis that answers it, and computes exactly what it asks:
//!
//! | property | chain | MDP |
//! |---|---|---|
//! | `P [F ψ]`, `P [φ U ψ]` | [`analysis::reach_probability`] | [`mdp::reach_probability`] |
//! | `P [X φ]`, `F<=k`, `U<=k`, `G<=k` | `k` products | `k` Bellman steps |
//! | `P [G φ]` | `1 − P [F ¬φ]` | `1 − P [F ¬φ]`, the other optimum |
//! | `R [F φ]`, `T [F φ]` | [`AbsorbingChain::expected_reward`] | [`mdp::total_reward`] |
//! | `R [C<=k]`, `R [I=k]` | `k` products | `k` Bellman steps |
//! | `R [C]` | expected reward until a closed class that earns nothing | — |
//! | `R [S]`, `S [φ]` | gain of each closed class, weighted by the probability of reaching it | [`mdp::average`] |
//!
//! `φ U ψ` is reachability of `ψ` in the model where the states satisfying neither are made
//! absorbing. Comparisons with a bound (`P>=0.5 [...]`) are decided on the certified interval
//! of each value (refused, naming the state, when the interval straddles the bound); against 0
//! and 1 on the graph analysis, exactly. Every numeric answer carries an absolute error bound.

use crate::analysis::stationary::RecurrentClass;
use crate::analysis::{self, AbsorbingChain};
use crate::exact::Rational;
use crate::graph::{classes, prob01_max, prob01_min};
use crate::io::Model;
use crate::lang::ast::{
    self, BinOp, Bound, Expr, ExprKind, FilterOp, PathKind, PropertyFile, RewardPath, RewardRef, StepBound,
    ValueType,
};
use crate::lang::lex::Span;
use crate::lang::{Code, OperatorHook, PropertyContext, Scope, StateValues, Value};
use crate::mdp::{self, MdpOptions, Optimum};
use crate::model::{Dtmc, Mdp, RewardModel, StateSet};
use crate::numeric::entry_rounding;
use crate::sparse::{Affine, CsrBuilder, CsrMatrix, Direction};
use crate::{Error, Result, StateId};
use std::cell::Cell;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// The model a property speaks of, with what its expressions can see.
pub struct Subject<'a> {
    /// The model.
    pub model: &'a Model,
    /// Its states' variables, for expressions over them (PRISM models).
    pub states: StateValues<'a>,
    /// The reward structures in the order written (`R` without a name takes the first; `R{2}` the
    /// second); names of `model`'s reward models.
    pub reward_order: Vec<String>,
    /// Whether `reward_order` is the order written (PRISM models); for model files, whose reward
    /// models are kept by name, `R` without a name and `R{k}` need the model to have only one.
    pub reward_order_known: bool,
}

/// The most products an exact step-bounded operator may take (steps × transitions).
const EXACT_MAX_WORK: u64 = 10_000_000;

/// How to check.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Iteration limit of the MDP solvers (policy-improvement rounds, stages).
    pub max_iterations: u64,
    /// The most products a bounded operator may take (steps × transitions), before it is refused.
    pub max_work: u64,
    /// Iterative MDP solvers stop once every value's certified interval is within this, relative
    /// (DESIGN.md's default: 1e-10).
    pub precision: f64,
    /// Also the exact values, in rational arithmetic on the model's numbers as written (PRISM
    /// models: every probability and reward evaluated exactly).
    pub exact: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            max_iterations: 1_000_000,
            max_work: 2_000_000_000,
            precision: 1e-10,
            exact: false,
        }
    }
}

/// A property's answer in one state: a number (possibly `±∞`) or a truth value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// A number.
    Number(f64),
    /// A truth value.
    Bool(bool),
}

/// The result of one property.
#[derive(Clone, Debug)]
pub struct PropertyResult {
    /// The property's name (`"name": ...`), if given.
    pub name: Option<String>,
    /// The property as written.
    pub property: String,
    /// The answer: at the initial state (the first, when there are several: see
    /// [`initial_values`](Self::initial_values)), or the filter's value.
    pub value: Answer,
    /// The answer at every initial state (in state order), when the property is not a filter.
    pub initial_values: Vec<Answer>,
    /// A guaranteed lower bound on a numeric `value` (`None` for truth values); with several
    /// initial states, on the smallest of their values.
    pub lower: Option<f64>,
    /// A guaranteed upper bound on a numeric `value`; with several initial states, on the
    /// largest of their values.
    pub upper: Option<f64>,
    /// Guaranteed bound on the absolute error of every numeric value of the property (0: exact).
    pub error_bound: f64,
    /// With `--exact`: `value` exactly, as a fraction `p/q` (or `inf`), where the operator has an
    /// exact counterpart (not yet: `S`, `R [S]`).
    pub exact: Option<String>,
    /// `filter(print, ...)`: the states of the filter and their values.
    pub printed: Vec<(StateId, Answer)>,
    /// How it was computed.
    pub method: String,
    /// Wall-clock seconds it took.
    pub seconds: f64,
    /// The choices attaining the value (MDPs and games, where the operator computes them: `P`
    /// and `R [F]` unbounded (memoryless) and step-bounded (the first move); `None` for chains,
    /// `R [C]`, `R [S]` and huge step bounds).
    pub strategy: Option<Strategy>,
}

/// Checks every property of `file` (read from `text` at `path`) on `subject`, in order.
///
/// `formulas` and `constants` are the model's (PRISM models; empty otherwise); `given` the
/// values of the property file's undefined constants.
///
/// # Errors
/// [`Error::Parse`] naming file:line:column for undefined names, type errors, a property the model
/// type does not allow (`P=?` on an MDP: `Pmin`/`Pmax`), an unknown reward structure;
/// [`Error::Uncertified`] when a comparison with a bound cannot be decided within the certified
/// interval; [`Error::LimitReached`] for bounded operators beyond `options.max_work`; and what the
/// analyses return.
pub fn check_properties(
    subject: &Subject<'_>,
    file: &PropertyFile,
    text: &str,
    path: &Path,
    context: &PropertyContext<'_>,
    options: &CheckOptions,
) -> Result<Vec<PropertyResult>> {
    let checker = Checker {
        subject,
        options: *options,
        arithmetic_bound: Cell::new(0.0),
        methods: std::cell::RefCell::new(Vec::new()),
        coalition: std::cell::RefCell::new(None),
        strategy: std::cell::RefCell::new(None),
    };
    let scope = Scope::for_properties(file, text, path, context, &checker)?;
    let mut out = Vec::with_capacity(file.properties.len());
    for p in &file.properties {
        let start = Instant::now();
        checker.methods.borrow_mut().clear();
        checker.strategy.replace(None);
        checker.arithmetic_bound.set(0.0);
        let outcome = checker.top(&scope, &p.expr)?;
        let written = text
            .get(p.expr.span.start as usize..p.expr.span.end as usize)
            .unwrap_or("")
            .trim()
            .to_string();
        let mut r = checker.result(p.name.clone(), written, outcome, start);
        if matches!(p.expr.kind, ast::ExprKind::Prob { .. }) {
            // A probability: its interval lies in [0, 1] (the bound around a value near 0 or 1
            // would reach past it).
            r.lower = r.lower.map(|x| x.max(0.0));
            r.upper = r.upper.map(|x| x.min(1.0));
        }
        out.push(r);
    }
    Ok(out)
}

/// Values of a property in every state.
enum Outcome {
    /// Numbers with a bound on each one's absolute error; `decided`: the states whose value is
    /// exactly 1 and exactly 0 by graph analysis (probabilities of unbounded paths).
    Numbers {
        values: Vec<f64>,
        bound: f64,
        decided: Option<(StateSet, StateSet)>,
        /// With `--exact`: every value exactly (`None`: +∞), when the operator has an exact
        /// counterpart.
        exact: Option<Vec<Option<Rational>>>,
    },
    /// Truth values.
    Bools(StateSet),
    /// One value (a filter's).
    Scalar {
        value: Answer,
        bound: f64,
        printed: Vec<(StateId, Answer)>,
        /// With `--exact`: the value exactly (`Some(None)`: +∞).
        exact: Option<Option<Rational>>,
    },
}

struct Checker<'s, 'a> {
    subject: &'s Subject<'a>,
    options: CheckOptions,
    /// The largest bound of a numeric operator value used inside arithmetic or a comparison of
    /// the current property's top-level expression.
    arithmetic_bound: Cell<f64>,
    methods: std::cell::RefCell<Vec<String>>,
    /// Inside `<<C>>` on a game: for each state, whether a player of the coalition owns it.
    coalition: std::cell::RefCell<Option<Vec<bool>>>,
    /// The strategy of the operator evaluated last (the outermost one, when nested).
    strategy: std::cell::RefCell<Option<Strategy>>,
}

/// The choices that attain an operator's value, one per state (MDPs and games; in a game, each
/// state's owner's choice).
#[derive(Clone, Debug, PartialEq)]
pub struct Strategy {
    /// The choice in each state: an index among the state's choices (length `n`).
    pub choices: Vec<u32>,
    /// Whether the same choices attain the value at every visit (unbounded properties); else
    /// they are the first move's, with all steps of a step-bounded property to go (later moves
    /// depend on the steps left).
    pub memoryless: bool,
}

impl OperatorHook for Checker<'_, '_> {
    fn operator(&self, scope: &Scope<'_>, e: &Expr) -> Result<Code> {
        Ok(match self.operator_outcome(scope, e)? {
            Outcome::Numbers { values, bound, .. } => {
                self.arithmetic_bound.set(self.arithmetic_bound.get().max(bound));
                scope.lookup_numbers(values.into())
            }
            Outcome::Bools(set) => scope.lookup_set(set),
            Outcome::Scalar { value, bound, .. } => {
                self.arithmetic_bound.set(self.arithmetic_bound.get().max(bound));
                match value {
                    Answer::Number(x) => Code::Double(Arc::new(move |_| x)),
                    Answer::Bool(b) => Code::Bool(Arc::new(move |_| b)),
                }
            }
        })
    }
}

/// Which of the model's two kinds, borrowed.
enum Kind<'m> {
    Chain(&'m Dtmc),
    Decision(&'m Mdp),
}

impl<'s, 'a> Checker<'s, 'a> {
    fn n(&self) -> usize {
        match self.subject.model {
            Model::Dtmc(d) => d.n(),
            Model::Mdp(m) => m.n(),
        }
    }

    fn kind(&self) -> Kind<'a> {
        match self.subject.model {
            Model::Dtmc(d) => Kind::Chain(d),
            Model::Mdp(m) => Kind::Decision(m),
        }
    }

    fn matrix(&self) -> &'a CsrMatrix {
        match self.subject.model {
            Model::Dtmc(d) => d.matrix(),
            Model::Mdp(m) => m.matrix(),
        }
    }

    fn initial(&self) -> &'a [StateId] {
        match self.subject.model {
            Model::Dtmc(d) => d.initial(),
            Model::Mdp(m) => m.initial(),
        }
    }

    fn note(&self, method: impl Into<String>) {
        let m = method.into();
        let mut ms = self.methods.borrow_mut();
        if !ms.contains(&m) {
            ms.push(m);
        }
    }

    /// A property's expression: an operator directly, or an expression over states.
    fn top(&self, scope: &Scope<'_>, e: &Expr) -> Result<Outcome> {
        if is_operator(e) {
            return self.operator_outcome(scope, e);
        }
        let before = self.arithmetic_bound.get();
        let code = scope.compile(e)?;
        let states = self.subject.states;
        Ok(match code.ty() {
            ValueType::Bool => {
                self.refuse_compared_estimates(scope, e, before)?;
                Outcome::Bools(states.set(&code))
            }
            _ => {
                let bound = self.arithmetic_bound.get();
                if bound > before {
                    return Err(scope.error(
                        e.span,
                        format!(
                            "arithmetic over property values: their certified bounds (±{bound:.1e}) are carried through P, R, S, T and filter, not through arithmetic; ask for each operator separately"
                        ),
                    ));
                }
                Outcome::Numbers {
                    values: states.numbers(&code),
                    bound: 0.0,
                    decided: None,
                    exact: None,
                }
            }
        })
    }

    fn state_set(&self, scope: &Scope<'_>, e: &Expr) -> Result<StateSet> {
        if is_operator(e) {
            return match self.operator_outcome(scope, e)? {
                Outcome::Bools(s) => Ok(s),
                _ => Err(scope.error(e.span, "a set of states (a bool) is needed here".into())),
            };
        }
        // Operators nested in a state formula stand alone: a game's needs its own coalition.
        let outer = self.coalition.take();
        let before = self.arithmetic_bound.get();
        let code = scope.compile_as(e, ValueType::Bool, "a set of states");
        self.coalition.replace(outer);
        let code = code?;
        self.refuse_compared_estimates(scope, e, before)?;
        Ok(self.subject.states.set(&code))
    }

    /// Refuses a truth value computed by comparing an operator's estimate (`P=? [...] > 0.5`)
    /// when that estimate is not exact: the comparison would ignore its certified interval.
    fn refuse_compared_estimates(&self, scope: &Scope<'_>, e: &Expr, before: f64) -> Result<()> {
        let bound = self.arithmetic_bound.get();
        if bound > before {
            return Err(scope.error(
                e.span,
                format!(
                    "this compares a property's value, certified only within ±{bound:.1e}, with a number; write the bound on the operator (P>0.5 [...], R<=3 [...]) so that the certified interval decides"
                ),
            ));
        }
        Ok(())
    }

    /// For each state, whether its owner is one of `players` (rPATL's coalition `<<...>>`:
    /// names, numbers from 1, or `*` for all).
    fn coalition_mask(&self, scope: &Scope<'_>, players: &[ast::PlayerRef], span: Span) -> Result<Vec<bool>> {
        let Kind::Decision(m) = self.kind() else {
            return Err(scope.error(span, "a coalition <<...>> needs a game (an smg model)".into()));
        };
        let Some(p) = m.players() else {
            return Err(scope.error(
                span,
                "a coalition <<...>> needs a game (an smg model); this is an MDP".into(),
            ));
        };
        let mut member = vec![false; p.names.len()];
        for r in players {
            match r {
                ast::PlayerRef::All(_) => member.iter_mut().for_each(|x| *x = true),
                ast::PlayerRef::Number(k, at) => {
                    if *k < 1 || *k as usize > p.names.len() {
                        return Err(scope.error(
                            *at,
                            format!(
                                "the game has players 1 to {} ({})",
                                p.names.len(),
                                p.names.join(", ")
                            ),
                        ));
                    }
                    member[*k as usize - 1] = true;
                }
                ast::PlayerRef::Name(name, at) => match p.names.iter().position(|x| x == name) {
                    Some(i) => member[i] = true,
                    None => {
                        return Err(scope.error(
                            *at,
                            format!("no player {name} (the game's players: {})", p.names.join(", ")),
                        ));
                    }
                },
            }
        }
        Ok(p.owner.iter().map(|&o| member[o as usize]).collect())
    }

    /// Inside `<<C>>` on a game: for each state, whether its owner maximises when the coalition
    /// seeks `opt` (the coalition's states then maximise, the others minimise, or the other way
    /// round); `None` outside a coalition.
    fn maximiser(&self, opt: Optimum) -> Option<Vec<bool>> {
        self.coalition
            .borrow()
            .as_deref()
            .map(|mask| mask.iter().map(|&c| c == (opt == Optimum::Max)).collect())
    }

    /// The direction of state `s`'s choice for the optimum `opt`: `opt`'s, except in a game's
    /// states owned by a player outside the coalition, who opposes it.
    fn direction_of(&self, s: usize, opt: Option<Optimum>) -> Direction {
        let d = opt.map_or(Direction::Max, Optimum::direction);
        match &*self.coalition.borrow() {
            Some(mask) if !mask[s] => d.flip(),
            _ => d,
        }
    }

    /// The optimum of an operator on this model: chains have none; MDPs need one (`Pmin=?`), or
    /// take it from the bound (`P>=p`: every policy, so the minimum); on a game, the coalition's.
    fn optimum(
        &self,
        scope: &Scope<'_>,
        written: Option<ast::Optimum>,
        bound: &Bound,
        what: &str,
        span: Span,
    ) -> Result<Option<Optimum>> {
        let given = written.map(|o| match o {
            ast::Optimum::Min => Optimum::Min,
            ast::Optimum::Max => Optimum::Max,
        });
        if let Kind::Decision(m) = self.kind()
            && m.players().is_some()
            && self.coalition.borrow().is_none()
        {
            return Err(scope.error(
                span,
                if matches!(what, "S" | "T") {
                    format!("{what} is not offered on games: rPATL puts a coalition before P or R (<<p1>> R{{\"r\"}}max=? [S] for a long-run average)")
                } else {
                    format!("{what} on a game needs a coalition: <<player, ...>> {what}max=? [...] (rPATL)")
                },
            ));
        }
        match self.kind() {
            Kind::Chain(_) => Ok(None),
            Kind::Decision(_) => match (given, bound) {
                (Some(o), _) => Ok(Some(o)),
                // rPATL: `<<C>> P>=p` — the coalition can ensure at least p (it maximises);
                // `<<C>> P<=p`, at most p (it minimises).
                (None, Bound::Compare(op, _)) if self.coalition.borrow().is_some() => Ok(Some(match op {
                    BinOp::Gt | BinOp::Ge => Optimum::Max,
                    _ => Optimum::Min,
                })),
                // An MDP: `P>=p` holds when every policy gives at least p.
                (None, Bound::Compare(op, _)) => Ok(Some(match op {
                    BinOp::Gt | BinOp::Ge => Optimum::Min,
                    _ => Optimum::Max,
                })),
                (None, Bound::Query) if self.coalition.borrow().is_some() => Err(scope.error(
                    span,
                    format!("{what}=? on a game: ask for {what}min=? or {what}max=? (what the coalition seeks)"),
                )),
                (None, Bound::Query) => Err(scope.error(
                    span,
                    format!("{what}=? on an MDP: ask for {what}min=? or {what}max=? (the value depends on the policy)"),
                )),
            },
        }
    }

    fn operator_outcome(&self, scope: &Scope<'_>, e: &Expr) -> Result<Outcome> {
        match &e.kind {
            ExprKind::Prob { optimum, bound, path } => {
                let opt = self.optimum(scope, *optimum, bound, "P", e.span)?;
                // The exact 0/1 sets only matter to a comparison.
                let qualitative = matches!(bound, Bound::Compare(..));
                let values = self.path(scope, path, opt, qualitative)?;
                self.bounded(scope, bound, values, e)
            }
            ExprKind::Reward {
                structure,
                optimum,
                bound,
                path,
            } => {
                let opt = self.optimum(scope, *optimum, bound, "R", e.span)?;
                let (name, rewards) = self.reward_structure(scope, structure.as_ref(), e.span)?;
                let values = self.reward(scope, (Some(name), rewards), path, opt, e.span)?;
                self.bounded(scope, bound, values, e)
            }
            ExprKind::Steady {
                optimum,
                bound,
                states,
            } => {
                let opt = self.optimum(scope, *optimum, bound, "S", e.span)?;
                let set = self.state_set(scope, states)?;
                let r: Vec<f64> = (0..self.n())
                    .map(|s| if set.contains(s as StateId) { 1.0 } else { 0.0 })
                    .collect();
                let values = self.long_run(&RewardModel::from_state_rewards(r), None, opt)?;
                self.bounded(scope, bound, values, e)
            }
            ExprKind::Time {
                optimum,
                bound,
                target,
            } => {
                let opt = self.optimum(scope, *optimum, bound, "T", e.span)?;
                let target = self.state_set(scope, target)?;
                let steps = RewardModel::from_state_rewards(vec![1.0; self.n()]);
                let values = self.reach_reward((None, &steps), &target, opt)?;
                self.bounded(scope, bound, values, e)
            }
            ExprKind::Filter { op, prop, states } => self.filter(scope, *op, prop, states.as_deref(), e),
            ExprKind::Coalition { players, prop } => {
                let mask = self.coalition_mask(scope, players, e.span)?;
                let outer = self.coalition.replace(Some(mask));
                let out = self.operator_outcome(scope, prop);
                self.coalition.replace(outer);
                out
            }
            _ => Err(scope.error(e.span, "a property operator is expected here".into())),
        }
    }

    /// `values` compared with the operator's bound, or as they are for `=?`.
    fn bounded(&self, scope: &Scope<'_>, bound: &Bound, values: Outcome, e: &Expr) -> Result<Outcome> {
        let Bound::Compare(op, p) = bound else {
            return Ok(values);
        };
        let Outcome::Numbers {
            values,
            bound: err,
            decided,
            exact,
        } = values
        else {
            unreachable!("operators give numbers");
        };
        let at = p.span;
        let p = match scope.evaluate(p, "a bound")? {
            Value::Bool(_) => return Err(scope.error(at, "the bound must be a number".into())),
            v => v.as_f64().expect("a number"),
        };
        if matches!(e.kind, ExprKind::Prob { .. } | ExprKind::Steady { .. }) && !(0.0..=1.0).contains(&p) {
            return Err(scope.error(at, format!("a probability bound must be from 0 to 1, not {p}")));
        }
        let holds = |v: f64| match op {
            BinOp::Gt => v > p,
            BinOp::Ge => v >= p,
            BinOp::Lt => v < p,
            _ => v <= p,
        };
        let mut set = StateSet::empty(values.len());
        for (s, &v) in values.iter().enumerate() {
            let sid = s as StateId;
            // Against 0 or 1, the graph analysis decides: a value it did not fix to 0 or 1 lies
            // strictly between them.
            if let Some((yes, no)) = &decided
                && (p == 0.0 || p == 1.0)
            {
                let exact = if yes.contains(sid) {
                    Some(1.0)
                } else if no.contains(sid) {
                    Some(0.0)
                } else {
                    None
                };
                let answer = match exact {
                    Some(x) => holds(x),
                    None => holds(0.5),
                };
                if answer {
                    set.insert(sid);
                }
                continue;
            }
            // Exact values decide exactly.
            if let Some(x) = &exact {
                let answer = match &x[s] {
                    None => holds(f64::INFINITY),
                    Some(r) => {
                        let p = crate::exact::parse_exact(&format!("{p}")).expect("a finite bound");
                        match op {
                            BinOp::Gt => *r > p,
                            BinOp::Ge => *r >= p,
                            BinOp::Lt => *r < p,
                            _ => *r <= p,
                        }
                    }
                };
                if answer {
                    set.insert(sid);
                }
                continue;
            }
            let (lo, hi) = (v - err, v + err);
            let (a, b) = (holds(lo), holds(hi));
            if a != b || (v.is_infinite() && err.is_nan()) {
                return Err(Error::Undecided {
                    state: self.state_name(sid),
                    value: v,
                    bound: err,
                    threshold: p,
                });
            }
            if a {
                set.insert(sid);
            }
        }
        Ok(Outcome::Bools(set))
    }

    fn state_name(&self, s: StateId) -> String {
        match self.subject.model {
            Model::Dtmc(d) => d.state_name(s),
            Model::Mdp(m) => m.state_name(s),
        }
    }

    fn step_bound(&self, scope: &Scope<'_>, b: &StepBound) -> Result<u64> {
        let k = self.step_count(scope, b)?;
        // Multiply–adds only: these loops stop early at a fixed point.
        let work = k.saturating_mul(self.matrix().nnz().max(1) as u64);
        if work > self.options.max_work {
            return Err(Error::LimitReached {
                what: "a step-bounded operator",
                limit: self.options.max_work,
                message: format!("{k} steps over {} transitions", self.matrix().nnz()),
            });
        }
        Ok(k)
    }

    /// The work one step of a cumulative reward counts for: its multiply–adds, plus the states
    /// and a fixed overhead (small models take many cheap steps).
    fn step_work(&self) -> u64 {
        (self.matrix().nnz() + self.n() + 64) as u64
    }

    /// A step bound's number of steps (`<k` is `k − 1`), without the work limit.
    fn step_count(&self, scope: &Scope<'_>, b: &StepBound) -> Result<u64> {
        let k = match scope.evaluate(&b.steps, "a step bound")? {
            Value::Int(k) => k,
            v => {
                return Err(scope.error(b.steps.span, format!("a step bound must be an int, not {v}")));
            }
        };
        let k = if b.op == BinOp::Lt { k - 1 } else { k };
        if k < 0 {
            return Err(scope.error(b.steps.span, format!("the step bound {k} is negative")));
        }
        Ok(k as u64)
    }

    /// The total reward over `k` steps (`V_k = T^k 0`, `T v = opt(r + P v)`) for `k` too large
    /// to step through: value iteration ([`crate::mdp::long_run`], stride `d` = 2, which also
    /// settles for chains that alternate) until the `d`-step increments `V_K − V_{K−d}` agree
    /// across states;
    /// since `T` is monotone and commutes with adding a constant, every later `d`-step increment
    /// lies between their smallest and largest value (Odoni, "On finding the maximal gain for
    /// Markov decision processes", Operations Research 17(5), 1969; for games the same holds
    /// with each owner's optimum), so `V_k ∈ V_K + (k − K)/d · [min, max]`, widened by the
    /// rounding. Returns the midpoints, the bound, `K` and `d`.
    ///
    /// # Errors
    /// [`Error::LimitReached`] if the increments do not agree within the work limit (a chain
    /// whose gain differs between states, or a period other than 1 or 2).
    fn extrapolated(&self, r: &[f64], k: u64, opt: Option<Optimum>) -> Result<Extrapolated> {
        let m = self.matrix();
        let r_max = r.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let direction = opt.map_or(Direction::Max, Optimum::direction);
        let mask = self.coalition.borrow().clone();
        let owner = |s: usize| match &mask {
            Some(mask) if !mask[s] => direction.flip(),
            _ => direction,
        };
        // Two steps per stage: the increments then settle for chains that alternate (as the
        // players of a game do) as well as for the others.
        let period = 2u64;
        let options = crate::mdp::LongRunOptions {
            period,
            tolerance: 2e-14 * (r_max * period as f64).max(1.0),
            max_stages: (self.options.max_work / m.nnz().max(1) as u64 / period).min(100_000),
        };
        let lr = crate::mdp::long_run(m, r, owner, &options)?;
        let taken = lr.stages * period;
        if taken > k {
            return Err(Error::LimitReached {
                what: "a step-bounded reward",
                limit: self.options.max_work,
                message: format!("{k} steps: fewer than value iteration needs to bracket the gain"),
            });
        }
        // With w the computed V_{K−p} (within `start` of the true one; T does not expand
        // distances in the max norm), the true T^p w is the computed V_K up to p steps'
        // rounding `delta`, so the true increments T^p w − w lie in [lo, hi] = the computed
        // bracket widened by `delta`, and so do all later ones: V_k = T^{k−K+p} w within
        // `start` lies in w + ((k − K)/p + 1)·[lo, hi] ⊂ V_K + (k − K)/p·[lo, hi] ± (hi − lo)
        // (as w = V_K − an increment from [lo, hi]).
        let start = self.steps_bound(taken, r_max * (1.0 + taken as f64));
        let top = lr.values.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let delta = self.steps_bound(period, top + r_max * period as f64);
        let (lo, hi) = (lr.gain_lower - delta, lr.gain_upper + delta);
        let rest = k - taken;
        let (stages, extra) = (rest / period, rest % period);
        let slack = start + (hi - lo);
        let mut low: Vec<f64> = lr.values.iter().map(|x| x - slack + stages as f64 * lo).collect();
        let mut high: Vec<f64> = lr.values.iter().map(|x| x + slack + stages as f64 * hi).collect();
        // Steps left over (k − K not a multiple of the period): T is monotone, so each end
        // of the interval is carried on by itself.
        for _ in 0..extra {
            low = self.step(&low, Some(r), opt)?;
            high = self.step(&high, Some(r), opt)?;
        }
        let mut bound = 0.0f64;
        let values: Vec<f64> = low
            .iter()
            .zip(&high)
            .map(|(a, b)| {
                bound = bound.max((b - a) / 2.0);
                a + (b - a) / 2.0
            })
            .collect();
        let top = values.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        // The steps' choices are not the first move's with k steps to go: none recorded.
        self.strategy.replace(None);
        Ok(Extrapolated {
            values,
            bound: bound + 4.0 * f64::EPSILON * top + self.steps_bound(extra, top),
            taken,
            stride: period,
            gain: (lo / period as f64, hi / period as f64),
            choices: lr.choices,
        })
    }

    fn path(
        &self,
        scope: &Scope<'_>,
        path: &ast::Path,
        opt: Option<Optimum>,
        qualitative: bool,
    ) -> Result<Outcome> {
        match &path.kind {
            PathKind::Next(phi) => {
                let phi = self.state_set(scope, phi)?;
                let x = indicator(&phi);
                let y = self.step(&x, None, opt)?;
                self.note("one step (a product)");
                let exact = self.exact_steps(exact_indicator(&phi), 1, None, opt, |_| None)?;
                Ok(self.probabilities(y, 1, exact))
            }
            PathKind::Eventually(None, psi) => {
                let psi = self.state_set(scope, psi)?;
                self.until(None, &psi, opt, qualitative)
            }
            PathKind::Until(phi, None, psi) => {
                let phi = self.state_set(scope, phi)?;
                let psi = self.state_set(scope, psi)?;
                self.until(Some(&phi), &psi, opt, qualitative)
            }
            PathKind::Eventually(Some(b), psi) => {
                let k = self.step_bound(scope, b)?;
                let psi = self.state_set(scope, psi)?;
                self.bounded_until(None, &psi, k, opt)
            }
            PathKind::Until(phi, Some(b), psi) => {
                let k = self.step_bound(scope, b)?;
                let phi = self.state_set(scope, phi)?;
                let psi = self.state_set(scope, psi)?;
                self.bounded_until(Some(&phi), &psi, k, opt)
            }
            PathKind::Globally(b, phi) => {
                // G φ = ¬F ¬φ: one minus the probability of reaching ¬φ, the other optimum.
                let not_phi = self.state_set(scope, phi)?.complement();
                let flipped = opt.map(|o| match o {
                    Optimum::Max => Optimum::Min,
                    Optimum::Min => Optimum::Max,
                });
                let reach = match b {
                    None => self.until(None, &not_phi, flipped, qualitative)?,
                    Some(b) => {
                        let k = self.step_bound(scope, b)?;
                        self.bounded_until(None, &not_phi, k, flipped)?
                    }
                };
                let Outcome::Numbers {
                    values,
                    bound,
                    decided,
                    exact,
                } = reach
                else {
                    unreachable!("numbers")
                };
                Ok(Outcome::Numbers {
                    values: values.iter().map(|v| 1.0 - v).collect(),
                    bound: bound + f64::EPSILON,
                    decided: decided.map(|(yes, no)| (no, yes)),
                    exact: exact.map(|x| x.into_iter().map(|v| v.map(|v| Rational::ONE - v)).collect()),
                })
            }
            PathKind::Conditional(event, condition) => {
                let (PathKind::Eventually(None, a), PathKind::Eventually(None, b)) =
                    (&event.kind, &condition.kind)
                else {
                    return Err(scope.error(
                        path.span,
                        "conditional probabilities are supported as P=? [F a || F b] (both unbounded F)"
                            .into(),
                    ));
                };
                let Kind::Chain(d) = self.kind() else {
                    return Err(scope.error(
                        path.span,
                        "conditional probabilities of MDPs are not supported (chains only)".into(),
                    ));
                };
                let a = self.state_set(scope, a)?;
                let b = self.state_set(scope, b)?;
                self.conditional(d, &a, &b)
            }
        }
    }

    /// `P [F a || F b]` on a chain (Storm's conditional probability): `P(F a ∧ F b) / P(F b)`,
    /// the numerator a reachability in the product of the chain with two bits recording whether
    /// an `a`-state and a `b`-state have been seen (Baier, Klein, Klüppelholz & Märcker, "Computing
    /// conditional probabilities in Markovian models efficiently", TACAS 2014, treat the general
    /// case). The bound of a quotient `x/y` of values within `ex`, `ey`: `(ex + q·ey)/(y − ey)`.
    /// States from which `b` has probability 0 have no value: NaN (refused at the initial state).
    fn conditional(&self, d: &Dtmc, a: &StateSet, b: &StateSet) -> Result<Outcome> {
        let n = d.n();
        let bits = |s: usize| -> usize {
            usize::from(a.contains(s as StateId)) | (usize::from(b.contains(s as StateId)) << 1)
        };
        // Row (s, seen) of the product: each successor t with the bits of t added to `seen`.
        fn product<T: Clone + std::ops::AddAssign>(
            m: &CsrMatrix<T>,
            bits: &dyn Fn(usize) -> usize,
        ) -> CsrMatrix<T> {
            let n = m.nrows();
            let mut out = CsrBuilder::<T>::new(4 * n);
            for s in 0..n {
                for seen in 0..4 {
                    let (cols, vals) = m.row(s);
                    for (&t, v) in cols.iter().zip(vals) {
                        out.add((4 * t as usize + (seen | bits(t as usize))) as StateId, v.clone());
                    }
                    out.finish_row();
                }
            }
            out.build()
        }
        let both = StateSet::from_states(4 * n, (0..n).map(|s| (4 * s + 3) as StateId));
        let mut chain = Dtmc::new(
            product(d.matrix(), &bits),
            vec![bits(d.initial()[0] as usize) as StateId],
        )?;
        if self.options.exact {
            chain = chain.with_written(crate::model::Written {
                probabilities: product(&d.exact_matrix()?, &bits).as_parts().2.to_vec(),
                rewards: Default::default(),
            })?;
        }
        let joint = analysis::reach_probability(&chain, &both)?;
        let cond = analysis::reach_probability(d, b)?;
        let (ex, ey) = (joint.error_bound, cond.error_bound);
        let mut bound = 0.0f64;
        let values: Vec<f64> = (0..n)
            .map(|s| {
                let x = joint.values[4 * s + bits(s)];
                let y = cond.values[s];
                if y - ey <= 0.0 {
                    return f64::NAN;
                }
                let q = x / y;
                bound = bound.max((ex + q * ey) / (y - ey) + q * f64::EPSILON);
                q
            })
            .collect();
        for &s in d.initial() {
            if values[s as usize].is_nan() {
                return Err(Error::arg(
                    "property",
                    format!(
                        "the condition of P=? [F a || F b] has probability 0 (or not certifiably more) in the initial state {}",
                        d.state_name(s)
                    ),
                ));
            }
        }
        let exact = if self.options.exact {
            let x = crate::analysis::exact::reach_probability_exact(&chain, &both)?;
            let y = crate::analysis::exact::reach_probability_exact(d, b)?;
            Some(
                (0..n)
                    .map(|s| (y[s] != Rational::ZERO).then(|| x[4 * s + bits(s)].clone() / y[s].clone()))
                    .collect(),
            )
        } else {
            None
        };
        self.note("conditional probability: P(F a and F b) in the product with two bits of memory, over P(F b); two linear solves");
        Ok(Outcome::Numbers {
            values: values
                .into_iter()
                .map(|v| if v.is_nan() { v } else { v.clamp(0.0, 1.0) })
                .collect(),
            bound,
            decided: None,
            exact,
        })
    }

    /// `P [φ U ψ]` (`φ` = every state for `F ψ`).
    fn until(
        &self,
        phi: Option<&StateSet>,
        psi: &StateSet,
        opt: Option<Optimum>,
        qualitative: bool,
    ) -> Result<Outcome> {
        // States satisfying neither φ nor ψ stop the path: absorbing.
        let stop = phi.map(|phi| {
            StateSet::from_states(
                self.n(),
                (0..self.n() as StateId).filter(|&s| !phi.contains(s) && !psi.contains(s)),
            )
        });
        let stop = stop.filter(|s| !s.is_empty());
        match self.kind() {
            Kind::Chain(d) => {
                let modified;
                let chain = match &stop {
                    Some(stop) => {
                        let mut c = Dtmc::new(absorbing_where(d.matrix(), stop, 1.0), d.initial().to_vec())?;
                        if self.options.exact {
                            c = c.with_written(written_absorbing(&d.exact_matrix()?, stop))?;
                        }
                        modified = c;
                        &modified
                    }
                    None => d,
                };
                let r = analysis::reach_probability(chain, psi)?;
                let exact = if self.options.exact {
                    Some(
                        crate::analysis::exact::reach_probability_exact(chain, psi)?
                            .into_iter()
                            .map(Some)
                            .collect(),
                    )
                } else {
                    None
                };
                self.note(if r.residual == 0.0 && r.error_bound == 0.0 {
                    "reachability: graph analysis".to_string()
                } else {
                    "reachability: graph analysis, then a linear solve (I - Q) x = b".to_string()
                });
                Ok(Outcome::Numbers {
                    values: r.values,
                    bound: r.error_bound,
                    decided: Some((r.qualitative.yes, r.qualitative.no)),
                    exact,
                })
            }
            Kind::Decision(m) => {
                let opt = opt.expect("MDPs have an optimum");
                let modified;
                let model = match &stop {
                    Some(stop) => {
                        let mut c = Mdp::new(absorbing_where(m.matrix(), stop, 1.0), m.initial().to_vec())?;
                        if self.options.exact {
                            c = c.with_written(written_absorbing(&m.exact_matrix()?, stop))?;
                        }
                        modified = c;
                        &modified
                    }
                    None => m,
                };
                if let Some(maximiser) = self.maximiser(opt) {
                    // A game: the coalition seeks `opt`, the others oppose it.
                    let s = crate::game::reach_bounds(model, &maximiser, psi, &self.mdp_options())?;
                    self.note(format!(
                        "{} reachability for the coalition: {}",
                        optimum_name(opt),
                        s.method
                    ));
                    self.memoryless(&s.policy);
                    let exact = if self.options.exact {
                        let v = crate::game::reach_exact(model, &maximiser, psi, &s.policy)?;
                        self.note("exact: the strategies' chain solved in rationals, certified optimal at every state");
                        Some(v.into_iter().map(Some).collect())
                    } else {
                        None
                    };
                    // Values 0 and 1 exactly, by graph analysis: thresholds 0 and 1 decide on them.
                    let decided = qualitative.then(|| crate::game::qualitative(model, &maximiser, psi));
                    return Ok(Outcome::Numbers {
                        values: s.values,
                        bound: s.error_bound,
                        decided,
                        exact,
                    });
                }
                let s = mdp::reach_probability(model, psi, opt, &self.mdp_options())?;
                let exact = if self.options.exact {
                    let (v, _) = mdp::reach_probability_exact(model, psi, opt, &s.policy)?;
                    Some(v.into_iter().map(Some).collect())
                } else {
                    None
                };
                self.note(format!("{} reachability: {}", optimum_name(opt), s.method));
                self.memoryless(&s.policy);
                let decided = qualitative.then(|| {
                    let (yes, no, _) = match opt {
                        Optimum::Max => prob01_max(model, psi),
                        Optimum::Min => prob01_min(model, psi),
                    };
                    (yes, no)
                });
                Ok(Outcome::Numbers {
                    values: s.values,
                    bound: s.error_bound,
                    decided,
                    exact,
                })
            }
        }
    }

    fn mdp_options(&self) -> MdpOptions {
        MdpOptions {
            max_iterations: self.options.max_iterations,
            precision: self.options.precision,
            ..MdpOptions::default()
        }
    }

    /// One product `P x` (chains) or Bellman step `opt_a Σ P(a) x` (MDPs), plus `offset` per
    /// choice; [`Error::Interrupted`] if a stop is requested ([`crate::interrupt`]: every step
    /// loop of the checker goes through here).
    fn step(&self, x: &[f64], offset: Option<&[f64]>, opt: Option<Optimum>) -> Result<Vec<f64>> {
        crate::interrupt::check()?;
        let m = self.matrix();
        let n = self.n();
        let mut out = vec![0.0; n];
        let mut choices = vec![0u32; n];
        let affine = match offset {
            Some(b) => Affine::offset(b),
            None => Affine::product(),
        };
        let direction = opt.map_or(Direction::Max, Optimum::direction);
        let coalition = self.coalition.borrow();
        match coalition.as_deref() {
            None => m.multiply_and_reduce(|_| direction, x, affine, &mut out, &mut choices),
            Some(mask) => m.multiply_and_reduce(
                |s| if mask[s] { direction } else { direction.flip() },
                x,
                affine,
                &mut out,
                &mut choices,
            ),
        }
        if opt.is_some() {
            // The latest step's choices: after k steps, the first move's with k to go.
            self.strategy.replace(Some(Strategy {
                choices,
                memoryless: false,
            }));
        }
        Ok(out)
    }

    /// Records `policy` as the strategy of the operator being evaluated (an MDP's or a game's).
    fn memoryless(&self, policy: &[u32]) {
        self.strategy.replace(Some(Strategy {
            choices: policy.to_vec(),
            memoryless: true,
        }));
    }

    /// The bound of `k` steps of products on values at most `scale`: each step's rounding and
    /// the input probabilities' (γ of the longest row, twice), accumulated.
    fn steps_bound(&self, k: u64, scale: f64) -> f64 {
        let m = self.matrix();
        let longest = (0..m.nrows()).map(|r| m.row(r).0.len()).max().unwrap_or(0);
        k as f64 * 3.0 * entry_rounding(longest) * scale
    }

    fn probabilities(&self, values: Vec<f64>, k: u64, exact: Option<Vec<Rational>>) -> Outcome {
        let bound = self.steps_bound(k, 1.0);
        Outcome::Numbers {
            values: values.into_iter().map(|v| v.clamp(0.0, 1.0)).collect(),
            bound,
            decided: None,
            exact: exact.map(|x| x.into_iter().map(Some).collect()),
        }
    }

    /// With `--exact`: `k` steps of `x ← offset + P x` (reduced by `opt` over each state's
    /// choices) in rationals on the model's exact probabilities, `fix(s)` overriding a state's new
    /// value; `None` without `--exact`.
    fn exact_steps(
        &self,
        x: Vec<Rational>,
        k: u64,
        offset: Option<&[Rational]>,
        opt: Option<Optimum>,
        fix: impl Fn(usize) -> Option<Rational>,
    ) -> Result<Option<Vec<Rational>>> {
        if !self.options.exact {
            return Ok(None);
        }
        let p = match self.subject.model {
            Model::Dtmc(d) => d.exact_matrix()?,
            Model::Mdp(m) => m.exact_matrix()?,
        };
        // Rational numbers grow with every step: a smaller budget than the floating-point one.
        let work = k.saturating_mul(p.nnz().max(1) as u64);
        if work > EXACT_MAX_WORK {
            return Err(Error::LimitReached {
                what: "an exact step-bounded operator",
                limit: EXACT_MAX_WORK,
                message: format!("{k} steps over {} transitions in rational arithmetic", p.nnz()),
            });
        }
        let mut x = x;
        for _ in 0..k {
            crate::interrupt::check()?;
            let mut y = Vec::with_capacity(x.len());
            for g in 0..p.row_groups() {
                if let Some(v) = fix(g) {
                    y.push(v);
                    continue;
                }
                let mut best: Option<Rational> = None;
                for r in p.group_rows(g) {
                    let (cols, vals) = p.row(r);
                    let mut acc = offset.map_or(Rational::ZERO, |o| o[r].clone());
                    for (&c, v) in cols.iter().zip(vals) {
                        acc += v * &x[c as usize];
                    }
                    let direction = opt.map(|_| self.direction_of(g, opt));
                    best = Some(match (best, direction) {
                        (None, _) => acc,
                        (Some(b), Some(Direction::Min)) if acc < b => acc,
                        (Some(b), Some(Direction::Max)) if acc > b => acc,
                        (Some(b), _) => b,
                    });
                }
                y.push(best.expect("a state has a choice"));
            }
            x = y;
        }
        Ok(Some(x))
    }

    /// `P [φ U<=k ψ]` by `k` steps from the indicator of ψ.
    fn bounded_until(
        &self,
        phi: Option<&StateSet>,
        psi: &StateSet,
        k: u64,
        opt: Option<Optimum>,
    ) -> Result<Outcome> {
        let mut x = indicator(psi);
        for _ in 0..k {
            let mut y = self.step(&x, None, opt)?;
            for (s, v) in y.iter_mut().enumerate() {
                let sid = s as StateId;
                if psi.contains(sid) {
                    *v = 1.0;
                } else if phi.is_some_and(|phi| !phi.contains(sid)) {
                    *v = 0.0;
                }
            }
            // A fixed point of the computed step: every further step gives the same numbers.
            if y == x {
                break;
            }
            x = y;
        }
        self.note(format!(
            "{k} step{} of {}",
            if k == 1 { "" } else { "s" },
            self.step_name(opt)
        ));
        let exact = self.exact_steps(exact_indicator(psi), k, None, opt, |s| {
            let sid = s as StateId;
            if psi.contains(sid) {
                Some(Rational::ONE)
            } else if phi.is_some_and(|phi| !phi.contains(sid)) {
                Some(Rational::ZERO)
            } else {
                None
            }
        })?;
        Ok(self.probabilities(x, k, exact))
    }

    fn step_name(&self, opt: Option<Optimum>) -> &'static str {
        if self.coalition.borrow().is_some() {
            return match opt {
                Some(Optimum::Min) => "game Bellman steps (the coalition minimising, the others maximising)",
                _ => "game Bellman steps (the coalition maximising, the others minimising)",
            };
        }
        match opt {
            None => "products with the transition matrix",
            Some(Optimum::Max) => "maximising Bellman steps",
            Some(Optimum::Min) => "minimising Bellman steps",
        }
    }

    fn reward_structure(
        &self,
        scope: &Scope<'_>,
        r: Option<&RewardRef>,
        span: Span,
    ) -> Result<(&'a str, &'a RewardModel)> {
        let models = match self.subject.model {
            Model::Dtmc(d) => d.reward_models(),
            Model::Mdp(m) => m.reward_models(),
        };
        let order = &self.subject.reward_order;
        if !self.subject.reward_order_known && order.len() > 1 && !matches!(r, Some(RewardRef::Name(..))) {
            return Err(scope.error(
                span,
                format!(
                    "the model has several reward models ({}): name one, R{{\"name\"}}",
                    list_names(order)
                ),
            ));
        }
        let name = match r {
            None => order
                .first()
                .ok_or_else(|| scope.error(span, "the model has no reward structure".into()))?,
            Some(RewardRef::Name(n, at)) => order.iter().find(|x| *x == n).ok_or_else(|| {
                scope.error(
                    *at,
                    format!(
                        "no reward structure \"{n}\" (the model has {})",
                        list_names(order)
                    ),
                )
            })?,
            Some(RewardRef::Index(e)) => {
                let k = match scope.evaluate(e, "a reward structure's index")? {
                    Value::Int(k) => k,
                    v => return Err(scope.error(e.span, format!("a reward index must be an int, not {v}"))),
                };
                usize::try_from(k - 1)
                    .ok()
                    .and_then(|i| order.get(i))
                    .ok_or_else(|| {
                        scope.error(
                            e.span,
                            format!("no reward structure number {k} (the model has {})", order.len()),
                        )
                    })?
            }
        };
        let (key, model) = models
            .get_key_value(name.as_str())
            .expect("a reward model of the model");
        Ok((key.as_str(), model))
    }

    /// With `--exact`: the exact reward of each choice of reward model `name` (`None`: one per
    /// step, for `T`).
    fn exact_rewards(&self, name: Option<&str>) -> Result<Option<Vec<Rational>>> {
        if !self.options.exact {
            return Ok(None);
        }
        Ok(Some(match (name, self.subject.model) {
            (Some(n), Model::Dtmc(d)) => d.exact_rewards(n)?,
            (Some(n), Model::Mdp(m)) => m.exact_rewards(n)?,
            (None, _) => vec![Rational::ONE; self.matrix().nrows()],
        }))
    }

    /// With `--exact`: reward model `name`'s state rewards exactly.
    fn exact_state_rewards(&self, name: &str, rewards: &RewardModel) -> Result<Option<Vec<Rational>>> {
        if !self.options.exact {
            return Ok(None);
        }
        let written = match self.subject.model {
            Model::Dtmc(d) => d.written(),
            Model::Mdp(m) => m.written(),
        };
        let state = written
            .and_then(|w| w.rewards.get(name))
            .and_then(|r| r.state.clone());
        Ok(Some(match state {
            Some(s) => s,
            None => match &rewards.state {
                Some(s) => crate::exact::rationalize_rewards(s)?,
                None => vec![Rational::ZERO; self.n()],
            },
        }))
    }

    fn reward(
        &self,
        scope: &Scope<'_>,
        (name, rewards): (Option<&str>, &RewardModel),
        path: &RewardPath,
        opt: Option<Optimum>,
        span: Span,
    ) -> Result<Outcome> {
        match path {
            RewardPath::Reach(target) => {
                let target = self.state_set(scope, target)?;
                if let Kind::Decision(m) = self.kind() {
                    let r = rewards.expected_per_choice(m.matrix());
                    if r.iter().any(|x| *x < 0.0) && r.iter().any(|x| *x > 0.0) {
                        return Err(scope.error(
                            span,
                            "R [F ...] of an MDP or a game needs rewards all >= 0 or all <= 0: with both signs the total until the target can be undefined".into(),
                        ));
                    }
                }
                self.reach_reward((name, rewards), &target, opt)
            }
            RewardPath::Cumulative(k) => {
                let k = self.step_count(
                    scope,
                    &StepBound {
                        op: BinOp::Le,
                        steps: k.clone(),
                    },
                )?;
                let r = rewards.expected_per_choice(self.matrix());
                let r_max = r.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                let within = k.saturating_mul(self.step_work()) <= self.options.max_work;
                if !within {
                    // Too many steps to take one by one: the increments' bracket.
                    if self.options.exact {
                        return Err(Error::LimitReached {
                            what: "an exact step-bounded operator",
                            limit: self.options.max_work,
                            message: format!("{k} steps over {} transitions", self.matrix().nnz()),
                        });
                    }
                    let Extrapolated {
                        values,
                        bound,
                        taken,
                        stride,
                        ..
                    } = self.extrapolated(&r, k, opt)?;
                    self.note(format!(
                        "{taken} {}, then the remaining {} steps bracketed by the smallest and largest {stride}-step increment (Odoni 1969: they bound every later one)",
                        self.step_name(opt),
                        k - taken
                    ));
                    return Ok(Outcome::Numbers {
                        values,
                        bound,
                        decided: None,
                        exact: None,
                    });
                }
                let mut v = vec![0.0; self.n()];
                for _ in 0..k {
                    v = self.step(&v, Some(&r), opt)?;
                }
                self.note(format!(
                    "{k} step{} of {}",
                    if k == 1 { "" } else { "s" },
                    self.step_name(opt)
                ));
                let scale = r_max * (1.0 + k as f64);
                let exact = match self.exact_rewards(name)? {
                    Some(xr) => {
                        self.exact_steps(vec![Rational::ZERO; self.n()], k, Some(&xr), opt, |_| None)?
                    }
                    None => None,
                };
                Ok(Outcome::Numbers {
                    values: v,
                    bound: self.steps_bound(k, scale) + self.steps_bound(1, r_max * k as f64),
                    decided: None,
                    exact: exact.map(|x| x.into_iter().map(Some).collect()),
                })
            }
            RewardPath::Instant(k) => {
                let k = self.step_bound(
                    scope,
                    &StepBound {
                        op: BinOp::Le,
                        steps: k.clone(),
                    },
                )?;
                let mut v = rewards.state.clone().unwrap_or_else(|| vec![0.0; self.n()]);
                let r_max = v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                for _ in 0..k {
                    v = self.step(&v, None, opt)?;
                }
                self.note(format!(
                    "{k} step{} of {}",
                    if k == 1 { "" } else { "s" },
                    self.step_name(opt)
                ));
                let exact = match name {
                    Some(n) => match self.exact_state_rewards(n, rewards)? {
                        Some(x0) => self.exact_steps(x0, k, None, opt, |_| None)?,
                        None => None,
                    },
                    None => None,
                };
                Ok(Outcome::Numbers {
                    values: v,
                    bound: self.steps_bound(k, r_max),
                    decided: None,
                    exact: exact.map(|x| x.into_iter().map(Some).collect()),
                })
            }
            RewardPath::Total => {
                let r = rewards.expected_per_choice(self.matrix());
                let xr = self.exact_rewards(name)?;
                match self.kind() {
                    Kind::Chain(d) => self.total_chain(d, &r, xr),
                    Kind::Decision(m) => {
                        if r.iter().any(|x| *x < 0.0) {
                            return Err(scope.error(
                                span,
                                "R [C] of an MDP or a game needs non-negative rewards".into(),
                            ));
                        }
                        self.total_decision(m, &r, xr, opt)
                    }
                }
            }
            RewardPath::ReachOrTotal(target) => {
                // Fc φ: the total over all time once φ is made absorbing and earns nothing.
                let target = self.state_set(scope, target)?;
                let r = rewards.expected_per_choice(self.matrix());
                let r: Vec<f64> = (0..self.n())
                    .flat_map(|s| {
                        let stop = target.contains(s as StateId);
                        let rows = self.matrix().group_rows(s);
                        let r = &r;
                        rows.take(if stop { 1 } else { usize::MAX })
                            .map(move |row| if stop { 0.0 } else { r[row] })
                    })
                    .collect();
                let absorbing = absorbing_where(self.matrix(), &target, 1.0);
                self.note(
                    "Fc: the target made absorbing, earning nothing there; then the total over all time",
                );
                match self.kind() {
                    Kind::Chain(d) => {
                        self.total_chain(&Dtmc::new(absorbing, d.initial().to_vec())?, &r, None)
                    }
                    Kind::Decision(m) => {
                        if r.iter().any(|x| *x < 0.0) {
                            return Err(scope.error(
                                span,
                                "R [Fc] of an MDP or a game needs non-negative rewards".into(),
                            ));
                        }
                        self.total_decision(&Mdp::new(absorbing, m.initial().to_vec())?, &r, None, opt)
                    }
                }
            }
            RewardPath::ReachOrZero(target) => {
                let target = self.state_set(scope, target)?;
                let Kind::Chain(d) = self.kind() else {
                    return Err(scope.error(
                        span,
                        "R [F0 ...] is offered for Markov chains only: on an MDP or a game the best strategy may trade reaching the target against earning on the way, and needs memory (use F or Fc)".into(),
                    ));
                };
                self.reach_or_zero(d, rewards, &target)
            }
            RewardPath::LongRun => self.long_run(rewards, self.exact_rewards(name)?, opt),
        }
    }

    /// `R [C]` of a chain (`r` per state): the total is finite exactly where the chain settles,
    /// almost surely, in closed classes that earn nothing: the expected reward until those.
    fn total_chain(&self, d: &Dtmc, r: &[f64], exact_rewards: Option<Vec<Rational>>) -> Result<Outcome> {
        let cls = classes(d.matrix());
        let quiet = StateSet::from_states(
            d.n(),
            cls.closed()
                .filter(|c| c.states.iter().all(|&s| r[s as usize] == 0.0))
                .flat_map(|c| c.states.iter().copied()),
        );
        let chain = AbsorbingChain::new(d, &quiet)?;
        let (values, _, bound) = chain.expected_reward(r)?;
        self.note(format!(
            "total reward until a closed class that earns nothing: {}",
            chain.method()
        ));
        let exact = match exact_rewards {
            Some(xr) => Some(crate::analysis::exact::expected_reward_exact(d, &quiet, &xr)?),
            None => None,
        };
        Ok(Outcome::Numbers {
            values,
            bound,
            decided: None,
            exact,
        })
    }

    /// `R [C]` of an MDP or a game `m` (non-negative per-choice rewards `r`): see
    /// [`mdp::total_reward_forever`]; minimising on an MDP, exactly with `exact_rewards`; on a
    /// game, [`crate::game::total_forever_bounds`].
    fn total_decision(
        &self,
        m: &Mdp,
        r: &[f64],
        exact_rewards: Option<Vec<Rational>>,
        opt: Option<Optimum>,
    ) -> Result<Outcome> {
        let opt = opt.expect("MDPs have an optimum");
        if let Some(maximiser) = self.maximiser(opt) {
            let s = crate::game::total_forever_bounds(m, &maximiser, r, &self.mdp_options())?;
            self.note(format!(
                "{} total reward over all time for the coalition: {}",
                optimum_name(opt),
                s.method
            ));
            if self.options.exact {
                self.note("exact: none for games' total over all time yet");
            }
            return Ok(Outcome::Numbers {
                values: s.values,
                bound: s.error_bound,
                decided: None,
                exact: None,
            });
        }
        let s = mdp::total_reward_forever(m, r, opt, &self.mdp_options())?;
        let exact = match (exact_rewards, opt) {
            (Some(xr), Optimum::Min) => {
                let quiet = mdp::quiet_states(m, r);
                Some(mdp::total_reward_exact(m, &xr, &quiet, Optimum::Min, &s.policy)?.0)
            }
            _ => None,
        };
        self.note(match opt {
            Optimum::Min => format!(
                "minimal total reward: until the end components of zero-reward choices, {}",
                s.method
            ),
            Optimum::Max => format!("maximal total reward: {}", s.method),
        });
        Ok(Outcome::Numbers {
            values: s.values,
            bound: s.error_bound,
            decided: None,
            exact,
        })
    }

    /// `R [F0 φ]` of a chain: a path that misses φ earns nothing, so each step's reward counts
    /// with the probability `p` of reaching φ from where it leads: the expected reward until φ
    /// or a state of `p = 0`, a step `s → t` earning `(state + action reward) · p(t) + transition
    /// reward · p(t)` (the Markov property: given the step, φ is reached with probability
    /// `p(t)`). The bound adds the reward's largest step times `p`'s bound times the longest
    /// expected time to absorption.
    fn reach_or_zero(&self, d: &Dtmc, rewards: &RewardModel, target: &StateSet) -> Result<Outcome> {
        let n = self.n();
        let p = crate::analysis::reach_probability(d, target)?;
        let never = StateSet::from_states(n, (0..n as StateId).filter(|&s| p.values[s as usize] == 0.0));
        let stop = StateSet::from_states(
            n,
            (0..n as StateId).filter(|&s| target.contains(s) || never.contains(s)),
        );
        let m = d.matrix();
        let mut weighted = vec![0.0; n];
        let mut largest = 0.0f64;
        for (s, w) in weighted.iter_mut().enumerate() {
            let base =
                rewards.state.as_ref().map_or(0.0, |x| x[s]) + rewards.action.as_ref().map_or(0.0, |x| x[s]);
            let (cols, vals) = m.row(s);
            let start = m.as_parts().0[s];
            for (k, (&t, &q)) in cols.iter().zip(vals).enumerate() {
                let step = base + rewards.transition.as_ref().map_or(0.0, |x| x[start + k]);
                largest = largest.max(step.abs());
                *w += q * step * p.values[t as usize];
            }
        }
        let chain = AbsorbingChain::new(d, &stop)?;
        let (values, _, bound) = chain.expected_reward(&weighted)?;
        let (steps, _, steps_bound) = chain.expected_reward(&vec![1.0; n])?;
        let longest = steps.iter().fold(0.0f64, |a, x| a.max(*x)) + steps_bound;
        self.note(format!(
            "F0: each step's reward weighted by the probability of reaching the target from where it leads, until the target or a state that cannot reach it: {}",
            chain.method()
        ));
        Ok(Outcome::Numbers {
            values,
            bound: bound + 2.0 * largest * p.error_bound * longest + f64::EPSILON * longest * largest,
            decided: None,
            exact: None,
        })
    }

    /// `R [F target]`.
    fn reach_reward(
        &self,
        (name, rewards): (Option<&str>, &RewardModel),
        target: &StateSet,
        opt: Option<Optimum>,
    ) -> Result<Outcome> {
        match self.kind() {
            Kind::Chain(d) => {
                let r = rewards.expected_per_choice(d.matrix());
                let chain = AbsorbingChain::new(d, target)?;
                let (values, _, bound) = chain.expected_reward(&r)?;
                self.note(format!("expected reward until the target: {}", chain.method()));
                let exact = match self.exact_rewards(name)? {
                    Some(xr) => Some(crate::analysis::exact::expected_reward_exact(d, target, &xr)?),
                    None => None,
                };
                Ok(Outcome::Numbers {
                    values,
                    bound,
                    decided: None,
                    exact,
                })
            }
            Kind::Decision(m) => {
                let opt = opt.expect("MDPs have an optimum");
                let r = rewards.expected_per_choice(m.matrix());
                if let Some(maximiser) = self.maximiser(opt) {
                    // A game: the coalition seeks `opt`, the others oppose it.
                    let s = crate::game::total_reward_bounds(m, &maximiser, &r, target, &self.mdp_options())?;
                    self.memoryless(&s.policy);
                    self.note(format!(
                        "{} expected reward until the target for the coalition: {}",
                        optimum_name(opt),
                        s.method
                    ));
                    let exact = match self.exact_rewards(name)? {
                        Some(xr) => {
                            self.note("exact: the strategies' chain solved in rationals, certified optimal at every state");
                            Some(crate::game::total_reward_exact(
                                m, &maximiser, &xr, target, &s.policy,
                            )?)
                        }
                        None => None,
                    };
                    return Ok(Outcome::Numbers {
                        values: s.values,
                        bound: s.error_bound,
                        decided: None,
                        exact,
                    });
                }
                let s = mdp::total_reward(m, &r, target, opt, &self.mdp_options())?;
                self.memoryless(&s.policy);
                self.note(format!(
                    "{} expected reward until the target: {}",
                    optimum_name(opt),
                    s.method
                ));
                let exact = match self.exact_rewards(name)? {
                    Some(xr) => Some(mdp::total_reward_exact(m, &xr, target, opt, &s.policy)?.0),
                    None => None,
                };
                Ok(Outcome::Numbers {
                    values: s.values,
                    bound: s.error_bound,
                    decided: None,
                    exact,
                })
            }
        }
    }

    /// The long-run average reward per step, from every state; on a game with `--exact`, the gain
    /// exactly from `exact_rewards` (one per choice).
    fn long_run(
        &self,
        rewards: &RewardModel,
        exact_rewards: Option<Vec<Rational>>,
        opt: Option<Optimum>,
    ) -> Result<Outcome> {
        if self.coalition.borrow().is_some() {
            // A game: the gain per step lies between the smallest and largest increment of
            // value iteration (the bracket holds for every state), asked to close.
            let r = rewards.expected_per_choice(self.matrix());
            let e = self.extrapolated(&r, u64::MAX / 4, opt)?;
            let maximiser = self.maximiser(opt.unwrap_or(Optimum::Max));
            let exact = match (exact_rewards, self.kind(), maximiser) {
                (Some(xr), Kind::Decision(m), Some(maximiser)) => {
                    let g = crate::game::long_run_exact(m, &maximiser, &xr, &e.choices)?;
                    self.note("exact: the gain and bias of the strategies' chain in rationals, the optimality equation checked at every state");
                    Some(vec![Some(g); self.n()])
                }
                _ => None,
            };
            let (lo, hi) = e.gain;
            self.note(format!(
                "long-run average of a game: the smallest and largest {}-step increment of {} bracket the gain of every state (Odoni 1969), after {} steps",
                e.stride,
                self.step_name(opt),
                e.taken
            ));
            return Ok(Outcome::Numbers {
                values: vec![lo + (hi - lo) / 2.0; self.n()],
                bound: (hi - lo) / 2.0 + f64::EPSILON * hi.abs(),
                decided: None,
                exact,
            });
        }
        match self.kind() {
            Kind::Chain(d) => {
                // The gain of each closed class (its stationary distribution), then from every
                // state the expected gain of the class it settles in: a reward earned on the step
                // into a closed class, accumulated until one is entered.
                let r = rewards.expected_per_choice(d.matrix());
                let n = self.n();
                let cls = classes(d.matrix());
                let mut gain = vec![f64::NAN; n];
                let mut gain_bound = 0.0f64;
                for c in cls.closed() {
                    let rc = RecurrentClass::new(d.matrix(), &c.states)?;
                    let st = rc.stationary()?;
                    let gb = rc.gain_bias(&st, &r);
                    gain_bound = gain_bound.max(gb.gain_error_bound);
                    for &s in &c.states {
                        gain[s as usize] = gb.gain;
                    }
                }
                let recurrent =
                    StateSet::from_states(n, (0..n as StateId).filter(|&s| !gain[s as usize].is_nan()));
                let m = d.matrix();
                let entering: Vec<f64> = (0..n)
                    .map(|s| {
                        if recurrent.contains(s as StateId) {
                            return 0.0;
                        }
                        let (cols, vals) = m.row(s);
                        cols.iter()
                            .zip(vals)
                            .filter(|(t, _)| recurrent.contains(**t))
                            .map(|(t, p)| p * gain[*t as usize])
                            .sum()
                    })
                    .collect();
                let chain = AbsorbingChain::new(d, &recurrent)?;
                let (mut values, _, bound) = chain.expected_reward(&entering)?;
                for s in recurrent.iter() {
                    values[s as usize] = gain[s as usize];
                }
                self.note("long-run average: each closed class's stationary distribution, weighted by the probability of reaching it");
                Ok(Outcome::Numbers {
                    values,
                    bound: bound + gain_bound,
                    decided: None,
                    exact: None,
                })
            }
            Kind::Decision(m) => {
                let opt = opt.expect("MDPs have an optimum");
                let r = rewards.expected_per_choice(m.matrix());
                let s = mdp::average(m, &r, opt, 1e-12, self.options.max_iterations)?;
                self.note(format!("{} long-run average: {}", optimum_name(opt), s.method));
                Ok(Outcome::Numbers {
                    values: s.values,
                    bound: s.error_bound,
                    decided: None,
                    exact: None,
                })
            }
        }
    }

    fn filter(
        &self,
        scope: &Scope<'_>,
        op: FilterOp,
        prop: &Expr,
        states: Option<&Expr>,
        e: &Expr,
    ) -> Result<Outcome> {
        let inner = self.top_inner(scope, prop)?;
        let set = match states {
            Some(s) => self.state_set(scope, s)?,
            None => StateSet::full(self.n()),
        };
        let members: Vec<StateId> = set.iter().collect();
        if members.is_empty() {
            return Err(scope.error(e.span, "the filter's set of states is empty".into()));
        }
        let (numbers, bools, bound, xs) = match &inner {
            Outcome::Numbers {
                values, bound, exact, ..
            } => (Some(values), None, *bound, exact.as_ref()),
            Outcome::Bools(s) => (None, Some(s), 0.0, None),
            Outcome::Scalar { .. } => {
                return Err(scope.error(
                    prop.span,
                    "a filter of a filter: the inner one has one value".into(),
                ));
            }
        };
        // A state's value: the exact one (to the nearest float) where there is one.
        let answer = |s: StateId| match (numbers, bools) {
            (Some(v), _) => Answer::Number(
                xs.and_then(|x| x[s as usize].as_ref())
                    .map_or(v[s as usize], crate::exact::Scalar::to_f64),
            ),
            (_, Some(b)) => Answer::Bool(b.contains(s)),
            _ => unreachable!(),
        };
        let need_numbers = |what: &str| -> Result<&Vec<f64>> {
            numbers
                .ok_or_else(|| scope.error(e.span, format!("filter({what}, ...) needs a numeric property")))
        };
        let need_bools = |what: &str| -> Result<&StateSet> {
            bools.ok_or_else(|| {
                scope.error(e.span, format!("filter({what}, ...) needs a true/false property"))
            })
        };
        // The exact value of the filter, where the property has exact values (`None` in a
        // member: +∞).
        let exact_of = |op: FilterOp| -> Option<Option<Rational>> {
            let xs = xs?;
            let vals = members.iter().map(|&s| xs[s as usize].clone());
            Some(match op {
                FilterOp::Min => vals.fold(None::<Option<Rational>>, |best, v| match (best, v) {
                    (None, v) => Some(v),
                    (Some(None), v) => Some(v),
                    (Some(Some(b)), None) => Some(Some(b)),
                    (Some(Some(b)), Some(v)) => Some(Some(if v < b { v } else { b })),
                })?,
                FilterOp::Max => vals.fold(None::<Option<Rational>>, |best, v| match (best, v) {
                    (None, v) => Some(v),
                    (Some(None), _) | (Some(Some(_)), None) => Some(None),
                    (Some(Some(b)), Some(v)) => Some(Some(if v > b { v } else { b })),
                })?,
                FilterOp::Sum | FilterOp::Avg => {
                    let mut acc = Rational::ZERO;
                    for v in vals {
                        acc += v?;
                    }
                    if op == FilterOp::Avg {
                        acc /= Rational::from(dashu_int::IBig::from(members.len()));
                    }
                    Some(acc)
                }
                _ => xs[members[0] as usize].clone(),
            })
        };
        let scalar = |value: Answer, bound: f64| Outcome::Scalar {
            value,
            bound,
            printed: Vec::new(),
            exact: match (op, value) {
                (_, Answer::Bool(_)) | (FilterOp::Count, _) => None,
                _ => exact_of(op),
            },
        };
        Ok(match op {
            FilterOp::Min | FilterOp::Max => {
                let v = need_numbers(if op == FilterOp::Min { "min" } else { "max" })?;
                let it = members.iter().map(|&s| v[s as usize]);
                let x = if op == FilterOp::Min {
                    it.fold(f64::INFINITY, f64::min)
                } else {
                    it.fold(f64::NEG_INFINITY, f64::max)
                };
                scalar(Answer::Number(x), bound)
            }
            FilterOp::Avg | FilterOp::Sum => {
                let v = need_numbers(if op == FilterOp::Avg { "avg" } else { "sum" })?;
                let mut acc = crate::numeric::NeumaierSum::default();
                for &s in &members {
                    acc.add(v[s as usize]);
                }
                let k = members.len() as f64;
                let sum = acc.value();
                let rounding = sum.abs() * f64::EPSILON;
                if op == FilterOp::Avg {
                    scalar(Answer::Number(sum / k), bound + 2.0 * rounding / k)
                } else {
                    scalar(Answer::Number(sum), bound * k + rounding)
                }
            }
            FilterOp::Count => {
                let b = need_bools("count")?;
                scalar(
                    Answer::Number(members.iter().filter(|&&s| b.contains(s)).count() as f64),
                    0.0,
                )
            }
            FilterOp::Forall | FilterOp::Exists => {
                let b = need_bools(if op == FilterOp::Forall {
                    "forall"
                } else {
                    "exists"
                })?;
                let x = if op == FilterOp::Forall {
                    members.iter().all(|&s| b.contains(s))
                } else {
                    members.iter().any(|&s| b.contains(s))
                };
                scalar(Answer::Bool(x), 0.0)
            }
            FilterOp::First => scalar(answer(members[0]), bound),
            FilterOp::State => {
                if members.len() != 1 {
                    return Err(scope.error(
                        e.span,
                        format!(
                            "filter(state, ...) needs exactly one state; the filter has {}",
                            members.len()
                        ),
                    ));
                }
                scalar(answer(members[0]), bound)
            }
            FilterOp::Print => Outcome::Scalar {
                value: answer(members[0]),
                bound,
                printed: members.iter().map(|&s| (s, answer(s))).collect(),
                exact: exact_of(op),
            },
        })
    }

    /// A filter's property: as [`top`](Self::top).
    fn top_inner(&self, scope: &Scope<'_>, e: &Expr) -> Result<Outcome> {
        self.top(scope, e)
    }

    fn result(
        &self,
        name: Option<String>,
        property: String,
        outcome: Outcome,
        start: Instant,
    ) -> PropertyResult {
        let method = self.methods.borrow().join("; ");
        let method = if method.is_empty() {
            "evaluated in every state".to_string()
        } else {
            method
        };
        let (mut value, initial_values, mut bound, printed, exact) = match outcome {
            Outcome::Scalar {
                value,
                bound,
                printed,
                exact,
            } => (value, Vec::new(), bound, printed, exact),
            Outcome::Numbers {
                values, bound, exact, ..
            } => {
                let init: Vec<Answer> = self
                    .initial()
                    .iter()
                    .map(|&s| Answer::Number(values[s as usize]))
                    .collect();
                let exact = exact.map(|x| x[self.initial()[0] as usize].clone());
                (init[0], init, bound, Vec::new(), exact)
            }
            Outcome::Bools(set) => {
                let init: Vec<Answer> = self
                    .initial()
                    .iter()
                    .map(|&s| Answer::Bool(set.contains(s)))
                    .collect();
                (init[0], init, 0.0, Vec::new(), None)
            }
        };
        // An exact value: the number shown is its nearest f64, the bound that rounding's.
        let exact = exact.map(|x| match x {
            None => {
                value = Answer::Number(f64::INFINITY);
                bound = 0.0;
                "inf".to_string()
            }
            Some(r) => {
                let v = crate::exact::Scalar::to_f64(&r);
                value = Answer::Number(v);
                bound = v.abs() * (f64::EPSILON / 2.0);
                r.to_string()
            }
        });
        // Several initial states: the interval covers every one's value (their range).
        let (low, high) = initial_values
            .iter()
            .filter_map(|a| match a {
                Answer::Number(x) => Some(*x),
                Answer::Bool(_) => None,
            })
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                (l.min(x), h.max(x))
            });
        let (lower, upper) = match value {
            Answer::Number(_) if initial_values.len() > 1 && exact.is_none() => {
                (Some(low - bound), Some(high + bound))
            }
            Answer::Number(v) if v.is_infinite() => (Some(v), Some(v)),
            Answer::Number(v) => (Some(v - bound), Some(v + bound)),
            Answer::Bool(_) => (None, None),
        };
        PropertyResult {
            name,
            property,
            value,
            initial_values,
            lower,
            upper,
            error_bound: bound,
            exact,
            printed,
            method,
            seconds: start.elapsed().as_secs_f64(),
            strategy: self.strategy.borrow_mut().take(),
        }
    }
}

/// The total reward over many steps from the increments' bracket ([`Checker::extrapolated`]).
struct Extrapolated {
    /// The midpoint of each state's interval.
    values: Vec<f64>,
    /// The half-width of the widest interval.
    bound: f64,
    /// Steps taken one by one.
    taken: u64,
    /// The stride of the increments (1, or 2 for alternating chains).
    stride: u64,
    /// The bracket of the gain per step, `[min, max]` of the increments per step, widened by the
    /// rounding: every state's optimal gain lies in it.
    gain: (f64, f64),
    /// The last value-iteration step's choices (stationary strategies to try for the gain).
    choices: Vec<u32>,
}

fn optimum_name(o: Optimum) -> &'static str {
    match o {
        Optimum::Max => "maximal",
        Optimum::Min => "minimal",
    }
}

fn list_names(names: &[String]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_operator(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Prob { .. }
            | ExprKind::Reward { .. }
            | ExprKind::Steady { .. }
            | ExprKind::Time { .. }
            | ExprKind::Filter { .. }
            | ExprKind::Coalition { .. }
    )
}

fn exact_indicator(set: &StateSet) -> Vec<Rational> {
    (0..set.universe())
        .map(|s| {
            if set.contains(s as StateId) {
                Rational::ONE
            } else {
                Rational::ZERO
            }
        })
        .collect()
}

fn indicator(set: &StateSet) -> Vec<f64> {
    (0..set.universe())
        .map(|s| if set.contains(s as StateId) { 1.0 } else { 0.0 })
        .collect()
}

/// The exact probabilities of `p` with every state of `set` made absorbing (as
/// [`absorbing_where`]), as the modified model's written values.
fn written_absorbing(p: &CsrMatrix<Rational>, set: &StateSet) -> crate::model::Written {
    crate::model::Written {
        probabilities: absorbing_where(p, set, Rational::ONE).as_parts().2.to_vec(),
        rewards: Default::default(),
    }
}

/// `m` with every state of `set` made absorbing: its row group replaced by one self-loop (of
/// probability `one`). Assembled in parallel ([`par_rows`](crate::sparse::par_rows)).
fn absorbing_where<T: Clone + Send + Sync>(m: &CsrMatrix<T>, set: &StateSet, one: T) -> CsrMatrix<T> {
    // The new row groups, and the old row each new row copies (`None`: the self-loop of the
    // absorbing state given).
    let mut group_ptr = Vec::with_capacity(m.row_groups() + 1);
    group_ptr.push(0usize);
    let mut source: Vec<Result<usize, StateId>> = Vec::with_capacity(m.nrows());
    for g in 0..m.row_groups() {
        if set.contains(g as StateId) {
            source.push(Err(g as StateId));
        } else {
            source.extend(m.group_rows(g).map(Ok));
        }
        group_ptr.push(source.len());
    }
    let [a] = crate::sparse::par_rows(
        source.len(),
        one.clone(),
        || (),
        |_, i, out: &mut crate::sparse::RowSink<'_, T, 1>| match source[i] {
            Err(g) => out.push(0, g, one.clone()),
            Ok(r) => {
                let (cols, vals) = m.row(r);
                cols.iter()
                    .zip(vals)
                    .for_each(|(&c, v)| out.push(0, c, v.clone()));
            }
        },
    );
    let (row_ptr, cols, vals) = a.into_arrays();
    CsrMatrix::from_grouped_parts(m.ncols(), row_ptr, cols, vals, group_ptr)
}

/// The file extensions read as the PRISM modelling language (others go to [`crate::io`]).
pub const LANGUAGE_EXTENSIONS: &[&str] = &["pm", "nm", "prism", "smg"];

/// The default limit on a PRISM-language model's reachable states (`kolmo check --max-states`,
/// `kolmo.check(max_states=)`): exploration stops there rather than filling the memory (a state
/// costs some tens of bytes while building).
pub const DEFAULT_MAX_STATES: usize = 100_000_000;

/// What to check: a model file, property sources, constants.
#[derive(Clone, Debug, Default)]
pub struct CheckRequest {
    /// The model: PRISM language (by [`LANGUAGE_EXTENSIONS`]) or any format [`crate::io`] reads.
    pub model: std::path::PathBuf,
    /// Property sources in order: (the name used in messages, e.g. the file's path or
    /// `--prop`, and the text).
    pub properties: Vec<(std::path::PathBuf, String)>,
    /// Values of constants, of the model's or the properties' (`--const`).
    pub constants: Vec<(String, Value)>,
    /// Give deadlock states a self-loop (PRISM's default, `-fixdl`) instead of refusing the model.
    pub fix_deadlocks: bool,
    /// Refuse ([`Error::TooManyStates`]) a PRISM-language model with more states than this
    /// (`None`: up to `u32::MAX`; the command line and the Python package default to
    /// [`DEFAULT_MAX_STATES`]).
    pub max_states: Option<usize>,
    /// Build everything an export writes (PRISM-language models): every reward structure, not
    /// only those the properties use, and the MDP's action names.
    pub all_rewards: bool,
    /// Name each choice of a PRISM-language MDP or game by its action (one more pass over the
    /// states), for strategies; an export (`all_rewards`) names them anyway.
    pub action_names: bool,
    /// How to check.
    pub options: CheckOptions,
}

/// The seconds of each phase.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Seconds {
    /// Reading and parsing the model and property texts.
    pub parse: f64,
    /// Building (exploring) or reading the model.
    pub build: f64,
    /// Checking every property.
    pub check: f64,
}

/// The model checked and every property's result.
#[derive(Debug)]
pub struct CheckReport {
    /// The model.
    pub model: Model,
    /// `"dtmc"`, `"mdp"` or `"smg"` (a game: the MDP's states owned by players).
    pub model_type: &'static str,
    /// Choices (rows of the matrix; the number of states for a chain).
    pub choices: usize,
    /// Deadlock states given a self-loop.
    pub deadlocks: usize,
    /// The constants' values: the model's, then the properties' given ones.
    pub constants: Vec<(String, Value)>,
    /// One result per property, in order.
    pub results: Vec<PropertyResult>,
    /// The phases' times.
    pub seconds: Seconds,
}

/// Reads the model of `request` (building it from the PRISM language, or reading its file) and
/// checks every property, in order.
///
/// # Errors
/// [`Error::Io`] for a file that cannot be read; what [`crate::lang::parse_model`],
/// [`crate::lang::build_model`], [`crate::io::read_model`] and [`check_properties`] return;
/// [`Error::InvalidArgument`] naming `--const` for a constant that neither the model nor the
/// properties declare.
pub fn check_file(request: &CheckRequest) -> Result<CheckReport> {
    use crate::lang::{BuildOptions, build_model, parse_model, parse_properties};
    let t0 = Instant::now();
    let language = request
        .model
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| LANGUAGE_EXTENSIONS.contains(&e));
    let (ast, model_text) = if language {
        let text = std::fs::read_to_string(&request.model).map_err(|error| Error::Io {
            path: request.model.clone(),
            error,
        })?;
        (Some(parse_model(&text, &request.model)?), text)
    } else {
        (None, String::new())
    };
    let files = request
        .properties
        .iter()
        .map(|(path, text)| parse_properties(text, path))
        .collect::<Result<Vec<_>>>()?;
    let parse = t0.elapsed().as_secs_f64();
    // Constants: the model's go to the build, the rest to the properties.
    let model_names: Vec<&str> = ast
        .as_ref()
        .map(|a| a.constants.iter().map(|c| c.name.name.as_str()).collect())
        .unwrap_or_default();
    let (for_model, for_props): Constants = request
        .constants
        .iter()
        .cloned()
        .partition(|(n, _)| model_names.contains(&n.as_str()));
    if let Some((name, _)) = for_props.iter().find(|(n, _)| {
        !files
            .iter()
            .any(|f| f.constants.iter().any(|c| c.name.name == *n))
    }) {
        return Err(Error::arg(
            "--const",
            format!("neither the model nor the properties have a constant {name}"),
        ));
    }
    let t1 = Instant::now();
    let (mut model, built) = match &ast {
        Some(ast) => {
            let built = build_model(
                ast,
                &model_text,
                &request.model,
                &BuildOptions {
                    constants: for_model,
                    fix_deadlocks: request.fix_deadlocks,
                    max_states: request.max_states,
                    exact: request.options.exact,
                    action_names: request.all_rewards || request.action_names,
                    reward_structures: if request.all_rewards {
                        None
                    } else {
                        rewards_used(&files)
                    },
                },
            )?;
            let crate::lang::BuiltModel {
                model,
                model_type,
                variables,
                states,
                reward_names,
                constants,
                deadlocks,
            } = built;
            let info = Built {
                model_type,
                variables,
                states,
                reward_names,
                constants,
                deadlocks: deadlocks.len(),
            };
            (model, Some(info))
        }
        None => {
            let file = crate::io::read_model(
                &request.model,
                &crate::io::ReadOptions {
                    exact: request.options.exact,
                    ..crate::io::ReadOptions::default()
                },
            )?;
            (file.model, None)
        }
    };
    let build = t1.elapsed().as_secs_f64();
    // Models read from files: "init" names the initial states unless the file has its own.
    let (n, choices, labels_missing_init) = match &model {
        Model::Dtmc(d) => (d.n(), d.n(), d.label("init").is_none()),
        Model::Mdp(m) => (m.n(), m.choices(), m.label("init").is_none()),
    };
    if labels_missing_init {
        match &mut model {
            Model::Dtmc(d) => {
                let init = StateSet::from_states(n, d.initial().iter().copied());
                d.set_label("init", init);
            }
            Model::Mdp(m) => {
                let init = StateSet::from_states(n, m.initial().iter().copied());
                m.set_label("init", init);
            }
        }
    }
    let (model_type, reward_order) = match (&model, &built) {
        (_, Some(b)) => (
            match b.model_type {
                ast::ModelType::Dtmc => "dtmc",
                ast::ModelType::Mdp => "mdp",
                ast::ModelType::Smg => "smg",
            },
            b.reward_names.clone(),
        ),
        (Model::Dtmc(d), None) => ("dtmc", d.reward_models().keys().cloned().collect()),
        (Model::Mdp(m), None) => (
            if m.players().is_some() { "smg" } else { "mdp" },
            m.reward_models().keys().cloned().collect(),
        ),
    };
    let t2 = Instant::now();
    let subject = Subject {
        model: &model,
        states: StateValues {
            states: built.as_ref().map(|b| &b.states),
            n,
        },
        reward_order,
        reward_order_known: built.is_some(),
    };
    let model_constants: Vec<(String, Value)> =
        built.as_ref().map(|b| b.constants.clone()).unwrap_or_default();
    let labels = match &model {
        Model::Dtmc(d) => d.labels(),
        Model::Mdp(m) => m.labels(),
    };
    let context = PropertyContext {
        formulas: ast.as_ref().map_or(&[][..], |a| &a.formulas[..]),
        constants: &model_constants,
        given: &for_props,
        variables: built.as_ref().map_or(&[][..], |b| &b.variables[..]),
        labels,
    };
    let mut results = Vec::new();
    for ((path, text), file) in request.properties.iter().zip(&files) {
        results.extend(check_properties(
            &subject,
            file,
            text,
            path,
            &context,
            &request.options,
        )?);
    }
    let check = t2.elapsed().as_secs_f64();
    let mut constants = model_constants.clone();
    constants.extend(for_props.iter().cloned());
    Ok(CheckReport {
        model_type,
        choices,
        deadlocks: built.as_ref().map_or(0, |b| b.deadlocks),
        constants,
        results,
        seconds: Seconds { parse, build, check },
        model,
    })
}

/// Constants by name: the model's and the properties'.
type Constants = (Vec<(String, Value)>, Vec<(String, Value)>);

/// The reward structures the properties of `files` use, for building only those: a name, or
/// `None` for the first written (`R` without a name); `None` (build all) when one is chosen by
/// an index (`R{2}`).
fn rewards_used(files: &[PropertyFile]) -> Option<Vec<Option<String>>> {
    fn expr(e: &Expr, out: &mut Vec<Option<String>>) -> bool {
        let all = |es: &[&Expr], out: &mut Vec<Option<String>>| es.iter().all(|x| expr(x, out));
        match &e.kind {
            ExprKind::Reward {
                structure,
                path,
                bound,
                ..
            } => {
                match structure {
                    None => out.push(None),
                    Some(RewardRef::Name(n, _)) => out.push(Some(n.clone())),
                    Some(RewardRef::Index(_)) => return false,
                }
                let inner = match path.as_ref() {
                    RewardPath::Reach(x)
                    | RewardPath::ReachOrZero(x)
                    | RewardPath::ReachOrTotal(x)
                    | RewardPath::Cumulative(x)
                    | RewardPath::Instant(x) => expr(x, out),
                    RewardPath::Total | RewardPath::LongRun => true,
                };
                inner && bound_ok(bound, out)
            }
            ExprKind::Prob { path: p, bound, .. } => path(p, out) && bound_ok(bound, out),
            ExprKind::Steady { states, bound, .. } => expr(states, out) && bound_ok(bound, out),
            ExprKind::Time { target, bound, .. } => expr(target, out) && bound_ok(bound, out),
            ExprKind::Filter { prop, states, .. } => {
                expr(prop, out) && states.as_ref().is_none_or(|s| expr(s, out))
            }
            ExprKind::Coalition { prop, .. } => expr(prop, out),
            ExprKind::Unary(_, a) => expr(a, out),
            ExprKind::Binary(_, a, b) => all(&[a, b], out),
            ExprKind::Ite(c, a, b) => all(&[c, a, b], out),
            ExprKind::Call(_, args) => args.iter().all(|a| expr(a, out)),
            _ => true,
        }
    }
    fn bound_ok(b: &Bound, out: &mut Vec<Option<String>>) -> bool {
        match b {
            Bound::Query => true,
            Bound::Compare(_, x) => expr(x, out),
        }
    }
    fn path(p: &ast::Path, out: &mut Vec<Option<String>>) -> bool {
        match &p.kind {
            PathKind::Next(a) | PathKind::Eventually(None, a) | PathKind::Globally(None, a) => expr(a, out),
            PathKind::Eventually(Some(b), a) | PathKind::Globally(Some(b), a) => {
                expr(&b.steps, out) && expr(a, out)
            }
            PathKind::Until(a, b, c) => {
                expr(a, out) && b.as_ref().is_none_or(|b| expr(&b.steps, out)) && expr(c, out)
            }
            PathKind::Conditional(a, b) => path(a, out) && path(b, out),
        }
    }
    let mut out = Vec::new();
    for f in files {
        // A property file's labels and formulas may hold operators too.
        let exprs = f
            .properties
            .iter()
            .map(|p| &p.expr)
            .chain(f.labels.iter().map(|l| &l.expr))
            .chain(f.formulas.iter().map(|x| &x.expr));
        for e in exprs {
            if !expr(e, &mut out) {
                return None;
            }
        }
    }
    Some(out)
}

/// What a [`crate::lang::BuiltModel`] adds to its model.
struct Built {
    model_type: ast::ModelType,
    variables: Vec<crate::lang::VariableInfo>,
    states: crate::lang::PackedStates,
    reward_names: Vec<String>,
    constants: Vec<(String, Value)>,
    deadlocks: usize,
}

/// `kolmo check --json`'s document (README, "`kolmo check`"): `{"model": {type, states,
/// transitions, choices, initial_states, deadlocks}, "constants": {name: value}, "results":
/// [{name, property, value, lower, upper, exact, method, seconds}, plus initial_values and range
/// with several initial states, printed for filter(print, ...)], "seconds": {parse, build,
/// check}}`; numbers as numbers, `±∞` as `"inf"`/`"-inf"`.
impl serde::Serialize for CheckReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (n, transitions, initial) = match &self.model {
            Model::Dtmc(d) => (d.n(), d.matrix().nnz(), d.initial().len()),
            Model::Mdp(m) => (m.n(), m.matrix().nnz(), m.initial().len()),
        };
        #[derive(serde::Serialize)]
        struct ModelJson {
            #[serde(rename = "type")]
            kind: &'static str,
            states: usize,
            transitions: usize,
            choices: usize,
            initial_states: usize,
            deadlocks: usize,
        }
        let constants: std::collections::BTreeMap<&str, &Value> =
            self.constants.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let results: Vec<ResultJson<'_>> = self
            .results
            .iter()
            .map(|r| ResultJson {
                r,
                model: &self.model,
            })
            .collect();
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry(
            "model",
            &ModelJson {
                kind: self.model_type,
                states: n,
                transitions,
                choices: self.choices,
                initial_states: initial,
                deadlocks: self.deadlocks,
            },
        )?;
        map.serialize_entry("constants", &constants)?;
        map.serialize_entry("results", &results)?;
        map.serialize_entry("seconds", &self.seconds)?;
        map.end()
    }
}

impl serde::Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Self::Number(x) => crate::account::ser::number(x, s),
            Self::Bool(b) => s.serialize_bool(*b),
        }
    }
}

/// One result in the JSON document, its printed states named by the model.
struct ResultJson<'a> {
    r: &'a PropertyResult,
    model: &'a Model,
}

impl serde::Serialize for ResultJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let r = self.r;
        let number = |x: Option<f64>| x.map(Answer::Number);
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("name", &r.name)?;
        map.serialize_entry("property", &r.property)?;
        map.serialize_entry("value", &r.value)?;
        map.serialize_entry("lower", &number(r.lower))?;
        map.serialize_entry("upper", &number(r.upper))?;
        map.serialize_entry("exact", &r.exact)?;
        map.serialize_entry("method", &r.method)?;
        map.serialize_entry("seconds", &r.seconds)?;
        if let Some(m) = r.first_move(self.model) {
            map.serialize_entry("first_move", &m)?;
            let memoryless = r.strategy.as_ref().is_some_and(|st| st.memoryless);
            map.serialize_entry(
                "strategy",
                if memoryless {
                    "memoryless"
                } else {
                    "first move of a step-bounded property"
                },
            )?;
        }
        if r.initial_values.len() > 1 {
            map.serialize_entry("initial_values", &r.initial_values)?;
            if let Some(range) = r.range() {
                map.serialize_entry("range", &range.map(Answer::Number))?;
            }
        }
        if !r.printed.is_empty() {
            #[derive(serde::Serialize)]
            struct Printed {
                state: String,
                value: Answer,
            }
            let printed: Vec<Printed> = r
                .printed
                .iter()
                .map(|&(s, value)| Printed {
                    state: match self.model {
                        Model::Dtmc(d) => d.state_name(s),
                        Model::Mdp(m) => m.state_name(s),
                    },
                    value,
                })
                .collect();
            map.serialize_entry("printed", &printed)?;
        }
        map.end()
    }
}

/// One state's choice under a [`Strategy`], named for people.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Move {
    /// The state's name (its variables' values for a PRISM model, else its number).
    pub state: String,
    /// In a game, the player who chooses there.
    pub player: Option<String>,
    /// The action's name, or `choice i` (numbered from 0 among the state's choices) when it
    /// has none, both when other choices of the state share the name (`a (choice 1)`).
    pub action: String,
}

impl Strategy {
    /// The choice in state `s` of `model` (an MDP or a game; a chain has no choices), named.
    #[must_use]
    pub fn move_at(&self, model: &Mdp, s: StateId) -> Move {
        let c = self.choices[s as usize];
        let row = model.matrix().group_rows(s as usize).start + c as usize;
        let group = model.matrix().group_rows(s as usize);
        let action = match model.action_names() {
            // A name the state's other choices share needs the number too.
            Some(names) if !names[row].is_empty() => {
                if group.clone().filter(|&q| names[q] == names[row]).count() > 1 {
                    format!("{} (choice {c})", names[row])
                } else {
                    names[row].clone()
                }
            }
            _ => format!("choice {c}"),
        };
        Move {
            state: model.state_name(s),
            player: model
                .players()
                .map(|p| p.names[p.owner[s as usize] as usize].clone()),
            action,
        }
    }
}

impl PropertyResult {
    /// The strategy's move in the (first) initial state of `model`, if the property has a
    /// strategy and the model choices.
    #[must_use]
    pub fn first_move(&self, model: &Model) -> Option<Move> {
        match (model, &self.strategy) {
            (Model::Mdp(m), Some(st)) => Some(st.move_at(m, m.initial()[0])),
            _ => None,
        }
    }

    /// The smallest and largest numeric value over the initial states, if any is a number.
    #[must_use]
    pub fn range(&self) -> Option<[f64; 2]> {
        let numbers = self.initial_values.iter().filter_map(|a| match a {
            Answer::Number(x) => Some(*x),
            Answer::Bool(_) => None,
        });
        numbers.fold(None, |acc, x| match acc {
            None => Some([x, x]),
            Some([lo, hi]) => Some([lo.min(x), hi.max(x)]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;

    /// Made absorbing: the chosen states' groups become one self-loop, the others are copied
    /// with their groups (an MDP of three states: 2, 1 and 2 choices).
    #[test]
    fn absorbing_where_keeps_the_other_groups() {
        let mut b = CsrBuilder::new(3);
        for (g, rows) in [
            vec![vec![(1, 0.5), (2, 0.5)], vec![(0, 1.0)]],
            vec![vec![(0, 0.25), (1, 0.75)]],
            vec![vec![(2, 1.0)], vec![(0, 0.5), (1, 0.5)]],
        ]
        .into_iter()
        .enumerate()
        {
            if g > 0 {
                b.new_row_group();
            }
            for row in rows {
                row.into_iter().for_each(|(c, p)| b.add(c, p));
                b.finish_row();
            }
        }
        let m = b.build();
        let a = absorbing_where(&m, &StateSet::from_states(3, [1]), 1.0);
        assert_eq!((a.row_groups(), a.nrows()), (3, 5));
        assert_eq!(a.group_rows(0), 0..2);
        assert_eq!(a.group_rows(1), 2..3);
        assert_eq!(a.row(2), (&[1u32][..], &[1.0][..]));
        assert_eq!(a.row(4), m.row(4));
        assert_eq!(a.row(0), m.row(0));
    }
}
