//! Total energy and the conserved quantity K of Chatziioannou 2019 against time, or their
//! relative error on a log scale: figs. 1 (right: the energy error of every method), 3 (the reed's
//! error in the conservation law), 5 (c, d: a string on a barrier) and 6 (a lossless string's
//! energy error) of that paper.

use crate::chart::{Axis, Chart, Curve, Series, Style};
use crate::record::Recording;
use crate::style::color;

/// The data of an energy plot.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyData {
    /// The title.
    pub title: String,
    /// What the values are: energies in J, or relative errors.
    pub quantity: EnergyQuantity,
    /// Per scheme: the total energy `H` (or its error) against time, s.
    pub energy: Vec<Curve>,
    /// Per scheme, in the same order: K (or its error) against time, s.
    pub balance: Vec<Curve>,
}

/// What an energy plot shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnergyQuantity {
    /// The energies themselves, J (linear scale).
    Joules,
    /// `|H - H_0| / |H_0|` and `|K - K_0| / |K_0|` (log scale).
    RelativeError,
    /// `|H - H_0|` and `|K - K_0|`, J, for a system that starts with no energy (log scale).
    AbsoluteError,
}

/// The energy plot of `data`: H solid, K dashed, one colour per scheme.
pub fn chart(data: &EnergyData) -> Chart {
    let y = match data.quantity {
        EnergyQuantity::Joules => Axis::linear("energy (J)"),
        EnergyQuantity::RelativeError => Axis::log("relative error |E - E₀| / |E₀| (dimensionless)"),
        EnergyQuantity::AbsoluteError => Axis::log("error |E - E₀| (J)"),
    };
    let mut chart = Chart::new(&data.title, Axis::linear("time t (s)"), y);
    for (i, (h, k)) in data.energy.iter().zip(&data.balance).enumerate() {
        chart.series.push(Series::line(&h.label, h.points.clone(), color(i)));
        chart.series.push(Series::line(&k.label, k.points.clone(), color(i)).styled(Style::Dashed));
    }
    chart
}

/// H and K of each run; with `relative`, their errors against their first values.
pub fn from_recordings(title: impl Into<String>, runs: &[Recording], relative: bool) -> EnergyData {
    let start = runs.first().and_then(|r| r.energy.first()).copied().unwrap_or(0.0);
    let quantity = match (relative, start == 0.0) {
        (false, _) => EnergyQuantity::Joules,
        (true, false) => EnergyQuantity::RelativeError,
        (true, true) => EnergyQuantity::AbsoluteError,
    };
    let series = |times: &[f64], values: Vec<Option<f64>>| -> Vec<(f64, f64)> {
        let first = values.iter().flatten().next().copied().unwrap_or(0.0);
        let error = |v: f64| match quantity {
            EnergyQuantity::Joules => v,
            EnergyQuantity::RelativeError => (v - first).abs() / first.abs(),
            EnergyQuantity::AbsoluteError => (v - first).abs(),
        };
        times.iter().zip(values).filter_map(|(&t, v)| v.map(|v| (t, error(v)))).collect()
    };
    let (h_name, k_name) = match quantity {
        EnergyQuantity::Joules => ("H", "K"),
        _ => ("error of H", "error of K"),
    };
    EnergyData {
        title: title.into(),
        quantity,
        energy: runs
            .iter()
            .map(|r| Curve {
                label: format!("{h_name}, {}", r.scheme),
                points: series(&r.times, r.energy.iter().copied().map(Some).collect()),
            })
            .collect(),
        balance: runs
            .iter()
            .map(|r| Curve {
                label: format!("{k_name}, {}", r.scheme),
                points: series(&r.times, r.balance.clone()),
            })
            .collect(),
    }
}
