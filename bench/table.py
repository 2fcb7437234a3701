#!/usr/bin/env python3
"""The markdown report of one bench/run.sh run: the table, the issue's targets, the agreement check.

kolmo's figures are the lines of --kolmo whose "run" is --run (written by kolmo.py); the peers'
are the current lines of the harness's --results (see peers.py), lines from --fresh-from on being
the ones measured by this run. Prints the report and writes it to --out. Exits with 1 if a peer's
value disagrees with kolmo's beyond the peer's stated precision, else 0.
"""
import argparse
import datetime
import json
import os
import statistics
import sys

from peers import PEER_ROWS, failed_below, read_results

TASKS = [("load", "build", "load"), ("expected_steps", "E", "expected steps"),
         ("distribution", "P", "100-step distribution")]
QUERY_TASK = {query: task for task, query, _ in TASKS}
TASK_NAME = {task: name for task, _, name in TASKS}

# Display name, stated precision (error-bound column) and agreement tolerance of each peer row.
# Tolerances: ("relative" | "absolute", value), to which kolmo's own bound is added.
PEER_INFO = {
    ("storm", "parse-drn", "build"): ("Storm", "—", None),
    ("storm", "cli-default", "E"): ("Storm default", "none (1e-6 relative target)", ("relative", 1e-6)),
    ("storm", "gmres-1e-12", "E"): ("Storm GMRES 1e-12", "none (1e-12 relative target)", ("relative", 1e-8)),
    ("storm", "cli-default", "P"): ("Storm default", "none (100 matrix-vector products)", ("absolute", 1e-9)),
    ("scipy", "bicgstab", "E"): ("SciPy BiCGSTAB", "none (rtol 1e-12)", ("relative", 1e-8)),
    ("scipy", "spmv-x100", "P"): ("SciPy 100 SpMVs", "none (100 SpMVs)", ("absolute", 1e-9)),
}
assert set(PEER_INFO) == set(PEER_ROWS)

# The targets at 10^6 cells, clamp: (task, peer row, minimum ratio peer time / kolmo time).
TARGETS = [
    ("load", ("storm", "parse-drn", "build"), 7),
    ("expected_steps", ("storm", "cli-default", "E"), 10),
    ("expected_steps", ("scipy", "bicgstab", "E"), 15),
    ("distribution", ("scipy", "spmv-x100", "P"), 10),
]
TARGET_N, TARGET_RULE = 1_000_000, "clamp"
BIG_N, BIG_SECONDS = 10_000_000, 10.0

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt_size(n):
    digits = str(n)
    if digits.startswith("1") and set(digits[1:]) <= {"0"} and n >= 10:
        return "10" + str(len(digits) - 1).translate(SUPERSCRIPT)
    return "{:,}".format(n)


def fmt_seconds(s):
    return "%.0f" % s if s >= 100 else "%.3g" % s


def fmt_ratio(r):
    return "×%.2g" % r if r < 10 else "×%.0f" % r


def fmt_rel(d):
    return "0" if d == 0 else "%.1e" % d


# ------------------------------------------------------------------------------------------ kolmo
def kolmo_results(path, run):
    """{(n, rule, task): summary} of the run: median seconds, value, bound, peak RSS, reps, error."""
    groups, errors, rss = {}, {}, {}
    with open(path) as f:
        for line in f:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if row.get("run") != run:
                continue
            board = (row["n"], row["rule"])
            rss[board] = max(rss.get(board, 0), row.get("max_rss_mib", 0), row.get("peak_rss_mib", 0))
            if row["task"] == "error":
                errors[board] = row.get("message", "failed")
            else:
                groups.setdefault(board + (row["task"],), []).append(row)
    out = {}
    for key, rows in groups.items():
        bound = {"expected_steps": "relative_bound", "distribution": "mass_error"}.get(key[2])
        out[key] = dict(
            seconds=statistics.median(r["seconds"] for r in rows),
            value=rows[0].get("value"),
            bound=max(r[bound] for r in rows) if bound else None,
            method=rows[0].get("method", ""),
            reps=len(rows),
            rss=rss[key[:2]],
        )
    return out, errors, rss


def kolmo_note(k, task):
    note = "median of %d" % k["reps"] if k["reps"] > 1 else "1 run"
    if task == "load":
        note += "; peak RSS %.0f MiB" % k["rss"]
    if k["method"]:
        note += "; " + k["method"].split(", n =")[0]
    return note


