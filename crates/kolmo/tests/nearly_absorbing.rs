//! Nearly absorbing chains (issue 15 §1): transient states left with probabilities from 1e-6
//! down to 1e-36 per step, beside self-loops or cycles that keep the walk inside, in rows that
//! sum to 1 only within rounding. Hitting probabilities and expected steps (up to 10³⁶) must
//! agree to 1e-9 with exact rationals of the same chain, its rows renormalised; the reported
//! bounds must be true, and small (≤ 1e-9) where a residual in double length can certify them
//! (expected times up to about 10¹⁸ steps: beyond, the bound stays true but grows).

use kolmo::analysis::exact::{absorption_time_exact, reach_probability_exact};
use kolmo::analysis::{AbsorbingChain, reach_probability};
use kolmo::exact::{Rational, Scalar};
use kolmo::mdp::{self, MdpOptions, Optimum};
use kolmo::model::{Dtmc, Mdp, StateSet, Written};
use kolmo::sparse::CsrBuilder;

/// A chain from its rows (`(target, probability)`, ascending targets), start 0; with the exact
/// values of the stored doubles, each row rescaled to sum to exactly 1, as its values as
/// written.
fn chain(rows: &[Vec<(u32, f64)>]) -> Dtmc {
    let mut b = CsrBuilder::new(rows.len());
    let mut exact = Vec::new();
    for row in rows {
        b.new_row_group();
        let sum = row
            .iter()
            .fold(Rational::ZERO, |acc, &(_, p)| acc + Rational::from_f64(p));
        for &(t, p) in row {
            b.add(t, p);
            exact.push(Rational::from_f64(p) / &sum);
        }
        b.finish_row();
    }
    Dtmc::new(b.build(), vec![0])
        .unwrap()
        .with_written(Written {
            probabilities: exact,
            ..Written::default()
        })
        .unwrap()
}

/// `k` transient states 0..k, each staying with `1 − eps` (rounded), else moving on to the next
/// (the last to the goal `k`), with a little of the exit going to the trap `k + 1` instead.
fn stay_then_move(k: usize, eps: f64) -> Vec<Vec<(u32, f64)>> {
    let k32 = k as u32;
    let mut rows: Vec<Vec<(u32, f64)>> = (0..k32)
        .map(|i| {
            let next = if i + 1 < k32 { i + 1 } else { k32 };
            vec![(i, 1.0 - eps), (next, 0.9 * eps), (k32 + 1, 0.1 * eps)]
        })
        .collect();
    rows.push(vec![(k32, 1.0)]);
    rows.push(vec![(k32 + 1, 1.0)]);
    rows
}

/// A ring of `k` transient states moving on with `1 − eps` (rounded), leaving with `eps`: to the
/// goal `k` from even states, to the trap `k + 1` from odd ones. No self-loops: the walk stays
/// inside by cycling, which no exit-mass diagonal alone makes accurate.
fn ring(k: usize, eps: f64) -> Vec<Vec<(u32, f64)>> {
    let k32 = k as u32;
    let mut rows: Vec<Vec<(u32, f64)>> = (0..k32)
        .map(|i| {
            let exit = if i % 2 == 0 { k32 } else { k32 + 1 };
            let mut row = vec![((i + 1) % k32, 1.0 - eps), (exit, eps)];
            row.sort_by_key(|e| e.0);
            row
        })
        .collect();
    rows.push(vec![(k32, 1.0)]);
    rows.push(vec![(k32 + 1, 1.0)]);
    rows
}

/// `k` transient states with seeded random moves among themselves (three each) and exit
/// probabilities `eps · (1 + i mod 3)` to the goal or the trap.
fn tangle(k: usize, eps: f64, seed: u64) -> Vec<Vec<(u32, f64)>> {
    let k32 = k as u32;
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let mut rows: Vec<Vec<(u32, f64)>> = (0..k32)
        .map(|i| {
            let exit = eps * f64::from(1 + i % 3);
            let mut targets: Vec<u32> = Vec::new();
            while targets.len() < 3 {
                let t = (next() % u64::from(k32)) as u32;
                if !targets.contains(&t) {
                    targets.push(t);
                }
            }
            let weights: Vec<f64> = targets.iter().map(|_| 1.0 + (next() % 7) as f64).collect();
            let total: f64 = weights.iter().sum();
            let mut row: Vec<(u32, f64)> = targets
                .iter()
                .zip(&weights)
                .map(|(&t, w)| (t, (1.0 - exit) * w / total))
                .collect();
            row.push((if next() % 2 == 0 { k32 } else { k32 + 1 }, exit));
            row.sort_by_key(|e| e.0);
            row
        })
        .collect();
    rows.push(vec![(k32, 1.0)]);
    rows.push(vec![(k32 + 1, 1.0)]);
    rows
}

