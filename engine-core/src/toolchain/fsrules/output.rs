//! Which files HitBench may write, and how: the one rule every output follows (a render's
//! WAV, a decoded file, a disassembly, a capture, JUnit XML, a capture's text, a saved
//! lot or table, an exported trace, the workbench's settings).
//!
//! - The target, if something is there, must be a regular file (a link to one is
//!   followed: the file it names is replaced and the link stays). A device, a named pipe,
//!   a socket, a folder or a link to nothing is refused before anything is written, and
//!   the target is never opened: a named pipe without a reader cannot block the writer.
//! - An output that is the same file as one of the command's inputs (the same device and
//!   inode, whatever the path says) is refused.
//! - The bytes go to a new temporary file beside the target (created with `create_new`,
//!   so nothing planted under its name is opened), are flushed to the disk, and only then
//!   renamed over the target. A failed write removes the temporary file and leaves the
//!   old file as it was, never a partial one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Names tried for the temporary file beside the target before giving up (each is
/// created new, so a name someone else holds is skipped, never opened).
pub const TEMP_NAME_ATTEMPTS: u32 = 16;

/// Why an output was not written. Each names the path.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Something that is not a regular file is there.
    #[error("{} is {kind}, not a regular file: HitBench writes only regular files", path.display())]
    NotRegular {
        /// The output as given.
        path: PathBuf,
        /// What is there ("a device", "a named pipe (FIFO)", …).
        kind: &'static str,
    },
    /// The output is one of the command's inputs.
    #[error("{} is the same file as the input {}: choose another output", path.display(), input.display())]
    IsInput {
        /// The output as given.
        path: PathBuf,
        /// The input it is.
        input: PathBuf,
    },
    /// The path names no file (`..`, `/`).
    #[error("{} does not name a file", path.display())]
    NoFileName {
        /// The output as given.
        path: PathBuf,
    },
    /// Writing failed; the old file, if any, is as it was.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The output as given.
        path: PathBuf,
        /// What the file system said.
        source: io::Error,
    },
}

impl OutputError {
    /// True for a refusal of the path itself (not a failed write): on the command line,
    /// an error of the command line.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, OutputError::Io { .. })
    }

    /// As an `io::Error` (a refusal is `InvalidInput`), with this message.
    pub fn into_io(self) -> io::Error {
        match self {
            OutputError::Io { source, .. } => source,
            refusal => io::Error::new(io::ErrorKind::InvalidInput, refusal),
        }
    }
}

/// Checks that `target` may be written by a command reading `inputs` (see the module);
/// returns the file to write: `target`, or the regular file a link there names.
pub fn check_output(target: &Path, inputs: &[&Path]) -> Result<PathBuf, OutputError> {
    let io = |source| OutputError::Io {
        path: target.to_path_buf(),
        source,
    };
    let resolved = match fs::symlink_metadata(target) {
        Ok(_) => {
            let meta = fs::metadata(target).map_err(|_| OutputError::NotRegular {
                path: target.to_path_buf(),
                kind: "a link to nothing",
            })?;
            if !meta.is_file() {
                return Err(OutputError::NotRegular {
                    path: target.to_path_buf(),
                    kind: super::kind_of(&meta),
                });
            }
            if let Some(input) = inputs.iter().find(|input| same_file(&meta, input)) {
                return Err(OutputError::IsInput {
                    path: target.to_path_buf(),
                    input: input.to_path_buf(),
                });
            }
            fs::canonicalize(target).map_err(io)?
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if target.file_name().is_none() {
                return Err(OutputError::NoFileName {
                    path: target.to_path_buf(),
                });
            }
            target.to_path_buf()
        }
        Err(e) => return Err(io(e)),
    };
    Ok(resolved)
}

/// True if `input` is the file `meta` describes.
fn same_file(meta: &fs::Metadata, input: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(input).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// An output being written: a temporary file beside its target until
/// [`commit`](Self::commit) renames it over the target. Dropped without a commit, the
/// temporary file is removed and the target stays as it was.
#[derive(Debug)]
pub struct Output {
    file: Option<File>,
    temp: PathBuf,
    /// The file replaced at the commit (links resolved).
    resolved: PathBuf,
    /// The output as given, for messages.
    shown: PathBuf,
}

impl Output {
    /// Starts writing `target` for a command reading `inputs`, after [`check_output`].
    pub fn create(target: &Path, inputs: &[&Path]) -> Result<Self, OutputError> {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let resolved = check_output(target, inputs)?;
        let io = |source| OutputError::Io {
            path: target.to_path_buf(),
            source,
        };
        let name = resolved
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        let mut attempt = 0;
        let (temp, file) = loop {
            let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
            let temp =
                resolved.with_file_name(format!(".{name}.{}.{serial}.tmp", std::process::id()));
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => break (temp, file),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    attempt += 1;
                    if attempt >= TEMP_NAME_ATTEMPTS {
                        return Err(io(e));
                    }
                }
                Err(e) => return Err(io(e)),
            }
        };
        Ok(Self {
            file: Some(file),
            temp,
            resolved,
            shown: target.to_path_buf(),
        })
    }

    /// The output as given.
    pub fn path(&self) -> &Path {
        &self.shown
    }

    fn io(&self, source: io::Error) -> OutputError {
        OutputError::Io {
            path: self.shown.clone(),
            source,
        }
    }

    /// Flushes everything to the disk, gives the file the old one's permissions and
    /// renames it over the target (checked again: a pipe or device put there meanwhile
    /// is refused, not replaced).
    pub fn commit(mut self) -> Result<(), OutputError> {
        let Some(mut file) = self.file.take() else {
            return Ok(());
        };
        let result = (|| {
            file.flush().map_err(|e| self.io(e))?;
            file.sync_all().map_err(|e| self.io(e))?;
            drop(file);
            check_output(&self.resolved, &[]).map_err(|e| match e {
                OutputError::NotRegular { kind, .. } => OutputError::NotRegular {
                    path: self.shown.clone(),
                    kind,
                },
                other => other,
            })?;
            if let Ok(old) = fs::metadata(&self.resolved) {
                fs::set_permissions(&self.temp, old.permissions()).map_err(|e| self.io(e))?;
            }
            fs::rename(&self.temp, &self.resolved).map_err(|e| self.io(e))
        })();
        if result.is_err() {
            let _ = fs::remove_file(&self.temp);
        }
        result
    }

    fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the output was already committed"))
    }
}

impl Write for Output {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file()?.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file()?.flush()
    }
}

impl Seek for Output {
    fn seek(&mut self, position: SeekFrom) -> io::Result<u64> {
        self.file()?.seek(position)
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Writes `target` (for a command reading `inputs`) with what `write` puts into it,
/// buffered; the target is replaced only if `write` succeeded and everything reached the
/// disk. An error of `write` is returned as it is, the target untouched.
pub fn write_output_with<T>(
    target: &Path,
    inputs: &[&Path],
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> Result<T, OutputError> {
    let output = Output::create(target, inputs)?;
    let mut buffered = io::BufWriter::new(output);
    let io = |source| OutputError::Io {
        path: target.to_path_buf(),
        source,
    };
    let value = write(&mut buffered).map_err(io)?;
    let output = buffered.into_inner().map_err(|e| io(e.into_error()))?;
    output.commit()?;
    Ok(value)
}

/// Writes `bytes` to `target` (for a command reading `inputs`); see
/// [`write_output_with`].
pub fn write_output(target: &Path, inputs: &[&Path], bytes: &[u8]) -> Result<(), OutputError> {
    write_output_with(target, inputs, |out| out.write_all(bytes))
}