# ------------------------------------------------------------------------------------------ peers
def peer_cell(current, fresh_from, key, n, rule, sizes):
    """(time or None, time text, value, note, cap) of one peer row for the board (n, rule)."""
    tool, config, query = key
    hit = current.get((tool, config, query, n, rule))
    if hit is None:
        smaller = failed_below(current, tool, config, query, n, rule, sizes)
        if smaller is not None:
            return None, "skipped", None, "failed or timed out at %s" % fmt_size(smaller), None
        return None, "not measured", None, "", None
    line, row = hit
    notes = [] if line >= fresh_from else ["reused from an earlier run"]
    if query == "build":
        seconds, value = row.get("build_s"), None
    else:
        seconds, value = row.get("solve_s"), row.get("value")
        if row.get("times"):
            notes.append("median of %d" % len(row["times"]) if len(row["times"]) > 1 else "1 run")
    if row.get("note"):
        notes.append(row["note"])
    if row.get("status") != "ok":
        cap = row.get("cap_s") if row.get("status") == "timeout" else None
        text = "> %s (timeout)" % fmt_seconds(cap) if cap else str(row.get("status"))
        if row.get("error"):
            notes.insert(0, row["error"])
        return None, text, None, "; ".join(notes), cap
    return seconds, fmt_seconds(seconds) if seconds is not None else "—", value, "; ".join(notes), None


def agrees(value, kolmo, kolmo_bound, tolerance):
    kind, tol = tolerance
    if kind == "relative":
        return abs(value - kolmo) <= (tol + (kolmo_bound or 0.0)) * abs(kolmo)
    return abs(value - kolmo) <= tol + (kolmo_bound or 0.0)


# ------------------------------------------------------------------------------------------ report
def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kib = next(int(l.split()[1]) for l in f if l.startswith("MemTotal"))
        mem = ", %.0f GiB RAM" % (kib / 2 ** 20)
    except (OSError, StopIteration):
        pass
    return "%d cores (%s)%s" % (os.cpu_count() or 0, cpu, mem)


def report(a):
    kolmo, kolmo_errors, _ = kolmo_results(a.kolmo, a.run)
    current = read_results(a.results, a.since) if a.results else None
    boards = {(rule, n): True for rule in a.rules for n in a.sizes}  # board -> with peers
    for rule in a.big_rules:
        for n in a.big_sizes:
            boards.setdefault((rule, n), False)
    rule_order = a.rules + a.big_rules
    ordered = sorted(boards, key=lambda b: (rule_order.index(b[0]), b[1]))

    lines = ["| tool | size | rule | task | time (s) | value | error bound | difference vs kolmo (relative) "
             "| peer time / kolmo time | notes |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    ratios, disagreements, compared = {}, [], 0
    for rule, n in ordered:
        with_peers = boards[(rule, n)]
        for task, query, task_name in TASKS:
            k = kolmo.get((n, rule, task))
            if k is None:
                why = kolmo_errors.get((n, rule))
                lines.append("| kolmo | %s | %s | %s | %s | — | — | — | — | %s |" % (
                    fmt_size(n), rule, task_name, "failed" if why else "not measured", (why or "").replace("|", "/")))
            else:
                bound = "—"
                if k["bound"] is not None:
                    bound = "%.1e %s" % (k["bound"], "relative" if task == "expected_steps" else "(mass error)")
                lines.append("| kolmo | %s | %s | %s | %s | %s | %s | — | — | %s |" % (
                    fmt_size(n), rule, task_name, fmt_seconds(k["seconds"]),
                    "%.12g" % k["value"] if k["value"] is not None else "—", bound, kolmo_note(k, task)))
            if not with_peers or current is None:
                continue
            for key in (key for key in PEER_ROWS if key[2] == query):
                name, stated, tolerance = PEER_INFO[key]
                seconds, time_text, value, note, cap = peer_cell(current, a.fresh_from, key, n, rule, a.sizes)
                diff = ratio = "—"
                if k is not None and seconds is not None:
                    ratios[(n, rule, key)] = seconds / k["seconds"]
                    ratio = fmt_ratio(seconds / k["seconds"])
                elif k is not None and cap:
                    ratios[(n, rule, key)] = cap / k["seconds"]  # a lower bound
                    ratio = "> " + fmt_ratio(cap / k["seconds"])
                if k is not None and value is not None and k["value"] is not None:
                    diff = fmt_rel(abs(value - k["value"]) / abs(k["value"])) if k["value"] else "%.1e" % value
                    compared += 1
                    if not agrees(value, k["value"], k["bound"], tolerance):
                        diff = "**%s: DISAGREES**" % diff
                        disagreements.append("%s %s, %s: %s gives %.15g, kolmo %.15g (tolerance: %s %g)" % (
                            fmt_size(n), rule, task_name, name, value, k["value"], *tolerance))
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    name, fmt_size(n), rule, task_name, time_text, "%.12g" % value if value is not None else "—",
                    stated if query != "build" else "—", diff, ratio, note.replace("|", "/")))

    out = ["## kolmo benchmark (bench/run.sh), %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "",
           "Machine: %s. kolmo %s. Peers: %s. Run %s." % (machine(), a.commit, a.peer_versions, a.run), "",
           "Wall seconds. kolmo: `bench_board` times each task inside the process (load = read the DRN file; "
           "expected steps = graph analysis + solve + certificate; distribution = 100 steps from cell 0), "
           "median of its runs on the board (notes: how many). Peers: the harness's median of up to 3 (Storm: "
           "`build_model_from_drn` for the load, model checking for the queries; SciPy: the solve on the "
           "matrix loaded from NPZ). Value: expected steps from cell 0, or P(finished within 100 steps). "
           "Ratio = peer time / kolmo time (×7.3: kolmo 7.3× faster).", ""]
    out += lines
    out += ["", "### Targets of issue 7", ""]
    out += targets(kolmo, ratios, current is not None, a)
    out += ["", "### Agreement with the peers", ""]
    if current is None:
        out.append("Not checked: run without peers.")
    elif disagreements:
        out.append("**DISAGREEMENT: %d of %d peer values differ from kolmo's beyond the peer's stated "
                   "precision:**" % (len(disagreements), compared))
        out += ["- **%s**" % d for d in disagreements]
    else:
        out.append("All %d peer values agree with kolmo's to the peers' stated precision (Storm default: "
                   "1e-6 relative; Storm GMRES 1e-12 and SciPy BiCGSTAB rtol 1e-12: 1e-8 relative; "
                   "100-step probabilities: 1e-9 absolute; plus kolmo's own bound)." % compared)
    return "\n".join(out) + "\n", disagreements


