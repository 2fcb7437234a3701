//! The `kolmo` command line as a library: every command's flags, orchestration and formatting;
//! the binary (`src/main.rs`) only calls [`run`]. (A library, so that a build compiles it while
//! it compiles the `kolmo` crate's code, not after.)
mod analyze;
mod cards;
mod check;
mod cli;
mod judge;
mod output;
mod plot;
mod snakes;
mod solve;

use clap::{CommandFactory, Parser};
use std::io::Write;
use std::process::ExitCode;

pub use judge::answer as judge_answer;

/// Parses the command line `args` (the program's name first) as [`run`] does, without running
/// the command or reading a file: clap's flags and values, then the values kolmo parses itself
/// (`snakes --quantiles`, `--cells` and a built-in board with the flags that change it applied,
/// `solve --objective`, `cards --alice`/`--bob`). For tests and the fuzz targets (`fuzz/`).
///
/// # Errors
/// The error [`run`] would report for a bad flag or value (clap's, or kolmo's own).
pub fn check_args<I, T>(args: I) -> anyhow::Result<()>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = cli::Cli::try_parse_from(args)?;
    match &cli.command {
        cli::Command::Snakes(args) => snakes::check_args(args),
        cli::Command::Solve(args) => solve::check_args(args),
        cli::Command::Cards(args) => {
            kolmo::games::rps_cards::Hand::parse(&args.alice)?;
            kolmo::games::rps_cards::Hand::parse(&args.bob)?;
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Runs the `kolmo` command line on the process's arguments: parses them, runs the command and
/// prints its report, or an error (two lines, "error:" and "help:") with exit code 2 for what
/// the user can fix and 1 for what kolmo could not compute or certify.
pub fn run() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version are "errors" to clap that print to stdout and exit 0.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let (what, fix) = usage_error(&e);
            eprintln!("{} {what}", output::error_prefix());
            eprintln!("{} {fix}", output::help_prefix());
            return ExitCode::from(2);
        }
    };
    output::configure(cli.quiet, cli.color);
    if let Some(t) = cli.threads {
        if !(1..=1024).contains(&t) {
            eprintln!("{} --threads {t}: from 1 to 1024", output::error_prefix());
            eprintln!(
                "{} give a number of threads from 1 to 1024, or leave --threads out for one per core",
                output::help_prefix()
            );
            return ExitCode::from(2);
        }
        // Only fails if a pool already exists, which cannot happen this early.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(t).build_global();
    }
    let name = command_name(&cli.command);
    let result = match cli.command {
        cli::Command::Completions { shell } => completions(shell),
        cli::Command::Man => man_page(),
        cli::Command::Snakes(args) => snakes::run(&args),
        cli::Command::Judge(args) => run_judge(&args),
        cli::Command::Cards(args) => cards::run(&args),
        cli::Command::Analyze(args) => analyze::run(&args),
        cli::Command::Solve(args) => solve::run(&args),
        cli::Command::Check(args) => check::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("{} {e:#}", output::error_prefix());
            eprintln!("{} {}", output::help_prefix(), fix(&e, name));
            ExitCode::from(exit_code(&e))
        }
    }
}

/// A usage error from clap as kolmo's two lines: what is wrong (clap's message, its lines joined),
/// then how to fix it (clap's tips and the usage, or where the flags are described).
fn usage_error(e: &clap::Error) -> (String, String) {
    use clap::error::ErrorKind;
    let command = cli::Cli::command();
    // The subcommand the user was typing, for the pointer to its --help.
    let sub = std::env::args()
        .skip(1)
        .find(|a| command.get_subcommands().any(|s| s.get_name() == a));
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    ) {
        // clap would print the whole help as the error: name what is missing instead.
        let (path, inner) = match &sub {
            Some(s) => (
                format!("kolmo {s}"),
                command.find_subcommand(s).unwrap_or(&command),
            ),
            None => ("kolmo".to_owned(), &command),
        };
        let names: Vec<&str> = inner.get_subcommands().map(|c| c.get_name()).collect();
        let example = if sub.is_none() {
            "`kolmo snakes` analyses the built-in board; "
        } else {
            ""
        };
        return (
            match &sub {
                Some(s) => format!("{s}: no command given (one of: {})", names.join(", ")),
                None => format!("no command given (one of: {})", names.join(", ")),
            },
            format!("{example}`{path} --help` describes each"),
        );
    }
    let text = e.render().to_string();
    let mut paragraphs = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
    let join = |p: &str| p.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let what = paragraphs
        .next()
        .map_or_else(String::new, |p| join(p.strip_prefix("error: ").unwrap_or(p)));
    let mut tips = Vec::new();
    if e.kind() == clap::error::ErrorKind::ArgumentConflict {
        tips.push("give only one of the two".to_string());
    }
    let mut usage = None;
    for p in paragraphs {
        if let Some(u) = p.strip_prefix("Usage: ") {
            usage = Some(join(u));
        } else if let Some(t) = p.strip_prefix("tip: ") {
            // clap's "to pass '--flag' as a value, use '-- --flag'" misleads about an unknown
            // flag (no kolmo argument is a value starting with a dash): keep its other tips.
            if !t.starts_with("to pass '") {
                tips.push(join(t));
            }
        }
    }
    let help = match sub {
        Some(s) => format!("kolmo {s} --help"),
        None => "kolmo --help".into(),
    };
    let mut fix = tips.join("; ");
    if let Some(u) = usage {
        if !fix.is_empty() {
            fix.push_str("; ");
        }
        fix.push_str(&format!("usage: {u}"));
    }
    if fix.is_empty() {
        fix = format!("{help} describes the flags and their values");
    } else {
        fix.push_str(&format!(" ({help} for more)"));
    }
    (what, fix)
}

