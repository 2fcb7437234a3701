//! `kolmo check` end to end: PRISM-language models and model files, properties from a file and
//! from --prop, constants and experiments, --export, deadlocks, and what it must refuse. Every
//! value is checked against a reference: shared/cases (snakes, Grinstead & Snell) or a
//! derivation by hand written beside the model, and must lie in the certified [lower, upper].

use assert_cmd::Command;
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

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `kolmo check MODEL ARGS --json`, which must succeed: its JSON document.
fn check_json(model: &Path, args: &[&str]) -> Value {
    let out = kolmo()
        .arg("check")
        .arg(model)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `kolmo check MODEL ARGS` (the text report), which must succeed.
fn check_text(model: &Path, args: &[&str]) -> String {
    let out = kolmo().arg("check").arg(model).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `kolmo check ARGS`, which must exit with `code` and print nothing on stdout: its stderr.
fn refused(args: &[&str], code: i32) -> String {
    let out = kolmo().arg("check").args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{args:?}: printed on stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

fn results(doc: &Value) -> &Vec<Value> {
    doc["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {doc}"))
}

/// The result of the property written `property` (results keep the properties' order, so the
/// i-th is also checked to be the i-th asked).
fn result<'a>(doc: &'a Value, i: usize, property: &str) -> &'a Value {
    let r = &results(doc)[i];
    assert_eq!(r["property"], property, "result {i}: {r}");
    r
}

fn number(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        _ => v.as_f64().unwrap_or_else(|| panic!("not a number: {v}")),
    }
}

/// A numeric result: lower <= value <= upper, and the exact value (up to its own rounding to
/// f64) inside [lower, upper], an interval no wider than 1e-9 relative.
fn assert_certified(r: &Value, exact: f64) {
    let (v, lo, hi) = (number(&r["value"]), number(&r["lower"]), number(&r["upper"]));
    assert!(lo <= v && v <= hi, "{r}");
    let slack = exact.abs() * f64::EPSILON;
    assert!(
        lo - slack <= exact && exact <= hi + slack,
        "exact {exact} outside {r}"
    );
    assert!(hi - lo <= 1e-9 * exact.abs().max(1.0), "interval too wide: {r}");
}

/// A result of +∞: value, lower and upper all "inf".
fn assert_inf(r: &Value) {
    assert_eq!(
        (&r["value"], &r["lower"], &r["upper"]),
        (&json!("inf"), &json!("inf"), &json!("inf")),
        "{r}"
    );
}

/// A true/false result: no interval.
fn assert_bool(r: &Value, b: bool) {
    assert_eq!(r["value"], json!(b), "{r}");
    assert!(r["lower"].is_null() && r["upper"].is_null(), "{r}");
}

// A hand-made chain. s=0 moves to s=1 w.p. p = 3/10 and into the trap s=2 w.p. 7/10; s=1 moves
// back to s=0 or to the goal s=3 w.p. 1/2 each; s=2 and s=3 are absorbing. One unit of "steps"
// per step in s=0 or s=1. By hand:
// - P(F goal): x0 = p·x1, x1 = 1/2·x0 + 1/2, so x0 = p/(2 − p) = 3/17; the trap is reached with
//   the rest, 14/17, so P(G !trap) = 3/17 and S=? [goal] (absorbed there) = 3/17.
// - Steps until s>=2: e0 = 1 + p·e1, e1 = 1 + e0/2, so e0 = (1 + p)/(1 − p/2) = 26/17; R [C] is
//   the same (the absorbing states earn nothing). Steps until the goal: +∞ (the trap).
// - X s=1: 3/10. F<=2 goal: only 0→1→3, 3/10 · 1/2 = 3/20; F<=4 adds 0→1→0→1→3: 3/20 + (3/20)²
//   = 69/400.
// - C<=2: the reward at time 0 (1) and at time 1 (1 w.p. 3/10): 13/10. I=1: P(s=1 at 1) = 3/10;
//   I=2: P(s=0 at 2) = 3/20 (from s=1 half go back).
// Model: 4 states, 2 + 2 + 1 + 1 = 6 transitions.
const CHAIN: &str = "\
// a hand-made chain
dtmc

const double p = 0.3;

