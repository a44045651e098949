//! The analysis on what the model format accepts: each small model is analysed with its file's
//! scheme and step (the check before every `hooke run`), and the analysis answers or refuses
//! with a named error in bounded time, never a panic or a hang (libFuzzer's timeout catches a
//! hang; a degenerate plate once looped in the eigensolver). Plates, bars and stiff strings
//! come from the seeds in fuzz/seeds/model.
#![no_main]

use hooke::analysis::report::{analyse, AnalysisOptions};
use hooke::system::System;
use hooke_fuzz::{worth_reading, ANALYSE_NODES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = worth_reading(data, ANALYSE_NODES) else { return };
    // The model target checks the errors.
    let Ok(file) = hooke::format::model::parse(text, "fuzz.toml") else { return };
    let model = &file.model;
    if (model.masses().len() + model.anchors().len()) as u64 > ANALYSE_NODES {
        return;
    }
    let settings = file.run.or_defaults();
    let system = System::new(model);
    // An answer or a named refusal (AnalysisError): both fine; a panic or a hang is the bug.
    let _ = analyse(&system, settings.scheme, settings.step.seconds(), &AnalysisOptions::default());
});
