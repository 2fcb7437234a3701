//! Expected total reward over all time (PRISM's `R [C]`; Puterman 1994, ch. 7, the expected
//! total reward criterion), non-negative rewards: finite exactly where a policy can settle in an
//! end component that earns nothing (minimising), or where no end component that earns can be
//! reached (maximising).

use super::{MdpOptions, MdpSolution, Optimum, total_reward};
use crate::account::Method;
use crate::model::{Mdp, StateSet};
use crate::sparse::CsrBuilder;
use crate::{Error, Result, StateId};

/// The states of the end components made of zero-reward choices (`rewards` per choice): where a
/// minimising policy can stop earning forever (de Alfaro 1997; Baier & Katoen, Algorithm 47, for
/// the decomposition).
#[must_use]
pub(crate) fn quiet_states(mdp: &Mdp, rewards: &[f64]) -> StateSet {
    quiet_with_choices(mdp, rewards).0
}

/// [`quiet_states`], and for each of them a zero-reward choice that stays in its end component
/// (choice 0 elsewhere).
fn quiet_with_choices(mdp: &Mdp, rewards: &[f64]) -> (StateSet, Vec<u32>) {
    let n = mdp.n();
    let matrix = mdp.matrix();
    // The zero-reward choices (a state without one leaves to an extra sink state).
    let mut b = CsrBuilder::new(n + 1);
    // The original choice of each row (`u32::MAX`: to the sink).
    let mut choice_of: Vec<u32> = Vec::new();
    for g in 0..n {
        if g > 0 {
            b.new_row_group();
        }
        let mut any = false;
        let group = matrix.group_rows(g);
        for row in group.clone().filter(|&row| rewards[row] == 0.0) {
            let (cols, vals) = matrix.row(row);
            for (&c, &v) in cols.iter().zip(vals) {
                b.add(c, v);
            }
            b.finish_row();
            choice_of.push((row - group.start) as u32);
            any = true;
        }
        if !any {
            b.add(n as StateId, 1.0);
            b.finish_row();
            choice_of.push(u32::MAX);
        }
    }
    let zero = b.build();
    let all: Vec<StateId> = (0..n as StateId).collect();
    // Positions among the candidates; the sink is not one.
    let pos: Vec<u32> = (0..=n as u32)
        .map(|s| if s < n as u32 { s } else { u32::MAX })
        .collect();
    let (_, inside) = crate::graph::end_components(&zero, &all, &pos);
    let quiet = StateSet::from_states(n, (0..n).filter(|&s| !inside[s].is_empty()).map(|s| s as StateId));
    let choices = (0..n)
        .map(|s| inside[s].first().map_or(0, |&row| choice_of[row]))
        .collect();
    (quiet, choices)
}

/// The optimal expected total reward over all time from every state (`+∞` where it diverges),
/// `rewards` one per choice, all `≥ 0`.
///
/// Minimising: the minimal expected reward until [`quiet_states`]. Maximising: `+∞` wherever a
/// policy can reach an end component with a choice inside it that earns (it loops there
/// forever); elsewhere every end component earns nothing inside, and collapsing each into one
/// node that may leave by an exiting choice or stop (a choice to a sink that earns 0) leaves a
/// model where every policy reaches the sink: the maximal expected reward until the sink (Baier
/// & Katoen §10.6 for the decomposition; the same quotient as the long-run average's).
///
/// The returned policy, minimising, is [`total_reward`]'s outside the quiet states and a
/// zero-reward choice staying in their end component inside; maximising, it is the quotient's
/// exit where a state's own choice leaves its end component, else choice 0 — not an optimal
/// policy: use the values.
///
/// # Errors
/// [`Error::InvalidArgument`] for rewards of the wrong length, negative or not finite; as
/// [`total_reward`].
pub(crate) fn total_reward_forever(
    mdp: &Mdp,
    rewards: &[f64],
    optimum: Optimum,
    options: &MdpOptions,
) -> Result<MdpSolution> {
    let n = mdp.n();
    if rewards.len() != mdp.choices() || rewards.iter().any(|r| !(r.is_finite() && *r >= 0.0)) {
        return Err(Error::arg(
            "rewards",
            format!(
                "the total over all time needs {} finite rewards ≥ 0, one per choice",
                mdp.choices()
            ),
        ));
    }
    if optimum == Optimum::Min {
        let (quiet, stay) = quiet_with_choices(mdp, rewards);
        let mut s = total_reward(mdp, rewards, &quiet, Optimum::Min, options)?;
        // In the quiet states, a choice that keeps earning nothing.
        for q in quiet.iter() {
            s.policy[q as usize] = stay[q as usize];
        }
        return Ok(s);
    }
    let matrix = mdp.matrix();
    let all: Vec<StateId> = (0..n as StateId).collect();
    let (node, inside) = crate::graph::end_components(matrix, &all, &all);
    let earning = StateSet::from_states(
        n,
        (0..n)
            .filter(|&s| inside[s].iter().any(|&row| rewards[row] > 0.0))
            .map(|s| s as StateId),
    );
    let infinite = crate::graph::backward_reachable(matrix, &earning, None);
    // The quotient over the finite states: a node per end component (or state), then the sink.
    let mut id = vec![u32::MAX; n];
    let mut index_of_node = std::collections::HashMap::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for s in (0..n).filter(|&s| !infinite.contains(s as StateId)) {
        let k = *index_of_node.entry(node[s]).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        id[s] = k as u32;
        members[k].push(s);
    }
    let sink = members.len() as StateId;
    let mut b = CsrBuilder::new(members.len() + 1);
    let mut quotient_rewards = Vec::new();
    // The original (state, row) of each quotient row (`None`: stop).
    let mut origin: Vec<Option<(usize, usize)>> = Vec::new();
    for (k, list) in members.iter().enumerate() {
        if k > 0 {
            b.new_row_group();
        }
        for &s in list {
            for row in matrix.group_rows(s) {
                if inside[s].contains(&row) {
                    continue;
                }
                let (cols, vals) = matrix.row(row);
                for (&t, &p) in cols.iter().zip(vals) {
                    b.add(id[t as usize], p);
                }
                b.finish_row();
                quotient_rewards.push(rewards[row]);
                origin.push(Some((s, row)));
            }
        }
        // Stop: stay in the end component forever, earning nothing more.
        b.add(sink, 1.0);
        b.finish_row();
        quotient_rewards.push(0.0);
        origin.push(None);
    }
    b.new_row_group();
    b.add(sink, 1.0);
    b.finish_row();
    quotient_rewards.push(0.0);
    let quotient = Mdp::new(b.build(), vec![sink])?;
    let goal = StateSet::from_states(members.len() + 1, [sink]);
    let s = total_reward(&quotient, &quotient_rewards, &goal, Optimum::Max, options)?;
    let mut policy = vec![0u32; n];
    let q = quotient.matrix();
    for (k, _) in members.iter().enumerate() {
        let row = q.group_rows(k).start + s.policy[k] as usize;
        if let Some((state, original)) = origin[row] {
            policy[state] = (original - matrix.group_rows(state).start) as u32;
        }
    }
    let values = (0..n)
        .map(|t| {
            if id[t] == u32::MAX {
                f64::INFINITY
            } else {
                s.values[id[t] as usize]
            }
        })
        .collect();
    Ok(MdpSolution {
        values,
        policy,
        error_bound: s.error_bound,
        iterations: s.iterations,
        method: Method::TotalOverEndComponents {
            inner: Box::new(s.method),
        },
    })
}