module m
  s : [0..3] init 0;
  [] s=0 -> p:(s'=1) + (1-p):(s'=2);
  [] s=1 -> 0.5:(s'=0) + 0.5:(s'=3);
  [] s=2 -> (s'=2);
  [] s=3 -> (s'=3);
endmodule

label \"goal\" = s=3;
label \"trap\" = s=2;

rewards \"steps\"
  s<2 : 1;
endrewards
";

// A hand-made MDP. In s=0, `safe` stays or moves to s=1 w.p. 1/2 each; `risky` reaches the goal
// s=3 w.p. 4/5 and the trap s=2 w.p. 1/5; s=1 moves to the goal; s=2, s=3 absorbing. One unit of
// "time" per step in s=0 or s=1. By hand:
// - Pmax(F goal) = 1 (safe forever leaves s=0 almost surely, to s=1, then the goal); Pmin = 4/5
//   (risky; safe only postpones the choice).
// - Rmin(F goal) = 3: only "safe forever" reaches the goal almost surely (risky misses it w.p.
//   1/5: +∞), e0 = 1 + e0/2 + e1/2 with e1 = 1. Rmax = +∞ (risky).
// - Until s>=2 (goal or trap): Rmin = 1 (risky), Rmax = 3 (safe).
// - Pmax(F<=1 goal) = 4/5 (risky). Pmax(F<=2 goal) = safe then risky: 1/2 + 1/2 · 4/5 = 9/10
//   (risky first: 4/5). Pmin(F<=2 goal) = safe twice: 1/2.
// - C<=2: 1 at time 0, and 1 at time 1 iff still in s=0 or s=1: Rmax = 2 (safe), Rmin = 1 (risky).
// - G s!=2: Pmax = 1 − Pmin(F s=2) = 1 (safe), Pmin = 1 − Pmax(F s=2) = 4/5.
// - P>=0.7 [F goal] quantifies over every policy (Pmin = 4/5): true; P>0.9: false.
// Model: 4 states, 2 + 1 + 1 + 1 = 5 choices, 2 + 2 + 1 + 1 + 1 = 7 transitions.
const MDP: &str = "\
mdp

module m
  s : [0..3] init 0;
  [safe] s=0 -> 0.5:(s'=1) + 0.5:(s'=0);
  [risky] s=0 -> 0.8:(s'=3) + 0.2:(s'=2);
  [] s=1 -> (s'=3);
  [] s=2 -> (s'=2);
  [] s=3 -> (s'=3);
endmodule

label \"goal\" = s=3;

rewards \"time\"
  s<2 : 1;
endrewards
";

// shared/cases/01-snakes.md (rule clamp): expected rolls from cell 0 = 35.834938413695426 (exact
// fraction there), from cell 6 = 35.68926185736878; P(finished by turn k): 20 0.2748926611928901,
// 40 0.6925393455227666, 80 0.9466968134282799.
const SNAKES_E0: f64 = 35.834938413695426;
const SNAKES_F20: f64 = 0.2748926611928901;

// The whole --json document on examples/models/snakes.pm. Its model: cells 0..100 less the 9
// ladder feet and the 10 snake heads (a token never stands there): 82 states. Transitions: 6
// per cell below 100 (81 · 6 = 486) less the rolls that land on the same cell (96: 2, 97: 3,
// 99: 5 clamped to 100; 50 and 52 reach 53 directly and by the snake 56→53; 58 and 59 reach 60
// directly and by the snake 64→60: 14 in all), plus the self-loop at 100: 473.
#[test]
fn json_document_on_snakes() {
    let doc = check_json(
        &example("snakes.pm"),
        &[
            "--prop",
            "R=? [F pos=100]",
            "--prop",
            "P=? [F<=20 pos=100]",
            "--prop",
            "P=? [F<=40 \"finished\"]",
            "--prop",
            "filter(state, R{\"rolls\"}=? [F pos=GOAL], pos=6)",
            "--prop",
            "P>=0.25 [F<=20 \"finished\"]",
        ],
    );
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["constants", "model", "results", "seconds"], "{doc}");
    assert_eq!(
        doc["model"],
        json!({"type": "dtmc", "states": 82, "transitions": 473, "choices": 82,
               "initial_states": 1, "deadlocks": 0})
    );
    assert_eq!(doc["constants"], json!({"GOAL": 100}));
    for phase in ["parse", "build", "check"] {
        assert!(doc["seconds"][phase].as_f64().unwrap() >= 0.0, "{doc}");
    }
    for r in results(&doc) {
        let mut keys: Vec<&String> = r.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "exact", "lower", "method", "name", "property", "seconds", "upper", "value"
            ],
            "{r}"
        );
        assert!(r["name"].is_null(), "{r}");
        assert!(r["exact"].is_null(), "{r}");
        assert!(!r["method"].as_str().unwrap().is_empty(), "{r}");
        assert!(r["seconds"].as_f64().unwrap() >= 0.0, "{r}");
    }
    assert_certified(result(&doc, 0, "R=? [F pos=100]"), SNAKES_E0);
    assert_certified(result(&doc, 1, "P=? [F<=20 pos=100]"), SNAKES_F20);
    assert_certified(result(&doc, 2, "P=? [F<=40 \"finished\"]"), 0.6925393455227666);
    assert_certified(
        result(&doc, 3, "filter(state, R{\"rolls\"}=? [F pos=GOAL], pos=6)"),
        35.68926185736878,
    );
    // 0.2749 >= 0.25, far outside the interval.
    assert_bool(result(&doc, 4, "P>=0.25 [F<=20 \"finished\"]"), true);
}

#[test]
fn text_report_on_snakes() {
    let text = check_text(
        &example("snakes.pm"),
        &["--prop", "R=? [F pos=100]", "--prop", "P=? [F<=20 pos=100]"],
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "dtmc model: 82 states, 473 transitions, 1 initial state"
    );
    assert!(lines.contains(&"constants: GOAL=100"), "{text}");
    assert!(!text.contains("deadlock"), "{text}");
    let first = text.find("R=? [F pos=100]").unwrap();
    let second = text.find("P=? [F<=20 pos=100]").unwrap();
    assert!(first < second, "{text}");
    assert!(text.contains("  result   35.83493841369"), "{text}");
    assert!(text.contains("  result   0.27489266119289"), "{text}");
    assert_eq!(text.matches("  bound    within [").count(), 2, "{text}");
}

#[test]
fn hand_made_chain_every_operator() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "chain.pm", CHAIN);
    let props = [
        "P=? [F \"goal\"]",
        "P=? [!\"trap\" U \"goal\"]",
        "P=? [G !\"trap\"]",
        "S=? [\"goal\"]",
        "R{\"steps\"}=? [F s>=2]",
        "R=? [C]",
        "R=? [F \"goal\"]",
        "T=? [F \"goal\"]",
        "P=? [X s=1]",
        "P=? [F<=2 \"goal\"]",
        "P=? [F<3 \"goal\"]",
        "P=? [F<=4 \"goal\"]",
        "R=? [C<=2]",
        "R=? [I=1]",
        "R=? [I=2]",
        "P>=0.5 [F \"goal\"]",
        "P<0.2 [F \"goal\"]",
    ];
    let args: Vec<&str> = props.iter().flat_map(|p| ["--prop", p]).collect();
    let doc = check_json(&model, &args);
    assert_eq!(
        doc["model"],
        json!({"type": "dtmc", "states": 4, "transitions": 6, "choices": 4,
               "initial_states": 1, "deadlocks": 0})
    );
    assert_eq!(doc["constants"], json!({"p": 0.3}));
    assert_eq!(results(&doc).len(), props.len());
    let r = |i: usize| result(&doc, i, props[i]);
    for i in 0..4 {
        assert_certified(r(i), 3.0 / 17.0);
    }
    assert_certified(r(4), 26.0 / 17.0);
    assert_certified(r(5), 26.0 / 17.0);
    assert_inf(r(6));
    assert_inf(r(7));
    assert_certified(r(8), 0.3);
    assert_certified(r(9), 0.15);
    assert_certified(r(10), 0.15);
    assert_certified(r(11), 0.1725);
    assert_certified(r(12), 1.3);
    assert_certified(r(13), 0.3);
    assert_certified(r(14), 0.15);
    assert_bool(r(15), false);
    assert_bool(r(16), true);
}

