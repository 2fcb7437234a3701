//! The machine's memory bandwidth, measured the way McCalpin's STREAM benchmark measures it, so that
//! the benchmarks' timings can be set against what the memory can deliver (a roofline: see
//! `bench/roofline.py`).
//!
//! STREAM: J. D. McCalpin, "Memory Bandwidth and Machine Balance in Current High Performance
//! Computers", IEEE Computer Society Technical Committee on Computer Architecture (TCCA)
//! Newsletter, December 1995. Its four kernels run here over three `f64` arrays `a`, `b`, `c` of
//! `--elements` entries each (default 2²⁵, 256 MiB an array: STREAM asks for each array to be at
//! least four times the size of the last-level caches), in STREAM's order, `--reps` times:
//!
//! | kernel | operation        | bytes counted per element |
//! |--------|------------------|---------------------------|
//! | copy   | `c[i] = a[i]`          | 16 (one read, one write)  |
//! | scale  | `b[i] = q·c[i]`        | 16                        |
//! | add    | `c[i] = a[i] + b[i]`   | 24 (two reads, one write) |
//! | triad  | `a[i] = b[i] + q·c[i]` | 24                        |
//!
//! As in STREAM, the bandwidth of a kernel is its bytes divided by its best time over the
//! repetitions other than the first, and the bytes a write-allocating cache reads before it
//! writes a line are not counted. Afterwards the arrays are checked against the same sequence of
//! operations done on one scalar, as STREAM's own validation does.
//!
//! A fifth kernel, `gather`, has the memory traffic of the sparse matrix–vector product that
//! kolmo's iterative solvers repeat: `y[i] = Σ_k vals[k]·x[cols[k]]` over the rows of a matrix in
//! compressed sparse row form with `u32` column indices, `--row-entries` entries a row (default 6,
//! the die of a Snakes and Ladders board), columns drawn pseudo-randomly within `--band` columns
//! around the diagonal (default 4096), `--elements / 4` rows. Its bytes are counted as
//! `bench/roofline.py` counts those of a product: 12 per entry (an 8-byte value and a 4-byte
//! column index) and 24 per row (an 8-byte row pointer, the row's `x` read once, its `y` written).
//!
//! Each kernel runs on one thread and on all of them (`--threads`, default `1` and the number of
//! logical processors): the arrays are cut into one chunk per thread of a rayon pool of that size.
//! Prints one JSON object per kernel and thread count on stdout, e.g.
//! `{"kernel": "triad", "threads": 2, "gb_per_s": 21.3, ...}` (GB = 10⁹ bytes; the other fields:
//! `best_s` and `mean_s`, the best and mean seconds of a pass, `bytes` moved by a pass, `elements`,
//! `reps`, and for `gather` `rows`, `nnz`, `band`), and exits with status 1 if a check fails.
//!
//! ```text
//! cargo run --release -p kolmo --example bench_stream -- [--elements N] [--reps R] [--threads T...]
//!     [--band W] [--row-entries K]
//! ```

use rayon::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// STREAM's scalar `q` of the scale and triad kernels.
const Q: f64 = 3.0;

/// What to measure, from the command line.
struct Options {
    /// Entries of each of the three STREAM arrays.
    elements: usize,
    /// Passes of every kernel; the first is not counted when there are more.
    reps: usize,
    /// Thread counts to measure with, in order.
    threads: Vec<usize>,
    /// Width of the band of columns the gather kernel draws its columns from.
    band: usize,
    /// Entries per row of the gather kernel's matrix.
    row_entries: usize,
}

