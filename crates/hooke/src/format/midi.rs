//! Standard MIDI Files played by an instrument: the file's notes are read (format 0 or 1, with
//! its tempo changes; format 2 is refused), mapped to gestures by the score layer's
//! [`NoteMap`], written as the score events they are ([`score_text`]) and read back by the
//! score format ([`crate::format::score::parse`]). So a MIDI file gives exactly the cues of its
//! equivalent score file, and renders to the same samples.

use crate::format::score::{apply_rank, parse as parse_score};
use crate::format::SourceError;
use crate::instrument::{Instrument, PartKind, Plucker};
use crate::limits::{MAX_SCORE_DURATION, MAX_SCORE_EVENTS};
use crate::model::number;
use crate::score::live::struck_with;
use crate::score::notes::{Gesture, NoteInput, NoteKind, NoteMap, Stroke, Unplayable, PLUCK_WIDTH};
use crate::score::tuning::tuning_changes;
use crate::score::Score;
use midly::{MetaMessage, MidiMessage, Smf, Timing, TrackEventKind};
use std::fmt::Write as _;

/// The tempo of a file that sets none: 120 beats per minute, in microseconds per beat.
const DEFAULT_TEMPO: u64 = 500_000;

/// Why a MIDI file cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum MidiError {
    /// Not a Standard MIDI File, or a damaged one.
    #[error("{file}: expected a Standard MIDI File, found {found}")]
    Parse {
        /// The file's name.
        file: String,
        /// What the parser found.
        found: String,
    },
    /// A format 2 file (independent sequences).
    #[error("{file}: expected a MIDI file of format 0 or 1, found format 2 (independent sequences)")]
    Sequential {
        /// The file's name.
        file: String,
    },
    /// A file whose timing has no ticks per beat (or per SMPTE frame), so that its times are
    /// not numbers.
    #[error("{file}: expected a timing of at least 1 tick per beat or per frame, found 0")]
    NoTicks {
        /// The file's name.
        file: String,
    },
    /// A file that makes a score the score format refuses: one that lasts no time, or past a
    /// limit ([`crate::limits`]).
    #[error("{file}: expected {expected}, found {found}")]
    Limit {
        /// The file's name.
        file: String,
        /// The limit.
        expected: String,
        /// What the file makes.
        found: String,
    },
    /// Notes the instrument cannot play (each named), without leniency.
    #[error("{file}: {} note(s) cannot be played on the {instrument} (render the rest with --lenient):\n{}", .notes.len(), list(.notes))]
    Unplayable {
        /// The file's name.
        file: String,
        /// The instrument's kind.
        instrument: String,
        /// The notes.
        notes: Vec<Unplayable>,
    },
    /// The score written from the file was refused (a bug: the map writes only valid scores).
    #[error("{0}")]
    Score(#[from] SourceError),
}

fn list(notes: &[Unplayable]) -> String {
    notes.iter().map(|n| format!("  {n}")).collect::<Vec<_>>().join("\n")
}

/// A MIDI file's inputs in time order, and the time of its last event (s).
#[derive(Debug, Clone, PartialEq)]
pub struct MidiFile {
    /// Notes, pedals and bends, by time (ties in file order, tracks in order).
    pub inputs: Vec<NoteInput>,
    /// The time of the last event (an end of track included), s.
    pub end: f64,
    /// The slowest tempo in force at an event, s a beat (`None` in SMPTE time, which has no
    /// beats): what makes a short file last long.
    pub slowest_beat: Option<f64>,
}

/// A MIDI file made a score by [`load`].
#[derive(Debug, Clone)]
pub struct MidiScore {
    /// The score.
    pub score: Score,
    /// The score's text (a score file).
    pub text: String,
    /// The notes left out (with leniency).
    pub skipped: Vec<Unplayable>,
    /// The slowest tempo of the file, s a beat ([`MidiFile::slowest_beat`]).
    pub slowest_beat: Option<f64>,
}

