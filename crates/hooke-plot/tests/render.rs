//! Every kind of plot rendered from small models to PNG and SVG (and a GIF), decoded and checked:
//! the pictures are not blank, SVG is well-formed and deterministic, files are written whole or
//! not at all, and bad input gets a clear error.

use hooke::format::model::parse;
use hooke::scheme::SchemeKind;
use hooke::system::System;
use hooke_plot::output::{render_png, render_svg};
use hooke_plot::record::{coordinate, simulate, Recording, Request};
use hooke_plot::warping::MapKind;
use hooke_plot::{energy, phase, poles, spectrum, time, trajectory, warping, Chart, PlotError};
use std::path::Path;

const SIZE: (u32, u32) = (480, 320);

/// A damped 1D oscillator: 1 kg on 1e4 N/m with 2 N s/m, displaced by 1 cm.
fn oscillator() -> System {
    let source = "[model]\ndimension = 1\n[[anchor]]\nid = \"ground\"\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
                  position = 0.01\n[[spring]]\na = \"ground\"\nb = \"m\"\nstiffness = 1e4\ndamping = 2.0\n";
    System::new(&parse(source, "oscillator.toml").unwrap().model)
}

/// Two masses hanging from an anchor in 2D under gravity, the lower one pushed sideways.
fn chain_2d() -> System {
    let source = "[model]\ndimension = 2\ngravity = [0.0, -9.81]\n[[anchor]]\nid = \"top\"\nposition = [0.0, 2.0]\n\
                  [[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 1.0]\n\
                  [[mass]]\nid = \"b\"\nmass = 1.0\nposition = [0.0, 0.0]\nvelocity = [1.0, 0.0]\n\
                  [[spring]]\na = \"top\"\nb = \"a\"\nstiffness = 1e3\n[[spring]]\na = \"a\"\nb = \"b\"\nstiffness = 1e3\n";
    System::new(&parse(source, "chain.toml").unwrap().model)
}

const DT: f64 = 1e-3;
const STEPS: u64 = 300;

fn run(system: &System, scheme: SchemeKind, request: &Request) -> Recording {
    simulate(system, scheme, DT, STEPS, request).unwrap()
}

/// One chart of every kind (and the variants of phase, energy, poles and warping).
fn charts() -> Vec<(&'static str, Chart)> {
    let oscillator = oscillator();
    let m = coordinate(&oscillator, "m").unwrap();
    let request = Request { coordinates: vec![m.index], every: 1, balance: true };
    let schemes = [SchemeKind::SymplecticEuler, SchemeKind::Rk4];
    let runs: Vec<Recording> = schemes.iter().map(|&s| run(&oscillator, s, &request)).collect();
    let exact = run(&oscillator, SchemeKind::Exact, &request);
    let reference = Some(("exact", &exact));
    let chain = chain_2d();
    let motion = run(&chain, SchemeKind::SymplecticEuler, &trajectory::request(&chain, 1));
    let gamma = phase::lowest_mode_gamma(&oscillator).unwrap();
    let signal: Vec<f64> = exact.position_series(0).iter().map(|p| p.1).collect();
    let spectrum_data = spectrum::SpectrumData {
        title: "spectrum".into(),
        coordinate: m.name.clone(),
        spectra: vec![hooke_plot::Curve {
            label: "exact".into(),
            points: spectrum::level_db(&signal, 1.0 / DT),
        }],
        predicted: vec![spectrum::predicted_frequencies(&oscillator, SchemeKind::Exact, DT).unwrap()],
    };
    vec![
        (
            "trajectory",
            trajectory::chart(&trajectory::from_recording("trajectory", &chain, &motion).unwrap()),
        ),
        ("time", time::chart(&time::from_recordings("time", std::slice::from_ref(&m), &runs, reference))),
        ("phase", phase::chart(&phase::from_recordings("phase", &m, 0, &runs, reference, None))),
        (
            "modified phase",
            phase::chart(&phase::from_recordings("modified", &m, 0, &runs, reference, Some(gamma))),
        ),
        ("energy", energy::chart(&energy::from_recordings("energy", &runs, false))),
        ("energy error", energy::chart(&energy::from_recordings("energy error", &runs, true))),
        ("z-plane", poles::z_plane_chart(&poles::z_plane("z", &oscillator, &schemes, DT).unwrap())),
        ("s-plane", poles::s_plane_chart(&poles::s_plane("s", Some(&oscillator), DT).unwrap())),
        ("warping", warping::chart(&warping::curves("warping", &schemes, &[0.0, 0.5], 3.0).unwrap())),
        (
            "isofrequency",
            warping::map_chart(
                &warping::map("iso", SchemeKind::SymplecticEuler, MapKind::Isofrequency, &[0.5, 1.0])
                    .unwrap(),
            ),
        ),
        (
            "isodamping",
            warping::map_chart(
                &warping::map("iso", SchemeKind::SymplecticEuler, MapKind::Isodamping, &[-0.1, -0.3])
                    .unwrap(),
            ),
        ),
        ("spectrum", spectrum::chart(&spectrum_data)),
    ]
}

