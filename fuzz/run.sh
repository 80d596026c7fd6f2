#!/usr/bin/env bash
# Fuzzes one target for a while: fuzz/run.sh <target> [seconds, default 60].
# New inputs go to fuzz/corpus/<target>/ (not committed), starting from the
# committed seeds in fuzz/seeds/<target>/; crashes go to fuzz/artifacts/.
set -euo pipefail
target="${1:?usage: fuzz/run.sh <target> [seconds]; targets: $(ls "$(dirname "$0")/fuzz_targets" | sed 's/\.rs$//' | tr '\n' ' ')}"
seconds="${2:-60}"
cd "$(dirname "$0")/.."
mkdir -p "fuzz/corpus/$target"
seeds=()
[ -d "fuzz/seeds/$target" ] && seeds=("fuzz/seeds/$target")
dict=()
[ -f "fuzz/$target.dict" ] && dict=("-dict=fuzz/$target.dict")
cargo +nightly fuzz run "$target" "fuzz/corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" "${dict[@]}"
