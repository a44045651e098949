//! Empty: Cargo resolves a package's `[build-dependencies]` (here, the features that the
//! procedural macros' `syn` needs in every build) only when the package has a build script.
fn main() {}
