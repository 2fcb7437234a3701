//! Maximal and minimal probabilities of reaching a target, with guaranteed bounds.
//!
//! # Method
//! 1. Graph analysis (Baier & Katoen, *Principles of Model Checking*, 2008, §10.6.1; de Alfaro,
//!    1997): maximising, the states that cannot reach the target (value 0) and those from which some
//!    policy reaches it almost surely (Prob1E, value 1); minimising, the states from which some policy
//!    avoids the target forever (value 0) and those from which every policy reaches it (value 1).
//! 2. Maximising, the maximal end components among the remaining ("maybe") states are collapsed
//!    into single states that keep only their exiting choices (the quotient of Haddad & Monmege,
//!    "Interval iteration algorithm for MDPs and IMDPs", TCS 735, 2018; Baier et al., "Ensuring the
//!    reliability of your model checker: interval iteration for Markov decision processes", CAV
//!    2017). Minimising, the graph analysis already leaves no end component among them. Either way
//!    every policy leaves the maybe states with probability 1, so the Bellman operator `T` has one
//!    fixed point there.
//! 3. Policy iteration on that quotient: each policy evaluated on its Markov chain
//!    ([`crate::analysis::reach_probability`]), improved greedily.
//! 4. Certificate: for any `v`, `|v* − v| ≤ ‖T v − v‖∞ · τ`, with `τ` the largest expected number of
//!    steps any policy spends among the maybe states (itself a maximal expected total reward, solved
//!    with [`total_reward`](super::total_reward)). This holds whatever produced `v`, so plain value
//!    iteration stalling far from the answer (Haddad & Monmege's example) cannot pass unnoticed.

use super::{MdpOptions, MdpSolution, Optimum, total_reward};
use crate::account;
use crate::analysis::reach_probability as chain_reach;
use crate::graph::{end_components, prob01_min, steer_to};
use crate::interrupt;
use crate::model::{Dtmc, Mdp, StateSet};
use crate::sparse::{Affine, CsrBuilder};
use crate::{Error, Result, StateId};

