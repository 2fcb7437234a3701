#!/usr/bin/env python3
"""kolmo check against Storm (stormpy) on PRISM-language models of the PRISM benchmark suite, end to
end (parse + build + check) in one run on the same files (issue 16, section 4).

  prism.py --kolmo target/release/kolmo [--suite ../shared/prism-suite] [--reps 3] [--cases NAME...]

Storm runs with its command-line defaults (stormpy.Environment(): topological/GMRES or value
iteration at 1e-6 relative, no guarantee) in a child process per case; kolmo with its defaults
(certified bounds). Prints a markdown table: seconds (median of --reps), the ratio Storm/kolmo, both
values and whether they agree within Storm's 1e-6 relative, kolmo's certified interval, peak memory.
"""
import argparse, json, multiprocessing as mp, os, resource, statistics, subprocess, sys, time

# (name, model file, constants, property): the four instances the issue names, and more MDPs of
# the suite with 10^5 states or more.
CASES = [
    ("nand N=20 K=4", "dtmcs/nand/nand.pm", "N=20,K=4", 'P=? [ F s=4 & z/N<0.1 ]'),
    ("wlan4", "mdps/wlan/wlan4.nm", "COL=0", 'R{"time"}max=? [ F s1=12 & s2=12 ]'),
    ("zeroconf N=1000 K=4", "mdps/zeroconf/zeroconf.nm", "reset=false,N=1000,K=4", 'Pmax=? [ F (l=4 & ip=1) ]'),
    ("csma3_4", "mdps/csma/csma3_4.nm", "", 'Pmax=? [ !"collision_max_backoff" U "all_delivered" ]'),
    ("firewire delay=36", "mdps/firewire/firewire.nm", "delay=36", 'R{"time"}min=? [ F "done" ]'),
]


def storm_child(path, consts, prop, out):
    import stormpy
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
    res = stormpy.model_checking(model, props[0], environment=stormpy.Environment())
    v = res.get_value(model.initial_states[0])
    t3 = time.perf_counter()
    out.put({"value": float(v), "parse": t1 - t0, "build": t2 - t1, "check": t3 - t2, "total": t3 - t0,
             "states": model.nr_states,
             "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def storm(path, consts, prop, cap):
    q = mp.Queue()
    p = mp.Process(target=storm_child, args=(path, consts, prop, q))
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
            "rss_mb": int(p.stderr.strip().splitlines()[-1]) / 1024}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kolmo", default="target/release/kolmo")
    ap.add_argument("--suite", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "prism-suite"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cap", type=float, default=300)
    ap.add_argument("--cases", nargs="*")
    a = ap.parse_args()
    rows = []
    print("| model | states | Storm s (build + check) | kolmo s (build + check) | Storm/kolmo | Storm value | kolmo [lower, upper] | agree | peak MB Storm / kolmo |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, f, consts, prop in CASES:
        if a.cases and not any(c in name for c in a.cases):
            continue
        path = os.path.join(a.suite, f)
        # Storm's constants: its parser takes them when building; define them in the program.
        ss = [storm(path, consts, prop, a.cap) for _ in range(a.reps)]
        ks = [kolmo(a.kolmo, path, consts, prop) for _ in range(a.reps)]
        ok_s = [s for s in ss if "error" not in s]
        ok_k = [k for k in ks if "error" not in k]
        if not ok_s or not ok_k:
            print(f"| {name} | | {ss[0].get('error', '')} | {ks[0].get('error', '')} | | | | | |")
            continue
        st = statistics.median(s["total"] for s in ok_s)
        kt = statistics.median(k["total"] for k in ok_k)
        s0, k0 = ok_s[0], ok_k[0]
        sv, kv = s0["value"], k0["value"]
        agree = abs(sv - kv) <= 1e-6 * max(abs(sv), abs(kv)) + 1e-300
        print(f"| {name} | {k0['states']} | {st:.2f} ({s0['build']:.2f} + {s0['check']:.2f}) | "
              f"{kt:.2f} ({k0['build']:.2f} + {k0['check']:.2f}) | ×{st / kt:.1f} | {sv:.10g} | "
              f"[{k0['lower']:.10g}, {k0['upper']:.10g}] | {'yes' if agree else 'NO'} | "
              f"{s0['rss_mb']:.0f} / {k0['rss_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
