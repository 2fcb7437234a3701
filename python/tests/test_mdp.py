"""kolmo's Python MDPs in MDPToolbox's and QuantEcon's conventions against the published optima in
../shared/cases/08-mdp.md, within their certified bounds."""
from fractions import Fraction

import numpy as np
import pytest

import kolmo

# MDPToolbox's forest example, S = 3, r1 = 4, r2 = 2, p = 0.1.
P = np.array([[[0.1, 0.9, 0], [0.1, 0, 0.9], [0.1, 0, 0.9]], [[1, 0, 0], [1, 0, 0], [1, 0, 0]]])
R = np.array([[0, 0], [0, 1], [4, 2]], dtype=float)


def test_forest_discounted_from_mdptoolbox():
    # γ = 0.9: V* = (6561/250, 7371/250, 8371/250), policy (wait, wait, wait) — MDPToolbox's docstring.
    s = kolmo.solve(kolmo.MDP.from_mdptoolbox(P, R), discount=0.9)
    want = np.array([6561, 7371, 8371]) / 250
    assert np.all(np.abs(s.values - want) <= s.error_bound) and s.error_bound < 1e-10
    assert np.all(s.lower <= want) and np.all(want <= s.upper)
    assert list(s.policy) == [0, 0, 0]


def test_forest_from_sparse_matrices_and_model_discount():
    sparse = pytest.importorskip("scipy.sparse")
    m = kolmo.MDP.from_mdptoolbox([sparse.csr_matrix(P[0]), sparse.csr_matrix(P[1])], R, discount=0.9)
    s = kolmo.solve(m)
    assert np.allclose(s.values, np.array([6561, 7371, 8371]) / 250, rtol=0, atol=1e-9)


def test_puterman_two_state_from_quantecon_with_an_infeasible_action():
    # Puterman, Example 6.2.1: s1: a11 reward 5 -> s1, s2 with 1/2 each; a12 reward 10 -> s2;
    # s2: a21 reward -1 -> s2, a22 infeasible. β = 0.95: v* = (-60/7, -20), policy (a11, a21);
    # β = 0.9: v* = (1, -10), policy (a12, a21).
    R = np.array([[5, 10], [-1, -np.inf]])
    Q = np.array([[[0.5, 0.5], [0, 1]], [[0, 1], [0.5, 0.5]]])
    for beta, want, policy in [(0.95, [-60 / 7, -20], [0, 0]), (0.9, [1, -10], [1, 0])]:
        s = kolmo.solve(kolmo.MDP.from_quantecon(R, Q, beta))
        assert np.all(np.abs(s.values - want) <= s.error_bound), (s.values, want, s.error_bound)
        assert list(s.policy) == policy


def test_reach_total_and_average():
    m = kolmo.MDP.from_mdptoolbox(P, R)
    # Every policy reaches state 0 surely (the wait action burns with probability 0.1).
    r = kolmo.solve(m, "reach", target=0, minimize=True)
    assert np.all(np.abs(r.values - 1) <= r.error_bound)
    # Average reward: always waiting, the stationary distribution is (0.1, 0.09, 0.81), so the
    # gain is 0.81 · 4 = 81/25 from every state (cutting at the oldest state earns 2 · 0.81/2.71).
    a = kolmo.solve(m, "average")
    assert np.all(np.abs(a.values - 81 / 25) <= a.error_bound + 1e-12), (a.values, a.error_bound)
    assert list(a.policy) == [0, 0, 0]
    # Total reward until state 0 from state 2 when always cutting: one cut, reward 2.
    t = kolmo.solve(m, "total", target=0, minimize=True)
    assert abs(t.values[2] - 2) <= t.error_bound and abs(t.values[1] - 1) <= t.error_bound


def test_bad_input():
    with pytest.raises(kolmo.InputError, match="discount"):
        kolmo.solve(kolmo.MDP.from_mdptoolbox(P, R))
    with pytest.raises(kolmo.InputError, match="R"):
        kolmo.MDP.from_mdptoolbox(P, np.zeros((3, 3)))
    with pytest.raises(kolmo.InputError, match="state 1"):
        kolmo.MDP.from_quantecon(np.array([[0, 1], [-np.inf, -np.inf]]), np.full((2, 2, 2), 0.5))
    with pytest.raises(kolmo.InputError, match="objective"):
        kolmo.solve(kolmo.MDP.from_mdptoolbox(P, R), "nonsense")
    bad = P.copy()
    bad[0, 0, 0] = 0.5  # wait from state 0 sums to 1.4
    with pytest.raises(kolmo.InputError):
        kolmo.MDP.from_mdptoolbox(bad, R)


