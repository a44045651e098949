"""Models built in code, runs, frames and events: shapes, dtypes, units, and agreement between
the ways of asking the engine for the same thing."""

import math
import pickle

import numpy as np
import pytest

import hooke


def oscillator(stiffness=400.0, mass=0.01, damping=0.0):
    model = hooke.Model(1)
    model.add_anchor("wall")
    model.add_mass("bob", mass, position=[1e-3])
    model.add_spring("wall", "bob", stiffness, damping=damping)
    return model


def plucked_string(masses=20):
    return hooke.Model.string(masses, length=1.0, tension=100.0, linear_density=1e-3, pluck=(0.3, 1e-3))


def test_a_run_has_one_row_per_step_with_its_units():
    sim = plucked_string().simulate(scheme="velocity-verlet", rate=44100, pickups=["s.5", {"mass": "s.6", "quantity": "velocity", "channel": 2}])
    run = sim.run(seconds=0.01)
    rows = 441 + 1
    assert run.times.shape == (rows,) and run.times.dtype == np.float64
    assert run.steps.dtype == np.uint64 and run.steps[-1] == 441
    assert run.positions.shape == run.velocities.shape == (rows, 20, 1)
    assert run.pickups.shape == (2, rows)
    assert run.energy.shape == run.kinetic.shape == run.potential.shape == (rows,)
    assert math.isclose(run.times[-1], 0.01, rel_tol=1e-12)
    # The pickups are the named quantities, exactly.
    assert np.array_equal(run.pickups[0], run.position("s.5"))
    assert np.array_equal(run.pickups[1], run.velocity("s.6"))
    # Energy: the pluck's elastic energy at rest, kept by velocity Verlet to a small drift.
    assert run.kinetic[0] == 0.0
    assert abs(run.energy[-1] - run.energy[0]) < 1e-3 * run.energy[0]


def test_runs_continue_where_the_last_stopped():
    model = plucked_string()
    whole = model.simulate(rate=48000).run(steps=200)
    sim = model.simulate(rate=48000)
    first, second = sim.run(steps=120), sim.run(steps=80)
    assert (len(first), len(second)) == (121, 80)
    assert np.array_equal(np.concatenate([first.positions, second.positions]), whole.positions)


def test_every_keeps_one_row_in_k_and_the_last():
    run = plucked_string().simulate().run(steps=100, every=30, energy=False)
    assert list(run.steps) == [0, 30, 60, 90, 100]
    assert run.energy is None


def test_render_in_blocks_equals_one_block_in_both_dtypes():
    model = plucked_string()
    whole = model.simulate(rate=44100, pickups=["s.5"]).render(1000, dtype="float64")
    sim = model.simulate(rate=44100, pickups=["s.5"])
    blocks = [sim.render(n, dtype="float64") for n in (1, 255, 744)]
    assert whole.shape == (1, 1000) and whole.dtype == np.float64
    assert np.array_equal(np.concatenate(blocks, axis=1), whole)
    single = model.simulate(rate=44100, pickups=["s.5"]).render(1000)
    assert single.dtype == np.float32 and np.array_equal(single, whole.astype(np.float32))
    # The frames are the run's samples after each step (no oversampling), on whichever path.
    run = model.simulate(rate=44100, pickups=["s.5"]).run(steps=1000)
    assert np.allclose(whole[0], run.pickups[0, 1:], rtol=0, atol=1e-15)


def test_oversampled_frames_come_at_the_output_rate():
    sim = plucked_string().simulate(rate=88200, oversample=2, pickups=["s.5"])
    assert sim.output_rate == 44100
    frames = sim.render(441)
    assert frames.shape == (1, 441) and sim.step >= 882


