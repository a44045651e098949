//! A recorded note against the string fitted to it (`hooke fit --plot`, docs/fit.md): each
//! partial's T60 against its frequency, as recorded and as the fitted string simulates it, with
//! the fitted loss law's T60 as a line; and the two spectra of the first second, one over the
//! other.

use crate::chart::{Axis, Chart, Curve, Marker, Series};
use crate::spectrum::{level_db, FLOOR_DB};
use crate::style::{color, INK};

/// The data of a partials plot: the title, each partial's `(frequency (Hz), T60 (s))` as
/// recorded and as simulated, and the fitted law's T60 over frequency.
#[derive(Debug, Clone, PartialEq)]
pub struct PartialsData {
    /// The title.
    pub title: String,
    /// The recording's partials.
    pub recorded: Curve,
    /// The resynthesis' partials (empty without one).
    pub simulated: Curve,
    /// The law's T60 at frequencies spanning the partials.
    pub law: Curve,
}

/// Each partial's T60 (log) against frequency: the recording's as circles, the simulation's as
/// crosses, the law as a line.
pub fn decay_chart(data: &PartialsData) -> Chart {
    let mut chart = Chart::new(&data.title, Axis::linear("frequency f (Hz)"), Axis::log("T60 (s)"));
    chart.series.push(Series::line(&data.law.label, data.law.points.clone(), color(1)).width(1));
    chart.series.push(Series::markers(
        &data.recorded.label,
        data.recorded.points.clone(),
        Marker::Circle,
        INK,
    ));
    if !data.simulated.points.is_empty() {
        let simulated =
            Series::markers(&data.simulated.label, data.simulated.points.clone(), Marker::Cross, color(0));
        chart.series.push(simulated);
    }
    chart
}

/// The level (dB re each one's peak) of the first second of `recording` and `resynthesis` (each
/// with its rate, Hz) from `onset_s`, up to `top_hz`; `fitted` names the fitted instrument in the
/// legend ("fitted string").
pub fn spectra_chart(
    title: &str,
    fitted: &str,
    recording: (&[f64], f64),
    resynthesis: (&[f64], f64),
    onset_s: f64,
    top_hz: f64,
) -> Chart {
    let second = |(signal, rate): (&[f64], f64)| {
        let from = ((onset_s * rate) as usize).min(signal.len());
        let to = (from + rate as usize).min(signal.len());
        level_db(&signal[from..to], rate)
            .into_iter()
            .filter(|p| p.0 <= top_hz)
            .map(|(f, db)| (f, db.max(FLOOR_DB)))
            .collect()
    };
    let mut chart = Chart::new(
        title,
        Axis::linear("frequency f (Hz)").with_range(0.0, top_hz),
        Axis::linear("level of the first second (dB re peak)").with_range(FLOOR_DB, 5.0),
    );
    // The recording drawn last, over the simulation, so that its peaks show.
    chart.series.push(Series::line(format!("{fitted}, simulated"), second(resynthesis), color(0)).width(1));
    chart.series.push(Series::line("recording", second(recording), INK).width(1));
    chart
}
