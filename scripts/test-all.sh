#!/usr/bin/env bash
# Every test suite, on the release build the demo uses (one build for the demo, the tests and
# the bindings): the Rust workspace with the live-audio tests (a JACK server with the dummy
# backend stands in for a sound card), then the Python package, then the browser playground in
# headless Chromium (scripts/test-web.sh, which installs Debian's rustc-web and chromium).
#   bash scripts/test-all.sh
# On a fresh Debian machine it installs what the live tests need (jackd2, the ALSA and JACK
# headers), as root or through sudo; without them the live tests are left out, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

# hooke-cli/gpu builds without a Vulkan driver; with none, the GPU tests skip, saying so.
features=(--features hooke-cli/gpu)
if bash scripts/install-audio-packages.sh; then
  features+=(--features hooke-cli/play)
else
  echo "warning: the audio packages are missing and cannot be installed: hooke play and its tests are left out"
fi
if ! bash scripts/install-gpu-packages.sh; then
  echo "warning: the Vulkan drivers are missing and cannot be installed: the GPU tests will skip"
fi

echo "== Rust: cargo test --release --workspace ${features[*]}"
cargo test --release --workspace --locked "${features[@]}"

echo "== Python: scripts/test-python.sh"
# The parity tests compare with the hooke binary that cargo test just built (same features).
HOOKE_BIN=${CARGO_TARGET_DIR:-$PWD/target}/release/hooke bash scripts/test-python.sh

echo "== Browser: scripts/test-web.sh"
bash scripts/test-web.sh
