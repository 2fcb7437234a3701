//! Project Euler 84 "Monopoly odds" through the exploration API: the example's chain against the
//! published modal strings and percentages, and against two other methods (power iteration on
//! the same matrix; a seeded simulation of the rules written separately from the generator).

#[allow(dead_code)]
#[path = "../examples/monopoly.rs"]
mod monopoly;

use kolmo::sim::SimRng;
use monopoly::{CHANCE, COMMUNITY_CHEST, GO, GO_TO_JAIL, JAIL, RAILWAYS, Rules, UTILITIES};
use rand::RngExt;
use rand_xoshiro::rand_core::SeedableRng;

/// Modal strings as published: 6 sides in the problem statement and 4 sides as the answer
/// (<https://projecteuler.net/problem=84>); 8, 10, 20 and 4 sides in freeCodeCamp's version of
/// the problem, whose tests check `monopolyOdds(n)`
/// (<https://www.freecodecamp.org/learn/project-euler/project-euler-problems-1-to-100/problem-84-monopoly-odds>).
const PUBLISHED: [(u32, &str); 5] = [
    (6, "102400"),
    (4, "101524"),
    (8, "102400"),
    (10, "100024"),
    (20, "100005"),
];

#[test]
fn modal_strings_as_published() {
    for (sides, modal) in PUBLISHED {
        let odds = monopoly::odds(sides).unwrap();
        assert_eq!(odds.modal_string(), modal, "{sides} sides: {:?}", odds.squares);
        assert!(
            odds.stationary.residual < 1e-14,
            "{sides} sides: {}",
            odds.stationary.residual
        );
    }
}

/// The strings do not depend on whether going to jail resets the doubles count.
#[test]
fn modal_strings_without_the_jail_reset() {
    for (sides, modal) in PUBLISHED {
        let rules = Rules {
            sides,
            jail_resets_doubles: false,
        };
        let odds = monopoly::odds_with(&rules).unwrap();
        assert_eq!(odds.modal_string(), modal, "{sides} sides: {:?}", odds.squares);
    }
}

/// The problem statement: "JAIL (6.24%) = Square 10, E3 (3.18%) = Square 24, and GO (3.09%) =
/// Square 00" (<https://projecteuler.net/problem=84>); ±0.05 percentage points, as the figures
/// depend slightly on the modelling of card decks and the doubles count (shared case 06).
#[test]
fn six_sided_percentages() {
    for jail_resets_doubles in [true, false] {
        let odds = monopoly::odds_with(&Rules {
            sides: 6,
            jail_resets_doubles,
        })
        .unwrap();
        for (square, percent) in [(10, 6.24), (24, 3.18), (0, 3.09)] {
            let got = 100.0 * odds.squares[square];
            assert!(
                (got - percent).abs() <= 0.05,
                "square {square} ({}): {got:.4}% vs {percent}%",
                monopoly::SQUARES[square]
            );
        }
    }
}

#[test]
fn distribution_is_a_distribution() {
    for sides in [2, 4, 6, 13] {
        let odds = monopoly::odds(sides).unwrap();
        let total: f64 = odds.squares.iter().sum();
        assert!((total - 1.0).abs() < 1e-13, "{sides} sides: {total}");
        assert!(odds.squares.iter().all(|&p| p >= 0.0));
        // No roll ends on G2J; every other square is reachable (G2J's three states never are).
        assert_eq!(odds.squares[usize::from(GO_TO_JAIL)], 0.0);
        assert_eq!(odds.chain.states.len(), 117);
        assert!(odds.stationary.irreducible);
        assert_eq!(odds.stationary.period, 1);
    }
}

/// Power iteration `π ← πP` from `GO` on the same matrix converges to the direct solve.
#[test]
fn power_iteration_agrees_with_the_direct_solve() {
    for sides in [4, 6] {
        let odds = monopoly::odds(sides).unwrap();
        let p = odds.chain.dtmc.matrix();
        let n = odds.chain.states.len();
        let mut pi = vec![0.0; n];
        pi[odds.chain.dtmc.initial()[0] as usize] = 1.0;
        let mut next = vec![0.0; n];
        let mut steps = 0;
        loop {
            next.iter_mut().for_each(|x| *x = 0.0);
            for (s, &ps) in pi.iter().enumerate() {
                let (cols, vals) = p.row(s);
                for (&t, &x) in cols.iter().zip(vals) {
                    next[t as usize] += ps * x;
                }
            }
            let change = pi
                .iter()
                .zip(&next)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            std::mem::swap(&mut pi, &mut next);
            steps += 1;
            if change < 1e-16 || steps == 10_000 {
                break;
            }
        }
        assert!(steps < 10_000, "{sides} sides: no convergence");
        for (s, (a, b)) in pi.iter().zip(&odds.stationary.pi).enumerate() {
            assert!(
                (a - b).abs() < 1e-12,
                "{sides} sides, state {}: {a} vs {b}",
                odds.chain.dtmc.state_name(s as u32)
            );
        }
    }
}

