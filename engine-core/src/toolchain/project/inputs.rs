//! What each file of a project was read as, before names are resolved: one [`Piece`] per
//! source (with its includes), built set, `.hot` or `.evt`. A project keeps its pieces so
//! a reload can fall back, file by file, to the last version that parsed
//! ([`super::Project::reload`]).
//!
//! A new kind of input (world settings, lot files, scores…) becomes a new [`PieceKind`]
//! and, if it needs one, a new optional payload field on [`Piece`]; the loader adds it in
//! `resolve::Loader::add_piece` and the reload fallback works for it unchanged.

use super::tables::{RawEvents, RawTables};
use super::unit::CodeUnit;
use crate::toolchain::diag::{self, Diagnostic};
use crate::toolchain::fsrules::Seen;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// What kind of file a piece was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PieceKind {
    /// A MakeTrax source, assembled (its includes are part of it).
    Source,
    /// A built set: a `.hit` with its side files.
    Built,
    /// A stand-alone `.hot` table file.
    Tables,
    /// A `.evt` event list.
    Events,
}

impl PieceKind {
    /// True for kinds that hold code (a reload reports them as sources).
    pub fn is_code(self) -> bool {
        matches!(self, PieceKind::Source | PieceKind::Built)
    }

    /// Lower-case name for messages.
    pub fn name(self) -> &'static str {
        match self {
            PieceKind::Source => "source",
            PieceKind::Built => "built set",
            PieceKind::Tables => "tables",
            PieceKind::Events => "event list",
        }
    }
}

/// A file's size and modification time when it was read: what a reload compares to
/// say what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    /// The file (shared with the load's list of samples, for a sample).
    pub path: Arc<Path>,
    /// Its length in bytes (0 if it could not be read).
    pub len: u64,
    /// Its modification time, where the file system has one.
    pub modified: Option<SystemTime>,
}

impl FileStamp {
    /// The stamp of `path` now (a missing file has length 0 and no time).
    pub fn of(path: &Path) -> Self {
        Self::from_meta(Arc::from(path), std::fs::metadata(path).ok().as_ref())
    }

    /// The stamp of `path` now and, when it is not a link, what the rules would find
    /// there ([`Seen`]) — one `lstat` for both. The stamp shares `path`.
    pub fn looked_at(path: &Arc<Path>) -> (Self, Option<Seen>) {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.file_type().is_symlink() => (
                Self::from_meta(Arc::clone(path), Some(&meta)),
                Some(Seen::of(&meta)),
            ),
            _ => {
                let meta = std::fs::metadata(path).ok();
                (Self::from_meta(Arc::clone(path), meta.as_ref()), None)
            }
        }
    }

    fn from_meta(path: Arc<Path>, meta: Option<&std::fs::Metadata>) -> Self {
        Self {
            path,
            len: meta.map_or(0, std::fs::Metadata::len),
            modified: meta.and_then(|m| m.modified().ok()),
        }
    }
}

/// One file (or one source with its includes, or one built set) as read, before names
/// are resolved.
#[derive(Debug, Clone)]
pub struct Piece {
    /// What it was read from.
    pub kind: PieceKind,
    /// The file people know it by: the source, the `.hit`, the `.hot`, the `.evt`.
    pub path: PathBuf,
    /// Index of its data directory.
    pub dir: usize,
    /// Its code (sources and built sets), with late-bound values not yet filled in.
    pub unit: Option<CodeUnit>,
    /// Its tables: a source's `LIST` lines, a built set's `.hot`, a `.hot` file. When
    /// the piece has a unit, `tables.unit` is `Some(_)` and stands for that unit (the
    /// loader gives it its index in the project).
    pub tables: Option<RawTables>,
    /// Its events (`.evt`).
    pub events: Option<RawEvents>,
    /// Problems found reading this version.
    pub diagnostics: Vec<Diagnostic>,
    /// Every file it was made from, as they were when read.
    pub stamps: Vec<FileStamp>,
    /// Empty, unless this is an earlier version kept because the file on disk no longer
    /// parses: then the errors of the version on disk.
    pub kept_because: Vec<Diagnostic>,
}

impl Piece {
    /// A piece with nothing read yet.
    pub fn new(kind: PieceKind, path: &Path, dir: usize) -> Self {
        Self {
            kind,
            path: path.to_path_buf(),
            dir,
            unit: None,
            tables: None,
            events: None,
            diagnostics: Vec::new(),
            stamps: Vec::new(),
            kept_because: Vec::new(),
        }
    }

    /// True if reading this version found errors (it did not parse or assemble).
    pub fn has_errors(&self) -> bool {
        diag::has_errors(&self.diagnostics)
    }

    /// True if this is a kept earlier version (the file on disk has errors).
    pub fn is_kept(&self) -> bool {
        !self.kept_because.is_empty()
    }

    /// Stamps every file in `files` now.
    pub fn stamp(&mut self, files: &[PathBuf]) {
        self.stamps = files.iter().map(|f| FileStamp::of(f)).collect();
    }

    /// Moves the piece to data directory `dir` (a reload where directories moved).
    pub(super) fn move_to_dir(&mut self, dir: usize) {
        self.dir = dir;
        if let Some(unit) = &mut self.unit {
            unit.dir = dir;
        }
        if let Some(tables) = &mut self.tables {
            tables.dir = dir;
        }
        if let Some(events) = &mut self.events {
            events.dir = dir;
        }
    }
}

/// Everything a project was made from, kept for reloads.
#[derive(Debug, Clone, Default)]
pub struct LoadInputs {
    /// The pieces, in load order.
    pub pieces: Vec<Piece>,
    /// The sample files, as they were when the project loaded.
    pub samples: Vec<FileStamp>,
}

impl LoadInputs {
    /// The piece read from `path` as `kind`, if any.
    pub fn piece(&self, kind: PieceKind, path: &Path) -> Option<&Piece> {
        self.pieces
            .iter()
            .find(|p| p.kind == kind && p.path == path)
    }

    /// The pieces whose file on disk has errors, so an earlier version is in use.
    pub fn kept(&self) -> impl Iterator<Item = &Piece> {
        self.pieces.iter().filter(|p| p.is_kept())
    }
}
