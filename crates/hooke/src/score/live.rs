//! Playing live: notes from input threads to an audio callback, with nothing in the callback
//! that allocates, locks, prints or blocks (the discipline of fundsp's `process`).
//!
//! - [`LiveInput`] lives on an input thread (MIDI, the computer keyboard, a script): it maps
//!   each [`NoteInput`] through the instrument's [`NoteMap`] and resolves the gestures into
//!   engine-ready cues ([`Resolver`]: the fret stops are solved by the analysis before play
//!   starts), then pushes them into a lock-free single-producer single-consumer queue (`rtrb`).
//! - [`LiveCore`] is the callback's body: [`LiveCore::process`] pops the cues, applies them to
//!   the [`Performance`], renders exactly the callback's frames into preallocated buffers,
//!   interleaves them into the device's buffer, and pushes what it wrote into a second queue
//!   for a recording thread. It times itself: a callback that takes longer than its frames last
//!   is counted late ([`LiveStats`]).
//!
//! `crates/hooke/tests/live_allocation.rs` drives [`LiveCore::process`] through 10 s of a
//! scripted performance under a counting allocator: zero allocations.

use crate::engine::excitation::{Hammer, Pluck, Pulse};
use crate::engine::EngineError;
use crate::instrument::frets::{place_frets, FretStop};
use crate::instrument::{nearest_inner_node, Instrument, InstrumentError, PartKind, Plucker, StringPart};
use crate::score::controls::ControlMapping;
use crate::score::notes::{
    Gesture, NoteInput, NoteKind, NoteMap, StringRule, Stroke, UnmappableControl, Unplayable, PLUCK_WIDTH,
};
use crate::score::performance::{Performance, PerformanceOptions};
use crate::score::tuning::{Tuning, Untunable};
use crate::score::Action;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// The time now, where the platform has a clock: `wasm32-unknown-unknown` (the browser's
/// worklet) has none (`Instant::now` panics there), and its callbacks go untimed.
fn clock() -> Option<Instant> {
    if cfg!(all(target_arch = "wasm32", target_os = "unknown")) {
        None
    } else {
        Some(Instant::now())
    }
}

/// The hammer of a live strike on a part without its own ([`crate::instrument::KeyHammer`]):
/// mass (kg), felt stiffness (N/m^exponent) and exponent, the score format's defaults.
const HAMMER: (f64, f64, f64) = (5e-3, 1e9, 2.5);
/// The hammer that strikes `kind` with a felt `hardness` times its own: the part's
/// ([`PartKind::hammer`]) or [`HAMMER`]; mass (kg), felt stiffness (N/m^exponent), exponent.
pub(crate) fn struck_with(kind: &PartKind, hardness: f64) -> (f64, f64, f64) {
    let (mass, stiffness, exponent) = kind.hammer().map_or(HAMMER, |h| (h.mass, h.stiffness, h.exponent));
    (mass, stiffness * hardness, exponent)
}

/// Excitations that may play at once without the engine allocating, at the least (an
/// instrument with more strings has room for one on each: [`excitations_for`]).
pub const MAX_EXCITATIONS: usize = 64;

/// Room for excitations on `instrument`: [`MAX_EXCITATIONS`], or one for each of its strings
/// (every key of a piano struck at once, a hammer on each string of its course) where it has
/// more.
fn excitations_for(instrument: &Instrument) -> usize {
    let strings = instrument.parts.iter().map(|part| match &part.kind {
        PartKind::String(string) => string.course().count(),
        _ => 1,
    });
    MAX_EXCITATIONS.max(strings.sum())
}

/// Where a live input pushes a string or a bar with no body, as a fraction of its length: near
/// its end, where every low partial moves (the first node of partial `n` is at `1/n`).
pub const INPUT_AT: f64 = 0.1;

/// Where a live input pushes a membrane, fractions of its width and height: off the nodal lines
/// of its first modes.
const INPUT_AT_2D: (f64, f64) = (0.3, 0.4);

