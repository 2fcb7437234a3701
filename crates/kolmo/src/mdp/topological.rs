//! Expected total reward, component by component: topological value iteration with a certified
//! upper bound, and policy iteration on the components where value iteration converges slowly.
//! The first method of [`total_reward`](super::total_reward), which falls back to policy
//! iteration on the whole model only if a component's policy iteration fails.
//!
//! # Method
//! - Strongly connected components are solved one at a time in reverse topological order
//!   (topological value iteration: Dai, Mausam, Weld & Goldsmith, "Topological value iteration
//!   algorithms", JAIR 42, 2011), so each component sees final bounds `[lo, hi]` on its successors.
//!   A component of one state is solved in closed form per choice, `(r + Σ_{t≠s} p_t x_t) / (1 −
//!   p_ss)`, once with the lower and once with the upper bounds.
//! - In a cyclic component the lower bound is Gauss–Seidel value iteration from 0: the Bellman
//!   operator `T` is monotone and `0 ≤ v*`, so every iterate stays below `v* = T v*`
//!   (Puterman, *Markov Decision Processes*, §7.2).
//! - The upper bound is `u = lo + δ w` with `w` a Lyapunov function of the component, `Σ_a p_a w ≤
//!   w − ½` on its choices (it exists when every policy leaves the component almost surely: the
//!   expected stay), and `δ` three times the Bellman residual of `lo`. It is accepted only if `T u ≤
//!   u` holds as computed: then `Tⁿ u ≤ u` decreases to the fixed point, which is unique because
//!   every policy concerned is proper (Bertsekas & Tsitsiklis, "An analysis of stochastic shortest
//!   path problems", Math. Oper. Res. 16(3), 1991, Prop. 2), so `u ≥ v*`. Maximising, `T` ranges
//!   over all choices (every policy of the region reaches the target almost surely); minimising, over
//!   the choices of one policy `σ` greedy for `lo` (`T_σ u ≤ u` gives `u ≥ v_σ ≥ v*`). This is
//!   the verification step of optimistic value iteration (Hartmanns & Kaminski, "Optimistic value
//!   iteration", CAV 2020), with the guess made inductive by the Lyapunov term rather than by a
//!   relative inflation, which would leave no slack at states without reward.
//! - A component where the sweeps contract too slowly to reach the precision within
//!   [`VALUE_ITERATION_SWEEPS`] (the change over the last 16 sweeps extrapolated), or where no
//!   Lyapunov function appears, is solved instead by policy iteration on its own MDP, the
//!   successors' lower bounds folded into the rewards ([`policy_iteration`], certified linear
//!   solves); the upper bound adds the widest interval among the successors (the exit
//!   probabilities sum to at most 1).
//! - Rounding: every row value `r + Σ p x` (all terms `≥ 0`) is widened by the factor `1 ∓ ς`,
//!   `ς` covering both the probabilities as written (each within a relative `η` of its stored
//!   value) and the sum's own rounding, so the bounds hold for the model as written.

use super::total::policy_iteration;
use super::{MdpOptions, Optimum};
use crate::StateId;
use crate::interrupt;
use crate::model::{Mdp, StateSet};
use crate::sparse::{Affine, CsrBuilder};

/// Multiply–adds value iteration may spend over all components before policy iteration takes
/// over.
const MAX_WORK: f64 = 2e9;

/// Bounds on the optimal expected total reward of the live states (`region` minus `target`).
pub(super) struct Topological {
    /// The lower bound of each state (0 outside the live states).
    pub lo: Vec<f64>,
    /// The upper bound of each state (0 outside the live states).
    pub hi: Vec<f64>,
    /// For each live state, a choice greedy for the lower bound (minimising: the policy whose
    /// upper bound was verified).
    pub policy: Vec<u32>,
    /// Sweeps over the cyclic component that needed the most.
    pub sweeps: u64,
    /// Live states in cyclic components.
    pub cyclic: usize,
    /// Of them, the states of components solved by policy iteration.
    pub by_policy_iteration: usize,
    /// Policy-iteration rounds over those components.
    pub rounds: u64,
}

