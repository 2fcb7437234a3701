//! Seeded, parallel Monte Carlo estimation of absorption times.
//!
//! Games are split into fixed chunks of [`CHUNK`] games. Chunk `k` draws from its own
//! Xoshiro256++ stream: the generator seeded from the user's seed and advanced by `k · 2¹²⁸`
//! steps (`jump_ce`), so streams never overlap (Blackman & Vigna, "Scrambled linear pseudorandom
//! number generators", ACM TOMS 47(4), 2021). Chunks run in parallel on rayon and their integer
//! sums are combined, so the result for a given seed is **the same whatever the thread count**.

mod chain;

pub use chain::ChainSampler;

use crate::{Error, Result, StateId};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The random number generator handed to each simulated game.
pub type SimRng = Xoshiro256PlusPlus;

/// Games per chunk (the unit of parallel work and of seeding).
pub const CHUNK: u64 = 16_384;

/// Options for [`absorption_times`].
#[derive(Clone, Copy, Debug)]
pub struct MonteCarloOptions {
    /// Number of games to simulate.
    pub games: u64,
    /// Seed; the same seed gives the same result on any number of threads.
    pub seed: u64,
    /// Guard against endless games: a game still running after this many steps stops the whole
    /// simulation with [`Error::LimitReached`] (default 10⁷).
    pub max_steps: u64,
}

impl Default for MonteCarloOptions {
    fn default() -> Self {
        Self {
            games: 2_000_000,
            seed: 1,
            max_steps: 10_000_000,
        }
    }
}

/// Summary of simulated absorption times.
#[derive(Clone, Debug, PartialEq)]
pub struct MonteCarlo {
    /// Number of games simulated.
    pub games: u64,
    /// The seed used.
    pub seed: u64,
    /// Sample mean, in steps.
    pub mean: f64,
    /// Sample standard deviation (with `games − 1` in the denominator), in steps.
    pub std_dev: f64,
    /// Standard error of the mean, `std_dev / √games`.
    pub std_error: f64,
    /// Normal-approximation 95% confidence interval for the mean, `mean ± 1.959964·std_error`.
    pub ci95: (f64, f64),
    /// Shortest game, in steps.
    pub min: u64,
    /// Longest game, in steps.
    pub max: u64,
}

