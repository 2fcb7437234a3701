//! `kolmo judge PROBLEM`: read a judge problem's input as given, answer in the judge's format.
//! A thin input/output layer over the engine: each case becomes a built-in model (a Snakes and
//! Ladders board, the card game, a ladder-climbing MDP) and goes through the library's analysis.

use anyhow::{Result, bail};
use kolmo::games::snakes::{AnalysisOptions, Board, BoardSpec, PortalKind, Rule};
use rayon::prelude::*;
use std::io::{Read, Write};
use std::path::Path;

/// The problems `kolmo judge` can answer: (name, one-line description).
pub const PROBLEMS: &[(&str, &str)] = &[
    (
        "lightoj-1151",
        "LightOJ 1151 Snakes and Ladders: expected throws from cell 1 to 100, overshooting throws wasted",
    ),
    (
        "rps-cards",
        "3-card rock-paper-scissors: Alice's optimal expected total over k rounds (k up to 10^9)",
    ),
    (
        "cf-1245e",
        "Codeforces 1245E Hyakugoku and Ladders: minimal expected turns, climbing ladders or not (an MDP)",
    ),
];

/// One whitespace-separated token of the input and where it stands.
struct Token<'a> {
    text: &'a str,
    line: usize,
    column: usize,
}

/// The input as a lazy stream of tokens with their places, for messages such as
/// "<stdin>:3:5: case 1: expected a cell number, found 'x'". Memory stays bounded by one line.
struct Tokens<'a> {
    name: String,
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    /// The current line, its number, and the byte offset reached in it.
    line: &'a str,
    line_no: usize,
    at: usize,
    last_line: usize,
    /// Line of the last token read by [`int`](Self::int).
    last_token_line: usize,
}

impl<'a> Tokens<'a> {
    fn new(name: String, text: &'a str) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Self {
            name,
            lines: text.lines().enumerate(),
            line: "",
            line_no: 0,
            at: 0,
            last_line: 1,
            last_token_line: 0,
        }
    }

    /// The next token, if any.
    fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            let rest = &self.line[self.at..];
            if let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
                let tail = &rest[start..];
                let end = tail.find(char::is_whitespace).unwrap_or(tail.len());
                let column = self.at + start + 1;
                self.at += start + end;
                return Some(Token {
                    text: &tail[..end],
                    line: self.line_no,
                    column,
                });
            }
            let (i, line) = self.lines.next()?;
            self.line = line;
            self.line_no = i + 1;
            self.last_line = i + 1;
            self.at = 0;
        }
    }

    /// The next token as an integer in `lo..=hi`; `what` names it in errors, `case` (if any) the
    /// test case.
    fn int(&mut self, what: &str, case: Option<usize>, lo: i64, hi: i64) -> Result<i64> {
        let prefix = case.map_or(String::new(), |c| format!("case {c}: "));
        let Some(t) = self.next_token() else {
            bail!(
                "{}:{}: {prefix}input ends where {what} was expected (truncated input?)",
                self.name,
                self.last_line
            );
        };
        self.last_token_line = t.line;
        let place = format!("{}:{}:{}", self.name, t.line, t.column);
        let digits = t.text.strip_prefix(['+', '-']).unwrap_or(t.text);
        let v: i64 = match t.text.parse() {
            Ok(v) => v,
            Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                bail!(
                    "{place}: {prefix}{what} {} is out of range ({lo} to {hi})",
                    kolmo::excerpt(t.text)
                )
            }
            Err(_) => bail!(
                "{place}: {prefix}expected {what}, found '{}'",
                kolmo::excerpt(t.text)
            ),
        };
        if v < lo || v > hi {
            bail!("{place}: {prefix}{what} {v} is out of range ({lo} to {hi})");
        }
        Ok(v)
    }

    /// The next token as text; `what` names it in errors.
    fn word(&mut self, what: &str, case: usize) -> Result<Token<'a>> {
        match self.next_token() {
            Some(t) => {
                self.last_token_line = t.line;
                Ok(t)
            }
            None => bail!(
                "{}:{}: case {case}: input ends where {what} was expected (truncated input?)",
                self.name,
                self.last_line
            ),
        }
    }

    /// `Ok` if the input has no more tokens after the `t` cases announced.
    fn expect_end(&mut self, t: usize) -> Result<()> {
        match self.next_token() {
            None => Ok(()),
            Some(extra) => bail!(
                "{}:{}:{}: the input continues ('{}') after the {t} case(s) announced by T",
                self.name,
                extra.line,
                extra.column,
                kolmo::excerpt(extra.text)
            ),
        }
    }

    /// Line of the token just read.
    fn line(&self) -> usize {
        self.last_token_line
    }
}

/// The input as text, or an error naming the line and column of the first byte that is not UTF-8.
fn text_of(name: &str, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        anyhow::anyhow!("{name}:{line}:{column}: the input is not text (invalid UTF-8 at byte {at})")
    })
}

