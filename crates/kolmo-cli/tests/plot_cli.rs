//! `--plot` and `--plot-board`: every plot kind writes a valid SVG or PNG; a bad extension is a
//! usage error. Spawns the real binary.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn kolmo() -> Command {
    Command::cargo_bin("kolmo").unwrap()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/models")
}

/// Runs kolmo with `args` and returns what it wrote to `file` in `dir`.
fn plot(dir: &Path, file: &str, args: &[&str]) -> Vec<u8> {
    let path = dir.join(file);
    kolmo()
        .args(args)
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "kolmo: wrote {}",
            path.display()
        )));
    std::fs::read(&path).unwrap()
}

/// An SVG document whose text contains `title`.
fn assert_svg(bytes: &[u8], title: &str) {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(
        text.trim_start().starts_with("<svg"),
        "{}",
        &text[..text.len().min(200)]
    );
    assert!(text.trim_end().ends_with("</svg>"));
    assert!(text.contains(title), "no {title:?} in the SVG");
}

/// A PNG (signature, then the IHDR chunk) of at least `min` pixels each way and a plausible size.
fn assert_png(bytes: &[u8], min: (u32, u32)) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    let (w, h) = (be(16), be(20));
    assert!(w >= min.0 && h >= min.1 && w <= 4000 && h <= 4000, "{w} x {h}");
    // Not blank: a white image of this size compresses to a few kilobytes.
    assert!(
        bytes.len() > 10_000 && bytes.len() < 20_000_000,
        "{} bytes",
        bytes.len()
    );
    (w, h)
}

#[test]
fn snakes_game_length() {
    let dir = tempfile::tempdir().unwrap();
    let svg = plot(dir.path(), "game.svg", &["snakes", "--mc", "0", "--plot"]);
    assert_svg(&svg, "Game length on the classic board");
    let text = String::from_utf8(svg).unwrap();
    assert!(text.contains("median 29"), "the median is marked");
    assert!(text.contains("rolls t"));
    let png = plot(dir.path(), "game.png", &["snakes", "--mc", "0", "--plot"]);
    assert_eq!(assert_png(&png, (800, 500)), (1200, 650));
}

#[test]
fn snakes_race_by_round() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["snakes", "--mc", "0", "--players", "3", "--plot"];
    let svg = plot(dir.path(), "race.svg", &args);
    assert_svg(&svg, "3 players taking turns");
    assert!(String::from_utf8(svg).unwrap().contains("seat 3 (wins"));
    assert_png(&plot(dir.path(), "race.png", &args), (800, 800));
}

#[test]
fn snakes_board() {
    let dir = tempfile::tempdir().unwrap();
    let svg = plot(dir.path(), "board.svg", &["snakes", "--mc", "0", "--plot-board"]);
    assert_svg(&svg, "classic board: expected visits to each cell per game");
    let text = String::from_utf8(svg).unwrap();
    assert!(text.contains("\n100\n") && text.contains("ladder (9)") && text.contains("snake (10)"));
    let png = plot(dir.path(), "board.png", &["snakes", "--mc", "0", "--plot-board"]);
    assert_png(&png, (800, 800));
    // Other sizes: a near-square grid.
    let svg = plot(
        dir.path(),
        "small.svg",
        &["snakes", "empty", "--size", "30", "--mc", "0", "--plot-board"],
    );
    assert_svg(&svg, "6 × 5");
}

#[test]
fn snakes_board_too_large_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.png");
    kolmo()
        .args(["snakes", "empty", "--size", "5000", "--mc", "0", "--plot-board"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("up to 900 cells"));
    assert!(!path.exists());
}

#[test]
fn one_file_for_both_snakes_figures_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("same.png");
    kolmo()
        .args(["snakes", "--mc", "0", "--plot"])
        .arg(&path)
        .arg("--plot-board")
        .arg(&path)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("give each figure its own file"));
    assert!(!path.exists());
}

// An unwritable place is refused before the analysis, with the path and a plain reason.
#[test]
fn an_unwritable_plot_path_is_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-dir").join("g.png");
    kolmo()
        .args(["snakes", "--mc", "0", "--plot"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("cannot write")
                .and(predicate::str::contains("check that the directory exists")),
        );
}

#[test]
fn analyze_distribution() {
    let dir = tempfile::tempdir().unwrap();
    let oz = examples().join("land-of-oz.json");
    let oz = oz.to_str().unwrap();
    let svg = plot(dir.path(), "pi.svg", &["analyze", oz, "--plot"]);
    assert_svg(&svg, "Long-run fraction of time in each state, from R");
    let svg = plot(dir.path(), "k.svg", &["analyze", oz, "--steps", "3", "--plot"]);
    assert_svg(&svg, "Distribution after 3 steps from R");
    assert_png(
        &plot(dir.path(), "pi.png", &["analyze", oz, "--plot"]),
        (800, 500),
    );
}

