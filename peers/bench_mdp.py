#!/usr/bin/env python3
"""Speed and accuracy of `kolmo solve --objective discounted:G` against pymdptoolbox, QuantEcon and
Storm (stormpy) on the same MDPs (issue 6, "Speed (benchmark)"). Not part of CI.

Models
  forest-S   MDPToolbox's forest management example (mdptoolbox.example.forest(S, r1=4, r2=2,
             p=0.1, is_sparse=True)): actions wait (0) and cut (1); S = 3 (the issue's example),
             100 (exact reference), 10^4, 10^5, 10^6.
  random-S   a seeded random sparse MDP: every state has 2-4 actions, every action 3-5 distinct
             successors drawn uniformly from all states (long-range), probabilities w/1024 (exact
             binary fractions, so every tool reads the same doubles), integer action rewards 0..99;
             S = 60 (small, exact reference), 10^3, 10^4, 10^5.

Every model is written once as Storm DRN (@type MDP, one reward model "r" as action rewards) for
kolmo and Storm; pymdptoolbox gets the same arrays as a list of A scipy CSR matrices S x S and R
(S x A) (states with fewer than 4 actions padded with copies of their first action, which changes
no optimum); QuantEcon gets DiscreteDP in state-action-pair form with a sparse Q (L x S).

Objective: maximal expected discounted reward, gamma = 0.9 and 0.99.
  kolmo       `kolmo solve F --objective discounted:G --json` (policy iteration) and with
              `--value-iteration`; certified bound ||Tv - v|| / (1 - gamma) (`error_bound`).
              Its model loading is measured by `--objective horizon:0` (read + trivial solve +
              the same JSON output) and subtracted.
  pymdptoolbox PolicyIteration (evaluation by a dense S x S solve: skipped when 8 S^2 bytes is
              over --dense-gib), PolicyIterationModified, ValueIteration, all with their defaults
              (epsilon = 0.01); time = constructor (checks, and for VI an iteration bound) + run().
  QuantEcon   DiscreteDP(R, Q, beta, s_indices, a_indices).solve('policy_iteration') (evaluation
              by scipy spsolve); the constructor is timed as loading.
  Storm       R{"r"}max=? [Cdiscount=G] with stormpy.Environment() (command-line defaults, 1e-6
              relative, no bounds returned; stormpy's sound environment gives identical numbers and
              exact mode refuses discounted objectives), and again with the min-max precision set
              to 1e-12 ("Storm 1e-12"); loading = build_model_from_drn, once for both.

Accuracy: every tool's values are compared with kolmo's certified values over all states:
|v_tool - v*| lies in [d - b, d + b] where d = max_s |v_tool(s) - v_kolmo(s)| and b is kolmo's
bound. A tool is flagged when d - b exceeds its own claimed tolerance (pymdptoolbox VI/PIM:
epsilon = 0.01; Storm: 1e-6 or 1e-12 relative; policy iteration: "exact", judged at 1e-9
relative). Its
policy is judged separately by the Q-gap max_s (v*(s) - Q*(s, pi(s))) computed from kolmo's
values (0 up to ~2b means optimal; the loss of the policy is at most gap / (1 - gamma)). kolmo's
own bound is re-checked independently here (Bellman residual of kolmo's values in numpy, long
double), and on the small models against `kolmo solve --exact` (exact policy iteration in
rationals).

Every peer run is a forked child with a time limit (--cap, default 30 s); a tool that times out
(or fails) at one size is not tried at larger sizes of the same family and discount, nor is one
whose time at the previous size (when at least 1 s) times the growth in states exceeds the cap.
kolmo runs are subprocesses with the same cap; `kolmo solve --exact` runs on models of at most
--exact-up-to states (default 100).

Writes DRN files under $PEERS_OUT/bench_mdp/, the table to $PEERS_OUT/bench_mdp.md and the raw
results to $PEERS_OUT/bench_mdp.json.
"""
import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import subprocess
import time
from fractions import Fraction

import warnings

import numpy as np
import scipy.sparse as sp

