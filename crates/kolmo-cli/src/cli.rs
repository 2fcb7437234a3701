//! Command-line definitions (one definition per flag; help text generated from them).

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Exact answers about random processes (Markov chains, MDPs, stochastic games).
#[derive(Parser, Debug)]
#[command(name = "kolmo", version, propagate_version = true)]
pub struct Cli {
    /// Worker threads for parallel work such as Monte Carlo (default: one per core).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bars on stderr (they are drawn only on a terminal anyway).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Colour in the report: auto (on a terminal), always or never. `NO_COLOR` set to anything
    /// non-empty turns colour off whatever this says.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorWhen,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// `--color`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ColorWhen {
    /// Colour when standard output (or, for errors, standard error) is a terminal.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Shells for `kolmo completions`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
    /// Elvish.
    Elvish,
}

/// The tables `kolmo snakes --csv=TABLE` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SnakesTable {
    /// cell, expected_rolls, std_dev: every cell (or the --cells).
    Cells,
    /// turn, p_finish_at, p_finished_by, p_not_finished_by: the whole game-length distribution.
    Length,
    /// turn, p_finished_by: at the --turns.
    FinishedBy,
    /// kind, from, to, expected_uses: every snake and ladder.
    Portals,
    /// turn, cell, probability: where the token is after --distribution K rolls.
    Distribution,
    /// seat, win_probability (with --players).
    Players,
}

/// The tables `kolmo analyze --csv=TABLE` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AnalyzeTable {
    /// One row per state: state, long_run (fraction of time from the start), and with --target
    /// p_reach, expected_steps, variance and reward_NAME; with --steps K p_after_K.
    States,
    /// class, state, probability, mean_recurrence: each closed class's stationary distribution.
    Stationary,
}

/// The tables `kolmo solve --csv=TABLE` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SolveTable {
    /// state, value, lower, upper, action (and bias for average reward, value_exact with --exact).
    Values,
}

/// kolmo's commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Analyse a Snakes and Ladders board as an absorbing Markov chain.
    ///
    /// Expected number of rolls from every cell, its variance, the distribution of the game
    /// length, expected snake and ladder uses, a Monte Carlo cross-check and, with --players, who
    /// wins. BOARD is a built-in board (classic, empty) or a TOML board file.
    #[command(after_long_help = BOARD_HELP)]
    Snakes(Box<SnakesArgs>),
    /// The 3-card rock-paper-scissors game: Alice's optimal expected total over K rounds.
    ///
    /// Alice and Bob hold 3 visible cards each; Alice plays, Bob answers having seen her card; Alice
    /// scores 3 for a win, 1 for a draw, 0 for a loss; both redraw uniformly. Reports the value, the
    /// long-run gain ρ and bias h (V_k ≈ kρ + h), the optimal first moves and the long-run
    /// distribution of positions.
    Cards(CardsArgs),
    /// Analyse any Markov chain from a model file (Storm DRN, PRISM explicit, kolmo JSON, CSV,
    /// Matrix Market).
    ///
    /// Classes (closed/transient, periods), the stationary distribution of each closed class and
    /// mean recurrence times, where the chain ends up from the start (absorption into each closed
    /// class, the long-run distribution), mean first-passage times, the fundamental matrix, and
    /// with --target the probability of reaching it and the expected steps; with reward models the
    /// gain and bias of each closed class.
    #[command(after_long_help = ANALYZE_HELP)]
    Analyze(AnalyzeArgs),
    /// Solve a Markov decision process from a model file: optimal values, an optimal policy and a
    /// guaranteed error bound.
    #[command(after_long_help = SOLVE_HELP)]
    Solve(SolveArgs),
    /// Check properties of a model written in the PRISM language (dtmc, mdp) or read from any model
    /// file, in PRISM's property language.
    ///
    /// One result per property, in order: the value at the initial state with a certified interval
    /// [lower, upper], the method and the time; the model's size and the time of each phase.
    #[command(after_long_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Answer a judge problem: read its input as given, print its output format.
    ///
    /// `kolmo judge --list` names the problems; `kolmo judge PROBLEM --help` describes the input.
    Judge(JudgeArgs),
    /// Print a shell completion script for kolmo on standard output.
    ///
    /// bash: `kolmo completions bash > ~/.local/share/bash-completion/completions/kolmo`;
    /// zsh: `kolmo completions zsh > ~/.zfunc/_kolmo` (with ~/.zfunc on $fpath);
    /// fish: `kolmo completions fish > ~/.config/fish/completions/kolmo.fish`.
    Completions {
        /// The shell: bash, zsh, fish, powershell or elvish.
        shell: Shell,
    },
    /// Print kolmo's man page (roff) on standard output: `kolmo man > kolmo.1; man ./kolmo.1`.
    Man,
}

