#!/usr/bin/env bash
# Installs, when missing, the Debian packages that `hooke play` builds against and that its tests
# run on: the ALSA and JACK headers, and jackd2 (whose dummy backend is a real-time clock with no
# sound card). Exits 1 when they are missing and cannot be installed (not root, no sudo).
set -euo pipefail
packages=(jackd2 libjack-jackd2-dev libasound2-dev pkg-config)
missing=()
for package in "${packages[@]}"; do
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