#[test]
fn hand_made_mdp_every_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "mdp.nm", MDP);
    let props = [
        "Pmax=? [F \"goal\"]",
        "Pmin=? [F \"goal\"]",
        "Rmin=? [F \"goal\"]",
        "Rmax=? [F \"goal\"]",
        "R{\"time\"}min=? [F s>=2]",
        "Rmax=? [F s>=2]",
        "Pmax=? [F<=1 \"goal\"]",
        "Pmax=? [F<=2 \"goal\"]",
        "Pmin=? [F<=2 \"goal\"]",
        "Rmax=? [C<=2]",
        "Rmin=? [C<=2]",
        "Pmax=? [G s!=2]",
        "Pmin=? [G s!=2]",
        "P>=0.7 [F \"goal\"]",
        "P>0.9 [F \"goal\"]",
    ];
    let args: Vec<&str> = props.iter().flat_map(|p| ["--prop", p]).collect();
    let doc = check_json(&model, &args);
    assert_eq!(
        doc["model"],
        json!({"type": "mdp", "states": 4, "transitions": 7, "choices": 5,
               "initial_states": 1, "deadlocks": 0})
    );
    assert_eq!(doc["constants"], json!({}));
    let r = |i: usize| result(&doc, i, props[i]);
    assert_certified(r(0), 1.0);
    assert_certified(r(1), 0.8);
    assert_certified(r(2), 3.0);
    assert_inf(r(3));
    assert_certified(r(4), 1.0);
    assert_certified(r(5), 3.0);
    assert_certified(r(6), 0.8);
    assert_certified(r(7), 0.9);
    assert_certified(r(8), 0.5);
    assert_certified(r(9), 2.0);
    assert_certified(r(10), 1.0);
    assert_certified(r(11), 1.0);
    assert_certified(r(12), 0.8);
    assert_bool(r(13), true);
    assert_bool(r(14), false);
}

// A property file for CHAIN: its own constants (k without a value, given by --const), a label
// and a formula, named and unnamed properties, comments. By hand (see CHAIN): reach 3/17,
// bounded with k = 4: 69/400, steps until done 26/17, 3/17 < 1/2, and G active: the chain
// leaves {s=0, s=1} almost surely, 0.
const CHAIN_PROPS: &str = "\
// Properties of the hand-made chain.
const int k;              // no value here: --const k=4
const double half = 0.5;

label \"done\" = s>=2;
formula active = s<2;

