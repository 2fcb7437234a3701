#!/usr/bin/env python3
"""How close kolmo's iterative solves come to the machine's memory bandwidth: a roofline estimate
from the JSON the other benchmark scripts write (used by bench/all.sh).

  roofline.py --stream STREAM.jsonl [--boards KOLMO_BENCH.jsonl] [--mdp MDP.jsonl] [--md FILE]

--stream   the JSON lines of the bench_stream example (bench/stream.rs): the ceiling is STREAM's
           triad on all threads (J. D. McCalpin, "Memory Bandwidth and Machine Balance in Current
           High Performance Computers", IEEE TCCA Newsletter, 1995).
--boards   bench_board's JSON lines as bench/kolmo.py records them (this run's only): the `load`
           line gives the chain's states n and transitions nnz; `expected_steps` gives its solve
           time (`seconds` − `setup_seconds`) and, in `method`, "K preconditioned products"; the
           100-step `distribution` is 100 products.
--mdp      bench/mdp.py's JSON lines: kolmo's rows give states, choices, transitions, the solve
           time and `iterations` (sweeps of value iteration; a round of policy iteration counts as
           one sweep, its evaluation is not counted).

Bytes a product moves, in compressed sparse row form with u32 column indices (kolmo's layout):
  chain  nnz · (8 B value + 4 B column) + n · (8 B row pointer + 8 B read of x + 8 B write of y);
  MDP    nnz · 12 B + choices · (8 B row pointer + 8 B reward) + states · (8 B choice-group pointer
         + 8 B x + 8 B y),
each x read once from memory (its other reads hit the cache). Achieved GB/s = bytes · products /
solve seconds; the fraction is that over STREAM's triad. These are estimates of the traffic, not
measurements: a preconditioned product reads the matrix once more than counted here (the
Gauss-Seidel sweep), work other than the products (set-up, certificates, vector updates) is in the
time, and kernels that store values as one-byte codes (kolmo does for boards' dice) read less than
counted; a model whose product moves less than the last-level cache holds is marked, since its
products need not reach memory at all. Median over repetitions. Prints markdown (also to --md).
"""
import argparse
import json
import os
import re
import statistics
import sys

GB = 1e9


def read_lines(path):
    rows = []
    if not path or not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
    return rows


def chain_bytes(n, nnz):
    """Bytes of one product y = P x of a chain in CSR form (see the module's description)."""
    return nnz * 12 + n * 24


def mdp_bytes(states, choices, nnz):
    """Bytes of one Bellman sweep over an MDP in CSR form with choice groups."""
    return nnz * 12 + choices * 16 + states * 24


def last_level_cache_bytes():
    """Size of the largest cache of processor 0 (Linux sysfs), or None."""
    best = None
    base = "/sys/devices/system/cpu/cpu0/cache"
    for index in os.listdir(base) if os.path.isdir(base) else []:
        try:
            with open(os.path.join(base, index, "size")) as f:
                text = f.read().strip()
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        size = int(text.rstrip("KMG")) * scale
        best = max(best or 0, size)
    return best


def stream_summary(rows):
    """{(kernel, threads): GB/s} and the largest thread count."""
    bw = {(r["kernel"], int(r["threads"])): float(r["gb_per_s"]) for r in rows if "kernel" in r}
    most = max((t for _, t in bw), default=0)
    return bw, most


def board_entries(rows):
    """One entry per (board size, rule, task) with a product count."""
    by_board = {}
    for r in rows:
        if "n" not in r or "rule" not in r:
            continue
        by_board.setdefault((r["n"], r["rule"]), []).append(r)
    out = []
    for (n, rule), rs in sorted(by_board.items()):
        load = [r for r in rs if r.get("task") == "load" and "states" in r]
        if not load:
            continue
        states, nnz = int(load[0]["states"]), int(load[0]["transitions"])
        per = chain_bytes(states, nnz)
        es = [r for r in rs if r.get("task") == "expected_steps"]
        if es:
            m = re.search(r"(\d+) preconditioned products", es[0].get("method", ""))
            solve = statistics.median(r["seconds"] - r.get("setup_seconds", 0.0) for r in es)
            out.append(dict(model="board %s %s" % (fmt_n(n), rule), task="expected steps (solve)", states=states,
                            nnz=nnz, products=int(m.group(1)) if m else None, per=per, seconds=solve,
                            note=es[0].get("method", "")))
        dist = [r for r in rs if r.get("task") == "distribution"]
        if dist:
            out.append(dict(model="board %s %s" % (fmt_n(n), rule), task="%d-step distribution" % dist[0].get("steps", 100),
                            states=states, nnz=nnz, products=int(dist[0].get("steps", 100)), per=per,
                            seconds=statistics.median(r["seconds"] for r in dist), note="one product a step"))
    return out


