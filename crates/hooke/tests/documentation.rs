//! Every TOML model shown in README.md and docs/model-format.md parses and runs a few steps.

use hooke::engine::{Engine, EngineConfig, Pickups};
use hooke::format::model::parse;
use hooke::system::System;
use std::path::Path;

/// The fenced ```toml blocks of a Markdown file, with the line each starts on.
fn toml_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (number, line) in markdown.lines().enumerate() {
        match (&mut current, line.trim_start()) {
            (None, fence) if fence.starts_with("```toml") => current = Some((number + 1, String::new())),
            (Some(_), fence) if fence.starts_with("```") => blocks.extend(current.take()),
            (Some((_, text)), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn every_model_in_the_documentation_parses_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut count = 0;
    for document in ["README.md", "docs/model-format.md"] {
        let markdown = std::fs::read_to_string(root.join(document)).unwrap();
        for (line, source) in toml_blocks(&markdown) {
            let label = format!("{document}:{line}");
            let file = parse(&source, &label).unwrap_or_else(|e| panic!("{e}"));
            let run = file.run.or_defaults();
            let mut simulation = Engine::from_system(
                System::new(&file.model),
                Pickups::default(),
                EngineConfig::default().scheme(run.scheme).dt(run.step.seconds()),
            )
            .unwrap();
            simulation.run(10, &mut [], &mut []).unwrap_or_else(|e| panic!("{label}: {e}"));
            count += 1;
        }
    }
    assert!(count >= 8, "found only {count} TOML blocks");
}
