//! `hooke bench --play INSTRUMENT.toml`: how many copies of an instrument, every string ringing,
//! `hooke play`'s callback body renders in real time on one core, at each buffer size.
//!
//! A trial runs `copies` independent live performances ([`LiveCore`], what `hooke play` calls
//! from the audio callback) one after the other in each simulated callback of `buffer` frames,
//! for `seconds` of sound, paced in real time, and times every callback. The copies are plucked (every string's open
//! note, fortissimo) at the start of each trial, so all of them ring. A count is sustained when
//! no callback took longer than its frames last (one that did would be an underrun on a
//! device). The count is searched by doubling, then bisection. A "voice" is one sounding string
//! (a guitar copy is six), or one note of an instrument without strings. The timing thread asks
//! for the real-time scheduling an audio thread gets (`SCHED_FIFO`, as JACK's), so that other
//! programs on the machine do not preempt it; it says when it could not have it.

use crate::load::read_model;
use crate::render::build;
use hooke::format::instrument::parse as parse_instrument;
use hooke::instrument::Instrument;
use hooke::scheme::SchemeKind;
use hooke::score::live::{live, LiveCore, LiveInput, LiveOptions};
use hooke::score::notes::{midi_note, NoteInput, NoteKind, StringRule};
use hooke::score::performance::PerformanceOptions;
use miette::miette;
use std::path::Path;
use std::time::{Duration, Instant};

/// The most copies a trial tries.
const MAX_COPIES: usize = 1024;
/// The longest trial, s of sound.
const MAX_SECONDS: f64 = 60.0;

/// What one trial measured.
#[derive(Debug, Clone, Copy)]
struct Trial {
    /// The longest callback, s.
    worst: f64,
    /// Time rendering over the sound's length.
    load: f64,
}

/// One copy of the instrument played live, and its input side.
struct LiveCopy {
    input: LiveInput,
    core: LiveCore,
}

/// Times `path`'s instrument at `rate` Hz with each of `buffers` (frames per callback), each
/// trial playing `seconds` of sound, and prints one line per buffer size.
pub fn bench_play(
    path: &Path,
    scheme: SchemeKind,
    rate: f64,
    buffers: &[usize],
    seconds: f64,
) -> miette::Result<()> {
    if !(seconds > 0.0 && seconds <= MAX_SECONDS) {
        return Err(miette!("--seconds: expected the sound's length of a trial, more than 0 and at most {MAX_SECONDS} s, found {seconds}"));
    }
    hooke::kernel::flush_subnormals_to_zero();
    let priority = match real_time_priority() {
        Ok(()) => "real-time priority".to_string(),
        Err(why) => format!("normal priority (real-time scheduling refused: {why}; expect noise)"),
    };
    let text = read_model(path)?;
    let name = path.display().to_string();
    let file =
        parse_instrument(&text, &name).map_err(|e| crate::diagnostics::FileDiagnostic::new(e, &text))?;
    let (oversample, instrument) = build(&file, &text, scheme, rate, file.oversample)?;
    let notes = open_notes(&instrument);
    println!(
        "{}: {} at {} Hz ({oversample} x {rate} Hz), {} voice(s) a copy, {seconds} s of sound a trial, one core, {priority}",
        instrument.kind,
        scheme.name(),
        rate * oversample as f64,
        notes.len()
    );
    for &buffer in buffers {
        let options = LiveOptions {
            performance: PerformanceOptions { oversample, threads: 1, ..PerformanceOptions::default() },
            rate,
            max_frames: buffer,
            gain: 1.0,
            queue: 256,
            record: 0,
            rule: StringRule::LowestFret,
            controls: Vec::new(),
            tuning: None,
        };
        let mut copies: Vec<LiveCopy> = Vec::new();
        let mut trial = |count: usize| -> miette::Result<Trial> {
            while copies.len() < count {
                let (input, core, _, _) = live(&instrument, options.clone()).map_err(|e| miette!("{e}"))?;
                copies.push(LiveCopy { input, core });
            }
            Ok(play(&mut copies[..count], &notes, buffer, rate, seconds))
        };
        let period = buffer as f64 / rate;
        let mut trials = std::collections::BTreeMap::new();
        let (sustained, failed) = search(|count| {
            let measured = trial(count)?;
            trials.insert(count, measured);
            Ok(measured.worst <= period)
        })?;
        let line = |count: usize| {
            let trial = trials[&count];
            format!(
                "{count} cop{} ({} voices) {} (worst callback {:.3} ms, mean load {:.0}%)",
                if count == 1 { "y" } else { "ies" },
                count * notes.len(),
                if trial.worst <= period { "in real time" } else { "late" },
                trial.worst * 1e3,
                trial.load * 100.0
            )
        };
        let kept = match sustained {
            0 => "none in real time".to_string(),
            count => line(count),
        };
        let beyond = match failed {
            Some(count) => format!("; {}", line(count)),
            None => format!("; the search stopped at {MAX_COPIES} copies"),
        };
        println!("buffer {buffer} frames ({:.3} ms): {kept}{beyond}", period * 1e3);
    }
    Ok(())
}

