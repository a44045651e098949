//! The data pictures are drawn from, checked without looking at pixels: where legends go (never
//! over what they explain), what the axes say, how many points a long run draws.

use hooke::format::model::parse;
use hooke::scheme::SchemeKind;
use hooke::system::System;
use hooke_plot::legend::Placement;
use hooke_plot::output::render_svg;
use hooke_plot::record::{coordinate, simulate, Request};
use hooke_plot::style::{DEFAULT_SIZE, INK};
use hooke_plot::{compare, phase, spectrum, time, trajectory, warping, Axis, Chart, Curve, Series, Style};
use std::path::Path;

fn example(name: &str) -> System {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    let source = std::fs::read_to_string(&path).unwrap();
    System::new(&parse(&source, name).unwrap().model)
}

/// The points of `chart` that its legend lies over.
fn covered(chart: &Chart) -> Vec<(f64, f64)> {
    let layout = chart.layout(DEFAULT_SIZE).unwrap();
    chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .chain(chart.labels.iter().map(|l| l.at))
        .filter(|&p| layout.covers(p))
        .collect()
}

#[test]
fn the_readmes_spectrum_keeps_its_legend_off_the_peaks() {
    // `hooke plot spectrum examples/string-20-morgan-qiao-2008.toml --steps 8191 --masses s.1
    // --scheme symplectic-euler`: its highest peaks lie between 4 and 6.5 kHz.
    let system = example("string-20-morgan-qiao-2008.toml");
    let dt = 1.0 / 44_100.0;
    let s1 = coordinate(&system, "s.1").unwrap();
    let request = Request { coordinates: vec![s1.index], every: 1, balance: false };
    let mut data = spectrum::SpectrumData {
        title: "spectrum".into(),
        coordinate: s1.name.clone(),
        spectra: Vec::new(),
        predicted: Vec::new(),
    };
    for scheme in [SchemeKind::Exact, SchemeKind::SymplecticEuler] {
        let run = simulate(&system, scheme, dt, 8191, &request).unwrap();
        let signal: Vec<f64> = run.position_series(0).iter().map(|p| p.1).collect();
        data.spectra
            .push(Curve { label: scheme.name().into(), points: spectrum::level_db(&signal, 1.0 / dt) });
        data.predicted.push(spectrum::predicted_frequencies(&system, scheme, dt).unwrap());
    }
    let chart = spectrum::chart(&data);
    let peaks: Vec<(f64, f64)> = data.spectra[1]
        .points
        .iter()
        .copied()
        .filter(|&(f, db)| (4000.0..6500.0).contains(&f) && db > -100.0)
        .collect();
    assert!(peaks.len() > 100, "{} points of peaks", peaks.len());
    let hidden = covered(&chart);
    assert!(
        hidden.is_empty(),
        "the legend hides {} points, e.g. {:?}",
        hidden.len(),
        &hidden[..hidden.len().min(5)]
    );
}

#[test]
fn the_pendulums_legend_leaves_its_anchor_and_path_visible() {
    // The README's stiff pendulum, released from the horizontal: its path is a half circle under
    // the anchor, which sits at the top middle.
    let system = example("pendulum-nonelastic.toml");
    let run = simulate(&system, SchemeKind::SymplecticEuler, 3e-4, 20_000, &trajectory::request(&system, 4))
        .unwrap();
    let data = trajectory::from_recording("pendulum", &system, &run).unwrap();
    let chart = trajectory::chart(&data);
    let layout = chart.layout(DEFAULT_SIZE).unwrap();
    assert!(!layout.covers(data.anchors[0]), "{:?} hides the anchor", layout.placement);
    assert_eq!(covered(&chart), Vec::<(f64, f64)>::new(), "{:?}", layout.placement);
}

/// A chart whose two curves pass through every corner and edge middle.
fn crowded(fixed_range: bool) -> Chart {
    let y = Axis::linear("position of m (m)");
    let mut chart = Chart::new(
        "crowded",
        Axis::linear("time t (s)"),
        if fixed_range { y.with_range(-1.0, 1.0) } else { y },
    );
    let wave = |phase: f64| {
        (0..=20_000).map(|i| f64::from(i) / 20_000.0).map(|t| (t, (400.0 * t + phase).sin())).collect()
    };
    chart.series.push(Series::line("a", wave(0.0), INK));
    chart.series.push(Series::line("b", wave(1.0), INK));
    chart
}

