#!/usr/bin/env bash
# Installs, when missing, the Debian packages that `hooke play` builds against and that its tests
# run on: the ALSA and JACK headers, and jackd2 (whose dummy backend is a real-time clock with no
# sound card). Exits 1 when they are missing and cannot be installed (not root, no sudo).
set -euo pipefail
exec bash "$(dirname "$0")/install-debian-packages.sh" jackd2 libjack-jackd2-dev libasound2-dev pkg-config
