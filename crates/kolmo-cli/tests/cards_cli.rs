//! `kolmo cards` and `kolmo judge rps-cards` end to end. Reference values: shared/cases/02-rps-3card.md
//! (derived by exact backward induction in rationals, cross-checked independently).

use assert_cmd::Command;
use predicates::prelude::*;

fn kolmo() -> Command {
    Command::cargo_bin("kolmo").unwrap()
}

#[test]
fn cards_json_and_exact() {
    let out = kolmo()
        .args([
            "cards", "--rounds", "3", "--alice", "RRS", "--bob", "PPS", "--json", "--exact",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!((v["value"].as_f64().unwrap() - 59.0 / 27.0).abs() < 1e-13);
    assert_eq!(v["value_exact"], "59/27");
    assert_eq!(v["gain_exact"], "1247820247/1766559075");
    assert!((v["gain"].as_f64().unwrap() - 1247820247.0 / 1766559075.0).abs() < 1e-13);
    assert_eq!(v["rounds"], 3);
    assert_eq!(v["alice"], "RRS");
    assert_eq!(v["bob"], "PPS");
    assert!(v["bias"].as_f64().is_some());
    assert!(["R", "S"].contains(&v["first_move"]["card"].as_str().unwrap()));
    // Against R Bob answers P (paper beats rock).
    assert_eq!(v["first_move"]["bob_answers"]["R"], "P");
}

#[test]
fn cards_huge_horizon() {
    let out = kolmo()
        .args(["cards", "--rounds", "1000000000", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rho = 1247820247.0 / 1766559075.0;
    let value = v["value"].as_f64().unwrap();
    assert!((value - (1e9 * rho + v["bias"].as_f64().unwrap())).abs() < 1e-3);
    assert!(v["value_error_bound"].as_f64().unwrap() / value < 1e-12);
    kolmo()
        .args(["cards", "--rounds", "3", "--alice", "RRS", "--bob", "PPS"])
        .assert()
        .success()
        .stdout(predicate::str::contains("2.185185185185"));
}

#[test]
fn judge_rps_cards() {
    // 5 rounds of PSR vs SRP is RPS vs RPS (hands are multisets): 15280/6561 = 2.3289132754.
    kolmo()
        .args(["judge", "rps-cards"])
        .write_stdin("5\n1 RPS RPS\n2 RPS RPS\n3 RRS PPS\n5 PSR SRP\n1 RRR SSS\n")
        .assert()
        .success()
        .stdout("0.0000000000\n0.2222222222\n2.1851851852\n2.3289132754\n3.0000000000\n");
    for (input, message) in [
        (
            "1\n0 RPS RPS\n",
            "case 1: the number of rounds k 0 is out of range",
        ),
        (
            "1\n1 RPX RPS\n",
            "<stdin>:2:3: case 1: Alice's hand: invalid hand",
        ),
        (
            "2\n1 RPS RPS\n",
            "case 2: input ends where the number of rounds k was expected",
        ),
        ("1\n1 RPS\n", "case 1: input ends where Bob's hand was expected"),
        ("1\n1 RPS RPS RPS\n", "the input continues"),
    ] {
        kolmo()
            .args(["judge", "rps-cards"])
            .write_stdin(input)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
    kolmo()
        .args(["cards", "--alice", "RP"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--alice"));
}

// Regressions from a break-it session.
#[test]
fn cards_limits_and_messages() {
    for args in [
        &["cards", "--rounds", "18446744073709551615"][..],
        &["cards", "--rounds", "-1"],
        &["cards", "--rounds", "0"],
    ] {
        kolmo()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("from 1 to 10^18 rounds"));
    }
    // Only the decimals the error bound vouches for.
    kolmo()
        .args(["cards", "--rounds", "1000000000000000000"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"total   7063563651275\d{5}  \(± ").unwrap());
    let out = kolmo()
        .args(["cards", "--json", "--rounds", "61", "--exact"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value_exact"], serde_json::Value::Null);
    assert_eq!(
        (v["period"].as_u64(), v["irreducible"].as_bool()),
        (Some(1), Some(true))
    );
    // Long or odd tokens are shortened and escaped in messages.
    let long = format!("1\n3 {} RPS\n", "R".repeat(100_000));
    let out = kolmo()
        .args(["judge", "rps-cards"])
        .write_stdin(long)
        .assert()
        .code(2);
    assert!(out.get_output().stderr.len() < 300);
    kolmo()
        .args(["judge", "rps-cards"])
        .write_stdin("1\n3 RPS\0 RPS\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(r"not '\0'"));
    kolmo()
        .args(["judge", "rps-cards"])
        .write_stdin("1\n1000000000000000000000000 RPS RPS\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is out of range (1 to 1000000000)"));
}