/// Flags of `kolmo cards`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct CardsArgs {
    /// Number of rounds K (1 to 10^18).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub rounds: i128,
    /// Alice's hand: three letters from R, P, S in any order (case-insensitive).
    #[arg(long, value_name = "HAND", default_value = "RPS")]
    pub alice: String,
    /// Bob's hand: three letters from R, P, S in any order (case-insensitive).
    #[arg(long, value_name = "HAND", default_value = "RPS")]
    pub bob: String,
    /// Also the exact fractions: the gain (policy evaluation in rationals) and, for K up to 60,
    /// the value (backward induction in rationals).
    #[arg(long)]
    pub exact: bool,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Also draw Alice's value per number of rounds and the gain line kρ + h to FILE (.svg or
    /// .png).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

const ANALYZE_HELP: &str = "\
Formats (chosen by the extension, or --format):
  .drn   Storm's explicit format (DTMC; an MDP with one action per state)
  .tra   PRISM explicit; .lab, .srew, .trew of the same stem are read too
  .json  kolmo JSON (docs/model-json.md): states, transitions, labels, rewards
  .csv   a dense row-stochastic matrix, optionally with a header of state names
  .mtx   Matrix Market coordinate file

States are named by their names (JSON, CSV header) or numbers from 0.

Examples:
  kolmo analyze examples/models/land-of-oz.json
  kolmo analyze examples/models/drunkard.json --target home --steps 10
  kolmo analyze chain.tra --from 3 --json";

