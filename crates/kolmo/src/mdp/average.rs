//! Long-run average reward (gain) of an MDP, multichain included (Puterman, *Markov Decision
//! Processes*, 1994, ch. 8–9; de Alfaro 1997).

use super::{LongRunOptions, MdpOptions, MdpSolution, Optimum, check_rewards, long_run, total_reward};
use crate::analysis::stationary::RecurrentClass;
use crate::graph::{end_components, steer_to};
use crate::model::{Mdp, StateSet};
use crate::sparse::CsrBuilder;
use crate::{Result, StateId};

/// The optimal gain of a communicating MDP, bracketed, and a policy attaining it.
#[derive(Clone, Debug)]
struct AverageSolution {
    /// Guaranteed lower bound on the optimal gain (reward per step).
    pub gain_lower: f64,
    /// Guaranteed upper bound on the optimal gain.
    pub gain_upper: f64,
    /// The choice per state at the last stage of value iteration (length `n`).
    pub policy: Vec<u32>,
    /// Value-iteration stages done.
    pub stages: u64,
}

impl AverageSolution {
    /// The midpoint of the bracket.
    fn gain(&self) -> f64 {
        0.5 * (self.gain_lower + self.gain_upper)
    }
}

/// The optimal long-run average reward per step inside one end component (communicating under
/// its internal choices, so the optimal gain is the same from all its states): value iteration on
/// the aperiodic transform `P' = (I + P)/2` (same gain, no periodic oscillation: Puterman §8.5.4),
/// stopped when the bracket `[min_s, max_s] (V_{k+1} − V_k)(s)` — which contains the optimal gain
/// (Odoni 1969; Puterman Thm 8.5.5) — is narrower than `tolerance`.
///
/// An end component with one choice per state is a closed class of a Markov chain: its gain is
/// `π r` from the stationary distribution, solved directly with its bound (value iteration
/// would need as many stages as the chain needs to mix: some 10⁶ on a ring of 1,500 states).
fn communicating(
    mdp: &Mdp,
    rewards: &[f64],
    optimum: Optimum,
    tolerance: f64,
    max_stages: u64,
) -> Result<AverageSolution> {
    let m = mdp.matrix();
    if m.nrows() == mdp.n() {
        let class: Vec<StateId> = (0..mdp.n() as StateId).collect();
        let chain = RecurrentClass::new(m, &class)?;
        let stationary = chain.stationary()?;
        let g = chain.gain_bias(&stationary, rewards);
        return Ok(AverageSolution {
            gain_lower: g.gain - g.gain_error_bound,
            gain_upper: g.gain + g.gain_error_bound,
            policy: vec![0; mdp.n()],
            stages: 0,
        });
    }
    let mut b = CsrBuilder::new(mdp.n());
    for s in 0..mdp.n() {
        b.new_row_group();
        for r in m.group_rows(s) {
            let (cols, vals) = m.row(r);
            b.add(s as u32, 0.5);
            for (&t, &p) in cols.iter().zip(vals) {
                b.add(t, 0.5 * p);
            }
            b.finish_row();
        }
    }
    let lazy = Mdp::new(b.build(), vec![0])?;
    check_rewards(&lazy, rewards)?;
    let lr = long_run(
        lazy.matrix(),
        rewards,
        |_| optimum.direction(),
        &LongRunOptions {
            period: 1,
            tolerance,
            max_stages,
        },
    )?;
    Ok(AverageSolution {
        gain_lower: lr.gain_lower,
        gain_upper: lr.gain_upper,
        policy: lr.choices,
        stages: lr.stages,
    })
}

