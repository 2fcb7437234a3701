//! The 3-card rock-paper-scissors game as a turn-based stochastic game.
//!
//! Alice and Bob each hold 3 cards (rock R, paper P, scissors S), visible to both. Each round
//! Alice plays a card; Bob, having seen it, answers with one of his; rock beats scissors, scissors
//! beat paper, paper beats rock; Alice scores 3 for a win, 1 for a draw, 0 for a loss. Both discard
//! the played card and draw a new one, R, P or S with probability 1/3 each. Alice maximises her
//! total, Bob minimises it. Hands are multisets: 10 hands each, 100 positions.
//!
//! As a game: an Alice state (her hand, his hand) whose choices lead surely to a Bob state (hands,
//! Alice's card), whose choices earn Alice's score and lead to the 9 redraws with probability 1/9.
//! One round is two steps.

use crate::explore::{ExploreOptions, Generator, Successors, explore};
use crate::game::{FiniteHorizon, LongRun, LongRunOptions, finite_horizon, long_run};
use crate::model::{Game, Player};
use crate::{Error, Result};
use std::fmt;

/// A card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Card {
    /// Rock: beats scissors.
    Rock,
    /// Paper: beats rock.
    Paper,
    /// Scissors: beat paper.
    Scissors,
}

impl Card {
    /// All cards, in the order R, P, S.
    pub const ALL: [Card; 3] = [Card::Rock, Card::Paper, Card::Scissors];

    /// Alice's score when she plays `self` against `other`: 3 win, 1 draw, 0 loss.
    #[must_use]
    pub fn score(self, other: Card) -> f64 {
        use Card::*;
        match (self, other) {
            (a, b) if a == b => 1.0,
            (Rock, Scissors) | (Scissors, Paper) | (Paper, Rock) => 3.0,
            _ => 0.0,
        }
    }

    /// The card's letter, R, P or S.
    #[must_use]
    pub fn letter(self) -> char {
        match self {
            Card::Rock => 'R',
            Card::Paper => 'P',
            Card::Scissors => 'S',
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A hand of 3 cards as counts of R, P, S (a multiset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hand([u8; 3]);

impl Hand {
    /// The 10 hands, in a fixed order.
    #[must_use]
    pub fn all() -> Vec<Hand> {
        let mut out = Vec::with_capacity(10);
        for r in 0..=3u8 {
            for p in 0..=3 - r {
                out.push(Hand([r, p, 3 - r - p]));
            }
        }
        out
    }

    /// Parses three letters from R, P, S in any order (case-insensitive), e.g. "RSP" or "rsp".
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the hand otherwise.
    pub fn parse(text: &str) -> Result<Hand> {
        let mut counts = [0u8; 3];
        let mut n = 0;
        for ch in text.chars() {
            let card = match ch.to_ascii_uppercase() {
                'R' => Card::Rock,
                'P' => Card::Paper,
                'S' => Card::Scissors,
                _ => {
                    return Err(Error::arg(
                        "hand",
                        format!(
                            "'{}': cards are R, P or S, not '{}'",
                            crate::excerpt(text),
                            ch.escape_debug()
                        ),
                    ));
                }
            };
            n += 1;
            if n > 3 {
                break;
            }
            counts[card.index()] += 1;
        }
        if n != 3 {
            let count = text.chars().count();
            return Err(Error::arg(
                "hand",
                format!("'{}': a hand has 3 cards, not {count}", crate::excerpt(text)),
            ));
        }
        Ok(Hand(counts))
    }

    /// The distinct cards in the hand.
    pub fn cards(self) -> impl Iterator<Item = Card> {
        Card::ALL.into_iter().filter(move |c| self.0[c.index()] > 0)
    }

    /// The hand after playing `out` and drawing `new`.
    ///
    /// # Panics
    /// - panics if `out` is not in the hand.
    #[must_use]
    #[track_caller]
    pub fn replace(self, out: Card, new: Card) -> Hand {
        let mut c = self.0;
        assert!(c[out.index()] > 0, "the card is not in the hand");
        c[out.index()] -= 1;
        c[new.index()] += 1;
        Hand(c)
    }
}

impl fmt::Display for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for card in Card::ALL {
            for _ in 0..self.0[card.index()] {
                write!(f, "{}", card.letter())?;
            }
        }
        Ok(())
    }
}

/// A position of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// Alice to play.
    Alice(Hand, Hand),
    /// Bob to answer Alice's card.
    Bob(Hand, Hand, Card),
}

/// The game's successor function.
#[derive(Clone, Copy, Debug, Default)]
pub struct CardRules;

impl Generator for CardRules {
    type State = Position;

