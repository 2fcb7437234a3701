//! `kolmo analyze`: the textbook analysis and the model checker's quantities of any Markov chain
//! read from a model file.

use crate::cli::{AnalyzeArgs, AnalyzeTable};
use crate::output::{Csv, Phase, csv_num, csv_text, fmt_bound, fmt_short};
use anyhow::{Context, Result, bail};
use kolmo::StateId;
use kolmo::account::ser::{FractionsOrInf, Matrix, Number, Scalars, Text};
use kolmo::analysis::report::{ChainReport, Parts, ReportOptions, StateValues, chain_report};
use kolmo::io::{Model, ModelFile, ReadOptions};
use kolmo::model::Dtmc;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// How the report introduces why `--exact` gave no exact answers (text note and JSON `notes`).
const NO_EXACT: &str = "no exact fractions";

/// Rows of a per-state table printed without --all.
const ROWS: usize = 20;
/// Largest matrix printed in the human report (larger ones are in --json).
const MAX_MATRIX_PRINTED: usize = 12;

/// The library's report with what the command line adds: the file, the state names, the start
/// and the target as given.
struct Report<'a> {
    file: &'a ModelFile,
    dtmc: &'a Dtmc,
    names: Vec<String>,
    from: String,
    /// `--target` as given.
    spec: Option<String>,
    chain: ChainReport<'a>,
}

