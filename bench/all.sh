#!/usr/bin/env bash
# Every benchmark of bench/ in one go, on an idle machine, with the machine's memory bandwidth
# beside the results; writes one report, bench/results-all.md. In order:
#   1. build: cargo build --release -p kolmo-cli, and the examples bench_board and bench_stream;
#   2. bandwidth: bench_stream (bench/stream.rs: STREAM's copy/scale/add/triad and a CSR gather,
#      1 thread and all), first, so that the figures below can be read against it;
#   3. boards: bench/run.sh (Snakes and Ladders boards, kolmo against Storm and SciPy);
#   4. MDPs: bench/mdp.py (discounted random and forest MDPs, kolmo against Storm default and sound);
#   5. PRISM suite: bench/prism.py (kolmo check against Storm default and sound, end to end);
#   6. games: bench/games.py (random stochastic games against the MDP of the same size);
#   7. Monte Carlo: kolmo snakes --mc 20000000 --json on the classic board, all threads and
#      RAYON_NUM_THREADS=1 (games per second = 2·10⁷ / wall seconds);
#   8. roofline: bench/roofline.py, kolmo's products per second as bytes per second against the
#      triad bandwidth.
# Each section's table goes into the report under a header naming the machine, the commit and the
# date; the raw outputs stay in $PEERS_OUT/all/RUN/ (PEERS_OUT defaults to ~/.cache/kolmo-peers).
#
#   bench/all.sh                          # everything at the default sizes (about an hour on 2 cores)
#   bench/all.sh --quick                  # small sizes: a few minutes
#   bench/all.sh --quick -- --rerun-peers # options after -- go to bench/run.sh
#
# Options:
#   --quick        small sizes: boards 10^4 and 10^5 cells, random MDP 10^4 states, forest 10^5,
#                  games 10^4, one repetition of the PRISM suite and of the games
#   --no-peers     kolmo alone: no Storm or SciPy in the boards, MDPs and PRISM sections
#   --only S...    only these sections: stream boards mdp prism games mc (the roofline is added when
#                  stream is there); the build always runs
#   --out FILE     the report (default bench/results-all.md)
#   -- ARGS...     passed to bench/run.sh (e.g. --sizes 10000 --rules clamp)
# Prerequisites: those of bench/run.sh (cargo, python3, ../shared/peers with its venv of stormpy,
# SciPy, NumPy), the PRISM suite at ../shared/prism-suite, Linux (/proc, wait4), about 1 GB of free
# memory for the bandwidth arrays.
# Exit status: 0; 1 if a section failed or a value disagreed (the report says which); 2 bad usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
export PEERS_OUT=${PEERS_OUT:-$HOME/.cache/kolmo-peers}
py=${PEERS_VENV:-$PEERS_OUT/venv}/bin/python

quick=0
peers=1
out=$here/results-all.md
sections=(stream boards mdp prism games mc)
run_sh_args=()

