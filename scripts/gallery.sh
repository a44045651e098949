#!/usr/bin/env bash
# Regenerates docs/gallery/*.png, one picture per kind of `hooke plot`, from the papers' own
# parameters (docs/gallery.md says which figure each reproduces and what differs).
# HOOKE=path/to/hooke uses a built binary instead of `cargo run --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/gallery
models=docs/gallery/models
if [[ -n "${HOOKE:-}" ]]; then
  hooke() { "$HOOKE" "$@"; }
else
  cargo build --release -q -p hooke-cli
  hooke() { target/release/hooke "$@"; }
fi

# trajectory: the double pendulum of Domoszlai's blog post, with the blog's forward Euler and time
# step.
hooke plot trajectory examples/double-pendulum.toml -o "$out/trajectory.png"
# time: Morgan & Qiao 2008, figs. 10-11: the 20-mass string at 44.1 kHz, mass 1, first 200 samples.
hooke plot time examples/string-20-morgan-qiao-2008.toml -o "$out/time.png" --steps 200 \
  --masses s.1 --scheme symplectic-euler --scheme vefrl
# phase: Chatziioannou 2019, fig. 2: the damped reed in the modified phase space (psi, xi).
hooke plot phase "$models/reed-chatziioannou-2019.toml" -o "$out/phase.png" --modified \
  --scheme velocity-verlet --scheme caldirola-kanai --scheme velocity-verlet-cs --scheme energy-conserving
# energy: Chatziioannou 2019, fig. 1 (right): the errors of H and K for the damped reed.
hooke plot energy "$models/reed-chatziioannou-2019.toml" -o "$out/energy.png" --relative \
  --scheme energy-conserving --scheme velocity-verlet --scheme symplectic-euler
# poles: Morgan & Qiao 2009, fig. 8 (z-plane, gamma h = 0.04) and fig. 21 (s-plane, Table 1's
# string).
hooke plot poles "$models/oscillator-gamma-h-0.04.toml" -o "$out/poles-z.png"
hooke plot poles examples/string-5-table1.toml -o "$out/poles-s.png" --plane s
# warping: Morgan & Qiao 2009, figs. 10-11 (gamma h = 0 and 0.5) and fig. 16 (isofrequency lines).
hooke plot warping -o "$out/warping.png" --gamma-h 0,0.5
hooke plot warping -o "$out/isofrequency.png" --map isofrequency
# spectrum: Morgan & Qiao 2008, fig. 13: the 20-mass string, 8192 samples at 44.1 kHz, mass 1.
hooke plot spectrum examples/string-20-morgan-qiao-2008.toml -o "$out/spectrum.png" --steps 8191 \
  --masses s.1 --scheme symplectic-euler
du -ch "$out"/*.png | tail -n 1
