//! Snakes and Ladders: published and derived reference values (shared/cases/01-snakes.md) and
//! cross-checks by a second method.

// Reference figures are quoted with the digits their sources print.
#![allow(clippy::excessive_precision)]

use kolmo::Error;
use kolmo::analysis::AbsorbingChain;
use kolmo::explore::{ExploreOptions, Generator, Successors, explore};
use kolmo::games::snakes::{AnalysisOptions, Board, BoardSpec, PortalKind, Rule};
use kolmo::games::{BoardError, InputError};
use kolmo::model::StateSet;
use kolmo::sim::MonteCarloOptions;

fn close(x: f64, y: f64, rel: f64) -> bool {
    (x - y).abs() <= rel * y.abs().max(1.0)
}

fn board(rule: Rule, start: i64) -> Board {
    let mut s = BoardSpec::classic();
    s.rule = rule;
    s.start = start;
    Board::new(&s).unwrap()
}

// Classic board, rule clamp: the tutorial's figures, derived by exact rationals and a float solve
// (shared/cases/01-snakes.md). The exact E[0] is 35.834938413695473 (CRATES.md §2), so the
// reference's last digits carry round-off: compare to 1e-13 relative.
#[test]
fn classic_clamp_expected_rolls() {
    let a = Board::classic().analyze(&AnalysisOptions::default()).unwrap();
    assert!(
        close(a.expected_rolls, 35.834938413695426, 1e-13),
        "{}",
        a.expected_rolls
    );
    assert!(close(a.expected_rolls, 35.834938413695473, 1e-14));
    for (cell, e) in [
        (6, 35.68926185736878),
        (24, 30.904068052573443),
        (38, 31.609058489915995),
        (73, 17.598534708379127),
        (84, 18.653568236059275),
        (91, 11.487485009430126),
        (1, 36.475739629258975),
    ] {
        assert!(
            close(a.expected_rolls_by_cell[cell], e, 1e-13),
            "cell {cell}: {}",
            a.expected_rolls_by_cell[cell]
        );
    }
    assert_eq!(a.expected_rolls_by_cell[99], 1.0);
    assert_eq!(a.expected_rolls_by_cell[100], 0.0);
    assert!(
        a.solve.residual < 1e-12 && a.solve.error_bound < 1e-12,
        "{:?}",
        a.solve.residual
    );
    assert!(close(a.std_dev, 23.353802687908807, 1e-12), "{}", a.std_dev);
}

#[test]
fn classic_clamp_distribution() {
    let a = Board::classic().analyze(&AnalysisOptions::default()).unwrap();
    let expect = [
        (20, 0.2748926611928901),
        (40, 0.6925393455227666),
        (60, 0.8719776287731967),
        (80, 0.9466968134282799),
    ];
    for ((k, p), (ek, ep)) in a.finished_by.iter().zip(expect) {
        assert_eq!(*k, ek);
        let p = p.unwrap();
        assert!(close(p, ep, 1e-13), "turn {k}: {p}");
    }
    assert_eq!(a.median, Some(29));
    assert_eq!(a.min_rolls, 7);
    assert!(a.time.converged && a.time.tail < 1e-12);
    // The distribution's mean and variance agree with the linear solves.
    let mean = a.time.truncated_mean();
    assert!(close(mean, a.expected_rolls, 1e-10), "{mean}");
    let m2: f64 = a
        .time
        .pmf
        .iter()
        .enumerate()
        .map(|(t, p)| (t * t) as f64 * p)
        .sum();
    assert!(close(m2 - mean * mean, a.variance, 1e-9));
    assert!(a.mode.unwrap() < 29);
    // Quantiles are monotone and bracket the median.
    let q: Vec<u64> = a.quantiles.iter().map(|(_, q)| q.value().unwrap()).collect();
    assert!(q[0] < q[1] && q[1] == 29 && q[1] < q[2], "{q:?}");
}

// Published: Althoen, King & Schilling, "How long is a game of Snakes and Ladders?", Math. Gazette
// 77 (478), 1993: 225837582538403273407117496273279920181931269186581786048583 /
// 5757472998140039232950575874628786131130999406013041613400 ≈ 39.225122308234960.
#[test]
fn classic_stay_published_value() {
    let a = board(Rule::Stay, 0).analyze(&AnalysisOptions::default()).unwrap();
    assert!(
        close(a.expected_rolls, 39.225122308234960, 1e-13),
        "{}",
        a.expected_rolls
    );
}

