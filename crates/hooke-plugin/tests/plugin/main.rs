//! The plugin in a headless CLAP host (clack-host): its descriptor and ports, what it plays
//! against the library's live core, block sizes, the state, and no allocation in `process`.
//! One test binary (one link of the library).
//!
//! The host loads `$HOOKE_CLAP` (scripts/test-plugin.sh points it at the bundle) or the
//! plugin library cargo built for this run; the allocation tests always load the latter, built
//! with `--features assert_process_allocs` (a debug build: the assertion is off in release).

mod allocations;
mod clap;
mod host;
