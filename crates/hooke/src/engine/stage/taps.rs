//! The pickups' terms as a kernel or a device records them (one row of samples per term),
//! and their sum into the engine's channels.

use crate::engine::Pickups;
use crate::kernel::chain::Tap;

/// Every pickup term as a [`Tap`] (sorted by mass), the channel of each, and the scratch rows
/// a path records them into.
pub(crate) struct TapChannels {
    /// The terms, sorted by mass (the coordinate).
    taps: Vec<Tap>,
    /// The channel of each term.
    channels: Vec<usize>,
    /// Whether each term is the first of its channel.
    first: Vec<bool>,
    /// The channels with no term.
    silent: Vec<usize>,
    /// Each term's samples of the current call, `taps x steps`.
    record: Vec<f64>,
}

impl TapChannels {
    /// The terms of `pickups`.
    pub(crate) fn new(pickups: &Pickups) -> Self {
        let mut taps: Vec<(Tap, usize)> = pickups
            .taps()
            .map(|(channel, coordinate, quantity, weight)| {
                (Tap { mass: coordinate, quantity, weight }, channel)
            })
            .collect();
        taps.sort_by_key(|(tap, _)| tap.mass);
        let channels: Vec<usize> = taps.iter().map(|(_, c)| *c).collect();
        let first = (0..channels.len()).map(|j| !channels[..j].contains(&channels[j])).collect();
        let silent = (0..pickups.channel_count()).filter(|c| !channels.contains(c)).collect();
        Self { taps: taps.into_iter().map(|(t, _)| t).collect(), channels, first, silent, record: Vec::new() }
    }

    /// The terms.
    pub(crate) fn taps(&self) -> &[Tap] {
        &self.taps
    }

    /// The terms and their scratch rows for a call of `steps` steps (`taps x steps` values).
    pub(crate) fn rows(&mut self, steps: usize) -> (&[Tap], &mut [f64]) {
        let size = self.taps.len() * steps;
        if self.record.len() < size {
            self.record.resize(size, 0.0);
        }
        (&self.taps, &mut self.record[..size])
    }

    /// Sums the first `done` samples of each term's row (a call of `steps` steps) into its
    /// channel of `out` (`channels x steps`): the first term's samples, then the others added
    /// in term order; a channel with no term gets zeros.
    pub(crate) fn mix(&self, steps: usize, done: usize, out: &mut [f64]) {
        for (j, &channel) in self.channels.iter().enumerate() {
            let samples = &self.record[j * steps..][..done];
            let out = &mut out[channel * steps..][..done];
            if self.first[j] {
                out.copy_from_slice(samples);
            } else {
                out.iter_mut().zip(samples).for_each(|(o, s)| *o += s);
            }
        }
        for &channel in &self.silent {
            out[channel * steps..][..done].fill(0.0);
        }
    }
}
