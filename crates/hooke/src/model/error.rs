//! Validation errors of a model, and errors located in a source file.

use std::fmt;
use std::ops::Range;

/// A model element or setting that breaks a rule: which element, which field, what was expected
/// and what was found. The TOML loader turns it into a [`SourceError`] pointing at the field.
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

/// An error located in a source text: file, line and column (both 1-based), the offending text
/// and what was expected. `Display` gives `file:line:column: message` and the offending text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct SourceError {
    /// The file name as given by the caller (a path, or a label such as `<demo>`).
    pub file: String,
    /// 1-based line of the start of the offending text.
    pub line: usize,
    /// 1-based column (in characters) of the start of the offending text.
    pub column: usize,
    /// Byte range of the offending text in the source.
    pub span: Range<usize>,
    /// The offending text itself (shortened if long).
    pub found: String,
    /// What went wrong and what was expected.
    pub message: String,
}

impl SourceError {
    /// Locates `span` in `source` and builds the error.
    pub fn at(file: &str, source: &str, span: Range<usize>, message: impl Into<String>) -> Self {
        let start = floor_char_boundary(source, span.start.min(source.len()));
        let end = floor_char_boundary(source, span.end.clamp(start, source.len()));
        let before = &source[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = source[line_start..start].chars().count() + 1;
        Self {
            file: file.to_string(),
            line,
            column,
            span: start..end,
            found: shorten(&source[start..end]),
            message: message.into(),
        }
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)?;
        if !self.found.is_empty() {
            write!(f, " (at `{}`)", self.found)?;
        }
        Ok(())
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The first line of `text`, at most 60 characters, with an ellipsis when cut.
fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    let first_line = text.lines().next().unwrap_or("");
    let cut: String = first_line.chars().take(MAX).collect();
    if cut.len() < text.trim_end().len() {
        format!("{cut}...")
    } else {
        cut
    }
}
