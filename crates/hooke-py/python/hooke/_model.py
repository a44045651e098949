"""The model class users build: the Rust core's Model, made picklable, with constructors for
strings and membranes, model files, and the string design of Morgan & Qiao 2009."""

from __future__ import annotations

import functools
import numbers
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from . import _hooke

# The methods that change a model: each call is recorded, so that a model can be rebuilt in
# another process (pickle, a process pool, Dask or Ray) by replaying them.
_CHANGES = (
    "add_mass",
    "add_anchor",
    "add_spring",
    "add_damper",
    "add_bending",
    "add_angle",
    "add_string",
    "add_membrane",
    "add_chain",
    "_add_generated",
    "add_barrier",
    "add_collision",
    "add_force",
    "set_gravity",
    "set_initial",
    "add_pickup",
)


class Model(_hooke.Model):
    """A network of masses, anchors, springs, dampers, contacts and driving forces in 1, 2 or 3
    dimensions, SI units throughout; nodes are named by id.

    Build it with the ``add_*`` methods, ``Model.string(...)`` or ``Model.membrane(...)``, or read
    a model file with ``hooke.load(path)``; then ``simulate(...)`` or ``analyze(...)`` it.
    Models pickle (they are rebuilt by replaying the calls that made them).
    """

    def __init__(self, dimension: int = 1) -> None:
        self._recipe: List[Tuple[str, tuple, dict]] = [("__init__", (dimension,), {})]

    def __reduce__(self):
        return (_replay, (type(self), self._recipe))

    @classmethod
    def string(cls, masses: int, id: str = "s", **spec: Any) -> "Model":
        """A 1D model holding one string of ``masses`` masses between anchors ``ID.0`` and
        ``ID.{N+1}``: lumped (``mass`` kg, ``stiffness`` N/m, ``damping`` N s/m) or physical
        (``length`` m, ``tension`` N, ``linear_density`` kg/m, ``decay_time`` s), with ``drag``
        (1/s) and ``pluck=(position fraction, amplitude m)``. See ``add_string``."""
        model = cls(1)
        model.add_string(id, masses, **spec)
        return model

    @classmethod
    def membrane(cls, columns: int, rows: int, id: str = "m", dimension: int = 1, **spec: Any) -> "Model":
        """A model holding one membrane (1D: a drum) or mesh (2D/3D) of ``columns`` x ``rows``
        masses with a rim of anchors. See ``add_membrane`` for the lumped and physical
        parameters."""
        model = cls(dimension)
        model.add_membrane(id, columns, rows, **spec)
        return model

    def add_bar(self, id: str, masses: int, **fields: Any) -> List[str]:
        """Adds a free bar of ``masses`` masses ``ID.1`` .. ``ID.N`` (1D; ``[[bar]]`` in
        docs/model-format.md), no anchors: lumped (``mass`` kg, ``bending`` N/m) or physical
        (``length`` m, ``linear_density`` kg/m, ``rigidity`` N m^2); ``drag`` 1/s, ``damping``
        N s/m between neighbours, ``undercut_ratio`` (f2/f1). Returns the mass ids."""
        return self._add_generated("bar", dict(id=id, masses=masses, **fields))

    def add_plate(
        self, id: str, columns: int, rows: int, *, spacing: float, surface_density: float, rigidity: float,
        drag: float = 0.0, damping: float = 0.0,
    ) -> List[str]:
        """Adds a simply supported plate (``[[plate]]``) of ``columns`` x ``rows`` masses
        ``ID.i.j`` on a square lattice of ``spacing`` m inside a rim of anchors (1D):
        ``surface_density`` kg/m^2, ``rigidity`` D N m, ``drag`` 1/s, ``damping`` N s/m on each
        lattice edge. Returns the mass ids row by row."""
        fields = dict(id=id, columns=columns, rows=rows, spacing=spacing, surface_density=surface_density,
                      rigidity=rigidity, drag=drag, damping=damping)
        return self._add_generated("plate", fields)

    def add_body(self, id: str, modes: List[Any]) -> List[str]:
        """Adds a body given by its modes at its bridge ``ID.1`` (1D; ``[[body]]``): each mode
        ``(frequency Hz, decay_time s, effective mass kg)`` or a dict with those keys, as the
        model file's ``{ frequency, decay_time, mass }``. Strings end on it with their ``to``
        node. Returns the mass ids, the bridge first."""
        if not isinstance(id, str):
            raise TypeError(f"add_body: id: expected a string; found {_quote(id)}")
        if isinstance(modes, (str, bytes, dict)) or not isinstance(modes, Iterable):
            raise TypeError(f"add_body: modes: expected a list of modes; found {_quote(modes)}")
        return self._add_generated("body", dict(id=id, modes=[_body_mode(i, mode) for i, mode in enumerate(modes)]))

    def _repr_html_(self) -> str:
        from .display import model_html

        return model_html(self)


