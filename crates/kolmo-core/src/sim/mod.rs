//! Seeded, parallel Monte Carlo estimation of absorption times.
//!
//! Games are split into fixed chunks of [`CHUNK`] games. Chunk `k` draws from its own
//! Xoshiro256++ stream: the generator seeded from the user's seed and advanced by `k · 2¹⁹²`
//! steps (`k` long jumps, one after the other before the games start: a jump by an arbitrary
//! multiple costs a polynomial product each), and games played several at a time take lanes of
//! it `2¹²⁸` steps apart (ordinary jumps), so streams never overlap (Blackman & Vigna, "Scrambled
//! linear pseudorandom number generators", ACM TOMS 47(4), 2021). Chunks run in parallel on rayon and their integer
//! sums are combined, so the result for a given seed is **the same whatever the thread count**.

mod chain;

pub use chain::ChainSampler;

use crate::interrupt;
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
/// `options.max_steps` (the remaining chunks are abandoned); [`Error::Interrupted`] if a stop is
/// requested ([`crate::interrupt`], checked before each chunk).
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
/// generator advanced by `k · 2¹⁹²` steps and its number of games, and returns their sums, or
/// `None` when a game reached the step limit (which stops the other chunks and is reported as
/// [`Error::LimitReached`]). A stop request ([`crate::interrupt`]) skips the chunks not yet
/// started and returns [`Error::Interrupted`].
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
    let mut next = SimRng::seed_from_u64(options.seed);
    let chunks = options.games.div_ceil(chunk);
    let mut starts: Vec<SimRng> = Vec::with_capacity(usize::try_from(chunks).unwrap_or(0));
    for k in 0..chunks {
        // A long jump is some thousand operations: 10⁹ games are 6·10⁴ of them.
        if k % 4096 == 0 {
            interrupt::check()?;
        }
        starts.push(next.clone());
        next.long_jump();
    }
    let sums = starts
        .into_par_iter()
        .enumerate()
        .map(|(k, rng)| {
            let k = k as u64;
            if stop.load(Ordering::Relaxed) || interrupt::requested() {
                return Sums::default();
            }
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
    // A stop request empties the chunks not yet started: their sums are not a result.
    interrupt::check()?;
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
/// parallel. Chunk `k` starts from the seeded generator advanced by `k · 2¹⁹²` steps and its lane
/// `l` from there by `l · 2¹²⁸`; a lane plays the chunk's next game whenever its game ends. The
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
        let mut lanes: Vec<(SimRng, StateId, u64)> = lanes_of(rng, LANES.min(games as usize))
            .map(|r| (r, start, 0))
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

/// Games in flight at once in each chunk of [`absorption_times_uniform`]: four vector registers of
/// eight, so that four gathers of the table are in flight while each waits for memory.
pub const UNIFORM_LANES: usize = 32;
const _: () = assert!(UNIFORM_LANES % 8 == 0 && UNIFORM_LANES <= 32);

/// Uniform rolls of a die of `faces` faces drawn in batches: one 64-bit word gives `k` rolls, the
/// base-`faces` digits of an integer uniform on `[0, faces^k)` (`faces^k < 2³²`, `k` as large as
/// that allows), obtained from the word by Lemire's multiply-and-reject method (D. Lemire, "Fast
/// random integer generation in an interval", ACM TOMACS 29(1), 2019) — exactly uniform; a word
/// is rejected with probability below `faces^k / 2⁶⁴` (about 10⁻¹⁰ for six faces). The digits
/// are split off by multiplications instead of divisions (Lemire, Kaser & Kurz, "Faster
/// remainder by direct computation", Software: Practice and Experience 49(6), 2019).
#[derive(Clone, Copy, Debug)]
struct BatchedDie {
    faces: u32,
    /// Rolls per word.
    k: u32,
    /// `faces^k`.
    range: u64,
    /// `2⁶⁴ mod range`: low products below it are rejected.
    threshold: u64,
    /// `⌈2⁶⁴ / faces⌉`, the multiplier of the division and remainder by `faces`.
    magic: u64,
}

impl BatchedDie {
    /// # Panics
    /// - panics if `faces` is below 2.
    fn new(faces: u32) -> Self {
        assert!(faces >= 2, "a die of {faces} faces needs no randomness");
        let (mut k, mut range) = (0u32, 1u64);
        while range * u64::from(faces) < 1 << 32 {
            range *= u64::from(faces);
            k += 1;
        }
        Self {
            faces,
            k,
            range,
            threshold: range.wrapping_neg() % range,
            magic: u64::MAX / u64::from(faces) + 1,
        }
    }

    /// An integer uniform on `[0, range)`, whose `k` base-`faces` digits are the rolls.
    #[inline]
    fn word(&self, rng: &mut SimRng) -> u32 {
        use rand::Rng;
        loop {
            let m = u128::from(rng.next_u64()) * u128::from(self.range);
            if (m as u64) >= self.threshold {
                return (m >> 64) as u32;
            }
        }
    }

    /// `(word / faces, word mod faces)`: the word without its last digit, and that digit.
    #[inline]
    fn split(&self, word: u32) -> (u32, u32) {
        let low = self.magic.wrapping_mul(u64::from(word));
        let q = ((u128::from(self.magic) * u128::from(word)) >> 64) as u32;
        let d = ((u128::from(low) * u128::from(self.faces)) >> 64) as u32;
        (q, d)
    }
}

/// As [`absorption_times_interleaved`] for a chain whose step is a roll of a fair die of `faces`
/// faces: from state `s`, face `d` (from 0) leads to `table[s · faces + d]`. [`UNIFORM_LANES`]
/// games are in flight per chunk of `chunk` games, each lane with its own stream (chunk `k` from
/// the seeded generator advanced by `k · 2¹⁹²` steps, lane `l` by a further `l · 2¹²⁸`), in
/// lockstep: every lane draws one batch of rolls at the same step (twelve exact rolls of a six-sided
/// die per 64-bit word: Lemire's multiply-and-reject over 6¹², then its base-6 digits), then each takes one step in turn, so that the lanes' table
/// reads overlap and no branch depends on when a lane's batch runs out. A lane whose game ends
/// starts the chunk's next game with the rolls it has left. The result for a seed is the same
/// whatever the thread count (and differs from the other functions', which draw otherwise).
///
/// # Errors
/// As [`absorption_times`]; [`Error::InvalidArgument`] if the start or an entry of `table` is a
/// state beyond the table's rows.
///
/// # Panics
/// - panics if `faces` is 0 or `table` is shorter than `faces` times a state reached.
///
/// # Complexity
/// O(games · steps per game) / threads; memory O([`UNIFORM_LANES`]) per thread.
pub fn absorption_times_uniform(
    options: &MonteCarloOptions,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    chunk: u64,
    start: StateId,
    target: StateId,
    faces: u32,
    table: &[StateId],
) -> Result<MonteCarlo> {
    assert!(faces >= 1, "a die has at least one face");
    if faces == 1 {
        // One face: every game is the same walk.
        return absorption_times(options, progress, |_, max| {
            let mut s = start;
            for t in 0..=max {
                if s == target {
                    return Some(t);
                }
                s = table[s as usize];
            }
            None
        });
    }
    let rows = table.len() / faces as usize;
    assert!(
        u32::try_from(table.len()).is_ok() && table.len() == rows * faces as usize,
        "a table of {} entries for {faces} faces",
        table.len()
    );
    if let Some(bad) = std::iter::once(&start)
        .chain(table)
        .find(|&&s| s as usize >= rows)
    {
        return Err(Error::arg(
            "table",
            format!("state {bad} beyond the table's {rows} rows"),
        ));
    }
    // The common die with its divisions by a constant; any other through `BatchedDie::split`.
    let game = Lockstep {
        chunk,
        start,
        target,
        faces,
        table,
    };
    match faces {
        6 => lockstep::<6>(options, progress, &game, six::available()),
        _ => lockstep::<0>(options, progress, &game, false),
    }
}

/// What [`lockstep`] plays: games of `chunk` per chunk from `start` to `target` on `table`, a die
/// of `faces` faces.
struct Lockstep<'a> {
    chunk: u64,
    start: StateId,
    target: StateId,
    faces: u32,
    table: &'a [StateId],
}

/// [`absorption_times_uniform`] on a validated table (every state below its rows, so that every
/// index `state · faces + roll` is below its length, which fits in 32 bits: the index arithmetic
/// cannot overflow). `F` is `faces` when known at compile time, else 0; `simd`: whether the six
/// faces' steps may run in vector instructions ([`six`]; the same games either way).
fn lockstep<const F: u32>(
    options: &MonteCarloOptions,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    game: &Lockstep<'_>,
    simd: bool,
) -> Result<MonteCarlo> {
    let Lockstep {
        chunk,
        start,
        target,
        faces,
        table,
    } = *game;
    let die = BatchedDie::new(faces);
    let simd6 = F == 6 && simd && six::available() && i32::try_from(table.len()).is_ok();
    in_chunks(options, chunk, progress, |rng, games| {
        let mut lanes = lanes_of(rng, UNIFORM_LANES);
        let mut rngs: [SimRng; UNIFORM_LANES] =
            std::array::from_fn(|_| lanes.next().expect("one generator per lane"));
        let mut f = Flight::new(games, start, target, options.max_steps);
        let mut words = [0u32; UNIFORM_LANES];
        while f.live > 0 {
            for (w, r) in words.iter_mut().zip(&mut rngs) {
                *w = die.word(r);
            }
            let width = if F == 0 { faces } else { F };
            let mut index = [0u32; UNIFORM_LANES];
            if F == 6 && simd6 {
                // SAFETY: AVX2 is present (checked above), and every state in `f.state` is a row
                // of the table (validated by the caller: the start and the table's entries), so
                // every index read is below its length, which fits in an i32.
                if !unsafe { six::steps(&mut words, &mut f, table, die.k) } || f.overdue() {
                    return None;
                }
                continue;
            }
            for _ in 0..die.k {
                f.clock += 1;
                // The rolls and the table's indices for all lanes at once (vectorisable), then
                // the reads, then one test for the target across the lanes.
                for ((word, i), &s) in words.iter_mut().zip(&mut index).zip(&f.state) {
                    // F known: divisions by a constant; F = 0: the batched split.
                    let (q, d) = match (word.checked_div(F), word.checked_rem(F)) {
                        (Some(q), Some(d)) => (q, d),
                        _ => die.split(*word),
                    };
                    *word = q;
                    *i = s.wrapping_mul(width).wrapping_add(d);
                }
                for (s, &i) in f.state.iter_mut().zip(&index) {
                    *s = table[i as usize];
                }
                if f.state.iter().fold(false, |any, &s| any | (s == target)) {
                    for l in 0..UNIFORM_LANES {
                        if f.state[l] == target && !f.settle(l) {
                            return None;
                        }
                    }
                }
            }
            // A game still running beyond the limit (one that ended beyond it was caught above).
            if f.overdue() {
                return None;
            }
        }
        Some(f.sums)
    })
}

/// One lockstep step of all [`UNIFORM_LANES`] lanes for a six-sided die in AVX2 vector
/// instructions (eight lanes per register, the table read by a gather): the same arithmetic as the
/// scalar loop of [`lockstep`], so the same games. Only on x86-64 with AVX2, detected at run time.
mod six {
    use super::UNIFORM_LANES;
    use crate::StateId;

    /// Whether [`step`] may run here.
    pub(super) fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// `k` lockstep steps of every lane of `flight` (its clock advanced by `k`), each rolling the
    /// last base-6 digit of its word in `words`; lanes reaching the target are settled in lane
    /// order after each step, as the scalar loop does. `false` if a game ended beyond the step
    /// limit.
    ///
    /// # Safety
    /// As [`step`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn steps(
        words: &mut [u32; UNIFORM_LANES],
        flight: &mut super::Flight,
        table: &[StateId],
        k: u32,
    ) -> bool {
        for _ in 0..k {
            flight.clock += 1;
            // SAFETY: the caller's contract.
            let mut hits = unsafe { step(words, &mut flight.state, table, flight.target) };
            while hits != 0 {
                let l = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                if !flight.settle(l) {
                    return false;
                }
            }
        }
        true
    }

    /// Never called: [`available`] is false off x86-64.
    ///
    /// # Safety
    /// None needed; it panics.
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) unsafe fn steps(
        _: &mut [u32; UNIFORM_LANES],
        _: &mut super::Flight,
        _: &[StateId],
        _: u32,
    ) -> bool {
        unreachable!("no vector step off x86-64")
    }

    /// Every lane rolls the last base-6 digit of its word (the word keeps the rest) and moves to
    /// `table[state · 6 + roll]`; returns the lanes now on `target` as a bit mask.
    ///
    /// # Safety
    /// AVX2 must be available ([`available`]), and `table[state · 6 + 5]` must exist for every
    /// state given, with the table's length below 2³¹ (the gather reads without bounds checks).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn step(
        words: &mut [u32; UNIFORM_LANES],
        state: &mut [StateId; UNIFORM_LANES],
        table: &[StateId],
        target: StateId,
    ) -> u32 {
        use std::arch::x86_64::{
            __m256i, _mm256_add_epi32, _mm256_blend_epi32, _mm256_castsi256_ps, _mm256_cmpeq_epi32,
            _mm256_i32gather_epi32, _mm256_loadu_si256, _mm256_movemask_ps, _mm256_mul_epu32,
            _mm256_set1_epi32, _mm256_set1_epi64x, _mm256_slli_epi32, _mm256_slli_epi64, _mm256_srli_epi64,
            _mm256_storeu_si256, _mm256_sub_epi32,
        };
        // ⌊w / 6⌋ = (w · 0xAAAAAAAB) >> 34 for every 32-bit w (the compilers' constant).
        let magic = _mm256_set1_epi64x(0xAAAA_AAAB);
        let goal = _mm256_set1_epi32(target as i32);
        let times6 = |x: __m256i| {
            let twice = _mm256_slli_epi32(x, 1);
            _mm256_add_epi32(_mm256_slli_epi32(x, 2), twice)
        };
        let mut hits = 0u32;
        for half in 0..UNIFORM_LANES / 8 {
            // SAFETY: lanes 8·half .. 8·half + 8 of the arrays of UNIFORM_LANES entries (a multiple of 8, at most 32: the mask is a u32).
            let (w_ptr, s_ptr) = unsafe {
                (
                    words.as_mut_ptr().add(8 * half).cast::<__m256i>(),
                    state.as_mut_ptr().add(8 * half).cast::<__m256i>(),
                )
            };
            // SAFETY: unaligned loads of 32 bytes inside the arrays (above).
            let (w, s) = unsafe { (_mm256_loadu_si256(w_ptr), _mm256_loadu_si256(s_ptr)) };
            let even = _mm256_srli_epi64(_mm256_mul_epu32(w, magic), 34);
            let odd = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(w, 32), magic), 34);
            let q = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0b1010_1010);
            let roll = _mm256_sub_epi32(w, times6(q));
            let index = _mm256_add_epi32(times6(s), roll);
            // SAFETY: every index is below the table's length (the caller's contract).
            let next = unsafe { _mm256_i32gather_epi32::<4>(table.as_ptr().cast::<i32>(), index) };
            // SAFETY: stores inside the arrays (above).
            unsafe {
                _mm256_storeu_si256(w_ptr, q);
                _mm256_storeu_si256(s_ptr, next);
            }
            let on = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(next, goal)));
            hits |= (on as u32) << (8 * half);
        }
        hits
    }
}

