//! `kolmo::check` on the PRISM benchmark suite's reference values (../shared/prism-suite,
//! read in place: PRISM's RESULT lines, about 1e-6 relative, and QVBS's exact values from Storm's
//! exact engine, which must lie inside kolmo's certified interval), and each operator of the
//! property language on small models whose answers are worked out by hand.

mod common;

use common::check;
use kolmo::check::{Answer, CheckReport};
use std::path::{Path, PathBuf};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/prism-suite")
}

/// Every reference value of the suite for instances up to `max_states` states (the rest, up to
/// 10^6, are run by shared/checks/prism-suite.py on the release build).
#[test]
fn reference_values_of_the_suite() {
    // Debug builds are slow; instances up to 10^4 states keep this test under a minute.
    let max_states = 10_000;
    let text = std::fs::read_to_string(suite().join("reference_values.tsv")).unwrap();
    let mut tally = common::Tally::default();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (model, consts, states, prop, reference, source) = (f[0], f[1], f[2], f[5], f[6], f[7]);
        if states.parse::<u64>().map_or(true, |n| n > max_states) {
            continue;
        }
        let label = format!("{model} [{consts}] {prop}");
        // Exact references must lie within the certified interval.
        let slack = reference.parse::<f64>().map_or(0.0, |w| 1e-15 * w.abs());
        let inside = source.contains("exact").then_some(slack);
        let report = check(&suite().join(model), &[prop], consts);
        tally.record(&label, report, reference, inside, &format!(" ({source})"));
    }
    tally.assert_no_misses();
    // 129 rows of the suite's 322 have at most 10^4 states.
    let right = tally.right;
    assert!(right >= 120, "only {right} reference values checked");
}

/// A model file in a temporary directory.
fn model(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.pm");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn number(r: &CheckReport, i: usize) -> f64 {
    match r.results[i].value {
        Answer::Number(x) => x,
        Answer::Bool(b) => panic!("a truth value {b}"),
    }
}

fn truth(r: &CheckReport, i: usize) -> bool {
    match r.results[i].value {
        Answer::Bool(b) => b,
        Answer::Number(x) => panic!("a number {x}"),
    }
}

/// A gambler with 1 of 3 coins, winning a coin with probability 1/3 and losing one with 2/3;
/// `broke` at 0, `rich` at 3. Hand-derived: P(F rich) from 1 = 1/7 (ratio r = 2: (r−1)/(r³−1));
/// the expected steps from 1: t1 = 1 + (1/3)t2, t2 = 1 + (2/3)t1 → t1 = 12/7.
const GAMBLER: &str = "dtmc
module g
  c : [0..3] init 1;
  [] c>0 & c<3 -> 1/3:(c'=c+1) + 2/3:(c'=c-1);
  [] c=0 | c=3 -> true;
endmodule
label \"broke\" = c=0;
label \"rich\" = c=3;
rewards \"steps\"
  c>0 & c<3 : 1;
endrewards
rewards \"coins\"
  true : c;
endrewards
";