/// Bounds on the optimal expected total reward until `target` of every state of `region` (see
/// the module docs). `allowed[s]` lists the choices of `s` to optimise over; they must lead only
/// to `region` and `target`, and maximising, every policy over them must reach the target almost
/// surely; `start` is a policy over them that reaches the target almost surely (an attractor).
/// Returns `None` when a component's policy iteration fails (the caller then iterates policies on
/// the whole model), and when a stop is requested ([`crate::interrupt`], checked every sweep and
/// component: the caller's policy iteration then returns [`crate::Error::Interrupted`] at its
/// first check).
#[allow(clippy::too_many_arguments)]
pub(super) fn total_reward_bounds(
    mdp: &Mdp,
    rewards: &[f64],
    target: &StateSet,
    region: &StateSet,
    allowed: &[Vec<u32>],
    start: &[u32],
    optimum: Optimum,
    options: &MdpOptions,
) -> Option<Topological> {
    let n = mdp.n();
    let m = mdp.matrix();
    let longest = (0..m.nrows()).map(|r| m.row(r).0.len()).max().unwrap_or(0);
    let live = |s: usize| region.contains(s as StateId) && !target.contains(s as StateId);
    let sccs = crate::graph::sccs(m);
    // Live members grouped by component (counting sort), in component order.
    let mut first = vec![0usize; sccs.count + 1];
    for s in (0..n).filter(|&s| live(s)) {
        first[sccs.component[s] as usize + 1] += 1;
    }
    for c in 0..sccs.count {
        first[c + 1] += first[c];
    }
    let mut fill = first.clone();
    let mut order = vec![0u32; first[sccs.count]];
    for s in (0..n).filter(|&s| live(s)) {
        let c = sccs.component[s] as usize;
        order[fill[c]] = s as u32;
        fill[c] += 1;
    }
    let mut solver = Solver {
        m,
        rewards,
        allowed,
        optimum,
        options,
        slack: crate::numeric::entry_rounding(longest) + 2.0 * crate::numeric::entry_rounding(longest + 1),
        component: &sccs.component,
        lo: vec![0.0; n],
        hi: vec![0.0; n],
        w: vec![0.0; n],
        policy: vec![0u32; n],
        local: vec![u32::MAX; n],
        work: 0.0,
        pi_rounds: 0,
    };
    let (mut most, mut cyclic, mut by_pi) = (0u64, 0usize, 0usize);
    for c in 0..sccs.count {
        let members = &order[first[c]..first[c + 1]];
        if members.is_empty() || members.len() == 1 && solver.single_state(members[0] as usize) {
            continue;
        }
        // A cyclic component (or one state whose only choices loop on it).
        cyclic += members.len();
        if interrupt::requested() {
            return None;
        }
        let sweeps = match solver.by_value_iteration(members) {
            Some(sweeps) => sweeps,
            None => {
                solver.by_policy_iteration(members, start)?;
                by_pi += members.len();
                0
            }
        };
        for &s in members {
            solver.w[s as usize] = 0.0;
        }
        most = most.max(sweeps);
        options.report(most, f64::NAN);
    }
    Some(Topological {
        lo: solver.lo,
        hi: solver.hi,
        policy: solver.policy,
        sweeps: most,
        cyclic,
        by_policy_iteration: by_pi,
        rounds: solver.pi_rounds,
    })
}

/// Sweeps value iteration may spend on a cyclic component before its policy iteration starts.
const VALUE_ITERATION_SWEEPS: u64 = 1000;

/// The state of [`total_reward_bounds`]: the model, and the bounds found so far (final for the
/// components done).
struct Solver<'a> {
    m: &'a crate::sparse::CsrMatrix,
    rewards: &'a [f64],
    allowed: &'a [Vec<u32>],
    optimum: Optimum,
    options: &'a MdpOptions,
    /// `ς`: each row value is widened by the factor `1 ∓ ς`.
    slack: f64,
    /// The strongly connected component of each state.
    component: &'a [u32],
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The Lyapunov function of the current component (0 elsewhere).
    w: Vec<f64>,
    policy: Vec<u32>,
    /// Scratch: a state's index in the current component's own MDP (`u32::MAX` elsewhere).
    local: Vec<u32>,
    /// Multiply–adds spent.
    work: f64,
    /// Policy-iteration rounds over all components.
    pi_rounds: u64,
}

