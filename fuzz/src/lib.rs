//! What the fuzz targets share: the bound on the work one input may ask for, the checks every
//! error message must pass, and the instruments that scores and MIDI files are played on.
//!
//! The fuzzer is here to find crashes, hangs and runaway allocations, not slowness, so an
//! input that asks for a large model is skipped, unless it asks for more than the library's
//! limits ([`hooke::limits`]), which the library must refuse at once: those are read.

use hooke::format::SourceError;
use hooke::instrument::drum::DrumSpec;
use hooke::instrument::guitar::GuitarSpec;
use hooke::instrument::marimba::MarimbaSpec;
use hooke::instrument::pendulum::PendulumSpec;
use hooke::instrument::plates::PlatesSpec;
use hooke::instrument::reed::ReedSpec;
use hooke::instrument::sitar::SitarSpec;
use hooke::instrument::{Instrument, InstrumentSpec};
use hooke::limits::MAX_NODES;
use hooke::score::performance::{Performance, PerformanceOptions};
use hooke::score::Score;
use std::sync::OnceLock;
use toml::{Table, Value};

/// The most nodes (masses and anchors) an input read by the format targets may make.
pub const READ_NODES: u64 = 2_000;

/// The most nodes an instrument built by the instrument target may have: building designs or
/// tunes it, and checks it stable, for each oversampling tried (up to 16), with a dense
/// analysis whose cost grows as the cube of the size.
pub const BUILD_NODES: u64 = 400;

/// The most nodes a model analysed by the analysis target may have: a non-modal model of this
/// size takes about 15 eigenvalue problems of twice its size, about a second in the fuzzing
/// build (the 12 x 12 plate of the tests, 288 nodes, took over libFuzzer's 10 s).
pub const ANALYSE_NODES: u64 = 100;

/// The most nodes a model stepped by the engine target may have.
pub const STEP_NODES: u64 = 64;

/// The longest error message a file may cause, in characters: quoted user text is cut to 60
/// characters and numbers are short, so even the longest lists of expected fields and
/// schemes stay well under this.
pub const MAX_MESSAGE_CHARS: usize = 1_500;

/// Words of serde's vocabulary that must never reach a user: Rust's type names.
const RUST_WORDS: [&str; 8] = ["usize", "u64", "i64", "f64", "untagged", "struct ", "enum ", "sequence"];

/// The text of `data`, if it is worth reading with a node cap of `cap`: UTF-8, naming no file
/// to read (a `wav` field), and, when it is TOML, asking for at most `cap` nodes or for more
/// than the library's [`MAX_NODES`]. Text that is not TOML is read too (the library must say
/// where it breaks).
pub fn worth_reading(data: &[u8], cap: u64) -> Option<&str> {
    let text = std::str::from_utf8(data).ok()?;
    let Ok(table) = text.parse::<Table>() else {
        return Some(text);
    };
    let (nodes, reads_files) = estimate(&table, 1);
    (within(nodes, cap) && !reads_files).then_some(text)
}

/// Whether `text` (TOML) asks for at most `cap` nodes, or for more than the library's limit
/// (which it must refuse at once).
pub fn asks_for_at_most(text: &str, cap: u64) -> bool {
    text.parse::<Table>().is_ok_and(|table| within(estimate(&table, 1).0, cap))
}

/// Whether `nodes` is at most `cap` or past [`MAX_NODES`].
fn within(nodes: u64, cap: u64) -> bool {
    nodes <= cap || nodes > MAX_NODES as u64
}

/// The nodes the tables of `table` ask for (with `strings` strings each), and whether any
/// names a file: each table's `masses`, `columns` and `rows` multiplied together (a guitar's
/// by its strings, 6 unless `tuning` lists them), summed over every table.
fn estimate(table: &Table, strings: u64) -> (u64, bool) {
    let count = |key: &str| match table.get(key) {
        Some(Value::Integer(n)) => Some(u64::try_from(*n).unwrap_or(0)),
        _ => None,
    };
    let sizes = ["masses", "columns", "rows"].map(count);
    let mut nodes = if sizes.iter().any(Option::is_some) {
        sizes.iter().flatten().fold(strings, |product, n| product.saturating_mul(n.saturating_add(2)))
    } else {
        0
    };
    let mut reads_files = table.contains_key("wav");
    for (key, value) in table {
        let strings = match (key.as_str(), value.get("tuning")) {
            ("guitar", Some(Value::Array(tuning))) => tuning.len() as u64,
            ("guitar", _) => 6,
            _ => 1,
        };
        let (more, files) = match value {
            Value::Table(inner) => estimate(inner, strings),
            Value::Array(items) => items.iter().fold((0u64, false), |(n, f), item| match item {
                Value::Table(inner) => {
                    let (more, files) = estimate(inner, 1);
                    (n.saturating_add(more), f || files)
                }
                _ => (n, f),
            }),
            _ => (0, false),
        };
        nodes = nodes.saturating_add(more);
        reads_files |= files;
    }
    (nodes, reads_files)
}

/// Checks an error the library gave for `source`: a position inside the text (line and
/// column from 1), a short message that names no Rust type (unless the text itself has the
/// word, in an id for instance).
pub fn check_error(error: &SourceError, source: &str) {
    let message = error.to_string();
    assert!(error.line >= 1 && error.column >= 1, "position of: {message}");
    assert!(error.span.start <= error.span.end && error.span.end <= source.len(), "span of: {message}");
    assert!(message.chars().count() <= MAX_MESSAGE_CHARS, "{} characters: {message}", message.len());
    for word in RUST_WORDS.iter().filter(|word| !source.contains(*word)) {
        assert!(!error.message.contains(word), "`{word}` in: {message}");
    }
}

/// The most simulation steps of a performance.
const PERFORMANCE_STEPS: u64 = 2_048;

/// Each instrument with its defaults, built once at 44.1 kHz with the oversampling the
/// analysis chooses: the oversampling and the instrument.
pub fn instruments() -> &'static [(usize, Instrument)] {
    static INSTRUMENTS: OnceLock<Vec<(usize, Instrument)>> = OnceLock::new();
    INSTRUMENTS.get_or_init(|| {
        [
            InstrumentSpec::Guitar(GuitarSpec::default()),
            InstrumentSpec::Drum(DrumSpec::default()),
            InstrumentSpec::Reed(ReedSpec::default()),
            InstrumentSpec::Sitar(SitarSpec::default()),
            InstrumentSpec::Pendulum(PendulumSpec::default()),
            InstrumentSpec::Marimba(MarimbaSpec::default()),
            // Two small plates: the plates' code paths, with fewer masses for every input to run.
            InstrumentSpec::Plates(PlatesSpec {
                keys: vec!["C4".to_string(), "G4".to_string()],
                columns: 6,
                rows: 4,
                ..PlatesSpec::default()
            }),
        ]
        .iter()
        .map(|spec| spec.build_stable(spec.default_scheme(), 44_100.0, None).expect("a default instrument"))
        .collect()
    })
}

/// Plays the first [`PERFORMANCE_STEPS`] steps of `score` on `instrument` at `oversample`, and
/// flushes the decimator. An instability stops the performance with an error, not a crash.
pub fn perform(instrument: &Instrument, oversample: usize, score: Score) {
    let options = PerformanceOptions { oversample, ..PerformanceOptions::default() };
    let mut performance = Performance::new(instrument, score, options).expect("an instrument's pickups");
    let mut output = vec![Vec::new(); performance.channels()];
    let steps = performance.total_steps().min(PERFORMANCE_STEPS);
    let _ = performance.render(steps, &mut output);
    performance.finish(&mut output).expect("one vector per channel");
}
