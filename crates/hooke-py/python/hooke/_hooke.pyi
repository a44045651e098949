"""Type stubs of the Rust core, hooke._hooke. Units are SI: m, s, kg, N, Hz."""

from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._results import Analysis, Trajectory

__version__: str

Scheme = Literal[
    "forward-euler",
    "symplectic-euler",
    "backward-euler",
    "rk4",
    "vefrl",
    "velocity-verlet",
    "energy-conserving",
    "midpoint",
    "trapezoidal",
    "caldirola-kanai",
    "energy-conserving-cs",
    "velocity-verlet-cs",
    "exact",
]
PickupLike = Union[str, Dict[str, Any]]

class HookeError(RuntimeError):
    """An error the library reports that is not about the model's description."""

    partial: Any

class ModelError(ValueError):
    """A rule broken by a model, a setting or an event. From a file: file, line, column
    (1-based), found and message; from code: subject, field, expected and found."""

    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    found: Optional[str]
    message: str
    subject: Optional[str]
    field: Optional[str]
    expected: Optional[str]

class InstabilityError(HookeError):
    """A run became unstable at `step` (time `time`, s): `mass`'s `quantity` was not finite.
    `partial` is what was computed before: a Trajectory (run) or the frames (render)."""

    step: int
    time: float
    mass: str
    quantity: str
    partial: Any

class Model:
    """A network of masses, anchors, links, contacts and forces in 1, 2 or 3 dimensions."""

    def __init__(self, dimension: int = 1) -> None: ...
    def _load_file(self, path: str) -> None: ...
    def add_mass(
        self,
        id: str,
        mass: float,
        position: Optional[Sequence[float]] = None,
        velocity: Optional[Sequence[float]] = None,
        drag: float = 0.0,
    ) -> str:
        """A point mass of `mass` kg at `position` m with `velocity` m/s and drag 1/s."""
    def add_anchor(self, id: str, position: Optional[Sequence[float]] = None) -> str:
        """A fixed point at `position` m."""
    def add_spring(
        self,
        a: str,
        b: str,
        stiffness: float,
        damping: float = 0.0,
        rest_length: Optional[float] = None,
        id: Optional[str] = None,
    ) -> None:
        """A spring of `stiffness` N/m with `damping` N s/m in parallel, rest length m."""
    def add_damper(self, a: str, b: str, damping: float, id: Optional[str] = None) -> None:
        """A damper alone of `damping` N s/m."""
    def add_bending(
        self,
        nodes: List[str],
        stiffness: float,
        weights: Optional[List[float]] = None,
        id: Optional[str] = None,
        damping: float = 0.0,
    ) -> None:
        """A bending element `stiffness / 2 |sum w_i x_i|^2` (N/m), weights summing to 0
        (default [1, -2, 1] on three nodes), its curvature's rate damped by `damping` N s/m."""
    def add_angle(
        self,
        nodes: List[str],
        stiffness: float,
        rest_angle: Optional[float] = None,
        id: Optional[str] = None,
    ) -> None:
        """An angular spring `stiffness / 2 (theta - rest_angle)^2` (N m/rad) at the vertex
        nodes[1] between the arms to nodes[0] and nodes[2] (2D/3D); rest angle in rad, in
        (0, pi], default the initial angle."""
    def add_string(
        self,
        id: str,
        masses: int,
        *,
        mass: Optional[float] = None,
        stiffness: Optional[float] = None,
        damping: Optional[float] = None,
        length: Optional[float] = None,
        tension: Optional[float] = None,
        linear_density: Optional[float] = None,
        decay_time: Optional[float] = None,
        drag: float = 0.0,
        pluck: Optional[Tuple[float, float]] = None,
        bending: Optional[float] = None,
        inharmonicity: Optional[float] = None,
        young_modulus: Optional[float] = None,
        diameter: Optional[float] = None,
    ) -> List[str]:
        """A 1D string: lumped (kg, N/m, N s/m) or physical (m, N, kg/m, s); stiff with one of
        bending (N/m), inharmonicity (B) or young_modulus (Pa) and diameter (m); returns mass ids."""
    def add_membrane(
        self,
        id: str,
        columns: int,
        rows: int,
        *,
        mass: Optional[float] = None,
        stiffness: Optional[float] = None,
        damping: Optional[float] = None,
        spacing: Optional[float] = None,
        origin: Optional[Sequence[float]] = None,
        width: Optional[float] = None,
        height: Optional[float] = None,
        tension: Optional[float] = None,
        surface_density: Optional[float] = None,
        decay_time: Optional[float] = None,
        drag: float = 0.0,
    ) -> List[str]:
        """A membrane or mesh with a rim of anchors; returns mass ids row by row."""
    def _add_generated(self, kind: str, fields: Dict[str, Any]) -> List[str]:
        """Adds the generator ``kind`` ("bar", "plate" or "body") with the fields of its
        model-file table; ``Model.add_bar``, ``add_plate`` and ``add_body`` call it."""
    def add_chain(
        self,
        id: str,
        start: str,
        masses: int,
        link_length: float,
        direction: Sequence[float],
        mass: float,
        stiffness: float,
        damping: float = 0.0,
        end: Optional[str] = None,
    ) -> List[str]:
        """A chain hanging from node `start` (m, kg, N/m, N s/m); returns mass ids."""
    def add_barrier(
        self,
        masses: Union[str, Sequence[str]],
        position: Sequence[float],
        normal: Sequence[float],
        stiffness: float,
        exponent: float = 1.5,
        id: Optional[str] = None,
    ) -> None:
        """A rigid barrier (Hertz's law, N/m^exponent) on masses (ids or a prefix "s.*")."""
    def add_collision(
        self,
        a: str,
        b: str,
        distance: float,
        stiffness: float,
        exponent: float = 1.5,
        id: Optional[str] = None,
    ) -> None:
        """A Hertz contact between two masses closer than `distance` m."""
    def add_force(
        self,
        mass: str,
        *,
        constant: Optional[float] = None,
        sinusoids: Optional[Sequence[Sequence[float]]] = None,
        samples: Optional[Sequence[float]] = None,
        rate: Optional[float] = None,
        gain: float = 1.0,
        axis: int = 0,
    ) -> None:
        """A driving force: constant N, sinusoids (N, Hz[, rad]) or samples at `rate` Hz."""
    def set_gravity(self, gravity: Sequence[float]) -> None:
        """Gravity, m/s^2, one entry per dimension."""
    def set_initial(
        self,
        mass: str,
        *,
        position: Optional[Sequence[float]] = None,
        displacement: Optional[Sequence[float]] = None,
        velocity: Optional[Sequence[float]] = None,
    ) -> None:
        """A changed initial position (m), displacement (m) or velocity (m/s)."""
    def add_pickup(
        self,
        mass: str,
        quantity: Literal["position", "velocity"] = "position",
        axis: int = 0,
        weight: float = 1.0,
        channel: int = 1,
    ) -> None:
        """An output channel term: weight times a mass's position (m) or velocity (m/s)."""
    @property
    def dimension(self) -> int: ...
    @property
    def gravity(self) -> List[float]: ...
    @property
    def mass_ids(self) -> List[str]: ...
    @property
    def anchor_ids(self) -> List[str]: ...
    @property
    def masses(self) -> List[float]:
        """Each mass, kg."""
    @property
    def positions(self) -> List[List[float]]:
        """Initial positions, m."""
    @property
    def anchor_positions(self) -> List[List[float]]: ...
    @property
    def links(self) -> List[Tuple[str, str, float, float, float]]:
        """(a, b, stiffness N/m, damping N s/m, rest length m)."""
    @property
    def counts(self) -> Dict[str, int]: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def description(self) -> Optional[str]: ...
    @property
    def run_settings(self) -> Dict[str, Any]: ...
    def simulate(
        self,
        scheme: Optional[Scheme] = None,
        rate: Optional[float] = None,
        dt: Optional[float] = None,
        pickups: Optional[List[PickupLike]] = None,
        oversample: int = 1,
        threads: int = 1,
        kernels: bool = True,
        device: Literal["cpu", "gpu"] = "cpu",
    ) -> Simulation:
        """A simulation with `scheme` at `rate` Hz or `dt` s, on the CPU or the GPU."""
    def analyze(self, scheme: Optional[Scheme] = None, dt: Optional[float] = None, rate: Optional[float] = None) -> Analysis:
        """What `scheme` at step `dt` s does to each mode."""

