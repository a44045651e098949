//! Hooke in the browser: the engine behind raw `extern "C"` exports, for the playground in
//! `web/` (docs/web.md). Built for `wasm32-unknown-unknown` (scripts/build-web.sh); it also
//! builds natively, where its tests run.
//!
//! The page passes text as UTF-8 bytes written into memory it asked for with [`hooke_alloc`];
//! a model is loaded into a handle ([`hooke_load`]) that renders blocks into a buffer the page
//! reads ([`hooke_render`]) and takes the controls' changes as engine events. A call that fails
//! leaves its error as UTF-8 JSON, `{"file", "line", "column", "message"}`, read with
//! [`hooke_error_ptr`] and [`hooke_error_len`]. An instrument file is played live through
//! [`hooke_live_load`], [`hooke_live_note`] and [`hooke_live_render`], on the real-time core of
//! `hooke play` ([`hooke::score::live`]). There is no loop here: every frame comes from
//! [`hooke::engine::Engine::render`] or the live core.
//!
//! ```
//! use hooke_web::Playground;
//! let source = "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 10\nmass = 1e-3\nstiffness = 2e5\n";
//! let mut playground = Playground::load(source, "s.toml")?;
//! playground.pluck(0.3, 1e-3)?;
//! let block = playground.render(64)?;
//! assert!(block[..64].iter().any(|&x| x != 0.0));
//! # Ok::<(), hooke_web::WebError>(())
//! ```

mod instrument;
mod live;
mod play_exports;
mod playground;
mod score;

use hooke::scheme::SchemeKind;
pub use instrument::BuiltInstrument;
pub use live::{LiveInstrument, MAX_LIVE_FRAMES};
pub use play_exports::*;
pub use playground::{Config, Playground, WebError, MAX_CHANNELS, MAX_FRAMES, MODE_FIELDS};
pub use score::{ScorePlayer, MAX_SCORE_FRAMES};
use std::cell::RefCell;
use std::sync::OnceLock;

thread_local! {
    /// The last call's error, as UTF-8 JSON.
    static LAST_ERROR: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Keeps `error` for [`hooke_error_ptr`] and [`hooke_error_len`].
pub(crate) fn keep(error: &WebError) {
    LAST_ERROR.with(|last| *last.borrow_mut() = error.to_json());
}

/// The scheme numbered `index` in [`hooke_schemes`] (`None` for a negative `index`, or one past
/// the list) and the rate `rate` Hz (`None` unless > 0): the file's where `None`.
fn config(index: i32, rate: f64) -> Config {
    let scheme = usize::try_from(index).ok().and_then(|i| SchemeKind::ALL.get(i).copied());
    Config { scheme, rate: (rate > 0.0).then_some(rate) }
}

/// A new handle holding `value`, or null after keeping the error.
pub(crate) fn handle<T>(value: Result<T, WebError>) -> *mut T {
    match value {
        Ok(value) => Box::into_raw(Box::new(value)),
        Err(error) => {
            keep(&error);
            std::ptr::null_mut()
        }
    }
}

/// 0 on success; 1 after keeping the error.
pub(crate) fn status(result: Result<(), WebError>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(error) => {
            keep(&error);
            1
        }
    }
}

/// Reserves `len` bytes for the page to write into; free them with [`hooke_free`] and the same
/// `len`.
#[no_mangle]
pub extern "C" fn hooke_alloc(len: usize) -> *mut u8 {
    let mut bytes = vec![0u8; len].into_boxed_slice();
    let ptr = bytes.as_mut_ptr();
    std::mem::forget(bytes);
    ptr
}

/// Frees `len` bytes reserved by [`hooke_alloc`].
///
/// # Safety
/// `ptr` and `len` are those of one [`hooke_alloc`] call, freed once.
#[no_mangle]
pub unsafe extern "C" fn hooke_free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)));
    }
}