#[test]
fn chain_operators_give_hand_derived_values() {
    let (_dir, path) = model(GAMBLER);
    let props = [
        "P=? [F \"rich\"]",                        // 1/7
        "P=? [X c=2]",                             // 1/3
        "P=? [F<=2 \"broke\"]",                    // 2/3 + (1/3)(0) = 2/3 (from 2 it cannot go broke in 1)
        "P=? [G !\"broke\"]",                      // 1 − 6/7
        "P=? [c<2 U \"broke\"]",                   // from 1: 2/3 directly; via 2 blocked: 2/3
        "R{\"steps\"}=? [F \"broke\" | \"rich\"]", // 12/7
        "T=? [F c=0 | c=3]",                       // 12/7
        "R{\"coins\"}=? [I=1]",                    // (1/3)·2 + (2/3)·0 = 2/3
        "R{\"coins\"}=? [C<=2]",                   // 1 + 2/3 = 5/3
        "R{\"coins\"}=? [S]",                      // long run: 3 with prob 1/7 → 3/7
        "S=? [\"rich\"]",                          // 1/7
        "R{\"steps\"}=? [C]",                      // total until a closed class that earns nothing: 12/7
        "R{\"coins\"}=? [C]",                      // the rich state earns forever with probability 1/7 > 0
        "R{\"steps\"}=? [F \"rich\"]",             // rich may be missed: +inf
        "P>=1 [F \"broke\" | \"rich\"]",           // true
        "P>0.15 [F \"rich\"]",                     // 1/7 < 0.15: false
        "filter(max, P=? [F \"rich\"], c<3)",      // from 2: 3/7
        "filter(count, c>0)",                      // 3
        "filter(forall, P>=1 [F c=0 | c=3], c<3)", // true
        "filter(avg, c)",                          // 1.5
        "filter(state, P=? [F \"rich\"], c=2)",    // 3/7
    ];
    let r = check(&path, &props, "").unwrap();
    let want = [
        1.0 / 7.0,
        1.0 / 3.0,
        2.0 / 3.0,
        1.0 / 7.0,
        2.0 / 3.0,
        12.0 / 7.0,
        12.0 / 7.0,
        2.0 / 3.0,
        5.0 / 3.0,
        3.0 / 7.0,
        1.0 / 7.0,
        12.0 / 7.0,
        f64::INFINITY,
        f64::INFINITY,
    ];
    for (i, w) in want.iter().enumerate() {
        let got = number(&r, i);
        let res = &r.results[i];
        if w.is_finite() {
            assert!(
                res.lower.unwrap() <= *w && *w <= res.upper.unwrap() && (got - w).abs() < 1e-12,
                "{}: {got} in [{:?}, {:?}], want {w}",
                res.property,
                res.lower,
                res.upper
            );
        } else {
            assert_eq!(got, *w, "{}", res.property);
        }
    }
    assert!(truth(&r, 14));
    assert!(!truth(&r, 15));
    assert!((number(&r, 16) - 3.0 / 7.0).abs() < 1e-12);
    assert_eq!(number(&r, 17), 3.0);
    assert!(truth(&r, 18));
    assert_eq!(number(&r, 19), 1.5);
    assert!((number(&r, 20) - 3.0 / 7.0).abs() < 1e-12);
}

