//! The validation error of a model element or setting, and the tidying every error message of
//! the library goes through.

use crate::limits::MAX_QUOTED_CHARS;
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
    /// The error, with each text [`tidy`]: a long id quoted in it is cut, a number is short.
    pub(crate) fn new(
        subject: impl Into<String>,
        field: &'static str,
        expected: impl Into<String>,
        found: impl fmt::Display,
    ) -> Self {
        Self {
            subject: tidy(&subject.into()),
            field,
            expected: tidy(&expected.into()),
            found: tidy(&found.to_string()),
        }
    }
}

/// Numbers written in more characters than this are rewritten in exponent form when that is
/// shorter (`1e300`, not 301 digits).
const LONG_NUMBER: usize = 12;

/// A message made short whatever the user wrote: text quoted in it (between `"` or backticks)
/// longer than [`MAX_QUOTED_CHARS`] is cut, with an ellipsis, and followed by its length
/// (`"xxx..." (1000000 characters)`); a number that an `f64` writes out in full (`Display`
/// gives 1e300 as 301 digits) is written in exponent form, to the same value (`1e300`). Numbers
/// inside double quotes are user text and stay as they are. Double-quoted text is escaped as
/// Rust's `Debug` writes strings (serde's messages quote values so): `\"` inside it does not close
/// it. Tidying a tidy text changes nothing.
pub(crate) fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * MAX_QUOTED_CHARS));
    let mut rest = text;
    let mut previous = ' ';
    while let Some(c) = rest.chars().next() {
        if c == '"' || c == '`' {
            let inner = &rest[1..];
            let (content, closed) = match closing_quote(inner, c) {
                Some(end) => (&inner[..end], true),
                None => (inner, false),
            };
            out.push(c);
            let length = content.chars().count();
            let cut = match short_number(content).filter(|_| c == '`') {
                Some(number) => {
                    out.push_str(&number);
                    false
                }
                None if length > MAX_QUOTED_CHARS => {
                    out.extend(content.chars().take(MAX_QUOTED_CHARS - 3));
                    out.push_str("...");
                    true
                }
                None => {
                    out.push_str(content);
                    false
                }
            };
            if closed {
                out.push(c);
            }
            if cut {
                out.push_str(&format!(" ({length} characters)"));
            }
            rest = &inner[content.len() + usize::from(closed)..];
            previous = c;
            continue;
        }
        let starts_number =
            c.is_ascii_digit() || (c == '-' && rest[1..].starts_with(|d: char| d.is_ascii_digit()));
        if starts_number && !previous.is_alphanumeric() {
            let length =
                1 + rest[1..].find(|d: char| !(d.is_ascii_digit() || d == '.')).unwrap_or(rest.len() - 1);
            let token = &rest[..length];
            out.push_str(&short_number(token).unwrap_or_else(|| token.to_string()));
            rest = &rest[length..];
            previous = '0';
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
        previous = c;
    }
    out
}

/// The byte offset in `inner` of the quote `mark` that closes a text opened just before it: for
/// a double quote, one not escaped by a backslash.
fn closing_quote(inner: &str, mark: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in inner.char_indices() {
        if c == mark && !escaped {
            return Some(at);
        }
        escaped = mark == '"' && c == '\\' && !escaped;
    }
    None
}

/// `text` in double quotes, with `"` and `\` escaped, [`tidy`]: cut at [`MAX_QUOTED_CHARS`]
/// characters when longer.
pub fn quoted(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    tidy(&format!("\"{escaped}\""))
}

/// `text` for a message where it is not quoted (a model's or a score's name in a header): its
/// first line, cut at [`MAX_QUOTED_CHARS`] characters when longer, with an ellipsis and the
/// whole text's length (`xxx... (1000000 characters)`).
pub fn clip(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or("");
    let length = text.chars().count();
    if first_line.len() == text.len() && length <= MAX_QUOTED_CHARS {
        return text.to_string();
    }
    let head: String = first_line.chars().take(MAX_QUOTED_CHARS - 3).collect();
    format!("{head}... ({length} characters)")
}

/// The smallest magnitude [`number`] writes in fixed notation.
const SMALLEST_FIXED: f64 = 1e-3;
/// The magnitude from which [`number`] writes exponent form.
const LARGEST_FIXED: f64 = 1e9;

