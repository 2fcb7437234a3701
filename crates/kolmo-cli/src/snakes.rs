//! `kolmo snakes`: load the board, run the engine's analyses, print the report.

use crate::cli::SnakesArgs;
use crate::cli::SnakesTable;
use crate::output::{Csv, Phase, bold, csv_num, csv_text, fmt_bound, fmt_prob, fmt_short, fmt_sig};
use anyhow::{Context, Result, bail};
use kolmo::account::ser::{FractionsOrInf, Matrix, Number, Scalars, Text};
use kolmo::analysis::transient::mass_error;
use kolmo::exact::{Rational, decimal};
use kolmo::games::snakes::{
    AnalysisOptions, Board, BoardAnalysis, BoardSpec, Die, ExactBoardAnalysis, ExactRace, PortalKind,
};
use kolmo::sim::{MonteCarlo, MonteCarloOptions};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// Most rolls an asked-for Monte Carlo run may simulate (about half an hour on 2 threads).
const MAX_MC_ROLLS: f64 = 1e12;

pub fn run(args: &SnakesArgs) -> Result<()> {
    let phase = Phase::start("building the board", String::new);
    let board = load_board(args)?;
    drop(phase);
    let plots = crate::plot::SnakesPlots::new(args, &board)?;
    if let Some(path) = &args.export {
        export(&board, path)?;
    }
    let levels = parse_levels(&args.quantiles)?;
    let options = AnalysisOptions {
        turns: args.turns.clone(),
        quantiles: levels.clone(),
        players: args.players,
        fundamental: args.fundamental,
        distribution_at: args.distribution.into_iter().collect(),
        max_work: args.max_work,
        method: args.method,
        ..AnalysisOptions::default()
    };
    if args.players == 0 || args.players > kolmo::analysis::MAX_PLAYERS {
        bail!(
            "--players {}: from 1 to {} players",
            args.players,
            kolmo::analysis::MAX_PLAYERS
        );
    }
    let phase = Phase::start("analysing the board", String::new);
    let analysis = match board.analyze(&options) {
        Err(e) if is_trap(&e) => {
            drop(phase);
            return trapped_report(args, &board, e);
        }
        r => r.map_err(|e| located(e, args))?,
    };
    drop(phase);
    plots.render(&board, &analysis)?;
    let exact = if args.exact {
        let _phase = Phase::start("exact arithmetic", String::new);
        Some(
            board
                .analyze_exact(&options)
                .map_err(|e| exact_refused(e, &board, args))?,
        )
    } else {
        None
    };
    // The exact race runs on the joint chain of all players, which only small boards afford: when
    // it is too large the report says so and keeps the rest.
    let exact_race = match (args.exact, args.players) {
        (true, p) if p > 1 => {
            let phase = Phase::start("exact race", String::new);
            let race = board.race_exact(p);
            drop(phase);
            match race {
                Ok(r) => Some(Ok(r)),
                Err(e @ kolmo::Error::TooLarge { .. }) => Some(Err(e.to_string())),
                Err(e) => return Err(located(e, args)),
            }
        }
        _ => None,
    };
    // Default: 2,000,000 games, fewer on boards with long games (about 2·10⁹ rolls in all, 2·10⁸
    // on boards over 10,000 cells, where each roll misses the cache, 5·10⁷ over 1,000,000 cells,
    // where it misses the TLB too: a few seconds); none when even 1,000 games would exceed that.
    // A CSV table holds no Monte Carlo figure: simulate only when asked for with --mc.
    let games = args.mc.unwrap_or_else(|| {
        if args.csv.is_some() {
            return 0;
        }
        let budget = match board.size() {
            0..=10_000 => 2e9,
            10_001..=1_000_000 => 2e8,
            _ => 5e7,
        };
        let affordable = budget / analysis.expected_rolls.max(1.0);
        if affordable < 1_000.0 {
            0
        } else {
            affordable.min(2_000_000.0) as u64
        }
    });
    let mc_skipped = args.mc.is_none() && games == 0 && args.csv.is_none();
    // An asked-for run is refused when it could not finish in reasonable time (about 2 ns per
    // roll and thread on a small board), with the estimate, before anything is simulated.
    let rolls = games as f64 * analysis.expected_rolls.max(1.0);
    if args.mc.is_some() && rolls > MAX_MC_ROLLS {
        let hours = rolls * 2e-9 / rayon::current_num_threads() as f64 / 3600.0;
        bail!(
            "--mc {games}: about {rolls:.1e} simulated rolls ({games} games of {} rolls on average), \
             some {} hours on {} threads; kolmo simulates at most 10^12 rolls in one run: give fewer games",
            crate::output::fmt_short(analysis.expected_rolls, 4),
            if hours < 1e6 {
                format!("{hours:.0}")
            } else {
                format!("{hours:.1e}")
            },
            rayon::current_num_threads()
        );
    }
    let mc = if games > 0 {
        // Games longer than 100 times the mean are astronomically unlikely on a board that cannot trap.
        let limit = args
            .max_rolls
            .unwrap_or_else(|| (100.0 * analysis.expected_rolls).max(1e7) as u64);
        Some(simulate(&board, args, games, limit)?)
    } else {
        None
    };
    let cells = selected_cells(args, &board)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if let Some(table) = args.csv {
        let cells: Vec<u32> = if args.cells.is_some() {
            cells
        } else {
            (0..=board.size()).collect()
        };
        return csv_table(out, table, &analysis, &cells);
    }
    if args.json {
        let report = json_report(
            &board,
            &analysis,
            mc.as_ref(),
            &args.quantiles,
            exact.as_ref(),
            exact_race.as_ref(),
            args.curve,
        );
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        human_report(&mut out, &board, &analysis, mc.as_ref(), &args.quantiles, &cells)?;
        if let Some(x) = &exact {
            exact_report(&mut out, x, &cells)?;
        }
        match &exact_race {
            Some(Ok(r)) => {
                writeln!(out, "  players (exact, joint chain of all players)")?;
                for (i, p) in r.win_probability.iter().enumerate() {
                    writeln!(out, "    seat {:>3} wins  {} = {p}", i + 1, decimal(p, 30))?;
                }
                writeln!(
                    out,
                    "    expected rounds       {} = {}",
                    decimal(&r.expected_rounds, 30),
                    r.expected_rounds
                )?;
                let rolls = &r.expected_total_rolls;
                writeln!(out, "    expected total rolls  {} = {rolls}", decimal(rolls, 30))?;
            }
            Some(Err(why)) => writeln!(out, "  players: no exact values ({why})")?,
            None => {}
        }
        if mc_skipped {
            writeln!(out)?;
            writeln!(
                out,
                "Monte Carlo check skipped: games last {} rolls on average (force it with --mc GAMES)",
                fmt_sig(analysis.expected_rolls, 6)
            )?;
        }
        if args.curve {
            writeln!(out)?;
            writeln!(
                out,
                "Game length distribution (P(finish at t) and the tail sum to 1 within {}, rounding)",
                fmt_bound(analysis.time.mass_error())
            )?;
            writeln!(
                out,
                "  {:>8}  {:>22}  {:>22}  {:>22}",
                "turn", "P(finish at t)", "P(finished by t)", "P(not finished by t)"
            )?;
            let time = &analysis.time;
            for (t, ((&p, &s), cdf)) in time
                .pmf
                .iter()
                .zip(&time.survival)
                .zip(time.cdf_curve())
                .enumerate()
            {
                writeln!(out, "  {t:>8}  {p:>22.16e}  {cdf:>22.16e}  {s:>22.16e}")?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// `--csv=TABLE`: one table, every number in full precision.
fn csv_table(out: impl Write, table: SnakesTable, a: &BoardAnalysis, cells: &[u32]) -> Result<()> {
    match table {
        SnakesTable::Cells => {
            let mut csv = Csv::new(out, &["cell", "expected_rolls", "std_dev"])?;
            for &c in cells {
                let c = c as usize;
                let sd = a.variance_by_cell[c].sqrt();
                csv.row(&[c.to_string(), csv_num(a.expected_rolls_by_cell[c]), csv_num(sd)])?;
            }
            csv.finish()?;
        }
        SnakesTable::Length => {
            let header = ["turn", "p_finish_at", "p_finished_by", "p_not_finished_by"];
            let mut csv = Csv::new(out, &header)?;
            for (t, ((&p, &s), cdf)) in a
                .time
                .pmf
                .iter()
                .zip(&a.time.survival)
                .zip(a.time.cdf_curve())
                .enumerate()
            {
                csv.row(&[t.to_string(), csv_num(p), csv_num(cdf), csv_num(s)])?;
            }
            csv.finish()?;
        }
        SnakesTable::FinishedBy => {
            let mut csv = Csv::new(out, &["turn", "p_finished_by"])?;
            for &(k, p) in &a.finished_by {
                csv.row(&[k.to_string(), p.map_or_else(String::new, csv_num)])?;
            }
            csv.finish()?;
        }
        SnakesTable::Portals => {
            let mut csv = Csv::new(out, &["kind", "from", "to", "expected_uses"])?;
            for u in &a.portal_usage {
                csv.row(&[
                    csv_text(u.portal.kind.name()),
                    u.portal.from.to_string(),
                    u.portal.to.to_string(),
                    csv_num(u.expected_uses),
                ])?;
            }
            csv.finish()?;
        }
        SnakesTable::Distribution => {
            if a.distributions.is_empty() {
                bail!("--csv=distribution: add --distribution K (where the token is after K rolls)");
            }
            let mut csv = Csv::new(out, &["turn", "cell", "probability"])?;
            for (k, d) in &a.distributions {
                for (c, &p) in d.iter().enumerate() {
                    csv.row(&[k.to_string(), c.to_string(), csv_num(p)])?;
                }
            }
            csv.finish()?;
        }
        SnakesTable::Players => {
            let Some(r) = &a.race else {
                bail!("--csv=players: add --players N (N >= 2)");
            };
            let mut csv = Csv::new(out, &["seat", "win_probability"])?;
            for (i, &p) in r.win_probability.iter().enumerate() {
                csv.row(&[(i + 1).to_string(), csv_num(p)])?;
            }
            csv.finish()?;
        }
    }
    Ok(())
}

/// An exact analysis the die's probabilities cannot have: say so in terms of the die (the
/// chain's message speaks of states and a file to correct).
fn exact_refused(e: kolmo::Error, board: &Board, args: &SnakesArgs) -> anyhow::Error {
    match e {
        kolmo::Error::InvalidDistribution { .. } => anyhow::anyhow!(
            "--exact: the die's probabilities ({}) are not fractions with denominators up to 2^20, \
             which exact analysis recovers from floating point: give integer weights with a smaller sum",
            board
                .face_probabilities()
                .iter()
                .map(|p| crate::output::fmt_short(*p, 6))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        e => located(e, args),
    }
}

/// Whether `e` says that the token can be trapped.
fn is_trap(e: &kolmo::Error) -> bool {
    matches!(
        kolmo::games::InputError::of(e),
        Some(kolmo::games::InputError::Board {
            error: kolmo::games::BoardError::Trapped { .. },
            ..
        })
    )
}

/// The report on a board on which the token can be trapped (`trap`, the error
/// [`Board::analyze`] gave): the cells it can be trapped from, the probability that the game ever
/// ends, the expected rolls (+∞ where a game may never end), P(finished within k) and the fewest
/// rolls, as DESIGN.md asks for chains. What needs every game to end (a variance, quantiles,
/// visits, a race, a simulation that must finish) is refused when asked for and noted otherwise.
fn trapped_report(args: &SnakesArgs, board: &Board, trap: kolmo::Error) -> Result<()> {
    let needs_end = [
        (args.players > 1, "--players"),
        (args.fundamental, "--fundamental"),
        (args.distribution.is_some(), "--distribution"),
        (args.curve, "--curve"),
        (args.csv.is_some(), "--csv"),
        (args.plot.is_some(), "--plot"),
        (args.plot_board.is_some(), "--plot-board"),
        (args.mc.is_some_and(|g| g > 0), "--mc"),
    ];
    if let Some((_, flag)) = needs_end.iter().find(|(asked, _)| *asked) {
        bail!(
            "{}; {flag} needs every game to end (without it kolmo reports the probability that the game ends \
             and the expected rolls, +inf where it may not)",
            located(trap, args)
        );
    }
    let phase = Phase::start("analysing the board", String::new);
    let t = board
        .trapped_analysis(&args.turns, args.max_work)
        .map_err(|e| match e {
            kolmo::Error::InvalidArgument { .. } => anyhow::anyhow!(
                "--turns: {e}; ask for fewer turns or raise --max-work (now {})",
                args.max_work
            ),
            e => located(e, args),
        })?;
    let exact = if args.exact {
        Some(
            board
                .trapped_analysis_exact(&args.turns)
                .map_err(|e| exact_refused(e, board, args))?,
        )
    } else {
        None
    };
    drop(phase);
    let cells = selected_cells(args, board)?;
    let notes = vec![
        "the token can be trapped: the expected rolls are +inf from the cells named, and the variance, \
         quantiles, median, mode, expected visits, portal usage and the Monte Carlo check (a game need not \
         end) are not computed"
            .to_string(),
    ];
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        let report = JsonTrapped {
            board: json_board(board),
            expected_rolls: Number(t.expected_rolls_by_cell[board.initial_cell() as usize]),
            expected_rolls_by_cell: Scalars(&t.expected_rolls_by_cell),
            expected_rolls_error_bound: Number(t.expected_rolls_error_bound),
            finish_error_bound: Number(t.finish_error_bound),
            finish_probability: Number(t.finish_probability),
            finish_probability_by_cell: Scalars(&t.finish_probability_by_cell),
            finish_probability_by_cell_exact: exact
                .as_ref()
                .map(|x| Scalars(&x.finish_probability_by_cell[..])),
            finish_probability_exact: exact.as_ref().map(|x| Text(&x.finish_probability)),
            finished_by: t
                .finished_by
                .iter()
                .enumerate()
                .map(|(i, &(turn, p))| JsonFinishedBy {
                    probability: Some(Number(p)),
                    probability_exact: exact.as_ref().map(|x| Text(&x.finished_by[i].1)),
                    turn,
                })
                .collect(),
            min_rolls: t.min_rolls,
            never_finish: &t.never_finish,
            notes: &notes,
            trapped: &t.trapped,
        };
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    writeln!(out, "{}", describe(board))?;
    writeln!(out)?;
    writeln!(
        out,
        "The token can be trapped: the last cell {} is not reached with probability 1 from {} reachable {}: {}",
        board.size(),
        t.trapped.len(),
        if t.trapped.len() == 1 { "cell" } else { "cells" },
        kolmo::preview(&t.trapped)
    )?;
    if !t.never_finish.is_empty() {
        writeln!(
            out,
            "  and cannot be reached at all from {}",
            kolmo::preview(&t.never_finish)
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Expected rolls from the start   {}",
        bold("+inf (the game may never end)")
    )?;
    start_portal_note(&mut out, board)?;
    let exact_p = exact
        .as_ref()
        .map_or_else(String::new, |x| format!(" = {}", x.finish_probability));
    writeln!(
        out,
        "P(the game ever ends)           {}{exact_p}   (absolute error <= {})",
        fmt_short(t.finish_probability, 15),
        fmt_bound(t.finish_error_bound)
    )?;
    writeln!(
        out,
        "Fewest rolls that can finish    {}",
        t.min_rolls.map_or_else(
            || "none: the last cell cannot be reached".to_string(),
            |m| m.to_string()
        )
    )?;
    writeln!(out)?;
    writeln!(out, "From a cell (standing on it, about to roll)")?;
    writeln!(
        out,
        "  {:>6}  {:>20}  {:>20}",
        "cell", "expected rolls", "P(ever finishes)"
    )?;
    for &c in &cells {
        let c = c as usize;
        writeln!(
            out,
            "  {c:>6}  {:>20}  {:>20}",
            fmt_short(t.expected_rolls_by_cell[c], 15),
            fmt_short(t.finish_probability_by_cell[c], 15)
        )?;
    }
    if !t.finished_by.is_empty() {
        writeln!(out)?;
        writeln!(out, "Game length (rolls)")?;
        writeln!(out, "  {:>16}  {:>18}", "finished by turn", "probability")?;
        for (i, &(k, p)) in t.finished_by.iter().enumerate() {
            let fraction = exact
                .as_ref()
                .map_or_else(String::new, |x| format!(" = {}", x.finished_by[i].1));
            writeln!(out, "  {k:>16}  {:>18}{fraction}", fmt_sig(p, 16))?;
        }
    }
    writeln!(out)?;
    for note in &notes {
        writeln!(out, "Note: {note}.")?;
    }
    out.flush()?;
    Ok(())
}

/// Errors about a board from a file get the file's name even when found after parsing (a trap).
fn located(e: kolmo::Error, args: &SnakesArgs) -> anyhow::Error {
    let e = match kolmo::games::InputError::try_from_error(e) {
        Ok(kolmo::games::InputError::Board {
            path: None,
            line,
            error,
        }) => {
            return kolmo::Error::from(kolmo::games::InputError::Board {
                path: args.board_path(),
                line,
                error,
            })
            .into();
        }
        Ok(other) => kolmo::Error::from(other),
        Err(e) => e,
    };
    match e {
        kolmo::Error::LimitReached { what, limit, message } => kolmo::Error::LimitReached {
            what,
            limit,
            message: format!("{message}: --max-work, now {}", args.max_work),
        }
        .into(),
        e => e.into(),
    }
}

fn load_board(args: &SnakesArgs) -> Result<Board> {
    let mut spec = match BoardSpec::builtin(&args.board) {
        Some(s) => s,
        None => {
            let path = std::path::Path::new(&args.board);
            if !path.exists() {
                bail!(
                    "no board file '{}' and no built-in board of that name (built-in: {})",
                    args.board,
                    BoardSpec::BUILTINS.join(", ")
                );
            }
            BoardSpec::from_file(path)?
        }
    };
    if let Some(r) = args.rule {
        spec.rule = r;
    }
    if let Some(f) = args.faces {
        if !(1..=1_000_000).contains(&f) {
            bail!("--faces {f}: a die has 1 to 1000000 faces");
        }
        spec.die = Die::Fair(f as usize);
    }
    if let Some(w) = &args.die {
        spec.die = Die::Weighted(w.clone());
    }
    if let Some(s) = args.start {
        spec.start = s;
    }
    if let Some(s) = args.size {
        spec.size = s;
    }
    if let Some(count) = args.random_portals {
        spec = spec.with_random_portals(count, args.seed)?;
    }
    let board = Board::new(&spec);
    let Err(e) = &board else {
        return Ok(board?);
    };
    // An error in what a flag set names the flag (the board's own errors name the file's line).
    use kolmo::games::BoardError as B;
    let error = match kolmo::games::InputError::of(e) {
        Some(kolmo::games::InputError::Board { error, .. }) => Some(error),
        _ => None,
    };
    let flag = match error {
        Some(B::Size { .. }) => args.size.map(|s| format!("--size {s}")),
        Some(B::Start { .. }) => args.start.map(|s| format!("--start {s}")),
        Some(B::Die(_)) => args.die.as_ref().map(|_| "--die".to_string()),
        _ => None,
    };
    if let Some(flag) = flag {
        bail!("{flag}: {e}");
    }
    // A --size too small for the chosen board's own portals: say so (the board's error names the
    // portal; the fix is the flag, or the empty board).
    match args.size {
        Some(size) if !spec.portals.is_empty() && error.is_some() => Ok(board.with_context(|| {
            format!(
                "--size {size} does not fit this board's snakes and ladders; give a larger \
                 size, or start from the empty board (`kolmo snakes empty --size {size}`)"
            )
        })?),
        _ => Ok(board?),
    }
}

/// Writes the board's chain (labels `init` and `goal`, reward model `rolls`: 1 per roll) in the
/// format of the file's extension, for Storm, PRISM or `kolmo analyze`.
fn export(board: &Board, path: &std::path::Path) -> Result<()> {
    let format = kolmo::io::Format::from_path(path).with_context(|| {
        format!(
            "--export {}: name a .drn, .tra, .json, .csv or .mtx file",
            path.display()
        )
    })?;
    let mut dtmc = board.named_dtmc()?;
    let goal = board.size() as usize;
    let rolls = (0..dtmc.n()).map(|c| if c == goal { 0.0 } else { 1.0 }).collect();
    dtmc.set_reward_model("rolls", kolmo::model::RewardModel::from_state_rewards(rolls))?;
    let files = kolmo::io::write_model(&kolmo::io::Model::Dtmc(dtmc), path, format)?;
    for f in files {
        eprintln!("kolmo: wrote {}", f.display());
    }
    use kolmo::io::Format as F;
    if matches!(format, F::Csv | F::MatrixMarket) {
        eprintln!(
            "kolmo: note: {} holds the transition matrix only: the labels init and goal and the \
             reward model rolls are not in it (a .drn, .tra or .json file keeps them, for \
             `kolmo analyze FILE --target goal`)",
            path.display()
        );
    }
    Ok(())
}

/// The values of `args` that kolmo parses itself, checked without running anything: the board
/// with the flags that change it applied (a built-in board only: no file is read), `--quantiles`
/// and `--cells`.
pub fn check_args(args: &SnakesArgs) -> Result<()> {
    parse_levels(&args.quantiles)?;
    if BoardSpec::builtin(&args.board).is_some() {
        let board = load_board(args)?;
        selected_cells(args, &board)?;
    }
    Ok(())
}

fn parse_levels(raw: &[String]) -> Result<Vec<f64>> {
    raw.iter()
        .map(|s| {
            let q: f64 = s
                .trim()
                .parse()
                .with_context(|| format!("--quantiles: '{s}' is not a number"))?;
            if !(q > 0.0 && q <= 1.0) {
                bail!("--quantiles: {s} is not in (0, 1]");
            }
            Ok(q)
        })
        .collect()
}

fn selected_cells(args: &SnakesArgs, board: &Board) -> Result<Vec<u32>> {
    let size = board.size();
    match args.cells.as_deref() {
        Some("all") => Ok((0..=size).collect()),
        Some(list) => list
            .split(',')
            .map(|c| {
                let v: u32 = c
                    .trim()
                    .parse()
                    .with_context(|| format!("--cells: '{c}' is not a cell number"))?;
                if v > size {
                    bail!("--cells: cell {v} is not on the board (0 to {size})");
                }
                Ok(v)
            })
            .collect(),
        None => {
            let mut cells = vec![board.start()];
            let step = (size / 10).max(1);
            cells.extend((step..size).step_by(step as usize));
            cells.push(size.saturating_sub(1));
            cells.sort_unstable();
            cells.dedup();
            Ok(cells)
        }
    }
}

/// Portals listed in the human report (all of them in --json).
const MAX_PORTALS_SHOWN: usize = 40;

fn simulate(board: &Board, args: &SnakesArgs, games: u64, max_rolls: u64) -> Result<MonteCarlo> {
    let bar = crate::output::progress_bar(
        games,
        "Monte Carlo {bar:40} {human_pos}/{human_len} games {per_sec} eta {eta}",
    );
    let progress = |games: u64| bar.inc(games);
    let options = MonteCarloOptions {
        games,
        seed: args.seed,
        max_steps: max_rolls,
    };
    let result = board.simulate(&options, Some(&progress));
    bar.finish_and_clear();
    match result {
        Err(kolmo::Error::LimitReached { .. }) => Err(anyhow::anyhow!(kolmo::Error::LimitReached {
            what: "Monte Carlo simulation",
            limit: max_rolls,
            message: format!(
                "a simulated game was still running after {max_rolls} rolls (raise --max-rolls)"
            ),
        })),
        r => Ok(r?),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The line saying that a portal on the start cell moves the token before the first roll, if one does.
fn start_portal_note(out: &mut impl Write, board: &Board) -> Result<()> {
    if board.initial_cell() != board.start() {
        writeln!(
            out,
            "(the portal on the start cell {} moves the token to {} before the first roll)",
            board.start(),
            board.initial_cell()
        )?;
    }
    Ok(())
}

fn describe(board: &Board) -> String {
    let die = match board.die() {
        Die::Fair(f) => format!("fair {f}-sided die"),
        Die::Weighted(w) => format!("weighted {}-sided die", w.len()),
    };
    let ladders = board
        .portals()
        .iter()
        .filter(|p| p.kind == PortalKind::Ladder)
        .count();
    let snakes = board.portals().len() - ladders;
    format!(
        "{} board: cells 0..{}, start {}, {die}, rule {}, {}, {}",
        board.name(),
        board.size(),
        board.start(),
        board.rule(),
        plural(ladders, "ladder", "ladders"),
        plural(snakes, "snake", "snakes")
    )
}

fn human_report(
    out: &mut impl Write,
    board: &Board,
    a: &BoardAnalysis,
    mc: Option<&MonteCarlo>,
    levels: &[String],
    cells: &[u32],
) -> Result<()> {
    writeln!(out, "{}", describe(board))?;
    writeln!(out)?;
    writeln!(
        out,
        "Expected rolls from the start   {}",
        bold(&fmt_sig(a.expected_rolls, 15))
    )?;
    writeln!(out, "Standard deviation              {}", fmt_sig(a.std_dev, 14))?;
    writeln!(out, "Variance                        {}", fmt_sig(a.variance, 14))?;
    writeln!(
        out,
        "Accuracy                        relative error <= {:.1e} (residual {:.1e}; {})",
        a.solve.error_bound, a.solve.residual, a.solve.method
    )?;
    start_portal_note(out, board)?;
    writeln!(out)?;
    writeln!(out, "Expected rolls from a cell (standing on it, about to roll)")?;
    writeln!(
        out,
        "  {:>6}  {:>20}  {:>14}",
        "cell", "expected rolls", "std dev"
    )?;
    for &c in cells {
        let e = a.expected_rolls_by_cell[c as usize];
        let sd = a.variance_by_cell[c as usize].sqrt();
        writeln!(
            out,
            "  {:>6}  {:>20}  {:>14}",
            c,
            fmt_short(e, 15),
            fmt_sig(sd, 8)
        )?;
    }
    writeln!(out)?;
    writeln!(out, "Game length (rolls)")?;
    writeln!(out, "  {:>16}  {:>18}", "finished by turn", "probability")?;
    for &(k, p) in &a.finished_by {
        match p {
            Some(p) if p != 0.0 && p < 1e-4 => writeln!(out, "  {:>16}  {:>18.6e}", k, p)?,
            Some(p) => writeln!(out, "  {:>16}  {:>18.16}", k, p)?,
            None => writeln!(out, "  {:>16}  {:>18}", k, "not computed")?,
        }
    }
    let known = |x: Option<u64>| x.map_or_else(|| "beyond horizon".to_string(), |x| x.to_string());
    let qs: Vec<String> = levels
        .iter()
        .zip(&a.quantiles)
        .map(|(l, (_, q))| format!("{l}: {q}"))
        .collect();
    writeln!(
        out,
        "  median {}   mode {}   minimum {}",
        known(a.median),
        known(a.mode),
        a.min_rolls
    )?;
    writeln!(out, "  quantiles  {}", qs.join("   "))?;
    writeln!(
        out,
        "  distribution computed to turn {} (probability of a longer game {:.1e}{})",
        a.time.horizon(),
        a.time.tail.max(0.0),
        if a.time.converged {
            ""
        } else {
            "; stopped by the work limit before the 1e-12 tail: raise it with --max-work"
        }
    )?;
    if let Some(mc) = mc {
        writeln!(out)?;
        writeln!(out, "Monte Carlo check ({} games, seed {})", mc.games, mc.seed)?;
        writeln!(
            out,
            "  mean {:.4}   std error {:.4}   std dev {:.4}   95% CI [{:.4}, {:.4}]",
            mc.mean, mc.std_error, mc.std_dev, mc.ci95.0, mc.ci95.1
        )?;
        let z = mc.z_score(a.expected_rolls);
        let verdict = if z.abs() < 4.0 {
            "agrees with the exact mean"
        } else {
            "DISAGREES with the exact mean"
        };
        writeln!(
            out,
            "  z-score {z:+.3} against the exact {:.6}: {verdict}",
            a.expected_rolls
        )?;
    }
    if !a.portal_usage.is_empty() {
        writeln!(out)?;
        writeln!(out, "Snakes and ladders (expected uses per game)")?;
        for u in a.portal_usage.iter().take(MAX_PORTALS_SHOWN) {
            writeln!(
                out,
                "  {:<6} {:>5} -> {:<5}  {:>10}",
                u.portal.kind.name(),
                u.portal.from,
                u.portal.to,
                fmt_sig(u.expected_uses, 6)
            )?;
        }
        if a.portal_usage.len() > MAX_PORTALS_SHOWN {
            writeln!(
                out,
                "  … ({} more; --json lists every portal)",
                a.portal_usage.len() - MAX_PORTALS_SHOWN
            )?;
        }
    }
    if let Some(r) = &a.race {
        writeln!(out)?;
        writeln!(out, "{} players, taking turns (seat 1 rolls first)", r.players)?;
        writeln!(out, "  {:>5}  {:>16}", "seat", "win probability")?;
        for (i, p) in r.win_probability.iter().enumerate() {
            writeln!(out, "  {:>5}  {:>16}", i + 1, fmt_prob(*p))?;
        }
        writeln!(
            out,
            "  expected rounds {:.6}   expected total rolls {:.6}",
            r.expected_rounds, r.expected_total_rolls
        )?;
    }
    for (k, d) in &a.distributions {
        writeln!(out)?;
        writeln!(
            out,
            "Where the token is after {k} roll(s) (total probability off 1 by {}, rounding)",
            fmt_bound(mass_error(d))
        )?;
        for (c, p) in d.iter().enumerate().filter(|(_, p)| **p > 0.0) {
            writeln!(out, "  cell {:>6}  {}", c, fmt_prob(*p))?;
        }
    }
    if let Some(n) = &a.fundamental {
        writeln!(out)?;
        writeln!(
            out,
            "Fundamental matrix N = (I - Q)^-1 (row: from cell, column: expected visits to cell; residual {:.1e})",
            n.residual
        )?;
        let k = n.states.len();
        write!(out, "{:>6}", "")?;
        for s in &n.states {
            write!(out, " {:>9}", s)?;
        }
        writeln!(out)?;
        for (i, s) in n.states.iter().enumerate() {
            write!(out, "{:>6}", s)?;
            for j in 0..k {
                write!(out, " {:>9.6}", n.get(i, j))?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// The exact section of the human report: each fraction next to its decimal expansion.
fn exact_report(out: &mut impl Write, x: &ExactBoardAnalysis, cells: &[u32]) -> Result<()> {
    writeln!(out)?;
    writeln!(out, "Exact values ({})", x.method)?;
    let show = |r: &Rational| format!("{} = {}", decimal(r, 30), r);
    writeln!(
        out,
        "  expected rolls from the start  {}",
        show(&x.expected_rolls)
    )?;
    writeln!(out, "  variance                       {}", show(&x.variance))?;
    for &c in cells {
        match &x.expected_rolls_by_cell[c as usize] {
            Some(r) => writeln!(out, "  cell {c:>6}  {}", show(r))?,
            None => writeln!(out, "  cell {c:>6}  inf")?,
        }
    }
    for (k, p) in &x.finished_by {
        writeln!(out, "  finished by turn {k:>6}  {}", show(p))?;
    }
    for (k, d) in &x.distributions {
        writeln!(out, "  where the token is after {k} roll(s)")?;
        for (c, p) in d.iter().enumerate().filter(|(_, p)| !p.is_zero()) {
            writeln!(out, "    cell {c:>6}  {}", show(p))?;
        }
    }
    Ok(())
}

// The `--json` document: views of the typed results deriving `Serialize`, grouped and named as
// README.md documents them (exact values as "p/q" strings under the f64 field names plus `_exact`;
// +∞ as "inf"). Fields are in alphabetical order, the order the document has always had; the
// arrays as long as the board are written from the results, element by element.

#[derive(Serialize)]
struct JsonReport<'a> {
    board: JsonBoard<'a>,
    /// Null (rather than absent) with --exact and no --distribution, as the document has always had.
    #[serde(skip_serializing_if = "Option::is_none")]
    distribution_after: Option<Option<Vec<JsonDistribution<'a>>>>,
    distribution_tail: JsonTail,
    error_bound: Number,
    expected_rolls: Number,
    expected_rolls_by_cell: Scalars<'a, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_rolls_by_cell_exact: Option<FractionsOrInf<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_rolls_exact: Option<Text<&'a Rational>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_rounds: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_rounds_exact: Option<Text<&'a Rational>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_total_rolls: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_total_rolls_exact: Option<Text<&'a Rational>>,
    finished_by: Vec<JsonFinishedBy<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fundamental: Option<JsonFundamental<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    game_length: Option<JsonGameLength<'a>>,
    median: Option<u64>,
    method: Text<&'a kolmo::account::Method>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method_exact: Option<Text<&'a kolmo::account::Method>>,
    min_rolls: u64,
    mode: Option<u64>,
    monte_carlo: Option<JsonMonteCarlo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    players: Option<Vec<JsonSeat<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    players_exact_error: Option<&'a str>,
    portal_usage: Vec<JsonPortalUsage>,
    quantiles: BTreeMap<&'a str, kolmo::analysis::Quantile>,
    residual: Number,
    second_moment_residual: Number,
    std_dev: Number,
    variance: Number,
    #[serde(skip_serializing_if = "Option::is_none")]
    variance_exact: Option<Text<&'a Rational>>,
}

/// The `--json` document for a board on which the token can be trapped.
#[derive(Serialize)]
struct JsonTrapped<'a> {
    board: JsonBoard<'a>,
    expected_rolls: Number,
    expected_rolls_by_cell: Scalars<'a, f64>,
    expected_rolls_error_bound: Number,
    finish_error_bound: Number,
    finish_probability: Number,
    finish_probability_by_cell: Scalars<'a, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    finish_probability_by_cell_exact: Option<Scalars<'a, Rational>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    finish_probability_exact: Option<Text<&'a Rational>>,
    finished_by: Vec<JsonFinishedBy<'a>>,
    min_rolls: Option<u64>,
    never_finish: &'a [u32],
    notes: &'a [String],
    trapped: &'a [u32],
}

#[derive(Serialize)]
struct JsonBoard<'a> {
    face_probabilities: &'a [f64],
    faces: usize,
    name: &'a str,
    rule: &'static str,
    size: u32,
    start: u32,
}

#[derive(Serialize)]
struct JsonDistribution<'a> {
    mass_error: Number,
    probabilities: Scalars<'a, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    probabilities_exact: Option<Scalars<'a, Rational>>,
    turn: u64,
}

#[derive(Serialize)]
struct JsonTail {
    horizon: u64,
    tail: Number,
}

#[derive(Serialize)]
struct JsonFinishedBy<'a> {
    probability: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    probability_exact: Option<Text<&'a Rational>>,
    turn: u64,
}

#[derive(Serialize)]
struct JsonFundamental<'a> {
    matrix: Matrix<'a>,
    residual: Number,
    states: &'a [u32],
}

#[derive(Serialize)]
struct JsonGameLength<'a> {
    mass_error: Number,
    pmf: Scalars<'a, f64>,
    survival: Scalars<'a, f64>,
}

#[derive(Serialize)]
struct JsonMonteCarlo {
    ci95: [Number; 2],
    games: u64,
    mean: Number,
    seed: u64,
    std_dev: Number,
    std_error: Number,
    z_score: Number,
}

#[derive(Serialize)]
struct JsonSeat<'a> {
    seat: usize,
    win_probability: Number,
    #[serde(skip_serializing_if = "Option::is_none")]
    win_probability_exact: Option<Text<&'a Rational>>,
}

#[derive(Serialize)]
struct JsonPortalUsage {
    expected_uses: Number,
    from: u32,
    kind: &'static str,
    to: u32,
}

fn json_board(board: &Board) -> JsonBoard<'_> {
    JsonBoard {
        face_probabilities: board.face_probabilities(),
        faces: board.die().faces(),
        name: board.name(),
        rule: board.rule().name(),
        size: board.size(),
        start: board.start(),
    }
}

fn json_report<'a>(
    board: &'a Board,
    a: &'a BoardAnalysis,
    mc: Option<&MonteCarlo>,
    levels: &'a [String],
    exact: Option<&'a ExactBoardAnalysis>,
    exact_race: Option<&'a std::result::Result<ExactRace, String>>,
    curve: bool,
) -> JsonReport<'a> {
    let race_exact = exact_race.and_then(|r| r.as_ref().ok());
    JsonReport {
        board: json_board(board),
        distribution_after: match (a.distributions.is_empty(), exact.is_some()) {
            (true, false) => None,
            (true, true) => Some(None),
            (false, _) => Some(Some(
                a.distributions
                    .iter()
                    .enumerate()
                    .map(|(i, (k, d))| JsonDistribution {
                        mass_error: Number(mass_error(d)),
                        probabilities: Scalars(d),
                        probabilities_exact: exact.map(|x| Scalars(&x.distributions[i].1[..])),
                        turn: *k,
                    })
                    .collect(),
            )),
        },
        distribution_tail: JsonTail {
            horizon: a.time.horizon(),
            tail: Number(a.time.tail),
        },
        error_bound: Number(a.solve.error_bound),
        expected_rolls: Number(a.expected_rolls),
        expected_rolls_by_cell: Scalars(&a.expected_rolls_by_cell),
        expected_rolls_by_cell_exact: exact.map(|x| FractionsOrInf(&x.expected_rolls_by_cell)),
        expected_rolls_exact: exact.map(|x| Text(&x.expected_rolls)),
        expected_rounds: a.race.as_ref().map(|r| Number(r.expected_rounds)),
        expected_rounds_exact: race_exact.map(|r| Text(&r.expected_rounds)),
        expected_total_rolls: a.race.as_ref().map(|r| Number(r.expected_total_rolls)),
        expected_total_rolls_exact: race_exact.map(|r| Text(&r.expected_total_rolls)),
        finished_by: a
            .finished_by
            .iter()
            .enumerate()
            .map(|(i, &(turn, p))| JsonFinishedBy {
                probability: p.map(Number),
                probability_exact: exact.map(|x| Text(&x.finished_by[i].1)),
                turn,
            })
            .collect(),
        fundamental: a.fundamental.as_ref().map(|n| JsonFundamental {
            matrix: Matrix {
                values: &n.matrix,
                columns: n.states.len(),
            },
            residual: Number(n.residual),
            states: &n.states,
        }),
        game_length: curve.then(|| JsonGameLength {
            mass_error: Number(a.time.mass_error()),
            pmf: Scalars(&a.time.pmf),
            survival: Scalars(&a.time.survival),
        }),
        median: a.median,
        method: Text(&a.solve.method),
        method_exact: exact.map(|x| Text(&x.method)),
        min_rolls: a.min_rolls,
        mode: a.mode,
        monte_carlo: mc.map(|m| JsonMonteCarlo {
            ci95: [Number(m.ci95.0), Number(m.ci95.1)],
            games: m.games,
            mean: Number(m.mean),
            seed: m.seed,
            std_dev: Number(m.std_dev),
            std_error: Number(m.std_error),
            z_score: Number(m.z_score(a.expected_rolls)),
        }),
        players: a.race.as_ref().map(|r| {
            r.win_probability
                .iter()
                .enumerate()
                .map(|(i, &p)| JsonSeat {
                    seat: i + 1,
                    win_probability: Number(p),
                    win_probability_exact: race_exact.map(|x| Text(&x.win_probability[i])),
                })
                .collect()
        }),
        players_exact_error: exact_race.and_then(|r| r.as_ref().err()).map(String::as_str),
        portal_usage: a
            .portal_usage
            .iter()
            .map(|u| JsonPortalUsage {
                expected_uses: Number(u.expected_uses),
                from: u.portal.from,
                kind: u.portal.kind.name(),
                to: u.portal.to,
            })
            .collect(),
        quantiles: levels
            .iter()
            .map(String::as_str)
            .zip(a.quantiles.iter().map(|q| q.1))
            .collect(),
        residual: Number(a.solve.residual),
        second_moment_residual: Number(a.solve.second_moment_residual.unwrap_or(f64::NAN)),
        std_dev: Number(a.std_dev),
        variance: Number(a.variance),
        variance_exact: exact.map(|x| Text(&x.variance)),
    }
}
