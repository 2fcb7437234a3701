"""Snakes and Ladders as an absorbing Markov chain (``kolmo snakes``): a board, its expected number
of rolls from every cell by solving (I − Q)E = 1, the variance, the distribution of the game's
length, each snake's and ladder's expected uses, and a race of several players."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._kolmo import InputError, snakes_analyze

__all__ = ["Board", "BoardAnalysis"]


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
        def pairs(x):
            if x is None:
                return []
            return list(x.items()) if isinstance(x, dict) else [tuple(p) for p in x]

        self.size, self.start, self.rule = int(size), int(start), rule
        self.die = die
        self.portals = [("snake", int(a), int(b)) for a, b in pairs(snakes)] + [
            ("ladder", int(a), int(b)) for a, b in pairs(ladders)
        ]
        self._classic = False

    @classmethod
    def classic(cls) -> "Board":
        """The classic 100-cell board (Milton Bradley's "Chutes and Ladders"), rule clamp."""
        b = cls()
        b._classic = True
        return b

    def analyze(self, players: int = 1) -> BoardAnalysis:
        """The board's analysis (see :class:`BoardAnalysis`); ``players`` > 1 adds the race."""
        if isinstance(self.die, (int, np.integer)):
            faces, weights = int(self.die), None
        else:
            faces, weights = 0, [float(w) for w in self.die]
        if players < 1:
            raise InputError("players: at least 1")
        return BoardAnalysis(
            **snakes_analyze(self.size, self.start, faces, weights, self.rule, self.portals, self._classic, players)
        )
