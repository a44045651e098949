//! Pickups: weighted sums of masses' positions or velocities, one sum per output channel.

use crate::limits::MAX_CHANNELS;
use crate::model::{check_finite, de, Model, ModelError, NodeRef};
use crate::quantity::Quantity;
use crate::system::{Observer, State, System};
use serde::Deserialize;

/// One term of an output channel, as a user names it (a model file's `[[pickup]]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PickupSpec {
    /// Output channel, 1 to [`MAX_CHANNELS`] (default 1).
    #[serde(default = "PickupSpec::first_channel")]
    pub channel: usize,
    /// The mass listened to.
    pub mass: NodeRef,
    /// Position (the default) or velocity.
    #[serde(default = "PickupSpec::position_quantity", deserialize_with = "de::quantity")]
    pub quantity: Quantity,
    /// Component: 0 = x (the default), 1 = y, 2 = z.
    #[serde(default, deserialize_with = "de::axis")]
    pub axis: usize,
    /// Weight of this term in the channel's sum, output units per m or per m/s (default 1).
    #[serde(default = "PickupSpec::unit_weight")]
    pub weight: f64,
}

impl Default for PickupSpec {
    /// Channel 1, the position along x of no mass yet, weight 1.
    fn default() -> Self {
        Self::position(NodeRef::default())
    }
}

impl PickupSpec {
    /// Listens to the position of `mass` (m), along x, on channel 1, with weight 1.
    pub fn position(mass: impl Into<NodeRef>) -> Self {
        Self { channel: 1, mass: mass.into(), quantity: Quantity::Position, axis: 0, weight: 1.0 }
    }

    /// Listens to the velocity of `mass` (m/s), along x, on channel 1, with weight 1.
    pub fn velocity(mass: impl Into<NodeRef>) -> Self {
        Self { quantity: Quantity::Velocity, ..Self::position(mass) }
    }

    /// Sets the output channel, 1-based.
    pub fn channel(mut self, channel: usize) -> Self {
        self.channel = channel;
        self
    }

    /// Sets the component: 0 = x, 1 = y, 2 = z.
    pub fn axis(mut self, axis: usize) -> Self {
        self.axis = axis;
        self
    }

    /// Sets the weight in the channel's sum, output units per m or per m/s.
    pub fn weight(mut self, weight: f64) -> Self {
        self.weight = weight;
        self
    }

    fn first_channel() -> usize {
        1
    }

    fn position_quantity() -> Quantity {
        Quantity::Position
    }

    fn unit_weight() -> f64 {
        1.0
    }
}

/// A pickup spec that breaks a rule: which one (its index in the list) and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("pickup {} of the list: {error}", index + 1)]
pub struct PickupError {
    /// Index of the faulty spec, 0-based.
    pub index: usize,
    /// The broken rule.
    #[source]
    pub error: ModelError,
}

/// One resolved term: which coordinate of the state, which quantity, what weight.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tap {
    coordinate: usize,
    quantity: Quantity,
    weight: f64,
}

/// The taps of every channel, resolved against a model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pickups {
    channels: Vec<Vec<Tap>>,
}

impl Pickups {
    /// Resolves pickup specs against a model; the error names the faulty spec. Channels must be
    /// numbered 1, 2, ... without gaps, up to [`MAX_CHANNELS`].
    pub fn new(specs: &[PickupSpec], model: &Model) -> Result<Self, PickupError> {
        let mut channels: Vec<Vec<Tap>> = Vec::new();
        for (index, spec) in specs.iter().enumerate() {
            let tap = resolve(spec, model).map_err(|error| PickupError { index, error })?;
            if channels.len() < spec.channel {
                channels.resize(spec.channel, Vec::new());
            }
            channels[spec.channel - 1].push(tap);
        }
        if let Some(empty) = channels.iter().position(Vec::is_empty) {
            let index = specs.iter().position(|s| s.channel > empty + 1).unwrap_or(0);
            return Err(PickupError {
                index,
                error: ModelError::new(
                    "pickup",
                    "channel",
                    format!("channels numbered without gaps (channel {} has no pickup)", empty + 1),
                    specs[index].channel,
                ),
            });
        }
        Ok(Self { channels })
    }

    /// Pickups that listen to every mass's first coordinate, one channel, unit weights: the
    /// default when a model names none.
    pub fn sum_of_all_masses(model: &Model) -> Self {
        let dim = model.dimension();
        let taps = (0..model.masses().len())
            .map(|i| Tap { coordinate: i * dim, quantity: Quantity::Position, weight: 1.0 })
            .collect::<Vec<_>>();
        Self { channels: if taps.is_empty() { Vec::new() } else { vec![taps] } }
    }

    /// Number of output channels.
    pub fn channel_count(&self) -> usize {
        self.channels.len()
    }

    /// Every term as (channel index, state coordinate, quantity, weight).
    pub(crate) fn taps(&self) -> impl Iterator<Item = (usize, usize, Quantity, f64)> + '_ {
        self.channels.iter().enumerate().flat_map(|(channel, taps)| {
            taps.iter().map(move |tap| (channel, tap.coordinate, tap.quantity, tap.weight))
        })
    }

    /// The value of each channel, written to `out` (one value per channel), from `read`, which
    /// gives the quantity of a state coordinate.
    pub(crate) fn read(&self, read: impl Fn(usize, Quantity) -> f64, out: &mut [f64]) {
        for (taps, value) in self.channels.iter().zip(out) {
            *value = taps.iter().map(|tap| tap.weight * read(tap.coordinate, tap.quantity)).sum();
        }
    }

    /// The value of each channel for a state, appended to `out` (one value per channel).
    pub(super) fn sample(&self, state: &State, out: &mut [Vec<f64>]) {
        for (taps, channel) in self.channels.iter().zip(out) {
            channel.push(taps.iter().map(|tap| tap.weight * state.read(tap.coordinate, tap.quantity)).sum());
        }
    }
}

fn resolve(spec: &PickupSpec, model: &Model) -> Result<Tap, ModelError> {
    let subject = format!("pickup on \"{}\"", model.label(&spec.mass));
    if !(1..=MAX_CHANNELS).contains(&spec.channel) {
        return Err(ModelError::new(
            subject,
            "channel",
            format!("a channel number from 1 to {MAX_CHANNELS}"),
            spec.channel,
        ));
    }
    let mass = model.resolve_mass(&subject, "mass", &spec.mass)?;
    model.check_axis(&subject, spec.axis)?;
    let dim = model.dimension();
    check_finite(&subject, "weight", spec.weight)?;
    Ok(Tap { coordinate: mass * dim + spec.axis, quantity: spec.quantity, weight: spec.weight })
}

/// Records every channel's value at every observed step (f64, the step's sample).
#[derive(Debug, Clone)]
pub struct PickupRecorder {
    pickups: Pickups,
    channels: Vec<Vec<f64>>,
}

impl PickupRecorder {
    /// A recorder with room for `capacity` samples per channel.
    pub fn new(pickups: Pickups, capacity: usize) -> Self {
        let channels = vec![Vec::with_capacity(capacity); pickups.channel_count()];
        Self { pickups, channels }
    }

    /// The recorded samples, one vector per channel.
    pub fn channels(&self) -> &[Vec<f64>] {
        &self.channels
    }

    /// Consumes the recorder, returning its samples.
    pub fn into_channels(self) -> Vec<Vec<f64>> {
        self.channels
    }
}

impl Observer for PickupRecorder {
    fn observe(&mut self, _system: &System, state: &State) -> std::io::Result<()> {
        self.pickups.sample(state, &mut self.channels);
        Ok(())
    }
}
