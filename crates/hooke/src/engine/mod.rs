//! The engine: the one run loop under every front end.
//!
//! An [`Engine`] owns a compiled [`System`], the scheme and the path that steps it: the first of
//! the candidate paths (`paths::PATHS`) that fits, such as the modal kernel for uniform strings
//! or a membrane (any scheme), a stencil kernel for a uniform chain or membrane, the string bank
//! for independent strings, the coupled modal kernel for strings on a body, bars and plates
//! (symplectic Euler), the general path for any scheme on any system. It renders blocks
//! of output frames into the caller's buffers ([`Engine::render`], [`Engine::advance`]),
//! decimating when it oversamples (or letting the modal path fold the decimation into its
//! outputs); takes [`Event`]s now or at a given
//! step ([`Engine::apply`], [`Engine::schedule`]); and feeds observers (trajectories, energy,
//! invariants) on the same loop ([`Engine::run`]). Every change lands in the system first and is
//! recorded as data (`change`); once per block boundary the reconcile step (`reconcile`) has
//! the path take the changes in place or hands the state to the first candidate path that can
//! run the system as changed (`paths::PATHS`), so no scheme or kernel ever steps a system it
//! was not built for.
//!
//! ```
//! use hooke::engine::{Engine, EngineConfig, PickupSpec};
//! use hooke::model::{Model, StringSpec};
//!
//! let mut model = Model::new(1)?;
//! let masses = model.add_string(StringSpec::new("s", 10).mass(1e-3).stiffness(2e5))?;
//! model.set_initial_position(3, &[1e-3])?;
//! let config = EngineConfig::default().rate(48_000.0);
//! let mut engine = Engine::new(&model, &[PickupSpec::position(masses[3])], config)?;
//! let mut block = vec![0.0f32; 64];
//! engine.render(&mut [&mut block[..]])?;
//! assert_eq!(engine.step(), 64);
//! assert!(block[0] > 0.0 && block[0] < 1e-3); // the sample after the first step
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod change;
mod config;
pub mod decimate;
mod device;
mod energy_monitor;
pub mod excitation;
mod input;
mod paths;
mod pickup;
mod reconcile;
mod run_error;
mod settings;
mod stage;

pub use crate::analysis::structure::chain_mode_steps;
pub use crate::quantity::Quantity;
pub use crate::system::Observer;
pub use config::{EngineConfig, EngineError, Event, PathKind, Precision, MAX_OVERSAMPLE, MAX_THREADS};
pub use device::{Device, DevicePath, DeviceRequest};
pub use energy_monitor::{check_finite_energy, EnergyMonitor, EnergySummary};
pub use pickup::{PickupError, PickupRecorder, PickupSpec, Pickups};
pub(crate) use run_error::check_finite;
pub use run_error::RunError;
pub use settings::{PartialRunSettings, RunLength, RunSettings, StepSize};

use crate::analysis::error::AnalysisError;
use crate::analysis::report::{analyse, AnalysisOptions, SchemeAnalysis};
use crate::model::{Model, ModelError};
use crate::scheme::{EnergyExchange, SchemeKind};
use crate::system::{State, System};
use change::{changed_motion, overlay, Change};
use decimate::Decimator;
use excitation::Playing;
use input::InputDrive;
use paths::{Paths, Situation};
use stage::Stage;
use std::sync::Arc;

/// Steps per call to a path at most: bounds the record buffer (channels x steps) whatever the
/// length asked for. Every path gives the same results for any split of the steps.
pub(crate) const MAX_BLOCK: u64 = 4096;

/// A sample type the engine renders into.
pub trait Sample: Copy {
    /// The sample nearest `value`.
    fn from_f64(value: f64) -> Self;
}

impl Sample for f64 {
    fn from_f64(value: f64) -> Self {
        value
    }
}

