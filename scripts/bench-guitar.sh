#!/usr/bin/env bash
# Real-time factors, side by side in one run: Hooke's 6 x 80-mass guitar rendered to 44.1 kHz
# with 2x oversampling (4.2e7 mass-steps per second of sound), on one and two threads, and
# Faust mi.lib's 150-mass string (../shared/bench/faust, 48 kHz).
#   bash scripts/bench-guitar.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PEER=../shared/bench/faust/run.sh
[ -f "$PEER" ] || { echo "the Faust peer is not at $PEER"; exit 1; }
cargo build --release -q -p hooke-cli
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
bash "$PEER" --ns 150 --reps 3 --out /tmp/hooke_guitar_faust > /tmp/hooke_guitar_faust.log 2>&1
faust=$(awk '$1 == "string_N150" {print $8}' /tmp/hooke_guitar_faust.log)
best_render() {  # best of 3 real-time factors of the 20 s guitar score
  for _ in 1 2 3; do
    target/release/hooke render examples/instruments/guitar.toml examples/instruments/guitar-20s.toml -o /tmp/hooke-guitar-bench.wav "$@" 2>&1 \
      | sed -n 's/.*: \([0-9.]*\)x real time/\1/p'
  done | sort -g | tail -1
}
one=$(best_render --threads 1)
two=$(best_render --threads 2)
awk -v f="$faust" -v one="$one" -v two="$two" 'BEGIN {
  printf "%-46s %14s %12s\n", "", "mass-steps/s", "x real time"
  printf "%-46s %14.3e %12.1f\n", "Faust mi.lib, 150-mass string at 48 kHz", f, f / (150 * 48000)
  printf "%-46s %14.3e %12.1f\n", "Hooke, 6 x 80-mass guitar, 2 x 44.1 kHz, 1 thread", one * 480 * 88200, one
  printf "%-46s %14.3e %12.1f\n", "Hooke, same, 2 threads", two * 480 * 88200, two
}'
echo "(best of 3 each; Faust's log: /tmp/hooke_guitar_faust.log)"