/// The number of distinct colours in the middle of the picture (the plot area, away from the
/// title, tick labels and axis descriptions).
fn colours_in_plot_area(png: &[u8]) -> usize {
    let image = image::load_from_memory(png).expect("the PNG decodes").to_rgb8();
    assert_eq!(image.dimensions(), SIZE);
    let (w, h) = SIZE;
    let mut colours = std::collections::BTreeSet::new();
    for y in h / 5..h * 4 / 5 {
        for x in w / 4..w * 9 / 10 {
            colours.insert(image.get_pixel(x, y).0);
        }
    }
    colours.len()
}

#[test]
fn every_kind_renders_to_a_png_with_a_drawing_in_its_plot_area() {
    for (name, chart) in charts() {
        let png = render_png(&chart, SIZE).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(png.starts_with(b"\x89PNG"), "{name}");
        let colours = colours_in_plot_area(&png);
        // White, the grid, and the series (several colours once anti-aliased text and markers
        // are in).
        assert!(colours > 3, "{name}: only {colours} colours in the plot area");
    }
}

#[test]
fn a_blank_picture_is_told_apart() {
    // The check above fails on a chart with nothing but its frame: a series far outside a
    // fixed range leaves the plot area white and grey.
    let mut chart = Chart::new(
        "empty",
        hooke_plot::Axis::linear("x (m)").with_range(0.0, 1.0),
        hooke_plot::Axis::linear("y (m)").with_range(0.0, 1.0),
    );
    chart.series.push(hooke_plot::Series::line("far", vec![(5.0, 5.0), (6.0, 6.0)], hooke_plot::style::INK));
    assert!(colours_in_plot_area(&render_png(&chart, SIZE).unwrap()) <= 3);
}

#[test]
fn every_kind_renders_to_well_formed_deterministic_svg() {
    for ((name, chart), (_, again)) in charts().into_iter().zip(charts()) {
        let svg = render_svg(&chart, SIZE).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(svg, render_svg(&again, SIZE).unwrap(), "{name}: SVG differs between two renderings");
        let document = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let root = document.root_element();
        assert_eq!(root.tag_name().name(), "svg", "{name}");
        let drawing = root
            .descendants()
            .filter(|n| {
                matches!(n.tag_name().name(), "polyline" | "path" | "line" | "circle" | "rect" | "polygon")
            })
            .count();
        assert!(drawing > 10, "{name}: only {drawing} drawing elements");
        let texts: Vec<&str> = root
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        assert!(texts.contains(&chart.title.as_str()), "{name}: no title among {texts:?}");
        assert!(
            texts.contains(&chart.x.label.as_str()) && texts.contains(&chart.y.label.as_str()),
            "{name}: axis labels missing"
        );
    }
}

#[test]
fn files_take_their_format_from_the_extension_and_are_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let chart = charts().remove(1).1;
    for name in ["a.png", "b.SVG"] {
        hooke_plot::save(&chart, &dir.path().join(name), SIZE).unwrap();
    }
    assert!(image::open(dir.path().join("a.png")).is_ok());
    assert!(std::fs::read_to_string(dir.path().join("b.SVG")).unwrap().starts_with("<svg"));
    let error = hooke_plot::save(&chart, &dir.path().join("c.jpg"), SIZE).unwrap_err();
    assert!(matches!(error, PlotError::Extension { .. }));
    assert!(
        error.to_string().contains("expected a file name ending in .png or .svg, found \".jpg\""),
        "{error}"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.png", "b.SVG"]);
}

