#!/usr/bin/env bash
# Builds the browser playground into web/dist/ (docs/web.md): hooke-web compiled to
# wasm32-unknown-unknown in release with Debian's Rust (the rustup toolchain here cannot
# download the wasm32 target; Debian's rustc-web builds it, with std compiled from its
# rust-web-src), the page and the worklet type-checked and bundled with esbuild (npm ci), the
# repository's examples copied in.
#   bash scripts/build-web.sh
# Installs rustc-web, cargo-web, rust-web-src and lld-22 when missing (root or sudo). Wasm
# build folder: WASM_TARGET_DIR (default target-wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WASM_TARGET_DIR=${WASM_TARGET_DIR:-$ROOT/target-wasm}

bash scripts/install-debian-packages.sh rustc-web cargo-web rust-web-src lld-22 \
  || { echo "error: cannot install rustc-web cargo-web rust-web-src lld-22 (need root or sudo)" >&2; exit 1; }

# simd128 (every browser since 2023): the kernels' vector lanes in 128-bit vectors, twice as
# fast as scalar code on the guitar.
echo "== building hooke-web for wasm32-unknown-unknown (release, simd128, Debian's rustc)"
PATH=/usr/bin:$PATH RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$WASM_TARGET_DIR RUSTFLAGS="-C target-feature=+simd128" \
  cargo build --release -q -p hooke-web --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort
WASM=$WASM_TARGET_DIR/wasm32-unknown-unknown/release/hooke_web.wasm

echo "== bundling the page (npm ci, tsc, esbuild)"
cd web
npm ci --no-audit --no-fund --loglevel=error
npx tsc -p .
node build.mjs "$WASM"
