//! Qualitative analysis of Markov decision processes (and of games, read as MDPs with the
//! choices of both players): the states whose optimal reachability probability is 0 or 1 and
//! choices realising it, maximal end components, and attractors inside them (Storm's
//! `utility/graph.h`: `performProb01Max/Min`, `performProb1E`; `MaximalEndComponentDecomposition`).

use super::{backward_reachable, sccs};
use crate::StateId;
use crate::model::{Mdp, StateSet};
use crate::sparse::CsrMatrix;

/// Maximising reachability of `target`: `(yes, no, policy)`, the states from which some policy
/// reaches it almost surely (Prob1E, value 1), those from which no policy can reach it (value 0),
/// and choices realising the value 1 on `yes` (Baier & Katoen, *Principles of Model Checking*,
/// 2008, §10.6.1).
///
/// # Complexity
/// O(n · nnz) in the worst case (the nested fixpoint of [`prob1e`]).
#[must_use]
pub fn prob01_max(mdp: &Mdp, target: &StateSet) -> (StateSet, StateSet, Vec<u32>) {
    let m = mdp.matrix();
    let no = backward_reachable(m, target, None).complement();
    let (yes, policy) = prob1e(mdp, target);
    (yes, no, policy)
}

/// Minimising reachability of `target`: `(yes, no, policy)`, the states from which every policy
/// reaches it almost surely (value 1), those from which some policy avoids it forever (value 0),
/// and on `no` the choices that keep avoiding it (Baier & Katoen, §10.6.1; de Alfaro 1997).
///
/// # Complexity
/// O(n · nnz) in the worst case.
#[must_use]
pub fn prob01_min(mdp: &Mdp, target: &StateSet) -> (StateSet, StateSet, Vec<u32>) {
    let n = mdp.n();
    let m = mdp.matrix();
    // No: a policy avoids the target forever (greatest fixed point of "some choice stays"),
    // by a worklist: a state leaves when its last choice that stays among the avoiding states
    // does.
    let (tptr, trows) = m.transpose_pattern();
    let group_of = row_groups_of(m);
    let mut avoid: Vec<bool> = (0..n).map(|s| !target.contains(s as StateId)).collect();
    // Per row, how many of its successors no longer avoid; per state, its rows with none.
    let mut leaving: Vec<u32> = (0..m.nrows())
        .map(|r| m.row(r).0.iter().filter(|&&t| !avoid[t as usize]).count() as u32)
        .collect();
    let mut staying: Vec<u32> = (0..n)
        .map(|s| m.group_rows(s).filter(|&r| leaving[r] == 0).count() as u32)
        .collect();
    let mut queue: Vec<usize> = (0..n).filter(|&s| avoid[s] && staying[s] == 0).collect();
    for &s in &queue {
        avoid[s] = false;
    }
    while let Some(t) = queue.pop() {
        for &r in &trows[tptr[t]..tptr[t + 1]] {
            let r = r as usize;
            leaving[r] += 1;
            if leaving[r] == 1 {
                let s = group_of[r] as usize;
                staying[s] -= 1;
                if staying[s] == 0 && avoid[s] {
                    avoid[s] = false;
                    queue.push(s);
                }
            }
        }
    }
    let mut policy = vec![0u32; n];
    for s in (0..n).filter(|&s| avoid[s]) {
        let group = m.group_rows(s);
        let r = group
            .clone()
            .find(|&r| leaving[r] == 0)
            .expect("a staying choice");
        policy[s] = (r - group.start) as u32;
    }
    let no = StateSet::from_states(n, (0..n as StateId).filter(|&s| avoid[s as usize]));
    // Yes: no policy can reach a `no` state while avoiding the target.
    let yes = backward_reachable(m, &no, Some(&target.complement())).complement();
    (yes, no, policy)
}

