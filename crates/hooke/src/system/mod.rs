//! The compiled form of a model: flat arrays that the force kernels and schemes run over.
//!
//! Nodes are numbered masses first (in model order), then anchors. A node's coordinates are
//! stored contiguously: coordinate `c` of node `i` is at index `i * dimension + c` of a state
//! vector. State vectors cover every node, anchors included, so a link to an anchor is read like
//! any other link (no branch in the force loop); schemes only advance the first
//! [`System::mass_coordinates`] entries and anchors keep their positions and zero velocity.
//!
//! Contacts and external forces are compiled the same way: one structure-of-arrays list per
//! kind (barrier contacts, collisions, constant, sinusoidal and sampled forces), so each force
//! kernel is one loop with no branch on element kinds. Empty lists cost nothing.

mod mode_damping;

use crate::model::{Model, Node, Signal};
use crate::quantity::Quantity;
pub use mode_damping::run_rates;
use mode_damping::ModeDampingSource;

/// Position and velocity of every node, and the time they belong to.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Positions, m: `node * dimension + axis`, masses then anchors.
    pub x: Vec<f64>,
    /// Velocities, m/s, laid out as `x`. Anchors' entries stay 0.
    pub v: Vec<f64>,
    /// Time, s.
    pub t: f64,
    /// Steps taken since the start.
    pub step: u64,
}

impl State {
    /// The position (m) or velocity (m/s) of state coordinate `coordinate`.
    pub fn read(&self, coordinate: usize, quantity: Quantity) -> f64 {
        match quantity {
            Quantity::Position => self.x[coordinate],
            Quantity::Velocity => self.v[coordinate],
        }
    }
}

/// Links of one kind in structure-of-arrays form: ends `a`, `b` (node indices) and a
/// coefficient per link.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinkArrays {
    /// First end of each link (node index).
    pub a: Vec<u32>,
    /// Second end of each link (node index).
    pub b: Vec<u32>,
    /// Springs: stiffness, N/m. Dampers: damping, N s/m.
    pub coefficient: Vec<f64>,
    /// Springs: rest length, m (1D: signed rest offset). Dampers: unused (empty).
    pub rest_length: Vec<f64>,
}

impl LinkArrays {
    /// Each link's ends as one key (lower node in the high half) with its index, sorted: the
    /// index [`between`] searches.
    fn by_ends(&self) -> Vec<(u64, u32)> {
        let key = |i: usize| {
            let (low, high) = (self.a[i].min(self.b[i]), self.a[i].max(self.b[i]));
            (u64::from(low) << 32) | u64::from(high)
        };
        let mut index: Vec<(u64, u32)> = (0..self.len()).map(|i| (key(i), i as u32)).collect();
        index.sort_unstable();
        index
    }

    /// Number of links.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether there are no links.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }
}

/// The first link (the lowest index) joining nodes `a` and `b` either way round, by binary
/// search of `index` ([`LinkArrays::by_ends`]): a fret or a tension change looks up each of its
/// links, live, in a network of thousands.
fn between(index: &[(u64, u32)], a: usize, b: usize) -> Option<usize> {
    let (low, high) = (a.min(b) as u64, a.max(b) as u64);
    let key = (low << 32) | high;
    let at = index.partition_point(|&(k, _)| k < key);
    index.get(at).filter(|&&(k, _)| k == key).map(|&(_, i)| i as usize)
}

/// A mode damping compiled ([`crate::model::ModeDamping`]): dense damping among a string's
/// masses, the same on each axis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DenseDamping {
    /// The masses' node indices, in the string's order.
    pub masses: Vec<u32>,
    /// `D`, N s/m, row-major `n x n` over `masses`: the force on mass `i` is `-sum_j D_ij v_j`.
    pub matrix: Vec<f64>,
}

/// Bending elements in compressed form: element `e` joins the nodes
/// `node[start[e] .. start[e + 1]]` with the weights at the same indices, and stores
/// `stiffness[e] / 2 |sum_i w_i x_i|^2`, damped by `damping[e]` on `sum_i w_i v_i` (see
/// [`crate::model::Bending`]).
#[derive(Debug, Clone, PartialEq)]
pub struct BendingArrays {
    /// Where each element's nodes begin in `node`, and one past the last element's end.
    pub start: Vec<u32>,
    /// The nodes of every element, one element after the other (node indices).
    pub node: Vec<u32>,
    /// The weight of each entry of `node`.
    pub weight: Vec<f64>,
    /// kappa of each element, N/m.
    pub stiffness: Vec<f64>,
    /// The viscous damping of each element's curvature, N s/m.
    pub damping: Vec<f64>,
}

