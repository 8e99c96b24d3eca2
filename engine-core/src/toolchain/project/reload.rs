//! Loading a project's directories again ([`super::Project::reload`]): every file is
//! read anew, but a file whose new version has errors keeps the piece of its last good
//! version, and the report says so with the new errors (`file:line`). "Has errors"
//! means it does not parse or assemble, or — found once every file is read — it no
//! longer resolves (a table naming an undefined constant, code using a name nobody
//! defines). The report also lists what changed since the previous load — sources,
//! tables and samples added, changed (size or modification time) or removed. Deleted
//! files are simply gone: that is a change, not an error.

use super::inputs::{FileStamp, LoadInputs, Piece, PieceKind};
use super::resolve::Loader;
use super::{LoadWatch, Project, link, scan};
use crate::toolchain::asm::DiskFiles;
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::fsrules::{Seen, SeenMap, SeenPath};
use crate::toolchain::par;
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
}

/// How many times a reload falls back for files whose new version loads with errors
/// (each fallback can change what other files resolve to).
const FALLBACK_ROUNDS: usize = 3;

/// One data directory as read: the problems that belong to no file, and its samples
/// (`None` if the directory is not there).
struct DirRead {
    index: usize,
    dir: PathBuf,
    diagnostics: Vec<Diagnostic>,
    samples: Option<(Vec<Arc<Path>>, Vec<super::packs::Pack>)>,
}

/// Loads `dirs`; with a `previous` project, a file whose new version has errors keeps
/// the previous piece, and the report compares with `previous`.
///
/// Errors come in two kinds: a file that does not parse or assemble (its piece has
/// errors), and a file that parses but does not resolve (a table naming an undefined
/// constant, a source using a name nobody defines — found once every file is read). Both
/// fall back: the first as each file is read, the second by loading again with the
/// previous piece of each changed file that now has errors it did not have before.
pub(super) fn load(
    dirs: &[PathBuf],
    previous: Option<&Project>,
    watch: &LoadWatch,
) -> (Project, ReloadReport) {
    let mut inputs = LoadInputs::default();
    let mut report = ReloadReport::default();
    let mut read = Vec::with_capacity(dirs.len());
    // What the stamps saw at each sample that is not a link: the rules resolving the
    // tables' sample paths take it instead of looking again.
    let mut seen = HashMap::new();
    // Sources may include files from any of the project's data folders, nothing else.
    let files = DiskFiles::within(dirs);
    for (index, dir) in dirs.iter().enumerate() {
        let mut diagnostics = Vec::new();
        if watch.cancelled() {
            break;
        }
        let found = scan::read_dir(index, dir, &files, &mut diagnostics, watch);
        let samples = found.map(|found| {
            for (stamp, looked) in stamp_samples(&found.samples, watch) {
                if let Some(looked) = looked {
                    seen.insert(SeenPath(Arc::clone(&stamp.path)), looked);
                }
                inputs.samples.push(stamp);
            }
            // A pack replaced or changed is a change of its samples.
            inputs
                .samples
                .extend(found.packs.iter().map(|p| FileStamp::of(&p.path)));
            for piece in found.pieces {
                let piece = match previous {
                    Some(previous) => fall_back(piece, &previous.inputs, index, &mut report),
                    None => piece,
                };
                inputs.pieces.push(piece);
            }
            (found.samples, found.packs)
        });
        read.push(DirRead {
            index,
            dir: dir.clone(),
            diagnostics,
            samples,
        });
    }
    let seen = Arc::new(seen);
    if !watch.cancelled() {
        let samples = || {
            read.iter()
                .filter_map(|dir| dir.samples.as_ref())
                .flat_map(|(samples, _)| samples.iter().cloned())
                .collect()
        };
        watch.samples_found(samples, &seen);
    }
    let mut project = build(dirs, &read, &inputs.pieces, &seen);
    if let Some(previous) = previous {
        for _ in 0..FALLBACK_ROUNDS {
            if !fall_back_unresolved(&project, previous, &mut inputs.pieces, &mut report) {
                break;
            }
            project = build(dirs, &read, &inputs.pieces, &seen);
        }
        compare(&previous.inputs, &inputs, &mut report);
    }
    project.inputs = Arc::new(inputs);
    (project, report)
}

/// Resolves `pieces` into a project (names, tables, late symbols).
fn build(dirs: &[PathBuf], read: &[DirRead], pieces: &[Piece], seen: &Arc<SeenMap>) -> Project {
    let mut loader = Loader::default();
    for dir in read {
        loader.diagnostics.extend(dir.diagnostics.iter().cloned());
        let Some((samples, packs)) = &dir.samples else {
            continue;
        };
        // Packs first: a loose file of the same name, added after, wins.
        for pack in packs {
            loader.sample_index.add_pack(dir.index, pack);
        }
        loader.sample_index.add(dir.index, &dir.dir, samples);
        for piece in pieces.iter().filter(|p| p.dir == dir.index) {
            loader.add_piece(piece);
        }
    }
    let mut project = loader.finish(dirs.to_vec(), Arc::clone(seen));
    link::bind(&mut project);
    project
}

