"""A property of the whole Python API: random arguments, hostile ones among them (NaN, infinities,
negative and enormous counts, values of the wrong type, unknown ids), given to the public calls.
Every call either returns a sane result or raises a Python exception (ValueError, TypeError,
OverflowError, hooke.HookeError) whose message names one of the arguments it was given; never a
crash, an abort, a hang or an allocation the machine cannot make. A run that becomes unstable
(extreme but finite values) raises hooke.InstabilityError, which is an answer too."""

import math
import re

import numpy as np
import pytest

hypothesis = pytest.importorskip(
    "hypothesis", reason="the property test needs hypothesis (pip install hypothesis; scripts/test-python.sh tries to)"
)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import hooke  # noqa: E402

# Values that break rules, and counts past every limit (2^40 steps, 4 GiB of output, 2^64).
HOSTILE_FLOATS = [math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 1e300, -1e300, 5e-324, 1e12]
HOSTILE_COUNTS = [-1, 0, 2**40, 2**40 + 1, 2**63, 2**64 - 1, 2**64, 2**100]
WRONG_TYPES = [None, "x", [1.0], {"a": 1}, b"\x00", 1j]
MASS_IDS = ["s.1", "s.4", "s.0", "s.9", "", "x" * 1000]
SCHEMES = ["symplectic-euler", "velocity-verlet", "rk4", "leapfrog", ""]


def numbers(low=-10.0, high=10.0):
    """A hostile float, a float in [low, high], or a value of the wrong type."""
    return st.one_of(
        st.sampled_from(HOSTILE_FLOATS),
        st.floats(low, high, allow_nan=False),
        st.sampled_from(WRONG_TYPES),
    )


def counts(high=512):
    """A hostile count, a count up to `high`, or a value of the wrong type."""
    return st.one_of(st.sampled_from(HOSTILE_COUNTS), st.integers(0, high), st.sampled_from(WRONG_TYPES))


def optional(strategy):
    return st.one_of(st.none(), strategy)


def small_string(masses=4):
    """`masses` masses between anchors s.0 and s.N+1: one channel, 44.1 kHz."""
    return hooke.Model.string(masses, mass=1e-3, stiffness=1e3)


