//! `kolmo analyze` end to end, on model files in every format, against the published figures of
//! Grinstead & Snell, *Introduction to Probability*, ch. 11 (shared/cases/07-grinstead-snell.md).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn kolmo() -> Command {
    Command::cargo_bin("kolmo").unwrap()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models")
}

fn analyze(args: &[&str]) -> Value {
    let out = kolmo().arg("analyze").args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "kolmo analyze {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::INFINITY))
        .collect()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol * w.abs().max(1.0), "{got:?} vs {want:?}");
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

// Land of Oz (Example 11.1; Kemeny & Snell p. 218), published: w = (2/5, 1/5, 2/5), recurrence
// times (5/2, 5, 5/2), first-passage matrix [[0, 4, 10/3], [8/3, 0, 8/3], [10/3, 4, 0]].
#[test]
fn land_of_oz() {
    let v = analyze(&[examples().join("land-of-oz.json").to_str().unwrap()]);
    assert_eq!(v["irreducible"], true);
    assert_eq!(v["ergodic"], true);
    let st = &v["stationary"][0];
    assert_close(&floats(&st["distribution"]), &[0.4, 0.2, 0.4], 1e-15);
    assert_close(&floats(&st["mean_recurrence_times"]), &[2.5, 5.0, 2.5], 1e-14);
    assert!(st["error_bound"].as_f64().unwrap() < 1e-14);
    let m = &v["mean_first_passage"]["matrix"];
    let want = [
        [0.0, 4.0, 10.0 / 3.0],
        [8.0 / 3.0, 0.0, 8.0 / 3.0],
        [10.0 / 3.0, 4.0, 0.0],
    ];
    for (i, row) in want.iter().enumerate() {
        assert_close(&floats(&m[i]), row, 1e-14);
    }
    assert_eq!(v["state_names"], serde_json::json!(["R", "N", "S"]));
    let x = analyze(&[examples().join("land-of-oz.json").to_str().unwrap(), "--exact"]);
    assert_eq!(
        x["stationary"][0]["distribution_exact"],
        serde_json::json!(["2/5", "1/5", "2/5"])
    );
    assert_eq!(
        x["stationary"][0]["mean_recurrence_times_exact"],
        serde_json::json!(["5/2", "5", "5/2"])
    );
    // The human report leads with the model and its classes.
    let out = kolmo()
        .args(["analyze", examples().join("land-of-oz.json").to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("irreducible and aperiodic (ergodic)"), "{text}");
    assert!(text.contains("0.4"), "{text}");
}

// Drunkard's walk (Examples 11.13-11.15), published: N, t = (3, 4, 3), B, Var = (8, 8, 8).
#[test]
fn drunkards_walk() {
    let v = analyze(&[examples().join("drunkard.json").to_str().unwrap(), "--from", "2"]);
    assert_eq!(v["absorbing_states"].as_array().unwrap().len(), 2);
    assert_eq!(v["transient_states"].as_array().unwrap().len(), 3);
    let t = &v["steps_to_recurrence"];
    assert_close(&floats(&t["expected_steps"]), &[0.0, 3.0, 4.0, 3.0, 0.0], 1e-14);
    assert_close(&floats(&t["variance"]), &[0.0, 8.0, 8.0, 8.0, 0.0], 1e-13);
    let b = &v["absorption_probabilities"]["matrix"];
    for (s, row) in [(1, [0.75, 0.25]), (2, [0.5, 0.5]), (3, [0.25, 0.75])] {
        assert_close(&floats(&b[s]), &row, 1e-15);
    }
    let n = &v["fundamental_matrix"]["matrix"];
    for (i, row) in [[1.5, 1.0, 0.5], [1.0, 2.0, 1.0], [0.5, 1.0, 1.5]]
        .iter()
        .enumerate()
    {
        assert_close(&floats(&n[i]), row, 1e-14);
    }
    assert_close(
        &floats(&v["long_run"]["absorption_probabilities"]),
        &[0.5, 0.5],
        1e-15,
    );
}

// Rat maze (Examples 11.22, 11.24) as CSV with a header of compartment names; food in 5.
// Published: steps to the food (6, 5, 6, 5, 5, 6, 5, 6); w = (1/12, 1/8, 1/12, 1/8, 1/6, ...);
// the maze is bipartite, so period 2 and no limit.
#[test]
fn rat_maze_csv() {
    let dir = tempfile::tempdir().unwrap();
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
    let mut p = [[0.0f64; 9]; 9];
    for (a, b) in doors {
        p[a - 1][b - 1] = 1.0;
        p[b - 1][a - 1] = 1.0;
    }
    // Quoted: a header of numbers would otherwise read as a row.
    let mut text = String::from("\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"\n");
    for row in &p {
        let k = row.iter().sum::<f64>();
        let cells: Vec<String> = row
            .iter()
            .map(|&x| if x > 0.0 { format!("1/{k}") } else { "0".into() })
            .collect();
        text.push_str(&cells.join(","));
        text.push('\n');
    }
    let file = write(dir.path(), "maze.csv", &text);
    let v = analyze(&[file.to_str().unwrap(), "--target", "5"]);
    let t = floats(&v["target"]["expected_steps"]);
    assert_close(&t, &[6.0, 5.0, 6.0, 5.0, 0.0, 5.0, 6.0, 5.0, 6.0], 1e-14);
    let w: Vec<f64> = [12.0, 8.0, 12.0, 8.0, 6.0, 8.0, 12.0, 8.0, 12.0]
        .iter()
        .map(|x| 1.0 / x)
        .collect();
    assert_close(&floats(&v["stationary"][0]["distribution"]), &w, 1e-15);
    assert_eq!(v["classes"][0]["period"], 2);
    assert_eq!(v["long_run"]["is_limit"], false);
}

// Ehrenfest urn with 4 balls (Example 11.17) as Matrix Market: period 2, stationary
// (1, 4, 6, 4, 1)/16; and the distribution after 2 steps from state 0: (1/4, 0, 3/4, 0, 0).
#[test]
fn ehrenfest_matrix_market() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "urn.mtx",
        "%%MatrixMarket matrix coordinate real general\n% Ehrenfest urn\n5 5 8\n1 2 1\n2 1 0.25\n2 3 0.75\n3 2 0.5\n3 4 0.5\n4 3 0.75\n4 5 0.25\n5 4 1\n",
    );
    let v = analyze(&[file.to_str().unwrap(), "--steps", "2"]);
    assert_eq!(v["classes"][0]["period"], 2);
    assert_close(
        &floats(&v["stationary"][0]["distribution"]),
        &[1.0 / 16.0, 4.0 / 16.0, 6.0 / 16.0, 4.0 / 16.0, 1.0 / 16.0],
        1e-15,
    );
    assert_close(
        &floats(&v["distribution_after"]["distribution"]),
        &[0.25, 0.0, 0.75, 0.0, 0.0],
        1e-15,
    );
    // The error figure: every product keeps the mass, here exactly.
    assert_eq!(v["distribution_after"]["mass_error"], 0.0);
    assert!(
        v["distribution_after"]["method"]
            .as_str()
            .unwrap()
            .contains("vector-matrix products")
    );
}