impl Default for BendingArrays {
    fn default() -> Self {
        Self {
            start: vec![0],
            node: Vec::new(),
            weight: Vec::new(),
            stiffness: Vec::new(),
            damping: Vec::new(),
        }
    }
}

impl BendingArrays {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.stiffness.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.stiffness.is_empty()
    }

    /// The entries (into `node` and `weight`) of element `e`.
    pub fn entries(&self, e: usize) -> std::ops::Range<usize> {
        self.start[e] as usize..self.start[e + 1] as usize
    }
}

/// Angular springs in structure-of-arrays form: element `e` stores
/// `stiffness[e] / 2 (theta - rest_angle[e])^2`, theta the angle at node `b[e]` between the arms
/// to `a[e]` and `c[e]` (see [`crate::model::Angle`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AngleArrays {
    /// First end (node index).
    pub a: Vec<u32>,
    /// The vertex (node index).
    pub b: Vec<u32>,
    /// Second end (node index).
    pub c: Vec<u32>,
    /// k of each element, N m/rad.
    pub stiffness: Vec<f64>,
    /// theta_0 of each element, rad, in (0, pi].
    pub rest_angle: Vec<f64>,
}

impl AngleArrays {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.stiffness.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.stiffness.is_empty()
    }
}

/// Barrier contacts, one entry per (barrier, mass) pair, in structure-of-arrays form.
///
/// Entry `i` pushes node `mass[i]` out of the half-space `n . x < offset[i]` with the force
/// `stiffness[i] delta^exponent[i] n`, `delta = offset[i] - n . x`, while `delta > 0`; `n` is
/// `normal[i * dimension .. (i + 1) * dimension]` (a unit vector).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BarrierArrays {
    /// The node each contact acts on (always a mass).
    pub mass: Vec<u32>,
    /// Unit normals pointing to the free side, `dimension` entries per contact.
    pub normal: Vec<f64>,
    /// Plane offset `c = n . p`, m.
    pub offset: Vec<f64>,
    /// Contact stiffness `k`, N/m^alpha.
    pub stiffness: Vec<f64>,
    /// Hertz exponent `alpha` (>= 1).
    pub exponent: Vec<f64>,
}

impl BarrierArrays {
    /// Number of (barrier, mass) contacts.
    pub fn len(&self) -> usize {
        self.mass.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.mass.is_empty()
    }
}

/// Collisions between two masses in structure-of-arrays form (see [`crate::model::Collision`]
/// for the force law).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CollisionArrays {
    /// First node (a mass).
    pub a: Vec<u32>,
    /// Second node (a mass).
    pub b: Vec<u32>,
    /// Contact distance, m.
    pub distance: Vec<f64>,
    /// Contact stiffness `k`, N/m^alpha.
    pub stiffness: Vec<f64>,
    /// Hertz exponent `alpha` (>= 1).
    pub exponent: Vec<f64>,
}

impl CollisionArrays {
    /// Number of collisions.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }
}

/// Constant external forces: `value[i]` newtons on state coordinate `coordinate[i]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConstantForces {
    /// State coordinate (`mass * dimension + axis`).
    pub coordinate: Vec<u32>,
    /// Force, N.
    pub value: Vec<f64>,
}

/// Sinusoidal external forces, one entry per sinusoid (a force with several sinusoids has
/// several entries on the same coordinate): `amplitude sin(angular_frequency t + phase)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SinusoidForces {
    /// State coordinate.
    pub coordinate: Vec<u32>,
    /// Amplitude, N.
    pub amplitude: Vec<f64>,
    /// `2 pi frequency`, rad/s.
    pub angular_frequency: Vec<f64>,
    /// Phase, rad.
    pub phase: Vec<f64>,
}

/// Sampled external forces (WAV files): entry `i` reads
/// `values[start[i] .. start[i] + len[i]]` (already scaled to newtons by the gain) at
/// `rate[i]` Hz, interpolated linearly, 0 before `t = 0` and from `t = len / rate` on (see
/// [`crate::model::Samples`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampledForces {
    /// State coordinate.
    pub coordinate: Vec<u32>,
    /// Sample rate, Hz.
    pub rate: Vec<f64>,
    /// First sample of each signal in `values`.
    pub start: Vec<usize>,
    /// Number of samples of each signal.
    pub len: Vec<usize>,
    /// Every signal's samples, one after the other, N.
    pub values: Vec<f64>,
}

