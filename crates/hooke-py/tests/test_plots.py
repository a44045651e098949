"""Every kind of plot draws what it is given (matplotlib is optional)."""

import numpy as np
import pytest

import hooke

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from hooke import plot  # noqa: E402


@pytest.fixture(scope="module")
def run1d():
    return hooke.Model.string(8, mass=1e-3, stiffness=1e4, pluck=(0.5, 1e-3)).simulate(rate=8000).run(steps=200)


def test_time_phase_energy(run1d):
    assert len(plot.time(run1d).lines) == 8
    line = plot.phase(run1d, masses=["s.4"]).lines[0]
    assert np.array_equal(line.get_xdata(), run1d.position("s.4"))
    assert len(plot.energy(run1d).lines) == 3
    assert plot.energy(run1d, relative=True).lines[0].get_ydata()[0] == 0.0


def test_trajectory_needs_two_dimensions(run1d):
    with pytest.raises(ValueError):
        plot.trajectory(run1d)
    model = hooke.Model(2)
    model.add_anchor("pivot", position=[0.0, 0.0])
    model.add_mass("bob", 1.0, position=[1.0, 0.0])
    model.add_spring("pivot", "bob", 1e3)
    model.set_gravity([0.0, -9.81])
    run = model.simulate(rate=1000).run(steps=100)
    assert len(run.plot("trajectory").lines) == 1


def test_poles_warping_spectrum():
    analysis = hooke.Model.string(5, mass=1.0, stiffness=1e6).analyze("symplectic-euler", rate=6000)
    ax = plot.poles([analysis, hooke.Model.string(5, mass=1.0, stiffness=1e6).analyze("rk4", rate=6000)])
    assert len(ax.collections) == 2
    assert len(plot.warping(["symplectic-euler", "rk4"]).lines) == 4  # 2 schemes, no-warping line, pi
    rate = 8000
    tone = np.sin(2 * np.pi * 1000 * np.arange(rate) / rate)
    line = plot.spectrum(tone, rate).lines[0]
    assert abs(line.get_xdata()[np.argmax(line.get_ydata())] - 1000) < 1.5


def test_notebook_display():
    model = hooke.Model.string(5, mass=1.0, stiffness=1e6)
    page = model._repr_html_()
    assert "<table>" in page and "s.1" in page
    analysis_page = model.analyze(rate=6000)._repr_html_()
    assert analysis_page.count("<tr>") == 6 and "largest stable step" in analysis_page
    pytest.importorskip("IPython")
    player = hooke.audio(np.sin(np.arange(100.0))[None, :], 44100)
    assert "audio" in player._repr_html_()
