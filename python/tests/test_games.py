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
