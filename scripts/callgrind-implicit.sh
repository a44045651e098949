#!/usr/bin/env bash
# Instructions per step of the implicit schemes against velocity Verlet on two small nonlinear
# models, counted by callgrind (repeatable where times are not): per step = (count at 4000
# steps - count at 2000) / 2000, so start-up and set-up cancel. Then the wall time per step of
# each case (`hooke bench --model`, one second of steps). Usage:
# scripts/callgrind-implicit.sh [BINARY]; run it on two builds to compare them (BENCHMARKS.md,
# "Implicit schemes: dense path").
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/release/hooke}
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | grep -o 'Collected : [0-9]*' | grep -o '[0-9]*'; }
for model in double-pendulum clarinet-reed; do
  for scheme in velocity-verlet energy-conserving midpoint trapezoidal backward-euler caldirola-kanai; do
    a=$(count "$binary" bench --model "examples/$model.toml" --scheme "$scheme" --steps 2000)
    b=$(count "$binary" bench --model "examples/$model.toml" --scheme "$scheme" --steps 4000)
    # `hooke bench` prints "N masses, ..." and "R mass-steps/s": a step takes N / R seconds.
    ns=$("$binary" bench --model "examples/$model.toml" --scheme "$scheme" |
      awk '/masses,/ {n = $1} /mass-steps\/s/ {printf "%.0f", n / $1 * 1e9}')
    echo "$model $scheme instructions/step $(( (b - a) / 2000 )) ns/step $ns"
  done
done