/// The problems' names, comma-separated, for messages.
pub fn problem_names() -> String {
    PROBLEMS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
}

/// `kolmo judge PROBLEM` (one of the names `kolmo judge --list` shows) on the input `bytes`, named `name` in messages, as
/// if read from a file: the answers written to `out`, nothing written for a bad input.
pub fn answer(problem: &str, name: &str, bytes: Vec<u8>, exact: bool, out: &mut dyn Write) -> Result<()> {
    let text = text_of(name, bytes)?;
    match problem {
        "lightoj-1151" => lightoj_1151_text(name.to_owned(), &text, exact, out),
        "rps-cards" => rps_cards_text(name.to_owned(), &text, out),
        "cf-1245e" => cf_1245e_text(name.to_owned(), &text, exact, out),
        other => bail!(
            "no judge problem {:?} (the problems: {})",
            kolmo::excerpt(other),
            problem_names()
        ),
    }
}

/// Reads the input named `path` (stdin for `None` or "-").
fn read_input(path: Option<&Path>) -> Result<(String, String)> {
    match path {
        Some(p) if p != Path::new("-") => {
            let bytes = std::fs::read(p).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
            let name = p.display().to_string();
            let text = text_of(&name, bytes)?;
            Ok((name, text))
        }
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
            Ok(("<stdin>".into(), text_of("<stdin>", bytes)?))
        }
    }
}

/// Reads the next LightOJ 1151 case (`n`, then `n` pairs `u v`) as a board.
fn lightoj_1151_case(tok: &mut Tokens<'_>, case: usize) -> Result<BoardSpec> {
    let n = tok.int("the number of portals n", Some(case), 0, 99)?;
    let mut spec = BoardSpec::empty(100);
    // "case k" with the line its n stands on, for messages about the whole case.
    spec.name = format!("{}:{}: case {case}", tok.name, tok.line());
    spec.path = Some(tok.name.clone().into());
    spec.start = 1;
    spec.rule = Rule::Stay;
    for _ in 0..n {
        let u = tok.int("a portal's start cell u", Some(case), 1, 100)?;
        let line = tok.line();
        let v = tok.int("a portal's end cell v", Some(case), 1, 100)?;
        spec.portals.push((PortalKind::Portal, u, v, Some(line)));
    }
    Ok(spec)
}

/// The answer to one case: the expected throws, and the exact fraction when asked.
fn lightoj_1151_answer(spec: &BoardSpec, exact: bool) -> Result<(f64, String)> {
    let case = &spec.name;
    let board = Board::new(spec).map_err(|e| match kolmo::games::InputError::of(&e) {
        Some(kolmo::games::InputError::Board {
            path: Some(p),
            line: Some(l),
            error,
        }) => anyhow::anyhow!(
            "{}:{l}: {}: {error}",
            p.display(),
            case.rsplit(": ").next().unwrap_or(case)
        ),
        _ => anyhow::anyhow!("{case}: {e}"),
    })?;
    let x = board.expected_rolls_from_start().map_err(|e| match kolmo::games::InputError::of(&e) {
        Some(kolmo::games::InputError::Board {
            error: kolmo::games::BoardError::Trapped { cells, .. },
            ..
        }) => anyhow::anyhow!(
            "{case}: cell 100 is not reached with probability 1 from cell(s) {} (the expected number of throws is infinite)",
            kolmo::preview(cells)
        ),
        _ => e.into(),
    })?;
    let fraction = if exact {
        let options = AnalysisOptions {
            turns: Vec::new(),
            ..Default::default()
        };
        format!(" {}", board.analyze_exact(&options)?.expected_rolls)
    } else {
        String::new()
    };
    Ok((x, fraction))
}

/// `kolmo judge lightoj-1151`: reads and answers the cases one by one, but prints only once every
/// case is known to be valid (nothing is printed for a bad input), `Case i: x` with x to 10
/// decimals (and the fraction with `exact`).
pub fn lightoj_1151(input: Option<&Path>, exact: bool) -> Result<()> {
    let (name, text) = read_input(input)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    lightoj_1151_text(name, &text, exact, &mut out)?;
    out.flush()?;
    Ok(())
}

/// [`lightoj_1151`] on the input `text` named `name`, the answers written to `out`.
fn lightoj_1151_text(name: String, text: &str, exact: bool, out: &mut dyn Write) -> Result<()> {
    let mut tok = Tokens::new(name, text);
    let t = tok.int("the number of cases T", None, 1, 1_000_000)? as usize;
    let mut specs = Vec::with_capacity(t.min(1 << 16));
    for case in 1..=t {
        specs.push(lightoj_1151_case(&mut tok, case)?);
    }
    tok.expect_end(t)?;
    // Cases are independent: solve them on all cores, then report the first failing case in
    // input order, or print every answer.
    let answers: Vec<Result<(f64, String)>> = specs
        .par_iter()
        .map(|spec| lightoj_1151_answer(spec, exact))
        .collect();
    let answers: Vec<(f64, String)> = answers.into_iter().collect::<Result<_>>()?;
    for (i, (x, fraction)) in answers.iter().enumerate() {
        writeln!(out, "Case {}: {x:.10}{fraction}", i + 1)?;
    }
    Ok(())
}

