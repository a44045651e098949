//! What can be said about a system without running it, and the invariants of a run.

pub mod energy;
pub mod invariants;
