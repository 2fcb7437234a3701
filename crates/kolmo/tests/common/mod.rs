//! What the `kolmo check` test files share: checking a model's properties given as text, and
//! comparing a result with a reference value as the field's suites write them.

use kolmo::check::{Answer, CheckOptions, CheckReport, CheckRequest, PropertyResult, check_file};
use kolmo::lang::parse_constants;
use std::path::{Path, PathBuf};

/// `kolmo check MODEL --prop P... --const CONSTS` with the defaults (deadlocks fixed).
pub fn check(model: &Path, props: &[&str], consts: &str) -> kolmo::Result<CheckReport> {
    check_with(model, props, consts, CheckOptions::default())
}

/// [`check`] with `--exact`.
#[allow(dead_code)]
pub fn check_exact(model: &Path, props: &[&str], consts: &str) -> kolmo::Result<CheckReport> {
    check_with(
        model,
        props,
        consts,
        CheckOptions {
            exact: true,
            ..CheckOptions::default()
        },
    )
}

fn check_with(
    model: &Path,
    props: &[&str],
    consts: &str,
    options: CheckOptions,
) -> kolmo::Result<CheckReport> {
    check_file(&CheckRequest {
        model: model.to_path_buf(),
        properties: props
            .iter()
            .map(|p| (PathBuf::from("--prop"), (*p).to_string()))
            .collect(),
        constants: parse_constants(consts)?,
        fix_deadlocks: true,
        max_states: None,
        all_rewards: false,
        action_names: false,
        options,
    })
}

/// Whether `r` agrees with a reference written as `true`, `false`, a decimal, `Infinity` or a
/// fraction `a/b`: the same truth value, or a number within 1e-6 relative (PRISM's RESULT
/// lines' precision; 1e-12 absolute near 0) and, with `inside = Some(slack)`, the reference
/// inside the certified interval widened by `slack`.
pub fn agrees(reference: &str, r: &PropertyResult, inside: Option<f64>) -> bool {
    match (reference, r.value) {
        ("true", Answer::Bool(b)) => b,
        ("false", Answer::Bool(b)) => !b,
        (x, Answer::Number(v)) => {
            let want: f64 = match x.split_once('/') {
                Some((a, b)) => a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap(),
                None => x.parse().unwrap(),
            };
            let close = v == want || (v - want).abs() <= (1e-6 * want.abs()).max(1e-12);
            close
                && inside
                    .is_none_or(|slack| r.lower.unwrap() - slack <= want && want <= r.upper.unwrap() + slack)
        }
        _ => false,
    }
}

/// Reference values checked one by one: how many agree, and each miss with its label, so that a
/// run reports every miss at once.
#[derive(Default)]
pub struct Tally {
    /// References that agree.
    pub right: usize,
    /// One line per miss: the label, what kolmo gave (or its error), the reference.
    pub misses: Vec<String>,
}

#[allow(dead_code)]
impl Tally {
    /// Records the check of one property (`label` names it; `note` follows the reference in a
    /// miss) against `reference`, as [`agrees`] compares them.
    pub fn record(
        &mut self,
        label: &str,
        report: kolmo::Result<CheckReport>,
        reference: &str,
        inside: Option<f64>,
        note: &str,
    ) {
        match report {
            Err(e) => self.misses.push(format!("{label}: {e}")),
            Ok(report) => {
                let r = &report.results[0];
                if agrees(reference, r, inside) {
                    self.right += 1;
                } else {
                    self.misses.push(format!(
                        "{label}: got {:?} in [{:?}, {:?}], reference {reference}{note}",
                        r.value, r.lower, r.upper
                    ));
                }
            }
        }
    }

    /// Fails listing every miss.
    pub fn assert_no_misses(&self) {
        assert!(
            self.misses.is_empty(),
            "{} misses:\n{}",
            self.misses.len(),
            self.misses.join("\n")
        );
    }
}