/// Reads a Standard MIDI File's notes (`file` names it in errors).
pub fn read(bytes: &[u8], file: &str) -> Result<MidiFile, MidiError> {
    if smpte_overflows(bytes) {
        let found = "an SMPTE timing of -128 frames per second".to_string();
        return Err(MidiError::Parse { file: file.to_string(), found });
    }
    let smf =
        Smf::parse(bytes).map_err(|e| MidiError::Parse { file: file.to_string(), found: e.to_string() })?;
    if smf.header.format == midly::Format::Sequential {
        return Err(MidiError::Sequential { file: file.to_string() });
    }
    let ticks = match smf.header.timing {
        Timing::Metrical(ppq) => u16::from(ppq),
        Timing::Timecode(_, subframes) => u16::from(subframes),
    };
    if ticks == 0 {
        return Err(MidiError::NoTicks { file: file.to_string() });
    }
    // Every event with its absolute tick, merged over the tracks (a stable sort keeps each
    // track's order and puts earlier tracks first on a tie).
    let mut events = Vec::new();
    for (track, events_of_track) in smf.tracks.iter().enumerate() {
        let mut tick = 0u64;
        for event in events_of_track {
            tick += u64::from(u32::from(event.delta));
            events.push((tick, track, event.kind));
        }
    }
    events.sort_by_key(|(tick, _, _)| *tick);
    // Ticks to seconds: a tempo map over metrical time, or a fixed SMPTE rate.
    let (mut tempo, mut base_tick, mut base_time) = (DEFAULT_TEMPO, 0u64, 0.0f64);
    let seconds = |tick: u64, tempo: u64, base_tick: u64, base_time: f64| match smf.header.timing {
        Timing::Metrical(ppq) => {
            // In f64: ticks (to 2^28 per event) times a tempo (to 2^24 us) pass 2^64.
            base_time + (tick - base_tick) as f64 * tempo as f64 / (f64::from(u16::from(ppq)) * 1e6)
        }
        Timing::Timecode(fps, subframes) => tick as f64 / (f64::from(fps.as_f32()) * f64::from(subframes)),
    };
    let mut inputs = Vec::new();
    let mut end = 0.0f64;
    let mut slowest = 0;
    for (tick, track, kind) in events {
        let time = seconds(tick, tempo, base_tick, base_time);
        end = end.max(time);
        slowest = slowest.max(tempo);
        let (channel, kind) = match kind {
            TrackEventKind::Meta(MetaMessage::Tempo(t)) => {
                (base_time, base_tick, tempo) = (time, tick, u64::from(u32::from(t)).max(1));
                continue;
            }
            TrackEventKind::SysEx(data) => {
                tuning_changes(data, |key, frequency| {
                    inputs.push(NoteInput {
                        time,
                        track,
                        channel: 0,
                        kind: NoteKind::Retune { key, frequency },
                    })
                });
                continue;
            }
            TrackEventKind::Midi { channel, message } => {
                let kind = match message {
                    MidiMessage::NoteOn { key, vel } => {
                        NoteKind::On { note: u8::from(key), velocity: u8::from(vel) }
                    }
                    MidiMessage::NoteOff { key, .. } => NoteKind::Off { note: u8::from(key) },
                    MidiMessage::Controller { controller, value } if u8::from(controller) == 64 => {
                        NoteKind::Sustain(u8::from(value) >= 64)
                    }
                    MidiMessage::Controller { controller, value } => {
                        NoteKind::Control { controller: u8::from(controller), value: u8::from(value) }
                    }
                    MidiMessage::PitchBend { bend } => NoteKind::Bend(bend.as_f64()),
                    MidiMessage::ChannelAftertouch { vel } => {
                        NoteKind::Pressure { note: None, amount: f64::from(u8::from(vel)) / 127.0 }
                    }
                    MidiMessage::Aftertouch { key, vel } => NoteKind::Pressure {
                        note: Some(u8::from(key)),
                        amount: f64::from(u8::from(vel)) / 127.0,
                    },
                    _ => continue,
                };
                (u8::from(channel), kind)
            }
            _ => continue,
        };
        inputs.push(NoteInput { time, track, channel, kind });
    }
    let slowest_beat = matches!(smf.header.timing, Timing::Metrical(_)).then(|| slowest as f64 / 1e6);
    Ok(MidiFile { inputs, end, slowest_beat })
}

