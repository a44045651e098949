//! The library's layers flow one way: every module imports only modules of lower layers. The
//! order is the numbered list under "## Layers" in ARCHITECTURE.md; this test reads it there
//! and checks every `crate::` path in the code (comments aside) of every library source file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The layer of each top-level module, from ARCHITECTURE.md: `N. `module`: ...` lines.
fn layers() -> HashMap<String, usize> {
    let text = std::fs::read_to_string("../../ARCHITECTURE.md").unwrap();
    let section = text.split("## Layers").nth(1).expect("ARCHITECTURE.md has a \"## Layers\" section");
    let mut layers = HashMap::new();
    for line in section.lines().take_while(|l| !l.starts_with("## ")) {
        let Some((number, rest)) = line.split_once(". `") else { continue };
        let Ok(layer) = number.trim().parse::<usize>() else { continue };
        let module = rest.split('`').next().unwrap();
        layers.insert(module.to_string(), layer);
    }
    assert!(layers.len() >= 10, "ARCHITECTURE.md lists {} layers", layers.len());
    layers
}

fn sources(folder: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a source names with `crate::` (comments left out).
fn imports(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::b, c};`: every name up to the closing brace.
                let group = group.split('}').next().unwrap();
                for item in group.split(',') {
                    let name: String =
                        item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() {
                        found.push((number + 1, name));
                    }
                }
            } else {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                found.push((number + 1, name));
            }
        }
    }
    found
}

#[test]
fn every_module_imports_only_lower_layers() {
    let layers = layers();
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let relative = file.strip_prefix("src").unwrap();
        let first = relative.components().next().unwrap().as_os_str().to_string_lossy().to_string();
        let module = first.trim_end_matches(".rs");
        if module == "lib" || module == "prelude" {
            continue;
        }
        let own = *layers
            .get(module)
            .unwrap_or_else(|| panic!("module {module} is not in ARCHITECTURE.md's layers"));
        for (line, imported) in imports(&std::fs::read_to_string(file).unwrap()) {
            if imported == module {
                continue;
            }
            match layers.get(&imported) {
                Some(&layer) if layer < own => {}
                Some(&layer) => violations.push(format!(
                    "{}:{line}: {module} (layer {own}) imports {imported} (layer {layer})",
                    file.display()
                )),
                None => {
                    violations.push(format!("{}:{line}: unknown module crate::{imported}", file.display()))
                }
            }
        }
    }
    assert!(violations.is_empty(), "imports that run up the layers:\n{}", violations.join("\n"));
}

#[test]
fn the_check_finds_an_import_up_the_layers() {
    let found =
        imports("use crate::engine::Engine; // crate::io in a comment\nuse crate::{model::Model, system};\n");
    let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["engine", "model", "system"]);
}
