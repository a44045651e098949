"""Notebook display: HTML for models and analyses, and an audio player for rendered sound."""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from ._results import units


def _cell(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "&ndash;"
        if math.isinf(value):
            return "&infin;" if value > 0 else "&minus;&infin;"
        return f"{value:.6g}"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "<b>no</b>"
    return html.escape(str(value))


def _table(header, rows) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def model_html(model, limit: int = 12) -> str:
    """A model as HTML: its name, dimension, gravity, counts, and its first ``limit`` masses
    and links."""
    title = html.escape(model.name or "hooke.Model")
    counts = ", ".join(f"{n} {what}" for what, n in model.counts.items() if n)
    parts = [f"<p><b>{title}</b>: {model.dimension}D, {counts or 'empty'}; gravity {model.gravity} m/s&sup2;</p>"]
    if model.description:
        parts.append(f"<p>{html.escape(model.description)}</p>")
    masses = list(zip(model.mass_ids, model.masses, model.positions))[:limit]
    if masses:
        parts.append(_table(["mass", "kg", "initial position (m)"], masses))
    links = model.links[:limit]
    if links:
        parts.append(_table(["a", "b", "stiffness (N/m)", "damping (N s/m)", "rest length (m)"], links))
    if len(model.mass_ids) > limit or len(model.links) > limit:
        parts.append(f"<p>(first {limit} shown)</p>")
    return "\n".join(parts)


def analysis_html(analysis, limit: int = 40) -> str:
    """An analysis as HTML: the verdict, the largest stable step and one row per mode (the
    first ``limit``)."""
    verdict = "every mode stable" if analysis.is_stable else "<b>UNSTABLE</b>"
    if analysis.stability == "unconditional":
        step = f"unconditionally stable (checked up to {analysis.checked_up_to:.3g} s)"
    else:
        step = f"largest stable step {analysis.largest_stable_step:.6g} s ({analysis.lowest_stable_rate:.6g} Hz)"
    unit = units()
    columns = list(unit)
    header = [f"{c} ({unit[c]})" if unit[c] else c for c in columns]
    rows = [[getattr(analysis, c)[i] for c in columns] for i in range(min(len(analysis), limit))]
    parts = [
        f"<p><b>{html.escape(analysis.scheme)}</b> at dt = {analysis.dt:.6g} s ({1 / analysis.dt:.6g} Hz): "
        f"{verdict}; {step}; {analysis.damping} damping</p>",
        _table(header, rows),
    ]
    parts += [f"<p>note: {html.escape(w)}</p>" for w in analysis.warnings]
    return "\n".join(parts)


def audio(samples: np.ndarray, rate: float, normalize: bool = True):
    """An ``IPython.display.Audio`` player for ``samples`` (shape (frames,) or (channels,
    frames), as ``render`` returns) at ``rate`` Hz, scaled to full scale when ``normalize``."""
    from IPython.display import Audio

    data = np.asarray(samples, dtype=np.float64)
    if data.ndim == 2 and data.shape[0] == 1:
        data = data[0]
    return Audio(data, rate=int(round(rate)), normalize=normalize)
