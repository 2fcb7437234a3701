#!/usr/bin/env bash
# Benchmark kolmo against its peers (Storm, SciPy) on generated Snakes and Ladders boards (issue 7).
# Builds kolmo's bench_board example in release mode, generates the boards and runs the peers through
# the peer harness ../shared/peers/run.sh (relative to the repository root; override with PEERS_RUN),
# runs kolmo, then prints one markdown table and writes it to bench/results.md.
# Outputs outside the repository, under $PEERS_OUT (default ~/.cache/kolmo-peers): boards/,
# results.jsonl (the peers' raw results) and kolmo_bench.jsonl (kolmo's). Not for CI.
#
#   bench/run.sh                           # everything: 10^4..10^6 with peers, 10^7 kolmo alone
#   bench/run.sh --sizes 10000 100000      # only these sizes (no 10^7 unless --big)
#
# Options:
#   --sizes N...       board sizes measured with the peers (default 10000 100000 1000000)
#   --rules R...       overshoot rules: clamp, stay, bounce (default clamp stay)
#   --big, --no-big    also measure kolmo alone at 10^7 cells (default: on unless --sizes is given)
#   --big-rules R...   rules at 10^7 (default: those of --rules); each 10^7 board takes ~3.6 GB
#   --no-peers         kolmo only
#   --rerun-peers      measure the peers again instead of reusing results.jsonl
#   --reps N           runs of kolmo per board, median reported (default 3; always 1 at 10^7)
#   --out FILE         write the table here instead of bench/results.md (bench/all.sh does)
# Exit status: 0; 1 if a peer's value disagrees with kolmo's or a kolmo run failed; 2 bad usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
peers_run=${PEERS_RUN:-$root/../shared/peers/run.sh}
export PEERS_OUT=${PEERS_OUT:-$HOME/.cache/kolmo-peers}
boards=$PEERS_OUT/boards
results=$PEERS_OUT/results.jsonl
kolmo_out=$PEERS_OUT/kolmo_bench.jsonl
big_n=10000000

sizes=(10000 100000 1000000)
rules=(clamp stay)
big_rules=()
big=auto
peers=1
rerun=0
reps=3
out=$here/results.md

log() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# Values following an option, up to the next option: printed one per line.
values() { while (($#)) && [[ $1 != --* ]]; do printf '%s\n' "$1"; shift; done; }

while (($#)); do
  option=$1
  shift
  case $option in
    --sizes) mapfile -t sizes < <(values "$@"); big=${big/auto/off} ;;
    --rules) mapfile -t rules < <(values "$@") ;;
    --big-rules) mapfile -t big_rules < <(values "$@"); big=on ;;
    --big) big=on ;;
    --no-big) big=off ;;
    --no-peers) peers=0 ;;
    --rerun-peers) rerun=1 ;;
    --reps) reps=${1:-}; shift || true ;;
    --out) out=${1:-}; shift || true; [[ -n $out ]] || die "--out wants a file" ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option $option" ;;
  esac
  case $option in --sizes | --rules | --big-rules) shift "$(values "$@" | wc -l)" ;; esac
