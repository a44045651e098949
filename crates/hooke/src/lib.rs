//! Hooke: networks of masses, springs and dampers, simulated with known accuracy.
//!
//! Data flows one way: a model file ([`format::model`]) or code builds a validated
//! [`model::Model`]; [`system::System`] compiles it to flat arrays; a [`scheme::Scheme`] steps a
//! [`system::State`]; [`engine`] runs the loop, renders the pickups and feeds observers (energy, CSV);
//! [`io`] writes WAV and CSV. Units are SI everywhere.
//!
//! ```
//! use hooke::engine::{Engine, EngineConfig};
//! use hooke::format::model::parse;
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
//! let config = EngineConfig::default().scheme(run.scheme).dt(run.step.seconds());
//! let system = hooke::system::System::new(&file.model);
//! let mut engine = Engine::from_system(system, file.pickups.clone(), config).unwrap();
//! let mut output = vec![Vec::new(); engine.channels()];
//! engine.advance(100, &mut output).unwrap();
//! assert_eq!(output[0].len(), 100);
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
