//! The playground's model: a model file loaded into an [`Engine`], rendered block by block into
//! a preallocated buffer, changed by the page's controls through engine events only.

use hooke::analysis::report::AnalysisOptions;
use hooke::engine::{Engine, EngineConfig, Event};
use hooke::format::model::parse;
use hooke::format::SourceError;
use hooke::scheme::SchemeKind;
use serde_json::json;

/// The most frames one [`Playground::render`] call gives (the buffer is allocated at load).
pub const MAX_FRAMES: usize = 8192;

/// The most output channels (pickup channel numbers) a model may have here: the render call
/// lends the engine one slice per channel from a fixed array, so that it allocates nothing.
pub const MAX_CHANNELS: usize = 16;

/// An error for the page: where it is (file, 1-based line and column, when it is about the
/// text) and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct WebError {
    /// The file name the page gave.
    pub file: String,
    /// 1-based line and column of the offending text; `None` for an error about the whole run.
    pub position: Option<(usize, usize)>,
    /// What went wrong and what was expected.
    pub message: String,
}

impl WebError {
    /// An error about the whole run (no position in the text).
    pub(crate) fn run(file: &str, message: impl Into<String>) -> Self {
        Self { file: file.to_string(), position: None, message: message.into() }
    }

    /// The error as UTF-8 JSON: `{"file", "line", "column", "message"}`, the line and column
    /// `null` when the error is about no text.
    pub fn to_json(&self) -> Vec<u8> {
        let (line, column) = self.position.unzip();
        json!({ "file": self.file, "line": line, "column": column, "message": self.message })
            .to_string()
            .into_bytes()
    }
}

impl From<SourceError> for WebError {
    fn from(error: SourceError) -> Self {
        let message = if error.found.is_empty() {
            error.message
        } else {
            format!("{} (at `{}`)", error.message, error.found)
        };
        Self { file: error.file, position: Some((error.line, error.column)), message }
    }
}

/// A link as loaded: its two nodes, stiffness (N/m) and damping (N s/m), the values the
/// tension and damping factors scale.
#[derive(Debug, Clone, Copy)]
struct Link {
    a: usize,
    b: usize,
    stiffness: f64,
    damping: f64,
}

/// The scheme and simulation rate the page asks for, each `None` for the file's (`[run]`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Config {
    /// The integrator.
    pub scheme: Option<SchemeKind>,
    /// The simulation and output rate, Hz.
    pub rate: Option<f64>,
}

/// The page's factors on the model as loaded.
#[derive(Debug, Clone, Copy)]
struct Factors {
    /// On every stiffness.
    tension: f64,
    /// On every damping and drag.
    damping: f64,
    /// On every mass.
    mass: f64,
}

/// A loaded model, its engine and the page's settings.
pub struct Playground {
    file: String,
    /// The model file's text, parsed again when the scheme or the rate changes.
    source: String,
    engine: Engine,
    /// The links as loaded (springs and dampers joined by their nodes).
    links: Vec<Link>,
    /// The links' nodes, two per link (the drawing of the model).
    link_nodes: Vec<u32>,
    /// Each mass's drag as loaded, N s/m.
    drags: Vec<f64>,
    /// Each mass as loaded, kg.
    masses: Vec<f64>,
    factors: Factors,
    /// Every channel's frames of the last render, channel after channel (`MAX_FRAMES` each).
    output: Vec<f32>,
    /// The frames the file's `[run]` asks for (its duration at its rate).
    frames: u64,
    /// The modes of the last [`Playground::modes`] call, [`MODE_FIELDS`] numbers each.
    modes: Vec<f64>,
    /// Every node's position of the last [`Playground::positions`] call, m.
    positions: Vec<f64>,
}

/// Numbers per mode in [`Playground::modes`]: analog frequency (Hz), digital frequency (Hz),
/// and the discrete pole's real and imaginary parts.
pub const MODE_FIELDS: usize = 4;

