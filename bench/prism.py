#!/usr/bin/env python3
"""kolmo check against Storm (stormpy) on PRISM-language models of the PRISM benchmark suite, end to
end (parse + build + check) in one run on the same files (issue 16, section 4).

  prism.py --kolmo target/release/kolmo [--suite ../shared/prism-suite] [--reps 3] [--cases NAME...]
           [--storm-configs default sound] [--md FILE] [--json FILE]

Storm runs in a child process per case and repetition, once per configuration of --storm-configs:
  default  stormpy.Environment(), its command-line defaults (topological/GMRES or value iteration
           at 1e-6 relative, no guarantee);
  sound    stormpy.environments.sound(), its sound mode (interval or optimistic value iteration,
           1e-6 relative, guaranteed).
kolmo with its defaults (certified bounds). Prints a markdown table (also to --md): seconds (median
of --reps), the ratio Storm/kolmo for each configuration, the values and whether each Storm value
agrees with kolmo's, kolmo's certified interval, peak memory; --json appends one JSON object per
case (for bench/roofline.py). A Storm value agrees when it lies within 1e-6 relative (Storm's
precision) of kolmo's certified interval. Exit status 1 if a value disagrees or a kolmo run fails.
"""
import argparse, json, multiprocessing as mp, os, resource, statistics, subprocess, sys, time

STORM_CONFIGS = ("default", "sound")
STORM_REL = 1e-6  # Storm's precision (relative), default and sound alike

# (name, model file, constants, property): the four instances the issue names, and more MDPs of
# the suite with 10^5 states or more.
CASES = [
    ("nand N=20 K=4", "dtmcs/nand/nand.pm", "N=20,K=4", 'P=? [ F s=4 & z/N<0.1 ]'),
    ("wlan4", "mdps/wlan/wlan4.nm", "COL=0", 'R{"time"}max=? [ F s1=12 & s2=12 ]'),
    ("zeroconf N=1000 K=4", "mdps/zeroconf/zeroconf.nm", "reset=false,N=1000,K=4", 'Pmax=? [ F (l=4 & ip=1) ]'),
    ("csma3_4", "mdps/csma/csma3_4.nm", "", 'Pmax=? [ !"collision_max_backoff" U "all_delivered" ]'),
    ("firewire delay=36", "mdps/firewire/firewire.nm", "delay=36", 'R{"time"}min=? [ F "done" ]'),
]


def storm_child(path, consts, prop, config, out):
    try:
        storm_check(path, consts, prop, config, out)
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        out.put({"error": "%s: %s" % (type(e).__name__, str(e).strip()[:200])})


def storm_check(path, consts, prop, config, out):
    import stormpy
    import stormpy.environments
    env = stormpy.Environment() if config == "default" else stormpy.environments.sound()
    t0 = time.perf_counter()
    prog = stormpy.parse_prism_program(path)
    if consts:
        em = prog.expression_manager
        defs = {}
        for item in consts.split(","):
            k, v = item.split("=")
            c = prog.get_constant(k)
            if v in ("true", "false"):
                e = em.boolean(v == "true")
            elif "." in v or "e" in v:
                e = em.rational(float(v))
            else:
                e = em.integer(int(v))
            defs[c.expression_variable] = e
        prog = prog.define_undefined_constants(defs)
    props = stormpy.parse_properties(prop, prog)
    t1 = time.perf_counter()
    model = stormpy.build_model(prog, props)
    t2 = time.perf_counter()
    res = stormpy.model_checking(model, props[0], environment=env)
    v = res.get_value(model.initial_states[0])
    t3 = time.perf_counter()
    out.put({"value": float(v), "parse": t1 - t0, "build": t2 - t1, "check": t3 - t2, "total": t3 - t0,
             "states": model.nr_states,
             "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def storm(path, consts, prop, config, cap):
    q = mp.Queue()
    p = mp.Process(target=storm_child, args=(path, consts, prop, config, q))
    p.start()
    p.join(cap)
    if p.is_alive():
        p.kill()
        return {"error": f"no answer in {cap} s"}
    return q.get() if not q.empty() else {"error": f"exit {p.exitcode}"}


def kolmo(binary, path, consts, prop):
    cmd = ["/usr/bin/time", "-f", "%M", binary, "check", path, "--prop", prop, "--json", "-q"]
    if consts:
        cmd += ["--const", consts]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-2:]}
    d = json.loads(p.stdout)
    r = d["results"][0]
    return {"value": r["value"], "lower": r["lower"], "upper": r["upper"], "total": wall,
            "build": d["seconds"]["build"], "check": d["seconds"]["check"], "states": d["model"]["states"],
            "transitions": d["model"].get("transitions"), "choices": d["model"].get("choices"),
            "method": r.get("method"),
            "rss_mb": int(p.stderr.strip().splitlines()[-1]) / 1024}


