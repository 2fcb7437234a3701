//! Any Markov chain: classification, stationary distributions, first-passage times, absorption,
//! long-run behaviour and rewards, against the published figures of Grinstead & Snell,
//! *Introduction to Probability*, ch. 11 (and Kemeny & Snell, *Finite Markov Chains*), as collected
//! in shared/cases/07-grinstead-snell.md.

use kolmo::analysis::{AbsorbingChain, ClassAnalysis, mean_first_passage_matrix};
use kolmo::model::{Dtmc, StateSet};
use kolmo::sparse::CsrBuilder;

fn chain(rows: &[&[(u32, f64)]]) -> Dtmc {
    let mut b = CsrBuilder::new(rows.len());
    for row in rows {
        for &(c, p) in *row {
            b.add(c, p);
        }
        b.finish_row();
    }
    Dtmc::new(b.build(), vec![0]).unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

fn land_of_oz() -> Dtmc {
    chain(&[
        &[(0, 0.5), (1, 0.25), (2, 0.25)],
        &[(0, 0.5), (2, 0.5)],
        &[(0, 0.25), (1, 0.25), (2, 0.5)],
    ])
}

// Example 11.1 / Kemeny & Snell p. 218 (published): w = (2/5, 1/5, 2/5), recurrence times
// (5/2, 5, 5/2), M = [[0, 4, 10/3], [8/3, 0, 8/3], [10/3, 4, 0]].
#[test]
fn land_of_oz_stationary_recurrence_and_first_passage() {
    let d = land_of_oz();
    let a = ClassAnalysis::new(&d).unwrap();
    assert!(a.classes.irreducible() && a.classes.ergodic());
    let st = &a.stationary[0];
    for (x, y) in st.pi.iter().zip([0.4, 0.2, 0.4]) {
        assert!(close(*x, y, 1e-15), "{x} vs {y}");
    }
    for (x, y) in st.mean_recurrence_times.iter().zip([2.5, 5.0, 2.5]) {
        assert!(close(*x, y, 1e-15), "{x} vs {y}");
    }
    let m = mean_first_passage_matrix(&d).unwrap();
    let expect = [
        [0.0, 4.0, 10.0 / 3.0],
        [8.0 / 3.0, 0.0, 8.0 / 3.0],
        [10.0 / 3.0, 4.0, 0.0],
    ];
    for i in 0..3 {
        for j in 0..3 {
            assert!(
                close(m.get(i, j), expect[i as usize][j as usize], 1e-14),
                "m[{i}][{j}] = {}",
                m.get(i, j)
            );
        }
    }
    assert!(m.error_bound < 1e-14);
    let lr = a.long_run(&[1.0, 0.0, 0.0]).unwrap();
    assert!(
        lr.converges
            && lr
                .distribution
                .iter()
                .zip([0.4, 0.2, 0.4])
                .all(|(x, y)| close(*x, y, 1e-15))
    );
}

fn walk(right: f64) -> Dtmc {
    chain(&[
        &[(0, 1.0)],
        &[(0, 1.0 - right), (2, right)],
        &[(1, 1.0 - right), (3, right)],
        &[(2, 1.0 - right), (4, right)],
        &[(4, 1.0)],
    ])
}

// Examples 11.13-11.15 (published): fair walk N = [[3/2, 1, 1/2], [1, 2, 1], [1/2, 1, 3/2]],
// t = (3, 4, 3), B = [[3/4, 1/4], [1/2, 1/2], [1/4, 3/4]], Var = (8, 8, 8); biased walk (right 2/3)
// t = (17/5, 18/5, 11/5), B = [[7/15, 8/15], [1/5, 4/5], [1/15, 14/15]].
#[test]
fn drunkards_walks_absorption() {
    for (right, t_expect, b_expect) in [
        (0.5, [3.0, 4.0, 3.0], [[0.75, 0.25], [0.5, 0.5], [0.25, 0.75]]),
        (
            2.0 / 3.0,
            [17.0 / 5.0, 18.0 / 5.0, 11.0 / 5.0],
            [
                [7.0 / 15.0, 8.0 / 15.0],
                [1.0 / 5.0, 4.0 / 5.0],
                [1.0 / 15.0, 14.0 / 15.0],
            ],
        ),
    ] {
        let d = walk(right);
        let a = ClassAnalysis::new(&d).unwrap();
        assert_eq!(a.classes.absorbing_states(), vec![0, 4]);
        assert_eq!(a.classes.transient_states(), vec![1, 2, 3]);
        let t = a.time_to_recurrence().unwrap();
        for (s, y) in (1..4).zip(t_expect) {
            assert!(close(t.mean[s], y, 1e-14), "{} vs {y}", t.mean[s]);
        }
        if right == 0.5 {
            assert!(
                t.variance.as_ref().unwrap()[1..4]
                    .iter()
                    .all(|v| close(*v, 8.0, 1e-13))
            );
            let n = a.absorbing().unwrap().fundamental().unwrap();
            let expect = [1.5, 1.0, 0.5, 1.0, 2.0, 1.0, 0.5, 1.0, 1.5];
            assert!(n.matrix.iter().zip(expect).all(|(x, y)| close(*x, y, 1e-14)));
        }
        for c in 0..2 {
            let (b, residual, bound) = a.absorption_probabilities(c);
            for (s, row) in (1..4).zip(b_expect) {
                assert!(
                    (b[s] - row[c]).abs() <= bound.max(1e-15),
                    "B[{s}][{c}] = {} vs {}",
                    b[s],
                    row[c]
                );
            }
            assert!(residual < 1e-15 && bound < 1e-14);
        }
        // From the middle: the long run is the two absorbing states with B's middle row.
        let lr = a.long_run(&[0.0, 0.0, 1.0, 0.0, 0.0]).unwrap();
        assert!(
            close(lr.absorption[0], b_expect[1][0], 1e-15)
                && close(lr.distribution[4], b_expect[1][1], 1e-15)
        );
        assert!(lr.converges);
    }
}

// Examples 11.22 and 11.24: the rat maze, compartments 1..9 (states 0..8), food in 5 (state 4).
fn maze() -> Dtmc {
    let doors = [
        (1, 2),
        (1, 6),
        (2, 3),
        (2, 5),
        (3, 4),
        (4, 5),
        (4, 9),
        (5, 6),
        (5, 8),
        (6, 7),
        (7, 8),
        (8, 9),
    ];
    let mut adj = vec![Vec::new(); 9];
    for (a, b) in doors {
        adj[a - 1].push(b as u32 - 1);
        adj[b - 1].push(a as u32 - 1);
    }
    let rows: Vec<Vec<(u32, f64)>> = adj
        .iter()
        .map(|n| n.iter().map(|&t| (t, 1.0 / n.len() as f64)).collect())
        .collect();
    let refs: Vec<&[(u32, f64)]> = rows.iter().map(|r| &r[..]).collect();
    chain(&refs)
}

// Published: steps to the food (6, 5, 6, 5, 5, 6, 5, 6) from 1,2,3,4,6,7,8,9, 8·N as in the case
// file; as an ergodic chain w = (1/12, 1/8, 1/12, 1/8, 1/6, 1/8, 1/12, 1/8, 1/12) and recurrence
// times (12, 8, 12, 8, 6, 8, 12, 8, 12).
#[test]
fn rat_maze() {
    let d = maze();
    let food = StateSet::from_states(9, [4]);
    let a = AbsorbingChain::new(&d, &food).unwrap();
    let t = a.absorption_time();
    for (s, y) in [0, 1, 2, 3, 5, 6, 7, 8]
        .into_iter()
        .zip([6.0, 5.0, 6.0, 5.0, 5.0, 6.0, 5.0, 6.0])
    {
        assert!(close(t.mean[s], y, 1e-14), "{} vs {y}", t.mean[s]);
    }
    let n = a.fundamental().unwrap();
    let eight_n = [
        [14, 9, 4, 3, 9, 4, 3, 2],
        [6, 14, 6, 4, 4, 2, 2, 2],
        [4, 9, 14, 9, 3, 2, 3, 4],
        [2, 4, 6, 14, 2, 2, 4, 6],
        [6, 4, 2, 2, 14, 6, 4, 2],
        [4, 3, 2, 3, 9, 14, 9, 4],
        [2, 2, 2, 4, 4, 6, 14, 6],
        [2, 3, 4, 9, 3, 4, 9, 14],
    ];
    for (i, row) in eight_n.iter().enumerate() {
        for (j, &want) in row.iter().enumerate() {
            assert!(close(8.0 * n.get(i, j), f64::from(want), 1e-14), "8N[{i}][{j}]");
            // Within the certified entrywise bound of the exact N.
            assert!((n.get(i, j) - f64::from(want) / 8.0).abs() <= n.error_bound);
        }
    }
    let c = ClassAnalysis::new(&d).unwrap();
    assert!(c.classes.irreducible());
    let w = [12.0, 8.0, 12.0, 8.0, 6.0, 8.0, 12.0, 8.0, 12.0];
    for ((p, m), y) in c.stationary[0]
        .pi
        .iter()
        .zip(&c.stationary[0].mean_recurrence_times)
        .zip(w)
    {
        assert!(close(*p, 1.0 / y, 1e-15) && close(*m, y, 1e-14));
    }
    // The maze is bipartite (odd and even compartments alternate): period 2, no limit.
    assert_eq!(c.classes.classes[0].period, Some(2));
    assert!(
        !c.long_run(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
            .unwrap()
            .converges
    );
}

// Example 11.16 ([[0, 1], [1, 0]]: period 2) and a cycle of three (period 3): the chain has a
// stationary distribution but P^n no limit, and the analysis says so.
#[test]
fn periodic_chains() {
    let d = chain(&[&[(1, 1.0)], &[(0, 1.0)]]);
    let a = ClassAnalysis::new(&d).unwrap();
    assert_eq!(a.classes.classes[0].period, Some(2));
    assert!(a.classes.irreducible() && !a.classes.ergodic());
    let lr = a.long_run(&[1.0, 0.0]).unwrap();
    assert!(!lr.converges && lr.distribution == vec![0.5, 0.5]);
    let d = chain(&[&[(1, 1.0)], &[(2, 1.0)], &[(0, 1.0)]]);
    let a = ClassAnalysis::new(&d).unwrap();
    assert_eq!(a.classes.classes[0].period, Some(3));
    for m in &a.stationary[0].mean_recurrence_times {
        assert!(close(*m, 3.0, 1e-15));
    }
}

// Two closed classes ({0, 1} flipping with probability 1/2, period 1; {4} absorbing) and
// transient states 2, 3: from 2, P(→{0,1}) = 1/2 + 1/4·P(3→...) solved by hand: state 2 goes to
// 0 w.p. 1/2, to 3 w.p. 1/2; state 3 goes to 2 w.p. 1/2, to 4 w.p. 1/2. So a2 = 1/2 + a3/2,
// a3 = a2/2 ⇒ a2 = 2/3, a3 = 1/3.
#[test]
fn two_closed_classes_and_transient_states() {
    let d = chain(&[
        &[(0, 0.5), (1, 0.5)],
        &[(0, 0.5), (1, 0.5)],
        &[(0, 0.5), (3, 0.5)],
        &[(2, 0.5), (4, 0.5)],
        &[(4, 1.0)],
    ]);
    let a = ClassAnalysis::new(&d).unwrap();
    assert_eq!(a.closed.len(), 2);
    assert_eq!(a.classes.transient_states(), vec![2, 3]);
    let (b, _, bound) = a.absorption_probabilities(0);
    assert!((b[2] - 2.0 / 3.0).abs() <= bound.max(2e-16) && (b[3] - 1.0 / 3.0).abs() <= bound.max(2e-16));
    let lr = a.long_run(&[0.0, 0.0, 1.0, 0.0, 0.0]).unwrap();
    for (x, y) in lr
        .distribution
        .iter()
        .zip([1.0 / 3.0, 1.0 / 3.0, 0.0, 0.0, 1.0 / 3.0])
    {
        assert!((x - y).abs() <= lr.error_bound.max(1e-16) * 2.0, "{x} vs {y}");
    }
    // Gain of reward 1 in state 0 only: 1/2 on the class {0, 1}, 0 on {4}.
    let gb = a.gain_bias(&[1.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
    assert!(close(gb[0].gain, 0.5, 1e-15) && gb[1].gain == 0.0);
    // Bias on {0, 1}: h = (1/2, −1/2)·(1/2)... h0 − h1 = (r0 − r1) / (1 − (p00 − p10)) = 1, π h = 0.
    assert!(close(gb[0].bias[0], 0.5, 1e-15) && close(gb[0].bias[1], -0.5, 1e-15));
}
