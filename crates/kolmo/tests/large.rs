//! Large chains: the Krylov path of the solver (BiCGSTAB with a Gauss–Seidel preconditioner and
//! refinement to a certified residual) against direct solvers and an independent residual check,
//! on random boards with the peer harness's portal distribution (shared/peers/gen_board.py).

use kolmo::analysis::AbsorbingChain;
use kolmo::games::snakes::{Board, BoardSpec};
use kolmo::linsolve::SolveMethod;
use kolmo::model::Dtmc;

fn random_board(size: i64, portals: u32, seed: u64) -> Dtmc {
    let spec = BoardSpec::empty(size).with_random_portals(portals, seed).unwrap();
    Board::new(&spec).unwrap().dtmc().unwrap()
}

/// `max |1 − ((I − Q)t)ᵢ|` over the transient states, in plain `f64`.
fn residual_of(d: &Dtmc, goal: u32, t: &[f64]) -> f64 {
    (0..d.n())
        .filter(|&i| i as u32 != goal)
        .map(|i| {
            let (cols, vals) = d.matrix().row(i);
            let qt: f64 = cols.iter().zip(vals).map(|(&j, &p)| p * t[j as usize]).sum();
            (1.0 - (t[i] - qt)).abs()
        })
        .fold(0.0, f64::max)
}

// Direct (the automatic choice on 3,000 cells: triangular solve + Woodbury, or dense LU) versus
// BiCGSTAB and GMRES forced: the same expected steps, variances and expected visits.
#[test]
fn krylov_methods_agree_with_the_direct_solver() {
    let d = random_board(3000, 300, 11);
    let goal = d.label("goal").unwrap().clone();
    let direct = AbsorbingChain::new(&d, &goal).unwrap();
    let reference = direct.absorption_time();
    assert!(
        !reference.method.to_string().contains("BiCGSTAB"),
        "{}",
        reference.method
    );
    let visits = direct.expected_visits(0).unwrap();
    for method in [SolveMethod::BiCgStab, SolveMethod::Gmres] {
        let chain = AbsorbingChain::with_method(&d, &goal, method).unwrap();
        let time = chain.absorption_time();
        let name = if method == SolveMethod::BiCgStab {
            "BiCGSTAB"
        } else {
            "GMRES"
        };
        assert!(time.method.to_string().contains(name), "{}", time.method);
        assert!(
            time.error_bound <= 1e-10,
            "{method:?}: bound {}",
            time.error_bound
        );
        for (s, (x, y)) in time.mean.iter().zip(&reference.mean).enumerate() {
            assert!(
                (x - y).abs() <= 1e-10 * y.abs(),
                "{method:?} state {s}: {x} vs {y}"
            );
        }
        for (s, (x, y)) in time
            .variance
            .as_ref()
            .unwrap()
            .iter()
            .zip(reference.variance.as_ref().unwrap())
            .enumerate()
        {
            assert!(
                (x - y).abs() <= 1e-8 * y.abs().max(1.0),
                "{method:?} variance at {s}: {x} vs {y}"
            );
        }
        let v = chain.expected_visits(0).unwrap();
        for (s, (x, y)) in v.visits.iter().zip(&visits.visits).enumerate() {
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "{method:?} visits of {s}: {x} vs {y}"
            );
        }
    }
}

// Beyond 20,000 states with long-range portals the automatic choice is the Krylov method on the
// large component; the reported bound holds against an independent residual evaluation, and the
// answer matches GMRES forced on the whole matrix.
#[test]
fn a_wide_board_is_solved_iteratively_with_a_certified_bound() {
    let d = random_board(25_000, 5_000, 3);
    let goal_set = d.label("goal").unwrap().clone();
    let goal = goal_set.to_vec()[0];
    let chain = AbsorbingChain::new(&d, &goal_set).unwrap();
    let (t, residual) = chain.expected_steps();
    // The 10,000 portal entrances (and the cells past the last snake) are components of their
    // own, 40 % of the cells: the Krylov method runs on the one large component only, the rest is
    // substitution.
    assert!(
        chain.method().contains("strongly connected components"),
        "{}",
        chain.method()
    );
    assert!(chain.method().contains("BiCGSTAB"), "{}", chain.method());
    assert!(residual <= 1e-10, "certified residual {residual}");
    // An f64 evaluation of the residual has rounding of about ulp(t): allow for it.
    let size = t.iter().fold(0.0f64, |a, v| a.max(*v));
    let check = residual_of(&d, goal, &t);
    assert!(
        check <= residual + 8.0 * size * f64::EPSILON,
        "independent residual {check}"
    );
    let gmres = AbsorbingChain::with_method(&d, &goal_set, SolveMethod::Gmres).unwrap();
    let (u, _) = gmres.expected_steps();
    for (s, (x, y)) in t.iter().zip(&u).enumerate() {
        assert!((x - y).abs() <= 2e-10 * y.abs(), "state {s}: {x} vs {y}");
    }
    // Slowly mixing, as the peer boards: thousands of rolls from the start.
    assert!(t[0] > 500.0 && t[0] < 50_000.0, "{}", t[0]);
}
