//! `kolmo check`: PRISM-language models (or any model file) and properties in PRISM's property
//! language; one result per property, with its certified interval.

use crate::cli::CheckArgs;
use crate::output::{Phase, fmt_bound};
use anyhow::{Result, bail};
use kolmo::check::{Answer, CheckOptions, CheckReport, CheckRequest, PropertyResult, check_file};
use kolmo::io::{Format, Model};
use kolmo::lang::{Value, parse_constants};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// `writeln!` into the report's text.
macro_rules! say {
    ($buf:expr) => {{
        $buf.push('\n');
    }};
    ($buf:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($buf, $($arg)*);
    }};
}

/// Runs `kolmo check`.
pub fn run(args: &CheckArgs) -> Result<()> {
    if args.properties.is_none() && args.prop.is_empty() {
        bail!("no properties: give a property file after the model, or --prop 'P=? [F \"goal\"]'");
    }
    let runs = expand_constants(args.constants.as_deref().unwrap_or(""))?;
    if args.strategy.is_some() && runs.len() > 1 {
        return Err(kolmo::Error::arg(
            "--strategy",
            "one file holds one model's strategies: give single values to --const, not a range",
        )
        .into());
    }
    let mut reports = Vec::new();
    let mut text = String::new();
    for (k, consts) in runs.iter().enumerate() {
        let report = check_once(args, consts, &mut text)?;
        if args.json {
            reports.push(report);
        } else if k + 1 < runs.len() {
            say!(text);
        }
    }
    if args.json {
        /// A range of constants: one document per value.
        #[derive(serde::Serialize)]
        struct Experiments<'a> {
            experiments: &'a [CheckReport],
        }
        text = if let [one] = &reports[..] {
            serde_json::to_string_pretty(one)?
        } else {
            serde_json::to_string_pretty(&Experiments {
                experiments: &reports,
            })?
        } + "\n";
    }
    // One write at the end: nothing printed for a run that fails, and a closed pipe is an
    // error `run` recognises, not a panic.
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// `--const` text with ranges (`k=0:10`, `x=0:0.25:1`) expanded into one text per combination
/// (the last constant fastest, as PRISM's experiments).
fn expand_constants(text: &str) -> Result<Vec<String>> {
    let mut runs: Vec<Vec<String>> = vec![Vec::new()];
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let values: Vec<String> = match item.split_once('=') {
            Some((name, value)) if value.contains(':') => {
                let parts: Vec<&str> = value.split(':').map(str::trim).collect();
                let bad = || anyhow::anyhow!("--const {item:?}: a range is low:high or low:step:high");
                let (lo, step, hi) = match parts.as_slice() {
                    [a, b] => (*a, "1", *b),
                    [a, s, b] => (*a, *s, *b),
                    _ => return Err(bad()),
                };
                match (lo.parse::<i64>(), step.parse::<i64>(), hi.parse::<i64>()) {
                    (Ok(a), Ok(s), Ok(b)) if s > 0 && b >= a && (b - a) / s < 100_000 => (0..=(b - a) / s)
                        .map(|i| format!("{name}={}", a + i * s))
                        .collect(),
                    _ => match (lo.parse::<f64>(), step.parse::<f64>(), hi.parse::<f64>()) {
                        (Ok(a), Ok(s), Ok(b)) if s > 0.0 && b >= a && (b - a) / s < 100_000.0 => {
                            let count = ((b - a) / s + 1e-9).floor() as i64;
                            (0..=count)
                                .map(|i| format!("{name}={}", a + i as f64 * s))
                                .collect()
                        }
                        _ => return Err(bad()),
                    },
                }
            }
            _ => vec![item.to_string()],
        };
        runs = runs
            .into_iter()
            .flat_map(|r| {
                values.iter().map(move |v| {
                    let mut r = r.clone();
                    r.push(v.clone());
                    r
                })
            })
            .collect();
    }
    Ok(runs.into_iter().map(|r| r.join(",")).collect())
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|error| {
        kolmo::Error::Io {
            path: path.to_path_buf(),
            error,
        }
        .into()
    })
}