\"reach\": P=? [F \"goal\"];
\"bounded\": P=? [F<=k \"goal\"]; // k steps
// an unnamed one
R{\"steps\"}=? [F \"done\"];
\"cheap\": P<half [F \"goal\"];
\"stay\": P=? [G active];
";

#[test]
fn property_file_named_with_its_own_constants_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "chain.pm", CHAIN);
    let props = write(dir.path(), "chain.pctl", CHAIN_PROPS);
    let doc = check_json(&model, &[path(&props), "--const", "k=4"]);
    assert!(doc.get("experiments").is_none(), "{doc}");
    assert_eq!(doc["constants"], json!({"k": 4, "p": 0.3}));
    let names: Vec<&Value> = results(&doc).iter().map(|r| &r["name"]).collect();
    assert_eq!(
        names,
        [
            &json!("reach"),
            &json!("bounded"),
            &Value::Null,
            &json!("cheap"),
            &json!("stay")
        ]
    );
    assert_certified(result(&doc, 0, "P=? [F \"goal\"]"), 3.0 / 17.0);
    assert_certified(result(&doc, 1, "P=? [F<=k \"goal\"]"), 0.1725);
    assert_certified(result(&doc, 2, "R{\"steps\"}=? [F \"done\"]"), 26.0 / 17.0);
    assert_bool(result(&doc, 3, "P<half [F \"goal\"]"), true);
    assert_certified(result(&doc, 4, "P=? [G active]"), 0.0);
    // The text report names them as written, in order.
    let text = check_text(&model, &[path(&props), "--const", "k=4"]);
    assert!(text.contains("constants: k=4, p=0.3"), "{text}");
    let at: Vec<usize> = [
        "\"reach\": P=? [F \"goal\"]",
        "\"bounded\": P=? [F<=k \"goal\"]",
        "\nR{\"steps\"}=? [F \"done\"]",
        "\"cheap\": P<half [F \"goal\"]\n  result   true",
        "\"stay\": P=? [G active]",
    ]
    .iter()
    .map(|p| text.find(p).unwrap_or_else(|| panic!("no {p}: {text}")))
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}: {text}");
}

// CHAIN with p left open: P(F goal) = p/(2 − p); within k steps the goal is reached on the 2nd,
// 4th, ... step by 0→1→3, 0→1→0→1→3, ...: P(F<=k goal) = Σ_{j=1}^{⌊k/2⌋} (p/2)^j.
const EXPERIMENT_PROPS: &str = "const int k;\nP=? [F<=k \"goal\"];\nP=? [F \"goal\"];\n";

fn bounded_goal(p: f64, k: i64) -> f64 {
    (1..=k / 2).map(|j| (p / 2.0).powi(j as i32)).sum()
}

#[test]
fn const_ranges_give_one_experiment_per_value() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(
        dir.path(),
        "chain.pm",
        &CHAIN.replace("const double p = 0.3;", "const double p;"),
    );
    let props = write(dir.path(), "exp.pctl", EXPERIMENT_PROPS);
    let doc = check_json(&model, &[path(&props), "--const", "p=0.5,k=0:3"]);
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["experiments"], "{doc}");
    let runs = doc["experiments"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    // k = 0, 1: 0; k = 2, 3: p/2 = 1/4; P(F goal) = 1/3 throughout.
    for (k, run) in runs.iter().enumerate() {
        assert_eq!(run["constants"], json!({"k": k, "p": 0.5}), "{run}");
        assert_eq!(run["model"]["states"], 4, "{run}");
        assert_certified(result(run, 0, "P=? [F<=k \"goal\"]"), bounded_goal(0.5, k as i64));
        assert_certified(result(run, 1, "P=? [F \"goal\"]"), 1.0 / 3.0);
    }
    assert_eq!([0, 1, 2, 3].map(|k| bounded_goal(0.5, k)), [0.0, 0.0, 0.25, 0.25]);
    // Two ranges: the last constant varies fastest (as PRISM's experiments), a step for each.
    let doc = check_json(&model, &[path(&props), "--const", "p=0.25:0.25:0.75,k=2:2:4"]);
    let runs = doc["experiments"].as_array().unwrap();
    let want = [(0.25, 2), (0.25, 4), (0.5, 2), (0.5, 4), (0.75, 2), (0.75, 4)];
    assert_eq!(runs.len(), want.len());
    for (run, (p, k)) in runs.iter().zip(want) {
        assert_eq!(run["constants"], json!({"k": k, "p": p}), "{run}");
        assert_certified(result(run, 0, "P=? [F<=k \"goal\"]"), bounded_goal(p, k));
        // 1/7, 1/3, 3/5.
        assert_certified(result(run, 1, "P=? [F \"goal\"]"), p / (2.0 - p));
    }
    // The text report: one block per experiment, each naming its constants.
    let text = check_text(&model, &[path(&props), "--const", "p=0.5,k=0:3"]);
    for k in 0..4 {
        assert!(text.contains(&format!("constants: k={k}, p=0.5")), "{text}");
    }
    assert_eq!(text.matches("dtmc model: 4 states").count(), 4, "{text}");
    assert_eq!(text.matches("  result   0.25\n").count(), 2, "{text}");
}

// A DRN written by hand: from state 0 stay w.p. 1/2, to goal or fail w.p. 1/4 each; a cost of 2
// per step in state 0. P(F goal) = (1/4)/(1/2) = 1/2; expected visits to 0: 2, so cost 4 until
// goal or fail; until goal alone +∞ (fail); F<=2 goal: 1/4 + 1/2 · 1/4 = 3/8.
const HAND_DRN: &str = "\
// hand-made
@type: DTMC
@parameters

