#!/bin/sh
# The live tests: the MIDI file render, the real-time callback's allocation count, and
# `hooke play` on a JACK server with the dummy backend (no sound card needed).
# Installs Debian's jackd2, libjack-jackd2-dev and libasound2-dev when missing (needs root).
set -eu
cd "$(dirname "$0")/.."
missing=""
for package in jackd2 libjack-jackd2-dev libasound2-dev pkg-config; do
    dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
fi
cargo test -p hooke --test live_allocation
cargo test -p hooke-cli --test midi_render
cargo test -p hooke-cli --test play_jack -- --nocapture