/// One check over one combination of constants: its report, and its text into `text`.
fn check_once(args: &CheckArgs, consts: &str, text: &mut String) -> Result<CheckReport> {
    // Properties: the file's, then each --prop.
    let mut properties: Vec<(PathBuf, String)> = Vec::new();
    if let Some(p) = &args.properties {
        properties.push((p.clone(), read_text(p)?));
    }
    for (i, p) in args.prop.iter().enumerate() {
        let name = if args.prop.len() == 1 {
            "--prop".to_string()
        } else {
            format!("--prop {}", i + 1)
        };
        properties.push((PathBuf::from(name), p.clone()));
    }
    let request = CheckRequest {
        model: args.model.clone(),
        properties,
        constants: parse_constants(consts)?,
        fix_deadlocks: !args.no_fix_deadlocks,
        max_states: Some(args.max_states as usize),
        all_rewards: args.export.is_some(),
        action_names: args.strategy.is_some(),
        options: CheckOptions {
            max_iterations: args.max_iterations,
            exact: args.exact,
            ..CheckOptions::default()
        },
    };
    let phase = Phase::start("building and checking", String::new);
    let report = check_file(&request)?;
    drop(phase);
    if let Some(path) = &args.export {
        let format = Format::from_path(path).ok_or_else(|| {
            kolmo::Error::arg(
                "--export",
                format!(
                    "{}: name the format by the extension (.drn, .tra, .json, ...)",
                    path.display()
                ),
            )
        })?;
        kolmo::io::write_model(&report.model, path, format).map_err(|e| match e {
            kolmo::Error::InvalidArgument { message, .. } => kolmo::Error::arg("--export", message),
            other => other,
        })?;
    }
    if let Some(path) = &args.strategy {
        write_strategies(&report, path)?;
    }
    let (n, transitions, initial) = match &report.model {
        Model::Dtmc(d) => (d.n(), d.matrix().nnz(), d.initial().len()),
        Model::Mdp(m) => (m.n(), m.matrix().nnz(), m.initial().len()),
    };
    let names = |s: u32| match &report.model {
        Model::Dtmc(d) => d.state_name(s),
        Model::Mdp(m) => m.state_name(s),
    };
    let constants: BTreeMap<&str, Value> = report.constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let seconds = report.seconds;
    if !args.json {
        say!(
            text,
            "{} model: {n} states, {transitions} transitions{}, {initial} initial state{}",
            report.model_type,
            if report.model_type == "dtmc" {
                String::new()
            } else {
                format!(", {} choices", report.choices)
            },
            if initial == 1 { "" } else { "s" }
        );
        if !constants.is_empty() {
            let list: Vec<String> = constants.iter().map(|(k, v)| format!("{k}={v}")).collect();
            say!(text, "constants: {}", list.join(", "));
        }
        if report.deadlocks > 0 {
            say!(
                text,
                "{} deadlock state{} given a self-loop, as PRISM does (--no-fix-deadlocks refuses them)",
                report.deadlocks,
                if report.deadlocks == 1 { "" } else { "s" }
            );
        }
        say!(
            text,
            "time: parse {:.3} s, build {:.3} s, check {:.3} s",
            seconds.parse,
            seconds.build,
            seconds.check
        );
        for r in &report.results {
            say!(text);
            match &r.name {
                Some(name) => say!(text, "\"{name}\": {}", r.property),
                None => say!(text, "{}", r.property),
            }
            say!(text, "  result   {}", answer_text(r));
            if let Some(x) = &r.exact {
                say!(text, "  exact    {x}");
            } else if args.exact && matches!(r.value, Answer::Number(_)) {
                say!(text, "  exact    (none for this operator yet)");
            }
            if let (Some(lo), Some(hi)) = (r.lower, r.upper)
                && lo.is_finite()
            {
                say!(
                    text,
                    "  bound    within [{}, {}] (error <= {})",
                    crate::output::csv_num(lo),
                    crate::output::csv_num(hi),
                    fmt_bound(r.error_bound)
                );
            }
            for (s, a) in &r.printed {
                say!(text, "  {:>10}  {}", names(*s), answer_plain(*a));
            }
            if let Some(m) = r.first_move(&report.model) {
                let who = m.player.as_deref().unwrap_or("the optimum");
                let when = if r.strategy.as_ref().is_some_and(|st| st.memoryless) {
                    ""
                } else {
                    " (with every step to go)"
                };
                say!(
                    text,
                    "  move     {who} chooses {} in the initial state {}{when}",
                    m.action,
                    m.state
                );
            }
            say!(text, "  method   {}", r.method);
            say!(text, "  time     {:.3} s", r.seconds);
        }
    }
    Ok(report)
}