    fn initial_states(&self) -> Vec<Position> {
        let hands = Hand::all();
        hands
            .iter()
            .flat_map(|&a| hands.iter().map(move |&b| Position::Alice(a, b)))
            .collect()
    }

    fn expand(&self, state: &Position, out: &mut Successors<Position>) {
        match *state {
            Position::Alice(a, b) => {
                for card in a.cards() {
                    out.choice();
                    out.add(Position::Bob(a, b, card), 1.0);
                }
            }
            Position::Bob(a, b, played) => {
                for answer in b.cards() {
                    out.choice_with_reward(played.score(answer));
                    for x in Card::ALL {
                        for y in Card::ALL {
                            out.add(
                                Position::Alice(a.replace(played, x), b.replace(answer, y)),
                                1.0 / 9.0,
                            );
                        }
                    }
                }
            }
        }
    }

    fn owner(&self, state: &Position) -> Player {
        match state {
            Position::Alice(..) => Player::Max,
            Position::Bob(..) => Player::Min,
        }
    }
}

/// The card game built once, answering any number of questions.
#[derive(Clone, Debug)]
pub struct CardGame {
    game: Game,
    positions: Vec<Position>,
}

impl CardGame {
    /// Explores the game: 100 Alice positions (ids 0..100, in [`Hand::all`] order, Alice's hand
    /// major) and 180 Bob positions (one per distinct card Alice can play).
    ///
    /// # Errors
    /// None in practice (model construction).
    pub fn new() -> Result<Self> {
        let explored = explore(&CardRules, ExploreOptions::default())?;
        let positions = explored.states.clone();
        Ok(Self {
            game: explored.into_game()?,
            positions,
        })
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The position with id `s`.
    ///
    /// # Panics
    /// - panics if `s` is not a state.
    #[must_use]
    #[track_caller]
    pub fn position(&self, s: usize) -> Position {
        self.positions[s]
    }

    /// The id of Alice's position (her hand, his hand).
    #[must_use]
    pub fn alice_state(&self, alice: Hand, bob: Hand) -> usize {
        let hands = Hand::all();
        let i = hands.iter().position(|&h| h == alice).expect("a valid hand");
        let j = hands.iter().position(|&h| h == bob).expect("a valid hand");
        i * hands.len() + j
    }

    /// The id of Bob's position (her hand, his hand, the card she played).
    ///
    /// # Panics
    /// - panics if `played` is not in Alice's hand.
    #[must_use]
    #[track_caller]
    pub fn bob_state(&self, alice: Hand, bob: Hand, played: Card) -> usize {
        self.positions
            .iter()
            .position(|&p| p == Position::Bob(alice, bob, played))
            .expect("the card is in Alice's hand")
    }

    /// Alice's optimal expected total over `rounds` rounds from every position, by backward
    /// induction over `2 · rounds` steps.
    ///
    /// # Errors
    /// As [`finite_horizon`] (a stop request).
    pub fn finite(&self, rounds: u64) -> Result<FiniteHorizon> {
        finite_horizon(&self.game, 2 * rounds)
    }

    /// The long-run gain per round, bracketed by value iteration over rounds.
    ///
    /// # Errors
    /// As [`long_run`].
    pub fn long_run(&self) -> Result<LongRun> {
        long_run(
            &self.game,
            &LongRunOptions {
                period: 2,
                ..LongRunOptions::default()
            },
        )
    }
}

/// Everything about the game for any number of rounds: finite values up to the stage where
/// value iteration has converged, and beyond it the gain.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CardSolution {
    /// `table[t][i]`: Alice's optimal expected total over `t` rounds from Alice position `i`
    /// (ids `0..100`), for `t = 0..=K`.
    pub table: Vec<Vec<f64>>,
    /// The long-run analysis (per round): gain bracket, stages `K`, `V_K`.
    pub long_run: LongRun,
    /// Bias per Alice position: `h(i) = V_K(i) − K·ρ`, so `V_k ≈ k·ρ + h` for `k ≥ K`.
    #[serde(serialize_with = "crate::account::ser::scalars")]
    pub bias: Vec<f64>,
    /// `‖T²(h) − h − ρ‖∞` over all positions (the optimality equations, per round).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub optimality_residual: f64,
    /// The stationary distribution of the chain induced by the optimal strategies (per step,
    /// over all 280 positions), with its period and whether it is irreducible.
    pub stationary: crate::analysis::stationary::Stationary,
    /// `2 · π · r`: the gain recomputed from the stationary distribution (per round).
    #[serde(serialize_with = "crate::account::ser::number")]
    pub gain_from_pi: f64,
    /// The period of the chain of Alice's positions from one round to the next under optimal
    /// play (the step chain alternates Alice and Bob, so its own period is 2).
    pub round_period: u64,
    /// Whether that round chain is irreducible.
    pub round_irreducible: bool,
}

impl CardSolution {
    /// The gain used for extrapolation: `π·r` of the optimal strategies (accurate to rounding)
    /// when it lies in value iteration's guaranteed bracket, else the bracket's midpoint.
    #[must_use]
    pub fn gain(&self) -> f64 {
        let lr = &self.long_run;
        if (lr.gain_lower..=lr.gain_upper).contains(&self.gain_from_pi) {
            self.gain_from_pi
        } else {
            lr.gain()
        }
    }

