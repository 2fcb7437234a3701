//! Values as written (issue 14, item 6): with `ReadOptions::exact` every reader keeps each
//! probability as the file writes it, and exact analyses run on those numbers, not on fractions
//! recovered from `f64` (which find denominators only up to 2²⁰).

use kolmo::analysis::exact::{absorption_time_exact, reach_probability_exact};
use kolmo::exact::Rational;
use kolmo::io::{Model, ModelFile, ReadOptions, read_model};
use kolmo::model::{Dtmc, StateSet};
use std::path::Path;

fn frac(p: i64, q: u64) -> Rational {
    Rational::from_parts(p.into(), q.into())
}

/// Reads `text` as the file `name` in a fresh directory, keeping the values as written when
/// `exact`, and rescaling rows when `normalize`: the model with its notes.
fn read_file(name: &str, text: &str, exact: bool, normalize: bool) -> kolmo::Result<ModelFile> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let options = ReadOptions {
        exact,
        normalize,
        ..ReadOptions::default()
    };
    read_model(&path, &options)
}

/// The Markov chain of `file`.
fn chain(file: ModelFile) -> Dtmc {
    match file.model {
        Model::Dtmc(d) => d,
        Model::Mdp(_) => panic!("expected a Markov chain"),
    }
}

/// [`read_file`]'s chain.
fn read(name: &str, text: &str, exact: bool, normalize: bool) -> kolmo::Result<Dtmc> {
    read_file(name, text, exact, normalize).map(chain)
}

/// `Ok` if the values as written were not kept and a note containing `why` says so.
fn assert_not_kept(file: ModelFile, why: &str) {
    assert!(
        file.notes.iter().any(|n| n.contains(why)),
        "{why}: {:?}",
        file.notes
    );
    assert!(chain(file).written().is_none(), "{why}");
}

/// The chain that leaves state 0 with probability 1/3,000,000 per step: the expected number of
/// steps to reach state 1 is exactly 3,000,000 (a geometric number of trials) and the variance
/// (1 − p)/p² = 2,999,999 · 3,000,000.
fn assert_slow_exit(d: &Dtmc) {
    let target = StateSet::from_states(2, [1]);
    let t = absorption_time_exact(d, &target).unwrap();
    assert_eq!(t.mean[0], Some(Rational::from(3_000_000)));
    assert_eq!(t.variance[0], Some(Rational::from(2_999_999u64 * 3_000_000)));
    assert_eq!(reach_probability_exact(d, &target).unwrap()[0], Rational::ONE);
}

#[test]
fn a_fraction_beyond_two_to_the_twenty_is_used_as_written() {
    let text = "2999999/3000000,1/3000000\n0,1\n";
    let d = read("slow.csv", text, true, false).unwrap();
    let written = d.written().expect("the values as written are kept");
    assert_eq!(
        written.probabilities,
        vec![frac(2_999_999, 3_000_000), frac(1, 3_000_000), Rational::ONE]
    );
    assert_slow_exit(&d);
    // Without them, exact analysis recovers fractions from f64, and 1/3000000 is beyond it.
    let d = read("slow.csv", text, false, false).unwrap();
    assert!(d.written().is_none());
    let e = absorption_time_exact(&d, &StateSet::from_states(2, [1])).unwrap_err();
    assert!(e.to_string().contains("not a fraction"), "{e}");
}

#[test]
fn matrix_market_keeps_written_values_including_mirrored_entries() {
    // A symmetric file stores each off-diagonal entry once; its mirror keeps the same exact value.
    let text =
        "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 0.9999997\n2 1 3e-7\n2 2 0.9999997\n";
    let d = read("sym.mtx", text, true, false).unwrap();
    let p = d.exact_matrix().unwrap();
    assert_eq!(p.row(0).1, [frac(9_999_997, 10_000_000), frac(3, 10_000_000)]);
    assert_eq!(p.row(1).1, [frac(3, 10_000_000), frac(9_999_997, 10_000_000)]);
    let mtx =
        "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2999999/3000000\n1 2 1/3000000\n2 2 1\n";
    assert_slow_exit(&read("slow.mtx", mtx, true, false).unwrap());
}

#[test]
fn decimals_are_their_exact_values_and_normalizing_rescales_them_exactly() {
    let d = read("dec.csv", "0.1,0.2,0.7\n0,1,0\n0,0,1\n", true, false).unwrap();
    assert_eq!(
        d.exact_matrix().unwrap().row(0).1,
        [frac(1, 10), frac(1, 5), frac(7, 10)]
    );
    // Weights 1 and 2 rescaled: exactly 1/3 and 2/3 (in f64 they are only the nearest doubles).
    let d = read("w.csv", "1,2\n0,1\n", true, true).unwrap();
    assert_eq!(d.exact_matrix().unwrap().row(0).1, [frac(1, 3), frac(2, 3)]);
    assert_eq!(d.matrix().row(0).1, [1.0 / 3.0, 2.0 / 3.0]);
}

