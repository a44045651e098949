"""Errors become exceptions that carry where and what: a file's line and column, a rule's field,
an instability's step, time and mass with what was computed before it."""

import math

import numpy as np
import pytest

import hooke

BAD_MASS = """[model]
dimension = 1

[[anchor]]
id = "wall"

[[mass]]
id = "bob"
mass = -0.5
"""


def test_a_broken_file_names_its_line_and_column(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD_MASS)
    with pytest.raises(hooke.ModelError) as caught:
        hooke.load(path)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.file == str(path)
    line = BAD_MASS.splitlines().index("mass = -0.5") + 1
    assert (error.line, error.column) == (line, len("mass = ") + 1)
    assert error.found == "-0.5"
    assert "expected a value > 0" in error.message
    assert f"{path}:{line}:" in str(error)


def test_a_toml_syntax_error_and_an_unknown_field_are_located(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text("[model]\ndimension = 1\n\n[[mass]]\nid = \"a\"\nmass = 1.0\nmas = 2.0\n")
    with pytest.raises(hooke.ModelError) as caught:
        hooke.load(path)
    assert (caught.value.line, caught.value.column) == (7, 1)
    assert "mas" in caught.value.message
    path.write_text("[model\n")
    with pytest.raises(hooke.ModelError) as caught:
        hooke.load(path)
    assert caught.value.line == 1


def test_a_missing_file_is_a_model_error_at_line_1(tmp_path):
    with pytest.raises(hooke.ModelError) as caught:
        hooke.load(tmp_path / "absent.toml")
    assert (caught.value.line, caught.value.column) == (1, 1)


def test_a_rule_broken_in_code_names_the_field():
    model = hooke.Model(1)
    model.add_anchor("wall")
    with pytest.raises(hooke.ModelError) as caught:
        model.add_spring("wall", "nobody", 10.0)
    error = caught.value
    assert error.field == "b" and error.file is None and error.line is None
    assert "nobody" in error.found
    with pytest.raises(hooke.ModelError):
        hooke.Model(4)
    with pytest.raises(hooke.ModelError) as caught:
        model.simulate(scheme="leapfrog")
    assert "velocity-verlet" in caught.value.expected
    with pytest.raises(hooke.ModelError):
        model.simulate(rate=-1.0)


def test_an_unstable_run_raises_with_its_step_and_keeps_the_rows():
    # Symplectic Euler is stable while w0 h <= 2; here w0 h = 10.
    model = hooke.Model(1)
    model.add_anchor("wall")
    model.add_mass("bob", 1.0, position=[1.0])
    model.add_spring("wall", "bob", 1e6)
    sim = model.simulate(scheme="symplectic-euler", dt=1e-2)
    with pytest.raises(hooke.InstabilityError) as caught:
        sim.run(steps=10_000)
    error = caught.value
    assert isinstance(error, hooke.HookeError)
    assert error.mass == "bob" and error.quantity in ("position", "velocity")
    assert 100 < error.step < 10_000 and math.isclose(error.time, error.step * 1e-2, rel_tol=1e-12)
    partial = error.partial
    # Every state before the failing step: steps 0 .. step - 1.
    assert len(partial) == error.step and partial.steps[-1] == error.step - 1
    assert np.isfinite(partial.positions).all()
    assert abs(partial.position("bob")[-1]) > 1e100


def test_an_unstable_render_keeps_the_frames_before():
    model = hooke.Model(1)
    model.add_anchor("wall")
    model.add_mass("bob", 1.0, position=[1.0])
    model.add_spring("wall", "bob", 1e6)
    sim = model.simulate(dt=1e-2, kernels=False)
    with pytest.raises(hooke.InstabilityError) as caught:
        sim.render(10_000, dtype="float64")
    frames = caught.value.partial
    assert frames.shape == (1, 10_000)
    assert np.isfinite(frames).all() and not frames[0, caught.value.step :].any()


def test_an_event_for_an_unknown_mass_is_refused():
    sim = hooke.Model.string(4, mass=1e-3, stiffness=1e3).simulate()
    with pytest.raises(hooke.ModelError):
        sim.pluck("s.9", 1.0)
    with pytest.raises(hooke.ModelError):
        sim.set_mass("s.0", 1.0)  # an anchor
    with pytest.raises(hooke.ModelError):
        sim.set_mass("s.1", -1.0)
