/*!
kolmo computes exact answers about finite random processes: discrete-time Markov chains
(DTMCs), and — on the same row-grouped sparse matrix — Markov decision processes and
turn-based stochastic games.

# Brief overview
- [`account`]: how a result was obtained, in types (method, guarantee of the bound), and the
  JSON conventions of the result structs (`Serialize`).
- [`sparse`]: the CSR matrix with row groups that stores every model, and the one Bellman step
  on it ([`CsrMatrix::multiply_and_reduce`](sparse::CsrMatrix::multiply_and_reduce): multiply,
  reduce each group by max or min, record the choice; compensated sums; a Gauss–Seidel variant).
- [`exact`]: the scalar trait (`f64` and exact rationals: arithmetic only), recovering fractions
  from `f64`.
- [`model`]: [`Dtmc`](model::Dtmc), [`Mdp`](model::Mdp), [`Game`](model::Game), labels, rewards.
- [`graph`]: strongly connected components, reachability, the qualitative probability-0 /
  probability-1 sets of chains, MDPs and games, maximal end components, attractors.
- [`linsolve`]: dense LU (faer), Gaussian elimination over any scalar, triangular solves with a
  Woodbury correction, sparse LU, Krylov, topological solving, and the automatic choice between
  them; the solver factory per arithmetic ([`Solvable`](linsolve::Solvable)).
- [`explore`]: reachable-state exploration from initial states and a successor function.
- [`sim`]: seeded, parallel Monte Carlo whose result does not depend on the thread count.
- [`io`]: model files (DRN, PRISM explicit, JSON, CSV, Matrix Market, NumPy).
- [`analysis`]: absorbing chains (expected steps, variance, expected visits, the fundamental
  matrix, absorption probabilities), transient distributions, stationary distributions, races of
  independent players.
- [`mdp`]: Markov decision processes: reachability, total and discounted reward, finite
  horizons, long-run average reward, with guaranteed bounds.
- [`game`]: turn-based stochastic games: the Bellman step by owner, finite horizons, the
  long-run gain, reachability games.
- [`interrupt`]: the process-wide stop request (Ctrl-C): every long loop checks it between
  units of work and returns [`Error::Interrupted`].
- [`games`]: built-in models: Snakes and Ladders, the 3-card rock-paper-scissors game, the
  ladder-climbing MDP of Codeforces 1245E.

# Layers
Each layer uses only the layers below it (shared/DESIGN.md; `tests/layers.rs` reads the sources
and fails on an import that points up or sideways; tests may use anything):

```text
 games (and the other front ends)
 game
 mdp
 analysis
 linsolve (with the solver factories) · sim · explore · io
 graph (chains, MDPs and games)
 model
 exact (arithmetic only)
 sparse (the CSR matrix, the multiply-and-reduce kernel)
 interrupt (the process-wide stop request every long loop checks)
 numeric · error · progress · account
```
Games build models through `explore`; analyses take models and return result structs; nothing
here prints. The layers from `sim`, `explore` and `io` down are the crate `kolmo-core`
(re-exported here under the same names), so the compiler too keeps them from using the layers
above, and a build compiles them while it compiles faer, which only `linsolve` needs. faer's
dense and sparse LU are wrapped in the crate `kolmo-lu` (re-exported as
[`linsolve::DenseLu`] and [`linsolve::SparseLu`]), which compiles beside this one.

# Example
```
use kolmo::games::snakes::{Board, AnalysisOptions};

let board = Board::classic();
let analysis = board.analyze(&AnalysisOptions::default())?;
// Expected number of rolls to finish the Milton Bradley board from cell 0.
assert!((analysis.expected_rolls - 35.834938413695).abs() < 1e-9);
assert!(analysis.solve.residual < 1e-12);
# Ok::<(), Box<dyn std::error::Error>>(())
```
*/
#![deny(missing_docs)]

// The lower layers live in `kolmo-core` (they need no linear algebra, so they compile while faer
// does); they are re-exported here under their own names.
pub use kolmo_core::{Error, Result, StateId, excerpt, preview};
pub use kolmo_core::{
    account, exact, explore, graph, interrupt, io, lang, model, numeric, progress, sim, sparse,
};

pub mod analysis;
pub mod check;
pub mod game;
pub mod games;
pub mod linsolve;
pub mod mdp;
