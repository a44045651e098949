//! What can be said about a system without running it, and the invariants of a run.
//!
//! Linearisation ([`linearise`]), analog modes ([`modes`], [`lanczos`] for large models), each
//! scheme's mapping to discrete poles ([`discrete`], [`poles`]), the per-scheme analysis of a
//! model with its stability verdict and largest stable step ([`report`], [`stability`]), design
//! and tuning ([`design`]), the data of the figures of Morgan & Qiao 2009 ([`regions`]), and the
//! energy and discrete invariants of a run ([`energy`], [`invariants`]).

pub mod bar_design;
pub mod design;
pub mod discrete;
pub mod energy;
pub mod error;
pub mod invariants;
pub mod lanczos;
pub mod linearise;
pub mod modes;
pub mod parts;
pub mod plate_design;
pub mod poles;
pub mod recording;
pub mod regions;
pub mod report;
pub mod stability;
pub mod string_partials;
pub(crate) mod structure;
