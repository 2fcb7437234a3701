//! `kolmo judge PROBLEM`: read a judge problem's input as given, answer in the judge's format.
//! A thin input/output layer over the engine: each case becomes a board and goes through the same
//! analysis as `kolmo snakes`.

use anyhow::{Result, bail};
use kolmo::games::snakes::{AnalysisOptions, Board, BoardSpec, PortalKind, Rule};
use std::io::{Read, Write};
use std::path::Path;

/// The problems `kolmo judge` can answer: (name, one-line description).
pub const PROBLEMS: &[(&str, &str)] = &[(
    "lightoj-1151",
    "LightOJ 1151 Snakes and Ladders: expected throws from cell 1 to 100, overshooting throws wasted",
)];

/// One whitespace-separated token of the input and where it stands.
struct Token<'a> {
    text: &'a str,
    line: usize,
    column: usize,
}

/// The input as a stream of tokens with their places, for messages such as
/// "<stdin>:3:5: case 1: expected a cell number, found 'x'".
struct Tokens<'a> {
    name: String,
    tokens: Vec<Token<'a>>,
    next: usize,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    fn new(name: String, text: &'a str) -> Self {
        let mut tokens = Vec::new();
        let mut last_line = 1;
        for (i, line) in text.lines().enumerate() {
            last_line = i + 1;
            let mut rest = line;
            while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
                let column = line.len() - rest.len() + start + 1;
                let tail = &rest[start..];
                let end = tail.find(char::is_whitespace).unwrap_or(tail.len());
                tokens.push(Token {
                    text: &tail[..end],
                    line: i + 1,
                    column,
                });
                rest = &tail[end..];
            }
        }
        Self {
            name,
            tokens,
            next: 0,
            last_line,
        }
    }

    /// The next token as an integer in `lo..=hi`; `what` names it in errors, `case` (if any) the
    /// test case.
    fn int(&mut self, what: &str, case: Option<usize>, lo: i64, hi: i64) -> Result<i64> {
        let prefix = case.map_or(String::new(), |c| format!("case {c}: "));
        let Some(t) = self.tokens.get(self.next) else {
            bail!(
                "{}:{}: {prefix}input ends where {what} was expected (truncated input?)",
                self.name,
                self.last_line
            );
        };
        self.next += 1;
        let place = format!("{}:{}:{}", self.name, t.line, t.column);
        let v: i64 = t
            .text
            .parse()
            .map_err(|_| anyhow::anyhow!("{place}: {prefix}expected {what}, found '{}'", t.text))?;
        if v < lo || v > hi {
            bail!("{place}: {prefix}{what} {v} is out of range ({lo} to {hi})");
        }
        Ok(v)
    }

    /// Line of the token just read.
    fn line(&self) -> usize {
        self.tokens[self.next - 1].line
    }

    fn rest(&self) -> Option<&Token<'a>> {
        self.tokens.get(self.next)
    }
}

/// Reads the input named `path` (stdin for `None` or "-").
fn read_input(path: Option<&Path>) -> Result<(String, String)> {
    match path {
        Some(p) if p != Path::new("-") => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
            Ok((p.display().to_string(), text))
        }
        _ => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
            Ok(("<stdin>".into(), text))
        }
    }
}

/// The boards of a LightOJ 1151 input: `T`, then per case `n` and `n` pairs `u v`.
fn lightoj_1151_boards(name: String, text: &str) -> Result<Vec<BoardSpec>> {
    let mut tok = Tokens::new(name, text);
    let t = tok.int("the number of cases T", None, 1, 1_000_000)? as usize;
    let mut specs = Vec::with_capacity(t);
    for case in 1..=t {
        let n = tok.int("the number of portals n", Some(case), 0, 99)?;
        let mut spec = BoardSpec::empty(100);
        spec.name = format!("case {case}");
        spec.path = Some(tok.name.clone().into());
        spec.start = 1;
        spec.rule = Rule::Stay;
        for _ in 0..n {
            let u = tok.int("a portal's start cell u", Some(case), 1, 100)?;
            let line = tok.line();
            let v = tok.int("a portal's end cell v", Some(case), 1, 100)?;
            spec.portals.push((PortalKind::Portal, u, v, Some(line)));
        }
        specs.push(spec);
    }
    if let Some(extra) = tok.rest() {
        bail!(
            "{}:{}:{}: the input continues ('{}') after the {t} case(s) announced by T",
            tok.name,
            extra.line,
            extra.column,
            extra.text
        );
    }
    Ok(specs)
}

/// `kolmo judge lightoj-1151`: validates every case first (nothing is printed for a bad input),
/// then prints `Case i: x` with x to 10 decimals.
pub fn lightoj_1151(input: Option<&Path>, exact: bool) -> Result<()> {
    let (name, text) = read_input(input)?;
    let specs = lightoj_1151_boards(name, &text)?;
    let mut answers = Vec::with_capacity(specs.len());
    for spec in &specs {
        let case = &spec.name;
        let board = Board::new(spec).map_err(|e| match e {
            kolmo::Error::Board {
                path: Some(p),
                line: Some(l),
                error,
            } => anyhow::anyhow!("{}:{l}: {case}: {error}", p.display()),
            e => anyhow::anyhow!("{case}: {e}"),
        })?;
        let x = board.expected_rolls_from_start().map_err(|e| match e {
            kolmo::Error::Board {
                error: kolmo::BoardError::Trapped { cells, .. },
                ..
            } => {
                let cells: Vec<String> = cells.iter().map(u32::to_string).collect();
                anyhow::anyhow!(
                    "{case}: cell 100 is not reached with probability 1 from cell(s) {} (the expected number of throws is infinite)",
                    cells.join(", ")
                )
            }
            e => e.into(),
        })?;
        let fraction = if exact {
            let x = board.analyze_exact(&AnalysisOptions {
                turns: Vec::new(),
                ..Default::default()
            })?;
            format!(" {}", x.expected_rolls)
        } else {
            String::new()
        };
        answers.push((x, fraction));
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (i, (x, fraction)) in answers.iter().enumerate() {
        writeln!(out, "Case {}: {x:.10}{fraction}", i + 1)?;
    }
    out.flush()?;
    Ok(())
}