warnings.filterwarnings("ignore")
OUT = os.environ.get("PEERS_OUT", os.path.join(os.path.expanduser("~"), ".cache", "kolmo-peers"))
GAMMAS = ["0.9", "0.99"]
STORM_REL = 1e-6
STORM_TIGHT = "1/1000000000000"  # the second Storm setting: min-max precision 1e-12 (relative)
EXACT_REL = 1e-9  # "exact" methods (policy iteration) judged at this relative tolerance
PYMDP_EPS = 0.01  # pymdptoolbox's default epsilon


# ---------------------------------------------------------------- models
class Model:
    """An MDP as choice rows: state s owns choices group[s]..group[s+1]-1 of the CSR `P` (rows =
    choices, columns = states) with rewards r (one per choice)."""

    def __init__(self, name, family, n, group, P, r, note=""):
        self.name, self.family, self.n = name, family, n
        self.group = np.asarray(group, dtype=np.int64)
        self.P = P.tocsr()
        self.r = np.asarray(r, dtype=np.float64)
        self.note = note
        self.drn = None

    @property
    def choices(self):
        return self.P.shape[0]

    def state_of_choice(self):
        return np.repeat(np.arange(self.n), np.diff(self.group))

    def action_of_choice(self):
        return np.arange(self.choices) - np.repeat(self.group[:-1], np.diff(self.group))

    # pymdptoolbox: A matrices S x S, R (S x A); missing actions padded with the first one
    def toolbox_arrays(self):
        A = int(np.diff(self.group).max())
        counts = np.diff(self.group)
        Ps, R = [], np.empty((self.n, A))
        for a in range(A):
            rows = self.group[:-1] + np.where(a < counts, a, 0)
            Ps.append(self.P[rows].tocsr())
            R[:, a] = self.r[rows]
        return Ps, R

    def write_drn(self, path):
        """Storm DRN: one reward model r as action rewards, label init on state 0."""
        P = self.P
        indptr, idx, val = P.indptr, P.indices, P.data
        # every probability is written in Python's shortest round-trip form
        uniq, inv = np.unique(val, return_inverse=True)
        ptxt = [repr(float(x)) for x in uniq]
        rtxt = [repr(float(x)) if x != int(x) else str(int(x)) for x in self.r]
        acts = self.action_of_choice()
        lines = []
        out = open(path, "w")
        out.write("// %s, written by kolmo peers/bench_mdp.py\n" % self.name)
        out.write("@type: MDP\n@value_type: double\n@parameters\n\n@reward_models\nr\n")
        out.write("@nr_states\n%d\n@nr_choices\n%d\n@model\n" % (self.n, self.choices))
        for s in range(self.n):
            lines.append("state %d init\n" % s if s == 0 else "state %d\n" % s)
            for c in range(self.group[s], self.group[s + 1]):
                lines.append("\taction %d [%s]\n" % (acts[c], rtxt[c]))
                for k in range(indptr[c], indptr[c + 1]):
                    lines.append("\t\t%d : %s\n" % (idx[k], ptxt[inv[k]]))
            if len(lines) > 200000:
                out.write("".join(lines))
                lines = []
        out.write("".join(lines))
        out.close()
        self.drn = path


def forest(S):
    import mdptoolbox.example

    Ps, R = mdptoolbox.example.forest(S=S, r1=4, r2=2, p=0.1, is_sparse=(S > 3))
    Ps = [sp.csr_matrix(p) for p in Ps]
    A = len(Ps)
    stacked = sp.vstack(Ps).tocsr()  # row a*S + s
    perm = (np.arange(A)[None, :] * S + np.arange(S)[:, None]).ravel()  # choice s*A + a
    P = stacked[perm]
    r = np.asarray(R, dtype=float).ravel()  # R[s, a] in row-major order = choice s*A + a
    m = Model("forest-%d" % S, "forest", S, np.arange(S + 1) * A, P, r,
              "MDPToolbox forest, r1 = 4, r2 = 2, p = 0.1; actions wait, cut")
    m.toolbox = (Ps, np.asarray(R, dtype=float))  # pymdptoolbox's own arrays
    return m


