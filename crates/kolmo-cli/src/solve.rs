//! `kolmo solve`: optimal values and policies of an MDP read from a model file.

use crate::cli::{SolveArgs, SolveTable};
use crate::output::{Csv, Phase, bold, csv_num, csv_text, fmt_bound, fmt_short};
use anyhow::{Context, Result, bail};
use kolmo::StateId;
use kolmo::account::ser::{Number, Scalars, Text};
use kolmo::exact::Rational;
use kolmo::io::{Model, ReadOptions};
use kolmo::mdp::{self, MdpOptions, Method, Optimum};
use kolmo::model::{Mdp, StateSet};
use kolmo::progress::Progress;
use serde::Serialize;
use std::io::Write;

/// How the report introduces why `--exact` gave no exact answers (text note and JSON `notes`).
const NO_EXACT: &str = "no exact values";

/// The solver's iteration count and latest change, polled for the progress spinner.
static SOLVE_PROGRESS: Progress = Progress::new();

/// What to optimise.
enum Objective {
    Reach(Optimum, String),
    Reward(Optimum, String),
    /// The discount exactly as written (the solve rounds it to the nearest `f64`), and as written.
    Discounted(Rational, String),
    /// Steps and the discount: given (`horizon:K:G`), or `None` for the file's if it has one.
    Horizon(u64, Option<Rational>),
    Average,
    /// Discounted with the discount the file gives.
    FileDiscount,
}

fn parse_objective(text: &str) -> Result<Objective> {
    let (kind, arg) = text.split_once(':').unwrap_or((text, ""));
    let need = |what: &str| -> Result<String> {
        if arg.trim().is_empty() {
            bail!("--objective {kind}: name {what} after a colon, e.g. {kind}:goal");
        }
        Ok(arg.trim().to_string())
    };
    Ok(match kind.trim() {
        "max-reach" => Objective::Reach(Optimum::Max, need("a label")?),
        "min-reach" => Objective::Reach(Optimum::Min, need("a label")?),
        "max-reward" => Objective::Reward(Optimum::Max, need("a label")?),
        "min-reward" => Objective::Reward(Optimum::Min, need("a label")?),
        "discounted" if arg.trim().is_empty() => Objective::FileDiscount,
        "discounted" => {
            let g = need("the discount")?;
            match kolmo::exact::parse_exact(&g) {
                Some(x) if x >= Rational::ZERO && x < Rational::ONE => Objective::Discounted(x, g),
                _ => bail!(
                    "--objective discounted:{g}: the discount must be a decimal or a fraction from 0 to below 1 \
                     (0.9, 10/11)"
                ),
            }
        }
        "horizon" => {
            let spec = need("the number of steps")?;
            let (k, g) = match spec.split_once(':') {
                Some((k, g)) => (k.trim(), Some(g.trim())),
                None => (spec.as_str(), None),
            };
            let steps = match k.parse::<u64>() {
                Ok(x) if x <= 10_000_000 => x,
                _ => bail!("--objective horizon:{spec}: a number of steps from 0 to 10^7"),
            };
            let gamma = match g.map(|g| (g, kolmo::exact::parse_exact(g))) {
                None => None,
                Some((_, Some(x))) if x >= Rational::ZERO && x <= Rational::ONE => Some(x),
                Some((g, _)) => bail!(
                    "--objective horizon:{spec}: the discount {g} must be a decimal or a fraction from 0 to 1 \
                     (horizon:{k}:0.9; 1 for none)"
                ),
            };
            Objective::Horizon(steps, gamma)
        }
        "average" => Objective::Average,
        other => bail!(
            "--objective {}: unknown; use max-reach:L, min-reach:L, max-reward:L, min-reward:L, discounted:G, horizon:K or average",
            kolmo::excerpt(other)
        ),
    })
}

