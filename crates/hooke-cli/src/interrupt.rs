//! Ctrl-C, SIGTERM and SIGHUP: the first asks the running command to stop after its current
//! block and keep what it computed as valid files (as an instability does); a second one ends
//! the process at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set by the first terminating signal.
#[derive(Clone)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Installs the handlers. Where they cannot be installed, signals keep their default action.
    pub fn install() -> Self {
        let flag = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP]
        {
            // The shutdown is registered first, so it acts only when the flag is already set.
            let _ = signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&flag));
            let _ = signal_hook::flag::register(signal, Arc::clone(&flag));
        }
        Self(flag)
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A run stopped by a signal, with what was done.
pub fn stopped_message(step: u64, steps: u64) -> String {
    format!("interrupted at step {step} of {steps}: the outputs hold the steps computed so far")
}
