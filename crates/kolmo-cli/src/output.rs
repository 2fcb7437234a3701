//! Output helpers: number formatting for tables, CSV rows, colours and progress bars on stderr.

use kolmo::progress::{self, Progress, Work};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// A number for a human table: "inf" for +∞, otherwise `digits` significant digits without
/// trailing noise.
pub fn fmt_sig(x: f64, digits: usize) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-5..=15).contains(&mag) {
        return format!("{x:.*e}", digits.saturating_sub(1));
    }
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    format!("{x:.decimals$}")
}

/// A number rounded to `digits` significant digits and printed in its shortest form: `0.4`, not
/// `0.400000000000000`; `1`, not `0.99999999999999989`; "inf" for +∞.
pub fn fmt_short(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return fmt_sig(x, digits);
    }
    let rounded: f64 = format!("{x:.*e}", digits.saturating_sub(1)).parse().unwrap_or(x);
    let rounded = rounded + 0.0; // −0 prints as 0
    let mag = if rounded == 0.0 {
        0
    } else {
        rounded.abs().log10().floor() as i32
    };
    if (-5..=15).contains(&mag) {
        rounded.to_string()
    } else {
        format!("{rounded:e}")
    }
}

/// An error bound for a report: "0" when it is exactly zero, else two significant digits.
pub fn fmt_bound(x: f64) -> String {
    if x == 0.0 { "0".into() } else { format!("{x:.1e}") }
}

/// A probability with 6 decimals, or in scientific notation when tiny.
pub fn fmt_prob(p: f64) -> String {
    if p != 0.0 && p.abs() < 1e-4 {
        format!("{p:.3e}")
    } else {
        format!("{p:.6}")
    }
}

/// A CSV table on stdout: a header row, then one row per record, fields separated by commas.
pub struct Csv<W: Write> {
    out: W,
    columns: usize,
}

impl<W: Write> Csv<W> {
    /// Starts the table with its header row.
    pub fn new(mut out: W, header: &[&str]) -> std::io::Result<Self> {
        let line: Vec<String> = header.iter().map(|h| csv_text(h)).collect();
        writeln!(out, "{}", line.join(","))?;
        Ok(Self {
            out,
            columns: header.len(),
        })
    }

    /// One row; its fields are already CSV text (see [`csv_num`] and [`csv_text`]).
    ///
    /// # Panics
    /// - panics if the row does not have one field per column of the header
    #[track_caller]
    pub fn row(&mut self, fields: &[String]) -> std::io::Result<()> {
        assert_eq!(fields.len(), self.columns, "a CSV row needs one field per column");
        writeln!(self.out, "{}", fields.join(","))
    }