// Empty board, rule stay: IBM Research "Ponder This", February 2020 (published): ≈ 33.333333333333371
// from cell 0 (not 100/3, exactly); from cell 1 (LightOJ 1151's convention) 33.0476190476.
#[test]
fn empty_board_stay() {
    let mut s = BoardSpec::empty(100);
    s.rule = Rule::Stay;
    let a = Board::new(&s)
        .unwrap()
        .analyze(&AnalysisOptions::default())
        .unwrap();
    assert!(
        close(a.expected_rolls, 33.333333333333371, 1e-13),
        "{}",
        a.expected_rolls
    );
    // In f64 the die's 1/6 is rounded (fl(1/6) < 1/6), which moves the answer by ~3e-14: the
    // floating-point solve cannot tell this value from 100/3; the exact solve can.
    s.start = 1;
    let a = Board::new(&s)
        .unwrap()
        .analyze(&AnalysisOptions::default())
        .unwrap();
    assert!(
        (a.expected_rolls - 33.0476190476).abs() < 5e-11,
        "{}",
        a.expected_rolls
    );
}

// Monte Carlo agrees with the exact mean within 4 standard errors, and its spread with the exact
// standard deviation, for every rule.
#[test]
fn monte_carlo_agrees_with_exact() {
    for rule in [Rule::Clamp, Rule::Stay, Rule::Bounce] {
        let b = board(rule, 0);
        let a = b.analyze(&AnalysisOptions::default()).unwrap();
        let opts = MonteCarloOptions {
            games: 200_000,
            seed: 42,
            ..Default::default()
        };
        let mc = b.simulate(&opts, None).unwrap();
        let z = mc.z_score(a.expected_rolls);
        assert!(z.abs() < 4.0, "{rule}: z = {z}, {mc:?} vs {}", a.expected_rolls);
        assert!(
            close(mc.std_dev, a.std_dev, 0.02),
            "{rule}: {} vs {}",
            mc.std_dev,
            a.std_dev
        );
        assert_eq!(mc.min, a.min_rolls);
        assert_eq!(a.time.min(), Some(a.min_rolls));
    }
}

#[test]
fn weighted_die_matches_monte_carlo() {
    let mut s = BoardSpec::classic();
    s.die = kolmo::games::snakes::Die::Weighted(vec![1.0, 0.0, 2.0, 1.0, 1.0, 3.0]);
    s.rule = Rule::Bounce;
    let b = Board::new(&s).unwrap();
    let a = b.analyze(&AnalysisOptions::default()).unwrap();
    let mc = b
        .simulate(
            &MonteCarloOptions {
                games: 200_000,
                seed: 9,
                ..Default::default()
            },
            None,
        )
        .unwrap();
    assert!(
        mc.z_score(a.expected_rolls).abs() < 4.0,
        "{mc:?} vs {}",
        a.expected_rolls
    );
}

/// The board with an extra state for each portal taken, so that expected uses are expected visits
/// to those states: a second, independent route to portal usage.
struct Marked<'a>(&'a Board);
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Mark {
    Stand(u32),
    Taking(u32),
}
impl Generator for Marked<'_> {
    type State = Mark;
    fn initial_states(&self) -> Vec<Mark> {
        let s = self.0.start();
        vec![if self.0.jump()[s as usize] != s {
            Mark::Taking(s)
        } else {
            Mark::Stand(s)
        }]
    }
    fn expand(&self, m: &Mark, out: &mut Successors<Mark>) {
        match *m {
            Mark::Taking(u) => out.add(Mark::Stand(self.0.jump()[u as usize]), 1.0),
            Mark::Stand(c) if c == self.0.size() => out.add(Mark::Stand(c), 1.0),
            Mark::Stand(c) => {
                for (d, &p) in self.0.face_probabilities().iter().enumerate() {
                    let next = match self.0.landing(c, d as u32 + 1) {
                        Some(u) if self.0.jump()[u as usize] != u => Mark::Taking(u),
                        Some(u) => Mark::Stand(u),
                        None => Mark::Stand(c),
                    };
                    out.add(next, p);
                }
            }
        }
    }
}

