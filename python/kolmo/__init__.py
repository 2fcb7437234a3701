"""kolmo: exact, certified answers about Markov chains, Markov decision processes and stochastic
games, from Python.

Every number comes with its guarantee: a result object holds NumPy arrays and the certified
``error_bound`` that goes with them, or the engine refuses with an exception
(:class:`InputError` for bad input, naming the place; :class:`NotCertified` when no answer could
be certified). The engine is kolmo's Rust library; long computations release the GIL.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, List, NamedTuple, Optional, Sequence, Union

import numpy as np

import os

from ._kolmo import DEFAULT_MAX_STATES, InputError, NotCertified, _Chain, _Mdp, __version__
from ._kolmo import check as _check
from ._kolmo import read as _read
from . import _checks, cards, snakes

__all__ = [
    "Chain",
    "Absorbing",
    "ExactAbsorbing",
    "Stationary",
    "CommunicatingClass",
    "Distribution",
    "ExpectedReward",
    "Fundamental",
    "LongRunReward",
    "MDP",
    "Game",
    "Solution",
    "solve",
    "check",
    "read",
    "explore",
    "snakes",
    "cards",
    "InputError",
    "NotCertified",
    "__version__",
]


@dataclass(frozen=True)
class Absorbing:
    """The absorbing-chain analysis towards a target set (Kemeny & Snell, *Finite Markov Chains*,
    ch. III; Grinstead & Snell, *Introduction to Probability*, §11.2).

    expected_steps: float array of length n, the expected number of steps to reach the target from
        each state (0 on the target, ``inf`` where it is not reached with probability 1);
        relative error at most ``expected_steps_error_bound``.
    hitting_probability: float array of length n, the probability of ever reaching the target;
        absolute error at most ``hitting_probability_error_bound``.
    variance: float array of length n, the variance of the number of steps, ``(2N − I)t − t²``
        (Kemeny & Snell, Theorem 3.3.5), or ``None`` when not asked for; ``second_moment_residual``
        the residual of its solve.
    method: how the expected steps were solved; seconds: the engine's time (the GIL released).
    """

    expected_steps: np.ndarray
    expected_steps_error_bound: float
    hitting_probability: np.ndarray
    hitting_probability_error_bound: float
    method: str
    variance: Optional[np.ndarray] = None
    second_moment_residual: Optional[float] = None
    seconds: float = 0.0


@dataclass(frozen=True)
class ExactAbsorbing:
    """The absorbing-chain analysis in exact arithmetic (``absorbing(target, exact=True)``):
    ``expected_steps`` and ``variance`` from each state as :class:`fractions.Fraction` (``math.inf``
    where the target is not reached with probability 1), on the probabilities as given — the
    Fractions of :func:`explore` or of ``(i, j, Fraction)`` tuples exactly, floats as their exact
    binary values."""

    expected_steps: List[Union[Fraction, float]]
    variance: List[Union[Fraction, float]]


def _exact_texts(probs: Sequence[Any]) -> Optional[List[str]]:
    """The probabilities as fractions "p/q" when every one is an int or a Fraction, else None."""
    if probs and all(isinstance(p, (int, Fraction)) and not isinstance(p, bool) for p in probs):
        return [str(Fraction(p)) for p in probs]
    return None


@dataclass(frozen=True)
class Stationary:
    """The stationary distribution of a chain with one closed class (Grinstead & Snell §11.3).

    distribution: float array of length n (0 on transient states), each entry within
        ``error_bound`` of the true one; residual: ``max |πP − π|``; period: the closed class's
        period; states: the closed class; seconds: the engine's time (the GIL released).
    """

    distribution: np.ndarray
    error_bound: float
    residual: float
    period: int
    states: List[int]
    seconds: float = 0.0


class Distribution(NamedTuple):
    """A distribution after some steps: ``probabilities`` (length n; a float array, or Fractions
    with ``exact=True``) and the certified bound on the 1-norm of its error (so on every entry's
    absolute error; 0 for exact values)."""

    probabilities: Any
    error_bound: float


class Fundamental(NamedTuple):
    """The fundamental matrix of an absorbing chain: the transient ``states`` (ascending), ``N``
    (k × k, ``N[i, j]`` the expected visits to ``states[j]`` from ``states[i]``), the certified
    bound on every entry's absolute error, and the residual ``max |(I − Q)N − I|``."""

    states: List[int]
    N: np.ndarray
    error_bound: float
    residual: float


class ExpectedReward(NamedTuple):
    """The expected total reward before a target is entered: ``values`` (length n; a float array,
    or Fractions with ``exact=True``) and the certified bound on each value's absolute error
    (0 for exact values)."""

    values: Any
    error_bound: float


class LongRunReward(NamedTuple):
    """A closed class's long-run average reward per step: its ``states``, the ``gain`` (the same
    from every state of the class) within ``gain_error_bound``, the ``bias`` on the class (in the
    order of ``states``, normalised by ``π h = 0``: ``h_j − h_i`` is the extra total reward of
    starting in ``j`` rather than ``i``) and the residual of its equations."""

    states: List[int]
    gain: float
    gain_error_bound: float
    bias: np.ndarray
    bias_residual: float


@dataclass(frozen=True)
class CommunicatingClass:
    """A communicating class: its states (ascending), whether it is closed (recurrent), and its
    period (``None`` for a single state without a self-loop, which has no cycle)."""

    states: List[int]
    closed: bool
    period: Optional[int]