/// An MDP: from s=0, action `safe` reaches the goal with 1/2 (else a trap), action `risky` tries
/// again: with 1/4 the goal, 1/4 the trap, 1/2 back to s=0. Pmax(F goal) = 1/2 (safe; risky
/// forever gives 1/2 too: x = 1/4 + x/2); Pmin = 1/2. With a cost 1 per step: Rmin to the goal is
/// +inf (the trap may be reached). A second MDP without the trap: Rmin = 1 (straight), Rmax = ...
#[test]
fn mdp_operators_give_hand_derived_values() {
    let (_dir, path) = model(
        "mdp
module m
  s : [0..2] init 0;
  [safe]  s=0 -> 1/2:(s'=1) + 1/2:(s'=2);
  [risky] s=0 -> 1/3:(s'=1) + 1/6:(s'=2) + 1/2:(s'=0);
  [] s>0 -> true;
endmodule
label \"goal\" = s=1;
rewards
  s=0 : 1;
endrewards
",
    );
    let r = check(
        &path,
        &[
            "Pmax=? [F \"goal\"]",    // risky forever: x = 1/3 + x/2 → 2/3
            "Pmin=? [F \"goal\"]",    // safe: 1/2
            "Pmax=? [F<=1 \"goal\"]", // 1/2
            "Rmax=? [F s>0]",         // risky: t = 1 + t/2 → 2
            "Rmin=? [F s>0]",         // 1
            "Rmax=? [C<=2]",          // risky twice: 1 + 1/2 = 3/2
            "Pmin=? [G s!=1]",        // 1 − Pmax(F goal) = 1/3
            "P>=0.4 [F \"goal\"]",    // every policy: Pmin = 1/2 ≥ 0.4: true
            "Rmin=? [S]",             // settles in s>0: 0
        ],
        "",
    )
    .unwrap();
    let want = [2.0 / 3.0, 0.5, 0.5, 2.0, 1.0, 1.5, 1.0 / 3.0];
    for (i, w) in want.iter().enumerate() {
        let res = &r.results[i];
        assert!(
            (number(&r, i) - w).abs() < 1e-12 && res.lower.unwrap() <= *w && *w <= res.upper.unwrap(),
            "{}: {:?}, want {w}",
            res.property,
            res.value
        );
    }
    assert!(truth(&r, 7));
    assert!(number(&r, 8).abs() < 1e-12);
    // P=? on an MDP needs an optimum.
    let e = check(&path, &["P=? [F \"goal\"]"], "").unwrap_err().to_string();
    assert!(e.contains("--prop:1:1") && e.contains("Pmin=? or Pmax=?"), "{e}");
}

#[test]
fn bad_properties_name_the_place() {
    let (_dir, path) = model(GAMBLER);
    for (prop, want) in [
        ("P=? [F \"poor\"]", "--prop:1:8: no label \"poor\""),
        (
            "R{\"time\"}=? [F c=0]",
            "--prop:1:3: no reward structure \"time\" (the model has \"steps\", \"coins\")",
        ),
        ("P=? [F d=0]", "--prop:1:8: d is not defined"),
        ("P=? [F c]", "--prop:1:8: a set of states must be bool, not int"),
        (
            "filter(state, c, c>0)",
            "filter(state, ...) needs exactly one state; the filter has 3",
        ),
        ("P=? [F<=K c=0]", "--prop:1:9: K is not defined"),
    ] {
        let e = check(&path, &[prop], "").unwrap_err().to_string();
        assert!(e.contains(want), "{prop}: {e}");
    }
    // Constants of the properties come from --const; unknown ones are refused.
    let r = check(&path, &["const int K; P=? [F<=K c=0]"], "K=1").unwrap();
    assert!((number(&r, 0) - 2.0 / 3.0).abs() < 1e-15);
    // As PRISM: --const only for a constant left undefined.
    let e = check(&path, &["const int K = 2; P=? [F<=K c=0]"], "K=1")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--prop:1:11: constant K already has a value here"),
        "{e}"
    );
    let (_dir2, coin) = model(
        "dtmc\nconst double p = 0.1;\nmodule c\n h : bool;\n [] true -> p:(h'=true) + (1-p):(h'=false);\nendmodule\n",
    );
    let e = check(&coin, &["P=? [F h]"], "p=0.5").unwrap_err().to_string();
    assert!(
        e.contains("constant p already has a value in the model (at"),
        "{e}"
    );
    let e = check(&path, &["P=? [F c=0]"], "Q=1").unwrap_err().to_string();
    assert!(
        e.contains("neither the model nor the properties have a constant Q"),
        "{e}"
    );
}

/// The seeds as models: the classic board of `kolmo snakes` and a LightOJ 1151 case.
#[test]
fn the_seed_models_agree_with_their_commands() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models");
    let r = check(
        &examples.join("snakes.pm"),
        &["R=? [F pos=100]", "P=? [F<=20 pos=100]"],
        "",
    )
    .unwrap();
    // The figures of `kolmo snakes` (README; shared/cases/01-snakes.md).
    let steps = 35.834_938_413_695_5;
    assert!((number(&r, 0) - steps).abs() < 1e-10);
    assert!(r.results[0].lower.unwrap() <= steps + 1e-12 && steps - 1e-12 <= r.results[0].upper.unwrap());
    assert!((number(&r, 1) - 0.274_892_661_192_890_1).abs() < 1e-15);
    let board = kolmo::games::snakes::Board::classic()
        .analyze(&kolmo::games::snakes::AnalysisOptions::default())
        .unwrap();
    assert!((number(&r, 0) - board.expected_rolls).abs() < 1e-10);
    // LightOJ 1151's sample, case 1: 31.5488080634 (shared/cases/lightoj1151.sample.out).
    let r = check(&examples.join("lightoj-1151.pm"), &["R=? [F pos=100]"], "").unwrap();
    assert_eq!(format!("{:.10}", number(&r, 0)), "31.5488080634");
}

