#!/usr/bin/env python3
"""Random turn-based stochastic games against the MDP of the same size, in kolmo (issue 17,
section 5): neither Storm nor SciPy solves games, so the comparison is the game against the MDP
with the same transitions (every state owned by one player).

  games.py --kolmo target/release/kolmo [--sizes 10000 100000 1000000] [--reps 3] [--out DIR]

For each size n it writes (once; reused when present) DIR/game_n.drn (@type: SMG, players
maximiser and minimiser owning random halves of the states) and DIR/mdp_n.drn (@type: MDP, the same rows): 2 choices
per state, 3 successors each, drifting forward from state s to s-40..s+160 with probabilities in
eighths, 0.5 % of the states absorbing goals and 0.5 % absorbing sinks, the last state a goal.
Then it times `kolmo check` on <<maximiser>> Pmax=? [F "goal"] (the game) against Pmin=? [F "goal"]
(the MDP: its Pmax is 1 by graph analysis alone), and <<minimiser>> R{"steps"}min=? [F "goal" | "sink"] (a reward game: one per step) against
Rmin on the MDP, median of --reps, and prints one markdown table: load (parse), check and total
seconds, the value with its certified interval, the game/MDP ratio of check times, peak RSS.
Needs numpy (the peer harness's venv has it). Exit status 1 if a kolmo run fails.
"""
import argparse, json, os, resource, statistics, subprocess, sys, time

import numpy as np


def write_model(path, n, seed, game):
    rng = np.random.default_rng(seed)
    k, m = 2, 3
    goal = rng.random(n) < 0.005
    sink = (rng.random(n) < 0.005) & ~goal
    goal[n - 1] = True
    sink[n - 1] = False
    absorbing = goal | sink
    owner = rng.random(n) < 0.5  # True: player max
    off = rng.integers(-40, 161, size=(n, k, m))
    succ = np.clip(np.arange(n)[:, None, None] + off, 0, n - 1)
    # Probabilities in eighths: 1..6 for the first two, the rest for the third.
    a = rng.integers(1, 4, size=(n, k))
    b = rng.integers(1, 4, size=(n, k))
    c = 8 - a - b
    probs = np.stack([a, b, c], axis=2)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("// Random game for bench/games.py\n")
        f.write(f"@type: {'SMG' if game else 'MDP'}\n@value_type: double\n@parameters\n\n")
        f.write("@reward_models\nsteps\n")
        if game:
            f.write("@players\nmaximiser minimiser\n")
        choices = int(np.where(absorbing, 1, k).sum())
        f.write(f"@nr_states\n{n}\n@nr_choices\n{choices}\n@model\n")
        chunk = 100_000
        for lo in range(0, n, chunk):
            out = []
            for s in range(lo, min(n, lo + chunk)):
                who = (" <maximiser>" if owner[s] else " <minimiser>") if game else ""
                labels = (" init" if s == 0 else "") + (" goal" if goal[s] else "") + (" sink" if sink[s] else "")
                out.append(f"state {s}{who} [0]{labels}\n")
                if absorbing[s]:
                    out.append(f"\taction 0 [0]\n\t\t{s} : 1\n")
                    continue
                for j in range(k):
                    out.append(f"\taction {j} [1]\n")
                    # Merge repeated successors.
                    row = {}
                    for t, p in zip(succ[s, j], probs[s, j]):
                        row[int(t)] = row.get(int(t), 0) + int(p)
                    for t in sorted(row):
                        out.append(f"\t\t{t} : {row[t] / 8}\n")
            f.write("".join(out))
    os.replace(tmp, path)


def run(kolmo, path, prop):
    t0 = time.perf_counter()
    p = subprocess.run(
        [kolmo, "-q", "check", path, "--prop", prop, "--json"],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        first = p.stderr.strip().splitlines()[0] if p.stderr.strip() else "no message"
        print(f"kolmo failed on {path}: {first}", file=sys.stderr)
        return {"wall": wall, "parse": float("nan"), "check": float("nan"), "value": first,
                "lower": float("nan"), "upper": float("nan"), "method": "refused"}
    doc = json.loads(p.stdout)
    r = doc["results"][0]
    return {
        "wall": wall,
        "parse": doc["seconds"]["parse"] + doc["seconds"].get("build", 0.0),
        "check": doc["seconds"]["check"],
        "value": r["value"],
        "lower": r["lower"],
        "upper": r["upper"],
        "method": r["method"],
    }


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kolmo", default="target/release/kolmo")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.expanduser("~/.cache/kolmo-peers/games"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for n in args.sizes:
        files = {}
        for kind in ("game", "mdp"):
            path = os.path.join(args.out, f"{kind}_{n}.drn")
            if not os.path.exists(path):
                t = time.perf_counter()
                write_model(path, n, seed=17, game=(kind == "game"))
                print(f"wrote {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
            files[kind] = path
        # The MDP's Pmax is 1 everywhere here (graph analysis alone): its Pmin is the solve
        # of the same size. Rmax of the MDP is left out: its policy iteration factors a
        # component of 10^5 states (issue 18).
        cases = [
            ("game", "reach", files["game"], '<<maximiser>> Pmax=? [ F "goal" ]'),
            ("MDP", "reach", files["mdp"], 'Pmin=? [ F "goal" ]'),
            ("game", "reward", files["game"], '<<minimiser>> R{"steps"}min=? [ F "goal" | "sink" ]'),
            ("MDP", "reward", files["mdp"], 'R{"steps"}min=? [ F "goal" | "sink" ]'),
        ]
        for kind, query, path, prop in cases:
            runs = [run(args.kolmo, path, prop) for _ in range(args.reps)]
            med = lambda key: statistics.median(r[key] for r in runs)
            rows.append((n, kind, query, med("parse"), med("check"), med("wall"), runs[0]))
    print("| states | model | query | load (s) | check (s) | total (s) | value | certified interval | game check / MDP check |")
    print("|---|---|---|---|---|---|---|---|---|")
    mdp_check = {(n, query): check for n, kind, query, _, check, _, _ in rows if kind == "MDP"}
    for n, kind, query, load, check, wall, r in rows:
        ratio = "" if kind == "MDP" else f"×{check / max(mdp_check[(n, query)], 1e-9):.2f}"
        value = r["value"] if isinstance(r["value"], str) else f"{r['value']:.10g}"
        print(
            f"| {n:,} | {kind} | {query} | {load:.3f} | {check:.3f} | {wall:.3f} | {value} | "
            f"[{r['lower']:.10g}, {r['upper']:.10g}] | {ratio} |"
        )
    print(f"\npeak RSS of the kolmo runs: {peak_rss_mib():.0f} MiB")
    failed = [r for *_, r in rows if r["method"] == "refused"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
