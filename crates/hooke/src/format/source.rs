//! The one load-and-locate helper every format uses: read a file, parse its TOML, read a spec
//! type from it with serde, and turn what goes wrong (a syntax error, an unknown field, a
//! [`ModelError`] naming a field) into a [`SourceError`] at that field's line and column.

use crate::model::{tidy, ModelError};
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
    /// Locates `span` in `source` and builds the error; the message is tidied (long quoted text
    /// cut, long numbers in exponent form).
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
            message: tidy(&message.into()),
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

/// Reads the text of a `what` file ("model", "instrument", "score") at `path`: returns the name
/// errors give it and its text. A file that cannot be read is an error at line 1, column 1; one
/// that is not UTF-8 text, an error at its first byte that is not.
pub fn read_source(path: &Path, what: &str) -> Result<(String, String), SourceError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| SourceError::at(&file, "", 0..0, format!("cannot read the {what} file: {e}")))?;
    match String::from_utf8(bytes) {
        Ok(source) => Ok((file, source)),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let text = String::from_utf8_lossy(&bytes[..valid]);
            let mut error = SourceError::at(
                &file,
                &text,
                valid..valid,
                format!(
                    "expected UTF-8 text in the {what} file, found the byte 0x{:02X}, which is not UTF-8",
                    bytes[valid]
                ),
            );
            error.span = valid..valid + 1;
            Err(error)
        }
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

/// A TOML or serde error, located, with serde's names of Rust types in words.
fn toml_error(file: &str, source: &str, error: &toml::de::Error) -> SourceError {
    SourceError::at(file, source, error.span().unwrap_or(0..0), plain(error.message().trim_end()))
}

/// What serde says a value is or a field expects, and what a file's author reads instead.
const TYPE_WORDS: [(&str, &str); 6] = [
    ("expected usize", "expected a whole number >= 0"),
    ("expected u64", "expected a whole number >= 0"),
    ("expected f64", "expected a number"),
    ("expected a sequence", "expected an array"),
    ("invalid type: sequence", "invalid type: array"),
    ("invalid type: map", "invalid type: table"),
];

/// `message` with serde's words for Rust types ([`TYPE_WORDS`], and `struct Name`, the
/// expectation of a table read as a struct) in a file's words.
fn plain(message: &str) -> String {
    let mut message = message.to_string();
    for (rust, words) in TYPE_WORDS {
        message = message.replace(rust, words);
    }
    while let Some(at) = message.find("expected struct ") {
        let name_start = at + "expected struct ".len();
        let name_end = message[name_start..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(message.len(), |i| name_start + i);
        message.replace_range(at..name_end, "expected a table");
    }
    message
}