fn check_exact(model: &Path, props: &[&str]) -> kolmo::Result<CheckReport> {
    common::check_exact(model, props, "")
}

/// `--exact`: the model's numbers evaluated as rationals (1/3 stays 1/3, 0.1 is 1/10), and the
/// same hand-derived fractions as above.
#[test]
fn exact_values_are_the_hand_derived_fractions() {
    let (_dir, path) = model(GAMBLER);
    let r = check_exact(
        &path,
        &[
            "P=? [F \"rich\"]",
            "T=? [F c=0 | c=3]",
            "P=? [X c=2]",
            "P=? [F<=2 \"broke\"]",
            "R{\"coins\"}=? [C<=2]",
            "R{\"coins\"}=? [I=1]",
            "P=? [G !\"broke\"]",
            "filter(max, P=? [F \"rich\"], c<3)",
            "R{\"steps\"}=? [F \"rich\"]",
            "R{\"steps\"}=? [C]",
        ],
    )
    .unwrap();
    let want = [
        "1/7", "12/7", "1/3", "2/3", "5/3", "2/3", "1/7", "3/7", "inf", "12/7",
    ];
    for (res, w) in r.results.iter().zip(want) {
        assert_eq!(res.exact.as_deref(), Some(w), "{}", res.property);
    }
    // A decimal probability is its decimal: P(heads within 2 tosses) = 0.1 + 0.9 · 0.1 = 19/100.
    let (_dir2, coin) = model(
        "dtmc\nconst double p = 0.1;\nmodule c\n h : bool init false;\n [] !h -> p:(h'=true) + (1-p):(h'=false);\n [] h -> true;\nendmodule\n",
    );
    let r = check_exact(&coin, &["P=? [F<=2 h]", "P=? [F h]"]).unwrap();
    assert_eq!(r.results[0].exact.as_deref(), Some("19/100"));
    assert_eq!(r.results[1].exact.as_deref(), Some("1"));
    // The MDP of mdp_operators_give_hand_derived_values: Pmax = 2/3, Rmax = 2.
    let (_dir3, m) = model(
        "mdp\nmodule m\n s : [0..2] init 0;\n [safe] s=0 -> 1/2:(s'=1) + 1/2:(s'=2);\n [risky] s=0 -> 1/3:(s'=1) + 1/6:(s'=2) + 1/2:(s'=0);\n [] s>0 -> true;\nendmodule\nrewards\n s=0 : 1;\nendrewards\n",
    );
    let r = check_exact(&m, &["Pmax=? [F s=1]", "Rmax=? [F s>0]", "Pmin=? [F<=2 s=1]"]).unwrap();
    let want = ["2/3", "2", "1/2"];
    for (res, w) in r.results.iter().zip(want) {
        assert_eq!(res.exact.as_deref(), Some(w), "{}", res.property);
    }
    // What exact arithmetic cannot do is refused at its place.
    let (_dir4, bad) = model(
        "dtmc\nmodule c\n h : bool init false;\n [] !h -> log(2, 4):(h'=true) + (1-log(2,4)):(h'=false);\n [] h -> true;\nendmodule\n",
    );
    let e = check_exact(&bad, &["P=? [F h]"]).unwrap_err().to_string();
    assert!(
        e.contains("m.pm:4:11: --exact: log is not a rational function"),
        "{e}"
    );
}

