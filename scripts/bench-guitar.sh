#!/usr/bin/env bash
# Real-time factors, side by side in one run: Hooke's 6 x 80-mass guitar rendered to 44.1 kHz
# with 2x oversampling (4.2e7 mass-steps per second of sound), on one and two threads, and
# Faust mi.lib's 150-mass string at 48 kHz (the Faust peer in scripts/faust-peer, which installs
# faust and g++ from Debian if missing and checks its string against symplectic Euler).
#   bash scripts/bench-guitar.sh
# About 20 s on 2 cores once Hooke is built (which `cargo build` does first; set
# CARGO_TARGET_DIR to reuse a build). Writes only under /tmp (Faust's log in
# /tmp/hooke-guitar-faust.log, the peer's files in /tmp/hooke-faust-peer).
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=/tmp/hooke-guitar-faust.log
cargo build --release -q -p hooke-cli
HOOKE="${CARGO_TARGET_DIR:-target}/release/hooke"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
bash scripts/faust-peer/peer.sh 150 > "$LOG" 2>&1 || { echo "the Faust peer failed; see $LOG" >&2; exit 1; }
faust=$(tail -1 "$LOG" | cut -d' ' -f1)
best_render() {  # best of 3 real-time factors of the 20 s guitar score
  for _ in 1 2 3; do
    "$HOOKE" render examples/instruments/guitar.toml examples/instruments/guitar-20s.toml -o /tmp/hooke-guitar-bench.wav "$@" 2>&1 \
      | sed -n 's/.*: \([0-9.]*\)x real time/\1/p'
  done | sort -g | tail -1
}
one=$(best_render --threads 1)
two=$(best_render --threads 2)
awk -v f="$faust" -v one="$one" -v two="$two" 'BEGIN {
  printf "%-50s %14s %12s\n", "", "mass-steps/s", "x real time"
  printf "%-50s %14.3e %12.1f\n", "Faust mi.lib, 150-mass string at 48 kHz", f, f / (150 * 48000)
  printf "%-50s %14.3e %12.1f\n", "Hooke, 6 x 80-mass guitar, 2 x 44.1 kHz, 1 thread", one * 480 * 88200, one
  printf "%-50s %14.3e %12.1f\n", "Hooke, same, 2 threads", two * 480 * 88200, two
}'
echo "(best of 3 each; Faust's timings and check: $LOG)"