#[test]
fn rows_that_sum_to_one_only_in_floating_point_fall_back_to_recovered_fractions() {
    // 0.3333333333333333 three times sums to 1 within the f64 tolerance, but not exactly: the
    // doubles stand for 1/3 (a writer's shortest doubles), so exact analysis recovers 1/3.
    let third = "0.3333333333333333";
    let text = format!("{third},{third},{third}\n0,1,0\n0,0,1\n");
    let file = read_file("thirds.csv", &text, true, false).unwrap();
    // The fallback is no silent one: a note names the row and its sum as written.
    assert!(
        file.notes
            .iter()
            .any(|n| n.contains("from state 0 sum to 9999999999999999/10000000000000000, not exactly 1")),
        "{:?}",
        file.notes
    );
    let d = chain(file);
    assert!(d.written().is_some());
    assert_eq!(
        d.exact_matrix().unwrap().row(0).1,
        [frac(1, 3), frac(1, 3), frac(1, 3)]
    );
    // Neither exact as written nor simple fractions: refused, saying so.
    let text = "0.1234567891234567,0.8765432108765432\n0,1\n";
    let d = read("odd.csv", text, true, false).unwrap();
    let e = d.exact_matrix().unwrap_err();
    assert!(e.to_string().contains("not exactly 1"), "{e}");
}

#[test]
fn an_exponent_too_large_to_keep_exactly_is_refused_at_its_place() {
    // 0.000…05e4001 is 0.5, but its exponent is beyond what exact values are kept for.
    let half = format!("0.{}5e4001", "0".repeat(4001));
    let text = format!("0.5,{half}\n0,1\n");
    let e = read("e.csv", &text, true, false).unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("e.csv:1:5") && message.contains("cannot be kept exactly"),
        "{message}"
    );
    // In floating point the same file reads.
    assert_eq!(
        read("e.csv", &text, false, false).unwrap().matrix().row(0).1,
        [0.5, 0.5]
    );
}

/// The issue's file: Storm's DRN with `@value_type: rational`, state 0 leaving with probability
/// 1/3000000 per step.
const SLOW_DRN: &str = "@type: DTMC\n@parameters\n\n@value_type: rational\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 2999999/3000000\n\t\t1 : 1/3000000\nstate 1 goal\n\taction 0\n\t\t1 : 1\n";

#[test]
fn drn_prism_and_json_files_answer_exactly_on_their_own_fractions() {
    for (name, text) in [
        ("slow.drn", SLOW_DRN.to_string()),
        ("slow.tra", "2 3\n0 0 2999999/3000000\n0 1 1/3000000\n1 1 1\n".to_string()),
        (
            "slow.json",
            r#"{"states": 2, "initial": [0], "transitions": {"0": {"0": "2999999/3000000", "1": "1/3000000"}, "1": {"1": 1}}}"#
                .to_string(),
        ),
    ] {
        let d = read(name, &text, true, false).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(d.written().is_some(), "{name}");
        assert_slow_exit(&d);
        // Read from a stream, the same.
        let format = kolmo::io::Format::from_path(Path::new(name)).unwrap();
        let options = ReadOptions {
            exact: true,
            ..ReadOptions::default()
        };
        assert_slow_exit(&chain(kolmo::io::read_model_from(text.as_bytes(), format, &options).unwrap()));
    }
}

#[test]
fn values_that_cannot_be_matched_to_their_tokens_are_not_kept() {
    // Two different numbers that round to the same f64: which one a stored 0.1 stands for is
    // unknown, so nothing is attached (and a note says so) rather than a guess.
    let text = "2 4\n0 0 0.1\n0 1 0.9\n1 0 0.1000000000000000000001\n1 1 0.8999999999999999999999\n";
    assert_not_kept(
        read_file("alike.tra", text, true, false).unwrap(),
        "could not all be kept",
    );
    // Rescaled rows are not the file's numbers either.
    let drn = SLOW_DRN.replace("1 : 1/3000000", "1 : 2/3000000");
    assert_not_kept(read_file("scaled.drn", &drn, true, true).unwrap(), "normalizing");
}

