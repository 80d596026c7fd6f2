#!/usr/bin/env bash
# Writes the fuzz corpus seeds (fuzz/seeds/<target>/) from the files a
# short run of the main job writes. Run from anywhere; takes about a minute.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
cargo run --release --example train_tiny -- \
    --steps 3 --warmup 1 --layers 1 --width 8 --heads 2 --seq 4 --batch 1 \
    --no-ceilings --out "$out" >/dev/null
cargo run --release --manifest-path fuzz/Cargo.toml --example seeds -- "$out" fuzz/seeds