def mdp_entries(rows):
    out = []
    for r in rows:
        if r.get("tool") != "kolmo" or "iterations" not in r:
            continue
        method = r.get("method", "")
        note = "value iteration, one sweep an iteration"
        if "policy iteration" in method:
            note = "sweeps and policy-iteration rounds; evaluations not counted"
        out.append(dict(model=r["model"], task="discounted γ = %g" % r["gamma"], states=r["states"], nnz=r["transitions"],
                        products=int(r["iterations"]), per=mdp_bytes(r["states"], r["choices"], r["transitions"]),
                        seconds=r["solve_s"], note=note))
    return out


SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt_n(n):
    digits = str(n)
    if n >= 10 and digits[0] == "1" and set(digits[1:]) == {"0"}:
        return "10" + str(len(digits) - 1).translate(SUPERSCRIPT)
    return "{:,}".format(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stream", required=True)
    ap.add_argument("--boards")
    ap.add_argument("--mdp")
    ap.add_argument("--md")
    ap.add_argument("--part", choices=("bandwidth", "roofline", "both"), default="both",
                    help="the bandwidth table, the roofline table or both (default)")
    a = ap.parse_args()
    bw, most = stream_summary(read_lines(a.stream))
    if ("triad", most) not in bw:
        print("roofline.py: no triad result in %s" % a.stream, file=sys.stderr)
        return 2
    triad = bw[("triad", most)]
    lines = []
    kernels = ["copy", "scale", "add", "triad", "gather"]
    threads = sorted({t for _, t in bw})
    if a.part != "roofline":
        bandwidth_table(lines, bw, kernels, threads)
    if a.part != "bandwidth":
        roofline_table(lines, a, triad, most)
    text = "\n".join(lines) + "\n"
    print(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    return 0


def bandwidth_table(lines, bw, kernels, threads):
    """The bandwidth of every kernel and thread count."""
    lines.append("Memory bandwidth (bench_stream, GB/s = 10⁹ B/s, best pass; gather: a CSR product's traffic, "
                 "6 entries a row within a band):")
    lines.append("")
    lines.append("| threads | " + " | ".join(kernels) + " |")
    lines.append("|---|" + "---|" * len(kernels))
    for t in threads:
        lines.append("| %d | " % t + " | ".join("%.1f" % bw[(k, t)] if (k, t) in bw else "—" for k in kernels) + " |")
    lines.append("")


def roofline_table(lines, a, triad, most):
    """Achieved bandwidth of every kolmo result with a product count, against the triad's."""
    lines.append("Ceiling: STREAM triad on %d threads, %.1f GB/s. Bytes per product: chain nnz·12 + n·24, MDP sweep "
                 "nnz·12 + choices·16 + states·24 (bench/roofline.py explains the count and its limits)." % (most, triad))
    lines.append("")
    entries = board_entries(read_lines(a.boards)) + mdp_entries(read_lines(a.mdp))
    llc = last_level_cache_bytes()
    for e in entries:
        if llc and e["per"] < llc:
            e["note"] = "fits in the %d MiB last-level cache: the memory ceiling does not bind; %s" % (
                llc >> 20, e["note"])
    if not entries:
        lines.append("No kolmo results with a product count.")
    else:
        lines.append("| model | task | states | nnz | products / sweeps | MB per product | solve s | achieved GB/s "
                     "| of triad | note |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for e in entries:
            if e["products"] is None or e["seconds"] <= 0:
                achieved, frac = "—", "—"
            else:
                g = e["per"] * e["products"] / e["seconds"] / GB
                achieved, frac = "%.1f" % g, "%.0f %%" % (100 * g / triad)
            lines.append("| %s | %s | %s | %s | %s | %.1f | %.3g | %s | %s | %s |" % (
                e["model"], e["task"], "{:,}".format(e["states"]), "{:,}".format(e["nnz"]),
                "—" if e["products"] is None else e["products"], e["per"] / 1e6, e["seconds"], achieved, frac,
                e["note"]))


if __name__ == "__main__":
    sys.exit(main())
