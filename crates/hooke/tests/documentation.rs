//! Every TOML model shown in README.md and docs/model-format.md parses and runs a few steps;
//! every speed figure in README.md and BENCHMARKS.md names the command that measured it.

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

/// Whether `line` states a speed: a real-time factor or a rate in mass-steps per second.
fn states_a_speed(line: &str) -> bool {
    let lower = line.to_lowercase();
    (lower.contains("x real time")
        || lower.contains("mass-steps/s")
        || lower.contains("mass-steps per second"))
        && line.chars().any(|c| c.is_ascii_digit())
}

/// Whether `text` names a command to run: in backticks or a ```sh block.
fn names_a_command(text: &str) -> bool {
    ["`hooke ", "`bash scripts/", "`cargo ", "`python", "`node ", "```sh", "`valgrind "]
        .iter()
        .any(|command| text.contains(command))
}

#[test]
fn every_speed_figure_names_the_command_that_measured_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut unnamed = Vec::new();
    for document in ["README.md", "BENCHMARKS.md"] {
        let text = std::fs::read_to_string(root.join(document)).unwrap();
        // Sections: from one heading to the next; a figure inside a ```text block is a command's
        // printed output, shown under the command itself.
        let mut section_start = 1;
        let mut section = String::new();
        let mut figures = Vec::new();
        let mut in_output = false;
        let lines: Vec<&str> = text.lines().chain(std::iter::once("# end")).collect();
        for (index, line) in lines.iter().enumerate() {
            if line.starts_with('#') && !in_output {
                if !figures.is_empty() && !names_a_command(&section) {
                    unnamed.push(format!("{document}:{section_start}: {}", figures.join(" | ")));
                }
                (section_start, section, figures) = (index + 1, String::new(), Vec::new());
            }
            if line.trim_start().starts_with("```") {
                in_output = !in_output && line.trim_start().starts_with("```text");
            } else if !in_output && states_a_speed(line) {
                figures.push(format!("line {}", index + 1));
            }
            section.push_str(line);
            section.push('\n');
        }
    }
    assert!(
        unnamed.is_empty(),
        "speed figures without the command that measured them:\n{}",
        unnamed.join("\n")
    );
}
