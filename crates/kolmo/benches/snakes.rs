//! Benchmarks of the classic board (run with `cargo bench -p kolmo`).
//!
//! Peers on the same machine (shared/peers/run.sh classic, per solve, model prebuilt): NumPy dense
//! solve 39.4 µs, Storm 38.8 µs (2.1e-7 off), SciPy spsolve 53.2 µs. The figures here are kolmo's
//! side of those ratios.

use kolmo::analysis::AbsorbingChain;
use kolmo::games::snakes::{AnalysisOptions, Board};
use kolmo::model::StateSet;
use kolmo::sim::MonteCarloOptions;

fn main() {
    divan::main();
}

/// One expected-steps solve with the chain already built: graph analysis, factorisation of I − Q
/// (triangular + Woodbury on this board), solve with iterative refinement and the certifying
/// residual (what NumPy's and SciPy's "prebuilt" solves do, plus graph analysis and certification).
#[divan::bench]
fn expected_steps_solve(bencher: divan::Bencher) {
    let dtmc = Board::classic().dtmc().unwrap();
    let goal = StateSet::from_states(dtmc.n(), [100]);
    bencher.bench(|| {
        let chain = AbsorbingChain::new(&dtmc, &goal).unwrap();
        divan::black_box(chain.expected_steps())
    });
}

/// Building the chain from the board description and solving (the peers' "from board").
#[divan::bench]
fn expected_steps_from_board(bencher: divan::Bencher) {
    let board = Board::classic();
    bencher.bench(|| divan::black_box(board.expected_rolls().unwrap()));
}

/// The full analysis behind `kolmo snakes --mc 0`: expected rolls and variance for every cell,
/// visits, portal usage, the game-length distribution to a 1e-12 tail, quantiles.
#[divan::bench]
fn full_analysis(bencher: divan::Bencher) {
    let board = Board::classic();
    let options = AnalysisOptions::default();
    bencher.bench(|| divan::black_box(board.analyze(&options).unwrap()));
}

/// Monte Carlo throughput: 1,000,000 games on all cores (divide by the time for games/second).
#[divan::bench(sample_count = 10)]
fn monte_carlo_1m_games(bencher: divan::Bencher) {
    let board = Board::classic();
    let options = MonteCarloOptions {
        games: 1_000_000,
        seed: 1,
        ..Default::default()
    };
    bencher.bench(|| divan::black_box(board.simulate(&options, None).unwrap()));
}

/// The exact rational analysis of the classic board: expected rolls and variance from every cell,
/// P(finished by 20/40/60/80).
#[divan::bench(sample_count = 20)]
fn exact_analysis(bencher: divan::Bencher) {
    let board = Board::classic();
    let options = AnalysisOptions::default();
    bencher.bench(|| divan::black_box(board.analyze_exact(&options).unwrap()));
}

/// One exact expected-steps solve of the classic board (rational arithmetic, residual verified).
#[divan::bench(sample_count = 20)]
fn exact_expected_steps(bencher: divan::Bencher) {
    let dtmc = Board::classic().dtmc().unwrap();
    let goal = StateSet::from_states(dtmc.n(), [100]);
    bencher.bench(|| divan::black_box(kolmo::analysis::exact::absorption_time_exact(&dtmc, &goal).unwrap()));
}

/// One LightOJ 1151 case as `kolmo judge lightoj-1151` answers it: validate the board (15 portals,
/// the sample's first case), check that it cannot trap, solve for the expected throws.
#[divan::bench]
fn lightoj_1151_case(bencher: divan::Bencher) {
    use kolmo::games::snakes::{BoardSpec, PortalKind, Rule};
    let pairs = [
        (4, 42),
        (9, 30),
        (16, 8),
        (14, 77),
        (32, 12),
        (37, 58),
        (47, 26),
        (48, 73),
        (62, 19),
        (70, 89),
        (71, 67),
        (80, 98),
        (87, 24),
        (96, 76),
    ];
    let mut spec = BoardSpec::empty(100);
    spec.start = 1;
    spec.rule = Rule::Stay;
    spec.portals = pairs
        .iter()
        .map(|&(u, v)| (PortalKind::Portal, u, v, None))
        .collect();
    bencher.bench(|| {
        let board = Board::new(&spec).unwrap();
        divan::black_box(board.expected_rolls_from_start().unwrap())
    });
}

/// The card game solved for every horizon (what `kolmo judge rps-cards` precomputes once per run):
/// exploration, value iteration to a 1e-13 gain bracket with the table of finite values, the
/// stationary distribution of the optimal chain.
#[divan::bench(sample_count = 20)]
fn rps_cards_solve(bencher: divan::Bencher) {
    bencher.bench(|| {
        let g = kolmo::games::rps_cards::CardGame::new().unwrap();
        divan::black_box(g.solve().unwrap().long_run.gain())
    });
}
