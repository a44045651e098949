//! The bell plates against physics, their design and their files: a designed plate, simulated
//! and projected on its modes every step (the sines of a simply supported plate, computed here,
//! not by the library), has the asked first mode, modes at the lattice's closed-form ratios, and
//! every mode below 5 kHz decaying by the law `sigma(f) = sigma_0 + sigma_1 f` through the asked
//! times; notes strike plates with their mallet; bad files are refused at the field.

use hooke::analysis::plate_design::{design_plate, PlateTarget};
use hooke::engine::{Engine, EngineConfig, StepSize};
use hooke::format::instrument::parse as parse_instrument;
use hooke::format::score::parse as parse_score;
use hooke::instrument::plates::PlatesSpec;
use hooke::instrument::PartKind;
use hooke::model::Model;
use hooke::scheme::SchemeKind;
use hooke::score::controls::{ControlMapping, Controlled, SetParameter};
use hooke::score::notes::{NoteInput, NoteKind, NoteMap, StringRule, Stroke};
use std::f64::consts::PI;

const RATE: f64 = 88_200.0;

/// A mode `(p, q)` of a `columns x rows` plate as measured: frequency (Hz, from the zero
/// crossings of its modal coordinate) and decay rate (1/s, from its energy's slope in log scale).
struct Measured {
    mode: (usize, usize),
    frequency: f64,
    rate: f64,
}

/// Every mode of the plate of `target` designed for `scheme`, struck by displacing one mass and
/// simulated for `seconds`.
fn measured_modes(target: &PlateTarget, scheme: SchemeKind, seconds: f64) -> Vec<Measured> {
    let plate = design_plate(target, scheme, 1.0 / RATE).unwrap();
    let mut model = Model::new(1).unwrap();
    model.add_plate(&plate).unwrap();
    let (columns, rows) = (target.columns, target.rows);
    // The mass next to a corner moves in every mode: sin(p pi / (C + 1)) sin(q pi / (R + 1)) != 0.
    model.set_initial_position(0, &[1e-4]).unwrap();
    let config = EngineConfig { scheme, step: StepSize::Dt(1.0 / RATE), ..EngineConfig::default() };
    let mut engine = Engine::new(&model, &[], config).unwrap();
    let sine = |k: usize, i: usize, count: usize| (PI * (k * i) as f64 / (count + 1) as f64).sin();
    let mu = |p: usize, q: usize| {
        4.0 * (0.5 * PI * p as f64 / (columns + 1) as f64).sin().powi(2)
            + 4.0 * (0.5 * PI * q as f64 / (rows + 1) as f64).sin().powi(2)
    };
    let modes: Vec<((usize, usize), Vec<f64>)> = (1..=columns)
        .flat_map(|p| (1..=rows).map(move |q| (p, q)))
        .map(|(p, q)| {
            let shape = (0..rows * columns)
                .map(|k| sine(p, k % columns + 1, columns) * sine(q, k / columns + 1, rows));
            ((p, q), shape.collect())
        })
        .collect();
    let (mass, kappa) = (plate.mass(), plate.bending());
    let steps = (seconds * RATE) as usize;
    let mut log_energy = vec![Vec::with_capacity(steps); modes.len()];
    let mut crossings = vec![Vec::new(); modes.len()];
    let mut previous = vec![0.0; modes.len()];
    let mut output = Vec::new();
    for step in 0..steps {
        engine.advance(1, &mut output).unwrap();
        let state = engine.state();
        for (m, ((p, q), shape)) in modes.iter().enumerate() {
            let a: f64 = shape.iter().zip(&state.x).map(|(s, x)| s * x).sum();
            let b: f64 = shape.iter().zip(&state.v).map(|(s, v)| s * v).sum();
            // K = kappa L^2: the mode's stiffness is kappa mu^2.
            log_energy[m].push((0.5 * (kappa * mu(*p, *q).powi(2) * a * a + mass * b * b)).ln());
            if step > 0 && (previous[m] < 0.0) != (a < 0.0) {
                crossings[m].push(step as f64 - a / (a - previous[m]));
            }
            previous[m] = a;
        }
    }
    modes
        .iter()
        .enumerate()
        .map(|(m, (mode, _))| {
            let crossed = &crossings[m];
            let span = (crossed[crossed.len() - 1] - crossed[0]) / RATE;
            Measured {
                mode: *mode,
                frequency: 0.5 * (crossed.len() - 1) as f64 / span,
                rate: -0.5 * slope(&log_energy[m]),
            }
        })
        .collect()
}

