//! A file written under a temporary name and renamed into place when complete.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written next to its target as `.NAME.PID.tmp`. [`AtomicFile::commit`] renames it
/// to the target; dropping it uncommitted removes it, so the target name never holds a partial
/// file.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temporary: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file for `target`.
    pub fn create(target: &Path) -> io::Result<Self> {
        let name = target.file_name().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a file name", target.display()))
        })?;
        let temporary =
            target.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
        let file = File::create(&temporary)?;
        Ok(Self { target: target.to_path_buf(), temporary, writer: Some(BufWriter::new(file)) })
    }

    /// The buffered writer of the temporary file.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("writer present until commit")
    }

    /// Flushes, syncs and renames the file to its target name.
    pub fn commit(mut self) -> io::Result<()> {
        let writer = self.writer.take().expect("writer present until commit");
        let file = writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.temporary, &self.target)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}
