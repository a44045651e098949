//! Turning library errors into miette reports.

use hooke::format::SourceError;
use miette::{Diagnostic, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// A [`SourceError`] with the lines of its source around it, so miette can show the offending
/// line.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{error}")]
pub struct FileDiagnostic {
    error: SourceError,
    #[source_code]
    excerpt: Excerpt,
    #[label("here")]
    span: SourceSpan,
}

impl FileDiagnostic {
    /// Wraps `error`, found in `source`.
    pub fn new(error: SourceError, source: &str) -> Self {
        let (excerpt, span) = Excerpt::new(&error, source);
        Self { error, excerpt, span }
    }
}

/// The most characters of a source line shown under an error: a longer line is cut to a
/// window around the error's column, marked with [`CUT`] where cut.
const WINDOW: usize = 120;

/// How many characters of the window come before the error's column.
const WINDOW_BEFORE: usize = 40;

/// What marks a cut line's missing start or end.
const CUT: &str = "...";

/// The error's line and the lines just before and after it, each cut to the same window of
/// [`WINDOW`] characters around the error's column (or, for a line around it that ends before
/// the window, to its first [`WINDOW`] characters): what miette draws under a message, a few
/// hundred bytes whatever the length of the file's lines (a 1 MB line is not echoed; miette's
/// padding, which takes widths below 2^16, is never asked for more). The line numbers and the
/// column miette prints are those of the original file.
#[derive(Debug)]
struct Excerpt {
    name: String,
    /// The cut lines, joined by line breaks.
    text: String,
    /// The 0-based line number of the first line of `text` in the file.
    first_line: usize,
    /// The 0-based column of the error in the file, in characters.
    column: usize,
}

impl Excerpt {
    /// The excerpt of `source` around `error`, and the error's span in it (on its first line).
    fn new(error: &SourceError, source: &str) -> (Self, SourceSpan) {
        let lines: Vec<&str> = source.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
        let line = error.line.clamp(1, lines.len()) - 1;
        let column = error.column.saturating_sub(1);
        let first = column.saturating_sub(WINDOW_BEFORE).min(
            lines[line].chars().count().saturating_sub(WINDOW), // a short line is shown whole
        );
        let first_line = line.saturating_sub(1);
        let mut text = String::new();
        let mut span = SourceSpan::from(0..0);
        for (index, full) in lines.iter().enumerate().take(line + 2).skip(first_line) {
            if index > first_line {
                text.push('\n');
            }
            let line_start = text.len();
            // A line around the error that ends before the window is shown from its start.
            let shown_from = if index == line || full.chars().count() > first { first } else { 0 };
            let (cut, start) = window(full, shown_from);
            if index == line {
                // From the error's column to the end of its text on this line or of the window.
                let shown = line_start + start;
                let at = shown + byte_offset(full, first, column);
                let on_line: usize = full.chars().skip(column).map(char::len_utf8).sum();
                let end = (at + error.span.len().min(on_line))
                    .min(shown + byte_offset(full, first, first + WINDOW));
                span = SourceSpan::from(at..end);
            }
            text.push_str(&cut);
        }
        (Self { name: error.file.clone(), text, first_line, column }, span)
    }
}

/// `line`'s characters from `first` on, at most [`WINDOW`] of them, with [`CUT`] where it is
/// cut; and the byte offset in the result where character `first` of the line starts.
fn window(line: &str, first: usize) -> (String, usize) {
    let mut text = String::new();
    if first > 0 && line.chars().count() > 0 {
        text.push_str(CUT);
    }
    let start = text.len();
    text.extend(line.chars().skip(first).take(WINDOW));
    if line.chars().count() > first + WINDOW {
        text.push_str(CUT);
    }
    (text, start)
}

/// The bytes of `line`'s characters from `first` to `column` (0 when `column` is before
/// `first`).
fn byte_offset(line: &str, first: usize, column: usize) -> usize {
    line.chars().skip(first).take(column.saturating_sub(first)).map(char::len_utf8).sum()
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self.text.read_span(span, context_lines_before, context_lines_after)?;
        // The span alone is read for the position printed above the lines: the error's own.
        let column = if context_lines_before == 0 { self.column } else { contents.column() };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            contents.data(),
            *contents.span(),
            self.first_line + contents.line(),
            column,
            contents.line_count(),
        )))
    }
}
