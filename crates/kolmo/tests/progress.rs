//! Progress observers: an installed `Progress` sees the Krylov products, the explored states and
//! the distribution steps of analyses that were given no options for it.
//!
//! One test: the observers are process-wide, and this file's tests share the process.

use kolmo::analysis::AbsorbingChain;
use kolmo::analysis::transient::distribution_after;
use kolmo::explore::{ExploreOptions, Generator, Successors, explore};
use kolmo::games::snakes::{Board, BoardSpec};
use kolmo::linsolve::SolveMethod;
use kolmo::progress::{self, Progress, Work};

static KRYLOV: Progress = Progress::new();
static EXPLORATION: Progress = Progress::new();
static STEPS: Progress = Progress::new();

/// A walk on `0..=n` that steps up or back to 0 and stops at `n`.
struct Walk(u32);

impl Generator for Walk {
    type State = u32;
    fn initial_states(&self) -> Vec<u32> {
        vec![0]
    }
    fn expand(&self, &s: &u32, out: &mut Successors<u32>) {
        if s == self.0 {
            out.add(s, 1.0);
        } else {
            out.add(s + 1, 0.75);
            out.add(0, 0.25);
        }
    }
}

#[test]
fn installed_observers_see_the_work() {
    progress::install(Work::Krylov, &KRYLOV);
    progress::install(Work::Exploration, &EXPLORATION);
    progress::install(Work::Steps, &STEPS);

    // Exploration: every state discovered is counted once.
    let walk = explore(&Walk(10_000), ExploreOptions::default()).unwrap();
    assert_eq!(EXPLORATION.iterations(), walk.states.len() as u64);
    assert!(EXPLORATION.residual().is_nan());

    let spec = BoardSpec::empty(3000).with_random_portals(300, 11).unwrap();
    let d = Board::new(&spec).unwrap().dtmc().unwrap();

    // Krylov: products counted, the last residual that of the solve's end.
    let goal = d.label("goal").unwrap().clone();
    let chain = AbsorbingChain::with_method(&d, &goal, SolveMethod::BiCgStab).unwrap();
    let time = chain.absorption_time();
    assert!(time.method.to_string().contains("BiCGSTAB"), "{}", time.method);
    assert!(KRYLOV.iterations() > 0);
    let r = KRYLOV.residual();
    assert!(r.is_finite() && r < 1.0, "last relative residual {r}");

    // Steps: one report per step.
    let mut start = vec![0.0; d.n()];
    start[0] = 1.0;
    distribution_after(&d, &start, 25).unwrap();
    assert_eq!(STEPS.iterations(), 25);

    // Uninstalled: no more counting.
    for work in Work::ALL {
        progress::uninstall(work);
    }
    let products = KRYLOV.iterations();
    let _ = AbsorbingChain::with_method(&d, &goal, SolveMethod::BiCgStab)
        .unwrap()
        .absorption_time();
    assert_eq!(KRYLOV.iterations(), products);
}
