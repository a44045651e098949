"""Sweeps: a grid of parameters to a table, the same from a local process pool, Dask and Ray,
with failures reported on their rows."""

import numpy as np
import pytest

import hooke
from hooke.sweeps import ModelMeasure, grid

pandas = pytest.importorskip("pandas")

SCHEMES = ["symplectic-euler", "velocity-verlet", "rk4", "midpoint", "caldirola-kanai"]
RATES = [4000.0 * 1.3**i for i in range(20)]  # 4 kHz .. 584 kHz


def string():
    return hooke.Model.string(12, length=0.65, tension=80.0, linear_density=1e-3, decay_time=1.5)


def params():
    return {"scheme": SCHEMES, "rate": RATES}


@pytest.fixture(scope="module")
def local():
    table = hooke.sweep(string(), params(), backend="process", workers=2)
    assert len(table) == 100 and table["error"].isna().all()
    return table


def test_the_grid_varies_the_last_name_fastest():
    rows = grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert rows[:4] == [{"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "z"}, {"a": 2, "b": "x"}]


def test_the_process_pool_equals_this_process(local):
    serial = hooke.sweep(string(), params(), backend="serial")
    pandas.testing.assert_frame_equal(local, serial)
    # The measure is the analysis: the 12-mass string warps flat at high rates, sharp or flat
    # at low ones depending on the scheme; symplectic Euler is unstable at 4 kHz (its top mode needs 5.7 kHz).
    low = local[(local.scheme == "symplectic-euler") & (local.rate == RATES[0])].iloc[0]
    assert not low.stable
    high = local[local.rate == RATES[-1]]
    assert (high.cents_error.abs() < 1.0).all()


def test_dask_local_cluster_equals_the_process_pool(local):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            table = hooke.sweep(string(), params(), backend="dask", client=client)
    pandas.testing.assert_frame_equal(table, local)


def test_ray_equals_the_process_pool(local):
    ray = pytest.importorskip("ray", reason="Ray is an optional extra (pip install ray)")
    try:
        table = hooke.sweep(string(), params(), backend="ray")
    finally:
        ray.shutdown()
    pandas.testing.assert_frame_equal(table, local)


def failing_pitch(tension, scheme="symplectic-euler"):
    model = hooke.Model.string(8, length=1.0, tension=tension, linear_density=1e-3)
    return {"pitch": float(model.analyze(scheme, rate=44100).digital_frequency_hz[0])}


def test_failures_are_reported_on_their_rows():
    table = hooke.sweep(failing_pitch, {"tension": [50.0, -1.0, 100.0]}, backend="process", workers=2)
    assert list(table["error"].isna()) == [True, False, True]
    assert "ModelError" in table["error"][1] and "tension" in table["error"][1]
    assert np.isnan(table["pitch"][1]) or table["pitch"][1] is None


def test_without_pandas_a_dict_of_arrays():
    table = hooke.sweep(ModelMeasure(string()), {"rate": [44100.0, 96000.0]}, backend="serial", as_frame=False)
    assert isinstance(table, dict) and table["digital_frequency_hz"].shape == (2,)
    assert table["rate"].tolist() == [44100.0, 96000.0]