#[test]
fn a_legend_that_fits_nowhere_goes_above_the_data_or_under_the_plot() {
    // With the vertical range fitted to the data, in a band above it, hiding nothing.
    let free = crowded(false);
    let layout = free.layout(DEFAULT_SIZE).unwrap();
    assert_eq!(layout.placement, Placement::Above);
    assert!(layout.y.end > 1.1, "{:?}", layout.y);
    assert!(covered(&free).is_empty());
    // With a fixed range, outside, under the plot: both entries on one row.
    let fixed = crowded(true);
    let layout = fixed.layout(DEFAULT_SIZE).unwrap();
    assert_eq!(layout.placement, Placement::Below { columns: 2, rows: 1 });
    assert!((20..=40).contains(&layout.below_px), "{}", layout.below_px);
    assert!(covered(&fixed).is_empty());
    // One labelled series needs no legend.
    let mut single = crowded(true);
    single.series.truncate(1);
    assert_eq!(single.layout(DEFAULT_SIZE).unwrap().placement, Placement::None);
}

/// A damped 1D oscillator at 440 Hz: 1 kg, displaced by 1 cm.
fn oscillator() -> System {
    let k = (2.0 * std::f64::consts::PI * 440.0f64).powi(2);
    let source = format!(
        "[model]\ndimension = 1\n[[anchor]]\nid = \"ground\"\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = 0.01\n\
         [[spring]]\na = \"ground\"\nb = \"m\"\nstiffness = {k}\ndamping = 0.5\n"
    );
    System::new(&parse(&source, "oscillator.toml").unwrap().model)
}

/// A 2D model with a mass `bob`.
fn bob() -> System {
    let source = "[model]\ndimension = 2\n[[anchor]]\nid = \"pivot\"\nposition = [0.0, 0.0]\n[[mass]]\nid = \"bob\"\nmass = 1.0\n\
                  position = [1.0, 0.0]\n[[spring]]\na = \"pivot\"\nb = \"bob\"\nstiffness = 100.0\n";
    System::new(&parse(source, "bob.toml").unwrap().model)
}

#[test]
fn axis_labels_name_the_mass_and_coordinate_asked_for_with_units() {
    let system = bob();
    let (x, y) = (coordinate(&system, "bob.x").unwrap(), coordinate(&system, "bob.y").unwrap());
    let request = Request { coordinates: vec![x.index, y.index], every: 1, balance: false };
    let run = simulate(&system, SchemeKind::SymplecticEuler, 1e-3, 10, &request).unwrap();
    let chart =
        time::chart(&time::from_recordings("t", &[x.clone(), y.clone()], std::slice::from_ref(&run), None));
    assert_eq!(chart.y.label, "position of bob.x, bob.y (m)");
    assert_eq!(chart.x.label, "time t (s)");
    let chart = phase::chart(&phase::from_recordings("p", &x, 0, std::slice::from_ref(&run), None, None));
    assert_eq!(
        (chart.x.label.as_str(), chart.y.label.as_str()),
        ("position of bob.x (m)", "momentum of bob.x (kg m/s)")
    );
    let chart = phase::chart(&phase::from_recordings("p", &y, 1, &[run], None, Some(2.0)));
    assert_eq!(chart.x.label, "ψ = e^(γt/2) × position of bob.y (m)");
    assert_eq!(chart.y.label, "ξ = e^(γt/2) × momentum of bob.y (kg m/s)");
    assert_eq!(spectrum::level_label("bob.y"), "level of the position of bob.y (dB re peak)");
    assert_eq!(compare::error_label("bob.y", "exact"), "error |x − x_ref| of bob.y against exact (m)");
    // Many coordinates: the legend names them.
    let names: Vec<String> = (1..=5).map(|i| format!("s.{i}")).collect();
    assert_eq!(time::position_label(&names), "position (m)");
}

/// The number of points of every polyline of an SVG.
fn svg_line_points(svg: &str) -> Vec<usize> {
    let document = roxmltree::Document::parse(svg).unwrap();
    document
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .map(|n| n.attribute("points").unwrap_or("").split_whitespace().count())
        .collect()
}