impl Solver<'_> {
    fn row(&self, s: usize, a: u32) -> usize {
        self.m.group_rows(s).start + a as usize
    }

    /// `r + Σ p x` of row `r`.
    fn value(&self, r: usize, x: &[f64]) -> f64 {
        self.m.row_value(r, x, Affine::offset(self.rewards))
    }

    /// `r + Σ p x` of row `r` with `x` = `inside` on the component of `member` and the lower
    /// bounds elsewhere.
    fn value_inside(&self, r: usize, member: u32, inside: &[f64]) -> f64 {
        let c = self.component[member as usize];
        let (cols, vals) = self.m.row(r);
        let mut sum = self.rewards[r];
        for (&t, &p) in cols.iter().zip(vals) {
            let x = if self.component[t as usize] == c {
                inside[t as usize]
            } else {
                self.lo[t as usize]
            };
            sum += p * x;
        }
        sum
    }

    /// The widest interval `hi − lo` among the successors outside the component `members`.
    fn exit_width(&self, members: &[u32]) -> f64 {
        let c = self.component[members[0] as usize];
        let mut width = 0.0f64;
        for &s in members {
            for &a in &self.allowed[s as usize] {
                for &t in self.m.row(self.row(s as usize, a)).0 {
                    if self.component[t as usize] != c {
                        width = width.max(self.hi[t as usize] - self.lo[t as usize]);
                    }
                }
            }
        }
        width
    }

    /// A component of one state `s`: each choice's value in closed form, `(r + Σ_{t≠s} p_t x_t) /
    /// Σ_{t≠s} p_t`, from the lower and from the upper bounds of the successors, rounded outwards.
    /// Returns `false` (nothing written) if every choice loops on `s` alone.
    fn single_state(&mut self, s: usize) -> bool {
        let dir = self.optimum.direction();
        let mut best: Option<(f64, f64, u32)> = None;
        for &a in &self.allowed[s] {
            let r = self.row(s, a);
            let (cols, vals) = self.m.row(r);
            let (mut leave, mut l, mut h) = (0.0, self.rewards[r], self.rewards[r]);
            for (&t, &p) in cols.iter().zip(vals) {
                if t as usize != s {
                    leave += p;
                    l += p * self.lo[t as usize];
                    h += p * self.hi[t as usize];
                }
            }
            if leave <= 0.0 {
                continue;
            }
            // Numerator and denominator each within a relative ς, the quotient's rounding below ς.
            let (l, h) = (
                l / leave * (1.0 - 4.0 * self.slack),
                h / leave * (1.0 + 4.0 * self.slack),
            );
            best = Some(match best {
                None => (l, h, a),
                Some((bl, bh, ba)) => {
                    let (nl, na) = if dir.better(&l, &bl) { (l, a) } else { (bl, ba) };
                    (nl, if dir.better(&h, &bh) { h } else { bh }, na)
                }
            });
        }
        let Some((l, h, a)) = best else { return false };
        self.lo[s] = l;
        self.hi[s] = h;
        self.policy[s] = a;
        true
    }

    /// Value iteration on the cyclic component `members` (see the module docs): the sweeps it
    /// took, or `None` if it did not close within [`VALUE_ITERATION_SWEEPS`] (or the greedy
    /// policy cannot leave the component, or no Lyapunov function was found, or a stop was requested).
    fn by_value_iteration(&mut self, members: &[u32]) -> Option<u64> {
        let (down, up) = (1.0 - self.slack, 1.0 + self.slack);
        let dir = self.optimum.direction();
        let precision = self.options.precision.max(1e-15);
        let nnz: usize = members
            .iter()
            .flat_map(|&s| self.allowed[s as usize].iter().map(move |&a| (s, a)))
            .map(|(s, a)| self.m.row(self.row(s as usize, a)).0.len())
            .sum();
        let mut attempt_at = 0u64;
        let mut lyapunov_for: Option<Vec<u32>> = None;
        let mut history = [0.0f64; 16];
        let limit = VALUE_ITERATION_SWEEPS.min(self.options.max_iterations);
        for sweeps in 1..=limit {
            if interrupt::requested() {
                return None;
            }
            self.work += nnz as f64;
            // One Gauss–Seidel sweep of the lower bound, kept monotone.
            let (mut change, mut scale) = (0.0f64, 0.0f64);
            for &s in members.iter().rev() {
                let s = s as usize;
                let (best, choice) =
                    optimum_over(&self.allowed[s], |a| self.value(self.row(s, a), &self.lo), dir)?;
                let x = (best * down).max(self.lo[s]);
                change = change.max(x - self.lo[s]);
                scale = scale.max(x);
                self.lo[s] = x;
                self.policy[s] = choice;
            }
            // Give up early when the contraction seen over the last 16 sweeps cannot bring the
            // change below the precision within the sweeps left.
            let back = std::mem::replace(&mut history[sweeps as usize % 16], change);
            if sweeps >= 32 && change > precision * scale {
                let rate = (change / back).powf(1.0 / 16.0);
                let needed = (precision * scale / change).ln() / rate.ln();
                if !(rate < 1.0 && needed <= (limit - sweeps) as f64) {
                    return None;
                }
            }
            if change > precision * scale || sweeps < attempt_at {
                continue;
            }
            attempt_at = sweeps + (sweeps / 4).max(8);
            let current: Vec<u32> = members.iter().map(|&s| self.policy[s as usize]).collect();
            let stale = match self.optimum {
                Optimum::Max => lyapunov_for.is_none(),
                Optimum::Min => lyapunov_for.as_ref() != Some(&current),
            };
            let (optimum, allowed, policy) = (self.optimum, self.allowed, self.policy.clone());
            let rows_of = |s: usize| relevant(optimum, &allowed[s], &policy[s]);
            if stale {
                if optimum == Optimum::Min && !leaves(self.m, members, &rows_of, self.component) {
                    // The greedy policy stays in the component forever (an end component without
                    // reward holds the lower bound below the optimum).
                    return None;
                }
                let budget = ((MAX_WORK - self.work) / nnz.max(1) as f64).max(0.0) as u64;
                let (ok, spent) = lyapunov(self.m, members, &rows_of, up, &mut self.w, budget.min(limit));
                self.work += spent as f64 * nnz as f64;
                if !ok {
                    return None;
                }
                lyapunov_for = Some(current);
            }
            // δ from the residual of lo (successors outside at their lower bounds too: their
            // widths are added at the end).
            let mut gap = 0.0f64;
            for &s in members {
                let s = s as usize;
                let (best, _) = optimum_over(rows_of(s), |a| self.value(self.row(s, a), &self.lo), dir)?;
                gap = gap.max(best * up - self.lo[s]);
            }
            let delta = 3.0 * gap + f64::MIN_POSITIVE;
            for &s in members {
                let s = s as usize;
                self.hi[s] = self.lo[s] + delta * self.w[s];
            }
            let verified = members.iter().all(|&s| {
                let s = s as usize;
                rows_of(s)
                    .iter()
                    .all(|&a| self.value_inside(self.row(s, a), members[0], &self.hi) * up <= self.hi[s])
            });
            self.work += 2.0 * nnz as f64;
            let width = members
                .iter()
                .map(|&s| self.hi[s as usize] - self.lo[s as usize])
                .fold(0.0f64, f64::max);
            // Done at the precision, or when the lower bound no longer moves (rounding alone
            // keeps the width above the precision).
            if verified && (width <= precision * scale + f64::MIN_POSITIVE || change == 0.0) {
                // With the successors outside at their upper bounds instead, every value (an
                // expectation over where the component is left, the exit probabilities summing to
                // at most 1) rises by at most the widest of their intervals.
                let rise = self.exit_width(members) * (1.0 + 4.0 * self.slack);
                for &s in members {
                    let s = s as usize;
                    self.hi[s] = (self.hi[s] + rise) * (1.0 + f64::EPSILON);
                }
                return Some(sweeps);
            }
        }
        None
    }

    /// Policy iteration ([`policy_iteration`]) on the component's own MDP: its states, and a sink
    /// for every exit, the successors' bounds folded into the rewards — once with the lower
    /// bounds (the component's lower bound: values minus their certified bound) and once, from
    /// the policy found, with the upper bounds. Starts from the greedy policy of value iteration
    /// if it leaves the component, else from `start` (an attractor policy). `None` if policy
    /// iteration fails.
    fn by_policy_iteration(&mut self, members: &[u32], start: &[u32]) -> Option<()> {
        let k = members.len();
        for (i, &s) in members.iter().enumerate() {
            self.local[s as usize] = i as u32;
        }
        let mut b = CsrBuilder::new(k + 1);
        let mut rewards = Vec::new();
        for &s in members {
            b.new_row_group();
            for &a in &self.allowed[s as usize] {
                let r = self.row(s as usize, a);
                let (cols, vals) = self.m.row(r);
                let (mut out, mut l) = (0.0, self.rewards[r]);
                for (&t, &p) in cols.iter().zip(vals) {
                    match self.local[t as usize] {
                        u32::MAX => {
                            out += p;
                            l += p * self.lo[t as usize];
                        }
                        i => b.add(i, p),
                    }
                }
                if out > 0.0 {
                    b.add(k as StateId, out);
                }
                b.finish_row();
                rewards.push(l);
            }
        }
        b.new_row_group();
        b.add(k as StateId, 1.0);
        b.finish_row();
        rewards.push(0.0);
        for &s in members {
            self.local[s as usize] = u32::MAX;
        }
        let sub = Mdp::new(b.build(), vec![0]).ok()?;
        let sink = StateSet::from_states(k + 1, [k as StateId]);
        let all = StateSet::from_states(k + 1, 0..=k as StateId);
        let allowed: Vec<Vec<u32>> = members
            .iter()
            .map(|&s| (0..self.allowed[s as usize].len() as u32).collect())
            .chain([vec![0]])
            .collect();
        let (optimum, component_allowed) = (self.optimum, self.allowed);
        let greedy = self.policy.clone();
        let greedy_leaves = leaves(
            self.m,
            members,
            &|s: usize| relevant(optimum, &component_allowed[s], &greedy[s]),
            self.component,
        );
        let from = if optimum == Optimum::Max || greedy_leaves {
            &greedy[..]
        } else {
            start
        };
        let position = |s: u32| {
            let s = s as usize;
            self.allowed[s].iter().position(|&a| a == from[s]).unwrap_or(0) as u32
        };
        let initial: Vec<u32> = members.iter().map(|&s| position(s)).chain([0]).collect();
        let solution = policy_iteration(
            &sub,
            &rewards,
            &sink,
            &all,
            &allowed,
            initial,
            optimum,
            self.options,
        )
        .ok()?;
        // With the successors at their upper bounds instead, every value (an expectation over
        // where the component is left, the exit probabilities summing to at most 1) rises by at
        // most the widest of their intervals.
        let rise = self.exit_width(members) * (1.0 + 4.0 * self.slack);
        for (i, &s) in members.iter().enumerate() {
            let s = s as usize;
            self.lo[s] = (solution.values[i] - solution.error_bound).max(0.0);
            self.hi[s] = (solution.values[i] + solution.error_bound + rise) * (1.0 + f64::EPSILON);
            self.policy[s] = self.allowed[s][solution.policy[i] as usize];
        }
        self.pi_rounds += solution.iterations;
        Some(())
    }
}