/// The engine of the file's model (with its pickups and `[run]`, the scheme and rate of `config`
/// where it gives them), and the frames the `[run]` asks for at that rate.
fn build(
    model_file: &hooke::format::model::ModelFile,
    config: Config,
    file: &str,
) -> Result<(Engine, u64), WebError> {
    let settings = model_file.run.or_defaults();
    let dt = config.rate.map_or(settings.step.seconds(), |hz| 1.0 / hz);
    let engine_config = EngineConfig::default().scheme(config.scheme.unwrap_or(settings.scheme)).dt(dt);
    let system = hooke::system::System::new(&model_file.model);
    let engine = Engine::from_system(system, model_file.pickups.clone(), engine_config)
        .map_err(|e| WebError::run(file, e.to_string()))?;
    if engine.channels() > MAX_CHANNELS {
        let message = format!(
            "the playground renders at most {MAX_CHANNELS} channels; the pickups make {}",
            engine.channels()
        );
        return Err(WebError::run(file, message));
    }
    Ok((engine, settings.length.steps(dt)))
}

impl Playground {
    /// Parses the model file `source` (called `file` in errors) and builds its engine at the
    /// file's scheme and rate (`[run]`, or the defaults).
    pub fn load(source: &str, file: &str) -> Result<Self, WebError> {
        Self::load_with(source, file, Config::default())
    }