#[test]
fn analyze_caps_the_bars() {
    let dir = tempfile::tempdir().unwrap();
    // A ring of 100 named states.
    let n = 100;
    let transitions: Vec<String> = (0..n)
        .flat_map(|i| {
            [
                format!("[{i}, {}, 0.5]", (i + 1) % n),
                format!("[{i}, {}, 0.5]", (i + n - 1) % n),
            ]
        })
        .collect();
    let names: Vec<String> = (0..n).map(|i| format!("\"node{i}\"")).collect();
    let model = dir.path().join("ring.json");
    std::fs::write(
        &model,
        format!(
            "{{\"states\": [{}], \"initial\": 0, \"transitions\": [{}]}}",
            names.join(", "),
            transitions.join(", ")
        ),
    )
    .unwrap();
    let svg = plot(
        dir.path(),
        "ring.svg",
        &["analyze", model.to_str().unwrap(), "--plot"],
    );
    assert_svg(&svg, "the 60 most likely of 100 states");
}

#[test]
fn cards_value_and_gain_line() {
    let dir = tempfile::tempdir().unwrap();
    let svg = plot(dir.path(), "v.svg", &["cards", "--rounds", "10", "--plot"]);
    assert_svg(&svg, "Alice RPS vs Bob RPS");
    assert!(String::from_utf8(svg).unwrap().contains("gain line kρ + h"));
    assert_png(&plot(dir.path(), "v.png", &["cards", "--plot"]), (800, 800));
}

#[test]
fn bad_extension_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let oz = examples().join("land-of-oz.json");
    for (args, flag) in [
        (vec!["snakes", "--mc", "0", "--plot"], "--plot"),
        (vec!["snakes", "--mc", "0", "--plot-board"], "--plot-board"),
        (vec!["analyze", oz.to_str().unwrap(), "--plot"], "--plot"),
        (vec!["cards", "--plot"], "--plot"),
    ] {
        let path = dir.path().join("out.pdf");
        kolmo()
            .args(&args)
            .arg(&path)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "{flag} {}: the format comes from the extension, .svg or .png",
                path.display()
            )));
        assert!(!path.exists());
    }
}

/// Every plot with degenerate input (issue 15 §4; the first two panicked in the game-length
/// figure, now kolmo-plot's `game_length.rs`): a game over before the first roll, a distribution stopped before any
/// roll was computed, both with several players; the board of a 1-cell game; a one-state chain;
/// the shortest card game. Each writes its figure and says what it shows.
#[test]
fn degenerate_inputs_are_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Cell 80 of the classic board is the foot of the ladder to 100: the game is over at roll 0.
    let svg = plot(d, "zero.svg", &["snakes", "--start", "80", "--mc", "0", "--plot"]);
    assert_svg(&svg, "0 rolls on average");
    assert!(
        String::from_utf8(svg)
            .unwrap()
            .contains("by which 100 % of games are over")
    );
    assert_png(
        &plot(d, "zero.png", &["snakes", "--start", "80", "--mc", "0", "--plot"]),
        (800, 500),
    );
    let race = ["snakes", "--start", "80", "--players", "2", "--mc", "0", "--plot"];
    assert_svg(&plot(d, "zero-race.svg", &race), "2 players taking turns");
    // Stopped before the first roll: one player's figure says so; the race needs the
    // distribution, so three players are refused (exit 1, naming --max-work), with no file.
    let svg = plot(
        d,
        "stopped.svg",
        &["snakes", "--max-work", "0", "--mc", "0", "--plot"],
    );
    assert_svg(&svg, "Game length on the classic board");
    assert!(
        String::from_utf8(svg)
            .unwrap()
            .contains("computed only to roll 0, by which 0 % of games are over: raise --max-work")
    );
    let path = d.join("stopped-race.svg");
    kolmo()
        .args([
            "snakes",
            "--max-work",
            "0",
            "--mc",
            "0",
            "--players",
            "3",
            "--plot",
        ])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--max-work, now 0"));
    assert!(!path.exists());
    let board = ["snakes", "--start", "80", "--mc", "0", "--plot-board"];
    assert_svg(
        &plot(d, "board.svg", &board),
        "expected visits to each cell per game",
    );
    let one = d.join("one.json");
    std::fs::write(
        &one,
        r#"{"states": ["only"], "initial": 0, "transitions": [[0, 0, 1]]}"#,
    )
    .unwrap();
    let one = one.to_str().unwrap();
    assert_svg(
        &plot(d, "one.svg", &["analyze", one, "--plot"]),
        "Long-run fraction of time in each state",
    );
    assert_svg(
        &plot(d, "one0.svg", &["analyze", one, "--steps", "0", "--plot"]),
        "Distribution after 0 steps",
    );
    assert_svg(
        &plot(d, "k1.svg", &["cards", "--rounds", "1", "--plot"]),
        "Alice RPS vs Bob RPS",
    );
}
