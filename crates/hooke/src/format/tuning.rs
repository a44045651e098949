//! Scala tuning files: a scale (`.scl`) and a keyboard map (`.kbm`), read into a
//! [`Tuning`] (Manuel Op de Coul, *Scala* file formats,
//! <https://www.huygens-fokker.org/scala/scl_format.html>).
//!
//! Both are lines of text; a line starting with `!` is a comment. A scale: a description line,
//! the number of degrees `n`, then `n` pitches, one a line (its first word; text after it is a
//! comment): cents where the word has a `.` (`386.314`), else a ratio of positive integers
//! (`5/4`, or `2` for `2/1`); the last is the period. A keyboard map: its size, first and last
//! key, middle key, reference key, reference frequency (Hz), octave degree, then one line per
//! entry of the pattern, a degree or `x` (unmapped); entries left out are unmapped. Files are
//! read as text with any byte that is not UTF-8 replaced (descriptions are often Latin-1).

use super::source::SourceError;
use crate::score::tuning::{KeyboardMap, Scale, Tuning};
use std::ops::Range;
use std::path::Path;

/// The largest tuning file read, bytes: far above any scale's.
pub const MAX_TUNING_FILE: u64 = 1 << 20;

/// The most degrees a scale, or entries a keyboard map, may have.
pub const MAX_DEGREES: usize = 4096;

/// The scale at `scale` on the keyboard map at `map` (the default map,
/// [`KeyboardMap::default`], without one).
pub fn load(scale: &Path, map: Option<&Path>) -> Result<Tuning, SourceError> {
    let (file, text) = read(scale, "scale")?;
    let parsed = parse_scale(&text, &file)?;
    let (map, map_file) = match map {
        Some(path) => {
            let (file, text) = read(path, "keyboard map")?;
            (parse_keyboard_map(&text, &file)?, Some((file, text)))
        }
        None => (KeyboardMap::default(), None),
    };
    Tuning::new(parsed, map).map_err(|expected| {
        let (file, text) = map_file.unwrap_or((file, text));
        SourceError::at(&file, &text, 0..0, format!("expected {expected}"))
    })
}

