//! The validation error of a model element or setting.

use std::fmt;

/// A model element or setting that breaks a rule: which element, which field, what was expected
/// and what was found. The file formats (a layer above)
/// turn it into a `SourceError` pointing at the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{subject}: `{field}`: expected {expected}, found {found}")]
pub struct ModelError {
    /// The element, e.g. `mass "m0"` or `spring "s3"`.
    pub subject: String,
    /// The offending field, named as in the model file (`mass`, `stiffness`, `a`, ...).
    pub field: &'static str,
    /// What the rule asks for.
    pub expected: String,
    /// What was given.
    pub found: String,
}

impl ModelError {
    pub(crate) fn new(
        subject: impl Into<String>,
        field: &'static str,
        expected: impl Into<String>,
        found: impl fmt::Display,
    ) -> Self {
        Self { subject: subject.into(), field, expected: expected.into(), found: found.to_string() }
    }
}