#[test]
fn exact_mdp_solves_use_the_probabilities_as_written() {
    use kolmo::mdp::{MdpOptions, Optimum, reach_probability, reach_probability_exact};
    // State 0: wait (stay with 2999999/3000000, else reach the goal) or gamble (goal with 1/3,
    // else the trap 2).
    let text = "@type: MDP\n@parameters\n\n@value_type: rational\n@reward_models\n\n@nr_states\n3\n@nr_choices\n4\n@model\nstate 0 init\n\taction 0\n\t\t0 : 2999999/3000000\n\t\t1 : 1/3000000\n\taction 1\n\t\t1 : 1/3\n\t\t2 : 2/3\nstate 1 goal\n\taction 0\n\t\t1 : 1\nstate 2\n\taction 0\n\t\t2 : 1\n";
    let Model::Mdp(mdp) = read_file("wait.drn", text, true, false).unwrap().model else {
        panic!("an MDP")
    };
    let goal = StateSet::from_states(3, [1]);
    let f = reach_probability(&mdp, &goal, Optimum::Max, &MdpOptions::default()).unwrap();
    // Waiting reaches the goal almost surely: probability exactly 1, which the exact solve
    // confirms on the written 1/3000000 (a fraction f64 recovery does not find).
    let (exact, policy) = reach_probability_exact(&mdp, &goal, Optimum::Max, &f.policy).unwrap();
    assert_eq!(exact[0], Rational::ONE);
    assert_eq!(policy[0], 0);
}

#[test]
fn a_probability_that_underflows_to_zero_is_not_silently_dropped_from_the_exact_model() {
    // As written the row sums to 1 + 1e-500; read as doubles the 1e-500 is 0 and dropped, so the
    // values as written are not kept (a note says so) rather than answer for another chain.
    for (name, text) in [
        (
            "u.json",
            r#"{"states": 3, "transitions": [[0,0,0.5],[0,1,0.5],[0,2,1e-500],[1,1,1],[2,2,1]]}"#,
        ),
        ("u.csv", "0.5,0.5,1e-500\n0,1,0\n0,0,1\n"),
        ("u.tra", "3 5\n0 0 0.5\n0 1 0.5\n0 2 1e-500\n1 1 1\n2 2 1\n"),
    ] {
        assert_not_kept(
            read_file(name, text, true, false).unwrap(),
            "too small for floating point",
        );
    }
}

#[test]
fn normalizing_keeps_the_values_as_written_when_no_row_was_rescaled() {
    let d = read("slow.drn", SLOW_DRN, true, true).unwrap();
    assert!(d.written().is_some());
    assert_slow_exit(&d);
}

#[test]
fn exact_mdp_solves_use_the_rewards_as_written() {
    use kolmo::mdp::{MdpOptions, Optimum, finite_horizon_exact, total_reward, total_reward_exact};
    // State 0 earns 1/3000001 per visit; action 0 also earns 2/7000003 and reaches the goal,
    // action 1 reaches it with probability 1/2 (two visits expected). Neither reward is a
    // fraction that recovery from f64 finds (denominators above 2²⁰).
    let text = "@type: MDP\n@parameters\n\n@value_type: rational\n@reward_models\ncost\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 [1/3000001] init\n\taction 0 [2/7000003]\n\t\t1 : 1\n\taction 1 [0]\n\t\t0 : 1/2\n\t\t1 : 1/2\nstate 1 [0] goal\n\taction 0 [0]\n\t\t1 : 1\n";
    let Model::Mdp(floating) = read_file("cost.drn", text, false, false).unwrap().model else {
        panic!("an MDP")
    };
    let e = floating.exact_rewards("cost").unwrap_err().to_string();
    assert!(e.contains("not a simple fraction"), "{e}");
    let Model::Mdp(mdp) = read_file("cost.drn", text, true, false).unwrap().model else {
        panic!("an MDP")
    };
    let r = mdp.exact_rewards("cost").unwrap();
    let (visit, act) = (frac(1, 3_000_001), frac(2, 7_000_003));
    assert_eq!(r, [&visit + &act, visit.clone(), Rational::ZERO]);
    let goal = StateSet::from_states(2, [1]);
    let f64_rewards = mdp.reward_models()["cost"].expected_per_choice(mdp.matrix());
    let f = total_reward(&mdp, &f64_rewards, &goal, Optimum::Min, &MdpOptions::default()).unwrap();
    // Action 0: 1/3000001 + 2/7000003 ≈ 6.19e-7; action 1: 2 · 1/3000001 ≈ 6.67e-7.
    let (v, policy) = total_reward_exact(&mdp, &r, &goal, Optimum::Min, &f.policy).unwrap();
    assert_eq!(v[0], Some(&visit + &act));
    assert_eq!(policy[0], 0);
    let (one_step, first) = finite_horizon_exact(&mdp, &r, 1, None, Optimum::Max).unwrap();
    assert_eq!(one_step[0], &visit + &act);
    assert_eq!(first[0], 0);
}
