"""Snakes and Ladders as an absorbing Markov chain (``kolmo snakes``): a board, its expected number
of rolls from every cell by solving (I − Q)E = 1, the variance, the distribution of the game's
length, each snake's and ladder's expected uses, and a race of several players; the board and the
game length drawn as figures (with matplotlib when it is installed, else as SVG text)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _checks
from ._checks import finite, integer
from ._kolmo import (
    InputError,
    _Board,
    snakes_board_figure,
    snakes_board_svg,
    snakes_length_figure,
    snakes_length_svg,
)

# Integers passed to the engine are checked to fit its types here; the engine then applies its own
# limits (cells, faces) with its messages.
MAX_CELLS = 2**62
MAX_FACES = 2**62

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Board", "BoardAnalysis"]

# The engine's figure colours (Okabe–Ito, colour-blind friendly), so that both drawings agree.
_BLUE, _GREEN, _VERMILION, _GREY = "#0072B2", "#009E73", "#D55E00", "#5A5A5A"
_PALETTE = [_BLUE, _VERMILION, _GREEN, "#E69F00", "#CC79A7", "#56B4E9", "#000000"]
# Beyond this many rolls the game length is drawn as a line rather than bars (as the engine does).
_MAX_BARS = 1000


@dataclass(frozen=True)
class BoardAnalysis:
    """A board's analysis (one player unless ``players`` > 1).

    expected_rolls: from the start, relative error at most ``error_bound`` (as every entry of
    ``expected_rolls_by_cell``); variance and std_dev of the number of rolls; pmf: ``P(T = t)``
    for t = 0, 1, ... until the tail is below 1e-12; median, mode and min_rolls; portal_usage:
    ``(kind, from, to, expected uses per game)``; with several players win_probability per seat
    and expected_rounds.
    """

    expected_rolls: float
    variance: float
    std_dev: float
    error_bound: float
    expected_rolls_by_cell: np.ndarray
    variance_by_cell: np.ndarray
    pmf: np.ndarray
    median: Optional[int]
    mode: Optional[int]
    min_rolls: int
    portal_usage: List[Tuple[str, int, int, float]]
    win_probability: Optional[np.ndarray] = None
    expected_rounds: Optional[float] = None


class Board:
    """A Snakes and Ladders board: cells 0..size, the token starting at ``start``; ``snakes`` and
    ``ladders`` map an entrance cell to its exit (or are lists of ``(from, to)``); ``die`` is the
    number of faces of a fair die or a list of face weights; ``rule`` says what a roll past the
    end does: ``"clamp"`` (land on the last cell), ``"stay"`` (exact landing needed) or
    ``"bounce"`` (walk back by the excess). Bad boards raise :class:`kolmo.InputError` naming the
    cell."""

    def __init__(
        self,
        size: int = 100,
        snakes: Union[Dict[int, int], Sequence[Tuple[int, int]], None] = None,
        ladders: Union[Dict[int, int], Sequence[Tuple[int, int]], None] = None,
        die: Union[int, Sequence[float]] = 6,
        rule: str = "clamp",
        start: int = 0,
    ):
        def pairs(x, what):
            if x is None:
                return []
            if isinstance(x, dict):
                items = list(x.items())
            elif isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
                raise InputError("%s: a dict {from: to} or a list of (from, to) pairs is needed, not %r" % (what, x))
            else:
                items = [tuple(p) if isinstance(p, (tuple, list)) else p for p in x]
            out = []
            for p in items:
                if not (isinstance(p, tuple) and len(p) == 2):
                    raise InputError("%s: %r is not a (from, to) pair" % (what, p))
                out.append((_checks.integer(p[0], what, -MAX_CELLS, MAX_CELLS), _checks.integer(p[1], what, -MAX_CELLS, MAX_CELLS)))
            return out

        self.size = _checks.integer(size, "size", 1, MAX_CELLS)
        self.start = _checks.integer(start, "start", -MAX_CELLS, MAX_CELLS)
        if not isinstance(rule, str):
            raise InputError("rule: %r is not \"clamp\", \"stay\" or \"bounce\"" % (rule,))
        self.rule = rule
        if _checks.is_int(die):
            self.die = _checks.integer(die, "die", 1, MAX_FACES)
        elif isinstance(die, (str, bytes)) or not hasattr(die, "__iter__"):
            raise InputError("die: %r is neither a number of faces nor a list of face weights" % (die,))
        else:
            self.die = [_checks.finite(w, "die[%d]" % k) for k, w in enumerate(die)]
        self.portals = [("snake", a, b) for a, b in pairs(snakes, "snakes")] + [
            ("ladder", a, b) for a, b in pairs(ladders, "ladders")
        ]
        self._classic = False

    @classmethod
    def classic(cls) -> "Board":
        """The classic 100-cell board (Milton Bradley's "Chutes and Ladders"), rule clamp."""
        b = cls()
        b._classic = True
        return b

    def _engine(self) -> _Board:
        """The board built by the engine (a bad board raises :class:`kolmo.InputError` here)."""
        if isinstance(self.die, (int, np.integer)):
            faces, weights = int(self.die), None
        else:
            faces, weights = 0, [float(w) for w in self.die]
        return _Board(self.size, self.start, faces, weights, self.rule, self.portals, self._classic)

    def analyze(self, players: int = 1) -> BoardAnalysis:
        """The board's analysis (see :class:`BoardAnalysis`); ``players`` > 1 adds the race."""
        return BoardAnalysis(**self._engine().analyze(integer(players, "players", 1)))

    def plot_board(self) -> Union["Figure", str]:
        """The board as ``kolmo snakes --plot-board`` draws it: the cells in a grid numbered from
        the bottom-left, rows in alternating directions, each shaded by the expected number of
        times the token stands on it per game; ladders as green and snakes as red arrows from
        entrance (dot) to exit; a colour bar.

        Returns a ``matplotlib.figure.Figure`` (made without pyplot, so no GUI backend is
        needed: ``fig.savefig("board.png")``, or display it in a notebook) if matplotlib can be
        imported; otherwise the same figure drawn by the engine, as SVG text (a ``str`` starting
        ``<svg``: write it to a ``.svg`` file). Both are drawn from one description, the
        engine's (which cell sits where, its shade, the arrows, the colour scale). Boards of more
        than 900 cells raise :class:`kolmo.InputError` (the numbers would be unreadable), as bad
        boards do."""
        matplotlib_figure = _matplotlib_figure()
        if matplotlib_figure is None:
            return snakes_board_svg(self._engine())
        return _draw_board(matplotlib_figure, snakes_board_figure(self._engine()))

    def plot_length(
        self, players: int = 1, quantiles: Optional[Sequence[float]] = None
    ) -> Union["Figure", str]:
        """The distribution of the game's length as ``kolmo snakes --plot`` draws it: bars of
        P(T = t), the probability that the game ends at roll t, with the cumulative P(T ≤ t) on a
        second axis (right), the mean, the median and the ``quantiles`` (levels in (0, 1];
        default 0.1, 0.5 and 0.9, as ``kolmo snakes``) marked by dashed lines, shown to the roll
        by which 99.9 % of the games are over; with ``players`` > 1 a second panel gives each
        seat's chance to have won by each round (seat 1 rolls first).

        Returns a ``matplotlib.figure.Figure`` (made without pyplot, so no GUI backend is
        needed) if matplotlib can be imported; otherwise the same figure drawn by the engine, as
        SVG text (a ``str`` starting ``<svg``). Both are drawn from one description, the
        engine's. A bad board, level or number of players raises :class:`kolmo.InputError`."""
        players = integer(players, "players", 1)
        levels = None if quantiles is None else [finite(q, "quantiles") for q in quantiles]
        board = self._engine()
        matplotlib_figure = _matplotlib_figure()
        if matplotlib_figure is None:
            return snakes_length_svg(board, players, levels)
        return _draw_length(matplotlib_figure, snakes_length_figure(board, players, levels))


def _matplotlib_figure():
    """matplotlib's ``Figure`` class, or None when matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401  (fails first when matplotlib is absent or blocked)
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure


def _draw_board(figure_class, d: Dict[str, Any]) -> "Figure":
    """The board figure with matplotlib, from the engine's description ``d``
    (``snakes_board_figure``): one square per cell at (col, row), arrows, a colour bar."""
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch, Rectangle

    rows, cols = d["rows"], d["cols"]
    side = min(0.75, 9.0 / max(rows, cols))
    fig = figure_class(figsize=(cols * side + 3.2, rows * side + 1.6), constrained_layout=True)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["Blues"] if hasattr(matplotlib, "colormaps") else matplotlib.cm.get_cmap("Blues")
    norm = Normalize(0.0, d["scale_max"])
    cells = d["cells"]
    number_size = max(5.0, min(10.0, 60.0 / max(rows, cols)))
    for n, r, c, v in zip(cells["number"], cells["row"], cells["col"], cells["visits"]):
        fill = cmap(norm(v)) if np.isfinite(v) else cmap(0.0)
        framed = n == d["goal"] or n == d["start"]
        ax.add_patch(
            Rectangle(
                (c, r), 1, 1, facecolor=fill, edgecolor="black" if framed else "0.6", linewidth=2.5 if framed else 0.5
            )
        )
        # Black or white, whichever reads better on the cell.
        ink = "white" if 0.299 * fill[0] + 0.587 * fill[1] + 0.114 * fill[2] < 140 / 255 else "black"
        ax.text(c + 0.06, r + 0.94, str(n), ha="left", va="top", fontsize=number_size, color=ink)
        note = "goal" if n == d["goal"] else "start" if n == d["start"] else None
        if note:
            ax.text(c + 0.94, r + 0.06, note, ha="right", va="bottom", fontsize=number_size * 0.8, color=ink)
    place = {int(n): (c + 0.5, r + 0.5) for n, r, c in zip(cells["number"], cells["row"], cells["col"])}
    first = place[1] if 1 in place else (0.5, 0.5)
    for a in d["arrows"]:  # ladders first: snakes are drawn over them
        color = _GREEN if a["up"] else _VERMILION
        start, end = place.get(a["from"], first), place.get(a["to"], first)
        ax.add_patch(
            FancyArrowPatch(
                start, end, arrowstyle="-|>", mutation_scale=14, color=color, linewidth=2, shrinkA=0, shrinkB=0
            )
        )
        ax.plot(*start, "o", color=color, markersize=4)
    ax.set_xlim(0, cols)
    ax.set_ylim(0, rows)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(d["title"] + "\n" + "\n".join(d["notes"]), fontsize=10, loc="left")
    ticks = np.linspace(0.0, d["scale_max"], d["scale_ticks"] + 1)
    fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, ticks=ticks, label="expected visits per game")
    ax.legend(
        handles=[
            Line2D([], [], color=_GREEN, linewidth=3, marker="o", label=f"ladder ({d['ladders']})"),
            Line2D([], [], color=_VERMILION, linewidth=3, marker="o", label=f"snake ({d['snakes']})"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.0, 0.0),
        fontsize=8,
        title="entrance (dot) to exit",
        title_fontsize=8,
    )
    return fig


def _draw_length(figure_class, d: Dict[str, Any]) -> "Figure":
    """The game-length figure with matplotlib, from the engine's description ``d``
    (``snakes_length_figure``): bars of P(T = t), the cumulative on a twin axis, the markers, and
    with several players each seat's curve in a second panel."""
    race = d["race"]
    fig = figure_class(figsize=(12, 6.5 if race is None else 12), constrained_layout=True)
    ax = fig.add_subplot(2, 1, 1) if race is not None else fig.add_subplot()
    t = np.arange(len(d["pmf"]))
    if len(t) <= _MAX_BARS:
        ax.bar(t, d["pmf"], width=0.8, color=_BLUE, alpha=0.55, label="P(game ends at roll t)")
    else:
        ax.plot(t, d["pmf"], color=_BLUE, linewidth=2, label="P(game ends at roll t)")
    ax.set_xlim(-0.5, d["x_max"] + 0.5)
    ax.set_ylim(0, max(float(np.max(d["pmf"])), 1e-300) * 1.1)
    ax.set_title(d["title"])
    ax.set_xlabel(d["x_label"])
    ax.set_ylabel(d["y_label"])
    cdf_ax = ax.twinx()
    cdf_ax.plot(t, d["cdf"], color=_VERMILION, linewidth=2.5, label="P(finished by roll t), right axis")
    cdf_ax.set_ylim(0, 1)
    cdf_ax.set_ylabel(d["cdf_label"])
    for i, m in enumerate(d["markers"]):
        ax.axvline(
            m["at"],
            color="black" if m["mean"] else _GREY,
            linestyle="--",
            linewidth=2 if m["mean"] else 1,
        )
        # Staggered so that neighbouring markers do not overwrite each other.
        ax.text(
            m["at"],
            0.97 - 0.07 * (i % 4),
            " " + m["label"],
            transform=ax.get_xaxis_transform(),
            va="top",
            fontsize=9,
            bbox=dict(facecolor="white", alpha=0.85, edgecolor="none", pad=1),
        )
    handles = ax.get_legend_handles_labels()[0] + cdf_ax.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="center right")
    if race is not None:
        race_ax = fig.add_subplot(2, 1, 2)
        for seat, (curve, label) in enumerate(zip(race["by_round"], race["labels"])):
            race_ax.plot(
                np.arange(len(curve)),
                curve,
                color=_PALETTE[seat % len(_PALETTE)],
                linewidth=2.5 if seat < len(_PALETTE) else 1,
                label=label if label is not None else "_nolegend_",
            )
        race_ax.set_xlim(0, race["x_max"])
        race_ax.set_ylim(0, None)
        race_ax.set_title(race["title"])
        race_ax.set_xlabel(race["x_label"])
        race_ax.set_ylabel(race["y_label"])
        race_ax.legend(loc="lower right")
    return fig