/// The maximal or minimal probability of eventually reaching `target` from every state, an optimal
/// policy, and a guaranteed bound (see the module docs).
///
/// # Errors
/// [`Error::InvalidArgument`] if `target` does not range over the model's states;
/// [`Error::LimitReached`] if policy iteration exceeds `options.max_iterations`;
/// [`Error::Interrupted`] if a stop is requested ([`crate::interrupt`], checked every round and
/// sweep).
pub fn reach_probability(
    mdp: &Mdp,
    target: &StateSet,
    optimum: Optimum,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    let n = mdp.n();
    if target.universe() != n {
        return Err(Error::arg(
            "target",
            format!("a set over {} states for a model of {n}", target.universe()),
        ));
    }
    let (yes, no, mut policy, nodes) = match optimum {
        Optimum::Max => almost_sure_max(mdp, target),
        Optimum::Min => {
            let (yes, no, policy) = prob01_min(mdp, target);
            (yes, no, policy, None)
        }
    };
    let maybe: Vec<StateId> = (0..n as StateId)
        .filter(|&s| !yes.contains(s) && !no.contains(s))
        .collect();
    let mut values: Vec<f64> = (0..n as StateId)
        .map(|s| if yes.contains(s) { 1.0 } else { 0.0 })
        .collect();
    if maybe.is_empty() {
        return Ok(MdpSolution {
            values,
            policy,
            error_bound: 0.0,
            iterations: 0,
            method: account::Method::GraphAnalysis,
        });
    }
    let q = Quotient::new(mdp, &maybe, &yes, nodes);
    // Large quotients: interval iteration, which needs no linear solve; policy iteration when it
    // does not close (or on small quotients, where its solves are cheap and exact).
    if q.nodes > INTERVAL_ITERATION_FROM
        && let Some((v, bound, choice, sweeps)) = interval_iteration(&q, optimum, options)?
    {
        for (i, &s) in maybe.iter().enumerate() {
            values[s as usize] = v[q.node[i] as usize];
        }
        q.lift_policy(mdp, &maybe, &choice, &mut policy);
        return Ok(MdpSolution {
            values,
            policy,
            error_bound: bound,
            iterations: sweeps,
            method: account::Method::ReachIntervalIteration {
                end_components_collapsed: optimum == Optimum::Max,
                undecided: q.nodes,
                sweeps,
            },
        });
    }
    // Policy iteration on the quotient, from the first exiting choice of every node.
    let k = q.nodes;
    let mut choice = vec![0u32; k + 2];
    let qm = q.mdp.matrix();
    let value_of = |v: &[f64], row: usize| qm.row_value(row, v, Affine::product());
    let goal = StateSet::from_states(k + 2, [k as StateId]);
    let mut rounds = 0;
    let v = loop {
        rounds += 1;
        options.report(rounds, f64::NAN);
        interrupt::check()?;
        if rounds > options.max_iterations {
            return Err(Error::LimitReached {
                what: "policy iteration",
                limit: options.max_iterations,
                message: "the policy kept changing".into(),
            });
        }
        let rows: Vec<usize> = (0..k + 2)
            .map(|s| qm.group_rows(s).start + choice[s] as usize)
            .collect();
        let chain = Dtmc::new(qm.select_rows(&rows), vec![0])?;
        let v = chain_reach(&chain, &goal)?.values;
        let mut changed = false;
        for s in 0..k {
            let group = qm.group_rows(s);
            let current = value_of(&v, rows[s]);
            let tol = 1e-14 * (current.abs() + 1e-300).max(1e-300) + 4.0 * f64::EPSILON;
            let mut best = (current, choice[s]);
            for r in group.clone() {
                let x = value_of(&v, r);
                if optimum.better(x, best.0) && (x - current).abs() > tol {
                    best = (x, (r - group.start) as u32);
                }
            }
            if best.1 != choice[s] {
                choice[s] = best.1;
                changed = true;
            }
        }
        if !changed {
            break v;
        }
    };
    // Certificate: ‖Tv − v‖ over the nodes, with an allowance for its rounding, times the longest
    // expected stay among them.
    let mut gap = 0.0f64;
    for s in 0..k {
        let group = qm.group_rows(s);
        let (best, _) = qm.group_optimum(s, optimum.direction(), &v, Affine::product());
        let width = group.clone().map(|r| qm.row(r).0.len()).max().unwrap_or(1) as f64;
        gap = gap.max((best - v[s]).abs() + 2.0 * (width + 1.0) * f64::EPSILON);
    }
    let steps: Vec<f64> = (0..k + 2)
        .flat_map(|s| qm.group_rows(s).map(move |_| if s < k { 1.0 } else { 0.0 }))
        .collect();
    let exits = StateSet::from_states(k + 2, [k as StateId, k as StateId + 1]);
    let tau = total_reward(&q.mdp, &steps, &exits, Optimum::Max, options)?;
    let tau_max = tau.values.iter().take(k).fold(0.0f64, |a, x| a.max(*x)) + tau.error_bound;
    for (i, &s) in maybe.iter().enumerate() {
        values[s as usize] = v[q.node[i] as usize];
    }
    q.lift_policy(mdp, &maybe, &choice, &mut policy);
    // The certificate holds for the model as written when the gap is that of the written
    // operator: each probability within a relative η of its stored value moves `Tv` by at most
    // η·‖v‖∞ ≤ η, and the longest stay by the growth factor of the entrywise bound.
    let longest = (0..qm.nrows()).map(|r| qm.row(r).0.len()).max().unwrap_or(0);
    let eta = crate::numeric::entry_rounding(longest);
    let stay = tau_max * (1.0 + crate::numeric::perturbation_growth(k, eta));
    Ok(MdpSolution {
        values,
        policy,
        error_bound: (gap + eta) * stay,
        iterations: rounds,
        method: account::Method::ReachPolicyIteration {
            end_components_collapsed: optimum == Optimum::Max,
            undecided: k,
            longest_stay: tau_max,
        },
    })
}