#[test]
fn portal_usage_matches_marked_chain() {
    for rule in [Rule::Clamp, Rule::Stay, Rule::Bounce] {
        let b = board(rule, 0);
        let a = b.analyze(&AnalysisOptions::default()).unwrap();
        let e = explore(&Marked(&b), ExploreOptions::default()).unwrap();
        let goal = e.states.iter().position(|m| *m == Mark::Stand(100)).unwrap() as u32;
        let states = e.states.clone();
        let d = e.into_dtmc().unwrap();
        let chain = AbsorbingChain::new(&d, &StateSet::from_states(d.n(), [goal])).unwrap();
        let v = chain.expected_visits(0).unwrap();
        for u in &a.portal_usage {
            let id = states.iter().position(|m| *m == Mark::Taking(u.portal.from));
            let expect = id.map_or(0.0, |i| v.visits[i]);
            assert!(
                close(u.expected_uses, expect, 1e-12),
                "{rule} {:?}: {} vs {expect}",
                u.portal,
                u.expected_uses
            );
        }
        // Extra check: the marked chain's expected steps count portal moves too.
        let t = chain.absorption_time().mean[0];
        let uses: f64 = a.portal_usage.iter().map(|u| u.expected_uses).sum();
        assert!(close(t, a.expected_rolls + uses, 1e-12));
    }
    // The ladder 1 -> 38 can only be taken by rolling 1 from the start (no snake leads below 6).
    let a = Board::classic().analyze(&AnalysisOptions::default()).unwrap();
    let l1 = a.portal_usage.iter().find(|u| u.portal.from == 1).unwrap();
    assert!(close(l1.expected_uses, 1.0 / 6.0, 1e-15) && l1.portal.kind == PortalKind::Ladder);
}

/// Two players on the joint chain (position of seat 1, position of seat 2, whose turn).
struct Joint<'a>(&'a Board);
impl Generator for Joint<'_> {
    type State = (u32, u32, u8);
    fn initial_states(&self) -> Vec<(u32, u32, u8)> {
        let i = self.0.initial_cell();
        vec![(i, i, 0)]
    }
    fn expand(&self, &(a, b, turn): &(u32, u32, u8), out: &mut Successors<(u32, u32, u8)>) {
        let n = self.0.size();
        if a == n || b == n {
            out.add((a, b, turn), 1.0);
            return;
        }
        for (d, &p) in self.0.face_probabilities().iter().enumerate() {
            let d = d as u32 + 1;
            if turn == 0 {
                out.add((self.0.step(a, d), b, 1), p);
            } else {
                out.add((a, self.0.step(b, d), 0), p);
            }
        }
    }
}

/// A 30-cell board small enough for the joint chain of two players (about 1,900 states).
fn small_board(rule: Rule) -> Board {
    let mut s = BoardSpec::empty(30);
    s.rule = rule;
    s.portals = vec![
        (PortalKind::Ladder, 2, 17, None),
        (PortalKind::Ladder, 11, 25, None),
        (PortalKind::Snake, 19, 4, None),
        (PortalKind::Snake, 28, 9, None),
    ];
    Board::new(&s).unwrap()
}

#[test]
fn two_players_match_the_joint_chain() {
    for rule in [Rule::Clamp, Rule::Stay, Rule::Bounce] {
        let b = small_board(rule);
        let a = b
            .analyze(&AnalysisOptions {
                players: 2,
                ..Default::default()
            })
            .unwrap();
        let race = a.race.unwrap();
        let e = explore(&Joint(&b), ExploreOptions::default()).unwrap();
        let n = e.states.len();
        let won1 = StateSet::from_states(
            n,
            e.states
                .iter()
                .enumerate()
                .filter(|(_, s)| s.0 == 30)
                .map(|(i, _)| i as u32),
        );
        let over = StateSet::from_states(
            n,
            e.states
                .iter()
                .enumerate()
                .filter(|(_, s)| s.0 == 30 || s.1 == 30)
                .map(|(i, _)| i as u32),
        );
        let d = e.into_dtmc().unwrap();
        let p1 = kolmo::analysis::reach_probability(&d, &won1).unwrap();
        assert!(
            close(race.win_probability[0], p1.values[0], 1e-11),
            "{rule}: {} vs {}",
            race.win_probability[0],
            p1.values[0]
        );
        assert!(close(
            race.win_probability[0] + race.win_probability[1],
            1.0,
            1e-11
        ));
        // Expected total rolls = expected steps of the joint chain to game over.
        let t = AbsorbingChain::new(&d, &over).unwrap().absorption_time();
        assert!(
            close(race.expected_total_rolls, t.mean[0], 1e-10),
            "{} vs {}",
            race.expected_total_rolls,
            t.mean[0]
        );
        assert!(race.win_probability[0] > 0.5);
    }
}

