//! No code: this crate only asks for the same features of shared dependencies in every build of
//! the workspace (its Cargo.toml says why).
