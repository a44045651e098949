//! What the plugin and its editor share beyond the parameters: the meters (the audio thread's),
//! what plays and the last errors (the main thread's, from the activation that built the
//! sound), and the count of the files the editor set (the plugin rebuilds when it moves).
//!
//! The audio thread touches only atomics here; the locks are the main and GUI threads'.

use crate::meters::Meters;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

/// The state the plugin shares with its editor.
#[derive(Debug, Default)]
pub struct Shared {
    /// The CPU and voice meters.
    pub meters: Meters,
    /// How many times the editor set a file: `process` asks the host for a restart when it
    /// moves, and the activation then rebuilds (even for the same file, read again).
    files_set: AtomicU64,
    /// The errors of the last build, a line each (empty: none).
    errors: Mutex<String>,
    /// What plays: the instrument file's name, or the preset's.
    playing: Mutex<String>,
}

impl Shared {
    /// How many times the editor set a file.
    pub fn files_set(&self) -> u64 {
        self.files_set.load(Relaxed)
    }

    /// The editor set a file: counts it.
    pub fn note_file_set(&self) {
        self.files_set.fetch_add(1, Relaxed);
    }

    /// The errors of the last build, a line each (empty: none).
    pub fn errors(&self) -> String {
        self.errors.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// A build met `errors` (none: it built cleanly).
    pub fn set_errors(&self, errors: &[String]) {
        *self.errors.lock().unwrap_or_else(PoisonError::into_inner) = errors.join("\n");
    }

    /// What plays (empty before the first build).
    pub fn playing(&self) -> String {
        self.playing.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// `name` plays.
    pub fn set_playing(&self, name: &str) {
        name.clone_into(&mut self.playing.lock().unwrap_or_else(PoisonError::into_inner));
    }
}
