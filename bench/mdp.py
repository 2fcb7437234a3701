#!/usr/bin/env python3
"""Discounted MDPs: `kolmo solve` against Storm (stormpy), on the models of peers/bench_mdp.py.

  mdp.py [--kolmo target/release/kolmo] [--random 100000] [--forest 1000000] [--gammas 0.9 0.99]
         [--reps 3] [--cap 600] [--no-storm] [--md FILE] [--json FILE]

Models (written once into $PEERS_OUT/bench_mdp/, default PEERS_OUT ~/.cache/kolmo-peers, and reused
when there): random-S, peers/bench_mdp.py's random_mdp(S, 6) (2-4 actions a state, 3-5 successors
an action drawn from all states, probabilities w/1024, integer rewards 0..99), and forest-S,
MDPToolbox's forest management example through bench_mdp.forest(S). The generator runs in a child
process; the model's counts (states, choices, transitions) are kept beside the DRN in FILE.meta.json
(from the file itself when it was written by someone else). Objective: maximal expected discounted
reward, for each discount γ of --gammas.

kolmo: `kolmo solve FILE --objective discounted:G --json -q`, timed end to end (wall clock of the
process: the total), its load and solve times read from the JSON's `seconds` (measured in the
process, as Storm's are: reading and checking the model; solving and certifying, without writing
the report), the load the median over the `--objective horizon:0` runs (read the file, a trivial
solve). Read from its JSON also: values, lower, upper (the certified interval of every state),
error_bound, iterations, method.

Storm: one child process per repetition (started by `spawn`, so that its peak RSS is Storm's and
not inherited from this process; killed after --cap seconds) that reads the DRN with
build_model_from_drn (timed: load), then checks R{"r"}max=? [Cdiscount=G] for every γ with
  default  stormpy.Environment(): Storm's command-line defaults (1e-6 relative, no guarantee);
  sound    stormpy.environments.sound() (Storm's sound mode), reported as it comes.
Its values come from result.get_value_vector() (all states; the initial state alone if the
result has no vector). Peak RSS: the child's ru_maxrss (kolmo: /usr/bin/time's %M).

Agreement: a Storm value agrees when, at every state s, it lies within 1e-6 · |v_kolmo(s)| (Storm's
relative precision) of kolmo's certified interval [lower(s), upper(s)]. The table gives the largest
|v_Storm(s) − v_kolmo(s)| over the states. Times are medians of --reps runs. Prints a markdown
table (also to --md) and writes one JSON object per row to --json (for bench/roofline.py). Exit
status 1 if a value disagrees or a kolmo run fails, 2 on bad usage.
"""
import argparse
import json
import math
import multiprocessing as mp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

PEERS_OUT = os.environ.get("PEERS_OUT", os.path.join(os.path.expanduser("~"), ".cache", "kolmo-peers"))
SEED = 6  # random-S is random_mdp(S, SEED)
STORM_REL = 1e-6  # Storm's default precision (relative)
CONFIGS = ("default", "sound")


