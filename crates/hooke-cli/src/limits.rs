//! What a request will cost, checked before any work starts: the memory its outputs need
//! against what the machine has, and the simulation it asks for against what can finish.

use miette::miette;

/// The most mass-steps (steps times moving masses) one command takes on: 1e15, about a day at
/// 1e10 mass-steps per second, faster than any path runs on one machine (BENCHMARKS.md).
pub const MAX_MASS_STEPS: f64 = 1e15;

/// The share of the machine's available memory one command may plan to use.
const MEMORY_SHARE: f64 = 0.8;

/// Bytes of memory the process can still be given: Linux's `MemAvailable`, or the process's
/// address-space limit (`ulimit -v`) where that is lower; `None` if neither is known.
pub fn available_memory() -> Option<u64> {
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| {
        let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    });
    match (available, address_space_limit()) {
        (Some(a), Some(l)) => Some(a.min(l)),
        (a, l) => a.or(l),
    }
}

/// The soft limit on the process's address space (`RLIMIT_AS`), bytes; `None` when unlimited.
#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we own.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    // rlim_t is u64 on Linux but not on every Unix.
    #[allow(clippy::unnecessary_cast)]
    let bytes = limit.rlim_cur as u64;
    (read && limit.rlim_cur != libc::RLIM_INFINITY).then_some(bytes)
}

#[cfg(not(unix))]
fn address_space_limit() -> Option<u64> {
    None
}

/// Refuses `what` when it needs more than [`MEMORY_SHARE`] of the available memory (or, where
/// that is unknown, more than the address space can hold).
pub fn check_memory(what: &str, bytes: u128) -> miette::Result<()> {
    let (limit, machine) = match available_memory() {
        Some(available) => (
            available as f64 * MEMORY_SHARE,
            format!(
                "{} can be had (the available memory, or `ulimit -v` where lower)",
                size(available as f64)
            ),
        ),
        None => (isize::MAX as f64, "more than can be addressed".to_string()),
    };
    if bytes as f64 > limit {
        return Err(miette!("{what} needs {} of memory; {machine}", size(bytes as f64)));
    }
    Ok(())
}

/// Refuses a run of `steps` steps of `masses` moving masses that could not finish.
pub fn check_work(what: &str, steps: u64, masses: usize) -> miette::Result<()> {
    let work = steps as f64 * masses.max(1) as f64;
    if work > MAX_MASS_STEPS {
        return Err(miette!(
            "{what} asks for {steps} steps of {masses} mass(es), {work:.3e} mass-steps: more than the \
             {MAX_MASS_STEPS:e} that one command takes on (about a day at 1e10 mass-steps/s); ask for a \
             shorter run or a lower rate"
        ));
    }
    Ok(())
}

/// `bytes` in kB, MB, GB or TB (powers of 1000), three significant figures.
fn size(bytes: f64) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value} bytes")
    } else {
        format!("{value:.3} {}", units[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_powers_of_a_thousand() {
        assert_eq!(size(512.0), "512 bytes");
        assert_eq!(size(1.5e9), "1.500 GB");
        assert_eq!(size(8e21), "8000.000 EB");
    }

    #[test]
    fn a_request_beyond_the_address_space_is_refused() {
        let error = check_memory("the WAV buffer", u128::MAX).unwrap_err().to_string();
        assert!(error.contains("the WAV buffer needs"), "{error}");
    }

    #[test]
    fn work_beyond_a_day_at_the_fastest_speed_is_refused() {
        assert!(check_work("the run", 1_000_000, 1000).is_ok());
        let error = check_work("the run", u64::MAX, 3).unwrap_err().to_string();
        assert!(error.contains("18446744073709551615 steps of 3 mass(es)"), "{error}");
    }
}