/// The games in flight of one chunk of [`absorption_times_uniform`]: each lane's state and the
/// step its game began at, whether it still plays a game that counts, and the sums of the games
/// done. A lane with no game left to count plays on from the start uncounted (no branch on it in
/// the step loop) until every lane is done.
struct Flight {
    state: [StateId; UNIFORM_LANES],
    /// The clock when each lane's game began.
    began: [u64; UNIFORM_LANES],
    active: [bool; UNIFORM_LANES],
    /// Steps taken by every lane so far.
    clock: u64,
    /// Lanes still playing.
    live: usize,
    /// Games started, of `games`.
    started: u64,
    games: u64,
    start: StateId,
    target: StateId,
    max_steps: u64,
    sums: Sums,
}

impl Flight {
    /// `games` games from `start`, the first [`UNIFORM_LANES`] of them started (those that start
    /// on the target already counted).
    fn new(games: u64, start: StateId, target: StateId, max_steps: u64) -> Self {
        let mut f = Self {
            state: [start; UNIFORM_LANES],
            began: [0; UNIFORM_LANES],
            active: [false; UNIFORM_LANES],
            clock: 0,
            live: 0,
            started: 0,
            games,
            start,
            target,
            max_steps,
            sums: Sums::empty(),
        };
        for l in 0..UNIFORM_LANES {
            if f.started < games {
                f.active[l] = true;
                f.started += 1;
                f.live += 1;
                if start == target {
                    f.settle(l);
                }
            }
        }
        f
    }

