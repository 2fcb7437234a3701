"""kolmo's Python MDPs in MDPToolbox's and QuantEcon's conventions against the published optima in
../shared/cases/08-mdp.md, within their certified bounds."""
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