/// The external (driving) forces, by kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExternalForces {
    /// Constant forces.
    pub constant: ConstantForces,
    /// Sums of sinusoids.
    pub sinusoids: SinusoidForces,
    /// Recorded signals.
    pub sampled: SampledForces,
    /// Forces held on each moving coordinate until changed, N (empty: none): what a score's
    /// interactions (a hammer, a bow, a force pulse) apply, computed once per step from the
    /// state (see [`System::set_held_force`]).
    pub held: Vec<f64>,
}

impl ExternalForces {
    /// Whether there is no external force at all.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty() && !self.drives()
    }

    /// Whether a force from the model drives the system (a constant, sinusoidal or sampled
    /// force; held forces aside).
    pub fn drives(&self) -> bool {
        !self.constant.coordinate.is_empty()
            || !self.sinusoids.coordinate.is_empty()
            || !self.sampled.coordinate.is_empty()
    }
}

/// A model compiled to flat arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct System {
    dimension: usize,
    mass_count: usize,
    node_ids: Vec<String>,
    masses: Vec<f64>,
    inverse_mass: Vec<f64>,
    gravity_force: Vec<f64>,
    /// Gravity, m/s^2, one entry per axis.
    gravity: Vec<f64>,
    drag: Vec<f64>,
    springs: LinkArrays,
    dampers: LinkArrays,
    /// The springs' and the dampers' [`LinkArrays::by_ends`].
    springs_by_ends: Vec<(u64, u32)>,
    dampers_by_ends: Vec<(u64, u32)>,
    bendings: BendingArrays,
    angles: AngleArrays,
    barriers: BarrierArrays,
    collisions: CollisionArrays,
    mode_dampings: Vec<ModeDampingSource>,
    /// The mode damping each node is in (an index into `mode_dampings`; `u32::MAX`: none).
    mode_damping_of: Vec<u32>,
    external: ExternalForces,
    initial: State,
    revision: u64,
}

