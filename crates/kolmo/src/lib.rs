/*!
kolmo computes exact answers about finite random processes: discrete-time Markov chains
(DTMCs), and — on the same row-grouped sparse matrix — Markov decision processes and
turn-based stochastic games.

# Brief overview
- [`sparse`]: the CSR matrix with row groups that stores every model.
- [`explore`]: reachable-state exploration from initial states and a successor function.
- [`model`]: [`Dtmc`](model::Dtmc), labels.
- [`graph`]: strongly connected components, reachability, the qualitative
  probability-0 / probability-1 sets.
- [`linsolve`]: dense LU (faer), Gaussian elimination over any scalar, triangular solves with a
  Woodbury correction, and the automatic choice between them.
- [`exact`]: the scalar trait (`f64` and exact rationals), recovering fractions from `f64`.
- [`analysis`]: absorbing chains (expected steps, variance, expected visits, the fundamental
  matrix, absorption probabilities), transient distributions, races of independent players.
- [`sim`]: seeded, parallel Monte Carlo whose result does not depend on the thread count.
- [`game`]: turn-based stochastic games: the Bellman step, finite horizons, the long-run gain.
- [`games`]: built-in models: Snakes and Ladders, the 3-card rock-paper-scissors game, the
  ladder-climbing MDP of Codeforces 1245E.

Layers depend only on the layers below them: games build models
through `explore`; analyses take models and return result structs; nothing here prints.

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

pub mod analysis;
mod error;
pub mod exact;
pub mod explore;
pub mod game;
pub mod games;
pub mod graph;
pub mod io;
pub mod linsolve;
pub mod mdp;
pub mod model;
pub mod numeric;
pub mod progress;
pub mod sim;
pub mod sparse;

pub use error::{BoardError, Error, Result, excerpt};

/// Index of a state in a model: states are numbered `0..n` in exploration order.
pub type StateId = u32;