/// Maximising: `(yes, no, policy, nodes)` — the states from which some policy reaches `target`
/// almost surely (value 1), those that cannot reach it (value 0), a policy realising the value 1
/// on `yes`, and for the remaining ("maybe") states, in ascending order, their maximal end
/// component's number (the nodes of the quotient).
///
/// Instead of the nested fixpoint of Prob1E (a backward search per nesting level), the end
/// components among the states that can reach the target are collapsed first; in that quotient
/// no end component remains, so almost every path of any policy ends in the target or in a
/// state that cannot reach it, and the value 1 is exactly the states that can avoid the latter
/// forever: a safety fixpoint found by one worklist pass (de Alfaro, *Formal verification of
/// probabilistic systems*, PhD thesis, Stanford, 1997, §3; Baier & Katoen, Thm. 10.120 for paths
/// ending in end components).
fn almost_sure_max(mdp: &Mdp, target: &StateSet) -> (StateSet, StateSet, Vec<u32>, Option<Vec<u32>>) {
    let n = mdp.n();
    let m = mdp.matrix();
    let no = crate::graph::backward_reachable(m, target, None).complement();
    let candidates: Vec<StateId> = (0..n as StateId)
        .filter(|&s| !target.contains(s) && !no.contains(s))
        .collect();
    let mut policy = vec![0u32; n];
    if candidates.is_empty() {
        return (target.clone(), no, policy, None);
    }
    let mut pos = vec![u32::MAX; n];
    for (i, &s) in candidates.iter().enumerate() {
        pos[s as usize] = i as u32;
    }
    let node = end_components(m, &candidates, &pos).0;
    let k = node.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
    // The node of each state: its end component's (candidates), `k` for the target, `k + 1`
    // ("fail") for the states that cannot reach it.
    let node_of = |t: StateId| match pos[t as usize] {
        u32::MAX if target.contains(t) => k,
        u32::MAX => k + 1,
        i => node[i as usize] as usize,
    };
    // Safety on the quotient: a node is lost when each of its exits (choices that leave its end
    // component) may reach `fail` or a lost node. Per row, whether it may; per node, its exits
    // that may not.
    let (tptr, trows) = m.transpose_pattern();
    let mut group_of = vec![0u32; m.nrows()];
    for s in 0..n {
        for r in m.group_rows(s) {
            group_of[r] = s as u32;
        }
    }
    // The members of each node, ascending (counting sort).
    let mut first = vec![0usize; k + 1];
    for &x in &node {
        first[x as usize + 1] += 1;
    }
    for x in 0..k {
        first[x + 1] += first[x];
    }
    let mut fill = first.clone();
    let mut order = vec![0 as StateId; candidates.len()];
    for (i, &s) in candidates.iter().enumerate() {
        let x = node[i] as usize;
        order[fill[x]] = s;
        fill[x] += 1;
    }
    let members = |x: usize| &order[first[x]..first[x + 1]];
    let mut risky = vec![false; m.nrows()];
    let mut exits = vec![0u32; k];
    for &s in &candidates {
        let x = node_of(s);
        for r in m.group_rows(s as usize) {
            let cols = m.row(r).0;
            if cols.iter().all(|&t| node_of(t) == x) {
                risky[r] = true; // stays inside: not an exit
            } else if cols.iter().any(|&t| node_of(t) == k + 1) {
                risky[r] = true;
            } else {
                exits[x] += 1;
            }
        }
    }
    let mut lost = vec![false; k];
    let mut queue: Vec<usize> = (0..k).filter(|&x| exits[x] == 0).collect();
    for &x in &queue {
        lost[x] = true;
    }
    while let Some(y) = queue.pop() {
        for &t in members(y) {
            for &r in &trows[tptr[t as usize]..tptr[t as usize + 1]] {
                let r = r as usize;
                if risky[r] {
                    continue;
                }
                risky[r] = true;
                let x = node_of(group_of[r]);
                if x < k {
                    exits[x] -= 1;
                    if exits[x] == 0 && !lost[x] {
                        lost[x] = true;
                        queue.push(x);
                    }
                }
            }
        }
    }
    let won: Vec<bool> = lost.iter().map(|l| !l).collect();
    // The value-1 nodes leave by a safe exit, the other members of an end component steering
    // to the exit's state inside it.
    for x in (0..k).filter(|&x| won[x]) {
        let list = members(x);
        let (s, r) = list
            .iter()
            .flat_map(|&s| m.group_rows(s as usize).map(move |r| (s, r)))
            .find(|&(_, r)| !risky[r])
            .expect("a node not lost has a safe exit");
        policy[s as usize] = (r - m.group_rows(s as usize).start) as u32;
        if list.len() > 1 {
            steer_to(m, list, s, &mut policy);
        }
    }
    let mut yes = target.clone();
    let mut rest = Vec::new();
    let mut renumber = vec![u32::MAX; k];
    for (i, &s) in candidates.iter().enumerate() {
        let x = node[i] as usize;
        if won[x] {
            yes.insert(s);
        } else {
            if renumber[x] == u32::MAX {
                renumber[x] = rest.len() as u32;
                rest.push(x);
            }
        }
    }
    // The maybe states keep their end components (removing whole components splits no other).
    let nodes: Vec<u32> = candidates
        .iter()
        .enumerate()
        .filter(|&(i, _)| !won[node[i] as usize])
        .map(|(i, _)| renumber[node[i] as usize])
        .collect();
    (yes, no, policy, Some(nodes))
}

