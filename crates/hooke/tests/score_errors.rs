//! Bad scores and instrument files: each error names the line and column of the offending text,
//! what was expected and what was found.

use hooke::format::instrument::parse as parse_instrument;
use hooke::format::score::parse;
use hooke::format::SourceError;
use hooke::instrument::guitar::{guitar, GuitarSpec};
use hooke::instrument::{Instrument, PartKind};
use hooke::scheme::SchemeKind;
use std::sync::OnceLock;

fn instrument() -> &'static Instrument {
    static GUITAR: OnceLock<Instrument> = OnceLock::new();
    GUITAR
        .get_or_init(|| guitar(&GuitarSpec::default(), SchemeKind::SymplecticEuler, 1.0 / 88_200.0).unwrap())
}

/// Parses `score`, which must fail at `line`:`column` on the text `found`, with a message
/// containing every one of `phrases`.
fn fails(score: &str, line: usize, column: usize, found: &str, phrases: &[&str]) -> SourceError {
    let error = parse(score, "bad.toml", instrument(), None).unwrap_err();
    assert_eq!((error.line, error.column), (line, column), "{error}");
    assert_eq!(error.found, found, "{error}");
    for phrase in phrases {
        assert!(error.message.contains(phrase), "{phrase:?} not in: {}", error.message);
    }
    error
}

const HEADER: &str = "[score]\nduration = 2.0\n";

#[test]
fn an_unknown_part_lists_the_parts() {
    let score = format!("{HEADER}[[pluck]]\ntime = 0.5\npart = \"E7\"\nposition = 0.5\namplitude = 0.001\n");
    fails(
        &score,
        5,
        8,
        "\"E7\"",
        &["part", "\"E2\", \"A2\", \"D3\", \"G3\", \"B3\", \"E4\"", "found \"E7\""],
    );
}

#[test]
fn a_time_past_the_end_is_refused() {
    let score = format!("{HEADER}[[pluck]]\ntime = 2.5\npart = \"E2\"\nposition = 0.5\namplitude = 0.001\n");
    fails(&score, 4, 8, "2.5", &["time", "before the score's end (2 s)", "found 2.5"]);
    let score = format!("{HEADER}[[bow]]\ntime = 1.5\npart = \"G3\"\nposition = 0.9\nduration = 1.0\n");
    fails(&score, 7, 12, "1.0", &["duration", "by the score's end (2 s)", "2.5 s"]);
    let score = format!("{HEADER}[[pluck]]\ntime = 0.0\nevery = 0.5\nfor = 3.0\npart = \"E2\"\nposition = 0.5\namplitude = 0.001\n");
    fails(&score, 6, 7, "3.0", &["for", "repeats that end by the score's end"]);
}

#[test]
fn a_fret_beyond_the_string_is_refused() {
    let score = format!("{HEADER}[[fret]]\ntime = 0.5\npart = \"E2\"\nfret = 21\n");
    fails(&score, 6, 8, "21", &["fret on \"E2\" at 0.5 s", "from 1 to 20", "found 21"]);
    let score = format!("{HEADER}[[fret]]\ntime = 0.5\npart = \"E2\"\nfret = 0\n");
    fails(&score, 6, 8, "0", &["fret", "found 0"]);
}