const CHECK_HELP: &str = "\
Properties (PRISM's property language; Storm's T and conditional forms):
  P=? [F goal]  P=? [a U b]  P=? [X a]  P=? [G a]   probability of a path (chains)
  Pmin=? [...]  Pmax=? [...]                         MDPs: over all policies
  F<=k  U<=k  G<=k                                   within k steps
  P>=0.5 [...]  P>=1 [...]                           true/false, decided on the certified bound
  R{\"name\"}=? [F goal]   expected reward until goal (+inf where goal may be missed)
  R=? [C<=k]  R=? [C]  R=? [I=k]  R=? [S]            cumulated over k steps, in total, at step
                                                     k, long-run average per step
  S=? [a]                                            long-run fraction of time in a
  T=? [F goal]                                       expected steps until goal (Storm's T)
  P=? [F a || F b]                                   P(F a given F b) (Storm's conditional)
  filter(max, R=? [F goal], \"init\")               min max avg sum count forall exists first
                                                     print state over a set of states
Labels are written \"name\"; \"init\" (the initial states) and \"deadlock\" are built in.

Output: the value at the initial state (several initial states: their range), a certified
interval [lower, upper] that holds the exact value, the method and the seconds it took; with
--exact also the value as a fraction (the model's numbers evaluated as rationals). With
--json: {\"model\": {type, states, transitions, choices, initial_states}, \"constants\",
\"results\": [{name, property, value, lower, upper, exact, method, seconds}], \"seconds\":
{parse, build, check}}; value is a number, \"inf\"/\"-inf\", true or false.

Examples:
  kolmo check examples/models/snakes.pm --prop 'R=? [F pos=100]'
  kolmo check brp.pm p1.pctl --const N=16,MAX=2
  kolmo check model.nm --prop 'Pmax=? [F<=k \"goal\"]' --const k=0:10 --json";

const SOLVE_HELP: &str = "\
Objectives:
  max-reach:LABEL    maximal probability of ever reaching LABEL's states
  min-reach:LABEL    minimal probability of ever reaching LABEL's states
  max-reward:LABEL   maximal expected total reward until LABEL is reached
  min-reward:LABEL   minimal expected total reward until LABEL is reached (e.g. expected steps)
  discounted:GAMMA   optimal expected discounted total reward, 0 <= GAMMA < 1, a decimal or a
                     fraction (0.9, 10/11; --exact uses it as written) (maximal; --min); plain
                     `discounted` takes the file's discount (the beta or discount key of array
                     files: a number, or a string with a fraction, \"10/11\")
  horizon:K          optimal expected total reward over K steps (maximal; --min), discounted by
                     the file's discount if it has one; horizon:K:G discounts by G (1: none)
  average            optimal long-run average reward per step, per state (maximal; --min)

Every answer comes with an optimal policy and a guaranteed bound on its error (see README).
A Markov chain file is an MDP with one choice per state.

Examples:
  kolmo solve examples/models/shortcut-mdp.json --objective min-reward:goal
  kolmo solve forest.json --objective discounted:0.9 --exact";

/// Flags of `kolmo solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The model file (DRN, PRISM explicit, kolmo JSON, ...).
    pub file: PathBuf,
    /// What to optimise (see below).
    #[arg(long, value_name = "OBJECTIVE")]
    pub objective: String,
    /// The reward model for reward objectives (default: the model's only one).
    #[arg(long, value_name = "NAME")]
    pub reward: Option<String>,
    /// Minimise instead of maximise (discounted and horizon objectives).
    #[arg(long)]
    pub min: bool,
    /// Value iteration (discounted objectives; still certified, by MacQueen's bounds). Default:
    /// policy iteration up to 2,000 states; beyond, when the model's policies split into small
    /// strongly connected components, Gauss–Seidel sweeps until their policy is quiet, then
    /// policy iteration (later rounds by low-rank updates); otherwise parallel value iteration.
    #[arg(long, conflicts_with = "policy_iteration")]
    pub value_iteration: bool,
    /// Policy iteration whatever the model (discounted objectives).
    #[arg(long)]
    pub policy_iteration: bool,
    /// Iteration limit of the solver: sweeps of value iteration, improvement rounds of policy
    /// iteration, stages of the long-run average's value iteration. Reaching it is an error (exit
    /// 1) naming what was still open, never an answer.
    #[arg(long, value_name = "N", default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_iterations: u64,
    /// Also the exact values as fractions (discounted: exact policy iteration; horizon: exact
    /// backward induction), on the probabilities as the file writes them.
    #[arg(long)]
    pub exact: bool,
    /// The file's format (default: from the extension).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<ModelFormat>,
    /// Rescale rows that do not sum to 1 (instead of refusing them); negative entries are still
    /// refused.
    #[arg(long)]
    pub normalize: bool,
    /// Print every state's row (default: the first 20).
    #[arg(long)]
    pub all: bool,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    pub json: bool,
    /// Print the per-state table as CSV (header row, numbers in full precision, every state)
    /// instead of the human report: state, value, lower, upper, action (plus bias for
    /// average reward and value_exact with --exact).
    #[arg(long, value_name = "TABLE", num_args = 0..=1, require_equals = true,
          default_missing_value = "values", conflicts_with = "json")]
    pub csv: Option<SolveTable>,
}

/// Flags of `kolmo check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The model: PRISM language (.pm, .nm, .prism) or any model file kolmo reads (.drn, .tra,
    /// .json, ...; properties then speak of the file's labels and reward models).
    pub model: PathBuf,
    /// A property file (.pctl, .props, .prctl): properties, with their own constants, formulas
    /// and labels.
    pub properties: Option<PathBuf>,
    /// A property, e.g. 'P=? [F "goal"]' or 'R{"time"}min=? [F done]' (repeatable; checked after
    /// the file's).
    #[arg(long, value_name = "TEXT")]
    pub prop: Vec<String>,
    /// Values of constants: N=16,MAX=2 (int, decimal, a/b, true, false); a range k=0:10 or
    /// x=0:0.25:1 checks every value (PRISM's experiments).
    #[arg(long = "const", value_name = "N=V,...", allow_hyphen_values = true)]
    pub constants: Option<String>,
    /// Refuse a model with deadlock states (no command enabled), naming the first, instead of
    /// giving each a self-loop and reporting how many (PRISM's default, -fixdl; this is its
    /// -nofixdl).
    #[arg(long)]
    pub no_fix_deadlocks: bool,
    /// Write the built model to FILE (format by extension: .drn with labels and rewards, .tra,
    /// .json, ...), e.g. for Storm to check the same model.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// Write the optimal strategies to FILE as CSV: a row per state (state, player, then for
    /// each property that has one the action chosen there; a property without one, such as
    /// R [C], R [Fc] or R [S], has no column). Unbounded P and R [F] give memoryless
    /// strategies; step-bounded ones the first move with every step to go.
    #[arg(long, value_name = "FILE")]
    pub strategy: Option<PathBuf>,
    /// Iteration limit of the MDP solvers (policy-improvement rounds, stages).
    #[arg(long, value_name = "N", default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_iterations: u64,
    /// Refuse a model with more reachable states than this (exploration stops there rather than
    /// filling the memory: a state costs some tens of bytes while building).
    #[arg(long, value_name = "N", default_value_t = kolmo::check::DEFAULT_MAX_STATES as u64, value_parser = clap::value_parser!(u64).range(1..=4_294_967_295))]
    pub max_states: u64,
    /// Also the exact value as a fraction: the model's probabilities and rewards evaluated in
    /// rational arithmetic (1/3 stays 1/3; a file's numbers as written), then exact solves.
    #[arg(long)]
    pub exact: bool,
    /// Print one JSON document instead of the report.
    #[arg(long)]
    pub json: bool,
}

/// Flags of `kolmo analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The model file.
    pub file: PathBuf,
    /// The file's format (default: from the extension).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<ModelFormat>,
    /// Rescale rows that do not sum to 1 (instead of refusing them); negative entries are still
    /// refused.
    #[arg(long)]
    pub normalize: bool,
    /// Target: a label of the model, or comma-separated states (names or numbers). Reports the
    /// probability of ever reaching it, the expected steps and their variance from every state,
    /// and the expected reward accumulated before reaching it.
    #[arg(long, value_name = "LABEL|S,...")]
    pub target: Option<String>,
    /// Start state (name or number; default: the model's initial state).
    #[arg(long, value_name = "STATE")]
    pub from: Option<String>,
    /// With --target on a chain of more than 100,000 states, also the whole-chain analysis
    /// (classes, stationary distributions, long run, steps to recurrence, reward gains); below
    /// that size, and without --target, it is always there.
    #[arg(long)]
    pub chain: bool,
    /// With --target on a chain of more than 100,000 states, also the variance of the steps to
    /// the target (a second solve).
    #[arg(long)]
    pub variance: bool,
    /// With --target on a chain of more than 100,000 states, also each reward model's expected
    /// total before the target (a solve each).
    #[arg(long)]
    pub rewards: bool,
    /// Also report the distribution after K steps from the start.
    #[arg(long, value_name = "K")]
    pub steps: Option<u64>,
    /// How to solve the linear systems of the target analysis: auto, dense-lu, sparse-lu,
    /// woodbury, bicgstab or gmres (see `kolmo snakes --help`).
    #[arg(long, value_name = "METHOD", default_value = "auto", value_parser = method_parser())]
    pub method: kolmo::linsolve::SolveMethod,
    /// Also the exact fractions (rational arithmetic on the probabilities as the file writes them):
    /// each closed class's stationary distribution and mean recurrence times, and with --target
    /// the hitting probabilities, expected steps and variances (in JSON under the field names plus
    /// `_exact`, as "p/q" strings).
    #[arg(long)]
    pub exact: bool,
    /// Print every row of the per-state tables (default: the first 20).
    #[arg(long)]
    pub all: bool,
    /// Also draw the long-run distribution from the start (with --steps K: the distribution after
    /// K steps) as bars to FILE (.svg or .png; at most the 60 most likely states).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    pub json: bool,
    /// Print one table as CSV instead of the human report: a header row, every state, numbers in
    /// full precision (shortest round-trip), for a spreadsheet. `--csv` alone prints the per-state
    /// table, `--csv=stationary` (note the `=`) the stationary distributions; one table per run.
    #[arg(long, value_name = "TABLE", num_args = 0..=1, require_equals = true,
          default_missing_value = "states", conflicts_with = "json")]
    pub csv: Option<AnalyzeTable>,
}