def random_mdp(S, seed):
    rng = np.random.default_rng(seed)
    acts = rng.integers(2, 5, size=S)  # 2..4 actions
    group = np.concatenate([[0], np.cumsum(acts)])
    L = int(group[-1])
    succ = rng.integers(3, 6, size=L)  # 3..5 successors
    cand = rng.integers(0, S, size=(L, 5))
    while True:  # redraw duplicates within a row
        dup = np.zeros(cand.shape, dtype=bool)
        for j in range(1, 5):
            dup[:, j] = (cand[:, :j] == cand[:, j:j + 1]).any(axis=1)
        if not dup.any():
            break
        cand[dup] = rng.integers(0, S, size=int(dup.sum()))
    w = rng.integers(1, 64, size=(L, 5)).astype(np.int64)
    mask = np.arange(5)[None, :] < succ[:, None]
    w = np.where(mask, w, 0)
    W = w.sum(axis=1, keepdims=True)
    q = (w * 1024) // W
    last = succ - 1
    q[np.arange(L), last] = 0
    q[np.arange(L), last] = 1024 - q.sum(axis=1)
    assert (q[mask] >= 1).all() and (q.sum(axis=1) == 1024).all()
    rows = np.repeat(np.arange(L), succ)
    cols = cand[mask]
    vals = q[mask] / 1024.0
    order = np.lexsort((cols, rows))
    P = sp.csr_matrix((vals[order], (rows[order], cols[order])), shape=(L, S))
    r = rng.integers(0, 100, size=L).astype(float)
    return Model("random-%d" % S, "random", S, group, P, r,
                 "seed %d; 2-4 actions, 3-5 uniform successors, p = w/1024, rewards 0..99" % seed)


# ---------------------------------------------------------------- Bellman operator (numpy)
def q_values(m, v, gamma):
    return m.r + gamma * (m.P @ v)


def greedy(m, q):
    """(max over each state's choices, the arg max as an action index)."""
    best = np.maximum.reduceat(q, m.group[:-1])
    # first choice attaining the max
    is_best = q >= np.repeat(best, np.diff(m.group))
    idx = np.flatnonzero(is_best)
    st = m.state_of_choice()[idx]
    first = np.full(m.n, -1)
    first[st[::-1]] = idx[::-1]
    return best, first - m.group[:-1]


def residual_bound(m, v, gamma):
    """||T v - v|| / (1 - gamma), T computed in long double (independent of kolmo's code)."""
    ld = np.longdouble
    Pl = sp.csr_matrix((m.P.data.astype(ld), m.P.indices, m.P.indptr), shape=m.P.shape)
    vl = np.asarray(v, dtype=ld)
    g = ld(float(gamma))  # the double every tool uses
    q = m.r.astype(ld) + g * (Pl @ vl)
    best = np.maximum.reduceat(q, m.group[:-1])
    return float(np.abs(best - vl).max() / (1 - g))


def q_gap(m, vstar, gamma, policy):
    """max_s (v*(s) - Q*(s, pi(s))): 0 for an optimal policy (up to the error in v*)."""
    q = q_values(m, vstar, gamma)
    pol = np.asarray(policy, dtype=np.int64)
    return float((vstar - q[m.group[:-1] + pol]).max())


