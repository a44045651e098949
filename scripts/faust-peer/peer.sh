#!/usr/bin/env bash
# Hooke's Faust peer: times Faust mi.lib on the benchmark string of N masses and checks that it
# is the same string Hooke runs.
#   bash scripts/faust-peer/peer.sh N [WORK [REPS]]     e.g. bash scripts/faust-peer/peer.sh 80
# Installs faust, g++ and python3 from Debian if they are missing (apt-get, with sudo unless
# root), writes the mi.lib program (string_dsp.py), compiles it to C++ in double precision with
# the timing harness timer.cpp as its architecture file, builds that with g++ -O3 -march=native,
# then times WORK mass-steps (default 2e8) REPS times (default 3) and checks the output against
# symplectic Euler. The last line printed is "<best rate> mass-steps/s"; exit 1 if the check fails.
# Everything goes under ${FAUST_PEER_TMP:-/tmp/hooke-faust-peer}/N<N>; nothing in the repository.
# Time on 2 cores: about 6 s for N = 80 and 35 s for N = 320 (Faust and g++ about evenly, then
# 2 s of timing); Faust's own compile time and memory grow steeply with N (N = 320: 15 s and
# 1.1 GB; earlier runs found about 100 s and 9 GB at N = 640).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
N="${1:?usage: peer.sh N [WORK [REPS]]}"
WORK="${2:-2e8}"
REPS="${3:-3}"
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "peer.sh: N must be a whole number of masses, found '$N'" >&2; exit 2; }

missing=()
command -v faust >/dev/null 2>&1 || missing+=(faust)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "# installing ${missing[*]} from Debian" >&2
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
fi

DIR="${FAUST_PEER_TMP:-/tmp/hooke-faust-peer}/N$N"
mkdir -p "$DIR"
python3 "$HERE/string_dsp.py" "$N" > "$DIR/string.dsp"
# -t 0: no time limit on Faust's compile (its default of 120 s stops the large strings).
faust -double -t 0 -a "$HERE/timer.cpp" "$DIR/string.dsp" -o "$DIR/string.cpp"
g++ -O3 -march=native -o "$DIR/string" "$DIR/string.cpp"
"$DIR/string" "$WORK" "$REPS"