def agrees(storm_value, k):
    """Storm's value within 1e-6 relative (its precision) of kolmo's certified interval."""
    tol = STORM_REL * max(abs(k["value"]), abs(storm_value))
    return k["lower"] - tol <= storm_value <= k["upper"] + tol


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kolmo", default="target/release/kolmo")
    ap.add_argument("--suite", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "prism-suite"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cap", type=float, default=300)
    ap.add_argument("--cases", nargs="*")
    ap.add_argument("--storm-configs", nargs="*", default=list(STORM_CONFIGS), choices=STORM_CONFIGS,
                    help="Storm's environments (default: default sound); none: kolmo alone")
    ap.add_argument("--md", help="also write the markdown table here")
    ap.add_argument("--json", help="append one JSON object per case here")
    a = ap.parse_args()
    configs = a.storm_configs
    status = 0
    lines = []

    def emit(line):
        print(line, flush=True)
        lines.append(line)

    header = ["model", "states"] + ["Storm %s s (build + check)" % c for c in configs] + \
        ["kolmo s (build + check)"] + ["Storm %s/kolmo" % c for c in configs] + \
        ["Storm %s value" % c for c in configs] + ["kolmo [lower, upper]"] + \
        ["agree (%s)" % c for c in configs] + ["peak MB %s" % " / ".join(["Storm %s" % c for c in configs] + ["kolmo"])]
    emit("| " + " | ".join(header) + " |")
    emit("|" + "---|" * len(header))
    records = []
    for name, f, consts, prop in CASES:
        if a.cases and not any(c in name for c in a.cases):
            continue
        path = os.path.join(a.suite, f)
        # Storm's constants: its parser takes them when building; define them in the program.
        ss = {c: [storm(path, consts, prop, c, a.cap) for _ in range(a.reps)] for c in configs}
        ks = [kolmo(a.kolmo, path, consts, prop) for _ in range(a.reps)]
        ok_k = [k for k in ks if "error" not in k]
        if not ok_k:
            status = 1
            print("kolmo failed on %s: %s" % (name, ks[0]["error"]), file=sys.stderr)
            emit(f"| {name} | | kolmo: {ks[0]['error']} |" + " |" * (len(header) - 3))
            continue
        kt = statistics.median(k["total"] for k in ok_k)
        k0 = ok_k[0]
        times, ratios, values, agree, rss = [], [], [], [], []
        rec = {"source": "prism", "model": name, "property": prop, "states": k0["states"],
               "transitions": k0["transitions"], "choices": k0["choices"], "tool": "kolmo", "total_s": kt,
               "build_s": k0["build"], "check_s": k0["check"], "value": k0["value"], "lower": k0["lower"],
               "upper": k0["upper"], "method": k0["method"], "rss_mib": k0["rss_mb"], "storm": {}}
        for c in configs:
            ok_s = [s for s in ss[c] if "error" not in s]
            if not ok_s:
                err = ss[c][0]["error"]
                print("Storm %s failed on %s: %s" % (c, name, err), file=sys.stderr)
                times.append("failed: %s" % str(err)[:60])
                ratios.append("—")
                values.append("—")
                agree.append("—")
                rss.append("—")
                continue
            st = statistics.median(s["total"] for s in ok_s)
            s0 = ok_s[0]
            ok = agrees(s0["value"], k0)
            if not ok:
                status = 1
                print("DISAGREEMENT on %s: Storm %s %.12g, kolmo [%.12g, %.12g]" % (
                    name, c, s0["value"], k0["lower"], k0["upper"]), file=sys.stderr)
            times.append(f"{st:.2f} ({s0['build']:.2f} + {s0['check']:.2f})")
            ratios.append(f"×{st / kt:.1f}")
            values.append(f"{s0['value']:.10g}")
            agree.append("yes" if ok else "**NO**")
            rss.append(f"{s0['rss_mb']:.0f}")
            rec["storm"][c] = {"total_s": st, "build_s": s0["build"], "check_s": s0["check"],
                               "value": s0["value"], "agrees": ok, "rss_mib": s0["rss_mb"]}
        cells = [name, str(k0["states"])] + times + [f"{kt:.2f} ({k0['build']:.2f} + {k0['check']:.2f})"] + \
            ratios + values + [f"[{k0['lower']:.10g}, {k0['upper']:.10g}]"] + agree + \
            [" / ".join(rss + [f"{k0['rss_mb']:.0f}"])]
        emit("| " + " | ".join(cells) + " |")
        records.append(rec)
    if a.md:
        with open(a.md, "w") as out:
            out.write("\n".join(lines) + "\n")
    if a.json:
        with open(a.json, "a") as out:
            for r in records:
                out.write(json.dumps(r) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
