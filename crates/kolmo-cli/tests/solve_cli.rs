//! `kolmo solve` end to end, against the reference values of shared/cases/08-mdp.md.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn kolmo() -> Command {
    Command::cargo_bin("kolmo").unwrap()
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/models")
        .join(name)
}

fn solve(file: &Path, args: &[&str]) -> Value {
    let out = kolmo()
        .arg("solve")
        .arg(file)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

// MDPToolbox's forest example (S = 3, r1 = 4, r2 = 2, p = 0.1) in kolmo JSON: choices wait, cut.
const FOREST: &str = r#"{
  "type": "mdp",
  "states": 3,
  "transitions": {
    "0": {"wait": {"0": 0.1, "1": 0.9}, "cut": {"0": 1}},
    "1": {"wait": {"0": 0.1, "2": 0.9}, "cut": {"0": 1}},
    "2": {"wait": {"0": 0.1, "2": 0.9}, "cut": {"0": 1}}
  },
  "rewards": {"wood": {"action": {"0": {"wait": 0, "cut": 0}, "1": {"wait": 0, "cut": 1}, "2": {"wait": 4, "cut": 2}}}}
}"#;

// Published (MDPToolbox's PolicyIteration docstring; exact values re-derived in the case file):
// γ = 0.9: V* = (6561/250, 7371/250, 8371/250), policy (wait, wait, wait). γ = 0.99: the true
// optimum 317.55…, where pymdptoolbox's value iteration stops at 6.4 (issue 6).
#[test]
fn forest_discounted_exact_and_099() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("forest.json");
    std::fs::write(&file, FOREST).unwrap();
    let v = solve(&file, &["--objective", "discounted:0.9", "--exact"]);
    assert_eq!(v["values_exact"], json!(["6561/250", "7371/250", "8371/250"]));
    assert_eq!(v["policy"], json!(["wait", "wait", "wait"]));
    assert!((v["values"][0].as_f64().unwrap() - 26.244).abs() <= v["error_bound"].as_f64().unwrap());
    for args in [
        &["--objective", "discounted:0.99"][..],
        &["--objective", "discounted:0.99", "--value-iteration"],
    ] {
        let v = solve(&file, args);
        let x = v["values"][0].as_f64().unwrap();
        assert!(x > 317.55 && x < 317.56, "{args:?}: {x}");
        assert!(
            v["error_bound"].as_f64().unwrap() < 1e-8,
            "{args:?}: {}",
            v["error_bound"]
        );
    }
}

// examples/models/shortcut-mdp.json: walking takes 5 + 5 minutes and returns to the start w.p.
// 1/10, so E = 10/(1 − 1/10) = 100/9 ≈ 11.11 beats the shortcut (3 minutes, but the river w.p. 1/4
// never reaches home: +∞). Max P(home) = 1 (walk), min = 3/4 (shortcut).
#[test]
fn shortcut_rewards_and_reachability() {
    let file = example("shortcut-mdp.json");
    let v = solve(&file, &["--objective", "min-reward:goal"]);
    assert!(
        (v["values"][0].as_f64().unwrap() - 100.0 / 9.0).abs()
            <= v["error_bound"].as_f64().unwrap().max(1e-14)
    );
    assert_eq!(v["policy"][0], "walk");
    assert_eq!(v["values"][3], "inf");
    let x = solve(&file, &["--objective", "min-reward:goal", "--exact"]);
    assert_eq!(x["values_exact"], json!(["100/9", "55/9", "0", "inf"]));
    let x = solve(&file, &["--objective", "min-reach:goal", "--exact"]);
    assert_eq!(x["values_exact"][0], "3/4");
    let v = solve(&file, &["--objective", "max-reach:goal"]);
    assert_eq!(v["values"][0], 1.0);
    // Maximising the minutes: the shortcut may end in the river, never home: +∞ from the start;
    // from the path every choice reaches home.
    let v = solve(&file, &["--objective", "max-reward:goal"]);
    assert_eq!(v["values"][0], "inf");
    assert_eq!(v["policy"][0], "shortcut");
    let v = solve(&file, &["--objective", "min-reach:goal"]);
    assert!((v["values"][0].as_f64().unwrap() - 0.75).abs() <= v["error_bound"].as_f64().unwrap());
    assert_eq!(v["policy"][0], "shortcut");
}