/// The state coordinates a live input drives ([`LiveCore::open_input`]): the bridge of the
/// instrument's body where it has one (the strings hear the input through it, as a guitar's top
/// driven by a transducer), else each part: every string of a course and every bar
/// [`INPUT_AT`] of its length from its first end, a plate where its mallet strikes, a
/// membrane at [`INPUT_AT_2D`], a body's mass. Each along the model's first axis.
pub fn input_points(instrument: &Instrument) -> Vec<usize> {
    let dim = instrument.model.dimension();
    if let Some(bridge) = crate::instrument::body::bridge_mass(&instrument.model) {
        return vec![bridge * dim];
    }
    let masses = instrument.parts.iter().flat_map(|part| -> Vec<usize> {
        match &part.kind {
            PartKind::String(string) => string.course().map(|s| s.masses[s.mass_at(INPUT_AT)]).collect(),
            PartKind::Bar(bar) => vec![bar.masses[bar.mass_at(INPUT_AT)]],
            PartKind::Plate(plate) => vec![plate.grid.mass_at(plate.strike[0], plate.strike[1])],
            PartKind::Membrane(membrane) => vec![membrane.grid.mass_at(INPUT_AT_2D.0, INPUT_AT_2D.1)],
            PartKind::Body(body) => vec![body.mass],
        }
    });
    masses.map(|mass| mass * dim).collect()
}

/// The most channels a live instrument renders (a stereo pair for its body, another for its
/// strings heard directly: [`crate::instrument::direct_pickups`]); more are silent.
pub const MAX_LIVE_CHANNELS: usize = 4;

/// A cue for the callback: part and action (never a shape or a drive, which own memory).
pub type LiveCue = (usize, Action);

/// Gestures resolved into engine-ready actions without the analysis at play time: every fret
/// stop of every string is solved when the resolver is made.
#[derive(Debug, Clone)]
pub struct Resolver {
    /// Per part: its fret stops (index `fret - 1`) and the fret held now (0: none).
    stops: Vec<(Vec<FretStop>, usize)>,
    instrument: Instrument,
}

impl Resolver {
    /// Solves every fret of every string of `instrument`, the frets on the threads of rayon's
    /// global pool (each fret's analysis is its own; on a target without threads, one after
    /// another). A fret that cannot be placed refuses the whole, the first in part and fret order.
    pub fn new(instrument: &Instrument) -> Result<Self, InstrumentError> {
        let frets: Vec<(usize, &StringPart, usize)> = (instrument.parts.iter().enumerate())
            .filter_map(|(part, kind)| match &kind.kind {
                PartKind::String(string) => Some((part, string)),
                _ => None,
            })
            .flat_map(|(part, string)| (1..=string.frets).map(move |fret| (part, string, fret)))
            .collect();
        let wanted: Vec<(&StringPart, usize)> =
            frets.iter().map(|&(_, string, fret)| (string, fret)).collect();
        let solved = place_frets(&wanted, instrument.scheme, instrument.dt);
        let mut stops: Vec<(Vec<FretStop>, usize)> = vec![(Vec::new(), 0); instrument.parts.len()];
        for (&(part, _, _), stop) in frets.iter().zip(solved) {
            stops[part].0.push(stop?);
        }
        Ok(Self { stops, instrument: instrument.clone() })
    }

    /// Every fret stop solved: its part and the stop.
    pub fn fret_stops(&self) -> impl Iterator<Item = (usize, &FretStop)> + '_ {
        self.stops
            .iter()
            .enumerate()
            .flat_map(|(part, (stops, _))| stops.iter().map(move |stop| (part, stop)))
    }

    /// The action of `gesture` (as the score format resolves the same event).
    pub fn resolve(&mut self, gesture: &Gesture) -> LiveCue {
        let dim = self.instrument.model.dimension();
        let part = gesture.part;
        let action = match (gesture.stroke, &self.instrument.parts[part].kind) {
            (Stroke::Fret(fret), _) => {
                self.stops[part].1 = fret;
                Action::Fret(self.stops[part].0[fret - 1])
            }
            (Stroke::Release, _) => {
                self.stops[part].1 = 0;
                Action::Release
            }
            (Stroke::Pluck { plucker, peak }, kind) => {
                let coordinate = match (kind, plucker.map(|p| p.position)) {
                    (PartKind::String(string), Some(p)) => {
                        let fret = self.stops[part].1;
                        let first = if fret == 0 { 0 } else { self.stops[part].0[fret - 1].mass + 1 };
                        string.masses[nearest_inner_node(first, string.masses.len() + 1, p) - 1] * dim
                    }
                    (PartKind::Membrane(membrane), _) => membrane.grid.mass_at(0.5, 0.5) * dim,
                    (PartKind::Body(body), _) => body.mass * dim,
                    (PartKind::String(string), None) => string.masses[string.mass_at(0.5)] * dim,
                    (PartKind::Bar(bar), position) => bar.masses[bar.mass_at(position.unwrap_or(0.5))] * dim,
                    (PartKind::Plate(plate), _) => plate.grid.mass_at(plate.strike[0], plate.strike[1]) * dim,
                };
                match plucker {
                    Some(Plucker { pull, release, .. }) => {
                        Action::Pluck(Pluck { coordinate, peak, pull, release })
                    }
                    None => Action::Pulse(Pulse { coordinate, peak, duration: PLUCK_WIDTH }),
                }
            }
            (Stroke::Strike { position: [x, y], velocity, hardness }, kind) => {
                let mass = match kind {
                    PartKind::Membrane(membrane) => membrane.grid.mass_at(x, y),
                    PartKind::String(string) => string.masses[string.mass_at(x)],
                    PartKind::Body(body) => body.mass,
                    PartKind::Bar(bar) => bar.masses[bar.mass_at(x)],
                    PartKind::Plate(plate) => plate.grid.mass_at(x, y),
                };
                let (hammer_mass, stiffness, exponent) = struck_with(kind, hardness);
                Action::Strike(Hammer {
                    coordinate: mass * dim,
                    velocity,
                    mass: hammer_mass,
                    stiffness,
                    exponent,
                })
            }
            (Stroke::Damp(decay), _) => Action::Damp(2.0 / decay),
            (Stroke::Undamp, _) => Action::Undamp,
            (Stroke::Tension(factor), _) => Action::Tension(factor),
            (Stroke::Damping(factor), _) => Action::Damping(factor),
        };
        (part, action)
    }
}

