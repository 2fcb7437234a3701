"""kolmo's Python chains against the published figures of Grinstead & Snell, *Introduction to
Probability*, ch. 11 (../shared/cases/07-grinstead-snell.md), each within its certified bound."""
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