impl System {
    /// Compiles a validated model.
    pub fn new(model: &Model) -> Self {
        let dim = model.dimension();
        let mass_count = model.masses().len();
        let node_index =
            |node: Node| -> u32 { u32::try_from(model.node_index(node)).expect("more than 2^32 nodes") };
        let per_coordinate = |value: &dyn Fn(&crate::model::Mass) -> f64| -> Vec<f64> {
            model.masses().iter().flat_map(|m| std::iter::repeat_n(value(m), dim)).collect()
        };
        let masses = model.masses().iter().map(|m| m.mass).collect();
        let inverse_mass = per_coordinate(&|m| 1.0 / m.mass);
        let drag = if model.masses().iter().any(|m| m.drag > 0.0) {
            per_coordinate(&|m| m.drag * m.mass)
        } else {
            Vec::new()
        };
        let gravity_force = if model.gravity().iter().any(|&g| g != 0.0) {
            model.masses().iter().flat_map(|m| model.gravity().iter().map(move |g| m.mass * g)).collect()
        } else {
            Vec::new()
        };
        let mut springs = LinkArrays::default();
        let mut dampers = LinkArrays::default();
        for link in model.links() {
            if link.stiffness > 0.0 {
                springs.a.push(node_index(link.a));
                springs.b.push(node_index(link.b));
                springs.coefficient.push(link.stiffness);
                springs.rest_length.push(link.rest_length);
            }
            if link.damping > 0.0 {
                dampers.a.push(node_index(link.a));
                dampers.b.push(node_index(link.b));
                dampers.coefficient.push(link.damping);
            }
        }
        let mut bendings = BendingArrays::default();
        for element in model.bendings().iter().filter(|e| e.stiffness > 0.0 || e.damping > 0.0) {
            bendings.node.extend(element.nodes.iter().map(|&n| node_index(n)));
            bendings.weight.extend_from_slice(&element.weights);
            bendings.stiffness.push(element.stiffness);
            bendings.damping.push(element.damping);
            bendings.start.push(u32::try_from(bendings.node.len()).expect("more than 2^32 bending entries"));
        }
        let mut angles = AngleArrays::default();
        for element in model.angles().iter().filter(|e| e.stiffness > 0.0) {
            let [a, b, c] = element.nodes.map(node_index);
            angles.a.push(a);
            angles.b.push(b);
            angles.c.push(c);
            angles.stiffness.push(element.stiffness);
            angles.rest_angle.push(element.rest_angle);
        }
        let mut barriers = BarrierArrays::default();
        for barrier in model.barriers().iter().filter(|b| b.stiffness > 0.0) {
            let offset = barrier.offset();
            for &mass in &barrier.masses {
                barriers.mass.push(node_index(Node::Mass(mass)));
                barriers.normal.extend_from_slice(&barrier.normal);
                barriers.offset.push(offset);
                barriers.stiffness.push(barrier.stiffness);
                barriers.exponent.push(barrier.exponent);
            }
        }
        let mut collisions = CollisionArrays::default();
        for collision in model.collisions().iter().filter(|c| c.stiffness > 0.0) {
            collisions.a.push(node_index(Node::Mass(collision.a)));
            collisions.b.push(node_index(Node::Mass(collision.b)));
            collisions.distance.push(collision.distance);
            collisions.stiffness.push(collision.stiffness);
            collisions.exponent.push(collision.exponent);
        }
        let mode_dampings = ModeDampingSource::of(model, |mass| node_index(Node::Mass(mass)));
        let mode_damping_of = ModeDampingSource::index(&mode_dampings);
        let mut external = ExternalForces::default();
        for force in model.external_forces() {
            let coordinate =
                u32::try_from(force.mass * dim + force.axis).expect("more than 2^32 coordinates");
            match &force.signal {
                Signal::Constant(value) => {
                    external.constant.coordinate.push(coordinate);
                    external.constant.value.push(*value);
                }
                Signal::Sinusoids(terms) => {
                    for term in terms {
                        let sinusoids = &mut external.sinusoids;
                        sinusoids.coordinate.push(coordinate);
                        sinusoids.amplitude.push(term.amplitude);
                        sinusoids.angular_frequency.push(2.0 * std::f64::consts::PI * term.frequency);
                        sinusoids.phase.push(term.phase);
                    }
                }
                Signal::Samples(samples) => {
                    let sampled = &mut external.sampled;
                    sampled.coordinate.push(coordinate);
                    sampled.rate.push(samples.rate);
                    sampled.start.push(sampled.values.len());
                    sampled.len.push(samples.values.len());
                    sampled.values.extend(samples.values.iter().map(|v| samples.gain * v));
                }
            }
        }
        let node_ids = model
            .masses()
            .iter()
            .map(|m| m.id.clone())
            .chain(model.anchors().iter().map(|a| a.id.clone()))
            .collect();
        let x = model
            .masses()
            .iter()
            .flat_map(|m| m.position.iter().copied())
            .chain(model.anchors().iter().flat_map(|a| a.position.iter().copied()))
            .collect::<Vec<_>>();
        let mut v = vec![0.0; x.len()];
        for (i, m) in model.masses().iter().enumerate() {
            v[i * dim..(i + 1) * dim].copy_from_slice(&m.velocity);
        }
        Self {
            dimension: dim,
            mass_count,
            node_ids,
            masses,
            inverse_mass,
            gravity_force,
            gravity: model.gravity().to_vec(),
            drag,
            springs_by_ends: springs.by_ends(),
            dampers_by_ends: dampers.by_ends(),
            springs,
            dampers,
            bendings,
            angles,
            barriers,
            collisions,
            mode_dampings,
            mode_damping_of,
            external,
            initial: State { x, v, t: 0.0, step: 0 },
            revision: 0,
        }
    }