/// Whether the file's header gives an SMPTE timing of -128 frames per second, which midly 0.5
/// negates with an overflow before refusing it (a panic wherever overflow is checked). The
/// header is found as midly finds it: the first `MThd` chunk, unknown chunks skipped, a chunk
/// longer than the file cut at its end.
fn smpte_overflows(mut bytes: &[u8]) -> bool {
    while let [a, b, c, d, e, f, g, h, data @ ..] = bytes {
        if [a, b, c, d] == [&b'M', &b'T', &b'h', &b'd'] {
            return data.get(4) == Some(&0x80);
        }
        let length = u32::from_be_bytes([*e, *f, *g, *h]) as usize;
        bytes = data.get(length..).unwrap_or(&[]);
    }
    false
}

/// Maps `midi`'s inputs through `map`. Unplayable notes are an error, or with `lenient` are
/// left out and returned.
pub fn gestures(
    midi: &MidiFile,
    map: &mut NoteMap,
    lenient: bool,
    file: &str,
    instrument: &Instrument,
) -> Result<(Vec<Gesture>, Vec<Unplayable>), MidiError> {
    let mut gestures = Vec::new();
    map.rest(0.0, &mut gestures);
    let mut skipped = Vec::new();
    for input in &midi.inputs {
        if let Err(unplayable) = map.play(input, &mut gestures) {
            skipped.push(unplayable);
        }
    }
    keep_order(&mut gestures, instrument.parts.len());
    if !skipped.is_empty() && !lenient {
        return Err(MidiError::Unplayable {
            file: file.to_string(),
            instrument: instrument.kind.to_string(),
            notes: skipped,
        });
    }
    Ok((gestures, skipped))
}

/// The score event a stroke is.
fn kind(stroke: Stroke) -> &'static str {
    match stroke {
        Stroke::Fret(_) => "fret",
        Stroke::Release => "release",
        Stroke::Pluck { .. } => "pluck",
        Stroke::Strike { .. } => "strike",
        Stroke::Damp(_) => "damp",
        Stroke::Undamp => "undamp",
        Stroke::Tension(_) | Stroke::Damping(_) => "set",
    }
}

/// Times `gestures` (in time order, of an instrument of `parts` parts) so that a score applies
/// them in the order the map made them. A score applies the events of one time by kind (frets,
/// releases, sets, damps, undamps, then plucks and strikes), so a note that ends as it begins
/// would read as a damp before its undamp, and a second damp; such a gesture is moved to the
/// next time an f64 can tell after the one before it on its part (about 1e-16 of the time
/// later: the same simulation step), and the gestures after it on that part with it.
fn keep_order(gestures: &mut [Gesture], parts: usize) {
    let mut last: Vec<Option<(f64, usize)>> = vec![None; parts];
    for gesture in gestures {
        let rank = apply_rank(kind(gesture.stroke)).expect("every stroke is a score event");
        if let Some((time, previous)) = last[gesture.part] {
            let next =
                if time.is_finite() && time >= 0.0 { f64::from_bits(time.to_bits() + 1) } else { time };
            if gesture.time <= time {
                gesture.time = if rank >= previous { time } else { next };
            }
        }
        last[gesture.part] = Some((gesture.time, rank));
    }
}

