#!/usr/bin/env bash
# Installs, when missing, the Debian packages the GPU backend (crates/hooke-gpu, `hooke bench
# --gpu`) runs on without a GPU: the Vulkan loader and Mesa's Vulkan drivers, lavapipe among
# them (a CPU implementation of Vulkan). Exits 1 when they are missing and cannot be installed
# (not root, no sudo); the GPU tests then skip, saying so, rather than fail.
set -euo pipefail
packages=(mesa-vulkan-drivers libvulkan1)
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
