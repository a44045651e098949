"""Plots with matplotlib (an optional dependency), one per kind the CLI draws: trajectory, time,
phase, energy, poles, warping and spectrum. Each draws on ``ax`` (a new figure's when None) and
returns the Axes."""

from __future__ import annotations

from typing import Iterable, Optional, Sequence, Union

import numpy as np

from . import _hooke


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(7, 4))[1]


def _masses(run, masses: Optional[Sequence[str]], limit: int = 8):
    return list(masses) if masses is not None else run.mass_ids[:limit]


def time(run, masses: Optional[Sequence[str]] = None, quantity: str = "position", axis: int = 0, ax=None):
    """Positions (m) or velocities (m/s) of ``masses`` (default: the first eight) along ``axis``
    against time (s)."""
    ax = _axes(ax)
    values = run.positions if quantity == "position" else run.velocities
    for mass in _masses(run, masses):
        ax.plot(run.times, values[:, run.mass_ids.index(mass), axis], label=mass)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("position (m)" if quantity == "position" else "velocity (m/s)")
    ax.set_title(f"{run.scheme}, dt = {run.dt:.3g} s")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def phase(run, masses: Optional[Sequence[str]] = None, axis: int = 0, ax=None):
    """Velocity (m/s) against position (m) of ``masses`` along ``axis``: the phase portrait."""
    ax = _axes(ax)
    for mass in _masses(run, masses, limit=1):
        m = run.mass_ids.index(mass)
        ax.plot(run.positions[:, m, axis], run.velocities[:, m, axis], label=mass, linewidth=0.8)
    ax.set_xlabel("position (m)")
    ax.set_ylabel("velocity (m/s)")
    ax.set_title(f"phase portrait, {run.scheme}")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def trajectory(run, masses: Optional[Sequence[str]] = None, ax=None):
    """The paths of ``masses`` in the x-y plane (2D and 3D models), m."""
    if run.dimension < 2:
        raise ValueError("a trajectory plot needs a 2D or 3D model; use time() or phase() in 1D")
    ax = _axes(ax)
    for mass in _masses(run, masses):
        m = run.mass_ids.index(mass)
        ax.plot(run.positions[:, m, 0], run.positions[:, m, 1], label=mass, linewidth=0.8)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(f"trajectories, {run.scheme}")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def energy(run, relative: bool = False, ax=None):
    """Kinetic, potential and total energy (J) against time (s); with ``relative`` the drift
    (E - E0) / |E0| of the total."""
    if run.energy is None:
        raise ValueError("the run has no energies: run it with energy=True")
    ax = _axes(ax)
    if relative:
        e0 = run.energy[0]
        ax.plot(run.times, (run.energy - e0) / (abs(e0) or 1.0), label="(E - E0) / |E0|")
        ax.set_ylabel("relative drift")
    else:
        ax.plot(run.times, run.kinetic, label="kinetic")
        ax.plot(run.times, run.potential, label="potential")
        ax.plot(run.times, run.energy, label="total", color="black")
        ax.set_ylabel("energy (J)")
    ax.set_xlabel("time (s)")
    ax.set_title(f"energy, {run.scheme}")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def poles(analyses, ax=None):
    """The discrete poles of one analysis or several (one colour each) in the z-plane, with the
    unit circle: outside it a mode grows."""
    ax = _axes(ax)
    theta = np.linspace(0, 2 * np.pi, 512)
    ax.plot(np.cos(theta), np.sin(theta), color="grey", linewidth=0.8, linestyle="--")
    for analysis in analyses if isinstance(analyses, (list, tuple)) else [analyses]:
        z = analysis.z
        ax.scatter(np.concatenate([z.real, z.real]), np.concatenate([z.imag, -z.imag]), s=14, label=analysis.scheme)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("Re z")
    ax.set_ylabel("Im z")
    ax.set_title("discrete poles")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def warping(
    schemes: Union[str, Iterable[str]] = ("symplectic-euler", "velocity-verlet", "rk4"),
    gamma_h: float = 0.0,
    omega0_h_max: float = 3.0,
    ax=None,
):
    """The digital frequency omega_d h each scheme plays against the analog w0 h (rad/sample),
    with damping ``gamma_h`` (Morgan & Qiao 2009, figs. 10-11)."""
    ax = _axes(ax)
    for scheme in [schemes] if isinstance(schemes, str) else schemes:
        curve = _hooke.warping_curve(scheme, gamma_h, omega0_h_max)
        ax.plot(curve["omega0_h"], curve["omega_d_h"], label=scheme)
    ax.plot([0, omega0_h_max], [0, omega0_h_max], color="grey", linestyle="--", linewidth=0.8, label="no warping")
    ax.axhline(np.pi, color="black", linestyle=":", linewidth=0.8)
    ax.set_xlabel("analog w0 h (rad/sample)")
    ax.set_ylabel("digital w_d h (rad/sample)")
    ax.set_title(f"frequency warping, gamma h = {gamma_h:g}")
    ax.legend(loc="upper left", fontsize="small")
    return ax


def spectrum(samples: np.ndarray, rate: float, channel: int = 0, ax=None):
    """The magnitude spectrum (dB re the peak) of ``samples`` (shape (frames,) or (channels,
    frames)) at ``rate`` Hz, Hann-windowed."""
    data = np.asarray(samples, dtype=np.float64)
    if data.ndim == 2:
        data = data[channel]
    magnitude = np.abs(np.fft.rfft(data * np.hanning(len(data))))
    db = 20 * np.log10(np.maximum(magnitude / (magnitude.max() or 1.0), 1e-12))
    ax = _axes(ax)
    ax.plot(np.fft.rfftfreq(len(data), 1.0 / rate), db, linewidth=0.8)
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("magnitude (dB re peak)")
    ax.set_ylim(-120, 5)
    ax.set_title("spectrum")
    return ax
