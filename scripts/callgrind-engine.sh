#!/usr/bin/env bash
# Instructions per step of `hooke bench` cases and the total of the demo render, counted by
# callgrind (repeatable where times are not): per step = (count at 2N steps - count at N) / N,
# so start-up and set-up cancel. Usage: scripts/callgrind-engine.sh [BINARY]; run it on two
# builds to compare them (BENCHMARKS.md, "The engine").
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/release/hooke}
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | grep -o 'Collected : [0-9]*' | grep -o '[0-9]*'; }
per_step() {
  local name=$1 n=$2; shift 2
  local a b
  a=$(count "$@" --steps "$n"); b=$(count "$@" --steps $((2 * n)))
  echo "$name $(( (b - a) / n ))"
}
per_step string80 100000 "$binary" bench --string 80
per_step string640 25000 "$binary" bench --string 640
per_step membrane100x100 1000 "$binary" bench --membrane 100x100
per_step string80-velocity-verlet 10000 "$binary" bench --string 80 --scheme velocity-verlet
per_step double-pendulum-energy-conserving 2000 "$binary" bench --model examples/double-pendulum.toml --scheme energy-conserving
per_step double-pendulum-velocity-verlet 2000 "$binary" bench --model examples/double-pendulum.toml --scheme velocity-verlet
echo "guitar-phrase-total $(count "$binary" render examples/instruments/guitar.toml examples/instruments/guitar-phrase.toml -o /tmp/hooke-callgrind-guitar.wav)"
