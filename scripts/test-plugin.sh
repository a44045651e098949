#!/usr/bin/env bash
# The plugin's tests (crates/hooke-plugin, docs/plugin.md): builds the bundles
# (scripts/build-plugin.sh), then runs the tests in a debug build with nice-plug's allocation
# assertion (--features assert_process_allocs): the CLAP host tests load the bundled
# hooke.clap (HOOKE_CLAP), the allocation tests the debug build's plugin library.
#   bash scripts/test-plugin.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target/plugin}

bash scripts/build-plugin.sh
cd crates/hooke-plugin
echo "== tests: the CLAP host on $CARGO_TARGET_DIR/bundled/hooke.clap, allocations in the debug build"
HOOKE_CLAP=$CARGO_TARGET_DIR/bundled/hooke.clap cargo test --locked --features assert_process_allocs