/// The best of `f(a)` over `choices` in `dir` with the choice attaining it; `None` if there is
/// no choice.
fn optimum_over(
    choices: &[u32],
    f: impl Fn(u32) -> f64,
    dir: crate::sparse::Direction,
) -> Option<(f64, u32)> {
    let mut best: Option<(f64, u32)> = None;
    for &a in choices {
        let x = f(a);
        if best.is_none_or(|(b, _)| dir.better(&x, &b)) {
            best = Some((x, a));
        }
    }
    best
}

/// The choices an upper bound must hold for at a state: all of `allowed` (maximising) or the
/// policy's `chosen` (minimising).
fn relevant<'a>(optimum: Optimum, allowed: &'a [u32], chosen: &'a u32) -> &'a [u32] {
    match optimum {
        Optimum::Max => allowed,
        Optimum::Min => std::slice::from_ref(chosen),
    }
}

/// Whether every state of the component `members` can leave it through the choices
/// `rows_of(s)` (backward search from the states with a choice leading out): the policy is then
/// proper on the component, and a Lyapunov function exists.
fn leaves<'a>(
    m: &crate::sparse::CsrMatrix,
    members: &[u32],
    rows_of: &impl Fn(usize) -> &'a [u32],
    component: &[u32],
) -> bool {
    let c = component[members[0] as usize];
    let index: std::collections::HashMap<u32, usize> =
        members.iter().enumerate().map(|(i, &s)| (s, i)).collect();
    // Predecessors within the component, through the given choices.
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
    let mut out = vec![false; members.len()];
    for (i, &s) in members.iter().enumerate() {
        let s = s as usize;
        for &a in rows_of(s) {
            for &t in m.row(m.group_rows(s).start + a as usize).0 {
                if component[t as usize] == c
                    && let Some(&j) = index.get(&t)
                {
                    preds[j].push(i as u32);
                } else {
                    out[i] = true;
                }
            }
        }
    }
    let mut stack: Vec<u32> = (0..members.len() as u32).filter(|&i| out[i as usize]).collect();
    let mut seen = out;
    let mut count = stack.len();
    while let Some(j) = stack.pop() {
        for &i in &preds[j as usize] {
            if !seen[i as usize] {
                seen[i as usize] = true;
                count += 1;
                stack.push(i);
            }
        }
    }
    count == members.len()
}