impl Sample for f32 {
    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

/// A model compiled and running: the system, the scheme, the chosen path, the pickups, the
/// excitations in play and the events to come.
pub struct Engine {
    system: System,
    paths: Paths,
    stage: Box<dyn Stage>,
    /// Paths built before and kept to take over in place (see `reconcile`).
    kept: Vec<Box<dyn Stage>>,
    /// The changes made since the last block boundary, for the path to take (see `change`).
    changes: Vec<Change>,
    /// The stopped masses.
    stopped: Vec<usize>,
    /// The excitations in play and the step each started at.
    playing: Vec<(Playing, u64)>,
    /// Coordinates holding a force now.
    held: Vec<usize>,
    /// The excitations' forces of the current step, by coordinate (scratch).
    forces: Vec<(usize, f64)>,
    /// Events to apply, by step.
    queue: Vec<(u64, Event)>,
    /// A live input pushing on coordinates, if one is open ([`Engine::open_input`]).
    input: Option<InputDrive>,
    decimator: Decimator,
    /// One block's samples at the simulation rate, channel by channel (scratch).
    record: Vec<f64>,
    /// Output frames made by [`Engine::render`] not yet copied out (scratch).
    pending: Vec<Vec<f64>>,
}

impl Engine {
    /// `model` with the pickups `pickups` (one output channel per channel number), run as
    /// `config` says. The error names what is wrong: a pickup, or a figure of the config.
    pub fn new(model: &Model, pickups: &[PickupSpec], config: EngineConfig) -> Result<Self, EngineError> {
        let pickups = Pickups::new(pickups, model)?;
        Self::from_system(System::new(model), pickups, config)
    }

    /// `model` run on `device` (a GPU, crate `hooke-gpu`), as [`Engine::new`] runs it on the
    /// CPU. The device must be able to run the model as it starts (the error gives its reason);
    /// after a change it cannot run (a stopped mass, a force held by a hammer or a bow, a
    /// non-uniform tension), or while observers watch every step, the engine runs on its own
    /// paths, and goes back to the device at the next change it can run.
    pub fn with_device(
        model: &Model,
        pickups: &[PickupSpec],
        config: EngineConfig,
        device: Arc<dyn Device>,
    ) -> Result<Self, EngineError> {
        let pickups = Pickups::new(pickups, model)?;
        Self::build(System::new(model), pickups, config, Some(device))
    }

    /// A compiled system with resolved pickups, run as `config` says.
    pub fn from_system(system: System, pickups: Pickups, config: EngineConfig) -> Result<Self, EngineError> {
        Self::build(system, pickups, config, None)
    }

    /// A compiled system with resolved pickups, run as `config` says, on `device` if given
    /// (as [`Engine::with_device`] runs a model).
    pub fn build(
        system: System,
        pickups: Pickups,
        config: EngineConfig,
        device: Option<Arc<dyn Device>>,
    ) -> Result<Self, EngineError> {
        config.check()?;
        let pool = (config.threads > 1)
            .then(|| {
                let threads = rayon::ThreadPoolBuilder::new().num_threads(config.threads);
                threads.start_handler(|_| crate::kernel::flush_subnormals_to_zero()).build().ok()
            })
            .flatten()
            .map(Arc::new);
        let channels = pickups.channel_count();
        let paths = Paths { config, dt: config.step.seconds(), device, pickups, pool };
        let start = Situation { observed: false, stopped: false, forced: false };
        let mut stage = match &paths.device {
            Some(device) if !config.kernels => {
                let reason = "the fast paths are off (the config says so)".into();
                return Err(EngineError::Device { device: device.name(), reason });
            }
            Some(device) => match paths.on_device(&system, &system.initial_state()) {
                Ok(stage) => Box::new(stage),
                Err(reason) => return Err(EngineError::Device { device: device.name(), reason }),
            },
            None => paths.first_fit(&system, &system.initial_state(), &[], start),
        };
        if let Some(refusal) = stage.general().and_then(|general| general.refusal()) {
            return Err(EngineError::Scheme(refusal.clone()));
        }
        Ok(Self {
            system,
            paths,
            stage,
            kept: Vec::new(),
            changes: Vec::with_capacity(64),
            stopped: Vec::new(),
            playing: Vec::new(),
            held: Vec::new(),
            forces: Vec::new(),
            queue: Vec::with_capacity(64),
            input: None,
            decimator: Decimator::new(config.oversample, channels),
            record: Vec::with_capacity(channels * MAX_BLOCK as usize),
            pending: vec![Vec::new(); channels],
        })
    }

    /// The compiled system, with every change made so far.
    pub fn system(&self) -> &System {
        &self.system
    }

    /// The configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.paths.config
    }

    /// The scheme.
    pub fn scheme(&self) -> SchemeKind {
        self.paths.config.scheme
    }

    /// The simulation step, s.
    pub fn dt(&self) -> f64 {
        self.paths.dt
    }

