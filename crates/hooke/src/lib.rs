//! # Hooke
//!
//! Networks of masses, springs, dampers and contacts, simulated with known accuracy: thirteen
//! integrators, an analysis that says before a run what each scheme does to each mode (stable
//! or not, at which frequency, with which decay), instruments played from scores, and fast
//! paths chosen for you. Units are SI everywhere.
//!
//! Describe a [`model::Model`] in code (or load one with [`format::model::load`]), hand it to an
//! [`engine::Engine`] with a scheme and a rate, and ask for frames; ask the engine's analysis
//! what the scheme does to the model; write the result with [`io::write_wav_file`].
//!
//! ```
//! use hooke::prelude::*;
//!
//! // A 1 m string of 20 masses at 100 N, plucked, and a damped oscillator beside it.
//! let mut model = Model::new(1)?;
//! let string = model.add_string(
//!     StringSpec::new("s", 20).length(1.0).tension(100.0).linear_density(1e-3).pluck(0.3, 1e-3),
//! )?;
//! let wall = model.add_anchor(Anchor::new("wall"))?;
//! let bob = model.add_mass(Mass::new("bob", 0.01).position([1e-3]))?;
//! model.add_spring(Spring::new(wall, bob, 400.0).damping(0.01))?;
//!
//! let pickups = [PickupSpec::position(string[5]), PickupSpec::velocity(bob).channel(2)];
//! let config = EngineConfig::default().scheme(SchemeKind::VelocityVerlet).rate(44_100.0);
//! let mut engine = Engine::new(&model, &pickups, config)?;
//!
//! // The modes: the oscillator at sqrt(k / m) / 2 pi = 31.83 Hz, then the string's lowest at
//! // sqrt(T / rho) / 2L = 158.1 Hz (less a fraction of a percent for 20 masses); the scheme
//! // keeps every mode stable at this rate.
//! let analysis = engine.analyse(&AnalysisOptions::default())?;
//! assert!(analysis.is_stable());
//! let hz: Vec<f64> = analysis.modes.iter().map(|m| m.mode.frequency_hz()).collect();
//! assert!((hz[0] - 31.83).abs() < 0.01 && (hz[1] - 158.1).abs() < 1.0, "{hz:?}");
//!
//! // A block of 512 frames, one slice per channel.
//! let (mut left, mut right) = (vec![0.0f32; 512], vec![0.0f32; 512]);
//! engine.render(&mut [&mut left[..], &mut right[..]])?;
//! assert!(left.iter().any(|&x| x != 0.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The modules form layers, each importing only those below it (ARCHITECTURE.md):
//! [`limits`] and [`quantity`], [`linalg`], [`model`], [`system`], [`forces`], [`kernel`], [`scheme`],
//! [`analysis`], [`engine`], [`instrument`], [`score`], [`io`], [`format`]; [`prelude`] gathers
//! what most programs use. `crates/hooke/examples/` has three programs: a string built and
//! rendered in code, a model analysed and a string designed, a score played. The papers Hooke
//! implements are listed in docs/references.md, and their corrected mistakes in docs/errata.md.

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
pub mod limits;
pub mod linalg;
pub mod model;
pub mod prelude;
pub mod quantity;
pub mod scheme;
pub mod score;
pub mod system;