/// Reads the options from the command line; an error names the offending argument.
fn parse_options() -> Result<Options, String> {
    let all = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let mut o = Options {
        elements: 1 << 25,
        reps: 10,
        threads: if all > 1 { vec![1, all] } else { vec![1] },
        band: 4096,
        row_entries: 6,
    };
    let mut args = std::env::args().skip(1).peekable();
    let number = |flag: &str, v: Option<String>| -> Result<usize, String> {
        let v = v.ok_or_else(|| format!("{flag} wants a number"))?;
        match v.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("{flag}: not a positive number: {v}")),
        }
    };
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--elements" => o.elements = number(&flag, args.next())?,
            "--reps" => o.reps = number(&flag, args.next())?,
            "--band" => o.band = number(&flag, args.next())?,
            "--row-entries" => o.row_entries = number(&flag, args.next())?,
            "--threads" => {
                o.threads.clear();
                while let Some(v) = args.next_if(|v| !v.starts_with("--")) {
                    o.threads.push(number(&flag, Some(v))?);
                }
                if o.threads.is_empty() {
                    return Err("--threads wants at least one number".into());
                }
            }
            "-h" | "--help" => {
                return Err(
                    "usage: bench_stream [--elements N] [--reps R] [--threads T...] [--band W] \
                     [--row-entries K]"
                        .into(),
                );
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    if o.elements < 1024 {
        return Err("--elements: at least 1024".into());
    }
    if o.elements / 4 > u32::MAX as usize {
        return Err("--elements: the gather kernel's columns must fit in u32".into());
    }
    Ok(o)
}

/// The timings of one kernel on one thread count.
struct Measurement {
    /// The kernel's name (`copy`, `scale`, `add`, `triad`, `gather`).
    kernel: &'static str,
    /// Threads of the pool it ran on.
    threads: usize,
    /// Bytes one pass moves, counted as STREAM counts them.
    bytes: f64,
    /// Seconds of every pass, in order.
    times: Vec<f64>,
    /// Further JSON fields (`"name": value` pairs, comma-separated), or empty.
    extra: String,
}

impl Measurement {
    /// The passes that count: all but the first when there are several (STREAM's rule: the first
    /// pass pays for page faults and cold caches).
    fn counted(&self) -> &[f64] {
        if self.times.len() > 1 {
            &self.times[1..]
        } else {
            &self.times
        }
    }

