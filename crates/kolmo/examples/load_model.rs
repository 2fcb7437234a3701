//! Reads a model file with [`kolmo::io::read_model`] and prints how long it took, with the model's
//! size: the figure the readers' speed is judged by.
//!
//! ```text
//! cargo run --release -p kolmo --example load_model -- FILE [--normalize] [--repeat K] [--write OUT]
//! ```
//!
//! Prints one line per read: `FILE: KIND, n states, m choices, nnz transitions, read in S s`.
//! With `--write OUT`, then writes the model to `OUT` (in the format of its extension) and prints
//! how long that took. Exits 2 on a bad argument or a file that does not read or write.

use kolmo::io::{Format, Model, ReadOptions, read_model, write_model};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let mut path: Option<PathBuf> = None;
    let mut options = ReadOptions::default();
    let mut repeat = 1usize;
    let mut write: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--normalize" => options.normalize = true,
            "--write" => match args.next() {
                Some(out) => write = Some(PathBuf::from(out)),
                None => {
                    eprintln!("load_model: --write takes a file name");
                    return ExitCode::from(2);
                }
            },
            "--repeat" => match args.next().and_then(|k| k.parse().ok()) {
                Some(k) if k > 0 => repeat = k,
                _ => {
                    eprintln!("load_model: --repeat takes a positive count");
                    return ExitCode::from(2);
                }
            },
            _ if path.is_none() => path = Some(PathBuf::from(a)),
            _ => {
                eprintln!("load_model: unexpected argument {a:?}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(path) = path else {
        eprintln!("usage: load_model FILE [--normalize] [--repeat K] [--write OUT]");
        return ExitCode::from(2);
    };
    for _ in 0..repeat {
        let start = Instant::now();
        let file = match read_model(&path, &options) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("load_model: {e}");
                return ExitCode::from(2);
            }
        };
        let elapsed = start.elapsed().as_secs_f64();
        let (kind, n, m, nnz) = match &file.model {
            Model::Dtmc(d) => ("DTMC", d.n(), d.n(), d.matrix().nnz()),
            Model::Mdp(p) => ("MDP", p.n(), p.choices(), p.matrix().nnz()),
        };
        println!(
            "{}: {kind}, {n} states, {m} choices, {nnz} transitions, read in {elapsed:.3} s",
            path.display()
        );
        for note in &file.notes {
            println!("  note: {note}");
        }
        if let Some(out) = &write {
            let Some(format) = Format::from_path(out) else {
                eprintln!("load_model: {}: unknown extension", out.display());
                return ExitCode::from(2);
            };
            let start = Instant::now();
            if let Err(e) = write_model(&file.model, out, format) {
                eprintln!("load_model: {e}");
                return ExitCode::from(2);
            }
            println!(
                "{}: written in {:.3} s",
                out.display(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    ExitCode::SUCCESS
}