/// The optimal long-run average reward per step (gain) from every state, for `rewards` per choice
/// (length `m`), in any MDP (multichain included), with a guaranteed bound and a policy.
///
/// # Method
/// Play ends almost surely in an end component, and inside a maximal end component (MEC) every
/// state can reach every other, so the best gain there is one number `g_C` (de Alfaro, *Formal
/// verification of probabilistic systems*, PhD thesis, Stanford 1997, ch. 5; Puterman ch. 9):
/// 1. the MECs (as for reachability), and for each its `g_C` by value iteration on its internal
///    choices, bracketed;
/// 2. the MECs collapsed into nodes that may either leave by an exiting choice or *settle* for
///    `g_C` (a choice to a terminal state rewarded `g_C`); in this quotient every policy reaches the
///    terminal, and the optimal gain of a state is its optimal expected terminal reward, solved with
///    [`total_reward`](super::total_reward) (rewards shifted to be non-negative; every path earns
///    exactly one settle reward, so the shift comes straight off).
///
/// The bound is the widest MEC bracket's half-width plus the total-reward bound.
///
/// # Errors
/// [`crate::Error::LimitReached`] if a MEC's bracket does not close within `max_stages` stages, or the
/// quotient's policy iteration needs more than `max_stages` rounds;
/// [`crate::Error::InvalidArgument`] for rewards of the wrong length or not finite.
pub fn average(
    mdp: &Mdp,
    rewards: &[f64],
    optimum: Optimum,
    tolerance: f64,
    max_stages: u64,
) -> Result<MdpSolution> {
    check_rewards(mdp, rewards)?;
    let n = mdp.n();
    let m = mdp.matrix();
    let all: Vec<StateId> = (0..n as StateId).collect();
    let (node, internal) = end_components(m, &all, &all);
    let nodes = node.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
    let mut members = vec![Vec::new(); nodes];
    for (s, &x) in node.iter().enumerate() {
        members[x as usize].push(s as StateId);
    }
    // Each MEC's gain and its optimal internal choices.
    let mut gain = vec![None; nodes];
    let mut widest = 0.0f64;
    let mut stages = 0;
    let mut chains = 0;
    let mut policy = vec![0u32; n];
    let mut inside_choice: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for x in 0..nodes {
        let list = &members[x];
        if internal[list[0] as usize].is_empty() {
            continue;
        }
        let mut b = CsrBuilder::new(list.len());
        let mut sub_rewards = Vec::new();
        for &s in list {
            b.new_row_group();
            for &r in &internal[s as usize] {
                let (cols, vals) = m.row(r);
                for (&t, &p) in cols.iter().zip(vals) {
                    b.add(
                        list.binary_search(&t).expect("inside the end component") as StateId,
                        p,
                    );
                }
                b.finish_row();
                sub_rewards.push(rewards[r]);
            }
        }
        let sub = Mdp::new(b.build(), vec![0])?;
        chains += usize::from(sub.matrix().nrows() == sub.n());
        let a = communicating(&sub, &sub_rewards, optimum, tolerance, max_stages)?;
        widest = widest.max(0.5 * (a.gain_upper - a.gain_lower));
        stages += a.stages;
        gain[x] = Some(a.gain());
        inside_choice[x] = list
            .iter()
            .zip(&a.policy)
            .map(|(&s, &c)| (internal[s as usize][c as usize] - m.group_rows(s as usize).start) as u32)
            .collect();
    }
    let gains: Vec<f64> = gain.iter().flatten().copied().collect();
    super::check_finite("average reward", &gains)?;
    let shift = -gains.iter().fold(0.0f64, |a, &g| a.min(g));
    // The quotient: nodes, then the terminal.
    let terminal = nodes as StateId;
    let mut b = CsrBuilder::new(nodes + 1);
    let mut q_rewards = Vec::new();
    let mut origin: Vec<Vec<Option<(StateId, u32)>>> = vec![Vec::new(); nodes];
    for x in 0..nodes {
        b.new_row_group();
        for &s in &members[x] {
            let group = m.group_rows(s as usize);
            for r in group.clone() {
                if internal[s as usize].contains(&r) {
                    continue;
                }
                for (&t, &p) in m.row(r).0.iter().zip(m.row(r).1) {
                    b.add(node[t as usize], p);
                }
                b.finish_row();
                q_rewards.push(0.0);
                origin[x].push(Some((s, (r - group.start) as u32)));
            }
        }
        if let Some(g) = gain[x] {
            b.add(terminal, 1.0);
            b.finish_row();
            q_rewards.push(g + shift);
            origin[x].push(None);
        }
    }
    b.new_row_group();
    b.add(terminal, 1.0);
    b.finish_row();
    q_rewards.push(0.0);
    let quotient = Mdp::new(b.build(), vec![0])?;
    let target = StateSet::from_states(nodes + 1, [terminal]);
    // The same limit for the quotient's policy-improvement rounds as for the stages.
    let options = MdpOptions {
        max_iterations: max_stages,
        ..MdpOptions::default()
    };
    let sol = total_reward(&quotient, &q_rewards, &target, optimum, &options)?;
    for x in 0..nodes {
        match origin[x][sol.policy[x] as usize] {
            None => {
                for (&s, &c) in members[x].iter().zip(&inside_choice[x]) {
                    policy[s as usize] = c;
                }
            }
            Some((s, c)) => {
                policy[s as usize] = c;
                if members[x].len() > 1 {
                    steer_to(m, &members[x], s, &mut policy);
                }
            }
        }
    }
    let values: Vec<f64> = (0..n).map(|s| sol.values[node[s] as usize] - shift).collect();
    Ok(MdpSolution {
        values,
        policy,
        error_bound: widest + sol.error_bound + f64::EPSILON * shift,
        iterations: stages + sol.iterations,
        method: crate::account::Method::EndComponentGains {
            components: gains.len(),
            chains,
        },
    })
}