    /// The best (shortest) counted pass, in seconds.
    fn best(&self) -> f64 {
        self.counted().iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The mean of the counted passes, in seconds.
    fn mean(&self) -> f64 {
        let t = self.counted();
        t.iter().sum::<f64>() / t.len() as f64
    }

    /// One JSON object: the kernel, the threads, the bandwidth of the best pass in GB/s (10⁹ B/s)
    /// and the figures it comes from.
    fn json(&self, elements: usize, reps: usize) -> String {
        let extra = if self.extra.is_empty() {
            String::new()
        } else {
            format!(", {}", self.extra)
        };
        format!(
            r#"{{"kernel": "{}", "threads": {}, "gb_per_s": {:.3}, "best_s": {:e}, "mean_s": {:e}, "bytes": {}, "elements": {elements}, "reps": {reps}{extra}}}"#,
            self.kernel,
            self.threads,
            self.bytes / self.best() / 1e9,
            self.best(),
            self.mean(),
            self.bytes,
        )
    }
}

/// Seconds `f` takes.
fn timed(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// Length of the chunks that cut `len` elements into one chunk per thread.
fn chunk_len(len: usize, threads: usize) -> usize {
    len.div_ceil(threads).max(1)
}

/// A vector of `len` copies of `value`, each chunk written first by the thread that will work on
/// it (so that on a machine with several memory nodes its pages land near that thread).
fn filled(len: usize, value: f64, threads: usize) -> Vec<f64> {
    let mut v = vec![0.0; len];
    v.par_chunks_mut(chunk_len(len, threads))
        .for_each(|c| c.fill(value));
    v
}

/// Runs STREAM's four kernels `reps` times in STREAM's order on each thread count of `threads`
/// (one rayon pool per count), and checks the arrays at the end against the same operations on
/// scalars. Returns the measurements, or what failed.
fn stream(elements: usize, reps: usize, threads: &[usize]) -> Result<Vec<Measurement>, String> {
    let most = threads.iter().copied().max().unwrap_or(1);
    let (mut a, mut b, mut c) = (
        filled(elements, 1.0, most),
        filled(elements, 2.0, most),
        filled(elements, 0.0, most),
    );
    // The value every entry of a, b, c must have: the kernels applied to one scalar.
    let (mut sa, mut sb, mut sc) = (1.0_f64, 2.0_f64, 0.0_f64);
    let mut out = Vec::new();
    let per = elements as f64 * 8.0;
    for &t in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| e.to_string())?;
        let n = chunk_len(elements, t);
        let mut times = [(); 4].map(|()| Vec::with_capacity(reps));
        pool.install(|| {
            for _ in 0..reps {
                times[0].push(timed(|| {
                    c.par_chunks_mut(n).zip(a.par_chunks(n)).for_each(|(c, a)| {
                        for (c, a) in c.iter_mut().zip(a) {
                            *c = *a;
                        }
                    });
                }));
                times[1].push(timed(|| {
                    b.par_chunks_mut(n).zip(c.par_chunks(n)).for_each(|(b, c)| {
                        for (b, c) in b.iter_mut().zip(c) {
                            *b = Q * c;
                        }
                    });
                }));
                times[2].push(timed(|| {
                    c.par_chunks_mut(n)
                        .zip(a.par_chunks(n).zip(b.par_chunks(n)))
                        .for_each(|(c, (a, b))| {
                            for (c, (a, b)) in c.iter_mut().zip(a.iter().zip(b)) {
                                *c = a + b;
                            }
                        });
                }));
                times[3].push(timed(|| {
                    a.par_chunks_mut(n)
                        .zip(b.par_chunks(n).zip(c.par_chunks(n)))
                        .for_each(|(a, (b, c))| {
                            for (a, (b, c)) in a.iter_mut().zip(b.iter().zip(c)) {
                                *a = b + Q * c;
                            }
                        });
                }));
                sc = sa;
                sb = Q * sc;
                sc = sa + sb;
                sa = sb + Q * sc;
            }
        });
        for (kernel, times) in ["copy", "scale", "add", "triad"].into_iter().zip(times) {
            let bytes = if kernel == "copy" || kernel == "scale" {
                2.0 * per
            } else {
                3.0 * per
            };
            out.push(Measurement {
                kernel,
                threads: t,
                bytes,
                times,
                extra: String::new(),
            });
        }
    }
    // STREAM's check: every entry equals the scalar (same operations, same order: exactly, but a
    // relative 1e-13 as STREAM allows).
    for (name, v, want) in [("a", &a, sa), ("b", &b, sb), ("c", &c, sc)] {
        let bad = v
            .par_iter()
            .filter(|&&x| (x - want).abs() > 1e-13 * want.abs())
            .count();
        if bad > 0 {
            return Err(format!(
                "STREAM check failed: {bad} entries of {name} differ from {want:e}"
            ));
        }
    }
    Ok(out)
}

/// SplitMix64's output function: a well-mixed 64-bit hash of `x`, for reproducible pseudo-random
/// columns and values without a generator's state (so rows can be made in parallel).
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A sparse matrix in compressed sparse row form with `u32` columns, as kolmo stores a chain.
struct Csr {
    /// Row `i`'s entries are `row_ptr[i]..row_ptr[i + 1]`.
    row_ptr: Vec<usize>,
    /// Column of each entry, increasing within a row.
    cols: Vec<u32>,
    /// Value of each entry.
    vals: Vec<f64>,
}

