//! A performance: an instrument played from a score, step by step, at the simulation rate,
//! decimated to the output rate.
//!
//! Cues apply at the step nearest their time, before that step is taken. While an excitation
//! is in play (a hammer, a bow, a pulse, a drive) the stage advances one step at a time, each
//! excitation computing its force from the state at the step's start; otherwise it advances to
//! the next cue in one call. Neither changes the arithmetic, so rendering one step per call or
//! many gives identical output (`tests/instruments.rs`).

use crate::engine::decimate::Decimator;
use crate::engine::excitation::HammerFlight;
use crate::engine::stage::{GeneralStage, Stage, StringStage};
use crate::engine::{Pickups, RunError};
use crate::instrument::frets::FretStop;
use crate::instrument::{Instrument, Part, PartKind};
use crate::model::ModelError;
use crate::scheme::SchemeKind;
use crate::score::{Action, Bow, Drive, Hammer, Pulse, Score};
use crate::system::System;

/// How to perform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerformanceOptions {
    /// Simulation steps per output sample (1: no decimation).
    pub oversample: usize,
    /// Threads for the string kernel (1: this thread only).
    pub threads: usize,
    /// Use the string kernel where the instrument allows (symplectic Euler on strings only).
    pub kernels: bool,
}

impl Default for PerformanceOptions {
    fn default() -> Self {
        Self { oversample: 1, threads: 1, kernels: true }
    }
}

/// Drag that mutes the part of a string between the nut and a pressed fret (the finger's
/// flesh): time constant 5 ms, as `gamma = 2 / tau`, 1/s.
const MUTE_DRAG: f64 = 2.0 / 5e-3;

/// An excitation in play and what it carries from step to step.
enum Excitation {
    Pulse(Pulse),
    Hammer(Hammer, HammerFlight),
    Bow(Bow, f64),
    Drive(Drive),
}

struct Playing {
    excitation: Excitation,
    start: u64,
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
    stage: Box<dyn Stage>,
    uses_kernel: bool,
    parts: Vec<Part>,
    /// Each mass's base drag (N s/m) and mass (kg).
    drag: Vec<f64>,
    mass: Vec<f64>,
    dimension: usize,
    score: Score,
    cue_steps: Vec<u64>,
    next_cue: usize,
    settings: Vec<Setting>,
    playing: Vec<Playing>,
    held: Vec<usize>,
    /// The excitations' forces of the current step, by coordinate (scratch).
    forces: Vec<(usize, f64)>,
    total_steps: u64,
    decimator: Decimator,
    record: Vec<f64>,
}

impl Performance {
    /// `instrument` ready to play `score`.
    pub fn new(
        instrument: &Instrument,
        score: Score,
        options: PerformanceOptions,
    ) -> Result<Self, ModelError> {
        let pickups = Pickups::new(&instrument.pickups, &instrument.model).map_err(|e| e.error)?;
        let system = System::new(&instrument.model);
        let dt = instrument.dt;
        let strings: Vec<Vec<usize>> = instrument
            .parts
            .iter()
            .filter_map(|p| match &p.kind {
                PartKind::String(s) => Some((0..s.masses.len() + 2).map(|p| s.node(p)).collect()),
                _ => None,
            })
            .collect();
        // One thread: eight strings to a group (an AVX-512 register); several: four (AVX2), so
        // a guitar's six strings make one group per thread.
        let kernel: Option<Box<dyn Stage>> = match (options.kernels, instrument.scheme, options.threads) {
            (true, SchemeKind::SymplecticEuler, 0 | 1) => {
                StringStage::<8>::new(&system, &strings, dt, &pickups, 1)
                    .map(|stage| Box::new(stage) as Box<dyn Stage>)
            }
            (true, SchemeKind::SymplecticEuler, threads) => {
                StringStage::<4>::new(&system, &strings, dt, &pickups, threads)
                    .map(|stage| Box::new(stage) as Box<dyn Stage>)
            }
            _ => None,
        };
        let uses_kernel = kernel.is_some();
        let channels = pickups.channel_count();
        let stage =
            kernel.unwrap_or_else(|| Box::new(GeneralStage::new(system, instrument.scheme, dt, pickups)));
        let masses = instrument.model.masses();
        Ok(Self {
            stage,
            uses_kernel,
            parts: instrument.parts.clone(),
            drag: masses.iter().map(|m| m.drag * m.mass).collect(),
            mass: masses.iter().map(|m| m.mass).collect(),
            dimension: instrument.model.dimension(),
            cue_steps: score.cues.iter().map(|c| (c.time / dt).round() as u64).collect(),
            total_steps: (score.duration / dt).round() as u64,
            settings: vec![Setting::default(); instrument.parts.len()],
            score,
            next_cue: 0,
            playing: Vec::new(),
            held: Vec::new(),
            forces: Vec::new(),
            decimator: Decimator::new(options.oversample.max(1), channels),
            record: Vec::new(),
        })
    }

    /// Whether the string kernel runs the instrument (rather than the general path).
    pub fn uses_kernel(&self) -> bool {
        self.uses_kernel
    }

    /// The simulation steps the score lasts.
    pub fn total_steps(&self) -> u64 {
        self.total_steps
    }

    /// The steps taken.
    pub fn step(&self) -> u64 {
        self.stage.step()
    }

    /// The number of output channels.
    pub fn channels(&self) -> usize {
        self.stage.channels()
    }