/// Reads a `what` file at `path`, refusing one over [`MAX_TUNING_FILE`] before reading it.
fn read(path: &Path, what: &str) -> Result<(String, String), SourceError> {
    let file = path.display().to_string();
    let failed = |message: String| SourceError::at(&file, "", 0..0, message);
    let size =
        std::fs::metadata(path).map_err(|e| failed(format!("cannot read the {what} file: {e}")))?.len();
    if size > MAX_TUNING_FILE {
        return Err(failed(format!(
            "expected a {what} file of at most {MAX_TUNING_FILE} bytes, found {size} bytes"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| failed(format!("cannot read the {what} file: {e}")))?;
    Ok((file, String::from_utf8_lossy(&bytes).into_owned()))
}

/// The lines of `text` that are not comments, each with its byte range.
fn lines(text: &str) -> impl Iterator<Item = (&str, Range<usize>)> {
    let mut start = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let range = start..start + line.trim_end_matches(['\n', '\r']).len();
        start += line.len();
        let line = &text[range.clone()];
        (!line.starts_with('!')).then_some((line, range))
    })
}

/// The first word of a line and its byte range (the line's own range where it has none).
fn first_word(line: &str, range: &Range<usize>) -> (String, Range<usize>) {
    let trimmed = line.trim_start();
    let start = range.start + line.len() - trimmed.len();
    let word = trimmed.split_whitespace().next().unwrap_or("");
    (word.to_string(), start..start + word.len())
}

/// A scale from the text of a `.scl` file named `file`.
pub fn parse_scale(text: &str, file: &str) -> Result<Scale, SourceError> {
    let error = |range: Range<usize>, message: String| SourceError::at(file, text, range, message);
    let mut lines = lines(text);
    let end = text.len()..text.len();
    let Some((description, _)) = lines.next() else {
        return Err(error(end, "expected a description line, then the number of degrees".into()));
    };
    let mut lines = lines.filter(|(line, _)| !line.trim().is_empty());
    let Some((line, range)) = lines.next() else {
        return Err(error(end, "expected the number of degrees after the description".into()));
    };
    let (word, at) = first_word(line, &range);
    let count = word.parse::<usize>().ok().filter(|n| (1..=MAX_DEGREES).contains(n)).ok_or_else(|| {
        error(at.clone(), format!("expected the number of degrees, from 1 to {MAX_DEGREES}, found `{word}`"))
    })?;
    let mut cents = Vec::with_capacity(count);
    for (line, range) in lines.by_ref().take(count) {
        let (word, at) = first_word(line, &range);
        cents.push(pitch(&word).ok_or_else(|| {
            error(
                at,
                format!("expected a pitch: cents with a `.` (386.314) or a ratio of positive integers (5/4, 2), found `{word}`"),
            )
        })?);
    }
    if cents.len() < count {
        return Err(error(
            end,
            format!("expected {count} pitches (the number of degrees), found {}", cents.len()),
        ));
    }
    if let Some((line, range)) = lines.next() {
        let (word, at) = first_word(line, &range);
        return Err(error(at, format!("expected the file to end after its {count} pitches, found `{word}`")));
    }
    if cents[count - 1] <= 0.0 {
        return Err(error(
            end,
            format!("expected a last pitch (the period) above 0 cents, found {} cents", cents[count - 1]),
        ));
    }
    Ok(Scale { description: description.trim().to_string(), cents })
}

/// Cents from a Scala pitch word: cents where it has a `.`, else a ratio of positive integers.
fn pitch(word: &str) -> Option<f64> {
    if word.contains('.') {
        return word.parse::<f64>().ok().filter(|c| c.is_finite());
    }
    let (numerator, denominator) = word.split_once('/').unwrap_or((word, "1"));
    let [a, b] = [numerator, denominator].map(|n| n.parse::<u64>().ok().filter(|&n| n > 0));
    Some(1200.0 * (a? as f64 / b? as f64).log2())
}

/// A keyboard map from the text of a `.kbm` file named `file`.
pub fn parse_keyboard_map(text: &str, file: &str) -> Result<KeyboardMap, SourceError> {
    let error = |range: Range<usize>, message: String| SourceError::at(file, text, range, message);
    let mut lines = lines(text).filter(|(line, _)| !line.trim().is_empty());
    const HEADER: [&str; 7] = [
        "the map size (keys in the pattern, 0 for a linear map)",
        "the first key retuned (a MIDI note, 0-127)",
        "the last key retuned (a MIDI note, 0-127)",
        "the middle key (a MIDI note, 0-127)",
        "the reference key (a MIDI note, 0-127)",
        "the reference frequency, Hz (above 0, at most 1e6)",
        "the octave degree (0 for the scale's period)",
    ];
    let mut header = [0.0; 7];
    let mut spans: [Range<usize>; 7] = Default::default();
    for (i, expected) in HEADER.iter().enumerate() {
        let Some((line, range)) = lines.next() else {
            return Err(error(
                text.len()..text.len(),
                format!("expected {expected}, found the end of the file"),
            ));
        };
        let (word, at) = first_word(line, &range);
        let limit = match i {
            0 | 6 => MAX_DEGREES as f64,
            5 => 1e6,
            _ => 127.0,
        };
        let integer = i != 5;
        header[i] = word
            .parse::<f64>()
            .ok()
            .filter(|v| {
                v.is_finite() && *v <= limit && if integer { v.fract() == 0.0 && *v >= 0.0 } else { *v > 0.0 }
            })
            .ok_or_else(|| error(at.clone(), format!("expected {expected}, found `{word}`")))?;
        spans[i] = at;
    }
    let [size, first, last, middle, reference, reference_hz, octave_degree] = header;
    if first > last {
        return Err(error(
            spans[2].clone(),
            format!("expected a last key at or above the first, {first}, found {last}"),
        ));
    }
    let size = size as usize;
    let mut pattern = Vec::with_capacity(size);
    for (line, range) in lines.by_ref().take(size) {
        let (word, at) = first_word(line, &range);
        pattern.push(match word.as_str() {
            "x" | "X" => None,
            _ => Some(word.parse::<usize>().ok().filter(|&d| d <= MAX_DEGREES).ok_or_else(|| {
                error(at, format!("expected a scale degree (0 to {MAX_DEGREES}) or `x`, found `{word}`"))
            })?),
        });
    }
    if let Some((line, range)) = lines.next() {
        let (word, at) = first_word(line, &range);
        return Err(error(at, format!("expected the file to end after its {size} entries, found `{word}`")));
    }
    let key = |v: f64| v as u8;
    Ok(KeyboardMap {
        size,
        first: key(first),
        last: key(last),
        middle: key(middle),
        reference: key(reference),
        reference_hz,
        octave_degree: octave_degree as usize,
        pattern,
    })
}
