"""Hostile arguments (issue 35, section 6): a repr that must not deadlock, outputs too large to
allocate refused before they are, NaN refused, and messages that name the argument at fault
and the value given. The sizes expected here are counted from what each call returns (8 bytes
a float64 value, 4 a float32), not read from the binding."""

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hooke

# The binding's limit on the arrays one call returns (docs/python.md, "Limits"), and the
# library's on the steps of a run (hooke::limits::MAX_STEPS).
MAX_OUTPUT_BYTES = 2**32
MAX_STEPS = 2**40


def small_string():
    """4 masses between two anchors, one channel (the sum of the masses' positions), 44.1 kHz."""
    return hooke.Model.string(4, mass=1e-3, stiffness=1e3).simulate()


def refused(call, *args, **kwargs):
    """The ModelError that `call` raises; fails if it returns."""
    with pytest.raises(hooke.ModelError) as caught:
        call(*args, **kwargs)
    return caught.value


def test_repr_of_a_simulation_and_a_performance_returns(examples):
    # Run in a subprocess: a repr that locks its engine twice would hang the interpreter with
    # the GIL held, so only a timeout from outside can turn that into a failure.
    folder = examples / "instruments"
    script = textwrap.dedent(
        f"""
        import hooke
        sim = hooke.Model.string(4, mass=1e-3, stiffness=1e3).simulate(rate=48000)
        print(repr(sim))
        performance = hooke.perform({str(folder / "pendulum.toml")!r}, {str(folder / "pendulum-score.toml")!r})
        print(repr(performance))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    simulation, performance = done.stdout.splitlines()
    assert simulation.startswith("<hooke.Simulation: symplectic-euler at 48000 Hz, 4 masses, step 0, ")
    assert performance.startswith("<hooke.Performance: 3 s, symplectic-euler at ")
    assert performance.endswith(", 2 channel(s), step 0 of " + performance.split(" of ")[-1])


def test_a_run_whose_rows_would_not_fit_is_refused_before_it_allocates():
    sim = small_string()
    # A row: step and time, 4 positions and 4 velocities, 1 pickup, 3 energies: 14 values.
    rows = 10**12 + 2  # every step, the first and the last
    error = refused(sim.run, steps=10**12)
    assert error.field == "steps"
    assert f"{rows * 14 * 8} bytes" in str(error) and "4 GiB" in str(error) and "every" in str(error)
    # Without energies a row is 11 values; thinned with `every` the same run is 10^6 rows.
    error = refused(sim.run, steps=10**12, energy=False)
    assert f"{rows * 11 * 8} bytes" in str(error)
    error = refused(sim.run, seconds=1e300)
    assert error.field == "seconds" and "1e300 s" in error.found and "2^40" in error.expected
    error = refused(sim.run, steps=MAX_STEPS + 1)
    assert error.field == "steps" and error.found == str(MAX_STEPS + 1)
    error = refused(sim.run, seconds=math.nan)
    assert error.field == "seconds" and "NaN" in error.found
    # The simulation is untouched and runs on.
    assert sim.step == 0 and len(sim.run(steps=10)) == 11


def test_a_render_beyond_the_output_limit_is_refused():
    sim = small_string()
    error = refused(sim.render, 2**40)
    assert error.field == "frames"
    assert f"{2**40 * 4} bytes" in str(error) and "4.398 TB" in str(error)
    error = refused(sim.render, 2**30, dtype="float64")
    assert f"{2**30 * 8} bytes" in str(error)
    # Just below the limit is accepted (not rendered here: 1 GiB frames take a while).
    assert 2**30 * 4 <= MAX_OUTPUT_BYTES
    assert sim.render(16).shape == (1, 16)


def test_advance_beyond_the_step_limit_or_the_output_limit_is_refused():
    sim = small_string()
    error = refused(sim.advance, 2**64 - 1)
    assert error.field == "steps" and error.found == str(2**64 - 1) and "2^40" in error.expected
    # 2^40 steps make 2^40 frames (+1 the decimator may owe) of float64: 8 TiB.
    error = refused(sim.advance, MAX_STEPS)
    assert error.field == "steps" and f"{(MAX_STEPS + 1) * 8} bytes" in str(error)
    assert sim.advance(64).shape == (1, 64)


def test_a_performance_renders_no_more_than_its_score(examples):
    folder = examples / "instruments"
    performance = hooke.perform(folder / "pendulum.toml", folder / "pendulum-score.toml")
    # A 3 s score: frames at the output rate up to its end, however many are asked.
    frames = performance.render(2**64 - 1)
    assert frames.shape[0] == 2 and frames.shape[1] <= math.ceil(3.0 * performance.rate) + 1
    assert performance.step == performance.total_steps
    assert performance.render(2**40).shape == (2, 0)


def test_warping_curve_refuses_nan_and_samples_it_cannot_hold():
    error = refused(hooke.warping_curve, "symplectic-euler", math.nan)
    assert error.field == "gamma_h" and error.found == "NaN"
    error = refused(hooke.warping_curve, "symplectic-euler", 0.0, math.nan)
    assert error.field == "omega0_h_max" and error.found == "NaN"
    error = refused(hooke.warping_curve, "symplectic-euler", 0.0, math.inf)
    assert error.field == "omega0_h_max"
    error = refused(hooke.warping_curve, "symplectic-euler", samples=10**9)
    assert error.field == "samples" and error.found == "1000000000" and "1048576" in error.expected
    error = refused(hooke.warping_curve, "symplectic-euler", samples=1)
    assert error.field == "samples"
    curve = hooke.warping_curve("symplectic-euler", 0.1, 1.0, 11)
    assert np.isfinite(curve["omega0_h"]).all() and np.isfinite(curve["omega_d_h"]).all()
    # The analog frequency mu h = sqrt((w0 h)^2 - (gamma h / 2)^2): NaN (overdamped) at w0 h = 0
    # alone, where (gamma h / 2)^2 = 0.0025 exceeds (w0 h)^2.
    omega0_h = np.linspace(0.0, 1.0, 11)
    assert np.isnan(curve["mu_h"][0])
    assert np.allclose(curve["mu_h"][1:], np.sqrt(omega0_h[1:] ** 2 - 0.0025), rtol=1e-12)


@pytest.mark.parametrize(
    "event,arguments,field,found",
    [
        ("pluck", dict(peak=math.nan), "peak", "NaN"),
        ("pluck", dict(peak=1.0, duration=0.0), "duration", "0"),
        ("pluck", dict(peak=1.0, duration=math.inf), "duration", "inf"),
        ("strike", dict(velocity=math.nan), "velocity", "NaN"),
        ("strike", dict(velocity=1.0, hammer_mass=-1.0), "hammer_mass", "-1"),
        ("strike", dict(velocity=1.0, stiffness=math.nan), "stiffness", "NaN"),
        ("strike", dict(velocity=1.0, exponent=0.5), "exponent", "0.5"),
        ("bow", dict(velocity=0.1, force=-1.0, duration=0.1), "force", "-1"),
        ("bow", dict(velocity=0.1, force=1.0, duration=math.nan), "duration", "NaN"),
        ("bow", dict(velocity=0.1, force=1.0, duration=0.1, sharpness=0.0), "sharpness", "0"),
    ],
)
def test_an_excitation_names_the_argument_at_fault_and_its_value(event, arguments, field, found):
    sim = small_string()
    error = refused(getattr(sim, event), "s.2", **arguments)
    assert (error.subject, error.field, error.found) == (event, field, found)
    assert f"`{field}`" in str(error) and found in str(error)


BODY_MODES = [(98.0, 0.10, 0.3), (204.0, 0.05, 0.5)]


def test_a_body_takes_its_modes_as_tuples_or_as_the_files_tables():
    as_tuples, as_tables = hooke.Model(1), hooke.Model(1)
    ids = as_tuples.add_body("body", BODY_MODES)
    tables = [dict(frequency=f, decay_time=tau, mass=m) for f, tau, m in BODY_MODES]
    assert as_tables.add_body("body", tables) == ids
    assert np.array_equal(as_tables.masses, as_tuples.masses)


@pytest.mark.parametrize(
    "modes,expected",
    [
        ([{"frequency": 98.0, "decay_time": "long", "mass": 0.3}], "modes[0].decay_time: expected a number; found 'long'"),
        ([(98.0, 0.1, 0.3), {"frequency": 98.0, "mass": 0.3}], "modes[1]: expected the keys frequency, decay_time and mass"),
        ([(98.0, 0.1)], "modes[0]: expected (frequency Hz, decay_time s, mass kg)"),
        ([98.0], "modes[0]: expected (frequency Hz, decay_time s, mass kg) or a dict with those keys; found 98.0"),
        (98.0, "modes: expected a list of modes; found 98.0"),
    ],
)
def test_a_body_mode_of_the_wrong_shape_is_named(modes, expected):
    with pytest.raises(TypeError) as caught:
        hooke.Model(1).add_body("body", modes)
    assert expected in str(caught.value)


def test_a_body_mode_that_is_nan_is_refused_by_the_rules():
    with pytest.raises(hooke.ModelError) as caught:
        hooke.Model(1).add_body("body", [(math.nan, 0.1, 0.3)])
    assert "NaN" in str(caught.value) and "frequency" in str(caught.value)


def test_a_shape_with_nan_names_the_shape_and_the_mass():
    error = refused(small_string().set_shape, {"s.1": 1e-3, "s.2": math.nan})
    assert (error.subject, error.field, error.found) == ("set_shape", "shape", "NaN") and "s.2" in error.expected


@pytest.mark.parametrize(
    "arguments,field",
    [
        (dict(frequency_hz=math.nan), "frequency_hz"),
        (dict(frequency_hz=440.0, time_constant=math.nan), "time_constant"),
        (dict(frequency_hz=440.0, mass=-1.0), "mass"),
    ],
)
def test_design_string_names_the_target_at_fault(arguments, field):
    error = refused(hooke.design_string, 5, dt=1 / 6000, **arguments)
    assert (error.subject, error.field) == ("design_string", field)


def test_a_body_id_that_is_no_string_is_named():
    with pytest.raises(TypeError) as caught:
        hooke.Model(1).add_body(5, BODY_MODES)
    assert "add_body: id: expected a string; found 5" in str(caught.value)


def test_a_shape_for_an_anchor_names_the_shape():
    error = refused(small_string().set_shape, {"s.0": 0.0})
    assert (error.subject, error.field, error.found) == ("set_shape", "shape", "s.0")


@pytest.mark.parametrize("arguments,field", [(dict(rate=5e-324), "rate"), (dict(dt=5e-324), "dt")])
def test_a_step_whose_reciprocal_overflows_is_refused(arguments, field):
    # 1 / 5e-324 is infinite in float64: the step (or the rate) would be inf.
    assert math.isinf(1 / 5e-324)
    model = hooke.Model.string(4, mass=1e-3, stiffness=1e3)
    for call in (model.simulate, model.analyze):
        error = refused(call, **arguments)
        assert error.field == field and float(error.found) == 5e-324


def test_a_design_target_beyond_nyquist_names_the_target():
    # 1000 Hz at 1000 steps/s is above the Nyquist frequency, 500 Hz.
    with pytest.raises(ValueError) as caught:
        hooke.design_string(5, 1000.0, rate=1000.0)
    message = str(caught.value)
    assert "`frequency_hz` = 1000 Hz" in message and "Nyquist frequency 500.000000 Hz" in message
