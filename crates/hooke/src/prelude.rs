//! The names most programs need, in one `use hooke::prelude::*;`: the model and its elements,
//! the engine and its configuration, the analysis and the design of a string, the file formats'
//! loaders, instruments and scores, and one-call writers for WAV and CSV.

pub use crate::analysis::design::{design_string, StringDesign, TuneTarget};
pub use crate::analysis::report::{AnalysisOptions, SchemeAnalysis};
pub use crate::engine::{
    Engine, EngineConfig, EngineError, Event, PathKind, PickupSpec, Pickups, Precision, Quantity, RunError,
};
pub use crate::format::SourceError;
pub use crate::instrument::Instrument;
pub use crate::io::{write_csv_file, write_wav_file, SampleFormat, WavOptions};
pub use crate::model::{
    Anchor, ChainSpec, Damper, Mass, MembraneSpec, Model, ModelError, Node, NodeRef, Spring, StringSpec,
};
pub use crate::scheme::SchemeKind;
pub use crate::score::performance::{Performance, PerformanceOptions};
pub use crate::system::System;
