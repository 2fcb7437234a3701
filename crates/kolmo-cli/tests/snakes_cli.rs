//! `kolmo snakes` end to end: spawns the real binary.

// Reference figures are quoted with the digits their sources print.
#![allow(clippy::excessive_precision)]

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::io::Write;

fn kolmo() -> Command {
    Command::cargo_bin("kolmo").unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = kolmo().args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn board_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

// The classic board's figures (shared/cases/01-snakes.md, derived by exact and float solves).
#[test]
fn default_report_leads_with_expected_rolls() {
    let out = kolmo().args(["snakes", "--mc", "20000"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let first_figure = text
        .lines()
        .find(|l| l.starts_with("Expected rolls from the start"))
        .unwrap();
    assert!(first_figure.contains("35.83493841369"), "{first_figure}");
    assert!(text.contains("median 29"));
    assert!(text.contains("Monte Carlo check (20000 games, seed 1)"));
    assert!(text.contains("0.2748926611928901"));
}

#[test]
fn json_fields() {
    let v = json(&[
        "snakes",
        "--mc",
        "50000",
        "--seed",
        "3",
        "--quantiles",
        "0.1,0.5,0.90",
    ]);
    let e = v["expected_rolls"].as_f64().unwrap();
    assert!((e - 35.834938413695426).abs() < 1e-12);
    let by_cell = v["expected_rolls_by_cell"].as_array().unwrap();
    assert_eq!(by_cell.len(), 101);
    assert!((by_cell[73].as_f64().unwrap() - 17.598534708379127).abs() < 1e-12);
    assert_eq!(by_cell[99].as_f64(), Some(1.0));
    assert_eq!(by_cell[100].as_f64(), Some(0.0));
    assert!((v["std_dev"].as_f64().unwrap() - 23.353802687908807).abs() < 1e-10);
    assert!((v["variance"].as_f64().unwrap() - 23.353802687908807f64.powi(2)).abs() < 1e-8);
    assert_eq!(v["median"], 29);
    assert_eq!(v["min_rolls"], 7);
    assert!(v["mode"].as_u64().is_some());
    // Quantile keys are the levels as given.
    assert_eq!(v["quantiles"]["0.5"], 29);
    assert!(v["quantiles"]["0.90"].as_u64().is_some());
    let fb = v["finished_by"].as_array().unwrap();
    assert_eq!(fb[1]["turn"], 40);
    assert!((fb[1]["probability"].as_f64().unwrap() - 0.6925393455227666).abs() < 1e-13);
    let mc = &v["monte_carlo"];
    assert_eq!(mc["games"], 50000);
    assert_eq!(mc["seed"], 3);
    assert!(mc["z_score"].as_f64().unwrap().abs() < 4.0);
    for k in ["mean", "std_error", "std_dev"] {
        assert!(mc[k].as_f64().unwrap() > 0.0, "{k}");
    }
    let usage = v["portal_usage"].as_array().unwrap();
    assert_eq!(usage.len(), 19);
    assert_eq!(usage[0]["from"], 1);
    assert_eq!(usage[0]["kind"], "ladder");
    assert!(v["residual"].as_f64().unwrap() < 1e-12);
    assert!(v.get("players").is_none());
    assert!(v.get("fundamental").is_none());
}

// Published: Althoen, King & Schilling, Math. Gazette 77 (478), 1993: 39.225122308234960.
#[test]
fn stay_rule_json() {
    let v = json(&["snakes", "--rule", "stay", "--mc", "0"]);
    assert!((v["expected_rolls"].as_f64().unwrap() - 39.225122308234960).abs() < 1e-12);
    assert_eq!(v["monte_carlo"], Value::Null);
    assert_eq!(v["board"]["rule"], "stay");
}

#[test]
fn same_seed_same_monte_carlo_on_any_thread_count() {
    let a = json(&["snakes", "--mc", "100000", "--seed", "11", "--threads", "1"]);
    let b = json(&["snakes", "--mc", "100000", "--seed", "11", "--threads", "2"]);
    assert_eq!(a["monte_carlo"], b["monte_carlo"]);
    let c = json(&["snakes", "--mc", "100000", "--seed", "12"]);
    assert_ne!(a["monte_carlo"]["mean"], c["monte_carlo"]["mean"]);
}

#[test]
fn board_file_with_three_players() {
    let f = board_file(
        "name = \"mine\"\nsize = 30\nrule = \"bounce\"\nladders = [[2, 17], [11, 25]]\nsnakes = [[19, 4], [28, 9]]\n",
    );
    let v = json(&[
        "snakes",
        f.path().to_str().unwrap(),
        "--players",
        "3",
        "--mc",
        "20000",
    ]);
    let seats = v["players"].as_array().unwrap();
    assert_eq!(seats.len(), 3);
    let p: Vec<f64> = seats
        .iter()
        .map(|s| s["win_probability"].as_f64().unwrap())
        .collect();
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-10);
    assert!(p[0] > p[1] && p[1] > p[2], "{p:?}");
    assert_eq!(seats[2]["seat"], 3);
    let rounds = v["expected_rounds"].as_f64().unwrap();
    let rolls = v["expected_total_rolls"].as_f64().unwrap();
    assert!(rounds < v["expected_rolls"].as_f64().unwrap());
    assert!(rolls > 2.0 * (rounds - 1.0) && rolls < 3.0 * rounds);
    assert_eq!(v["board"]["name"], "mine");
    kolmo()
        .args([
            "snakes",
            f.path().to_str().unwrap(),
            "--players",
            "3",
            "--mc",
            "0",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 players, taking turns"));
}

#[test]
fn fundamental_and_unreachable_values() {
    let v = json(&["snakes", "empty", "--size", "6", "--fundamental", "--mc", "0"]);
    let n = &v["fundamental"];
    assert_eq!(n["states"].as_array().unwrap().len(), 6);
    // From cell 0 on an empty 6-cell board with clamp, cell 0 is visited exactly once.
    assert_eq!(n["matrix"][0][0].as_f64(), Some(1.0));
}

#[test]
fn bad_boards_exit_2_with_the_place() {
    let cases: &[(&str, &str)] = &[
        (
            "size = 10\nladders = [[3, 11]]\n",
            ":2: ladder 3 -> 11: cell 11 is not on the board",
        ),
        (
            "size = 10\nsnakes = [[10, 2]]\n",
            ":2: snake 10 -> 2 starts on the last cell",
        ),
        (
            "size = 10\nladders = [[3, 5]]\nportals = [[3, 1]]\n",
            ":3: two portals start on cell 3",
        ),
        (
            "size = 10\nportals = [[4, 4]]\n",
            ":2: portal 4 -> 4 leads to itself",
        ),
        ("size = 10\nladders = [[5, 2]]\n", ":2: ladder 5 -> 2 goes down"),
        ("size = 10\nsnakes = [[2, 5]]\n", ":2: snake 2 -> 5 goes up"),
        ("size = 10\nrule = \"wrap\"\n", ":2:8: unknown rule 'wrap'"),
        (
            "size = 10\nfaces = 6\ndie = [1, 2]\n",
            ":3:7: give either `faces` or `die`",
        ),
        ("size = 10\ncolour = 3\n", ":2:1: unknown field `colour`"),
        ("size = 10\nladders = [[3, 5, 7]]\n", ":2:"),
        ("size = 10\nstart = 11\n", "start cell 11 is not on the board"),
        ("size = 10\ndie = [1, -1]\n", "die: weight of face 2 is -1"),
        (
            "size = 10\nfaces = 2\nrule = \"stay\"\nsnakes = [[8, 0], [9, 0]]\n",
            "the token can be trapped: the last cell 10 is not reached with probability 1 from cell(s) 0, 1, 2, 3, 4, 5, 6, 7",
        ),
    ];
    for (text, message) in cases {
        let f = board_file(text);
        let path = f.path().to_str().unwrap().to_string();
        kolmo()
            .args(["snakes", &path, "--mc", "1000"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(*message))
            .stderr(predicate::str::contains(path.as_str()));
    }
}

#[test]
fn bad_flags_exit_2() {
    for args in [
        &["snakes", "no-such-board"][..],
        &["snakes", "--quantiles", "0"],
        &["snakes", "--quantiles", "x"],
        &["snakes", "--rule", "wrap"],
        &["snakes", "--faces", "0"],
        &["snakes", "--start", "101"],
        &["snakes", "--players", "0"],
        &["snakes", "--mc", "1"],
        &["snakes", "--cells", "200"],
        &["snakes", "--die", "1,x"],
        &["snakes", "--threads", "0"],
        &["frobnicate"],
    ] {
        kolmo()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::is_empty().not());
    }
    kolmo()
        .args(["snakes", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("ladders = [[1, 38]"));
}

#[test]
fn curve_is_the_whole_distribution() {
    let v = json(&["snakes", "--mc", "0", "--curve"]);
    let pmf: Vec<f64> = v["game_length"]["pmf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let surv: Vec<f64> = v["game_length"]["survival"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(pmf.len(), surv.len());
    assert!((pmf.iter().sum::<f64>() - 1.0).abs() < 1e-11);
    // P(not finished by 20) = 1 − 0.2748926611928901 (shared/cases/01-snakes.md).
    assert!((surv[20] - (1.0 - 0.2748926611928901)).abs() < 1e-13);
    assert_eq!(pmf[6], 0.0);
    assert!(pmf[7] > 0.0);
    let mass_error = v["game_length"]["mass_error"].as_f64().unwrap();
    assert!((0.0..1e-13).contains(&mass_error));
    kolmo()
        .args(["snakes", "--mc", "0", "--curve"])
        .assert()
        .success()
        .stdout(predicate::str::contains("P(not finished by t)"));
}

/// A board whose games last 2,097,150 rolls on average: size 40, a 2-sided die, snakes from every
/// odd cell to 0 (E = 2^21 − 2, exact in floating point).
fn slow_board() -> tempfile::NamedTempFile {
    let snakes: Vec<String> = (1..40).step_by(2).map(|c| format!("[{c}, 0]")).collect();
    board_file(&format!(
        "size = 40\nfaces = 2\nsnakes = [{}]\n",
        snakes.join(", ")
    ))
}

// Regressions found by trying to break the tool (each once gave a wrong number, a hang or a
// misleading message).
#[test]
fn long_games_are_reported_honestly() {
    let f = slow_board();
    let path = f.path().to_str().unwrap();
    // A small work limit keeps the test fast (the default would take seconds in a debug build).
    let out = kolmo()
        .args(["snakes", path, "-q", "--max-work", "20000000"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("Expected rolls from the start   2097150.0000000"),
        "{text}"
    );
    assert!(text.contains("Monte Carlo check skipped"));
    assert!(text.contains("stopped by the work limit"));
    assert!(text.contains("mode beyond horizon"));
    // The race needs the whole distribution: refused with exit 1 rather than a wrong table.
    kolmo()
        .args(["snakes", path, "--players", "2", "-q", "--max-work", "20000000"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("--max-work"));
    let v = json(&[
        "snakes",
        path,
        "--mc",
        "0",
        "--turns",
        "1000000000",
        "--max-work",
        "20000000",
    ]);
    assert_eq!(v["finished_by"][0]["probability"], Value::Null);
    assert_eq!(v["mode"], Value::Null);
    assert_eq!(v["min_rolls"], 20);
}

#[test]
fn bounded_games_and_exact_edges() {
    // Empty 20-cell board with clamp: every game ends within 20 rolls, at least 4.
    let v = json(&["snakes", "empty", "--size", "20", "--mc", "0", "--quantiles", "1"]);
    assert_eq!(v["finished_by"][0]["probability"].as_f64(), Some(1.0));
    assert_eq!(v["quantiles"]["1"], 20);
    assert_eq!(v["min_rolls"], 4);
    // The fastest game on a long board: ceil(3000 / 6) = 500 rolls, though its probability underflows.
    let v = json(&["snakes", "empty", "--size", "3000", "--mc", "0"]);
    assert_eq!(v["min_rolls"], 500);
    // Every game from the last cell has length 0: the z-score is 0, not NaN.
    let v = json(&["snakes", "--start", "100", "--mc", "100"]);
    assert_eq!(v["monte_carlo"]["z_score"].as_f64(), Some(0.0));
    // A die with 100,000 faces: rows of many merged faces still sum to 1.
    let v = json(&["snakes", "--faces", "100000", "--mc", "0"]);
    let e = v["expected_rolls"].as_f64().unwrap();
    assert!(e > 1.0 && e < 1.01, "{e}");
}

#[test]
fn more_bad_input_exits_2() {
    for (args, message) in [
        (
            &["snakes", "--start", "-1"][..],
            "start cell -1 is not on the board",
        ),
        (
            &["snakes", "--die", "1e308,1e308"],
            "die: the weights sum to more than the largest number",
        ),
        (&["snakes", "--players", "10001"], "--players 10001"),
        (
            &[
                "snakes",
                "empty",
                "--size",
                "1000",
                "--distribution",
                "1000000000000",
            ],
            "more work than the limit",
        ),
        (&["snakes", "--threads", "5000"], "--threads 5000"),
        (&["snakes", "/dev/zero"], "too large for a board file"),
    ] {
        kolmo()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
    let dir = tempfile::tempdir().unwrap();
    let out = kolmo()
        .args(["snakes", dir.path().to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    for (text, message) in [
        ("size = 0\n", ":1: size 0 is out of range"),
        ("size = 10\nstart = -1\n", ":2: start cell -1"),
        ("size = 10\n\ndie = [1, -1]\n", ":3: die: weight of face 2 is -1"),
    ] {
        let f = board_file(text);
        kolmo()
            .args(["snakes", f.path().to_str().unwrap()])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}

// Exact fractions: Althoen, King & Schilling, Math. Gazette 77 (478), 1993 (classic, stay).
#[test]
fn exact_json_and_report() {
    let v = json(&[
        "snakes",
        "--rule",
        "stay",
        "--exact",
        "--mc",
        "0",
        "--distribution",
        "2",
    ]);
    assert_eq!(
        v["expected_rolls_exact"],
        "225837582538403273407117496273279920181931269186581786048583/5757472998140039232950575874628786131130999406013041613400"
    );
    assert_eq!(v["expected_rolls_by_cell_exact"].as_array().unwrap().len(), 101);
    assert_eq!(v["expected_rolls_by_cell_exact"][100], "0");
    assert!(v["variance_exact"].as_str().unwrap().contains('/'));
    assert!(
        v["finished_by"][0]["probability_exact"]
            .as_str()
            .unwrap()
            .contains('/')
    );
    // After 2 rolls from cell 0 the token is on cell 2 only by rolling 1 then 1: the ladder on 1 is
    // taken first, so never.
    assert_eq!(v["distribution_after"][0]["probabilities_exact"][2], "0");
    kolmo()
        .args(["snakes", "--exact", "--mc", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "35.834938413695472992743244195248 = 4361400801820161912013501213519255131056164928398701086804837/121708059086640218022342717662999608982893324374042509741160",
        ));
}

#[test]
fn exact_players_on_a_small_board_and_a_note_on_a_large_one() {
    let v = json(&[
        "snakes",
        "empty",
        "--size",
        "10",
        "--players",
        "2",
        "--exact",
        "--mc",
        "0",
    ]);
    let p1 = v["players"][0]["win_probability_exact"].as_str().unwrap();
    let (n, d) = p1.split_once('/').unwrap();
    let (n, d): (f64, f64) = (n.parse().unwrap(), d.parse().unwrap());
    assert!((n / d - v["players"][0]["win_probability"].as_f64().unwrap()).abs() < 1e-12);
    assert!(v["expected_rounds_exact"].as_str().unwrap().contains('/'));
    assert!(v["expected_total_rolls_exact"].as_str().unwrap().contains('/'));
    let v = json(&["snakes", "--players", "2", "--exact", "--mc", "0"]);
    assert!(
        v["players_exact_error"]
            .as_str()
            .unwrap()
            .contains("20402 states")
    );
    assert!(v["expected_rolls_exact"].as_str().is_some());
}

#[test]
fn uncertifiable_results_exit_1_and_exact_limits_exit_2() {
    // A die that rolls 1 with probability about w: on the classic board (clamp) cell 99 needs
    // a 1, so the game takes about 1/w rolls. Cancellation-free elimination solves these nearly
    // closed chains to full precision (they were refused as uncertifiable before).
    for (w, rolls) in [("1e-150,1", 1e150), ("1e-17,1", 1e17)] {
        let v = json(&["snakes", "--die", w, "--mc", "0"]);
        let e = v["expected_rolls"].as_f64().unwrap();
        assert!((e / rolls - 1.0).abs() < 1e-14, "{w}: {e}");
        // The solve is certified to about 1e-15; the rest of the bound is what rounding the
        // die's probabilities can do over 100 cells (about 1.8e-13).
        assert!(
            v["error_bound"].as_f64().unwrap() < 5e-13,
            "{w}: {}",
            v["error_bound"]
        );
    }
    // About 1e300 rolls: certified, but the variance (about 1e600) overflows.
    kolmo()
        .args(["snakes", "--die", "1e-300,1", "--mc", "0"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("exceeds the range of floating point"));
    // A long board with a cycle (the snake 1999 -> 1) and the same die: beyond what the
    // cancellation-free elimination takes, still refused.
    let dir = tempfile::tempdir().unwrap();
    let board = dir.path().join("loop.toml");
    std::fs::write(&board, "size = 2000\nsnakes = [[1999, 1]]\n").unwrap();
    kolmo()
        .args(["snakes", board.to_str().unwrap(), "--die", "1e-17,1", "--mc", "0"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("cannot be certified"))
        .stderr(predicate::str::contains("probability below 1e-12"));
    kolmo()
        .args(["snakes", "--distribution", "30000", "--exact", "--mc", "0"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("too long for exact arithmetic"));
}

// Beyond the work limit, small boards take P^k by repeated squaring: it agrees with stepping, and
// a trillion rolls leave the token on the last cell.
#[test]
fn distribution_by_squaring_agrees_with_stepping() {
    let stepped = json(&["snakes", "--mc", "0", "--distribution", "50"]);
    let squared = json(&[
        "snakes",
        "--mc",
        "0",
        "--distribution",
        "50",
        "--max-work",
        "1000",
    ]);
    let a = stepped["distribution_after"][0]["probabilities"]
        .as_array()
        .unwrap();
    let b = squared["distribution_after"][0]["probabilities"]
        .as_array()
        .unwrap();
    for (x, y) in a.iter().zip(b) {
        assert!((x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1e-14);
    }
    // Both report how far the total is from 1.
    for v in [&stepped, &squared] {
        let e = v["distribution_after"][0]["mass_error"].as_f64().unwrap();
        assert!((0.0..1e-13).contains(&e), "{e}");
    }
    let far = json(&["snakes", "--mc", "0", "--distribution", "1000000000000"]);
    assert!(
        (far["distribution_after"][0]["probabilities"][100]
            .as_f64()
            .unwrap()
            - 1.0)
            .abs()
            < 1e-14
    );
}

// Random boards as the peer harness generates them (shared/peers/gen_board.py's distribution;
// reproducibility and the portals' layout are tested in the library).
#[test]
fn random_portals_board() {
    let v = json(&[
        "snakes",
        "empty",
        "--size",
        "200",
        "--random-portals",
        "20",
        "--seed",
        "5",
        "--mc",
        "0",
    ]);
    assert!(
        v["board"]["name"]
            .as_str()
            .unwrap()
            .contains("20 ladders, 20 snakes, seed 5"),
        "{}",
        v["board"]
    );
    assert!(v["expected_rolls"].as_f64().unwrap() > 200.0 / 3.5 * 0.5);
    assert!(v["error_bound"].as_f64().unwrap() < 1e-10);
}

// --method: every method gives the classic board's expected rolls (Althoen, King & Schilling's
// 39.225122308234960 for rule stay), each with its certified bound; forced methods that would run
// for hours are refused with the reason; unknown names exit 2.
#[test]
fn every_method_gives_the_published_expected_rolls() {
    for method in ["auto", "dense-lu", "sparse-lu", "woodbury", "bicgstab", "gmres"] {
        let v = json(&["snakes", "--rule", "stay", "--mc", "0", "--method", method]);
        let e = v["expected_rolls"].as_f64().unwrap();
        let bound = v["error_bound"].as_f64().unwrap();
        assert!(bound <= 1e-10, "{method}: bound {bound}");
        assert!(
            (e - 39.225122308234960).abs() <= 39.3 * bound.max(1e-14) + 1e-13,
            "{method}: {e} (bound {bound})"
        );
    }
    kolmo()
        .args(["snakes", "--method", "lu"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values: auto, dense-lu"));
    for (method, why) in [
        ("woodbury", "rank"),
        ("sparse-lu", "fill in"),
        ("dense-lu", "dense factorisation"),
    ] {
        kolmo()
            .args([
                "snakes",
                "empty",
                "--size",
                "30000",
                "--random-portals",
                "3000",
                "--mc",
                "0",
                "--method",
                method,
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(why).and(predicate::str::contains("bicgstab")));
    }
}

// A board beyond the direct solvers' reach (30,000 cells, 3,000 random snakes and ladders) is
// solved by the Krylov method with a certified bound, and the Monte Carlo check agrees.
#[test]
fn a_large_random_board_is_solved_iteratively() {
    let v = json(&[
        "snakes",
        "empty",
        "--size",
        "30000",
        "--random-portals",
        "3000",
        "--seed",
        "2",
        "--mc",
        "1000",
        "--turns",
        "100",
        "--max-work",
        "10000000",
    ]);
    assert!(
        v["method"].as_str().unwrap().contains("BiCGSTAB"),
        "{}",
        v["method"]
    );
    // The bound covers the die's rounding over 3·10⁴ cells (about 2·3·10⁴·20u ≈ 1.3e-10).
    assert!(v["error_bound"].as_f64().unwrap() <= 1e-9, "{}", v["error_bound"]);
    let z = v["monte_carlo"]["z_score"].as_f64().unwrap();
    assert!(z.abs() < 4.0, "z = {z}");
}

/// A Monte Carlo run that could not finish is refused at once with its estimate (issue 15 §4):
/// 10¹⁸ games of 35.83 rolls on the classic board, and 2.8·10¹⁰ games, just over the limit of
/// 10¹² rolls (2.79·10¹⁰ games would be allowed, and run for half an hour: not tried here).
#[test]
fn a_monte_carlo_run_beyond_the_budget_is_refused_with_its_estimate() {
    for games in ["1000000000000000000", "28000000000"] {
        let out = kolmo()
            .args(["snakes", "--mc", games, "--threads", "2"])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with(&format!("kolmo: error: --mc {games}: about "))
                && err.contains("games of 35.83 rolls on average")
                && err.contains("on 2 threads")
                && err.contains("at most 10^12 rolls")
                && err.contains("give fewer games"),
            "{err}"
        );
    }
}

// A board that can trap the token is analysed, exit 0 (issue 15 §5): the snakes 7 -> 5 and
// 8 -> 5 close {5, 6}, the ladder 3 -> 9 escapes; P(the game ever ends) = 5/8 by hand (see the
// library's test `trapped_board_is_analysed`), the shortest game 3 rolls.
#[test]
fn trapped_board_is_reported_with_its_finish_probability() {
    let f =
        board_file("size = 10\nfaces = 2\nrule = \"stay\"\nsnakes = [[7, 5], [8, 5]]\nladders = [[3, 9]]\n");
    let path = f.path().to_str().unwrap();
    kolmo()
        .args(["snakes", path, "--exact"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "not reached with probability 1 from 6 reachable cells: 0, 1, 2, 4, 5, 6",
        ))
        .stdout(predicate::str::contains("cannot be reached at all from 4, 5, 6"))
        .stdout(predicate::str::contains(
            "P(the game ever ends)           0.625 = 5/8",
        ))
        .stdout(predicate::str::contains("Fewest rolls that can finish    3"))
        .stdout(predicate::str::contains("+inf"));
    let v = json(&["snakes", path, "--exact"]);
    assert_eq!(v["expected_rolls"], "inf");
    assert_eq!(v["finish_probability"], 0.625);
    assert_eq!(v["finish_probability_exact"], "5/8");
    assert_eq!(v["finish_probability_by_cell_exact"][1], "3/4");
    assert_eq!(v["min_rolls"], 3);
    assert_eq!(v["never_finish"], serde_json::json!([4, 5, 6]));
    assert_eq!(v["expected_rolls_by_cell"][9], 2.0);
    // P(finished within 20 rolls) is below 5/8 and close to it.
    let p20 = v["finished_by"][0]["probability"].as_f64().unwrap();
    assert!(p20 < 0.625 && p20 > 0.6249, "{p20}");
    // Exactly 5/8 − 2^-20·(5/8·2^20 − 655357): the fraction agrees with the decimal.
    assert_eq!(v["finished_by"][0]["probability_exact"], "655357/1048576");
    assert_eq!(p20, 655357.0 / 1048576.0);
    // From the start nothing finishes: the fewest rolls are none, in JSON null.
    let g = board_file("size = 10\nfaces = 2\nrule = \"stay\"\nsnakes = [[8, 0], [9, 0]]\n");
    let v = json(&["snakes", g.path().to_str().unwrap()]);
    assert_eq!(v["finish_probability"], 0.0);
    assert!(v["min_rolls"].is_null());
    // What needs every game to end is refused when asked for, naming the flag.
    for flag in [
        &["--players", "2"][..],
        &["--fundamental"],
        &["--curve"],
        &["--mc", "100"],
    ] {
        kolmo()
            .args(["snakes", path])
            .args(flag)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{} needs every game to end",
                flag[0]
            )));
    }
}

// --exact on a die of whole weights uses the weights' fractions as written, whatever their sum
// (it was refused beyond denominators of 2^20); a die whose probabilities are not simple
// fractions is refused in terms of the die (the message spoke of a state and a file to correct).
#[test]
fn exact_dice_from_their_weights() {
    let v = json(&[
        "snakes",
        "empty",
        "--size",
        "19",
        "--die",
        "1000000,1000000,1",
        "--exact",
        "--mc",
        "0",
    ]);
    let exact = v["expected_rolls_exact"].as_str().unwrap();
    let (n, d) = exact.split_once('/').unwrap();
    assert!(d.ends_with("000001"), "{exact}");
    // The fraction's leading digits against the decimal (both 12.88888331273847...).
    let lead = |s: &str, k: usize| s[..k].parse::<f64>().unwrap();
    let ratio = lead(n, 17) / lead(d, 17) * 10f64.powi(n.len() as i32 - d.len() as i32);
    assert!(
        (ratio / v["expected_rolls"].as_f64().unwrap() - 1.0).abs() < 1e-12,
        "{ratio}"
    );
    kolmo()
        .args([
            "snakes",
            "empty",
            "--size",
            "19",
            "--die",
            "1,0.000000001",
            "--exact",
            "--mc",
            "0",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("--exact: the die's probabilities"));
}