/// Quotients with more nodes than this are solved by interval iteration first.
const INTERVAL_ITERATION_FROM: usize = 2_000;

/// The sweeps interval iteration may take before policy iteration takes over.
const MAX_SWEEPS: u64 = 20_000;

/// What [`interval_iteration`] returns when it closes: the midpoints, the certified half-width,
/// the choices and the sweeps over the largest component.
type Bracketed = (Vec<f64>, f64, Vec<u32>, u64);

/// Interval iteration on the quotient `q`: a lower bound from 0 and an upper bound from 1 on the
/// nodes, each improved by Gauss–Seidel sweeps of the Bellman operator (every policy leaves the
/// nodes, so both converge to the one fixed point), strongly connected component by component
/// in reverse topological order (topological value iteration: a component's successors are final
/// before it starts, so an acyclic part takes one sweep). Each new value is rounded outwards by
/// the factor `1 ∓ (η + 2γ)`: `η` covers the rounding of the input probabilities (the written
/// operator `T'` satisfies `(1 − η) T x ≤ T' x ≤ (1 + η) T x` for `x ≥ 0`) and `2γ` the sweep's own
/// rounding, so the lower bound stays below, and the upper bound above, the fixed point of every
/// such operator. A component is done when each of its nodes' intervals is within `precision`
/// relative to its lower bound (or 1e-300 absolute). Returns the midpoints, the half-width (the
/// certified bound), the choices greedy for the lower bound and the sweeps over the largest
/// component; `None` if a component needs more than `MAX_SWEEPS`; [`Error::Interrupted`] if a stop
/// is requested ([`crate::interrupt`], checked every sweep).
fn interval_iteration(q: &Quotient, optimum: Optimum, options: &MdpOptions) -> Result<Option<Bracketed>> {
    let k = q.nodes;
    let m = q.mdp.matrix();
    let longest = (0..m.nrows()).map(|r| m.row(r).0.len()).max().unwrap_or(0);
    let slack = crate::numeric::entry_rounding(longest) + 2.0 * crate::numeric::entry_rounding(longest + 1);
    let (down, up) = (1.0 - slack, 1.0 + slack);
    let mut lo = vec![0.0; k + 2];
    let mut hi = vec![1.0; k + 2];
    lo[k] = 1.0;
    hi[k + 1] = 0.0;
    let mut choice = vec![0u32; k + 2];
    let dir = optimum.direction();
    let precision = options.precision.max(1e-15);
    let components = crate::graph::sccs(m);
    let (row_ptr, cols, vals) = m.as_parts();
    let mut most = 0u64;
    for members in components.members() {
        let members: Vec<usize> = members
            .into_iter()
            .map(|s| s as usize)
            .filter(|&s| s < k)
            .collect();
        if members.is_empty() {
            continue;
        }
        let mut closed = false;
        for sweep in 1..=MAX_SWEEPS.min(options.max_iterations) {
            interrupt::check()?;
            let mut open = false;
            for &s in members.iter().rev() {
                // Both bounds in one pass over the state's rows, plain sums (their rounding is
                // in `slack`).
                let mut best: Option<(f64, f64, u32)> = None;
                for (c, r) in m.group_rows(s).enumerate() {
                    let (mut l, mut h) = (0.0, 0.0);
                    for k in row_ptr[r]..row_ptr[r + 1] {
                        let (t, p) = (cols[k] as usize, vals[k]);
                        l += p * lo[t];
                        h += p * hi[t];
                    }
                    best = Some(match best {
                        None => (l, h, c as u32),
                        Some((bl, bh, bc)) => {
                            let (nl, nc) = if dir.better(&l, &bl) {
                                (l, c as u32)
                            } else {
                                (bl, bc)
                            };
                            let nh = if dir.better(&h, &bh) { h } else { bh };
                            (nl, nh, nc)
                        }
                    });
                }
                let (l, h, c) = best.expect("a node has a choice");
                // Monotone: keep the better of the old and the new bound.
                let l = (l * down).max(lo[s]);
                let h = (h * up).min(hi[s]).min(1.0);
                lo[s] = l;
                hi[s] = h;
                choice[s] = c;
                if h - l > precision * l.max(1e-300) {
                    open = true;
                }
            }
            most = most.max(sweep);
            if !open {
                closed = true;
                break;
            }
        }
        if !closed {
            return Ok(None);
        }
        options.report(most, f64::NAN);
    }
    let mut width = 0.0f64;
    let v: Vec<f64> = lo
        .iter()
        .zip(&hi)
        .map(|(l, h)| {
            width = width.max(h - l);
            l + (h - l) / 2.0
        })
        .collect();
    // Half the widest interval, and the midpoint's own rounding.
    Ok(Some((v, width / 2.0 + f64::EPSILON, choice, most)))
}