/// The model as an MDP (a chain is an MDP with one choice per state); a game is refused (its
/// values depend on which player seeks which optimum: `kolmo check` with a coalition).
fn as_mdp(model: Model, path: &std::path::Path) -> Result<Mdp> {
    if let Model::Mdp(m) = &model
        && let Some(p) = m.players()
    {
        return Err(kolmo::Error::arg(
                "FILE",
                format!(
                    "{}: a game (players {}): each player seeks its own optimum, so kolmo solve's single optimum does not apply; ask kolmo check with a coalition, e.g. --prop '<<{}>> Pmax=? [F \"goal\"]'",
                    path.display(),
                p.names.join(", "),
                p.names[0]
            ),
        )
        .into());
    }
    Ok(match model {
        Model::Mdp(m) => m,
        Model::Dtmc(d) => {
            let mut m = Mdp::new(d.matrix().clone(), d.initial().to_vec())?;
            if let Some(names) = d.names() {
                m = m.with_names(names.to_vec());
            }
            for (name, set) in d.labels() {
                m.set_label(name.clone(), set.clone());
            }
            for (name, r) in d.reward_models() {
                m.set_reward_model(name.clone(), r.clone())?;
            }
            // The probabilities as written (--exact) travel with the chain.
            match d.written() {
                Some(w) => m.with_written(w.clone())?,
                None => m,
            }
        }
    })
}

fn label(mdp: &Mdp, name: &str) -> Result<StateSet> {
    match mdp.label(name) {
        Some(s) => Ok(s.clone()),
        None => {
            let labels: Vec<&str> = mdp.labels().keys().map(String::as_str).collect();
            bail!(
                "--objective: no label {:?} in the model ({})",
                kolmo::excerpt(name),
                if labels.is_empty() {
                    "it has none".to_string()
                } else {
                    format!("its labels: {}", labels.join(", "))
                }
            )
        }
    }
}