    /// Flushes the table.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The notes of a report, as the text prints them after `note:` and the JSON gives them in
/// `notes`: the file's (values read as written, ...), then why there are no exact answers if
/// `--exact` gave none (`exact_error`, introduced by `no_exact`, e.g. "no exact fractions").
#[must_use]
pub fn report_notes(file_notes: &[String], exact_error: Option<&str>, no_exact: &str) -> Vec<String> {
    let mut notes = file_notes.to_vec();
    notes.extend(exact_error.map(|e| format!("{no_exact}: {e}")));
    notes
}

/// A number in full precision (CSV, and `kolmo check`'s report): the shortest text that reads
/// back as the same `f64` (`0.1`, `39.22512230823496`, `1e-300`: an exponent below 1e-5 and
/// from 1e16); "inf" / "-inf" for infinities, empty for NaN.
pub fn csv_num(x: f64) -> String {
    let x = x + 0.0; // −0 prints as 0
    if x.is_nan() {
        String::new()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else if x == 0.0 || (1e-5..1e16).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// A text field for CSV, quoted when it holds a comma, a quote or a line break.
pub fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

static QUIET: AtomicBool = AtomicBool::new(false);
/// `--color`: 0 auto, 1 always, 2 never.
static COLOR: AtomicU8 = AtomicU8::new(0);

/// The engine's counters for the spinners, installed as its observers when bars may be drawn.
static KRYLOV: Progress = Progress::new();
static EXPLORATION: Progress = Progress::new();
static STEPS: Progress = Progress::new();

/// Records `--quiet` (no progress bars) and `--color` for the whole run; when bars may be drawn,
/// installs the engine's observers (Krylov products, explored states, distribution steps) whose
/// figures the [`Phase`] spinners show. Otherwise the engine reports to nobody.
pub fn configure(quiet: bool, color: crate::cli::ColorWhen) {
    QUIET.store(quiet, Ordering::Relaxed);
    if progress_enabled() {
        progress::install(Work::Krylov, &KRYLOV);
        progress::install(Work::Exploration, &EXPLORATION);
        progress::install(Work::Steps, &STEPS);
    }
    let mode = match color {
        crate::cli::ColorWhen::Auto => 0,
        crate::cli::ColorWhen::Always => 1,
        crate::cli::ColorWhen::Never => 2,
    };
    COLOR.store(mode, Ordering::Relaxed);
}

/// Whether a stream gets colour: when asked for (`always`, or `auto` with the stream a terminal)
/// and `NO_COLOR` is unset or empty (<https://no-color.org>).
fn color_on(is_terminal: impl FnOnce() -> bool) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color
        && match COLOR.load(Ordering::Relaxed) {
            0 => is_terminal(),
            1 => true,
            _ => false,
        }
}

/// Whether stderr gets colour.
fn stderr_color() -> bool {
    color_on(|| std::io::stderr().is_terminal())
}

/// `text` in bold on a colour terminal, as is otherwise.
pub fn bold(text: &str) -> String {
    if color_on(|| std::io::stdout().is_terminal()) {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The `kolmo: error:` prefix of an error message, in bold red on a colour terminal.
pub fn error_prefix() -> String {
    if stderr_color() {
        "kolmo: \x1b[1;31merror\x1b[0m:".into()
    } else {
        "kolmo: error:".into()
    }
}

/// The `help:` prefix of the line after an error, in bold on a colour terminal.
pub fn help_prefix() -> String {
    if stderr_color() {
        "\x1b[1mhelp\x1b[0m:".into()
    } else {
        "help:".into()
    }
}

/// Whether progress bars may be drawn: not with `--quiet`, and only when stderr is a terminal
/// (indicatif also checks this, and draws nothing on a pipe).
pub fn progress_enabled() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A progress bar on stderr for `len` units of work, hidden with `--quiet` or off a terminal.
pub fn progress_bar(len: u64, template: &str) -> indicatif::ProgressBar {
    if !progress_enabled() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(len), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(indicatif::ProgressStyle::with_template(template).expect("valid template"));
    bar
}

/// The engine's figure to show: of what its observers counted since the phase started (states
/// explored, distribution steps, Krylov products with the latest relative residual), the one that
/// moved last ("" while none has), so that the line stays short.
#[derive(Default)]
struct EngineStatus {
    /// The counts seen at the last poll, in [`Work::ALL`] order.
    seen: [u64; 3],
    /// The index of the count that moved last.
    latest: Option<usize>,
}

impl EngineStatus {
    fn poll(&mut self) -> String {
        let counters = [&KRYLOV, &EXPLORATION, &STEPS];
        for (i, p) in counters.iter().enumerate() {
            let k = p.iterations();
            if k != self.seen[i] {
                self.seen[i] = k;
                self.latest = Some(i);
            }
        }
        let Some(i) = self.latest else {
            return String::new();
        };
        let (k, r) = (thousands(self.seen[i]), counters[i].residual());
        match (Work::ALL[i], r.is_finite()) {
            (Work::Krylov, true) => format!("solving I − Q: {k} products, residual {r:.1e}"),
            (Work::Krylov, false) => format!("solving I − Q: {k} products"),
            (Work::Exploration, _) => format!("{k} states explored"),
            (Work::Steps, true) if r >= 1e-3 => format!("{k} steps, {r:.3} of the mass left"),
            (Work::Steps, true) => format!("{k} steps, {r:.1e} of the mass left"),
            (Work::Steps, false) => format!("{k} steps"),
            _ => k,
        }
    }
}

/// `n` with commas between groups of three digits.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A spinner on stderr for a phase of unknown length ("exploring", "solving"), shown only once the
/// phase has lasted half a second, cleared when dropped. `status` is polled for the message (e.g.
/// iterations and residual read from the engine's counters); the figures of the engine's
/// observers (see [`configure`]), counted from the phase's start, follow it.
pub struct Phase {
    done: std::sync::Arc<AtomicBool>,
    bar: indicatif::ProgressBar,
}

impl Phase {
    /// Starts timing the phase `what`; `status` gives the current detail, polled ten times a
    /// second once the spinner shows.
    pub fn start(what: &str, status: impl Fn() -> String + Send + 'static) -> Self {
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let bar = indicatif::ProgressBar::hidden();
        if progress_enabled() {
            for p in [&KRYLOV, &EXPLORATION, &STEPS] {
                p.reset();
            }
            let (done, bar, what) = (done.clone(), bar.clone(), what.to_string());
            std::thread::spawn(move || {
                let start = std::time::Instant::now();
                while start.elapsed() < std::time::Duration::from_millis(500) {
                    if done.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} {prefix} {elapsed} {msg}")
                        .expect("valid template"),
                );
                bar.set_prefix(what);
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                let mut engine = EngineStatus::default();
                while !done.load(Ordering::Relaxed) {
                    let (own, engine) = (status(), engine.poll());
                    bar.set_message(match (own.is_empty(), engine.is_empty()) {
                        (_, true) => own,
                        (true, false) => engine,
                        (false, false) => format!("{own}, {engine}"),
                    });
                    bar.tick();
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                bar.finish_and_clear();
            });
        }
        Self { done, bar }
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_sig(35.834938413695426, 8), "35.834938");
        assert_eq!(fmt_sig(f64::INFINITY, 8), "inf");
        assert_eq!(fmt_sig(1.0, 3), "1.00");
        assert_eq!(fmt_prob(0.5), "0.500000");
        assert_eq!(fmt_prob(1.5e-7), "1.500e-7");
        assert_eq!(fmt_short(0.9999999999999999, 15), "1");
        assert_eq!(fmt_short(0.4, 15), "0.4");
        assert_eq!(fmt_short(10.0 / 3.0, 8), "3.3333333");
        assert_eq!(fmt_short(-1e-300, 3), "-1e-300");
        assert_eq!(fmt_short(f64::INFINITY, 3), "inf");
        assert_eq!(fmt_bound(0.0), "0");
        assert_eq!(fmt_bound(2.5e-16), "2.5e-16");
        assert_eq!(csv_num(39.22512230823496), "39.22512230823496");
        assert_eq!(csv_num(0.1), "0.1");
        assert_eq!(csv_num(-0.0), "0");
        assert_eq!(csv_num(1e-300), "1e-300");
        assert_eq!(csv_num(1.5e20), "1.5e20");
        assert_eq!(csv_num(f64::INFINITY), "inf");
        assert_eq!(csv_text("a,b"), "\"a,b\"");
        assert_eq!(csv_text("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_text("s0"), "s0");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
