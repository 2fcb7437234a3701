//! The feel of the tool: CSV tables, --quiet, NO_COLOR, shell completions, the man page and the
//! two-line error reports.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn kolmo() -> Command {
    let mut c = Command::cargo_bin("kolmo").unwrap();
    c.env_remove("NO_COLOR");
    c
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/models")
        .join(name)
}

/// Runs kolmo, expects success, returns (stdout, stderr).
fn run(args: &[&str]) -> (String, String) {
    let out = kolmo().args(args).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(out.status.success(), "{args:?}: {stderr}");
    (stdout, stderr)
}

/// Splits CSV text (no quoted fields here) into the header and the rows, checking that every row
/// has one field per column.
fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect::<Vec<_>>())
        .collect();
    for r in &rows {
        assert_eq!(r.len(), header.len(), "row {r:?} under {header:?}");
    }
    (header, rows)
}

#[test]
fn snakes_csv_cells_in_full_precision() {
    let (out, err) = run(&["snakes", "--rule", "stay", "--csv"]);
    assert_eq!(err, "");
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, ["cell", "expected_rolls", "std_dev"]);
    assert_eq!(rows.len(), 101);
    // Althoen, King & Schilling (1993): 39.225122308234960 expected rolls (exact landing).
    assert_eq!(rows[0][0], "0");
    let e: f64 = rows[0][1].parse().unwrap();
    assert!((e - 39.22512230823496).abs() < 1e-12, "{e}");
    assert_eq!(rows[100][1], "0");
    // --cells selects the rows.
    let (out, _) = run(&["snakes", "--csv=cells", "--cells", "0,50"]);
    assert_eq!(parse_csv(&out).1.len(), 2);
}

#[test]
fn snakes_csv_other_tables() {
    let (out, _) = run(&["snakes", "--csv=length"]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(
        header,
        ["turn", "p_finish_at", "p_finished_by", "p_not_finished_by"]
    );
    assert!(rows.len() > 100);
    let (out, _) = run(&["snakes", "--csv=finished-by", "--turns", "10,20"]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, ["turn", "p_finished_by"]);
    assert_eq!(rows.len(), 2);
    let (out, _) = run(&["snakes", "--csv=portals"]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, ["kind", "from", "to", "expected_uses"]);
    assert_eq!(rows[0][..3], ["ladder", "1", "38"]);
    let (out, _) = run(&["snakes", "--csv=distribution", "--distribution", "2"]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, ["turn", "cell", "probability"]);
    let total: f64 = rows.iter().map(|r| r[2].parse::<f64>().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-12);
    let (out, _) = run(&["snakes", "--csv=players", "--players", "2"]);
    assert_eq!(parse_csv(&out).1.len(), 2);
    // A table the run does not compute: a usage error saying which flag to add.
    kolmo()
        .args(["snakes", "--csv=distribution"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--distribution K"));
}

#[test]
fn analyze_and_solve_csv() {
    let drunkard = example("drunkard.json");
    let drunkard = drunkard.to_str().unwrap();
    let (out, _) = run(&["analyze", drunkard, "--target", "home", "--steps", "3", "--csv"]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(
        header,
        [
            "state",
            "long_run",
            "p_reach",
            "expected_steps",
            "variance",
            "reward_steps",
            "p_after_3"
        ]
    );
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[2][2], "0.5");
    let oz = example("land-of-oz.json");
    let (out, _) = run(&["analyze", oz.to_str().unwrap(), "--csv=stationary"]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, ["class", "state", "probability", "mean_recurrence"]);
    assert_eq!(rows[0][2..], ["0.4", "2.5"]);
    let forest = example("forest.json");
    let (out, _) = run(&[
        "solve",
        forest.to_str().unwrap(),
        "--objective",
        "discounted:0.9",
        "--csv",
    ]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, ["state", "value", "lower", "upper", "action"]);
    assert_eq!(rows.len(), 3);
    let v: f64 = rows[0][1].parse().unwrap();
    assert!((v - 26.244).abs() < 1e-9);
}

#[test]
fn csv_with_json_is_refused() {
    for args in [
        &["snakes", "--csv", "--json"][..],
        &["solve", "x.json", "--json", "--csv"],
        &["analyze", "x.json", "--csv=stationary", "--json"],
    ] {
        kolmo()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains("cannot be used with"));
    }
}

#[test]
fn completions_and_man_page() {
    let (bash, _) = run(&["completions", "bash"]);
    for sub in [
        "snakes",
        "analyze",
        "solve",
        "cards",
        "judge",
        "completions",
        "man",
    ] {
        assert!(bash.contains(sub), "bash completion lacks {sub}");
    }
    assert!(bash.contains("--csv"));
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        assert!(!run(&["completions", shell]).0.is_empty());
    }
    let (man, _) = run(&["man"]);
    assert!(
        man.starts_with(".ie") || man.contains(".TH kolmo"),
        "{}",
        &man[..200]
    );
    for flag in [
        "quiet",
        "color",
        "threads",
        "csv",
        "rule",
        "objective",
        "target",
        "steps",
    ] {
        assert!(man.contains(&format!("\\-\\-{flag}")), "man page lacks --{flag}");
    }
    assert!(man.contains(".SH \"KOLMO SNAKES\""));
}

#[test]
fn quiet_and_no_color() {
    // --quiet: nothing on stderr, even with a Monte Carlo run; the report is unchanged.
    let out = kolmo()
        .args(["--quiet", "snakes", "--mc", "20000"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stderr.is_empty());
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.contains("Monte Carlo check (20000 games"));
    // --color always colours the headline figure; NO_COLOR wins over it.
    let coloured = kolmo()
        .args(["--color", "always", "snakes", "--mc", "0"])
        .output()
        .unwrap();
    assert!(String::from_utf8(coloured.stdout).unwrap().contains("\x1b["));
    for env in [Some("1"), None] {
        let mut c = kolmo();
        let args: &[&str] = match env {
            Some(v) => {
                c.env("NO_COLOR", v);
                &["--color", "always", "snakes", "--mc", "0", "nofile"]
            }
            // Not a terminal: no colour by default.
            None => &["snakes", "--mc", "0", "nofile"],
        };
        let out = c.args(args).output().unwrap();
        assert!(!out.stdout.contains(&0x1b) && !out.stderr.contains(&0x1b));
    }
    let out = kolmo()
        .env("NO_COLOR", "1")
        .args(["--color", "always", "snakes", "--mc", "0"])
        .output()
        .unwrap();
    assert!(!out.stdout.contains(&0x1b));
}

#[test]
fn long_phases_are_silent_off_a_terminal() {
    // A board whose analysis lasts past the spinners' half-second delay (explored, solved and
    // stepped with the engine's progress observers): with stderr a pipe, as here, and with
    // --quiet, nothing is written to it.
    let board = [
        "snakes",
        "empty",
        "--size",
        "2000",
        "--random-portals",
        "400",
        "--seed",
        "1",
        "--mc",
        "0",
    ];
    for quiet in [false, true] {
        let mut c = kolmo();
        if quiet {
            c.arg("--quiet");
        }
        let out = c.args(board).output().unwrap();
        assert!(out.status.success());
        assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8(out.stdout).unwrap().contains("size 2000"));
    }
}