log() { printf '[all %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

while (($#)); do
  option=$1
  shift
  case $option in
    --quick) quick=1 ;;
    --no-peers) peers=0 ;;
    --only)
      sections=()
      while (($#)) && [[ $1 != -* ]]; do sections+=("$1"); shift; done
      ((${#sections[@]})) || die "--only wants sections"
      ;;
    --out) out=${1:-}; shift || true; [[ -n $out ]] || die "--out wants a file" ;;
    --) run_sh_args=("$@"); break ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option $option" ;;
  esac
done
for s in "${sections[@]}"; do
  [[ $s =~ ^(stream|boards|mdp|prism|games|mc)$ ]] || die "not a section: $s"
done
wanted() { [[ " ${sections[*]} " == *" $1 "* ]]; }
[[ $out == /* ]] || out=$PWD/$out
[[ -x $py ]] || die "no Python venv at $py (../shared/peers/run.sh creates it)"
command -v cargo >/dev/null || die "cargo not found"

started=$SECONDS
status=0
failures=()
run_id=$(date +%Y%m%dT%H%M%S)
work=$PEERS_OUT/all/$run_id
mkdir -p "$work"

# ---------------------------------------------------------------------------------- build
log "building (release): kolmo-cli, examples bench_board and bench_stream"
# The examples exactly as bench/run.sh builds bench_board (all default members, so the same features
# and no second compilation when it builds again).
(cd "$root" && cargo build --release -p kolmo-cli && cargo build --release --example bench_board --example bench_stream)
target=${CARGO_TARGET_DIR:-$root/target}
[[ $target == /* ]] || target=$root/$target
kolmo=$target/release/kolmo
bench_stream=$target/release/examples/bench_stream

# ---------------------------------------------------------------------------------- report header
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown && -n $(git -C "$root" status --porcelain --untracked-files=no) ]]; then
  commit+=" (with uncommitted changes)"
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mem_gib=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
load=$(cut -d ' ' -f 1-3 /proc/loadavg)
versions=$("$py" -c 'import stormpy, scipy, numpy; print("stormpy %s, SciPy %s, NumPy %s" % (stormpy.__version__, scipy.__version__, numpy.__version__))' 2>/dev/null || echo "peer versions unknown")
mode="full"
((quick)) && mode="--quick"
((peers)) || mode+=", --no-peers"

{
  echo "# Results of bench/all.sh"
  echo
  echo "Machine: $(nproc) logical processors, ${cpu:-unknown CPU}, ${mem_gib} GiB RAM ($(uname -sr)); load average" \
    "at the start $load. Commit $commit. $(date '+%Y-%m-%d %H:%M %Z'). Run $run_id ($mode; raw outputs in" \
    "\`$work\`). Peers: $versions; $(rustc --version 2>/dev/null || echo rustc unknown)."
  echo
} >"$work/header.md"
((quick)) && printf '%s\n\n' "**Quick run** (small sizes): not the figures to quote." >>"$work/header.md"

# section NAME TITLE COMMAND...: runs COMMAND with its stdout in $work/NAME.log and writes the
# report part $work/NAME.part.md: the title, the command (or $shown, if set), its time; `finish`
# then adds the section's markdown. A failure is recorded.
shown=
section() {
  local name=$1 title=$2
  shift 2
  log "section $name: $*"
  local t0=$SECONDS code=0
  "$@" >"$work/$name.log" 2> >(tee "$work/$name.err" >&2) || code=$?
  local dt=$((SECONDS - t0))
  if ((code != 0)); then
    status=1
    failures+=("$name (exit $code)")
    log "section $name failed (exit $code); see $work/$name.err"
  fi
  {
    echo "## $title"
    echo
    echo "\`${shown:-$(printf '%q ' "$@" | sed "s|$root/||g; s|$HOME|~|g; s/ $//")}\` — $((dt / 60)) min $((dt % 60)) s$(
      ((code == 0)) || echo ", **failed (exit $code)**")"
    echo
  } >"$work/$name.part.md"
  SECTION_CODE=$code
  shown=
}

# finish NAME: appends $work/NAME.md (its headings one level down, below the section's) or, when
# there is no markdown, the end of the log to the part.
finish() {
  if [[ -s $work/$1.md ]]; then
    sed 's/^#/##/' "$work/$1.md" >>"$work/$1.part.md"
  else
    { echo '```'; tail -n 40 "$work/$1.log"; echo '```'; } >>"$work/$1.part.md"
  fi
  echo >>"$work/$1.part.md"
}

# ---------------------------------------------------------------------------------- 1. bandwidth
if wanted stream; then
  section stream "Memory bandwidth (bench_stream)" "$bench_stream"
  cp "$work/stream.log" "$work/stream.jsonl"
  if ((SECTION_CODE == 0)); then
    "$py" "$here/roofline.py" --stream "$work/stream.jsonl" --part bandwidth --md "$work/stream.md" >/dev/null ||
      { status=1; failures+=("stream table"); }
  fi
  finish stream
fi

# ---------------------------------------------------------------------------------- 2. boards
kolmo_bench=$PEERS_OUT/kolmo_bench.jsonl
if wanted boards; then
  before=0
  [[ -f $kolmo_bench ]] && before=$(wc -l <"$kolmo_bench")
  args=()
  ((quick)) && args+=(--sizes 10000 100000)
  ((peers)) || args+=(--no-peers)
  section boards "Snakes and Ladders boards against Storm and SciPy (bench/run.sh)" \
    "$here/run.sh" "${args[@]}" "${run_sh_args[@]}" --out "$work/boards.md"
  [[ -f $kolmo_bench ]] && tail -n "+$((before + 1))" "$kolmo_bench" >"$work/boards.jsonl"
  finish boards
fi

# ---------------------------------------------------------------------------------- 3. MDPs
if wanted mdp; then
  args=()
  ((quick)) && args+=(--random 10000 --forest 100000)
  ((peers)) || args+=(--no-storm)
  section mdp "Discounted MDPs against Storm (bench/mdp.py)" \
    "$py" "$here/mdp.py" --kolmo "$kolmo" "${args[@]}" --md "$work/mdp.md" --json "$work/mdp.jsonl"
  finish mdp
fi

# ---------------------------------------------------------------------------------- 4. PRISM suite
if wanted prism; then
  args=(--reps 3)
  ((quick)) && args=(--reps 1)
  ((peers)) || args+=(--storm-configs)
  section prism "PRISM benchmark suite, end to end, against Storm (bench/prism.py)" \
    "$py" "$here/prism.py" --kolmo "$kolmo" "${args[@]}" --md "$work/prism.md" --json "$work/prism.jsonl"
  finish prism
fi

# ---------------------------------------------------------------------------------- 5. games
# games_all: 10^4 and 10^5 states three times, 10^6 once (as bench/README.md runs them); --quick:
# 10^4 once.
games_all() {
  local g=("$py" "$here/games.py" --kolmo "$kolmo" --out "$PEERS_OUT/games")
  if ((quick)); then
    "${g[@]}" --sizes 10000 --reps 1
  else
    "${g[@]}" --sizes 10000 100000 --reps 3 && echo && "${g[@]}" --sizes 1000000 --reps 1
  fi
}
if wanted games; then
  if ((quick)); then
    shown="bench/games.py --sizes 10000 --reps 1"
  else
    shown="bench/games.py --sizes 10000 100000 --reps 3; bench/games.py --sizes 1000000 --reps 1"
  fi
  section games "Stochastic games against MDPs (bench/games.py)" games_all
  cp "$work/games.log" "$work/games.md"
  finish games
fi

# ---------------------------------------------------------------------------------- 6. Monte Carlo
# mc_run LABEL [ENV...]: times `kolmo snakes --mc 2e7 --json` and records its JSON and wall seconds.
mc_games=20000000
mc_run() {
  local label=$1
  shift
  local t0=$EPOCHREALTIME
  env "$@" "$kolmo" snakes --mc "$mc_games" --json -q >"$work/mc-$label.json"
  local t1=$EPOCHREALTIME
  echo "$label $t0 $t1" >>"$work/mc.times"
}
mc_table() {
  "$py" - "$work" "$mc_games" <<'EOF'
import json, sys
work, games = sys.argv[1], int(sys.argv[2])
rows, bad = [], []
for line in open(work + "/mc.times"):
    label, t0, t1 = line.split()
    wall = float(t1) - float(t0)
    d = json.load(open("%s/mc-%s.json" % (work, label)))
    mc = d["monte_carlo"]
    threads = "all (%s)" % label.split("-")[1] if label.startswith("all") else "1"
    rows.append("| %s | %s | %.2f | %.1f million | %.6f ± %.6f | %.6f | %+.2f |" % (
        threads, "{:,}".format(mc["games"]), wall, mc["games"] / wall / 1e6, mc["mean"],
        mc["std_error"], d["expected_rolls"], mc["z_score"]))
    if mc["games"] != games or abs(mc["z_score"]) > 5:
        bad.append(label)
print("Classic board (clamp), `kolmo snakes --mc %s --json`: wall seconds of the whole command (the exact "
      "analysis of the 100-cell board included), games per second = games / wall. The mean number of rolls "
      "must agree with the exact expectation (|z| ≤ 5)." % "{:,}".format(games))
print()
print("| threads | games | wall s | games/s | Monte Carlo mean ± standard error | exact expected rolls | z |")
print("|---|---|---|---|---|---|---|")
print("\n".join(rows))
if bad:
    print("\n**Monte Carlo disagrees with the exact value or ran the wrong number of games: %s**" % ", ".join(bad))
    sys.exit(1)
EOF
}
mc_all() {
  rm -f "$work/mc.times"
  mc_run "all-$(nproc)" && mc_run 1 RAYON_NUM_THREADS=1 && mc_table >"$work/mc.md"
}
if wanted mc; then
  shown="kolmo snakes --mc $mc_games --json -q; RAYON_NUM_THREADS=1 kolmo snakes --mc $mc_games --json -q"
  section mc "Monte Carlo rate (kolmo snakes --mc)" mc_all
  finish mc
fi

# ---------------------------------------------------------------------------------- 7. roofline
if wanted stream && [[ -s $work/stream.jsonl ]]; then
  section roofline "Roofline: kolmo's products against the triad bandwidth (bench/roofline.py)" \
    "$py" "$here/roofline.py" --stream "$work/stream.jsonl" --part roofline \
    --boards "$work/boards.jsonl" --mdp "$work/mdp.jsonl" --md "$work/roofline.md"
  finish roofline
fi

# ---------------------------------------------------------------------------------- report
total=$((SECONDS - started))
{
  cat "$work/header.md"
  echo "Total time $((total / 60)) min $((total % 60)) s$( ((${#failures[@]})) && printf '; **failed: %s**' "${failures[*]}")."
  echo
  for name in stream boards mdp prism games mc roofline; do
    [[ -f $work/$name.part.md ]] && cat "$work/$name.part.md"
  done
} >"$out"
cp "$out" "$work/results-all.md"
log "report written to $out (and $work/results-all.md); total $((total / 60)) min $((total % 60)) s"
((status == 0)) || log "finished with failures or disagreements: ${failures[*]}"
exit "$status"