done
((${#big_rules[@]})) || big_rules=("${rules[@]}")
[[ $big == off ]] && big_rules=()
((${#sizes[@]} + ${#big_rules[@]})) || die "nothing to measure"
for n in "${sizes[@]}"; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "not a size: $n"; done
for rule in "${rules[@]}" "${big_rules[@]}"; do
  [[ $rule =~ ^(clamp|stay|bounce)$ ]] || die "not a rule: $rule (clamp, stay or bounce)"
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps wants a positive number"
mapfile -t sizes < <(printf '%s\n' "${sizes[@]}" | sort -n -u | sed '/^$/d')
[[ -x $peers_run ]] || die "peer harness not found: $peers_run (set PEERS_RUN)"
command -v cargo >/dev/null || die "cargo not found"
command -v python3 >/dev/null || die "python3 not found"

started=$SECONDS
status=0
mkdir -p "$boards"

# ---------------------------------------------------------------------------------- build
log "building kolmo (release, example bench_board)"
(cd "$root" && cargo build --release --example bench_board)
target=${CARGO_TARGET_DIR:-$root/target}
[[ $target == /* ]] || target=$root/$target
bench_board=$target/release/examples/bench_board

# ---------------------------------------------------------------------------------- boards
# A board is complete when its last state is N (the DRN ends with N's state, action and self-loop).
board_complete() { tail -n 3 "$1.drn" 2>/dev/null | head -n 1 | grep -q "^state $2 "; }

# ensure_board N RULE [npz]: generate boards/nN_f6_RULE_s1 through the harness unless complete.
ensure_board() {
  local n=$1 rule=$2 base=$boards/n$1_f6_$2_s1
  if board_complete "$base" "$n" && { [[ ${3:-} != npz ]] || [[ -s $base.npz ]]; }; then
    log "board $base.drn: reused"
    return
  fi
  if ((n >= big_n)); then
    local free_kib
    free_kib=$(df -Pk "$boards" | awk 'NR == 2 { print $4 }')
    ((free_kib > 5 * 1024 * 1024)) || die "less than 5 GiB free under $boards for the $n-cell board"
  fi
  log "board $base.drn: generating"
  "$peers_run" board "$n" --rule "$rule"
}

npz=
((peers)) && npz=npz  # the harness's SciPy side reads the NPZ
for rule in "${rules[@]}"; do
  for n in "${sizes[@]}"; do ensure_board "$n" "$rule" "$npz"; done
done

# ---------------------------------------------------------------------------------- peers
start_line=0
[[ -f $results ]] && start_line=$(wc -l <"$results")
since=0
((rerun)) && since=$start_line
if ((peers)) && ((${#sizes[@]})); then
  for rule in "${rules[@]}"; do
    for n in "${sizes[@]}"; do
      for tool in storm scipy; do
        read -ra configs < <(python3 "$here/peers.py" missing --results "$results" --since "$since" \
          --sizes "${sizes[@]}" --n "$n" --rule "$rule" --tool "$tool")
        if ((${#configs[@]} == 0)); then
          log "$tool n=$n $rule: reusing results.jsonl"
          continue
        fi
        log "$tool n=$n $rule: running ${configs[*]}"
        "$peers_run" sizes "$n" --rules "$rule" --tools "$tool" --configs "${configs[@]}" ||
          log "warning: the harness failed for $tool n=$n $rule"
      done
    done
  done
fi

# ---------------------------------------------------------------------------------- kolmo
run_id=$(date +%Y%m%dT%H%M%S)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown && -n $(git -C "$root" status --porcelain --untracked-files=no) ]]; then
  commit+=" (with uncommitted changes)"
fi

# kolmo_board N RULE REPS
kolmo_board() {
  python3 "$here/kolmo.py" --bin "$bench_board" --board "$boards/n$1_f6_$2_s1.drn" --n "$1" --rule "$2" \
    --reps "$3" --run "$run_id" --commit "$commit" --out "$kolmo_out" || status=1
}

for rule in "${rules[@]}"; do
  for n in "${sizes[@]}"; do kolmo_board "$n" "$rule" "$reps"; done
done
for rule in "${big_rules[@]}"; do
  [[ " ${rules[*]} " == *" $rule "* && " ${sizes[*]} " == *" $big_n "* ]] && continue  # done above
  if ensure_board "$big_n" "$rule"; then
    kolmo_board "$big_n" "$rule" 1
  else
    log "warning: could not generate the $big_n-cell $rule board"
    status=1
  fi
done

# ---------------------------------------------------------------------------------- table
peer_args=()
if ((peers)); then
  versions=$("${PEERS_VENV:-$PEERS_OUT/venv}/bin/python" -c \
    'import scipy, stormpy; print("stormpy %s, SciPy %s" % (stormpy.__version__, scipy.__version__))' \
    2>/dev/null || echo "versions unknown")
  peer_args=(--results "$results" --since "$since" --fresh-from "$start_line" --peer-versions "$versions")
fi
big_sizes=()
((${#big_rules[@]})) && big_sizes=("$big_n")
echo
python3 "$here/table.py" --kolmo "$kolmo_out" --run "$run_id" --commit "$commit" --out "$out" \
  --sizes "${sizes[@]}" --rules "${rules[@]}" --big-sizes "${big_sizes[@]}" --big-rules "${big_rules[@]}" \
  "${peer_args[@]}" || status=1
echo
log "table written to $out; raw results: $kolmo_out, $results"
log "total time $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s"
((status == 0)) || log "finished with failures or disagreements (see above)"
exit "$status"