impl MonteCarlo {
    /// `(mean − exact) / std_error`: how many standard errors the estimate lies from an exact
    /// mean. `|z| < 4` is expected unless something is wrong (probability ≈ 6·10⁻⁵ otherwise).
    #[must_use]
    pub fn z_score(&self, exact_mean: f64) -> f64 {
        let d = self.mean - exact_mean;
        if self.std_error == 0.0 && d.abs() <= 1e-12 * exact_mean.abs().max(1.0) {
            // Every game had the same length, and it is the exact mean.
            0.0
        } else {
            d / self.std_error
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Sums {
    count: u64,
    sum: u64,
    sum_sq: u128,
    min: u64,
    max: u64,
}

impl Sums {
    /// No games yet.
    fn empty() -> Sums {
        Sums {
            min: u64::MAX,
            ..Sums::default()
        }
    }

    /// Counts a game of `steps` steps.
    fn record(&mut self, steps: u64) {
        self.count += 1;
        self.sum += steps;
        self.sum_sq += u128::from(steps) * u128::from(steps);
        self.min = self.min.min(steps);
        self.max = self.max.max(steps);
    }

    fn merge(self, o: Sums) -> Sums {
        if self.count == 0 {
            return o;
        }
        if o.count == 0 {
            return self;
        }
        Sums {
            count: self.count + o.count,
            sum: self.sum + o.sum,
            sum_sq: self.sum_sq + o.sum_sq,
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

/// Simulates `options.games` independent games and summarises their lengths.
///
/// `game(rng, max_steps)` plays one game and returns its number of steps, or `None` if it was
/// still running after `max_steps` steps. `progress`, if given, is called after every chunk with
/// the number of games it finished (from any thread).
///
/// # Errors
/// [`Error::InvalidArgument`] if `options.games < 2`; [`Error::LimitReached`] if a game exceeds
/// `options.max_steps` (the remaining chunks are abandoned).
///
/// # Complexity
/// O(games · steps per game) / threads.
pub fn absorption_times<F>(
    options: &MonteCarloOptions,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    game: F,
) -> Result<MonteCarlo>
where
    F: Fn(&mut SimRng, u64) -> Option<u64> + Sync,
{
    in_chunks(options, CHUNK, progress, |mut rng, games| {
        let mut s = Sums::empty();
        for _ in 0..games {
            s.record(game(&mut rng, options.max_steps)?);
        }
        Some(s)
    })
}

/// Runs `options.games` games in chunks of `chunk` in parallel: chunk `k` gets the seeded
/// generator advanced by `k · 2¹²⁸` steps and its number of games, and returns their sums, or
/// `None` when a game reached the step limit (which stops the other chunks and is reported as
/// [`Error::LimitReached`]).
fn in_chunks(
    options: &MonteCarloOptions,
    chunk: u64,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    play: impl Fn(SimRng, u64) -> Option<Sums> + Sync,
) -> Result<MonteCarlo> {
    if options.games < 2 {
        return Err(Error::arg(
            "games",
            "at least 2 games are needed for a standard error",
        ));
    }
    let stop = AtomicBool::new(false);
    let base = SimRng::seed_from_u64(options.seed);
    let sums = (0..options.games.div_ceil(chunk))
        .into_par_iter()
        .map(|k| {
            if stop.load(Ordering::Relaxed) {
                return Sums::default();
            }
            let mut rng = base.clone();
            rng.jump_ce(k, 128);
            let games = chunk.min(options.games - k * chunk);
            let Some(s) = play(rng, games) else {
                stop.store(true, Ordering::Relaxed);
                return Sums::default();
            };
            if let Some(p) = progress {
                p(games);
            }
            s
        })
        .reduce(Sums::default, Sums::merge);
    summarise(sums, options, stop.load(Ordering::Relaxed))
}

/// Games per chunk of [`absorption_times_interleaved`] (the unit of parallel work and of seeding).
pub const INTERLEAVED_CHUNK: u64 = 64;

/// Games in flight at once in each chunk of [`absorption_times_interleaved`].
pub const LANES: usize = 8;

/// As [`absorption_times`] for a chain given by a one-step sampler, with [`LANES`] games of a
/// chunk in flight at once, a step of each in turn, so that their memory accesses overlap: on a
/// chain too large for the cache (a board of 10⁶ cells) a step is one cache miss, and one game
/// waits for each of its misses in turn where interleaved games wait for theirs together.
///
/// A game starts on `start` and ends on reaching `target`; `step(rng, s)` samples the successor
/// of `s`. Chunks hold [`INTERLEAVED_CHUNK`] games, so that even a few hundred long games run in
/// parallel. Chunk `k` starts from the seeded generator advanced by `k · 2¹²⁸` steps and its lane
/// `l` from there by `l · 2¹²⁰`; a lane plays the chunk's next game whenever its game ends. The
/// result for a seed is the same whatever the thread count, but not the one of
/// [`absorption_times`] (the games draw from other streams).
///
/// # Errors
/// As [`absorption_times`].
///
/// # Complexity
/// O(games · steps per game) / threads; memory O([`LANES`]) per thread.
pub fn absorption_times_interleaved<F>(
    options: &MonteCarloOptions,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    start: StateId,
    target: StateId,
    step: F,
) -> Result<MonteCarlo>
where
    F: Fn(&mut SimRng, StateId) -> StateId + Sync,
{
    in_chunks(options, INTERLEAVED_CHUNK, progress, |rng, games| {
        // (generator, state, steps so far) of each game in flight.
        let mut lanes: Vec<(SimRng, StateId, u64)> = (0..LANES.min(games as usize))
            .map(|l| {
                let mut r = rng.clone();
                r.jump_ce(l as u64, 120);
                (r, start, 0)
            })
            .collect();
        let mut started = lanes.len() as u64;
        let mut s = Sums::empty();
        while !lanes.is_empty() {
            let mut l = 0;
            while l < lanes.len() {
                let (r, state, t) = &mut lanes[l];
                if *state == target {
                    s.record(*t);
                    if started == games {
                        lanes.swap_remove(l);
                        continue;
                    }
                    started += 1;
                    (*state, *t) = (start, 0);
                } else if *t == options.max_steps {
                    return None;
                } else {
                    *state = step(r, *state);
                    *t += 1;
                }
                l += 1;
            }
        }
        Some(s)
    })
}

/// The summary of the games' `sums`, or the error of a game stopped at the step limit.
fn summarise(sums: Sums, options: &MonteCarloOptions, stopped: bool) -> Result<MonteCarlo> {
    if stopped {
        return Err(Error::LimitReached {
            what: "Monte Carlo simulation",
            limit: options.max_steps,
            message: "a simulated game did not finish (raise the step limit, or check that the game can end)"
                .into(),
        });
    }
    let n = sums.count as f64;
    let mean = sums.sum as f64 / n;
    // Σ(x − mean)² = Σx² − (Σx)²/n, exactly in integers: (n·Σx² − (Σx)²) / n.
    let centered = u128::from(sums.count) * sums.sum_sq - u128::from(sums.sum) * u128::from(sums.sum);
    let variance = centered as f64 / n / (n - 1.0);
    let std_dev = variance.sqrt();
    let std_error = std_dev / n.sqrt();
    let half = 1.959_963_984_540_054 * std_error;
    Ok(MonteCarlo {
        games: sums.count,
        seed: options.seed,
        mean,
        std_dev,
        std_error,
        ci95: (mean - half, mean + half),
        min: sums.min,
        max: sums.max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    fn geometric(rng: &mut SimRng, max: u64) -> Option<u64> {
        // Steps until a 1 in 4 event: mean 4, variance 12.
        for t in 1..=max {
            if rng.random_range(0..4u32) == 0 {
                return Some(t);
            }
        }
        None
    }

    #[test]
    fn same_result_on_any_thread_count() {
        let opts = MonteCarloOptions {
            games: 100_000,
            seed: 7,
            max_steps: 1000,
        };
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| absorption_times(&opts, None, geometric).unwrap())
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one, run(3));
        assert!(one.z_score(4.0).abs() < 4.0, "{one:?}");
        assert!((one.std_dev - 12f64.sqrt()).abs() < 0.05);
        assert_eq!(one.min, 1);
        let other = absorption_times(&MonteCarloOptions { seed: 8, ..opts }, None, geometric).unwrap();
        assert_ne!(one.mean, other.mean);
    }

    #[test]
    fn interleaved_games_are_reproducible_and_unbiased() {
        // A walk 0 → 1 → … → 9 with a restart to 0 (probability 1/4) from every state: the mean
        // time to 9 is 4·((4/3)⁹ − 1) = 49.27... (first-step analysis: t_i = 1 + ¾t_{i+1} + ¼t_0).
        let step = |rng: &mut SimRng, s: StateId| {
            if rng.random_range(0..4u32) == 0 { 0 } else { s + 1 }
        };
        let exact = 4.0 * ((4.0f64 / 3.0).powi(9) - 1.0);
        let opts = MonteCarloOptions {
            games: 2_001,
            seed: 3,
            max_steps: 100_000,
        };
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| absorption_times_interleaved(&opts, None, 0, 9, step).unwrap())
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one.games, 2_001);
        assert!(one.z_score(exact).abs() < 4.0, "{one:?} vs {exact}");
        assert_eq!(one.min, 9);
        // Starting on the target: every game has length 0.
        let zero = absorption_times_interleaved(&opts, None, 9, 9, step).unwrap();
        assert_eq!((zero.mean, zero.max, zero.z_score(0.0)), (0.0, 0, 0.0));
        let short = MonteCarloOptions { max_steps: 5, ..opts };
        let e = absorption_times_interleaved(&short, None, 0, 9, step).unwrap_err();
        assert!(matches!(e, Error::LimitReached { limit: 5, .. }));
    }

    #[test]
    fn endless_games_are_stopped() {
        let opts = MonteCarloOptions {
            games: 1_000_000,
            seed: 1,
            max_steps: 100,
        };
        let e = absorption_times(&opts, None, |_, _| None).unwrap_err();
        assert!(matches!(e, Error::LimitReached { limit: 100, .. }));
    }
}
