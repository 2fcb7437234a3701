//! Times the phases of `Board::analyze` (and the command line's Monte Carlo check) on a random
//! board, in the order `analyze` runs them.
//! `cargo run --release --example snakes_phases -- SIZE PORTALS SEED RULE [GAMES [mc]]`
//! (GAMES: Monte Carlo games to time, default none; `mc`: time only those). With `--explore` (after
//! the others), times building the chain through `explore` instead and stops.
use kolmo::analysis::{AbsorbingChain, TimeDistributionOptions, absorption_time_distribution};
use kolmo::games::snakes::{AnalysisOptions, Board, BoardSpec};
use kolmo::graph::{forward_reachable, shortest_distance};
use kolmo::model::StateSet;
use kolmo::sim::MonteCarloOptions;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    let size: i64 = a.get(1).map_or(Ok(1_000_000), |s| s.parse())?;
    let portals: u32 = a.get(2).map_or(Ok(size as u32 / 5), |s| s.parse())?;
    let seed: u64 = a.get(3).map_or(Ok(1), |s| s.parse())?;
    let games: u64 = a.get(5).map_or(Ok(0), |s| s.parse())?;
    let t = Instant::now();
    let mut spec = BoardSpec::empty(size).with_random_portals(portals, seed)?;
    println!("{:<28} {:>8.3} s", "random portals", t.elapsed().as_secs_f64());
    spec.rule = a
        .get(4)
        .map_or(Ok(kolmo::games::snakes::Rule::Clamp), |s| s.parse())?;
    let total = Instant::now();
    let lap = |what: &str, t: Instant| println!("{what:<28} {:>8.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let board = Board::new(&spec)?;
    lap("board", t);
    let mc_only = a.get(6).is_some_and(|s| s == "mc");
    let t = Instant::now();
    let dtmc = board.dtmc()?;
    lap("dtmc", t);
    if a.iter().any(|s| s == "--explore") {
        // The same chain through the explorer (what `Board::dtmc` is tested against).
        let t = Instant::now();
        let explored =
            kolmo::explore::explore(&kolmo::games::snakes::BoardChain(&board), Default::default())?;
        lap("dtmc through explore", t);
        assert!(
            explored.matrix == *dtmc.matrix(),
            "explore builds the same matrix"
        );
        return Ok(());
    }
    let goal = StateSet::from_states(dtmc.n(), [board.size()]);
    if mc_only {
        let t = Instant::now();
        let mc = board.simulate(
            &MonteCarloOptions {
                games,
                max_steps: u64::MAX,
                ..MonteCarloOptions::default()
            },
            None,
        )?;
        lap("monte carlo", t);
        println!("  mean {} std error {}", mc.mean, mc.std_error);
        return Ok(());
    }
    let t = Instant::now();
    let chain = AbsorbingChain::new(&dtmc, &goal)?;
    lap("chain setup", t);
    let init = board.initial_cell();
    let t = Instant::now();
    let reach = forward_reachable(dtmc.matrix(), &[init]);
    let trapped = reach.iter().filter(|&c| !chain.almost_sure(c)).count();
    lap("trap check", t);
    let t = Instant::now();
    let mf = board.absorption_time_matrix_free().ok_or("no operator")?;
    lap("matrix-free mean+var", t);
    println!(
        "  value {} residual {:e} trapped {trapped}\n  {}",
        mf.mean[init as usize], mf.residual, mf.method
    );
    let t = Instant::now();
    let v = chain.expected_visits(init)?;
    lap("visits", t);
    println!("  residual {:e}", v.residual);
    let mut initial = vec![0.0; dtmc.n()];
    initial[init as usize] = 1.0;
    let defaults = AnalysisOptions::default();
    let t = Instant::now();
    let time = absorption_time_distribution(
        &dtmc,
        &initial,
        &goal,
        &TimeDistributionOptions {
            tail_tolerance: defaults.tail_tolerance,
            min_steps: 80,
            max_steps: defaults.max_turns,
            max_work: defaults.max_work,
        },
    )?;
    lap("time distribution", t);
    println!("  horizon {}", time.horizon());
    let t = Instant::now();
    let min = shortest_distance(dtmc.matrix(), &[init], &goal);
    lap("shortest distance", t);
    println!("  {min:?}");
    drop(chain);
    drop(dtmc);
    if games > 0 {
        let t = Instant::now();
        let mc = board.simulate(
            &MonteCarloOptions {
                games,
                ..MonteCarloOptions::default()
            },
            None,
        )?;
        lap("monte carlo", t);
        println!("  mean {} std error {}", mc.mean, mc.std_error);
    }
    let t = Instant::now();
    let full = board.analyze(&defaults)?;
    lap("analyze (all of it)", t);
    println!("  expected rolls {}", full.expected_rolls);
    lap("total", total);
    Ok(())
}
