//! A performance: an instrument played from a score, on the [`Engine`], at the simulation rate,
//! decimated to the output rate.
//!
//! Cues apply at the step nearest their time, before that step is taken: each becomes engine
//! [`Event`]s (a pluck's shape, an excitation, the links, stops and drag of a part as its
//! settings now say). Excitations and the choice of path are the engine's.

use crate::engine::excitation::Excitation;
use crate::engine::{
    Device, Engine, EngineConfig, EngineError, Event, PathKind, Pickups, RunError, StepSize,
};
use crate::instrument::frets::{FretStop, MUTE_DRAG};
use crate::instrument::{BarPart, Grid, Instrument, Part, PartKind, PlatePart};
use crate::model::ModelError;
use crate::score::{Action, Hammer, Pluck, Pulse, Score};
use crate::system::System;
use std::sync::Arc;

/// How to perform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerformanceOptions {
    /// Simulation steps per output sample (1: no decimation).
    pub oversample: usize,
    /// Threads for the string kernel (1: this thread only).
    pub threads: usize,
    /// Use the kernels where the instrument allows (false: the general path).
    pub kernels: bool,
    /// Let uniform strings and membranes run mode by mode on the modal kernel (false: the
    /// string bank and stencils for symplectic Euler, the general path for other schemes).
    pub modal: bool,
}

impl Default for PerformanceOptions {
    fn default() -> Self {
        Self { oversample: 1, threads: 1, kernels: true, modal: true }
    }
}

/// How a part is set now.
#[derive(Debug, Clone, Copy)]
struct Setting {
    tension: f64,
    damping: f64,
    fret: Option<FretStop>,
    damp: f64,
}

impl Default for Setting {
    fn default() -> Self {
        Self { tension: 1.0, damping: 1.0, fret: None, damp: 0.0 }
    }
}

/// An instrument playing a score.
pub struct Performance {
    engine: Engine,
    parts: Vec<Part>,
    /// Each mass's base drag (N s/m) and mass (kg).
    drag: Vec<f64>,
    mass: Vec<f64>,
    dimension: usize,
    score: Score,
    cue_steps: Vec<u64>,
    next_cue: usize,
    settings: Vec<Setting>,
    total_steps: u64,
}

impl Performance {
    /// `instrument` ready to play `score`.
    pub fn new(
        instrument: &Instrument,
        score: Score,
        options: PerformanceOptions,
    ) -> Result<Self, EngineError> {
        Self::with_device(instrument, score, options, None)
    }

    /// `instrument` ready to play `score` on `device` (a GPU, crate `hooke-gpu`) if given, as
    /// [`Engine::with_device`] runs a model: the device must run the instrument as built.
    pub fn with_device(
        instrument: &Instrument,
        score: Score,
        options: PerformanceOptions,
        device: Option<Arc<dyn Device>>,
    ) -> Result<Self, EngineError> {
        let dt = instrument.dt;
        let config = EngineConfig {
            scheme: instrument.scheme,
            step: StepSize::Dt(dt),
            oversample: options.oversample.max(1),
            threads: options.threads.max(1),
            kernels: options.kernels,
            modal: options.modal,
            ..EngineConfig::default()
        };
        let pickups = Pickups::new(&instrument.pickups, &instrument.model)?;
        let engine = Engine::build(System::new(&instrument.model), pickups, config, device)?;
        let masses = instrument.model.masses();
        Ok(Self {
            engine,
            parts: instrument.parts.clone(),
            drag: masses.iter().map(|m| m.drag * m.mass).collect(),
            mass: masses.iter().map(|m| m.mass).collect(),
            dimension: instrument.model.dimension(),
            cue_steps: score.cues.iter().map(|c| (c.time / dt).round() as u64).collect(),
            total_steps: score.steps(dt),
            settings: vec![Setting::default(); instrument.parts.len()],
            score,
            next_cue: 0,
        })
    }