// Two closed classes ({0, 1}; {4}) and transient states 2, 3 in Storm's DRN format with a reward
// model: from 2 the chain ends in {0, 1} with probability 2/3 (a2 = 1/2 + a3/2, a3 = a2/2); the
// gain of reward 1 in state 0 is 1/2 on {0, 1}, so 1/3 from state 2.
#[test]
fn two_closed_classes_drn() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "two.drn",
        "@type: DTMC\n@parameters\n\n@reward_models\nr\n@nr_states\n5\n@nr_choices\n5\n@model\n\
state 0 [1]\n\taction 0 [0]\n\t\t0 : 0.5\n\t\t1 : 0.5\n\
state 1 [0]\n\taction 0 [0]\n\t\t0 : 0.5\n\t\t1 : 0.5\n\
state 2 [0] init\n\taction 0 [0]\n\t\t0 : 0.5\n\t\t3 : 0.5\n\
state 3 [0]\n\taction 0 [0]\n\t\t2 : 0.5\n\t\t4 : 0.5\n\
state 4 [0] goal\n\taction 0 [0]\n\t\t4 : 1\n",
    );
    let v = analyze(&[file.to_str().unwrap(), "--target", "goal"]);
    assert_close(
        &floats(&v["long_run"]["absorption_probabilities"]),
        &[2.0 / 3.0, 1.0 / 3.0],
        1e-15,
    );
    assert_close(
        &floats(&v["target"]["hitting_probability"]),
        &[0.0, 0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0],
        1e-15,
    );
    assert_eq!(v["target"]["expected_steps"][2], "inf");
    assert!(v["target"]["hitting_probability_error_bound"].as_f64().unwrap() < 1e-14);
    let r = &v["rewards"]["r"];
    assert!((r["classes"][0]["gain"].as_f64().unwrap() - 0.5).abs() < 1e-15);
    assert!((r["gain"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-15);
}

// A ring of 3001 states moving ±1 with probability 1/2 (PRISM explicit): the long-run fraction of
// time in every state is exactly 1/3001. Storm's default solver returns −0.998 for it; kolmo must be
// right and say how accurate it is.
#[test]
fn ring_of_3001_prism() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3001;
    let mut tra = format!("{n} {}\n", 2 * n);
    for s in 0..n {
        let (a, b) = ((s + n - 1) % n, (s + 1) % n);
        let (a, b) = (a.min(b), a.max(b));
        tra.push_str(&format!("{s} {a} 0.5\n{s} {b} 0.5\n"));
    }
    let file = write(dir.path(), "ring.tra", &tra);
    let v = analyze(&[file.to_str().unwrap(), "--from", "0"]);
    let st = &v["stationary"][0];
    let bound = st["error_bound"].as_f64().unwrap();
    assert!(bound < 1e-12, "bound {bound:e}");
    for p in floats(&st["distribution"]) {
        assert!((p - 1.0 / 3001.0).abs() <= bound.max(1e-18), "{p}");
    }
    assert_eq!(v["ergodic"], true);
}

