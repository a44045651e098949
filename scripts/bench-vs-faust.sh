#!/usr/bin/env bash
# Hooke against Faust mi.lib, side by side in one run, on the same string: N masses of 1 g,
# spring-dampers of 230400 N/m and 4.8e-3 N s/m, 48 kHz, symplectic Euler, one thread, f64.
#   bash scripts/bench-vs-faust.sh [NS]        e.g. bash scripts/bench-vs-faust.sh 5,80,320
# For each N: the Faust peer in scripts/faust-peer (installs faust and g++ from Debian if
# missing, writes the mi.lib program, builds it, times it, checks it against symplectic Euler),
# then `hooke bench --string N`, alone and with 64 voices; best of 3 each, in mass-steps/s.
# About 80 s for 5,80,320 on 2 cores once Hooke is built (which `cargo build` does first;
# set CARGO_TARGET_DIR to reuse a build). Faust's compile time and memory grow steeply with N
# (N = 320: 15 s and 1.1 GB; earlier runs found about 100 s and 9 GB at N = 640, and N = 1000
# did not compile in 21 GB).
# Writes only under /tmp (the peer's files in /tmp/hooke-faust-peer, its log in
# /tmp/hooke-vs-faust.log).
set -euo pipefail
cd "$(dirname "$0")/.."
NS="${1:-5,80,320}"
[[ "$NS" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "NS: comma-separated numbers of masses, found '$NS'" >&2; exit 2; }
LOG=/tmp/hooke-vs-faust.log
cargo build --release -q -p hooke-cli
HOOKE="${CARGO_TARGET_DIR:-target}/release/hooke"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"

best_hooke() {  # best of 3 runs of `hooke bench "$@"`, mass-steps/s
  for _ in 1 2 3; do "$HOOKE" bench "$@" --seconds 2 | tail -1 | cut -d' ' -f1; done | sort -g | tail -1
}

: > "$LOG"
rows=()
for n in ${NS//,/ }; do
  echo "# N = $n: building and timing Faust" >&2
  bash scripts/faust-peer/peer.sh "$n" >> "$LOG" 2>&1 || { echo "the Faust peer failed for N = $n; see $LOG" >&2; exit 1; }
  faust=$(tail -1 "$LOG" | cut -d' ' -f1)
  echo "# N = $n: timing Hooke" >&2
  hooke=$(best_hooke --string "$n")
  voices=$(best_hooke --string "$n" --voices 64)
  rows+=("$n $faust $hooke $voices")
done
echo "# $(faust --version | head -1), mi.lib double precision; $(g++ --version | head -1), -O3 -march=native"
printf '%-8s %14s %14s %8s %22s %8s\n' N "Faust mi.lib" "Hooke" ratio "Hooke, 64 voices" ratio
for row in "${rows[@]}"; do
  echo "$row" | awk '{ printf "%-8s %14.3e %14.3e %8.2f %22.3e %8.2f\n", $1, $2, $3, $3 / $2, $4, $4 / $2 }'
done
echo "(mass-steps/s, best of 3 each; Faust's timings and checks: $LOG)"