/// A Lyapunov function of the component `members` for the choices `rows_of(s)`: `w ≥ 0` with
/// `(Σ_{t in the component} p_t w_t)(1 + ς) ≤ w_s − ½` for each such choice, by Gauss–Seidel
/// iteration of the expected stay `w = 1 + max_a P_a w` from the current `w` (0 outside the
/// component). Returns whether one was found within `max_sweeps`, and the sweeps spent.
fn lyapunov<'a>(
    m: &crate::sparse::CsrMatrix,
    members: &[u32],
    rows_of: &impl Fn(usize) -> &'a [u32],
    up: f64,
    w: &mut [f64],
    max_sweeps: u64,
) -> (bool, u64) {
    let in_component = |r: usize, w: &[f64]| m.row_value(r, w, Affine::product());
    let row = |s: usize, c: u32| m.group_rows(s).start + c as usize;
    for sweep in 1..=max_sweeps {
        if interrupt::requested() {
            return (false, sweep);
        }
        let mut rise = 0.0f64;
        for &s in members.iter().rev() {
            let s = s as usize;
            let stay = rows_of(s)
                .iter()
                .map(|&a| in_component(row(s, a), w))
                .fold(0.0f64, f64::max);
            let x = 1.0 + stay * up;
            rise = rise.max((x - w[s]).abs());
            w[s] = x;
        }
        if (rise < 0.25 || sweep % 64 == 0)
            && members.iter().all(|&s| {
                let s = s as usize;
                rows_of(s)
                    .iter()
                    .all(|&a| in_component(row(s, a), w) * up <= w[s] - 0.5)
            })
        {
            return (true, sweep);
        }
    }
    (false, max_sweeps)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::{MdpOptions, Optimum, test_mdp, total_reward, total_reward_exact};
    use crate::account::Method;
    use crate::exact::{Scalar, rationalize_rewards};
    use crate::model::StateSet;
    use rand::{RngExt, SeedableRng};

    /// A random MDP of `n` states, state 0 the absorbing target; every other state has 1–3
    /// choices of 1–3 successors with probabilities in sixteenths (exact in binary), and with
    /// `slow` a choice that leaves its state only with probability 2⁻²⁰ (value iteration then
    /// crawls and the component goes to policy iteration). Rewards are integers 0–4 per choice.
    pub(crate) fn random_mdp(seed: u64, n: usize, slow: bool) -> (crate::model::Mdp, Vec<f64>) {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut groups: Vec<Vec<Vec<(u32, f64)>>> = vec![vec![vec![(0, 1.0)]]];
        for s in 1..n {
            let choices = rng.random_range(1..=3);
            let mut rows = Vec::new();
            for c in 0..choices {
                if slow && c == 0 && s % 3 == 1 {
                    let t = rng.random_range(0..n as u32);
                    rows.push(vec![(s as u32, 1.0 - 2f64.powi(-20)), (t, 2f64.powi(-20))]);
                    continue;
                }
                let k = rng.random_range(1..=3usize);
                let mut left = 16u32;
                let mut row = Vec::new();
                for j in 0..k {
                    let p = if j + 1 == k {
                        left
                    } else {
                        rng.random_range(1..=left - (k - 1 - j) as u32)
                    };
                    left -= p;
                    row.push((rng.random_range(0..n as u32), f64::from(p) / 16.0));
                    if left == 0 {
                        break;
                    }
                }
                rows.push(row);
            }
            groups.push(rows);
        }
        let refs: Vec<Vec<&[(u32, f64)]>> = groups
            .iter()
            .map(|g| g.iter().map(Vec::as_slice).collect())
            .collect();
        let refs: Vec<&[&[(u32, f64)]]> = refs.iter().map(Vec::as_slice).collect();
        let mdp = test_mdp(&refs);
        let rewards = (0..mdp.choices())
            .map(|_| f64::from(rng.random_range(0..5u8)))
            .collect();
        (mdp, rewards)
    }

    /// Against exact policy iteration in rationals: every finite value within the certified
    /// bound of the exact optimum, the infinite ones the same; both ways of solving a cyclic
    /// component are taken.
    #[test]
    fn random_mdps_agree_with_exact_policy_iteration() {
        let (mut by_sweeps, mut by_policies) = (0, 0);
        for seed in 0..60u64 {
            let (mdp, rewards) = random_mdp(seed, 12, seed % 2 == 1);
            let target = StateSet::from_states(mdp.n(), [0]);
            let exact_rewards = rationalize_rewards(&rewards).unwrap();
            for optimum in [Optimum::Max, Optimum::Min] {
                let s = total_reward(&mdp, &rewards, &target, optimum, &MdpOptions::default()).unwrap();
                if let Method::TopologicalValueIteration {
                    cyclic,
                    by_policy_iteration,
                    ..
                } = s.method
                {
                    by_sweeps += cyclic - by_policy_iteration;
                    by_policies += by_policy_iteration;
                }
                let (exact, _) =
                    total_reward_exact(&mdp, &exact_rewards, &target, optimum, &s.policy).unwrap();
                for (state, (v, x)) in s.values.iter().zip(&exact).enumerate() {
                    match x {
                        None => assert_eq!(*v, f64::INFINITY, "seed {seed} {optimum:?} state {state}"),
                        Some(x) => {
                            let x = Scalar::to_f64(x);
                            assert!(
                                (v - x).abs() <= s.error_bound + 1e-15 * x,
                                "seed {seed} {optimum:?} state {state}: {v} ± {} against the exact {x} ({})",
                                s.error_bound,
                                s.method
                            );
                        }
                    }
                }
                // The policy returned attains the exact optimum: its choice's value under the
                // exact values is the state's value.
                let m = mdp.matrix();
                let known: Vec<f64> = exact
                    .iter()
                    .map(|x| x.as_ref().map_or(0.0, Scalar::to_f64))
                    .collect();
                for state in (1..mdp.n()).filter(|&t| exact[t].is_some()) {
                    let row = m.group_rows(state).start + s.policy[state] as usize;
                    let q = m.row_value(row, &known, crate::sparse::Affine::offset(&rewards));
                    assert!(
                        (q - known[state]).abs() <= 1e-9 * (1.0 + known[state]),
                        "seed {seed} {optimum:?} state {state}: the policy's choice is worth {q}, the optimum {}",
                        known[state]
                    );
                }
            }
        }
        assert!(by_sweeps > 100 && by_policies > 20, "{by_sweeps} {by_policies}");
    }
}
