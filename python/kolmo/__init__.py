"""kolmo: exact, certified answers about Markov chains, Markov decision processes and stochastic
games, from Python.

Every number comes with its guarantee: a result object holds NumPy arrays and the certified
``error_bound`` that goes with them, or the engine refuses with an exception
(:class:`InputError` for bad input, naming the place; :class:`NotCertified` when no answer could
be certified). The engine is kolmo's Rust library; long computations release the GIL.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

import numpy as np

from ._kolmo import InputError, NotCertified, _Chain, __version__

__all__ = ["Chain", "Absorbing", "Stationary", "CommunicatingClass", "InputError", "NotCertified", "__version__"]


@dataclass(frozen=True)
class Absorbing:
    """The absorbing-chain analysis towards a target set (Kemeny & Snell, *Finite Markov Chains*,
    ch. III; Grinstead & Snell, *Introduction to Probability*, §11.2).

    expected_steps: float array of length n, the expected number of steps to reach the target from
        each state (0 on the target, ``inf`` where it is not reached with probability 1);
        relative error at most ``expected_steps_error_bound``.
    hitting_probability: float array of length n, the probability of ever reaching the target;
        absolute error at most ``hitting_probability_error_bound``.
    method: how the expected steps were solved.
    """

    expected_steps: np.ndarray
    expected_steps_error_bound: float
    hitting_probability: np.ndarray
    hitting_probability_error_bound: float
    method: str


@dataclass(frozen=True)
class Stationary:
    """The stationary distribution of a chain with one closed class (Grinstead & Snell §11.3).

    distribution: float array of length n (0 on transient states), each entry within
        ``error_bound`` of the true one; residual: ``max |πP − π|``; period: the closed class's
        period; states: the closed class.
    """

    distribution: np.ndarray
    error_bound: float
    residual: float
    period: int
    states: List[int]


@dataclass(frozen=True)
class CommunicatingClass:
    """A communicating class: its states (ascending), whether it is closed (recurrent), and its
    period (``None`` for a single state without a self-loop, which has no cycle)."""

    states: List[int]
    closed: bool
    period: Optional[int]


def _coordinates(P: Any):
    """(n, rows, cols, probs) of a transition matrix given as a 2-D NumPy array or a list of rows
    (lists), a SciPy sparse matrix (anything with ``tocoo()``) or a list of ``(i, j, p)`` tuples
    (n then the largest index + 1)."""
    if hasattr(P, "tocoo"):
        coo = P.tocoo()
        if coo.shape[0] != coo.shape[1]:
            raise InputError("P: a square matrix is needed, got shape %s" % (coo.shape,))
        return coo.shape[0], np.asarray(coo.row, np.int64), np.asarray(coo.col, np.int64), np.asarray(coo.data, np.float64)
    if isinstance(P, np.ndarray) or (isinstance(P, Sequence) and P and not isinstance(P[0], tuple)):
        a = np.asarray(P, dtype=np.float64)
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise InputError("P: a square matrix is needed, got shape %s" % (a.shape,))
        rows, cols = np.nonzero(a)
        return a.shape[0], rows.astype(np.int64), cols.astype(np.int64), a[rows, cols]
    entries = list(P)
    if not entries:
        raise InputError("P: no transitions")
    try:
        rows = np.asarray([int(e[0]) for e in entries], np.int64)
        cols = np.asarray([int(e[1]) for e in entries], np.int64)
        probs = np.asarray([float(e[2]) for e in entries], np.float64)
    except (TypeError, ValueError, IndexError) as e:
        raise InputError("P: entries must be (i, j, p) triples: %s" % e) from None
    return int(max(rows.max(), cols.max())) + 1, rows, cols, probs


class Chain:
    """A discrete-time Markov chain.

    ``Chain(P, names=None)``: ``P`` is the transition matrix — a square NumPy array or list of
    rows, a SciPy sparse matrix (CSR, CSC, COO, ...) or a list of ``(i, j, p)`` tuples (repeats
    summed) — whose rows each sum to 1; ``names``
    optionally names the states. Raises :class:`InputError` naming the state whose row is not a
    probability distribution.
    """

    def __init__(self, P: Any, names: Optional[Sequence[str]] = None):
        n, rows, cols, probs = _coordinates(P)
        self._chain = _Chain.from_coo(n, rows, cols, probs)
        if names is not None:
            names = [str(x) for x in names]
            if len(names) != n:
                raise InputError("names: %d names for %d states" % (len(names), n))
        self.names = names

    @property
    def n(self) -> int:
        """The number of states."""
        return self._chain.n

    def _state(self, s: Any) -> int:
        if self.names is not None and isinstance(s, str):
            try:
                return self.names.index(s)
            except ValueError:
                raise InputError("no state named %r" % s) from None
        return int(s)

    def absorbing(self, target: Any) -> Absorbing:
        """Expected steps to reach ``target`` (a state or a list of states, by index or name) and
        the probability of reaching it, from every state, each with its certified bound."""
        if isinstance(target, (str, int, np.integer)):
            target = [target]
        d = self._chain.absorbing([self._state(t) for t in target])
        return Absorbing(
            expected_steps=d["expected_steps"],
            expected_steps_error_bound=d["expected_steps_error_bound"],
            hitting_probability=d["hitting_probability"],
            hitting_probability_error_bound=d["hitting_probability_error_bound"],
            method=d["expected_steps_method"],
        )

    def stationary(self) -> Stationary:
        """The stationary distribution (one closed class needed; :class:`InputError` otherwise)."""
        d = self._chain.stationary()
        return Stationary(d["distribution"], d["error_bound"], d["residual"], d["period"], list(d["states"]))

    def classes(self) -> List[CommunicatingClass]:
        """The communicating classes, ordered by their smallest state."""
        return [CommunicatingClass(list(s), c, p) for s, c, p in self._chain.classes()]

    def period(self) -> Optional[int]:
        """The period of an irreducible chain (``None`` when the chain has several classes)."""
        cs = self.classes()
        return cs[0].period if len(cs) == 1 else None
