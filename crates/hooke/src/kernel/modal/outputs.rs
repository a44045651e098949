//! The modal kernel's outputs: channels, each a weighted sum of masses' positions and
//! velocities (the pickups). The kernel reads *signals*: the sum of one channel's terms on one
//! body, as weights over that body's modes, `s = w_q . q + w_p . p`, so a signal costs the same
//! whatever number of terms it sums and a group of modes reads only its own bodies' signals. A
//! channel whose terms on a body are another channel's scaled (a string panned across two
//! channels) reuses that signal with a gain. Where many small bodies share a channel, one
//! signal per channel, over every mode, costs less; the kernel takes the cheaper.

use super::folding::Matrix;
use super::Bodies;
use crate::kernel::chain::Tap;
use crate::quantity::Quantity;

/// One signal's rows over one group: where in [`Outputs::rows`] its weights over positions `q`
/// and over velocities `p` start (None where they are all zero in the group).
#[derive(Debug, Clone, Copy)]
pub(super) struct Read {
    pub(super) signal: usize,
    pub(super) q: Option<usize>,
    pub(super) p: Option<usize>,
}

/// The signals' weight rows, which signals read each group of modes, and the mix into channels.
#[derive(Debug, Clone, Default)]
pub(super) struct Outputs {
    /// Weight rows, each over the groups of one signal's body.
    pub(super) rows: Vec<f64>,
    /// For each group, the signals that read it.
    pub(super) reads: Vec<Vec<Read>>,
    /// The number of signals.
    pub(super) signals: usize,
    /// `(signal, channel, gain)`: the channel gets the signal times the gain.
    pub(super) mix: Vec<(usize, usize, f64)>,
    /// The number of channels.
    pub(super) channels: usize,
}

/// The gain `g` with `terms = g base` (the same masses and quantities in the same order, each
/// weight `g` times the base's to 1e-12), if there is one.
fn gain(base: &[Tap], terms: &[Tap]) -> Option<f64> {
    let gain = terms.first()?.weight / base.first()?.weight;
    let scaled = |(b, t): (&Tap, &Tap)| {
        (b.mass, b.quantity) == (t.mass, t.quantity)
            && (t.weight - gain * b.weight).abs() <= 1e-12 * t.weight.abs()
    };
    (base.len() == terms.len() && base.iter().zip(terms).all(scaled)).then_some(gain)
}

/// A signal: a sum of terms, over the modes of one body or of all.
struct Signal {
    body: Option<usize>,
    terms: Vec<Tap>,
}

/// One signal per channel (all its terms).
fn signals_by_channel(channels: &[Vec<Tap>]) -> (Vec<Signal>, Vec<(usize, usize, f64)>) {
    let signals: Vec<Signal> =
        channels.iter().map(|terms| Signal { body: None, terms: terms.clone() }).collect();
    let mix = (0..channels.len()).map(|c| (c, c, 1.0)).collect();
    (signals, mix)
}

/// One signal per body and channel, a channel whose terms on a body are another's scaled
/// reusing that one's with a gain.
fn signals_by_body(bodies: &Bodies, channels: &[Vec<Tap>]) -> (Vec<Signal>, Vec<(usize, usize, f64)>) {
    let mut signals: Vec<Signal> = Vec::new();
    let mut mix = Vec::new();
    for (channel, terms) in channels.iter().enumerate() {
        let mut on_bodies: Vec<(usize, Tap)> =
            terms.iter().filter(|t| t.weight != 0.0).map(|&t| (bodies.body_of(t.mass), t)).collect();
        on_bodies.sort_by_key(|(body, _)| *body);
        for same in on_bodies.chunk_by(|a, b| a.0 == b.0) {
            let (body, terms): (usize, Vec<Tap>) = (same[0].0, same.iter().map(|(_, t)| *t).collect());
            let reused = signals.iter().enumerate().find_map(|(s, signal)| {
                (signal.body == Some(body)).then(|| gain(&signal.terms, &terms)).flatten().map(|g| (s, g))
            });
            match reused {
                Some((signal, gain)) => mix.push((signal, channel, gain)),
                None => {
                    mix.push((signals.len(), channel, 1.0));
                    signals.push(Signal { body: Some(body), terms });
                }
            }
        }
    }
    (signals, mix)
}

impl Outputs {
    /// The channels `channels`, each the sum of its terms (by mass), over `padded` modes of
    /// `bodies` in groups of `group`: read per body (a guitar's strings, panned) or per channel
    /// (many small bodies on few channels), whichever makes fewer weighted sums a step.
    pub(super) fn new(bodies: &Bodies, channels: &[Vec<Tap>], padded: usize, group: usize) -> Self {
        let by_body = Self::build(bodies, signals_by_body(bodies, channels), channels.len(), padded, group);
        let by_channel = Self::build(bodies, signals_by_channel(channels), channels.len(), padded, group);
        if by_channel.sums_per_step() <= by_body.sums_per_step() {
            by_channel
        } else {
            by_body
        }
    }