pub fn run(args: &AnalyzeArgs) -> Result<()> {
    let plot = args
        .plot
        .as_deref()
        .map(|p| crate::plot::Target::new("--plot", p))
        .transpose()?;
    let options = ReadOptions {
        format: args.format.map(Into::into),
        normalize: args.normalize,
        exact: args.exact,
    };
    let phase = Phase::start("reading the model", String::new);
    let file = kolmo::io::read_model(&args.file, &options)?;
    drop(phase);
    // A chain is analysed where the reader left it (a 10⁶-state copy costs 0.05 s); an MDP with
    // one choice per state is converted.
    let converted: Dtmc;
    let dtmc = match &file.model {
        Model::Dtmc(d) => d,
        Model::Mdp(m) => {
            converted = m.clone().into_dtmc().with_context(|| {
            format!(
                "{}: {} ({} states, {} choices); kolmo analyze handles Markov chains (an MDP with one choice per state is read as one)",
                args.file.display(),
                if m.players().is_some() { "a game" } else { "an MDP" },
                m.n(),
                m.choices()
            )
            })?;
            &converted
        }
    };
    let phase = Phase::start("analysing", String::new);
    let report = compute(&file, dtmc, args)?;
    drop(phase);
    certified(&report.chain)?;
    if let Some(t) = &plot {
        let (title, probabilities) = match &report.chain.after {
            Some(d) => (
                format!("Distribution after {} steps from {}", d.steps, report.from),
                &d.probabilities,
            ),
            None => (
                format!("Long-run fraction of time in each state, from {}", report.from),
                &report
                    .chain
                    .long_run
                    .as_ref()
                    .expect("--plot without --steps turns the whole-chain analysis on")
                    .distribution,
            ),
        };
        t.render(&crate::plot::DistributionFigure {
            title,
            names: &report.names,
            probabilities,
        })?;
        t.wrote();
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if let Some(table) = args.csv {
        return csv_table(out, table, &report);
    }
    if args.json {
        serde_json::to_writer_pretty(&mut out, &json_report(&report))?;
        writeln!(out)?;
    } else {
        human_report(&mut out, &report, args.all)?;
    }
    out.flush()?;
    Ok(())
}

/// `--csv=TABLE`: one table, every state, every number in full precision.
fn csv_table(out: impl Write, table: AnalyzeTable, r: &Report) -> Result<()> {
    match table {
        AnalyzeTable::States => {
            let mut header = vec!["state".to_string()];
            if r.chain.long_run.is_some() {
                header.push("long_run".to_string());
            }
            if let Some(t) = &r.chain.target {
                header.extend(["p_reach", "expected_steps"].map(String::from));
                if t.time.variance.is_some() {
                    header.push("variance".to_string());
                }
                for rr in r.chain.rewards.iter().filter(|x| x.to_target.is_some()) {
                    header.push(format!("reward_{}", rr.name));
                }
            }
            if let Some(d) = &r.chain.after {
                header.push(format!("p_after_{}", d.steps));
            }
            let header: Vec<&str> = header.iter().map(String::as_str).collect();
            let mut csv = Csv::new(out, &header)?;
            for (s, name) in r.names.iter().enumerate() {
                let mut row = vec![csv_text(name)];
                if let Some(lr) = &r.chain.long_run {
                    row.push(csv_num(lr.distribution[s]));
                }
                if let Some(t) = &r.chain.target {
                    row.push(csv_num(t.reach.values[s]));
                    row.push(csv_num(t.time.mean[s]));
                    if let Some(v) = &t.time.variance {
                        row.push(csv_num(v[s]));
                    }
                    for rr in &r.chain.rewards {
                        if let Some(v) = &rr.to_target {
                            row.push(csv_num(v.values[s]));
                        }
                    }
                }
                if let Some(d) = &r.chain.after {
                    row.push(csv_num(d.probabilities[s]));
                }
                csv.row(&row)?;
            }
            csv.finish()?;
        }
        AnalyzeTable::Stationary => {
            let header = ["class", "state", "probability", "mean_recurrence"];
            let mut csv = Csv::new(out, &header)?;
            let a = r
                .chain
                .analysis
                .as_ref()
                .expect("--csv=stationary turns the whole-chain analysis on");
            for (&c, st) in a.closed.iter().zip(&a.stationary) {
                for ((&s, &p), &m) in st.class.iter().zip(&st.pi).zip(&st.mean_recurrence_times) {
                    csv.row(&[
                        c.to_string(),
                        csv_text(&r.names[s as usize]),
                        csv_num(p),
                        csv_num(m),
                    ])?;
                }
            }
            csv.finish()?;
        }
    }
    Ok(())
}

/// A state given on the command line: a name of the model, else a number.
fn parse_state(dtmc: &Dtmc, names: &[String], text: &str, what: &str) -> Result<StateId> {
    let t = text.trim();
    if let Some(s) = names.iter().position(|n| n == t) {
        return Ok(s as StateId);
    }
    match t.parse::<u64>() {
        Ok(s) if (s as usize) < dtmc.n() => Ok(s as StateId),
        Ok(s) => bail!(
            "{what} {s}: no such state (the model has states 0 to {})",
            dtmc.n() - 1
        ),
        Err(_) => bail!(
            "{what} {:?}: not a state name or number{}",
            kolmo::excerpt(t),
            if dtmc.names().is_some() {
                ""
            } else {
                " (the model's states have no names)"
            }
        ),
    }
}

fn compute<'a>(file: &'a ModelFile, dtmc: &'a Dtmc, args: &AnalyzeArgs) -> Result<Report<'a>> {
    let n = dtmc.n();
    let names: Vec<String> = (0..n as StateId).map(|s| dtmc.state_name(s)).collect();
    let (from_state, from) = match &args.from {
        Some(f) => {
            let s = parse_state(dtmc, &names, f, "--from")?;
            (Some(s), names[s as usize].clone())
        }
        None => {
            let init = dtmc.initial();
            if init.is_empty() {
                bail!(
                    "{}: the model has no initial state; name one with --from",
                    file.files[0].display()
                );
            }
            let shown: Vec<&str> = init.iter().map(|&s| names[s as usize].as_str()).collect();
            let from = if init.len() == 1 {
                shown[0].to_string()
            } else {
                format!("uniform over {{{}}}", shown.join(", "))
            };
            (None, from)
        }
    };
    let target = match &args.target {
        Some(spec) => Some(target_states(dtmc, &names, spec)?),
        None => None,
    };
    let mut parts = Parts::by_default(n, target.is_some());
    // What the flags ask for, and what the output asked for needs: the plot of the long run,
    // the stationary table.
    parts.chain |= args.chain
        || (args.plot.is_some() && args.steps.is_none())
        || matches!(args.csv, Some(AnalyzeTable::Stationary));
    parts.variance |= args.variance;
    parts.target_rewards |= args.rewards;
    let options = ReportOptions {
        from: from_state,
        target,
        steps: args.steps,
        method: args.method,
        exact: args.exact,
        parts,
    };
    let chain = chain_report(dtmc, &options)?;
    Ok(Report {
        file,
        dtmc,
        names,
        from,
        spec: args.target.clone(),
        chain,
    })
}

/// `Ok` if every time and probability the report prints is certified (the library's one rule,
/// [`kolmo::account::certify`], to [`kolmo::account::MAX_ERROR_BOUND`])
/// (or the exact values are there).
fn certified(chain: &kolmo::analysis::ChainReport<'_>) -> Result<()> {
    if chain.exact.is_some() {
        return Ok(());
    }
    let uncertified = |what: &'static str, bound: f64, residual: f64| {
        kolmo::account::certify(
            what,
            bound,
            1.0,
            residual,
            "; try --exact (exact rationals, on models of up to a few thousand transient states)",
        )
        .err()
    };
    let mut failures = Vec::new();
    if let Some(t) = &chain.target {
        // Some time is finite and positive, or one overflowed (its bound is then +∞).
        let finite = t.time.mean.iter().any(|x| x.is_finite() && *x > 0.0);
        if finite || t.time.error_bound.is_infinite() {
            failures.extend(uncertified(
                "the expected steps to the target",
                t.time.error_bound,
                t.time.residual,
            ));
        }
        failures.extend(uncertified(
            "the probability of reaching the target",
            t.reach.error_bound,
            t.reach.residual,
        ));
    }
    if let Some(r) = &chain.recurrence
        && r.mean.iter().any(|x| x.is_finite() && *x > 0.0)
    {
        failures.extend(uncertified(
            "the steps until a closed class is entered",
            r.error_bound,
            r.residual,
        ));
    }
    for a in chain.absorption.iter().flatten() {
        failures.extend(uncertified(
            "the absorption probabilities",
            a.error_bound,
            a.residual,
        ));
    }
    match failures.into_iter().next() {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// The states of `--target`: a label, else comma-separated states.
fn target_states(dtmc: &Dtmc, names: &[String], spec: &str) -> Result<Vec<StateId>> {
    if let Some(set) = dtmc.label(spec.trim()) {
        if set.is_empty() {
            bail!("--target {spec}: the label holds no state");
        }
        return Ok(set.to_vec());
    }
    let mut states = Vec::new();
    for part in spec.split(',').filter(|p| !p.trim().is_empty()) {
        // The flag's own message first, then the labels it could have named.
        let state = parse_state(dtmc, names, part, "--target").map_err(|e| {
            let labels: Vec<&str> = dtmc.labels().keys().map(String::as_str).collect();
            let known = if labels.is_empty() {
                "the model has no labels".to_string()
            } else {
                format!("the model's labels: {}", labels.join(", "))
            };
            anyhow::anyhow!("{e}; not a label either ({known})")
        })?;
        states.push(state);
    }
    if states.is_empty() {
        bail!("--target: name a label or at least one state");
    }
    states.sort_unstable();
    states.dedup();
    Ok(states)
}

// The `--json` document: views of the report deriving `Serialize`, grouped and named as README.md
// documents them. Fields are in alphabetical order, the order the document has always had.

#[derive(Serialize)]
struct JsonReport<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    absorbing_states: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    absorption_probabilities: Option<JsonAbsorption<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    classes: Option<Vec<JsonClass<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distribution_after: Option<JsonAfter<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ergodic: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exact_error: Option<&'a str>,
    from: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    fundamental_matrix: Option<JsonFundamental<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    irreducible: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    long_run: Option<JsonLongRun<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_first_passage: Option<JsonPassage<'a>>,
    model: JsonModel<'a>,
    notes: Vec<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    rewards: BTreeMap<&'a str, JsonReward<'a>>,
    state_names: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    stationary: Option<Vec<JsonStationary<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps_to_recurrence: Option<JsonSteps<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<JsonTarget<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transient_states: Option<Vec<&'a str>>,
}

#[derive(Serialize)]
struct JsonModel<'a> {
    files: Vec<String>,
    format: &'a str,
    initial: Vec<&'a str>,
    labels: BTreeMap<&'a str, Vec<&'a str>>,
    reward_models: Vec<&'a str>,
    states: usize,
    transitions: usize,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct JsonClass<'a> {
    closed: bool,
    period: Option<u64>,
    recurrent: bool,
    states: Vec<&'a str>,
}