/// `kolmo judge rps-cards`: T cases of `k alice bob`; one line per case with Alice's optimal
/// expected total to 10 decimals. The game is solved once for all cases.
pub fn rps_cards(input: Option<&Path>) -> Result<()> {
    let (name, text) = read_input(input)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    rps_cards_text(name, &text, &mut out)?;
    out.flush()?;
    Ok(())
}

/// [`rps_cards`] on the input `text` named `name`, the answers written to `out`.
fn rps_cards_text(name: String, text: &str, out: &mut dyn Write) -> Result<()> {
    use kolmo::games::rps_cards::{CardGame, Hand};
    let mut tok = Tokens::new(name, text);
    let t = tok.int("the number of cases T", None, 1, 100_000)? as usize;
    let mut cases = Vec::with_capacity(t);
    for case in 1..=t {
        let k = tok.int("the number of rounds k", Some(case), 1, 1_000_000_000)? as u64;
        let mut hands = [Hand::all()[0]; 2];
        for (h, who) in hands.iter_mut().zip(["Alice's hand", "Bob's hand"]) {
            let w = tok.word(who, case)?;
            *h = Hand::parse(w.text).map_err(|e| {
                anyhow::anyhow!("{}:{}:{}: case {case}: {who}: {e}", tok.name, w.line, w.column)
            })?;
        }
        cases.push((k, hands[0], hands[1]));
    }
    tok.expect_end(t)?;
    let game = CardGame::new()?;
    let solution = game.solve()?;
    for (k, a, b) in cases {
        let (v, _) = solution.value(k, game.alice_state(a, b));
        writeln!(out, "{v:.10}")?;
    }
    Ok(())
}

/// `kolmo judge cf-1245e`: the 100 ladder heights of a Codeforces 1245E board
/// (<https://codeforces.com/problemset/problem/1245/E>), top row first; prints the minimal expected
/// number of turns to 10 decimals (with `exact`, then the fraction). Nothing is printed unless the
/// whole input is valid.
pub fn cf_1245e(input: Option<&Path>, exact: bool) -> Result<()> {
    let (name, text) = read_input(input)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    cf_1245e_text(name, &text, exact, &mut out)?;
    out.flush()?;
    Ok(())
}

/// [`cf_1245e`] on the input `text` named `name`, the answer written to `out`.
fn cf_1245e_text(name: String, text: &str, exact: bool, out: &mut dyn Write) -> Result<()> {
    use kolmo::games::ladders::{LadderBoard, SIDE};
    let mut tok = Tokens::new(name, text);
    let mut heights = [[0i64; SIDE]; SIDE];
    for i in 0..SIDE {
        for j in 0..SIDE {
            let (row, column) = (i + 1, j + 1);
            let Some(t) = tok.next_token() else {
                bail!(
                    "{}:{}: input ends where the height of row {row}, column {column} was expected \
                     (truncated input? 10 rows of 10 heights are needed, {} given)",
                    tok.name,
                    tok.last_line,
                    i * SIDE + j
                );
            };
            let at = format!("{}:{}:{}", tok.name, t.line, t.column);
            let digits = t.text.strip_prefix(['+', '-']).unwrap_or(t.text);
            heights[i][j] = match t.text.parse::<i64>() {
                Ok(v) => v,
                Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => bail!(
                    "{at}: row {row}, column {column}: height {} is out of range (0 to {})",
                    kolmo::excerpt(t.text),
                    SIDE - 1
                ),
                Err(_) => bail!(
                    "{at}: expected the height of row {row}, column {column} (an integer from 0 to {}), found '{}'",
                    SIDE - 1,
                    kolmo::excerpt(t.text)
                ),
            };
            // The board so far (later squares still 0): an error can only be this square's, so
            // errors come in reading order.
            if heights[i][j] != 0 {
                LadderBoard::from_heights(&heights).map_err(|e| anyhow::anyhow!("{at}: {e}"))?;
            }
        }
    }
    if let Some(extra) = tok.next_token() {
        bail!(
            "{}:{}:{}: the input continues ('{}') after the 100 heights (10 rows of 10)",
            tok.name,
            extra.line,
            extra.column,
            kolmo::excerpt(extra.text)
        );
    }
    let board = LadderBoard::from_heights(&heights)?;
    let solution = board.solve()?;
    let fraction = if exact {
        format!(" {}", board.optimum_exact(&solution.climb)?.expected_turns)
    } else {
        String::new()
    };
    writeln!(out, "{:.10}{fraction}", solution.expected_turns)?;
    Ok(())
}