@reward_models
cost
@nr_states
3
@model
state 0 [2] init
    action 0 [0]
        0 : 1/2
        1 : 1/4
        2 : 1/4
state 1 [0] goal
    action 0 [0]
        1 : 1
state 2 [0] fail
    action 0 [0]
        2 : 1
";

#[test]
fn model_files_with_properties_over_their_labels() {
    // examples/models/drunkard.json, from 2: absorption probabilities (1/2, 1/2), expected steps
    // t = 4, from 1, 2, 3 into home 3/4, 1/2, 1/4 (Grinstead & Snell Examples 11.13–11.15,
    // shared/cases/07-grinstead-snell.md); one step from 2 never returns to 2 ("init").
    let doc = check_json(
        &example("drunkard.json"),
        &[
            "--prop",
            "P=? [F \"home\"]",
            "--prop",
            "R{\"steps\"}=? [F \"home\" | \"bar\"]",
            "--prop",
            "T=? [F \"home\" | \"bar\"]",
            "--prop",
            "S=? [\"bar\"]",
            "--prop",
            "P=? [X \"init\"]",
            "--prop",
            "filter(print, P=? [F \"home\"], !\"home\" & !\"bar\")",
        ],
    );
    assert_eq!(
        doc["model"],
        json!({"type": "dtmc", "states": 5, "transitions": 8, "choices": 5,
               "initial_states": 1, "deadlocks": 0})
    );
    assert_eq!(doc["constants"], json!({}));
    assert_certified(result(&doc, 0, "P=? [F \"home\"]"), 0.5);
    assert_certified(result(&doc, 1, "R{\"steps\"}=? [F \"home\" | \"bar\"]"), 4.0);
    assert_certified(result(&doc, 2, "T=? [F \"home\" | \"bar\"]"), 4.0);
    assert_certified(result(&doc, 3, "S=? [\"bar\"]"), 0.5);
    assert_certified(result(&doc, 4, "P=? [X \"init\"]"), 0.0);
    let printed = &result(&doc, 5, "filter(print, P=? [F \"home\"], !\"home\" & !\"bar\")")["printed"];
    let states: Vec<&str> = printed
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["1", "2", "3"]);
    for (p, want) in printed.as_array().unwrap().iter().zip([0.75, 0.5, 0.25]) {
        assert!((number(&p["value"]) - want).abs() < 1e-14, "{p}");
    }

    // examples/models/shortcut-mdp.json (shared/cases/08-mdp.md, as in solve_cli.rs): min
    // P(home) = 3/4 (shortcut), max 1 (walk); min minutes 100/9, max +∞; max P(river) = 1/4.
    let doc = check_json(
        &example("shortcut-mdp.json"),
        &[
            "--prop",
            "Pmin=? [F \"goal\"]",
            "--prop",
            "Pmax=? [F \"goal\"]",
            "--prop",
            "Rmin=? [F \"goal\"]",
            "--prop",
            "R{\"minutes\"}max=? [F \"goal\"]",
            "--prop",
            "Pmax=? [F \"wet\"]",
        ],
    );
    assert_eq!(doc["model"]["type"], "mdp");
    assert_eq!(doc["model"]["states"], 4);
    assert_eq!(doc["model"]["choices"], 5);
    assert_certified(result(&doc, 0, "Pmin=? [F \"goal\"]"), 0.75);
    assert_certified(result(&doc, 1, "Pmax=? [F \"goal\"]"), 1.0);
    assert_certified(result(&doc, 2, "Rmin=? [F \"goal\"]"), 100.0 / 9.0);
    assert_inf(result(&doc, 3, "R{\"minutes\"}max=? [F \"goal\"]"));
    assert_certified(result(&doc, 4, "Pmax=? [F \"wet\"]"), 0.25);

    let dir = tempfile::tempdir().unwrap();
    let drn = write(dir.path(), "hand.drn", HAND_DRN);
    let doc = check_json(
        &drn,
        &[
            "--prop",
            "P=? [F \"goal\"]",
            "--prop",
            "R{\"cost\"}=? [F \"goal\" | \"fail\"]",
            "--prop",
            "R=? [F \"goal\"]",
            "--prop",
            "P=? [F<=2 \"goal\"]",
            "--prop",
            "P>0.4 [F \"goal\"]",
            "--prop",
            "P>=1 [F \"goal\" | \"fail\"]",
        ],
    );
    assert_eq!(
        doc["model"],
        json!({"type": "dtmc", "states": 3, "transitions": 5, "choices": 3,
               "initial_states": 1, "deadlocks": 0})
    );
    assert_certified(result(&doc, 0, "P=? [F \"goal\"]"), 0.5);
    assert_certified(result(&doc, 1, "R{\"cost\"}=? [F \"goal\" | \"fail\"]"), 4.0);
    assert_inf(result(&doc, 2, "R=? [F \"goal\"]"));
    assert_certified(result(&doc, 3, "P=? [F<=2 \"goal\"]"), 0.375);
    assert_bool(result(&doc, 4, "P>0.4 [F \"goal\"]"), true);
    // Exactly 1, by graph analysis: decided, not a straddled bound.
    assert_bool(result(&doc, 5, "P>=1 [F \"goal\" | \"fail\"]"), true);
}

