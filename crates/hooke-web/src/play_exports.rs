//! The exports that play instrument files: live from keys and MIDI ([`LiveInstrument`]), and
//! scores ([`ScorePlayer`]) on an instrument built once ([`BuiltInstrument`]). Errors as the
//! model's exports keep them ([`crate::hooke_error_ptr`]).

use crate::{config, handle, keep, status, text as text_at, BuiltInstrument, LiveInstrument, ScorePlayer};
use crate::{MAX_LIVE_FRAMES, MAX_SCORE_FRAMES};

/// Parses the instrument file of `text_len` UTF-8 bytes at `text` (called the `name_len` bytes
/// at `name` in errors) and builds it to be played live for scheme number `scheme` of
/// [`crate::hooke_schemes`] (the file's for a `scheme` < 0) at `rate` Hz (the output rate; the
/// simulation runs at a multiple the file or the analysis chooses). Returns the handle, or null
/// after keeping the error.
///
/// # Safety
/// `text` and `name` point to that many readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hooke_live_load(
    text: *const u8,
    text_len: usize,
    name: *const u8,
    name_len: usize,
    rate: f64,
    scheme: i32,
) -> *mut LiveInstrument {
    let (source, file) = (text_at(text, text_len), text_at(name, name_len));
    handle(LiveInstrument::load_with(&source, &file, rate, config(scheme, rate).scheme))
}

/// Checks the instrument file of `text_len` UTF-8 bytes at `text` (called the `name_len` bytes
/// at `name` in errors) as it is read, without building it. 0, or 1 after keeping the error.
///
/// # Safety
/// `text` and `name` point to that many readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hooke_live_check(
    text: *const u8,
    text_len: usize,
    name: *const u8,
    name_len: usize,
) -> i32 {
    status(LiveInstrument::check(&text_at(text, text_len), &text_at(name, name_len)))
}

/// Frees a handle from [`hooke_live_load`].
///
/// # Safety
/// `handle` comes from [`hooke_live_load`] and is freed once.
#[no_mangle]
pub unsafe extern "C" fn hooke_live_drop(handle: *mut LiveInstrument) {
    if !handle.is_null() {
        drop(Box::from_raw(handle));
    }
}

/// The most frames one [`hooke_live_render`] call gives.
#[no_mangle]
pub extern "C" fn hooke_live_max_frames() -> usize {
    MAX_LIVE_FRAMES
}

/// Simulation steps per output frame of the built instrument.
///
/// # Safety
/// `handle` comes from [`hooke_live_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_live_oversample(handle: *const LiveInstrument) -> usize {
    (*handle).oversample()
}

/// MIDI note `note` (60 = C4) pressed with `velocity` (1 to 127), or lifted (`velocity` 0),
/// from the next block on. 0, or 1 after keeping the error (a note the instrument cannot play).
///
/// # Safety
/// `handle` comes from [`hooke_live_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_live_note(handle: *mut LiveInstrument, note: u8, velocity: u8) -> i32 {
    status((*handle).note(note, velocity))
}

/// Renders the next `frames` frames (at most [`hooke_live_max_frames`]) and returns them,
/// interleaved stereo, full scale 1. The buffer is allocated at load and never moves; nothing
/// is allocated.
///
/// # Safety
/// `handle` comes from [`hooke_live_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_live_render(handle: *mut LiveInstrument, frames: usize) -> *const f32 {
    (*handle).render(frames).as_ptr()
}

/// A live MIDI message of `len` bytes (1 to 3, status first; the others ignored): note on and
/// off, the sustain pedal (CC 64) and pitch bend (2 semitones either way), from the next block
/// on; other messages do nothing. 0, or 1 after keeping the error.
///
/// # Safety
/// `handle` comes from [`hooke_live_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_live_midi(
    handle: *mut LiveInstrument,
    status_byte: u8,
    data1: u8,
    data2: u8,
    len: usize,
) -> i32 {
    let bytes = [status_byte, data1, data2];
    status((*handle).midi(&bytes[..len.min(3)]))
}