#[test]
fn trapped_board_is_reported_not_solved() {
    // Faces 1-2 on 10 cells, rule stay: from 7 every roll hits a snake back to 0, so 10 is never reached.
    let mut s = BoardSpec::empty(10);
    s.die = kolmo::games::snakes::Die::Fair(2);
    s.rule = Rule::Stay;
    s.portals = vec![(PortalKind::Snake, 8, 0, None), (PortalKind::Snake, 9, 0, None)];
    let b = Board::new(&s).unwrap();
    let e = b.analyze(&AnalysisOptions::default()).unwrap_err();
    match InputError::of(&e) {
        Some(InputError::Board {
            error: BoardError::Trapped { cells, size: 10 },
            ..
        }) => {
            assert_eq!(cells, &(0..=7).collect::<Vec<_>>());
        }
        _ => panic!("{e}"),
    }
    // The library gives +∞ per cell rather than failing; from 9 (a 1 finishes, a 2 is wasted)
    // the game ends surely, after 2 rolls on average.
    let t = b.expected_rolls().unwrap();
    assert!(t.mean[..9].iter().all(|x| x.is_infinite()));
    assert_eq!(t.infinite, (0..=8).collect::<Vec<_>>());
    assert!(close(t.mean[9], 2.0, 1e-15));
    assert_eq!(t.mean[10], 0.0);
    assert!(b.simulate(&MonteCarloOptions::default(), None).is_err());
}

// A board that can trap the token is analysed, not refused (issue 15 §5). Faces 1-2, rule stay:
// snakes 7 -> 5 and 8 -> 5 close {5, 6} (every roll from there lands on 6 or a snake to 5), and
// the ladder 3 -> 9 is the only way past them. By hand: h(9) = 1, h(4) = 0,
// h(2) = (h(9) + h(4))/2 = 1/2, h(1) = (h(2) + h(9))/2 = 3/4, h(0) = (h(1) + h(2))/2 = 5/8; the
// shortest game is 0 -1-> 1 -2-> 3 => 9 -1-> 10, three rolls.
#[test]
fn trapped_board_is_analysed() {
    let mut s = BoardSpec::empty(10);
    s.die = kolmo::games::snakes::Die::Fair(2);
    s.rule = Rule::Stay;
    s.portals = vec![
        (PortalKind::Snake, 7, 5, None),
        (PortalKind::Snake, 8, 5, None),
        (PortalKind::Ladder, 3, 9, None),
    ];
    let b = Board::new(&s).unwrap();
    let turns: Vec<u64> = (0..=12).collect();
    let t = b.trapped_analysis(&turns, u64::MAX).unwrap();
    assert_eq!(t.trapped, vec![0, 1, 2, 4, 5, 6]);
    assert_eq!(t.never_finish, vec![4, 5, 6]);
    assert_eq!(t.min_rolls, Some(3));
    let x = b.trapped_analysis_exact(&turns).unwrap();
    assert_eq!(x.finish_probability, kolmo::exact::parse_exact("5/8").unwrap());
    for (c, want) in [(0, "5/8"), (1, "3/4"), (2, "1/2"), (4, "0"), (9, "1")] {
        assert_eq!(
            x.finish_probability_by_cell[c],
            kolmo::exact::parse_exact(want).unwrap(),
            "cell {c}"
        );
    }
    for (p, q) in t
        .finish_probability_by_cell
        .iter()
        .zip(&x.finish_probability_by_cell)
    {
        assert!(
            (p - q.to_f64().value()).abs() <= t.finish_error_bound,
            "{p} vs {q}"
        );
    }
    // Expected rolls: +∞ wherever the game may not end; from 9 a geometric wait of mean 2.
    for &c in &t.trapped {
        assert!(t.expected_rolls_by_cell[c as usize].is_infinite());
    }
    assert!(close(t.expected_rolls_by_cell[9], 2.0, 1e-15));
    // P(finished within k) by enumerating all 2^k sequences of rolls (each of probability 2^-k).
    for &(k, p) in &t.finished_by {
        let mut ended = 0u64;
        for seq in 0..1u64 << k {
            let mut c = b.initial_cell();
            for r in 0..k {
                if c == 10 {
                    break;
                }
                c = b.step(c, (seq >> r & 1) as u32 + 1);
            }
            ended += u64::from(c == 10);
        }
        assert!(close(p, ended as f64 / (1u64 << k) as f64, 1e-15), "k = {k}: {p}");
    }
    for ((k, p), (kx, x)) in t.finished_by.iter().zip(&x.finished_by) {
        assert_eq!(k, kx);
        assert!(close(*p, x.to_f64().value(), 1e-15), "k = {k}: {p} vs {x}");
    }
    // On a board that cannot trap the token the same analysis says so.
    let sound = Board::classic().trapped_analysis(&[], 0).unwrap();
    assert!(sound.trapped.is_empty() && sound.never_finish.is_empty());
    assert_eq!(sound.finish_probability, 1.0);
    assert_eq!(sound.min_rolls, Some(7));
}