/// The score file that plays `gestures` on `instrument` for `duration` s (docs/score-format.md).
pub fn score_text(gestures: &[Gesture], instrument: &Instrument, duration: f64, name: &str) -> String {
    let quote = |text: &str| toml::Value::String(text.to_string()).to_string();
    let mut text = format!("[score]\nduration = {duration:?}\nname = {}\n", quote(name));
    for gesture in gestures {
        let kind = kind(gesture.stroke);
        let part = quote(&instrument.parts[gesture.part].name);
        let _ = write!(text, "\n[[{kind}]]\ntime = {:?}\npart = {part}\n", gesture.time);
        let _ = match gesture.stroke {
            Stroke::Fret(fret) => writeln!(text, "fret = {fret}"),
            Stroke::Release | Stroke::Undamp => Ok(()),
            Stroke::Pluck { plucker: Some(Plucker { position, pull, release }), peak } => writeln!(
                text,
                "position = {position:?}\nshape = \"pull\"\namplitude = {peak:?}\npull = {pull:?}\nrelease = {release:?}"
            ),
            Stroke::Pluck { plucker: None, peak } => {
                writeln!(text, "shape = \"pulse\"\namplitude = {peak:?}\nwidth = {PLUCK_WIDTH:?}")
            }
            Stroke::Strike { position: [x, y], velocity, hardness } => {
                let kind = &instrument.parts[gesture.part].kind;
                if hardness != 1.0 {
                    let (_, stiffness, _) = struck_with(kind, hardness);
                    let _ = writeln!(text, "stiffness = {stiffness:?}");
                }
                match kind {
                    PartKind::String(_) | PartKind::Bar(_) => {
                        writeln!(text, "position = {x:?}\nvelocity = {velocity:?}")
                    }
                    _ => writeln!(text, "position = [{x:?}, {y:?}]\nvelocity = {velocity:?}"),
                }
            }
            Stroke::Damp(decay) => writeln!(text, "decay = {decay:?}"),
            Stroke::Tension(value) => writeln!(text, "parameter = \"tension\"\nvalue = {value:?}"),
            Stroke::Damping(value) => writeln!(text, "parameter = \"damping\"\nvalue = {value:?}"),
        };
    }
    text
}

/// A MIDI file played by `instrument` through `map` (its rule and controller mappings): its score (lasting `tail` s past the file's last
/// event), the score's text and the notes left out (with `lenient`). A file that would make a
/// score past the score format's limits (an hour, [`MAX_SCORE_EVENTS`] events) is refused, the
/// error naming its length and its slowest tempo.
pub fn load(
    bytes: &[u8],
    file: &str,
    instrument: &Instrument,
    mut map: NoteMap,
    lenient: bool,
    tail: f64,
) -> Result<MidiScore, MidiError> {
    let midi = read(bytes, file)?;
    let (gestures, skipped) = gestures(&midi, &mut map, lenient, file, instrument)?;
    let duration = midi.end + tail;
    let beyond =
        |expected: String, found: String| MidiError::Limit { file: file.to_string(), expected, found };
    if !(duration > 0.0 && duration <= MAX_SCORE_DURATION) {
        let expected = format!(
            "a MIDI file that lasts more than 0 s and at most {MAX_SCORE_DURATION} s (one hour), its tail included"
        );
        let tempo = midi
            .slowest_beat
            .map_or_else(String::new, |beat| format!(" (its slowest tempo: {} s a beat)", number(beat)));
        return Err(beyond(expected, format!("{} s{tempo}", number(duration))));
    }
    if gestures.len() > MAX_SCORE_EVENTS {
        let expected = format!("a MIDI file that makes at most {MAX_SCORE_EVENTS} score events");
        return Err(beyond(expected, gestures.len().to_string()));
    }
    let name = std::path::Path::new(file).file_name().map_or(file.into(), |n| n.to_string_lossy());
    let text = score_text(&gestures, instrument, duration, &name);
    let score = parse_score(&text, &format!("{file} (as a score)"), instrument, None)?;
    Ok(MidiScore { score, text, skipped, slowest_beat: midi.slowest_beat })
}