/// Parses the instrument file of `text_len` UTF-8 bytes at `text` (called the `name_len` bytes
/// at `name` in errors) and builds it for scheme number `scheme` of [`crate::hooke_schemes`]
/// (the file's for a `scheme` < 0) at `rate` Hz, for scores to be read against and played on.
/// Returns the handle, or null after keeping the error.
///
/// # Safety
/// `text` and `name` point to that many readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hooke_instrument_load(
    text: *const u8,
    text_len: usize,
    name: *const u8,
    name_len: usize,
    rate: f64,
    scheme: i32,
) -> *mut BuiltInstrument {
    let (source, file) = (text_at(text, text_len), text_at(name, name_len));
    handle(BuiltInstrument::load(&source, &file, rate, config(scheme, rate).scheme))
}

/// Frees a handle from [`hooke_instrument_load`].
///
/// # Safety
/// `handle` comes from [`hooke_instrument_load`] and is freed once.
#[no_mangle]
pub unsafe extern "C" fn hooke_instrument_drop(handle: *mut BuiltInstrument) {
    if !handle.is_null() {
        drop(Box::from_raw(handle));
    }
}

/// Reads the score file of `text_len` UTF-8 bytes at `text` (called the `name_len` bytes at
/// `name` in errors) against the instrument `instrument`: the output frames it lasts, or -1
/// after keeping the error (at its line and column).
///
/// # Safety
/// `instrument` comes from [`hooke_instrument_load`]; `text` and `name` point to that many
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hooke_score_check(
    instrument: *const BuiltInstrument,
    text: *const u8,
    text_len: usize,
    name: *const u8,
    name_len: usize,
) -> f64 {
    match (*instrument).score_frames(&text_at(text, text_len), &text_at(name, name_len)) {
        Ok(frames) => frames as f64,
        Err(error) => {
            keep(&error);
            -1.0
        }
    }
}

/// Reads the score file of `text_len` UTF-8 bytes at `text` (called the `name_len` bytes at
/// `name` in errors) against `instrument` and makes its performance. Returns the handle, or null
/// after keeping the error.
///
/// # Safety
/// `instrument` comes from [`hooke_instrument_load`]; `text` and `name` point to that many
/// readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hooke_score_load(
    instrument: *const BuiltInstrument,
    text: *const u8,
    text_len: usize,
    name: *const u8,
    name_len: usize,
) -> *mut ScorePlayer {
    handle(ScorePlayer::load(&*instrument, &text_at(text, text_len), &text_at(name, name_len)))
}

/// Frees a handle from [`hooke_score_load`].
///
/// # Safety
/// `handle` comes from [`hooke_score_load`] and is freed once.
#[no_mangle]
pub unsafe extern "C" fn hooke_score_drop(handle: *mut ScorePlayer) {
    if !handle.is_null() {
        drop(Box::from_raw(handle));
    }
}

/// The output frames the score lasts.
///
/// # Safety
/// `handle` comes from [`hooke_score_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_score_frames(handle: *const ScorePlayer) -> f64 {
    (*handle).frames() as f64
}

/// The most frames one [`hooke_score_render`] call gives.
#[no_mangle]
pub extern "C" fn hooke_score_max_frames() -> usize {
    MAX_SCORE_FRAMES
}

/// Renders the next `frames` frames of the score (at most [`hooke_score_max_frames`]), silence
/// after its end, and returns them, interleaved stereo, full scale 1. The buffer is allocated at
/// load and never moves. Null after keeping the error (an instability).
///
/// # Safety
/// `handle` comes from [`hooke_score_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_score_render(handle: *mut ScorePlayer, frames: usize) -> *const f32 {
    match (*handle).render(frames) {
        Ok(buffer) => buffer.as_ptr(),
        Err(error) => {
            keep(&error);
            std::ptr::null()
        }
    }
}
