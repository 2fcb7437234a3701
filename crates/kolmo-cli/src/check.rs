//! `kolmo check`: PRISM-language models (or any model file) and properties in PRISM's property
//! language; one result per property, with its certified interval.

use crate::cli::CheckArgs;
use crate::output::{Phase, fmt_bound};
use anyhow::{Result, bail};
use kolmo::check::{Answer, CheckOptions, PropertyResult, Subject, check_properties};
use kolmo::io::{Format, Model, ReadOptions};
use kolmo::lang::ast::{self, PropertyFile};
use kolmo::lang::{
    BuildOptions, BuiltModel, PropertyContext, StateValues, Value, build_model, parse_constants,
};
use kolmo::model::StateSet;
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The extensions read as the PRISM modelling language.
const LANGUAGE_EXTENSIONS: &[&str] = &["pm", "nm", "prism", "smg"];

/// Runs `kolmo check`.
pub fn run(args: &CheckArgs) -> Result<()> {
    if args.properties.is_none() && args.prop.is_empty() {
        bail!("no properties: give a property file after the model, or --prop 'P=? [F \"goal\"]'");
    }
    let runs = expand_constants(args.constants.as_deref().unwrap_or(""))?;
    let mut docs = Vec::new();
    for (k, consts) in runs.iter().enumerate() {
        let doc = check_once(args, consts)?;
        if args.json {
            docs.push(doc);
        } else if k + 1 < runs.len() {
            println!();
        }
    }
    if args.json {
        let out = if runs.len() == 1 {
            docs.pop().expect("one run")
        } else {
            json!({ "experiments": docs })
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    }
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

/// A model ready for checking: the model, and what PRISM-language models add.
struct Loaded {
    model: Model,
    built: Option<BuiltModel>,
    model_type: &'static str,
    reward_order: Vec<String>,
}

fn is_language(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| LANGUAGE_EXTENSIONS.contains(&e))
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

/// One check over one combination of constants; prints the text report, returns the JSON.
fn check_once(args: &CheckArgs, consts: &str) -> Result<Json> {
    let given = parse_constants(consts)?;
    let t0 = Instant::now();
    let language = is_language(&args.model);
    let (ast, model_text) = if language {
        let text = read_text(&args.model)?;
        let ast = kolmo::lang::parse_model(&text, &args.model)?;
        (Some(ast), text)
    } else {
        (None, String::new())
    };
    // Properties: the file's, then each --prop.
    let mut sources: Vec<(PathBuf, String)> = Vec::new();
    if let Some(p) = &args.properties {
        sources.push((p.clone(), read_text(p)?));
    }
    for (i, p) in args.prop.iter().enumerate() {
        let name = if args.prop.len() == 1 {
            "--prop".to_string()
        } else {
            format!("--prop {}", i + 1)
        };
        sources.push((PathBuf::from(name), p.clone()));
    }
    let mut files: Vec<PropertyFile> = Vec::new();
    for (path, text) in &sources {
        files.push(kolmo::lang::parse_properties(text, path)?);
    }
    let parse_seconds = t0.elapsed().as_secs_f64();
    // Constants: the model's go to the build, the rest to the properties.
    let model_names: Vec<&str> = ast
        .as_ref()
        .map(|a| a.constants.iter().map(|c| c.name.name.as_str()).collect())
        .unwrap_or_default();
    let (for_model, for_props): (Vec<(String, Value)>, Vec<(String, Value)>) = given
        .iter()
        .cloned()
        .partition(|(n, _)| model_names.contains(&n.as_str()));
    let t1 = Instant::now();
    let phase = Phase::start("building the model", String::new);
    let loaded = match &ast {
        Some(ast) => {
            let built = build_model(
                ast,
                &model_text,
                &args.model,
                &BuildOptions {
                    constants: for_model,
                    fix_deadlocks: !args.no_fix_deadlocks,
                    max_states: None,
                },
            )?;
            let model_type = match built.model_type {
                ast::ModelType::Dtmc => "dtmc",
                ast::ModelType::Mdp => "mdp",
                ast::ModelType::Smg => "smg",
            };
            Loaded {
                model: built.model.clone(),
                reward_order: built.reward_names.clone(),
                built: Some(built),
                model_type,
            }
        }
        None => {
            let file = kolmo::io::read_model(
                &args.model,
                &ReadOptions {
                    format: None,
                    normalize: false,
                    exact: false,
                },
            )?;
            let mut model = file.model;
            let (model_type, reward_order) = match &mut model {
                Model::Dtmc(d) => {
                    if d.label("init").is_none() {
                        let init = StateSet::from_states(d.n(), d.initial().iter().copied());
                        d.set_label("init", init);
                    }
                    ("dtmc", d.reward_models().keys().cloned().collect())
                }
                Model::Mdp(m) => {
                    if m.label("init").is_none() {
                        let init = StateSet::from_states(m.n(), m.initial().iter().copied());
                        m.set_label("init", init);
                    }
                    ("mdp", m.reward_models().keys().cloned().collect())
                }
            };
            Loaded {
                model,
                built: None,
                model_type,
                reward_order,
            }
        }
    };
    drop(phase);
    let build_seconds = t1.elapsed().as_secs_f64();
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
        kolmo::io::write_model(&loaded.model, path, format)?;
    }
    let (n, transitions, choices, initial, labels) = match &loaded.model {
        Model::Dtmc(d) => (d.n(), d.matrix().nnz(), d.n(), d.initial().to_vec(), d.labels()),
        Model::Mdp(m) => (
            m.n(),
            m.matrix().nnz(),
            m.choices(),
            m.initial().to_vec(),
            m.labels(),
        ),
    };
    let subject = Subject {
        model: &loaded.model,
        states: StateValues {
            states: loaded.built.as_ref().map(|b| &b.states[..]),
            n,
        },
        reward_order: loaded.reward_order.clone(),
    };
    let empty_formulas: Vec<ast::Formula> = Vec::new();
    let model_constants: Vec<(String, Value)> = loaded
        .built
        .as_ref()
        .map(|b| b.constants.clone())
        .unwrap_or_default();
    let variables = loaded.built.as_ref().map_or(&[][..], |b| &b.variables[..]);
    let context = PropertyContext {
        formulas: ast.as_ref().map_or(&empty_formulas[..], |a| &a.formulas[..]),
        constants: &model_constants,
        given: &for_props,
        variables,
        labels,
    };
    let options = CheckOptions {
        max_iterations: args.max_iterations,
        ..CheckOptions::default()
    };
    let t2 = Instant::now();
    let phase = Phase::start("checking", String::new);
    let mut results: Vec<PropertyResult> = Vec::new();
    for ((path, text), file) in sources.iter().zip(&files) {
        results.extend(check_properties(&subject, file, text, path, &context, &options)?);
    }
    drop(phase);
    let check_seconds = t2.elapsed().as_secs_f64();
    let mut constants: BTreeMap<String, Json> = BTreeMap::new();
    for (k, v) in model_constants.iter().chain(&for_props) {
        constants.insert(k.clone(), value_json(*v));
    }
    let names = |s: u32| match &loaded.model {
        Model::Dtmc(d) => d.state_name(s),
        Model::Mdp(m) => m.state_name(s),
    };
    if !args.json {
        println!(
            "{} model: {n} states, {transitions} transitions{}, {} initial state{}",
            loaded.model_type,
            if loaded.model_type == "dtmc" {
                String::new()
            } else {
                format!(", {choices} choices")
            },
            initial.len(),
            if initial.len() == 1 { "" } else { "s" }
        );
        if !constants.is_empty() {
            let list: Vec<String> = constants.iter().map(|(k, v)| format!("{k}={v}")).collect();
            println!("constants: {}", list.join(", "));
        }
        if let Some(b) = &loaded.built
            && !b.deadlocks.is_empty()
        {
            println!(
                "{} deadlock state{} given a self-loop, as PRISM does (--no-fix-deadlocks refuses them)",
                b.deadlocks.len(),
                if b.deadlocks.len() == 1 { "" } else { "s" }
            );
        }
        println!("time: parse {parse_seconds:.3} s, build {build_seconds:.3} s, check {check_seconds:.3} s");
        for r in &results {
            println!();
            match &r.name {
                Some(name) => println!("\"{name}\": {}", r.property),
                None => println!("{}", r.property),
            }
            println!("  result   {}", answer_text(r));
            if let (Some(lo), Some(hi)) = (r.lower, r.upper)
                && lo.is_finite()
            {
                println!(
                    "  bound    within [{}, {}] (error <= {})",
                    lo,
                    hi,
                    fmt_bound(r.error_bound)
                );
            }
            for (s, a) in &r.printed {
                println!("  {:>10}  {}", names(*s), answer_plain(*a));
            }
            println!("  method   {}", r.method);
            println!("  time     {:.3} s", r.seconds);
        }
    }
    let results_json: Vec<Json> = results
        .iter()
        .map(|r| {
            let mut o = json!({
                "name": r.name,
                "property": r.property,
                "value": answer_json(r.value),
                "lower": r.lower.map(number_json),
                "upper": r.upper.map(number_json),
                "exact": Json::Null,
                "method": r.method,
                "seconds": r.seconds,
            });
            if r.initial_values.len() > 1 {
                o["initial_values"] = r.initial_values.iter().map(|a| answer_json(*a)).collect();
                if let Some((lo, hi)) = range(&r.initial_values) {
                    o["range"] = json!([number_json(lo), number_json(hi)]);
                }
            }
            if !r.printed.is_empty() {
                o["printed"] = r
                    .printed
                    .iter()
                    .map(|(s, a)| json!({"state": names(*s), "value": answer_json(*a)}))
                    .collect();
            }
            o
        })
        .collect();
    Ok(json!({
        "model": {
            "type": loaded.model_type,
            "states": n,
            "transitions": transitions,
            "choices": choices,
            "initial_states": initial.len(),
            "deadlocks": loaded.built.as_ref().map_or(0, |b| b.deadlocks.len()),
        },
        "constants": constants,
        "results": results_json,
        "seconds": {"parse": parse_seconds, "build": build_seconds, "check": check_seconds},
    }))
}

fn range(values: &[Answer]) -> Option<(f64, f64)> {
    let numbers: Vec<f64> = values
        .iter()
        .filter_map(|a| match a {
            Answer::Number(x) => Some(*x),
            Answer::Bool(_) => None,
        })
        .collect();
    if numbers.is_empty() {
        return None;
    }
    Some((
        numbers.iter().copied().fold(f64::INFINITY, f64::min),
        numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    ))
}

fn answer_plain(a: Answer) -> String {
    match a {
        Answer::Number(x) if x == f64::INFINITY => "inf".into(),
        Answer::Number(x) if x == f64::NEG_INFINITY => "-inf".into(),
        Answer::Number(x) => format!("{x}"),
        Answer::Bool(b) => b.to_string(),
    }
}

/// The result line: the value, or the range over several initial states (as PRISM prints it).
fn answer_text(r: &PropertyResult) -> String {
    if r.initial_values.len() > 1
        && let Some((lo, hi)) = range(&r.initial_values)
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

fn number_json(x: f64) -> Json {
    if x == f64::INFINITY {
        json!("inf")
    } else if x == f64::NEG_INFINITY {
        json!("-inf")
    } else {
        json!(x)
    }
}

fn answer_json(a: Answer) -> Json {
    match a {
        Answer::Number(x) => number_json(x),
        Answer::Bool(b) => json!(b),
    }
}

fn value_json(v: Value) -> Json {
    match v {
        Value::Int(i) => json!(i),
        Value::Double(d) => json!(d),
        Value::Bool(b) => json!(b),
    }
}
