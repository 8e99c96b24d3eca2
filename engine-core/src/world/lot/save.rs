//! Where `savelot` may write, and how: the [`SaveLotPolicy`] a session was started with,
//! [`resolve_target`] (the one place that decides whether a path may be written), and
//! [`write_atomically`].
//!
//! Scripts are shared between testers and projects come from download folders, so a
//! `savelot` line or a project's `world.ini` must not be able to replace an arbitrary file.
//! The rules: a session that was not asked to save refuses; inside-the-project sessions
//! write only under one of the project's data folders *after* resolving `..` and symbolic
//! links (of the file and of its parents); and nothing that exists and is not a regular
//! file (a folder, a named pipe, a device, a link to one, a link to nothing) is ever
//! written over. A link to a regular file is followed: the file it names is replaced and
//! the link stays.

use std::path::{Path, PathBuf};

/// Whether, and where, `savelot` may write a lot file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SaveLotPolicy {
    /// Never: scripts that were not asked to save (`hitbench render` and `play` without
    /// `--allow-savelot`, the workbench's renders, sessions by default).
    #[default]
    Denied,
    /// Only inside the project's data folders (the workbench's console; `render` and
    /// `play` with `--allow-savelot`).
    InsideProject,
    /// Any regular file (a path the user chose in a dialog).
    Anywhere,
}

/// Why `savelot` did not write. Each names the path.
#[derive(Debug, thiserror::Error)]
pub enum SaveLotError {
    /// The session may not save.
    #[error(
        "savelot is not allowed here: a script saves the lot only when asked to \
         (`hitbench render|play --allow-savelot`); the workbench's console may save"
    )]
    Denied,
    /// The path leaves the project's data folders.
    #[error(
        "`{}` is outside the project's data folders ({folders}); savelot writes only inside the project",
        path.display()
    )]
    Outside {
        /// The path, links and `..` resolved.
        path: PathBuf,
        /// The data folders.
        folders: String,
    },
    /// Something that is not a regular file is there.
    #[error("`{}` is not a regular file ({what}); savelot never writes over it", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// The path names a folder, not a file (`..`, `/`).
    #[error("`{}` does not name a file", path.display())]
    NoFileName {
        /// The path.
        path: PathBuf,
    },
    /// The lot file was read with bytes that are not UTF-8.
    #[error(
        "{} is not valid UTF-8: saving over it would change the bytes that could not be read \
         (save to another file, or fix its encoding)",
        path.display()
    )]
    NotUtf8 {
        /// The lot file.
        path: PathBuf,
    },
    /// Reading the folder or writing failed.
    #[error("cannot save the lot to {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The file `savelot` may write for `path` under `policy` (a relative path is taken from
/// where HitBench runs, as the project's folders are); links are followed to a regular
/// file; the result is absolute, without links or `..`. `folders` are the project's
/// data folders.
pub fn resolve_target(
    policy: SaveLotPolicy,
    path: &Path,
    folders: &[PathBuf],
) -> Result<PathBuf, SaveLotError> {
    if policy == SaveLotPolicy::Denied {
        return Err(SaveLotError::Denied);
    }
    let path = path.to_path_buf();
    let io = |source| SaveLotError::Io {
        path: path.clone(),
        source,
    };
    let target = match std::fs::symlink_metadata(&path) {
        Ok(_) => {
            // It exists: what it finally names must be a regular file.
            let resolved = path.canonicalize().map_err(|_| SaveLotError::NotRegular {
                path: path.clone(),
                what: "a link to nothing",
            })?;
            let meta = std::fs::metadata(&resolved).map_err(io)?;
            if !meta.is_file() {
                return Err(SaveLotError::NotRegular {
                    path: path.clone(),
                    what: describe(&meta.file_type()),
                });
            }
            resolved
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let (Some(name), Some(parent)) = (path.file_name(), path.parent()) else {
                return Err(SaveLotError::NoFileName { path: path.clone() });
            };
            parent.canonicalize().map_err(io)?.join(name)
        }
        Err(e) => return Err(io(e)),
    };
    if policy == SaveLotPolicy::InsideProject {
        let roots: Vec<PathBuf> = folders
            .iter()
            .filter_map(|f| f.canonicalize().ok())
            .collect();
        if !roots.iter().any(|root| target.starts_with(root)) {
            let folders: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
            return Err(SaveLotError::Outside {
                path: target,
                folders: folders.join(", "),
            });
        }
    }
    Ok(target)
}

/// A few words for what a file type is.
fn describe(kind: &std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// Writes `bytes` to `target` under the output rule (`fsrules::output`): first to a new
/// temporary file beside it, then renamed over it, so the old file stays whole if
/// anything fails, and nothing that is not a regular file is ever replaced.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::toolchain::fsrules::write_output(target, &[], bytes).map_err(|e| e.into_io())
}
