//! Hooke: networks of masses, springs and dampers, simulated with known accuracy.
//!
//! Data flows one way: a model file ([`format::model`]) or code builds a validated
//! [`model::Model`]; [`system::System`] compiles it to flat arrays; a [`scheme::Scheme`] steps a
//! [`system::State`]; [`render`] runs the loop and feeds observers (pickups, energy, CSV);
//! [`io`] writes WAV and CSV. Units are SI everywhere.
//!
//! ```
//! use hooke::format::model::parse;
//! use hooke::engine::{PickupRecorder, Simulation};
//! use hooke::system::System;
//!
//! let file = parse(r#"
//!     [model]
//!     dimension = 1
//!     [[string]]
//!     id = "s"
//!     masses = 10
//!     mass = 0.001
//!     stiffness = 1000.0
//!     pluck = { position = 0.3, amplitude = 0.001 }
//! "#, "example.toml").unwrap();
//! let run = file.run.or_defaults();
//! let mut sim = Simulation::new(System::new(&file.model), run.scheme, run.step.seconds());
//! let mut pickups = PickupRecorder::new(file.pickups.clone(), 100);
//! sim.run(100, &mut [&mut pickups], &mut |_| {}).unwrap();
//! assert_eq!(pickups.channels()[0].len(), 101);
//! ```

// Numerical kernels index several arrays in lockstep (`x[i]`, `v[i]`, `inverse_mass[i]`), which
// reads more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod analysis;
pub mod engine;
pub mod forces;
pub mod format;
pub mod instrument;
pub mod io;
pub mod kernel;
pub mod linalg;
pub mod model;
pub mod quantity;
pub mod scheme;
pub mod score;
pub mod system;
