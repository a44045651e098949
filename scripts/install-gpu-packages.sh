#!/usr/bin/env bash
# Installs, when missing, the Debian packages the GPU backend (crates/hooke-gpu, `hooke bench
# --gpu`) runs on without a GPU: the Vulkan loader and Mesa's Vulkan drivers, lavapipe among
# them (a CPU implementation of Vulkan). Exits 1 when they are missing and cannot be installed
# (not root, no sudo); the GPU tests then skip, saying so, rather than fail.
set -euo pipefail
exec bash "$(dirname "$0")/install-debian-packages.sh" mesa-vulkan-drivers libvulkan1