    /// The gain per round as an exact fraction, proved optimal: the chain of the long-run
    /// strategies solved in rationals and the mean-payoff optimality equation checked at every
    /// position ([`crate::game::long_run_exact`]), `ρ = 2 ·` the gain per move.
    ///
    /// # Errors
    /// As [`crate::game::long_run_exact`].
    pub fn gain_exact(&self, game: &CardGame) -> Result<crate::exact::Rational> {
        use crate::exact::Rational;
        let g = game.game();
        let mdp = crate::model::Mdp::new(g.matrix().clone(), g.initial().to_vec())?;
        let maximiser: Vec<bool> = g
            .owners()
            .iter()
            .map(|&o| o == crate::model::Player::Max)
            .collect();
        let rewards = crate::exact::rationalize_rewards(g.rewards())?;
        let per_move = crate::game::long_run_exact(&mdp, &maximiser, &rewards, &self.long_run.choices)?;
        Ok(per_move * Rational::from(2))
    }

    /// Alice's value over `rounds` rounds from Alice position `i`, and a guaranteed bound on its
    /// error beyond the table (0 within it, up to rounding): for `k > K`,
    /// `V_k ∈ V_K + (k − K)·[ρ_lo, ρ_hi]` because the round increments of a monotone, additively
    /// homogeneous (Shapley) operator stay within their last bracket.
    #[must_use]
    pub fn value(&self, rounds: u64, i: usize) -> (f64, f64) {
        let k_max = self.table.len() as u64 - 1;
        if rounds <= k_max {
            return (self.table[rounds as usize][i], 0.0);
        }
        let extra = (rounds - k_max) as f64;
        let rho = self.gain();
        let lr = &self.long_run;
        let spread = (rho - lr.gain_lower).max(lr.gain_upper - rho);
        (self.table[k_max as usize][i] + extra * rho, extra * spread)
    }
}

impl CardGame {
    /// Solves the game for every horizon: value iteration over rounds until the gain's bracket is
    /// below 1e-13, keeping the values of every stage; then the induced chain's stationary
    /// distribution, the gain `ρ = π·r` and the bias.
    ///
    /// # Errors
    /// As [`long_run`] and [`crate::analysis::stationary::stationary_distribution`].
    pub fn solve(&self) -> Result<CardSolution> {
        let game = &self.game;
        let n = game.n();
        let long_run = self.long_run()?;
        // The table of finite values, stage by stage (the same iteration as the long run).
        let mut table = vec![vec![0.0; 100]];
        let (mut v, mut next, mut ch) = (vec![0.0; n], vec![0.0; n], vec![0u32; n]);
        for _ in 0..long_run.stages {
            crate::interrupt::check()?;
            for _ in 0..2 {
                crate::game::bellman(game, &v, &mut next, &mut ch);
                std::mem::swap(&mut v, &mut next);
            }
            table.push(v[..100].to_vec());
        }
        let k = long_run.stages as f64;
        let rho = long_run.gain();
        let h: Vec<f64> = long_run.values.iter().map(|x| x - k * rho).collect();
        let (mut t1, mut t2) = (vec![0.0; n], vec![0.0; n]);
        crate::game::bellman(game, &h, &mut t1, &mut ch);
        crate::game::bellman(game, &t1, &mut t2, &mut ch);
        let optimality_residual = t2
            .iter()
            .zip(&h)
            .fold(0.0f64, |m, (a, b)| m.max((a - b - rho).abs()));
        // The chain induced by the last stage's choices.
        let rows = game.chosen_rows(&long_run.choices);
        let chain = game.matrix().select_rows(&rows);
        let reward: Vec<f64> = rows.iter().map(|&r| game.rewards()[r]).collect();
        let stationary = crate::analysis::stationary::stationary_distribution(&chain)?;
        let gain_from_pi = 2.0 * stationary.pi.iter().zip(&reward).map(|(p, r)| p * r).sum::<f64>();
        // The round chain: two steps of the induced chain, from Alice's positions to Alice's.
        let mut b = crate::sparse::CsrBuilder::new(100);
        for s in 0..100 {
            let (bob, _) = chain.row(s);
            let (cols, vals) = chain.row(bob[0] as usize);
            for (&t, &p) in cols.iter().zip(vals) {
                b.add(t, p);
            }
            b.finish_row();
        }
        let rounds = crate::analysis::stationary::stationary_distribution(&b.build())?;
        Ok(CardSolution {
            round_period: rounds.period,
            round_irreducible: rounds.irreducible,
            bias: h[..100].to_vec(),
            table,
            long_run,
            optimality_residual,
            stationary,
            gain_from_pi,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(g: &CardGame, k: u64, a: &str, b: &str) -> f64 {
        g.finite(k).unwrap().values[g.alice_state(Hand::parse(a).unwrap(), Hand::parse(b).unwrap())]
    }

    // shared/cases/02-rps-3card.md (derived by exact backward induction, cross-checked
    // independently).
    #[test]
    fn reference_values() {
        let g = CardGame::new().unwrap();
        assert_eq!(g.game().n(), 280);
        for (k, a, b, v) in [
            (1, "RRR", "PPP", 0.0),
            (1, "RRR", "SSS", 3.0),
            (1, "RPS", "RPS", 0.0),
            (2, "RPS", "RPS", 2.0 / 9.0),
            (2, "RRR", "RRR", 2.0),
            (3, "RRS", "PPS", 59.0 / 27.0),
            (5, "RPS", "RPS", 15280.0 / 6561.0),
            (3, "SRR", "SPP", 59.0 / 27.0),
        ] {
            let x = value(&g, k, a, b);
            assert!((x - v).abs() < 1e-13, "k = {k}, {a} vs {b}: {x} vs {v}");
        }
    }

    // Long-run gain ρ = 1247820247/1766559075 (shared/cases/02-rps-3card.md).
    #[test]
    fn long_run_gain() {
        let g = CardGame::new().unwrap();
        let lr = g.long_run().unwrap();
        let rho = 1247820247.0 / 1766559075.0;
        // The bracket covers the rounding of the iteration and of the model's probabilities
        // (about 2.5e-13 each way after 50 rounds), so the exact ρ is inside it as it stands.
        assert!(lr.gain_lower <= rho && rho <= lr.gain_upper, "{lr:?}");
        assert!(lr.gain_upper - lr.gain_lower <= 1e-12, "{lr:?}");
        assert!(lr.stages < 1000);
    }

    // Large horizons from the gain: k = 10⁹ within 1e-12 relative (shared/cases/02-rps-3card.md:
    // ρ = 1247820247/1766559075; V_k = kρ + C to within 1e-9 once k ≳ 100).
    #[test]
    fn solution_for_every_horizon() {
        let g = CardGame::new().unwrap();
        let sol = g.solve().unwrap();
        let rho = 1247820247.0 / 1766559075.0;
        assert!((sol.gain_from_pi - rho).abs() < 1e-13, "{}", sol.gain_from_pi);
        assert!((sol.gain() - rho).abs() < 1e-15);
        assert!(sol.optimality_residual < 1e-9, "{}", sol.optimality_residual);
        assert_eq!(sol.stationary.period, 2);
        assert_eq!((sol.round_period, sol.round_irreducible), (1, true));
        let i = g.alice_state(Hand::parse("RRS").unwrap(), Hand::parse("PPS").unwrap());
        assert!((sol.value(3, i).0 - 59.0 / 27.0).abs() < 1e-13);
        let (v, bound) = sol.value(1_000_000_000, i);
        assert!(bound / v < 1e-12, "{bound} / {v}");
        assert!((v - (1e9 * rho + sol.bias[i])).abs() < 1e-3);
        // Beyond the table the extrapolation agrees with plain backward induction.
        let k = sol.table.len() as u64 + 50;
        let direct = g.finite(k).unwrap().values[i];
        assert!((sol.value(k, i).0 - direct).abs() < 1e-9);
    }

    #[test]
    fn exact_values() {
        let g = CardGame::new().unwrap();
        let sol = g.solve().unwrap();
        let rho = sol.gain_exact(&g).unwrap();
        assert_eq!(rho.to_string(), "1247820247/1766559075");
        let v = crate::game::finite_horizon_exact(g.game(), 2 * 5).unwrap();
        let i = g.alice_state(Hand::parse("RPS").unwrap(), Hand::parse("RPS").unwrap());
        assert_eq!(v[i].to_string(), "15280/6561");
    }

    // Every position for k = 1..=20: f64 backward induction against exact backward induction in
    // rationals (two arithmetics, one algorithm; the reference values above fix the algorithm).
    #[test]
    fn f64_agrees_with_exact_for_small_horizons() {
        let g = CardGame::new().unwrap();
        for k in [1u64, 2, 7, 20] {
            let f = g.finite(k).unwrap().values;
            let x = crate::game::finite_horizon_exact(g.game(), 2 * k).unwrap();
            for i in 0..100 {
                let e = x[i].to_f64().value();
                assert!(
                    (f[i] - e).abs() <= 1e-12 * e.abs().max(1.0),
                    "k = {k}, position {i}: {} vs {e}",
                    f[i]
                );
            }
        }
    }

    // The choices of both players at every stage are the first-step choices of the horizon that
    // remains.
    #[test]
    fn strategies_by_stage() {
        let g = CardGame::new().unwrap();
        let by_stage = crate::game::finite_horizon_strategy(g.game(), 12).unwrap();
        assert_eq!(by_stage.len(), 12);
        for (t, choices) in by_stage.iter().enumerate() {
            assert_eq!(
                *choices,
                crate::game::finite_horizon(g.game(), 12 - t as u64)
                    .unwrap()
                    .first_choices
            );
        }
    }

    #[test]
    fn hands_parse() {
        assert_eq!(Hand::parse("rsp").unwrap(), Hand::parse("PSR").unwrap());
        assert_eq!(Hand::parse("SRR").unwrap().to_string(), "RRS");
        assert!(Hand::parse("RPX").is_err());
        assert!(Hand::parse("RP").is_err());
        // Many cards must not overflow the counts.
        assert!(
            Hand::parse(&"R".repeat(1000))
                .unwrap_err()
                .to_string()
                .contains("not 1000")
        );
        assert_eq!(Hand::all().len(), 10);
    }
}
