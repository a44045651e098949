//! `hooke plot KIND MODEL.toml -o FILE`, and the `--plot FILE` of `run`, `compare` and
//! `analyze`. The pictures themselves are drawn by the `hooke-plot` crate; this module reads the
//! command line, runs what is needed and names the file.

use crate::load::{load_run, parse_reference, parse_scheme, read_model, require_mass, LoadedRun, StepArgs};
use clap::{Args, ValueEnum};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use hooke_plot::record::{coordinate, simulate, Coordinate, Recording, Request};
use hooke_plot::warping::MapKind;
use hooke_plot::{
    compare, energy, output, phase, poles, spectrum, time, trajectory, warping, Chart, Format, PlotError,
};
use miette::miette;
use std::path::{Path, PathBuf};

/// Arguments of `hooke plot`.
#[derive(Args, Debug)]
pub struct PlotArgs {
    /// What to draw.
    #[arg(value_enum)]
    pub kind: PlotKind,
    /// The model file (TOML). Not needed for `warping`, nor for `poles --plane s` (regions only).
    pub model: Option<PathBuf>,
    /// The picture to write: FILE.png or FILE.svg (FILE.gif animates a trajectory).
    #[arg(short, long)]
    pub output: PathBuf,
    /// A scheme to run or analyse; repeat to overlay several (default: the file's, else
    /// symplectic-euler).
    #[arg(long = "scheme", value_parser = parse_scheme)]
    pub schemes: Vec<SchemeKind>,
    /// The reference solution drawn under the schemes (time, phase, spectrum): `exact`,
    /// `SCHEME@RATE` or `none`; default `exact` for a linear model, `none` otherwise.
    #[arg(long)]
    pub reference: Option<String>,
    /// Masses to plot, comma-separated: ID (its x) or ID.x, ID.y, ID.z (default: the first mass).
    #[arg(long, value_delimiter = ',')]
    pub masses: Vec<String>,
    /// Step and length of the runs.
    #[command(flatten)]
    pub step: StepArgs,
    /// Keep one sample every K steps (default: enough for at most 20000 points per curve).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub every: Option<u64>,
    /// energy: plot the errors |E - E0| / |E0| and |K - K0| / |K0| on a log scale.
    #[arg(long)]
    pub relative: bool,
    /// phase: the modified phase space of Chatziioannou 2019, (psi, xi) = e^(gamma t / 2) (y, p),
    /// with gamma the lowest mode's damping.
    #[arg(long)]
    pub modified: bool,
    /// poles: the z-plane (discrete poles) or the s-plane (symplectic Euler's regions).
    #[arg(long, value_enum, default_value_t = Plane::Z)]
    pub plane: Plane,
    /// warping: draw an isofrequency or isodamping map instead of warping curves.
    #[arg(long, value_enum)]
    pub map: Option<MapArg>,
    /// warping: the damping values gamma h of the warping curves, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub gamma_h: Vec<f64>,
    /// trajectory as GIF: the number of frames.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub frames: u32,
    /// The picture's size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x500", value_parser = parse_size)]
    pub size: (u32, u32),
}

/// The kinds of plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlotKind {
    /// 2D motion: anchors, springs at the start and end, paths (a GIF with -o FILE.gif).
    Trajectory,
    /// Positions against time, schemes over the reference.
    Time,
    /// Position against momentum (or the modified phase space with --modified).
    Phase,
    /// Total energy and K against time (or their errors with --relative).
    Energy,
    /// Discrete poles on the z-plane, or the s-plane regions with --plane s.
    Poles,
    /// Digital against analog frequency (or a map with --map).
    Warping,
    /// Magnitude spectrum of a mass's position, with the predicted mode frequencies.
    Spectrum,
}

/// Which plane `poles` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Plane {
    /// The z-plane: each mode's discrete pole and the unit circle.
    Z,
    /// The s-plane: symplectic Euler's regions and the model's analog poles.
    S,
}

