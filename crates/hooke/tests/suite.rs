//! The integration tests of the library, in one binary: one link instead of one per file, which
//! matters in the release profile the tests share with the demo. `no_allocation` is
//! its own binary, as it replaces the global allocator.

mod common;
mod measure;

mod analysis;
mod analysis_bounds;
mod angular;
mod bad_input;
mod bell;
mod bending;
mod body;
mod bridge;
mod closed_forms;
mod conformance;
mod contact_and_drive;
mod coupled;
mod decimate;
mod documentation;
mod energy;
mod engine;
mod examples;
mod expression;
mod extreme_damping;
mod files;
mod fit;
mod fit_bell;
mod fit_plate;
mod folding;
mod fret_tuning;
mod generators;
mod grand_piano;
mod hostile_input;
mod implicit_dense;
mod instruments;
mod kept_paths;
mod kernel;
mod layers;
mod library_examples;
mod live_input;
mod marimba;
mod modal;
mod mode_damping;
mod model_api;
mod multistage;
mod piano;
mod plates;
mod pluck;
mod properties;
mod reductions;
mod score_errors;
mod string_partials;
mod symplectic;
mod tuning;

/// Every test file in this folder is a module of this binary (or a binary of its own named in
/// Cargo.toml), so none is silently left out.
#[test]
fn every_test_file_is_compiled() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let suite = std::fs::read_to_string(folder.join("suite.rs")).unwrap();
    let manifest = std::fs::read_to_string(folder.join("../Cargo.toml")).unwrap();
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.extension().is_some_and(|e| e == "rs") && name != "suite" {
            let listed = suite.contains(&format!("\nmod {name};"))
                || manifest.contains(&format!("path = \"tests/{name}.rs\""));
            assert!(listed, "tests/{name}.rs is in neither tests/suite.rs nor Cargo.toml");
        }
    }
}