    /// The path running now (changes applied since the last step are taken, and the path
    /// chosen for them, at the next block boundary).
    pub fn path(&self) -> PathKind {
        self.stage.kind()
    }

    /// The device the engine was given, if any.
    pub fn device(&self) -> Option<&dyn Device> {
        self.paths.device.as_deref()
    }

    /// The simulation steps taken.
    pub fn step(&self) -> u64 {
        self.stage.step()
    }

    /// The number of output channels.
    pub fn channels(&self) -> usize {
        self.paths.pickups.channel_count()
    }

    /// The state now (every node, anchors included).
    pub fn state(&self) -> State {
        let mut state = self.stage.state(&self.system);
        overlay(&self.changes, self.system.dimension(), &mut state);
        state
    }

    /// Position (m) and velocity (m/s) of a moving state coordinate now, the changes not yet
    /// taken by the path included.
    fn motion(&self, coordinate: usize) -> (f64, f64) {
        let now = self.stage.motion(coordinate);
        changed_motion(&self.changes, coordinate, self.system.dimension(), now.0).unwrap_or(now)
    }

    /// The state coordinate of `axis` (0 = x) of mass `mass`.
    pub fn coordinate(&self, mass: usize, axis: usize) -> usize {
        mass * self.system.dimension() + axis
    }

    /// The energy exchanged since the start, summed over the steps, for a scheme with an exact
    /// discrete energy balance ([`crate::scheme::Scheme::last_exchange`]) on the general path:
    /// then `H_now + dissipated - external_work` stays at `H_0` to round-off.
    pub fn exchanged(&self) -> Option<EnergyExchange> {
        self.stage.exchanged()
    }

    /// What the scheme does to each mode of the system as it is now (linearised about
    /// `options.about`), at the engine's step.
    pub fn analyse(&self, options: &AnalysisOptions) -> Result<SchemeAnalysis, AnalysisError> {
        analyse(&self.system, self.paths.config.scheme, self.paths.dt, options)
    }

    /// Applies `event` now, before the next step: the system changes at once, and the path
    /// takes the change at the next block boundary (see `reconcile`). An event that does not
    /// fit the system (an index out of range, a figure that is not finite or of the wrong sign)
    /// changes nothing and is refused with an error that names it.
    pub fn apply(&mut self, event: Event) -> Result<(), ModelError> {
        event.check(&self.system)?;
        match event {
            Event::Shape(values) => {
                let motions =
                    values.into_iter().map(|(coordinate, x)| Change::Motion { coordinate, x, v: 0.0 });
                self.changes.extend(motions);
            }
            Event::Motion { coordinate, position, velocity } => {
                self.changes.push(Change::Motion { coordinate, x: position, v: velocity });
            }
            Event::Excite(excitation) => {
                let (x, _) = self.motion(excitation.coordinate());
                self.playing.push((Playing::start(excitation, x), self.stage.step()));
            }
            Event::Stop { mass, stopped } => {
                set_stopped(&mut self.stopped, mass, stopped);
                self.changes.extend(change_system(&mut self.system, &event));
            }
            _ => self.changes.extend(change_system(&mut self.system, &event)),
        }
        Ok(())
    }

    /// Prepares the path running for each of `variants` (events that change stops, links,
    /// drags and mode dampings, each set from the system as it is now: a fret on a string on
    /// a body), so that those changes, made during play, analyse and allocate nothing: the
    /// coupled modal path analyses each set's pieces now and keeps room for them (its
    /// `regions`), and the system keeps the mode damping each set's stops make. Other paths
    /// take such changes in place, or build for them as before. An event that does not fit the
    /// system is refused, as [`Engine::apply`] refuses it, nothing prepared.
    pub fn prepare(&mut self, variants: &[Vec<Event>]) -> Result<(), ModelError> {
        self.reconcile(false);
        // Each variant is made twice, once to check it and keep its mode damping, once for the
        // path, so that one alone is held at a time (a grand piano's system is megabytes).
        for events in variants {
            let (system, _) = variant(&self.system, &self.stopped, events)?;
            self.system.park_mode_dampings(&system);
        }
        let (system, stopped) = (&self.system, &self.stopped);
        let mut made = variants.iter().filter_map(|events| variant(system, stopped, events).ok());
        self.stage.prepare(system, &mut made);
        Ok(())
    }