/// The MDP on the undecided states: nodes `0..nodes` (end components collapsed when asked), then
/// `goal = nodes` and `fail = nodes + 1`, both absorbing.
struct Quotient {
    mdp: Mdp,
    nodes: usize,
    /// Node of each maybe state (by position in the maybe list).
    node: Vec<u32>,
    /// For each node, the (original state, choice) of each of its quotient choices.
    origin: Vec<Vec<(StateId, u32)>>,
    /// For each node, its member states (maybe positions).
    members: Vec<Vec<usize>>,
}

impl Quotient {
    /// The quotient on `maybe` with the node of each maybe state given by `node` (indexed by
    /// position in `maybe`; `None`: a node per state).
    fn new(mdp: &Mdp, maybe: &[StateId], yes: &StateSet, node: Option<Vec<u32>>) -> Self {
        let n = mdp.n();
        let m = mdp.matrix();
        let mut pos = vec![u32::MAX; n];
        for (i, &s) in maybe.iter().enumerate() {
            pos[s as usize] = i as u32;
        }
        let node = node.unwrap_or_else(|| (0..maybe.len() as u32).collect());
        let nodes = node.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
        let mut members = vec![Vec::new(); nodes];
        for (i, &x) in node.iter().enumerate() {
            members[x as usize].push(i);
        }
        let (goal, fail) = (nodes as StateId, nodes as StateId + 1);
        let mut b = CsrBuilder::new(nodes + 2);
        let mut origin = vec![Vec::new(); nodes];
        for (x, list) in members.iter().enumerate() {
            b.new_row_group();
            for &i in list {
                let s = maybe[i] as usize;
                let group = m.group_rows(s);
                for r in group.clone() {
                    let (cols, vals) = m.row(r);
                    // A choice that never leaves the node's end component is dropped.
                    let to = |t: StateId| {
                        let p = pos[t as usize];
                        if p != u32::MAX {
                            node[p as usize]
                        } else if yes.contains(t) {
                            goal
                        } else {
                            fail
                        }
                    };
                    // (A one-state end component's self-loops too: otherwise a policy could stay
                    // forever and the certificate's longest stay would be infinite.)
                    if cols.iter().all(|&t| to(t) == x as StateId) {
                        continue;
                    }
                    for (&t, &p) in cols.iter().zip(vals) {
                        b.add(to(t), p);
                    }
                    b.finish_row();
                    origin[x].push((s as StateId, (r - group.start) as u32));
                }
            }
        }
        for sink in [goal, fail] {
            b.new_row_group();
            b.add(sink, 1.0);
            b.finish_row();
        }
        let mdp = Mdp::new(b.build(), vec![0]).expect("rows of a valid MDP, merged");
        Self {
            mdp,
            nodes,
            node,
            origin,
            members,
        }
    }