// Puterman (1994) §3.1 two-state example, β = 0.95: v* = (−60/7, −20) (Example 6.2.1).
#[test]
fn puterman_two_state_exact() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.json");
    std::fs::write(
        &file,
        r#"{"type": "mdp", "states": ["s1", "s2"],
            "transitions": {"s1": {"a11": {"s1": 0.5, "s2": 0.5}, "a12": {"s2": 1}}, "s2": {"a21": {"s2": 1}}},
            "rewards": {"r": {"action": {"s1": {"a11": 5, "a12": 10}, "s2": {"a21": -1}}}}}"#,
    )
    .unwrap();
    let v = solve(&file, &["--objective", "discounted:0.95", "--exact"]);
    assert_eq!(v["values_exact"], json!(["-60/7", "-20"]));
    assert_eq!(v["policy"], json!(["a11", "a21"]));
    let v = solve(&file, &["--objective", "horizon:1"]);
    assert_eq!(v["values"], json!([10.0, -1.0]));
}

// Every solver's iteration limit is a flag, and the message reaching it names it (issue 15 §4):
// the forest's gain bracket after 2 stages is still [0.45, 3.8]; value iteration at γ = 0.99
// needs thousands of sweeps.
#[test]
fn iteration_limits_name_their_flag() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("forest.json");
    std::fs::write(&file, FOREST).unwrap();
    for objective in [
        &["--objective", "average"][..],
        &["--objective", "discounted:0.99", "--value-iteration"],
    ] {
        kolmo()
            .arg("solve")
            .arg(&file)
            .args(objective)
            .args(["--max-iterations", "2"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("stopped after 2 steps"))
            .stderr(predicate::str::contains("raise --max-iterations, now 2"));
    }
    kolmo()
        .arg("solve")
        .arg(&file)
        .args(["--objective", "average", "--max-iterations", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--max-iterations"));
    let v = solve(&file, &["--objective", "average", "--max-iterations", "1000"]);
    assert!((v["values"][0].as_f64().unwrap() - 3.24).abs() <= v["error_bound"].as_f64().unwrap() + 1e-15);
}

// The forest under the average criterion: always waiting, π = (0.1, 0.09, 0.81), gain 4·0.81 = 3.24.
#[test]
fn forest_average() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("forest.json");
    std::fs::write(&file, FOREST).unwrap();
    let v = solve(&file, &["--objective", "average"]);
    assert!((v["values"][0].as_f64().unwrap() - 3.24).abs() <= v["error_bound"].as_f64().unwrap() + 1e-15);
    assert_eq!(v["policy"], json!(["wait", "wait", "wait"]));
    // Bias of always waiting, by hand from h = r − g + P h, π h = 0: (−6.48, −2.88, 1.12).
    for (x, y) in v["bias"].as_array().unwrap().iter().zip([-6.48, -2.88, 1.12]) {
        assert!((x.as_f64().unwrap() - y).abs() < 1e-12, "{}", v["bias"]);
    }
    // --exact is not silently dropped (issue 15 §2): the JSON and the text say why there are no
    // fractions, and the values are those above.
    let x = solve(&file, &["--objective", "average", "--exact"]);
    assert!(
        x["exact_error"]
            .as_str()
            .unwrap()
            .contains("no exact solver for the long-run average")
    );
    assert_eq!(x["values"], v["values"]);
    let out = kolmo()
        .arg("solve")
        .arg(&file)
        .args(["--objective", "average", "--exact"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("note: no exact values: kolmo has no exact solver for the long-run average"),
        "{text}"
    );
}

#[test]
fn bad_objectives_exit_2() {
    let file = example("shortcut-mdp.json");
    for (objective, needle) in [
        ("bogus", "unknown"),
        ("max-reach:nowhere", "no label"),
        ("discounted:1", "from 0 to below 1"),
        ("max-reach", "name a label"),
    ] {
        let out = kolmo()
            .arg("solve")
            .arg(&file)
            .args(["--objective", objective])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{objective}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{objective}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
}

// The same forest as MDPToolbox users store it (P: A×S×S, R: S×A, discount 0.9 in the file) and as
// .npy arrays made by mdptoolbox.example.forest() (crates/kolmo/tests/data/arrays/make_arrays.py).
#[test]
fn forest_arrays_json_and_npy() {
    let v = solve(&example("forest.json"), &["--objective", "discounted", "--exact"]);
    assert_eq!(v["values_exact"], json!(["6561/250", "7371/250", "8371/250"]));
    assert_eq!(v["policy"], json!(["0", "0", "0"]));
    let npy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kolmo/tests/data/arrays/forest.P.npy");
    let v = solve(&npy, &["--objective", "discounted:0.9"]);
    assert!((v["values"][2].as_f64().unwrap() - 33.484).abs() <= v["error_bound"].as_f64().unwrap());
}

// A multichain MDP: from "start" go to "one" (reward 1 per step forever), to the cycle "high" ⇄
// "low" (4 then 0: gain 2), or stay (1.5). Max gain per state: (2, 1, 2, 2); min from start: 1.
#[test]
fn multichain_average() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("worlds.json");
    std::fs::write(
        &file,
        r#"{"type": "mdp", "states": ["start", "one", "high", "low"],
            "transitions": {"start": {"one": {"one": 1}, "cycle": {"high": 1}, "stay": {"start": 1}},
                            "one": {"stay": {"one": 1}}, "high": {"go": {"low": 1}}, "low": {"go": {"high": 1}}},
            "rewards": {"r": {"action": {"start": {"one": 0, "cycle": 0, "stay": 1.5}, "one": {"stay": 1},
                                         "high": {"go": 4}, "low": {"go": 0}}}}}"#,
    )
    .unwrap();
    let v = solve(&file, &["--objective", "average"]);
    let bound = v["error_bound"].as_f64().unwrap();
    for (g, want) in v["values"].as_array().unwrap().iter().zip([2.0, 1.0, 2.0, 2.0]) {
        assert!((g.as_f64().unwrap() - want).abs() <= bound + 1e-15, "{v}");
    }
    assert_eq!(v["policy"][0], "cycle");
    let v = solve(&file, &["--objective", "average", "--min"]);
    assert!((v["values"][0].as_f64().unwrap() - 1.0).abs() <= v["error_bound"].as_f64().unwrap() + 1e-15);
}

// Found by a break-it pass: overflowing values are refused (exit 1), not printed as NaN; an exact
// answer that cannot be had leaves the decimals with a note.
#[test]
fn overflow_and_exact_failures() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.json");
    std::fs::write(
        &big,
        r#"{"type":"mdp","states":2,"transitions":{"0":[{"1":1}],"1":[{"1":1}]},"labels":{"t":[1]},"rewards":{"a":{"state":[1e308,1e308]}}}"#,
    )
    .unwrap();
    let out = kolmo()
        .arg("solve")
        .arg(&big)
        .args(["--objective", "discounted:0.9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("overflow"));
    // Probabilities that sum to 1 only in floating point and are no simple fractions: no exact
    // answer, the decimals with a note.
    let odd = dir.path().join("odd.json");
    std::fs::write(
        &odd,
        r#"{"type":"mdp","states":2,"transitions":{"0":[{"0":1}],"1":[{"0":0.1234567891234567,"1":0.8765432108765432}]},"labels":{"t":[0]},"rewards":{"r":{"state":[0,1]}}}"#,
    )
    .unwrap();
    let v = solve(&odd, &["--objective", "min-reward:t", "--exact"]);
    assert!(
        v["exact_error"].as_str().unwrap().contains("not exactly 1"),
        "{}",
        v["exact_error"]
    );
    assert!(v["values"][1].as_f64().is_some());
    // The JSON's notes are the text report's (issue 15 §2: `--exact --json` dropped this one).
    let why = format!("no exact values: {}", v["exact_error"].as_str().unwrap());
    let notes = v["notes"].as_array().unwrap();
    assert_eq!(
        notes.last().and_then(|n| n.as_str()),
        Some(why.as_str()),
        "{notes:?}"
    );
    // Decimals that are not fractions with small denominators are used as written (issue 14):
    // from state 1 the reward 1 per step until leaving with probability 0.1234567891.
    let decimals = dir.path().join("decimals.json");
    std::fs::write(
        &decimals,
        r#"{"type":"mdp","states":2,"transitions":{"0":[{"0":1}],"1":[{"0":0.1234567891,"1":0.8765432109}]},"labels":{"t":[0]},"rewards":{"r":{"state":[0,1]}}}"#,
    )
    .unwrap();
    let v = solve(&decimals, &["--objective", "min-reward:t", "--exact"]);
    assert_eq!(v["values_exact"][1], "10000000000/1234567891", "{v}");
}

// Rewards as written: 1/3000001 per visit of state 0 and 2/7000003 for its action 0 are fractions
// that recovery from floating point does not find (denominators above 2²⁰); --exact uses them.
#[test]
fn exact_solves_use_the_rewards_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cost.drn");
    std::fs::write(
        &file,
        "@type: MDP\n@parameters\n\n@value_type: rational\n@reward_models\ncost\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 [1/3000001] init\n\taction 0 [2/7000003]\n\t\t1 : 1\n\taction 1 [0]\n\t\t0 : 1/2\n\t\t1 : 1/2\nstate 1 [0] goal\n\taction 0 [0]\n\t\t1 : 1\n",
    )
    .unwrap();
    // 1/3000001 + 2/7000003 = 13000005/21000016000003.
    let v = solve(&file, &["--objective", "horizon:1", "--exact"]);
    assert_eq!(v["values_exact"], json!(["13000005/21000016000003", "0"]));
    let v = solve(&file, &["--objective", "min-reward:goal", "--exact"]);
    assert_eq!(v["values_exact"], json!(["13000005/21000016000003", "0"]));
}

/// Every `help:` line of `solve` names flags `solve` has (issue 15 §4): a row that does not sum
/// to 1 is refused "or ask to normalize", and `--normalize` then reads it (normalized, with a
/// note): the chain 0 → {0: 0.45, 1: 0.45} (rescaled 1/2, 1/2), 1 absorbing, reaches 1 surely.
#[test]
fn solve_has_the_flags_its_help_names() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("short.json");
    std::fs::write(
        &file,
        r#"{"type": "mdp", "states": 2, "labels": {"done": [1]},
            "transitions": {"0": {"go": {"0": 0.45, "1": 0.45}}, "1": {"stay": {"1": 1}}}}"#,
    )
    .unwrap();
    let out = kolmo()
        .arg("solve")
        .arg(&file)
        .args(["--objective", "max-reach:done"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ask to normalize") && !err.contains("--method"),
        "{err}"
    );
    let v = solve(&file, &["--objective", "max-reach:done", "--normalize"]);
    let text = v.to_string();
    assert!(text.contains("normalized 1 row(s)"), "{text}");
    assert_eq!(v["values"][0].as_f64(), Some(1.0), "{text}");
}