#[derive(Serialize)]
struct JsonStationary<'a> {
    class: usize,
    distribution: Scalars<'a, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distribution_exact: Option<Scalars<'a, kolmo::exact::Rational>>,
    error_bound: Number,
    mean_recurrence_times: Scalars<'a, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_recurrence_times_exact: Option<Scalars<'a, kolmo::exact::Rational>>,
    method: Text<&'a kolmo::account::Method>,
    period: Option<u64>,
    relative_error_bound: Number,
    residual: Number,
    states: Vec<&'a str>,
}

#[derive(Serialize)]
struct JsonLongRun<'a> {
    absorption_probabilities: Scalars<'a, f64>,
    distribution: Scalars<'a, f64>,
    error_bound: Number,
    is_limit: bool,
    residual: Number,
}

#[derive(Serialize)]
struct JsonSteps<'a> {
    error_bound: Number,
    expected_steps: Scalars<'a, f64>,
    method: Text<&'a kolmo::account::Method>,
    residual: Number,
    variance: Option<Scalars<'a, f64>>,
}

#[derive(Serialize)]
struct JsonAbsorption<'a> {
    classes: &'a [usize],
    error_bound: Number,
    /// Row per state, column per closed class.
    matrix: Vec<Vec<Number>>,
    residual: Number,
}