/// The reward model the objective reads (`--reward`'s, or the model's only one): its name and
/// its expected reward per choice.
fn rewards(mdp: &Mdp, name: Option<&str>) -> Result<(String, Vec<f64>)> {
    let models = mdp.reward_models();
    let (name, model) = match name {
        Some(n) => (
            n,
            models
                .get(n)
                .with_context(|| format!("--reward {n}: no such reward model"))?,
        ),
        None => match models.len() {
            1 => {
                let (n, m) = models.iter().next().expect("one");
                (n.as_str(), m)
            }
            0 => bail!("the objective needs rewards and the model has no reward model"),
            _ => bail!(
                "the model has several reward models ({}); choose one with --reward",
                models.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        },
    };
    Ok((name.to_string(), model.expected_per_choice(mdp.matrix())))
}

/// The values of `args` that kolmo parses itself, checked without reading the model: `--objective`
/// (and its discount as an exact fraction, as `--exact` reads it).
pub fn check_args(args: &SolveArgs) -> Result<()> {
    parse_objective(&args.objective).map(|_| ())
}

pub fn run(args: &SolveArgs) -> Result<()> {
    // A solver's iteration limit is --max-iterations: the message says so, with its value.
    solve(args).map_err(|e| match e.downcast::<kolmo::Error>() {
        Ok(kolmo::Error::LimitReached { what, limit, message }) => kolmo::Error::LimitReached {
            what,
            limit,
            message: format!("{message}: raise --max-iterations, now {}", args.max_iterations),
        }
        .into(),
        Ok(e) => e.into(),
        Err(e) => e,
    })
}

fn solve(args: &SolveArgs) -> Result<()> {
    let objective = parse_objective(&args.objective)?;
    let options = ReadOptions {
        format: args.format.map(Into::into),
        normalize: args.normalize,
        exact: args.exact,
    };
    let phase = Phase::start("reading the model", String::new);
    let clock = std::time::Instant::now();
    let file = kolmo::io::read_model(&args.file, &options)?;
    drop(phase);
    let objective = match objective {
        Objective::FileDiscount => match (file.discount, &file.discount_exact) {
            (Some(_), Some(x)) if *x < Rational::ONE => Objective::Discounted(x.clone(), x.to_string()),
            (Some(g), _) => bail!("the file's discount {g} is not from 0 to below 1"),
            (None, _) => {
                bail!("--objective discounted: name the discount (discounted:0.9); the file gives none")
            }
        },
        // A finite horizon takes the file's discount unless one is given (MDPToolbox's
        // FiniteHorizon discounts).
        Objective::Horizon(k, None) => Objective::Horizon(k, file.discount_exact.clone()),
        other => other,
    };
    let mdp = as_mdp(file.model, &args.file)?;
    let load = clock.elapsed().as_secs_f64();
    let opt = if args.min { Optimum::Min } else { Optimum::Max };
    let solver = MdpOptions {
        method: match (args.value_iteration, args.policy_iteration) {
            (true, _) => Method::ValueIteration,
            (_, true) => Method::PolicyIteration,
            _ => Method::Auto,
        },
        progress: Some(&SOLVE_PROGRESS),
        max_iterations: args.max_iterations,
        ..MdpOptions::default()
    };
    let phase = Phase::start("solving", || {
        let (k, r) = (SOLVE_PROGRESS.iterations(), SOLVE_PROGRESS.residual());
        match (k, r.is_nan()) {
            (0, _) => String::new(),
            (k, true) => format!("iteration {k}"),
            (k, false) => format!("iteration {k}, change {r:.1e}"),
        }
    });
    // The objective with its targets and rewards resolved, and its description for the report.
    let (what, lib_objective, reward) = match &objective {
        Objective::Reach(o, l) => (
            format!("{} probability of reaching {l:?}", direction(*o)),
            mdp::Objective::Reach(label(&mdp, l)?),
            None,
        ),
        Objective::Reward(o, l) => {
            let target = label(&mdp, l)?;
            let (name, r) = rewards(&mdp, args.reward.as_deref())?;
            (
                format!("{} expected total reward {name:?} until {l:?}", direction(*o)),
                mdp::Objective::Total(target),
                Some((name, r)),
            )
        }
        Objective::Discounted(gamma, text) => {
            let (name, r) = rewards(&mdp, args.reward.as_deref())?;
            (
                format!(
                    "{} expected discounted reward {name:?}, γ = {text}",
                    direction(opt)
                ),
                mdp::Objective::Discounted(gamma.clone()),
                Some((name, r)),
            )
        }
        Objective::Average => {
            let (name, r) = rewards(&mdp, args.reward.as_deref())?;
            (
                format!(
                    "{} long-run average reward {name:?} per step (gain)",
                    direction(opt)
                ),
                mdp::Objective::Average,
                Some((name, r)),
            )
        }
        Objective::FileDiscount => unreachable!("replaced by the file's discount above"),
        Objective::Horizon(k, gamma) => {
            let (name, r) = rewards(&mdp, args.reward.as_deref())?;
            // A discount of 1 is none.
            let what = match gamma.as_ref().filter(|g| **g != Rational::ONE) {
                Some(g) => format!(
                    "{} expected discounted reward {name:?} over {k} steps, γ = {g}",
                    direction(opt)
                ),
                None => format!("{} expected total reward {name:?} over {k} steps", direction(opt)),
            };
            (
                what,
                mdp::Objective::Horizon {
                    steps: *k,
                    discount: gamma.clone(),
                },
                Some((name, r)),
            )
        }
    };
    let description = what;
    let optimum = match &objective {
        Objective::Reach(o, _) | Objective::Reward(o, _) => *o,
        _ => opt,
    };
    let (r, exact_rewards) = match &reward {
        Some((name, r)) => (r.as_slice(), args.exact.then(|| mdp.exact_rewards(name))),
        None => (&[][..], args.exact.then(|| Ok(Vec::new()))),
    };
    let solved = mdp::solve(&mdp, &lib_objective, optimum, r, exact_rewards, &solver)?;
    drop(phase);
    let seconds = JsonSeconds {
        load,
        solve: clock.elapsed().as_secs_f64() - load,
    };
    let mdp::Solved {
        solution,
        exact,
        exact_policy: policy_exact,
        exact_refused: exact_error,
        bias,
        decisions: stages,
    } = solved;
    let exact_text: Option<Vec<String>> = exact.as_ref().map(|x| {
        x.iter()
            .zip(&solution.values)
            .map(|(v, f)| {
                v.as_ref().map_or(
                    if *f < 0.0 { "-inf" } else { "inf" }.to_string(),
                    ToString::to_string,
                )
            })
            .collect()
    });
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let action = |s: usize| -> String {
        let row = mdp.matrix().group_rows(s).start + solution.policy[s] as usize;
        match mdp.action_names() {
            Some(names) => names[row].clone(),
            None => solution.policy[s].to_string(),
        }
    };
    let names: Vec<String> = (0..mdp.n() as StateId).map(|s| mdp.state_name(s)).collect();
    if let Some(SolveTable::Values) = args.csv {
        let mut header = vec!["state", "value", "lower", "upper", "action"];
        if bias.is_some() {
            header.push("bias");
        }
        if exact_text.is_some() {
            header.push("value_exact");
        }
        let mut csv = Csv::new(out, &header)?;
        let e = solution.error_bound;
        for (s, name) in names.iter().enumerate() {
            let v = solution.values[s];
            let (lo, hi) = match (v.is_finite(), matches!(objective, Objective::Reach(..))) {
                (true, true) => ((v - e).max(0.0), (v + e).min(1.0)),
                (true, false) => (v - e, v + e),
                (false, _) => (v, v),
            };
            let mut row = vec![
                csv_text(name),
                csv_num(v),
                csv_num(lo),
                csv_num(hi),
                csv_text(&action(s)),
            ];
            if let Some(h) = &bias {
                row.push(csv_num(h[s]));
            }
            if let Some(x) = &exact_text {
                row.push(csv_text(&x[s]));
            }
            csv.row(&row)?;
        }
        csv.finish()?;
        return Ok(());
    }
    if args.json {
        let e = solution.error_bound;
        // Probabilities' bounds stay inside [0, 1] (issue 15 §1).
        let probability = matches!(objective, Objective::Reach(..));
        let shifted = |d: f64| -> Vec<Number> {
            let v = &solution.values;
            v.iter()
                .map(|&v| match (v.is_finite(), probability) {
                    (true, true) => Number((v + d).clamp(0.0, 1.0)),
                    (true, false) => Number(v + d),
                    (false, _) => Number(v),
                })
                .collect()
        };
        let doc = JsonSolution {
            bias: matches!(objective, Objective::Average).then(|| bias.as_deref().map(Scalars)),
            decisions: stages.as_deref(),
            description: &description,
            error_bound: Number(e),
            exact_error: exact_error.as_deref(),
            initial: mdp
                .initial()
                .iter()
                .map(|&s| names[s as usize].as_str())
                .collect(),
            iterations: solution.iterations,
            lower: shifted(-e),
            method: Text(&solution.method),
            model: JsonModel {
                choices: mdp.choices(),
                file: args.file.display().to_string(),
                format: file.format.name(),
                states: mdp.n(),
            },
            notes: crate::output::report_notes(&file.notes, exact_error.as_deref(), NO_EXACT),
            objective: &args.objective,
            policy: (0..mdp.n()).map(action).collect(),
            seconds,
            state_names: &names,
            upper: shifted(e),
            values: Scalars(&solution.values),
            values_exact: exact_text.as_deref(),
        };
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} ({}): MDP, {} states, {} choices",
            args.file.display(),
            file.format.name(),
            mdp.n(),
            mdp.choices()
        )?;
        for note in crate::output::report_notes(&file.notes, exact_error.as_deref(), NO_EXACT) {
            writeln!(out, "  note: {note}")?;
        }
        writeln!(out, "Objective: {description}")?;
        for &s in mdp.initial() {
            let v = solution.values[s as usize];
            write!(
                out,
                "Optimal value from {}: {}",
                names[s as usize],
                bold(&fmt_short(v, 15))
            )?;
            if let Some(x) = &exact_text {
                write!(out, " = {}", x[s as usize])?;
            }
            writeln!(out, "  (error ≤ {})", fmt_bound(solution.error_bound))?;
        }
        writeln!(
            out,
            "Method: {} ({} iterations)",
            solution.method, solution.iterations
        )?;
        if exact_text.is_some() {
            let what = if policy_exact {
                "the policy and values below are the exact solver's"
            } else {
                "the values below are exact (the choices are floating point's)"
            };
            writeln!(out, "Exact: {what}; each decimal is its fraction rounded")?;
        }
        writeln!(out)?;
        let rows = if args.all { mdp.n() } else { mdp.n().min(20) };
        let width = names
            .iter()
            .take(rows)
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, 24);
        match &bias {
            Some(_) => writeln!(
                out,
                "  {:<width$}  {:>22}  {:>22}  optimal choice",
                "state", "value", "bias"
            )?,
            None => writeln!(out, "  {:<width$}  {:>22}  optimal choice", "state", "value")?,
        }
        for (s, name) in names.iter().enumerate().take(rows) {
            let value = fmt_short(solution.values[s], 15);
            match &bias {
                Some(h) => writeln!(
                    out,
                    "  {name:<width$}  {value:>22}  {:>22}  {}",
                    fmt_short(h[s], 15),
                    action(s)
                )?,
                None => writeln!(out, "  {name:<width$}  {value:>22}  {}", action(s))?,
            }
        }
        if mdp.n() > rows {
            writeln!(out, "  … ({} more states; --all or --json)", mdp.n() - rows)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The `--json` document, fields in alphabetical order (the order it has always had).
#[derive(Serialize)]
struct JsonSolution<'a> {
    /// With the average objective: the bias, null for a multichain policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    bias: Option<Option<Scalars<'a, f64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decisions: Option<&'a [Vec<u32>]>,
    description: &'a str,
    error_bound: Number,
    exact_error: Option<&'a str>,
    initial: Vec<&'a str>,
    iterations: u64,
    lower: Vec<Number>,
    method: Text<&'a kolmo::account::Method>,
    model: JsonModel<'a>,
    notes: Vec<String>,
    objective: &'a str,
    policy: Vec<String>,
    seconds: JsonSeconds,
    state_names: &'a [String],
    upper: Vec<Number>,
    values: Scalars<'a, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    values_exact: Option<&'a [String]>,
}