def _coordinates(P: Any):
    """(n, rows, cols, probs, exact texts) of a transition matrix given as a 2-D NumPy array or a
    list of rows (lists), a SciPy sparse matrix (anything with ``tocoo()``) or a list of
    ``(i, j, p)`` triples with integer ``i``, ``j`` (n then the largest index + 1)."""
    if P is None or isinstance(P, (str, bytes, dict)):
        raise InputError("P: %r is not a matrix (an array, a list of rows, a SciPy sparse matrix or (i, j, p) triples)" % (P,))
    if hasattr(P, "tocoo"):
        coo = P.tocoo()
        if coo.shape[0] != coo.shape[1]:
            raise InputError("P: a square matrix is needed, got shape %s" % (coo.shape,))
        data = _checks.real_array(coo.data, "P's entries", 1)
        return coo.shape[0], np.asarray(coo.row, np.int64), np.asarray(coo.col, np.int64), data, None
    if isinstance(P, np.ndarray) or (isinstance(P, Sequence) and P and not isinstance(P[0], tuple)):
        a = _checks.real_array(P, "P", 2)
        if a.shape[0] != a.shape[1]:
            raise InputError("P: a square matrix is needed, got shape %s" % (a.shape,))
        rows, cols = np.nonzero(a)
        return a.shape[0], rows.astype(np.int64), cols.astype(np.int64), a[rows, cols], None
    entries = list(P)
    if not entries:
        raise InputError("P: no transitions")
    for k, e in enumerate(entries):
        if not isinstance(e, (tuple, list)) or len(e) != 3:
            raise InputError("P: entry %d is %r, not an (i, j, p) triple" % (k, e))
        if not (_checks.is_int(e[0]) and _checks.is_int(e[1])):
            raise InputError(
                "P: entry %d is %r: i and j must be integer state indices (a matrix's rows go in a list of lists or an array)" % (k, e)
            )
        _checks.finite(e[2], "P: entry %d's probability" % k)
    rows = np.asarray([int(e[0]) for e in entries], np.int64)
    cols = np.asarray([int(e[1]) for e in entries], np.int64)
    probs = np.asarray([float(e[2]) for e in entries], np.float64)
    if rows.min() < 0 or cols.min() < 0:
        raise InputError("P: a negative state index")
    n = int(max(rows.max(), cols.max())) + 1
    if n > len(entries):
        raise InputError(
            "P: states numbered up to %d but only %d transitions: some state has no outgoing transition (every row must sum to 1)"
            % (n - 1, len(entries))
        )
    return n, rows, cols, probs, _exact_texts([e[2] for e in entries])


def _names(names: Any, n: int) -> Optional[List[str]]:
    """A model's state names, checked: one per state, distinct."""
    if names is None:
        return None
    if isinstance(names, (str, bytes)):
        raise InputError("names: a list of names is needed, not %r" % (names,))
    names = [str(x) for x in names]
    if len(names) != n:
        raise InputError("names: %d names for %d states" % (len(names), n))
    if len(set(names)) != n:
        seen = set()
        twice = next(x for x in names if x in seen or seen.add(x))
        raise InputError("names: %r names two states" % twice)
    return names


def _labels(labels: Any, n: int) -> dict:
    """A model's labels, checked: a dict from a name to a list of states (indices below n)."""
    if labels is None:
        return {}
    if not isinstance(labels, dict):
        raise InputError("labels: a dict from a label's name to its states is needed, not %r" % (labels,))
    out = {}
    for k, v in labels.items():
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            raise InputError("labels[%r]: a list of states is needed, not %r" % (k, v))
        out[str(k)] = [_checks.integer(x, "labels[%r]" % k, 0, n - 1) for x in v]
    return out


class _Model:
    """What a :class:`Chain` and an :class:`MDP` share: their states, named by index, by name, or
    (for a model built by :func:`explore`) by value."""

    #: The states' names (``None``: numbered only).
    names: Optional[List[str]] = None
    #: The states as given to :func:`explore` (``None`` otherwise).
    states: Optional[List[Any]] = None

    def _state(self, s: Any) -> int:
        # An explored model's states are named by their values.
        if self.states is not None:
            if not hasattr(self, "_index"):
                self._index = {v: i for i, v in enumerate(self.states)}
            try:
                return self._index[s]
            except (KeyError, TypeError):
                raise InputError("no state %r" % (s,)) from None
        if self.names is not None and isinstance(s, str):
            try:
                return self.names.index(s)
            except ValueError:
                raise InputError("no state named %r" % s) from None
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise InputError("no state %r (a state is given by its index%s)" % (s, " or name" if self.names else ""))
        if not 0 <= int(s) < self.n:
            raise InputError("state %d: not a state (0 to %d)" % (int(s), self.n - 1))
        return int(s)



