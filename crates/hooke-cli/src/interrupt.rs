//! Ctrl-C, SIGTERM and SIGHUP. Outside a run's loop (loading, the analysis, the pre-run check,
//! designs, plots) nothing is written yet and the work may sit inside one long computation, so a
//! first signal ends the process at once (exit status 130). Inside a loop that checks for it
//! ([`Interrupt::defer`]), the first signal asks the command to stop after its current block and
//! keep what it computed as valid files (as an instability does); a second one ends the process
//! at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The exit status of a process ended by a signal.
const INTERRUPTED_STATUS: i32 = 130;

/// Set by the first terminating signal.
#[derive(Clone)]
pub struct Interrupt {
    requested: Arc<AtomicBool>,
    /// Whether a first signal ends the process at once (no loop is checking for it).
    immediate: Arc<AtomicBool>,
}

impl Interrupt {
    /// Installs the handlers. Where they cannot be installed, signals keep their default action.
    pub fn install() -> Self {
        let requested = Arc::new(AtomicBool::new(false));
        let immediate = Arc::new(AtomicBool::new(true));
        #[cfg(unix)]
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP]
        {
            // The actions run in this order: the shutdowns see the flags as they were before
            // this signal, so a first signal inside a loop only sets `requested`.
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                INTERRUPTED_STATUS,
                Arc::clone(&immediate),
            );
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                INTERRUPTED_STATUS,
                Arc::clone(&requested),
            );
            let _ = signal_hook::flag::register(signal, Arc::clone(&requested));
        }
        Self { requested, immediate }
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::Relaxed)
    }

    /// Until the guard is dropped, a first signal only sets [`Interrupt::requested`], which the
    /// caller checks between blocks to stop cleanly and write what it computed.
    pub fn defer(&self) -> Deferred<'_> {
        self.immediate.store(false, Ordering::SeqCst);
        Deferred(self)
    }
}

/// A stretch of work that checks [`Interrupt::requested`] between blocks ([`Interrupt::defer`]).
pub struct Deferred<'a>(&'a Interrupt);

impl Drop for Deferred<'_> {
    fn drop(&mut self) {
        self.0.immediate.store(true, Ordering::SeqCst);
    }
}

/// A run stopped by a signal, with what was done.
pub fn stopped_message(step: u64, steps: u64) -> String {
    format!("interrupted at step {step} of {steps}: the outputs hold the steps computed so far")
}
