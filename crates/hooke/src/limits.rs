//! The limits on what a model, an instrument, a score or a run may ask for, in one place.
//!
//! Each limit is far beyond any real use, and each keeps a slip of the keyboard
//! (`masses = 1000000000`, `rate = 1e20`, `channel = 4294967296`) from exhausting the memory or
//! the time of the machine: what breaks one is refused when it is read, with a message that
//! names what was asked and the limit, never a crash, a hang or an allocation that aborts.
//! docs/model-format.md and docs/score-format.md ("Limits") list them for file authors.

/// The most nodes (masses and anchors) a model may hold: 2^22 = 4 194 304.
///
/// A mass costs about 700 bytes in 1D (its spec, id and links in the model, about 450 B; its
/// coordinates and links in the compiled system and the engine, about 250 B) and more in 2D
/// and 3D, so a model at the limit takes 3 to 5 GiB: a generator asked for more (`[[string]]
/// masses`, a membrane's `columns x rows`, a guitar's strings) is refused before it allocates.
pub const MAX_NODES: usize = 1 << 22;

/// The most output channels (pickup channel numbers 1 to 64): more than any sound file or
/// audio interface in use takes. The engine keeps a buffer per channel for every block.
pub const MAX_CHANNELS: usize = 64;

/// The most steps one run or score may ask for: 2^40, about 1.1e12 (290 days at 44.1 kHz).
///
/// A step count is computed from a duration as `round(duration / dt)`, which must fit in a
/// `u64`; below 2^53 every step number and every time `step * dt` is also exact to the rounding
/// of `dt`. At the fastest rates the kernels reach (about 1e9 mass-steps per second) 2^40
/// steps of a single mass take 20 minutes.
pub const MAX_STEPS: u64 = 1 << 40;

/// The highest output rate of an instrument (`[render] rate`), Hz: 10 MHz.
///
/// An output rate is a sound's sample rate: 10 MHz is 50 times the highest rate audio
/// equipment uses (192 kHz). An instrument simulates at up to 16 times its output rate and
/// is designed for that step, and a second of sound at 10 MHz is already 10^7 frames a
/// channel; a larger figure is a mistake to report at once, not hours later.
pub const MAX_OUTPUT_RATE: f64 = 1e7;

/// The longest score (`[score] duration`), s: one hour. A performance is rendered into memory
/// before it is written: an hour at 44.1 kHz in stereo is 318 million samples (2.5 GB as f64).
pub const MAX_SCORE_DURATION: f64 = 3600.0;

/// The most events a score may hold, each repeat (`every`, `for`) counted: 55 a second for an
/// hour. A pluck on a guitar string holds the shape of its 80 masses (1.3 KB), so at the limit
/// the resolved score takes about 260 MB.
pub const MAX_SCORE_EVENTS: usize = 200_000;

/// The most characters of a user's text (an id, a name) quoted in an error message; longer
/// text is cut there, with an ellipsis and its length.
pub const MAX_QUOTED_CHARS: usize = 60;

/// The most samples read from a WAV file (every channel counted): 25 minutes of mono at 44.1
/// kHz, 512 MB as the f64 values the library works on.
pub const MAX_READ_SAMPLES: usize = 1 << 26;

/// The most masses one mode damping spans (`[[string]] mode_damping`): 512. Its damping matrix is
/// dense, `8 n^2` bytes (2 MiB at the limit), built in `n^3` operations (about 0.1 s at the limit)
/// and `n^2` multiplications a step on the general path; a fitted string has at most 400.
pub const MAX_MODE_DAMPING_MASSES: usize = 512;

/// The most entries all the mode dampings of a model may hold together (the sum of their `n^2`):
/// 2^22, 32 MiB of dense damping matrices (sixteen strings at the limit above, or 650 strings of
/// 80 masses), built in at most about 2 s.
pub const MAX_MODE_DAMPING_ENTRIES: usize = 1 << 22;