/// `--strategy FILE`: one CSV row per state — its name, its player (games), and the action
/// each property's strategy chooses there.
fn write_strategies(report: &CheckReport, path: &Path) -> Result<()> {
    let Model::Mdp(m) = &report.model else {
        return Err(kolmo::Error::arg("--strategy", "a Markov chain has no choices, so no strategy").into());
    };
    let with: Vec<&PropertyResult> = report.results.iter().filter(|r| r.strategy.is_some()).collect();
    if with.is_empty() {
        return Err(kolmo::Error::arg(
            "--strategy",
            "none of the properties computes a strategy (P and R [F] do, unbounded or step-bounded; R [C], R [S] and huge step bounds do not)",
        )
        .into());
    }
    let mut header = vec!["state".to_string()];
    if m.players().is_some() {
        header.push("player".into());
    }
    header.extend(with.iter().map(|r| r.property.clone()));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let file = std::fs::File::create(path).map_err(|error| kolmo::Error::Write {
        path: path.to_path_buf(),
        error,
    })?;
    let write_error = |error| kolmo::Error::Write {
        path: path.to_path_buf(),
        error,
    };
    let mut csv = crate::output::Csv::new(std::io::BufWriter::new(file), &header).map_err(write_error)?;
    for s in 0..m.n() as kolmo::StateId {
        let mut row = Vec::with_capacity(header.len());
        for (i, r) in with.iter().enumerate() {
            let mv = r.strategy.as_ref().expect("filtered").move_at(m, s);
            if i == 0 {
                row.push(crate::output::csv_text(&mv.state));
                if let Some(p) = &mv.player {
                    row.push(crate::output::csv_text(p));
                }
            }
            row.push(crate::output::csv_text(&mv.action));
        }
        csv.row(&row).map_err(write_error)?;
    }
    csv.finish().map_err(write_error)?;
    Ok(())
}

fn answer_plain(a: Answer) -> String {
    match a {
        Answer::Number(x) if x == f64::INFINITY => "inf".into(),
        Answer::Number(x) if x == f64::NEG_INFINITY => "-inf".into(),
        // Full precision, with an exponent for tiny and huge numbers (not 300 digits of zeros).
        Answer::Number(x) => crate::output::csv_num(x),
        Answer::Bool(b) => b.to_string(),
    }
}

/// The result line: the value, or the range over several initial states (as PRISM prints it).
fn answer_text(r: &PropertyResult) -> String {
    if r.initial_values.len() > 1
        && let Some([lo, hi]) = r.range()
        && lo != hi
    {
        return format!(
            "[{}, {}] over the {} initial states",
            answer_plain(Answer::Number(lo)),
            answer_plain(Answer::Number(hi)),
            r.initial_values.len()
        );
    }
    if r.initial_values.len() > 1
        && let Answer::Bool(_) = r.value
    {
        let holds = r
            .initial_values
            .iter()
            .filter(|a| **a == Answer::Bool(true))
            .count();
        return format!(
            "{} (in {holds} of the {} initial states)",
            holds == r.initial_values.len(),
            r.initial_values.len()
        );
    }
    answer_plain(r.value)
}