/// Storm's conditional `P=? [F a || F b]` on the gambler: from 1 coin, becoming rich passes
/// through 2 coins, so P(F rich ∧ F c=2) = P(F rich) = 1/7, and P(F c=2) = 1/3: 3/7. The other way
/// round, 1; broke and rich exclude each other: 0.
#[test]
fn conditional_probabilities_on_a_chain() {
    let (_dir, path) = model(GAMBLER);
    let props = [
        "P=? [F \"rich\" || F c=2]",
        "P=? [F c=2 || F \"rich\"]",
        "P=? [F \"broke\" || F \"rich\"]",
    ];
    let r = check(&path, &props, "").unwrap();
    for (i, (res, w)) in r.results.iter().zip([3.0 / 7.0, 1.0, 0.0]).enumerate() {
        assert!(
            res.lower.unwrap() <= w && w <= res.upper.unwrap() && (number(&r, i) - w).abs() < 1e-15,
            "{}: {:?} [{:?}, {:?}]",
            res.property,
            res.value,
            res.lower,
            res.upper
        );
    }
    let r = check_exact(&path, &props).unwrap();
    let got: Vec<_> = r.results.iter().map(|x| x.exact.clone().unwrap()).collect();
    assert_eq!(got, ["3/7", "1", "0"]);
    // The condition impossible from the initial state: refused.
    let e = check(&path, &["P=? [F \"rich\" || F c=0 & c=3]"], "")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the condition of P=? [F a || F b] has probability 0"),
        "{e}"
    );
}

/// `Rmin=? [C]` of an MDP: from 0, action a (reward 4) reaches the zero-reward loop of 1 or state
/// 2 with 1/2 each; b (reward 3) leads to 3, which earns 1 per step forever. In 2, c loops
/// earning 1, d returns to 0 for free. V(0) = 4 + V(2)/2 with V(2) = V(0): 8; V(3) = +inf.
#[test]
fn minimal_total_reward_of_an_mdp() {
    let (_dir, path) = model(
        "mdp\nmodule m\n s : [0..3] init 0;\n [a] s=0 -> 1/2:(s'=1) + 1/2:(s'=2);\n [b] s=0 -> (s'=3);\n [] s=1 -> (s'=1);\n [c] s=2 -> (s'=2);\n [d] s=2 -> (s'=0);\n [] s=3 -> (s'=3);\nendmodule\nrewards\n [a] true : 4;\n [b] true : 3;\n [c] true : 1;\n s=3 : 1;\nendrewards\n",
    );
    let r = check(
        &path,
        &["Rmin=? [C]", "filter(max, Rmin=? [C], s<3)", "R{1}min=? [C]"],
        "",
    )
    .unwrap();
    let res = &r.results[0];
    assert!(res.lower.unwrap() <= 8.0 && 8.0 <= res.upper.unwrap(), "{res:?}");
    assert!((number(&r, 1) - 8.0).abs() <= 1e-9, "{}", number(&r, 1));
    let r = check_exact(&path, &["Rmin=? [C]", "filter(print, Rmin=? [C])"]).unwrap();
    assert_eq!(r.results[0].exact.as_deref(), Some("8"));
    let printed: Vec<Answer> = r.results[1].printed.iter().map(|(_, a)| *a).collect();
    assert_eq!(
        printed,
        [8.0, 0.0, 8.0, f64::INFINITY].map(Answer::Number).to_vec()
    );
    // Maximising, 2 loops earning 1 and 3 earns forever: +inf from 0 too.
    let r = check(&path, &["Rmax=? [C]", "filter(print, Rmax=? [C])"], "").unwrap();
    assert_eq!(number(&r, 0), f64::INFINITY);
    let printed: Vec<Answer> = r.results[1].printed.iter().map(|(_, a)| *a).collect();
    assert_eq!(
        printed,
        [f64::INFINITY, 0.0, f64::INFINITY, f64::INFINITY]
            .map(Answer::Number)
            .to_vec()
    );
}

