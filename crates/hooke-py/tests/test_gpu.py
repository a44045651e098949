"""simulate(device="gpu"): the same frames as the CPU within f32 rounding (f64 where the GPU has
it), any linear scheme on a string (mode by mode), the path named, and
what the GPU cannot do refused with the reason. Skips, saying why, when the wheel has no GPU
backend or the machine no Vulkan adapter (scripts/test-python.sh builds the wheel with it)."""

import numpy as np
import pytest

import hooke


def plucked_string(masses=40):
    return hooke.Model.string(masses, length=0.65, tension=70.0, linear_density=1e-3, pluck=(0.2, 1e-3))


def gpu_simulation(model, **options):
    try:
        return model.simulate(device="gpu", **options)
    except hooke.HookeError as error:
        if "no GPU adapter" in str(error) or "without the GPU backend" in str(error):
            pytest.skip(str(error))
        raise


def test_a_string_on_the_gpu_renders_the_cpu_frames():
    pickups = ["s.7", {"mass": "s.20", "quantity": "velocity", "weight": 1e-3, "channel": 2}]
    gpu = gpu_simulation(plucked_string(), rate=48000, pickups=pickups)
    cpu = plucked_string().simulate(rate=48000, pickups=pickups)
    assert gpu.path == "device" and cpu.path == "modal kernel"
    on_gpu = np.concatenate([gpu.render(700, dtype="float64") for _ in range(4)], axis=1)
    on_cpu = cpu.render(2800, dtype="float64")
    assert on_gpu.shape == on_cpu.shape == (2, 2800)
    # f32 on the GPU against the CPU's f64 kernel: within 1e-4 of each channel's peak (the
    # tolerance of hooke-gpu's tests/parity.rs).
    for channel in range(2):
        peak = np.abs(on_cpu[channel]).max()
        assert peak > 0
        assert np.abs(on_gpu[channel] - on_cpu[channel]).max() <= 1e-4 * peak


def test_a_structure_preserving_scheme_runs_a_string_on_the_gpu_mode_by_mode():
    pickups = ["s.7"]
    gpu = gpu_simulation(plucked_string(), rate=48000, scheme="caldirola-kanai", pickups=pickups)
    cpu = plucked_string().simulate(rate=48000, scheme="caldirola-kanai", pickups=pickups, kernels=False)
    assert gpu.path == "device" and cpu.path == "general"
    on_gpu, on_cpu = gpu.render(2000, dtype="float64"), cpu.render(2000, dtype="float64")
    peak = np.abs(on_cpu).max()
    assert peak > 0
    assert np.abs(on_gpu - on_cpu).max() <= 1e-4 * peak


def test_the_gpu_refuses_what_it_cannot_run_and_says_why():
    membrane = hooke.Model(1)
    membrane.add_membrane("m", 8, 6, mass=1e-3, stiffness=1e5)
    with pytest.raises(ValueError, match="on uniform strings only"):
        gpu_simulation(membrane, scheme="velocity-verlet", pickups=["m.3.3"])
    sim = gpu_simulation(plucked_string())
    with pytest.raises(hooke.HookeError, match="render\\(\\) or advance\\(\\)"):
        sim.run(steps=10)
    with pytest.raises(ValueError, match='expected "cpu" or "gpu", found "tpu"'):
        plucked_string().simulate(device="tpu")
