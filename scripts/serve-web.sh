#!/usr/bin/env bash
# Builds the browser playground (scripts/build-web.sh) and serves web/dist/ at
# http://127.0.0.1:PORT/ (PORT, default 8000) until stopped with Ctrl-C.
#   bash scripts/serve-web.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-8000}
bash scripts/build-web.sh
echo "== serving web/dist at http://127.0.0.1:$PORT/ (Ctrl-C stops)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory web/dist
