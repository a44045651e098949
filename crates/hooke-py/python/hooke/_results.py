"""What runs and analyses return: numpy arrays with their units, a pandas DataFrame on request
(pandas is optional), plots and notebook display."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np


def _frame(columns: Dict[str, Any]):
    try:
        import pandas
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install pandas") from error
    return pandas.DataFrame(columns)


@dataclass
class Trajectory:
    """The rows of a run: the start (on a simulation's first run), every ``every`` steps, and
    the end. Arrays are indexed by row first."""

    scheme: str
    """The scheme's name."""
    dt: float
    """The simulation step, s."""
    mass_ids: List[str]
    """The masses' ids, in the order of the second axis of ``positions`` and ``velocities``."""
    steps: np.ndarray
    """The step of each row, uint64, shape (rows,)."""
    times: np.ndarray
    """The time of each row, s, shape (rows,)."""
    positions: np.ndarray
    """Positions, m, shape (rows, masses, dimension) (1D: displacements)."""
    velocities: np.ndarray
    """Velocities, m/s, shape (rows, masses, dimension)."""
    pickups: np.ndarray
    """The pickups' channels at each row (m or m/s times their weights), shape (channels, rows)."""
    kinetic: Optional[np.ndarray] = None
    """Kinetic energy, J, shape (rows,), when run with energy=True."""
    potential: Optional[np.ndarray] = None
    """Potential energy (springs, gravity, contacts), J, shape (rows,)."""
    energy: Optional[np.ndarray] = None
    """Total energy, J, shape (rows,)."""

    def __len__(self) -> int:
        return len(self.times)

    @property
    def dimension(self) -> int:
        """Coordinates per position: 1, 2 or 3."""
        return self.positions.shape[2]

    def position(self, mass: str, axis: int = 0) -> np.ndarray:
        """The position of ``mass`` along ``axis`` at each row, m."""
        return self.positions[:, self.mass_ids.index(mass), axis]

    def velocity(self, mass: str, axis: int = 0) -> np.ndarray:
        """The velocity of ``mass`` along ``axis`` at each row, m/s."""
        return self.velocities[:, self.mass_ids.index(mass), axis]

    def to_pandas(self):
        """A DataFrame with the columns of ``hooke run --csv``: step, t, then per mass ``ID.x``
        (``ID.y``, ``ID.z``) and ``ID.vx`` (...), then kinetic, potential, total (J) when
        recorded."""
        axes = "xyz"[: self.dimension]
        columns: Dict[str, Any] = {"step": self.steps, "t": self.times}
        for m, mass in enumerate(self.mass_ids):
            for a, axis in enumerate(axes):
                columns[f"{mass}.{axis}"] = self.positions[:, m, a]
            for a, axis in enumerate(axes):
                columns[f"{mass}.v{axis}"] = self.velocities[:, m, a]
        if self.energy is not None:
            columns.update(kinetic=self.kinetic, potential=self.potential, total=self.energy)
        return _frame(columns)

    def plot(self, kind: str = "time", **options: Any):
        """Draws the run with matplotlib: ``kind`` is 'time', 'phase', 'trajectory' or 'energy'
        (see ``hooke.plot``). Returns the Axes."""
        from . import plot

        return getattr(plot, kind)(self, **options)

    def __repr__(self) -> str:
        return (
            f"<hooke.Trajectory: {len(self)} rows, {len(self.mass_ids)} masses in {self.dimension}D, "
            f"{self.scheme}, t = {self.times[0] if len(self) else 0:g}..{self.times[-1] if len(self) else 0:g} s>"
        )


# The per-mode columns of an Analysis, in table order, with their units.
_MODE_COLUMNS = {
    "index": "",
    "frequency_hz": "Hz",
    "decay_rate": "1/s",
    "digital_frequency_hz": "Hz",
    "digital_angular_frequency": "rad/s",
    "digital_decay_rate": "1/s",
    "time_constant": "s",
    "cents_error": "cents",
    "modulus": "",
    "region": "",
    "stable": "",
}


@dataclass
class Analysis:
    """What a scheme at a step does to each mode of a model (Morgan & Qiao 2009, sections 3-4):
    one array entry per mode, by increasing analog frequency."""

    scheme: str
    """The scheme's name."""
    dt: float
    """The step, s."""
    index: np.ndarray
    """1-based mode numbers."""
    pole: np.ndarray
    """The analog poles s = sigma + j mu, rad/s (complex)."""
    frequency_hz: np.ndarray
    """The analog frequencies mu / 2 pi, Hz."""
    decay_rate: np.ndarray
    """The analog decay rates sigma, 1/s (negative: decaying)."""
    z: np.ndarray
    """The dominant discrete poles (complex; Im z >= 0)."""
    modulus: np.ndarray
    """|z|: the factor by which each mode's amplitude changes per step."""
    digital_angular_frequency: np.ndarray
    """atan2(Im z, Re z) / h, rad/s (eq. 45 with the four-quadrant arctangent)."""
    digital_frequency_hz: np.ndarray
    """The frequency the scheme plays each mode at, Hz."""
    digital_decay_rate: np.ndarray
    """ln|z| / h, 1/s (eq. 63)."""
    time_constant: np.ndarray
    """-1 / digital decay rate: the time for the amplitude to fall by 1/e, s (inf: no decay)."""
    cents_error: np.ndarray
    """1200 log2(digital / analog frequency), cents (NaN where either is 0)."""
    stable: np.ndarray
    """Whether each discrete pole is inside the unit circle."""
    region: List[str]
    """Where each pole lies (fig. 12): 'complex', 'zero', 'nyquist' or 'unstable'."""
    shapes: np.ndarray
    """Mode shapes, complex, shape (modes, coordinates), largest component 1."""
    largest_stable_step: float
    """The largest stable step of this scheme on this model, s (inf: unconditionally stable, 0:
    none)."""
    stability: str
    """'up-to', 'unconditional' (checked up to ``checked_up_to`` s) or 'never'."""
    checked_up_to: float
    """For 'unconditional', the longest step checked, s."""
    lowest_stable_rate: float
    """1 / largest stable step, Hz (0: any rate)."""
    damping: str
    """'modal' or 'non-modal'."""
    complete: bool
    """Whether every mode is listed (False: the sparse path's lowest and highest)."""
    warnings: List[str] = field(default_factory=list)
    """What the reader should know (estimates, modes unstable in the model itself)."""

    def __len__(self) -> int:
        return len(self.index)

    @property
    def is_stable(self) -> bool:
        """Whether every mode is stable at this step."""
        return bool(np.all(self.stable))

    def to_dict(self) -> Dict[str, Any]:
        """The per-mode columns as a dict of arrays (the analog pole split into its real and
        imaginary parts)."""
        columns: Dict[str, Any] = {"mode": self.index, "sigma": self.pole.real, "mu": self.pole.imag}
        columns.update({name: getattr(self, name) for name in _MODE_COLUMNS if name != "index"})
        return columns

    def to_pandas(self):
        """One row per mode: mode, sigma and mu (rad/s), then the columns of ``to_dict``."""
        return _frame(self.to_dict()).set_index("mode")

    def plot(self, **options: Any):
        """The discrete poles in the z-plane with the unit circle (``hooke.plot.poles``)."""
        from . import plot

        return plot.poles(self, **options)

    def _repr_html_(self) -> str:
        from .display import analysis_html

        return analysis_html(self)

    def __repr__(self) -> str:
        verdict = "stable" if self.is_stable else "UNSTABLE"
        step = (
            "unconditionally stable"
            if self.stability == "unconditional"
            else f"largest stable step {self.largest_stable_step:.6g} s"
        )
        return f"<hooke.Analysis: {self.scheme} at dt = {self.dt:.6g} s, {len(self)} modes, {verdict}, {step}>"


def units() -> Dict[str, str]:
    """The unit of each per-mode column of an Analysis."""
    return dict(_MODE_COLUMNS)


__all__ = ["Trajectory", "Analysis", "units"]
