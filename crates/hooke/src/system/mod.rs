//! The compiled form of a model: flat arrays that the force kernels and schemes run over.
//!
//! Nodes are numbered masses first (in model order), then anchors. A node's coordinates are
//! stored contiguously: coordinate `c` of node `i` is at index `i * dimension + c` of a state
//! vector. State vectors cover every node, anchors included, so a link to an anchor is read like
//! any other link (no branch in the force loop); schemes only advance the first
//! [`System::mass_coordinates`] entries and anchors keep their positions and zero velocity.

use crate::model::{Model, Node};

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
    /// Number of links.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether there are no links.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
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
    drag: Vec<f64>,
    springs: LinkArrays,
    dampers: LinkArrays,
    initial: State,
}

impl System {
    /// Compiles a validated model.
    pub fn new(model: &Model) -> Self {
        let dim = model.dimension();
        let mass_count = model.masses().len();
        let node_index = |node: Node| -> u32 {
            let index = match node {
                Node::Mass(i) => i,
                Node::Anchor(i) => mass_count + i,
            };
            u32::try_from(index).expect("more than 2^32 nodes")
        };
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
            drag,
            springs,
            dampers,
            initial: State { x, v, t: 0.0, step: 0 },
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
    /// The initial state (t = 0, step 0).
    pub fn initial_state(&self) -> State {
        self.initial.clone()
    }

    /// The mass owning a state coordinate (`coordinate < mass_coordinates()`).
    pub fn mass_of_coordinate(&self, coordinate: usize) -> &str {
        &self.node_ids[coordinate / self.dimension]
    }
}
