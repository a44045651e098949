#!/usr/bin/env bash
# Fuzzes each target of fuzz/ (model, instrument, score, engine, analysis, midi) for SECONDS seconds
# each (default 30), one after the other, and prints the executions per target. Installs cargo-fuzz
# if it is missing. Stops with an error on the first crash, panic, hang (an input that takes
# more than 10 s) or allocation over 2 GiB; libFuzzer leaves the input in
# fuzz/artifacts/TARGET/. The corpus grows in fuzz/corpus/TARGET/, seeded from examples/ (the
# MIDI target from fuzz/seeds/midi/).
#
#   scripts/fuzz.sh [SECONDS]
#
# Reproduce a failure with
# `cargo fuzz run -s none --codegen-units 16 TARGET fuzz/artifacts/TARGET/crash-...`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
# cargo-fuzz builds with the stable toolchain; without a sanitizer (-s none) no nightly is needed.
toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^stable'; then
  toolchain=(+stable)
fi
# 16 codegen units build faster than cargo-fuzz's default of 1 (on 2 cores, 5.5 minutes
# against 7 from nothing), and the targets run as fast.
flags=(-s none --codegen-units 16)

cargo "${toolchain[@]}" fuzz build "${flags[@]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in model instrument score engine analysis midi; do
  dict=fuzz/toml.dict
  case $target in
    instrument | score) seeds=examples/instruments ;;
    midi) seeds=fuzz/seeds/midi dict=fuzz/midi.dict ;;
    *) seeds=examples ;;
  esac
  # Plates, bars, a body and stiff strings, small enough to be analysed and stepped.
  extra_seeds=()
  case $target in
    model | engine | analysis) extra_seeds=(fuzz/seeds/model) ;;
  esac
  mkdir -p "fuzz/corpus/$target"
  if ! cargo "${toolchain[@]}" fuzz run "${flags[@]}" "$target" "fuzz/corpus/$target" "$seeds" "${extra_seeds[@]}" -- \
    -dict="$dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: target $target failed; the input is in fuzz/artifacts/$target/" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  printf 'fuzz: %-10s %9s executions in %s s\n' "$target" "$runs" "$seconds"
done
