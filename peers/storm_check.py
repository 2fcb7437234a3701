#!/usr/bin/env python3
"""Cross-check `kolmo analyze` against Storm (stormpy) on the same DRN files.

Cases: the classic board under the rules clamp, stay and bounce and two generated boards (written
as DRN by `kolmo snakes --export`), and chains this script writes as DRN itself: a random sparse
chain with three closed classes (one absorbing, one aperiodic, one of period 2) and transient
states, a birth-death chain, a ring of 3001 states moving +-1 with probability 1/2, the Land of Oz
and the drunkard's walk.

For each case `kolmo analyze FILE --json --target LABEL [--exact]` is run, and the same DRN is
loaded with `stormpy.build_model_from_drn` and checked, from the initial state, with
  P=? [F "t"]               probability of reaching the target
  T=? [F "t"]               expected steps to the target
  R{"r"}=? [F "t"]          expected reward accumulated before the target
  LRA=? ["l"]               long-run fraction of time in the labelled states
  R{"r"}=? [LRA]            long-run average reward
under four Storm settings:
  default  stormpy.Environment(): Storm's command-line defaults (topological + gmm++ GMRES,
           1e-6 relative, no guarantee)
  sound    stormpy.environments.sound(): what stormpy.model_checking uses without an environment
           (optimistic value iteration, 1e-6 relative; the result carries lower/upper bounds)
  sound-tight  the same at precision 1e-12
  exact    the model built with rational numbers (build_model_from_drn[stormpy.Rational]) and
           stormpy.environments.exact()
Every Storm check runs in a forked child with a time limit (--cap); a timeout is recorded.

A check PASSES if kolmo agrees with the most accurate Storm result that finished: with exact
Storm, kolmo's `_exact` fraction (when kolmo gave one) must be equal and kolmo's float must lie
within max(kolmo's error bound, a few ulps) of the exact value; otherwise kolmo's float must lie
within max(kolmo's bound, Storm's claimed precision) of Storm's value (of Storm's [lower, upper]
interval when Storm gives one). Storm's default is flagged when it is off by more than its own
1e-6 relative precision.

Writes the DRN files under $PEERS_OUT/storm_check/ and the table to $PEERS_OUT/storm_check.md.
Exit status 1 if any check fails.
"""
import argparse
import json
import math
import multiprocessing as mp
import os
import random
import resource
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("PEERS_OUT", os.path.join(os.path.expanduser("~"), ".cache", "kolmo-peers"))
STORM_REL = 1e-6  # Storm's default precision (relative)
TIGHT = "1/1000000000000"  # sound-tight precision (1e-12)
ULPS = 8 * 2.0 ** -52  # floating-point floor for comparisons (relative)
SETTINGS = ["default", "sound", "sound-tight", "exact"]


# ---------------------------------------------------------------- DRN writing (general chains)
class Chain:
    """A DTMC with rational probabilities: rows[s] = {t: Fraction}; labels; state rewards."""

    def __init__(self, name, n, note=""):
        self.name, self.n, self.note = name, n, note
        self.rows = [dict() for _ in range(n)]
        self.labels = {}
        self.rewards = {}

    def add(self, s, t, p):
        self.rows[s][t] = self.rows[s].get(t, Fraction(0)) + Fraction(p)

    def label(self, name, states):
        self.labels[name] = sorted(set(states))

    def write_drn(self, path):
        for s, row in enumerate(self.rows):
            assert sum(row.values()) == 1 and all(p > 0 for p in row.values()), (self.name, s)
        names = list(self.rewards)
        by_state = {}
        for lab, states in self.labels.items():
            for s in states:
                by_state.setdefault(s, []).append(lab)
        with open(path, "w") as f:
            f.write("// %s, written by kolmo peers/storm_check.py\n" % self.name)
            f.write("@type: DTMC\n@value_type: rational\n@parameters\n\n@reward_models\n%s\n" % " ".join(names))
            f.write("@nr_states\n%d\n@nr_choices\n%d\n@model\n" % (self.n, self.n))
            for s, row in enumerate(self.rows):
                rew = " [%s]" % ", ".join(str(self.rewards[r][s]) for r in names) if names else ""
                labs = "".join(" " + x for x in sorted(by_state.get(s, [])))
                f.write("state %d%s%s\n\taction 0\n" % (s, rew, labs))
                for t in sorted(row):
                    f.write("\t\t%d : %s\n" % (t, row[t]))