#[test]
fn export_then_check_the_file_gives_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    // snakes.pm: the exported DRN keeps the label "finished" and the reward model "rolls".
    let drn = dir.path().join("snakes.drn");
    let built = check_json(
        &example("snakes.pm"),
        &[
            "--prop",
            "R=? [F pos=100]",
            "--prop",
            "P=? [F<=20 pos=100]",
            "--export",
            path(&drn),
        ],
    );
    let text = std::fs::read_to_string(&drn).unwrap();
    assert!(text.contains("@type: DTMC\n"), "{text}");
    assert!(text.contains("@nr_states\n82\n"), "{text}");
    let read = check_json(
        &drn,
        &[
            "--prop",
            "R{\"rolls\"}=? [F \"finished\"]",
            "--prop",
            "P=? [F<=20 \"finished\"]",
        ],
    );
    assert_eq!(read["model"], built["model"]);
    for (i, exact) in [(0, SNAKES_E0), (1, SNAKES_F20)] {
        let (a, b) = (&results(&built)[i], &results(&read)[i]);
        assert_certified(a, exact);
        assert_certified(b, exact);
        let bound = number(&a["upper"]) - number(&a["value"]);
        assert!(
            (number(&a["value"]) - number(&b["value"])).abs() <= bound,
            "{a} vs {b}"
        );
    }

    // The MDP: its choices, and their actions' names, survive the export.
    let model = write(dir.path(), "mdp.nm", MDP);
    let drn = dir.path().join("mdp.drn");
    let props = [
        "Pmin=? [F \"goal\"]",
        "Rmin=? [F \"goal\"]",
        "Pmax=? [F<=2 \"goal\"]",
    ];
    let args: Vec<&str> = props.iter().flat_map(|p| ["--prop", p]).collect();
    let built = check_json(&model, &[&args[..], &["--export", path(&drn)]].concat());
    let text = std::fs::read_to_string(&drn).unwrap();
    assert!(text.contains("@type: MDP\n"));
    assert!(
        text.contains("\taction safe ") && text.contains("\taction risky "),
        "{text}"
    );
    let read = check_json(&drn, &args);
    assert_eq!(read["model"], built["model"]);
    for (i, exact) in [0.8, 3.0, 0.9].into_iter().enumerate() {
        assert_certified(result(&built, i, props[i]), exact);
        assert_certified(result(&read, i, props[i]), exact);
    }

    // The chain to kolmo JSON, read back.
    let model = write(dir.path(), "chain.pm", CHAIN);
    let json_file = dir.path().join("chain.json");
    let args = [
        "--prop",
        "P=? [F \"goal\"]",
        "--prop",
        "R{\"steps\"}=? [F \"trap\" | \"goal\"]",
    ];
    check_json(&model, &[&args[..], &["--export", path(&json_file)]].concat());
    let read = check_json(&json_file, &args);
    assert_eq!(read["model"]["states"], 4);
    assert_certified(&results(&read)[0], 3.0 / 17.0);
    assert_certified(&results(&read)[1], 26.0 / 17.0);
}

// s=1 and s=2 have no command: deadlocks. Fixed (a self-loop each), P(F s=1) = 1/4, every path
// ends in a deadlock state, and there are 2 of them.
const DEADLOCKS: &str = "\
dtmc
module m
  s : [0..2] init 0;
  [] s=0 -> 0.25:(s'=1) + 0.75:(s'=2);
endmodule
";

#[test]
fn deadlocks_fixed_and_counted_or_refused_naming_the_state() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "dl.pm", DEADLOCKS);
    let props = [
        "--prop",
        "P=? [F s=1]",
        "--prop",
        "P=? [F \"deadlock\"]",
        "--prop",
        "filter(count, \"deadlock\")",
    ];
    let doc = check_json(&model, &props);
    assert_eq!(
        doc["model"],
        json!({"type": "dtmc", "states": 3, "transitions": 4, "choices": 3,
               "initial_states": 1, "deadlocks": 2})
    );
    assert_certified(result(&doc, 0, "P=? [F s=1]"), 0.25);
    assert_certified(result(&doc, 1, "P=? [F \"deadlock\"]"), 1.0);
    assert_certified(result(&doc, 2, "filter(count, \"deadlock\")"), 2.0);
    let text = check_text(&model, &props);
    assert!(
        text.lines()
            .any(|l| l.starts_with("2 deadlock states given a self-loop")),
        "{text}"
    );
    let stderr = refused(&[path(&model), "--prop", "P=? [F s=1]", "--no-fix-deadlocks"], 2);
    assert!(stderr.contains("state (s=1)"), "{stderr}");
    assert!(stderr.contains("deadlock"), "{stderr}");
}