/// What the callback counts, read by other threads.
#[derive(Debug, Default)]
pub struct LiveStats {
    /// Callbacks served.
    pub callbacks: AtomicU64,
    /// Frames rendered.
    pub frames: AtomicU64,
    /// Callbacks that took longer than their frames last (an underrun follows on a real device).
    pub late: AtomicU64,
    /// The longest callback, ns.
    pub worst_ns: AtomicU64,
    /// The sum of the callbacks' times, ns.
    pub busy_ns: AtomicU64,
    /// Cues the queue had no room for.
    pub dropped_cues: AtomicU64,
    /// Samples the recording queue had no room for.
    pub dropped_samples: AtomicU64,
    /// Cues the engine refused, and blocks it could not render (an instability).
    pub errors: AtomicU64,
}

/// The input side: notes in, cues into the queue.
pub struct LiveInput {
    map: NoteMap,
    resolver: Resolver,
    gestures: Vec<Gesture>,
    cues: rtrb::Producer<LiveCue>,
    stats: Arc<LiveStats>,
}

impl LiveInput {
    /// Plays `input`: its gestures go to the callback. Returns how many.
    pub fn send(&mut self, input: &NoteInput) -> Result<usize, Unplayable> {
        self.gestures.clear();
        self.map.play(input, &mut self.gestures)?;
        for gesture in &self.gestures {
            let cue = self.resolver.resolve(gesture);
            if self.cues.push(cue).is_err() {
                self.stats.dropped_cues.fetch_add(1, Relaxed);
            }
        }
        Ok(self.gestures.len())
    }
}

/// The callback's body.
pub struct LiveCore {
    performance: Performance,
    cues: rtrb::Consumer<LiveCue>,
    record: Option<rtrb::Producer<f32>>,
    buffers: Vec<Vec<f32>>,
    gain: f32,
    rate: f64,
    stats: Arc<LiveStats>,
    /// Whether an input is open ([`LiveCore::open_input`]).
    driven: bool,
}

/// How to set up a live performance.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The performance's options (oversampling, threads, kernels).
    pub performance: PerformanceOptions,
    /// The output rate, Hz.
    pub rate: f64,
    /// The largest callback, frames (buffers are allocated for it before play).
    pub max_frames: usize,
    /// The gain from the pickups (m) to full scale.
    pub gain: f64,
    /// Cues the queue holds.
    pub queue: usize,
    /// Recording queue length, samples (0: no recording).
    pub record: usize,
    /// How notes choose strings.
    pub rule: StringRule,
    /// MIDI controllers mapped to `set` parameters.
    pub controls: Vec<ControlMapping>,
    /// The scale notes sound in (strings only); `None`: 12-tone equal temperament.
    pub tuning: Option<Tuning>,
}

/// The input side, the callback body, and the recording's consumer.
pub type LiveParts = (LiveInput, LiveCore, Option<rtrb::Consumer<f32>>, Arc<LiveStats>);

