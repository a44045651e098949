#!/usr/bin/env bash
# Installs the Debian packages named as arguments that are missing, as root or through sudo.
# Exits 0 when all are there afterwards, 1 when some are missing and cannot be installed (no
# apt-get, not root and no sudo). Used by install-audio-packages.sh and install-gpu-packages.sh.
set -euo pipefail
missing=()
for package in "$@"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
command -v apt-get >/dev/null || exit 1
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null && sudo -n true 2>/dev/null || exit 1
  sudo="sudo -n"
fi
echo "installing ${missing[*]}"
$sudo apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}" >/dev/null