    /// Coordinates per node: 1, 2 or 3.
    pub fn dimension(&self) -> usize {
        self.dimension
    }
    /// Number of masses (moving nodes).
    pub fn mass_count(&self) -> usize {
        self.mass_count
    }
    /// Number of state entries that move: `mass_count * dimension`.
    pub fn mass_coordinates(&self) -> usize {
        self.mass_count * self.dimension
    }
    /// Ids of the nodes, masses then anchors.
    pub fn node_ids(&self) -> &[String] {
        &self.node_ids
    }
    /// Mass of each mass, kg.
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }
    /// 1 / mass for each moving coordinate, 1/kg.
    pub fn inverse_mass(&self) -> &[f64] {
        &self.inverse_mass
    }
    /// Gravity force `m g` on each moving coordinate, N (empty without gravity).
    pub fn gravity_force(&self) -> &[f64] {
        &self.gravity_force
    }
    /// Drag coefficient `gamma m` on each moving coordinate, N s/m (empty without drag).
    pub fn drag(&self) -> &[f64] {
        &self.drag
    }
    /// The springs: stiffness and rest length.
    pub fn springs(&self) -> &LinkArrays {
        &self.springs
    }
    /// The dampers: damping coefficient.
    pub fn dampers(&self) -> &LinkArrays {
        &self.dampers
    }
    /// The bending elements (those of stiffness and damping 0 are left out).
    pub fn bendings(&self) -> &BendingArrays {
        &self.bendings
    }
    /// The angular springs (those of stiffness 0 are left out).
    pub fn angles(&self) -> &AngleArrays {
        &self.angles
    }
    /// The barrier contacts, one entry per (barrier, mass) pair (barriers of stiffness 0 are
    /// left out).
    pub fn barriers(&self) -> &BarrierArrays {
        &self.barriers
    }
    /// The collisions between masses (those of stiffness 0 are left out).
    pub fn collisions(&self) -> &CollisionArrays {
        &self.collisions
    }
    /// Whether the system has any contact (barrier or collision).
    pub fn has_contacts(&self) -> bool {
        !self.barriers.is_empty() || !self.collisions.is_empty()
    }
    /// The external (driving) forces.
    pub fn external_forces(&self) -> &ExternalForces {
        &self.external
    }
    /// How many times the system has been changed since it was compiled: a scheme records the
    /// revision it was built for, and the engine rebuilds it when the two differ, so a scheme
    /// never steps a system it was not built for.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The initial state (t = 0, step 0).
    pub fn initial_state(&self) -> State {
        self.initial.clone()
    }

    /// The mass owning a state coordinate (`coordinate < mass_coordinates()`).
    pub fn mass_of_coordinate(&self, coordinate: usize) -> &str {
        &self.node_ids[coordinate / self.dimension]
    }

    /// The spring joining nodes `a` and `b` (either way round), if any.
    pub fn spring_between(&self, a: usize, b: usize) -> Option<usize> {
        between(&self.springs_by_ends, a, b)
    }

    /// The damper joining nodes `a` and `b` (either way round), if any.
    pub fn damper_between(&self, a: usize, b: usize) -> Option<usize> {
        between(&self.dampers_by_ends, a, b)
    }

    /// Changes the stiffness of spring `spring`, N/m (a score's fret or tension change); the
    /// revision moves only if the value does.
    pub(crate) fn set_spring_stiffness(&mut self, spring: usize, stiffness: f64) {
        if self.springs.coefficient[spring] != stiffness {
            self.springs.coefficient[spring] = stiffness;
            self.revision += 1;
        }
    }

    /// Changes the coefficient of damper `damper`, N s/m; the revision moves only if the value
    /// does.
    pub(crate) fn set_damper_coefficient(&mut self, damper: usize, damping: f64) {
        if self.dampers.coefficient[damper] != damping {
            self.dampers.coefficient[damper] = damping;
            self.revision += 1;
        }
    }

    /// Changes the mass of mass `mass`, kg (> 0), and the gravity force on it.
    pub(crate) fn set_mass(&mut self, mass: usize, kilograms: f64) {
        let dim = self.dimension;
        self.masses[mass] = kilograms;
        self.inverse_mass[mass * dim..(mass + 1) * dim].fill(1.0 / kilograms);
        if !self.gravity_force.is_empty() {
            for (force, g) in self.gravity_force[mass * dim..(mass + 1) * dim].iter_mut().zip(&self.gravity) {
                *force = kilograms * g;
            }
        }
        self.revision += 1;
    }

    /// Sets the drag coefficient of every coordinate of mass `mass`, N s/m (a score's `damp`);
    /// the revision moves only if the value does.
    pub(crate) fn set_drag(&mut self, mass: usize, drag: f64) {
        if self.drag.is_empty() {
            // Made on the first call, even of a zero drag (a live performance's first change,
            // before play), so that a damp in an audio callback allocates nothing.
            self.drag = vec![0.0; self.mass_coordinates()];
            self.revision += 1;
        }
        let coordinates = &mut self.drag[mass * self.dimension..(mass + 1) * self.dimension];
        if coordinates.iter().any(|&d| d != drag) {
            coordinates.fill(drag);
            self.revision += 1;
        }
    }

    /// Holds `force` (N) on state coordinate `coordinate` (a moving one) until changed. The
    /// first call makes room for every coordinate (a change of the system's structure).
    pub(crate) fn set_held_force(&mut self, coordinate: usize, force: f64) {
        if self.external.held.is_empty() {
            self.external.held = vec![0.0; self.mass_coordinates()];
            self.revision += 1;
        }
        self.external.held[coordinate] = force;
    }

    /// Whether any held force is not zero.
    pub(crate) fn holds_forces(&self) -> bool {
        self.external.held.iter().any(|&f| f != 0.0)
    }
}

/// Something that looks at the state after every step (and at the initial state): a trajectory,
/// energy or invariant output of a run.
pub trait Observer {
    /// Called with step 0 and after every completed step (`state.step`, `state.t` tell which).
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()>;
}