/// Sets up `instrument` to be played live: solves the frets, builds the performance, and renders
/// one silent block of `max_frames` so that the callback's first block allocates nothing.
pub fn live(instrument: &Instrument, options: LiveOptions) -> Result<LiveParts, LiveError> {
    let map = NoteMap::new(instrument, options.rule).with_controls(&options.controls, instrument)?;
    let mut map = match options.tuning {
        Some(tuning) => map.with_tuning(tuning, instrument)?,
        None => map,
    };
    let mut resolver = Resolver::new(instrument)?;
    let mut performance = Performance::live(instrument, options.performance, excitations_for(instrument))?;
    // The first change picks the path a played engine keeps (the string bank for strings).
    performance.play(0, &Action::Undamp).map_err(InstrumentError::from)?;
    // The instrument at rest: a piano's dampers on its strings.
    let mut gestures = Vec::with_capacity(instrument.parts.len() + 64);
    map.rest(0.0, &mut gestures);
    for gesture in &gestures {
        let (part, action) = resolver.resolve(gesture);
        performance.play(part, &action).map_err(InstrumentError::from)?;
    }
    // Every fret pressed and every string retuned from the instrument at rest: a path that
    // would analyse them at play (the coupled modal path) does now.
    performance.prepare_play(resolver.fret_stops()).map_err(InstrumentError::from)?;
    let channels = performance.channels();
    if channels > MAX_LIVE_CHANNELS {
        return Err(LiveError::Render(format!(
            "{channels} channels, where live play renders {MAX_LIVE_CHANNELS} at most"
        )));
    }
    let mut buffers = vec![vec![0.0f32; options.max_frames.max(1)]; channels];
    {
        let mut slices: Vec<&mut [f32]> = buffers.iter_mut().map(|b| &mut b[..]).collect();
        performance.render_frames(&mut slices).map_err(|e| LiveError::Render(e.to_string()))?;
    }
    let (cue_in, cue_out) = rtrb::RingBuffer::new(options.queue.max(1));
    let (record_in, record_out) = if options.record > 0 {
        let (producer, consumer) = rtrb::RingBuffer::new(options.record);
        (Some(producer), Some(consumer))
    } else {
        (None, None)
    };
    let stats = Arc::new(LiveStats::default());
    let input = LiveInput { map, resolver, gestures, cues: cue_in, stats: Arc::clone(&stats) };
    let core = LiveCore {
        performance,
        cues: cue_out,
        record: record_in,
        buffers,
        gain: options.gain as f32,
        rate: options.rate,
        stats: Arc::clone(&stats),
        driven: false,
    };
    Ok((input, core, record_out, stats))
}