class Simulation:
    """A model compiled and running on the engine."""

    def run(self, seconds: Optional[float] = None, steps: Optional[int] = None, every: int = 1, energy: bool = True) -> Trajectory:
        """Rows of times (s), positions (m), velocities (m/s), energies (J) and pickups; at most
        2^40 steps and 4 GiB of rows (docs/python.md, Limits)."""
    def render(self, frames: int, dtype: Literal["float32", "float64"] = "float32") -> npt.NDArray[Any]:
        """Exactly `frames` output frames, shape (channels, frames); at most 4 GiB of them."""
    def advance(self, steps: int) -> npt.NDArray[np.float64]:
        """`steps` steps (at most 2^40); the frames they complete, shape (channels, frames),
        at most 4 GiB of them."""
    def flush(self) -> npt.NDArray[np.float64]:
        """The decimator's last frames."""
    def sample(self) -> npt.NDArray[np.float64]:
        """The pickups' values now, one per channel."""
    def state(self) -> Dict[str, Any]:
        """step, time (s), positions (m) and velocities (m/s), shape (masses, dimension)."""
    def analyze(self) -> Analysis:
        """The analysis of the system as it is now, at the simulation's step."""
    def set_shape(self, shape: Dict[str, float], axis: int = 0, at: Optional[float] = None) -> None:
        """Positions (m) at rest; now or at time `at` s."""
    def set_motion(self, mass: str, position: float, velocity: float = 0.0, axis: int = 0, at: Optional[float] = None) -> None:
        """A mass's position (m) and velocity (m/s)."""
    def pluck(self, mass: str, peak: float, duration: float = 1e-3, axis: int = 0, at: Optional[float] = None) -> None:
        """A raised-cosine force pulse of `peak` N for `duration` s."""
    def strike(
        self,
        mass: str,
        velocity: float,
        hammer_mass: float = 0.01,
        stiffness: float = 1e8,
        exponent: float = 2.5,
        axis: int = 0,
        at: Optional[float] = None,
    ) -> None:
        """A hammer of `hammer_mass` kg at `velocity` m/s through a Hertz felt."""
    def bow(
        self,
        mass: str,
        velocity: float,
        force: float,
        duration: float,
        sharpness: float = 100.0,
        axis: int = 0,
        at: Optional[float] = None,
    ) -> None:
        """A bow at `velocity` m/s pressed with `force` N for `duration` s."""
    def set_link(
        self,
        a: str,
        b: str,
        stiffness: Optional[float] = None,
        damping: Optional[float] = None,
        at: Optional[float] = None,
    ) -> None:
        """The spring (N/m) and damper (N s/m) between two nodes."""
    def set_mass(self, mass: str, kilograms: float, at: Optional[float] = None) -> None: ...
    def set_drag(self, mass: str, drag: float, at: Optional[float] = None) -> None:
        """Drag coefficient, N s/m."""
    def stop(self, mass: str, stopped: bool = True, at: Optional[float] = None) -> None: ...
    @property
    def step(self) -> int: ...
    @property
    def time(self) -> float:
        """Simulated time now, s."""
    @property
    def dt(self) -> float:
        """The step, s."""
    @property
    def rate(self) -> float:
        """The simulation rate, Hz."""
    @property
    def output_rate(self) -> float:
        """The output frame rate, Hz."""
    @property
    def scheme(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def channels(self) -> int: ...
    @property
    def mass_ids(self) -> List[str]: ...

class Performance:
    """An instrument file playing a score file."""

    def __init__(
        self,
        instrument: str,
        score: str,
        *,
        rate: Optional[float] = None,
        oversample: Optional[int] = None,
        scheme: Optional[Scheme] = None,
        threads: int = 1,
        kernels: bool = True,
    ) -> None: ...
    def render(self, frames: int) -> npt.NDArray[np.float64]:
        """The next `frames` output frames (fewer at the end), shape (channels, frames), m."""
    def finish(self) -> npt.NDArray[np.float64]:
        """The decimator's last frames."""
    def render_all(self) -> npt.NDArray[np.float64]:
        """The whole score and its tail."""
    @property
    def rate(self) -> float:
        """The output rate, Hz."""
    @property
    def oversample(self) -> int: ...
    @property
    def scheme(self) -> str: ...
    @property
    def duration(self) -> float:
        """The score's length, s."""
    @property
    def channels(self) -> int: ...
    @property
    def path(self) -> str: ...
    @property
    def step(self) -> int: ...
    @property
    def total_steps(self) -> int: ...

def schemes() -> List[Dict[str, Any]]:
    """Each scheme's name, order, damped_order, symplectic and explicit."""

def design_string(
    masses: int,
    frequency_hz: float,
    time_constant: Optional[float] = None,
    *,
    mass: float = 1.0,
    scheme: Scheme = "symplectic-euler",
    dt: Optional[float] = None,
    rate: Optional[float] = None,
) -> Dict[str, float]:
    """omega0 (rad/s), gamma (1/s), mass (kg), stiffness (N/m), damping (N s/m)."""

def warping_curve(scheme: Scheme, gamma_h: float = 0.0, omega0_h_max: float = 3.0, samples: int = 301) -> Dict[str, Any]:
    """omega0_h, mu_h, omega_d_h (rad/sample) and region of each of `samples` points (2 to
    2^20); `gamma_h` 0 to 1e6, `omega0_h_max` above 0 up to 1e6."""

def fit(
    recordings: List[np.ndarray],
    rate: float,
    *,
    notes: Optional[List[Optional[float]]] = None,
    scheme: Scheme = "symplectic-euler",
    output_rate: Optional[float] = None,
) -> Dict[str, Any]:
    """instrument (the instrument file's text) and strings (per recording: the fit and its
    partials); see hooke.fit."""

def fit_struck(
    recording: np.ndarray,
    rate: float,
    *,
    kind: str,
    note: Optional[float] = None,
    scheme: Scheme = "symplectic-euler",
    output_rate: Optional[float] = None,
) -> Dict[str, Any]:
    """instrument (the file's text), name, onset_s and modes, and for kind "bar" frequency_hz,
    ratio, decay, high_decay and designed_high_decay, for kind "bell" strike_hz and
    decays_moved, for kind "plate" frequency_hz, columns, rows, ratio_error_cents,
    constant_loss, linear_loss and high_frequency; see hooke.fit(kind="bar", "bell" or
    "plate")."""
