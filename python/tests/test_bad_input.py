"""Hostile input (a helper's attack on the package, 2026-12-06): every case refused with
kolmo.InputError naming the place, or an answer refused with kolmo.NotCertified — never a wrong
number, a crash, a TypeError from inside, or an allocation the input does not justify."""
from fractions import Fraction as F

import numpy as np
import pytest

import kolmo

P2 = [[0.5, 0.5], [0, 1]]


def test_tuple_rows_are_not_read_as_triples():
    # Rows given as tuples once came out as a 1-state chain (indices 0.5 truncated to 0).
    with pytest.raises(kolmo.InputError, match="integer state indices"):
        kolmo.Chain([(0.5, 0.5, 0.0), (0.0, 0.5, 0.5), (0.5, 0.0, 0.5)])
    with pytest.raises(kolmo.InputError, match="triple"):
        kolmo.Chain([(0, 1, 0.5, 99)])


def test_a_few_transitions_naming_huge_states_are_refused_before_any_allocation():
    with pytest.raises(kolmo.InputError, match="no outgoing transition"):
        kolmo.Chain([(0, 0, 1.0), (2**31, 2**31, 1.0)])
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(kolmo.InputError, match="no outgoing transition"):
        kolmo.Chain(sparse.coo_matrix(([1.0], ([0], [0])), shape=(2**31, 2**31)))


def test_fractions_are_kept_exactly_or_refused():
    # A row of Fractions summing to 1 + 1e-30 was once "repaired" to 2/3 silently.
    with pytest.raises(kolmo.InputError, match="state 0: the fractions given exceed 1"):
        kolmo.Chain([(0, 1, F(1, 3)), (0, 0, F(2, 3) + F(1, 10**30)), (1, 1, 1)])
    # A probability that vanishes in floating point is refused, not miscounted.
    with pytest.raises(kolmo.InputError, match="smallest positive float"):
        kolmo.Chain([(0, 1, F(1, 2**1100)), (0, 0, 1 - F(1, 2**1100)), (1, 1, 1)])


def test_overflow_is_not_infinity():
    # inf means "not reached with probability 1"; an overflow is no answer.
    with pytest.raises(kolmo.NotCertified):
        kolmo.Chain(P2, rewards=[1e308, 0]).expected_reward(1)
    assert kolmo.Chain(P2, rewards=[1e308, 0]).expected_reward(1, exact=True).values[0] == 2 * F(1e308)
    with pytest.raises(kolmo.NotCertified):
        kolmo.Chain([(0, 1, 5e-324), (0, 0, 1.0), (1, 1, 1.0)]).absorbing(1)


def test_no_silent_coercion():
    with pytest.raises(kolmo.InputError, match="complex"):
        kolmo.Chain(np.array([[0.5 + 1j, 0.5], [0, 1]]))
    m = kolmo.MDP.from_mdptoolbox(np.array([[[0.5, 0.5], [0, 1]]]), np.array([[1.0], [0.0]]))
    with pytest.raises(kolmo.InputError, match="minimize"):
        kolmo.solve(m, discount=0.5, minimize="no")
    with pytest.raises(kolmo.InputError, match="exact"):
        kolmo.solve(m, discount=0.5, exact="no")
    with pytest.raises(kolmo.InputError, match="rounds to 1"):
        kolmo.solve(m, discount=F(10**40 - 1, 10**40))
    with pytest.raises(kolmo.InputError, match="max_states"):
        kolmo.explore(0, lambda s: [(1, s)], max_states=0)
    with pytest.raises(kolmo.InputError, match="names"):
        kolmo.Chain(P2, names=["a", "a"])
    with pytest.raises(kolmo.InputError, match="labels"):
        kolmo.Chain(P2, labels={"g": [1.9]})


def test_properties_as_bytes_are_text():
    import os

    model = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "models", "snakes.pm")
    r = kolmo.check(model, b"P=? [F pos=100]")
    assert len(r["results"]) == 1 and abs(r["results"][0]["value"] - 1) <= r["results"][0]["error_bound"]
    with pytest.raises(kolmo.InputError, match="properties"):
        kolmo.check(model, 5)


@pytest.mark.parametrize(
    "call",
    [
        lambda: kolmo.Chain(None),
        lambda: kolmo.Chain("abc"),
        lambda: kolmo.Chain([[0.5, 0.5], [1]]),
        lambda: kolmo.Chain(P2, labels=[("g", [1])]),
        lambda: kolmo.Chain(P2, rewards=3),
        lambda: kolmo.Chain(P2, rewards=[10**400, 0]),
        lambda: kolmo.Chain(P2).absorbing(None),
        lambda: kolmo.Chain(P2).absorbing(1.0),
        lambda: kolmo.Chain(P2).absorbing(1, variance="no"),
        lambda: kolmo.Chain(P2).distribution_after(2**64),
        lambda: kolmo.Chain(P2).distribution_after(1, [[1.0, 0.0]]),
        lambda: kolmo.MDP.from_mdptoolbox(None, None),
        lambda: kolmo.MDP.from_mdptoolbox([[[1, 0], [0, 1]]], "ab"),
        lambda: kolmo.solve(kolmo.Chain(P2)),
        lambda: kolmo.solve(None),
        lambda: kolmo.explore(0, lambda s: None),
        lambda: kolmo.explore(0, lambda s: 5),
        lambda: kolmo.explore(0, lambda s: [(1.0, [s])]),
        lambda: kolmo.explore(0, lambda s: [(1.0, s)], max_states="5"),
        lambda: kolmo.explore(0, lambda s: {"a": [(1, s)]}, owner=lambda s: np.array([1])),
        lambda: kolmo.explore(0, lambda s: {"a": [(1, s)]}, reward=lambda s, a: 10**400),
        lambda: kolmo.explore(0, lambda s: {"a": [(1.0, 1)]} if s == 0 else {}),
        lambda: kolmo.read(None),
        lambda: kolmo.read(3),
        lambda: kolmo.check("m.pm", None),
        lambda: kolmo.snakes.Board(10, die=-3),
        lambda: kolmo.snakes.Board(10, die=2**64),
        lambda: kolmo.snakes.Board(2**63),
        lambda: kolmo.snakes.Board(10, die=6.0),
        lambda: kolmo.snakes.Board(10, die="123"),
        lambda: kolmo.snakes.Board(10, rule=None),
        lambda: kolmo.snakes.Board(10, snakes=5),
        lambda: kolmo.snakes.Board(10, snakes=[(5, 1, 3)]),
        lambda: kolmo.snakes.Board(10, snakes=[(5.7, 1.2)]),
        lambda: kolmo.snakes.Board("ten"),
        lambda: kolmo.snakes.Board(10).analyze(players="2"),
        lambda: kolmo.cards.value(-1),
        lambda: kolmo.cards.value(10**30),
        lambda: kolmo.cards.value(2.9),
        lambda: kolmo.cards.value("3"),
        lambda: kolmo.cards.value(3, None),
    ],
)
def test_wrong_types_are_input_errors(call):
    with pytest.raises(kolmo.InputError):
        call()


def test_a_listed_mdp_and_the_users_own_exceptions():
    # MDPToolbox's convention allows a sequence of A matrices as nested lists.
    m = kolmo.MDP.from_mdptoolbox([[[1, 0], [0, 1]]], [[0], [1]])
    assert list(kolmo.solve(m, discount=0.5).values) == [0, 2]

    def boom(s):
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        kolmo.explore(0, boom)