// Issue 15 §2: rational discounts on the command line and in files, and with --exact the decimal
// beside each fraction is that fraction's. The forest (always wait) with γ = 10/11, solved by
// hand in fractions: v = (I − γP)⁻¹ r = (324/11, 360/11, 404/11).
#[test]
fn rational_discounts_and_decimals_that_are_their_fractions() {
    let v = solve(
        &example("forest.json"),
        &["--objective", "discounted:10/11", "--exact"],
    );
    assert_eq!(v["values_exact"], json!(["324/11", "360/11", "404/11"]));
    assert_eq!(v["values"], json!([324.0 / 11.0, 360.0 / 11.0, 404.0 / 11.0]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("forest.json");
    let text = std::fs::read_to_string(example("forest.json")).unwrap();
    assert!(text.contains("\"discount\": 0.9"));
    std::fs::write(
        &file,
        text.replace("\"discount\": 0.9", "\"discount\": \"10/11\""),
    )
    .unwrap();
    let w = solve(&file, &["--objective", "discounted", "--exact"]);
    assert_eq!(w["values_exact"], v["values_exact"]);
    assert_eq!(w["objective"], "discounted");
    // γ = 0.9999999999: the values are about 3.24·10¹⁰ and the f64 solve's bound is wide; the
    // printed decimals must be the exact fractions rounded (the f64 answer was 3.7·10³ off).
    let x = solve(
        &example("forest.json"),
        &["--objective", "discounted:0.9999999999", "--exact"],
    );
    for (d, q) in x["values"]
        .as_array()
        .unwrap()
        .iter()
        .zip(x["values_exact"].as_array().unwrap())
    {
        let (p, r) = q.as_str().unwrap().split_once('/').unwrap();
        let (p, r): (f64, f64) = (p.parse().unwrap(), r.parse().unwrap());
        assert!((d.as_f64().unwrap() - p / r).abs() <= 1e-4, "{d} vs {q}");
    }
    assert!(x["error_bound"].as_f64().unwrap() < 1e-5, "{}", x["error_bound"]);
    // Discounts out of range, written either way, are refused with exit 2.
    for bad in ["discounted:11/10", "discounted:1", "discounted:-1/2"] {
        kolmo()
            .args([
                "solve",
                example("forest.json").to_str().unwrap(),
                "--objective",
                bad,
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("from 0 to below 1"));
    }
}

// Issue 15 §5: horizon:K takes the file's discount (MDPToolbox's FiniteHorizon), horizon:K:G a
// given one, horizon:K:1 none. Forest over 3 steps, by hand in fractions: γ = 9/10 gives
// (26973, 59373, 99373)/10⁴, undiscounted (333, 693, 1093)/100.
#[test]
fn finite_horizons_discount_as_the_file_or_the_flag_says() {
    let forest = example("forest.json");
    let file = solve(&forest, &["--objective", "horizon:3", "--exact"]);
    assert_eq!(
        file["values_exact"],
        json!(["26973/10000", "59373/10000", "99373/10000"])
    );
    assert!(
        file["description"].as_str().unwrap().contains("γ = 9/10"),
        "{}",
        file["description"]
    );
    let given = solve(&forest, &["--objective", "horizon:3:9/10", "--exact"]);
    assert_eq!(given["values_exact"], file["values_exact"]);
    let none = solve(&forest, &["--objective", "horizon:3:1", "--exact"]);
    assert_eq!(none["values_exact"], json!(["333/100", "693/100", "1093/100"]));
    kolmo()
        .args(["solve", forest.to_str().unwrap(), "--objective", "horizon:3:2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the discount 2 must be"));
}

// Issue 15 §1: a nearly absorbing state (it stays with 0.999999) keeps its bound, but the bounds
// printed for probabilities stay inside [0, 1]: the goal's 1 and the trap's 0 are not widened
// past them. P(goal) from 0 = 0.9 exactly (0.0000009 of the 0.000001 that leaves).
#[test]
fn probability_bounds_stay_inside_0_and_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("na.drn");
    std::fs::write(
        &file,
        "@type: DTMC\n@nr_states\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.999999\n\t\t1 : 0.0000009\n\t\t2 : 0.0000001\n\
         state 1 goal\n\taction 0\n\t\t1 : 1\nstate 2\n\taction 0\n\t\t2 : 1\n",
    )
    .unwrap();
    let v = solve(&file, &["--objective", "max-reach:goal"]);
    let e = v["error_bound"].as_f64().unwrap();
    assert!(e > 0.0 && e < 1e-8, "{e}");
    assert!((v["values"][0].as_f64().unwrap() - 0.9).abs() <= e);
    assert_eq!(v["upper"][1], 1.0);
    assert_eq!(v["lower"][2], 0.0);
    assert!(v["lower"][1].as_f64().unwrap() < 1.0 && v["upper"][2].as_f64().unwrap() > 0.0);
}

// With --exact a finite horizon's printed first decisions are the exact solver's (issue 15 §2):
// from state 0, choice 0 earns 0.3 and ends, choice 1 earns 0.1 then 0.2 — a tie in fractions
// (the first choice kept), but 0.1 + 0.2 = 0.30000000000000004 in f64, which prefers choice 1.
#[test]
fn exact_horizon_decisions_are_the_exact_solvers() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tie.json");
    std::fs::write(
        &file,
        r#"{"P": [[[0, 0, 1], [0, 0, 1], [0, 0, 1]], [[0, 1, 0], [0, 0, 1], [0, 0, 1]]],
 "R": [[0.3, 0.1], [0.2, 0.2], [0, 0]]}"#,
    )
    .unwrap();
    let f = solve(&file, &["--objective", "horizon:2"]);
    assert_eq!(f["policy"][0], "1");
    let x = solve(&file, &["--objective", "horizon:2", "--exact"]);
    assert_eq!(x["policy"][0], "0");
    assert_eq!(x["decisions"][0][0], 0);
    assert_eq!(x["values_exact"][0], "3/10");
}

// The long-run average's bracket covers rounding (found by a helper trying to break it): state 1
// may loop on itself earning −2/7, the least reward there is, so the minimal gain is exactly
// −2/7 from both states; value iteration's computed bracket missed it by 1e-15 before.
#[test]
fn average_bracket_covers_the_exact_gain() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("av.json");
    std::fs::write(
        &file,
        r#"{"P": [[["1/3","2/3"],["0","1"]],[["1","0"],["1/10","9/10"]]], "R": [[ "1/10","5"],["-2/7","1/7"]]}"#,
    )
    .unwrap();
    let v = solve(&file, &["--objective", "average", "--min"]);
    let exact = -2.0 / 7.0;
    for s in 0..2 {
        let (lo, hi) = (v["lower"][s].as_f64().unwrap(), v["upper"][s].as_f64().unwrap());
        assert!(lo <= exact && exact <= hi, "state {s}: [{lo}, {hi}] misses -2/7");
        let x = v["values"][s].as_f64().unwrap();
        assert!((x - exact).abs() <= v["error_bound"].as_f64().unwrap());
    }
}