/// `value` for a message, in few characters: fixed notation with up to six decimals, trailing
/// zeros dropped, from 1e-3 to 1e9 in magnitude (`2645.08`, `0.5`, `0`); beyond, exponent form,
/// as short as reads back the same value when that takes at most [`LONG_NUMBER`] characters
/// (`5e-324`), else to six significant digits (`3.33333e59`): never 300 digits. `inf`, `NaN`.
pub fn number(value: f64) -> String {
    let magnitude = value.abs();
    if !value.is_finite() {
        return value.to_string();
    }
    if magnitude == 0.0 || (SMALLEST_FIXED..LARGEST_FIXED).contains(&magnitude) {
        let text = format!("{value:.6}");
        return text.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    let shortest = format!("{value:e}");
    if shortest.len() <= LONG_NUMBER {
        return shortest;
    }
    let text = format!("{value:.5e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    format!("{}e{exponent}", mantissa.trim_end_matches('0').trim_end_matches('.'))
}

/// `token` in exponent form, if it is an `f64` as `Display` writes it (`serde` adds `.0`),
/// longer than [`LONG_NUMBER`] characters, and the exponent form is shorter.
fn short_number(token: &str) -> Option<String> {
    if token.len() <= LONG_NUMBER {
        return None;
    }
    let value: f64 = token.parse().ok()?;
    let written = value.to_string();
    if token != written && token.strip_suffix(".0") != Some(written.as_str()) {
        return None;
    }
    let short = format!("{value:e}");
    (short.len() < token.len()).then_some(short)
}

#[cfg(test)]
mod tests {
    use super::{clip, number, quoted, tidy};

    #[test]
    fn numbers_are_short_and_names_are_clipped() {
        let cases = [
            (2645.08, "2645.08"),
            (0.1 + 0.2, "0.3"),
            (0.5, "0.5"),
            (0.0, "0"),
            (-1e-4, "-1e-4"),
            (1.0 / 3.0 * 1e60, "3.33333e59"),
            (5e-324, "5e-324"),
            (-1.0 / 3.0 * 1e-40, "-3.33333e-41"),
            (f64::INFINITY, "inf"),
        ];
        for (value, text) in cases {
            assert_eq!(number(value), text, "{value:e}");
        }
        assert_eq!(clip("short name"), "short name");
        assert_eq!(clip(&"n".repeat(61)), format!("{}... (61 characters)", "n".repeat(57)));
        assert_eq!(clip("two\nlines"), "two... (9 characters)");
    }

    #[test]
    fn long_quoted_text_is_cut_and_long_numbers_are_short() {
        let id = "x".repeat(100);
        // As f64's Display writes them (and serde, with `.0`).
        let text = format!("mass \"{id}\": found {} and `{}.0`", 1e300, 1.5e25);
        let tidied = tidy(&text);
        let cut = format!("\"{}...\" (100 characters)", "x".repeat(57));
        assert_eq!(tidied, format!("mass {cut}: found 1e300 and `1.5e25`"));
        // Tidying is idempotent; short text, user numbers in quotes and integers past 2^53 stay.
        assert_eq!(tidy(&tidied), tidied);
        let kept = "string \"12345678901234567890\": found 9223372036854775807, 2.5 and -0.001";
        assert_eq!(tidy(kept), kept);
        // An unclosed quote is cut like a closed one.
        assert_eq!(tidy(&format!("id \"{id}")), format!("id \"{}... (100 characters)", "x".repeat(57)));
    }

    #[test]
    fn a_quoted_text_with_escaped_quotes_is_cut_as_one_text() {
        // As serde quotes a string value: `Debug`, with its quotes escaped.
        let value = format!("a = \"{}\"\n", "y".repeat(200));
        let message = format!("invalid type: string {value:?}, expected a number");
        let tidied = tidy(&message);
        let length = format!("{value:?}").chars().count() - 2;
        let head: String = format!("{value:?}").chars().skip(1).take(57).collect();
        assert_eq!(
            tidied,
            format!("invalid type: string \"{head}...\" ({length} characters), expected a number")
        );
        assert_eq!(tidy(&tidied), tidied);
        // An id with quotes and backslashes is escaped, so its quotes do not end it.
        assert_eq!(quoted("a\"b\\"), "\"a\\\"b\\\\\"");
    }
}
