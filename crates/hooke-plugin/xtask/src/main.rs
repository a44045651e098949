//! `cargo xtask bundle hooke-plugin [--release]`, run in crates/hooke-plugin: builds the
//! plugin and bundles it as `hooke.clap` and `hooke.vst3` in `$CARGO_TARGET_DIR/bundled/`
//! (`crates/hooke-plugin/target/bundled/` without one), with nice-plug's bundler.
//!
//! nice-plug-xtask's own entry point takes the outermost directory holding a `Cargo.toml` for
//! the workspace root: the repository's, which excludes the plugin. This one runs the same
//! build and bundling steps from the plugin's own workspace.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The usage line.
const USAGE: &str = "usage: cargo xtask bundle <package> [cargo build options, e.g. --release]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `bundle <package> [options]`.
fn run(args: Vec<String>) -> Result<(), String> {
    let [command, package, options @ ..] = args.as_slice() else {
        return Err(format!("expected a command and a package\n{USAGE}"));
    };
    if command != "bundle" {
        return Err(format!("unknown command \"{command}\"\n{USAGE}"));
    }
    // This crate lies in the plugin's workspace root.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().ok_or("xtask has no parent directory")?;
    std::env::set_current_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let packages = [package.clone()];
    nice_plug_xtask::build(&packages, options).map_err(|e| format!("{e:#}"))?;
    nice_plug_xtask::bundle(&target, package, options, false).map_err(|e| format!("{e:#}"))
}
