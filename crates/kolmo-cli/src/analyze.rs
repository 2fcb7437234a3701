//! `kolmo analyze`: the textbook analysis and the model checker's quantities of any Markov chain
//! read from a model file.

use crate::cli::{AnalyzeArgs, AnalyzeTable};
use crate::output::{Csv, Phase, csv_num, csv_text, fmt_bound, fmt_short, num};
use anyhow::{Context, Result, bail};
use kolmo::StateId;
use kolmo::analysis::exact::{ExactAbsorptionTime, absorption_time_exact, reach_probability_exact};
use kolmo::analysis::stationary::GainBias;
use kolmo::analysis::stationary::RecurrentClass;
use kolmo::analysis::{
    AbsorbingChain, AbsorptionTime, ClassAnalysis, FirstPassage, FundamentalMatrix, LongRun,
    MAX_FIRST_PASSAGE_MATRIX, ReachProbability, TransientDistribution, mean_first_passage_matrix,
    reach_probability, transient_distribution,
};
use kolmo::exact::Rational;
use kolmo::io::{Model, ModelFile, ReadOptions};
use kolmo::linsolve::SolveMethod;
use kolmo::model::{Dtmc, StateSet};
use serde_json::{Map, Value, json};
use std::io::Write;

/// Largest number of transient states for which the fundamental matrix is reported.
const MAX_FUNDAMENTAL_SHOWN: usize = 200;
/// Largest `n × closed classes` for which absorption probabilities are reported for every state.
const MAX_ABSORPTION_TABLE: usize = 10_000_000;
/// Work limit of --steps, in steps × transitions (about 2 ns each).
const MAX_WORK: u64 = 2_000_000_000;
/// Most closed classes for which absorption probabilities are tabulated for every state (one
/// solve each).
const MAX_ABSORPTION_CLASSES: usize = 50;
/// Rows of a per-state table printed without --all.
const ROWS: usize = 20;
/// Largest matrix printed in the human report (larger ones are in --json).
const MAX_MATRIX_PRINTED: usize = 12;

/// Everything computed for the report.
struct Report<'a> {
    file: ModelFile,
    dtmc: &'a Dtmc,
    names: Vec<String>,
    from: String,
    analysis: ClassAnalysis<'a>,
    long_run: LongRun,
    recurrence: Option<AbsorptionTime>,
    absorption: Option<Vec<(Vec<f64>, f64, f64)>>,
    fundamental: Option<FundamentalMatrix>,
    passage: Option<FirstPassage>,
    target: Option<TargetReport>,
    after: Option<TransientDistribution>,
    rewards: Vec<RewardReport>,
    exact: Option<ExactReport>,
    /// Why --exact gave no fractions.
    exact_error: Option<String>,
}

/// The exact fractions asked for with --exact.
struct ExactReport {
    /// Per closed class: π and the mean recurrence times.
    stationary: Vec<(Vec<Rational>, Vec<Rational>)>,
    /// With --target: hitting probabilities, and the expected steps and variances (`None` = +∞).
    target: Option<(Vec<Rational>, ExactAbsorptionTime)>,
}

struct TargetReport {
    spec: String,
    states: Vec<StateId>,
    reach: ReachProbability,
    time: AbsorptionTime,
}

