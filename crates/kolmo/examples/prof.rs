use kolmo::analysis::AbsorbingChain;
use kolmo::games::snakes::Board;
use kolmo::model::StateSet;
use std::time::Instant;
fn main() {
    let dtmc = Board::classic().dtmc().unwrap();
    let goal = StateSet::from_states(dtmc.n(), [100]);
    let n = 20000;
    let t = Instant::now();
    for _ in 0..n { std::hint::black_box(kolmo::graph::Qualitative::new(&dtmc, &goal)); }
    println!("qual {:?}", t.elapsed() / n);
    let t = Instant::now();
    for _ in 0..n { std::hint::black_box(AbsorbingChain::new(&dtmc, &goal).unwrap()); }
    println!("new {:?}", t.elapsed() / n);
    let c = AbsorbingChain::new(&dtmc, &goal).unwrap();
    let t = Instant::now();
    for _ in 0..n { std::hint::black_box(c.expected_steps()); }
    println!("solve {:?}", t.elapsed() / n);
    let t = Instant::now();
    for _ in 0..n { std::hint::black_box(c.absorption_time()); }
    println!("abs time {:?}", t.elapsed() / n);
    lu10();
}
#[allow(dead_code)]
fn lu10() {
    let n = 20000u32;
    let t = Instant::now();
    let mut lu = None;
    for _ in 0..n {
        lu = Some(std::hint::black_box(kolmo::linsolve::DenseLu::new(10, "x", |mut a| {
            for i in 0..10 { a[(i, i)] = 2.0; if i > 0 { a[(i, i - 1)] = -0.5; } }
        }).unwrap()));
    }
    println!("lu10 new {:?}", t.elapsed() / n);
    let lu = lu.unwrap();
    let mut b = vec![1.0; 10];
    let t = Instant::now();
    for _ in 0..n { lu.solve_in_place(&mut b); std::hint::black_box(&b); }
    println!("lu10 solve {:?}", t.elapsed() / n);
}
