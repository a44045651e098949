//! What can go wrong while making a picture.

use std::path::PathBuf;

/// An error from `hooke-plot`: bad input (a file name, a mass, a model that does not suit the
/// kind of plot), a failed simulation or analysis, or a failure to draw or write the file.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The output file's extension names no format this kind of plot can write.
    #[error("{path}: expected a file name ending in {expected}, found {found}")]
    Extension {
        /// The output path.
        path: PathBuf,
        /// The extensions allowed, e.g. `.png or .svg`.
        expected: &'static str,
        /// What the path ends in, e.g. `".jpg"` or `no extension`.
        found: String,
    },
    /// A mass (or `MASS.AXIS`) that the model does not have.
    #[error("unknown mass \"{found}\": expected one of the model's masses ({expected}), optionally with .x, .y or .z")]
    UnknownMass {
        /// What was asked for.
        found: String,
        /// The masses the model has (the first few).
        expected: String,
    },
    /// The model does not suit this plot (e.g. a trajectory of a 1D model).
    #[error("{0}")]
    Unsuitable(String),
    /// The analysis of the model failed.
    #[error("analysis failed: {0}")]
    Analysis(#[from] hooke::analysis::error::AnalysisError),
    /// A simulation stopped before it produced anything to plot.
    #[error("{scheme}: {source}")]
    Run {
        /// The scheme that was running.
        scheme: hooke::scheme::SchemeKind,
        /// Why it stopped.
        source: hooke::engine::RunError,
    },
    /// There is nothing to draw (every series is empty or not finite).
    #[error("nothing to plot: {0}")]
    Empty(String),
    /// Drawing failed (a backend or font error).
    #[error("drawing failed: {0}")]
    Draw(String),
    /// Writing the output file failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The output path.
        path: PathBuf,
        /// The I/O or encoding error.
        source: std::io::Error,
    },
}