def log(msg):
    print("[mdp %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------ models
def generate(family, n, path):
    """Writes the model `family`-`n` to `path` with peers/bench_mdp.py's generators and its counts
    to `path`.meta.json (run in a child process: the arrays stay out of this one)."""
    from bench_mdp import forest, random_mdp

    m = random_mdp(n, SEED) if family == "random" else forest(n)
    tmp = path + ".tmp"
    m.write_drn(tmp)
    os.replace(tmp, path)
    generator = "random_mdp(%d, %d)" % (n, SEED) if family == "random" else "forest(%d)" % n
    write_meta(path, dict(states=m.n, choices=m.choices, transitions=int(m.P.nnz), generator=generator))


def write_meta(path, meta):
    with open(path + ".meta.json", "w") as f:
        json.dump(meta, f)


def scan_meta(path):
    """Counts of a DRN file read from the file: @nr_states, @nr_choices and one transition a
    line that starts with two tabs (the layout bench_mdp.Model.write_drn writes)."""
    states = choices = None
    transitions = 0
    with open(path) as f:
        previous = ""
        for line in f:
            if line.startswith("\t\t"):
                transitions += 1
            elif previous == "@nr_states\n":
                states = int(line)
            elif previous == "@nr_choices\n":
                choices = int(line)
            previous = line
    return dict(states=states, choices=choices, transitions=transitions, generator="counts read from the file, which was already there")


def ensure_model(family, n, out_dir, cap):
    """Path and counts of the model, generating it first if its DRN is not there."""
    path = os.path.join(out_dir, "%s-%d.drn" % (family, n))
    if not os.path.exists(path):
        log("writing %s" % path)
        t = time.perf_counter()
        p = mp.get_context("spawn").Process(target=generate, args=(family, n, path))
        p.start()
        p.join(cap)
        if p.is_alive():
            p.kill()
        if p.exitcode != 0 or not os.path.exists(path):
            raise SystemExit("mdp.py: could not write %s (exit %s)" % (path, p.exitcode))
        log("wrote %s in %.1f s" % (path, time.perf_counter() - t))
    meta_path = path + ".meta.json"
    if os.path.exists(meta_path) and os.path.getmtime(meta_path) >= os.path.getmtime(path):
        with open(meta_path) as f:
            meta = json.load(f)
    else:
        meta = scan_meta(path)
        write_meta(path, meta)
    return path, meta


def warm_page_cache(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


# ------------------------------------------------------------------------------------ kolmo
def run_timed(cmd, cap):
    """Runs `cmd` under /usr/bin/time: (exit code, or None if killed after `cap` s; stdout; stderr;
    wall seconds; peak RSS in MiB as /usr/bin/time reports it). Not wait4's ru_maxrss of a child
    of this process: a forked child's maximum includes this interpreter's memory at the fork (the
    forest model's arrays: 900 MiB reported for a run that peaked at 250)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        child = subprocess.Popen(["/usr/bin/time", "-f", "%M"] + list(cmd), stdout=out, stderr=err, text=True)
        killed = []
        timer = threading.Timer(cap, lambda: (killed.append(1), child.kill()))
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        code = None if killed else child.returncode
        lines = err.read().rstrip("\n").split("\n")
        try:
            peak = int(lines[-1]) / 1024.0
            lines = lines[:-1]
        except ValueError:
            peak = float("nan")
        return code, out.read(), "\n".join(lines), wall, peak


def kolmo_runs(kolmo, path, objective, reps, cap):
    """`reps` runs of kolmo solve: dict(walls, loads and solves (the in-process seconds of its JSON),
    rss, doc of the first run) or dict(error)."""
    walls, loads, solves, rss, doc = [], [], [], 0.0, None
    for rep in range(reps):
        cmd = [kolmo, "solve", path, "--objective", objective, "--json", "-q"]
        code, out, err, wall, peak = run_timed(cmd, cap)
        if code != 0:
            why = "timed out after %g s" % cap if code is None else "exit %d" % code
            last = err.strip().splitlines()[-1:] or [""]
            return dict(error="%s: %s" % (why, last[0][:200]))
        walls.append(wall)
        rss = max(rss, peak)
        this = json.loads(out)
        loads.append(this["seconds"]["load"])
        solves.append(this["seconds"]["solve"])
        if rep == 0:
            doc = this
    return dict(walls=walls, loads=loads, solves=solves, rss=rss, doc=doc)


# ------------------------------------------------------------------------------------ Storm
def vm_rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def storm_child(path, gammas, want_values, queue):
    """In the child: load the DRN, check every (γ, configuration); put the timings (and the values
    if `want_values`) on `queue`."""
    try:
        import numpy as np
        import stormpy
        import stormpy.environments

        baseline = vm_rss_mib()
        t = time.perf_counter()
        model = stormpy.build_model_from_drn(path)
        load = time.perf_counter() - t
        runs = {}
        for g in gammas:
            prop = stormpy.parse_properties('R{"r"}max=? [Cdiscount=%s]' % g)[0]
            for config in CONFIGS:
                env = stormpy.Environment() if config == "default" else stormpy.environments.sound()
                t = time.perf_counter()
                res = stormpy.model_checking(model, prop, environment=env)
                dt = time.perf_counter() - t
                run = dict(time=dt, bounds=bool(res.has_lower_bounds()) if hasattr(res, "has_lower_bounds") else False)
                if want_values:
                    if hasattr(res, "get_value_vector"):
                        run["values"] = np.asarray(res.get_value_vector(), dtype=float)
                    elif hasattr(res, "get_values"):
                        run["values"] = np.asarray(res.get_values(), dtype=float)
                    else:
                        run["values"] = np.asarray([res.get_value(model.initial_states[0])], dtype=float)
                runs["%s %s" % (g, config)] = run
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        queue.put(dict(load=load, runs=runs, rss=rss, baseline=baseline, states=model.nr_states,
                       version=stormpy.__version__))
    except BaseException as e:  # noqa: BLE001 - everything is reported to the parent
        queue.put(dict(error="%s: %s" % (type(e).__name__, str(e).strip()[:300])))


def storm_run(path, gammas, want_values, cap):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    p = ctx.Process(target=storm_child, args=(path, gammas, want_values, queue))
    p.start()
    try:
        out = queue.get(timeout=cap)  # before join: a large result fills the pipe
    except Exception:  # noqa: BLE001 - queue.Empty: no answer in time
        out = dict(error="no answer in %g s" % cap if p.is_alive() else "exit %s" % p.exitcode)
    p.join(5)
    if p.is_alive():
        p.kill()
        p.join()
    return out


# ------------------------------------------------------------------------------------ report
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt_count(n):
    digits = str(n)
    if n >= 10 and digits[0] == "1" and set(digits[1:]) == {"0"}:
        return "10" + str(len(digits) - 1).translate(SUPERSCRIPT)
    return "{:,}".format(n)


def fsec(t):
    if t is None or (isinstance(t, float) and math.isnan(t)):
        return "—"
    return "%.3f" % t if t < 10 else "%.1f" % t


def fratio(r):
    return "—" if r is None else ("×%.2f" % r if r < 10 else "×%.0f" % r)


def compare(storm_values, doc):
    """(max |v_Storm − v_kolmo|, agrees) over the states Storm gave values for."""
    import numpy as np

    v = np.asarray([float(x) for x in doc["values"]])
    lo = np.asarray([float(x) for x in doc["lower"]])
    hi = np.asarray([float(x) for x in doc["upper"]])
    s = storm_values
    k = len(s)
    if k == 1 and len(v) > 1:  # only the initial state
        idx = [int(doc.get("initial", ["0"])[0])]
        v, lo, hi = v[idx], lo[idx], hi[idx]
    tol = STORM_REL * np.abs(v)
    diff = float(np.abs(s - v).max())
    agrees = bool(((s >= lo - tol) & (s <= hi + tol)).all())
    return diff, agrees


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kolmo", default=os.path.join(HERE, "..", "target", "release", "kolmo"))
    ap.add_argument("--random", type=int, nargs="*", default=[100_000], help="sizes of random-S (default 100000)")
    ap.add_argument("--forest", type=int, nargs="*", default=[1_000_000], help="sizes of forest-S (default 1000000)")
    ap.add_argument("--gammas", nargs="+", default=["0.9", "0.99"])
    ap.add_argument("--reps", type=int, default=3, help="runs of each tool; medians reported")
    ap.add_argument("--cap", type=float, default=600, help="seconds allowed per run (default 600)")
    ap.add_argument("--no-storm", action="store_true", help="kolmo alone")
    ap.add_argument("--out-dir", default=os.path.join(PEERS_OUT, "bench_mdp"))
    ap.add_argument("--md", help="also write the markdown table here")
    ap.add_argument("--json", help="append one JSON object per row here")
    a = ap.parse_args()
    if a.reps < 1 or not (a.random or a.forest):
        ap.error("nothing to do")
    for g in a.gammas:
        if not 0 < float(g) < 1:
            ap.error("not a discount in (0, 1): %s" % g)
    if not os.access(a.kolmo, os.X_OK):
        ap.error("kolmo not found: %s (cargo build --release -p kolmo-cli)" % a.kolmo)
    os.makedirs(a.out_dir, exist_ok=True)

    status = 0
    rows, records, notes = [], [], []
    storm_version = None
    baselines = []
    for family, n in [("random", s) for s in a.random] + [("forest", s) for s in a.forest]:
        path, meta = ensure_model(family, n, a.out_dir, a.cap)
        name = "%s-%d" % (family, n)
        notes.append("%s: %s states, %s choices, %s transitions (%s)" % (
            name, fmt_count(meta["states"]), fmt_count(meta["choices"]), fmt_count(meta["transitions"]),
            meta["generator"]))
        warm_page_cache(path)

        # Storm first: its values are the biggest thing this process holds.
        storm = []
        if not a.no_storm:
            for rep in range(a.reps):
                r = storm_run(path, a.gammas, rep == 0, a.cap)
                if "error" in r:
                    log("Storm on %s: %s" % (name, r["error"]))
                    storm = [r]
                    break
                log("Storm on %s rep %d: load %.2f s, %s" % (name, rep + 1, r["load"], ", ".join(
                    "%s %.2f s" % (k, v["time"]) for k, v in r["runs"].items())))
                storm.append(r)
            storm_version = storm_version or storm[0].get("version")
            if "baseline" in storm[0]:
                baselines.append(storm[0]["baseline"])

        load = kolmo_runs(a.kolmo, path, "horizon:0", a.reps, a.cap)
        if "error" in load:
            log("kolmo load (horizon:0) on %s: %s" % (name, load["error"]))
            status = 1
            continue
        k_load = statistics.median(load["loads"])
        log("kolmo on %s: load %.3f s" % (name, k_load))
        for g in a.gammas:
            k = kolmo_runs(a.kolmo, path, "discounted:" + g, a.reps, a.cap)
            base = dict(source="mdp", model=name, family=family, gamma=float(g), states=meta["states"],
                        choices=meta["choices"], transitions=meta["transitions"], reps=a.reps)
            if "error" in k:
                log("kolmo on %s γ=%s: %s" % (name, g, k["error"]))
                status = 1
                rows.append([name, g, "kolmo", "—", "—", "—", k["error"], "—", "—", "—", "—", "—", "—"])
                continue
            doc = k["doc"]
            k_total = statistics.median(k["walls"])
            k_solve = statistics.median(k["solves"])
            v0 = float(doc["values"][0])
            bound = float(doc["error_bound"])
            log("kolmo on %s γ=%s: total %.3f s, solve %.3f s, V(0) = %.12g ± %.2g, %s iterations" % (
                name, g, k_total, k_solve, v0, bound, doc["iterations"]))
            rows.append([name, g, "kolmo", fsec(k_load), fsec(k_solve), fsec(k_total), "%.12g" % v0,
                         "%.1e" % bound, "—", "—", "—", "—", "%.0f" % max(k["rss"], load["rss"])])
            records.append(dict(base, tool="kolmo", load_s=k_load, solve_s=k_solve, total_s=k_total, value0=v0,
                                bound=bound, iterations=doc["iterations"], method=doc["method"],
                                rss_mib=max(k["rss"], load["rss"])))
            notes.append("kolmo on %s, γ = %s: %s iterations; %s" % (name, g, doc["iterations"], doc["method"]))
            if a.no_storm:
                continue
            if "error" in storm[0]:
                rows.append([name, g, "Storm", "—", "—", "—", storm[0]["error"][:80], "—", "—", "—", "—", "—", "—"])
                continue
            s_load = statistics.median(r["load"] for r in storm)
            for config in CONFIGS:
                key = "%s %s" % (g, config)
                s_solve = statistics.median(r["runs"][key]["time"] for r in storm)
                s_total = s_load + s_solve
                values = storm[0]["runs"][key]["values"]
                diff, agrees = compare(values, doc)
                if not agrees:
                    status = 1
                    log("DISAGREEMENT: Storm %s on %s γ=%s: max |v_Storm − v_kolmo| = %.3g beyond 1e-6 "
                        "relative + kolmo's interval" % (config, name, g, diff))
                s_rss = max(r["rss"] for r in storm)
                label = "Storm %s%s" % (config, " (bounds)" if storm[0]["runs"][key]["bounds"] else "")
                over = "all %s states" % fmt_count(len(values)) if len(values) > 1 else "initial state"
                rows.append([name, g, label, fsec(s_load), fsec(s_solve), fsec(s_total), "%.12g" % values[0], "—",
                             "%.2e (%s)" % (diff, over), "yes" if agrees else "**NO**",
                             fratio(s_solve / k_solve if k_solve > 0 else None), fratio(s_total / k_total),
                             "%.0f" % s_rss])
                records.append(dict(base, tool="Storm " + config, load_s=s_load, solve_s=s_solve, total_s=s_total,
                                    value0=float(values[0]), max_diff=diff, agrees=agrees, rss_mib=s_rss))
            del doc, k
        del storm

    header = ["model", "γ", "tool / config", "load s", "solve s", "total s", "value at state 0",
              "kolmo's certified bound", "max \\|difference\\| vs kolmo", "within 1e-6 rel. + kolmo's bound",
              "Storm/kolmo solve", "Storm/kolmo total", "peak RSS MiB"]
    lines = ["Discounted MDPs, maximal expected reward: `kolmo solve --objective discounted:G` against "
             "Storm%s. Seconds, median of %d run%s; load and solve measured inside each process (kolmo's JSON "
             "`seconds`: reading the model; solving and certifying, not writing the report; Storm's "
             "`build_model_from_drn` and `model_checking`), total the process's wall clock (Storm's: load + solve). "
             "×r: Storm took r times as long as kolmo." % (
                 " (stormpy %s)" % storm_version if storm_version else "", a.reps, "s" if a.reps > 1 else ""),
             "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    lines += [""] + ["- " + n for n in notes]
    if baselines:
        lines.append("- Storm's peak RSS includes its Python interpreter with stormpy loaded: %.0f MiB before "
                     "the model was read." % min(baselines))
    text = "\n".join(lines) + "\n"
    print(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    if a.json:
        with open(a.json, "a") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
    if status:
        log("finished with failures or disagreements (see above)")
    return status


if __name__ == "__main__":
    sys.exit(main())
