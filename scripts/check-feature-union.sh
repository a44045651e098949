#!/usr/bin/env bash
# Checks that every build the project makes (the demo's `-p hooke-cli`, `cargo test --workspace`
# with the test features, maturin's `-p hooke-py -F gpu`, the playground's native example) asks
# for the same features of each shared dependency, so that they share one release build
# (crates/hooke-workspace-hack says how). Lists each dependency whose features differ, and exits
# 1 if any does.
#   bash scripts/check-feature-union.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree() {
  local out=$1
  shift
  cargo tree "$@" --locked --prefix none --format '{p} [{f}]' >"$work/$out"
}
tree demo -p hooke-cli -e normal,build
tree tests --workspace --features hooke-cli/gpu,hooke-cli/play -e normal,build,dev
tree wheel -p hooke-py --features hooke-py/gpu -e normal,build
tree web -p hooke-web -e normal,build,dev
python3 - "$work" <<'PY'
import pathlib, sys
builds = {}
for path in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    features = {}
    for line in path.read_text().splitlines():
        if "[" not in line:
            continue
        name = line[: line.index("[")].replace(" (*)", "").replace(" (proc-macro)", "").strip()
        listed = line[line.index("[") + 1 : line.rindex("]")]
        features.setdefault(name, set()).update(f for f in listed.split(",") if f)
    builds[path.name] = features
# The workspace's own crates differ by the features each build selects on purpose.
differing = []
for name in sorted(set().union(*builds.values())):
    if name.startswith("hooke"):
        continue
    seen = {build: sorted(f[name]) for build, f in builds.items() if name in f}
    if len({tuple(v) for v in seen.values()}) > 1:
        differing.append(f"{name}: " + "; ".join(f"{b} {v}" for b, v in seen.items()))
for line in differing:
    print("features differ:", line)
print(f"{len(differing)} dependencies whose features differ between the builds")
sys.exit(1 if differing else 0)
PY