/// Which map `warping --map` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MapArg {
    /// Lines of equal digital frequency (Morgan & Qiao 2009, fig. 16).
    Isofrequency,
    /// Lines of equal digital damping (Morgan & Qiao 2009, fig. 17).
    Isodamping,
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let parsed =
        text.split_once('x').and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if (200..=4000).contains(&w) && (150..=4000).contains(&h) => Ok((w, h)),
        _ => Err(format!("expected WIDTHxHEIGHT in pixels (200x150 to 4000x4000), found \"{text}\"")),
    }
}

/// At most this many points per curve unless `--every` says otherwise.
const MAX_POINTS: u64 = 20_000;

/// A trajectory keeps at most this many positions per mass.
const TRAJECTORY_POINTS: u64 = 5_000;

/// `compare --plot` keeps at most this many errors per scheme (before the envelope per pixel
/// column): every step of a few seconds at audio rates.
const COMPARE_POINTS: u64 = 500_000;

/// `hooke plot KIND [MODEL] -o FILE ...`.
pub fn plot(args: &PlotArgs) -> miette::Result<()> {
    check_output(&args.output, args.kind == PlotKind::Trajectory)?;
    let chart = match args.kind {
        PlotKind::Warping => warping_chart(args)?,
        PlotKind::Poles if args.plane == Plane::S && args.model.is_none() => {
            let data = poles::s_plane(
                "regions of the s-plane, symplectic Euler (Morgan & Qiao 2009, fig. 12)",
                None,
                1.0,
            )
            .map_err(report)?;
            poles::s_plane_chart(&data)
        }
        _ => {
            let path = args.model.as_ref().ok_or_else(|| {
                miette!("`hooke plot {}` needs a model file (MODEL.toml)", kind_name(args.kind))
            })?;
            let source = read_model(path)?;
            let loaded =
                load_run(&source, &path.display().to_string(), args.schemes.first().copied(), &args.step)?;
            let context = Context::new(&loaded, path)?;
            match args.kind {
                PlotKind::Trajectory => return context.trajectory(args),
                PlotKind::Time => context.time(args)?,
                PlotKind::Phase => context.phase(args)?,
                PlotKind::Energy => context.energy(args)?,
                PlotKind::Poles => context.poles(args)?,
                PlotKind::Spectrum => context.spectrum(args)?,
                PlotKind::Warping => unreachable!("warping is drawn without a model"),
            }
        }
    };
    save(&chart, &args.output, args.size)
}

fn kind_name(kind: PlotKind) -> String {
    kind.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string())
}

/// Checks that `path` names a format before any work is done: PNG or SVG, or GIF when
/// `animated` is allowed.
pub fn check_output(path: &Path, animated: bool) -> miette::Result<()> {
    let checked = if animated { Format::still_or_animation(path) } else { Format::still(path) };
    checked.map(|_| ()).map_err(report)
}

fn report(error: PlotError) -> miette::Report {
    miette!("{error}")
}