/// `|x − exact| ≤ 1e-9 · |exact|`.
fn close(x: f64, exact: &Rational) -> bool {
    let e = exact.to_f64().value();
    (x - e).abs() <= 1e-9 * e.abs()
}

/// Hitting probabilities of the goal and expected steps to {goal, trap} against the exact
/// values, with bounds that hold, and that are small when `certified`.
fn check(name: &str, rows: &[Vec<(u32, f64)>], certified: bool) {
    let d = chain(rows);
    let n = d.n();
    let goal = StateSet::from_states(n, [n as u32 - 2]);
    let both = StateSet::from_states(n, [n as u32 - 2, n as u32 - 1]);

    let p = reach_probability(&d, &goal).unwrap_or_else(|e| panic!("{name}: {e}"));
    let p_exact = reach_probability_exact(&d, &goal).unwrap();
    assert!(
        !certified || p.error_bound <= 1e-9,
        "{name}: probability bound {}",
        p.error_bound
    );
    for (s, (x, e)) in p.values.iter().zip(&p_exact).enumerate() {
        let error = (x - e.to_f64().value()).abs();
        assert!((0.0..=1.0).contains(x), "{name}: state {s}: probability {x}");
        assert!(close(*x, e) || error <= 1e-15, "{name}: state {s}: {x} vs {e}");
        assert!(
            error <= p.error_bound + 1e-16,
            "{name}: state {s}: error {error:e} > bound {:e}",
            p.error_bound
        );
    }

    // The same chain as an MDP in which state 0 may also jump to the trap: the maximal
    // probability of the goal is the chain's (issue 15 §1: `solve --objective max-reach` was 1 %
    // off with bounds [−2.36, 2.44]), the minimal one 0 from state 0; values inside [0, 1], errors
    // within the bound.
    let mut b = CsrBuilder::new(n);
    for (s, row) in rows.iter().enumerate() {
        b.new_row_group();
        for &(to, q) in row {
            b.add(to, q);
        }
        b.finish_row();
        if s == 0 {
            b.add(n as u32 - 1, 1.0);
            b.finish_row();
        }
    }
    let mdp = Mdp::new(b.build(), vec![0]).unwrap();
    let options = MdpOptions::default();
    let max = mdp::reach_probability(&mdp, &goal, Optimum::Max, &options)
        .unwrap_or_else(|e| panic!("{name}: max-reach: {e}"));
    for (s, (x, e)) in max.values.iter().zip(&p_exact).enumerate() {
        let error = (x - e.to_f64().value()).abs();
        assert!(
            close(*x, e) || error <= 1e-15,
            "{name}: max-reach state {s}: {x} vs {e}"
        );
        assert!(
            error <= max.error_bound + 1e-16,
            "{name}: max-reach state {s}: error {error:e} > bound {:e}",
            max.error_bound
        );
        assert!(
            (0.0..=1.0).contains(x),
            "{name}: max-reach state {s}: probability {x}"
        );
    }
    assert_eq!(max.policy[0], 0, "{name}");
    let min = mdp::reach_probability(&mdp, &goal, Optimum::Min, &options)
        .unwrap_or_else(|e| panic!("{name}: min-reach: {e}"));
    assert!(
        min.values[0].abs() <= min.error_bound.max(1e-300),
        "{name}: min-reach {}",
        min.values[0]
    );

    let t = AbsorbingChain::new(&d, &both)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .absorption_time();
    let t_exact = absorption_time_exact(&d, &both).unwrap();
    assert!(
        !certified || t.error_bound <= 1e-9,
        "{name}: time bound {}",
        t.error_bound
    );
    for (s, (x, e)) in t.mean.iter().zip(&t_exact.mean).enumerate() {
        let e = e.as_ref().expect("finite").to_f64().value();
        assert!((x - e).abs() <= 1e-9 * e, "{name}: state {s}: steps {x} vs {e}");
        let relative = if e == 0.0 { 0.0 } else { (x - e).abs() / e };
        assert!(
            relative <= t.error_bound * 1.01,
            "{name}: state {s}: error {relative:e} > bound {:e}",
            t.error_bound
        );
    }
}