    /// `instrument` ready to be played live: no score, no end; cues come through
    /// [`Performance::play`] and frames through [`Performance::render_frames`]. Room is made for
    /// `excitations` excitations at once, and with symplectic Euler on the modal kernel the
    /// string bank is kept ready for frets and tension changes, which it takes in place
    /// ([`Engine::reserve_for_play`]): nothing is built on the audio thread.
    pub fn live(
        instrument: &Instrument,
        options: PerformanceOptions,
        excitations: usize,
    ) -> Result<Self, EngineError> {
        let score = Score { name: None, description: None, duration: f64::INFINITY, cues: Vec::new() };
        let mut performance = Self::new(instrument, score, options)?;
        performance.engine.reserve_for_play(excitations);
        Ok(performance)
    }

    /// Does `action` to part `part` now, before the next step. Allocates nothing but for a
    /// [`Action::Shape`] (its values are copied to the engine) and a [`Action::Drive`]. On a
    /// course of strings ([`crate::instrument::StringPart::unisons`]) a hammer, a pulse, a pluck or a
    /// shape given on its first string acts on each string at the same mass along it, the
    /// hammer's mass and the pulse's or the pluck's peak shared equally; a bow or a drive acts on the first
    /// string only.
    pub fn play(&mut self, part: usize, action: &Action) -> Result<(), ModelError> {
        if let PartKind::String(string) = &self.parts[part].kind {
            if !string.unisons.is_empty() && self.play_course(part, action)? {
                return Ok(());
            }
        }
        let setting = &mut self.settings[part];
        let excitation = |excitation| Some(Event::Excite(excitation));
        let event = match action {
            Action::Shape(values) => Some(Event::Shape(values.clone())),
            Action::Pulse(pulse) => excitation(Excitation::Pulse(pulse.clone())),
            Action::Pluck(pluck) => excitation(Excitation::Pluck(*pluck)),
            Action::Strike(hammer) => excitation(Excitation::Strike(hammer.clone())),
            Action::Bow(bow) => excitation(Excitation::Bow(bow.clone())),
            Action::Drive(drive) => excitation(Excitation::Drive(drive.clone())),
            Action::Fret(stop) => {
                setting.fret = Some(*stop);
                None
            }
            Action::Release => {
                setting.fret = None;
                None
            }
            Action::Damp(gamma) => {
                setting.damp = *gamma;
                None
            }
            Action::Undamp => {
                setting.damp = 0.0;
                None
            }
            Action::Tension(factor) => {
                setting.tension = *factor;
                None
            }
            Action::Damping(factor) => {
                setting.damping = *factor;
                None
            }
        };
        match (event, action) {
            (Some(event), _) => self.engine.apply(event),
            // A damp changes the drags alone: the links and stops stay as they are.
            (None, Action::Damp(_) | Action::Undamp) => self.configure(part, false),
            (None, _) => self.configure(part, true),
        }
    }

    /// Renders exactly the frames of `output` (one slice per channel) at the output rate, as
    /// [`Engine::render`] does: for a live performance (a score's cues are played only by
    /// [`Performance::render`]). Allocates nothing once a block of this size has been rendered.
    pub fn render_frames(&mut self, output: &mut [&mut [f32]]) -> Result<(), RunError> {
        self.engine.render(output)
    }

    /// Opens a live input on the state coordinates `coordinates`, fed blocks of up to
    /// `max_frames` frames: [`Engine::open_input`]. Returns the frames it acts late.
    pub fn open_input(&mut self, coordinates: Vec<usize>, max_frames: usize) -> Result<u64, ModelError> {
        self.engine.open_input(coordinates, max_frames)
    }

    /// Sets the force (N) an input of 1 pushes with (0: off): [`Engine::set_input_gain`].
    pub fn set_input_gain(&mut self, gain: f64) -> Result<(), ModelError> {
        self.engine.set_input_gain(gain)
    }

    /// Feeds the input of the frames the next [`Performance::render_frames`] renders:
    /// [`Engine::feed_input`]. Allocates nothing.
    pub fn feed_input(&mut self, samples: &[f32]) -> Result<(), ModelError> {
        self.engine.feed_input(samples)
    }

    /// The path the engine runs now.
    pub fn path(&self) -> PathKind {
        self.engine.path()
    }

    /// Whether a kernel runs the instrument now (rather than the general path).
    pub fn uses_kernel(&self) -> bool {
        self.engine.path() != PathKind::General
    }