# ---------------------------------------------------------------- running things
def run_capped(fn, cap):
    """fn() in a forked child; returns (result, None) or (None, 'timeout' | error text)."""
    ctx = mp.get_context("fork")
    rd, wr = ctx.Pipe(duplex=False)

    def target():
        try:
            res = ("ok", fn())
        except BaseException as e:  # noqa: BLE001 - report everything
            res = ("err", "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:300] if str(e).strip() else ""))
        try:
            wr.send(res)
        except Exception as e:  # noqa: BLE001
            wr.send(("err", "result not sent: %s" % e))
        wr.close()

    p = ctx.Process(target=target)
    p.start()
    wr.close()
    res = None
    if rd.poll(cap):
        try:
            res = rd.recv()
        except EOFError:
            res = None
    p.join(1 if res is not None else 0)
    if p.is_alive():
        p.kill()
        p.join()
    if res is None:
        if p.exitcode not in (None, 0) and p.exitcode != -9:
            return None, "crashed (exit %s)" % p.exitcode
        return None, "timeout > %gs" % cap
    return (res[1], None) if res[0] == "ok" else (None, res[1])


def kolmo_run(kolmo, drn, objective, extra, cap):
    cmd = [kolmo, "solve", drn, "--objective", objective, "--json"] + extra
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return None, "timeout > %gs" % cap, cap
    dt = time.perf_counter() - t
    if p.returncode != 0:
        msg = " ".join(p.stderr.strip().split())
        return None, "exit %d: %s" % (p.returncode, msg[:400]), dt
    return json.loads(p.stdout), None, dt


# pymdptoolbox, QuantEcon and Storm bodies (run in the child)
def toolbox_solve(m, cls, gamma):
    import mdptoolbox.mdp

    Ps, R = m.toolbox
    t = time.perf_counter()
    solver = getattr(mdptoolbox.mdp, cls)(Ps, R, gamma)
    t1 = time.perf_counter()
    solver.run()
    t2 = time.perf_counter()
    A = np.diff(m.group)
    pol = np.asarray(solver.policy)
    pol = np.where(pol < A, pol, 0)  # a padded copy is the first action
    return dict(values=np.asarray(solver.V, dtype=float), policy=pol, time=t2 - t,
                init_time=t1 - t, iterations=int(solver.iter) if solver.iter is not None else None,
                extra=dict(max_iter=getattr(solver, "max_iter", None)))


def quantecon_solve(m, gamma):
    from quantecon.markov import DiscreteDP

    t = time.perf_counter()
    ddp = DiscreteDP(m.r, m.P, gamma, m.state_of_choice(), m.action_of_choice())
    t1 = time.perf_counter()
    res = ddp.solve(method="policy_iteration")
    t2 = time.perf_counter()
    return dict(values=np.asarray(res.v, dtype=float), policy=np.asarray(res.sigma), time=t2 - t1,
                load=t1 - t, iterations=int(res.num_iter))


def storm_solve(m, gammas):
    import stormpy

    t = time.perf_counter()
    model = stormpy.build_model_from_drn(m.drn)
    load = time.perf_counter() - t
    out = dict(load=load, runs={})
    for g in gammas:
        prop = stormpy.parse_properties('R{"r"}max=? [Cdiscount=%s]' % g)[0]
        for setting in ("Storm", "Storm 1e-12"):
            env = stormpy.Environment()
            if setting != "Storm":
                env.solver().min_max().precision = stormpy.Rational(STORM_TIGHT)
            t = time.perf_counter()
            res = stormpy.model_checking(model, prop, environment=env)
            dt = time.perf_counter() - t
            out["runs"][(g, setting)] = dict(values=np.asarray(res.get_value_vector(), dtype=float), time=dt)
    return out


def warm_up():
    """Imports the peers and compiles QuantEcon's numba kernels in this process, so that the
    forked children do not pay for it inside the timed region."""
    import mdptoolbox.mdp  # noqa: F401
    import stormpy  # noqa: F401

    m = random_mdp(30, 0)
    quantecon_solve(m, 0.9)
    m.toolbox = m.toolbox_arrays()
    for cls in ("PolicyIteration", "PolicyIterationModified", "ValueIteration"):
        toolbox_solve(m, cls, 0.9)


# ---------------------------------------------------------------- judging
def judge(m, gamma, ref, tool, exact=None):
    """Adds err (max |v - v_kolmo|), err_lo (its lower bound on |v - v*|), verdict."""
    vstar, b = ref["values"], ref["bound"]
    v = tool["values"]
    d = float(np.abs(v - vstar).max())
    tool["err"] = d
    tool["err_lo"] = max(0.0, d - b)
    scale = float(np.abs(vstar).max())
    tol = tool["tol"](scale)
    tool["tol_value"] = tol
    tool["v0"] = float(v[0])
    if "policy" in tool and tool["policy"] is not None:
        tool["qgap"] = q_gap(m, vstar, gamma, tool["policy"])
        # v* is known to within b, so Q* to within gamma b: a gap below this is no evidence
        tool["policy_ok"] = tool["qgap"] <= (1 + gamma) * b + 1e-12 * max(scale, 1)
    tool["ok"] = tool["err_lo"] <= tol
    if exact is not None:  # the exact error, from kolmo --exact's fractions
        tool["exact_err"] = max(abs(float(Fraction(float(x)) - y)) for x, y in zip(v, exact))
    return tool


def fmt(x, d=4):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return "%.*e" % (d - 1, x)
    return "%.*g" % (d + 1, x)


def fsec(t):
    if t is None:
        return "—"
    if t < 1e-3:
        return "<0.001"
    return "%.3g" % t if t < 100 else "%.0f" % t


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kolmo", default=os.environ.get("KOLMO", "kolmo"))
    ap.add_argument("--cap", type=float, default=30, help="seconds per tool run (default 30)")
    ap.add_argument("--forest", default="3,100,10000,100000,1000000", help="forest sizes")
    ap.add_argument("--random", default="60,1000,10000,100000", help="random MDP sizes")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--dense-gib", type=float, default=4.0,
                    help="skip pymdptoolbox PolicyIteration when its dense S x S matrix is larger")
    ap.add_argument("--exact-up-to", type=int, default=100,
                    help="also run kolmo --exact on models up to this many states")
    ap.add_argument("--exact-cap", type=float, default=20, help="seconds for kolmo --exact")
    a = ap.parse_args()
    out_dir = os.path.join(OUT, "bench_mdp")
    os.makedirs(out_dir, exist_ok=True)
    t_start = time.perf_counter()
    specs = [("forest", int(s)) for s in a.forest.split(",") if s] + \
            [("random", int(s)) for s in a.random.split(",") if s]
    dead = set()  # (tool, family, gamma) that timed out or failed: larger sizes skipped
    last = {}  # (tool, family, gamma) -> (states, seconds) of the last run that finished
    warm_up()
    results = []
    failures = []
    for family, S in specs:
        t = time.perf_counter()
        m = forest(S) if family == "forest" else random_mdp(S, a.seed + S)
        if family == "random":
            m.toolbox = m.toolbox_arrays()
        gen_t = time.perf_counter() - t
        t = time.perf_counter()
        m.write_drn(os.path.join(out_dir, m.name + ".drn"))
        drn_t = time.perf_counter() - t
        size_mb = os.path.getsize(m.drn) / 1e6
        print("== %s: %d states, %d choices, %d transitions (generated %.1fs, DRN %.0f MB in %.1fs)"
              % (m.name, m.n, m.choices, m.P.nnz, gen_t, size_mb, drn_t), flush=True)
        # kolmo's loading baseline
        base, err, base_t = kolmo_run(a.kolmo, m.drn, "horizon:0", [], a.cap)
        if err:
            print("  kolmo horizon:0 failed: %s" % err)
            base_t = None
        # Storm: load once, both discounts, in one child
        storm = None
        storm_err = None
        if ("storm", family, "*") not in dead:
            storm, storm_err = run_capped(lambda: storm_solve(m, GAMMAS), a.cap * (1 + len(GAMMAS)))
            if storm_err:
                dead.add(("storm", family, "*"))
        else:
            storm_err = "skipped (failed at a smaller size)"
        for g in GAMMAS:
            gamma = float(g)
            row = dict(model=m.name, family=family, n=m.n, choices=m.choices, nnz=m.P.nnz,
                       gamma=g, kolmo_load=base_t, tools={})
            # --- kolmo
            ref = None
            for label, extra in [("kolmo PI", []), ("kolmo VI", ["--value-iteration"])]:
                doc, err, dt = kolmo_run(a.kolmo, m.drn, "discounted:" + g, extra, a.cap)
                entry = dict(total=dt)
                if err:
                    entry["error"] = err
                    failures.append("%s γ=%s %s: %s" % (m.name, g, label, err))
                else:
                    vals = np.array([float(x) for x in doc["values"]])
                    acts = np.array([int(x) for x in doc["policy"]])
                    entry.update(values=vals, policy=acts, bound=float(doc["error_bound"]),
                                 method=doc["method"], iterations=doc["iterations"],
                                 time=max(dt - base_t, 0.0) if base_t else dt)
                    entry["bound_check"] = residual_bound(m, vals, g)
                    if ref is None or entry["bound"] < ref["bound"]:
                        ref = entry
                row["tools"][label] = entry
                print("  γ=%s %-9s %s" % (g, label, err or "%.3fs total, %.3fs solve, V(0) = %.12g ± %.2g (recheck %.2g), %s"
                      % (dt, entry["time"], entry["values"][0], entry["bound"], entry["bound_check"], entry["method"])), flush=True)
            if m.n <= a.exact_up_to:
                doc, err, dt = kolmo_run(a.kolmo, m.drn, "discounted:" + g, ["--exact"], a.exact_cap)
                if err:
                    row["exact"] = dict(error=err)
                    failures.append("%s γ=%s kolmo --exact: %s" % (m.name, g, err))
                    print("  γ=%s exact: %s" % (g, err))
                else:
                    ex = [Fraction(x) for x in doc["values_exact"]]
                    row["exact"] = dict(v0=str(ex[0]), time=dt)
                    row["exact_values"] = ex
                    for label in ("kolmo PI", "kolmo VI"):
                        e = row["tools"][label]
                        if "values" in e:
                            e["exact_err"] = max(abs(float(Fraction(float(x)) - y)) for x, y in zip(e["values"], ex))
                    print("  γ=%s exact V(0) = %s (%.2fs); |PI − exact| = %.2g, |VI − exact| = %.2g" % (
                        g, ex[0] if len(str(ex[0])) < 40 else "%.15g (a fraction of %d digits)" % (float(ex[0]), len(str(ex[0]))), dt, row["tools"]["kolmo PI"].get("exact_err", math.nan),
                        row["tools"]["kolmo VI"].get("exact_err", math.nan)))
            if ref is None:
                print("  γ=%s: kolmo failed both ways; peers not judged" % g)
            row["ref"] = "kolmo PI" if ref is row["tools"].get("kolmo PI") else "kolmo VI"
            # --- peers
            peers = []
            dense_gib = 8.0 * m.n * m.n / 2 ** 30
            for cls in ("PolicyIteration", "PolicyIterationModified", "ValueIteration"):
                label = "mdptoolbox " + {"PolicyIteration": "PI", "PolicyIterationModified": "PIM",
                                         "ValueIteration": "VI"}[cls]
                tol = (lambda s: EXACT_REL * max(s, 1)) if cls == "PolicyIteration" else (lambda s: PYMDP_EPS)
                if cls == "PolicyIteration" and dense_gib > a.dense_gib:
                    peers.append((label, None, "skipped: dense S×S policy matrix, %.0f GiB" % dense_gib, tol))
                    continue
                peers.append((label, lambda cls=cls: toolbox_solve(m, cls, gamma), None, tol))
            peers.append(("QuantEcon PI", lambda: quantecon_solve(m, gamma), None, lambda s: EXACT_REL * max(s, 1)))
            for label, fn, skip, tol in peers:
                key = (label, family, g)
                if skip is None and key in dead:
                    skip = "skipped (failed or timed out at a smaller size)"
                if skip is None and key in last:
                    n0, t0 = last[key]
                    if t0 >= 1.0 and t0 * m.n / n0 > a.cap:
                        skip = "skipped (%.3g s at %d states: at least %.0f s expected at %d, over the cap)" % (
                            t0, n0, t0 * m.n / n0, m.n)
                if skip:
                    row["tools"][label] = dict(error=skip)
                    print("  γ=%s %-16s %s" % (g, label, skip))
                    continue
                res, err = run_capped(fn, a.cap)
                if err:
                    dead.add(key)
                    row["tools"][label] = dict(error=err)
                    failures.append("%s γ=%s %s: %s" % (m.name, g, label, err))
                    print("  γ=%s %-16s %s" % (g, label, err), flush=True)
                    continue
                res["tol"] = tol
                last[key] = (m.n, res["time"] + res.get("load", 0))
                if ref is not None:
                    judge(m, gamma, ref, res, row.get("exact_values"))
                row["tools"][label] = res
                print("  γ=%s %-16s %.3fs (constructor %.3fs), V(0) = %.10g, |v − v_kolmo| = %.3g (%s), Q-gap %.2g" % (
                    g, label, res["time"], res.get("init_time", res.get("load", 0)), res["values"][0], res.get("err", math.nan),
                    "ok" if res.get("ok") else "OFF", res.get("qgap", math.nan)), flush=True)
            # Storm
            for setting, rel in (("Storm", STORM_REL), ("Storm 1e-12", 1e-12)):
                if storm_err:
                    row["tools"][setting] = dict(error=storm_err)
                    continue
                s = dict(storm["runs"][(g, setting)])
                s["load"] = storm["load"]
                s["tol"] = lambda sc, rel=rel: rel * sc
                if ref is not None:
                    judge(m, gamma, ref, s, row.get("exact_values"))
                row["tools"][setting] = s
                print("  γ=%s %-16s %.3fs (load %.2fs), V(0) = %.10g, |v − v_kolmo| = %.3g (%s)" % (
                    g, setting, s["time"], s["load"], s["values"][0], s.get("err", math.nan),
                    "ok" if s.get("ok") else "OFF"), flush=True)
            results.append(row)
        del m
    total = time.perf_counter() - t_start
    write_report(results, failures, total, a)