def test_events_change_the_system_between_blocks():
    def hz(k, m, z):  # the damped oscillator's frequency, Hz
        return math.sqrt(k / m - (z / (2 * m)) ** 2) / (2 * math.pi)

    sim = oscillator(damping=0.01).simulate(rate=48000)
    assert math.isclose(sim.analyze().frequency_hz[0], hz(400.0, 0.01, 0.01), rel_tol=1e-12)
    sim.render(64)
    sim.set_link("wall", "bob", stiffness=1600.0)
    assert math.isclose(sim.analyze().frequency_hz[0], hz(1600.0, 0.01, 0.01), rel_tol=1e-12)
    sim.set_mass("bob", 0.04)
    assert math.isclose(sim.analyze().frequency_hz[0], hz(1600.0, 0.04, 0.01), rel_tol=1e-12)
    sim.set_link("wall", "bob", damping=0.08)
    assert math.isclose(sim.analyze().decay_rate[0], -1.0, rel_tol=1e-12)  # -Z / 2m
    undamped = oscillator().simulate()
    with pytest.raises(hooke.ModelError):
        undamped.set_link("wall", "bob", damping=0.1)


def test_a_pluck_sets_a_resting_string_going():
    model = hooke.Model.string(10, mass=1e-3, stiffness=2e5)
    sim = model.simulate(rate=44100, pickups=["s.3"])
    assert not sim.render(100).any()
    sim.pluck("s.3", 0.1, duration=1e-3)
    assert np.abs(sim.render(100)).max() > 0
    sim.set_shape({"s.3": 1e-3, "s.4": 2e-3})
    # To rounding: on the modal kernel the state is kept mode by mode.
    np.testing.assert_allclose(sim.state()["positions"][2:4, 0], [1e-3, 2e-3], rtol=1e-12, atol=0)
    sim.stop("s.3")
    sim.render(10)
    assert sim.state()["velocities"][2, 0] == 0.0


def test_an_event_at_a_time_waits_for_its_step():
    sim = hooke.Model.string(10, mass=1e-3, stiffness=2e5).simulate(rate=1000, pickups=["s.3"])
    sim.set_motion("s.3", 1e-3, at=0.05)
    frames = sim.render(100)[0]
    assert not frames[:49].any() and frames[50] != 0.0


def test_models_pickle_by_replaying_their_construction():
    model = plucked_string()
    model.add_pickup("s.2", weight=2.0)
    copy = pickle.loads(pickle.dumps(model))
    assert copy.mass_ids == model.mass_ids and copy.links == model.links
    a = model.simulate().render(50, dtype="float64")
    b = copy.simulate().render(50, dtype="float64")
    assert np.array_equal(a, b)


def test_a_2d_model_with_gravity_falls():
    model = hooke.Model(2)
    model.set_gravity([0.0, -9.81])
    model.add_mass("ball", 1.0, position=[0.0, 10.0])
    run = model.simulate(scheme="velocity-verlet", rate=1000).run(seconds=1.0)
    assert run.positions.shape == (1001, 1, 2)
    assert math.isclose(run.position("ball", 1)[-1], 10.0 - 9.81 / 2, rel_tol=1e-9)


def test_generators_chains_contacts_and_forces():
    model = hooke.Model.membrane(4, 3, mass=1e-3, stiffness=1e3)
    assert len(model.mass_ids) == 12 and model.counts["anchors"] > 0
    chain = hooke.Model(2)
    chain.add_anchor("top", position=[0.0, 0.0])
    masses = chain.add_chain("c", "top", 3, 0.5, [0.0, -1.0], 0.1, 1e3)
    chain.add_barrier("c.*", [0.0, -10.0], [0.0, 1.0], 1e6)
    chain.add_force(masses[-1], sinusoids=[(1.0, 5.0)], axis=0)
    assert masses == ["c.1", "c.2", "c.3"] and chain.counts["barriers"] == 1 and chain.counts["forces"] == 1
    assert len(chain.simulate(scheme="rk4", rate=1000).run(steps=10)) == 11


def test_schemes_are_listed_with_their_orders():
    names = [s["name"] for s in hooke.schemes()]
    assert len(names) == 13 and "velocity-verlet" in names
    rk4 = next(s for s in hooke.schemes() if s["name"] == "rk4")
    assert rk4["order"] == 4 and rk4["explicit"]


