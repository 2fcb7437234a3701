"""kolmo's Python chains against the published figures of Grinstead & Snell, *Introduction to
Probability*, ch. 11 (../shared/cases/07-grinstead-snell.md), each within its certified bound."""
from fractions import Fraction

import numpy as np
import pytest

import kolmo

OZ = [[1 / 2, 1 / 4, 1 / 4], [1 / 2, 0, 1 / 2], [1 / 4, 1 / 4, 1 / 2]]


def drunkard(right=0.5):
    P = np.zeros((5, 5))
    P[0, 0] = P[4, 4] = 1.0
    for s in range(1, 4):
        P[s, s + 1] = right
        P[s, s - 1] = 1 - right
    return P


def within(values, want, bound):
    values, want = np.asarray(values, float), np.asarray(want, float)
    assert np.all(np.abs(values - want) <= bound + 1e-300), (values, want, bound)


def test_land_of_oz_stationary_vector():
    # Examples 11.19/11.20: w = (2/5, 1/5, 2/5), aperiodic.
    s = kolmo.Chain(OZ, names=["R", "N", "S"]).stationary()
    within(s.distribution, [2 / 5, 1 / 5, 2 / 5], s.error_bound)
    assert s.error_bound < 1e-12 and s.period == 1 and s.states == [0, 1, 2]


def test_drunkards_walk_steps_and_absorption():
    # Examples 11.13-11.15: t = (3, 4, 3) from states 1, 2, 3; B into 4 = (1/4, 1/2, 3/4).
    a = kolmo.Chain(drunkard()).absorbing([0, 4])
    within(a.expected_steps, [0, 3, 4, 3, 0], 4 * a.expected_steps_error_bound)
    assert a.expected_steps_error_bound < 1e-12
    into_4 = kolmo.Chain(drunkard()).absorbing(4)
    # Reaching 4 is not almost sure from 1-3: infinite expected steps there.
    assert np.isinf(into_4.expected_steps[1:4]).all()
    within(into_4.hitting_probability, [0, 1 / 4, 1 / 2, 3 / 4, 1], into_4.hitting_probability_error_bound)


def test_biased_walk_from_scipy_sparse_and_triples():
    # Biased walk (right 2/3): t = (17/5, 18/5, 11/5), B into 4 = (8/15, 4/5, 14/15).
    sparse = pytest.importorskip("scipy.sparse")
    P = drunkard(2 / 3)
    for given in (sparse.csr_matrix(P), sparse.csc_matrix(P), [(i, j, P[i, j]) for i, j in zip(*np.nonzero(P))]):
        a = kolmo.Chain(given).absorbing([0, 4])
        within(a.expected_steps[1:4], [17 / 5, 18 / 5, 11 / 5], 4 * a.expected_steps_error_bound)
        b = kolmo.Chain(given).absorbing(4)
        within(b.hitting_probability[1:4], [8 / 15, 4 / 5, 14 / 15], b.hitting_probability_error_bound)


def test_classes_and_periods():
    # Example 11.16: period 2; the Ehrenfest urn (Example 11.17): period 2, w = (1, 4, 6, 4, 1)/16.
    assert kolmo.Chain([[0, 1], [1, 0]]).period() == 2
    urn = [[0, 1, 0, 0, 0], [1 / 4, 0, 3 / 4, 0, 0], [0, 1 / 2, 0, 1 / 2, 0], [0, 0, 3 / 4, 0, 1 / 4], [0, 0, 0, 1, 0]]
    s = kolmo.Chain(urn).stationary()
    within(s.distribution, np.array([1, 4, 6, 4, 1]) / 16, s.error_bound)
    assert s.period == 2
    classes = kolmo.Chain(drunkard()).classes()
    assert [(c.states, c.closed) for c in classes] == [([0], True), ([1, 2, 3], False), ([4], True)]


def test_names_select_states():
    a = kolmo.Chain(OZ, names=["R", "N", "S"]).absorbing("S")
    # Mean first passage to S (Kemeny & Snell p. 218): 10/3 from R, 8/3 from N.
    within(a.expected_steps, [10 / 3, 8 / 3, 0], 4 * a.expected_steps_error_bound)