_BODY_MODE_FIELDS = ("frequency", "decay_time", "mass")


def _body_mode(index: int, mode: Any) -> dict:
    """Mode ``index`` of ``add_body``'s ``modes`` as the model file's table: from a dict with the
    keys ``frequency``, ``decay_time`` and ``mass``, or a sequence of those three numbers. A
    mode of another shape, or a field that is no number, is a ``TypeError`` naming it."""
    where = f"add_body: modes[{index}]"
    if isinstance(mode, dict):
        unknown = sorted(set(map(str, mode)) - set(_BODY_MODE_FIELDS))
        missing = [key for key in _BODY_MODE_FIELDS if key not in mode]
        if unknown or missing:
            raise TypeError(
                f"{where}: expected the keys frequency, decay_time and mass; found {_quote(sorted(map(str, mode)))}"
            )
        fields = {key: mode[key] for key in _BODY_MODE_FIELDS}
    else:
        values = tuple(mode) if isinstance(mode, Iterable) and not isinstance(mode, (str, bytes)) else ()
        if len(values) != len(_BODY_MODE_FIELDS):
            raise TypeError(
                f"{where}: expected (frequency Hz, decay_time s, mass kg) or a dict with those keys; found {_quote(mode)}"
            )
        fields = dict(zip(_BODY_MODE_FIELDS, values))
    for key, value in fields.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{where}.{key}: expected a number; found {_quote(value)}")
        try:
            fields[key] = float(value)
        except OverflowError:
            raise ValueError(f"{where}.{key}: expected a finite number; found an integer too large for a float") from None
    return fields


def _quote(value: Any) -> str:
    """``repr(value)`` for an error message, cut after 60 characters (as the library quotes a
    user's text)."""
    try:
        text = repr(value)
    except Exception:  # a repr that fails (an integer too long to print) still names the type
        return f"a {type(value).__name__}"
    return text if len(text) <= 60 else f"{text[:60]}... ({len(text)} characters)"


def _recorded(name: str):
    method = getattr(_hooke.Model, name)

    @functools.wraps(method)
    def change(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        self._recipe.append((name, args, kwargs))
        return result

    return change


for _name in _CHANGES:
    setattr(Model, _name, _recorded(_name))


def _replay(cls, recipe):
    """A model rebuilt from the calls that made it."""
    (_, init_args, _), *changes = recipe
    model = cls(*init_args)
    for name, args, kwargs in changes:
        getattr(model, name)(*args, **kwargs)
    model._recipe = list(recipe)
    return model


def load(path: "os.PathLike[str] | str") -> Model:
    """Reads the model file at ``path`` (TOML, docs/model-format.md) with its pickups, ``[run]``
    settings, name and description. A broken file raises ``hooke.ModelError`` carrying
    ``file``, ``line`` and ``column`` (1-based) and the ``message``."""
    model = Model(1)
    _hooke.Model._load_file(model, os.fspath(path))
    model._recipe = [("__init__", (1,), {}), ("_load_file", (os.path.abspath(os.fspath(path)),), {})]
    return model


@dataclass(frozen=True)
class StringDesign:
    """A uniform string designed by ``design_string`` (Morgan & Qiao 2009, Algorithm 1)."""

    omega0: float
    """w0_out = sqrt(k/m), rad/s."""
    gamma: float
    """gamma_out = Z/m, 1/s."""
    mass: float
    """Each mass, kg."""
    stiffness: float
    """Each spring, N/m."""
    damping: float
    """Each damper (on the springs), N s/m."""
    model: Model
    """The string: masses ``s.1`` .. ``s.N`` between anchors ``s.0`` and ``s.{N+1}``, at rest."""


def design_string(
    masses: int,
    frequency_hz: float,
    time_constant: Optional[float] = None,
    *,
    mass: float = 1.0,
    scheme: str = "symplectic-euler",
    dt: Optional[float] = None,
    rate: Optional[float] = None,
) -> StringDesign:
    """The string of ``masses`` masses of ``mass`` kg whose lowest mode, simulated with
    ``scheme`` at step ``dt`` s (or ``rate`` Hz), sounds at ``frequency_hz`` Hz and decays with
    time constant ``time_constant`` s (None: lossless): Morgan & Qiao 2009, Algorithm 1, for any
    scheme. For 5 masses, 440 Hz, 1 s at 6000 Hz this gives w0 = 5293.2393 rad/s and
    gamma = 7.46286 1/s (their eq. 90, with the exact root)."""
    design = _hooke.design_string(
        masses, frequency_hz, time_constant, mass=mass, scheme=scheme, dt=dt, rate=rate
    )
    model = Model.string(masses, "s", mass=design["mass"], stiffness=design["stiffness"], damping=design["damping"])
    return StringDesign(model=model, **design)