class Chain(_Model):
    """A discrete-time Markov chain.

    ``Chain(P, names=None, labels=None, rewards=None)``: ``P`` is the transition matrix — a square
    NumPy array or list of rows, a SciPy sparse matrix (CSR, CSC, COO, ...) or a list of
    ``(i, j, p)`` tuples (repeats summed; ``p`` a float or a :class:`fractions.Fraction`, kept
    exactly) — whose rows each sum to 1; ``names`` optionally names the states, ``labels`` maps a
    label to its states (a target can then be named by its label), ``rewards`` gives a reward per
    state and step (floats, ints or Fractions) for :meth:`expected_reward` and
    :meth:`long_run_reward`. Raises :class:`InputError` naming the state whose row is not a
    probability distribution.
    """

    @_checks.boundary
    def __init__(self, P: Any, names: Optional[Sequence[str]] = None, labels: Optional[dict] = None, rewards: Any = None):
        if isinstance(P, _Chain):
            self._chain = P
            n = P.n
        else:
            n, rows, cols, probs, exact = _coordinates(P)
            self._chain = _Chain.from_coo(n, rows, cols, probs, exact)
        self.names = _names(names, n)
        self.labels = _labels(labels, n)
        self.rewards = None if rewards is None else self._reward_vector(rewards)

    @property
    def n(self) -> int:
        """The number of states."""
        return self._chain.n

    def _targets(self, target: Any) -> List[int]:
        """A target given as a state, a label's name, a state's name or a list of states (for an
        explored chain: its states' values)."""
        if target is None:
            raise InputError("target: no state given")
        if isinstance(target, str) and target in self.labels:
            return list(self.labels[target])
        if isinstance(target, (tuple, set, frozenset, np.ndarray)) and self.states is None:
            target = list(target.tolist() if isinstance(target, np.ndarray) else target)
        if self.states is not None and not isinstance(target, list):
            target = [target]
        if isinstance(target, (str, int, np.integer)):
            target = [target]
        try:
            return [self._state(t) for t in target]
        except InputError as e:
            raise InputError("target: %s" % e) from None

    @_checks.boundary
    def absorbing(self, target: Any, variance: bool = True, exact: bool = False) -> Union[Absorbing, ExactAbsorbing]:
        """Expected steps to reach ``target`` (a state, a label or a list of states, by index or
        name), their variance (``variance=False`` saves its solve) and the probability of reaching
        it, from every state, each with its certified bound; with ``exact`` the expected steps and
        variances as fractions (:class:`ExactAbsorbing`)."""
        if _checks.flag(exact, "exact"):
            mean, var = self._chain.absorbing_exact(self._targets(target))
            as_fraction = lambda x: math.inf if x is None else Fraction(x)  # noqa: E731
            return ExactAbsorbing([as_fraction(x) for x in mean], [as_fraction(x) for x in var])
        return Absorbing(**self._chain.absorbing(self._targets(target), _checks.flag(variance, "variance")))

    @_checks.boundary
    def fundamental(self, target: Any) -> Fundamental:
        """The fundamental matrix ``N = (I − Q)⁻¹`` of the chain absorbed in ``target`` (at most
        5,000 transient states, :class:`InputError` beyond): a :class:`Fundamental`, ``N[i, j]``
        the expected visits to ``states[j]`` from ``states[i]`` (Kemeny & Snell, §3.2), every
        entry within ``error_bound``."""
        d = self._chain.fundamental(self._targets(target))
        k = len(d["states"])
        return Fundamental(list(d["states"]), d["matrix"].reshape(k, k), d["error_bound"], d["residual"])

    @_checks.boundary
    def distribution_after(self, k: int, start: Any = 0, exact: bool = False) -> Distribution:
        """The distribution after ``k`` steps from ``start`` (a state, or an initial distribution
        of length n): a :class:`Distribution`, ``(probabilities, error_bound)``, the bound certified
        on the 1-norm error (so on every entry). With ``exact`` (from a state) the probabilities
        as Fractions and the bound 0; refused when ``k² × transitions`` is too much work for exact
        arithmetic."""
        k = _checks.integer(k, "k")
        if _checks.flag(exact, "exact"):
            if isinstance(start, (list, tuple, np.ndarray)) and self.states is None:
                raise InputError("start: exact distributions start from one state")
            return Distribution([Fraction(x) for x in self._chain.distribution_after_exact(int(k), self._state(start))], 0.0)
        if self.states is not None or isinstance(start, (str, int, np.integer)):
            p0 = np.zeros(self.n)
            p0[self._state(start)] = 1.0
        else:
            p0 = np.ascontiguousarray(_checks.real_array(start, "start", 1))
        d = self._chain.distribution_after(int(k), p0)
        return Distribution(d["distribution"], d["error_bound"])

    @_checks.boundary
    def first_passage(self):
        """The mean first-passage matrix ``M`` (n × n, 0 on the diagonal, ``inf`` where a state is
        not reached surely) and its certified relative error bound (Kemeny & Snell, §4.4)."""
        d = self._chain.first_passage()
        return d["matrix"].reshape(self.n, self.n), d["error_bound"]

    @_checks.boundary
    def stationary(self, exact: bool = False) -> Stationary:
        """The stationary distribution (one closed class needed; :class:`InputError` otherwise).
        With ``exact`` the distribution as a list of :class:`fractions.Fraction` (bound 0), on the
        chain's probabilities as given (Fractions exactly, floats as the simplest fraction within
        2 ulps)."""
        st = Stationary(**self._chain.stationary())
        if not _checks.flag(exact, "exact"):
            return st
        pi = [Fraction(x) for x in self._chain.stationary_exact()]
        return Stationary(pi, 0.0, 0.0, st.period, st.states, st.seconds)

    def _reward_vector(self, rewards: Any):
        """(floats, exact texts or None) of a reward per state."""
        if isinstance(rewards, (str, bytes)) or not hasattr(rewards, "__iter__"):
            raise InputError("rewards: one reward per state is needed, not %r" % (rewards,))
        raw = list(rewards)
        if len(raw) != self.n:
            raise InputError("rewards: %d rewards for %d states" % (len(raw), self.n))
        values = np.asarray([_checks.finite(x, "rewards[%d]" % k) for k, x in enumerate(raw)], dtype=np.float64)
        return values, _exact_texts([int(x) if isinstance(x, np.integer) else x for x in raw])

    def _rewards_or_own(self, rewards: Any):
        if rewards is not None:
            return self._reward_vector(rewards)
        if self.rewards is None:
            raise InputError("rewards: the chain has none (Chain(P, rewards=...)) and none were given")
        return self.rewards

    @_checks.boundary
    def expected_reward(self, target: Any, rewards: Any = None, exact: bool = False) -> ExpectedReward:
        """The expected total reward earned before ``target`` is entered (a state, label or list
        of states), the reward of a state earned at each visit to it outside the target
        (Kemeny & Snell §3.3; PRISM's ``R=? [F target]``): values of length n (0 on the target,
        ``inf`` where it is not reached with probability 1) with a certified bound on each
        value's absolute error. ``rewards`` defaults to the chain's own. With ``exact`` the
        values as Fractions (``math.inf`` for infinite), on exact rewards (ints, Fractions, or
        floats as the simplest nearby fraction) and probabilities."""
        values, texts = self._rewards_or_own(rewards)
        exact = _checks.flag(exact, "exact")
        v, bound, ex = self._chain.expected_reward(self._targets(target), values, exact, texts)
        if exact:
            return ExpectedReward([math.inf if x is None else Fraction(x) for x in ex], 0.0)
        return ExpectedReward(v, bound)

    @_checks.boundary
    def long_run_reward(self, rewards: Any = None) -> List[LongRunReward]:
        """The long-run average reward per step (the gain) and the bias of each closed class
        (Puterman, *Markov Decision Processes*, §8.2): one :class:`LongRunReward` per closed
        class, ordered by their smallest state. ``rewards`` (one per state) defaults to the
        chain's own."""
        values, _ = self._rewards_or_own(rewards)
        return [LongRunReward(list(st), g, gb, h, hr) for st, g, gb, h, hr in self._chain.long_run_reward(values)]

    @_checks.boundary
    def classes(self) -> List[CommunicatingClass]:
        """The communicating classes, ordered by their smallest state."""
        return [CommunicatingClass(list(s), c, p) for s, c, p in self._chain.classes()]

    @_checks.boundary
    def period(self) -> Optional[int]:
        """The period of an irreducible chain (``None`` when the chain has several classes)."""
        cs = self.classes()
        return cs[0].period if len(cs) == 1 else None