// `kolmo snakes --export` writes the board's chain; `kolmo analyze` on it agrees with `kolmo
// snakes` (published: 39.225122308234960 rolls with rule stay, Althoen, King & Schilling 1993).
#[test]
fn snakes_export_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["drn", "tra", "json"] {
        let file = dir.path().join(format!("classic.{ext}"));
        let out = kolmo()
            .args(["snakes", "--rule", "stay", "--mc", "0", "--json", "--export"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v = analyze(&[file.to_str().unwrap(), "--target", "goal", "--from", "0"]);
        let e = v["target"]["expected_steps"][0].as_f64().unwrap();
        assert!((e - 39.225_122_308_234_96).abs() < 1e-12, "{ext}: {e}");
        let rolls = v["rewards"]["rolls"]["expected_reward_to_target"][0]
            .as_f64()
            .unwrap();
        assert!((rolls - e).abs() < 1e-12, "{ext}: {rolls}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("note:"));
    }
    // CSV and Matrix Market hold the matrix only: the export says what it left out and which
    // formats keep it (issue 15 §5).
    for ext in ["csv", "mtx"] {
        let file = dir.path().join(format!("classic.{ext}"));
        let out = kolmo()
            .args(["snakes", "--mc", "0", "--export"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "kolmo: note: {} holds the transition matrix only",
                file.display()
            )) && err.contains("labels init and goal and the reward model rolls")
                && err.contains(".drn, .tra or .json"),
            "{err}"
        );
    }
}

fn fails(args: &[&str], code: i32, needle: &str) {
    let out = kolmo().arg("analyze").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: expected {needle:?} in {err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_input_is_located_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.csv", "0.5,0.5\n0.5,0.4\n");
    let p = bad.to_str().unwrap();
    fails(&[p], 2, "bad.csv:2:");
    let ok = write(dir.path(), "ok.csv", "0.5,0.5\n0.5,0.5\n");
    let ok = ok.to_str().unwrap();
    fails(&[ok, "--target", "nowhere"], 2, "--target");
    fails(&[ok, "--from", "7"], 2, "no such state");
    fails(
        &[dir.path().join("missing.json").to_str().unwrap()],
        2,
        "cannot read",
    );
    fails(
        &[write(dir.path(), "x.txt", "1\n").to_str().unwrap()],
        2,
        "format",
    );
    let empty = write(dir.path(), "empty.json", "  \n");
    fails(&[empty.to_str().unwrap()], 2, "empty");
    let binary = dir.path().join("bin.json");
    std::fs::write(&binary, b"{\n  \"states\": 2,\xff\xfe}").unwrap();
    fails(&[binary.to_str().unwrap()], 2, "bin.json:2:15: not UTF-8");
    let tiny = write(
        dir.path(),
        "tiny.json",
        "{\"states\": 2, \"transitions\": [[0, 1, 1e-320], [1, 1, 1]]}",
    );
    let out = kolmo()
        .args(["analyze", tiny.to_str().unwrap(), "--normalize"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be rescaled"));
    let huge = write(dir.path(), "huge.csv", "1e308,1e308\n0,1\n");
    fails(&[huge.to_str().unwrap()], 2, "too large");
    // Exporting into a directory that does not exist names the file it could not write.
    let out = kolmo()
        .args(["snakes", "--mc", "0", "--export"])
        .arg(dir.path().join("no/such/dir/x.drn"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot write"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --exact on probabilities whose rows sum to 1 only in floating point and that are no simple
    // fractions either: the decimals, and a note why there are no fractions.
    let odd = write(
        dir.path(),
        "odd.csv",
        "0.1234567891234567,0.8765432108765432\n0.5,0.5\n",
    );
    let v = analyze(&[odd.to_str().unwrap(), "--exact"]);
    assert!(
        v["exact_error"].as_str().unwrap().contains("not exactly 1"),
        "{}",
        v["exact_error"]
    );
    assert!(v["stationary"][0]["distribution"][0].as_f64().is_some());
    // The JSON's notes are the text report's (issue 15 §2: `--exact --json` dropped this one).
    let why = format!("no exact fractions: {}", v["exact_error"].as_str().unwrap());
    let notes = v["notes"].as_array().unwrap();
    assert_eq!(
        notes.last().and_then(|n| n.as_str()),
        Some(why.as_str()),
        "{notes:?}"
    );
    // Decimals that are not fractions with small denominators are used as written (issue 14):
    // π = (0.5, 0.8765432109) / 1.3765432109 for this two-state chain.
    let decimals = write(dir.path(), "decimals.csv", "0.1234567891,0.8765432109\n0.5,0.5\n");
    let v = analyze(&[decimals.to_str().unwrap(), "--exact"]);
    assert_eq!(
        v["stationary"][0]["distribution_exact"],
        serde_json::json!(["5000000000/13765432109", "8765432109/13765432109"])
    );
    // --normalize rescales the row and says so.
    let out = kolmo().args(["analyze", p, "--normalize"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("normalized 1 row"));
}

/// `--exact` on a file's own fractions (issue 14): leaving state 0 with probability 1/3000000 per
/// step takes exactly 3,000,000 steps on average, a fraction `--exact` could not recover from
/// floating point (its denominator is beyond 2²⁰).
#[test]
fn exact_uses_the_fractions_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "slow.csv", "2999999/3000000,1/3000000\n0,1\n");
    let v = analyze(&[p.to_str().unwrap(), "--target", "1", "--exact"]);
    let t = &v["target"];
    assert_eq!(
        t["expected_steps_exact"],
        serde_json::json!(["3000000", "0"]),
        "{t}"
    );
    assert_eq!(t["variance_exact"][0], "8999997000000", "{t}");
}

// Pay only for what is asked (issue 18): on a chain of more than 100,000 states with --target,
// the report holds the target's hitting probabilities and expected steps and says what it left
// out and the flag for each; the flags add them, with the same expected steps; the reward that
// is one per roll comes to exactly the expected steps without a solve of its own.
#[test]
fn a_large_chain_with_a_target_computes_only_what_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("board.drn");
    let out = kolmo()
        .args([
            "snakes",
            "empty",
            "--size",
            "120000",
            "--random-portals",
            "12000",
            "--mc",
            "0",
        ])
        .args(["--export"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = file.to_str().unwrap();
    let lean = analyze(&[path, "--target", "goal"]);
    for absent in ["classes", "long_run", "stationary", "rewards"] {
        assert!(lean.get(absent).is_none(), "{absent} computed unasked");
    }
    assert!(lean["target"].get("variance").is_none());
    let note = lean["notes"][0].as_str().unwrap();
    for flag in ["--chain", "--variance", "--rewards"] {
        assert!(note.contains(flag), "{note}");
    }
    let full = analyze(&[path, "--target", "goal", "--chain", "--variance", "--rewards"]);
    assert_eq!(full["notes"].as_array().unwrap().len(), 0, "{}", full["notes"]);
    assert_eq!(
        full["classes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["closed"] == true)
            .count(),
        1
    );
    let steps = floats(&lean["target"]["expected_steps"]);
    assert_eq!(steps, floats(&full["target"]["expected_steps"]));
    let rolls = floats(&full["rewards"]["rolls"]["expected_reward_to_target"]);
    assert_eq!(rolls, steps);
    let variance = floats(&full["target"]["variance"]);
    assert!(variance[0] > 0.0 && variance[0].is_finite());
    // The human report says the same.
    let out = kolmo()
        .args(["analyze", path, "--target", "goal"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not computed: the whole-chain analysis") && !text.contains("Classes:"),
        "{text}"
    );
}