#[test]
fn start_portal_is_taken_before_the_first_roll() {
    // Starting on cell 1 (ladder to 38) is the same as standing on 38.
    let a = board(Rule::Clamp, 1)
        .analyze(&AnalysisOptions::default())
        .unwrap();
    assert!(close(a.expected_rolls, 31.609058489915995, 1e-13));
    let l1 = a.portal_usage.iter().find(|u| u.portal.from == 1).unwrap();
    assert!(l1.expected_uses >= 1.0);
    // Starting on the last cell: a game of no rolls.
    let a = board(Rule::Clamp, 100)
        .analyze(&AnalysisOptions::default())
        .unwrap();
    assert_eq!((a.expected_rolls, a.median, a.min_rolls), (0.0, Some(0), 0));
}

#[test]
fn fundamental_matrix_row_is_the_visits() {
    let a = Board::classic()
        .analyze(&AnalysisOptions {
            fundamental: true,
            distribution_at: vec![3],
            ..Default::default()
        })
        .unwrap();
    let n = a.fundamental.as_ref().unwrap();
    let row = n.states.iter().position(|&s| s == 0).unwrap();
    for (j, &s) in n.states.iter().enumerate() {
        assert!(close(n.get(row, j), a.visits[s as usize], 1e-12));
    }
    assert!(n.residual < 1e-12);
    // Row sums of N are the expected rolls.
    let k = n.states.len();
    for (i, &s) in n.states.iter().enumerate() {
        let sum: f64 = (0..k).map(|j| n.get(i, j)).sum();
        assert!(close(sum, a.expected_rolls_by_cell[s as usize], 1e-12));
    }
    // After 3 rolls from 0 the token is somewhere: a distribution summing to 1.
    let (k, d) = &a.distributions[0];
    assert_eq!(*k, 3);
    assert!(close(d.iter().sum(), 1.0, 1e-15));
    assert_eq!(d[100], 0.0); // 3 rolls cannot finish the classic board (minimum 7)
}

