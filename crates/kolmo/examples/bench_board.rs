//! The kolmo side of `bench/run.sh`: reads a board chain written by ../shared/peers/gen_board.py
//! (or any DTMC with labels `init` and `goal`) and times the three benchmark tasks through the
//! library, printing one JSON object per task on stdout:
//! - `load`: reading the file into the CSR model;
//! - `expected_steps`: graph analysis, solve and certificate of the expected steps to `goal`
//!   (value at the initial state, guaranteed relative error bound);
//! - `distribution`: the distribution after `STEPS` steps (default 100) from the initial state
//!   (value: the probability of being in `goal`, i.e. of having finished; bound: the mass lost to
//!   rounding, `|1 − Σπ|`).
//!
//! `cargo run --release --example bench_board -- FILE [STEPS]`
use kolmo::analysis::{AbsorbingChain, distribution_after};
use kolmo::io::{Model, ReadOptions, read_model};
use std::time::Instant;

/// Peak resident set size of this process so far, in MiB (Linux; 0 elsewhere).
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(args.get(1).ok_or("usage: bench_board FILE [STEPS]")?);
    let steps: u64 = args.get(2).map_or(Ok(100), |s| s.parse())?;
    let t = Instant::now();
    let file = read_model(path, &ReadOptions::default())?;
    let Model::Dtmc(dtmc) = file.model else {
        return Err("not a Markov chain".into());
    };
    let load = t.elapsed().as_secs_f64();
    println!(
        r#"{{"task": "load", "seconds": {load}, "states": {}, "transitions": {}, "peak_rss_mib": {:.0}}}"#,
        dtmc.n(),
        dtmc.matrix().nnz(),
        peak_rss_mib()
    );
    let start = *dtmc.initial().first().ok_or("no initial state")? as usize;
    let goal = dtmc.label("goal").ok_or("no label goal")?.clone();

    let t = Instant::now();
    let chain = AbsorbingChain::new(&dtmc, &goal)?;
    let setup = t.elapsed().as_secs_f64();
    let (mean, residual) = chain.expected_steps();
    let seconds = t.elapsed().as_secs_f64();
    let bound = if residual < 1.0 {
        residual / (1.0 - residual) + f64::EPSILON
    } else {
        f64::INFINITY
    };
    println!(
        r#"{{"task": "expected_steps", "seconds": {seconds}, "setup_seconds": {setup}, "value": {}, "relative_bound": {bound:e}, "residual": {residual:e}, "method": "{}", "peak_rss_mib": {:.0}}}"#,
        mean[start],
        chain.method(),
        peak_rss_mib()
    );
    drop(chain);

    let t = Instant::now();
    let mut initial = vec![0.0; dtmc.n()];
    initial[start] = 1.0;
    let pi = distribution_after(&dtmc, &initial, steps)?;
    let seconds = t.elapsed().as_secs_f64();
    let done: f64 = goal.iter().map(|s| pi[s as usize]).sum();
    let lost = (1.0 - pi.iter().sum::<f64>()).abs();
    println!(
        r#"{{"task": "distribution", "steps": {steps}, "seconds": {seconds}, "value": {done}, "mass_error": {lost:e}, "peak_rss_mib": {:.0}}}"#,
        peak_rss_mib()
    );
    Ok(())
}