/// Model file formats on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ModelFormat {
    /// Storm DRN.
    Drn,
    /// PRISM explicit (.tra with .lab/.srew/.trew).
    Prism,
    /// kolmo JSON.
    Json,
    /// Dense CSV matrix.
    Csv,
    /// Matrix Market coordinate file.
    Mtx,
    /// MDPToolbox / QuantEcon arrays (JSON with P and R, or Q and R; or .npy files).
    Arrays,
}

impl From<ModelFormat> for kolmo::io::Format {
    fn from(f: ModelFormat) -> Self {
        match f {
            ModelFormat::Drn => Self::Drn,
            ModelFormat::Prism => Self::Prism,
            ModelFormat::Json => Self::Json,
            ModelFormat::Csv => Self::Csv,
            ModelFormat::Mtx => Self::MatrixMarket,
            ModelFormat::Arrays => Self::Arrays,
        }
    }
}

/// Flags of `kolmo judge`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct JudgeArgs {
    /// List the supported problems with a one-line description.
    #[arg(long)]
    pub list: bool,
    /// The problem.
    #[command(subcommand)]
    pub problem: Option<Problem>,
}

/// The judge problems kolmo answers.
#[derive(Subcommand, Debug)]
pub enum Problem {
    /// LightOJ 1151 "Snakes and Ladders": expected throws from cell 1 to cell 100.
    #[command(name = "lightoj-1151", long_about = LIGHTOJ_1151_HELP)]
    Lightoj1151 {
        /// The input file (default: standard input).
        input: Option<PathBuf>,
        /// Print each answer's exact fraction after the decimal: `Case i: x p/q`.
        #[arg(long)]
        exact: bool,
    },
    /// The 3-card rock-paper-scissors game: Alice's value over k rounds for each case.
    #[command(name = "rps-cards", long_about = RPS_CARDS_HELP)]
    RpsCards {
        /// The input file (default: standard input).
        input: Option<PathBuf>,
    },
    /// Codeforces 1245E "Hyakugoku and Ladders": the minimal expected number of turns.
    #[command(name = "cf-1245e", long_about = CF_1245E_HELP)]
    Cf1245e {
        /// The input file (default: standard input).
        input: Option<PathBuf>,
        /// Also print the exact fraction after the decimal: `x p/q`.
        #[arg(long)]
        exact: bool,
    },
}

