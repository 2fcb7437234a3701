//! `kolmo judge`: judge problems read as given and answered in the judge's format.

use assert_cmd::Command;
use predicates::prelude::*;

fn kolmo() -> Command {
    Command::cargo_bin("kolmo").unwrap()
}

const SAMPLE_IN: &str = include_str!("data/lightoj1151.sample.in");
const SAMPLE_OUT: &str = include_str!("data/lightoj1151.sample.out");

// LightOJ 1151's published sample (shared/cases/lightoj1151.sample.{in,out}), byte for byte.
#[test]
fn lightoj_1151_sample() {
    kolmo()
        .args(["judge", "lightoj-1151"])
        .write_stdin(SAMPLE_IN)
        .assert()
        .success()
        .stdout(SAMPLE_OUT);
}

#[test]
fn lightoj_1151_from_a_file_and_blank_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("in.txt");
    std::fs::write(&p, "1\n\n\n0\n").unwrap();
    // The empty board from cell 1 (shared/cases/01-snakes.md): 33.0476190476.
    kolmo()
        .args(["judge", "lightoj-1151", p.to_str().unwrap()])
        .assert()
        .success()
        .stdout("Case 1: 33.0476190476\n");
}

#[test]
fn lightoj_1151_windows_line_endings_tabs_and_a_byte_order_mark() {
    kolmo()
        .args(["judge", "lightoj-1151"])
        .write_stdin("\u{feff}1\r\n\t0\r\n")
        .assert()
        .success()
        .stdout("Case 1: 33.0476190476\n");
}

#[test]
fn lightoj_1151_bad_input() {
    for (input, message) in [
        (
            "2\n0\n",
            "<stdin>:2: case 2: input ends where the number of portals n was expected",
        ),
        (
            "1\n1\n4\n",
            "case 1: input ends where a portal's end cell v was expected",
        ),
        ("x\n", "<stdin>:1:1: expected the number of cases T, found 'x'"),
        (
            "1\n1\n4 101\n",
            "<stdin>:3:3: case 1: a portal's end cell v 101 is out of range (1 to 100)",
        ),
        ("1\n1\n0 5\n", "case 1: a portal's start cell u 0 is out of range"),
        (
            "1\n1\n100 5\n",
            "<stdin>:3: case 1: portal 100 -> 5 starts on the last cell",
        ),
        (
            "1\n2\n4 9\n4 12\n",
            "<stdin>:4: case 1: two portals start on cell 4",
        ),
        ("1\n1\n7 7\n", "case 1: portal 7 -> 7 leads to itself"),
        (
            "1\n0\n0\n",
            "<stdin>:3:1: the input continues ('0') after the 1 case(s) announced by T",
        ),
        (
            "1\n6\n94 1\n95 1\n96 1\n97 1\n98 1\n99 1\n",
            "case 1: cell 100 is not reached with probability 1 from cell(s)",
        ),
    ] {
        kolmo()
            .args(["judge", "lightoj-1151"])
            .write_stdin(input)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
}

#[test]
fn judge_list_and_help() {
    kolmo()
        .args(["judge", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("lightoj-1151 "));
    kolmo()
        .args(["judge", "lightoj-1151", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"Case i: x\""));
    kolmo()
        .args(["judge"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("kolmo judge --list"));
}

// The empty board from cell 1 as an exact fraction (shared/cases/01-snakes.md: 33.0476190476).
#[test]
fn lightoj_1151_exact() {
    kolmo().args(["judge", "lightoj-1151", "--exact"]).write_stdin("1\n0\n").assert().success().stdout(
        "Case 1: 33.0476190476 12854500663333283521753228116391023357323453622589783578561802806869649697/388969040244955338658770973340369358554064566229992374175449606558580736\n",
    );
}

#[test]
fn lightoj_1151_whole_case_errors_name_the_line_and_bytes_are_located() {
    kolmo()
        .args(["judge", "lightoj-1151"])
        .write_stdin("2\n0\n6\n2 1\n3 1\n4 1\n5 1\n6 1\n7 1\n")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "<stdin>:3: case 2: cell 100 is not reached",
        ));
    kolmo()
        .args(["judge", "lightoj-1151"])
        .write_stdin(&b"1\n\xff\n"[..])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<stdin>:2:1: the input is not text"));
}