def write_report(results, failures, total, a):
    peers = ["mdptoolbox PI", "mdptoolbox PIM", "mdptoolbox VI", "QuantEcon PI", "Storm", "Storm 1e-12"]
    lines = []
    lines.append("Machine: %s, %d cores; Python %s; run took %.0f s (cap %g s per tool run)." % (
        platform.machine(), os.cpu_count(), platform.python_version(), total, a.cap))
    lines.append("")
    lines.append("### Times (wall seconds, solve only; loading separately) and ratios peer / kolmo")
    lines.append("")
    lines.append("kolmo = its best certified time (PI or VI, whichever finished first); ×r = the peer took r times as long. "
                 "Peers give no certificate: their time is to an uncertified answer, and ✗ marks an answer "
                 "off by more than the tool's own claimed tolerance.")
    lines.append("")
    lines.append("| model | γ | kolmo load | kolmo PI | kolmo VI | " + " | ".join(peers) + " | Storm load |")
    lines.append("|---|---|---|---|---|" + "---|" * len(peers) + "---|")
    for row in results:
        k = [row["tools"][x] for x in ("kolmo PI", "kolmo VI")]
        times = [e["time"] for e in k if "time" in e]
        best = min(times) if times else None
        cells = []
        for e in k:
            cells.append(fsec(e["time"]) if "time" in e else short_err(e["error"]))
        pc = []
        for p in peers:
            e = row["tools"].get(p, {})
            if "time" not in e:
                pc.append(short_err(e.get("error", "—")))
                continue
            c = fsec(e["time"])
            if e.get("init_time", 0) >= 0.1 * e["time"] and e["time"] > 0.05:
                c += " [ctor %s]" % fsec(e["init_time"])
            if best and best >= 1e-3:
                c += " (×%s)" % ("%.2g" % (e["time"] / best) if e["time"] / best < 100 else "%.0f" % (e["time"] / best))
            if "ok" in e and not e["ok"]:
                c += " ✗"
            pc.append(c)
        st = row["tools"].get("Storm", {})
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            row["model"], row["gamma"], fsec(row["kolmo_load"]), cells[0], cells[1], " | ".join(pc),
            fsec(st.get("load"))))
    lines.append("")
    lines.append("### Accuracy: V(0), max over states |v − v_kolmo|, and the policy's Q-gap")
    lines.append("")
    lines.append("kolmo's certified bound b (re-checked here: ‖Tv − v‖/(1 − γ) in long double); for "
                 "a peer, |v − v*| ≥ max|v − v_kolmo| − b (\"off\" = max|v − v_kolmo|; \"exactly\" = "
                 "max|v − v*| against kolmo --exact). \"π optimal\": the tool's policy has Q-gap "
                 "max_s v*(s) − Q*(s, π(s)) within the uncertainty of v* (else its loss is ≤ gap/(1 − γ)).")
    lines.append("")
    lines.append("| model | γ | kolmo V(0) | b (PI / VI) | recheck (PI / VI) | exact | " + " | ".join(peers) + " |")
    lines.append("|---|---|---|---|---|---|" + "---|" * len(peers))
    for row in results:
        ref = row["tools"].get(row["ref"], {})
        kp, kv = row["tools"]["kolmo PI"], row["tools"]["kolmo VI"]
        ex = row.get("exact")
        if ex is None:
            exc = "—"
        elif "error" in ex:
            exc = ex["error"] if ex["error"].startswith("timeout") else "refused/failed (below)"
        else:
            exc = "%s (PI off %s, VI off %s)" % (ex["v0"] if len(ex["v0"]) < 24 else "a fraction of %d digits" % len(ex["v0"]),
                                               fmt(kp.get("exact_err"), 2), fmt(kv.get("exact_err"), 2))
        pc = []
        for p in peers:
            e = row["tools"].get(p, {})
            if "err" not in e:
                pc.append("—")
                continue
            c = "%.10g; off %s" % (e["v0"], fmt(e["err"], 2))
            if "exact_err" in e:
                c += " (exactly %s)" % fmt(e["exact_err"], 2)
            if not e["ok"]:
                c += " ✗ (tol %s)" % fmt(e["tol_value"], 2)
            if "qgap" in e:
                c += "; π optimal" if e["policy_ok"] else "; π Q-gap %s (loss ≤ %s)" % (
                    fmt(e["qgap"], 2), fmt(e["qgap"] / (1 - float(row["gamma"])), 2))
            pc.append(c)
        lines.append("| %s | %s | %s | %s / %s | %s / %s | %s | %s |" % (
            row["model"], row["gamma"], "%.12g" % ref["values"][0] if "values" in ref else "—",
            fmt(kp.get("bound"), 2), fmt(kv.get("bound"), 2), fmt(kp.get("bound_check"), 2),
            fmt(kv.get("bound_check"), 2), exc, " | ".join(pc)))
    lines.append("")
    lines.append("### kolmo's methods and failures")
    lines.append("")
    for row in results:
        for label in ("kolmo PI", "kolmo VI"):
            e = row["tools"][label]
            txt = e.get("method") or e.get("error")
            if "iterations" in e:
                txt += " — %d iterations" % e["iterations"]
            lines.append("- %s γ=%s %s: %s" % (row["model"], row["gamma"], label, txt))
    if failures:
        lines.append("")
        lines.append("### Failures and timeouts")
        lines.append("")
        for f in failures:
            lines.append("- " + f)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "bench_mdp.md"), "w") as f:
        f.write(text)
    raw = []
    for row in results:
        r2 = {k: v for k, v in row.items() if k != "tools"}
        r2["tools"] = {}
        for name, e in row["tools"].items():
            r2["tools"][name] = {k: (v if not isinstance(v, np.ndarray) else [float(x) for x in v[:3]])
                                 for k, v in e.items() if k != "tol"}
        raw.append(r2)
    with open(os.path.join(OUT, "bench_mdp.json"), "w") as f:
        json.dump(raw, f, indent=1, default=str)
    print()
    print(text)


def short_err(e):
    e = str(e)
    if e.startswith("timeout"):
        return e
    if "dense" in e:
        return "skipped (dense %s)" % e.split(",")[-1].strip()
    if "expected" in e:
        return "skipped (≥ %s s expected)" % e.split("at least ")[1].split(" s")[0]
    if "smaller size" in e:
        return "skipped (smaller size failed)"
    return "failed (below)"


if __name__ == "__main__":
    main()
