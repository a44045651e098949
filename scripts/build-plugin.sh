#!/usr/bin/env bash
# Builds the plugin (crates/hooke-plugin, docs/plugin.md) in release and bundles it with
# nice-plug's bundler (its xtask): $CARGO_TARGET_DIR/bundled/hooke.clap (a file) and
# $CARGO_TARGET_DIR/bundled/hooke.vst3 (a folder), by default target/plugin/bundled/.
#   bash scripts/build-plugin.sh
# The plugin is a workspace of its own (outside the root one): its own lock file, and a target
# folder of its own by default (CARGO_TARGET_DIR, default target/plugin).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target/plugin}

echo "== building and bundling crates/hooke-plugin (release) into $CARGO_TARGET_DIR/bundled"
cd crates/hooke-plugin
cargo xtask bundle hooke-plugin --release
for bundle in hooke.clap hooke.vst3; do
  [ -e "$CARGO_TARGET_DIR/bundled/$bundle" ] || { echo "error: no $CARGO_TARGET_DIR/bundled/$bundle" >&2; exit 1; }
done
echo "bundles: $CARGO_TARGET_DIR/bundled/hooke.clap $CARGO_TARGET_DIR/bundled/hooke.vst3"