@dataclass(frozen=True)
class Solution:
    """An MDP's (or a game's) optimal values and an optimal policy (Puterman, *Markov Decision
    Processes*, 1994; for games Shapley 1953, Condon 1992).

    values: float array of length n, each within ``error_bound`` of the optimum (``lower`` and
        ``upper`` the certified interval; ``±inf`` where the objective is infinite); policy: int
        array of length n, an optimal action per state (the action's index in the model as given;
        for a game each state's owner's choice); iterations and method: how it was solved.
    exact: with ``exact=True``, the exact values as :class:`fractions.Fraction` (``±math.inf``
        where infinite), the decimals in ``values`` then their roundings and the policy the exact
        solver's; ``None`` when not asked for or refused, ``exact_refused`` then says why.
    bias: for ``"average"``, the bias ``h`` of the optimal policy (Puterman §8.2) when its chain
        is unichain, else ``None``.
    decisions: for ``"horizon"``, int array (steps × n): ``decisions[t, s]`` the optimal action in
        ``s`` with ``steps − t`` steps to go (only the first stage beyond 10⁷ entries).
    actions: for a model built by :func:`explore`, the optimal action of each state as its
        ``successors`` named it (the policy's actions by name), else ``None``.
    """

    values: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    policy: np.ndarray
    error_bound: float
    iterations: int
    method: str
    exact: Optional[List[Union[Fraction, float]]] = None
    exact_refused: Optional[str] = None
    bias: Optional[np.ndarray] = None
    decisions: Optional[np.ndarray] = None
    actions: Optional[List[Any]] = None