fn command_name(c: &cli::Command) -> &'static str {
    match c {
        cli::Command::Snakes(_) => "snakes",
        cli::Command::Judge(_) => "judge",
        cli::Command::Cards(_) => "cards",
        cli::Command::Analyze(_) => "analyze",
        cli::Command::Solve(_) => "solve",
        cli::Command::Check(_) => "check",
        cli::Command::Completions { .. } => "completions",
        cli::Command::Man => "man",
    }
}

/// The second line of an error report: how to fix it.
fn fix(e: &anyhow::Error, command: &str) -> String {
    use kolmo::Error as E;
    use kolmo::games::InputError as G;
    if e.downcast_ref::<NoProblem>().is_some() {
        let first = judge::PROBLEMS.first().map_or("PROBLEM", |p| p.0);
        return format!(
            "kolmo judge --list describes the problems; kolmo judge {first} < input.txt solves one"
        );
    }
    match e.downcast_ref::<E>() {
        Some(E::Io { .. }) => "check the path and that the file is readable".into(),
        Some(E::Write { .. }) => "check that the directory exists and is writable".into(),
        Some(E::Parse { .. } | E::InvalidDistribution { .. } | E::Deadlock { .. }) => {
            format!("correct the file at the place named (formats: kolmo {command} --help)")
        }
        Some(e @ E::FrontEnd(_)) => match G::of(e) {
            Some(G::Board { .. }) => {
                "correct the board at the place named (format: kolmo snakes --help)".into()
            }
            Some(G::LadderSquare { .. }) => {
                format!("correct that square of the input (format: kolmo {command} --help)")
            }
            _ if command == "judge" => {
                "correct the input at the place named (format: kolmo judge PROBLEM --help)".into()
            }
            _ => format!("see kolmo {command} --help"),
        },
        // Only what the command has: `analyze` and `snakes` choose the solver, and every command
        // but `judge` can answer in exact rationals.
        Some(E::Singular { .. } | E::Uncertified { .. }) => match command {
            "analyze" | "snakes" => "try another --method, or --exact on a small model".into(),
            "judge" => "the input is beyond what floating point can certify".into(),
            "check" => "the model is beyond what floating point can certify here".into(),
            _ => format!("try --exact on a small model (kolmo {command} --help)"),
        },
        Some(E::Undecided { .. }) => {
            "ask for the value itself (P=? instead of P>=p) and compare it with its certified bound".into()
        }
        Some(E::Overflow { .. }) => "the number exists but floating point cannot hold it".into(),
        Some(E::TooManyStates { .. }) if command == "check" => {
            "raise --max-states if the memory allows, or give smaller constants".into()
        }
        Some(E::LimitReached { .. } | E::TooLarge { .. } | E::TooManyStates { .. }) => {
            "raise the limit named above, or ask for less (a smaller model or fewer steps)".into()
        }
        Some(E::NotAlmostSure { .. }) => {
            "the states named cannot finish: change the model or the target".into()
        }
        Some(E::Interrupted) => "run the command again to compute the result".into(),
        _ if command == "judge" => {
            "correct the input at the place named (format: kolmo judge PROBLEM --help)".into()
        }
        _ => format!("see kolmo {command} --help"),
    }
}

/// `kolmo completions SHELL`: the completion script, generated from the same clap definitions.
fn completions(shell: cli::Shell) -> anyhow::Result<()> {
    use clap_complete::Shell as S;
    let shell = match shell {
        cli::Shell::Bash => S::Bash,
        cli::Shell::Zsh => S::Zsh,
        cli::Shell::Fish => S::Fish,
        cli::Shell::Powershell => S::PowerShell,
        cli::Shell::Elvish => S::Elvish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cli::Cli::command(), "kolmo", &mut out);
    std::io::stdout().write_all(&out)?;
    Ok(())
}

/// `kolmo man`: the man page (roff): kolmo's own sections, then one section per command with
/// its synopsis, description and options.
fn man_page() -> anyhow::Result<()> {
    let mut command = cli::Cli::command();
    command.build();
    let mut out = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut out)?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("kolmo {}", sub.get_name());
        let man = clap_mangen::Man::new(sub.clone().bin_name(name.clone()));
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        man.render_options_section(&mut part)?;
        if sub.get_after_long_help().is_some() {
            man.render_extra_section(&mut part)?;
        }
        // The command's sections become subsections of one section named after it.
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        for line in String::from_utf8(part)?.lines() {
            match line.strip_prefix(".SH ") {
                Some(heading) => writeln!(out, ".SS {heading}")?,
                None => writeln!(out, "{line}")?,
            }
        }
    }
    std::io::stdout().write_all(&out)?;
    Ok(())
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
        None => Err(NoProblem.into()),
    }
}

/// `kolmo judge` without a problem: a usage error with its own advice.
#[derive(Debug)]
struct NoProblem;

impl std::fmt::Display for NoProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "name a problem: kolmo judge PROBLEM, one of {}",
            judge::problem_names()
        )
    }
}

impl std::error::Error for NoProblem {}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// 1 for numerical failures kolmo could not certify or finish; 2 for everything the user can fix
/// in the input or the flags; 130 (the shell's 128 + SIGINT) for a computation stopped by a stop
/// request ([`kolmo::interrupt`]).
fn exit_code(e: &anyhow::Error) -> u8 {
    match e.downcast_ref::<kolmo::Error>() {
        Some(kolmo::Error::Interrupted) => 130,
        Some(kolmo::Error::Singular { .. })
        | Some(kolmo::Error::LimitReached { .. })
        | Some(kolmo::Error::Uncertified { .. })
        | Some(kolmo::Error::Overflow { .. })
        | Some(kolmo::Error::Undecided { .. }) => 1,
        _ => 2,
    }
}