#[derive(Serialize)]
struct JsonFundamental<'a> {
    matrix: Matrix<'a>,
    residual: Number,
    states: Vec<&'a str>,
}

#[derive(Serialize)]
struct JsonPassage<'a> {
    error_bound: Number,
    matrix: Matrix<'a>,
    residual: Number,
}

#[derive(Serialize)]
struct JsonTarget<'a> {
    error_bound: Number,
    expected_steps: Scalars<'a, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_steps_exact: Option<FractionsOrInf<'a>>,
    hitting_probability: Scalars<'a, f64>,
    hitting_probability_error_bound: Number,
    #[serde(skip_serializing_if = "Option::is_none")]
    hitting_probability_exact: Option<Scalars<'a, kolmo::exact::Rational>>,
    hitting_probability_residual: Number,
    method: Text<&'a kolmo::account::Method>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method_exact: Option<Text<&'a kolmo::account::Method>>,
    not_almost_surely: Vec<&'a str>,
    residual: Number,
    spec: &'a str,
    states: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    variance: Option<Scalars<'a, f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    variance_exact: Option<FractionsOrInf<'a>>,
}

#[derive(Serialize)]
struct JsonAfter<'a> {
    distribution: Scalars<'a, f64>,
    mass_error: Number,
    method: Text<&'a kolmo::account::Method>,
    steps: u64,
}

#[derive(Serialize)]
struct JsonReward<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    classes: Option<Vec<JsonGainBias<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_reward_to_target: Option<Scalars<'a, f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_reward_to_target_error_bound: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_reward_to_target_residual: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gain: Option<Number>,
}

#[derive(Serialize)]
struct JsonGainBias<'a> {
    bias: Scalars<'a, f64>,
    bias_residual: Number,
    class: usize,
    gain: Number,
    gain_error_bound: Number,
}