    /// Applies `event` when the simulation reaches step `step` (now, if it has already). The
    /// event is checked now, as [`Engine::apply`] checks it.
    pub fn schedule(&mut self, step: u64, event: Event) -> Result<(), ModelError> {
        event.check(&self.system)?;
        let at = self.queue.partition_point(|(s, _)| *s <= step);
        self.queue.insert(at, (step, event));
        Ok(())
    }

    /// Holds `force` (N) on a coordinate through the next steps.
    fn set_force(&mut self, coordinate: usize, force: f64) {
        self.system.set_held_force(coordinate, force);
        self.changes.push(Change::Force { coordinate, force });
    }

    /// Computes every excitation's force for the step starting at `step`, and the live input's,
    /// and holds them; drops the excitations that are over. The path running has taken every
    /// change before.
    fn hold_forces(&mut self, step: u64) {
        for i in 0..self.held.len() {
            self.set_force(self.held[i], 0.0);
        }
        self.held.clear();
        let (dt, dimension) = (self.paths.dt, self.system.dimension());
        let (stage, system, forces) = (&mut self.stage, &self.system, &mut self.forces);
        forces.clear();
        self.playing.retain_mut(|(playing, start)| {
            let elapsed = (step - *start) as f64 * dt;
            let target = playing.target();
            let mass = system.masses()[target / dimension];
            let (x, v) = stage.motion(target);
            let free_velocity = || v + dt * stage.free_force(system, target) / mass;
            let force = playing.force(elapsed, dt, (x, v), free_velocity, mass);
            forces.extend(force.map(|f| (target, f)));
            force.is_some()
        });
        if let Some(input) = &self.input {
            if let Some(force) = input.force(step) {
                forces.extend(input.coordinates.iter().map(|&coordinate| (coordinate, force)));
            }
        }
        forces.sort_by_key(|(coordinate, _)| *coordinate);
        let forces = std::mem::take(&mut self.forces);
        for group in forces.chunk_by(|a, b| a.0 == b.0) {
            let total = group.iter().map(|(_, f)| f).sum();
            self.set_force(group[0].0, total);
            self.held.push(group[0].0);
        }
        self.forces = forces;
    }

    /// The pickups' values now, appended to `output` (one vector per channel): for a run's
    /// first sample (step 0) before [`Engine::advance`] appends those after each step.
    pub fn sample(&self, output: &mut [Vec<f64>]) {
        let mut values = vec![0.0; self.channels()];
        self.paths.pickups.read(
            |c, quantity| {
                let (x, v) = self.motion(c);
                match quantity {
                    Quantity::Position => x,
                    Quantity::Velocity => v,
                }
            },
            &mut values,
        );
        for (channel, value) in output.iter_mut().zip(values) {
            channel.push(value);
        }
    }

    /// Makes room for what playing changes, so that events and blocks allocate nothing
    /// afterwards (a real-time caller reserves before it plays): `count` excitations at once,
    /// held forces on every mass, a stop on every mass, the changes of a block that sets every
    /// mass's motion, drag and force and every link, and the kept paths a performance moves to
    /// where the path running cannot take every change (the string bank beside the modal
    /// kernel: see `reconcile`).
    pub fn reserve_for_play(&mut self, count: usize) {
        self.playing.reserve(count.saturating_sub(self.playing.len()));
        self.held.reserve(count.saturating_sub(self.held.len()));
        self.forces.reserve(count.saturating_sub(self.forces.len()));
        let masses = self.system.masses().len();
        self.stopped.reserve(masses.saturating_sub(self.stopped.len()));
        let changes = count + 4 * self.system.mass_coordinates() + 2 * self.system.springs().len();
        self.changes.reserve(changes.saturating_sub(self.changes.len()));
        if self.system.mass_coordinates() > 0 {
            self.set_force(0, 0.0);
        }
        self.reconcile(false);
        self.prepare_kept_paths();
    }

