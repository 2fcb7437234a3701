#!/usr/bin/env python3
"""The peer measurements bench/run.sh uses, read from the peer harness's results.jsonl.

The harness (../shared/peers/run.sh sizes ...) appends one JSON object per measurement; a key
(tool, config, query, n, rule) may occur several times (reruns append), the last line counts.

  peers.py missing --results F --since LINE --sizes N... --n N --rule R --tool T
prints the harness configurations (space-separated) still to run for that board and tool, or
nothing. Lines before LINE are ignored (LINE > 0 for --rerun-peers). A measurement that failed or
timed out at a smaller size of --sizes is not retried at larger sizes (as the harness itself does
within one invocation).
"""
import argparse
import json
import sys

# (tool, config, query) measured for each board; query "build" is the harness's load of the board.
PEER_ROWS = [
    ("storm", "parse-drn", "build"),
    ("storm", "cli-default", "E"),
    ("storm", "gmres-1e-12", "E"),
    ("storm", "cli-default", "P"),
    ("scipy", "bicgstab", "E"),
    ("scipy", "spmv-x100", "P"),
]


def read_results(path, since=0):
    """{(tool, config, query, n, rule): (line number, row)} of the last row per key, from line `since` on."""
    current = {}
    try:
        with open(path) as f:
            for number, line in enumerate(f):
                if number < since or not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    key = (row["tool"], row["config"], row["query"], row["n"], row["rule"])
                except (ValueError, KeyError):
                    continue
                current[key] = (number, row)
    except FileNotFoundError:
        pass
    return current


def failed_below(current, tool, config, query, n, rule, sizes):
    """The smaller size of `sizes` at which this measurement failed or timed out, or None."""
    for smaller in sorted(s for s in sizes if s < n):
        hit = current.get((tool, config, query, smaller, rule))
        if hit and hit[1].get("status") != "ok":
            return smaller
    return None


def missing(current, tool, n, rule, sizes):
    """Harness configurations to run for (tool, n, rule), in PEER_ROWS order, without repeats."""
    configs = []
    for t, config, query in PEER_ROWS:
        if t != tool or (t, config, query, n, rule) in current:
            continue
        if failed_below(current, t, config, query, n, rule, sizes) is None and config not in configs:
            configs.append(config)
    # Every harness run loads the board (query "build"), so a missing load alone is run by naming
    # its config "parse-drn", which matches no solver configuration.
    return configs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("missing")
    m.add_argument("--results", required=True)
    m.add_argument("--since", type=int, default=0)
    m.add_argument("--sizes", type=int, nargs="+", required=True)
    m.add_argument("--n", type=int, required=True)
    m.add_argument("--rule", required=True)
    m.add_argument("--tool", required=True)
    a = ap.parse_args(argv)
    current = read_results(a.results, a.since)
    print(" ".join(missing(current, a.tool, a.n, a.rule, a.sizes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