    /// Lane `l` on the target: its game is counted and the lane starts the next game, or stops
    /// when every game has started (a game that starts on the target has length 0). `false` if
    /// the game took more than the step limit.
    fn settle(&mut self, l: usize) -> bool {
        if self.start == self.target {
            // Every game has length 0: this lane's, and all those not started yet.
            if self.active[l] {
                self.sums.record(0);
                self.active[l] = false;
                self.live -= 1;
            }
            while self.started < self.games {
                self.sums.record(0);
                self.started += 1;
            }
            return true;
        }
        if !self.active[l] {
            (self.state[l], self.began[l]) = (self.start, self.clock);
            return true;
        }
        let steps = self.clock - self.began[l];
        if steps > self.max_steps {
            return false;
        }
        self.sums.record(steps);
        if self.started < self.games {
            self.started += 1;
        } else {
            self.active[l] = false;
            self.live -= 1;
        }
        (self.state[l], self.began[l]) = (self.start, self.clock);
        true
    }

    /// Whether a game still playing has taken more steps than the limit.
    fn overdue(&self) -> bool {
        (0..UNIFORM_LANES).any(|l| self.active[l] && self.clock - self.began[l] > self.max_steps)
    }
}

/// `count` generators for the lanes of a chunk whose stream starts at `rng`: lane `l` from there
/// advanced by `l · 2¹²⁸` steps (`l` ordinary jumps).
fn lanes_of(rng: SimRng, count: usize) -> impl Iterator<Item = SimRng> {
    let mut next = rng;
    (0..count).map(move |_| {
        let lane = next.clone();
        next.jump();
        lane
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

    /// `f` run on a pool of `threads` threads.
    fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

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
        let run = |threads| on_threads(threads, || absorption_times(&opts, None, geometric).unwrap());
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
            on_threads(threads, || {
                absorption_times_interleaved(&opts, None, 0, 9, step).unwrap()
            })
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

    /// A walk on 0..=12 with a six-sided die: faces 0–3 step forward (12 stays), 4 stays, 5 goes
    /// back to 0. The table of [`absorption_times_uniform`] and the exact mean time to 12 by
    /// first-step analysis (t_12 = 0, t_i = 1 + (4 t_{i+1} + t_i + t_0)/6, solved backwards for
    /// t_i = a_i + b_i t_0).
    fn walk_table() -> (Vec<StateId>, f64) {
        let n = 13u32;
        let table: Vec<StateId> = (0..n)
            .flat_map(|s| {
                let up = (s + 1).min(n - 1);
                if s == n - 1 {
                    [s; 6]
                } else {
                    [up, up, up, up, s, 0]
                }
            })
            .collect();
        // 5 t_i = 6 + 4 t_{i+1} + t_0 with t_i = a_i + b_i t_0.
        let (mut a, mut b) = (0.0f64, 0.0f64);
        for _ in 0..12 {
            (a, b) = ((6.0 + 4.0 * a) / 5.0, (4.0 * b + 1.0) / 5.0);
        }
        (table, a / (1.0 - b))
    }

    /// The six-face lockstep: the vector step, the scalar step with divisions by the constant and
    /// the general batched split play the same games (identical sums, every game count and
    /// chunk tail); the result does not depend on the thread count and agrees with the exact
    /// mean; games starting on the target have length 0; the step limit stops the run.
    #[test]
    fn lockstep_games_agree_across_paths_threads_and_the_exact_mean() {
        let (table, exact) = walk_table();
        for games in [2u64, 31, 33, 1_000, 40_001] {
            let opts = MonteCarloOptions {
                games,
                seed: 5,
                max_steps: 1_000_000,
            };
            let game = Lockstep {
                chunk: 1_024,
                start: 0,
                target: 12,
                faces: 6,
                table: &table,
            };
            let simd = lockstep::<6>(&opts, None, &game, true).unwrap();
            assert_eq!(simd, lockstep::<6>(&opts, None, &game, false).unwrap(), "{games}");
            assert_eq!(simd, lockstep::<0>(&opts, None, &game, false).unwrap(), "{games}");
            assert_eq!(simd.games, games);
            if games >= 1_000 {
                assert!(simd.z_score(exact).abs() < 4.0, "{simd:?} vs {exact}");
                assert!(simd.min >= 12);
            }
        }
        let opts = MonteCarloOptions {
            games: 50_000,
            seed: 9,
            max_steps: 1_000_000,
        };
        let run = |threads| {
            on_threads(threads, || {
                absorption_times_uniform(&opts, None, CHUNK, 0, 12, 6, &table).unwrap()
            })
        };
        assert_eq!(run(1), run(2));
        assert_eq!(run(1), run(3));
        let zero = absorption_times_uniform(&opts, None, 64, 12, 12, 6, &table).unwrap();
        assert_eq!((zero.games, zero.mean, zero.max), (50_000, 0.0, 0));
        let short = MonteCarloOptions {
            max_steps: 15,
            ..opts
        };
        let e = absorption_times_uniform(&short, None, 64, 0, 12, 6, &table).unwrap_err();
        assert!(matches!(e, Error::LimitReached { limit: 15, .. }));
        // A table naming a state it has no row for is refused, not read out of bounds.
        let mut bad = table.clone();
        bad[7] = 13;
        assert!(absorption_times_uniform(&opts, None, 64, 0, 12, 6, &bad).is_err());
    }

    /// Batched rolls of other dice are uniform: each face of a 5- and a 7-sided die about equally
    /// often over 700,000 rolls (within 5 standard deviations), and a word is below faces^k.
    #[test]
    fn batched_rolls_are_uniform() {
        for faces in [2u32, 5, 7, 20] {
            let die = BatchedDie::new(faces);
            assert!(die.range < 1 << 32 && die.range * u64::from(faces) >= 1 << 32);
            let mut rng = SimRng::seed_from_u64(1);
            let mut counts = vec![0u64; faces as usize];
            let words = 700_000 / u64::from(die.k);
            for _ in 0..words {
                let mut w = die.word(&mut rng);
                assert!(u64::from(w) < die.range);
                for _ in 0..die.k {
                    let (q, d) = die.split(w);
                    assert_eq!((q, d), (w / faces, w % faces));
                    counts[d as usize] += 1;
                    w = q;
                }
                assert_eq!(w, 0);
            }
            let n = (words * u64::from(die.k)) as f64;
            let p = 1.0 / f64::from(faces);
            let sd = (n * p * (1.0 - p)).sqrt();
            for c in counts {
                assert!((c as f64 - n * p).abs() < 5.0 * sd, "{faces}: {c} vs {}", n * p);
            }
        }
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
