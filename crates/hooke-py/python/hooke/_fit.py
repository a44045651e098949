"""``hooke.fit``: an instrument from recordings of single notes (docs/fit.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _hooke


@dataclass
class Fit:
    """What ``hooke.fit`` found and designed."""

    instrument: str
    """The instrument file's text (``[guitar]``, one string per recording, ``[marimba]`` of one
    key for a bar, ``[bell]`` of one key for a bell, ``[plates]`` of one key for a plate);
    ``save`` writes it."""
    strings: List[Dict[str, Any]] = field(default_factory=list)
    """Per recording: ``name``, ``onset_s`` (s), ``fundamental_hz``, ``inharmonicity`` (B),
    ``constant_loss`` (1/s), ``linear_loss`` (1/s per Hz) and ``quadratic_loss`` (s) of the loss law, ``pluck_position``
    (from the nearer end, a fraction of the length), ``pluck_release`` (s, how long the pluck took to let go), and ``partials``: the
    table, each a dict of ``number``, ``frequency_hz``, ``decay_rate`` (1/s), ``t60`` (s),
    ``amplitude`` and ``beating_hz`` (None unless the partial beats)."""

    bar: Optional[Dict[str, Any]] = None
    """For a bar: ``name``, ``onset_s``, ``frequency_hz``, ``ratio``, ``decay`` and ``high_decay``
    (time constants, s, as measured), ``designed_high_decay`` (as the bar's dampers can give it)
    and ``modes`` (``frequency_hz``, ``decay_rate``, ``t60``, ``amplitude``)."""

    bell: Optional[Dict[str, Any]] = None
    """For a bell: ``name``, ``onset_s``, ``strike_hz``, ``decays_moved`` (the largest relative
    change its body made to a decay, 0 where none) and ``modes`` (``frequency_hz``,
    ``decay_rate``, ``t60``, ``amplitude``), lowest first."""

    plate: Optional[Dict[str, Any]] = None
    """For a plate: ``name``, ``onset_s``, ``frequency_hz`` (its first mode), ``columns`` and
    ``rows`` (its lattice), ``ratio_error_cents``, ``constant_loss`` (1/s), ``linear_loss`` (1/s
    per Hz), ``high_frequency`` (Hz) and ``modes``, lowest first."""

    def save(self, path: Union[str, Path]) -> Path:
        """Writes the instrument file to ``path`` and returns the path."""
        path = Path(path)
        path.write_text(self.instrument)
        return path

    def to_pandas(self, string: int = 0):
        """The partials of string ``string`` as a pandas DataFrame (pandas is optional)."""
        from ._results import _frame

        rows = self.strings[string]["partials"]
        return _frame({key: [row[key] for row in rows] for key in rows[0]} if rows else {})


def _mono(samples: Any) -> np.ndarray:
    array = np.asarray(samples, dtype=np.float64)
    if array.ndim == 2:
        # (channels, frames), as hooke.render returns: the channels' mean.
        array = array.mean(axis=0)
    if array.ndim != 1:
        raise ValueError(f"fit: expected samples of shape (frames,) or (channels, frames); found shape {array.shape}")
    return np.ascontiguousarray(array)


def fit(
    samples: Union[np.ndarray, Sequence[np.ndarray]],
    rate: float,
    *,
    kind: str = "string",
    note: Optional[Union[float, Sequence[Optional[float]]]] = None,
    scheme: str = "symplectic-euler",
    output_rate: Optional[float] = None,
) -> Fit:
    """Measures the note in ``samples`` (full scale 1; mono, or (channels, frames) averaged) at
    ``rate`` Hz and designs a string that sounds it with ``scheme`` (docs/fit.md). ``kind``:
    ``"string"`` (one recording), ``"guitar"`` (a list of recordings, one string each) or
    ``"bar"`` (one struck bar: its first two modes, as a marimba key), ``"bell"`` (one struck
    bell: every mode, as a bell of one key) or ``"plate"`` (one struck plate: its lattice and loss
    law, as bell plates of one key).
    ``note``: the fundamental expected, Hz (one per recording for a guitar), to search within 60
    cents of it; a bell's strike note (without it, half its loudest mode's frequency); a plate's
    first mode (without it, its lowest). Raises ValueError saying what it found for a recording it cannot fit (silence,
    clipping, more than one note, too short, a rate under 8 kHz)."""
    if kind == "string":
        recordings = [_mono(samples)]
        notes = [note]
    elif kind == "guitar":
        recordings = [_mono(s) for s in samples]
        notes = list(note) if note is not None else [None] * len(recordings)
    elif kind in ("bar", "bell", "plate"):
        result = _hooke.fit_struck(_mono(samples), float(rate), kind=kind, note=note, scheme=scheme, output_rate=output_rate)
        return Fit(instrument=result.pop("instrument"), **{kind: result})
    else:
        raise ValueError(f'fit: expected kind "string", "guitar", "bar", "bell" or "plate"; found {kind!r}')
    result = _hooke.fit(recordings, float(rate), notes=notes, scheme=scheme, output_rate=output_rate)
    return Fit(instrument=result["instrument"], strings=result["strings"])
