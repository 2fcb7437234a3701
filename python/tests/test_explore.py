"""Models described in Python (kolmo.explore) and read from files (kolmo.read), against values
derived by hand and the project's example files."""
import os
from fractions import Fraction

import numpy as np
import pytest

import kolmo

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def test_a_tiny_snakes_and_ladders_board():
    # Cells 0..3, a fair coin moves 1 or 2 cells, overshooting stays put; goal 3. By hand:
    # E3 = 0, E2 = 1 + E2/2 -> 2, E1 = 1 + (E2 + E3)/2 -> 2, E0 = 1 + (E1 + E2)/2 -> 3.
    def moves(cell):
        if cell == 3:
            return []
        return [(Fraction(1, 2), cell + d if cell + d <= 3 else cell) for d in (1, 2)]

    chain = kolmo.explore(0, moves)
    assert chain.states == [0, 1, 2, 3]
    a = chain.absorbing(3)  # by the state's value
    assert np.all(np.abs(a.expected_steps - [3, 2, 2, 0]) <= 4 * a.expected_steps_error_bound)
    # Variance from state 2: geometric(1/2) steps, (1 - p)/p² = 2.
    assert abs(a.variance[2] - 2) < 1e-9


def test_exact_fractions():
    # The same tiny board in exact arithmetic: E = (3, 2, 2, 0) exactly, Var from state 2 = 2.
    def moves(cell):
        return [] if cell == 3 else [(Fraction(1, 2), cell + d if cell + d <= 3 else cell) for d in (1, 2)]

    e = kolmo.explore(0, moves).absorbing(3, exact=True)
    assert e.expected_steps == [3, 2, 2, 0] and all(isinstance(x, Fraction) for x in e.expected_steps)
    assert e.variance[2] == 2
    # Thirds are not binary fractions: the exact answer keeps them (the drunkard's walk biased
    # 2/3 to the right: t = (17/5, 18/5, 11/5), Grinstead & Snell Example 11.15).
    third = Fraction(1, 3)
    triples = [(0, 0, 1), (4, 4, 1)] + [(s, s + 1, 2 * third) for s in (1, 2, 3)] + [(s, s - 1, third) for s in (1, 2, 3)]
    t = kolmo.Chain(triples).absorbing([0, 4], exact=True)
    assert t.expected_steps[1:4] == [Fraction(17, 5), Fraction(18, 5), Fraction(11, 5)]
    # Not reached surely: infinite.
    assert kolmo.Chain(triples).absorbing(4, exact=True).expected_steps[1] == float("inf")


def test_pig_like_mdp_with_tuple_states():
    # Bank or roll: state (points,) ; roll adds 1 with probability 1/2 else loses everything and
    # ends; banking ends. Maximal probability of reaching 2 points banked is 1/4 (two rolls).
    def succ(state):
        pts, done = state
        if done:
            return {"stay": [(1.0, state)]}
        out = {"roll": [(0.5, (min(pts + 1, 2), False)), (0.5, (0, True))]}
        out["bank"] = [(1.0, (pts, True))]
        return out

    mdp = kolmo.explore((0, False), succ)
    assert mdp.states[0] == (0, False) and (2, True) in mdp.states
    target = [s for s in mdp.states if s[0] == 2]  # by value
    r = kolmo.solve(mdp, "reach", target=target)
    assert abs(r.values[0] - 0.25) <= r.error_bound


def test_rewards_through_explore():
    # One state, two actions earning 1 and 2 per step; discounted at 1/2: the best is 2 / (1 - 1/2).
    mdp = kolmo.explore("s", lambda s: {"a": [(1, "s")], "b": [(1, "s")]}, reward=lambda s, a: {"a": 1, "b": 2}[a])
    s = kolmo.solve(mdp, discount=0.5)
    assert abs(s.values[0] - 4) <= s.error_bound and mdp.action_names[s.policy[0]] == "b"


def test_states_by_value_in_an_explored_chain():
    # States are tuples: a target by its value, also a list of them; an unknown value is refused.
    chain = kolmo.explore((0, "a"), lambda s: [] if s[0] == 2 else [(1.0, (s[0] + 1, "a"))])
    assert abs(chain.absorbing((2, "a")).expected_steps[0] - 2) < 1e-12
    assert abs(chain.absorbing([(1, "a"), (2, "a")]).expected_steps[0] - 1) < 1e-12
    with pytest.raises(kolmo.InputError, match="no state"):
        chain.absorbing((5, "b"))


