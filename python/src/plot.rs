//! The figures of `kolmo snakes` for Python (`kolmo.snakes.Board.plot_board()` and
//! `plot_length()`): each figure's description from the crate kolmo-plot as plain Python data
//! (dicts, lists, NumPy arrays), which `kolmo/snakes.py` draws with matplotlib, and the same
//! figure rendered by kolmo-plot as SVG text, for when matplotlib is not installed. Each takes the
//! board built once by `_Board` (lib.rs).

use crate::interrupt::interruptible_with;
use crate::{InputError, SnakesBoard, board_error};
use kolmo::games::snakes::{AnalysisOptions, Board};
use kolmo_plot::{BoardFigure, GameLengthFigure};
use numpy::IntoPyArray;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Registers this module's functions in the extension module `m`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(snakes_board_figure, m)?)?;
    m.add_function(wrap_pyfunction!(snakes_board_svg, m)?)?;
    m.add_function(wrap_pyfunction!(snakes_length_figure, m)?)?;
    m.add_function(wrap_pyfunction!(snakes_length_svg, m)?)?;
    Ok(())
}

/// kolmo-plot's error: a board too large to draw is an [`InputError`], a drawing failure a
/// `RuntimeError`.
fn to_py(e: kolmo_plot::Error) -> PyErr {
    match e {
        kolmo_plot::Error::BoardTooLarge { .. } => InputError::new_err(e.to_string()),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

/// The board figure of `board`: a board too large to draw is refused before the analysis.
fn board_figure(py: Python<'_>, board: &Board) -> PyResult<BoardFigure> {
    BoardFigure::check(board).map_err(to_py)?;
    let analysis = interruptible_with(py, || board.analyze(&AnalysisOptions::default()), board_error)?;
    BoardFigure::of(board, &analysis).map_err(to_py)
}

/// The game-length figure of `board` with `players` taking turns, `quantiles` marked (by default
/// those of `kolmo snakes`, 0.1, 0.5 and 0.9).
fn length_figure(
    py: Python<'_>,
    board: &Board,
    players: usize,
    quantiles: Option<Vec<f64>>,
) -> PyResult<GameLengthFigure> {
    let defaults = AnalysisOptions::default();
    let options = AnalysisOptions {
        players,
        quantiles: quantiles.unwrap_or(defaults.quantiles),
        ..defaults
    };
    let analysis = interruptible_with(py, || board.analyze(&options), board_error)?;
    Ok(GameLengthFigure::of(board, &analysis))
}

/// The board figure's description (`kolmo snakes --plot-board`) of `board`: `title`; `notes`
/// (two lines: the grid's numbering, what the shade means); `rows`, `cols`; `cells`, a dict of arrays over cells 1..=size: `number`, `row` (from the bottom, 0),
/// `col` (from the left, 0), `visits` (the shade: expected times the token stands on the cell per
/// game); `start`, `goal`; `arrows`, a list of dicts `from`, `to`, `kind` ("ladder", "snake",
/// "portal"), `up` (drawn green if it leads up, red if down), ladders first; `ladders`, `snakes`
/// (the legend's counts); `scale_max`, `scale_ticks` (the colour scale's top and its number of
/// tick intervals). Raises `InputError` for a bad board or one of more than 900 cells.
#[pyfunction]
fn snakes_board_figure<'py>(py: Python<'py>, board: PyRef<'_, SnakesBoard>) -> PyResult<Bound<'py, PyDict>> {
    let f = board_figure(py, &board.board)?;
    let cells = PyDict::new(py);
    let column = |get: fn(&kolmo_plot::Cell) -> u32| f.cells.iter().map(get).collect::<Vec<u32>>();
    cells.set_item("number", column(|c| c.number).into_pyarray(py))?;
    cells.set_item("row", column(|c| c.row).into_pyarray(py))?;
    cells.set_item("col", column(|c| c.col).into_pyarray(py))?;
    let visits: Vec<f64> = f.cells.iter().map(|c| c.visits).collect();
    cells.set_item("visits", visits.into_pyarray(py))?;
    let arrows = f
        .arrows
        .iter()
        .map(|a| {
            let d = PyDict::new(py);
            d.set_item("from", a.from)?;
            d.set_item("to", a.to)?;
            d.set_item("kind", a.kind.name())?;
            d.set_item("up", a.up)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let d = PyDict::new(py);
    d.set_item("title", &f.title)?;
    d.set_item("notes", f.notes.to_vec())?;
    d.set_item("rows", f.rows)?;
    d.set_item("cols", f.cols)?;
    d.set_item("cells", cells)?;
    d.set_item("start", f.start)?;
    d.set_item("goal", f.goal)?;
    d.set_item("arrows", arrows)?;
    d.set_item("ladders", f.ladders)?;
    d.set_item("snakes", f.snakes)?;
    d.set_item("scale_max", f.scale_max)?;
    d.set_item("scale_ticks", f.scale_ticks)?;
    Ok(d)
}

/// The board figure (`kolmo snakes --plot-board`) as an SVG document, drawn by kolmo-plot; the
/// board as `_Board` built it. Raises as `snakes_board_figure`.
#[pyfunction]
fn snakes_board_svg(py: Python<'_>, board: PyRef<'_, SnakesBoard>) -> PyResult<String> {
    let figure = board_figure(py, &board.board)?;
    py.detach(|| kolmo_plot::svg(&figure)).map_err(to_py)
}

/// The game-length figure's description (`kolmo snakes --plot`) of `board`, `players` taking
/// turns, the `quantiles` levels (each in (0, 1]; None: 0.1, 0.5 and 0.9, as `kolmo snakes`)
/// marked: `title`, `x_label`, `y_label`, `cdf_label`; `x_max`, the last
/// roll shown (where 99.9 % of games are over, every marker shown); `pmf` and `cdf`, arrays of
/// P(T = t) and P(T ≤ t) for t = 0..=x_max; `mean`, `median` (None beyond the computed horizon),
/// `quantiles`, a list of `(level, rolls or None)`; `markers`, a list of dicts `at`, `label`,
/// `mean` (the lines of the mean, the median and the quantiles, left to right, equal values
/// sharing one); `converged`; `race`: None for one player, else a dict `title`, `x_label`,
/// `y_label`, `x_max` (rounds shown), `by_round` (per seat an array: P(seat has won by round t),
/// t = 0..=x_max), `wins` (per seat), `labels` (per seat the legend's text, None for seats the
/// legend leaves out). Raises `InputError` for a bad board, level or number of players.
#[pyfunction]
#[pyo3(signature = (board, players=1, quantiles=None))]
fn snakes_length_figure<'py>(
    py: Python<'py>,
    board: PyRef<'_, SnakesBoard>,
    players: usize,
    quantiles: Option<Vec<f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let f = length_figure(py, &board.board, players, quantiles)?;
    let markers = f
        .markers
        .iter()
        .map(|m| {
            let d = PyDict::new(py);
            d.set_item("at", m.at)?;
            d.set_item("label", &m.label)?;
            d.set_item("mean", m.mean)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let race = match f.race {
        None => None,
        Some(r) => {
            let d = PyDict::new(py);
            d.set_item("title", r.title)?;
            d.set_item("x_label", r.x_label)?;
            d.set_item("y_label", r.y_label)?;
            d.set_item("x_max", r.x_max)?;
            let by_round: Vec<_> = r.by_round.into_iter().map(|c| c.into_pyarray(py)).collect();
            d.set_item("by_round", by_round)?;
            d.set_item("wins", r.wins.into_pyarray(py))?;
            d.set_item("labels", r.labels)?;
            Some(d)
        }
    };
    let d = PyDict::new(py);
    d.set_item("title", f.title)?;
    d.set_item("x_label", f.x_label)?;
    d.set_item("y_label", f.y_label)?;
    d.set_item("cdf_label", f.cdf_label)?;
    d.set_item("x_max", f.x_max)?;
    d.set_item("pmf", f.pmf.into_pyarray(py))?;
    d.set_item("cdf", f.cdf.into_pyarray(py))?;
    d.set_item("mean", f.mean)?;
    d.set_item("median", f.median)?;
    d.set_item("quantiles", f.quantiles)?;
    d.set_item("markers", markers)?;
    d.set_item("converged", f.converged)?;
    d.set_item("race", race)?;
    Ok(d)
}

/// The game-length figure (`kolmo snakes --plot`) as an SVG document, drawn by kolmo-plot; the
/// arguments as `snakes_length_figure`.
#[pyfunction]
#[pyo3(signature = (board, players=1, quantiles=None))]
fn snakes_length_svg(
    py: Python<'_>,
    board: PyRef<'_, SnakesBoard>,
    players: usize,
    quantiles: Option<Vec<f64>>,
) -> PyResult<String> {
    let figure = length_figure(py, &board.board, players, quantiles)?;
    py.detach(|| kolmo_plot::svg(&figure)).map_err(to_py)
}
