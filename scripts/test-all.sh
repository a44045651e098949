#!/usr/bin/env bash
# Every test suite, on the release build the demo uses (one build for the demo, the tests and
# the bindings): the Rust workspace with the live-audio tests (a JACK server with the dummy
# backend stands in for a sound card), then the Python package.
#   bash scripts/test-all.sh
# On a fresh Debian machine it installs what the live tests need (jackd2, the ALSA and JACK
# headers), as root or through sudo; without them the live tests are left out, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

features=()
if bash scripts/install-audio-packages.sh; then
  features=(--features hooke-cli/play)
else
  echo "warning: the audio packages are missing and cannot be installed: hooke play and its tests are left out"
fi

echo "== Rust: cargo test --release --workspace ${features[*]}"
cargo test --release --workspace --locked "${features[@]}"

echo "== Python: scripts/test-python.sh"
bash scripts/test-python.sh