const CF_1245E_HELP: &str = "\
Codeforces 1245E \"Hyakugoku and Ladders\" (https://codeforces.com/problemset/problem/1245/E): a
10x10 board climbed along a boustrophedon path, from the bottom-left square (bottom row left to
right, the next row right to left, ...) to the top-left square. Each turn a fair die r = 1..6 is
rolled; if the goal is fewer than r squares away the player does not move (the turn counts). A
ladder of height h leads h rows straight up; stopping on its foot the player may climb it or not
(the top of a ladder is never the start of another climb in the same turn). Prints the minimal
expected number of turns, solved as a Markov decision process (policy iteration, error bound below
1e-12).

Input (standard input, or the file given): 10 lines of 10 integers h (0 <= h <= 9), the first line
being the top row; h is the height of the ladder on that square, 0 for none. A square in row i from
the top allows h < i; the start and the goal hold no ladder. Tokens are separated by any
whitespace.

Output: the expected number of turns with 10 decimals (with --exact: \"x p/q\", the exact optimum:
the optimal policy's chain solved in rational arithmetic, its optimality checked exactly).

Errors (exit code 2, nothing printed on standard output, the message names line:column): truncated
input, a token that is not an integer, a height outside 0..9, a ladder rising above the top row, a
ladder on the start or the goal, more than 100 heights.";

const RPS_CARDS_HELP: &str = "\
The 3-card rock-paper-scissors game (see kolmo cards --help): Alice's optimal expected total over k
rounds from the given hands.

Input (standard input, or the file given): T (1 <= T <= 100000); then per case k (1 <= k <= 10^9),
Alice's hand and Bob's hand, each 3 letters from R, P, S in any order, case-insensitive (e.g.
\"3 RRS PPS\"). Tokens are
separated by any whitespace.

Output: one line per case, the value with 10 decimals.

The game is solved once per run; values for k beyond the convergence of value iteration come from
the gain with a guaranteed error far below 1e-3.";

const LIGHTOJ_1151_HELP: &str = "\
LightOJ 1151 \"Snakes and Ladders\": a board of cells 1..100, the token starts on cell 1 and throws
a fair 6-sided die; a throw that would pass cell 100 is wasted but counts; landing on the start u of
a portal (snake or ladder) moves the token to its end v (portals never chain). Prints the expected
number of throws to reach cell 100.

Input (standard input, or the file given): T, the number of cases; then for each case n (0 <= n
<= 99), the number of portals, followed by n pairs \"u v\" (1 <= u, v <= 100). Tokens are separated
by any whitespace; blank lines are allowed.

Output: one line per case, \"Case i: x\", x with 10 decimals (with --exact: \"Case i: x p/q\").

Errors (exit code 2, nothing printed on standard output): truncated input, a token that is not a
number, a cell outside 1..100, a portal from cell 100, two portals from one cell, a portal to
itself, fewer or more cases than T, a board on which cell 100 is not reached with probability 1
(the cells that cannot finish are named).";

const BOARD_HELP: &str = "\
Board files (TOML):
  name = \"my board\"          # optional
  size = 100                 # last cell; cells are 0..=size
  start = 0                  # start cell; a portal there is taken before the first roll
  faces = 6                  # a fair die, or:
  # die = [1, 1, 1, 1, 1, 2] # face weights for faces 1..=F
  rule = \"clamp\"             # clamp | stay | bounce
  ladders = [[1, 38], [4, 14]]
  snakes = [[16, 6], [47, 26]]
  portals = []               # either direction

Examples:
  kolmo snakes
  kolmo snakes --rule stay --json
  kolmo snakes myboard.toml --players 3 --mc 0";

/// Flags of `kolmo snakes`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct SnakesArgs {
    /// A built-in board (classic, empty) or the path of a TOML board file.
    #[arg(default_value = "classic")]
    pub board: String,
    /// Rule for a roll past the last cell: clamp (land on it), stay (the roll is wasted),
    /// bounce (walk back by the excess). Overrides the board's rule.
    #[arg(long, value_name = "RULE", value_parser = rule_parser())]
    pub rule: Option<kolmo::games::snakes::Rule>,
    /// A fair die with F faces. Overrides the board's die.
    #[arg(long, value_name = "F", conflicts_with = "die")]
    pub faces: Option<i64>,
    /// A weighted die: weights of faces 1..=F, comma-separated (e.g. 1,1,1,1,1,2).
    #[arg(long, value_name = "W,...", value_delimiter = ',')]
    pub die: Option<Vec<f64>>,
    /// Start cell (default: the board's, usually 0).
    #[arg(long, value_name = "CELL")]
    pub start: Option<i64>,
    /// Last cell of the board (overrides the board's size; mostly for `empty`).
    #[arg(long, value_name = "N")]
    pub size: Option<i64>,
    /// Replace the board's snakes and ladders by COUNT random ladders and COUNT random snakes on
    /// distinct inner cells (the peer harness's generator: shared/peers/gen_board.py), drawn with
    /// --seed. With --size for big boards, e.g. `kolmo snakes empty --size 1000000
    /// --random-portals 100000`.
    #[arg(long, value_name = "COUNT")]
    pub random_portals: Option<u32>,
    /// Turns k at which to report P(finished within k rolls), comma-separated.
    #[arg(
        long,
        value_name = "K,...",
        value_delimiter = ',',
        default_value = "20,40,60,80"
    )]
    pub turns: Vec<u64>,
    /// Quantile levels of the number of rolls, comma-separated, each in (0, 1].
    #[arg(
        long,
        value_name = "Q,...",
        value_delimiter = ',',
        default_value = "0.1,0.5,0.9"
    )]
    pub quantiles: Vec<String>,
    /// Cells whose expected rolls the report lists (comma-separated, or `all`).
    #[arg(long, value_name = "C,...|all")]
    pub cells: Option<String>,
    /// Monte Carlo games for the cross-check (0 turns it off). Default: 2,000,000, or fewer on
    /// boards with long games (about 2·10⁹ rolls in all, 2·10⁸ on boards over 10,000 cells, 5·10⁷
    /// over 1,000,000 cells: a few seconds; none if that is fewer than 1,000 games). From 100,000
    /// cells on, games run interleaved (8 in flight per thread, chunks of 64 games).
    #[arg(long, value_name = "GAMES")]
    pub mc: Option<u64>,
    /// Seed of the Monte Carlo run (the result does not depend on the thread count) and of
    /// --random-portals.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// A simulated game longer than this many rolls stops the simulation with an error.
    /// Default: 100 times the expected number of rolls, at least 10,000,000.
    #[arg(long, value_name = "ROLLS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_rolls: Option<u64>,
    /// Number of players taking turns; the first to finish wins.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub players: usize,
    /// Work limit for the game-length distribution and --distribution, in turns × transitions
    /// (about 2 ns each): beyond it the game-length distribution is reported as unfinished, and
    /// --distribution is computed by repeated squaring on boards of up to 400 cells (refused on larger).
    #[arg(long, value_name = "N", default_value_t = 2_000_000_000)]
    pub max_work: u64,
    /// Print the whole game-length distribution: for every turn t, P(finish at t), P(finished by
    /// t) and the survival P(not finished by t) (in JSON: `game_length`).
    #[arg(long)]
    pub curve: bool,
    /// Print the fundamental matrix N = (I - Q)^-1 (expected visits between transient cells).
    #[arg(long)]
    pub fundamental: bool,
    /// Also report where the token is after K rolls (probability of each cell).
    #[arg(long, value_name = "K")]
    pub distribution: Option<u64>,
    /// Also compute the exact fractions (rational arithmetic): expected rolls from every cell, the
    /// variance, P(finished by turn k), the --distribution; printed next to their decimal
    /// expansions, in JSON as "p/q" strings under the field names plus `_exact`.
    #[arg(long)]
    pub exact: bool,
    /// How to solve the linear systems: auto (by structure: from 600 cells the strongly connected
    /// components one after another in reverse topological order, then per component dense LU,
    /// triangular + Woodbury, sparse LU for narrow bands, or BiCGSTAB for large components with
    /// long-range portals), or one method for the whole system: dense-lu, sparse-lu, woodbury,
    /// bicgstab or gmres. Every answer is certified the same way.
    #[arg(long, value_name = "METHOD", default_value = "auto", value_parser = method_parser())]
    pub method: kolmo::linsolve::SolveMethod,
    /// Also write the board's Markov chain to FILE (.drn Storm, .tra PRISM explicit with .lab and
    /// .srew, .json, .csv, .mtx): labels `init` and `goal`, reward model `rolls` (1 per roll), so
    /// that Storm, PRISM or `kolmo analyze` can check the same model.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// Also draw the distribution of the game length to FILE (.svg or .png): P(game ends at roll
    /// t) as bars, P(finished by roll t), the mean, median and --quantiles; with --players, each
    /// seat's chance to have won by each round.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Also draw the board to FILE (.svg or .png): cells numbered from the bottom-left, shaded by
    /// the expected visits per game, snakes and ladders as arrows (boards of up to 900 cells).
    #[arg(long, value_name = "FILE")]
    pub plot_board: Option<PathBuf>,
    /// Print one JSON document instead of the human report.
    #[arg(long)]
    pub json: bool,
    /// Print one table as CSV instead of the human report: a header row, numbers in full precision
    /// (shortest round-trip), for a spreadsheet. `--csv` alone prints the per-cell table,
    /// `--csv=TABLE` (note the `=`) one of the tables below; one table per run.
    #[arg(long, value_name = "TABLE", num_args = 0..=1, require_equals = true,
          default_missing_value = "cells", conflicts_with = "json")]
    pub csv: Option<SnakesTable>,
}

impl SnakesArgs {
    /// The board argument as a file path, when it names one.
    pub fn board_path(&self) -> Option<PathBuf> {
        let p = PathBuf::from(&self.board);
        let builtin = kolmo::games::snakes::BoardSpec::BUILTINS.contains(&self.board.as_str());
        (!builtin).then_some(p)
    }
}

/// `--method`: one of [`kolmo::linsolve::SolveMethod::NAMES`] (listed as the flag's possible
/// values, so shells complete them).
fn method_parser() -> impl clap::builder::TypedValueParser<Value = kolmo::linsolve::SolveMethod> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(kolmo::linsolve::SolveMethod::NAMES)
        .map(|s| kolmo::linsolve::SolveMethod::parse(&s).expect("a listed name"))
}

/// `--rule`: clamp, stay or bounce (listed as possible values, so shells complete them).
fn rule_parser() -> impl clap::builder::TypedValueParser<Value = kolmo::games::snakes::Rule> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(["clamp", "stay", "bounce"])
        .map(|s| s.parse().expect("a listed rule"))
}
