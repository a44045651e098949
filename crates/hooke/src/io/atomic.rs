//! A file written under a temporary name and renamed into place when complete.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tempfile::NamedTempFile;

/// A file being written next to its target under an unpredictable name (`.NAME.XXXXXX.tmp`,
/// created exclusively, so it never follows a link someone planted there). [`AtomicFile::commit`]
/// renames it to the target in one step, so a reader sees either the old file or the whole new
/// one; dropping it uncommitted (an error, a panic, an interrupted run) removes it. Two writers
/// to the same target each write their own temporary file, and the target ends as one of them
/// whole, never a mix. A kill that no program can catch (SIGKILL, power loss) leaves the
/// temporary file behind: the writer holds an exclusive advisory lock on its file, which dies
/// with its process, so the next [`AtomicFile::create`] for the same target removes every
/// `.NAME.XXXXXX.tmp` beside it that is unlocked and older than [`STALE_AGE`].
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
        let prefix = format!(".{}.", name.to_string_lossy());
        let file = tempfile::Builder::new()
            .prefix(&prefix)
            .rand_bytes(RANDOM_CHARACTERS)
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
        // A file system without locks (some network ones) only keeps stale files from being found.
        if file.as_file().try_lock().is_ok() {
            remove_stale(folder, &prefix, file.path());
        }
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

/// The random characters of a temporary file's name (`.NAME.XXXXXX.tmp`).
const RANDOM_CHARACTERS: usize = 6;

/// A temporary file unlocked and untouched for this long is a killed writer's: a live writer
/// locks its file at once after creating it.
pub const STALE_AGE: Duration = Duration::from_secs(5);

/// Removes the temporary files of killed writers in `folder`: those named `PREFIX` + 6
/// alphanumeric characters + `.tmp` (the temporary files of one target), other than `own`,
/// plain files (never a link), last modified [`STALE_AGE`] ago or more, and not locked by a
/// live writer. What cannot be read or removed is left as it is.
fn remove_stale(folder: &Path, prefix: &str, own: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(random) =
            name.to_str().and_then(|n| n.strip_prefix(prefix)).and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let path = entry.path();
        let ours = random.len() == RANDOM_CHARACTERS && random.chars().all(|c| c.is_ascii_alphanumeric());
        let old = entry.metadata().ok().filter(|m| m.file_type().is_file()).and_then(|m| m.modified().ok());
        let stale = old.is_some_and(|t| t.elapsed().is_ok_and(|age| age >= STALE_AGE));
        if !ours || !stale || path.file_name() == own.file_name() {
            continue;
        }
        // Read only, to try its lock: a live writer holds it. (Were the file swapped for a link
        // meanwhile, the link is what is removed.)
        let unlocked = File::open(&path).is_ok_and(|file| file.try_lock().is_ok());
        if unlocked {
            let _ = std::fs::remove_file(&path);
        }
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
