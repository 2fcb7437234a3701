//! `kolmo cards`: the 3-card rock-paper-scissors game for any number of rounds.

use crate::cli::CardsArgs;
use anyhow::{Result, bail};
use kolmo::account::ser::Number;
use kolmo::exact::decimal;
use kolmo::games::rps_cards::{Card, CardGame, Hand, Position};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// Largest horizon with exact finite-horizon values (the fractions grow with the rounds).
const MAX_EXACT_ROUNDS: u64 = 60;

pub fn run(args: &CardsArgs) -> Result<()> {
    if !(1..=1_000_000_000_000_000_000).contains(&args.rounds) {
        bail!("--rounds {}: from 1 to 10^18 rounds", args.rounds);
    }
    let alice = Hand::parse(&args.alice).map_err(|e| anyhow::anyhow!("--alice: {e}"))?;
    let bob = Hand::parse(&args.bob).map_err(|e| anyhow::anyhow!("--bob: {e}"))?;
    let g = CardGame::new()?;
    let sol = g.solve()?;
    let i = g.alice_state(alice, bob);
    let k = args.rounds as u64;
    let (value, bound) = sol.value(k, i);
    // The first round's choices: by backward induction within the table, else the stationary
    // (long-run) strategies, which are optimal for every horizon past it.
    let in_table = k < sol.table.len() as u64;
    let alice_choice = if in_table {
        g.finite(k)?.first_choices
    } else {
        sol.long_run.choices.clone()
    };
    let bob_choice = if in_table {
        kolmo::game::finite_horizon(g.game(), 2 * k - 1)?.first_choices
    } else {
        sol.long_run.choices.clone()
    };
    let first: Vec<Card> = alice.cards().collect();
    let first_card = first[alice_choice[i] as usize];
    let mut answers = Vec::new();
    for card in alice.cards() {
        let s = g.bob_state(alice, bob, card);
        let bob_cards: Vec<Card> = bob.cards().collect();
        answers.push((card, bob_cards[bob_choice[s] as usize]));
    }
    // Most likely Alice positions under the optimal play's stationary distribution.
    let mut top: Vec<(usize, f64)> = (0..100).map(|s| (s, 2.0 * sol.stationary.pi[s])).collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    top.truncate(5);
    let exact_value = if args.exact && k <= MAX_EXACT_ROUNDS {
        Some(kolmo::game::finite_horizon_exact(g.game(), 2 * k)?[i].clone())
    } else {
        None
    };
    let gain_exact = if args.exact {
        Some(sol.gain_exact(&g)?)
    } else {
        None
    };
    if let Some(path) = &args.plot {
        let target = crate::plot::Target::new("--plot", path)?;
        let hands = format!("Alice {alice} vs Bob {bob}");
        target.render(&crate::plot::CardsFigure::of(&sol, i, k, &hands))?;
        target.wrote();
    }
    let lr = &sol.long_run;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        let doc = JsonCards {
            alice: alice.to_string(),
            bias: Number(sol.bias[i]),
            bob: bob.to_string(),
            first_move: JsonFirstMove {
                bob_answers: answers
                    .iter()
                    .map(|(a, b)| (a.letter().to_string(), b.letter().to_string()))
                    .collect(),
                card: first_card.letter().to_string(),
            },
            gain: Number(sol.gain()),
            gain_bracket: [Number(lr.gain_lower), Number(lr.gain_upper)],
            gain_exact: gain_exact.as_ref().map(ToString::to_string),
            gain_from_stationary: Number(sol.gain_from_pi),
            irreducible: sol.round_irreducible,
            optimality_residual: Number(sol.optimality_residual),
            period: sol.round_period,
            rounds: k,
            stages: lr.stages,
            stationary_top: top
                .iter()
                .map(|&(s, p)| {
                    let Position::Alice(a, b) = g.position(s) else {
                        unreachable!("ids 0..100 are Alice's")
                    };
                    JsonPosition {
                        alice: a.to_string(),
                        bob: b.to_string(),
                        probability: Number(p),
                    }
                })
                .collect(),
            value: Number(value),
            value_error_bound: Number(bound),
            // Null beyond the rounds with exact values.
            value_exact: args.exact.then(|| exact_value.as_ref().map(ToString::to_string)),
        };
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "3-card rock-paper-scissors: Alice {alice} vs Bob {bob}, {k} round(s)"
        )?;
        writeln!(out)?;
        if bound > 0.0 {
            // Only the decimals the bound vouches for.
            let places = (-bound.log10()).floor().clamp(0.0, 10.0) as usize;
            writeln!(
                out,
                "Alice's optimal expected total   {value:.places$}  (± {bound:.1e}: {} rounds by backward induction, then the gain)",
                sol.table.len() - 1
            )?;
        } else {
            writeln!(out, "Alice's optimal expected total   {value:.12}")?;
        }
        if let Some(v) = &exact_value {
            writeln!(out, "  exactly                        {} = {v}", decimal(v, 30))?;
        } else if args.exact {
            writeln!(
                out,
                "  exactly: only for up to {MAX_EXACT_ROUNDS} rounds (the fractions grow with every round)"
            )?;
        }
        writeln!(
            out,
            "Gain ρ (points per round)        {:.15}  (within value iteration's guaranteed bracket [{:.15}, {:.15}] after {} rounds)",
            sol.gain(),
            lr.gain_lower,
            lr.gain_upper,
            lr.stages
        )?;
        writeln!(out, "  from the stationary π: ρ = π·r {:.15}", sol.gain_from_pi)?;
        if let Some(r) = &gain_exact {
            writeln!(out, "  exactly                        {} = {r}", decimal(r, 30))?;
        }
        writeln!(
            out,
            "Bias h for this start            {:.12}  (V_k ≈ k·ρ + h; optimality residual {:.1e})",
            sol.bias[i], sol.optimality_residual
        )?;
        writeln!(out)?;
        writeln!(out, "Optimal first round: Alice plays {}", first_card.letter())?;
        for (a, b) in &answers {
            writeln!(out, "  if Alice plays {}, Bob answers {}", a.letter(), b.letter())?;
        }
        writeln!(out)?;
        let kind = match (sol.round_irreducible, sol.round_period) {
            (true, 1) => "irreducible and aperiodic: ergodic".to_string(),
            (true, p) => format!("irreducible, period {p}"),
            (false, p) => format!("one closed class of period {p}"),
        };
        writeln!(
            out,
            "Long run under optimal play (round to round, {kind}): most likely positions"
        )?;
        for &(s, p) in &top {
            if let Position::Alice(a, b) = g.position(s) {
                writeln!(out, "  Alice {a}  Bob {b}  {p:.6}")?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The `--json` document, fields in alphabetical order (the order it has always had).
#[derive(Serialize)]
struct JsonCards {
    alice: String,
    bias: Number,
    bob: String,
    first_move: JsonFirstMove,
    gain: Number,
    gain_bracket: [Number; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    gain_exact: Option<String>,
    gain_from_stationary: Number,
    irreducible: bool,
    optimality_residual: Number,
    period: u64,
    rounds: u64,
    stages: u64,
    stationary_top: Vec<JsonPosition>,
    value: Number,
    value_error_bound: Number,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_exact: Option<Option<String>>,
}

#[derive(Serialize)]
struct JsonFirstMove {
    bob_answers: BTreeMap<String, String>,
    card: String,
}

#[derive(Serialize)]
struct JsonPosition {
    alice: String,
    bob: String,
    probability: Number,
}
