//! Output files checked before any work: each named file must be creatable where asked (its
//! folder exists and is writable, and it is not a directory), so a long run never ends in an
//! error about where to put its result.

use miette::miette;
use std::path::Path;

/// Checks every `(flag, path)` given; the error names the flag, the path and the reason.
pub fn check_outputs<'a>(
    outputs: impl IntoIterator<Item = (&'a str, Option<&'a Path>)>,
) -> miette::Result<()> {
    for (flag, path) in outputs {
        if let Some(path) = path {
            hooke::io::check_writable(path)
                .map_err(|e| miette!("{flag} {}: cannot write the file there: {e}", path.display()))?;
        }
    }
    Ok(())
}
