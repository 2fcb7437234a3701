#!/usr/bin/env python3
"""kolmo's Python package against the Python tools its users have (issue 19), on the same inputs in
one run: PyDTMC, QuantEcon, MDPToolbox (pymdptoolbox), SciPy and Storm (stormpy). Not part of the
tests.

  python bench.py [--sizes 1000 10000 100000 1000000] [--reps 3] [--storm-cap 300] [--md FILE]

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

Storm (stormpy ≥ 2.0) is given the same matrices through its builder (`SparseMatrixBuilder`,
`SparseModelComponents`, `SparseDtmc`/`SparseMdp`, a state labeling and a reward model; building is
not timed) and checked in two environments: "default", `stormpy.Environment()` (Storm's command-line
defaults: 1e-6 relative precision, no guarantee), and "sound", `stormpy.environments.sound()`. Tasks:
the stationary distribution (`stormpy.analysis.compute_steady_state_distribution`, the whole vector),
expected steps (`R=? [F "target"]`, all states) and the forest (`R{"r"}max=? [Cdiscount=γ]`, all
states). Each check runs in a forked child killed after --storm-cap seconds (default 300); a
configuration that failed or ran out of time is not tried at larger sizes.
"""
import argparse
import multiprocessing as mp
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


def storm_matrix(P, groups=None):
    """Storm's sparse matrix of the CSR matrix P (rows in order, columns sorted within a row); with
    `groups` (each state's first row), the row groups of an MDP."""
    from stormpy.datastructures import SparseMatrixBuilder
    P = sp.csr_matrix(P, copy=True)
    P.sort_indices()
    rows = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
    b = SparseMatrixBuilder[float](rows=P.shape[0], columns=P.shape[1], entries=P.nnz, force_dimensions=True,
                                   has_custom_row_grouping=groups is not None, row_groups=0 if groups is None else len(groups))
    b.add_next_values(rows.tolist(), P.indices.tolist(), P.data.tolist(), [] if groups is None else list(groups))
    return b.build()


def storm_model(P, labels, rewards=None, groups=None):
    """A stormpy DTMC (or, with `groups`, MDP) on P; `labels`: name -> states; `rewards`: name ->
    (state rewards, state-action rewards)."""
    from stormpy.datastructures import BitVector
    from stormpy.models import SparseDtmc, SparseMdp, SparseModelComponents, SparseRewardModel, StateLabeling
    n = P.shape[1]
    lab = StateLabeling(n)
    for name, states in labels.items():
        lab.add_label(name)
        lab.set_states(name, BitVector(n, [int(x) for x in states]))
    rms = {name: SparseRewardModel[float](
        optional_state_reward_vector=None if sr is None else np.asarray(sr, float).tolist(),
        optional_state_action_reward_vector=None if sar is None else np.asarray(sar, float).tolist())
        for name, (sr, sar) in (rewards or {}).items()}
    comp = SparseModelComponents[float](transition_matrix=storm_matrix(P, groups), state_labeling=lab, reward_models=rms)
    return (SparseDtmc if groups is None else SparseMdp)[float](comp)


STORM_CONFIGS = ("default", "sound")


def storm_env(config):
    import stormpy
    import stormpy.environments
    return stormpy.Environment() if config == "default" else stormpy.environments.sound()