#[test]
fn errors_are_two_lines() {
    let out = kolmo().args(["snakes", "nofile"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("kolmo: error: no board file 'nofile'"));
    assert!(lines[1].starts_with("help: "));
    // Usage errors found by the flag parser read the same way.
    let out = kolmo().args(["snakes", "--csv", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("kolmo: error: the argument '--csv"), "{err}");
    assert!(lines[1].starts_with("help: give only one of the two"), "{err}");
    let out = kolmo().args(["--threads", "0", "snakes"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 2);
}

/// `kolmo` with no command names what is missing and what to run, not the program's description
/// as the error line (issue 15 §5).
#[test]
fn no_command_names_the_commands() {
    let names = ["snakes", "judge", "cards", "analyze", "solve"];
    let fix = "`kolmo snakes` analyses the built-in board";
    {
        let out = kolmo().output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        let mut lines = err.lines();
        let what = lines.next().unwrap();
        assert!(
            what.starts_with("kolmo: error: ") && what.contains("no command given (one of: "),
            "{err}"
        );
        assert!(names.iter().all(|n| what.contains(n)), "{err}");
        assert!(!err.contains("Exact answers about"), "{err}");
        let help = lines.next().unwrap();
        assert!(help.starts_with("help: ") && help.contains(fix), "{err}");
        assert_eq!(lines.next(), None, "{err}");
    }
}

// `kolmo_cli::check_args` (the fuzz target of the flags' values): the command line parsed as
// `kolmo` parses it, without running the command or reading a file.
#[test]
fn check_args_parses_without_running() {
    let check = |args: &[&str]| {
        let args = std::iter::once("kolmo").chain(args.iter().copied());
        kolmo_cli::check_args(args).map_err(|e| format!("{e:#}"))
    };
    assert!(
        check(&[
            "snakes",
            "--turns",
            "1,2",
            "--quantiles",
            "0.5,1",
            "--cells",
            "0,99"
        ])
        .is_ok()
    );
    assert!(check(&["solve", "no-such-file.json", "--objective", "discounted:0.9"]).is_ok());
    assert!(check(&["analyze", "no-such-file.json", "--steps", "3"]).is_ok());
    let error = |args: &[&str]| check(args).unwrap_err();
    assert!(error(&["snakes", "--turns", "1,x"]).contains("'x'"));
    assert!(error(&["snakes", "--quantiles", "1.5"]).contains("--quantiles: 1.5 is not in (0, 1]"));
    assert!(error(&["snakes", "--cells", "101"]).contains("--cells: cell 101 is not on the board"));
    assert!(error(&["snakes", "empty", "--size", "0"]).contains("size"));
    assert!(error(&["solve", "m.json", "--objective", "horizon:x"]).contains("horizon:x"));
    assert!(error(&["cards", "--alice", "RPX"]).contains("RPX"));
}