/// The text of `len` bytes at `ptr`, with invalid UTF-8 replaced.
///
/// # Safety
/// `ptr` points to `len` readable bytes (or `len` is 0).
pub(crate) unsafe fn text(ptr: *const u8, len: usize) -> String {
    if len == 0 {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(ptr, len)).into_owned()
}

/// Parses the model file of `text_len` UTF-8 bytes at `text` (called the `name_len` bytes at
/// `name` in errors) and builds its engine at scheme number `scheme` of [`hooke_schemes`] and
/// `rate` Hz, the file's (`[run]`) for a `scheme` < 0 and a `rate` <= 0. Returns the handle, or
/// null after keeping the error (a parse error names its line and column).
///
/// # Safety
/// `text` and `name` point to that many readable bytes.
#[no_mangle]
pub unsafe extern "C" fn hooke_load(
    text: *const u8,
    text_len: usize,
    name: *const u8,
    name_len: usize,
    scheme: i32,
    rate: f64,
) -> *mut Playground {
    let (source, file) = (self::text(text, text_len), self::text(name, name_len));
    handle(Playground::load_with(&source, &file, config(scheme, rate)))
}

/// Frees a handle from [`hooke_load`].
///
/// # Safety
/// `handle` comes from [`hooke_load`] and is freed once.
#[no_mangle]
pub unsafe extern "C" fn hooke_drop(handle: *mut Playground) {
    if !handle.is_null() {
        drop(Box::from_raw(handle));
    }
}

/// The address of the last error's UTF-8 JSON (valid until the next call that fails).
#[no_mangle]
pub extern "C" fn hooke_error_ptr() -> *const u8 {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The length in bytes of the last error's JSON.
#[no_mangle]
pub extern "C" fn hooke_error_len() -> usize {
    LAST_ERROR.with(|last| last.borrow().len())
}

/// The most frames one [`hooke_render`] call gives, and the distance (in f32s) between two
/// channels in its buffer.
#[no_mangle]
pub extern "C" fn hooke_max_frames() -> usize {
    MAX_FRAMES
}

/// The simulation and output rate of the model, Hz.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_rate(handle: *const Playground) -> f64 {
    (*handle).rate()
}

/// The number of output channels (the pickups' channel numbers).
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_channels(handle: *const Playground) -> usize {
    (*handle).engine().channels()
}

/// The frames the file's `[run]` asks for (its duration, s, times its rate, Hz).
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_frames(handle: *const Playground) -> f64 {
    (*handle).frames() as f64
}

/// Renders the next `frames` frames (at most [`hooke_max_frames`]) and returns the buffer:
/// channel `c`'s samples (pickup units: m or m/s) start `c * hooke_max_frames()` f32s in. The
/// buffer is allocated at load and never moves. Null after keeping the error (an instability).
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_render(handle: *mut Playground, frames: usize) -> *const f32 {
    match (*handle).render(frames) {
        Ok(buffer) => buffer.as_ptr(),
        Err(error) => {
            keep(&error);
            std::ptr::null()
        }
    }
}

/// Sets every stiffness to `factor` (> 0) times its value as loaded. 0, or 1 after keeping
/// the error.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_set_tension(handle: *mut Playground, factor: f64) -> i32 {
    status((*handle).set_tension(factor))
}

/// Sets every damper's coefficient and every drag to `factor` (>= 0) times its value as
/// loaded. 0, or 1 after keeping the error.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_set_damping(handle: *mut Playground, factor: f64) -> i32 {
    status((*handle).set_damping(factor))
}

/// Plucks a 1D model: its masses at rest on a triangle of height `amplitude` (m) peaking at
/// `position` (a fraction of the length, in (0, 1)). 0, or 1 after keeping the error.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_pluck(handle: *mut Playground, position: f64, amplitude: f64) -> i32 {
    status((*handle).pluck(position, amplitude))
}

