#!/usr/bin/env bash
# The Python package's tests: a virtual environment (VENV, default .venv) with maturin, numpy,
# pytest and the optional extras that install (pandas, matplotlib, Dask, Ray, nbclient,
# hypothesis), the hooke-py wheel built in release with maturin (with the GPU backend: its tests
# skip without a Vulkan driver) and installed, the `hooke` binary the parity tests compare with,
# then pytest over crates/hooke-py/tests.
#   bash scripts/test-python.sh [PYTEST ARGS...]
# Needs Python >= 3.9 (PYTHON, default python3) and network access to PyPI on the first run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}
VENV=${VENV:-$ROOT/.venv}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV with $($PYTHON --version)"
  "$PYTHON" -m venv "$VENV"
fi
PY=$VENV/bin/python
echo "== installing maturin, numpy, pytest"
"$PY" -m pip install -q --upgrade pip
"$PY" -m pip install -q "maturin>=1.9.4,<2" "numpy>=1.21" pytest
# The extras are optional: a test that needs one skips, saying which, when it is missing.
for extra in pandas matplotlib "dask[distributed]" ray "nbclient nbformat ipykernel" hypothesis; do
  # shellcheck disable=SC2086
  "$PY" -m pip install -q $extra || echo "warning: $extra did not install; its tests will skip"
done

echo "== building the hooke binary and the wheel (release)"
# HOOKE_BIN (set by scripts/test-all.sh to the binary its cargo test built) is used as it is.
if [ -z "${HOOKE_BIN:-}" ]; then
  cargo build --release -q -p hooke-cli
fi
rm -rf "$CARGO_TARGET_DIR/wheels/hooke-"*.whl
"$VENV/bin/maturin" build --release -q -F gpu -m crates/hooke-py/Cargo.toml -i "$PY"
"$PY" -m pip install -q --force-reinstall --no-deps "$CARGO_TARGET_DIR"/wheels/hooke-*.whl

echo "== pytest"
# From the tests folder, so that `import hooke` finds the installed wheel, not the source tree.
cd crates/hooke-py/tests
HOOKE_BIN=${HOOKE_BIN:-$CARGO_TARGET_DIR/release/hooke} "$PY" -m pytest -p no:cacheprovider "$@"