#[test]
fn a_three_second_comparison_draws_one_error_per_pixel_column() {
    let system = oscillator();
    let m = coordinate(&system, "m").unwrap();
    let request = Request { coordinates: vec![m.index], every: 1, balance: false };
    let dt = 1.0 / 44_100.0;
    let run = |scheme| simulate(&system, scheme, dt, 132_300, &request).unwrap();
    let exact = run(SchemeKind::Exact);
    let runs: Vec<_> = [SchemeKind::SymplecticEuler, SchemeKind::Rk4, SchemeKind::Exact].map(run).to_vec();
    let data = compare::from_recordings("compare", &m, 0, &runs, ("exact", &exact), DEFAULT_SIZE);
    let width = DEFAULT_SIZE.0 as usize;
    for curve in &data.schemes {
        assert!(curve.points.len() <= width, "{}: {} points", curve.label, curve.points.len());
    }
    // Symplectic Euler's phase error grows steadily (its frequency is warped up by eq. 11);
    // RK4's stays far below; the exact flow equals the reference.
    let last = |i: usize| data.schemes[i].points.last().unwrap().1;
    assert!(last(0) > 1e3 * last(1), "{} vs {}", last(0), last(1));
    let chart = compare::chart(&data);
    assert_eq!(chart.series[2].label.as_deref(), Some("exact (equal to the reference)"));
    // Drawn: no line has more points than the plot is wide.
    let svg = render_svg(&chart, DEFAULT_SIZE).unwrap();
    assert!(svg_line_points(&svg).iter().all(|&n| n <= width), "{:?}", svg_line_points(&svg));
}

#[test]
fn a_long_time_series_is_drawn_through_its_envelope_per_pixel_column() {
    let system = oscillator();
    let m = coordinate(&system, "m").unwrap();
    let request = Request { coordinates: vec![m.index], every: 1, balance: false };
    let run = simulate(&system, SchemeKind::SymplecticEuler, 1.0 / 44_100.0, 132_300, &request).unwrap();
    let chart = time::chart(&time::from_recordings("long", std::slice::from_ref(&m), &[run], None));
    assert_eq!(chart.series[0].points.len(), 132_301);
    let svg = render_svg(&chart, DEFAULT_SIZE).unwrap();
    let lines = svg_line_points(&svg);
    // Four points per column at most (the plot is under 800 px wide).
    assert!(!lines.is_empty() && lines.iter().all(|&n| n <= 4 * DEFAULT_SIZE.0 as usize), "{lines:?}");
}

#[test]
fn warping_curves_stop_at_the_stability_limit_and_mark_it() {
    let schemes = [SchemeKind::SymplecticEuler, SchemeKind::Midpoint];
    let data = warping::curves("warping", &schemes, &[0.0, 0.5], std::f64::consts::PI).unwrap();
    let ends: Vec<f64> = data.curves.iter().map(|c| c.points.last().unwrap().0).collect();
    // Symplectic Euler: sqrt(4 - 2 gamma h) (Morgan & Qiao 2009, eq. (54)); the midpoint rule
    // is stable over the whole range.
    let expected = [Some(2.0), Some(3f64.sqrt()), None, None];
    for ((limit, expected), end) in data.limits.iter().zip(expected).zip(&ends) {
        match expected {
            Some(w) => {
                assert!(limit.is_some_and(|l| (l - w).abs() < 1e-9) && (end - w).abs() < 1e-9, "{limit:?}")
            }
            None => assert!(limit.is_none() && (end - std::f64::consts::PI).abs() < 1e-12, "{limit:?}"),
        }
    }
    assert!(data.curves.iter().zip(&ends).all(|(c, end)| c.points.iter().all(|p| p.0 <= *end)));
    // Each limit is a dashed vertical line in the legend.
    let chart = warping::chart(&data);
    let marks: Vec<&Series> = chart
        .series
        .iter()
        .filter(|s| s.label.as_deref().is_some_and(|l| l.contains("unstable beyond")))
        .collect();
    assert_eq!(marks.len(), 2);
    assert_eq!(marks[0].label.as_deref(), Some("symplectic-euler, γh = 0: unstable beyond ω₀h = 2"));
    assert_eq!(marks[1].label.as_deref(), Some("symplectic-euler, γh = 0.5: unstable beyond ω₀h = 1.732"));
    assert!(marks.iter().all(|s| s.style == Style::Dashed && s.points[0].0 == s.points[1].0));
}

#[test]
fn a_phase_portrait_with_few_samples_per_period_is_drawn_smooth_through_them() {
    // 440 Hz at 8 kHz: 18 samples per period.
    let system = oscillator();
    let m = coordinate(&system, "m").unwrap();
    let request = Request { coordinates: vec![m.index], every: 1, balance: false };
    let run = simulate(&system, SchemeKind::SymplecticEuler, 1.0 / 8000.0, 36, &request).unwrap();
    let chart = phase::chart(&phase::from_recordings("phase", &m, 0, std::slice::from_ref(&run), None, None));
    let drawn = &chart.series[0].points;
    assert!(drawn.len() >= 4 * run.len(), "{} points for {} samples", drawn.len(), run.len());
    // Through every sample.
    assert!(run.phase_series(0).iter().all(|s| drawn.contains(s)));
}
