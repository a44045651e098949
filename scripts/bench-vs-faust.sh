#!/usr/bin/env bash
# Hooke against Faust mi.lib, side by side in one run, on the Faust peer's string
# (../shared/bench/faust: 1 g masses, 230400 N/m, 4.8e-3 N s/m, 48 kHz, symplectic Euler).
#   bash scripts/bench-vs-faust.sh [NS]        e.g. bash scripts/bench-vs-faust.sh 5,80,320
# Faust's compile time and memory grow steeply with N (640: ~100 s and ~9 GB; 1000 fails).
set -euo pipefail
cd "$(dirname "$0")/.."
NS="${1:-5,80,320}"
PEER=../shared/bench/faust/run.sh
[ -f "$PEER" ] || { echo "the Faust peer is not at $PEER"; exit 1; }
cargo build --release -q -p hooke-cli
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
bash "$PEER" --ns "$NS" --reps 3 --out /tmp/hooke_vs_faust > /tmp/hooke_vs_faust.log 2>&1
best_hooke() {  # best of 3 runs of `hooke bench "$@"`, mass-steps/s
  for _ in 1 2 3; do target/release/hooke bench "$@" --seconds 2 | tail -1 | cut -d' ' -f1; done | sort -g | tail -1
}
printf '%-8s %14s %14s %8s %22s %8s\n' N "Faust mi.lib" "Hooke" ratio "Hooke, 64 voices" ratio
for n in ${NS//,/ }; do
  faust=$(awk -v n="$n" '$1 == "string_N"n {print $8}' /tmp/hooke_vs_faust.log)
  hooke=$(best_hooke --string "$n")
  voices=$(best_hooke --string "$n" --voices 64)
  awk -v n="$n" -v f="$faust" -v h="$hooke" -v v="$voices" \
    'BEGIN { printf "%-8s %14.4e %14.4e %8.2f %22.4e %8.2f\n", n, f, h, h / f, v, v / f }'
done
echo "(mass-steps/s, best of 3 each; Faust's log: /tmp/hooke_vs_faust.log)"
