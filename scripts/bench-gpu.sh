#!/usr/bin/env bash
# The GPU backend's figures (issue 18's targets) on the adapter wgpu finds, beside the CPU
# kernels on the same machine: a 1000 x 1000 membrane (target 4.41e10 mass-steps/s at 44.1 kHz)
# with temporal blocking and with a step per dispatch, larger membranes, 10 000 voices of an
# 80-mass string (target 3.8e10 at 48 kHz) with fewer and more voices around it, and the
# structure-preserving schemes' voices (mode by mode), all in f32, then a few in f64.
#   bash scripts/bench-gpu.sh [HOOKE] [SECONDS]
# HOOKE is a hooke built with the GPU feature (default: builds one with
# `cargo build --release -p hooke-cli --features gpu`); SECONDS per figure (default 3). Prints
# one line per case: its figure in mass-steps/s and the x real time at 48 kHz. On lavapipe (a CPU
# driver) the figures say nothing about a GPU, and the script says so.
set -uo pipefail
cd "$(dirname "$0")/.."
HOOKE=${1:-}
SECONDS_EACH=${2:-3}
if [ -z "$HOOKE" ]; then
  cargo build --release -q -p hooke-cli --features gpu || exit 1
  HOOKE="${CARGO_TARGET_DIR:-target}/release/hooke"
fi
"$HOOKE" bench --gpu --string 2 --voices 1 --steps 1 2>&1 | grep -m1 -A1 "^adapter"
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
printf '%-52s %14s %12s\n' "case (hooke bench ...)" "mass-steps/s" "x real time"
row() {  # row LABEL ARGS...: one benchmark's figure and real-time factor
  local label=$1; shift
  local out
  out=$("$HOOKE" bench "$@" --seconds "$SECONDS_EACH" 2>&1)
  local rate realtime
  rate=$(tail -1 <<<"$out" | sed -n 's/^\([0-9.e+]*\) mass-steps\/s$/\1/p')
  realtime=$(sed -n 's/^real-time factor at [0-9.]* Hz: \([0-9.e+]*\)$/\1/p' <<<"$out" | tail -1)
  if [ -z "$rate" ]; then
    printf '%-52s failed: %s\n' "$label" "$(tail -2 <<<"$out" | tr '\n' ' ')"
  else
    printf '%-52s %14s %12s\n' "$label" "$rate" "${realtime:-?}"
  fi
}
row "--gpu --f32 --membrane 1000x1000" --gpu --f32 --membrane 1000x1000
row "--gpu --f32 --membrane 1000x1000 --step-per-dispatch" --gpu --f32 --membrane 1000x1000 --step-per-dispatch
row "--gpu --f32 --membrane 256x256" --gpu --f32 --membrane 256x256
row "--gpu --f32 --membrane 2000x2000" --gpu --f32 --membrane 2000x2000
row "--gpu --f32 --membrane 2048x2048" --gpu --f32 --membrane 2048x2048
row "--gpu --f32 --string 80 --voices 1000" --gpu --f32 --string 80 --voices 1000
row "--gpu --f32 --string 80 --voices 10000" --gpu --f32 --string 80 --voices 10000
row "--gpu --f32 --string 80 --voices 65535" --gpu --f32 --string 80 --voices 65535
row "--gpu --f32 --string 500 --voices 10000" --gpu --f32 --string 500 --voices 10000
for scheme in velocity-verlet caldirola-kanai energy-conserving; do
  row "--gpu --f32 --string 80 --voices 10000 --scheme $scheme" --gpu --f32 --string 80 --voices 10000 --scheme "$scheme"
done
row "--gpu --f32 --string 500 --voices 10000 --scheme caldirola-kanai" --gpu --f32 --string 500 --voices 10000 --scheme caldirola-kanai
# f64 (where the device has 64-bit floats and integers in shaders; else these rows are f32 again)
row "--gpu --membrane 1000x1000 (f64)" --gpu --membrane 1000x1000
row "--gpu --string 80 --voices 10000 (f64)" --gpu --string 80 --voices 10000
row "--gpu --string 80 --voices 10000 --scheme caldirola-kanai (f64)" --gpu --string 80 --voices 10000 --scheme caldirola-kanai
row "--membrane 1000x1000 (CPU, 1 thread)" --membrane 1000x1000
row "--string 80 --voices 10000 --f32 --threads $(nproc) (CPU)" --string 80 --voices 10000 --f32 --threads "$(nproc)"
