"""Every scheme through Python gives the CLI's CSV bit for bit (the same engine, the same
observers): positions, velocities, times and energies."""

import subprocess

import numpy as np
import pytest

import hooke

SCHEMES = [s["name"] for s in hooke.schemes()]
# (model file, steps): a damped linear string (1D, modal damping) and a nonlinear 2D chain under
# gravity.
MODELS = [("string-5-table1.toml", 300), ("three-mass-chain.toml", 200)]


def cli_csv(binary, model, scheme, steps, path):
    subprocess.run(
        [str(binary), "run", str(model), "--scheme", scheme, "--steps", str(steps), "--csv", str(path), "--energy", "--force"],
        check=True,
        capture_output=True,
    )
    with open(path) as f:
        header = f.readline().strip().split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name,steps", MODELS)
def test_a_run_equals_the_cli_csv_bit_for_bit(hooke_bin, examples, tmp_path, scheme, name, steps):
    header, expected = cli_csv(hooke_bin, examples / name, scheme, steps, tmp_path / "run.csv")
    model = hooke.load(examples / name)
    run = model.simulate(scheme=scheme).run(steps=steps)
    frame = run.to_pandas()
    assert list(frame.columns) == header
    assert frame.shape == expected.shape == (steps + 1, len(header))
    got = frame.to_numpy(dtype=np.float64)
    # Bit-identical: the CSV holds the shortest text that reads back to the same f64.
    assert np.array_equal(got, expected), f"first difference at {np.argwhere(got != expected)[:1]}"