def land_of_oz():
    # Kemeny, Snell and Thompson: rain, nice, snow
    c = Chain("Land of Oz", 3, "states R, N, S; start R")
    P = [[Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)],
         [Fraction(1, 2), 0, Fraction(1, 2)],
         [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]]
    for s in range(3):
        for t in range(3):
            if P[s][t]:
                c.add(s, t, P[s][t])
    c.label("init", [0])
    c.label("nice", [1])
    c.label("snow", [2])
    c.rewards["cost"] = [1, 0, 2]
    return c, dict(targets=["nice"], lra=["nice", "snow"], reward_target=[], reward_lra=["cost"])


def drunkard():
    c = Chain("drunkard's walk", 5, "0..4, 0 (home) and 4 (bar) absorbing; start 2")
    c.add(0, 0, 1)
    c.add(4, 4, 1)
    for s in (1, 2, 3):
        c.add(s, s - 1, Fraction(1, 2))
        c.add(s, s + 1, Fraction(1, 2))
    c.label("init", [2])
    c.label("home", [0])
    c.label("ends", [0, 4])
    return c, dict(targets=["home", "ends"], lra=["home"], reward_target=[], reward_lra=[])


def ring(n=3001):
    c = Chain("ring %d" % n, n, "+-1 mod %d w.p. 1/2; start 0" % n)
    for s in range(n):
        c.add(s, (s + 1) % n, Fraction(1, 2))
        c.add(s, (s - 1) % n, Fraction(1, 2))
    c.label("init", [0])
    c.label("zero", [0])
    c.label("goal", [n // 2])
    return c, dict(targets=["goal"], lra=["zero"], reward_target=[], reward_lra=[])


def birth_death(n=60):
    c = Chain("birth-death %d" % (n + 1), n + 1, "0..%d, up 1/3, down 1/2, else stay; start 0" % n)
    up, down = Fraction(1, 3), Fraction(1, 2)
    for s in range(n + 1):
        if s < n:
            c.add(s, s + 1, up)
        if s > 0:
            c.add(s, s - 1, down)
        c.add(s, s, 1 - (up if s < n else 0) - (down if s > 0 else 0))
    c.label("init", [0])
    c.label("goal", [n])
    c.label("low", range(10))
    c.rewards["level"] = list(range(n + 1))
    return c, dict(targets=["goal"], lra=["goal", "low"], reward_target=["level"], reward_lra=["level"])


def random_chain(seed=7, transient=250, c2=40, c3=60):
    """Transient states 0..transient-1; an absorbing state; an aperiodic class; a period-2 class."""
    rng = random.Random(seed)
    a = transient
    c2s = list(range(a + 1, a + 1 + c2))
    half = c3 // 2
    c3a = list(range(a + 1 + c2, a + 1 + c2 + half))
    c3b = list(range(a + 1 + c2 + half, a + 1 + c2 + c3))
    n = a + 1 + c2 + c3
    closed = [a] + c2s + c3a + c3b
    c = Chain("random %d" % n, n, "seed %d: %d transient, closed classes of 1, %d (aperiodic), %d (period 2)"
              % (seed, transient, c2, c3))
    w = [dict() for _ in range(n)]

    def edge(s, t):
        w[s][t] = w[s].get(t, 0) + rng.randint(1, 9)
    for s in range(transient):  # a path down to the closed classes, plus random edges
        edge(s, rng.randrange(s) if s > 0 and rng.random() < 0.9 else rng.choice(closed))
        for _ in range(rng.randint(1, 3)):
            edge(s, rng.randrange(transient))
        if rng.random() < 0.1:
            edge(s, rng.choice(closed))
    edge(a, a)
    for i, s in enumerate(c2s):  # a cycle, random chords, one self-loop: aperiodic
        edge(s, c2s[(i + 1) % c2])
        for _ in range(rng.randint(0, 2)):
            edge(s, rng.choice(c2s))
    edge(c2s[0], c2s[0])
    for i in range(half):  # bipartite: period 2
        edge(c3a[i], c3b[i])
        edge(c3b[i], c3a[(i + 1) % half])
        for _ in range(rng.randint(0, 2)):
            edge(c3a[i], rng.choice(c3b))
            edge(c3b[i], rng.choice(c3a))
    for s in range(n):
        tot = sum(w[s].values())
        for t, x in w[s].items():
            c.add(s, t, Fraction(x, tot))
    c.label("init", [transient - 1])
    c.label("goal", c2s)
    c.label("closed", closed)
    c.label("lra", rng.sample(c3a + c3b, 20) + rng.sample(c2s, 5))
    c.rewards["cost"] = [rng.randint(0, 9) for _ in range(n)]
    return c, dict(targets=["goal", "closed"], lra=["lra"], reward_target=["cost"], reward_lra=["cost"])


# ---------------------------------------------------------------- boards (kolmo snakes --export)
def board_toml(path, n, rule, seed, faces=6):
    """A random board like shared/peers/gen_board.py: n/10 ladders and n/10 snakes with distinct
    endpoints in 1..n-1."""
    rng = random.Random(seed)
    k = n // 10
    cells = rng.sample(range(1, n), 4 * k)
    pairs = [sorted(cells[2 * i:2 * i + 2]) for i in range(2 * k)]
    ladders = [[lo, hi] for lo, hi in pairs[:k]]
    snakes = [[hi, lo] for lo, hi in pairs[k:]]
    with open(path, "w") as f:
        f.write('name = "generated %d (seed %d)"\nsize = %d\nfaces = %d\nrule = "%s"\n' % (n, seed, n, faces, rule))
        f.write("ladders = %s\nsnakes = %s\n" % (json.dumps(ladders), json.dumps(snakes)))


def export_board(kolmo, board, rule, drn):
    cmd = [kolmo, "snakes", board, "--rule", rule, "--export", drn, "--mc", "0", "--quiet", "--json"]
    doc = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return doc


def f64_exact_drn(src, dst):
    """Copy a DRN with each transition probability replaced by the exact decimal expansion of the
    double nearest to it: the chain kolmo (and Storm's double model) actually solves."""
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            t = line.strip()
            if t.startswith("@value_type:"):
                line = "@value_type: rational\n"
            elif " : " in t and not t.startswith("//") and not t.startswith("@"):
                tgt, p = t.split(" : ")
                x = float(Fraction(p)) if "/" in p else float(p)
                indent = line[:len(line) - len(line.lstrip())]
                line = "%s%s : %s\n" % (indent, tgt, Decimal(x))
            g.write(line)


def rationalize_drn(src, dst):
    """Copy a double DRN with each transition probability replaced by the simplest fraction with a
    denominator up to 2^20 (what kolmo --exact does). Returns False if a row then misses 1."""
    ok = True
    row = None
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            t = line.strip()
            if t.startswith("@value_type:"):
                line = "@value_type: rational\n"
            elif t.startswith("state ") or t.startswith("action"):
                if row is not None and t.startswith("state ") and row != 1:
                    ok = False
                if t.startswith("state "):
                    row = Fraction(0)
            elif " : " in t and not t.startswith("//") and not t.startswith("@"):
                tgt, p = t.split(" : ")
                q = Fraction(p).limit_denominator(1 << 20)
                row += q
                indent = line[:len(line) - len(line.lstrip())]
                line = "%s%s : %s\n" % (indent, tgt, q)
            g.write(line)
    return ok and row == 1


# ---------------------------------------------------------------- kolmo
KOLMO_CACHE = {}


def kolmo_analyze(kolmo, drn, target, exact, timeout):
    key = (drn, target, exact)
    if key not in KOLMO_CACHE:
        KOLMO_CACHE[key] = kolmo_analyze_run(kolmo, drn, target, exact, timeout)
    return KOLMO_CACHE[key]


def kolmo_analyze_run(kolmo, drn, target, exact, timeout):
    cmd = [kolmo, "analyze", drn, "--json"] + (["--target", target] if target else []) + (["--exact"] if exact else [])
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[:300])
    doc = json.loads(p.stdout)
    doc["_seconds"] = time.perf_counter() - t0
    return doc, None


def fnum(x):
    return math.inf if x == "inf" else (math.nan if x is None else float(x))


def frac(x):
    return None if x is None else (math.inf if x == "inf" else Fraction(x))


# ---------------------------------------------------------------- Storm
def run_capped(fn, cap):
    ctx = mp.get_context("fork")
    rd, wr = ctx.Pipe(False)

    def target():
        resource.setrlimit(resource.RLIMIT_AS, (16 << 30, 16 << 30))
        try:
            wr.send(("ok", fn()))
        except BaseException as e:  # noqa: BLE001 - report anything
            wr.send(("error", repr(e)[:200]))

    p = ctx.Process(target=target)
    p.start()
    try:
        if not rd.poll(cap):
            return "timeout", None
        return rd.recv()
    except EOFError:
        return "crash", None
    finally:
        if p.is_alive():
            p.kill()
        p.join()


def storm_value(x):
    """A Storm number as float or Fraction (rationals; +inf as math.inf)."""
    if isinstance(x, float):
        return x
    s = str(x)
    if s in ("inf", "+inf", "infinity"):
        return math.inf
    return Fraction(s)


def storm_check(models, setting, formula, cap, exact_cap):
    import stormpy
    from stormpy import environments as envs

    def fn():
        if setting == "exact":
            m, env = models["rational"], envs.exact()
        else:
            m = models["double"]
            if setting == "default":
                env = envs.Environment()
            else:
                env = envs.sound()
                if setting == "sound-tight":
                    env.solver().native().precision = stormpy.Rational(TIGHT)
        prop = stormpy.parse_properties(formula)[0]
        t = time.perf_counter()
        r = stormpy.model_checking(m, prop, only_initial_states=True, environment=env)
        secs = time.perf_counter() - t
        s0 = m.initial_states[0]
        b = r[s0]
        lo = storm_value(b.lower) if b.has_lower else None
        hi = storm_value(b.upper) if b.has_upper else None
        return dict(value=storm_value(r.get_value(s0)), lower=lo, upper=hi, seconds=secs)
    status, out = run_capped(fn, exact_cap if setting == "exact" else cap)
    if status != "ok":
        return dict(status=status if status != "error" else "error: " + str(out))
    out["status"] = "ok"
    if isinstance(out["value"], float) and out["lower"] is not None and out["upper"] is not None:
        # bounds only count when they bracket the value (Storm reports [0, -] for unsound runs)
        if not (out["lower"] <= out["value"] <= out["upper"]) or out["lower"] == out["upper"] == 0:
            out["lower"] = out["upper"] = None
    return out


# ---------------------------------------------------------------- comparison
def fmt(x, digits=12):
    if x is None:
        return "—"
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return str(x.numerator)
        s = str(x)
        return s if len(s) <= 24 else "%.*g (fraction)" % (digits, float(x))
    if isinstance(x, float):
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return "%.*g" % (digits, x)
    return str(x)


def close(a, b, tol):
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol


def judge(q, storm, f64_ref=None):
    """Fills q['verdict'], q['ref'], q['diff'], q['default_flag']."""
    k, bound = q["kolmo"], q["bound"]
    if k is None or (isinstance(k, float) and math.isnan(k)):
        q["verdict"], q["why"] = "FAIL", "kolmo gave no value"
        return
    floor = ULPS * abs(k) if not math.isinf(k) else 0.0
    tol_k = max(bound or 0.0, floor)
    ref = None
    ex = storm.get("exact", {})
    notes = []
    if ex.get("status") == "ok":
        ref = ex["value"]
        q["ref_setting"] = "exact"
        exact_ok = True
        if q.get("kolmo_exact") is not None:
            exact_ok = q["kolmo_exact"] == ref
            notes.append("fractions %s" % ("equal" if exact_ok else "DIFFER: kolmo %s, Storm %s" % (q["kolmo_exact"], ref)))
        float_ok = close(k, float(ref), tol_k)
        far = not (math.isinf(k) or math.isinf(float(ref))) and abs(k - float(ref)) > 1e-9 * abs(float(ref))
        if (not float_ok or far) and f64_ref is not None:
            # is kolmo's float right for the chain it solved (probabilities rounded to doubles)?
            r64 = f64_ref()
            if r64.get("status") == "ok":
                q["ref_f64"] = r64["value"]
                float_ok = close(k, float(r64["value"]), tol_k)
                notes.append("kolmo's float %s the exact value %s of the chain with probabilities rounded to "
                             "doubles (off by %.1e; the rounding moves the exact answer by %.1e relative)"
                             % ("matches" if float_ok else "does NOT match", fmt(r64["value"], 15),
                                abs(k - float(r64["value"])), abs(float(r64["value"]) / float(ref) - 1)))
            else:
                notes.append("exact value of the double-rounded chain: %s" % r64.get("status"))
        ok = exact_ok and float_ok
    else:
        for s in ("sound-tight", "sound", "default"):
            r = storm.get(s, {})
            if r.get("status") == "ok":
                ref = r["value"]
                q["ref_setting"] = s
                break
        if ref is None:
            q["verdict"], q["why"] = "NO REF", "no Storm setting finished"
            return
        r = storm[q["ref_setting"]]
        if math.isinf(ref) or math.isinf(k):
            ok = ref == k
        elif r.get("lower") is not None and r.get("upper") is not None:
            ok = r["lower"] - tol_k - ULPS * abs(ref) <= k <= r["upper"] + tol_k + ULPS * abs(ref)
            notes.append("within Storm's [lower, upper]" if ok else "outside Storm's [%r, %r]" % (r["lower"], r["upper"]))
        else:
            prec = float(Fraction(TIGHT)) if q["ref_setting"] == "sound-tight" else STORM_REL
            ok = close(k, ref, max(tol_k, prec * abs(ref)))
    q["ref"] = ref
    q["diff"] = abs(k - float(ref)) if not (math.isinf(k) or math.isinf(float(ref))) else (0.0 if k == float(ref) else math.inf)
    q["verdict"] = "pass" if ok else "FAIL"
    d = storm.get("default", {})
    if d.get("status") == "ok" and not math.isinf(float(ref)):
        err = abs(float(d["value"]) - float(ref))
        q["default_err"] = err
        if err > 2 * STORM_REL * abs(float(ref)) + 1e-300:
            notes.append("Storm default off by %.2g (%.2g relative)" % (err, err / abs(float(ref)) if ref else math.inf))
    q["why"] = "; ".join(notes)


# ---------------------------------------------------------------- one case
def run_case(case, kolmo, a):
    """case: dict(name, drn, rational_drn, targets, lra, reward_target, reward_lra, exact)."""
    import stormpy
    rows = []
    t0 = time.perf_counter()
    kdocs = {}
    kerr = {}
    for target in case["targets"] or [None]:
        doc, err = (None, None)
        if case["exact"]:
            doc, err = kolmo_analyze(kolmo, case["drn"], target, True, a.kolmo_exact_cap)
        if doc is None:
            if err:
                kerr[target] = "kolmo --exact refused (" + err.split(": ")[-1] + ")"
            doc, err = kolmo_analyze(kolmo, case["drn"], target, False, 600)
        if doc is None:
            raise RuntimeError("kolmo analyze %s --target %s: %s" % (case["drn"], target, err))
        kdocs[target] = doc
    base = kdocs[case["targets"][0] if case["targets"] else None]
    s0 = base["state_names"].index(base["from"])
    labels = base["model"]["labels"]
    name_index = {nm: i for i, nm in enumerate(base["state_names"])}

    # Storm models
    models = {"double": stormpy.build_model_from_drn(case["drn"])}
    if case.get("rational_drn"):
        models["rational"] = stormpy.build_model_from_drn[stormpy.Rational](case["rational_drn"])
    assert models["double"].nr_states == base["model"]["states"]

    def f64_ref_for(formula):
        def f():
            if "f64" not in models:
                path = case["drn"][:-4] + ".f64exact.drn"
                f64_exact_drn(case["drn"], path)
                models["f64"] = stormpy.build_model_from_drn[stormpy.Rational](path)
            return storm_check({"rational": models["f64"]}, "exact", formula, a.cap, a.exact_cap)
        return f

    def storm_all(formula):
        res = {}
        for s in SETTINGS:
            if s == "exact" and "rational" not in models:
                continue
            if s == "sound-tight" and res["sound"]["status"] == "timeout":
                res[s] = dict(status="skipped (1e-6 timed out)")
                continue
            res[s] = storm_check(models, s, formula, a.cap, a.exact_cap)
        return res

    for target in case["targets"]:
        d = kdocs[target]
        t = d["target"]
        quantities = [
            ("P(F %s)" % target, 'P=? [F "%s"]' % target, fnum(t["hitting_probability"][s0]),
             # no certified bound for probabilities: the residual, scaled by the expected steps
             None, frac(t.get("hitting_probability_exact", [None] * (s0 + 1))[s0])),
            ("E steps to %s" % target, 'T=? [F "%s"]' % target, fnum(t["expected_steps"][s0]),
             "rel:%r" % fnum(t["error_bound"]), frac(t.get("expected_steps_exact", [None] * (s0 + 1))[s0])),
        ]
        p = quantities[0]
        steps = [fnum(x) for x in t["expected_steps"] if x != "inf"]
        pb = fnum(t["hitting_probability_residual"]) * max(steps + [1.0]) if t["not_almost_surely"] == [] else None
        quantities[0] = p[:3] + (pb if pb is not None else "res:%r" % fnum(t["hitting_probability_residual"]),) + p[4:]
        for rname in case["reward_target"] + (["rolls"] if "rolls" in d.get("rewards", {}) else []):
            rr = d["rewards"][rname]
            val = fnum(rr["expected_reward_to_target"][s0])
            # the error is N·res with N >= 0 and N·1 = E: at most residual · max_s E[steps from s]
            rb = fnum(rr["expected_reward_to_target_residual"]) * max(steps + [1.0])
            quantities.append(("E %s to %s" % (rname, target), 'R{"%s"}=? [F "%s"]' % (rname, target), val,
                               "rel:%r" % fnum(t["error_bound"]) if rname == "rolls" else rb, None))
        for qname, formula, val, bound, kex in quantities:
            rows.append(make_row(case, qname, formula, val, bound, kex, storm_all(formula), f64_ref_for(formula)))

    # long-run: from kolmo's long-run distribution (and exact stationary distributions)
    lr = base["long_run"]
    for lab in case["lra"]:
        states = [name_index[x] for x in labels[lab]]
        val = sum(fnum(lr["distribution"][s]) for s in states)
        bound = fnum(lr["error_bound"]) * len(states)
        kex = long_run_exact(kolmo, case, base, states, s0, a)
        rows.append(make_row(case, "LRA %s" % lab, 'LRA=? ["%s"]' % lab, val, bound, kex, storm_all('LRA=? ["%s"]' % lab),
                             f64_ref_for('LRA=? ["%s"]' % lab)))
    for rname in case["reward_lra"]:
        rr = base["rewards"][rname]
        val = fnum(rr["gain"])
        rmax = max(abs(x) for x in case.get("reward_values", {}).get(rname, [1]))
        bound = sum(fnum(c["gain_error_bound"]) for c in rr["classes"]) + fnum(lr["residual"]) * rmax * len(rr["classes"])
        kex = None
        if base["stationary"] and "distribution_exact" in base["stationary"][0] and rname in case.get("reward_values", {}):
            rv = case["reward_values"][rname]
            kex = long_run_exact(kolmo, case, base, None, s0, a, weights=rv)
        rows.append(make_row(case, "LRA reward %s" % rname, 'R{"%s"}=? [LRA]' % rname, val, bound, kex,
                             storm_all('R{"%s"}=? [LRA]' % rname), f64_ref_for('R{"%s"}=? [LRA]' % rname)))
    for r in rows:
        if r["kolmo_note"] is None and kerr:
            r["kolmo_note"] = "; ".join(sorted(set(kerr.values())))
    case["seconds"] = time.perf_counter() - t0
    return rows


def long_run_exact(kolmo, case, doc, states, s0, a, weights=None):
    """Σ over closed classes C of P(reach C) · Σ_{s in states} π_C(s) (or Σ_s π_C(s) w(s)) in
    fractions, from kolmo's exact stationary distributions and exact hitting probabilities."""
    st = doc["stationary"]
    if not st or "distribution_exact" not in st[0]:
        return None
    idx = {nm: i for i, nm in enumerate(doc["state_names"])}
    total = Fraction(0)
    for c in st:
        cs = [idx[x] for x in c["states"]]
        pis = [Fraction(x) for x in c["distribution_exact"]]
        if weights is None:
            want = set(states)
            part = sum((p for s, p in zip(cs, pis) if s in want), Fraction(0))
        else:
            part = sum((p * weights[s] for s, p in zip(cs, pis)), Fraction(0))
        if part == 0:
            continue
        if len(st) == 1:
            reach = Fraction(1)
        else:
            tgt = ",".join(str(s) for s in cs)
            if any(doc["state_names"][s] != str(s) for s in cs):
                return None
            d, err = kolmo_analyze(kolmo, case["drn"], tgt, True, a.kolmo_exact_cap)
            if d is None:
                return None
            reach = Fraction(d["target"]["hitting_probability_exact"][s0])
        total += reach * part
    return total


def make_row(case, qname, formula, val, bound, kex, storm, f64_ref=None):
    # bound: absolute float, "rel:x" (relative to the value) or "res:x" (a residual, not a bound)
    note = None
    if isinstance(bound, str):
        kind, x = bound.split(":")
        x = float(x)
        if kind == "rel":
            bound = x * abs(val) if not math.isinf(val) else 0.0
        else:
            note = "kolmo gives a residual (%.1e), not a bound" % x
            bound = x
    q = dict(case=case["name"], quantity=qname, formula=formula, kolmo=val, bound=bound, kolmo_exact=kex,
             storm=storm, kolmo_note=note)
    judge(q, storm, f64_ref)
    return q


# ---------------------------------------------------------------- report
def cell(storm, s):
    r = storm.get(s)
    if r is None:
        return "n/a"
    if r["status"] != "ok":
        return r["status"][:40]
    v = fmt(r["value"], 12)
    if s != "exact" and r.get("lower") is not None and r.get("upper") is not None and not math.isinf(float(r["value"])):
        return "%s [±%.1e]" % (v, (float(r["upper"]) - float(r["lower"])) / 2)
    return "%s (%.2gs)" % (v, r["seconds"]) if r["seconds"] > 1 else v


def table(rows):
    out = ["| case | quantity | kolmo | kolmo bound | Storm default | Storm sound 1e-6 | Storm sound 1e-12 | Storm exact | "
           "\\|kolmo − ref\\| | verdict | notes |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for q in rows:
        kol = fmt(q["kolmo"], 15)
        if q["kolmo_exact"] is not None:
            kol += " (= %s)" % fmt(q["kolmo_exact"]) if isinstance(q["kolmo_exact"], Fraction) and len(str(q["kolmo_exact"])) <= 24 else " (exact ✓)" if q["kolmo_exact"] == q.get("ref") else " (exact)"
        notes = "; ".join(x for x in [q.get("why"), q.get("kolmo_note")] if x)
        diff = q.get("diff")
        out.append("| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s (vs %s) | %s |" % (
            q["case"], q["formula"], kol, "%.1e" % q["bound"] if q["bound"] is not None else "—",
            cell(q["storm"], "default"), cell(q["storm"], "sound"), cell(q["storm"], "sound-tight"),
            cell(q["storm"], "exact"), "%.1e" % diff if diff is not None else "—", q["verdict"],
            q.get("ref_setting", "—"), notes.replace("|", "\\|")))
    return "\n".join(out)


# ---------------------------------------------------------------- driver
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kolmo", default=os.environ.get("KOLMO", "target/release/kolmo"))
    ap.add_argument("--out", default=os.path.join(OUT, "storm_check"))
    ap.add_argument("--cap", type=float, default=10.0, help="seconds per Storm check (default 10)")
    ap.add_argument("--exact-cap", type=float, default=60.0, help="seconds per exact Storm check (default 60)")
    ap.add_argument("--kolmo-exact-cap", type=float, default=60.0, help="seconds for kolmo analyze --exact")
    ap.add_argument("--exact-max", type=int, default=5000, help="largest model checked in exact arithmetic")
    ap.add_argument("--only", nargs="*", help="only cases whose name contains one of these")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    kolmo = os.path.abspath(a.kolmo)
    cases = []

    def board_case(name, board, rule, n):
        if a.only and not any(x.lower() in name.lower() for x in a.only):
            return
        drn = os.path.join(a.out, name.replace(" ", "_") + ".drn")
        doc = export_board(kolmo, board, rule, drn)
        rat = None
        if n <= a.exact_max:
            rat = drn[:-4] + ".rational.drn"
            if not rationalize_drn(drn, rat):
                rat = None
        cases.append(dict(name=name, drn=drn, rational_drn=rat, targets=["goal"], lra=["goal"], reward_target=[],
                          reward_lra=[], exact=n <= a.exact_max, n=n + 1,
                          note="kolmo snakes: expected rolls %s" % doc["expected_rolls"]))

    for rule in ("clamp", "stay", "bounce"):
        board_case("classic %s" % rule, "classic", rule, 100)
    for n, rule, seed in ((1000, "bounce", 1), (10000, "clamp", 1)):
        toml = os.path.join(a.out, "board_n%d_%s_s%d.toml" % (n, rule, seed))
        board_toml(toml, n, rule, seed)
        board_case("board %d %s" % (n, rule), toml, rule, n)
    for make in (random_chain, birth_death, ring, land_of_oz, drunkard):
        c, spec = make()
        if a.only and not any(x.lower() in c.name.lower() for x in a.only):
            continue
        drn = os.path.join(a.out, c.name.replace(" ", "_").replace("'", "") + ".drn")
        c.write_drn(drn)
        cases.append(dict(name=c.name, drn=drn, rational_drn=drn if c.n <= a.exact_max else None,
                          exact=c.n <= a.exact_max, n=c.n, note=c.note, reward_values=c.rewards, **spec))

    rows = []
    for case in cases:
        print("== %s (%d states) %s" % (case["name"], case["n"], case["note"]), flush=True)
        rs = run_case(case, kolmo, a)
        for q in rs:
            print("  %-22s kolmo %-22s ref(%s) %-22s %s %s" % (q["quantity"], fmt(q["kolmo"], 15), q.get("ref_setting"),
                                                             fmt(q.get("ref"), 15), q["verdict"], q.get("why", "")), flush=True)
        print("  (%.1fs)" % case["seconds"], flush=True)
        rows += rs
    fails = [q for q in rows if q["verdict"] != "pass"]
    head = ["# kolmo vs Storm (stormpy %s)" % __import__("stormpy").__version__, "",
            "%d checks, %d pass, %d fail; %s" % (len(rows), len(rows) - len(fails), len(fails), time.strftime("%Y-%m-%d %H:%M")), "",
            "Cases:"] + ["- %s: %d states; %s" % (c["name"], c["n"], c["note"]) for c in cases] + [""]
    md = "\n".join(head) + "\n" + table(rows) + "\n"
    print()
    print(md)
    with open(os.path.join(OUT, "storm_check.md"), "w") as f:
        f.write(md)
    print("wrote %s" % os.path.join(OUT, "storm_check.md"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