#[test]
fn overlapping_incompatible_events_are_refused() {
    let bow = |time: f64| format!("[[bow]]\ntime = {time}\npart = \"G3\"\nposition = 0.9\nduration = 1.0\n");
    let score = format!("{HEADER}{}{}", bow(0.0), bow(0.5));
    fails(&score, 9, 8, "0.5", &["no bow while a bow on the same part lasts (until 1 s)"]);
    let score = format!(
        "{HEADER}{}[[pluck]]\ntime = 0.5\npart = \"G3\"\nposition = 0.5\namplitude = 0.001\n",
        bow(0.0)
    );
    fails(&score, 9, 8, "0.5", &["no pluck while a bow"]);
    let score = format!("{HEADER}[[release]]\ntime = 0.5\npart = \"E2\"\n");
    fails(&score, 4, 8, "0.5", &["a fret held on the string to release", "no fret held"]);
    let score = format!("{HEADER}[[undamp]]\ntime = 0.5\npart = \"E2\"\n");
    fails(&score, 4, 8, "0.5", &["not damped"]);
    // A timed damp lifts by itself: an undamp after its end finds nothing to lift.
    let damp = "[[damp]]\ntime = 0.0\npart = \"E2\"\nduration = 0.2\n";
    let score = format!("{HEADER}{damp}[[undamp]]\ntime = 0.5\npart = \"E2\"\n");
    fails(&score, 8, 8, "0.5", &["not damped"]);
    let score = format!("{HEADER}[[damp]]\ntime = 0.0\npart = \"E2\"\n[[damp]]\ntime = 0.5\npart = \"E2\"\n");
    fails(&score, 7, 8, "0.5", &["no damp while a damp on the same part lasts (until lifted)"]);
}

#[test]
fn fields_that_do_not_belong_to_the_event_are_refused() {
    let score = format!("{HEADER}[[fret]]\ntime = 0.5\npart = \"E2\"\nfret = 2\namplitude = 0.1\n");
    fails(&score, 7, 13, "0.1", &["only the fields a fret takes", "`amplitude`"]);
    let score = format!("{HEADER}[[pluck]]\ntime = 0.5\npart = \"E2\"\nposition = 0.5\namplitude = 0.001\nshape = \"square\"\n");
    fails(&score, 8, 9, "\"square\"", &["\"triangle\", \"raised\", \"pulse\" or \"pull\""]);
    let pluck = format!("{HEADER}[[pluck]]\ntime = 0.5\npart = \"E2\"\namplitude = 0.5\n");
    let score = format!("{pluck}shape = \"pulse\"\npull = 0.002\n");
    fails(&score, 8, 8, "0.002", &["no `pull` but with shape = \"pull\""]);
    let score = format!("{pluck}shape = \"pull\"\nwidth = 0.1\n");
    fails(&score, 8, 9, "0.1", &["no width with shape = \"pull\""]);
    let score = format!("{pluck}shape = \"pull\"\nrelease = 0.0\n");
    fails(&score, 8, 11, "0.0", &["a time > 0 s and at most 1 s"]);
    let score = format!("{HEADER}[[pluck]]\ntime = 0.5\npart = \"E2\"\nposition = 1.5\namplitude = 0.001\n");
    fails(&score, 6, 12, "1.5", &["strictly between 0 and 1", "found 1.5"]);
    let score = format!("{HEADER}[[strike]]\ntime = 0.5\npart = \"E2\"\nposition = 0.5\naxis = \"y\"\n");
    fails(&score, 7, 8, "\"y\"", &["no axis on a string"]);
    let score = format!("{HEADER}[[set]]\ntime = 0.5\npart = \"E2\"\nparameter = \"colour\"\nvalue = 1.0\n");
    fails(&score, 6, 13, "\"colour\"", &["\"tension\" or \"damping\""]);
    let score = format!("{HEADER}[[pluk]]\ntime = 0.5\n");
    fails(&score, 3, 3, "pluk", &["unknown field `pluk`"]);
}

#[test]
fn a_bad_instrument_file_names_the_field() {
    let error = parse_instrument("[guitar]\ntuning = [\"E2\", \"H9\"]\n", "g.toml").unwrap_err();
    assert_eq!((error.line, error.column, error.found.as_str()), (2, 17, "\"H9\""), "{error}");
    assert!(error.message.contains("a note name"), "{error}");
    let error = parse_instrument("[guitar]\n[drum]\n", "g.toml").unwrap_err();
    assert_eq!((error.line, error.column), (2, 1), "{error}");
    assert!(error.message.contains("found a second, [drum]"), "{error}");
    let file = parse_instrument("[guitar]\ndecay = [1.0, 2.0]\n", "g.toml").unwrap();
    let error = file.build(SchemeKind::SymplecticEuler, 44_100.0, 2).unwrap_err();
    assert_eq!((error.line, error.column, error.found.as_str()), (2, 9, "[1.0, 2.0]"), "{error}");
    assert!(error.message.contains("one value per string (6)"), "{error}");
    let error = parse_instrument("[guitar]\n[render]\noversample = 40\n", "g.toml").unwrap_err();
    assert_eq!((error.line, error.column), (3, 14), "{error}");
}