/// Prob1E (Baier & Katoen, Algorithm 46's dual; de Alfaro 1997): the states from which some
/// policy reaches `target` with probability 1, by the nested fixpoint `U ← attractor_U(target)`,
/// and a policy that reaches the target almost surely from them (the choice that added each
/// state to the attractor). [`choices_within`] gives the choices that stay among them.
///
/// # Complexity
/// O(n · nnz) in the worst case: a round per nesting level, each a backward search.
#[must_use]
pub fn prob1e(mdp: &Mdp, target: &StateSet) -> (StateSet, Vec<u32>) {
    let n = mdp.n();
    let m = mdp.matrix();
    let mut inside = vec![true; n];
    let mut policy = vec![0u32; n];
    let (tptr, trows) = m.transpose_pattern();
    let group_of = row_groups_of(m);
    // Whether each row stays inside; updated as states leave.
    let mut row_inside = vec![true; m.nrows()];
    loop {
        // Attractor of the target within `inside`, through choices that never leave `inside`:
        // backwards from the target, a state joins by the first such choice into a state that
        // has joined.
        let mut reached: Vec<bool> = (0..n).map(|s| target.contains(s as StateId)).collect();
        let mut queue: Vec<usize> = (0..n).filter(|&s| reached[s]).collect();
        while let Some(t) = queue.pop() {
            for &r in &trows[tptr[t]..tptr[t + 1]] {
                let r = r as usize;
                let s = group_of[r] as usize;
                if reached[s] || !inside[s] || !row_inside[r] {
                    continue;
                }
                reached[s] = true;
                policy[s] = (r - m.group_rows(s).start) as u32;
                queue.push(s);
            }
        }
        if reached == inside {
            break;
        }
        for t in 0..n {
            if inside[t] && !reached[t] {
                inside[t] = false;
                for &r in &trows[tptr[t]..tptr[t + 1]] {
                    row_inside[r as usize] = false;
                }
            }
        }
    }
    let sure = StateSet::from_states(n, (0..n as StateId).filter(|&s| inside[s as usize]));
    (sure, policy)
}

/// For each state of `set`, its choices whose successors all lie in `set` (empty lists outside
/// it).
#[must_use]
pub fn choices_within(mdp: &Mdp, set: &StateSet) -> Vec<Vec<u32>> {
    let m = mdp.matrix();
    (0..mdp.n())
        .map(|s| {
            if !set.contains(s as StateId) {
                return Vec::new();
            }
            let group = m.group_rows(s);
            group
                .clone()
                .filter(|&r| m.row(r).0.iter().all(|&t| set.contains(t)))
                .map(|r| (r - group.start) as u32)
                .collect()
        })
        .collect()
}

/// The row group (state) of every row.
fn row_groups_of(m: &CsrMatrix) -> Vec<u32> {
    let mut out = Vec::with_capacity(m.nrows());
    for g in 0..m.row_groups() {
        out.extend(m.group_rows(g).map(|_| g as u32));
    }
    out
}

/// Inside an end component (`inside`, ascending), choices that reach `exit_state` with
/// probability 1 without leaving it: the attractor through choices that stay inside (Baier &
/// Katoen, Lemma 10.119). Sets `policy` for every member but `exit_state`.
pub fn steer_to(m: &CsrMatrix, inside: &[StateId], exit_state: StateId, policy: &mut [u32]) {
    let index = |t: StateId| inside.binary_search(&t).ok();
    // Per member, the (member, row) pairs of the choices that stay inside and lead to it.
    let mut preds: Vec<Vec<(u32, u32)>> = vec![Vec::new(); inside.len()];
    for (i, &s) in inside.iter().enumerate() {
        let group = m.group_rows(s as usize);
        for r in group.clone() {
            let cols = m.row(r).0;
            if cols.iter().all(|&t| index(t).is_some()) {
                for &t in cols {
                    let j = index(t).expect("inside");
                    preds[j].push((i as u32, (r - group.start) as u32));
                }
            }
        }
    }
    let Some(exit) = index(exit_state) else { return };
    let mut reached = vec![false; inside.len()];
    reached[exit] = true;
    let mut queue = vec![exit];
    while let Some(j) = queue.pop() {
        for &(i, choice) in &preds[j] {
            if !reached[i as usize] {
                reached[i as usize] = true;
                policy[inside[i as usize] as usize] = choice;
                queue.push(i as usize);
            }
        }
    }
}