/// Puts back the previous piece of every file that changed, parsed, and now has errors
/// in `project` it did not have in `previous` (the new errors are kept with it, for
/// the report). Returns whether any was put back.
fn fall_back_unresolved(
    project: &Project,
    previous: &Project,
    pieces: &mut [Piece],
    report: &mut ReloadReport,
) -> bool {
    let mut any = false;
    for piece in pieces.iter_mut() {
        if piece.is_kept() || piece.has_errors() {
            continue;
        }
        let Some(old) = previous.inputs.piece(piece.kind, &piece.path) else {
            continue;
        };
        if old.has_errors() || old.stamps == piece.stamps {
            continue;
        }
        let files: Vec<&Path> = std::iter::once(piece.path.as_path())
            .chain(piece.stamps.iter().map(|s| &*s.path))
            .collect();
        let errors: Vec<Diagnostic> = project
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && files.contains(&d.file.as_path()))
            .cloned()
            .collect();
        if errors.is_empty() {
            continue;
        }
        // Errors the previous load had for these files too (other than the ones of a
        // kept version's file on disk) are not this version's fault.
        let before = previous.diagnostics.iter().any(|d| {
            d.is_error() && files.contains(&d.file.as_path()) && !old.kept_because.contains(d)
        });
        if before {
            continue;
        }
        let mut kept = old.clone();
        kept.move_to_dir(piece.dir);
        kept.kept_because = errors;
        report.kept.push(KeptFile {
            path: kept.path.clone(),
            kind: kept.kind,
            diagnostics: kept.kept_because.clone(),
        });
        *piece = kept;
        any = true;
    }
    any
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
    let samples: HashMap<&Path, &FileStamp> = old.samples.iter().map(|s| (&*s.path, s)).collect();
    let mut present = std::collections::HashSet::new();
    for stamp in &new.samples {
        present.insert(&*stamp.path);
        match samples.get(&*stamp.path) {
            None => report.samples.added.push(stamp.path.to_path_buf()),
            Some(old) if *old != stamp => report.samples.changed.push(stamp.path.to_path_buf()),
            Some(_) => {}
        }
    }
    for stamp in &old.samples {
        if !present.contains(&*stamp.path) {
            report.samples.removed.push(stamp.path.to_path_buf());
        }
    }
}

/// Samples a thread stamps at least (fewer are not worth a thread).
const STAMPS_PER_THREAD: usize = 2048;

/// The stamps of `samples`, in their order, each with what is there when it is not a
/// link ([`FileStamp::looked_at`]): one `lstat` each, on every core for a large folder
/// (a stat is a system call; a project of 100,000 samples spends most of its stamping
/// waiting for them). Stops early once the load is cancelled.
fn stamp_samples(samples: &[Arc<Path>], watch: &LoadWatch) -> Vec<(FileStamp, Option<Seen>)> {
    let stamps = par::map_in_order(samples, 256, STAMPS_PER_THREAD, "hitbench-stamp", |run| {
        if watch.cancelled() {
            return vec![None];
        }
        watch.add_read(run.len());
        run.iter()
            .map(|sample| Some(FileStamp::looked_at(sample)))
            .collect()
    });
    stamps.into_iter().map_while(|stamp| stamp).collect()
}

#[cfg(test)]
mod stamp_tests {
    use super::*;

    #[test]
    fn samples_are_stamped_in_their_order_on_every_core() {
        let dir = std::env::temp_dir().join(format!("hitbench-stamps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Enough for more than one thread; every file a different length.
        let count = STAMPS_PER_THREAD * 2 + 7;
        let samples: Vec<Arc<Path>> = (0..count)
            .map(|i| {
                let path = dir.join(format!("s{i}.wav"));
                std::fs::write(&path, vec![0u8; i % 300]).unwrap();
                Arc::from(path)
            })
            .chain([Arc::from(dir.join("missing.wav"))])
            .collect();
        let watch = LoadWatch::default();
        let stamps = stamp_samples(&samples, &watch);
        assert_eq!(stamps.len(), samples.len());
        for (i, ((stamp, seen), path)) in stamps.iter().zip(&samples).enumerate() {
            assert!(Arc::ptr_eq(&stamp.path, path), "the stamp shares the path");
            assert_eq!(stamp, &FileStamp::of(path), "{}", path.display());
            if i < count {
                assert_eq!(stamp.len, (i % 300) as u64);
                assert!(stamp.modified.is_some());
                let seen = seen.expect("a file is seen");
                assert!(seen.kind.is_file());
                assert_eq!(seen.len, stamp.len);
            }
        }
        assert_eq!(stamps[count].0.len, 0, "a missing file has length 0");
        assert!(
            stamps[count].1.is_none(),
            "nothing is seen where nothing is"
        );
        assert_eq!(watch.read(), samples.len() as u64);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_cancelled_load_stamps_nothing_more() {
        let samples: Vec<Arc<Path>> = (0..STAMPS_PER_THREAD * 3)
            .map(|i| Arc::from(PathBuf::from(format!("/nonexistent/s{i}.wav"))))
            .collect();
        let watch = LoadWatch::default();
        watch.cancel();
        assert!(stamp_samples(&samples, &watch).is_empty());
        assert_eq!(watch.read(), 0);
    }
}
