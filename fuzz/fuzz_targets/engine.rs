//! The engine on what the model format accepts: each model is compiled, its CSV header written
//! (one column per coordinate, RFC 4180), and stepped with the file's scheme and step, first on
//! the path the engine chooses, then on the general path with an observer. A run ends or stops
//! with a named error (an instability, a failed step, an energy past double precision), never a
//! panic or a hang.
#![no_main]

use hooke::engine::{EnergyMonitor, Engine, EngineConfig, RunError};
use hooke::io::CsvWriter;
use hooke::model::Model;
use hooke::scheme::SchemeKind;
use hooke::system::System;
use hooke_fuzz::{worth_reading, STEP_NODES};
use libfuzzer_sys::fuzz_target;

/// The most steps of each of the two runs.
const STEPS: u64 = 200;

fuzz_target!(|data: &[u8]| {
    let Some(text) = worth_reading(data, STEP_NODES) else { return };
    // The model target checks the errors.
    let Ok(file) = hooke::format::model::parse(text, "fuzz.toml") else { return };
    let model = &file.model;
    if (model.masses().len() + model.anchors().len()) as u64 > STEP_NODES {
        return;
    }
    let settings = file.run.or_defaults();
    let dt = settings.step.seconds();
    if damping_flow_is_slow(model, settings.scheme, dt) {
        return;
    }
    let system = System::new(model);
    check_csv_header(&system);
    let config = EngineConfig::default().scheme(settings.scheme).dt(dt);
    let Ok(mut engine) = Engine::from_system(system, file.pickups.clone(), config) else { return };
    let steps = settings.step_count().map_or(STEPS, |n| n.min(STEPS));
    let mut output = vec![Vec::new(); engine.channels()];
    let mut monitor = EnergyMonitor::new();
    let outcome = engine
        .run(steps / 2, &mut output, &mut [])
        .and_then(|_| engine.run(steps - steps / 2, &mut output, &mut [&mut monitor]));
    match outcome {
        // An instability, a failed step, or an energy that overflows while the state does not
        // (the monitor refuses to report it): named errors.
        Ok(_) | Err(RunError::NonFinite { .. } | RunError::Scheme { .. } | RunError::Output { .. }) => {}
        Err(other) => panic!("a run of a valid model failed: {other}"),
    }
});

/// Whether the exact damping flow of the splitting schemes would take more than 10^4
/// sub-steps a step (`dt ||M^-1 D|| / 0.5`, Gershgorin's bound as `scheme::damping_flow`
/// computes it): such an input is slow, not hung (the flow is sub-stepped up to 2^20 times,
/// then the scheme refuses the model), so it is left out to keep the fuzzer fast;
/// crates/hooke/tests/extreme_damping.rs covers those rates with deadlines.
fn damping_flow_is_slow(model: &Model, scheme: SchemeKind, dt: f64) -> bool {
    let splitting = matches!(
        scheme,
        SchemeKind::CaldirolaKanai | SchemeKind::EnergyConservingCs | SchemeKind::VelocityVerletCs
    );
    if !splitting {
        return false;
    }
    let masses = model.masses();
    let mut rows: Vec<f64> = masses.iter().map(|m| m.drag).collect();
    for link in model.links() {
        for node in [link.a, link.b] {
            if let Some(row) = rows.get_mut(model.node_index(node)) {
                *row += 2.0 * link.damping / masses[model.node_index(node)].mass;
            }
        }
    }
    let substeps = dt * rows.iter().fold(0.0f64, |a, &b| a.max(b)) / 0.5;
    substeps.is_nan() || substeps > 1e4
}

/// Writes the CSV header of `system` and checks that an RFC 4180 reader finds one column per
/// coordinate and velocity of every mass, after `step` and `t`.
fn check_csv_header(system: &System) {
    let mut out = Vec::new();
    CsvWriter::new(&mut out, system, 1, 1, false)
        .expect("writing to memory")
        .finish(system)
        .expect("flushing");
    let text = String::from_utf8(out).expect("UTF-8 ids give a UTF-8 header");
    let (mut fields, mut quoted, mut chars) = (1, false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields += 1,
            '\n' if !quoted => break,
            _ => {}
        }
    }
    assert_eq!(fields, 2 + 2 * system.dimension() * system.mass_count(), "header: {text}");
}
