"""The figures of kolmo snakes from Python: matplotlib figures drawn from the engine's description
(kolmo-plot), or the engine's own SVG when matplotlib is not installed. Values from
../shared/cases/01-snakes.md."""
import io
import sys

import numpy as np
import pytest

import kolmo
from kolmo import snakes
from kolmo._kolmo import _Board, snakes_board_figure, snakes_length_figure

# The classic board: E[T] = 35.834938413695426 rolls, P(T ≤ 20) = 0.2748926611928901, median 29.
MEAN = 35.834938413695426


def test_board_description():
    d = snakes_board_figure(_Board(classic=True))
    cells = d["cells"]
    assert (d["rows"], d["cols"]) == (10, 10)
    assert list(cells["number"]) == list(range(1, 101))
    # Boustrophedon from the bottom-left: cell 1 bottom-left, 10 bottom-right, 11 above 10.
    assert (cells["row"][0], cells["col"][0]) == (0, 0)
    assert (cells["row"][9], cells["col"][9]) == (0, 9)
    assert (cells["row"][10], cells["col"][10]) == (1, 9)
    assert (cells["row"][99], cells["col"][99]) == (9, 0)
    # The shades are the expected visits: with the start's one visit (cell 0, off the board) they
    # add up to the expected number of rolls.
    assert abs(cells["visits"].sum() + 1 - MEAN) < 1e-9
    assert cells["visits"][0] == 0  # the foot of the ladder 1 → 38 is never stood on
    assert d["scale_max"] >= cells["visits"].max()
    assert (d["start"], d["goal"]) == (0, 100)
    assert (d["ladders"], d["snakes"]) == (9, 10)
    assert d["arrows"][0] == {"from": 1, "to": 38, "kind": "ladder", "up": True}
    assert {"from": 87, "to": 24, "kind": "snake", "up": False} in d["arrows"]
    assert d["title"] == "classic board: expected visits to each cell per game"


def test_length_description():
    d = snakes_length_figure(_Board(classic=True))
    a = snakes.Board.classic().analyze()
    n = d["x_max"] + 1
    assert len(d["pmf"]) == len(d["cdf"]) == n
    np.testing.assert_array_equal(d["pmf"], a.pmf[:n])
    assert 0.999 <= d["pmf"].sum() <= 1 + 1e-12
    assert abs(d["cdf"][20] - 0.2748926611928901) < 1e-12
    assert d["median"] == 29 and abs(d["mean"] - MEAN) < 1e-9
    labels = [m["label"] for m in d["markers"]]
    assert labels[1:3] == ["median 29", "mean 35.83"] and len(labels) == 4
    assert [q[0] for q in d["quantiles"]] == [0.1, 0.5, 0.9]
    assert d["race"] is None
    race = snakes_length_figure(_Board(classic=True), players=2, quantiles=[0.99])["race"]
    assert len(race["by_round"]) == 2 and len(race["by_round"][0]) == race["x_max"] + 1
    assert abs(race["wins"].sum() - 1) < 1e-9 and race["wins"][0] > race["wins"][1]
    assert race["labels"][1].startswith("seat 2 (wins 0.")


def test_plot_board_with_matplotlib():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, Rectangle

    fig = snakes.Board.classic().plot_board()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2  # the board and its colour bar
    ax = fig.axes[0]
    assert len([p for p in ax.patches if isinstance(p, Rectangle)]) == 100
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == 19
    assert sum(a.get_edgecolor()[1] > 0.5 for a in arrows) == 9  # the ladders, green
    texts = {t.get_text() for t in ax.texts}
    assert {"1", "10", "11", "100", "goal"} <= texts
    assert "classic board: expected visits to each cell per game" in ax.get_title(loc="left")
    # Drawn without pyplot or a GUI backend.
    out = io.BytesIO()
    fig.savefig(out, format="png")
    assert out.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_length_with_matplotlib():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    board = snakes.Board.classic()
    fig = board.plot_length()
    d = snakes_length_figure(_Board(classic=True))
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2  # the bars, and the cumulative on a twin axis
    bars = fig.axes[0].containers[0]
    assert len(bars) == len(d["pmf"]) == d["x_max"] + 1
    assert [b.get_height() for b in bars] == list(d["pmf"])
    assert len(fig.axes[0].lines) == 4  # mean, median, the 0.1 and 0.9 quantiles
    np.testing.assert_array_equal(fig.axes[1].lines[0].get_ydata(), d["cdf"])
    fig3 = board.plot_length(players=3, quantiles=[0.5, 0.99])
    assert len(fig3.axes) == 3
    race = fig3.axes[2]
    assert len(race.lines) == 3
    assert [t.get_text()[:13] for t in race.get_legend().get_texts()] == [
        "seat 1 (wins ",
        "seat 2 (wins ",
        "seat 3 (wins ",
    ]
    fig3.savefig(io.BytesIO(), format="svg")


def test_without_matplotlib_the_engines_svg(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    board = snakes.Board.classic()
    svg = board.plot_board()
    assert isinstance(svg, str) and svg.startswith("<svg")
    assert "classic board: expected visits to each cell per game" in svg
    assert "ladder (9)" in svg and svg.rstrip().endswith("</svg>")
    svg = board.plot_length(players=2)
    assert isinstance(svg, str) and svg.startswith("<svg")
    assert "Game length on the classic board: 35.83 rolls on average" in svg
    assert "median 29" in svg and "2 players taking turns" in svg


def test_bad_figures_raise():
    with pytest.raises(kolmo.InputError, match="900 cells"):
        snakes.Board(1000).plot_board()
    with pytest.raises(kolmo.InputError, match="quantile"):
        snakes.Board.classic().plot_length(quantiles=[1.5])
    with pytest.raises(kolmo.InputError, match="players"):
        snakes.Board.classic().plot_length(players=0)
    with pytest.raises(kolmo.InputError, match="players"):
        snakes.Board.classic().plot_length(players="2")
    with pytest.raises(kolmo.InputError, match="quantiles"):
        snakes.Board.classic().plot_length(quantiles=["0.5"])