/// `Rmax=? [C]` with an end component that earns nothing inside: 0 ⇄ 1 for free; 0 may `go` to
/// the end earning 5; 1 may `jump`, earning 3, to the end or back to 0 with 1/2 each. Jumping
/// until it ends earns 3 · 2 = 6 > 5 (V(0) = V(1) = 3 + V(0)/2 = 6); the minimum stays in the
/// component: 0.
#[test]
fn maximal_total_reward_of_an_mdp() {
    let (_dir, path) = model(
        "mdp\nmodule m\n s : [0..2] init 0;\n [move] s=0 -> (s'=1);\n [go] s=0 -> (s'=2);\n [back] s=1 -> (s'=0);\n [jump] s=1 -> 1/2:(s'=0) + 1/2:(s'=2);\n [] s=2 -> true;\nendmodule\nrewards\n [go] true : 5;\n [jump] true : 3;\nendrewards\n",
    );
    let r = check(
        &path,
        &["Rmax=? [C]", "Rmin=? [C]", "filter(min, Rmax=? [C], s<2)"],
        "",
    )
    .unwrap();
    for (i, w) in [6.0, 0.0, 6.0].into_iter().enumerate() {
        let res = &r.results[i];
        assert!(
            res.lower.unwrap() <= w && w <= res.upper.unwrap() && (number(&r, i) - w).abs() < 1e-12,
            "{}: {:?}",
            res.property,
            res.value
        );
    }
}

/// Pay only for what is asked: the reward structures the properties do not use are not built (an
/// unnamed R takes the first written; an index R{k} builds them all).
#[test]
fn only_the_reward_structures_asked_for_are_built() {
    let (_dir, path) = model(GAMBLER);
    let built = |props: &[&str]| -> Vec<String> {
        let r = check(&path, props, "").unwrap();
        let kolmo::io::Model::Dtmc(d) = &r.model else {
            panic!("a chain")
        };
        d.reward_models().keys().cloned().collect()
    };
    assert_eq!(built(&["P=? [F \"rich\"]"]), Vec::<String>::new());
    assert_eq!(built(&["R{\"coins\"}=? [I=1]"]), ["coins"]);
    assert_eq!(built(&["R=? [F c=0 | c=3]"]), ["steps"]);
    assert_eq!(built(&["filter(max, R{2}=? [C<=1])"]), ["coins", "steps"]);
    // The index still counts every structure written.
    let r = check(&path, &["R{2}=? [I=1]"], "").unwrap();
    assert!((number(&r, 0) - 2.0 / 3.0).abs() < 1e-15);
}

