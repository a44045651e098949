#!/usr/bin/env bash
# The plugin's tests (crates/hooke-plugin, docs/plugin.md): builds the bundles
# (scripts/build-plugin.sh), then runs the tests in a debug build with nice-plug's allocation
# assertion (--features assert_process_allocs): the CLAP host tests load the bundled
# hooke.clap (HOOKE_CLAP), the allocation tests the debug build's plugin library. Then a
# third-party VST3 host, Spotify's pedalboard (PyPI, in its own virtual environment), loads the
# bundled hooke.vst3 and plays a melody whose pitches are measured.
#   bash scripts/test-plugin.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target/plugin}

bash scripts/build-plugin.sh
cd crates/hooke-plugin
echo "== tests: the CLAP host on $CARGO_TARGET_DIR/bundled/hooke.clap, allocations in the debug build"
HOOKE_CLAP=$CARGO_TARGET_DIR/bundled/hooke.clap cargo test --locked --features assert_process_allocs

echo "== the VST3 in a third-party host (pedalboard): a melody in tune, the tension parameter"
VENV=$CARGO_TARGET_DIR/pedalboard-venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q "pedalboard>=0.9,<0.10" "numpy>=1.21" "mido>=1.3"
"$VENV/bin/python" tests/vst3/pedalboard_host.py "$CARGO_TARGET_DIR/bundled/hooke.vst3"
