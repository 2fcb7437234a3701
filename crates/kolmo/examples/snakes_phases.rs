//! Times the phases of `Board::analyze` on a random board (for the matrix-free work).
//! `cargo run --release --example snakes_phases -- SIZE PORTALS SEED RULE`
use kolmo::analysis::AbsorbingChain;
use kolmo::games::snakes::{Board, BoardSpec};
use kolmo::model::StateSet;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    let size: i64 = a.get(1).map_or(Ok(1_000_000), |s| s.parse())?;
    let portals: u32 = a.get(2).map_or(Ok(size as u32 / 5), |s| s.parse())?;
    let seed: u64 = a.get(3).map_or(Ok(1), |s| s.parse())?;
    let mut spec = BoardSpec::empty(size).with_random_portals(portals, seed)?;
    spec.rule = a
        .get(4)
        .map_or(Ok(kolmo::games::snakes::Rule::Clamp), |s| s.parse())?;
    let t = Instant::now();
    let board = Board::new(&spec)?;
    println!("board {:.3}", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let op = kolmo::games::snakes::BoardOperator::new(&board);
    println!(
        "operator setup {:.3} explicit rows {:?}",
        t.elapsed().as_secs_f64(),
        op.map(|o| o.explicit_rows())
    );
    let t = Instant::now();
    let mf = board.absorption_time_matrix_free().ok_or("no operator")?;
    println!(
        "matrix-free mean+var {:.3} value {} residual {:e} bound {:e} var {}\n  {}",
        t.elapsed().as_secs_f64(),
        mf.mean[board.initial_cell() as usize],
        mf.residual,
        mf.error_bound,
        mf.variance[0],
        mf.method
    );
    if a.get(5).is_some() {
        return Ok(());
    }
    let t = Instant::now();
    let dtmc = board.dtmc()?;
    println!("dtmc {:.3}", t.elapsed().as_secs_f64());
    let goal = StateSet::from_states(dtmc.n(), [board.size()]);
    let t = Instant::now();
    let chain = AbsorbingChain::new(&dtmc, &goal)?;
    println!("chain setup {:.3}", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let (m, r) = chain.expected_steps();
    println!(
        "expected steps {:.3} value {} residual {r:e}",
        t.elapsed().as_secs_f64(),
        m[board.initial_cell() as usize]
    );
    let t = Instant::now();
    let at = chain.absorption_time();
    println!(
        "absorption time (mean+var) {:.3} var {}",
        t.elapsed().as_secs_f64(),
        at.variance[0]
    );
    let t = Instant::now();
    let v = chain.expected_visits(board.initial_cell())?;
    println!(
        "visits {:.3} residual {:e}",
        t.elapsed().as_secs_f64(),
        v.residual
    );
    println!("{}", chain.method());
    Ok(())
}
