//! `hooke fit RECORDING.wav --as bell -o fitted.toml`: a bell of one key whose modes sound like a
//! recorded strike's (docs/fit.md): every mode measured (`hooke::analysis::recording::measure_modes`)
//! and a bell built to sound each at its frequency, decay and level.

use crate::fit::{write_instrument, FitArgs};
use crate::fit_struck::{
    draw_modes, print_report, read_recording, recorded_modes, resynthesis_measured, strike_resynthesis,
    ModesPlot,
};
use crate::interrupt::Interrupt;
use hooke::analysis::recording::fit::fit_bell as fit_modes;
use hooke::analysis::recording::{measure_modes, MeasuredPartial, ModesMeasurement};
use hooke::format::instrument::{bell_toml, fitted_names};
use hooke::instrument::bell::BellSpec;
use hooke::instrument::fitted::fitted_bell;
use miette::miette;
use std::fmt::Write as _;

/// `hooke fit --as bell`, on the one recording of `args`; `hint`: the strike note, Hz.
pub fn fit_bell(args: &FitArgs, hint: Option<f64>, interrupt: &Interrupt) -> miette::Result<()> {
    let recording = read_recording(args)?;
    let path = &recording.path;
    let bell = recorded_modes(&recording)?;
    let fit = fit_modes(&bell, hint);
    let key = fitted_names(&[fit.strike_hz]).remove(0);
    let rate = args.rate.map_or(recording.rate, f64::from);
    let (spec, moved) = fitted_bell(&key, &fit, args.scheme, 1.0 / rate)
        .map_err(|e| miette!("{}: no bell for the modes measured: {e}", path.display()))?;
    let strike = if hint.is_some() { "as given by --note" } else { "half its loudest mode's" };
    let mut comment = format!(
        "Fitted by `hooke fit --as bell` (docs/fit.md) to {}: {} modes; strike note {:.3} Hz ({strike}).\n\
         Each partial's time constant and effective mass are given at C4, as the bell takes them\n\
         (decay f / f_C4, mass (f / f_C4)^3).",
        path.display(),
        fit.modes.len(),
        fit.strike_hz
    );
    if moved > 0.0 {
        let note = format!(
            "\nThe decays measured are out of a bell's body's reach: each is the nearest it gives, moved by up to {:.1}%.",
            100.0 * moved
        );
        comment.push_str(&note);
        eprintln!("warning: {}: {}", path.display(), &note[1..]);
    }
    let text = bell_toml(&spec, args.scheme, rate, &comment);
    write_instrument(&args.output, &text, args.scheme, rate)?;
    let sound = strike_resynthesis(args, &text, &key, bell.onset_s, &recording, rate, interrupt)?;
    let simulated = resynthesis_measured(sound.as_deref().map(|sound| measure_modes(sound, rate)));
    let plot = ModesPlot { recorded: &bell.modes, onset_s: bell.onset_s, fitted: "fitted bell", law: None };
    let resynthesis = sound.as_deref().zip(simulated.as_ref().map(|s| &s.modes[..]));
    draw_modes(args, &recording, &plot, resynthesis, rate)?;
    let report = table(&path.display().to_string(), &bell, fit.strike_hz, &spec, simulated.as_ref());
    print_report(&report, args)
}

/// Each mode as recorded (frequency, ratio to the strike note, T60, level under the loudest),
/// fitted (its effective mass at C4) and, with a resynthesis, simulated (the simulated mode
/// nearest in frequency, within 1%).
fn table(
    name: &str,
    bell: &ModesMeasurement,
    strike_hz: f64,
    spec: &BellSpec,
    simulated: Option<&ModesMeasurement>,
) -> String {
    let mut text = format!(
        "## Fit\n\n{name}: onset {:.4} s; strike note {strike_hz:.4} Hz; {} modes.\n\n\
         | mode | recorded (Hz) | ratio | T60 (s) | level (dB) | mass at C4 (kg) | simulated (Hz) | T60 (s) | level (dB) |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        bell.onset_s,
        bell.modes.len()
    );
    let loudest = |modes: &[MeasuredPartial]| modes.iter().fold(0.0f64, |m, p| m.max(p.main.amplitude));
    let level = |p: &MeasuredPartial, top: f64| 20.0 * (p.main.amplitude / top).log10();
    let top = loudest(&bell.modes);
    for (mode, partial) in bell.modes.iter().zip(&spec.partials) {
        let hz = mode.main.frequency_hz;
        let cells = simulated
            .and_then(|s| {
                let nearest = s.modes.iter().min_by(|a, b| {
                    (a.main.frequency_hz - hz).abs().total_cmp(&(b.main.frequency_hz - hz).abs())
                })?;
                ((nearest.main.frequency_hz / hz - 1.0).abs() < 0.01).then(|| {
                    let found = nearest.main.frequency_hz;
                    format!("{found:.3} | {:.3} | {:.1}", nearest.t60(), level(nearest, loudest(&s.modes)))
                })
            })
            .unwrap_or_else(|| " | | ".to_string());
        let _ = writeln!(
            text,
            "| {} | {hz:.3} | {:.4} | {:.3} | {:.1} | {:.4} | {cells} |",
            mode.number,
            hz / strike_hz,
            mode.t60(),
            level(mode, top),
            partial.mass
        );
    }
    text
}
