//! `hooke fit RECORDING.wav --as plate -o fitted.toml`: a bell plate of one key whose modes sound
//! like a recorded strike's (docs/fit.md): every mode measured
//! (`hooke::analysis::recording::measure_modes`), the lattice and loss law fitted to them
//! (`hooke::analysis::recording::plate`) for the step the plate runs at.

use crate::fit::{write_instrument, FitArgs};
use crate::fit_struck::{
    draw_modes, print_report, read_recording, recorded_modes, resynthesis_measured, strike_resynthesis,
    ModesPlot,
};
use crate::interrupt::Interrupt;
use hooke::analysis::recording::plate::PlateFit;
use hooke::analysis::recording::{measure_modes, t60, ModesMeasurement};
use hooke::format::instrument::{fitted_names, plates_toml};
use hooke::instrument::fitted::plate_for_rate;
use miette::miette;
use std::fmt::Write as _;

/// `hooke fit --as plate`, on the one recording of `args`; `hint`: the first mode expected, Hz.
pub fn fit_plate(args: &FitArgs, hint: Option<f64>, interrupt: &Interrupt) -> miette::Result<()> {
    let recording = read_recording(args)?;
    let path = &recording.path;
    let measured = recorded_modes(&recording)?;
    let rate = args.rate.map_or(recording.rate, f64::from);
    let (spec, fit) = plate_for_rate(&measured, hint, args.scheme, rate, |hz| fitted_names(&[hz]).remove(0))
        .map_err(|e| miette!("{}: no plate for the modes measured: {e}", path.display()))?;
    let comment = format!(
        "Fitted by `hooke fit --as plate` (docs/fit.md) to {}: first mode {:.3} Hz; {} x {} masses, whose modes lie\n\
         {:.2} cents (rms) from the {} measured; the loss law through {:.4} s at the first mode and {:.4} s at {:.1} Hz\n\
         (the first given at C4, as the plates take it: decay f / f_C4).",
        path.display(),
        fit.frequency_hz,
        fit.columns,
        fit.rows,
        fit.ratio_error_cents,
        measured.modes.len(),
        fit.decay(fit.frequency_hz),
        fit.decay(fit.high_frequency),
        fit.high_frequency
    );
    let text = plates_toml(&spec, args.scheme, rate, &comment);
    write_instrument(&args.output, &text, args.scheme, rate)?;
    let sound =
        strike_resynthesis(args, &text, &spec.keys[0], measured.onset_s, &recording, rate, interrupt)?;
    let simulated = resynthesis_measured(sound.as_deref().map(|sound| measure_modes(sound, rate)));
    let law = |f: f64| fit.decay(f);
    let plot = ModesPlot {
        recorded: &measured.modes,
        onset_s: measured.onset_s,
        fitted: "fitted plate",
        law: Some(&law),
    };
    let resynthesis = sound.as_deref().zip(simulated.as_ref().map(|s| &s.modes[..]));
    draw_modes(args, &recording, &plot, resynthesis, rate)?;
    let report = table(&path.display().to_string(), &measured, &fit, simulated.as_ref());
    print_report(&report, args)
}

/// Each mode as recorded (frequency, ratio to the first, T60), fitted (the lattice's nearest
/// mode `(p, q)`, its ratio and the law's T60 there) and, with a resynthesis, simulated (the
/// simulated mode nearest in frequency, within 1%).
fn table(
    name: &str,
    measured: &ModesMeasurement,
    fit: &PlateFit,
    simulated: Option<&ModesMeasurement>,
) -> String {
    let mut text = format!(
        "## Fit\n\n{name}: onset {:.4} s; first mode {:.4} Hz; {} x {} masses, {:.2} cents (rms) from the modes.\n\n\
         | mode | recorded (Hz) | ratio | T60 (s) | lattice (p, q) | ratio | law's T60 (s) | simulated (Hz) | T60 (s) |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        measured.onset_s, fit.frequency_hz, fit.columns, fit.rows, fit.ratio_error_cents
    );
    for mode in &measured.modes {
        let hz = mode.main.frequency_hz;
        let ratio = hz / fit.frequency_hz;
        let (p, q) = (1..=fit.columns)
            .flat_map(|p| (1..=fit.rows).map(move |q| (p, q)))
            .min_by(|a, b| {
                let off = |(p, q): (usize, usize)| (fit.ratio(p, q) / ratio).ln().abs();
                off(*a).total_cmp(&off(*b))
            })
            .unwrap_or((1, 1));
        let cells = simulated
            .and_then(|s| {
                let nearest = s.modes.iter().min_by(|a, b| {
                    (a.main.frequency_hz - hz).abs().total_cmp(&(b.main.frequency_hz - hz).abs())
                })?;
                ((nearest.main.frequency_hz / hz - 1.0).abs() < 0.01)
                    .then(|| format!("{:.3} | {:.3}", nearest.main.frequency_hz, nearest.t60()))
            })
            .unwrap_or_else(|| " | ".to_string());
        let _ = writeln!(
            text,
            "| {} | {hz:.3} | {ratio:.4} | {:.3} | ({p}, {q}) | {:.4} | {:.3} | {cells} |",
            mode.number,
            mode.t60(),
            fit.ratio(p, q),
            t60(1.0 / fit.decay(hz))
        );
    }
    text
}