def names_an_argument(message, arguments):
    return any(re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", message) for name in arguments)


def answer(call, name, parameters, arguments):
    """What `call()` (`name` with `arguments`) returns, or None when it raised an accepted
    exception that names one of the call's `parameters` (an instability needs not name one).
    Any other exception propagates. The message is what a traceback shows: the exception and
    its notes (PyO3 notes "while processing 'steps'" on an argument it could not convert)."""
    try:
        return call()
    except hooke.InstabilityError:
        return None
    except (ValueError, TypeError, OverflowError, hooke.HookeError) as error:
        message = "\n".join([str(error), *getattr(error, "__notes__", [])])
        assert names_an_argument(message, parameters), (
            f"{name}(**{arguments!r}) raised {type(error).__name__}: {message!r}, naming none of its arguments"
        )
        return None


# The calls on a simulation of `small_string()`: the keyword arguments each may take.
SIMULATION_CALLS = {
    # `every` past 512 but legal (up to 2^64 - 1) would make steps=2^40 a legal run of hours
    # (Ctrl-C stops it): only the illegal ones are drawn beyond 512.
    "run": dict(
        seconds=numbers(-0.01, 0.01), steps=counts(),
        every=st.one_of(st.sampled_from([-1, 0, 2**64, 2**100, *WRONG_TYPES]), st.integers(1, 512)),
        energy=st.booleans(),
    ),
    "render": dict(frames=counts(), dtype=st.sampled_from(["float32", "float64", "int8", 5])),
    "advance": dict(steps=counts()),
    "pluck": dict(mass=st.sampled_from(MASS_IDS), peak=numbers(), duration=numbers(), axis=counts(3), at=optional(numbers())),
    "strike": dict(
        mass=st.sampled_from(MASS_IDS), velocity=numbers(), hammer_mass=numbers(), stiffness=numbers(0, 1e9),
        exponent=numbers(0, 4), axis=counts(3), at=optional(numbers()),
    ),
    "bow": dict(
        mass=st.sampled_from(MASS_IDS), velocity=numbers(), force=numbers(), duration=numbers(),
        sharpness=numbers(), axis=counts(3), at=optional(numbers()),
    ),
    "set_motion": dict(mass=st.sampled_from(MASS_IDS), position=numbers(), velocity=numbers(), axis=counts(3), at=optional(numbers())),
    "set_mass": dict(mass=st.sampled_from(MASS_IDS), kilograms=numbers(), at=optional(numbers())),
    "set_drag": dict(mass=st.sampled_from(MASS_IDS), drag=numbers(), at=optional(numbers())),
    "set_link": dict(
        a=st.sampled_from(MASS_IDS), b=st.sampled_from(MASS_IDS), stiffness=optional(numbers()),
        damping=optional(numbers()), at=optional(numbers()),
    ),
    "set_shape": dict(shape=st.dictionaries(st.sampled_from(MASS_IDS), numbers(), max_size=3), axis=counts(3)),
    "stop": dict(mass=st.sampled_from(MASS_IDS), stopped=st.booleans(), at=optional(numbers())),
}

PROPERTY = settings(max_examples=500, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def arguments_for(table):
    """A call's name and a draw of some of its keyword arguments."""
    return st.sampled_from(sorted(table)).flatmap(
        lambda name: st.tuples(st.just(name), st.fixed_dictionaries({}, optional=table[name]))
    )


@PROPERTY
@given(arguments_for(SIMULATION_CALLS))
def test_a_simulation_answers_any_arguments(drawn):
    name, arguments = drawn
    sim = small_string().simulate()
    result = answer(lambda: getattr(sim, name)(**arguments), name, SIMULATION_CALLS[name], arguments)
    if name == "render" and result is not None:
        assert result.shape == (1, arguments["frames"]) and result.dtype == np.dtype(arguments.get("dtype", "float32"))
    if name == "advance" and result is not None:
        assert result.shape[0] == 1 and result.shape[1] <= arguments.get("steps", 0) + 1
    if name == "run" and result is not None:
        assert len(result) >= 1 and np.isfinite(result.positions).all()
    # Whatever was refused, the simulation still answers (or was made unstable by what it took).
    assert sim.sample().shape == (1,)
    try:
        assert sim.render(8).shape == (1, 8)
    except hooke.InstabilityError:
        pass


MODULE_CALLS = {
    "warping_curve": dict(scheme=st.sampled_from(SCHEMES), gamma_h=numbers(), omega0_h_max=numbers(), samples=counts()),
    "design_string": dict(
        masses=counts(64), frequency_hz=numbers(0, 2000), time_constant=optional(numbers()), mass=numbers(),
        scheme=st.sampled_from(SCHEMES), dt=optional(numbers(0, 1e-3)), rate=optional(numbers(0, 1e5)),
    ),
}

MODEL_CALLS = {
    "string": dict(masses=counts(64), mass=optional(numbers()), stiffness=optional(numbers()), damping=optional(numbers())),
    "simulate": dict(
        scheme=st.sampled_from(SCHEMES), rate=optional(numbers(0, 1e5)), dt=optional(numbers(0, 1e-3)),
        oversample=counts(4), threads=counts(4), kernels=st.booleans(),
    ),
    # No step above 1e100 s (dt = 1e300, rate = 1e-242): the library's analysis then refuses a
    # link's stiffness (k h^2 overflows), naming the link rather than `dt` (reported, issue 35).
    "analyze": dict(
        scheme=st.sampled_from(SCHEMES),
        rate=optional(numbers(0, 1e5).filter(lambda value: not (isinstance(value, float) and 0 < value < 1e-100))),
        dt=optional(numbers(0, 1e-3).filter(lambda value: not (isinstance(value, float) and 1e100 < value < math.inf))),
    ),
    "add_body": dict(
        id=st.sampled_from(["body", "", 5]),
        modes=st.one_of(
            st.lists(st.tuples(numbers(0, 500), numbers(0, 1), numbers(0, 1)), max_size=3),
            st.lists(st.fixed_dictionaries({"frequency": numbers(0, 500), "decay_time": numbers(0, 1), "mass": numbers(0, 1)}), max_size=3),
            st.sampled_from(WRONG_TYPES),
        ),
    ),
}


@PROPERTY
@given(arguments_for(MODULE_CALLS))
def test_the_module_functions_answer_any_arguments(drawn):
    name, arguments = drawn
    result = answer(lambda: getattr(hooke, name)(**arguments), name, MODULE_CALLS[name], arguments)
    if name == "warping_curve" and result is not None:
        assert len(result["omega0_h"]) == arguments.get("samples", 301)
        assert np.isfinite(result["omega0_h"]).all() and np.isfinite(result["omega_d_h"]).all()
    if name == "design_string" and result is not None:
        assert math.isfinite(result.stiffness) and result.stiffness > 0


@PROPERTY
@given(arguments_for(MODEL_CALLS))
def test_a_model_answers_any_arguments(drawn):
    name, arguments = drawn
    if name == "string":
        result = answer(lambda: hooke.Model.string(**arguments), name, MODEL_CALLS[name], arguments)
    else:
        model = hooke.Model(1) if name == "add_body" else small_string()
        result = answer(lambda: getattr(model, name)(**arguments), name, MODEL_CALLS[name], arguments)
    if name == "analyze" and result is not None:
        assert len(result.frequency_hz) == 4
    if name == "simulate" and result is not None:
        assert result.step == 0 and result.sample().shape == (1,)


@settings(PROPERTY, max_examples=40)
@given(frames=counts(4096), more=counts(4096))
def test_a_performance_answers_any_frame_count(examples, frames, more):
    folder = examples / "instruments"
    performance = hooke.perform(folder / "pendulum.toml", folder / "pendulum-score.toml")
    for count in (frames, more):
        result = answer(lambda: performance.render(count), "render", ["frames"], dict(frames=count))
        if result is not None:
            assert result.shape[0] == 2 and result.shape[1] <= count + 1
    assert performance.step <= performance.total_steps