struct RewardReport {
    name: String,
    classes: Vec<GainBias>,
    /// Gain from the start: Σ_c absorption_c · gain_c.
    gain_from_start: f64,
    /// Expected reward accumulated before reaching the target, with the solve's residual and
    /// the absolute error bound.
    to_target: Option<(Vec<f64>, f64, f64)>,
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
    let dtmc = match &file.model {
        Model::Dtmc(d) => d.clone(),
        Model::Mdp(m) => m.clone().into_dtmc().with_context(|| {
            format!(
                "{}: an MDP ({} states, {} choices); kolmo analyze handles Markov chains (an MDP with one choice per state is read as one)",
                args.file.display(),
                m.n(),
                m.choices()
            )
        })?,
    };
    let phase = Phase::start("analysing", String::new);
    let report = compute(file, &dtmc, args)?;
    drop(phase);
    if let Some(t) = &plot {
        let (title, probabilities) = match &report.after {
            Some(d) => (
                format!("Distribution after {} steps from {}", d.steps, report.from),
                &d.probabilities,
            ),
            None => (
                format!("Long-run fraction of time in each state, from {}", report.from),
                &report.long_run.distribution,
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
            let mut header = vec!["state".to_string(), "long_run".to_string()];
            if r.target.is_some() {
                header.extend(["p_reach", "expected_steps", "variance"].map(String::from));
                for rr in r.rewards.iter().filter(|x| x.to_target.is_some()) {
                    header.push(format!("reward_{}", rr.name));
                }
            }
            if let Some(d) = &r.after {
                header.push(format!("p_after_{}", d.steps));
            }
            let header: Vec<&str> = header.iter().map(String::as_str).collect();
            let mut csv = Csv::new(out, &header)?;
            for (s, name) in r.names.iter().enumerate() {
                let mut row = vec![csv_text(name), csv_num(r.long_run.distribution[s])];
                if let Some(t) = &r.target {
                    row.push(csv_num(t.reach.values[s]));
                    row.push(csv_num(t.time.mean[s]));
                    row.push(csv_num(t.time.variance[s]));
                    for rr in &r.rewards {
                        if let Some((v, _, _)) = &rr.to_target {
                            row.push(csv_num(v[s]));
                        }
                    }
                }
                if let Some(d) = &r.after {
                    row.push(csv_num(d.probabilities[s]));
                }
                csv.row(&row)?;
            }
            csv.finish()?;
        }
        AnalyzeTable::Stationary => {
            let header = ["class", "state", "probability", "mean_recurrence"];
            let mut csv = Csv::new(out, &header)?;
            for (&c, st) in r.analysis.closed.iter().zip(&r.analysis.stationary) {
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

fn compute<'a>(file: ModelFile, dtmc: &'a Dtmc, args: &AnalyzeArgs) -> Result<Report<'a>> {
    let n = dtmc.n();
    let names: Vec<String> = (0..n as StateId).map(|s| dtmc.state_name(s)).collect();
    let mut initial = vec![0.0; n];
    let from = match &args.from {
        Some(f) => {
            let s = parse_state(dtmc, &names, f, "--from")?;
            initial[s as usize] = 1.0;
            names[s as usize].clone()
        }
        None => {
            let init = dtmc.initial();
            if init.is_empty() {
                bail!(
                    "{}: the model has no initial state; name one with --from",
                    file.files[0].display()
                );
            }
            for &s in init {
                initial[s as usize] = 1.0 / init.len() as f64;
            }
            let shown: Vec<&str> = init.iter().map(|&s| names[s as usize].as_str()).collect();
            if init.len() == 1 {
                shown[0].to_string()
            } else {
                format!("uniform over {{{}}}", shown.join(", "))
            }
        }
    };
    let analysis = ClassAnalysis::new(dtmc)?;
    let long_run = analysis.long_run(&initial)?;
    let recurrence = analysis.time_to_recurrence().cloned();
    let absorption = (recurrence.is_some()
        && analysis.closed.len() >= 2
        && analysis.closed.len() <= MAX_ABSORPTION_CLASSES
        && n.saturating_mul(analysis.closed.len()) <= MAX_ABSORPTION_TABLE)
        .then(|| {
            (0..analysis.closed.len())
                .map(|c| analysis.absorption_probabilities(c))
                .collect()
        });
    let fundamental = match analysis.absorbing() {
        Some(a) if a.transient_states().len() <= MAX_FUNDAMENTAL_SHOWN => Some(a.fundamental()?),
        _ => None,
    };
    let passage = if n <= MAX_FIRST_PASSAGE_MATRIX {
        Some(mean_first_passage_matrix(dtmc)?)
    } else {
        None
    };
    // One absorbing-chain factorisation per target: the recurrent part's when the target is exactly
    // the set of recurrent states (absorbing states as a label, typically).
    let target_set = match &args.target {
        Some(spec) => Some((spec, target_states(dtmc, &names, spec)?)),
        None => None,
    };
    let owned_chain;
    let target_chain: Option<&AbsorbingChain> = match &target_set {
        Some((_, states)) => {
            let recurrent: Vec<StateId> = (0..n as StateId)
                .filter(|&s| analysis.classes.classes[analysis.classes.class_of[s as usize] as usize].closed)
                .collect();
            match analysis.absorbing() {
                Some(a) if *states == recurrent && args.method == SolveMethod::Auto => Some(a),
                _ => {
                    owned_chain = AbsorbingChain::with_method(
                        dtmc,
                        &StateSet::from_states(n, states.iter().copied()),
                        args.method,
                    )?;
                    Some(&owned_chain)
                }
            }
        }
        None => None,
    };
    let target = match (&target_set, target_chain) {
        (Some((spec, states)), Some(chain)) => {
            let set = StateSet::from_states(n, states.iter().copied());
            Some(TargetReport {
                spec: (*spec).clone(),
                states: states.clone(),
                reach: reach_probability(dtmc, &set)?,
                time: chain.absorption_time(),
            })
        }
        _ => None,
    };
    let after = match args.steps {
        Some(k) => Some(transient_distribution(dtmc, &initial, k, MAX_WORK)?),
        None => None,
    };
    let mut rewards = Vec::new();
    for (name, model) in dtmc.reward_models() {
        let r = model.expected_per_choice(dtmc.matrix());
        let classes = analysis.gain_bias(&r)?;
        let gain_from_start = classes
            .iter()
            .zip(&long_run.absorption)
            .map(|(g, w)| if *w > 0.0 { g.gain * w } else { 0.0 })
            .sum();
        let to_target = match target_chain {
            Some(a) => Some(a.expected_reward(&r)?),
            None => None,
        };
        rewards.push(RewardReport {
            name: name.clone(),
            classes,
            gain_from_start,
            to_target,
        });
    }
    // The exact fractions are an addition: when they cannot be had (too large, probabilities
    // that are not simple fractions) the report keeps the decimals and says why.
    let exact_result = args.exact.then(|| -> kolmo::Result<ExactReport> {
        let p = dtmc.exact_matrix()?;
        let mut stationary = Vec::new();
        for &c in &analysis.closed {
            let st = RecurrentClass::new(&p, &analysis.classes.classes[c].states)?.stationary()?;
            stationary.push((st.pi, st.mean_recurrence_times));
        }
        let target = match &target {
            Some(t) => {
                let set = StateSet::from_states(n, t.states.iter().copied());
                Some((
                    reach_probability_exact(dtmc, &set)?,
                    absorption_time_exact(dtmc, &set)?,
                ))
            }
            None => None,
        };
        Ok(ExactReport { stationary, target })
    });
    let (exact, exact_error) = match exact_result {
        Some(Ok(x)) => (Some(x), None),
        Some(Err(e)) => (None, Some(e.to_string())),
        None => (None, None),
    };
    Ok(Report {
        exact,
        exact_error,
        file,
        dtmc,
        names,
        from,
        analysis,
        long_run,
        recurrence,
        absorption,
        fundamental,
        passage,
        target,
        after,
        rewards,
    })
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
        states.push(parse_state(dtmc, names, part, "--target").with_context(|| {
            let labels: Vec<&str> = dtmc.labels().keys().map(String::as_str).collect();
            if labels.is_empty() {
                "the model has no labels".to_string()
            } else {
                format!("the model's labels: {}", labels.join(", "))
            }
        })?);
    }
    if states.is_empty() {
        bail!("--target: name a label or at least one state");
    }
    states.sort_unstable();
    states.dedup();
    Ok(states)
}

fn fractions(values: &[Rational]) -> Value {
    Value::Array(values.iter().map(|v| json!(v.to_string())).collect())
}

/// Fractions, with +∞ (`None`) as "inf".
fn optional_fractions(values: &[Option<Rational>]) -> Value {
    Value::Array(
        values
            .iter()
            .map(|v| v.as_ref().map_or(json!("inf"), |v| json!(v.to_string())))
            .collect(),
    )
}

fn per_state(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| num(v)).collect())
}