class MDP(_Model):
    """A Markov decision process: states, a set of actions per state, transition probabilities and
    a reward per state–action pair. Build one from the conventions users already have:
    :meth:`from_mdptoolbox` (``P[A, S, S]``, ``R[S, A]``) or :meth:`from_quantecon` (``R[S, A]``,
    ``Q[S, A, S]``, ``beta``)."""

    def __init__(self, mdp: Any, actions: np.ndarray, choice_ptr: np.ndarray, discount: Optional[float]):
        self._mdp = mdp
        self._actions = actions
        self._choice_ptr = choice_ptr
        self.discount = discount

    @property
    def n(self) -> int:
        """The number of states."""
        return self._mdp.n

    @classmethod
    @_checks.boundary
    def from_mdptoolbox(cls, P: Any, R: Any, discount: Optional[float] = None) -> "MDP":
        """MDPToolbox's convention: ``P`` of shape (A, S, S) (or a sequence of A matrices, NumPy
        or SciPy sparse), ``R`` of shape (S, A), (S,) or (A, S, S) (the latter's expected reward
        per state–action pair is used); every action available in every state."""
        if P is None or isinstance(P, (str, bytes, dict)) or not hasattr(P, "__len__"):
            raise InputError("P: %r is not a sequence of transition matrices (shape (A, S, S))" % (P,))
        if isinstance(P, np.ndarray):
            mats = list(_checks.real_array(P, "P", 3))
        else:
            mats = [P[a] if hasattr(P[a], "tocoo") else _checks.real_array(P[a], "P[%d]" % a, 2) for a in range(len(P))]
        if not mats:
            raise InputError("P: no actions")
        A = len(mats)
        S = mats[0].shape[0]
        rows, cols, probs = [], [], []
        for a, Pa in enumerate(mats):
            if Pa.shape != (S, S):
                raise InputError("P[%d]: shape %s, expected (%d, %d)" % (a, Pa.shape, S, S))
            _, r, c, p, _ = _coordinates(Pa)
            rows.append(r * A + a)
            cols.append(c)
            probs.append(p)
        R = _checks.real_array(R.toarray() if hasattr(R, "toarray") else R, "R")
        if not np.isfinite(R).all():
            raise InputError("R: not every reward is finite")
        if R.shape == (S, A):
            r = R.reshape(-1)
        elif R.shape == (S,):
            r = np.repeat(R, A)
        elif R.shape == (A, S, S):
            r = np.stack([(np.asarray(mats[a].toarray() if hasattr(mats[a], "toarray") else mats[a]) * R[a]).sum(axis=1) for a in range(A)], axis=1).reshape(-1)
        else:
            raise InputError("R: shape %s, expected (%d, %d), (%d,) or (%d, %d, %d)" % (R.shape, S, A, S, A, S, S))
        ptr = np.arange(0, S * A + 1, A, dtype=np.int64)
        mdp = _Mdp.from_choices(ptr, np.concatenate(rows), np.concatenate(cols), np.concatenate(probs), np.ascontiguousarray(r))
        return cls(mdp, np.tile(np.arange(A), S), ptr, discount)

    @classmethod
    @_checks.boundary
    def from_quantecon(cls, R: Any, Q: Any, beta: Optional[float] = None, s_indices: Any = None, a_indices: Any = None) -> "MDP":
        """QuantEcon's ``DiscreteDP`` conventions, both of them:

        - product form: ``R`` of shape (S, A) with ``-inf`` for the actions not available in a
          state, ``Q`` of shape (S, A, S);
        - state–action form (``s_indices`` and ``a_indices`` given, length L): ``R`` of length L,
          ``Q`` of shape (L, S) as a NumPy array or a SciPy sparse matrix; pair ``k`` is action
          ``a_indices[k]`` of state ``s_indices[k]`` (in any order; S is the number of columns of
          ``Q``).

        ``beta`` is the discount, used by :func:`solve` when none is given. A policy then names
        each state's action by its index ``a`` as given."""
        if (s_indices is None) != (a_indices is None):
            raise InputError("s_indices, a_indices: give both (QuantEcon's state-action form) or neither")
        if s_indices is not None:
            return cls._from_state_action(R, Q, beta, s_indices, a_indices)
        R = _checks.real_array(R, "R")
        Q = _checks.real_array(Q, "Q")
        if R.ndim != 2 or Q.shape != (R.shape[0], R.shape[1], R.shape[0]):
            raise InputError("R, Q: shapes %s and %s, expected (S, A) and (S, A, S)" % (R.shape, Q.shape))
        if np.isnan(R).any() or np.isposinf(R).any():
            raise InputError("R: NaN or +inf reward (only -inf marks an action that is not available)")
        feasible = np.isfinite(R)
        S = R.shape[0]
        for s in range(S):
            if not feasible[s].any():
                raise InputError("state %d: no action available (every reward is -inf)" % s)
        states, actions = np.nonzero(feasible)
        ptr = np.concatenate([[0], np.cumsum(feasible.sum(axis=1))]).astype(np.int64)
        rows, cols = np.nonzero(Q[states, actions])
        mdp = _Mdp.from_choices(
            ptr,
            rows.astype(np.int64),
            cols.astype(np.int64),
            Q[states, actions][rows, cols],
            np.ascontiguousarray(R[states, actions]),
        )
        return cls(mdp, actions.astype(np.int64), ptr, beta)

    @classmethod
    def _from_state_action(cls, R: Any, Q: Any, beta: Optional[float], s_indices: Any, a_indices: Any) -> "MDP":
        s_idx = np.asarray(s_indices)
        a_idx = np.asarray(a_indices)
        R = _checks.real_array(R, "R")
        L = R.shape[0] if R.ndim == 1 else -1
        if R.ndim != 1 or s_idx.shape != (L,) or a_idx.shape != (L,):
            raise InputError("R, s_indices, a_indices: one entry each per state-action pair, shapes %s, %s, %s" % (R.shape, s_idx.shape, a_idx.shape))
        if not (np.issubdtype(s_idx.dtype, np.integer) and np.issubdtype(a_idx.dtype, np.integer)):
            raise InputError("s_indices, a_indices: integers expected")
        if not np.isfinite(R).all():
            raise InputError("R: pair %d has the reward %r (rewards must be finite)" % (int(np.argmin(np.isfinite(R))), R[np.argmin(np.isfinite(R))]))
        if hasattr(Q, "tocoo"):
            coo = Q.tocoo()
            shape = coo.shape
            qr, qc, qp = np.asarray(coo.row, np.int64), np.asarray(coo.col, np.int64), _checks.real_array(coo.data, "Q's entries", 1)
        else:
            Qd = _checks.real_array(Q, "Q")
            if Qd.ndim != 2:
                raise InputError("Q: shape %s, expected (L, S)" % (Qd.shape,))
            shape = Qd.shape
            qr, qc = np.nonzero(Qd)
            qp = Qd[qr, qc]
            qr, qc = qr.astype(np.int64), qc.astype(np.int64)
        if shape[0] != L:
            raise InputError("Q: %d rows for %d state-action pairs" % (shape[0], L))
        S = shape[1]
        if L == 0 or S == 0:
            raise InputError("Q: no states or no state-action pairs")
        if s_idx.min() < 0 or s_idx.max() >= S or a_idx.min() < 0:
            raise InputError("s_indices, a_indices: a state outside 0..%d or a negative action" % (S - 1))
        order = np.lexsort((a_idx, s_idx))
        s_sorted, a_sorted = s_idx[order], a_idx[order]
        dup = np.nonzero((np.diff(s_sorted) == 0) & (np.diff(a_sorted) == 0))[0]
        if dup.size:
            k = int(order[dup[0] + 1])
            raise InputError("pair %d: state %d, action %d given twice" % (k, s_idx[k], a_idx[k]))
        counts = np.bincount(s_sorted, minlength=S)
        if (counts == 0).any():
            raise InputError("state %d: no action available (not in s_indices)" % int(np.argmin(counts)))
        rank = np.empty(L, np.int64)
        rank[order] = np.arange(L)
        ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        mdp = _Mdp.from_choices(ptr, rank[qr], qc, qp, np.ascontiguousarray(R[order]))
        return cls(mdp, a_sorted.astype(np.int64), ptr, beta)


