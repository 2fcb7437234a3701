//! Times the transient analyses on a model file (the file reading is timed apart).
//!
//! ```text
//! cargo run --release -p kolmo --example transient_bench -- FILE [STEPS] [REPEATS]
//! ```
//!
//! For a chain with a `goal` label (a Snakes and Ladders board from `shared/peers/gen_board.py`):
//! the distribution after `STEPS` (default 100) steps from the initial state and its mass in the
//! goal, and the absorption-time distribution to the goal for `STEPS` steps, `P(T ≤ STEPS)`, each
//! `REPEATS` (default 3) times, wall and CPU time. First the parts (`parts:` lines): building the
//! sliced transpose, the qualitative analysis, the last sparse steps, the full steps (min and
//! median), and bare products with the sliced transpose (the same vector each time, and ping-pong).
//! The machine's other load shows as CPU time well above twice the wall time on two cores, or as
//! a wide spread between repeats.

use kolmo::analysis::{TimeDistributionOptions, absorption_time_distribution, distribution_after};
use kolmo::graph::Qualitative;
use kolmo::io::{Model, ReadOptions, read_model};
use kolmo::sparse::{Propagator, SlicedTranspose};
use std::time::Instant;

/// CPU seconds of this process (all threads), from /proc (Linux); 0 elsewhere.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: transient_bench FILE [STEPS] [REPEATS]")?;
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
    // The parts: the sliced transpose, the sparse and the full steps, the qualitative analysis.
    let t = Instant::now();
    let sliced = SlicedTranspose::new(dtmc.matrix());
    println!(
        "parts: sliced transpose {:.4} s ({} slots for {} entries)",
        t.elapsed().as_secs_f64(),
        sliced.slots(),
        sliced.nnz()
    );
    let t = Instant::now();
    let _ = Qualitative::new(&dtmc, &goal);
    println!("parts: qualitative analysis {:.4} s", t.elapsed().as_secs_f64());
    let mut walk = Propagator::new(dtmc.matrix(), initial.clone());
    // Inside the pool, as the library runs its steps.
    let (sparse, first_full, rest, full, full_cpu, mut each) = walk.run(|walk| {
        let t = Instant::now();
        let mut k = 0;
        let mut last = Vec::new();
        while let Some(support) = walk.support() {
            if k == steps {
                break;
            }
            let (len, t) = (support.len(), Instant::now());
            walk.step();
            last.push((len, t.elapsed().as_secs_f64()));
            k += 1;
        }
        let sparse = t.elapsed().as_secs_f64();
        for (len, secs) in last.iter().rev().take(4).rev() {
            println!(
                "parts: a sparse step from a support of {len} states: {:.2} ms",
                1e3 * secs
            );
        }
        let t = Instant::now();
        if k < steps {
            walk.step();
            k += 1;
        }
        let first_full = t.elapsed().as_secs_f64();
        let (t, cpu) = (Instant::now(), cpu_seconds());
        let rest = steps - k;
        let mut each = Vec::new();
        for _ in 0..rest {
            let t = Instant::now();
            walk.step();
            each.push(t.elapsed().as_secs_f64());
        }
        (
            sparse,
            first_full,
            rest,
            t.elapsed().as_secs_f64(),
            cpu_seconds() - cpu,
            each,
        )
    });
    each.sort_by(f64::total_cmp);
    if !each.is_empty() {
        println!(
            "parts: full steps min {:.2} ms, median {:.2} ms",
            1e3 * each[0],
            1e3 * each[each.len() / 2]
        );
    }
    let x = walk.vector().to_vec();
    let mut y = vec![0.0; x.len()];
    let (t, cpu) = (Instant::now(), cpu_seconds());
    for _ in 0..20 {
        sliced.vec_mul(&x, &mut y);
    }
    println!(
        "parts: 20 products with the sliced transpose alone: {:.2} ms each ({:.2} CPU ms)",
        1e3 * t.elapsed().as_secs_f64() / 20.0,
        1e3 * (cpu_seconds() - cpu) / 20.0
    );
    let (mut a, mut b) = (x.clone(), vec![0.0; x.len()]);
    let (t, cpu) = (Instant::now(), cpu_seconds());
    for _ in 0..10 {
        sliced.vec_mul(&a, &mut b);
        sliced.vec_mul(&b, &mut a);
    }
    println!(
        "parts: 20 products ping-pong: {:.2} ms each ({:.2} CPU ms)",
        1e3 * t.elapsed().as_secs_f64() / 20.0,
        1e3 * (cpu_seconds() - cpu) / 20.0
    );
    drop(sliced);
    println!(
        "parts: {} sparse steps {sparse:.4} s; first full step (with the transpose) {first_full:.4} s; {rest} more full steps {full:.4} s ({:.2} ms each, {:.2} CPU ms each)",
        walk.sparse_steps(),
        1e3 * full / rest.max(1) as f64,
        1e3 * full_cpu / rest.max(1) as f64
    );
    for _ in 0..repeats {
        let (t, cpu) = (Instant::now(), cpu_seconds());
        let d = distribution_after(&dtmc, &initial, steps)?;
        let secs = t.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu;
        let in_goal: f64 = goal.iter().map(|s| d[s as usize]).sum();
        let mass: f64 = d.iter().sum();
        println!(
            "distribution_after({steps}): {secs:.4} s ({cpu:.2} CPU s); mass in goal {in_goal:.17e}; |mass - 1| = {:.1e}",
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
        let (t, cpu) = (Instant::now(), cpu_seconds());
        let time = absorption_time_distribution(&dtmc, &initial, &goal, &options)?;
        let secs = t.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu;
        println!(
            "absorption_time_distribution({steps}): {secs:.4} s ({cpu:.2} CPU s); P(T <= {steps}) = {:.17e}",
            time.cdf(steps)
        );
    }
    Ok(())
}