#[test]
fn a_trajectory_animates_to_a_gif_with_one_frame_per_time() {
    let dir = tempfile::tempdir().unwrap();
    let chain = chain_2d();
    let motion = run(&chain, SchemeKind::SymplecticEuler, &trajectory::request(&chain, 10));
    let data = trajectory::from_recording("chain", &chain, &motion).unwrap();
    let frames = trajectory::frames(&data, 5);
    let path = dir.path().join("motion.gif");
    hooke_plot::save_animation(&frames, &path, SIZE, 100).unwrap();
    let mut decoder = gif::DecodeOptions::new();
    decoder.set_color_output(gif::ColorOutput::RGBA);
    let mut reader = decoder.read_info(std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!((u32::from(reader.width()), u32::from(reader.height())), SIZE);
    let mut decoded = Vec::new();
    while let Some(frame) = reader.read_next_frame().unwrap() {
        decoded.push(frame.buffer.to_vec());
    }
    assert_eq!(decoded.len(), 5);
    // The masses move, so the frames differ.
    assert_ne!(decoded[0], decoded[4]);
    // A still format is not an animation.
    assert!(hooke_plot::save_animation(&frames, &dir.path().join("motion.png"), SIZE, 100).is_err());
}

#[test]
fn bad_input_gets_a_clear_error() {
    let oscillator = oscillator();
    let request = trajectory::request(&oscillator, 1);
    let motion = run(&oscillator, SchemeKind::SymplecticEuler, &request);
    let error = trajectory::from_recording("1D", &oscillator, &motion).unwrap_err();
    assert!(error.to_string().contains("a trajectory needs a 2D or 3D model, found a 1D model"), "{error}");

    let error = coordinate(&chain_2d(), "c.y").unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown mass \"c.y\": expected one of the model's masses (a, b), optionally with .x, .y or .z"
    );
    assert_eq!(coordinate(&chain_2d(), "b.y").unwrap().index, 3);
    // 1D has no y.
    assert!(coordinate(&oscillator, "m.y").is_err());

    let empty = Chart::new("nothing", hooke_plot::Axis::linear("x (m)"), hooke_plot::Axis::linear("y (m)"));
    assert!(matches!(render_png(&empty, SIZE), Err(PlotError::Empty(_))));
    assert!(!Path::new("nothing.png").exists());
}

#[test]
fn the_modified_phase_space_closes_the_exact_flow_of_a_damped_oscillator() {
    // Chatziioannou 2019, fig. 2: e^(gamma t / 2) (y, p) of the exact damped flow stays on one
    // ellipse, so after whole periods it returns to its start; in (y, p) it has spiralled inwards.
    let oscillator = oscillator();
    let m = coordinate(&oscillator, "m").unwrap();
    let request = Request { coordinates: vec![m.index], every: 1, balance: false };
    let gamma = phase::lowest_mode_gamma(&oscillator).unwrap();
    assert!((gamma - 2.0).abs() < 1e-9, "gamma = {gamma}");
    // The damped period: 2 pi / sqrt(k/m - gamma^2/4).
    let period = 2.0 * std::f64::consts::PI / (1e4f64 - 1.0).sqrt();
    let steps = (4.0 * period / 1e-5).round() as u64;
    let exact =
        simulate(&oscillator, SchemeKind::Exact, 4.0 * period / steps as f64, steps, &request).unwrap();
    let data = phase::from_recordings("", &m, 0, &[], Some(("exact", &exact)), Some(gamma));
    let points = &data.reference.as_ref().unwrap().points;
    let (first, last) = (points[0], points[points.len() - 1]);
    assert!((first.0 - last.0).abs() < 1e-9 && (first.1 - last.1).abs() < 1e-7, "{first:?} {last:?}");
    let plain = phase::from_recordings("", &m, 0, &[], Some(("exact", &exact)), None);
    let last_plain = plain.reference.unwrap().points[points.len() - 1];
    assert!(last_plain.0 < 0.97 * first.0, "{last_plain:?}");
}