def storm_capped(check, config, reps, cap):
    """Run check(env) -> values best of `reps` times in a forked child (the model is inherited),
    killed after `cap` seconds. Returns (seconds, values) or (None, reason)."""
    ctx = mp.get_context("fork")
    rd, wr = ctx.Pipe(False)

    def child():
        try:
            t, v = best(lambda: check(storm_env(config)), reps)
            wr.send((t, np.asarray(v, dtype=float)))
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            wr.send((None, "%s: %s" % (type(e).__name__, str(e).strip()[:80])))
    p = ctx.Process(target=child)
    p.start()
    try:
        if not rd.poll(cap):
            return None, "over %g s" % cap
        return rd.recv()
    except EOFError:
        return None, "exit %s" % p.exitcode
    finally:
        if p.is_alive():
            p.kill()
        p.join()


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
    ap.add_argument("--storm-cap", type=float, default=300, help="seconds for one Storm check (default 300)")
    ap.add_argument("--md")
    a = ap.parse_args()
    lines = ["| task | n | tool | seconds | kolmo's bound | max \\|difference\\| vs kolmo | peer/kolmo |", "|---|---|---|---|---|---|---|"]

    def row(task, n, tool, t, bound, diff, ratio):
        lines.append("| %s | %s | %s | %.4g | %s | %s | %s |" % (
            task, f"{n:,}", tool, t, "—" if bound is None else "%.1e" % bound,
            "—" if diff is None else "%.1e" % diff, "—" if ratio is None else "×%.1f" % ratio if ratio >= 1 else "×%.2g" % ratio))
        print(lines[-1], flush=True)

    try:
        import pydtmc
    except ImportError:
        pydtmc = None
    try:
        import stormpy
        import stormpy.analysis
    except ImportError:
        stormpy = None
    storm_out = {}  # (task, configuration) -> why it is not tried at larger sizes

    def storm_rows(task, n, model, check, reference, tk):
        """Storm's rows for `task`: check(model, env) -> values, against kolmo's `reference`."""
        for config in STORM_CONFIGS:
            name = "Storm %s %s" % (stormpy.__version__, config)
            if (task, config) in storm_out:
                row(task, n, name + " (not tried: %s at a smaller size)" % storm_out[task, config], float("nan"), None, None, None)
                continue
            t, v = storm_capped(lambda env: check(model, env), config, a.reps if config == "default" else 1, a.storm_cap)
            if t is None:
                storm_out[task, config] = v
                row(task, n, name + " (%s)" % v, float("nan"), None, None, None)
            else:
                row(task, n, name, t, None, float(np.abs(v - reference).max()), t / tk)
    for n in a.sizes:
        P = random_chain(n)
        chain = kolmo.Chain(P)
        tk, s = best(chain.stationary, a.reps)
        row("stationary", n, "kolmo", tk, s.error_bound, None, None)
        if n <= SCIPY_DIRECT:
            ts, pi = best(lambda: scipy_stationary(P), 1)
            row("stationary", n, "SciPy spsolve", ts, None, float(np.abs(pi - s.distribution).max()), ts / tk)
        if stormpy is not None:
            storm_rows("stationary", n, storm_model(P, {"init": [0]}),
                       lambda m, env: stormpy.analysis.compute_steady_state_distribution(m, environment=env).get_value_vector(),
                       s.distribution, tk)
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
        if stormpy is not None:
            steps = stormpy.parse_properties('R=? [F "target"]')[0]
            storm_rows("expected steps", n, storm_model(Pa, {"init": [1 % n], "target": [0]}, {"steps": (np.ones(n), None)}),
                       lambda m, env: stormpy.model_checking(m, steps, environment=env).get_value_vector(),
                       r.expected_steps, tk2)
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
    for S in a.sizes:
        P, R = mdptoolbox.example.forest(S, is_sparse=S > 1000)
        m = kolmo.MDP.from_mdptoolbox(P, R)
        if stormpy is not None:
            # Storm's rows are the choices state by state: row s·A + a is action a in state s.
            A = len(P)
            stacked = sp.vstack([sp.csr_matrix(p) for p in P]).tocsr()
            stacked = stacked[np.arange(A * S).reshape(A, S).T.reshape(-1)]
            storm_forest = storm_model(stacked, {"init": [0]}, {"r": (None, np.asarray(R, float).reshape(-1))},
                                       groups=np.arange(S) * A)
            del stacked
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
            if stormpy is not None:
                prop = stormpy.parse_properties('R{"r"}max=? [Cdiscount=%s]' % g)[0]
                storm_rows(task, S, storm_forest, lambda mm, env: stormpy.model_checking(mm, prop, environment=env).get_value_vector(),
                           sol.values, tk)

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