// Direct dense LU on I − Q versus the automatic method (triangular solve + Woodbury correction on
// boards), for every rule: two independent solvers, one answer.
#[test]
fn dense_lu_agrees_with_the_automatic_solver() {
    use kolmo::linsolve::{DenseLu, Factored};
    for rule in [Rule::Clamp, Rule::Stay, Rule::Bounce] {
        let b = board(rule, 0);
        let auto = b.expected_rolls().unwrap();
        assert!(auto.method.to_string().contains("Woodbury"), "{}", auto.method);
        let d = b.dtmc().unwrap();
        let n = 100; // cells 0..99 are transient, 100 is the goal
        let lu = DenseLu::new(n, "test", |mut a| {
            for i in 0..n {
                a[(i, i)] += 1.0;
                let (cols, vals) = d.matrix().row(i);
                for (&j, &p) in cols.iter().zip(vals) {
                    if (j as usize) < n {
                        a[(i, j as usize)] -= p;
                    }
                }
            }
        })
        .unwrap();
        let mut t = vec![1.0; n];
        lu.solve_in_place(&mut t);
        for (c, (x, y)) in t.iter().zip(&auto.mean).enumerate() {
            assert!(close(*x, *y, 1e-12), "{rule} cell {c}: {x} vs {y}");
        }
        // The generic chooser picks dense LU for a chain that jumps backwards everywhere.
        let f = Factored::new(3, "test", |i| {
            [(0u32, 1.0), (1, -0.25), (2, -0.25)]
                .into_iter()
                .map(move |(j, v)| (j, if j as usize == i { 1.0 } else { v }))
        })
        .unwrap();
        assert!(f.method().starts_with("dense LU"));
    }
}

