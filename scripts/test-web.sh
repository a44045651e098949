#!/usr/bin/env bash
# The browser playground's tests (web/tests/run.mjs) in headless Chromium: builds the site
# (scripts/build-web.sh), installs Debian's chromium when missing, renders
# examples/plucked-string.toml natively (crates/hooke-web/examples/render.rs) for the
# native-vs-WebAssembly comparison, serves web/dist on a free port, runs the tests, stops the
# server.
#   bash scripts/test-web.sh
# Screenshots go to WEB_TEST_OUTPUT (default web/test-output).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

bash scripts/build-web.sh
bash scripts/install-debian-packages.sh chromium \
  || { echo "error: cannot install chromium (need root or sudo)" >&2; exit 1; }

echo "== rendering examples/plucked-string.toml natively"
cargo build --release -q -p hooke-web --example render
WORK=$(mktemp -d)
NATIVE_LOWEST=$("$CARGO_TARGET_DIR/release/examples/render" examples/plucked-string.toml 3 "$WORK/native.f32")

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory web/dist >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$PORT/" >/dev/null && break
  sleep 0.1
done

echo "== browser tests on http://127.0.0.1:$PORT/"
cd web
BASE_URL="http://127.0.0.1:$PORT/" NATIVE_SAMPLES="$WORK/native.f32" NATIVE_LOWEST="$NATIVE_LOWEST" \
  node tests/run.mjs