fn matrix_json(k: usize, m: &[f64]) -> Value {
    Value::Array(m.chunks(k.max(1)).map(per_state).collect())
}

fn json_report(r: &Report) -> Value {
    let d = r.dtmc;
    let a = &r.analysis;
    let names = |states: &[StateId]| -> Value {
        Value::Array(states.iter().map(|&s| json!(r.names[s as usize])).collect())
    };
    let mut doc = Map::new();
    doc.insert(
        "model".into(),
        json!({
            "files": r.file.files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "format": r.file.format.name(),
            "type": "dtmc",
            "states": d.n(),
            "transitions": d.matrix().nnz(),
            "initial": names(d.initial()),
            "labels": d.labels().iter().map(|(k, v)| (k.clone(), names(&v.to_vec()))).collect::<Map<_, _>>(),
            "reward_models": d.reward_models().keys().collect::<Vec<_>>(),
        }),
    );
    doc.insert("notes".into(), json!(r.file.notes));
    if let Some(e) = &r.exact_error {
        doc.insert("exact_error".into(), json!(e));
    }
    doc.insert("state_names".into(), json!(r.names));
    doc.insert("from".into(), json!(r.from));
    doc.insert(
        "classes".into(),
        Value::Array(
            a.classes
                .classes
                .iter()
                .map(|c| {
                    json!({
                        "states": names(&c.states),
                        "closed": c.closed,
                        "recurrent": c.closed,
                        "period": c.period,
                    })
                })
                .collect(),
        ),
    );
    doc.insert("irreducible".into(), json!(a.classes.irreducible()));
    doc.insert("ergodic".into(), json!(a.classes.ergodic()));
    doc.insert("absorbing_states".into(), names(&a.classes.absorbing_states()));
    doc.insert("transient_states".into(), names(&a.classes.transient_states()));
    doc.insert(
        "stationary".into(),
        Value::Array(
            a.closed
                .iter()
                .zip(&a.stationary)
                .map(|(&c, st)| {
                    json!({
                        "class": c,
                        "states": names(&st.class),
                        "period": a.classes.classes[c].period,
                        "distribution": per_state(&st.pi),
                        "mean_recurrence_times": per_state(&st.mean_recurrence_times),
                        "residual": num(st.residual),
                        "error_bound": num(st.error_bound),
                        "relative_error_bound": num(st.relative_error_bound),
                        "method": st.method,
                    })
                })
                .collect(),
        ),
    );
    if let Some(x) = &r.exact {
        for (i, (pi, m)) in x.stationary.iter().enumerate() {
            doc["stationary"][i]["distribution_exact"] = fractions(pi);
            doc["stationary"][i]["mean_recurrence_times_exact"] = fractions(m);
        }
    }
    doc.insert(
        "long_run".into(),
        json!({
            "absorption_probabilities": per_state(&r.long_run.absorption),
            "distribution": per_state(&r.long_run.distribution),
            "is_limit": r.long_run.converges,
            "error_bound": num(r.long_run.error_bound),
            "residual": num(r.long_run.residual),
        }),
    );
    if let Some(t) = &r.recurrence {
        doc.insert(
            "steps_to_recurrence".into(),
            json!({
                "expected_steps": per_state(&t.mean),
                "variance": per_state(&t.variance),
                "residual": num(t.residual),
                "error_bound": num(t.error_bound),
                "method": t.method,
            }),
        );
    }
    if let Some(ab) = &r.absorption {
        doc.insert(
            "absorption_probabilities".into(),
            json!({
                "classes": a.closed,
                "matrix": Value::Array((0..d.n()).map(|s| Value::Array(ab.iter().map(|(v, _, _)| num(v[s])).collect())).collect()),
                "residual": num(ab.iter().fold(0.0f64, |m, x| m.max(x.1))),
                "error_bound": num(ab.iter().fold(0.0f64, |m, x| m.max(x.2))),
            }),
        );
    }
    if let Some(f) = &r.fundamental {
        doc.insert(
            "fundamental_matrix".into(),
            json!({"states": names(&f.states), "matrix": matrix_json(f.states.len(), &f.matrix), "residual": num(f.residual)}),
        );
    }
    if let Some(p) = &r.passage {
        doc.insert(
            "mean_first_passage".into(),
            json!({"matrix": matrix_json(p.n, &p.matrix), "residual": num(p.residual), "error_bound": num(p.error_bound)}),
        );
    }
    if let Some(t) = &r.target {
        doc.insert(
            "target".into(),
            json!({
                "spec": t.spec,
                "states": names(&t.states),
                "hitting_probability": per_state(&t.reach.values),
                "hitting_probability_residual": num(t.reach.residual),
                "hitting_probability_error_bound": num(t.reach.error_bound),
                "expected_steps": per_state(&t.time.mean),
                "variance": per_state(&t.time.variance),
                "residual": num(t.time.residual),
                "error_bound": num(t.time.error_bound),
                "not_almost_surely": names(&t.time.infinite),
                "method": t.time.method,
            }),
        );
    }
    if let (Some(x), Some(t)) = (
        r.exact.as_ref().and_then(|x| x.target.as_ref()),
        doc.get_mut("target"),
    ) {
        t["hitting_probability_exact"] = fractions(&x.0);
        t["expected_steps_exact"] = optional_fractions(&x.1.mean);
        t["variance_exact"] = optional_fractions(&x.1.variance);
        t["method_exact"] = json!(x.1.method);
    }
    if let Some(d) = &r.after {
        doc.insert(
            "distribution_after".into(),
            json!({
                "steps": d.steps,
                "distribution": per_state(&d.probabilities),
                "mass_error": num(d.mass_error),
                "method": d.method,
            }),
        );
    }
    if !r.rewards.is_empty() {
        let mut m = Map::new();
        for rr in &r.rewards {
            let mut e = json!({
                "classes": rr.classes.iter().zip(&a.closed).map(|(g, &c)| json!({
                    "class": c,
                    "gain": num(g.gain),
                    "gain_error_bound": num(g.gain_error_bound),
                    "bias": per_state(&g.bias),
                    "bias_residual": num(g.bias_residual),
                })).collect::<Vec<_>>(),
                "gain": num(rr.gain_from_start),
            });
            if let Some((v, res, bound)) = &rr.to_target {
                e["expected_reward_to_target"] = per_state(v);
                e["expected_reward_to_target_residual"] = num(*res);
                e["expected_reward_to_target_error_bound"] = num(*bound);
            }
            m.insert(rr.name.clone(), e);
        }
        doc.insert("rewards".into(), Value::Object(m));
    }
    Value::Object(doc)
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
    let a = &r.analysis;
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
    for note in &r.file.notes {
        writeln!(out, "  note: {note}")?;
    }
    if let Some(e) = &r.exact_error {
        writeln!(out, "  note: no exact fractions: {e}")?;
    }
    writeln!(out)?;
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
        let exact = r.exact.as_ref().map(|x| &x.stationary[i]);
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
                Some((pi, m)) => writeln!(out, "  {}, {}", pi[j], m[j])?,
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
    let lr = &r.long_run;
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
    if let Some(t) = &r.recurrence {
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
                fmt_short(t.variance[s as usize], 15)
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
    if let Some(ab) = &r.absorption {
        writeln!(out)?;
        let bound = ab.iter().fold(0.0f64, |m, x| m.max(x.2));
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
            for (v, _, _) in ab {
                write!(out, "  {:>18}", fmt_short(v[s as usize], 15))?;
            }
            writeln!(out)?;
        }
    }
    if let Some(f) = &r.fundamental {
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
    if let Some(p) = &r.passage {
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
    if let Some(t) = &r.target {
        writeln!(out)?;
        writeln!(
            out,
            "Target {} ({}): P(reach) error ≤ {}; expected steps error ≤ {} relative; {}",
            t.spec,
            list(&r.names, &t.states, 8),
            fmt_bound(t.reach.error_bound),
            fmt_bound(t.time.error_bound),
            t.time.method
        )?;
        for rr in &r.rewards {
            if let Some((_, _, bound)) = &rr.to_target {
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
            "  {:<width$}  {:>18}  {:>18}  {:>18}",
            "from", "P(reach)", "expected steps", "variance"
        )?;
        for rr in r.rewards.iter().filter(|x| x.to_target.is_some()) {
            write!(out, "  {:>18}", format!("reward {}", rr.name))?;
        }
        writeln!(out)?;
        for s in 0..d.n().min(rows) {
            write!(
                out,
                "  {:<width$}  {:>18}  {:>18}  {:>18}",
                r.names[s],
                fmt_short(t.reach.values[s], 15),
                fmt_short(t.time.mean[s], 15),
                fmt_short(t.time.variance[s], 15)
            )?;
            for rr in &r.rewards {
                if let Some((v, _, _)) = &rr.to_target {
                    write!(out, "  {:>18}", fmt_short(v[s], 15))?;
                }
            }
            if let Some((p, t)) = r.exact.as_ref().and_then(|x| x.target.as_ref()) {
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
    if let Some(d) = &r.after {
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
    for rr in &r.rewards {
        writeln!(out)?;
        writeln!(
            out,
            "Reward {:?}: long-run average reward (gain) from {}: {}",
            rr.name,
            r.from,
            fmt_short(rr.gain_from_start, 15)
        )?;
        for (g, &c) in rr.classes.iter().zip(&a.closed).take(rows) {
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