fn json_report<'a>(r: &'a Report) -> JsonReport<'a> {
    let d = r.dtmc;
    let c = &r.chain;
    let a = c.analysis.as_ref();
    let names = |states: &[StateId]| -> Vec<&'a str> {
        states.iter().map(|&s| r.names[s as usize].as_str()).collect()
    };
    let exact = c.exact.as_ref();
    let exact_target = exact.and_then(|x| x.target.as_ref());
    JsonReport {
        absorbing_states: a.map(|a| names(&a.classes.absorbing_states())),
        absorption_probabilities: c.absorption.as_ref().zip(a).map(|(ab, a)| JsonAbsorption {
            classes: &a.closed,
            error_bound: Number(ab.iter().fold(0.0f64, |m, x| m.max(x.error_bound))),
            matrix: (0..d.n())
                .map(|s| ab.iter().map(|x| Number(x.values[s])).collect())
                .collect(),
            residual: Number(ab.iter().fold(0.0f64, |m, x| m.max(x.residual))),
        }),
        classes: a.map(|a| {
            a.classes
                .classes
                .iter()
                .map(|k| JsonClass {
                    closed: k.closed,
                    period: k.period,
                    recurrent: k.closed,
                    states: names(&k.states),
                })
                .collect()
        }),
        distribution_after: c.after.as_ref().map(|t| JsonAfter {
            distribution: Scalars(&t.probabilities),
            mass_error: Number(t.mass_error),
            method: Text(&t.method),
            steps: t.steps,
        }),
        ergodic: a.map(|a| a.classes.ergodic()),
        exact_error: c.exact_error.as_deref(),
        from: &r.from,
        fundamental_matrix: c.fundamental.as_ref().map(|f| JsonFundamental {
            matrix: Matrix {
                values: &f.matrix,
                columns: f.states.len(),
            },
            residual: Number(f.residual),
            states: names(&f.states),
        }),
        irreducible: a.map(|a| a.classes.irreducible()),
        long_run: c.long_run.as_ref().map(|lr| JsonLongRun {
            absorption_probabilities: Scalars(&lr.absorption),
            distribution: Scalars(&lr.distribution),
            error_bound: Number(lr.error_bound),
            is_limit: lr.converges,
            residual: Number(lr.residual),
        }),
        mean_first_passage: c.passage.as_ref().map(|p| JsonPassage {
            error_bound: Number(p.error_bound),
            matrix: Matrix {
                values: &p.matrix,
                columns: p.n,
            },
            residual: Number(p.residual),
        }),
        model: JsonModel {
            files: r.file.files.iter().map(|p| p.display().to_string()).collect(),
            format: r.file.format.name(),
            initial: names(d.initial()),
            labels: d
                .labels()
                .iter()
                .map(|(k, v)| (k.as_str(), names(&v.to_vec())))
                .collect(),
            reward_models: d.reward_models().keys().map(String::as_str).collect(),
            states: d.n(),
            transitions: d.matrix().nnz(),
            kind: "dtmc",
        },
        notes: notes(r),
        rewards: c
            .rewards
            .iter()
            .map(|rr| {
                let to = rr.to_target.as_ref();
                let entry = JsonReward {
                    classes: rr.classes.as_ref().zip(a).map(|(classes, a)| {
                        classes
                            .iter()
                            .zip(&a.closed)
                            .map(|(g, &class)| JsonGainBias {
                                bias: Scalars(&g.bias),
                                bias_residual: Number(g.bias_residual),
                                class,
                                gain: Number(g.gain),
                                gain_error_bound: Number(g.gain_error_bound),
                            })
                            .collect()
                    }),
                    expected_reward_to_target: to.map(|t| Scalars(&t.values)),
                    expected_reward_to_target_error_bound: to.map(|t| Number(t.error_bound)),
                    expected_reward_to_target_residual: to.map(|t| Number(t.residual)),
                    gain: rr.gain_from_start.map(Number),
                };
                (rr.name.as_str(), entry)
            })
            .collect(),
        state_names: &r.names,
        stationary: a.map(|a| {
            a.closed
                .iter()
                .zip(&a.stationary)
                .enumerate()
                .map(|(i, (&class, st))| {
                    let x = exact.map(|x| &x.stationary[i]);
                    JsonStationary {
                        class,
                        distribution: Scalars(&st.pi),
                        distribution_exact: x.map(|x| Scalars(&x.pi[..])),
                        error_bound: Number(st.error_bound),
                        mean_recurrence_times: Scalars(&st.mean_recurrence_times),
                        mean_recurrence_times_exact: x.map(|x| Scalars(&x.mean_recurrence_times[..])),
                        method: Text(&st.method),
                        period: a.classes.classes[class].period,
                        relative_error_bound: Number(st.relative_error_bound),
                        residual: Number(st.residual),
                        states: names(&st.class),
                    }
                })
                .collect()
        }),
        steps_to_recurrence: c.recurrence.as_ref().map(|t| JsonSteps {
            error_bound: Number(t.error_bound),
            expected_steps: Scalars(&t.mean),
            method: Text(&t.method),
            residual: Number(t.residual),
            variance: t.variance.as_deref().map(Scalars),
        }),
        target: c.target.as_ref().map(|t| JsonTarget {
            error_bound: Number(t.time.error_bound),
            expected_steps: Scalars(&t.time.mean),
            expected_steps_exact: exact_target.map(|x| FractionsOrInf(&x.time.mean)),
            hitting_probability: Scalars(&t.reach.values),
            hitting_probability_error_bound: Number(t.reach.error_bound),
            hitting_probability_exact: exact_target.map(|x| Scalars(&x.hitting_probability[..])),
            hitting_probability_residual: Number(t.reach.residual),
            method: Text(&t.time.method),
            method_exact: exact_target.map(|x| Text(&x.time.method)),
            not_almost_surely: names(&t.time.infinite),
            residual: Number(t.time.residual),
            spec: r.spec.as_deref().unwrap_or_default(),
            states: names(&t.states),
            variance: t.time.variance.as_deref().map(Scalars),
            variance_exact: exact_target.map(|x| FractionsOrInf(&x.time.variance)),
        }),
        transient_states: a.map(|a| names(&a.classes.transient_states())),
    }
}

fn list(names: &[String], states: &[StateId], limit: usize) -> String {
    let shown: Vec<&str> = states
        .iter()
        .take(limit)
        .map(|&v| names[v as usize].as_str())
        .collect();
    let more = states.len().saturating_sub(limit);
    let mut text = shown.join(" ");
    if more > 0 {
        text.push_str(&format!(" … ({more} more)"));
    }
    text
}