/// The bias `h` of `policy` (one choice per state) when its Markov chain has a single closed class
/// (unichain): `h = r − g + P h` with `π h = 0` (Puterman §8.2.3): on the closed class by
/// [`RecurrentClass::gain_bias`](crate::analysis::stationary::RecurrentClass::gain_bias), on the
/// transient states by `(I − Q) h_T = r_T − g + P_{T,C} h_C` (an absorbing-chain solve with the
/// boundary folded into the rewards). Returns `None` for a multichain policy.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for rewards of the wrong length; errors of the solves.
pub fn bias(mdp: &Mdp, rewards: &[f64], policy: &[u32]) -> Result<Option<Vec<f64>>> {
    check_rewards(mdp, rewards)?;
    let m = mdp.matrix();
    let rows: Vec<usize> = (0..mdp.n())
        .map(|s| m.group_rows(s).start + policy[s] as usize)
        .collect();
    let chain = crate::model::Dtmc::new(m.select_rows(&rows), mdp.initial().to_vec())?;
    let r: Vec<f64> = rows.iter().map(|&row| rewards[row]).collect();
    let cls = crate::graph::classes(chain.matrix());
    let closed: Vec<&crate::graph::Class> = cls.closed().collect();
    if closed.len() != 1 {
        return Ok(None);
    }
    let class = &closed[0].states;
    let rc = crate::analysis::stationary::RecurrentClass::new(chain.matrix(), class)?;
    let gb = rc.gain_bias(&rc.stationary()?, &r);
    let mut h = vec![0.0; mdp.n()];
    for (&s, &x) in class.iter().zip(&gb.bias) {
        h[s as usize] = x;
    }
    if class.len() < mdp.n() {
        let set = StateSet::from_states(mdp.n(), class.iter().copied());
        let boundary: Vec<f64> = (0..mdp.n())
            .map(|s| {
                let (cols, vals) = chain.matrix().row(s);
                r[s] - gb.gain
                    + cols
                        .iter()
                        .zip(vals)
                        .filter(|(t, _)| set.contains(**t))
                        .map(|(&t, &p)| p * h[t as usize])
                        .sum::<f64>()
            })
            .collect();
        let a = crate::analysis::AbsorbingChain::new(&chain, &set)?;
        let (x, _, _) = a.expected_reward(&boundary)?;
        for s in (0..mdp.n()).filter(|&s| !set.contains(s as StateId)) {
            h[s] = x[s];
        }
    }
    Ok(Some(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 15 §4: a one-action ring of 1,501 states (reward 1 in state 0, period 1,501) is a
    // chain: gain 1/1501 exactly, found from the stationary distribution without value iteration
    // (which gave up after 10⁶ stages), within its bound; and next to it a component with a real
    // choice (state 1501: stay for 1/2000 or stay for 0) still goes through value iteration.
    #[test]
    fn one_choice_components_take_the_chains_path() {
        let n = 1501u32;
        let mut b = CsrBuilder::new(n as usize + 1);
        let mut r = Vec::new();
        for s in 0..n {
            b.new_row_group();
            b.add((s + 1) % n, 1.0);
            b.finish_row();
            r.push(if s == 0 { 1.0 } else { 0.0 });
        }
        b.new_row_group();
        for reward in [1.0 / 2000.0, 0.0] {
            b.add(n, 1.0);
            b.finish_row();
            r.push(reward);
        }
        let mdp = Mdp::new(b.build(), vec![0]).unwrap();
        let sol = average(&mdp, &r, Optimum::Max, 1e-12, 1000).unwrap();
        assert!(
            (sol.values[0] - 1.0 / 1501.0).abs() <= sol.error_bound,
            "{:?}",
            sol.values[0]
        );
        assert!((sol.values[n as usize] - 1.0 / 2000.0).abs() <= sol.error_bound);
        assert!(sol.error_bound < 1e-12, "{}", sol.error_bound);
        assert_eq!(sol.policy[n as usize], 0);
        assert_eq!(
            sol.method,
            crate::account::Method::EndComponentGains {
                components: 2,
                chains: 1
            }
        );
    }

    // A multichain MDP: state 0 chooses between two absorbing worlds: 1 (reward 1 per step) and
    // 2 ⇄ 3 (rewards 4 and 0 alternating: gain 2, period 2), or staying in 0 (reward 1.5).
    // Max gain from 0: 2 (go to {2, 3}); from 1: 1. Min from 0: 1.
    #[test]
    fn multichain_gains() {
        let mdp = super::super::test_mdp(&[
            &[&[(1, 1.0)], &[(2, 1.0)], &[(0, 1.0)]],
            &[&[(1, 1.0)]],
            &[&[(3, 1.0)]],
            &[&[(2, 1.0)]],
        ]);
        let r = [0.0, 0.0, 1.5, 1.0, 4.0, 0.0];
        let max = average(&mdp, &r, Optimum::Max, 1e-12, 100_000).unwrap();
        for (g, want) in max.values.iter().zip([2.0, 1.0, 2.0, 2.0]) {
            assert!((g - want).abs() <= max.error_bound + 1e-15, "{max:?}");
        }
        assert_eq!(max.policy[0], 1);
        // The max policy is multichain (state 1 is closed too): no bias.
        assert!(bias(&mdp, &r, &max.policy).unwrap().is_none());
        let min = average(&mdp, &r, Optimum::Min, 1e-12, 100_000).unwrap();
        assert!((min.values[0] - 1.0).abs() <= min.error_bound + 1e-15, "{min:?}");
        assert_eq!(min.policy[0], 0);
    }

    // The forest example (shared/cases/08-mdp.md) under the average criterion: always waiting
    // earns 4 in the oldest state, whose stationary probability under "wait" is 0.81 (0.9²·… with
    // burning 0.1): π = (0.1, 0.09, 0.81) ⇒ gain 3.24; cutting in state 2 earns 2 every 3 steps at
    // best. The optimum is waiting: 3.24.
    #[test]
    fn forest_average() {
        let (mdp, r) = super::super::discounted::tests::forest(3);
        let s = average(&mdp, &r, Optimum::Max, 1e-12, 100_000).unwrap();
        for g in &s.values {
            assert!((g - 3.24).abs() <= s.error_bound + 1e-15, "{s:?}");
        }
        assert!(s.error_bound <= 1e-12);
        assert_eq!(s.policy, vec![0, 0, 0]);
        // Bias of always waiting: h = r − g + P h, π h = 0 with π = (0.1, 0.09, 0.81), r = (0, 0, 4):
        // h2 − h0 = (4 − 3.24)/0.1·… solved by hand: h0 = −3.24 + 0.1 h0 + 0.9 h1,
        // h1 = −3.24 + 0.1 h0 + 0.9 h2, h2 = 0.76 + 0.1 h0 + 0.9 h2 ⇒ h2 − h0 = 7.6, h1 − h0 = 3.6,
        // and π h = 0 ⇒ h0 = −(0.09·3.6 + 0.81·7.6) = −6.48.
        let h = bias(&mdp, &r, &s.policy).unwrap().unwrap();
        for (x, y) in h.iter().zip([-6.48, -2.88, 1.12]) {
            assert!((x - y).abs() < 1e-12, "{h:?}");
        }
    }
}
