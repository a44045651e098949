#!/usr/bin/env bash
# The figures of BENCHMARKS.md (besides the Faust comparison, scripts/bench-vs-faust.sh):
# scaling with N, threads, f32, memory per mass, per-scheme costs, every scheme on its kernel,
# membranes per scheme. About 9 minutes.
#   bash scripts/bench-all.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p hooke-cli
H=target/release/hooke
best() { for _ in 1 2 3; do "$H" bench "$@" --seconds 1 | tail -1 | cut -d' ' -f1; done | sort -g | tail -1; }
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
echo "## scaling (string, symplectic Euler, 1 thread): N, f64 (modal kernel up to 2048 masses),"
echo "## f64 on the chain stencil (--no-modal), f32 (chain stencil) mass-steps/s"
for n in 5 20 80 320 640 1000 10000 100000 1000000; do
  printf '%-8s %12s %12s %12s\n' "$n" "$(best --string "$n")" "$(best --string "$n" --no-modal)" "$(best --string "$n" --f32)"
done
echo "## threads (string): N, 1 thread, 2 threads mass-steps/s"
for n in 100000 1000000; do
  printf '%-8s %12s %12s\n' "$n" "$(best --string "$n")" "$(best --string "$n" --threads 2)"
done
echo "## voices (5-mass string): voices, modal kernel, voice bank (--no-modal) mass-steps/s"
for v in 1 16 64 256; do
  printf '%-8s %12s %12s\n' "$v" "$(best --string 5 --voices "$v")" "$(best --string 5 --voices "$v" --no-modal)"
done
echo "## membrane: size, mass-steps/s, peak RSS bytes per mass"
for s in 100 1000; do
  rss=$( { /usr/bin/time -f '%M' "$H" bench --membrane "${s}x${s}" --seconds 1 >/dev/null; } 2>&1 | tail -1)
  printf '%-10s %12s %8.1f\n' "${s}x${s}" "$(best --membrane "${s}x${s}")" "$(echo "$rss * 1024 / ($s * $s)" | bc -l)"
done
rss=$( { /usr/bin/time -f '%M' "$H" bench --string 1000000 --seconds 1 >/dev/null; } 2>&1 | tail -1)
printf 'string 1e6 peak RSS bytes per mass: %.1f\n' "$(echo "$rss * 1024 / 1000000" | bc -l)"
echo "## schemes on the general path (string of 80): scheme, mass-steps/s, cost relative to symplectic Euler"
se=$(best --string 80 --general)
for s in symplectic-euler backward-euler rk4 vefrl velocity-verlet energy-conserving midpoint trapezoidal \
         caldirola-kanai energy-conserving-cs velocity-verlet-cs exact; do
  r=$(best --string 80 --scheme "$s" --general)
  awk -v s="$s" -v r="$r" -v se="$se" 'BEGIN { printf "%-22s %12.4e %8.2f\n", s, r, se / r }'
done
echo "## stencil kernel vs general path, symplectic Euler, string of 640"
printf 'kernel %s, general %s\n' "$(best --string 640)" "$(best --string 640 --general)"
echo "## every scheme on its kernel vs the general path (string of 80): scheme, kernel, general, ratio"
for s in symplectic-euler backward-euler rk4 vefrl velocity-verlet energy-conserving midpoint \
         trapezoidal caldirola-kanai energy-conserving-cs velocity-verlet-cs exact; do
  k=$(best --string 80 --scheme "$s"); g=$(best --string 80 --scheme "$s" --general)
  awk -v s="$s" -v k="$k" -v g="$g" 'BEGIN { printf "%-22s %12.4e %12.4e %8.1f\n", s, k, g, k / g }'
done
echo "## membranes on the kernels: size, symplectic Euler (f32 stencil), then on the modal kernel (f64):"
echo "## symplectic Euler, velocity Verlet, Caldirola-Kanai, energy-conserving"
for s in 100 300 1000; do
  printf '%-10s %12s' "${s}x${s}" "$(best --membrane "${s}x${s}" --f32)"
  for scheme in symplectic-euler velocity-verlet caldirola-kanai energy-conserving; do
    printf ' %12s' "$(best --membrane "${s}x${s}" --scheme "$scheme")"
  done
  echo
done