fn human_report(out: &mut impl Write, r: &Report, all: bool) -> Result<()> {
    let d = r.dtmc;
    let rows = if all { usize::MAX } else { ROWS };
    let width = r
        .names
        .iter()
        .take(rows)
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(1)
        .clamp(5, 24);
    writeln!(
        out,
        "{} ({}): Markov chain, {} states, {} transitions; start {}",
        r.file.files[0].display(),
        r.file.format.name(),
        d.n(),
        d.matrix().nnz(),
        r.from
    )?;
    for note in notes(r) {
        writeln!(out, "  note: {note}")?;
    }
    writeln!(out)?;
    if let (Some(a), Some(lr)) = (&r.chain.analysis, &r.chain.long_run) {
        human_chain(out, r, a, lr, (rows, all, width))?;
    }
    if let Some(t) = &r.chain.target {
        writeln!(out)?;
        writeln!(
            out,
            "Target {} ({}): P(reach) error ≤ {}; expected steps error ≤ {} relative; {}",
            r.spec.as_deref().unwrap_or_default(),
            list(&r.names, &t.states, 8),
            fmt_bound(t.reach.error_bound),
            fmt_bound(t.time.error_bound),
            t.time.method
        )?;
        for rr in &r.chain.rewards {
            if let Some(StateValues {
                error_bound: bound, ..
            }) = &rr.to_target
            {
                writeln!(
                    out,
                    "  reward {:?} to the target: error ≤ {}",
                    rr.name,
                    fmt_bound(*bound)
                )?;
            }
        }
        write!(
            out,
            "  {:<width$}  {:>18}  {:>18}",
            "from", "P(reach)", "expected steps"
        )?;
        if t.time.variance.is_some() {
            write!(out, "  {:>18}", "variance")?;
        }
        for rr in r.chain.rewards.iter().filter(|x| x.to_target.is_some()) {
            write!(out, "  {:>18}", format!("reward {}", rr.name))?;
        }
        writeln!(out)?;
        for s in 0..d.n().min(rows) {
            write!(
                out,
                "  {:<width$}  {:>18}  {:>18}",
                r.names[s],
                fmt_short(t.reach.values[s], 15),
                fmt_short(t.time.mean[s], 15),
            )?;
            if let Some(v) = &t.time.variance {
                write!(out, "  {:>18}", fmt_short(v[s], 15))?;
            }
            for rr in &r.chain.rewards {
                if let Some(v) = &rr.to_target {
                    write!(out, "  {:>18}", fmt_short(v.values[s], 15))?;
                }
            }
            if let Some(x) = r.chain.exact.as_ref().and_then(|x| x.target.as_ref()) {
                let (p, t) = (&x.hitting_probability, &x.time);
                let steps = t.mean[s].as_ref().map_or("inf".to_string(), ToString::to_string);
                write!(out, "  exactly {}, {steps}", p[s])?;
            }
            writeln!(out)?;
        }
        if d.n() > rows {
            writeln!(out, "  … ({} more states; --all or --json)", d.n() - rows)?;
        }
        if !t.time.infinite.is_empty() {
            writeln!(
                out,
                "  not reached with probability 1 (expected steps infinite) from: {}",
                list(&r.names, &t.time.infinite, 12)
            )?;
        }
    }
    if let Some(d) = &r.chain.after {
        writeln!(out)?;
        writeln!(
            out,
            "Distribution after {} steps from {} (total mass off 1 by {}, rounding; {}):",
            d.steps,
            r.from,
            fmt_bound(d.mass_error),
            d.method
        )?;
        print_distribution(out, &r.names, &d.probabilities, rows, all, width)?;
    }
    for rr in &r.chain.rewards {
        let (Some(a), Some(gain), Some(classes)) = (&r.chain.analysis, rr.gain_from_start, &rr.classes)
        else {
            continue;
        };
        writeln!(out)?;
        writeln!(
            out,
            "Reward {:?}: long-run average reward (gain) from {}: {}",
            rr.name,
            r.from,
            fmt_short(gain, 15)
        )?;
        for (g, &c) in classes.iter().zip(&a.closed).take(rows) {
            writeln!(
                out,
                "  class {c}: gain {} (error ≤ {}); bias residual {}",
                fmt_short(g.gain, 15),
                fmt_bound(g.gain_error_bound),
                fmt_bound(g.bias_residual)
            )?;
            let states = &a.classes.classes[c].states;
            if states.len() > 1 {
                for (&s, h) in states.iter().zip(&g.bias).take(rows) {
                    writeln!(
                        out,
                        "    bias {:<width$}  {:>18}",
                        r.names[s as usize],
                        fmt_short(*h, 15)
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// The notes of the report: the file's, why there are no exact fractions, and which parts were
/// skipped (with the flag that adds each).
fn notes(r: &Report) -> Vec<String> {
    let mut notes = crate::output::report_notes(&r.file.notes, r.chain.exact_error.as_deref(), NO_EXACT);
    let mut skipped = Vec::new();
    // What was left out shows in the report itself: no class analysis, no variances, no totals
    // to the target.
    if r.chain.analysis.is_none() {
        skipped.push(
            "the whole-chain analysis (classes, stationary distributions, long run, reward gains: --chain)",
        );
    }
    if r.chain.target.as_ref().is_some_and(|t| t.time.variance.is_none()) {
        skipped.push("the variances (--variance)");
    }
    if r.chain.target.is_some()
        && !r.dtmc.reward_models().is_empty()
        && r.chain.rewards.iter().all(|rr| rr.to_target.is_none())
    {
        skipped.push("the expected rewards to the target (--rewards)");
    }
    if !skipped.is_empty() {
        notes.push(format!(
            "on a chain of {} states (more than {}) with a target, only the target's hitting \
             probabilities and expected steps are computed unless asked for; not computed: {}",
            r.dtmc.n(),
            kolmo::analysis::report::CHEAP_REPORT_STATES,
            skipped.join("; ")
        ));
    }
    notes
}

/// The whole-chain part of the human report: classes, stationary distributions, the long run,
/// the steps to recurrence, absorption probabilities, fundamental matrix and first passages.
/// `layout`: rows shown, whether all of them, the width of the state column.
fn human_chain(
    out: &mut impl Write,
    r: &Report,
    a: &kolmo::analysis::ClassAnalysis<'_>,
    lr: &kolmo::analysis::LongRun,
    layout: (usize, bool, usize),
) -> Result<()> {
    let (rows, all, width) = layout;
    let closed = a.closed.len();
    let transient = a.classes.transient_states();
    let transient_classes = a.classes.classes.len() - closed;
    let kind = if a.classes.ergodic() {
        "irreducible and aperiodic (ergodic)".to_string()
    } else if a.classes.irreducible() {
        format!("irreducible, period {}", a.classes.classes[0].period.unwrap_or(1))
    } else {
        format!(
            "{closed} closed, {transient_classes} transient ({} transient state(s)); {} absorbing state(s)",
            transient.len(),
            a.classes.absorbing_states().len()
        )
    };
    writeln!(out, "Classes: {kind}")?;
    // Closed classes first, then the transient ones, largest first.
    let mut order: Vec<usize> = (0..a.classes.classes.len()).collect();
    order.sort_by_key(|&i| {
        let c = &a.classes.classes[i];
        (
            !c.closed,
            std::cmp::Reverse(if c.closed { 0 } else { c.states.len() }),
            i,
        )
    });
    for &i in order.iter().take(rows) {
        let c = &a.classes.classes[i];
        let period = match c.period {
            Some(1) => "aperiodic".to_string(),
            Some(p) => format!("period {p}"),
            None => "no return".to_string(),
        };
        let kind = match (c.closed, c.states.len()) {
            (true, 1) => "closed (absorbing)",
            (true, _) => "closed (recurrent)",
            (false, _) => "transient",
        };
        writeln!(
            out,
            "  class {i}: {kind}, {period}, {} state(s): {}",
            c.states.len(),
            list(&r.names, &c.states, 12)
        )?;
    }
    if order.len() > rows {
        writeln!(out, "  … ({} more classes; --all or --json)", order.len() - rows)?;
    }
    for ((&c, st), i) in a.closed.iter().zip(&a.stationary).zip(0..).take(rows) {
        if st.class.len() == 1 {
            continue;
        }
        writeln!(out)?;
        writeln!(
            out,
            "Stationary distribution of class {c} (error ≤ {}; residual {}; {})",
            fmt_bound(st.error_bound),
            fmt_bound(st.residual),
            st.method
        )?;
        let exact = r.chain.exact.as_ref().map(|x| &x.stationary[i]);
        write!(
            out,
            "  {:<width$}  {:>18}  {:>18}",
            "state", "π", "mean recurrence"
        )?;
        writeln!(
            out,
            "{}",
            if exact.is_some() {
                "  exactly: π, mean recurrence"
            } else {
                ""
            }
        )?;
        for (j, ((&s, p), m)) in st
            .class
            .iter()
            .zip(&st.pi)
            .zip(&st.mean_recurrence_times)
            .enumerate()
            .take(rows)
        {
            write!(
                out,
                "  {:<width$}  {:>18}  {:>18}",
                r.names[s as usize],
                fmt_short(*p, 15),
                fmt_short(*m, 15)
            )?;
            match exact {
                Some(x) => writeln!(out, "  {}, {}", x.pi[j], x.mean_recurrence_times[j])?,
                None => writeln!(out)?,
            }
        }
        if st.class.len() > rows {
            writeln!(
                out,
                "  … ({} more states; --all or --json)",
                st.class.len() - rows
            )?;
        }
    }
    writeln!(out)?;
    if closed > 1 {
        writeln!(out, "From {}, the chain ends in", r.from)?;
        for ((&c, w), _) in a.closed.iter().zip(&lr.absorption).zip(0..rows) {
            writeln!(
                out,
                "  class {c} ({}) with probability {}",
                list(&r.names, &a.classes.classes[c].states, 6),
                fmt_short(*w, 15)
            )?;
        }
    }
    writeln!(
        out,
        "Long-run fraction of time from {} ({}; error ≤ {}):",
        r.from,
        if lr.converges {
            "also the limit of the distribution after k steps"
        } else {
            "a Cesàro average: the distribution after k steps oscillates (periodic class)"
        },
        fmt_bound(lr.error_bound)
    )?;
    print_distribution(out, &r.names, &lr.distribution, rows, all, width)?;
    if let Some(t) = &r.chain.recurrence {
        writeln!(out)?;
        writeln!(
            out,
            "Steps until a closed class is entered (error ≤ {} relative; {}):",
            fmt_bound(t.error_bound),
            t.method
        )?;
        writeln!(
            out,
            "  {:<width$}  {:>18}  {:>18}",
            "from", "expected steps", "variance"
        )?;
        for &s in transient.iter().take(rows) {
            writeln!(
                out,
                "  {:<width$}  {:>18}  {:>18}",
                r.names[s as usize],
                fmt_short(t.mean[s as usize], 15),
                fmt_short(t.variance.as_ref().map_or(f64::NAN, |v| v[s as usize]), 15)
            )?;
        }
        if transient.len() > rows {
            writeln!(
                out,
                "  … ({} more states; --all or --json)",
                transient.len() - rows
            )?;
        }
    }
    if let Some(ab) = &r.chain.absorption {
        writeln!(out)?;
        let bound = ab.iter().fold(0.0f64, |m, x| m.max(x.error_bound));
        writeln!(
            out,
            "Absorption probabilities (row: from; column: closed class; error ≤ {}):",
            fmt_bound(bound)
        )?;
        write!(out, "  {:<width$}", "from")?;
        for &c in &a.closed {
            write!(out, "  {:>18}", format!("class {c}"))?;
        }
        writeln!(out)?;
        for &s in transient.iter().take(rows) {
            write!(out, "  {:<width$}", r.names[s as usize])?;
            for x in ab {
                write!(out, "  {:>18}", fmt_short(x.values[s as usize], 15))?;
            }
            writeln!(out)?;
        }
    }
    if let Some(f) = &r.chain.fundamental {
        if f.states.len() <= MAX_MATRIX_PRINTED {
            writeln!(out)?;
            writeln!(
                out,
                "Fundamental matrix N = (I - Q)^-1 (expected visits; residual {}):",
                fmt_bound(f.residual)
            )?;
            print_matrix(out, &r.names, &f.states, &f.states, &f.matrix, width)?;
        }
    }
    if let Some(p) = &r.chain.passage {
        if p.n <= MAX_MATRIX_PRINTED {
            writeln!(out)?;
            writeln!(
                out,
                "Mean first-passage times (steps; row: from, column: to; error ≤ {} relative):",
                fmt_bound(p.error_bound)
            )?;
            let all_states: Vec<StateId> = (0..p.n as StateId).collect();
            print_matrix(out, &r.names, &all_states, &all_states, &p.matrix, width)?;
        }
    }
    Ok(())
}

/// The states with positive probability, most likely first (in state order with --all), at most
/// `rows` of them.
fn print_distribution(
    out: &mut impl Write,
    names: &[String],
    dist: &[f64],
    rows: usize,
    all: bool,
    width: usize,
) -> Result<()> {
    let mut top: Vec<(usize, f64)> = dist.iter().copied().enumerate().filter(|x| x.1 > 0.0).collect();
    if !all {
        top.sort_by(|x, y| y.1.total_cmp(&x.1));
    }
    for (s, p) in top.iter().take(rows) {
        writeln!(out, "  {:<width$}  {:>18}", names[*s], fmt_short(*p, 15))?;
    }
    if top.len() > rows {
        writeln!(out, "  … ({} more states; --all or --json)", top.len() - rows)?;
    }
    Ok(())
}

fn print_matrix(
    out: &mut impl Write,
    names: &[String],
    rows: &[StateId],
    cols: &[StateId],
    m: &[f64],
    width: usize,
) -> Result<()> {
    write!(out, "  {:<width$}", "")?;
    for &c in cols {
        write!(out, "  {:>12}", names[c as usize])?;
    }
    writeln!(out)?;
    for (i, &s) in rows.iter().enumerate() {
        write!(out, "  {:<width$}", names[s as usize])?;
        for j in 0..cols.len() {
            write!(out, "  {:>12}", fmt_short(m[i * cols.len() + j], 8))?;
        }
        writeln!(out)?;
    }
    Ok(())
}
