//! A file written under a temporary name and renamed into place when complete.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// A file being written next to its target under an unpredictable name (`.NAME.XXXXXX.tmp`,
/// created exclusively, so it never follows a link someone planted there). [`AtomicFile::commit`]
/// renames it to the target in one step, so a reader sees either the old file or the whole new
/// one; dropping it uncommitted (an error, a panic, an interrupted run) removes it. Two writers
/// to the same target each write their own temporary file, and the target ends as one of them
/// whole, never a mix. Only a kill that no program can catch (SIGKILL, power loss) leaves the
/// temporary file behind.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    writer: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Creates the temporary file for `target`. Fails when `target` is a directory, has no file
    /// name, or its folder is missing or not writable: callers create their outputs before any
    /// long work, so these are found at once.
    pub fn create(target: &Path) -> io::Result<Self> {
        let name = target.file_name().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a file name", target.display()))
        })?;
        if target.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is a directory, not a file", target.display()),
            ));
        }
        let folder = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("the folder {} does not exist", folder.display()),
            ));
        }
        let file = tempfile::Builder::new()
            .prefix(&format!(".{}.", name.to_string_lossy()))
            .suffix(".tmp")
            .tempfile_in(folder)
            .map_err(|e| {
                // The operating system's reason, without the temporary file's name.
                let reason = e.raw_os_error().map_or_else(
                    || e.kind().to_string(),
                    |code| io::Error::from_raw_os_error(code).to_string(),
                );
                io::Error::new(e.kind(), format!("cannot create a file in {}: {reason}", folder.display()))
            })?;
        Ok(Self { target: target.to_path_buf(), writer: BufWriter::new(file) })
    }

    /// The buffered writer of the temporary file.
    pub fn writer(&mut self) -> &mut BufWriter<NamedTempFile> {
        &mut self.writer
    }

    /// Flushes, syncs and renames the file to its target name.
    pub fn commit(self) -> io::Result<()> {
        let file = self.writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.as_file().sync_all()?;
        file.persist(&self.target).map(|_: File| ()).map_err(|e| e.error)
    }
}

/// Checks that `target` can be written (its folder exists and is writable, and it is not a
/// directory) by creating and removing a temporary file beside it. Commands call it for every
/// output before simulating.
pub fn check_writable(target: &Path) -> io::Result<()> {
    AtomicFile::create(target).map(drop)
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}