/// Maximal end components among the `maybe` states (`pos` maps a state to its position there):
/// repeatedly take strongly connected components of the graph of the choices that stay among the
/// candidates, and drop choices that leave their component (de Alfaro 1997; Baier & Katoen,
/// Algorithm 47). Returns a node per maybe position (one per end component, one per other state)
/// and, per position, the rows of the choices that stay inside its end component (empty for a
/// state in none).
#[must_use]
pub fn end_components(m: &CsrMatrix, maybe: &[StateId], pos: &[u32]) -> (Vec<u32>, Vec<Vec<usize>>) {
    let k = maybe.len();
    // Whether each row of a maybe state may still belong to an end component (stays among the
    // maybe states, and so far inside its state's component).
    let mut ok = vec![false; m.nrows()];
    for &s in maybe {
        for r in m.group_rows(s as usize) {
            ok[r] = m.row(r).0.iter().all(|&t| pos[t as usize] != u32::MAX);
        }
    }
    // Component of each position (numbers unique across rounds), and the positions still to
    // split: at first all; then those of components where a choice was dropped and that keep one.
    let mut component = vec![u32::MAX; k];
    let mut next_component = 0u32;
    let mut active: Vec<u32> = (0..k as u32).collect();
    let mut local = vec![u32::MAX; k];
    // For the cascade below: the rows into each state, and each row's state.
    let (tptr, trows) = m.transpose_pattern();
    let mut group_of = vec![0u32; m.nrows()];
    for g in 0..m.row_groups() {
        for r in m.group_rows(g) {
            group_of[r] = g as u32;
        }
    }
    let mut dead: Vec<u32> = Vec::new();
    while !active.is_empty() {
        for (j, &i) in active.iter().enumerate() {
            local[i as usize] = j as u32;
        }
        // The graph of the remaining choices among the active positions.
        let mut row_ptr = vec![0usize];
        let mut cols: Vec<u32> = Vec::new();
        let mut targets: Vec<u32> = Vec::new();
        for &i in &active {
            targets.clear();
            for r in m.group_rows(maybe[i as usize] as usize).filter(|&r| ok[r]) {
                targets.extend(
                    m.row(r)
                        .0
                        .iter()
                        .map(|&t| local[pos[t as usize] as usize])
                        .filter(|&j| j != u32::MAX),
                );
            }
            targets.sort_unstable();
            targets.dedup();
            cols.extend_from_slice(&targets);
            row_ptr.push(cols.len());
        }
        let vals = vec![1.0; cols.len()];
        let graph = CsrMatrix::from_sorted_parts(active.len(), row_ptr, cols, vals);
        let split = sccs(&graph);
        for (j, &i) in active.iter().enumerate() {
            component[i as usize] = next_component + split.component[j];
        }
        next_component += split.count as u32;
        // Drop the choices that leave their state's component; a component that lost one is
        // split again (among its states that keep a choice).
        let mut dropped = vec![false; split.count];
        for &i in &active {
            let c = component[i as usize];
            for r in m.group_rows(maybe[i as usize] as usize) {
                if ok[r]
                    && !m
                        .row(r)
                        .0
                        .iter()
                        .all(|&t| component[pos[t as usize] as usize] == c)
                {
                    ok[r] = false;
                    dropped[(c - (next_component - split.count as u32)) as usize] = true;
                }
            }
        }
        // A state left without a choice belongs to no end component, nor does any choice that
        // may lead to it: drop those at once, and so on (without this, each round of SCCs
        // peels off one layer).
        let base = next_component - split.count as u32;
        dead.clear();
        dead.extend(
            active
                .iter()
                .copied()
                .filter(|&i| !m.group_rows(maybe[i as usize] as usize).any(|r| ok[r])),
        );
        while let Some(i) = dead.pop() {
            let d = maybe[i as usize] as usize;
            for &r in &trows[tptr[d]..tptr[d + 1]] {
                let r = r as usize;
                if !ok[r] {
                    continue;
                }
                ok[r] = false;
                let g = group_of[r] as usize;
                let j = pos[g];
                if j == u32::MAX || local[j as usize] == u32::MAX {
                    continue;
                }
                dropped[(component[j as usize] - base) as usize] = true;
                if !m.group_rows(g).any(|q| ok[q]) {
                    dead.push(j);
                }
            }
        }
        for &i in &active {
            local[i as usize] = u32::MAX;
        }
        active.retain(|&i| {
            let c = component[i as usize];
            dropped[(c - base) as usize] && m.group_rows(maybe[i as usize] as usize).any(|r| ok[r])
        });
    }
    // End components: components whose states keep a choice. Number the nodes.
    let mut node = vec![u32::MAX; k];
    let mut inside: Vec<Vec<usize>> = vec![Vec::new(); k];
    let mut by_component = std::collections::HashMap::new();
    let mut next = 0u32;
    for i in 0..k {
        inside[i] = m.group_rows(maybe[i] as usize).filter(|&r| ok[r]).collect();
        if inside[i].is_empty() {
            node[i] = next;
            next += 1;
        } else {
            node[i] = *by_component.entry(component[i]).or_insert_with(|| {
                next += 1;
                next - 1
            });
        }
    }
    (node, inside)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::CsrBuilder;
    use rand::{RngExt, SeedableRng};

    /// The textbook fixpoint (Baier & Katoen, Algorithm 47) without shortcuts: SCCs of the
    /// remaining choices among the remaining states, drop choices that leave their SCC or the
    /// remaining states, drop states without a choice, until nothing changes. Per state, its
    /// SCC's number (or `None`) and its remaining rows.
    fn naive(m: &CsrMatrix, maybe: &[StateId]) -> Vec<(Option<u32>, Vec<usize>)> {
        let n = m.row_groups();
        let mut alive = vec![false; n];
        for &s in maybe {
            alive[s as usize] = true;
        }
        let mut ok = vec![false; m.nrows()];
        for &s in maybe {
            for r in m.group_rows(s as usize) {
                ok[r] = true;
            }
        }
        loop {
            let mut b = CsrBuilder::new(n);
            for g in 0..n {
                let mut t: Vec<u32> = Vec::new();
                if alive[g] {
                    for r in m.group_rows(g).filter(|&r| ok[r]) {
                        t.extend(m.row(r).0.iter().filter(|&&x| alive[x as usize]));
                    }
                }
                t.sort_unstable();
                t.dedup();
                for x in t {
                    b.add(x, 1.0);
                }
                b.finish_row();
            }
            let scc = sccs(&b.build());
            let mut changed = false;
            for g in 0..n {
                for r in m.group_rows(g) {
                    if ok[r]
                        && !(alive[g]
                            && m.row(r)
                                .0
                                .iter()
                                .all(|&t| alive[t as usize] && scc.component[t as usize] == scc.component[g]))
                    {
                        ok[r] = false;
                        changed = true;
                    }
                }
                if alive[g] && !m.group_rows(g).any(|r| ok[r]) {
                    alive[g] = false;
                    changed = true;
                }
            }
            if !changed {
                return (0..n)
                    .map(|g| {
                        (
                            alive[g].then_some(scc.component[g]),
                            m.group_rows(g).filter(|&r| ok[r]).collect(),
                        )
                    })
                    .collect();
            }
        }
    }

    /// Maximal end components of random MDPs among random candidate sets: the same partition
    /// and the same choices inside as the textbook fixpoint.
    #[test]
    fn end_components_match_the_textbook_fixpoint() {
        for seed in 0..400u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let n = rng.random_range(2..=12usize);
            let mut b = CsrBuilder::new(n);
            for _ in 0..n {
                b.new_row_group();
                for _ in 0..rng.random_range(1..=3) {
                    let mut t: Vec<u32> = (0..rng.random_range(1..=3))
                        .map(|_| rng.random_range(0..n as u32))
                        .collect();
                    t.sort_unstable();
                    t.dedup();
                    for &x in &t {
                        b.add(x, 1.0 / t.len() as f64);
                    }
                    b.finish_row();
                }
            }
            let m = b.build();
            let maybe: Vec<StateId> = (0..n as StateId).filter(|_| rng.random_bool(0.8)).collect();
            let mut pos = vec![u32::MAX; n];
            for (i, &s) in maybe.iter().enumerate() {
                pos[s as usize] = i as u32;
            }
            let (node, inside) = end_components(&m, &maybe, &pos);
            let want = naive(&m, &maybe);
            for (i, &s) in maybe.iter().enumerate() {
                assert_eq!(
                    inside[i], want[s as usize].1,
                    "seed {seed} state {s}: rows inside"
                );
                for (j, &t) in maybe.iter().enumerate() {
                    let same = !inside[i].is_empty() && !inside[j].is_empty() && node[i] == node[j];
                    let want_same = want[s as usize].0.is_some() && want[s as usize].0 == want[t as usize].0;
                    assert_eq!(same, want_same, "seed {seed}: states {s} and {t}");
                }
            }
        }
    }
}