def test_warping_curve_of_symplectic_euler_is_the_closed_form():
    curve = hooke.warping_curve("symplectic-euler", 0.0, 1.9, 20)
    # Undamped symplectic Euler: cos(w_d h) = 1 - (w0 h)^2 / 2.
    assert np.allclose(np.cos(curve["omega_d_h"]), 1 - curve["omega0_h"] ** 2 / 2, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_render_refuses_an_unknown_dtype_only(dtype):
    sim = plucked_string().simulate()
    if dtype == "float32":
        assert sim.render(4, dtype=dtype).dtype == np.float32
    else:
        with pytest.raises(hooke.ModelError):
            sim.render(4, dtype=dtype)


def test_without_pickups_one_channel_sums_the_masses():
    model = hooke.Model.string(3, mass=1e-3, stiffness=1e3, pluck=(0.5, 1e-3))
    run = model.simulate().run(steps=20)
    assert run.pickups.shape == (1, 21)
    assert np.allclose(run.pickups[0], run.positions[:, :, 0].sum(axis=1), rtol=1e-15, atol=0)


def test_a_stiff_string_has_the_modes_of_the_stiff_lattice():
    # The lattice of N masses m, springs k and (1, -2, 1) bending kappa = B k (N + 1)^2 / pi^2
    # centred at each mass (pinned ends): w_n^2 = (k lambda_n + kappa lambda_n^2) / m with
    # lambda_n = 4 sin^2(n pi / (2 (N + 1))), the stiff string's dispersion.
    masses, m, k, b = 40, 1e-4, 500.0, 1e-3
    stiff = hooke.Model.string(masses, mass=m, stiffness=k, inharmonicity=b)
    kappa = b * k * (masses + 1) ** 2 / math.pi**2
    found = stiff.analyze(rate=48000.0).frequency_hz
    for n in range(1, 6):
        lam = 4.0 * math.sin(n * math.pi / (2 * (masses + 1))) ** 2
        expected = math.sqrt((k * lam + kappa * lam**2) / m) / (2 * math.pi)
        assert math.isclose(found[n - 1], expected, rel_tol=1e-9), (n, found[n - 1], expected)
    # The same elements added one by one.
    by_hand = hooke.Model.string(masses, mass=m, stiffness=k)
    for i in range(1, masses + 1):
        by_hand.add_bending([f"s.{i - 1}", f"s.{i}", f"s.{i + 1}"], kappa)
    assert np.allclose(by_hand.analyze(rate=48000.0).frequency_hz[:5], found[:5], rtol=1e-12)
    assert pickle.loads(pickle.dumps(by_hand)).analyze(rate=48000.0).frequency_hz[0] == found[0]
    with pytest.raises(hooke.ModelError, match="sum to 0"):
        by_hand.add_bending(["s.1", "s.2", "s.3"], 1.0, weights=[1.0, -1.0, 1.0])


def test_a_bending_elements_damping_damps_its_curvature():
    # One mass between two anchors and a (1, -2, 1) element: m x'' = -4 kappa x - 4 c x', a damped
    # oscillator decaying at 2 c / m and ringing at sqrt(4 kappa / m - (2 c / m)^2).
    m, kappa, c = 0.01, 1000.0, 0.005
    model = hooke.Model(1)
    model.add_anchor("a")
    model.add_mass("b", m)
    model.add_anchor("c")
    model.add_bending(["a", "b", "c"], kappa, damping=c)
    found = model.analyze(rate=48000.0)
    rate = 2 * c / m
    assert math.isclose(found.decay_rate[0], -rate, rel_tol=1e-9), found.decay_rate
    ringing = math.sqrt(4 * kappa / m - rate**2) / (2 * math.pi)
    assert math.isclose(found.frequency_hz[0], ringing, rel_tol=1e-9), found.frequency_hz
    with pytest.raises(hooke.ModelError, match="damping"):
        model.add_bending(["a", "b", "c"], kappa, damping=-1.0)


def test_an_angular_spring_swings_a_mass_about_its_vertex_at_the_torsional_frequency():
    # Vertex anchor b, anchor a on the x axis, mass c at r on a radial spring K: to first order
    # the angle and the radius decouple, omega^2 = k / (m r^2) and K / m.
    k, m, r, stiff = 0.5, 0.02, 0.25, 200.0
    model = hooke.Model(2)
    model.add_anchor("a", position=[1.0, 0.0])
    model.add_anchor("b", position=[0.0, 0.0])
    model.add_mass("c", m, position=[0.0, r])
    model.add_spring("b", "c", stiff)
    model.add_angle(["a", "b", "c"], k, rest_angle=math.pi / 2)
    expected = sorted([math.sqrt(k / (m * r * r)), math.sqrt(stiff / m)])
    found = sorted(model.analyze(rate=2000.0).frequency_hz)
    for f, omega in zip(found, expected):
        assert math.isclose(f, omega / (2 * math.pi), rel_tol=1e-9), (f, omega)
    assert pickle.loads(pickle.dumps(model)).analyze(rate=2000.0).frequency_hz[0] == found[0]
    with pytest.raises(hooke.ModelError, match="distinct nodes"):
        model.add_angle(["a", "b", "a"], k)
    with pytest.raises(hooke.ModelError, match="2D or 3D"):
        line = hooke.Model(1)
        for name in "abc":
            line.add_mass(name, 1.0)
        line.add_angle(["a", "b", "c"], k)


def test_plates_bars_and_bodies_are_added_with_their_file_fields():
    # A simply supported plate: masses rho h s^2, five-point bending D / s^2, so mode (p, q) is
    # w = sqrt(D / (rho h)) mu_pq / s^2 with mu_pq = 4 sin^2(p pi / 2(C+1)) + 4 sin^2(q pi / 2(R+1)).
    columns, rows, spacing, density, rigidity = 6, 4, 0.02, 31.4, 1172.0
    plate = hooke.Model(1)
    masses = plate.add_plate("p", columns, rows, spacing=spacing, surface_density=density, rigidity=rigidity)
    assert len(masses) == columns * rows and masses[:2] == ["p.1.1", "p.2.1"]
    mu = sorted(
        4 * math.sin(p * math.pi / (2 * (columns + 1))) ** 2 + 4 * math.sin(q * math.pi / (2 * (rows + 1))) ** 2
        for p in range(1, columns + 1)
        for q in range(1, rows + 1)
    )
    found = plate.analyze(rate=1e6).frequency_hz
    for k in range(3):
        expected = math.sqrt(rigidity / density) * mu[k] / spacing**2 / (2 * math.pi)
        assert math.isclose(found[k], expected, rel_tol=1e-9), (k, found[k], expected)
    assert pickle.loads(pickle.dumps(plate)).analyze(rate=1e6).frequency_hz[0] == found[0]
    # A bar and a body read the fields of [[bar]] and [[body]], errors included.
    bar = hooke.Model(1)
    ids = bar.add_bar("b", 12, length=0.3, linear_density=0.9, rigidity=600.0)
    assert ids == [f"b.{i}" for i in range(1, 13)] and math.isclose(sum(bar.masses), 0.27, rel_tol=1e-12)
    with pytest.raises(TypeError, match="unknown field"):
        bar.add_bar("c", 12, length=0.3, linear_density=0.9, rigidity=600.0, colour="red")
    with pytest.raises(hooke.ModelError, match="undercut_ratio"):
        bar.add_bar("d", 12, length=0.3, linear_density=0.9, rigidity=600.0, undercut_ratio=20.0)
    body = hooke.Model(1)
    ids = body.add_body("body", [(100.0, 0.1, 0.2), (250.0, 0.05, 0.4)])
    assert ids[0] == "body.1" and len(ids) == 2
    modes = body.analyze(rate=1e6).frequency_hz
    assert math.isclose(modes[0], 100.0, rel_tol=1e-3) and math.isclose(modes[1], 250.0, rel_tol=1e-3), modes
