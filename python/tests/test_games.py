"""The built-in games from Python against ../shared/cases/01-snakes.md and 02-rps-3card.md."""
from fractions import Fraction

import numpy as np
import pytest

import kolmo
from kolmo import cards, snakes


def test_classic_board():
    # 01-snakes.md, rule clamp: E[0] = 35.834938413695426, sd 23.353802687908807, median 29.
    a = snakes.Board.classic().analyze()
    assert abs(a.expected_rolls - 35.834938413695426) <= a.error_bound * 35.9 + 1e-12
    assert abs(a.std_dev - 23.353802687908807) < 1e-8
    assert a.median == 29
    assert abs(a.expected_rolls_by_cell[73] - 17.598534708379127) < 1e-9
    assert abs(np.sum(a.pmf) - 1) < 1e-11


def test_board_from_dicts_matches_explore():
    # A 10-cell board with one ladder and one snake: the analysis agrees with the same chain
    # built by kolmo.explore.
    ladders, snakes_ = {2: 7}, {8: 3}
    a = snakes.Board(10, snakes=snakes_, ladders=ladders).analyze()

    def moves(c):
        if c == 10:
            return []
        out = []
        for d in range(1, 7):
            t = min(c + d, 10)
            t = ladders.get(t, snakes_.get(t, t))
            out.append((Fraction(1, 6), t))
        return out

    chain = kolmo.explore(0, moves)
    b = chain.absorbing(10)  # by the state's value
    assert abs(a.expected_rolls - b.expected_steps[0]) <= 1e-12 * a.expected_rolls
    assert abs(a.variance - b.variance[0]) <= 1e-9 * a.variance


def test_race_and_bad_boards():
    a = snakes.Board.classic().analyze(players=2)
    assert abs(sum(a.win_probability) - 1) < 1e-9 and a.win_probability[0] > a.win_probability[1]
    # The first to roll wins at roll t when the other needs t rolls or more:
    # P = Σ_t P(T = t) · P(T ≥ t), from the single-player distribution of the same board.
    pmf = snakes.Board.classic().analyze().pmf
    at_least = 1 - np.concatenate([[0], np.cumsum(pmf)[:-1]])
    assert abs(a.win_probability[0] - float(np.sum(pmf * at_least))) < 1e-9
    with pytest.raises(kolmo.InputError):
        snakes.Board(10, ladders={12: 3}).analyze()
    with pytest.raises(kolmo.InputError, match="rule"):
        snakes.Board(10, rule="wrap").analyze()


def test_cards_values_and_gain():
    # 02-rps-3card.md: k = 5, RPS vs RPS: 15280/6561; k = 3, RRS vs PPS: 59/27;
    # gain 1247820247/1766559075.
    v, bound = cards.value(5)
    assert abs(v - 15280 / 6561) <= bound + 1e-12
    v, bound = cards.value(3, "RRS", "PPS")
    assert abs(v - 59 / 27) <= bound + 1e-12
    assert abs(cards.gain() - 1247820247 / 1766559075) < 1e-12
    v, bound = cards.value(10**9)
    assert abs(v / 10**9 - 1247820247 / 1766559075) < 1e-8 and bound < 1e-2
    with pytest.raises(kolmo.InputError, match="alice"):
        cards.value(3, "RPX")


def _two_state_game():
    # State "x" (max): reward 1 and stay, or reward 0 and go to "y". State "y" (min): reward 5
    # and go to "x", or reward 2 and stay.
    moves = {"x": {"stay": [(1, "x")], "go": [(1, "y")]}, "y": {"back": [(1, "x")], "stay": [(1, "y")]}}
    pay = {("x", "stay"): 1, ("x", "go"): 0, ("y", "back"): 5, ("y", "stay"): 2}
    owner = {"x": "max", "y": "min"}
    return kolmo.explore("x", moves.__getitem__, reward=lambda s, a: pay[s, a], owner=owner.__getitem__)


def test_game_horizon_and_average_with_exact_values():
    g = _two_state_game()
    # Two steps: V1 = (max(1, 0), min(5, 2)) = (1, 2); V2(x) = max(1 + 1, 0 + 2) = 2 (the first
    # choice on the tie), V2(y) = min(5 + 1, 2 + 2) = 4.
    h = kolmo.solve(g, "horizon", steps=2, exact=True)
    assert h.exact == [2, 4] and list(h.values) == [2.0, 4.0]
    assert h.decisions.tolist() == [[0, 1], [0, 1]]
    # Long run: Max leaves x (staying earns 1 per step); in y Min stays (2 per step) rather than
    # cycle through x (5 every other step). The gain is 2 from both states.
    a = kolmo.solve(g, "average", exact=True)
    assert a.exact == [2, 2] and np.all(np.abs(a.values - 2) <= a.error_bound)
    assert list(a.policy) == [1, 1]  # x: "go", y: "stay"
    # Discounted at 0.9: Min stays in y (2/(1 − 0.9) = 20 < 5 + 0.9 v(x)), Max goes from x
    # (0.9 · 20 = 18 > 1/(1 − 0.9) = 10): v = (18, 20), exactly.
    d = kolmo.solve(g, "discounted", discount=0.9, exact=True)
    assert np.all(np.abs(d.values - [18, 20]) <= d.error_bound) and d.exact == [18, 20]
    assert d.actions == ["go", "stay"]


def test_game_reach_exact_on_the_shared_cases():
    # 09-stochastic-games.md G3: max x: {y, r}; min y: {x, 1}; avg r: {1, 0}: x = y = r = 1/2.
    moves = {
        "x": {"y": [(1, "y")], "r": [(1, "r")]},
        "y": {"x": [(1, "x")], "1": [(1, "1")]},
        "r": {"": [(Fraction(1, 2), "1"), (Fraction(1, 2), "0")]},
        "1": {"": [(1, "1")]},
        "0": {"": [(1, "0")]},
    }
    owner = {"x": "max", "y": "min"}
    g = kolmo.explore("x", moves.__getitem__, owner=lambda s: owner.get(s, "max"))
    s = kolmo.solve(g, "reach", target="1", exact=True)
    want = {"x": Fraction(1, 2), "y": Fraction(1, 2), "r": Fraction(1, 2), "1": 1, "0": 0}
    assert {st: v for st, v in zip(g.states, s.exact)} == want