/// The least-squares slope of `values` sampled at `RATE`, per second.
fn slope(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let (mean_t, mean_y) = (0.5 * (n - 1.0) / RATE, values.iter().sum::<f64>() / n);
    let (mut covariance, mut variance) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        let t = i as f64 / RATE - mean_t;
        covariance += t * (y - mean_y);
        variance += t * t;
    }
    covariance / variance
}

#[test]
fn a_designed_plate_sounds_its_pitch_and_every_mode_decays_by_the_law() {
    let target = PlateTarget {
        frequency_hz: 392.0,
        decay: 2.0,
        high_frequency: 4000.0,
        high_decay: 0.3,
        columns: 8,
        rows: 6,
        surface_density: 31.4,
        rigidity: 1172.0,
    };
    // sigma(f) through 1/2 at 392 Hz and 1/0.3 at 4 kHz, linear in f.
    let law = |f: f64| 0.5 + (1.0 / 0.3 - 0.5) * (f - 392.0) / (4000.0 - 392.0);
    // The lattice's modes: f_pq / f_11 = mu_pq / mu_11 (w = sqrt(kappa / m) mu), before the
    // scheme's warping, which is small below 5 kHz at 88.2 kHz.
    let mu = |p: usize, q: usize| {
        4.0 * (0.5 * PI * p as f64 / 9.0).sin().powi(2) + 4.0 * (0.5 * PI * q as f64 / 7.0).sin().powi(2)
    };
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet, SchemeKind::CaldirolaKanai] {
        let modes = measured_modes(&target, scheme, 0.25);
        let first = modes.iter().find(|m| m.mode == (1, 1)).unwrap();
        assert!((first.frequency / 392.0 - 1.0).abs() < 1e-3, "{scheme}: first mode {} Hz", first.frequency);
        let below: Vec<&Measured> = modes.iter().filter(|m| m.frequency < 5000.0).collect();
        assert!(below.len() >= 15, "{scheme}: {} modes below 5 kHz", below.len());
        let (mut worst_rate, mut worst_ratio) = (0.0f64, 0.0f64);
        for m in &below {
            let rate_error = m.rate / law(m.frequency) - 1.0;
            let ratio_error = (m.frequency / first.frequency) / (mu(m.mode.0, m.mode.1) / mu(1, 1)) - 1.0;
            (worst_rate, worst_ratio) =
                (worst_rate.max(rate_error.abs()), worst_ratio.max(ratio_error.abs()));
            assert!(
                rate_error.abs() < 0.05,
                "{scheme}: mode {:?} at {:.1} Hz decays at {:.4} 1/s, the law says {:.4}",
                m.mode,
                m.frequency,
                m.rate,
                law(m.frequency)
            );
            assert!(ratio_error.abs() < 0.02, "{scheme}: mode {:?} at {:.1} Hz", m.mode, m.frequency);
        }
        eprintln!(
            "{scheme}: first mode {:.3} Hz, {} modes below 5 kHz, worst decay error {:.2}%, worst ratio error {:.2}%",
            first.frequency,
            below.len(),
            100.0 * worst_rate,
            100.0 * worst_ratio
        );
    }
}