// On a long board the probability of the fastest game underflows: the minimum comes from the
// graph (ceil(100000 / 6) = 16667 rolls), and a distribution stopped by the work limit says so
// instead of inventing a median or mode.
#[test]
fn long_board_minimum_and_work_limit() {
    let b = Board::new(&BoardSpec::empty(100_000)).unwrap();
    let a = b
        .analyze(&AnalysisOptions {
            max_work: 50_000_000,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(a.min_rolls, 16_667);
    assert!(!a.time.converged);
    assert_eq!((a.median, a.mode), (None, None));
    assert_eq!(a.finished_by[0], (20, Some(0.0)));
    // The mean (about N / 3.5) is cross-checked by simulation.
    let mc = b
        .simulate(
            &MonteCarloOptions {
                games: 2_000,
                seed: 5,
                ..Default::default()
            },
            None,
        )
        .unwrap();
    assert!(mc.z_score(a.expected_rolls).abs() < 4.0);
    // The bound covers the die's rounding over 10⁵ cells (about 2·10⁵·13u ≈ 3e-10).
    assert!(a.solve.error_bound < 1e-9, "{}", a.solve.error_bound);
}

fn fraction(s: &str) -> kolmo::exact::Rational {
    let (p, q) = s.split_once('/').unwrap();
    let p: kolmo::exact::Rational = p.parse::<dashu_int::IBig>().unwrap().into();
    let q: kolmo::exact::Rational = q.parse::<dashu_int::IBig>().unwrap().into();
    p / q
}

// Exact fractions (shared/cases/01-snakes.md): classic with stay — published by Althoen, King &
// Schilling, Math. Gazette 77 (478), 1993; the empty board with stay — published in IBM Research
// "Ponder This", February 2020 (not 100/3); classic with clamp — derived (exact rationals, checked
// with Python fractions, shared/CRATES.md §2).
#[test]
fn exact_published_fractions() {
    let stay = board(Rule::Stay, 0)
        .analyze_exact(&AnalysisOptions::default())
        .unwrap();
    assert_eq!(
        stay.expected_rolls,
        fraction(
            "225837582538403273407117496273279920181931269186581786048583/5757472998140039232950575874628786131130999406013041613400"
        )
    );
    let mut s = BoardSpec::empty(100);
    s.rule = Rule::Stay;
    let empty = Board::new(&s)
        .unwrap()
        .analyze_exact(&AnalysisOptions::default())
        .unwrap();
    let published = fraction(
        "77793808048991155069512637767746406705805011749411165293240199952210986407/2333814241469732031952625840042216151324387397379954245052697639351484416",
    );
    assert_eq!(empty.expected_rolls, published);
    assert_ne!(empty.expected_rolls, fraction("100/3"));
    let clamp = Board::classic()
        .analyze_exact(&AnalysisOptions::default())
        .unwrap();
    assert_eq!(
        clamp.expected_rolls,
        fraction(
            "4361400801820161912013501213519255131056164928398701086804837/121708059086640218022342717662999608982893324374042509741160"
        )
    );
    assert_eq!(clamp.expected_rolls_by_cell[99], Some(fraction("1/1")));
}

// Exact and f64 agree to 1e-12 on every rule, with a weighted die and a start portal too.
#[test]
fn exact_agrees_with_f64() {
    let mut weighted = BoardSpec::classic();
    weighted.die = kolmo::games::snakes::Die::Weighted(vec![1.0, 0.0, 2.0, 1.0, 1.0, 3.0]);
    weighted.rule = Rule::Bounce;
    let boards = [
        board(Rule::Clamp, 0),
        board(Rule::Stay, 1),
        board(Rule::Bounce, 0),
        Board::new(&weighted).unwrap(),
        small_board(Rule::Stay),
    ];
    for b in boards {
        let opts = AnalysisOptions {
            distribution_at: vec![5],
            ..Default::default()
        };
        let f = b.analyze(&opts).unwrap();
        let x = b.analyze_exact(&opts).unwrap();
        for (c, (e, a)) in x
            .expected_rolls_by_cell
            .iter()
            .zip(&f.expected_rolls_by_cell)
            .enumerate()
        {
            let e = e.as_ref().unwrap().to_f64().value();
            assert!(close(e, *a, 1e-12), "{} cell {c}: {e} vs {a}", b.rule());
        }
        assert!(close(x.variance.to_f64().value(), f.variance, 1e-12));
        for ((k, p), (_, q)) in x.finished_by.iter().zip(&f.finished_by) {
            assert!((p.to_f64().value() - q.unwrap()).abs() < 1e-12, "turn {k}");
        }
        for (p, q) in x.distributions[0].1.iter().zip(&f.distributions[0].1) {
            assert!((p.to_f64().value() - q).abs() < 1e-14);
        }
    }
}

#[test]
fn exact_refuses_large_boards() {
    let b = Board::new(&BoardSpec::empty(20_000)).unwrap();
    let e = b.analyze_exact(&AnalysisOptions::default()).unwrap_err();
    assert!(matches!(e, Error::TooLarge { .. }), "{e}");
}

// Who wins, two independent routes: the exact joint chain (positions, turn) in rationals versus
// the f64 race built from one player's game-length distribution.
#[test]
fn exact_race_matches_the_distribution_race() {
    // Small boards: the joint chain has (size + 1)^players · players states.
    for (rule, players, size) in [
        (Rule::Clamp, 2, 12),
        (Rule::Stay, 2, 12),
        (Rule::Bounce, 2, 12),
        (Rule::Clamp, 3, 6),
    ] {
        let mut s = BoardSpec::empty(size);
        s.rule = rule;
        s.portals = vec![
            (PortalKind::Ladder, 2, 4, None),
            (PortalKind::Snake, size - 1, 1, None),
        ];
        let b = Board::new(&s).unwrap();
        let exact = b.race_exact(players).unwrap();
        let f = b
            .analyze(&AnalysisOptions {
                players,
                ..Default::default()
            })
            .unwrap()
            .race
            .unwrap();
        let total = exact.win_probability.iter().fold(fraction("0/1"), |a, p| a + p);
        assert_eq!(total, fraction("1/1"));
        for (x, y) in exact.win_probability.iter().zip(&f.win_probability) {
            assert!((x.to_f64().value() - y).abs() < 1e-12, "{rule}: {x} vs {y}");
        }
        assert!(close(
            exact.expected_total_rolls.to_f64().value(),
            f.expected_total_rolls,
            1e-11
        ));
        assert!(close(
            exact.expected_rounds.to_f64().value(),
            f.expected_rounds,
            1e-11
        ));
    }
    let e = Board::classic().race_exact(2).unwrap_err();
    assert!(matches!(e, Error::TooLarge { .. }), "{e}");
}

// From 100,000 cells the expected rolls are solved matrix-free, and the chain for the expected
// visits skips its graph analysis (the board's operator has shown that every cell finishes): the
// visits and portal uses are those of the chain analysed in full.
#[test]
fn large_boards_visit_as_the_full_chain_does() {
    use kolmo::analysis::AbsorbingChain;
    use kolmo::model::StateSet;
    let spec = BoardSpec::empty(100_000).with_random_portals(2_000, 9).unwrap();
    let b = Board::new(&spec).unwrap();
    let a = b
        .analyze(&AnalysisOptions {
            max_work: 1_000_000,
            ..Default::default()
        })
        .unwrap();
    assert!(
        a.solve.method.to_string().contains("matrix-free"),
        "{}",
        a.solve.method
    );
    let d = b.dtmc().unwrap();
    let full = AbsorbingChain::new(&d, &StateSet::from_states(d.n(), [b.size()])).unwrap();
    let v = full.expected_visits(b.initial_cell()).unwrap();
    assert_eq!(a.visits, v.visits);
    assert_eq!(a.visits_residual, v.residual);
    let landed: f64 = a.portal_usage.iter().map(|u| u.expected_uses).sum();
    assert!(landed > 0.0 && a.visits_residual < 1e-9);
}

/// Level 1 is the longest game, by graph search (issue 15 §3): 100 rolls on the empty board of
/// 100 cells with rule clamp (a 1 every roll; the computed cdf rounds to 1 after 57), unbounded
/// where the token can come back (rule stay, or snakes); and no level near 1 is guessed from a
/// cdf that has rounded to 1: each is decided or reported beyond the horizon.
#[test]
fn the_quantile_of_level_1_is_the_longest_game() {
    use kolmo::analysis::Quantile;
    let levels = |spec: BoardSpec, qs: Vec<f64>| {
        let options = AnalysisOptions {
            quantiles: qs,
            ..AnalysisOptions::default()
        };
        Board::new(&spec).unwrap().analyze(&options).unwrap().quantiles
    };
    let empty = BoardSpec::empty(100);
    assert_eq!(empty.rule, Rule::Clamp);
    let q = levels(empty.clone(), vec![1.0, 1.0 - 1e-17]);
    assert_eq!(q[0], (1.0, Quantile::At(100)));
    // 1 − 1e-17 rounds to 1 in f64: the same level.
    assert_eq!(q[1].1, Quantile::At(100));
    let mut stay = empty.clone();
    stay.rule = Rule::Stay;
    assert_eq!(levels(stay, vec![1.0])[0].1, Quantile::Unbounded);
    assert_eq!(
        levels(BoardSpec::builtin("classic").unwrap(), vec![1.0])[0].1,
        Quantile::Unbounded
    );
    // Levels near 1 are decided on the survival (the mass left, no cancellation), not on a cdf
    // rounded to 1: the least t with P(T > t) ≤ 1 − level.
    let options = AnalysisOptions {
        quantiles: vec![1.0 - 1e-15, 1.0 - 1e-13],
        ..AnalysisOptions::default()
    };
    let a = Board::new(&empty).unwrap().analyze(&options).unwrap();
    for (level, q) in &a.quantiles {
        let t = q.value().unwrap_or_else(|| panic!("{level}: {q:?}")) as usize;
        let s = &a.time.survival;
        assert!(
            s[t] <= 1.0 - level && s[t - 1] > 1.0 - level,
            "{level}: {t}, {} {}",
            s[t - 1],
            s[t]
        );
        assert!(t < 100, "{level}: {t}");
    }
}

// A distribution stopped by the work limit still decides the mode when the most likely roll so
// far outweighs everything unfinished (found by a helper): the ladder on the start cell 4 puts
// the token on 9, from where a 3 (probability 1000/1001) finishes at once, so the mode is 1,
// although a game that rolls a 1 may then last about 10⁶ rolls.
#[test]
fn a_stopped_distribution_decides_a_clear_mode() {
    let mut s = BoardSpec::empty(12);
    s.die = kolmo::games::snakes::Die::Weighted(vec![1.0, 0.0, 1000.0]);
    s.rule = Rule::Stay;
    s.start = 4;
    s.portals = vec![
        (PortalKind::Ladder, 2, 7, None),
        (PortalKind::Ladder, 4, 9, None),
        (PortalKind::Ladder, 7, 9, None),
        (PortalKind::Snake, 11, 7, None),
        (PortalKind::Snake, 5, 3, None),
    ];
    let b = Board::new(&s).unwrap();
    let a = b
        .analyze(&AnalysisOptions {
            max_work: 1_000_000,
            ..AnalysisOptions::default()
        })
        .unwrap();
    assert!(!a.time.converged);
    assert!(a.time.pmf[1] > 0.99 && a.time.pmf[1] > a.time.tail);
    assert_eq!(a.mode, Some(1));
}