    /// These outputs read through each mode's matrix `M_j`: the weights `(w_q, w_p)` of mode `j`
    /// become `(w_q, w_p) M_j`, so that a signal reading `x` reads `M x` instead. The groups are of
    /// `group` modes.
    pub(super) fn mapped(&self, group: usize, map: impl Fn(usize) -> Matrix) -> Self {
        let mut mapped =
            Self { rows: Vec::new(), reads: Vec::with_capacity(self.reads.len()), ..self.clone() };
        let zeros = vec![0.0; group];
        for (g, reads) in self.reads.iter().enumerate() {
            let mut mapped_reads = Vec::with_capacity(reads.len());
            for read in reads {
                let row =
                    |start: Option<usize>| start.map_or(&zeros[..], |start| &self.rows[start..][..group]);
                let (w_q, w_p) = (row(read.q), row(read.p));
                let mut new = Read { signal: read.signal, q: None, p: None };
                for (column, index) in [(0, &mut new.q), (1, &mut new.p)] {
                    let weights: Vec<f64> = (0..group)
                        .map(|l| {
                            let m = map(g * group + l);
                            w_q[l] * m[0][column] + w_p[l] * m[1][column]
                        })
                        .collect();
                    if weights.iter().any(|&w| w != 0.0) {
                        *index = Some(mapped.rows.len());
                        mapped.rows.extend(weights);
                    }
                }
                mapped_reads.push(new);
            }
            mapped.reads.push(mapped_reads);
        }
        mapped
    }

    /// Each channel's value now, from the modes' amplitudes `q` and `p` in groups of `group`,
    /// into `values` (one per channel): for a single read, where a block would be wasted.
    pub(super) fn read(&self, group: usize, q: &[f64], p: &[f64], values: &mut [f64]) {
        values.fill(0.0);
        for (g, reads) in self.reads.iter().enumerate() {
            let range = g * group..(g + 1) * group;
            for read in reads {
                let dot = |start: Option<usize>, x: &[f64]| {
                    start.map_or(0.0, |start| {
                        self.rows[start..][..group].iter().zip(&x[range.clone()]).map(|(w, x)| w * x).sum()
                    })
                };
                let signal = dot(read.q, q) + dot(read.p, p);
                for &(_, channel, gain) in self.mix.iter().filter(|(s, _, _)| *s == read.signal) {
                    values[channel] += gain * signal;
                }
            }
        }
    }

    /// The number of weighted sums over a group a step takes.
    fn sums_per_step(&self) -> usize {
        self.reads
            .iter()
            .flatten()
            .map(|read| usize::from(read.q.is_some()) + usize::from(read.p.is_some()))
            .sum()
    }

    /// The rows of `signals` mixed into `channels` channels by `mix`.
    fn build(
        bodies: &Bodies,
        (signals, mix): (Vec<Signal>, Vec<(usize, usize, f64)>),
        channels: usize,
        padded: usize,
        group: usize,
    ) -> Self {
        let groups = padded / group;
        let mut this =
            Self { rows: Vec::new(), reads: vec![Vec::new(); groups], signals: signals.len(), mix, channels };
        let mut shape = vec![0.0; padded];
        for (s, signal) in signals.iter().enumerate() {
            let (first, last) = match signal.body {
                Some(body) => {
                    let range = bodies.range(body);
                    (range.start / group, (range.end - 1) / group)
                }
                None => (0, groups - 1),
            };
            let mut reads = vec![Read { signal: s, q: None, p: None }; last + 1 - first];
            for quantity in [Quantity::Position, Quantity::Velocity] {
                let mut row = vec![0.0; (last + 1 - first) * group];
                let mut any = false;
                for tap in signal.terms.iter().filter(|tap| tap.quantity == quantity) {
                    for j in bodies.shape_at(tap.mass, &mut shape) {
                        row[j - first * group] += tap.weight * shape[j];
                    }
                    any = true;
                }
                if !any {
                    continue;
                }
                for ((g, weights), read) in row.chunks_exact(group).enumerate().zip(&mut reads) {
                    if weights.iter().any(|&w| w != 0.0) {
                        let index = Some(this.rows.len() + g * group);
                        if quantity == Quantity::Position {
                            read.q = index;
                        } else {
                            read.p = index;
                        }
                    }
                }
                this.rows.extend(row);
            }
            for (g, read) in (first..=last).zip(reads) {
                if read.q.is_some() || read.p.is_some() {
                    this.reads[g].push(read);
                }
            }
        }
        this
    }
}