def test_bad_input_is_an_input_error_naming_the_place():
    with pytest.raises(kolmo.InputError, match="0"):
        kolmo.Chain([[0.5, 0.4], [0, 1]])  # row 0 sums to 0.9
    with pytest.raises(kolmo.InputError):
        kolmo.Chain(np.ones((2, 3)) / 3)
    with pytest.raises(kolmo.InputError, match="target"):
        kolmo.Chain(OZ).absorbing([7])
    with pytest.raises(kolmo.InputError):
        kolmo.Chain([(0, 1, 1.0), (1, 0, 1.0), (2, 0)])  # a triple too short
    with pytest.raises(kolmo.InputError, match="closed"):
        kolmo.Chain(drunkard()).stationary()  # two closed classes
    assert issubclass(kolmo.InputError, ValueError) and issubclass(kolmo.NotCertified, RuntimeError)


def test_exact_stationary_and_distribution_after():
    # Grinstead & Snell, Example 11.1 and §11.3: Land of Oz, w = (2/5, 1/5, 2/5); the row R of P²
    # is (7/16, 3/16, 6/16) (printed as .438 .188 .375).
    oz = kolmo.Chain(OZ, names=["R", "N", "S"])
    st = oz.stationary(exact=True)
    assert st.distribution == [Fraction(2, 5), Fraction(1, 5), Fraction(2, 5)] and st.error_bound == 0
    d, err = oz.distribution_after(2, "R", exact=True)
    assert d == [Fraction(7, 16), Fraction(3, 16), Fraction(6, 16)] and err == 0
    f, bound = oz.distribution_after(2, "R")
    assert np.sum(np.abs(f - [7 / 16, 3 / 16, 6 / 16])) <= bound and 0 < bound < 1e-14
    # 200 steps on the biased walk with thirds: the float stepping within its certified 1-norm
    # bound of the exact distribution.
    walk = kolmo.Chain(drunkard(2 / 3))
    exact, _ = walk.distribution_after(200, 2, exact=True)
    approx, bound = walk.distribution_after(200, 2)
    assert np.sum(np.abs(approx - np.array([float(x) for x in exact]))) <= bound + 5e-16
    with pytest.raises(kolmo.InputError, match="state 7"):
        oz.distribution_after(2, 7)
    with pytest.raises(kolmo.InputError, match="k"):
        oz.distribution_after(-1, "R")


def test_rewards_expected_total_and_long_run():
    # The drunkard's walk (G&S Example 11.13): N = [[3/2, 1, 1/2], [1, 2, 1], [1/2, 1, 3/2]] on
    # states 1..3, so with reward s in state s the expected total before absorption is N·(1, 2, 3)
    # = (5, 8, 7); with reward 1 it is t = (3, 4, 3).
    walk = kolmo.Chain(drunkard(), rewards=[0, 1, 2, 3, 0])
    e = walk.expected_reward([0, 4])
    assert np.all(np.abs(e.values - [0, 5, 8, 7, 0]) <= e.error_bound) and e.error_bound < 1e-12
    assert walk.expected_reward([0, 4], exact=True).values == [0, 5, 8, 7, 0]
    assert walk.expected_reward([0, 4], rewards=[0, 1, 1, 1, 0], exact=True).values == [0, 3, 4, 3, 0]
    # Each absorbing end is its own closed class: gain = its reward, bias 0.
    lr = walk.long_run_reward()
    assert [(c.states, c.gain) for c in lr] == [([0], 0.0), ([4], 0.0)]
    # Land of Oz earning 1 on rainy days: the gain is π_R = 2/5, and the bias solves
    # h = r − g + P h with π h = 0 (Puterman §8.2.3).
    oz = kolmo.Chain(OZ, rewards=[1, 0, 0])
    (c,) = oz.long_run_reward()
    assert c.states == [0, 1, 2] and abs(c.gain - 0.4) <= c.gain_error_bound + 1e-16
    P = np.array(OZ)
    assert np.allclose(c.bias, np.array([1, 0, 0]) - c.gain + P @ c.bias, atol=1e-12)
    assert abs(np.array([0.4, 0.2, 0.4]) @ c.bias) < 1e-12
    with pytest.raises(kolmo.InputError, match="rewards"):
        kolmo.Chain(OZ).long_run_reward()
    with pytest.raises(kolmo.InputError, match="rewards"):
        kolmo.Chain(OZ, rewards=[1, 2])