/// Inputs a fuzzing helper found (prism_language target, and by reading the code): each refused
/// with a message or answered, none a panic, a stack overflow or minutes of work.
#[test]
fn hostile_models_are_refused_or_answered() {
    let run = |text: &str, prop: &str, exact: bool| {
        let (_dir, path) = model(text);
        let r = if exact {
            check_exact(&path, &[prop])
        } else {
            check(&path, &[prop], "")
        };
        r.map(|r| r.results[0].value).map_err(|e| e.to_string())
    };
    // mod of i64::MIN by -1 (pow wraps): 0, not an overflow panic.
    let m = "dtmc\nmodule m x:[0..1]; endmodule\n";
    assert_eq!(
        run(m, "P=? [F mod(pow(2,63),-1)=0]", false),
        Ok(Answer::Number(1.0))
    );
    // A probability that underflows in f64 but not exactly: refused in exact mode.
    let u = "dtmc\nmodule m x:[0..1]; [] x=0 -> 1e-400:(x'=1) + 1-1e-400:true; [] x=1 -> true; endmodule\n";
    let e = run(u, "P=? [F x=1]", true).unwrap_err();
    assert!(e.contains("rounds to 0"), "{e}");
    // Nesting beyond the parser's limit: refused at its place, not a stack overflow.
    for (open, close) in [
        ("(".repeat(5000), ")".repeat(5000)),
        ("-".repeat(5000), String::new()),
    ] {
        let text =
            format!("dtmc\nmodule m\n x : [0..1] init 0;\n [] x={open}0{close} -> (x'=1-x);\nendmodule\n");
        let e = run(&text, "P=? [F x=1]", false).unwrap_err();
        assert!(e.contains("nests more than 100 levels deep"), "{e}");
    }
    let sum = format!(
        "dtmc\nmodule m\n x : [0..1] init 0;\n [] x=0{} -> (x'=1-x);\nendmodule\n",
        "+0".repeat(5000)
    );
    assert!(
        run(&sum, "P=? [F x=1]", false)
            .unwrap_err()
            .contains("nests more than 100")
    );
    // Formulas doubling at each level: refused by their expanded size.
    let mut f = String::from("dtmc\nformula f0 = x;\n");
    for i in 1..40 {
        f += &format!("formula f{i} = f{}+f{};\n", i - 1, i - 1);
    }
    f += "module m\n x : [0..1] init 0;\n [] f39>=0 -> (x'=1-x);\nendmodule\n";
    assert!(
        run(&f, "P=? [F x=1]", false)
            .unwrap_err()
            .contains("expands to more than 1000000 parts")
    );
    // Exact constants defined through each other twice per level: evaluated once each.
    let mut c = String::from("dtmc\nconst double c0 = 1/2;\n");
    for i in 1..41 {
        c += &format!("const double c{i} = (c{}+c{})/2;\n", i - 1, i - 1);
    }
    c += "module m\n x : [0..1] init 0;\n [] x=0 -> c40:(x'=1) + (1-c40):(x'=0);\n [] x=1 -> true;\nendmodule\n";
    assert_eq!(run(&c, "P=? [F<=1 x=1]", true), Ok(Answer::Number(0.5)));
    // Exact powers too large to hold: refused.
    let p = "dtmc\nmodule m\n x : [0..1] init 0;\n [] x=0 -> pow(pow(0.5,100000),100000):(x'=1) + (1-pow(pow(0.5,100000),100000)):(x'=0);\n [] x=1 -> true;\nendmodule\n";
    assert!(
        run(p, "P=? [F x=1]", true)
            .unwrap_err()
            .contains("more than 1048576 bits")
    );
    // Bounded operators: a fixed point ends the steps early; too many steps are refused.
    let b = "dtmc\nmodule m\n x : [0..2] init 0;\n [] x=0 -> 0.5:(x'=1) + 0.5:(x'=2);\n [] x>0 -> true;\nendmodule\n";
    assert_eq!(run(b, "P=? [F<=100000000 x=1]", false), Ok(Answer::Number(0.5)));
    assert!(run(b, "R=? [C<=2147483647]", false).is_err());
}

/// `R [C<=k]` for k beyond the work limit (2·10^9 steps of the snakes board): the increments'
/// bracket (the gain is 0: the game ends) gives an interval that holds the expected rolls until
/// the end, 35.834938413695… (`R [F pos=100]`, as `kolmo snakes`).
#[test]
fn cumulative_reward_over_billions_of_steps_is_bracketed() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models");
    let r = check(
        &examples.join("snakes.pm"),
        &["R=? [C<=2000000000]", "R=? [F pos=100]"],
        "",
    )
    .unwrap();
    let (c, f) = (&r.results[0], &r.results[1]);
    let Answer::Number(v) = f.value else {
        panic!("a number")
    };
    assert!(c.lower.unwrap() <= v && v <= c.upper.unwrap(), "{c:?}");
    assert!(c.upper.unwrap() - c.lower.unwrap() < 1e-3, "{c:?}");
    assert!(c.method.contains("bracketed"), "{}", c.method);
}

