//! The CPU and voice meters: `process` measures itself and counts the keys held; the editor
//! shows them. The audio thread keeps its running figures in plain fields ([`LoadMeter`],
//! [`HeldKeys`]) and publishes them through atomics ([`Meters`]): no lock, no allocation.
//!
//! - The **load** is the time `process` took over the duration of the audio it rendered (1: a
//!   block took as long to render as it lasts; past 1 the host drops out), over the last
//!   window of blocks that reached [`LOAD_WINDOW`] of audio; its **peak** is that window's
//!   largest block's load. Both are published at each window's end (0 before the first).
//! - The **voices** are the keys held: keys down (a note on without its note off yet), plus the
//!   keys released while their channel's sustain pedal is down, until it lifts. They count what
//!   the performer holds, whether the instrument sounds the note or not (a note it cannot play,
//!   a bar ringing on after its note off).

use nice_plug::prelude::AtomicF32;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::Duration;

/// The audio a load measure spans, s.
const LOAD_WINDOW: f64 = 1.0;

/// MIDI channels.
const CHANNELS: usize = 16;

/// The lowest value of the sustain pedal's controller (CC 64) that holds it down.
const PEDAL_DOWN: u8 = 64;

/// The meters as the editor reads them: written by the audio thread, read by the GUI thread.
#[derive(Debug, Default)]
pub struct Meters {
    /// The load over the last window.
    load: AtomicF32,
    /// Its largest block's.
    peak: AtomicF32,
    /// The keys held.
    voices: AtomicU32,
}

impl Meters {
    /// The load: the time `process` took over the audio's duration, over the last window.
    pub fn load(&self) -> f32 {
        self.load.load(Relaxed)
    }

    /// The load of the last window's largest block.
    pub fn peak(&self) -> f32 {
        self.peak.load(Relaxed)
    }

    /// The keys held.
    pub fn voices(&self) -> u32 {
        self.voices.load(Relaxed)
    }

    /// Publishes `voices`.
    pub fn set_voices(&self, voices: u32) {
        self.voices.store(voices, Relaxed);
    }

    /// Publishes a load and its peak.
    pub fn set_load(&self, load: f32, peak: f32) {
        self.load.store(load, Relaxed);
        self.peak.store(peak, Relaxed);
    }
}

/// The load's window so far, on the audio thread.
#[derive(Debug, Clone, Default)]
pub struct LoadMeter {
    /// The output rate, Hz (0 before the first activation: nothing is measured).
    rate: f64,
    /// The time `process` took, s.
    busy: f64,
    /// The audio's duration, s.
    lasted: f64,
    /// The largest block's load.
    peak: f64,
}

impl LoadMeter {
    /// A meter for audio at `rate` Hz, its window empty.
    pub fn new(rate: f32) -> Self {
        Self { rate: f64::from(rate), ..Self::default() }
    }

    /// Takes a block of `frames` frames that took `busy` to render; publishes the window's load
    /// to `meters` when it spans [`LOAD_WINDOW`], and begins the next. Allocates nothing.
    pub fn measure(&mut self, frames: usize, busy: Duration, meters: &Meters) {
        if frames == 0 || self.rate <= 0.0 {
            return;
        }
        let (busy, lasted) = (busy.as_secs_f64(), frames as f64 / self.rate);
        self.busy += busy;
        self.lasted += lasted;
        self.peak = self.peak.max(busy / lasted);
        if self.lasted >= LOAD_WINDOW {
            meters.set_load((self.busy / self.lasted) as f32, self.peak as f32);
            *self = Self { rate: self.rate, ..Self::default() };
        }
    }
}

/// The keys held on each MIDI channel, as the MIDI messages the sound takes say.
#[derive(Debug, Clone, Default)]
pub struct HeldKeys {
    /// The keys down, a bit per key, by channel.
    down: [u128; CHANNELS],
    /// The keys released while the pedal was down, by channel.
    pedalled: [u128; CHANNELS],
    /// Whether each channel's sustain pedal is down, a bit per channel.
    pedal: u16,
}

impl HeldKeys {
    /// Takes the MIDI message `bytes` (status byte first): note on and off, the sustain pedal;
    /// any other message is ignored.
    pub fn send(&mut self, bytes: &[u8]) {
        let [status, data1, data2, ..] = *bytes else { return };
        let channel = usize::from(status & 0x0f);
        let key = 1u128 << (data1 & 0x7f);
        let pedal = 1u16 << channel;
        match status & 0xf0 {
            0x90 if data2 > 0 => self.down[channel] |= key,
            0x80 | 0x90 => {
                if self.down[channel] & key != 0 && self.pedal & pedal != 0 {
                    self.pedalled[channel] |= key;
                }
                self.down[channel] &= !key;
            }
            0xb0 if data1 == 64 && data2 >= PEDAL_DOWN => self.pedal |= pedal,
            0xb0 if data1 == 64 => {
                self.pedal &= !pedal;
                self.pedalled[channel] = 0;
            }
            _ => {}
        }
    }

    /// The keys held: down, or released under the pedal.
    pub fn count(&self) -> u32 {
        self.down.iter().zip(&self.pedalled).map(|(down, pedalled)| (down | pedalled).count_ones()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_down_and_keys_the_pedal_holds_count() {
        let mut keys = HeldKeys::default();
        for bytes in [[0x90, 60, 100], [0x90, 64, 90], [0x91, 60, 80]] {
            keys.send(&bytes);
        }
        assert_eq!(keys.count(), 3);
        // A note on again holds one key; a note on with velocity 0 is a note off.
        keys.send(&[0x90, 60, 70]);
        keys.send(&[0x90, 64, 0]);
        assert_eq!(keys.count(), 2);
        // Channel 1's pedal holds its key past its note off; channel 0's key ends.
        keys.send(&[0xb1, 64, 127]);
        keys.send(&[0x81, 60, 0]);
        keys.send(&[0x80, 60, 0]);
        assert_eq!(keys.count(), 1);
        // A key released under the pedal, pressed and released again, is still held once.
        keys.send(&[0x91, 60, 80]);
        keys.send(&[0x81, 60, 0]);
        assert_eq!(keys.count(), 1);
        keys.send(&[0xb1, 64, 0]);
        assert_eq!(keys.count(), 0);
        // A note off of a key not down under the pedal holds nothing.
        keys.send(&[0xb2, 64, 127]);
        keys.send(&[0x82, 61, 0]);
        assert_eq!(keys.count(), 0);
    }

    #[test]
    fn the_load_is_the_time_over_the_audio_of_a_window_and_its_peak_its_largest_blocks() {
        let meters = Meters::default();
        let mut meter = LoadMeter::new(1024.0);
        // 16 frames last 1/64 s: half a second of blocks taking 1/128 s (a load of 0.5), half
        // taking none; an empty block measures nothing.
        for block in 0..64 {
            assert_eq!((meters.load(), meters.peak()), (0.0, 0.0), "published at block {block}");
            meter.measure(0, Duration::from_secs(1), &meters);
            meter.measure(16, Duration::from_nanos(if block % 2 == 0 { 7_812_500 } else { 0 }), &meters);
        }
        assert_eq!((meters.load(), meters.peak()), (0.25, 0.5));
        // The next window begins empty.
        for _ in 0..64 {
            meter.measure(16, Duration::from_nanos(1_562_500), &meters);
        }
        assert!((meters.load() - 0.1).abs() < 1e-6 && (meters.peak() - 0.1).abs() < 1e-6);
    }
}
