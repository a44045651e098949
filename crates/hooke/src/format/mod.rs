//! The file formats: the TOML model format ([`model`]: the network, `[run]`, `[[pickup]]` and
//! `[output]`), the instrument format ([`instrument`]) and the score format ([`score`]).
//!
//! This layer sits above the model, the engine, the instruments and the scores, and only reads
//! text: each format is a serde view of the spec types of the layer it describes (a `[[mass]]` is
//! a [`Mass`](crate::model::Mass), a `[drum]` a
//! [`DrumSpec`](crate::instrument::drum::DrumSpec)), and every format shares one
//! load-and-locate helper, so that any error, whether TOML syntax, an unknown field or a broken
//! rule, is a [`SourceError`] naming the file, line and column of the offending text.

pub mod instrument;
pub mod midi;
pub mod model;
pub mod score;
mod signal;
mod source;
pub mod tuning;

pub use source::{read_source, SourceError};