/// The digital frequency (Hz) of the model's lowest vibrating mode as it is now, as its scheme
/// renders it at its step (the analysis). NaN when no mode vibrates, or after keeping the
/// error.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_lowest_frequency(handle: *const Playground) -> f64 {
    match (*handle).lowest_frequency() {
        Ok(frequency) => frequency.unwrap_or(f64::NAN),
        Err(error) => {
            keep(&error);
            f64::NAN
        }
    }
}

/// Analyses the model as it is now and returns its modes, by increasing analog frequency:
/// [`MODE_FIELDS`] f64s per mode, the analog frequency (Hz), the digital frequency (Hz) and the
/// discrete pole `z` (real and imaginary parts, `Im z >= 0`); [`hooke_mode_count`] modes. Valid
/// until the next call on `handle`. Null after keeping the error.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_modes(handle: *mut Playground) -> *const f64 {
    match (*handle).modes() {
        Ok(modes) => modes.as_ptr(),
        Err(error) => {
            keep(&error);
            std::ptr::null()
        }
    }
}

/// The number of modes of the last [`hooke_modes`] call.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_mode_count(handle: *const Playground) -> usize {
    (*handle).mode_count()
}

/// Rebuilds the engine at scheme number `scheme` of [`hooke_schemes`] and `rate` Hz (the
/// file's for a `scheme` < 0 and a `rate` <= 0) from the state now, with the factors set: the
/// sound goes on. 0, or 1 after keeping the error (the engine is then unchanged).
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_reconfigure(handle: *mut Playground, scheme: i32, rate: f64) -> i32 {
    status((*handle).reconfigure(config(scheme, rate)))
}

/// The number in [`hooke_schemes`] of the scheme the engine runs.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_scheme(handle: *const Playground) -> i32 {
    let scheme = (*handle).scheme();
    SchemeKind::ALL.iter().position(|&s| s == scheme).map_or(-1, |i| i as i32)
}

/// The schemes' names as UTF-8 JSON, an array in the order [`hooke_load`] numbers them from 0;
/// [`hooke_schemes_len`] bytes, valid as long as the module.
#[no_mangle]
pub extern "C" fn hooke_schemes() -> *const u8 {
    schemes().as_ptr()
}

/// The length in bytes of [`hooke_schemes`].
#[no_mangle]
pub extern "C" fn hooke_schemes_len() -> usize {
    schemes().len()
}

fn schemes() -> &'static str {
    static NAMES: OnceLock<String> = OnceLock::new();
    NAMES.get_or_init(|| serde_json::to_string(&SchemeKind::ALL.map(SchemeKind::name)).unwrap_or_default())
}

/// Sets every mass to `factor` (> 0) times its mass as loaded. 0, or 1 after keeping the error.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_set_mass(handle: *mut Playground, factor: f64) -> i32 {
    status((*handle).set_mass(factor))
}

/// Coordinates per node: 1, 2 or 3.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_dimension(handle: *const Playground) -> usize {
    (*handle).engine().system().dimension()
}

/// The number of masses (the first nodes; the anchors follow).
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_mass_count(handle: *const Playground) -> usize {
    (*handle).engine().system().mass_count()
}

/// Every node's position now, m: [`hooke_dimension`] f64s per node, masses then anchors (a 1D
/// model's are displacements); `hooke_node_count` nodes. Valid until the next call on `handle`.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_positions(handle: *mut Playground) -> *const f64 {
    (*handle).positions().as_ptr()
}

/// The number of nodes (masses and anchors).
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_node_count(handle: *const Playground) -> usize {
    (*handle).engine().system().node_ids().len()
}

/// The links (springs and dampers, by their nodes): two u32 node numbers each,
/// [`hooke_link_count`] links. Valid as long as the handle.
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_links(handle: *const Playground) -> *const u32 {
    (*handle).link_nodes().as_ptr()
}

/// The number of links of [`hooke_links`].
///
/// # Safety
/// `handle` comes from [`hooke_load`].
#[no_mangle]
pub unsafe extern "C" fn hooke_link_count(handle: *const Playground) -> usize {
    (*handle).link_nodes().len() / 2
}