/// Wall-clock seconds of the run's phases: reading the model (and checking it), and solving
/// (with `--exact`, the exact solve too); writing the report is in neither.
#[derive(Serialize)]
struct JsonSeconds {
    load: f64,
    solve: f64,
}

#[derive(Serialize)]
struct JsonModel<'a> {
    choices: usize,
    file: String,
    format: &'a str,
    states: usize,
}

fn direction(o: Optimum) -> &'static str {
    match o {
        Optimum::Max => "maximal",
        Optimum::Min => "minimal",
    }
}

/// A decimal (`0.9`, `9e-1`) or `p/q` as an exact fraction (the discount as the user wrote it:
/// 0.9 = 9/10), by the library's reader of numbers as written ([`kolmo::exact::parse_exact`]:
/// dashu's decimal parser, exponents bounded).
#[cfg(test)]
mod tests {
    use super::*;

    // The discount as written, exactly: decimals, exponents and fractions (issue 15 §2).
    #[test]
    fn discounts_are_read_exactly_as_written() {
        let q = |s: &str| match parse_objective(&format!("discounted:{s}")) {
            Ok(Objective::Discounted(x, _)) => (kolmo::exact::Scalar::to_f64(&x), x.to_string()),
            Ok(_) => panic!("{s}: not a discounted objective"),
            Err(e) => panic!("{s}: {e}"),
        };
        assert_eq!(q("0.9"), (0.9, "9/10".into()));
        assert_eq!(q("9e-1"), (0.9, "9/10".into()));
        assert_eq!(q("10/11"), (10.0 / 11.0, "10/11".into()));
        assert_eq!(q("0.9999999999"), (0.9999999999, "9999999999/10000000000".into()));
        assert_eq!(q("0"), (0.0, "0".into()));
        for bad in [
            "1",
            "11/10",
            "-0.1",
            "0.9x",
            "1e-999999999",
            "1e-4001",
            "1/0",
            "inf",
        ] {
            let e = parse_objective(&format!("discounted:{bad}"))
                .err()
                .map(|e| e.to_string());
            assert!(
                e.as_deref().is_some_and(|e| e.contains("from 0 to below 1")),
                "{bad}: {e:?}"
            );
        }
    }
}
