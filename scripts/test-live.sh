#!/usr/bin/env bash
# The live tests alone: the MIDI file render, the real-time callback's allocation count, and
# `hooke play` on a JACK server with the dummy backend (no sound card needed), on the release
# build. Installs the audio packages when missing (scripts/install-audio-packages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-audio-packages.sh
cargo test --release -p hooke --test live_allocation
cargo test --release -p hooke-cli --features play --test midi_render --test play_jack -- --nocapture