class Game(MDP):
    """A two-player turn-based stochastic game: an :class:`MDP` whose states are each owned by the
    maximiser or the minimiser (``maximiser[s]``), as :func:`explore` builds with ``owner``.
    :func:`solve` gives its value for every objective — ``"discounted"``, ``"reach"``,
    ``"total"``, ``"horizon"`` and ``"average"`` (the gain of a game whose optimal play is
    unichain): the maximiser seeks the largest, the minimiser the smallest (Shapley 1953; Condon
    1992), with each state's owner's optimal choice as the policy; ``exact=True`` adds the exact
    values."""

    maximiser: np.ndarray


_OBJECTIVES = ("discounted", "average", "reach", "total", "horizon")


def _number_text(x: Any, what: str) -> str:
    """A number as the exact text the engine reads: a Fraction or int as ``p/q``, a float as its
    shortest decimal (0.9 is 9/10, as written)."""
    if isinstance(x, (float, np.floating)):
        return repr(_checks.finite(x, what))
    if not _checks.is_number(x):
        raise InputError("%s: %r is not a number" % (what, x))
    return str(Fraction(x))


@_checks.boundary
def solve(
    mdp: MDP,
    objective: str = "discounted",
    discount: Any = None,
    minimize: bool = False,
    target: Any = None,
    steps: Optional[int] = None,
    exact: bool = False,
) -> Solution:
    """Solve ``mdp`` for ``objective``, as ``kolmo solve`` does (one engine entry point for both):

    - ``"discounted"``: the expected discounted total reward (the discount from the argument or
      the model's), certified by MacQueen's bounds;
    - ``"average"``: the long-run average reward per step (the gain), with the bias;
    - ``"reach"``: the probability of reaching the states ``target``, by interval iteration;
    - ``"total"``: the expected total reward until ``target``;
    - ``"horizon"``: the expected total reward over ``steps`` steps (discounted by ``discount``
      if given), by backward induction, with every stage's decisions.

    Maximal unless ``minimize``. For a :class:`Game` (from :func:`explore` with ``owner``) the
    maximiser's states seek the largest value and the minimiser's the smallest (``minimize`` is
    ignored). A discount may
    be a float (read as its shortest decimal: 0.9 is 9/10) or a :class:`fractions.Fraction`.
    ``exact=True`` adds the exact values as Fractions (on the model's probabilities as given:
    Fractions exactly, floats as the simplest nearby fraction), or says in ``exact_refused`` why
    there are none. The values are certified within ``error_bound``, or :class:`NotCertified` is
    raised; bad arguments raise :class:`InputError`."""
    if not isinstance(mdp, MDP):
        raise InputError("mdp: %r is not a kolmo.MDP or kolmo.Game (a Chain's analyses are its methods)" % (type(mdp).__name__,))
    if objective not in _OBJECTIVES:
        raise InputError("objective: %r is not one of %s" % (objective, ", ".join(map(repr, _OBJECTIVES))))
    minimize = _checks.flag(minimize, "minimize")
    exact = _checks.flag(exact, "exact")
    if objective == "discounted" and discount is None:
        discount = mdp.discount
    if objective in ("discounted", "horizon") and discount is not None:
        discount = _number_text(discount, "discount")
    else:
        discount = None
    if steps is not None:
        steps = _checks.integer(steps, "steps")
    if isinstance(target, (set, frozenset, np.ndarray)) or (isinstance(target, tuple) and mdp.states is None):
        target = list(target.tolist() if isinstance(target, np.ndarray) else target)
    if target is not None and not isinstance(target, list):
        target = [target]
    try:
        targets = None if target is None else [mdp._state(t) for t in target]
    except InputError as e:
        raise InputError("target: %s" % e) from None
    owners = [bool(x) for x in mdp.maximiser] if isinstance(mdp, Game) else None
    d = mdp._mdp.solve(objective, discount, minimize, targets, owners, steps, exact)
    values, e = d["values"], d["error_bound"]
    finite = np.isfinite(values)
    lower = np.where(finite, values - e, values)
    upper = np.where(finite, values + e, values)
    if objective == "reach":
        lower, upper = np.clip(lower, 0, 1), np.clip(upper, 0, 1)
    start = mdp._choice_ptr[:-1]
    policy = mdp._actions[start + d["policy"].astype(np.int64)]
    exact_values = None
    if d["exact"] is not None:
        exact_values = [
            Fraction(x) if x is not None else (-math.inf if v < 0 else math.inf) for x, v in zip(d["exact"], values)
        ]
    decisions = None
    if d["decisions"] is not None:
        stages = np.asarray(d["decisions"], dtype=np.int64).reshape(-1, mdp.n)
        decisions = mdp._actions[start[None, :] + stages]
    chosen = start + d["policy"].astype(np.int64)
    names = getattr(mdp, "action_names", None)
    actions = [names[c] for c in chosen] if names is not None else None
    return Solution(
        values, lower, upper, policy, e, d["iterations"], d["method"], exact_values, d["exact_refused"], d["bias"], decisions, actions
    )