/// PRISM-games' reward variants on a chain, by hand: from s0 a step earning 1 loops back with
/// 1/2, reaches the target s1 with 1/4 and the sink s2 with 1/4. The steps spent in s0 are
/// geometric with mean 2 and independent of where the chain leaves to, so `F0` (a path that
/// misses the target earns nothing) is 2 · 1/2 = 1, `Fc` (it keeps what it earned) is 2, `F`
/// is +∞ (the target may be missed); with the sink earning 1 per step, `Fc` is +∞ and `F0`
/// still 1. `Fc` equals `C` once the target is absorbing, and F0 ≤ Fc.
#[test]
fn reward_variants_f0_and_fc_on_a_chain() {
    let (_dir, path) = model(
        "dtmc
module m
  s : [0..2] init 0;
  [] s=0 -> 1/2:(s'=0) + 1/4:(s'=1) + 1/4:(s'=2);
  [] s>0 -> true;
endmodule
rewards \"r\"
  s=0 : 1;
endrewards
rewards \"sink\"
  s=0 | s=2 : 1;
endrewards
",
    );
    let props = [
        "R{\"r\"}=? [F0 s=1]",
        "R{\"r\"}=? [Fc s=1]",
        "R{\"r\"}=? [F s=1]",
        "R{\"sink\"}=? [Fc s=1]",
        "R{\"sink\"}=? [F0 s=1]",
    ];
    let r = check(&path, &props, "").unwrap();
    let want = [1.0, 2.0, f64::INFINITY, f64::INFINITY, 1.0];
    for (i, w) in want.iter().enumerate() {
        let v = number(&r, i);
        assert!(
            v == *w || (v - w).abs() <= r.results[i].error_bound + 1e-12,
            "{}: {v} against {w}",
            props[i]
        );
        if w.is_finite() {
            let (lo, hi) = (r.results[i].lower.unwrap(), r.results[i].upper.unwrap());
            assert!(lo <= *w && *w <= hi, "{}: [{lo}, {hi}]", props[i]);
        }
    }
    // On an MDP, F0 is refused with the reason; Fc is the total with the target absorbing.
    let (_dir2, mdp) = model(
        "mdp
module m
  s : [0..2] init 0;
  [a] s=0 -> 1/2:(s'=0) + 1/4:(s'=1) + 1/4:(s'=2);
  [b] s=0 -> (s'=2);
  [] s>0 -> true;
endmodule
rewards
  [a] true : 1;
  [b] true : 5;
endrewards
",
    );
    let e = check(&mdp, &["Rmax=? [F0 s=1]"], "").unwrap_err().to_string();
    assert!(e.contains("F0") && e.contains("Markov chains only"), "{e}");
    // Max: take b at once (5) rather than loop on a (2 then, with 1/2, b later: 2·... < 5).
    // From s0 under "a until leaving" the total is 2; choosing b gives 5; mixing: v = max(1 +
    // v/2, 5) = 5. Min: a (the b alternative costs 5): v = 1 + v/2 → 2.
    let r = check(&mdp, &["Rmax=? [Fc s=1]", "Rmin=? [Fc s=1]"], "").unwrap();
    assert!(
        (number(&r, 0) - 5.0).abs() < 1e-9 && (number(&r, 1) - 2.0).abs() < 1e-9,
        "{:?}",
        r.results
    );
}

/// A probability's certified interval stays inside [0, 1] (the bound around a value of 1, or of
/// nearly 0, would reach past it); a reward's is not clamped.
#[test]
fn probability_intervals_stay_in_the_unit_interval() {
    let (_dir, path) = model(
        "dtmc
module m
  s : [0..2] init 0;
  [] s=0 -> 1/3:(s'=1) + 2/3:(s'=0);
  [] s>0 -> true;
endmodule
",
    );
    let r = check(
        &path,
        &["P=? [F s=1]", "P=? [F s=2]", "P=? [F<=3 s=1]", "P=? [X s<=1]"],
        "",
    )
    .unwrap();
    for res in &r.results {
        let (lo, hi) = (res.lower.unwrap(), res.upper.unwrap());
        assert!(
            (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi) && lo <= hi,
            "{}: [{lo}, {hi}]",
            res.property
        );
    }
    assert_eq!(r.results[0].upper, Some(1.0));
    assert_eq!(r.results[1].lower, Some(0.0));
    // One step from s=0 stays in s<=1 with 1/3 + 2/3 = 1, computed with a positive bound.
    assert!(r.results[3].error_bound > 0.0);
    assert_eq!(r.results[3].upper, Some(1.0));
}
