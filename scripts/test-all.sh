#!/usr/bin/env bash
# Every test suite, on the release build the demo uses (one build for the demo, the tests and
# the bindings): the Rust workspace, then each front end whose folder exists.
#   bash scripts/test-all.sh
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: cargo test --release --workspace"
cargo test --release --workspace --locked

if [ -f crates/hooke-py/pyproject.toml ]; then
  echo "== Python: scripts/test-python.sh"
  bash scripts/test-python.sh
fi
