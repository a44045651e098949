//! What the command-line tests share: running the `hooke` binary and reading its output.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `hooke ARGS` in `dir` and waits for it.
pub fn hooke(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hooke")).args(args).current_dir(dir).output().expect("hooke runs")
}

/// What it wrote to standard output.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What it wrote to standard error.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
