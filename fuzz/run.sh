#!/usr/bin/env bash
# Fuzzes one target for a while: fuzz/run.sh <target> [seconds, default 60].
# New inputs go to fuzz/corpus/<target>/ (not committed), starting from the
# committed seeds (fuzz/seeds/<target>/, or the Nsight and Kineto fixtures
# for the importers) with the target's dictionary when it has one; crashes go to
# fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
targets="$(ls fuzz/fuzz_targets | sed 's/\.rs$//' | tr '\n' ' ')"
target="${1:?usage: fuzz/run.sh <target> [seconds]; targets: $targets}"
seconds="${2:-60}"
[ -f "fuzz/fuzz_targets/$target.rs" ] || { echo "unknown target $target; targets: $targets" >&2; exit 2; }
case "$target" in
    ncu_csv | nsys_stats) seeds=(tests/fixtures/nsight); options=(-max_len=8192) ;;
    pytorch_trace) seeds=(tests/fixtures/pytorch tests/fixtures/real/kineto); options=(-max_len=65536) ;;
    http_request) seeds=(fuzz/seeds/http_request); options=(-max_len=20000) ;;
    *) seeds=(); [ -d "fuzz/seeds/$target" ] && seeds=("fuzz/seeds/$target"); options=() ;;
esac
[ -f "fuzz/$target.dict" ] && options+=("-dict=fuzz/$target.dict")
mkdir -p "fuzz/corpus/$target"
cargo +nightly fuzz run "$target" "fuzz/corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" "${options[@]}"