def test_exact_discounted_values_are_the_published_fractions():
    # ../shared/cases/08-mdp.md: forest γ = 0.9, V* = (6561/250, 7371/250, 8371/250), exactly.
    s = kolmo.solve(kolmo.MDP.from_mdptoolbox(P, R), discount=0.9, exact=True)
    assert s.exact == [Fraction(6561, 250), Fraction(7371, 250), Fraction(8371, 250)]
    assert list(s.values) == [float(x) for x in s.exact] and s.exact_refused is None
    # Puterman's two-state example at β = 10/11: both actions tie in s1, v* = (0, -11).
    Rq = np.array([[5, 10], [-1, -np.inf]])
    Qq = np.array([[[0.5, 0.5], [0, 1]], [[0, 1], [0.5, 0.5]]])
    t = kolmo.solve(kolmo.MDP.from_quantecon(Rq, Qq), discount=Fraction(10, 11), exact=True)
    assert t.exact == [0, -11]


# Puterman §§3.2/4.6.1's inventory model in QuantEcon's state-action form (08-mdp.md).
S_IDX = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3]
A_IDX = [0, 1, 2, 3, 0, 1, 2, 0, 1, 0]
R_INV = [0, -1, -2, -5, 5, 0, -3, 6, -1, 5]
Q_INV = [
    [1, 0, 0, 0], [0.75, 0.25, 0, 0], [0.25, 0.5, 0.25, 0], [0, 0.25, 0.5, 0.25],
    [0.75, 0.25, 0, 0], [0.25, 0.5, 0.25, 0], [0, 0.25, 0.5, 0.25],
    [0.25, 0.5, 0.25, 0], [0, 0.25, 0.5, 0.25], [0, 0.25, 0.5, 0.25],
]


def test_finite_horizon_inventory_from_quantecons_state_action_form():
    # Published: v_0 = (67/16, 129/16, 194/16, 227/16); decisions σ_0 = (3,0,0,0),
    # σ_1 = (2,0,0,0), σ_2 = (0,0,0,0). The pairs are given shuffled to check the reordering.
    perm = [9, 3, 0, 7, 1, 4, 8, 2, 6, 5]
    sparse = pytest.importorskip("scipy.sparse")
    for Q in (np.array(Q_INV)[perm], sparse.csr_matrix(np.array(Q_INV)[perm])):
        m = kolmo.MDP.from_quantecon(np.array(R_INV, float)[perm], Q, None, np.array(S_IDX)[perm], np.array(A_IDX)[perm])
        s = kolmo.solve(m, "horizon", steps=3, exact=True)
        assert s.exact == [Fraction(67, 16), Fraction(129, 16), Fraction(194, 16), Fraction(227, 16)]
        assert np.all(np.abs(s.values - np.array([67, 129, 194, 227]) / 16) <= s.error_bound)
        assert s.decisions.tolist() == [[3, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0]]
        assert list(s.policy) == [3, 0, 0, 0]
    with pytest.raises(kolmo.InputError, match="twice"):
        kolmo.MDP.from_quantecon(R_INV[:2], Q_INV[:2], None, [0, 0], [1, 1])
    with pytest.raises(kolmo.InputError, match="state 3"):
        kolmo.MDP.from_quantecon(R_INV[:9], Q_INV[:9], None, S_IDX[:9], A_IDX[:9])
    with pytest.raises(kolmo.InputError, match="both"):
        kolmo.MDP.from_quantecon(R_INV, Q_INV, None, S_IDX)


def test_average_reward_has_the_bias_and_refuses_exact_values_with_a_reason():
    m = kolmo.MDP.from_mdptoolbox(P, R)
    a = kolmo.solve(m, "average", exact=True)
    assert a.exact is None and "no exact solver" in a.exact_refused
    # Always waiting: the gain is 81/25 and the bias h solves h = r − g + P h with π h = 0
    # (Puterman §8.2.3), π = (0.1, 0.09, 0.81) the waiting chain's stationary distribution.
    h, g = a.bias, 81 / 25
    Pw = P[0]
    r = R[:, 0]
    assert np.allclose(h, r - g + Pw @ h, atol=1e-9)
    assert abs(np.array([0.1, 0.09, 0.81]) @ h) < 1e-9


def test_total_reward_exact_both_ways():
    m = kolmo.MDP.from_mdptoolbox(P, R)
    # Cutting at once from state 2 earns 2 and reaches state 0; from 1, 1.
    t = kolmo.solve(m, "total", target=0, minimize=True, exact=True)
    assert t.exact[1:] == [1, 2]
    # Maximising it: waiting in state 2 earns 4 per step and stays with probability 0.9, so
    # v(2) = 4 + 0.9 v(2) = 40; waiting in 1 earns 0 and moves to 2 w.p. 0.9: v(1) = 36.
    u = kolmo.solve(m, "total", target=0, exact=True)
    assert u.exact == [0, 36, 40] and list(u.policy[1:]) == [0, 0]
    assert np.all(np.abs(u.values - [0, 36, 40]) <= u.error_bound)