#[test]
fn notes_strike_plates_where_their_mallet_strikes() {
    let file = parse_instrument("[plates]\nkeys = [\"C4\", \"G4\"]\n", "p.toml").unwrap();
    let instrument = file.build(SchemeKind::SymplecticEuler, 44_100.0, 2).unwrap();
    let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
    let mut gestures = Vec::new();
    let on =
        |note, velocity| NoteInput { time: 0.5, track: 0, channel: 0, kind: NoteKind::On { note, velocity } };
    map.play(&on(67, 127), &mut gestures).unwrap();
    map.play(&NoteInput { kind: NoteKind::Off { note: 67 }, ..on(67, 0) }, &mut gestures).unwrap();
    let strike = PlatesSpec::default().strike;
    assert_eq!(gestures.len(), 1, "{gestures:?}");
    assert_eq!(gestures[0].part, 1);
    assert_eq!(gestures[0].stroke, Stroke::Strike { position: strike, velocity: 4.0, hardness: 1.0 });
    let error = map.play(&on(62, 100), &mut gestures).unwrap_err().to_string();
    assert!(error.contains("no plate sounds it") && error.contains("C4, G4"), "{error}");
    let tension = ControlMapping {
        controller: 1,
        parameter: Controlled::Set(SetParameter::Tension),
        low: 0.5,
        high: 2.0,
    };
    let refused = NoteMap::new(&instrument, StringRule::LowestFret).with_controls(&[tension], &instrument);
    assert!(refused.unwrap_err().to_string().contains("plays plates"));

    // A score's strike takes the plate's mallet and its point, or a point [x, y] of its own.
    let PartKind::Plate(plate) = &instrument.parts[1].kind else { panic!("a plate") };
    for (position, point) in [("", strike), ("position = [0.5, 0.5]\n", [0.5, 0.5])] {
        let score = format!("[score]\nduration = 1.0\n[[strike]]\ntime = 0.0\npart = \"G4\"\n{position}");
        let score = parse_score(&score, "s.toml", &instrument, None).unwrap();
        match &score.cues[0].action {
            hooke::score::Action::Strike(hammer) => {
                assert_eq!(hammer.coordinate, plate.grid.mass_at(point[0], point[1]));
                assert_eq!(hammer.mass, PlatesSpec::default().mallet_mass);
            }
            other => panic!("a strike, found {other:?}"),
        }
    }
    for (event, expected) in [
        ("[[set]]\ntime = 0.0\npart = \"C4\"\nparameter = \"tension\"\nvalue = 1.1\n", "s.toml:6:8"),
        (
            "[[pluck]]\ntime = 0.0\npart = \"C4\"\nposition = [0.5, 0.5]\namplitude = 0.001\nshape = \"triangle\"\n",
            "s.toml:9:9",
        ),
        ("[[strike]]\ntime = 0.0\npart = \"C4\"\nposition = 0.5\n", "s.toml:7:12"),
        ("[[strike]]\ntime = 0.0\npart = \"C4\"\naxis = \"y\"\n", "s.toml:7:8"),
    ] {
        let text = format!("[score]\nduration = 1.0\n\n{event}");
        let error = parse_score(&text, "s.toml", &instrument, None).unwrap_err().to_string();
        assert!(error.starts_with(expected), "{event}: {error}");
    }
}

#[test]
fn bad_plates_files_are_refused_at_the_field() {
    for (field, expected) in [
        ("keys = [\"C4\", \"H4\"]", "note names"),
        ("columns = 1", "2 to 64"),
        ("keys = [\"C4\", \"D4\", \"E4\", \"F4\", \"G4\"]\ncolumns = 64\nrows = 64", "at most 16384 masses"),
        ("rows = 65", "2 to 64"),
        ("strike = [0.5, 1.0]", "strictly between 0 and 1"),
        ("pickup = [0.0, 0.5]", "strictly between 0 and 1"),
        ("surface_density = -1.0", "a density > 0"),
        ("high_frequency = 300.0", "above every key's first mode"),
        // With 6 s at C4 as 1/f, the loss factor alone gives 6 f_C4 / 4000 Hz = 0.392 s at 4 kHz.
        ("high_decay = 0.3", "a loss factor the same at every frequency"),
        ("high_decay = 5.0", "the highest key's first decay time"),
    ] {
        let text = format!("[plates]\n{field}\n");
        let file = parse_instrument(&text, "p.toml").unwrap();
        let error = file.build(SchemeKind::SymplecticEuler, 44_100.0, 2).unwrap_err().to_string();
        assert!(error.starts_with("p.toml:2:") && error.contains(expected), "{field}: {error}");
    }
}