/// One roll of the rules, written out separately from the example's generator: returns the new
/// square and doubles count.
fn play(rng: &mut SimRng, sides: u32, square: u8, doubles: u8) -> (u8, u8) {
    let a = rng.random_range(1..=sides);
    let b = rng.random_range(1..=sides);
    if a == b && doubles == 2 {
        return (JAIL, 0);
    }
    let doubles = if a == b { doubles + 1 } else { 0 };
    let mut square = ((u32::from(square) + a + b) % 40) as u8;
    if square == GO_TO_JAIL {
        return (JAIL, 0);
    }
    if CHANCE.contains(&square) {
        let next = |kind: &[u8]| {
            let mut s = square;
            loop {
                s = (s + 1) % 40;
                if kind.contains(&s) {
                    return s;
                }
            }
        };
        square = match rng.random_range(0..16u32) {
            0 => GO,
            1 => return (JAIL, 0),
            2 => 11,
            3 => 24,
            4 => 39,
            5 => 5,
            6 | 7 => next(&RAILWAYS),
            8 => next(&UTILITIES),
            9 => square - 3,
            _ => square,
        };
    }
    if COMMUNITY_CHEST.contains(&square) {
        square = match rng.random_range(0..16u32) {
            0 => GO,
            1 => return (JAIL, 0),
            _ => square,
        };
    }
    (square, doubles)
}

/// A seeded simulation of one long game, 200 batches of 10⁴ rolls: each square's batch means
/// give a standard error, and the exact fraction lies within 4 of them (batch-means method;
/// batches of 10⁴ rolls are far longer than the board's mixing time of a few dozen rolls).
#[test]
fn simulation_agrees_with_the_chain() {
    const BATCHES: usize = 200;
    const ROLLS: usize = 10_000;
    let sides = 6;
    let odds = monopoly::odds(sides).unwrap();
    let mut rng = SimRng::seed_from_u64(84);
    let (mut square, mut doubles) = (GO, 0);
    // Burn-in, then the batches.
    for _ in 0..1_000 {
        (square, doubles) = play(&mut rng, sides, square, doubles);
    }
    let mut batch_counts = vec![[0u32; 40]; BATCHES];
    for counts in &mut batch_counts {
        for _ in 0..ROLLS {
            (square, doubles) = play(&mut rng, sides, square, doubles);
            counts[usize::from(square)] += 1;
        }
    }
    for s in 0..40 {
        let means: Vec<f64> = batch_counts
            .iter()
            .map(|c| f64::from(c[s]) / ROLLS as f64)
            .collect();
        let mean = means.iter().sum::<f64>() / BATCHES as f64;
        let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (BATCHES - 1) as f64;
        let se = (var / BATCHES as f64).sqrt();
        let exact = odds.squares[s];
        if se == 0.0 {
            assert_eq!(mean, exact, "square {s}");
            continue;
        }
        let z = (mean - exact) / se;
        assert!(
            z.abs() < 4.0,
            "square {s} ({}): simulated {mean:.5} ± {se:.5}, exact {exact:.5}, z = {z:.2}",
            monopoly::SQUARES[s]
        );
    }
}

#[test]
fn arguments() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(monopoly::parse_sides(&args(&[])), Ok(6));
    assert_eq!(monopoly::parse_sides(&args(&["4"])), Ok(4));
    assert_eq!(monopoly::parse_sides(&args(&["100"])), Ok(100));
    for bad in ["1", "101", "0", "-3", "six", "", "4.5", "99999999999999999999"] {
        let e = monopoly::parse_sides(&args(&[bad])).unwrap_err();
        assert!(e.contains("SIDES"), "{bad}: {e}");
    }
    assert!(monopoly::parse_sides(&args(&["4", "6"])).is_err());
}
