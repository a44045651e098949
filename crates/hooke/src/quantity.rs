//! Physical quantities read from a state (the leaf of the layers: it imports nothing).

/// What a pickup, a kernel tap or an output reads from a mass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quantity {
    /// Position (1D: displacement), m.
    Position,
    /// Velocity, m/s.
    Velocity,
}