/// Asks for `SCHED_FIFO` scheduling for this thread at the priority JACK gives its clients'
/// audio threads (about 70 of 99).
fn real_time_priority() -> Result<(), std::io::Error> {
    #[cfg(target_os = "linux")]
    {
        let parameters = libc::sched_param { sched_priority: 70 };
        // SAFETY: a plain system call on this thread with a valid, initialised parameter.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &parameters) } == 0 {
            return Ok(());
        }
        Err(std::io::Error::last_os_error())
    }
    #[cfg(not(target_os = "linux"))]
    Err(std::io::Error::other("not on this system"))
}

/// The largest count in 1..=MAX_COPIES for which `fits` holds, assuming that it holds up to some
/// count and not beyond (0 when it fails at 1), and the first count found to fail (`None` when
/// none did): doubling, then bisection.
fn search(mut fits: impl FnMut(usize) -> miette::Result<bool>) -> miette::Result<(usize, Option<usize>)> {
    let (mut good, mut bad) = (0, None);
    let mut count = 1;
    while count <= MAX_COPIES {
        if fits(count)? {
            good = count;
            count *= 2;
        } else {
            bad = Some(count);
            break;
        }
    }
    while let Some(high) = bad.filter(|&high| high - good > 1) {
        let middle = good + (high - good) / 2;
        if fits(middle)? {
            good = middle;
        } else {
            bad = Some(middle);
        }
    }
    Ok((good, bad))
}

/// The MIDI note of each string open and of each bar (the notes that ring every part), or middle C for an
/// instrument without strings or bars.
fn open_notes(instrument: &Instrument) -> Vec<u8> {
    let notes: Vec<u8> = instrument
        .parts
        .iter()
        .filter_map(|part| part.kind.pitch_hz().map(|pitch| midi_note(pitch).clamp(0, 127) as u8))
        .collect();
    if notes.is_empty() {
        vec![60]
    } else {
        notes
    }
}

/// Plucks every copy's `notes`, then renders `seconds` of sound in callbacks of `buffer` frames,
/// every copy in each callback, timing each callback. The callbacks are paced as a device paces
/// them, one per `buffer / rate` seconds, so a trial lasts its sound's length and the thread
/// rests between callbacks (a thread that never rests is throttled by Linux's real-time
/// scheduler for 50 ms a second).
fn play(copies: &mut [LiveCopy], notes: &[u8], buffer: usize, rate: f64, seconds: f64) -> Trial {
    for copy in copies.iter_mut() {
        for &note in notes {
            let kind = NoteKind::On { note, velocity: 127 };
            let _ = copy.input.send(&NoteInput { time: 0.0, track: 0, channel: 0, kind });
        }
    }
    let callbacks = ((seconds * rate / buffer as f64).ceil() as usize).max(1);
    let period = Duration::from_secs_f64(buffer as f64 / rate);
    let mut out = vec![0.0f32; 2 * buffer];
    let (mut worst, mut busy) = (0.0f64, 0.0f64);
    let mut deadline = Instant::now();
    for _ in 0..callbacks {
        let started = Instant::now();
        for copy in copies.iter_mut() {
            copy.core.process(&mut out, 2);
        }
        let elapsed = started.elapsed().as_secs_f64();
        worst = worst.max(elapsed);
        busy += elapsed;
        // The next callback comes a period after this one was due, as a device asks for it.
        deadline += period;
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
    }
    Trial { worst, load: busy / (callbacks * buffer) as f64 * rate }
}

#[cfg(test)]
mod tests {
    use super::search;

    #[test]
    fn the_search_finds_the_last_count_that_fits() {
        for limit in [0, 1, 2, 3, 5, 17, 64, 100, 1023] {
            let mut asked = Vec::new();
            let (good, bad) = search(|count| {
                asked.push(count);
                Ok(count <= limit)
            })
            .unwrap();
            assert_eq!((good, bad), (limit, Some(limit + 1)), "limit {limit}, asked {asked:?}");
            assert!(asked.len() <= 2 * 11, "limit {limit}: {} trials", asked.len());
        }
        assert_eq!(search(|_| Ok(true)).unwrap(), (1024, None));
    }
}