/// `rows` × `rows` matrix with `per_row` entries a row whose columns are pseudo-random within
/// `band` columns centred on the diagonal (clipped to the matrix), made in parallel.
fn banded(rows: usize, per_row: usize, band: usize) -> Csr {
    let nnz = rows * per_row;
    let row_ptr: Vec<usize> = (0..=rows).into_par_iter().map(|i| i * per_row).collect();
    let mut cols = vec![0_u32; nnz];
    let mut vals = vec![0.0; nnz];
    let half = band / 2;
    cols.par_chunks_mut(per_row)
        .zip(vals.par_chunks_mut(per_row))
        .enumerate()
        .for_each(|(i, (c, v))| {
            let lo = i.saturating_sub(half);
            let hi = (i + band - half).min(rows); // exclusive
            for (k, (c, v)) in c.iter_mut().zip(v.iter_mut()).enumerate() {
                let h = mix((i * per_row + k) as u64);
                // Both casts are exact: the offset is below `band` and the column below `rows`, which
                // fits in u32 (checked by `parse_options`).
                *c = (lo + (h % (hi - lo) as u64) as usize) as u32;
                *v = ((h >> 11) as f64 / (1_u64 << 53) as f64) / per_row as f64;
            }
            c.sort_unstable();
        });
    Csr { row_ptr, cols, vals }
}

/// Row `i` of `y = A x`.
fn row_product(a: &Csr, x: &[f64], i: usize) -> f64 {
    let (lo, hi) = (a.row_ptr[i], a.row_ptr[i + 1]);
    a.vals[lo..hi]
        .iter()
        .zip(&a.cols[lo..hi])
        .map(|(v, &c)| v * x[c as usize])
        .sum()
}

/// Times `reps` products `y = A x` of a banded matrix of `rows` rows on each thread count, rows cut
/// into one chunk per thread, and checks every 997th row of the result against a product computed
/// row by row. Returns the measurements, or what failed.
fn gather(
    rows: usize,
    per_row: usize,
    band: usize,
    reps: usize,
    threads: &[usize],
) -> Result<Vec<Measurement>, String> {
    let most = threads.iter().copied().max().unwrap_or(1);
    let a = rayon::ThreadPoolBuilder::new()
        .num_threads(most)
        .build()
        .map_err(|e| e.to_string())?
        .install(|| banded(rows, per_row, band));
    let x: Vec<f64> = (0..rows).into_par_iter().map(|i| 0.5 + (i % 7) as f64).collect();
    let mut y = filled(rows, 0.0, most);
    let nnz = a.cols.len();
    let bytes = nnz as f64 * 12.0 + rows as f64 * 24.0;
    let mut out = Vec::new();
    for &t in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| e.to_string())?;
        let n = chunk_len(rows, t);
        let times = pool.install(|| {
            (0..reps)
                .map(|_| {
                    timed(|| {
                        y.par_chunks_mut(n).enumerate().for_each(|(chunk, ys)| {
                            for (r, y) in ys.iter_mut().enumerate() {
                                *y = row_product(&a, &x, chunk * n + r);
                            }
                        });
                    })
                })
                .collect()
        });
        if let Some(i) = (0..rows).step_by(997).find(|&i| y[i] != row_product(&a, &x, i)) {
            return Err(format!("gather check failed at row {i}"));
        }
        y.fill(0.0);
        let extra = format!(r#""rows": {rows}, "nnz": {nnz}, "band": {band}"#);
        out.push(Measurement {
            kernel: "gather",
            threads: t,
            bytes,
            times,
            extra,
        });
    }
    Ok(out)
}

fn main() -> ExitCode {
    let o = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench_stream: {e}");
            return ExitCode::from(2);
        }
    };
    let results = stream(o.elements, o.reps, &o.threads).and_then(|mut m| {
        m.extend(gather(o.elements / 4, o.row_entries, o.band, o.reps, &o.threads)?);
        Ok(m)
    });
    match results {
        Ok(m) => {
            // Grouped by thread count, STREAM's kernels first.
            for &t in &o.threads {
                for r in m.iter().filter(|r| r.threads == t) {
                    println!("{}", r.json(o.elements, o.reps));
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench_stream: {e}");
            ExitCode::FAILURE
        }
    }
}