    /// Renders up to `steps` more simulation steps (fewer at the score's end), appending the
    /// decimated output to `output` (one vector per channel). Returns the steps taken. On an
    /// instability the output keeps every sample before the failing step.
    pub fn render(&mut self, steps: u64, output: &mut [Vec<f64>]) -> Result<u64, RunError> {
        let end = (self.stage.step() + steps).min(self.total_steps);
        let start = self.stage.step();
        while self.stage.step() < end {
            let step = self.stage.step();
            while self.next_cue < self.score.cues.len() && self.cue_steps[self.next_cue] <= step {
                self.apply(self.next_cue);
                self.next_cue += 1;
            }
            let next_cue = self.cue_steps.get(self.next_cue).copied().unwrap_or(u64::MAX);
            let run = if self.playing.is_empty() { next_cue.min(end) - step } else { 1 };
            if !self.playing.is_empty() || !self.held.is_empty() {
                self.hold_forces(step);
            }
            let channels = self.stage.channels();
            self.record.clear();
            self.record.resize(channels * run as usize, 0.0);
            let result = self.stage.advance(run as usize, &mut self.record);
            let done = (self.stage.step() - step) as usize;
            self.decimator.process(&self.record, run as usize, done, output);
            result?;
        }
        Ok(self.stage.step() - start)
    }

    /// Flushes the decimator: the output's last samples.
    pub fn finish(&mut self, output: &mut [Vec<f64>]) {
        self.decimator.finish(output);
    }

    /// Computes every excitation's force for the step starting at `step` and holds it; drops
    /// the excitations that are over.
    fn hold_forces(&mut self, step: u64) {
        let dt = self.stage.dt();
        for coordinate in self.held.drain(..) {
            self.stage.set_force(coordinate, 0.0);
        }
        let (stage, forces) = (&mut self.stage, &mut self.forces);
        forces.clear();
        self.playing.retain_mut(|playing| {
            let elapsed = (step - playing.start) as f64 * dt;
            let force = match &mut playing.excitation {
                Excitation::Pulse(pulse) => {
                    (elapsed < pulse.duration).then(|| (pulse.coordinate, pulse.force(elapsed)))
                }
                Excitation::Drive(drive) => {
                    (elapsed < drive.duration).then(|| (drive.coordinate, drive.signal.value(elapsed)))
                }
                Excitation::Hammer(hammer, flight) => {
                    let (x, v) = stage.motion(hammer.coordinate);
                    (elapsed < crate::engine::excitation::HAMMER_WINDOW)
                        .then(|| hammer.force(flight, x, v, dt).map(|f| (hammer.coordinate, f)))
                        .flatten()
                }
                Excitation::Bow(bow, relative) => (elapsed < bow.duration).then(|| {
                    let mass = stage.mass(bow.coordinate);
                    let free_velocity =
                        stage.motion(bow.coordinate).1 + dt * stage.free_force(bow.coordinate) / mass;
                    (bow.coordinate, bow.friction_force(free_velocity, mass, dt, relative))
                }),
            };
            if let Some(force) = force {
                forces.push(force);
            }
            force.is_some()
        });
        forces.sort_by_key(|(coordinate, _)| *coordinate);
        for group in self.forces.chunk_by(|a, b| a.0 == b.0) {
            let total = group.iter().map(|(_, f)| f).sum();
            self.stage.set_force(group[0].0, total);
            self.held.push(group[0].0);
        }
    }

    fn apply(&mut self, cue: usize) {
        let step = self.stage.step();
        let cue = &self.score.cues[cue];
        let part = cue.part;
        let setting = &mut self.settings[part];
        let excitation = match &cue.action {
            Action::Shape(values) => {
                for &(coordinate, x) in values {
                    self.stage.set_motion(coordinate, x, 0.0);
                }
                None
            }
            Action::Pulse(pulse) => Some(Excitation::Pulse(pulse.clone())),
            Action::Strike(hammer) => {
                let (x, _) = self.stage.motion(hammer.coordinate);
                Some(Excitation::Hammer(hammer.clone(), hammer.launch(x)))
            }
            Action::Bow(bow) => Some(Excitation::Bow(bow.clone(), -bow.velocity)),
            Action::Drive(drive) => Some(Excitation::Drive(drive.clone())),
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
        match excitation {
            Some(excitation) => self.playing.push(Playing { excitation, start: step }),
            None => self.configure(part),
        }
    }

    /// Sets every link, stop and drag of part `part` from its setting.
    fn configure(&mut self, part: usize) {
        let setting = self.settings[part];
        let stage = &mut self.stage;
        let dim = self.dimension;
        let drag = |mass: usize, extra: f64| self.drag[mass] + extra * self.mass[mass];
        match &self.parts[part].kind {
            PartKind::String(string) => {
                let stop = setting.fret;
                for j in 0..=string.masses.len() {
                    let (k, z) = match stop {
                        Some(stop) if j == stop.mass + 1 => (stop.stiffness, stop.damping),
                        _ => (string.stiffness, string.damping),
                    };
                    stage.set_link(
                        string.node(j),
                        string.node(j + 1),
                        k * setting.tension,
                        z * setting.damping,
                    );
                }
                for (i, &mass) in string.masses.iter().enumerate() {
                    let stopped = stop.is_some_and(|s| s.mass == i);
                    if stopped {
                        stage.set_motion(mass * dim, 0.0, 0.0);
                    }
                    stage.set_stopped(mass, stopped);
                    let muted = stop.is_some_and(|s| i < s.mass);
                    stage.set_drag(mass, drag(mass, setting.damp.max(if muted { MUTE_DRAG } else { 0.0 })));
                }
            }
            PartKind::Membrane(membrane) => {
                for &([a, b], k, z) in &membrane.links {
                    stage.set_link(a, b, k * setting.tension, z * setting.damping);
                }
                for &mass in &membrane.masses {
                    stage.set_drag(mass, drag(mass, setting.damp));
                }
            }
            PartKind::Body(body) => stage.set_drag(body.mass, drag(body.mass, setting.damp)),
        }
    }
}
