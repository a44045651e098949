//! Turning library errors into miette reports.

use hooke::format::SourceError;
use miette::{Diagnostic, NamedSource, SourceSpan};

/// A [`SourceError`] with its source text, so miette can show the offending line.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{error}")]
pub struct FileDiagnostic {
    error: SourceError,
    #[source_code]
    source_code: NamedSource<String>,
    #[label("here")]
    span: SourceSpan,
}

impl FileDiagnostic {
    /// Wraps `error`, found in `source`.
    pub fn new(error: SourceError, source: &str) -> Self {
        let span = SourceSpan::from(error.span.clone());
        Self { source_code: NamedSource::new(error.file.clone(), source.to_string()), error, span }
    }
}