// A comparison whose bound is the exact value: the certified interval straddles it, so the
// answer is refused (exit 1), naming the state and the bound. CHAIN: P(F<=2 goal) = 3/20
// exactly; MDP: Pmin(F goal) = 4/5 exactly (P>= on an MDP: every policy, the minimum).
#[test]
fn comparison_at_the_exact_value_is_uncertified() {
    let dir = tempfile::tempdir().unwrap();
    let chain = write(dir.path(), "chain.pm", CHAIN);
    let mdp = write(dir.path(), "mdp.nm", MDP);
    for (model, prop, bound) in [
        (&chain, "P>=0.15 [F<=2 \"goal\"]", "bound 0.15"),
        (&mdp, "P>=0.8 [F \"goal\"]", "bound 0.8"),
    ] {
        for json in [false, true] {
            let mut args = vec![path(model), "--prop", prop];
            if json {
                args.push("--json");
            }
            let stderr = refused(&args, 1);
            assert!(stderr.contains("in state (s=0)"), "{stderr}");
            assert!(stderr.contains(bound), "{stderr}");
        }
    }
}

// Refusals that need a property file beside the model (the single-file ones are in
// bad_input.rs): file:line:column of the property file.
#[test]
fn property_file_errors_name_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "chain.pm", CHAIN);
    let props = write(dir.path(), "chain.pctl", CHAIN_PROPS);
    // k has no value: the message names its use (line 9, column 20) and the flag to give it.
    let stderr = refused(&[path(&model), path(&props)], 2);
    assert!(
        stderr.contains(&format!("{}:9:20: constant k has no value", path(&props))),
        "{stderr}"
    );
    assert!(stderr.contains("--const k="), "{stderr}");
    // A syntax error on line 3.
    let bad = write(
        dir.path(),
        "bad.pctl",
        "// one\n\"a\": P=? [F \"goal\"];\n\"b\": P=? [F \"goal\";\n",
    );
    let stderr = refused(&[path(&model), path(&bad)], 2);
    assert!(stderr.contains(&format!("{}:3:", path(&bad))), "{stderr}");
    // A label the model does not have.
    let bad = write(dir.path(), "label.pctl", "P=? [F \"goal\"];\nP=? [F \"home\"];\n");
    let stderr = refused(&[path(&model), path(&bad)], 2);
    assert!(stderr.contains(&format!("{}:2:8", path(&bad))), "{stderr}");
    assert!(stderr.contains("\"home\""), "{stderr}");
    // A property file that is not there.
    let missing = dir.path().join("missing.pctl");
    let stderr = refused(&[path(&model), path(&missing)], 2);
    assert!(stderr.contains(path(&missing)), "{stderr}");
}

// Regressions: bugs found while writing these tests, each test states what should happen.

// `--const k=4` for a property file's constant holds beside a second property source (a --prop
// beside the file, or a second --prop) that does not declare k (it was refused: each source was
// checked alone).
#[test]
fn const_of_a_property_file_with_a_prop_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "chain.pm", CHAIN);
    let props = write(dir.path(), "chain.pctl", CHAIN_PROPS);
    let doc = check_json(&model, &[path(&props), "--const", "k=4", "--prop", "P=? [X s=1]"]);
    assert_eq!(results(&doc).len(), 6);
    assert_certified(result(&doc, 1, "P=? [F<=k \"goal\"]"), 0.1725);
    assert_certified(result(&doc, 5, "P=? [X s=1]"), 0.3);
    let doc = check_json(
        &model,
        &[
            "--prop",
            "const int k; P=? [F<=k \"goal\"]",
            "--prop",
            "P=? [F \"goal\"]",
            "--const",
            "k=2",
        ],
    );
    assert_certified(&results(&doc)[0], 0.15);
    assert_certified(&results(&doc)[1], 3.0 / 17.0);
}

// A straddled bound is refused saying so (it once advised --exact, a flag check does not have,
// and called the model "too ill-conditioned" where the value simply equals the bound).
#[test]
fn uncertified_help_names_only_flags_check_has() {
    let dir = tempfile::tempdir().unwrap();
    let chain = write(dir.path(), "chain.pm", CHAIN);
    let stderr = refused(&[path(&chain), "--prop", "P>=0.15 [F<=2 \"goal\"]"], 1);
    assert!(!stderr.contains("--exact"), "{stderr}");
    assert!(!stderr.contains("ill-conditioned"), "{stderr}");
    assert!(
        stderr.contains("lies on both sides of the bound 0.15"),
        "{stderr}"
    );
}

// A stdout closed early (`kolmo check ... | head -1`) is not a panic (it was, with println!): the
// report is written through a handle and main() treats the broken pipe as success.
#[test]
fn closed_stdout_is_not_a_panic() {
    use std::process::Stdio;
    for json in [false, true] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kolmo"));
        cmd.arg("check").arg(example("snakes.pm")).args([
            "--prop",
            "R=? [F pos=100]",
            "--prop",
            "P=? [F<=20 pos=100]",
        ]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        // Close the reading end before kolmo has built the model and printed.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "--json {json}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "--json {json}: {stderr}");
    }
}

