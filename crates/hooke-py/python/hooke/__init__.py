"""Hooke in Python: networks of masses, springs, dampers and contacts, simulated with known
accuracy by thirteen integrators, an analysis that says before a run what each scheme does to
each mode, and instruments played from scores. Numpy in and out; SI units throughout.

>>> import hooke
>>> model = hooke.Model.string(20, tension=100.0, length=1.0, linear_density=1e-3, pluck=(0.3, 1e-3))
>>> sim = model.simulate(scheme="velocity-verlet", rate=44100, pickups=["s.5"])
>>> run = sim.run(seconds=0.01)
>>> run.positions.shape
(442, 20, 1)
>>> model.analyze("velocity-verlet", rate=44100).is_stable
True
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _hooke
from ._hooke import HookeError, InstabilityError, ModelError, Performance, Simulation, schemes, warping_curve
from ._fit import Fit, fit
from ._model import Model, StringDesign, design_string, load
from ._results import Analysis, Trajectory
from .display import audio
from .sweeps import sweep

__version__ = _hooke.__version__


def perform(
    instrument: str,
    score: str,
    *,
    rate: Optional[float] = None,
    oversample: Optional[int] = None,
    scheme: Optional[str] = None,
    threads: int = 1,
    kernels: bool = True,
) -> Performance:
    """The instrument file ``instrument`` playing the score file ``score``, ready to render in
    blocks (``Performance.render(frames)``): built for ``scheme`` at ``rate`` Hz output,
    simulated at ``oversample`` times that rate (default: the smallest the analysis finds
    stable)."""
    return Performance(
        str(instrument), str(score), rate=rate, oversample=oversample, scheme=scheme, threads=threads, kernels=kernels
    )


def render(instrument: str, score: str, **options) -> np.ndarray:
    """Renders the score file ``score`` on the instrument file ``instrument`` (as ``hooke
    render``, without writing a file): float64 of shape (channels, frames) at the instrument's
    output rate (``perform(...).rate``), in metres, not normalised. Options as for
    ``perform``."""
    return perform(instrument, score, **options).render_all()


__all__ = [
    "Analysis",
    "Fit",
    "HookeError",
    "InstabilityError",
    "Model",
    "ModelError",
    "Performance",
    "Simulation",
    "StringDesign",
    "Trajectory",
    "audio",
    "design_string",
    "fit",
    "load",
    "perform",
    "render",
    "schemes",
    "sweep",
    "warping_curve",
]
