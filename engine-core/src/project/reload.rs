//! Loading a project's directories again ([`super::Project::reload`]): every file is
//! read anew, but a file whose new version has errors keeps the piece of its last good
//! version, and the report says so with the new errors (`file:line`). The report also
//! lists what changed since the previous load — sources, tables and samples added,
//! changed (size or modification time) or removed. Deleted files are simply gone: that
//! is a change, not an error.

use super::inputs::{FileStamp, LoadInputs, Piece, PieceKind};
use super::resolve::Loader;
use super::{Project, link, scan};
use crate::diag::Diagnostic;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file whose version on disk has errors: its last good version is still in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptFile {
    /// The file (a source, a `.hit`, a `.hot`, a `.evt`).
    pub path: PathBuf,
    /// What it is.
    pub kind: PieceKind,
    /// The problems of the version on disk, each with its file and line.
    pub diagnostics: Vec<Diagnostic>,
}

/// Files added, changed and removed since the previous load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// New files.
    pub added: Vec<PathBuf>,
    /// Files whose size or modification time changed.
    pub changed: Vec<PathBuf>,
    /// Files that are gone.
    pub removed: Vec<PathBuf>,
}

impl Changes {
    /// True if nothing was added, changed or removed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }

    /// Every file named, added then changed then removed.
    pub fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.added
            .iter()
            .chain(self.changed.iter())
            .chain(self.removed.iter())
    }

    fn lines(&self, what: &str, out: &mut Vec<String>) {
        for (list, verb) in [
            (&self.added, "added"),
            (&self.changed, "changed"),
            (&self.removed, "removed"),
        ] {
            for path in list {
                out.push(format!("{what} {} {verb}", path.display()));
            }
        }
    }
}

/// What a reload found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReloadReport {
    /// Files whose new version has errors; their last good version is in use.
    pub kept: Vec<KeptFile>,
    /// Sources and built sets added, changed or removed.
    pub sources: Changes,
    /// `.hot` and `.evt` files added, changed or removed.
    pub tables: Changes,
    /// Sample files added, changed or removed.
    pub samples: Changes,
}

impl ReloadReport {
    /// True if nothing changed and no file was kept at an earlier version.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
            && self.sources.is_empty()
            && self.tables.is_empty()
            && self.samples.is_empty()
    }

    /// True if code or tables changed (the project must be swapped in; samples alone
    /// only need the cache).
    pub fn project_changed(&self) -> bool {
        !self.sources.is_empty() || !self.tables.is_empty() || !self.kept.is_empty()
    }

    /// One line per change, for logs and traces ("source ui.src changed").
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.sources.lines("source", &mut out);
        self.tables.lines("tables", &mut out);
        self.samples.lines("sample", &mut out);
        for kept in &self.kept {
            out.push(format!(
                "{} {} has errors: its last good version is kept",
                kept.kind.name(),
                kept.path.display()
            ));
        }
        out
    }
}

/// Loads `dirs`; with a `previous` project, a file whose new version has errors keeps
/// the previous piece, and the report compares with `previous`.
pub(super) fn load(dirs: &[PathBuf], previous: Option<&Project>) -> (Project, ReloadReport) {
    let mut loader = Loader::default();
    let mut inputs = LoadInputs::default();
    let mut report = ReloadReport::default();
    for (index, dir) in dirs.iter().enumerate() {
        let Some(found) = scan::read_dir(index, dir, &mut loader.diagnostics) else {
            continue;
        };
        loader.sample_index.add(index, dir, &found.samples);
        inputs
            .samples
            .extend(found.samples.iter().map(|s| FileStamp::of(s)));
        for piece in found.pieces {
            let piece = match previous {
                Some(previous) => fall_back(piece, &previous.inputs, index, &mut report),
                None => piece,
            };
            loader.add_piece(&piece);
            inputs.pieces.push(piece);
        }
    }
    let mut project = loader.finish(dirs.to_vec());
    link::bind(&mut project);
    if let Some(previous) = previous {
        compare(&previous.inputs, &inputs, &mut report);
    }
    project.inputs = Arc::new(inputs);
    (project, report)
}

/// The piece to use for a file: the new one, unless it has errors and the previous
/// load had a good version of the same file.
fn fall_back(piece: Piece, previous: &LoadInputs, dir: usize, report: &mut ReloadReport) -> Piece {
    if !piece.has_errors() {
        return piece;
    }
    let Some(old) = previous.piece(piece.kind, &piece.path) else {
        return piece;
    };
    if old.has_errors() {
        return piece;
    }
    let mut kept = old.clone();
    kept.move_to_dir(dir);
    kept.kept_because = piece.diagnostics;
    report.kept.push(KeptFile {
        path: kept.path.clone(),
        kind: kept.kind,
        diagnostics: kept.kept_because.clone(),
    });
    kept
}

fn compare(old: &LoadInputs, new: &LoadInputs, report: &mut ReloadReport) {
    let before: HashMap<(PieceKind, &Path), &Piece> = old
        .pieces
        .iter()
        .map(|p| ((p.kind, p.path.as_path()), p))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for piece in &new.pieces {
        seen.insert((piece.kind, piece.path.as_path()));
        let changes = if piece.kind.is_code() {
            &mut report.sources
        } else {
            &mut report.tables
        };
        match before.get(&(piece.kind, piece.path.as_path())) {
            None => changes.added.push(piece.path.clone()),
            // A kept piece is the old version: reported as kept, not as a change.
            Some(_) if piece.is_kept() => {}
            Some(old) if old.stamps != piece.stamps => changes.changed.push(piece.path.clone()),
            Some(_) => {}
        }
    }
    for piece in &old.pieces {
        if !seen.contains(&(piece.kind, piece.path.as_path())) {
            let changes = if piece.kind.is_code() {
                &mut report.sources
            } else {
                &mut report.tables
            };
            changes.removed.push(piece.path.clone());
        }
    }
    let samples: HashMap<&Path, &FileStamp> =
        old.samples.iter().map(|s| (s.path.as_path(), s)).collect();
    let mut present = std::collections::HashSet::new();
    for stamp in &new.samples {
        present.insert(stamp.path.as_path());
        match samples.get(stamp.path.as_path()) {
            None => report.samples.added.push(stamp.path.clone()),
            Some(old) if *old != stamp => report.samples.changed.push(stamp.path.clone()),
            Some(_) => {}
        }
    }
    for stamp in &old.samples {
        if !present.contains(stamp.path.as_path()) {
            report.samples.removed.push(stamp.path.clone());
        }
    }
}
