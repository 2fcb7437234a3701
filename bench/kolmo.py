#!/usr/bin/env python3
"""Run kolmo's bench_board example on one board, --reps times, and append its JSON lines to --out.

bench_board prints one JSON object per task (load, expected_steps, distribution). Each is written
to --out with the run's context added: run, commit, board, n, rule, rep and max_rss_mib (the peak
resident set size of the process as the kernel reports it to wait4, like /usr/bin/time's %M).
A run that fails or exceeds --cap seconds gives one line with "task": "error".
The board file is read once beforehand so that every repetition finds it in the page cache.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def warm_page_cache(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def run_once(command, cap):
    """(exit code or None on timeout, stdout, stderr, peak RSS in MiB) of one run of `command`."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        deadline = time.monotonic() + cap
        code = None
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                child.kill()
                _, _, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.05)
        child.returncode = code if code is not None else -9  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read(), usage.ru_maxrss / 1024.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the bench_board executable")
    ap.add_argument("--board", required=True, help="the board's DRN file")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--rule", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--cap", type=float, default=1200.0, help="seconds allowed per run")
    ap.add_argument("--run", required=True, help="identifier of this benchmark run")
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--out", required=True, help="JSON lines file to append to")
    a = ap.parse_args(argv)

    context = dict(run=a.run, commit=a.commit, tool="kolmo", board=a.board, n=a.n, rule=a.rule)
    warm_page_cache(a.board)
    failures = 0
    for rep in range(1, a.reps + 1):
        code, stdout, stderr, rss = run_once([a.bin, a.board, str(a.steps)], a.cap)
        rows = []
        for line in stdout.splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
        if code != 0:
            why = "timed out after %.0f s" % a.cap if code is None else "exit code %d" % code
            last = stderr.strip().splitlines()[-1:]
            rows.append(dict(task="error", message=": ".join([why] + last)))
            failures += 1
        with open(a.out, "a") as f:
            for row in rows:
                f.write(json.dumps(dict(context, rep=rep, max_rss_mib=round(rss), **row)) + "\n")
        summary = ", ".join(
            "%s %.3g s" % (r["task"], r["seconds"]) if "seconds" in r else "%s: %s" % (r["task"], r.get("message"))
            for r in rows
        )
        print("kolmo n=%d %s rep %d/%d: %s; peak RSS %.0f MiB" % (a.n, a.rule, rep, a.reps, summary, rss), flush=True)
        if code != 0:
            break  # a failure or timeout would only repeat
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
