//! `hooke fit RECORDING.wav --as bar -o fitted.toml`: a marimba of one key whose bar sounds like
//! a recorded strike (docs/fit.md): the first two bending modes measured
//! (`hooke::analysis::recording::measure_bar`) and a bar designed to have them as simulated.

use crate::fit::{write_instrument, FitArgs};
use crate::fit_struck::{
    draw_modes, print_report, read_recording, resynthesis_measured, strike_resynthesis, ModesPlot,
};
use crate::interrupt::Interrupt;
use hooke::analysis::recording::fit::{fit_bar as fit_modes, BarFit};
use hooke::analysis::recording::{measure_bar, t60, BarMeasurement};
use hooke::format::instrument::{fitted_names, marimba_toml};
use hooke::instrument::fitted::fitted_marimba;
use hooke::instrument::MIDDLE_C_HZ;
use miette::miette;
use std::fmt::Write as _;

/// `hooke fit --as bar`, on the one recording of `args`; `hint`: the first mode expected, Hz.
pub fn fit_bar(args: &FitArgs, hint: Option<f64>, interrupt: &Interrupt) -> miette::Result<()> {
    let recording = read_recording(args)?;
    let path = &recording.path;
    let bar = measure_bar(&recording.samples, recording.rate, hint)
        .map_err(|e| miette!("{}: expected {e}", path.display()))?;
    let fit = fit_modes(&bar);
    let key = fitted_names(&[fit.frequency_hz]).remove(0);
    let rate = args.rate.map_or(recording.rate, f64::from);
    let (spec, lengthened) = fitted_marimba(&key, &fit, args.scheme, 1.0 / rate)
        .map_err(|e| miette!("{}: no bar for the modes measured: {e}", path.display()))?;
    let mut comment = format!(
        "Fitted by `hooke fit --as bar` (docs/fit.md) to {}: modes at {:.3} Hz and {:.4} times it, time constants \
         {:.4} s and {:.4} s\n(given at C4, as the marimba takes them: decay f / f_C4).",
        path.display(),
        fit.frequency_hz,
        fit.ratio,
        fit.decay,
        fit.high_decay
    );
    if lengthened {
        let note = "\nThe second mode decays faster than the bar's dampers can make it: its time constant is the shortest they give.";
        comment.push_str(note);
        eprintln!("warning: {}: {}", path.display(), &note[1..]);
    }
    let text = marimba_toml(&spec, args.scheme, rate, &comment);
    write_instrument(&args.output, &text, args.scheme, rate)?;
    let sound = strike_resynthesis(args, &text, &key, bar.onset_s, &recording, rate, interrupt)?;
    let simulated =
        resynthesis_measured(sound.as_deref().map(|sound| measure_bar(sound, rate, Some(fit.frequency_hz))));
    let plot = ModesPlot { recorded: &bar.modes, onset_s: bar.onset_s, fitted: "fitted bar", law: None };
    let resynthesis = sound.as_deref().zip(simulated.as_ref().map(|s| &s.modes[..]));
    draw_modes(args, &recording, &plot, resynthesis, rate)?;
    // What the instrument has: the fit, with the second decay as the bar could take it.
    let fit = BarFit { high_decay: spec.high_decay * MIDDLE_C_HZ / fit.frequency_hz, ..fit };
    let report = table(&path.display().to_string(), &bar, &fit, simulated.as_ref());
    print_report(&report, args)?;
    Ok(())
}

/// The two modes as recorded, fitted and (with a resynthesis) simulated.
fn table(name: &str, bar: &BarMeasurement, fit: &BarFit, simulated: Option<&BarMeasurement>) -> String {
    let mut text = format!(
        "## Fit\n\n{name}: onset {:.4} s; first mode {:.4} Hz, second {:.4} times it.\n\n\
         | mode | recorded (Hz) | T60 (s) | fitted (Hz) | T60 (s) | simulated (Hz) | T60 (s) |\n\
         |---|---|---|---|---|---|---|\n",
        bar.onset_s, fit.frequency_hz, fit.ratio
    );
    let fitted = [(fit.frequency_hz, fit.decay), (fit.frequency_hz * fit.ratio, fit.high_decay)];
    for (k, (mode, (hz, tau))) in bar.modes.iter().zip(fitted).enumerate() {
        let cells = simulated
            .map(|s| format!("{:.3} | {:.3}", s.modes[k].main.frequency_hz, s.modes[k].t60()))
            .unwrap_or_else(|| " | ".to_string());
        let fitted_t60 = t60(1.0 / tau);
        let _ = writeln!(
            text,
            "| {} | {:.3} | {:.3} | {hz:.3} | {fitted_t60:.3} | {cells} |",
            k + 1,
            mode.main.frequency_hz,
            mode.t60()
        );
    }
    text
}
