#!/usr/bin/env python3
"""kolmo's Python package against the Python tools its users have (issue 19), on the same inputs in
one run: PyDTMC, QuantEcon, MDPToolbox (pymdptoolbox) and SciPy. Not part of the tests.

  python bench.py [--sizes 1000 10000 100000 1000000] [--reps 3] [--md FILE]

Run it with a Python that has kolmo installed and the peers (the peer harness's venv has them:
`~/.cache/kolmo-peers/venv/bin/python -m pip install ./python` first), from outside `python/` (there
the source directory `kolmo/` would shadow the installed package).

Measured (wall seconds, best of --reps, the model already built in each tool's own form):
- chain, stationary distribution: a random ergodic chain of n states, 4 successors per state
  (a ring step plus 3 random ones, weights w/Σw), kolmo `Chain(csr).stationary()` against
  PyDTMC's `MarkovChain(P).stationary_distributions` (dense: n ≤ 2,000) and SciPy (`spsolve` of the
  transposed system with one equation replaced by Σπ = 1; n ≤ 10⁴, once: SuperLU fills in);
- chain, expected steps to a target: the same chain with state 0 absorbing, kolmo
  `absorbing(0).expected_steps` against SciPy `spsolve((I − Q), 1)` and PyDTMC's
  `mean_absorption_times` (n ≤ 2,000);
- MDP, discounted γ = 0.9 and 0.99: MDPToolbox's forest(S) (`mdptoolbox.example.forest`), kolmo
  `solve(MDP.from_mdptoolbox(P, R), discount=γ)` against MDPToolbox's PolicyIteration and
  ValueIteration and QuantEcon's `DiscreteDP(R, Q, β).solve("policy_iteration")` (the policy
  iterations up to S = 10⁴, value iteration up to 10⁵), with each peer's largest difference from
  kolmo's certified values;
- the call overhead: a 100-state chain's `stationary()` wall time minus the engine's own time
  (`seconds` in the result, measured in Rust around the work).
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import kolmo


# SciPy's sparse LU (SuperLU) fills in on these random chains: 32 s at 10⁴ states; not tried beyond.
SCIPY_DIRECT = 10_000
# The MDP peers' policy iterations (MDPToolbox's, QuantEcon's) took 90-100 s at 10⁴ states and
# grow faster than linearly; their value iteration 8 s. Not tried beyond these sizes.
PEER_PI = 10_000
PEER_VI = 100_000


def best(f, reps):
    t = float("inf")
    out = None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return t, out


def random_chain(n, seed=1):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), 4)
    cols = np.concatenate([((np.arange(n) + 1) % n)[:, None], rng.integers(0, n, (n, 3))], axis=1).reshape(-1)
    w = rng.integers(1, 100, 4 * n).astype(float)
    P = sp.csr_matrix((w, (rows, cols)), shape=(n, n))
    P = sp.diags(1 / np.asarray(P.sum(axis=1)).ravel()) @ P
    return sp.csr_matrix(P)


def scipy_stationary(P):
    n = P.shape[0]
    A = (P.T - sp.identity(n)).tolil()
    A[0, :] = 1
    b = np.zeros(n)
    b[0] = 1
    return spla.spsolve(A.tocsc(), b)


def scipy_steps(P):
    n = P.shape[0]
    Q = P[1:, 1:]
    return spla.spsolve((sp.identity(n - 1) - Q).tocsc(), np.ones(n - 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000, 1000000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--md")
    a = ap.parse_args()
    lines = ["| task | n | tool | seconds | kolmo's bound | max \\|difference\\| vs kolmo | peer/kolmo |", "|---|---|---|---|---|---|---|"]

    def row(task, n, tool, t, bound, diff, ratio):
        lines.append("| %s | %s | %s | %.4g | %s | %s | %s |" % (
            task, f"{n:,}", tool, t, "—" if bound is None else "%.1e" % bound,
            "—" if diff is None else "%.1e" % diff, "—" if ratio is None else "×%.1f" % ratio))
        print(lines[-1], flush=True)

    try:
        import pydtmc
    except ImportError:
        pydtmc = None
    for n in a.sizes:
        P = random_chain(n)
        chain = kolmo.Chain(P)
        tk, s = best(chain.stationary, a.reps)
        row("stationary", n, "kolmo", tk, s.error_bound, None, None)
        if n <= SCIPY_DIRECT:
            ts, pi = best(lambda: scipy_stationary(P), 1)
            row("stationary", n, "SciPy spsolve", ts, None, float(np.abs(pi - s.distribution).max()), ts / tk)
        Pa = P.tolil()
        Pa[0, :] = 0
        Pa[0, 0] = 1
        Pa = sp.csr_matrix(Pa)
        absorbing = kolmo.Chain(Pa)
        tk2, r = best(lambda: absorbing.absorbing(0, variance=False), a.reps)
        row("expected steps", n, "kolmo", tk2, r.expected_steps_error_bound * float(r.expected_steps.max()), None, None)
        if n <= SCIPY_DIRECT:
            ts2, t = best(lambda: scipy_steps(Pa), 1)
            row("expected steps", n, "SciPy spsolve", ts2, None, float(np.abs(t - r.expected_steps[1:]).max()), ts2 / tk2)
        if pydtmc is not None and n <= 2000:
            dense = P.toarray()
            tp, mc = best(lambda: pydtmc.MarkovChain(dense).stationary_distributions[0], a.reps)
            row("stationary", n, "PyDTMC %s (dense)" % pydtmc.__version__, tp, None, float(np.abs(mc - s.distribution).max()), tp / tk)
            da = Pa.toarray()
            tp2, mt = best(lambda: pydtmc.MarkovChain(da).mean_absorption_times(), a.reps)
            row("expected steps", n, "PyDTMC (dense)", tp2, None, float(np.abs(np.asarray(mt) - r.expected_steps[1:]).max()), tp2 / tk2)

    import mdptoolbox.example
    import mdptoolbox.mdp
    try:
        import quantecon
    except ImportError:
        quantecon = None
    for S in [x for x in a.sizes if x <= 100000]:
        P, R = mdptoolbox.example.forest(S, is_sparse=S > 1000)
        m = kolmo.MDP.from_mdptoolbox(P, R)
        for g in (0.9, 0.99):
            task = "forest γ=%g" % g
            tk, sol = best(lambda: kolmo.solve(m, discount=g), a.reps)
            row(task, S, "kolmo", tk, sol.error_bound, None, None)
            for name, cls, most in (
                ("MDPToolbox PolicyIteration", mdptoolbox.mdp.PolicyIteration, PEER_PI),
                ("MDPToolbox ValueIteration", mdptoolbox.mdp.ValueIteration, PEER_VI),
            ):
                if S > most:
                    continue

                def run():
                    x = cls(P, R, g)
                    x.run()
                    return np.asarray(x.V)
                try:
                    tp, V = best(run, 1)
                    row(task, S, name, tp, None, float(np.abs(V - sol.values).max()), tp / tk)
                except Exception as e:  # noqa: BLE001 - a peer's failure is a result
                    row(task, S, name + " (failed: %s)" % type(e).__name__, float("nan"), None, None, None)
            if quantecon is not None and S <= PEER_PI:
                Pd = np.stack([p.toarray() if sp.issparse(p) else p for p in P])
                Q = np.transpose(Pd, (1, 0, 2)).copy()
                tq, res = best(lambda: quantecon.markov.DiscreteDP(R, Q, g).solve("policy_iteration"), 1)
                row(task, S, "QuantEcon %s policy iteration" % quantecon.__version__, tq, None, float(np.abs(res.v - sol.values).max()), tq / tk)

    small = kolmo.Chain(random_chain(100))
    walls, inner = [], []
    for _ in range(2000):
        t0 = time.perf_counter()
        s = small.stationary()
        walls.append(time.perf_counter() - t0)
        inner.append(s.seconds)
    w, e = float(np.median(walls)), float(np.median(inner))
    lines.append("")
    lines.append("Call overhead, 100-state chain `stationary()` (median of 2,000 calls): %.1f µs in Python, %.1f µs in the engine, overhead %.1f µs." % (w * 1e6, e * 1e6, (w - e) * 1e6))
    print(lines[-1])
    if a.md:
        with open(a.md, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