/// Why live play could not start.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// A fret could not be placed, or the instrument is refused.
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// The engine could not be built.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A controller mapping does not apply to the instrument.
    #[error(transparent)]
    Control(#[from] UnmappableControl),
    /// The instrument takes no tuning.
    #[error(transparent)]
    Tuning(#[from] Untunable),
    /// The warm-up block failed.
    #[error("the first block could not be rendered: {0}")]
    Render(String),
}

impl LiveCore {
    /// The instrument's channels.
    pub fn channels(&self) -> usize {
        self.buffers.len()
    }

    /// Opens a live input on the state coordinates `coordinates` ([`input_points`] gives the
    /// instrument's), fed by [`LiveCore::process_with_input`]; it pushes once given a gain
    /// ([`LiveCore::set_input_gain`]). Allocates: before play. Returns the output frames by
    /// which the input acts late (none without oversampling: `crate::engine`'s input).
    pub fn open_input(&mut self, coordinates: Vec<usize>) -> Result<u64, LiveError> {
        let piece = self.buffers[0].len();
        let late = self.performance.open_input(coordinates, piece);
        self.driven = late.is_ok();
        late.map_err(|e| LiveError::Instrument(e.into()))
    }

    /// Sets the force (N) a full-scale input pushes each input point with (0: off). Allocates
    /// nothing. Refused without an open input, or unless finite.
    pub fn set_input_gain(&mut self, gain: f64) -> Result<(), crate::model::ModelError> {
        self.performance.set_input_gain(gain)
    }

    /// [`LiveCore::process_with_input`] with no input: a silent one, if one is open.
    pub fn process(&mut self, out: &mut [f32], device_channels: usize) {
        self.process_with_input(out, device_channels, &[]);
    }

    /// Fills `out` (interleaved, `device_channels` per frame): applies the queued cues, renders
    /// exactly `out.len() / device_channels` frames (in pieces of the preallocated length),
    /// driven by `input` (the input's sample for each frame, full scale 1; frames past its end
    /// silent) if an input is open, and records them. A mono instrument goes to every device
    /// channel; one of more channels (up to [`MAX_LIVE_CHANNELS`]) channel by channel, device
    /// channels past its own silent. Never allocates, locks, prints or blocks.
    pub fn process_with_input(&mut self, out: &mut [f32], device_channels: usize, input: &[f32]) {
        let started = clock();
        let device_channels = device_channels.max(1);
        while let Ok((part, action)) = self.cues.pop() {
            if self.performance.play(part, &action).is_err() {
                self.stats.errors.fetch_add(1, Relaxed);
            }
        }
        let frames = out.len() / device_channels;
        let piece = self.buffers[0].len();
        let mut done = 0;
        while done < frames {
            let count = piece.min(frames - done);
            let mut slices: [&mut [f32]; MAX_LIVE_CHANNELS] = Default::default();
            let channels = self.buffers.len().min(MAX_LIVE_CHANNELS);
            for (slice, buffer) in slices.iter_mut().zip(self.buffers.iter_mut()) {
                *slice = &mut buffer[..count];
            }
            let fed = input.get(done..).map_or(&[][..], |rest| &rest[..count.min(rest.len())]);
            if self.driven && !fed.is_empty() && self.performance.feed_input(fed).is_err() {
                self.stats.errors.fetch_add(1, Relaxed);
            }
            if self.performance.render_frames(&mut slices[..channels]).is_err() {
                self.stats.errors.fetch_add(1, Relaxed);
            }
            let block = &mut out[done * device_channels..(done + count) * device_channels];
            for (frame, values) in block.chunks_exact_mut(device_channels).enumerate() {
                for (c, value) in values.iter_mut().enumerate() {
                    let source = if channels == 1 { 0 } else { c };
                    let heard = if source < channels { self.buffers[source][frame] * self.gain } else { 0.0 };
                    *value = heard.clamp(-1.0, 1.0);
                }
            }
            if let Some(record) = &mut self.record {
                for &sample in block.iter() {
                    if record.push(sample).is_err() {
                        self.stats.dropped_samples.fetch_add(1, Relaxed);
                    }
                }
            }
            done += count;
        }
        let elapsed = started.map_or(0, |started| started.elapsed().as_nanos() as u64);
        let stats = &self.stats;
        stats.callbacks.fetch_add(1, Relaxed);
        stats.frames.fetch_add(frames as u64, Relaxed);
        stats.busy_ns.fetch_add(elapsed, Relaxed);
        stats.worst_ns.fetch_max(elapsed, Relaxed);
        if elapsed as f64 > frames as f64 / self.rate * 1e9 {
            stats.late.fetch_add(1, Relaxed);
        }
    }
}

/// The gain that puts a fortissimo note (velocity 127 on the first string's open note or the
/// first bar's, or middle C) at `level` of full scale, and how many times faster than real time it renders:
/// measured by rendering 2^14 frames of it offline (NaN on `wasm32-unknown-unknown`, which
/// has no clock).
pub fn calibrate(
    instrument: &Instrument,
    options: PerformanceOptions,
    level: f64,
) -> Result<(f64, f64), LiveError> {
    let mut performance = Performance::live(instrument, options, excitations_for(instrument))?;
    let mut resolver = Resolver::new(instrument)?;
    let note = instrument
        .parts
        .iter()
        .find_map(|p| {
            p.kind.pitch_hz().map(|pitch| crate::score::notes::midi_note(pitch).clamp(0, 127) as u8)
        })
        .unwrap_or(60);
    let mut gestures = Vec::new();
    let input = NoteInput { time: 0.0, track: 0, channel: 0, kind: NoteKind::On { note, velocity: 127 } };
    let _ = NoteMap::new(instrument, StringRule::LowestFret).play(&input, &mut gestures);
    for gesture in &gestures {
        let (part, action) = resolver.resolve(gesture);
        performance.play(part, &action).map_err(InstrumentError::from)?;
    }
    let frames = 1usize << 14;
    let mut buffers = vec![vec![0.0f32; frames]; performance.channels()];
    let mut slices: Vec<&mut [f32]> = buffers.iter_mut().map(|b| &mut b[..]).collect();
    let started = clock();
    performance.render_frames(&mut slices).map_err(|e| LiveError::Render(e.to_string()))?;
    let sound = frames as f64 * instrument.dt * options.oversample.max(1) as f64;
    let speed = started.map_or(f64::NAN, |started| sound / started.elapsed().as_secs_f64());
    let peak = buffers.iter().flatten().fold(0.0f32, |m, s| m.max(s.abs()));
    Ok((if peak > 0.0 { level / f64::from(peak) } else { 1.0 }, speed))
}
