//! Times the transient analyses on a model file (the file reading is timed apart).
//!
//! ```text
//! cargo run --release -p kolmo --example transient_bench -- FILE [STEPS] [REPEATS]
//! ```
//!
//! For a chain with a `goal` label (a Snakes and Ladders board from `shared/peers/gen_board.py`):
//! the distribution after `STEPS` (default 100) steps from the initial state and its mass in the
//! goal, and the absorption-time distribution to the goal for `STEPS` steps, `P(T ≤ STEPS)`.

use kolmo::analysis::{TimeDistributionOptions, absorption_time_distribution, distribution_after};
use kolmo::io::{Model, ReadOptions, read_model};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: transient_bench FILE [STEPS] [REPEATS]")?;
    let steps: u64 = args.next().map_or(Ok(100), |s| s.parse())?;
    let repeats: usize = args.next().map_or(Ok(3), |s| s.parse())?;
    let t = Instant::now();
    let file = read_model(path.as_ref(), &ReadOptions::default())?;
    let Model::Dtmc(dtmc) = file.model else {
        return Err("not a Markov chain".into());
    };
    println!(
        "read {} states, {} transitions in {:.3} s; {} threads",
        dtmc.n(),
        dtmc.matrix().nnz(),
        t.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    );
    let goal = dtmc.label("goal").ok_or("no label \"goal\"")?.clone();
    let mut initial = vec![0.0; dtmc.n()];
    initial[dtmc.initial()[0] as usize] = 1.0;
    for _ in 0..repeats {
        let t = Instant::now();
        let d = distribution_after(&dtmc, &initial, steps)?;
        let secs = t.elapsed().as_secs_f64();
        let in_goal: f64 = goal.iter().map(|s| d[s as usize]).sum();
        let mass: f64 = d.iter().sum();
        println!(
            "distribution_after({steps}): {secs:.4} s; mass in goal {in_goal:.17e}; |mass - 1| = {:.1e}",
            (mass - 1.0).abs()
        );
    }
    let options = TimeDistributionOptions {
        min_steps: steps,
        max_steps: steps,
        max_work: u64::MAX,
        ..Default::default()
    };
    for _ in 0..repeats {
        let t = Instant::now();
        let time = absorption_time_distribution(&dtmc, &initial, &goal, &options)?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "absorption_time_distribution({steps}): {secs:.4} s; P(T <= {steps}) = {:.17e}",
            time.cdf(steps)
        );
    }
    Ok(())
}