def targets(kolmo, ratios, with_peers, a):
    out = []
    where = "%s %s" % (fmt_size(TARGET_N), TARGET_RULE)
    for task, key, minimum in TARGETS:
        name = PEER_INFO[key][0]
        what = "%s: ≥ %d× faster than %s at %s" % (TASK_NAME[task], minimum, name, where)
        k = kolmo.get((TARGET_N, TARGET_RULE, task))
        r = ratios.get((TARGET_N, TARGET_RULE, key))
        if not with_peers or k is None or r is None:
            out.append("- %s — not measured in this run" % what)
            continue
        peer = r * k["seconds"]
        out.append("- %s — **%s**: kolmo %s s, %s %s s, %s" % (
            what, "met" if r >= minimum else "not met", fmt_seconds(k["seconds"]), name, fmt_seconds(peer),
            fmt_ratio(r)))
    big_rules = a.big_rules if BIG_N in a.big_sizes else []
    for rule in [TARGET_RULE] + [r for r in big_rules if r != TARGET_RULE]:
        target = rule == TARGET_RULE
        what = "%s %s: load + expected steps %s" % (
            fmt_size(BIG_N), rule, "≤ %g s" % BIG_SECONDS if target else "(no target; for comparison)")
        load, mean = kolmo.get((BIG_N, rule, "load")), kolmo.get((BIG_N, rule, "expected_steps"))
        if load is None or mean is None:
            out.append("- %s — not measured in this run" % what)
            continue
        total = load["seconds"] + mean["seconds"]
        verdict = ("**met**: " if total <= BIG_SECONDS else "**not met**: ") if target else ""
        out.append("- %s — %s%s + %s = %s s, peak RSS %.0f MiB" % (
            what, verdict, fmt_seconds(load["seconds"]), fmt_seconds(mean["seconds"]), fmt_seconds(total),
            load["rss"]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kolmo", required=True, help="kolmo's JSON lines (kolmo.py --out)")
    ap.add_argument("--run", required=True)
    ap.add_argument("--results", help="the harness's results.jsonl (omit: no peers)")
    ap.add_argument("--since", type=int, default=0, help="ignore peer lines before this one")
    ap.add_argument("--fresh-from", type=int, default=0, help="peer lines from here on are this run's")
    ap.add_argument("--sizes", type=int, nargs="*", default=[])
    ap.add_argument("--rules", nargs="*", default=[])
    ap.add_argument("--big-sizes", type=int, nargs="*", default=[])
    ap.add_argument("--big-rules", nargs="*", default=[])
    ap.add_argument("--commit", default="unknown commit")
    ap.add_argument("--peer-versions", default="versions unknown")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    text, disagreements = report(a)
    with open(a.out, "w") as f:
        f.write(text)
    print(text, end="")
    if disagreements:
        banner = "!" * 78
        print("\n%s\nDISAGREEMENT between kolmo and a peer:\n%s\n%s" % (banner, "\n".join(disagreements), banner),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