#[test]
fn states_that_stay_with_probability_close_to_1() {
    for eps in [1e-6, 1e-12, 1e-15, 1e-18, 1e-36] {
        for k in [1, 2, 5, 40] {
            check(
                &format!("stay_then_move({k}, {eps:e})"),
                &stay_then_move(k, eps),
                true,
            );
        }
    }
}

#[test]
fn rings_that_keep_the_walk_inside() {
    for eps in [1e-6, 1e-12, 1e-15, 1e-18, 1e-36] {
        for k in [2, 3, 10, 30] {
            check(&format!("ring({k}, {eps:e})"), &ring(k, eps), eps >= 1e-18);
        }
    }
}

#[test]
fn tangles_of_random_moves_with_tiny_exits() {
    for eps in [1e-9, 1e-15, 1e-18, 1e-24] {
        for seed in 1..=4 {
            check(
                &format!("tangle(20, {eps:e}, {seed})"),
                &tangle(20, eps, seed),
                eps >= 1e-18,
            );
        }
    }
}

#[test]
fn expected_steps_reach_10_to_the_36() {
    // One state leaving with 1e-36 per step: its self-loop rounds to 1 in f64 (the row sums to
    // 1 + 1e-36), and the exit mass is what counts: 1e36 steps.
    let d = chain(&stay_then_move(1, 1e-36));
    let both = StateSet::from_states(3, [1, 2]);
    let t = AbsorbingChain::new(&d, &both).unwrap().absorption_time();
    assert!((t.mean[0] / 1e36 - 1.0).abs() < 1e-12, "{}", t.mean[0]);
}

// The board operator's diagonal is the exit mass too (issue 15 §1): a weighted die 1 : 999999 on
// a board with rule `stay`, so that cell 99 wastes its roll with probability 0.999999 (an explicit
// row: a roll past the end) and cell 50 comes back through the snake 52 -> 50 with that
// probability (a row of the closed form). Formed as 1 − q_ii, the diagonal would carry the
// rounding of 0.999999 amplified 10⁶ times (about 1e-10 relative); the matrix-free solve must
// agree with the exact rationals of the die's weights to 1e-13.
#[test]
fn board_operator_rows_that_stay_with_probability_close_to_1() {
    use kolmo::games::snakes::{AnalysisOptions, Board, BoardSpec, Die, PortalKind, Rule};
    let mut s = BoardSpec::empty(100);
    s.die = Die::Weighted(vec![1.0, 999_999.0]);
    s.rule = Rule::Stay;
    s.portals = vec![(PortalKind::Snake, 52, 50, None)];
    let b = Board::new(&s).unwrap();
    let t = b.absorption_time_matrix_free().expect("the operator applies");
    let options = AnalysisOptions {
        turns: vec![],
        ..AnalysisOptions::default()
    };
    let exact = b.analyze_exact(&options).unwrap();
    for c in [0, 50, 51, 98, 99] {
        let x = exact.expected_rolls_by_cell[c].as_ref().unwrap();
        let e = x.to_f64().value();
        let error = (t.mean[c] - e).abs() / e;
        assert!(
            error <= 1e-13,
            "cell {c}: {} vs {e}, relative error {error:.1e}",
            t.mean[c]
        );
        assert!(
            error <= t.error_bound,
            "cell {c}: error {error:.1e} beyond the bound {:.1e}",
            t.error_bound
        );
    }
    // From 99 the wait for face 1 is geometric: 10⁶ rolls.
    assert!(close(t.mean[99], &kolmo::exact::parse_exact("1000000").unwrap()));
}
