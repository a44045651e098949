//! Fewer points for drawing long series, so that a run of seconds at audio rates (hundreds of
//! thousands of samples) draws what it is instead of a blob, quickly, in a small file.
//!
//! - [`envelope`] keeps, per pixel column, the first, lowest, highest and last point in their
//!   order (the M4 aggregation of Jugel et al., "M4: a visualization-oriented time series data
//!   aggregation", VLDB 2014): a line through them covers the same pixels as the line through
//!   every point, so every peak survives. [`crate::chart::Chart`] applies it to every line whose
//!   horizontal values only grow.
//! - [`upper_envelope`] keeps, per pixel column, only the highest point: the envelope of an error
//!   that oscillates with the signal, readable on a log scale where the line through every
//!   point would fill the space down to its zeros.

use std::ops::Range;

/// The column (of `columns` across `x`) that `value` falls in, clamped to the edge columns.
fn column(value: f64, x: &Range<f64>, columns: usize) -> usize {
    let fraction = (value - x.start) / (x.end - x.start);
    ((fraction * columns as f64).floor().max(0.0) as usize).min(columns - 1)
}

/// Per column of `columns` across `x` (in the units of the points' first value, which must not
/// decrease), the first, lowest, highest and last of `points`, in their order, each once.
/// Non-finite points are left out. A line through the result covers the pixels that a line
/// through every point covers.
pub fn envelope(points: &[(f64, f64)], x: &Range<f64>, columns: usize) -> Vec<(f64, f64)> {
    let columns = columns.max(1);
    let mut kept = Vec::with_capacity(4 * columns);
    let finite: Vec<(f64, f64)> =
        points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
    let mut start = 0;
    while start < finite.len() {
        let c = column(finite[start].0, x, columns);
        let end = start + finite[start..].iter().take_while(|p| column(p.0, x, columns) == c).count();
        let group = &finite[start..end];
        let by_value = |a: &&(f64, f64), b: &&(f64, f64)| a.1.total_cmp(&b.1);
        let low = group.iter().enumerate().min_by(|a, b| by_value(&a.1, &b.1)).map_or(0, |(i, _)| i);
        let high = group.iter().enumerate().max_by(|a, b| by_value(&a.1, &b.1)).map_or(0, |(i, _)| i);
        let mut picks = [0, low, high, group.len() - 1];
        picks.sort_unstable();
        let mut last = None;
        for i in picks {
            if last != Some(i) {
                kept.push(group[i]);
                last = Some(i);
            }
        }
        start = end;
    }
    kept
}

/// Per column of `columns` across `x` (the points' first values must not decrease), the point of
/// `points` with the highest second value; non-finite points are left out.
pub fn upper_envelope(points: &[(f64, f64)], x: &Range<f64>, columns: usize) -> Vec<(f64, f64)> {
    let columns = columns.max(1);
    let mut kept: Vec<(usize, (f64, f64))> = Vec::with_capacity(columns);
    for &p in points.iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
        let c = column(p.0, x, columns);
        match kept.last_mut() {
            Some((last, best)) if *last == c => {
                if p.1 > best.1 {
                    *best = p;
                }
            }
            _ => kept.push((c, p)),
        }
    }
    kept.into_iter().map(|(_, p)| p).collect()
}

/// Whether the first values of `points` never decrease (a time series), so that the envelopes
/// apply.
pub fn is_ordered(points: &[(f64, f64)]) -> bool {
    points.windows(2).all(|w| w[1].0 >= w[0].0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    /// 3 s of a 440 Hz sine at 44.1 kHz, with one spike.
    fn long_signal() -> Vec<(f64, f64)> {
        (0..132_300)
            .map(|n| {
                let t = n as f64 / 44_100.0;
                (t, if n == 70_001 { 5.0 } else { (2.0 * PI * 440.0 * t).sin() })
            })
            .collect()
    }

    #[test]
    fn the_envelope_keeps_at_most_four_points_per_column_and_every_extreme() {
        let signal = long_signal();
        let x = 0.0..3.0;
        let kept = envelope(&signal, &x, 700);
        assert!(kept.len() <= 4 * 700 && kept.len() >= 2 * 700, "{}", kept.len());
        // The spike and the troughs survive; the first and last samples too.
        assert!(kept.contains(&signal[70_001]));
        assert_eq!(
            kept.iter().map(|p| p.1).fold(f64::MAX, f64::min),
            signal.iter().map(|p| p.1).fold(f64::MAX, f64::min)
        );
        assert_eq!((kept[0], kept[kept.len() - 1]), (signal[0], signal[signal.len() - 1]));
        // In each column the kept points span the same values as the whole column.
        for c in [0, 333, 699] {
            let in_column = |p: &&(f64, f64)| column(p.0, &x, 700) == c;
            let span = |points: Vec<&(f64, f64)>| {
                points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)))
            };
            assert_eq!(
                span(kept.iter().filter(in_column).collect()),
                span(signal.iter().filter(in_column).collect())
            );
        }
        assert!(is_ordered(&kept));
    }

    #[test]
    fn short_series_are_kept_whole() {
        let points = vec![(0.0, 1.0), (1.0, -1.0), (2.0, 0.5)];
        assert_eq!(envelope(&points, &(0.0..2.0), 700), points);
        assert_eq!(upper_envelope(&points, &(0.0..2.0), 700), points);
    }

    #[test]
    fn the_upper_envelope_keeps_the_highest_point_per_column() {
        let signal: Vec<(f64, f64)> = long_signal().into_iter().map(|(t, x)| (t, x.abs())).collect();
        let kept = upper_envelope(&signal, &(0.0..3.0), 300);
        assert_eq!(kept.len(), 300);
        assert!(kept.contains(&signal[70_001]));
        // Every column of a 440 Hz sine spans whole periods: its highest point is about 1.
        assert!(kept.iter().filter(|p| p.1 < 4.0).all(|p| p.1 > 0.999), "{kept:?}");
        assert!(!is_ordered(&[(1.0, 0.0), (0.5, 0.0)]));
    }
}