// A probability bound outside [0, 1] is a typo PRISM refuses ("Invalid probability bound"), and
// so does kolmo check (it answered P>=1.5 false).
#[test]
fn probability_bound_outside_0_1_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let chain = write(dir.path(), "chain.pm", CHAIN);
    for prop in ["P>=1.5 [F \"goal\"]", "P<-1 [F \"goal\"]"] {
        let stderr = refused(&[path(&chain), "--prop", prop], 2);
        assert!(stderr.contains("--prop:1:"), "{prop}: {stderr}");
    }
}

// R=? and R{1} take the first reward structure in the order written; a model file keeps its
// reward models by name (`@reward_models` "zeta alpha" answered R=? for alpha), so with several
// they are refused. zeta: 2 per step in state 0 (4 until goal or fail, as HAND_DRN); alpha: 5 per
// step (10).
#[test]
fn unnamed_reward_of_a_model_file_with_several_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = HAND_DRN
        .replace("\ncost\n", "\nzeta alpha\n")
        .replace("[2] init", "[2, 5] init")
        .replace("[0]", "[0, 0]");
    let drn = write(dir.path(), "two.drn", &text);
    let doc = check_json(
        &drn,
        &[
            "--prop",
            "R{\"zeta\"}=? [F \"goal\" | \"fail\"]",
            "--prop",
            "R{\"alpha\"}=? [F \"goal\" | \"fail\"]",
        ],
    );
    assert_certified(&results(&doc)[0], 4.0);
    assert_certified(&results(&doc)[1], 10.0);
    // A model file keeps its reward models by name, not in the order written: with several, an
    // unnamed R (or R{1}) is ambiguous and refused, naming them.
    for prop in ["R=? [F \"goal\" | \"fail\"]", "R{1}=? [F \"goal\" | \"fail\"]"] {
        let stderr = refused(&[path(&drn), "--prop", prop], 2);
        assert!(
            stderr.contains("several reward models (\"alpha\", \"zeta\"): name one"),
            "{stderr}"
        );
    }
}

// A state no PRISM reward item matches earns +0, not the empty f64 sum's −0.0 (which --export
// wrote as "state 2 [-0] trap" in DRN and [1, 1, -0, -0] in JSON).
#[test]
fn exported_rewards_have_no_negative_zero() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "chain.pm", CHAIN);
    for name in ["chain.drn", "chain.json"] {
        let file = dir.path().join(name);
        check_json(&model, &["--prop", "P=? [F \"goal\"]", "--export", path(&file)]);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("-0"), "{name}: {text}");
    }
}

/// `--strategy FILE` on a game: a CSV row per state with its player and each property's action
/// (the JSON example of docs/model-json.md: Alice's best is the bold move, 0.4 by hand; Bob
/// hinders), the report's first move, the JSON's `first_move`; refused for a chain and for
/// properties without strategies, with exit 2 naming the flag.
#[test]
fn strategies_of_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let game = write(
        dir.path(),
        "game.json",
        r#"{"type": "smg", "states": ["alice", "bob", "won", "lost"],
            "transitions": {"alice": {"safe": {"bob": 1}, "bold": {"won": 0.4, "lost": 0.6}},
                            "bob": {"help": {"won": 0.5, "alice": 0.5}, "hinder": {"lost": 0.5, "alice": 0.5}},
                            "won": {"stay": {"won": 1}}, "lost": {"stay": {"lost": 1}}},
            "labels": {"won": "won"}, "players": {"alice": ["alice", "won", "lost"], "bob": "bob"}}"#,
    );
    let csv = dir.path().join("s.csv");
    let text = check_text(
        &game,
        &[
            "--prop",
            "<<alice>> Pmax=? [F \"won\"]",
            "--prop",
            "<<alice, bob>> Pmax=? [F \"won\"]",
            "--strategy",
            path(&csv),
        ],
    );
    assert!(
        text.contains("move     alice chooses bold in the initial state alice"),
        "{text}"
    );
    let written = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        written,
        "state,player,\"<<alice>> Pmax=? [F \"\"won\"\"]\",\"<<alice, bob>> Pmax=? [F \"\"won\"\"]\"\n\
         alice,alice,bold,safe\nbob,bob,hinder,help\nwon,alice,stay,stay\nlost,alice,stay,stay\n"
    );
    let doc = check_json(&game, &["--prop", "<<alice>> Pmax=? [F \"won\"]"]);
    assert_eq!(
        doc["results"][0]["first_move"],
        json!({"state": "alice", "player": "alice", "action": "bold"})
    );
    assert_eq!(doc["results"][0]["strategy"], "memoryless");
    let v = doc["results"][0]["value"].as_f64().unwrap();
    assert!((v - 0.4).abs() < 1e-12);
    let chain = write(
        dir.path(),
        "c.json",
        r#"{"states": 1, "transitions": {"0": {"0": 1}}}"#,
    );
    let e = refused(
        &[path(&chain), "--prop", "P=? [F true]", "--strategy", path(&csv)],
        2,
    );
    assert!(e.contains("--strategy") && e.contains("no choices"), "{e}");
    let e = refused(&[path(&game), "--prop", "\"won\"", "--strategy", path(&csv)], 2);
    assert!(
        e.contains("--strategy") && e.contains("none of the properties"),
        "{e}"
    );
}
