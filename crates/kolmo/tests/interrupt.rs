//! A stop request ([`kolmo::interrupt`]) ends long engine calls with `Err(Interrupted)`, and
//! after [`kolmo::interrupt::clear`] the same calls run to completion with the right values.
//!
//! The request is process-wide and cargo runs a file's tests on parallel threads of one process:
//! every case is in the one test below, and this file is its own test binary (its own process),
//! so no other test sees the request set.

use kolmo::Error;
use kolmo::explore::{ExploreOptions, Generator, Successors, explore};
use kolmo::interrupt;
use kolmo::mdp::{MdpOptions, Method, Optimum, discounted};
use kolmo::model::{Dtmc, Mdp};
use kolmo::sim::{MonteCarloOptions, SimRng, absorption_times};
use kolmo::sparse::CsrBuilder;
use std::time::{Duration, Instant};

/// Generous: the calls below would run for minutes; a stop must end them within this (in a debug
/// build, on a loaded machine). Not a timing benchmark.
const PROMPT: Duration = Duration::from_secs(5);

/// Runs `call` with a stop requested from another thread after 50 ms; asserts that it returns
/// `Err(Interrupted)` within [`PROMPT`], then withdraws the request.
fn stopped<T: std::fmt::Debug>(what: &str, call: impl FnOnce() -> kolmo::Result<T>) {
    interrupt::clear();
    let start = Instant::now();
    let stopper = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(50));
        interrupt::request();
    });
    let result = call();
    let took = start.elapsed();
    stopper.join().unwrap();
    assert!(interrupt::requested());
    assert!(
        matches!(result, Err(Error::Interrupted)),
        "{what}: {result:?} after {took:?}"
    );
    assert!(took < PROMPT, "{what}: stopped only after {took:?}");
    assert!(
        took >= Duration::from_millis(50),
        "{what}: returned before the request"
    );
    interrupt::clear();
}

/// A ring of `n` states: from each, move on to the next (reward 1 in state 0, else 0) or stay
/// (reward 0). Maximising, moving on is optimal: `v_0 = 1 / (1 − γⁿ)`.
fn ring_mdp(n: u32) -> (Mdp, Vec<f64>) {
    let mut b = CsrBuilder::new(n as usize);
    let mut rewards = Vec::new();
    for s in 0..n {
        b.new_row_group();
        b.add((s + 1) % n, 1.0);
        b.finish_row();
        rewards.push(if s == 0 { 1.0 } else { 0.0 });
        b.add(s, 1.0);
        b.finish_row();
        rewards.push(0.0);
    }
    (Mdp::new(b.build(), vec![0]).unwrap(), rewards)
}

/// The cycle `0 → 1 → … → n − 1 → 0`.
fn cycle(n: u32) -> Dtmc {
    let mut b = CsrBuilder::new(n as usize);
    for s in 0..n {
        b.add((s + 1) % n, 1.0);
        b.finish_row();
    }
    Dtmc::new(b.build(), vec![0]).unwrap()
}

/// The counter `0 → 1 → … → last`, `last` absorbing.
struct Counter {
    last: u64,
}

impl Generator for Counter {
    type State = u64;

    fn initial_states(&self) -> Vec<u64> {
        vec![0]
    }

    fn expand(&self, &s: &u64, out: &mut Successors<u64>) {
        out.add((s + 1).min(self.last), 1.0);
    }
}

/// A game of geometric length: each step ends it with probability `1/mean`.
fn geometric(mean: u64) -> impl Fn(&mut SimRng, u64) -> Option<u64> + Sync {
    move |rng, max| {
        use rand::Rng;
        (1..=max).find(|_| rng.next_u64() < u64::MAX / mean)
    }
}

#[test]
fn a_stop_request_ends_long_calls_and_clearing_it_lets_them_finish() {
    // Discounted value iteration with γ = 0.999999: millions of sweeps to certify 1e-12.
    let (mdp, rewards) = ring_mdp(1000);
    let value_iteration = MdpOptions {
        method: Method::ValueIteration,
        ..MdpOptions::default()
    };
    stopped("value iteration", || {
        discounted(&mdp, &rewards, 0.999_999, Optimum::Max, &value_iteration)
    });
    let (small, small_rewards) = ring_mdp(10);
    let solved = discounted(&small, &small_rewards, 0.9, Optimum::Max, &value_iteration).unwrap();
    let want = 1.0 / (1.0 - 0.9f64.powi(10));
    assert!(
        (solved.values[0] - want).abs() <= solved.error_bound + 1e-12,
        "{} vs {want}",
        solved.values[0]
    );
    assert!(solved.policy.iter().all(|&c| c == 0));

    // A transient distribution after 10¹² steps.
    let ring = cycle(1000);
    let mut start = vec![0.0; 1000];
    start[0] = 1.0;
    stopped("transient distribution", || {
        kolmo::analysis::distribution_after(&ring, &start, 1_000_000_000_000)
    });
    let after = kolmo::analysis::distribution_after(&ring, &start, 1234).unwrap();
    assert_eq!(after[234], 1.0);
    assert_eq!(after.iter().sum::<f64>(), 1.0);

    // Monte Carlo: 10⁷ games of 1000 steps on average (611 chunks of 16 384 games).
    let many = MonteCarloOptions {
        games: 10_000_000,
        ..MonteCarloOptions::default()
    };
    stopped("Monte Carlo", || absorption_times(&many, None, geometric(1000)));
    let few = MonteCarloOptions {
        games: 100_000,
        ..MonteCarloOptions::default()
    };
    let mc = absorption_times(&few, None, geometric(4)).unwrap();
    assert_eq!(mc.games, 100_000);
    assert!(mc.z_score(4.0).abs() < 4.0, "mean {}", mc.mean);

    // Exploring 10¹² states.
    stopped("exploration", || {
        explore(
            &Counter {
                last: 1_000_000_000_000,
            },
            ExploreOptions::default(),
        )
    });
    let explored = explore(&Counter { last: 1000 }, ExploreOptions::default()).unwrap();
    assert_eq!(explored.states.len(), 1001);
    assert_eq!(explored.states[1000], 1000);

    // While a request stands, every call stops at its first check.
    interrupt::request();
    assert!(matches!(
        kolmo::analysis::distribution_after(&ring, &start, 10),
        Err(Error::Interrupted)
    ));
    assert_eq!(
        Error::Interrupted.to_string(),
        "interrupted (a stop was requested)"
    );
    interrupt::clear();
    assert!(interrupt::check().is_ok());
}
