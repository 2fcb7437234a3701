//! `kolmo`: exact answers about Markov chains from the command line.
//!
//! `main` parses the flags, runs one command, prints its report, and maps errors to exit codes:
//! 0 success, 2 bad input or usage, 1 a numerical result that could not be certified.

mod analyze;
mod cards;
mod cli;
mod judge;
mod output;
mod plot;
mod snakes;
mod solve;

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are "errors" to clap that print to stdout and exit 0.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Some(t) = cli.threads {
        if !(1..=1024).contains(&t) {
            eprintln!("kolmo: error: --threads {t}: from 1 to 1024");
            return ExitCode::from(2);
        }
        // Only fails if a pool already exists, which cannot happen this early.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(t).build_global();
    }
    let result = match cli.command {
        cli::Command::Snakes(args) => snakes::run(&args),
        cli::Command::Judge(args) => run_judge(&args),
        cli::Command::Cards(args) => cards::run(&args),
        cli::Command::Analyze(args) => analyze::run(&args),
        cli::Command::Solve(args) => solve::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("kolmo: error: {e:#}");
            ExitCode::from(exit_code(&e))
        }
    }
}

fn run_judge(args: &cli::JudgeArgs) -> anyhow::Result<()> {
    match &args.problem {
        Some(cli::Problem::Lightoj1151 { input, exact }) => judge::lightoj_1151(input.as_deref(), *exact),
        Some(cli::Problem::RpsCards { input }) => judge::rps_cards(input.as_deref()),
        Some(cli::Problem::Cf1245e { input, exact }) => judge::cf_1245e(input.as_deref(), *exact),
        None if args.list => {
            for (name, about) in judge::PROBLEMS {
                println!("{name:<16} {about}");
            }
            Ok(())
        }
        None => anyhow::bail!(
            "name a problem: kolmo judge PROBLEM (kolmo judge --list shows them: {})",
            judge::PROBLEMS.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// 1 for numerical failures kolmo could not certify or finish; 2 for everything the user can fix
/// in the input or the flags.
fn exit_code(e: &anyhow::Error) -> u8 {
    match e.downcast_ref::<kolmo::Error>() {
        Some(kolmo::Error::Singular { .. })
        | Some(kolmo::Error::LimitReached { .. })
        | Some(kolmo::Error::Uncertified { .. }) => 1,
        _ => 2,
    }
}