    /// The original states' choices from the quotient's: a node's chosen exit for its state; the
    /// other members of a collapsed end component steer to that state inside the component.
    fn lift_policy(&self, mdp: &Mdp, maybe: &[StateId], choice: &[u32], policy: &mut [u32]) {
        let m = mdp.matrix();
        for (x, &c) in choice.iter().enumerate().take(self.nodes) {
            let (exit_state, exit_choice) = self.origin[x][c as usize];
            policy[exit_state as usize] = exit_choice;
            if self.members[x].len() == 1 {
                continue;
            }
            let inside: Vec<StateId> = self.members[x].iter().map(|&i| maybe[i]).collect();
            steer_to(m, &inside, exit_state, policy);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_mdp as mdp;

    // 0 ⇄ 1 form an end component (choices "swap"); from 0 one may also gamble: goal 2 w.p. 0.6,
    // fail 3 w.p. 0.4; from 1 gamble: goal w.p. 0.3, else back to 0. Max: stay in the component until
    // exiting through 1's gamble forever is worse? From 1: x1 = max(x0, 0.3 + 0.7 x0); from 0:
    // x0 = max(x1, 0.6). Staying in {0, 1} and using 1's gamble repeatedly reaches the goal with
    // probability 1 — Prob1E finds it. Min: 0 swaps with 1 forever avoiding the goal: 0.
    #[test]
    fn end_component_and_almost_sure_cycles() {
        let m = mdp(&[
            &[&[(1, 1.0)], &[(2, 0.6), (3, 0.4)]],
            &[&[(0, 1.0)], &[(2, 0.3), (0, 0.7)]],
            &[&[(2, 1.0)]],
            &[&[(3, 1.0)]],
        ]);
        let goal = StateSet::from_states(4, [2]);
        let max = reach_probability(&m, &goal, Optimum::Max, &MdpOptions::default()).unwrap();
        assert_eq!(max.values, vec![1.0, 1.0, 1.0, 0.0]);
        let min = reach_probability(&m, &goal, Optimum::Min, &MdpOptions::default()).unwrap();
        assert_eq!(min.values, vec![0.0, 0.0, 1.0, 0.0]);
    }

    // An end component whose best exit is not from the state where the chain starts: {0, 1}
    // with exits 0 → goal w.p. 0.5 / fail 0.5 and 1 → goal w.p. 0.7 / fail 0.3. Max from 0 is 0.7
    // (go to 1, take its exit); plain value iteration from 1 would also give 0.7, but an upper
    // bound from 1 would stall at 1 without the collapse.
    #[test]
    fn collapsed_end_component_exits_at_its_best_state() {
        let m = mdp(&[
            &[&[(1, 1.0)], &[(2, 0.5), (3, 0.5)]],
            &[&[(0, 1.0)], &[(2, 0.7), (3, 0.3)]],
            &[&[(2, 1.0)]],
            &[&[(3, 1.0)]],
        ]);
        let goal = StateSet::from_states(4, [2]);
        let max = reach_probability(&m, &goal, Optimum::Max, &MdpOptions::default()).unwrap();
        assert!(
            (max.values[0] - 0.7).abs() <= max.error_bound && max.error_bound < 1e-13,
            "{max:?}"
        );
        assert_eq!(max.policy[..2], [0, 1]);
        let (exact, _) = super::super::reach_probability_exact(&m, &goal, Optimum::Max, &max.policy).unwrap();
        assert_eq!(
            exact[0],
            crate::exact::Rational::from(7) / crate::exact::Rational::from(10)
        );
        let min = reach_probability(&m, &goal, Optimum::Min, &MdpOptions::default()).unwrap();
        // Min: 0 swaps with 1 forever: 0.
        assert_eq!(min.values[0], 0.0);
    }

    // A one-state end component (a self-loop beside a gamble) must be collapsed too, or the
    // certificate's longest stay is infinite (found by a break-it test).
    #[test]
    fn one_state_end_component_keeps_a_finite_bound() {
        let m = mdp(&[
            &[&[(0, 1.0)], &[(1, 0.5), (2, 0.5)]],
            &[&[(1, 1.0)]],
            &[&[(2, 1.0)]],
        ]);
        let goal = StateSet::from_states(3, [1]);
        let max = reach_probability(&m, &goal, Optimum::Max, &MdpOptions::default()).unwrap();
        assert!(
            (max.values[0] - 0.5).abs() <= max.error_bound && max.error_bound < 1e-14,
            "{max:?}"
        );
        assert_eq!(max.policy[0], 1);
    }

    // The fair walk on 0..=N absorbed at N (goal) and 0 (fail) reaches N from i with probability
    // i/N: the kind of chain on which value iteration crawls (per-sweep changes of order 1/N² while
    // far from the answer: Haddad & Monmege, TCS 735, 2018, §3). Policy iteration and the
    // certificate must give it to 1e-9 with a bound that holds.
    #[test]
    fn slow_walk_is_certified() {
        let n = 200u32;
        let mut b = CsrBuilder::new(n as usize + 1);
        for s in 0..=n {
            b.new_row_group();
            if s == 0 || s == n {
                b.add(s, 1.0);
            } else {
                b.add(s - 1, 0.5);
                b.add(s + 1, 0.5);
            }
            b.finish_row();
        }
        let m = Mdp::new(b.build(), vec![1]).unwrap();
        let goal = StateSet::from_states(n as usize + 1, [n]);
        for opt in [Optimum::Max, Optimum::Min] {
            let r = reach_probability(&m, &goal, opt, &MdpOptions::default()).unwrap();
            for s in 0..=n {
                let want = f64::from(s) / f64::from(n);
                assert!(
                    (r.values[s as usize] - want).abs() <= r.error_bound,
                    "{s}: {}",
                    r.values[s as usize]
                );
            }
            assert!(r.error_bound < 1e-9, "{}", r.error_bound);
        }
    }
}

#[cfg(test)]
mod random_tests {
    use super::*;
    use crate::exact::Scalar;
    use rand::{RngExt, SeedableRng};

    /// Random MDPs with many end components (successors drawn from a few neighbours, self-loops
    /// and back edges): the value-1 states found on the quotient equal Prob1E's nested fixpoint
    /// (the other method of `graph`), the policy returned reaches the target from them with
    /// probability 1 (its Markov chain, solved exactly), and every value lies within the bound
    /// of exact policy iteration's.
    #[test]
    fn almost_sure_states_match_the_nested_fixpoint() {
        for seed in 0..200u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let n = rng.random_range(3..14usize);
            let mut b = CsrBuilder::new(n);
            for s in 0..n {
                b.new_row_group();
                for _ in 0..rng.random_range(1..=3) {
                    for _ in 0..rng.random_range(1..=2) {
                        let t = (s + rng.random_range(0..4usize) + n - 1) % n;
                        b.add(t as StateId, 0.5);
                    }
                    b.finish_row();
                }
            }
            // Rows of one entry 0.5 (or two summed to 1) are rescaled to sum to 1.
            let raw = b.build();
            let mut b = CsrBuilder::new(n);
            for s in 0..n {
                b.new_row_group();
                for r in raw.group_rows(s) {
                    let (cols, vals) = raw.row(r);
                    let total: f64 = vals.iter().sum();
                    for (&t, &p) in cols.iter().zip(vals) {
                        b.add(t, p / total);
                    }
                    b.finish_row();
                }
            }
            let mdp = Mdp::new(b.build(), vec![0]).unwrap();
            let target = StateSet::from_states(n, [rng.random_range(0..n as StateId)]);
            let (yes, _, policy, _) = almost_sure_max(&mdp, &target);
            let (nested, _) = crate::graph::prob1e(&mdp, &target);
            assert_eq!(yes, nested, "seed {seed}");
            let rows: Vec<usize> = (0..n)
                .map(|s| mdp.matrix().group_rows(s).start + policy[s] as usize)
                .collect();
            let chain = Dtmc::new(mdp.matrix().select_rows(&rows), vec![0]).unwrap();
            let under = crate::analysis::exact::reach_probability_exact(&chain, &target).unwrap();
            for s in yes.iter() {
                assert_eq!(Scalar::to_f64(&under[s as usize]), 1.0, "seed {seed} state {s}");
            }
            let max = reach_probability(&mdp, &target, Optimum::Max, &MdpOptions::default()).unwrap();
            let (exact, _) =
                super::super::reach_probability_exact(&mdp, &target, Optimum::Max, &max.policy).unwrap();
            for (s, (v, x)) in max.values.iter().zip(&exact).enumerate() {
                let x = Scalar::to_f64(x);
                assert!((v - x).abs() <= max.error_bound + 1e-15, "seed {seed} state {s}");
            }
        }
    }
}
