#!/usr/bin/env bash
# Runs every fuzz target (or those named after SECONDS) for SECONDS each, one after another at
# the lowest priority, and prints per target the executions and the crashes found.
#
#   fuzz/run.sh SECONDS [TARGET...]
#
# Each target starts from its committed seeds (fuzz/seeds/TARGET) and the corpus kept from earlier
# runs (fuzz/corpus/TARGET, not committed). A crash (panic, overflow, more than 2 GB of memory, an
# input taking over 20 s) stops that target; its input is in fuzz/artifacts/TARGET/, the log in
# fuzz/artifacts/TARGET.log. Leaks are not looked for (memory kept on purpose, such as a thread
# pool's, would count; the leak check also made the targets ten times slower). Reproduce one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run -a TARGET fuzz/artifacts/TARGET/crash-...
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain RUSTC_BOOTSTRAP=1 lets it
# use the nightly-only sanitizer flags.
set -u
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
export RUSTC_BOOTSTRAP=1
# No leak report at exit either (a thread pool still winding down would be one).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi
mkdir -p artifacts
# Every target built first (-a: debug assertions on; overflow checks are on in fuzz/Cargo.toml's
# profile), so that each gets its SECONDS of fuzzing.
nice -n 19 cargo fuzz build -a 2>artifacts/build.log || { cat artifacts/build.log >&2; exit 1; }
rows=()
failed=0
# The judge problems' published samples are read from the shared reference cases beside the
# repository (not copied into it): they join the kept corpus when present.
shared=../../shared/cases
seed_from_shared() {
    local target=$1
    shift
    mkdir -p "corpus/$target"
    for f in "$@"; do
        [ -f "$shared/$f" ] && cp "$shared/$f" "corpus/$target/shared-$f"
    done
    return 0
}
seed_from_shared judge_cf_1245e cf1245e.sample1.in cf1245e.sample2.in cf1245e.sample3.in
seed_from_shared judge_lightoj_1151 lightoj1151.sample.in
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t" "seeds/$t"
    before=$(find "artifacts/$t" -type f | wc -l)
    log="artifacts/$t.log"
    echo "fuzzing $t for $seconds s ..." >&2
    nice -n 19 cargo fuzz run -a "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -detect_leaks=0 -print_final_stats=1 \
        >"$log" 2>&1
    status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    [ -n "$runs" ] || runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | grep -o '[0-9]*')
    after=$(find "artifacts/$t" -type f | wc -l)
    crashes=$((after - before))
    if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then
        crashes="? (exit $status, see $log)"
    fi
    [ "$crashes" = 0 ] || failed=1
    rows+=("$(printf '%-20s %8s %14s  %s' "$t" "$seconds" "${runs:-?}" "$crashes")")
done
printf '%-20s %8s %14s  %s\n' target seconds executions crashes
printf '%s\n' "${rows[@]}"
exit $failed
