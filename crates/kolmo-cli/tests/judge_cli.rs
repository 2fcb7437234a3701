//! `kolmo judge`: judge problems read as given and answered in the judge's format.

use assert_cmd::Command;
use predicates::prelude::*;

fn kolmo() -> Command {
    Command::cargo_bin("kolmo").unwrap()
}

/// The path of a file of the shared reference cases (`shared/cases` beside the repository, read
/// in place: the data is not copied into the project).
fn case_path(name: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/cases")
        .join(name);
    assert!(
        p.exists(),
        "{}: the shared reference cases are needed beside the repository",
        p.display()
    );
    p
}

/// The text of a file of the shared reference cases.
fn case(name: &str) -> String {
    std::fs::read_to_string(case_path(name)).unwrap()
}

fn sample_in() -> String {
    case("lightoj1151.sample.in")
}

fn sample_out() -> String {
    case("lightoj1151.sample.out")
}

// LightOJ 1151's published sample (shared/cases/lightoj1151.sample.{in,out}), byte for byte.
#[test]
fn lightoj_1151_sample() {
    kolmo()
        .args(["judge", "lightoj-1151"])
        .write_stdin(sample_in())
        .assert()
        .success()
        .stdout(sample_out());
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

// Codeforces 1245E's published samples (shared/cases/cf1245e.sample{1,2,3}.{in,out}), byte for
// byte, from standard input and from a file.
#[test]
fn cf_1245e_samples() {
    for (input, output) in [
        (case("cf1245e.sample1.in"), case("cf1245e.sample1.out")),
        (case("cf1245e.sample2.in"), case("cf1245e.sample2.out")),
        (case("cf1245e.sample3.in"), case("cf1245e.sample3.out")),
    ] {
        kolmo()
            .args(["judge", "cf-1245e"])
            .write_stdin(input)
            .assert()
            .success()
            .stdout(output);
    }
    let p = case_path("cf1245e.sample2.in");
    kolmo()
        .args(["judge", "cf-1245e", p.to_str().unwrap()])
        .assert()
        .success()
        .stdout(case("cf1245e.sample2.out"));
}

// Sample 3's exact value (shared/cases/04-cf1245e.md).
#[test]
fn cf_1245e_exact() {
    kolmo()
        .args(["judge", "cf-1245e", "--exact"])
        .write_stdin(case("cf1245e.sample3.in"))
        .assert()
        .success()
        .stdout("15.9047592939 126580589255267447674841473/7958661109946400884391936\n");
}

#[test]
fn cf_1245e_any_whitespace_windows_line_endings_and_a_byte_order_mark() {
    let sample = case("cf1245e.sample3.in");
    let crlf = format!("\u{feff}{}", sample.replace('\n', "\r\n"));
    let one_line = sample.split_whitespace().collect::<Vec<_>>().join("\t");
    for input in [crlf, one_line, format!("\n\n{sample}\n\n")] {
        kolmo()
            .args(["judge", "cf-1245e"])
            .write_stdin(input)
            .assert()
            .success()
            .stdout(case("cf1245e.sample3.out"));
    }
}

#[test]
fn cf_1245e_bad_input() {
    let zeros = "0 0 0 0 0 0 0 0 0 0\n";
    let board = |rows: &[(usize, &str)]| {
        (1..=10)
            .map(|r| {
                rows.iter()
                    .find(|(i, _)| *i == r)
                    .map_or(zeros.to_string(), |(_, l)| format!("{l}\n"))
            })
            .collect::<String>()
    };
    for (input, message) in [
        (
            zeros.repeat(2),
            "<stdin>:2: input ends where the height of row 3, column 1 was expected (truncated input? 10 rows of 10 heights are needed, 20 given)",
        ),
        (
            String::new(),
            "<stdin>:1: input ends where the height of row 1, column 1",
        ),
        (
            board(&[(10, "0 0 0 0 0 0 0 x 0 0")]),
            "<stdin>:10:15: expected the height of row 10, column 8 (an integer from 0 to 9), found 'x'",
        ),
        (
            board(&[(3, "0 0 0 0 0 0 0 0 0 2.5")]),
            "<stdin>:3:19: expected the height of row 3, column 10",
        ),
        (
            board(&[(10, "0 0 0 0 0 0 0 10 0 0")]),
            "<stdin>:10:15: row 10, column 8: height 10 is out of range (0 to 9)",
        ),
        (
            board(&[(6, "0 -1 0 0 0 0 0 0 0 99999999999999999999")]),
            "<stdin>:6:3: row 6, column 2: height -1 is out of range (0 to 9)",
        ),
        (
            board(&[(6, "0 0 0 0 0 0 0 0 0 99999999999999999999")]),
            "<stdin>:6:19: row 6, column 10: height 99999999999999999999 is out of range (0 to 9)",
        ),
        (
            board(&[(4, "0 0 0 0 4 0 0 0 0 0"), (10, "0 x")]),
            "<stdin>:4:9: row 4, column 5: a ladder of height 4 would rise above the top row (at most 3 from row 4)",
        ),
        (
            board(&[(1, "0 0 1 0 0 0 0 0 0 0")]),
            "<stdin>:1:5: row 1, column 3: a ladder of height 1 would rise above the top row (at most 0 from row 1)",
        ),
        (
            board(&[(10, "3 0 0 0 0 0 0 0 0 0")]),
            "<stdin>:10:1: row 10, column 1: the start (bottom-left square) cannot hold a ladder",
        ),
        (
            board(&[(1, "1 0 0 0 0 0 0 0 0 0")]),
            "<stdin>:1:1: row 1, column 1: the goal (top-left square) cannot hold a ladder",
        ),
        (
            format!("{}\n7\n", zeros.repeat(10)),
            "<stdin>:12:1: the input continues ('7') after the 100 heights (10 rows of 10)",
        ),
    ] {
        kolmo()
            .args(["judge", "cf-1245e"])
            .write_stdin(input)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
    kolmo()
        .args(["judge", "cf-1245e"])
        .write_stdin(&b"0 0\n\xff\n"[..])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("<stdin>:2:1: the input is not text"));
}

#[test]
fn cf_1245e_listed_with_help() {
    kolmo()
        .args(["judge", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\ncf-1245e "));
    kolmo()
        .args(["judge", "cf-1245e", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("10 lines of 10 integers"));
}

// `kolmo judge` alone: exit 2, the problems named, and advice that works (the --list it
// suggests runs and lists the problem the example names).
#[test]
fn judge_without_a_problem_names_them_and_advice_that_works() {
    kolmo()
        .arg("judge")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("lightoj-1151, rps-cards, cf-1245e"))
        .stderr(predicate::str::contains(
            "help: kolmo judge --list describes the problems; kolmo judge lightoj-1151 < input.txt",
        ));
    kolmo()
        .args(["judge", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("lightoj-1151"));
}

// The judge modes on bytes (`kolmo_cli::judge_answer`, which the fuzz targets call): the same
// answers as the command, nothing written for a bad input, the place named after `name`.
#[test]
fn judge_answer_on_bytes() {
    let answer = |problem: &str, input: &[u8]| {
        let mut out = Vec::new();
        let result = kolmo_cli::judge_answer(problem, "in.txt", input.to_vec(), false, &mut out);
        (
            result.map_err(|e| format!("{e:#}")),
            String::from_utf8(out).unwrap(),
        )
    };
    assert_eq!(
        answer("lightoj-1151", sample_in().as_bytes()),
        (Ok(()), sample_out())
    );
    let cf = case("cf1245e.sample1.in");
    let cf_out = case("cf1245e.sample1.out");
    assert_eq!(answer("cf-1245e", cf.as_bytes()), (Ok(()), cf_out.to_string()));
    let (result, out) = answer("rps-cards", b"1\n1 RPS RPS\n");
    assert_eq!((result, out.lines().count()), (Ok(()), 1));
    let (result, out) = answer("lightoj-1151", b"2\n0\nx\n");
    assert_eq!(out, "");
    assert!(result.unwrap_err().starts_with("in.txt:3:1: case 2:"));
    let (result, _) = answer("lightoj-1151", b"1\n0\n\xff");
    assert!(result.unwrap_err().starts_with("in.txt:3:1:"));
    assert!(
        answer("no-such-problem", b"1")
            .0
            .unwrap_err()
            .contains("lightoj-1151")
    );
}