    /// Renders exactly `output[0].len()` frames at the output rate into `output` (one slice per
    /// channel), taking as many steps as that needs (when oversampling, the low-pass filter's
    /// half-length ahead of the last frame). Allocates nothing once the engine has rendered a
    /// block of this size. On an instability, the frames before it are kept and the rest of
    /// the block is zero.
    pub fn render<S: Sample>(&mut self, output: &mut [&mut [S]]) -> Result<(), RunError> {
        if output.len() != self.channels() {
            return Err(RunError::Channels { expected: self.channels(), found: output.len() });
        }
        let frames = output.first().map_or(0, |channel| channel.len()) as u64;
        let factor = self.paths.config.oversample as u64;
        let delay = self.decimator.delay() as u64;
        let target = self.emitted_frames() + frames;
        let inputs_needed = if target == 0 { 0 } else { (target - 1) * factor + delay + 1 };
        let mut pending = std::mem::take(&mut self.pending);
        pending.iter_mut().for_each(Vec::clear);
        let result = self.run_loop(inputs_needed.saturating_sub(self.step()), &mut pending, &mut []);
        for (channel, made) in output.iter_mut().zip(&pending) {
            for (i, sample) in channel.iter_mut().enumerate() {
                *sample = S::from_f64(made.get(i).copied().unwrap_or(0.0));
            }
        }
        self.pending = pending;
        result
    }

    /// The output frames the steps taken have completed: output `n` is complete once input
    /// `n K + D` has arrived (input `i`: the sample after step `i + 1`; `K` steps a frame, `D`
    /// the decimator's half-length).
    fn emitted_frames(&self) -> u64 {
        let factor = self.paths.config.oversample as u64;
        let delay = self.decimator.delay() as u64;
        if self.step() > delay {
            (self.step() - 1 - delay) / factor + 1
        } else {
            0
        }
    }

    /// Takes `steps` more simulation steps and appends the output frames they complete to
    /// `output` (one vector per channel). Returns the steps taken. On an instability, the
    /// output keeps every frame before the failing step.
    pub fn advance(&mut self, steps: u64, output: &mut [Vec<f64>]) -> Result<u64, RunError> {
        self.run(steps, output, &mut [])
    }

    /// Appends the last output frames, owed by the decimator's look-ahead, taking the input
    /// after the last step as zero (the end of an offline render).
    pub fn flush(&mut self, output: &mut [Vec<f64>]) -> Result<(), RunError> {
        if output.len() != self.channels() {
            return Err(RunError::Channels { expected: self.channels(), found: output.len() });
        }
        self.stage.restore_history(&mut self.decimator);
        self.decimator.finish(output);
        Ok(())
    }

    /// Takes `steps` more simulation steps, appending the output frames they complete to
    /// `output` (one vector per channel), and shows the state to every observer after each
    /// step (and first at step 0): observers need every state, so with any the general path
    /// runs. Returns the steps taken. On an instability, the output and the observers keep
    /// everything before the failing step.
    pub fn run(
        &mut self,
        steps: u64,
        output: &mut [Vec<f64>],
        observers: &mut [&mut dyn Observer],
    ) -> Result<u64, RunError> {
        if output.len() != self.channels() {
            return Err(RunError::Channels { expected: self.channels(), found: output.len() });
        }
        let start = self.step();
        if !observers.is_empty() {
            self.reconcile(true);
            if start == 0 {
                self.notify(observers)?;
            }
        }
        self.run_loop(steps, output, observers).map(|()| self.step() - start)
    }

    /// Shows the state now to every observer.
    fn notify(&mut self, observers: &mut [&mut dyn Observer]) -> Result<(), RunError> {
        let Self { stage, system, .. } = self;
        let Some(general) = stage.general() else { return Ok(()) };
        for observer in observers.iter_mut() {
            let state = general.current();
            observer
                .observe(system, state)
                .map_err(|source| RunError::Output { step: state.step, source })?;
        }
        Ok(())
    }

