#!/bin/bash
# Cross-check kolmo against Storm (stormpy) on the same DRN files; not part of CI.
# Sets up the peer tools' virtual environment once (shared with shared/peers: $PEERS_OUT/venv,
# default ~/.cache/kolmo-peers/venv), builds the release CLI, runs storm_check.py.
# Outputs under $PEERS_OUT (default ~/.cache/kolmo-peers): storm_check/ (the DRN files), storm_check.md.
# Exits non-zero if any check fails.
#   peers/run.sh                      # all cases
#   peers/run.sh --only classic ring  # cases whose name contains one of the words
#   peers/run.sh --cap 60             # seconds allowed per Storm check (default 20)
#   peers/run.sh bench-mdp [ARGS]     # instead: the MDP benchmark peers/bench_mdp.py (discounted
#                                     # reward vs pymdptoolbox, QuantEcon, Storm; ~8 minutes);
#                                     # outputs bench_mdp/, bench_mdp.md, bench_mdp.json
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export PEERS_OUT=${PEERS_OUT:-$HOME/.cache/kolmo-peers}
venv=${PEERS_VENV:-$PEERS_OUT/venv}
mkdir -p "$PEERS_OUT"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q stormpy numpy scipy
fi
(cd "$root" && cargo build --release -q -p kolmo-cli)
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
export KOLMO=$target/release/kolmo
if [ "${1:-}" = bench-mdp ]; then
  shift
  "$venv/bin/python" -c "import mdptoolbox, quantecon" 2>/dev/null ||
    "$venv/bin/pip" install -q pymdptoolbox quantecon
  exec "$venv/bin/python" "$here/bench_mdp.py" --kolmo "$KOLMO" "$@"
fi
exec "$venv/bin/python" "$here/storm_check.py" --kolmo "$KOLMO" "$@"