#[test]
fn a_guitars_second_decay_time_is_checked_where_it_is_written() {
    let error = parse_instrument("[guitar]\nhigh_frequency = 3000\n", "g.toml").unwrap_err();
    assert_eq!((error.line, error.column), (2, 18), "{error}");
    assert!(error.message.contains("expected `high_decay`"), "{error}");
    let file = parse_instrument("[guitar]\nhigh_decay = [0.3, 0.3]\n", "g.toml").unwrap();
    let error = file.build(SchemeKind::SymplecticEuler, 44_100.0, 2).unwrap_err();
    assert_eq!((error.line, error.column), (2, 14), "{error}");
    // 4 s at the open E2 and 1e-3 s at 2 kHz would need a negative loss at 0 Hz.
    let file = parse_instrument("[guitar]\nhigh_decay = 1e-3\n", "g.toml").unwrap();
    let error = file.build(SchemeKind::SymplecticEuler, 44_100.0, 2).unwrap_err();
    assert!(error.message.contains("frequency-independent part >= 0"), "{error}");
    // A workable law gives every string drag as well as dampers.
    let file = parse_instrument("[guitar]\nhigh_decay = 0.3\n", "g.toml").unwrap();
    let instrument = file.build(SchemeKind::SymplecticEuler, 44_100.0, 2).unwrap();
    for part in &instrument.parts {
        let PartKind::String(string) = &part.kind else { panic!("a guitar has strings") };
        assert!(string.drag > 0.0 && string.damping > 0.0, "{}", part.name);
        assert!(string.masses.iter().all(|&m| instrument.model.masses()[m].drag == string.drag));
    }
}

#[test]
fn the_analysis_chooses_the_oversampling() {
    let file = parse_instrument("[guitar]\n", "g.toml").unwrap();
    let (oversample, instrument) = file.build_stable(SchemeKind::SymplecticEuler, 44_100.0, None).unwrap();
    assert_eq!(oversample, 2);
    assert_eq!(instrument.dt, 1.0 / 88_200.0);
    // A rate twice as high needs none.
    let (oversample, _) = file.build_stable(SchemeKind::SymplecticEuler, 96_000.0, None).unwrap();
    assert_eq!(oversample, 1);
    // Asked for 1 at 44.1 kHz: refused, at the instrument's table, with the rate it needs.
    let error = file.build_stable(SchemeKind::SymplecticEuler, 44_100.0, Some(1)).unwrap_err();
    assert_eq!((error.line, error.column), (1, 1), "{error}");
    assert!(
        error.message.contains("string E4") && error.message.contains("needs a rate above 5392"),
        "{error}"
    );
}

#[test]
fn a_drive_sinusoid_error_points_at_the_sinusoid_field() {
    let drive = "[[drive]]\ntime = 0.0\npart = \"E2\"\nposition = 0.5\nduration = 0.5\n";
    let score = format!("{HEADER}{drive}sinusoids = [{{ amplitude = 1.0, frequency = -5.0 }}]\n");
    fails(&score, 8, 45, "-5.0", &["drive on \"E2\" at 0 s, sinusoid 1", "`frequency`", "a value >= 0"]);
    let score = format!("{HEADER}{drive}constant = 1.0\ngain = 2.0\n");
    fails(&score, 9, 8, "2.0", &["`gain`", "`gain` only with `wav`"]);
}
