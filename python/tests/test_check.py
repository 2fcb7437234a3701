"""kolmo.check from Python: PRISM-language models and properties, against the PRISM benchmark
suite's reference values (../shared/prism-suite/reference_values.tsv, read in place) and the
values the README documents for the project's example models."""
import os

import pytest

import kolmo

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SUITE = os.path.join(ROOT, "..", "shared", "prism-suite")


def test_snakes_exact_fraction():
    # README: P=? [F<=20 pos=100] on examples/models/snakes.pm is exactly 18612057839477/67706637778944.
    r = kolmo.check(os.path.join(ROOT, "examples", "models", "snakes.pm"), "P=? [F<=20 pos=100]", exact=True)
    res = r["results"][0]
    assert res["exact"] == "18612057839477/67706637778944"
    assert res["lower"] <= 18612057839477 / 67706637778944 <= res["upper"]
    # As kolmo check --json: the number of initial states.
    assert r["model"]["type"] == "dtmc" and r["model"]["initial_states"] == 1


def test_rps_cards_game_with_a_constant():
    # README: <<alice>> R{"score"}max=? [C<=2*k] with k = 3 is 0.9506172839506173 (kolmo cards --rounds 3).
    r = kolmo.check(
        os.path.join(ROOT, "examples", "models", "rps-cards.prism"),
        'const int k; <<alice>> R{"score"}max=? [C<=2*k]',
        constants={"k": 3},
    )
    res = r["results"][0]
    assert abs(res["value"] - 0.9506172839506173) <= res["error_bound"] + 1e-15
    assert r["constants"]["k"] == 3 and r["model"]["type"] == "smg"


@pytest.mark.skipif(not os.path.isdir(SUITE), reason="the PRISM suite is not beside the project")
def test_brp_against_the_suite_reference():
    # reference_values.tsv: brp N=16, MAX=2, P=? [ F s=5 ] = 0.0004233334437734179 (QVBS, Storm exact).
    r = kolmo.check(
        os.path.join(SUITE, "dtmcs", "brp", "brp.pm"),
        os.path.join(SUITE, "dtmcs", "brp", "p1.pctl"),
        constants={"N": 16, "MAX": 2},
    )
    res = r["results"][0]
    assert res["lower"] - 1e-15 <= 0.0004233334437734179 <= res["upper"] + 1e-15
    assert r["model"]["states"] == 677


def test_errors_name_the_place():
    snakes = os.path.join(ROOT, "examples", "models", "snakes.pm")
    with pytest.raises(kolmo.InputError, match="nosuch"):
        kolmo.check(snakes, "P=? [F nosuch=1]")
    with pytest.raises(kolmo.InputError):
        kolmo.check(os.path.join(HERE, "no-such-model.pm"), "P=? [F true]")
    with pytest.raises(kolmo.InputError, match="constants"):
        kolmo.check(snakes, "P=? [F pos=100]", constants={"x": "text"})


def test_state_limit():
    # The README's snakes model has 101 reachable states: a limit of 50 refuses it, naming it.
    with pytest.raises(kolmo.InputError, match="50"):
        kolmo.check(os.path.join(ROOT, "examples", "models", "snakes.pm"), "P=? [F pos=100]", max_states=50)
    assert kolmo.DEFAULT_MAX_STATES == 100_000_000