def _constant(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    raise InputError("constants: %r is not an int, float or bool" % (value,))


@_checks.boundary
def check(model: Any, properties: Any, constants: Optional[dict] = None, exact: bool = False, max_states: int = DEFAULT_MAX_STATES) -> dict:
    """Check properties on a model, as ``kolmo check --json`` does: ``model`` is a file in the
    PRISM language (``.pm``, ``.nm``, ``.prism``, ``.smg``) or any format kolmo reads;
    ``properties`` the text of one or more properties in PRISM's property language, a list of
    such texts, or the path of a property file; ``constants`` the values of undefined constants
    (``{"N": 20, "K": 4}``); ``exact`` adds exact fractions where the operator has them; a model
    with more than ``max_states`` reachable states is refused (:class:`InputError`) rather than
    built.

    Returns the document ``kolmo check --json`` writes, as a dict: ``model`` (type, states,
    transitions, choices, initial_states — their number —, deadlocks), ``constants``, ``results``
    (per property: name, property, value, lower, upper — the certified interval —, exact, method,
    seconds, and here also error_bound, the certified bound on its values' absolute error) and
    ``seconds`` (parse, build, check). Infinite values are the string ``"inf"``, as in that
    document.
    """
    model = _checks.path(model, "model")
    if isinstance(properties, bytes):
        try:
            properties = properties.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("properties: bytes that are not UTF-8 text") from None
    if isinstance(properties, (str, os.PathLike)):
        properties = [properties]
    if properties is None or not isinstance(properties, (list, tuple)):
        raise InputError("properties: %r is not a property's text, a file's path or a list of them" % (properties,))
    sources = []
    for p in properties:
        if isinstance(p, os.PathLike) or (isinstance(p, str) and "\n" not in p and os.path.isfile(p)):
            try:
                with open(p, encoding="utf-8") as f:
                    sources.append((os.fspath(p), f.read()))
            except (OSError, UnicodeDecodeError) as e:
                raise InputError("properties: %s: %s" % (os.fspath(p), e)) from None
        elif isinstance(p, str):
            sources.append(("<property %d>" % (len(sources) + 1), p))
        else:
            raise InputError("properties: %r is not a property's text or a file's path" % (p,))
    if constants is not None and not isinstance(constants, dict):
        raise InputError("constants: a dict from a constant's name to its value is needed, not %r" % (constants,))
    consts = ",".join("%s=%s" % (k, _constant(v)) for k, v in (constants or {}).items())
    limit = _checks.integer(max_states, "max_states", 1, 2**32 - 1)
    document, bounds = _check(model, sources, consts, _checks.flag(exact, "exact"), limit)
    report = json.loads(document)
    for result, bound in zip(report["results"], bounds):
        result["error_bound"] = bound
    return report


@_checks.boundary
def read(path: Any, reward: Optional[str] = None):
    """Read a model file in any format kolmo reads (DRN, PRISM explicit, kolmo JSON, CSV, Matrix
    Market, MDPToolbox/QuantEcon arrays; by its extension): a :class:`Chain` or an :class:`MDP`
    (its rewards the reward model ``reward``, or the file's only one), with the file's state names
    and labels."""
    if reward is not None and not isinstance(reward, str):
        raise InputError("reward: %r is not a reward model's name" % (reward,))
    kind, model, names, labels = _read(_checks.path(path, "path"), reward)
    if kind == "chain":
        return Chain(model, names=names, labels=dict(labels))
    ptr = model.choice_ptr
    actions = np.arange(ptr[-1], dtype=np.int64) - np.repeat(ptr[:-1], np.diff(ptr))
    m = MDP(model, actions, ptr, None)
    m.names = names
    m.labels = {k: list(v) for k, v in labels}
    return m


def explore(initial: Any, successors: Any, reward: Any = None, owner: Any = None, max_states: int = 10_000_000):
    """Build a model by exploring it from ``initial``: ``successors(state)`` returns
    ``[(p, next_state), ...]`` for a Markov chain, or ``{action: [(p, next_state), ...]}`` for an
    MDP (every state the same kind). States are any hashable Python values (tuples, frozen
    dataclasses); they are kept, in the order found, as the model's ``states`` and, as text, its
    names. Probabilities may be floats or ``fractions.Fraction``. For an MDP, ``reward(state,
    action)`` gives each choice's reward (default 0), and ``owner(state)`` (``"max"`` or ``"min"``)
    makes it a two-player :class:`Game`. A chain's state without
    successors is made absorbing. Raises :class:`InputError` naming the state whose successors are
    not a probability distribution, or when more than ``max_states`` states are found."""
    max_states = _checks.integer(max_states, "max_states", 1)
    try:
        index = {initial: 0}
    except TypeError:
        raise InputError("initial: %r is not hashable (states must be hashable: tuples, frozen dataclasses, ...)" % (initial,)) from None
    states = [initial]
    rows, cols, probs, raw = [], [], [], []
    kind = None
    actions_of: List[List[Any]] = []
    rewards: List[float] = []
    raw_rewards: List[Any] = []
    i = 0
    while i < len(states):
        s = states[i]
        out = successors(s)
        if isinstance(out, (str, bytes)) or not (isinstance(out, dict) or hasattr(out, "__iter__")):
            raise InputError(
                "successors(%r) returned %r: a list of (probability, next state) pairs, or a dict {action: list} for an MDP"
                % (s, out)
            )
        this = "mdp" if isinstance(out, dict) else "chain"
        if this == "mdp" and not out:
            raise InputError("state %r: no actions (an MDP's state needs at least one)" % (s,))
        if kind is None:
            kind = this
        elif kind != this:
            raise InputError("state %r: successors given as %s, earlier states as %s" % (s, this, kind))
        branches = list(out.items()) if this == "mdp" else [(None, out)]
        acts = []
        for action, dist in branches:
            if isinstance(dist, (str, bytes)) or not hasattr(dist, "__iter__"):
                raise InputError("state %r, action %r: %r is not a list of (probability, next state) pairs" % (s, action, dist))
            dist = list(dist)
            if this == "chain" and not dist:
                dist = [(1, s)]
            if this == "mdp" and not dist:
                raise InputError("state %r, action %r: no successors" % (s, action))
            for entry in dist:
                try:
                    p, t = entry
                except (TypeError, ValueError):
                    raise InputError("state %r: %r is not a (probability, next state) pair" % (s, entry)) from None
                if not _checks.is_number(p):
                    raise InputError("state %r: probability %r of moving to %r is not a number" % (s, p, t))
                try:
                    j = index.get(t)
                except TypeError:
                    raise InputError("state %r: next state %r is not hashable" % (s, t)) from None
                if j is None:
                    if len(states) >= max_states:
                        raise InputError("more than %d states found (max_states)" % max_states)
                    j = index[t] = len(states)
                    states.append(t)
                rows.append(i if this == "chain" else len(rewards) + len(acts))
                cols.append(j)
                probs.append(_checks.finite(p, "state %r: the probability of moving to %r" % (s, t)))
                raw.append(p)
            acts.append(action)
        if this == "mdp":
            actions_of.append(acts)
            for a in acts:
                x = reward(s, a) if reward is not None else 0
                rewards.append(_checks.finite(x, "reward(%r, %r)" % (s, a)))
                raw_rewards.append(x)
        i += 1
    rows_a = np.asarray(rows, np.int64)
    cols_a = np.asarray(cols, np.int64)
    probs_a = np.asarray(probs, np.float64)
    names = [repr(s) if not isinstance(s, str) else s for s in states]
    if kind == "chain":
        chain = Chain(_Chain.from_coo(len(states), rows_a, cols_a, probs_a, _exact_texts(raw)))
        # (Names from the states' values, which may print alike: not checked as given names are.)
        chain.names = names
        chain.states = states
        return chain
    ptr = np.concatenate([[0], np.cumsum([len(a) for a in actions_of])]).astype(np.int64)
    cls = MDP if owner is None else Game
    built = _Mdp.from_choices(ptr, rows_a, cols_a, probs_a, np.asarray(rewards, np.float64), _exact_texts(raw), _exact_texts(raw_rewards))
    mdp = cls(built, np.arange(ptr[-1]) - np.repeat(ptr[:-1], np.diff(ptr)), ptr, None)
    if owner is not None:
        owners = [owner(x) for x in states]
        bad = [(x, o) for x, o in zip(states, owners) if not (isinstance(o, str) and o in ("max", "min"))]
        if bad:
            raise InputError("owner(%r) is %r: \"max\" or \"min\" expected" % bad[0])
        mdp.maximiser = np.asarray([o == "max" for o in owners])
    mdp.names = names
    mdp.states = states
    mdp.action_names = [a for acts in actions_of for a in acts]
    return mdp