    /// THE run loop: `steps` steps, in blocks between events (one step at a time while an
    /// excitation plays or observers watch), each block's samples decimated into `output`; at
    /// each block boundary the changes are reconciled with the path, then the excitations'
    /// forces computed on it and reconciled in turn.
    fn run_loop(
        &mut self,
        steps: u64,
        output: &mut [Vec<f64>],
        observers: &mut [&mut dyn Observer],
    ) -> Result<(), RunError> {
        let end = self.step() + steps;
        while self.step() < end {
            let step = self.step();
            while self.queue.first().is_some_and(|(at, _)| *at <= step) {
                let (_, event) = self.queue.remove(0);
                // Checked when it was scheduled, against a system whose sizes do not change.
                let _ = self.apply(event);
            }
            let observed = !observers.is_empty();
            self.reconcile(observed);
            let next_event = self.queue.first().map_or(u64::MAX, |(at, _)| *at);
            let input = self.input.as_ref().is_some_and(InputDrive::is_on);
            let run = if self.playing.is_empty() && observers.is_empty() && !input {
                (next_event.min(end) - step).min(MAX_BLOCK)
            } else {
                1
            };
            if !self.playing.is_empty() || !self.held.is_empty() || input {
                self.hold_forces(step);
                self.reconcile(observed);
            }
            let (run, size) = (run as usize, self.channels() * run as usize);
            if self.record.len() < size {
                self.record.resize(size, 0.0);
            }
            let record = &mut self.record[..size];
            let written = output.iter().map(Vec::len).min().unwrap_or(0);
            let result = self.stage.advance_decimated(&self.system, run, record, &mut self.decimator, output);
            let overflowed = non_finite_channel(output, written);
            if self.step() > step {
                self.notify(observers)?;
            }
            let done = result?;
            if let Some(channel) = overflowed {
                return Err(RunError::NonFiniteOutput { step, time: step as f64 * self.paths.dt, channel });
            }
            if done < run {
                // A kernel met a non-finite value: the general path goes on from the block's
                // start and names the step and mass.
                let state = self.stage.state(&self.system);
                let general = paths::candidate(PathKind::General).build;
                let general = general(&self.paths, &self.system, &state, &self.stopped);
                self.switch(general.expect("the general path runs every system"));
            }
        }
        Ok(())
    }
}

/// The first channel (from 1) whose frames from `from` on hold a value that is not finite; those
/// frames and every channel's after the first such are then dropped, so that the output keeps
/// only what came before.
fn non_finite_channel(output: &mut [Vec<f64>], from: usize) -> Option<usize> {
    let first_bad =
        |channel: &Vec<f64>| channel.iter().skip(from).position(|x| !x.is_finite()).map(|k| from + k);
    let (channel, frame) = output
        .iter()
        .enumerate()
        .filter_map(|(c, values)| first_bad(values).map(|k| (c, k)))
        .min_by_key(|&(_, k)| k)?;
    for values in output.iter_mut() {
        values.truncate(frame);
    }
    Some(channel + 1)
}

/// Makes the change `event` makes to the system's values in `system` (a link's stiffness and
/// damping, a drag, a mass, a mode damping's scale, a stop's mode damping); returns the change
/// the path running must take, if any (motions, shapes and excitations are the engine's).
fn change_system(system: &mut System, event: &Event) -> Option<Change> {
    Some(match *event {
        Event::Link { a, b, stiffness, damping } => {
            if let Some(spring) = system.spring_between(a, b) {
                system.set_spring_stiffness(spring, stiffness);
            }
            if let Some(damper) = system.damper_between(a, b) {
                system.set_damper_coefficient(damper, damping);
            }
            Change::Link { a, b }
        }
        Event::Drag { mass, drag } => {
            system.set_drag(mass, drag);
            Change::Drag { mass }
        }
        Event::Mass { mass, kilograms } => {
            system.set_mass(mass, kilograms);
            Change::Mass { mass }
        }
        Event::ModeDamping { mass, scale } => {
            system.set_mode_damping_scale(mass, scale);
            Change::ModeDamping { mass }
        }
        Event::Stop { mass, stopped } => {
            // A string's mode damping then acts on each side of the stop on its own.
            system.set_mode_damping_stop(mass, stopped);
            Change::Stop { mass, stopped }
        }
        _ => return None,
    })
}

/// `system` with `events` made, and the masses then stopped (`stopped` before); the first
/// event that does not fit refused.
fn variant(system: &System, stopped: &[usize], events: &[Event]) -> Result<(System, Vec<usize>), ModelError> {
    let (mut system, mut stopped) = (system.clone(), stopped.to_vec());
    for event in events {
        event.check(&system)?;
        if let Event::Stop { mass, stopped: stop } = *event {
            set_stopped(&mut stopped, mass, stop);
        }
        change_system(&mut system, event);
    }
    Ok((system, stopped))
}

/// Stops mass `mass` in the list `stopped`, or lets it go.
fn set_stopped(stopped: &mut Vec<usize>, mass: usize, stop: bool) {
    stopped.retain(|&m| m != mass);
    if stop {
        stopped.push(mass);
    }
}
