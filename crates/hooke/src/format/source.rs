//! The one load-and-locate helper every format uses: read a file, parse its TOML, read a spec
//! type from it with serde, and turn what goes wrong (a syntax error, an unknown field, a
//! [`ModelError`] naming a field) into a [`SourceError`] at that field's line and column.

use crate::model::ModelError;
use serde::de::DeserializeOwned;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

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

/// Reads the text of a `what` file ("model", "score", ...) at `path`: returns the name errors
/// give it and its text. A file that cannot be read is an error at line 1, column 1.
pub(crate) fn read_source(path: &Path, what: &str) -> Result<(String, String), SourceError> {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(source) => Ok((file, source)),
        Err(e) => Err(SourceError::at(&file, "", 0..0, format!("cannot read the {what} file: {e}"))),
    }
}

/// One step of the way from a document's root to a value: a table key or an array index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'p> {
    /// The value of this key in a table.
    Key(&'p str),
    /// This element (0-based) of an array (`[[mass]]` tables are one).
    Index(usize),
}

/// A parsed TOML text with the span of every value, to place errors on what they are about.
pub(crate) struct Document<'a> {
    file: &'a str,
    source: &'a str,
    root: Spanned<DeValue<'a>>,
}

impl<'a> Document<'a> {
    /// Parses `source`, which errors call `file`; a TOML syntax error is located.
    pub(crate) fn parse(file: &'a str, source: &'a str) -> Result<Self, SourceError> {
        let table = DeTable::parse(source).map_err(|e| toml_error(file, source, &e))?;
        let span = table.span();
        Ok(Self { file, source, root: Spanned::new(span, DeValue::Table(table.into_inner())) })
    }

    /// Reads the whole document as `T` (a struct of spec types): an unknown field, a missing
    /// field or a value of the wrong type is an error at the offending text.
    pub(crate) fn read<T: DeserializeOwned>(&self) -> Result<T, SourceError> {
        toml::from_str(self.source).map_err(|e| toml_error(self.file, self.source, &e))
    }

    /// The span of the value at `path`, if the document has one.
    pub(crate) fn span(&self, path: &[Step<'_>]) -> Option<Range<usize>> {
        let mut value = &self.root;
        for step in path {
            value = match *step {
                Step::Key(key) => value.get_ref().get(key)?,
                Step::Index(index) => value.get_ref().get(index)?,
            };
        }
        Some(value.span())
    }

    /// The span of `field` in the table at `path`, or of the table itself when it lacks the
    /// field (or of the whole document, when there is no such table).
    pub(crate) fn field_span(&self, path: &[Step<'_>], field: &str) -> Range<usize> {
        let mut field_path = path.to_vec();
        field_path.push(Step::Key(field));
        self.span(&field_path).or_else(|| self.span(path)).unwrap_or(0..0)
    }

    /// An error at `span` with `message`.
    pub(crate) fn error_at(&self, span: Range<usize>, message: impl Into<String>) -> SourceError {
        SourceError::at(self.file, self.source, span, message)
    }

    /// Places `error`, raised for the table at `path`, on the field it names, or on the table.
    pub(crate) fn locate(&self, path: &[Step<'_>], error: &ModelError) -> SourceError {
        self.locate_as(path, error, &[])
    }

    /// [`Document::locate`] as a function of the error, for `map_err`.
    pub(crate) fn at<'p>(&'p self, path: &'p [Step<'p>]) -> impl Fn(ModelError) -> SourceError + 'p {
        move |error| self.locate(path, &error)
    }

    /// Like [`Document::locate`], where the rules may name a field under another name than the
    /// file: `aliases` maps one to the other (`("b", "to")`: a chain's tie link is its `to`).
    pub(crate) fn locate_as(
        &self,
        path: &[Step<'_>],
        error: &ModelError,
        aliases: &[(&str, &str)],
    ) -> SourceError {
        let field =
            aliases.iter().find(|(rule, _)| *rule == error.field).map_or(error.field, |(_, file)| *file);
        self.error_at(self.field_span(path, field), error.to_string())
    }
}

/// A TOML or serde error, located.
fn toml_error(file: &str, source: &str, error: &toml::de::Error) -> SourceError {
    SourceError::at(file, source, error.span().unwrap_or(0..0), error.message().trim_end())
}
