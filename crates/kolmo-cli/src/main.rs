//! `kolmo`: exact answers about Markov chains from the command line.
//!
//! `main` parses the flags, runs one command, prints its report, and maps errors to exit codes:
//! 0 success, 2 bad input or usage, 1 a numerical result that could not be certified.
//!
//! An error is two lines on stderr: `kolmo: error: ` with what is wrong and where (file:line,
//! state, flag), then `help: ` with how to fix it.

fn main() -> std::process::ExitCode {
    kolmo_cli::run()
}