    /// Parses the model file `source` (called `file` in errors) and builds its engine at the
    /// scheme and rate of `config`, the file's where it gives none.
    pub fn load_with(source: &str, file: &str, config: Config) -> Result<Self, WebError> {
        let model_file = parse(source, file)?;
        let (engine, frames) = build(&model_file, config, file)?;
        let system = engine.system();
        let (springs, dampers) = (system.springs(), system.dampers());
        let mut links: Vec<Link> = (0..springs.len())
            .map(|i| Link {
                a: springs.a[i] as usize,
                b: springs.b[i] as usize,
                stiffness: springs.coefficient[i],
                damping: 0.0,
            })
            .collect();
        for i in 0..dampers.len() {
            let (a, b) = (dampers.a[i] as usize, dampers.b[i] as usize);
            match links.iter_mut().find(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a)) {
                Some(link) => link.damping = dampers.coefficient[i],
                None => links.push(Link { a, b, stiffness: 0.0, damping: dampers.coefficient[i] }),
            }
        }
        let link_nodes = links.iter().flat_map(|l| [l.a as u32, l.b as u32]).collect();
        let dimension = system.dimension();
        let drags = (0..system.mass_count())
            .map(|m| system.drag().get(m * dimension).copied().unwrap_or(0.0))
            .collect();
        let masses = system.masses().to_vec();
        let output = vec![0.0; MAX_FRAMES * engine.channels()];
        Ok(Self {
            file: file.to_string(),
            source: source.to_string(),
            engine,
            links,
            link_nodes,
            drags,
            masses,
            factors: Factors { tension: 1.0, damping: 1.0, mass: 1.0 },
            output,
            frames,
            modes: Vec::new(),
            positions: Vec::new(),
        })
    }

    /// Rebuilds the engine at the scheme and rate of `config` (the file's where it gives none),
    /// from the state now (every mass's position and velocity), with the factors set: the sound
    /// goes on from where it was. Allocates (the page calls it between blocks).
    pub fn reconfigure(&mut self, config: Config) -> Result<(), WebError> {
        let mut model_file = parse(&self.source, &self.file)?;
        let state = self.engine.state();
        let dimension = self.engine.system().dimension();
        let model = &mut model_file.model;
        for mass in 0..self.masses.len() {
            let at = mass * dimension..(mass + 1) * dimension;
            model
                .set_initial_position(mass, &state.x[at.clone()])
                .and_then(|()| model.set_initial_velocity(mass, &state.v[at]))
                .map_err(|e| WebError::run(&self.file, e.to_string()))?;
        }
        let (engine, frames) = build(&model_file, config, &self.file)?;
        (self.engine, self.frames) = (engine, frames);
        // The new engine has the links, drags and masses as loaded: set those a factor changes.
        if (self.factors.tension, self.factors.damping) != (1.0, 1.0) {
            self.set_damping(self.factors.damping)?;
        }
        if self.factors.mass != 1.0 {
            self.set_mass(self.factors.mass)?;
        }
        Ok(())
    }

    /// The engine (read only: every change goes through the methods below).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The simulation and output rate, Hz.
    pub fn rate(&self) -> f64 {
        1.0 / self.engine.dt()
    }

    /// The frames the file's `[run]` asks for (its duration times its rate).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Renders the next `frames` frames (at most [`MAX_FRAMES`]) of every channel into the
    /// output buffer, channel after channel `MAX_FRAMES` apart; returns them. Allocates nothing
    /// once a block of this size has been rendered.
    pub fn render(&mut self, frames: usize) -> Result<&[f32], WebError> {
        let frames = frames.min(MAX_FRAMES);
        let channels = self.engine.channels();
        let mut chunks = self.output.chunks_mut(MAX_FRAMES);
        let mut slices: [&mut [f32]; MAX_CHANNELS] =
            std::array::from_fn(|_| chunks.next().map_or(&mut [][..], |chunk| &mut chunk[..frames]));
        self.engine.render(&mut slices[..channels]).map_err(|e| WebError::run(&self.file, e.to_string()))?;
        Ok(&self.output)
    }

    /// The output buffer: channel `c`'s frames of the last render start at `c * MAX_FRAMES`.
    pub fn output(&self) -> &[f32] {
        &self.output
    }

    /// Sets every link's stiffness to `factor` times its stiffness as loaded (the tension of a
    /// string: its frequencies scale by `sqrt(factor)`). `factor` is finite and > 0.
    pub fn set_tension(&mut self, factor: f64) -> Result<(), WebError> {
        self.check_factor("tension", factor, 0.0)?;
        self.factors.tension = factor;
        self.apply_links()
    }

    /// Sets every damper's coefficient and every mass's drag to `factor` times its value as
    /// loaded. `factor` is finite and >= 0.
    pub fn set_damping(&mut self, factor: f64) -> Result<(), WebError> {
        self.check_factor("damping", factor, -1.0)?;
        self.factors.damping = factor;
        self.apply_links()?;
        for mass in 0..self.drags.len() {
            let drag = self.drags[mass];
            if drag > 0.0 {
                self.event(Event::Drag { mass, drag: drag * factor })?;
            }
        }
        Ok(())
    }

    /// Sets every mass to `factor` times its mass as loaded (a string's frequencies scale by
    /// `1 / sqrt(factor)`). `factor` is finite and > 0.
    pub fn set_mass(&mut self, factor: f64) -> Result<(), WebError> {
        self.check_factor("mass", factor, 0.0)?;
        self.factors.mass = factor;
        for mass in 0..self.masses.len() {
            let kilograms = self.masses[mass] * factor;
            self.event(Event::Mass { mass, kilograms })?;
        }
        Ok(())
    }

    /// The scheme the engine runs.
    pub fn scheme(&self) -> SchemeKind {
        self.engine.scheme()
    }

    /// Every node's position now, m (`node * dimension + axis`, masses then anchors; a 1D
    /// model's are displacements). Allocates (the state is copied out of the engine's path).
    pub fn positions(&mut self) -> &[f64] {
        self.positions.clone_from(&self.engine.state().x);
        &self.positions
    }

    /// The nodes each link joins, two per link (springs and dampers, joined by their nodes).
    pub fn link_nodes(&self) -> &[u32] {
        &self.link_nodes
    }

    /// Plucks the model as a string: its masses in file order are set at rest to a triangle of
    /// height `amplitude` (m) peaking at `position` (a fraction of the length, strictly between
    /// 0 and 1), zero at both ends (the shape of a `[[string]]`'s `pluck`). 1D models only.
    pub fn pluck(&mut self, position: f64, amplitude: f64) -> Result<(), WebError> {
        if !(position > 0.0 && position < 1.0) {
            return Err(WebError::run(
                &self.file,
                format!("pluck: expected a position strictly between 0 and 1, found {position}"),
            ));
        }
        let system = self.engine.system();
        if system.dimension() != 1 {
            return Err(WebError::run(
                &self.file,
                "pluck: a pluck shapes a 1D model (a string); this model is not 1D",
            ));
        }
        let n = system.mass_count();
        let shape = (0..n)
            .map(|i| {
                let s = (i + 1) as f64 / (n + 1) as f64;
                let x = if s <= position { s / position } else { (1.0 - s) / (1.0 - position) };
                (i, amplitude * x)
            })
            .collect();
        self.event(Event::Shape(shape))
    }

    /// The digital frequency (Hz) of the lowest vibrating mode of the model as it is now (with
    /// the tension and damping set), as the scheme at the engine's step renders it (the
    /// analysis, [`Engine::analyse`]); `None` when no mode vibrates.
    pub fn lowest_frequency(&self) -> Result<Option<f64>, WebError> {
        let analysis = self
            .engine
            .analyse(&AnalysisOptions::default())
            .map_err(|e| WebError::run(&self.file, e.to_string()))?;
        Ok(analysis.modes.iter().map(|m| m.discrete.frequency_hz()).find(|&f| f > 0.0))
    }

    /// Every mode of the model as it is now, by increasing analog frequency, as the scheme at
    /// the engine's step maps it (the analysis): [`MODE_FIELDS`] numbers per mode, the analog
    /// frequency (Hz), the digital frequency (Hz) and the discrete pole `z` (real, imaginary;
    /// `Im z >= 0`). The poles of the z-plane and the warping curve.
    pub fn modes(&mut self) -> Result<&[f64], WebError> {
        let analysis = self
            .engine
            .analyse(&AnalysisOptions::default())
            .map_err(|e| WebError::run(&self.file, e.to_string()))?;
        self.modes.clear();
        for mode in &analysis.modes {
            let z = mode.discrete.z;
            self.modes.extend([mode.mode.frequency_hz(), mode.discrete.frequency_hz(), z.re, z.im]);
        }
        Ok(&self.modes)
    }

    /// The number of modes of the last [`Playground::modes`] call.
    pub fn mode_count(&self) -> usize {
        self.modes.len() / MODE_FIELDS
    }

    fn check_factor(&self, what: &str, factor: f64, above: f64) -> Result<(), WebError> {
        if factor.is_finite() && factor > above && factor >= 0.0 {
            Ok(())
        } else {
            let expected = if above < 0.0 { "a finite factor >= 0" } else { "a finite factor > 0" };
            Err(WebError::run(&self.file, format!("{what}: expected {expected}, found {factor}")))
        }
    }

    /// Sends every link's stiffness and damping, as loaded times the factors, to the engine.
    fn apply_links(&mut self) -> Result<(), WebError> {
        for i in 0..self.links.len() {
            let link = self.links[i];
            self.event(Event::Link {
                a: link.a,
                b: link.b,
                stiffness: link.stiffness * self.factors.tension,
                damping: link.damping * self.factors.damping,
            })?;
        }
        Ok(())
    }

    fn event(&mut self, event: Event) -> Result<(), WebError> {
        self.engine.apply(event).map_err(|e| WebError::run(&self.file, e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 30-mass string at 100 N, 1 g/m, 0.5 m (f1 = sqrt(T/rho)/(2L) = 316 Hz as a continuum).
    const STRING: &str = "[model]\ndimension = 1\n\n[[string]]\nid = \"s\"\nmasses = 30\nlength = 0.5\n\
        tension = 100.0\nlinear_density = 1e-3\ndecay_time = 1.0\n\n[run]\nrate = 44100\n\n\
        [[pickup]]\nchannel = 1\nmass = \"s.3\"\nquantity = \"velocity\"\n";

    fn lowest(playground: &Playground) -> f64 {
        playground.lowest_frequency().unwrap().unwrap()
    }

    #[test]
    fn a_typo_is_placed_at_its_line_and_column() {
        let source = STRING.replace("masses = 30", "masess = 30");
        let line = source.lines().position(|l| l.starts_with("masess")).unwrap() + 1;
        let error = Playground::load(&source, "typo.toml").err().unwrap();
        assert_eq!(error.position, Some((line, 1)), "{error:?}");
        let json: serde_json::Value = serde_json::from_slice(&error.to_json()).unwrap();
        assert_eq!(json["file"], "typo.toml");
        assert_eq!(json["line"], line);
        assert_eq!(json["column"], 1);
        assert!(json["message"].as_str().unwrap().contains("masess"), "{json}");
    }

    #[test]
    fn tension_scales_the_lowest_mode_by_its_square_root() {
        let mut playground = Playground::load(STRING, "s.toml").unwrap();
        let before = lowest(&playground);
        assert!((before / 316.2 - 1.0).abs() < 0.01, "{before} Hz");
        playground.set_tension(4.0).unwrap();
        // A string's frequencies go as sqrt(T); symplectic Euler warps them by 1 + (w h)^2 / 24
        // at most, 2e-4 at 632 Hz and 44.1 kHz.
        assert!((lowest(&playground) / before - 2.0).abs() < 1e-3, "{} Hz", lowest(&playground));
        playground.set_tension(1.0).unwrap();
        assert!((lowest(&playground) / before - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_modes_are_those_of_a_string_as_symplectic_euler_maps_them() {
        let undamped = STRING.replace("decay_time = 1.0\n", "");
        let mut playground = Playground::load(&undamped, "s.toml").unwrap();
        let modes = playground.modes().unwrap().to_vec();
        assert_eq!(modes.len(), 30 * MODE_FIELDS);
        // A 30-mass string without damping: omega_n = 2 sqrt(k/m) sin(n pi / 62), k = T / dx, m = rho dx; the
        // symplectic Euler pole of an undamped oscillator has |z| = 1, arg z = 2 asin(omega h / 2).
        let (dx, h) = (0.5 / 31.0, 1.0 / 44_100.0);
        let (k, m) = (100.0 / dx, 1e-3 * dx);
        for (n, mode) in modes.chunks(MODE_FIELDS).enumerate() {
            let omega = 2.0 * f64::sqrt(k / m) * ((n + 1) as f64 * std::f64::consts::PI / 62.0).sin();
            let analog = omega / std::f64::consts::TAU;
            assert!(
                (mode[0] / analog - 1.0).abs() < 1e-3,
                "mode {}: {} Hz, expected {analog} Hz",
                n + 1,
                mode[0]
            );
            let digital = 2.0 * (omega * h / 2.0).asin() / (std::f64::consts::TAU * h);
            assert!(
                (mode[1] / digital - 1.0).abs() < 1e-3,
                "mode {}: {} Hz, expected {digital} Hz",
                n + 1,
                mode[1]
            );
            let z = (mode[2] * mode[2] + mode[3] * mode[3]).sqrt();
            assert!((z - 1.0).abs() < 1e-9 && mode[3] >= 0.0, "mode {}: |z| = {z}", n + 1);
            assert!((mode[3].atan2(mode[2]) - std::f64::consts::TAU * mode[1] * h).abs() < 1e-9);
        }
    }

    #[test]
    fn damping_scales_the_decay_rate() {
        let mut playground = Playground::load(STRING, "s.toml").unwrap();
        let decay = |p: &Playground| {
            p.engine.analyse(&AnalysisOptions::default()).unwrap().modes[0].discrete.decay_rate()
        };
        let before = decay(&playground);
        // decay_time = 1 s: the lowest mode decays at -1/s.
        assert!((before + 1.0).abs() < 0.01, "{before} 1/s");
        playground.set_damping(2.0).unwrap();
        assert!((decay(&playground) / before - 2.0).abs() < 1e-3, "{}", decay(&playground));
        assert!(playground.set_damping(-1.0).is_err());
        assert!(playground.set_tension(0.0).is_err());
    }

    #[test]
    fn a_pluck_takes_the_shape_of_a_plucked_string() {
        let plucked = STRING
            .replace("decay_time = 1.0", "decay_time = 1.0\npluck = { position = 0.3, amplitude = 2e-3 }");
        let expected = Playground::load(&plucked, "p.toml").unwrap().engine.state();
        let mut playground = Playground::load(STRING, "s.toml").unwrap();
        assert!(playground.render(64).unwrap()[..64].iter().all(|&x| x == 0.0));
        playground.pluck(0.3, 2e-3).unwrap();
        let state = playground.engine.state();
        for (i, (x, e)) in state.x[..30].iter().zip(&expected.x[..30]).enumerate() {
            assert!((x - e).abs() < 1e-15, "mass {i}: {x} m, expected {e} m");
        }
        assert!(playground.render(64).unwrap()[..64].iter().any(|&x| x != 0.0));
        assert!(playground.pluck(1.0, 1e-3).is_err());
    }

    #[test]
    fn blocks_of_any_size_give_the_same_samples() {
        let plucked = STRING
            .replace("decay_time = 1.0", "decay_time = 1.0\npluck = { position = 0.3, amplitude = 2e-3 }");
        let mut whole = Playground::load(&plucked, "p.toml").unwrap();
        let expected = whole.render(1000).unwrap()[..1000].to_vec();
        let mut split = Playground::load(&plucked, "p.toml").unwrap();
        let mut got = Vec::new();
        for n in [128, 1, 512, 359] {
            got.extend_from_slice(&split.render(n).unwrap()[..n]);
        }
        assert_eq!(got, expected);
    }
}