    /// The simulation steps the score lasts.
    pub fn total_steps(&self) -> u64 {
        self.total_steps
    }

    /// The steps taken.
    pub fn step(&self) -> u64 {
        self.engine.step()
    }

    /// The number of output channels.
    pub fn channels(&self) -> usize {
        self.engine.channels()
    }

    /// Renders up to `steps` more simulation steps (fewer at the score's end), appending the
    /// decimated output to `output` (one vector per channel). Returns the steps taken. On an
    /// instability the output keeps every sample before the failing step.
    pub fn render(&mut self, steps: u64, output: &mut [Vec<f64>]) -> Result<u64, RunError> {
        let end = (self.engine.step() + steps).min(self.total_steps);
        let start = self.engine.step();
        while self.engine.step() < end {
            let step = self.engine.step();
            while self.next_cue < self.score.cues.len() && self.cue_steps[self.next_cue] <= step {
                self.apply(self.next_cue).map_err(|source| RunError::Event { step, source })?;
                self.next_cue += 1;
            }
            let next_cue = self.cue_steps.get(self.next_cue).copied().unwrap_or(u64::MAX);
            self.engine.advance(next_cue.min(end) - step, output)?;
        }
        Ok(self.engine.step() - start)
    }

    /// Flushes the decimator: the output's last samples.
    pub fn finish(&mut self, output: &mut [Vec<f64>]) -> Result<(), RunError> {
        self.engine.flush(output)
    }

    /// Applies cue `cue` to the engine now.
    fn apply(&mut self, cue: usize) -> Result<(), ModelError> {
        // The action is borrowed out of the score while it plays (no copy of a shape's values).
        let action = std::mem::replace(&mut self.score.cues[cue].action, Action::Release);
        let result = self.play(self.score.cues[cue].part, &action);
        self.score.cues[cue].action = action;
        result
    }

    /// Plays an excitation or a shape on every string of the course of part `part` (see
    /// [`Performance::play`]); `false` for any other action, which the course takes as one part.
    fn play_course(&mut self, part: usize, action: &Action) -> Result<bool, ModelError> {
        let PartKind::String(first) = &self.parts[part].kind else { return Ok(false) };
        let dim = self.dimension;
        let share = (1 + first.unisons.len()) as f64;
        // The same mass along each string of the course as `coordinate` on the first.
        let along = |coordinate: usize| first.masses.iter().position(|&m| m * dim == coordinate);
        let on = |string: &crate::instrument::StringPart, coordinate: usize| {
            along(coordinate).map_or(coordinate, |i| string.masses[i] * dim + coordinate % dim)
        };
        for string in first.course() {
            let event = match action {
                Action::Strike(hammer) => Event::Excite(Excitation::Strike(Hammer {
                    coordinate: on(string, hammer.coordinate),
                    mass: hammer.mass / share,
                    ..hammer.clone()
                })),
                Action::Pulse(pulse) => Event::Excite(Excitation::Pulse(Pulse {
                    coordinate: on(string, pulse.coordinate),
                    peak: pulse.peak / share,
                    ..pulse.clone()
                })),
                Action::Pluck(pluck) => Event::Excite(Excitation::Pluck(Pluck {
                    coordinate: on(string, pluck.coordinate),
                    peak: pluck.peak / share,
                    ..*pluck
                })),
                Action::Shape(values) => {
                    Event::Shape(values.iter().map(|&(c, x)| (on(string, c), x)).collect())
                }
                _ => return Ok(false),
            };
            self.engine.apply(event)?;
        }
        Ok(true)
    }

    /// Sets every drag of part `part` from its setting, and with `links` every link and stop.
    fn configure(&mut self, part: usize, links: bool) -> Result<(), ModelError> {
        let engine = &mut self.engine;
        let part = (&self.parts[part].kind, self.settings[part]);
        setting_events(part, links, [&self.drag, &self.mass], self.dimension, &mut |e| engine.apply(e))
    }

