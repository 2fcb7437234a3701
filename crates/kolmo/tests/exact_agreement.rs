//! Property tests (issue 15 §6): on random small chains and MDPs the floating-point solvers agree
//! with the exact rational ones within the bounds they report. Probabilities are weights
//! `w / Σw` (weights 1 to 9), so the exact model is the fractions and the `f64` model their
//! roundings: the bounds must cover the solve and that rounding.

use kolmo::analysis::exact::{absorption_time_exact, reach_probability_exact};
use kolmo::analysis::{AbsorbingChain, reach_probability};
use kolmo::exact::Rational;
use kolmo::mdp::{self, MdpOptions, Optimum};
use kolmo::model::{Dtmc, Mdp, StateSet};
use kolmo::sparse::CsrBuilder;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// A distribution as `(target, weight)` pairs; a choice is one with its reward.
type Row = Vec<(u32, u32)>;
type Choices = Vec<(Row, u32)>;

/// One distribution: `(target, weight)` pairs, merged per target and sorted.
fn row(n: u32) -> impl Strategy<Value = Row> {
    proptest::collection::vec((0..n, 1u32..10), 1..5).prop_map(|pairs| {
        let mut merged = BTreeMap::new();
        for (t, w) in pairs {
            *merged.entry(t).or_insert(0) += w;
        }
        merged.into_iter().collect()
    })
}

fn add_row(b: &mut CsrBuilder, row: &[(u32, u32)]) {
    let total: u32 = row.iter().map(|&(_, w)| w).sum();
    for &(t, w) in row {
        b.add(t, f64::from(w) / f64::from(total));
    }
    b.finish_row();
}

fn to_f64(x: &Rational) -> f64 {
    x.to_f64().value()
}

/// A chain of `n` states (2 to 7) with the last one the target.
fn chains() -> impl Strategy<Value = Vec<Row>> {
    (2u32..8).prop_flat_map(|n| proptest::collection::vec(row(n), n as usize))
}

/// An MDP of `n` states (2 to 5), each with 1 to 3 choices, each choice's reward 0 to 9.
fn mdps() -> impl Strategy<Value = Vec<Choices>> {
    (2u32..6).prop_flat_map(|n| {
        proptest::collection::vec(proptest::collection::vec((row(n), 0u32..10), 1..4), n as usize)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    // Hitting probabilities and expected steps: every f64 value within its reported bound of
    // the exact fraction.
    #[test]
    fn chains_agree_with_exact_rationals(rows in chains()) {
        let n = rows.len();
        let mut b = CsrBuilder::new(n);
        for r in &rows {
            b.new_row_group();
            add_row(&mut b, r);
        }
        let dtmc = Dtmc::new(b.build(), vec![0]).unwrap();
        let target = StateSet::from_states(n, [n as u32 - 1]);
        let reach = reach_probability(&dtmc, &target).unwrap();
        let exact = reach_probability_exact(&dtmc, &target).unwrap();
        for (s, (x, e)) in reach.values.iter().zip(&exact).enumerate() {
            let error = (x - to_f64(e)).abs();
            prop_assert!(error <= reach.error_bound, "state {s}: {x} vs {e}: {error:e} > {:e}", reach.error_bound);
            prop_assert!((0.0..=1.0).contains(x));
        }
        let time = AbsorbingChain::new(&dtmc, &target).unwrap().absorption_time();
        let exact = absorption_time_exact(&dtmc, &target).unwrap();
        for (s, (x, e)) in time.mean.iter().zip(&exact.mean).enumerate() {
            match e {
                None => prop_assert!(x.is_infinite(), "state {s}: {x} for +inf"),
                Some(e) => {
                    let e = to_f64(e);
                    let error = (x - e).abs() / e.max(f64::MIN_POSITIVE);
                    prop_assert!(e == 0.0 && *x == 0.0 || error <= time.error_bound,
                        "state {s}: {x} vs {e}: relative {error:e} > {:e}", time.error_bound);
                }
            }
        }
    }

    // Maximal and minimal discounted reward (γ = 1/2, 9/10, 99/100) and maximal reachability:
    // the f64 values within their bounds of the exact optimum.
    #[test]
    fn mdps_agree_with_exact_rationals(states in mdps(), g in 0usize..3) {
        let n = states.len();
        let mut b = CsrBuilder::new(n);
        let mut rewards = Vec::new();
        for choices in &states {
            b.new_row_group();
            for (r, reward) in choices {
                add_row(&mut b, r);
                rewards.push(*reward);
            }
        }
        let m = Mdp::new(b.build(), vec![0]).unwrap();
        let r: Vec<f64> = rewards.iter().map(|&x| f64::from(x)).collect();
        let rx: Vec<Rational> = rewards.iter().map(|&x| Rational::from(x)).collect();
        let (gamma, text) = [(0.5, "1/2"), (0.9, "9/10"), (0.99, "99/100")][g];
        let gx = kolmo::exact::parse_exact(text).unwrap();
        for opt in [Optimum::Max, Optimum::Min] {
            let f = mdp::discounted(&m, &r, gamma, opt, &MdpOptions::default()).unwrap();
            let (exact, _) = mdp::discounted_exact(&m, &rx, &gx, opt).unwrap();
            for (s, (x, e)) in f.values.iter().zip(&exact).enumerate() {
                let error = (x - to_f64(e)).abs();
                prop_assert!(error <= f.error_bound, "γ = {text}, {opt:?}, state {s}: {x} vs {e}: {error:e} > {:e}", f.error_bound);
            }
        }
        let target = StateSet::from_states(n, [n as u32 - 1]);
        let f = mdp::reach_probability(&m, &target, Optimum::Max, &MdpOptions::default()).unwrap();
        let (exact, _) = mdp::reach_probability_exact(&m, &target, Optimum::Max, &f.policy).unwrap();
        for (s, (x, e)) in f.values.iter().zip(&exact).enumerate() {
            let error = (x - to_f64(e)).abs();
            prop_assert!(error <= f.error_bound, "max-reach state {s}: {x} vs {e}: {error:e} > {:e}", f.error_bound);
        }
    }
}
