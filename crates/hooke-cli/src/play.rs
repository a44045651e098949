//! `hooke play INSTRUMENT.toml`: the instrument played in real time, from a MIDI port
//! (midir, through JACK) or the computer keyboard, out through cpal (a JACK server when one
//! runs, else the platform's default device, ALSA on Linux).
//!
//! The library's `score::live` does the work: the input threads map notes and push cues into a
//! lock-free queue; the audio callback is `LiveCore::process`, which never allocates, locks,
//! prints or blocks. `--record` gathers what the callback wrote through a second queue on a
//! writer thread and writes it atomically at the end.

use crate::diagnostics::FileDiagnostic;
use crate::interrupt::Interrupt;
use crate::load::{parse_scheme, read_model};
use crate::note_map::NoteMapArgs;
use crate::outputs::check_outputs;
use crate::render::build;
use crate::run::write_wav_file;
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use hooke::format::instrument::parse as parse_instrument;
use hooke::io::{SampleFormat, WavOptions};
use hooke::scheme::SchemeKind;
use hooke::score::live::{calibrate, live, LiveError, LiveInput, LiveOptions, LiveStats};
use hooke::score::notes::{from_midi, note_name, NoteInput, NoteKind};
use hooke::score::performance::PerformanceOptions;
use hooke::score::tuning::tuning_changes;
use miette::{miette, IntoDiagnostic};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Arguments of `hooke play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// The instrument file.
    pub instrument: PathBuf,
    /// Play from the MIDI input port whose name contains PORT (JACK's MIDI ports).
    #[arg(long)]
    pub midi: Option<String>,
    /// Play from the computer keyboard (a tracker layout, shown on screen); the default without
    /// --midi when the terminal is interactive.
    #[arg(long)]
    pub keyboard: bool,
    /// Frames per audio callback (JACK uses its server's).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(16..=8192))]
    pub buffer: u32,
    /// Output rate, Hz (default: the device's; JACK uses its server's).
    #[arg(long)]
    pub rate: Option<u32>,
    /// Write what was heard to this WAV file (32-bit float, as sent to the device).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Stop after this many seconds (default: at Ctrl-C, or Esc on the keyboard).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Scheme (default: the instrument file's).
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Option<SchemeKind>,
    /// How notes choose strings and which controllers set what.
    #[command(flatten)]
    pub notes: NoteMapArgs,
    /// Write each note on received as `frame,note,velocity` (frame: frames rendered when it
    /// arrived) to this CSV file, to measure latency against the recording.
    #[arg(long)]
    pub note_log: Option<PathBuf>,
}

/// A fortissimo note's peak, as a fraction of full scale (room for chords).
const NOTE_LEVEL: f64 = 0.25;

/// `hooke play ...`.
pub fn play(args: &PlayArgs, interrupt: &Interrupt) -> miette::Result<()> {
    check_outputs([("--record", args.record.as_deref()), ("--note-log", args.note_log.as_deref())])?;
    // A client must not start a JACK server of its own.
    std::env::set_var("JACK_NO_START_SERVER", "1");
    let text = read_model(&args.instrument)?;
    let name = args.instrument.display().to_string();
    let file = parse_instrument(&text, &name).map_err(|e| FileDiagnostic::new(e, &text))?;
    let (host, device) = output_device()?;
    let default = device.default_output_config().map_err(|e| miette!("audio device: {e}"))?;
    let jack = host == cpal::HostId::Jack;
    let rate = if jack { default.sample_rate().0 } else { args.rate.unwrap_or(default.sample_rate().0) };
    if let (true, Some(asked)) = (jack, args.rate) {
        if asked != rate {
            return Err(miette!("--rate: expected the JACK server's rate, {rate} Hz, found {asked}"));
        }
    }
    let scheme = args.scheme.unwrap_or(file.scheme);
    let (oversample, instrument) = build(&file, &text, scheme, f64::from(rate), file.oversample)?;
    let performance = PerformanceOptions { oversample, ..PerformanceOptions::default() };
    let (gain, speed) = calibrate(&instrument, performance, NOTE_LEVEL).map_err(|e| miette!("{e}"))?;
    let channels = default.channels();
    let config = cpal::StreamConfig {
        channels,
        sample_rate: cpal::SampleRate(rate),
        buffer_size: if jack { cpal::BufferSize::Default } else { cpal::BufferSize::Fixed(args.buffer) },
    };
    let record_length = if args.record.is_some() { rate as usize * usize::from(channels) * 2 } else { 0 };
    let options = LiveOptions {
        performance,
        rate: f64::from(rate),
        max_frames: args.buffer.max(1024) as usize,
        gain,
        queue: 4096,
        record: record_length,
        rule: args.notes.rule(),
        controls: args.notes.controls.clone(),
        tuning: args.notes.tuning()?,
    };
    let (input, mut core, record, stats) = live(&instrument, options).map_err(|e| match e {
        LiveError::Control(control) => miette!("--cc: {control}"),
        LiveError::Tuning(untunable) => miette!("--tuning: {untunable}"),
        e => miette!("{e}"),
    })?;
    eprintln!(
        "{}: {} at {} Hz ({oversample} x {rate} Hz), {}; output {} ({} channel(s)); one note renders at {speed:.1}x real time",
        instrument.kind,
        scheme.name(),
        f64::from(rate) * oversample as f64,
        if jack { "JACK" } else { host.name() },
        device.name().unwrap_or_default(),
        channels
    );
    if speed < 2.0 {
        eprintln!("warning: this machine renders one note at only {speed:.1}x real time: expect underruns; try a lower --rate or an instrument with fewer strings");
    }
    let errors = Arc::new(StreamErrors::default());
    let stream_errors = Arc::clone(&errors);
    let device_channels = usize::from(channels);
    let stream = device
        .build_output_stream(
            &config,
            move |data: &mut [f32], _: &cpal::OutputCallbackInfo| core.process(data, device_channels),
            move |error: cpal::StreamError| stream_errors.count(&error),
            None,
        )
        .map_err(|e| miette!("audio device {}: {e}", device.name().unwrap_or_default()))?;
    let input = Arc::new(Mutex::new(Notes { input, stats: Arc::clone(&stats), log: Vec::new() }));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = record.map(|consumer| spawn_writer(consumer, Arc::clone(&stop)));
    let _midi = match &args.midi {
        Some(port) => Some(connect_midi(port, Arc::clone(&input))?),
        None => None,
    };
    stream.play().map_err(|e| miette!("audio device: {e}"))?;
    let keyboard =
        args.keyboard || (args.midi.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdin()));
    // From here a signal stops the play cleanly (the terminal restored, a recording written).
    let _deferred = interrupt.defer();
    let played = Instant::now();
    let deadline = args.seconds.map(Duration::from_secs_f64);
    let over = || interrupt.requested() || deadline.is_some_and(|d| played.elapsed() >= d);
    if keyboard {
        crate::play_keys::keyboard(&input, &over)?;
    } else {
        while !over() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    drop(stream);
    stop.store(true, Relaxed);
    let seconds = played.elapsed().as_secs_f64();
    report(&stats, &errors, rate, seconds);
    if let (Some(path), Some(writer)) = (&args.record, writer) {
        let samples = writer.join().map_err(|_| miette!("the recording thread failed"))?;
        let per_channel: Vec<Vec<f64>> = (0..device_channels)
            .map(|c| samples.iter().skip(c).step_by(device_channels).map(|&s| f64::from(s)).collect())
            .collect();
        let wav = WavOptions { format: SampleFormat::Float32, normalize: false };
        write_wav_file(path, &per_channel, rate, wav)?;
        eprintln!("recorded {} ({:.3} s)", path.display(), per_channel[0].len() as f64 / f64::from(rate));
    }
    if let Some(path) = &args.note_log {
        let log = input.lock().map_err(|_| miette!("the note log is lost"))?.log.join("");
        let mut file = hooke::io::AtomicFile::create(path).into_diagnostic()?;
        std::io::Write::write_all(&mut file, format!("frame,note,velocity\n{log}").as_bytes())
            .into_diagnostic()?;
        file.commit().into_diagnostic()?;
    }
    Ok(())
}

/// The input side shared by the MIDI and keyboard threads (a lock outside the audio callback).
pub(crate) struct Notes {
    input: LiveInput,
    stats: Arc<LiveStats>,
    log: Vec<String>,
}

impl Notes {
    /// Plays one input now; an unplayable note is named on the terminal.
    pub(crate) fn send(&mut self, channel: u8, kind: NoteKind) {
        let frame = self.stats.frames.load(Relaxed);
        if let NoteKind::On { note, velocity } = kind {
            self.log.push(format!("{frame},{note},{velocity}\n"));
        }
        let input = NoteInput { time: frame as f64, track: 0, channel, kind };
        if let Err(unplayable) = self.input.send(&input) {
            eprintln!("\rnot played: {} ({})\r", note_name(unplayable.note), unplayable.reason);
        }
    }
}

/// The JACK host when a server answers, else the default host; and its output device.
fn output_device() -> miette::Result<(cpal::HostId, cpal::Device)> {
    if let Ok(host) = cpal::host_from_id(cpal::HostId::Jack) {
        if let Some(device) = host.default_output_device() {
            return Ok((cpal::HostId::Jack, device));
        }
    }
    let host = cpal::default_host();
    let device = host.default_output_device().ok_or_else(|| {
        miette!("no audio output device: expected a JACK server or a {} device", host.id().name())
    })?;
    Ok((host.id(), device))
}

/// Connects to the MIDI input port whose name contains `port`.
fn connect_midi(port: &str, notes: Arc<Mutex<Notes>>) -> miette::Result<midir::MidiInputConnection<()>> {
    let mut midi =
        midir::MidiInput::new("hooke").map_err(|e| miette!("--midi: {e} (is a JACK server running?)"))?;
    // System-exclusive messages too: the MIDI Tuning Standard's.
    midi.ignore(midir::Ignore::None);
    let ports = midi.ports();
    let names: Vec<String> = ports.iter().map(|p| midi.port_name(p).unwrap_or_default()).collect();
    let Some(index) = names.iter().position(|name| name.contains(port)) else {
        return Err(miette!(
            "--midi: expected a MIDI port whose name contains \"{port}\", found {:?}",
            names
        ));
    };
    eprintln!("MIDI from {}", names[index]);
    midi.connect(
        &ports[index],
        "hooke-in",
        move |_, message, _| {
            let Ok(mut notes) = notes.lock() else { return };
            if let Some((channel, kind)) = from_midi(message) {
                notes.send(channel, kind);
            } else {
                // A MIDI Tuning Standard message: its keys retuned, on every channel.
                tuning_changes(message, |key, frequency| notes.send(0, NoteKind::Retune { key, frequency }));
            }
        },
        (),
    )
    .map_err(|e| miette!("--midi {port}: {e}"))
}

/// Gathers the recording queue into memory until `stop`, off the audio thread.
fn spawn_writer(
    mut consumer: rtrb::Consumer<f32>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<f32>> {
    std::thread::spawn(move || {
        let mut samples = Vec::new();
        loop {
            let done = stop.load(Relaxed);
            while let Ok(sample) = consumer.pop() {
                samples.push(sample);
            }
            if done {
                return samples;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    })
}

/// The errors the audio device reported: xruns (the server missed a period: a callback of
/// ours was late, or the server itself was not scheduled in time) and anything else.
#[derive(Default)]
struct StreamErrors {
    xruns: AtomicU64,
    other: AtomicU64,
}

impl StreamErrors {
    /// cpal 0.15 reports a JACK xrun as a backend error whose description starts with "xrun".
    fn count(&self, error: &cpal::StreamError) {
        let xrun = matches!(error, cpal::StreamError::BackendSpecific { err } if err.description.starts_with("xrun"));
        let counter = if xrun { &self.xruns } else { &self.other };
        counter.fetch_add(1, Relaxed);
    }
}

/// What the callbacks did: underruns, late callbacks, the worst callback time.
fn report(stats: &LiveStats, errors: &StreamErrors, rate: u32, seconds: f64) {
    let callbacks = stats.callbacks.load(Relaxed);
    let frames = stats.frames.load(Relaxed);
    let late = stats.late.load(Relaxed);
    let (xruns, other) = (errors.xruns.load(Relaxed), errors.other.load(Relaxed));
    let worst = stats.worst_ns.load(Relaxed) as f64 * 1e-6;
    let block = if callbacks > 0 { frames as f64 / callbacks as f64 } else { 0.0 };
    let period = block / f64::from(rate) * 1e3;
    let load = stats.busy_ns.load(Relaxed) as f64 * 1e-9 / (frames as f64 / f64::from(rate)).max(1e-9);
    eprintln!(
        "played {seconds:.1} s: {callbacks} callbacks of {block:.0} frames; underruns: {late} late callback(s), {xruns} device xrun(s), {other} other stream error(s); worst callback {worst:.3} ms of {period:.3} ms; mean load {:.0}%",
        load * 100.0
    );
    let dropped = stats.dropped_cues.load(Relaxed) + stats.dropped_samples.load(Relaxed);
    if dropped + stats.errors.load(Relaxed) > 0 {
        eprintln!(
            "warning: {} cue(s) and {} recorded sample(s) dropped (queues full), {} refused",
            stats.dropped_cues.load(Relaxed),
            stats.dropped_samples.load(Relaxed),
            stats.errors.load(Relaxed)
        );
    }
    if late > 0 {
        eprintln!(
            "warning: the synthesis did not keep up: try a lower --rate, a larger --buffer, or fewer voices"
        );
    } else if xruns + other > 0 {
        eprintln!(
            "warning: the audio device reported errors although every callback finished in time: the machine's scheduling (other load, no real-time priority), or the device"
        );
    }
}