    /// Prepares the engine for each fret of `stops` (a part and a stop on it) to be pressed and
    /// let go, and each string's tension and damping to be set, during play with no analysis
    /// and no allocation ([`Engine::prepare`]): each fret the events its press makes from the
    /// settings now, each string the events of its tension set 1 % higher (any other is then
    /// taken in place as a retune of it).
    pub fn prepare_play<'a>(
        &mut self,
        stops: impl IntoIterator<Item = (usize, &'a FretStop)>,
    ) -> Result<(), ModelError> {
        let frets = stops
            .into_iter()
            .map(|(part, stop)| (part, Setting { fret: Some(*stop), ..self.settings[part] }));
        let strings = (self.parts.iter().enumerate())
            .filter(|(_, part)| matches!(part.kind, PartKind::String(_)))
            .map(|(part, _)| {
                (part, Setting { tension: 1.01 * self.settings[part].tension, ..self.settings[part] })
            });
        let settings: Vec<(usize, Setting)> = frets.chain(strings).collect();
        let mut variants = Vec::new();
        for (part, setting) in settings {
            let mut events = Vec::new();
            let mut push = |event| {
                events.push(event);
                Ok(())
            };
            setting_events(
                (&self.parts[part].kind, setting),
                true,
                [&self.drag, &self.mass],
                self.dimension,
                &mut push,
            )?;
            variants.push(events);
        }
        self.engine.prepare(&variants)
    }
}

/// The events that set every drag of a part (its kind and setting) from the setting, and with
/// `links` every link and stop, given to `apply` in order (a string's masses let go before its
/// fret's is stopped); `[drag, mass]` are each mass's drag as built (N s/m) and mass (kg), in a
/// system of `dim` axes.
fn setting_events(
    (kind, setting): (&PartKind, Setting),
    links: bool,
    [drags, kilograms]: [&[f64]; 2],
    dim: usize,
    apply: &mut dyn FnMut(Event) -> Result<(), ModelError>,
) -> Result<(), ModelError> {
    let drag = |mass: usize, extra: f64| Event::Drag { mass, drag: drags[mass] + extra * kilograms[mass] };
    match kind {
        PartKind::String(course) => {
            for (s, string) in course.course().enumerate() {
                let stop = setting.fret.filter(|_| s == 0);
                for j in (0..=string.masses.len()).filter(|_| links) {
                    let (k, z) = match stop {
                        Some(stop) if j == stop.mass + 1 => (stop.stiffness, stop.damping),
                        _ => (string.stiffness, string.damping),
                    };
                    apply(Event::Link {
                        a: string.node(j),
                        b: string.node(j + 1),
                        stiffness: k * setting.tension,
                        damping: z * setting.damping,
                    })?;
                }
                if links && !string.mode_damping.is_empty() {
                    let mass = string.masses[0];
                    apply(Event::ModeDamping { mass, scale: setting.damping })?;
                }
                for (i, &mass) in string.masses.iter().enumerate() {
                    if links && stop.is_none_or(|s| s.mass != i) {
                        apply(Event::Stop { mass, stopped: false })?;
                    }
                    let muted = stop.is_some_and(|s| i < s.mass);
                    apply(drag(mass, setting.damp.max(if muted { MUTE_DRAG } else { 0.0 })))?;
                }
                if let Some(stop) = stop.filter(|_| links) {
                    let mass = string.masses[stop.mass];
                    apply(Event::Motion { coordinate: mass * dim, position: 0.0, velocity: 0.0 })?;
                    apply(Event::Stop { mass, stopped: true })?;
                }
            }
        }
        PartKind::Membrane(membrane) => {
            for &([a, b], k, z) in membrane.links.iter().filter(|_| links) {
                apply(Event::Link { a, b, stiffness: k * setting.tension, damping: z * setting.damping })?;
            }
            for &mass in &membrane.grid.masses {
                apply(drag(mass, setting.damp))?;
            }
        }
        PartKind::Body(body) => apply(drag(body.mass, setting.damp))?,
        PartKind::Bar(BarPart { masses, .. })
        | PartKind::Plate(PlatePart { grid: Grid { masses, .. }, .. }) => {
            for &mass in masses {
                apply(drag(mass, setting.damp))?;
            }
        }
    }
    Ok(())
}
