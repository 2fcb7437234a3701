"""The 3-card rock-paper-scissors game (``kolmo cards``): Alice plays a card from her hand of three,
Bob answers having seen it, both draw a new card at random; Alice maximises her total score
(3 / 1 / 0 for a win / draw / loss), Bob minimises it. Solved as a stochastic game by value
iteration over rounds, with a guaranteed bound for any number of rounds up to 10⁹ and beyond."""
from typing import Tuple

from . import _checks
from ._kolmo import InputError, cards_value

#: The most rounds asked for (as `kolmo cards --rounds`).
MAX_ROUNDS = 10**18


def _hand(h: object, what: str) -> str:
    if not isinstance(h, str):
        raise InputError("%s: %r is not a hand (three letters of R, P, S)" % (what, h))
    return h


__all__ = ["value", "gain"]


def value(rounds: int, alice: str = "RPS", bob: str = "RPS") -> Tuple[float, float]:
    """Alice's optimal expected total over ``rounds`` rounds from the hands ``alice`` and ``bob``
    (three letters of R, P, S, in any order): ``(value, error_bound)``, the bound 0 (up to
    rounding) within the solved table and guaranteed beyond it. ``rounds`` from 1 to 10¹⁸;
    other input raises :class:`kolmo.InputError`."""
    k = _checks.integer(rounds, "rounds", 1, MAX_ROUNDS)
    v, bound, _ = cards_value(k, _hand(alice, "alice"), _hand(bob, "bob"))
    return v, bound


def gain() -> float:
    """The long-run gain: Alice's average score per round under optimal play."""
    return cards_value(1)[2]