fn save(chart: &Chart, path: &Path, size: (u32, u32)) -> miette::Result<()> {
    output::save(chart, path, size).map_err(report)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// A loaded model ready to plot: its system, step, length and short name.
struct Context {
    system: System,
    dt: f64,
    steps: u64,
    scheme: SchemeKind,
    name: String,
}

impl Context {
    /// The context of a model with at least one mass: a model of anchors alone has nothing to
    /// draw.
    fn new(loaded: &LoadedRun, path: &Path) -> miette::Result<Self> {
        require_mass(loaded, &path.display().to_string(), "plot")?;
        Ok(Self {
            system: System::new(&loaded.file.model),
            dt: loaded.settings.step.seconds(),
            steps: loaded.steps,
            scheme: loaded.settings.scheme,
            name: path.file_stem().map_or_else(|| "model".to_string(), |s| s.to_string_lossy().into_owned()),
        })
    }

    fn schemes(&self, args: &[SchemeKind]) -> Vec<SchemeKind> {
        if args.is_empty() {
            vec![self.scheme]
        } else {
            args.to_vec()
        }
    }

    fn rate(&self) -> String {
        let hz = 1.0 / self.dt;
        if (hz - hz.round()).abs() < 1e-6 * hz {
            format!("{} Hz", hz.round())
        } else {
            format!("{hz:.4} Hz")
        }
    }

    fn coordinates(&self, masses: &[String]) -> miette::Result<Vec<Coordinate>> {
        if masses.is_empty() {
            // Masses come first in a system, and a context has at least one.
            let first = &self.system.node_ids()[0];
            return Ok(vec![coordinate(&self.system, first).map_err(report)?]);
        }
        masses.iter().map(|m| coordinate(&self.system, m).map_err(report)).collect()
    }

    fn every(&self, every: Option<u64>, points: u64) -> u64 {
        every.unwrap_or_else(|| self.steps.div_ceil(points).max(1))
    }

    /// Runs each scheme, warning about a run that stopped early.
    fn runs(&self, schemes: &[SchemeKind], request: &Request) -> miette::Result<Vec<Recording>> {
        schemes
            .iter()
            .map(|&scheme| {
                let run = simulate(&self.system, scheme, self.dt, self.steps, request).map_err(report)?;
                if let Some(why) = &run.stopped {
                    eprintln!("warning: {why}; plotted up to the last good step");
                }
                Ok(run)
            })
            .collect()
    }

    /// The reference run and its legend name: `exact` (by default on a linear model) or
    /// `SCHEME@RATE`, recorded every `fine` steps of its own; `None` for `none`.
    fn reference(
        &self,
        text: Option<&str>,
        request: &Request,
        smooth: bool,
    ) -> miette::Result<Option<(String, Recording)>> {
        let text = match text {
            Some("none") => return Ok(None),
            Some(text) => text,
            None if hooke::forces::is_linear(&self.system) => "exact",
            None => return Ok(None),
        };
        let (scheme, mut multiple) = parse_reference(text, 1.0 / self.dt)?;
        let mut request = request.clone();
        if scheme == SchemeKind::Exact && smooth && multiple == 1 {
            // Few samples: draw the exact solution between them (Morgan & Qiao 2009, figs. 3-5,
            // 18-19).
            multiple = 16;
            request.every = 1;
        } else {
            request.every *= multiple;
        }
        let dt = self.dt / multiple as f64;
        let run = simulate(&self.system, scheme, dt, self.steps * multiple, &request).map_err(report)?;
        let name = if scheme == SchemeKind::Exact {
            "exact".to_string()
        } else {
            format!("{scheme} at {} Hz (reference)", (1.0 / dt).round())
        };
        Ok(Some((name, run)))
    }

    fn trajectory(&self, args: &PlotArgs) -> miette::Result<()> {
        let scheme = self.schemes(&args.schemes)[0];
        let request = trajectory::request(&self.system, self.every(args.every, TRAJECTORY_POINTS));
        let run = &self.runs(&[scheme], &request)?[0];
        let title = format!("{}: trajectories, {scheme}, {}", self.name, self.rate());
        let data = trajectory::from_recording(title, &self.system, run).map_err(report)?;
        if Format::still_or_animation(&args.output).map_err(report)? == Format::Gif {
            let frames = trajectory::frames(&data, args.frames as usize);
            output::save_animation(&frames, &args.output, args.size, 50).map_err(report)?;
            eprintln!("wrote {} ({} frames)", args.output.display(), frames.len());
            return Ok(());
        }
        save(&trajectory::chart(&data), &args.output, args.size)
    }

    fn time(&self, args: &PlotArgs) -> miette::Result<Chart> {
        let coordinates = self.coordinates(&args.masses)?;
        let schemes = self.schemes(&args.schemes);
        self.time_chart(&coordinates, &schemes, args.reference.as_deref(), args.every)
    }

    fn time_chart(
        &self,
        coordinates: &[Coordinate],
        schemes: &[SchemeKind],
        reference: Option<&str>,
        every: Option<u64>,
    ) -> miette::Result<Chart> {
        let request = Request {
            coordinates: coordinates.iter().map(|c| c.index).collect(),
            every: self.every(every, MAX_POINTS),
            balance: false,
        };
        let runs = self.runs(schemes, &request)?;
        let smooth = runs.iter().all(|r| r.len() <= 1000);
        let reference = self.reference(reference, &request, smooth)?;
        let names: Vec<&str> = coordinates.iter().map(|c| c.name.as_str()).collect();
        let title = format!("{}: position of {}, {}", self.name, names.join(", "), self.rate());
        let data = time::from_recordings(
            title,
            coordinates,
            &runs,
            reference.as_ref().map(|(n, r)| (n.as_str(), r)),
        );
        Ok(time::chart(&data))
    }

    fn phase(&self, args: &PlotArgs) -> miette::Result<Chart> {
        let coordinate = self.coordinates(&args.masses)?.remove(0);
        let request = Request {
            coordinates: vec![coordinate.index],
            every: self.every(args.every, MAX_POINTS),
            balance: false,
        };
        let runs = self.runs(&self.schemes(&args.schemes), &request)?;
        // Short runs have few samples per period: the exact reference at 16 times the rate draws
        // the true curve (the schemes' own samples are drawn through with a spline).
        let smooth = runs.iter().all(|r| r.len() <= 1000);
        let reference = self.reference(args.reference.as_deref(), &request, smooth)?;
        let gamma =
            if args.modified { Some(phase::lowest_mode_gamma(&self.system).map_err(report)?) } else { None };
        let title = match gamma {
            Some(g) => format!(
                "{}: modified phase space, γ = {} 1/s, {}",
                self.name,
                (g * 1e3).round() / 1e3,
                self.rate()
            ),
            None => format!("{}: phase portrait of {}, {}", self.name, coordinate.name, self.rate()),
        };
        let reference = reference.as_ref().map(|(n, r)| (n.as_str(), r));
        Ok(phase::chart(&phase::from_recordings(title, &coordinate, 0, &runs, reference, gamma)))
    }

    fn energy(&self, args: &PlotArgs) -> miette::Result<Chart> {
        let request =
            Request { coordinates: Vec::new(), every: self.every(args.every, MAX_POINTS), balance: true };
        let runs = self.runs(&self.schemes(&args.schemes), &request)?;
        let what =
            if args.relative { "energy error" } else { "energy H and K (Chatziioannou 2019, eq. (18))" };
        let title = format!("{}: {what}, {}", self.name, self.rate());
        Ok(energy::chart(&energy::from_recordings(title, &runs, args.relative)))
    }

    fn poles(&self, args: &PlotArgs) -> miette::Result<Chart> {
        match args.plane {
            Plane::Z => self.z_plane(&self.schemes(&args.schemes)),
            Plane::S => {
                let title = format!(
                    "{}: analog poles on symplectic Euler's s-plane regions, {}",
                    self.name,
                    self.rate()
                );
                let data = poles::s_plane(title, Some(&self.system), self.dt).map_err(report)?;
                Ok(poles::s_plane_chart(&data))
            }
        }
    }

    fn z_plane(&self, schemes: &[SchemeKind]) -> miette::Result<Chart> {
        let title = format!("{}: discrete poles on the z-plane, {}", self.name, self.rate());
        let data = poles::z_plane(title, &self.system, schemes, self.dt).map_err(report)?;
        Ok(poles::z_plane_chart(&data))
    }

    fn spectrum(&self, args: &PlotArgs) -> miette::Result<Chart> {
        let coordinate = self.coordinates(&args.masses)?.remove(0);
        let request = Request { coordinates: vec![coordinate.index], every: 1, balance: false };
        let schemes = self.schemes(&args.schemes);
        let runs = self.runs(&schemes, &request)?;
        let mut reference = self.reference(args.reference.as_deref(), &request, false)?;
        if let Some((_, run)) = &reference {
            if run.dt != self.dt {
                return Err(miette!(
                    "--reference: a spectrum compares runs at one rate; use `exact` or `none`"
                ));
            }
        }
        let rate = 1.0 / self.dt;
        let mut data = spectrum::SpectrumData {
            title: format!("{}: spectrum of {}, {}", self.name, coordinate.name, self.rate()),
            coordinate: coordinate.name.clone(),
            spectra: Vec::new(),
            predicted: Vec::new(),
        };
        let entries =
            reference.take().into_iter().chain(runs.into_iter().map(|r| (r.scheme.name().to_string(), r)));
        for (name, run) in entries {
            let signal: Vec<f64> = run.position_series(0).into_iter().map(|(_, x)| x).collect();
            data.predicted
                .push(spectrum::predicted_frequencies(&self.system, run.scheme, self.dt).map_err(report)?);
            data.spectra.push(hooke_plot::Curve { label: name, points: spectrum::level_db(&signal, rate) });
        }
        Ok(spectrum::chart(&data))
    }
}

fn warping_chart(args: &PlotArgs) -> miette::Result<Chart> {
    let schemes =
        if args.schemes.is_empty() { vec![SchemeKind::SymplecticEuler] } else { args.schemes.clone() };
    let Some(map) = args.map else {
        let title = "frequency warping (Morgan & Qiao 2009, figs. 10-11)";
        let data = warping::curves(title, &schemes, &args.gamma_h, std::f64::consts::PI).map_err(report)?;
        return Ok(warping::chart(&data));
    };
    let scheme = schemes[0];
    let (kind, levels, what): (MapKind, Vec<f64>, &str) = match map {
        MapArg::Isofrequency => (
            MapKind::Isofrequency,
            [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0].to_vec(),
            "isofrequency lines (Morgan & Qiao 2009, fig. 16)",
        ),
        MapArg::Isodamping => (
            MapKind::Isodamping,
            vec![-0.02, -0.05, -0.1, -0.2, -0.35, -0.5, -0.7],
            "isodamping lines (Morgan & Qiao 2009, fig. 17)",
        ),
    };
    let data = warping::map(format!("{scheme}: {what}"), scheme, kind, &levels).map_err(report)?;
    Ok(warping::map_chart(&data))
}

/// `hooke run --plot FILE`: the trajectory of a 2D or 3D model, else the time plot of its
/// first mass, with the run's scheme over the exact solution where the model is linear.
pub fn run_plot(loaded: &LoadedRun, model: &Path, path: &Path) -> miette::Result<()> {
    let context = Context::new(loaded, model)?;
    if context.system.dimension() >= 2 {
        let request = trajectory::request(&context.system, context.every(None, TRAJECTORY_POINTS));
        let run = &context.runs(&[context.scheme], &request)?[0];
        let title = format!("{}: trajectories, {}, {}", context.name, context.scheme, context.rate());
        let data = trajectory::from_recording(title, &context.system, run).map_err(report)?;
        return save(&trajectory::chart(&data), path, output_size());
    }
    let chart = context.time_chart(&context.coordinates(&[])?, &[context.scheme], None, None)?;
    save(&chart, path, output_size())
}

/// `hooke compare --plot FILE`: the error of the first mass's first coordinate against the
/// reference under each scheme, on a log scale, as its largest value per pixel column
/// (`hooke_plot::compare`): readable over any length, where the positions of a dozen schemes
/// over seconds would fill the plot.
pub fn compare_plot(
    loaded: &LoadedRun,
    model: &Path,
    schemes: &[SchemeKind],
    reference: &str,
    path: &Path,
) -> miette::Result<()> {
    let context = Context::new(loaded, model)?;
    let coordinate = context.coordinates(&[])?.remove(0);
    let request = Request {
        coordinates: vec![coordinate.index],
        every: context.every(None, COMPARE_POINTS),
        balance: false,
    };
    let runs = context.runs(schemes, &request)?;
    let (name, truth) = context
        .reference(Some(reference), &request, false)?
        .ok_or_else(|| miette!("--reference: a comparison needs a reference run, found \"none\""))?;
    let title = format!("{}: error of each scheme against {name}, {}", context.name, context.rate());
    let data = compare::from_recordings(title, &coordinate, 0, &runs, (&name, &truth), output_size());
    save(&compare::chart(&data), path, output_size())
}

/// `hooke analyze --plot FILE`: each mode's discrete pole on the z-plane.
pub fn analyze_plot(loaded: &LoadedRun, model: &Path, path: &Path) -> miette::Result<()> {
    let context = Context::new(loaded, model)?;
    let chart = context.z_plane(&[context.scheme])?;
    save(&chart, path, output_size())
}

/// The size of the pictures of `--plot`, px.
fn output_size() -> (u32, u32) {
    hooke_plot::style::DEFAULT_SIZE
}