def test_a_game_described_in_python():
    # The maximiser at "start" chooses "risky" (to "goal" or "lost" with 1/2 each) or "ask"; at
    # "ask" the minimiser chooses "goal" or "lost" and picks "lost". Value 1/2, choice "risky";
    # as a plain MDP (everyone maximising) the value would be 1.
    moves = {
        "start": {"risky": [(0.5, "goal"), (0.5, "lost")], "ask": [(1, "ask")]},
        "ask": {"give": [(1, "goal")], "refuse": [(1, "lost")]},
        "goal": {"stay": [(1, "goal")]},
        "lost": {"stay": [(1, "lost")]},
    }
    game = kolmo.explore("start", moves.get, owner=lambda s: "min" if s == "ask" else "max")
    assert isinstance(game, kolmo.Game)
    v = kolmo.solve(game, "reach", target="goal")
    assert abs(v.values[0] - 0.5) <= v.error_bound + 1e-12
    assert game.action_names[game._choice_ptr[0] + v.policy[0]] == "risky"
    mdp = kolmo.explore("start", moves.get)
    assert abs(kolmo.solve(mdp, "reach", target="goal").values[0] - 1) < 1e-9
    with pytest.raises(kolmo.InputError, match="owner"):
        kolmo.explore("start", moves.get, owner=lambda s: "both")
    with pytest.raises(kolmo.InputError, match="target"):
        kolmo.solve(game, "reach")


def test_bad_successors():
    with pytest.raises(kolmo.InputError, match="pair"):
        kolmo.explore(0, lambda s: [0.5])
    with pytest.raises(kolmo.InputError):
        kolmo.explore(0, lambda s: [(0.5, 1)] if s == 0 else [(1.0, 1)])  # state 0 sums to 0.5
    with pytest.raises(kolmo.InputError, match="max_states"):
        kolmo.explore(0, lambda s: [(1.0, s + 1)], max_states=100)


def test_read_example_files():
    oz = kolmo.read(os.path.join(ROOT, "examples", "models", "land-of-oz.json"))
    s = oz.stationary()
    assert np.all(np.abs(s.distribution - [0.4, 0.2, 0.4]) <= s.error_bound)
    M, bound = oz.first_passage()
    # Kemeny & Snell p. 218: m_RN = 4, m_RS = 10/3.
    assert abs(M[0, 1] - 4) <= 4 * bound + 1e-12 and abs(M[0, 2] - 10 / 3) <= 4 * bound + 1e-12
    p, bound = oz.distribution_after(2, 0)
    assert np.sum(np.abs(p - [7 / 16, 3 / 16, 3 / 8])) <= bound < 1e-14
    walk = kolmo.read(os.path.join(ROOT, "examples", "models", "drunkard.json"))
    f = walk.fundamental([0, 4])
    # Grinstead & Snell, Example 11.13 (the drunkard's walk): N = [[3/2, 1, 1/2], [1, 2, 1], [1/2, 1, 3/2]].
    assert f.states == [1, 2, 3] and 0 < f.error_bound < 1e-12
    assert np.all(np.abs(f.N - [[1.5, 1, 0.5], [1, 2, 1], [0.5, 1, 1.5]]) <= f.error_bound)
    forest = kolmo.read(os.path.join(ROOT, "examples", "models", "forest.json"))
    assert isinstance(forest, kolmo.MDP)


def test_readme_board_with_a_choice_of_dice():
    # The README's example: on a 30-cell board with three snakes, choose a d4, d6 or d8 before
    # each roll to finish in the fewest rolls expected. Cross-check: the best policy's value is
    # the expected steps of the chain that always rolls the chosen die (an absorbing-chain solve,
    # a second method), exactly.
    snakes_ = {17: 4, 24: 11, 29: 20}

    def land(c):
        return snakes_.get(min(c, 30), min(c, 30))

    def turn(cell):
        if cell == 30:
            return {"stay": [(1, 30)]}
        return {f"d{k}": [(Fraction(1, k), land(cell + d)) for d in range(1, k + 1)] for k in (4, 6, 8)}

    board = kolmo.explore(0, turn, reward=lambda cell, die: 0 if cell == 30 else 1)
    best = kolmo.solve(board, "total", target=30, minimize=True, exact=True)
    die = dict(zip(board.states, best.actions))
    faces = {c: int(a[1:]) for c, a in die.items() if c != 30}

    def fixed(cell):
        if cell == 30:
            return []
        k = faces[cell]
        return [(Fraction(1, k), land(cell + d)) for d in range(1, k + 1)]

    chain = kolmo.explore(0, fixed)
    exact = chain.absorbing(30, exact=True).expected_steps
    by_state = dict(zip(chain.states, exact))
    assert all(best.exact[board.states.index(c)] == by_state[c] for c in chain.states)
    assert abs(best.values[0] - float(best.exact[0])) <= best.error_bound
    # The best die depends on the cell: no single die is best everywhere.
    assert len(set(die[c] for c in faces)) > 1
