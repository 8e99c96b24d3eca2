//! Reading one data directory: finding its files by kind and turning sources, built
//! sets, tables and event lists into pieces (units and raw tables, with the problems of
//! each file and the stamps of the files it was made from).

use super::LoadWatch;
use super::inputs::{Piece, PieceKind};
use super::tables::{self, TableSource};
use super::unit;
use crate::toolchain::asm::{Assembly, DiskFiles};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::fsrules::{self, EntryKind, WalkOptions};
use crate::toolchain::par;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// File extensions of samples the engine plays.
pub const SAMPLE_EXTENSIONS: &[&str] = &["wav", "mp3", "ogg", "oga", "flac", "xa", "utk"];

/// The files of one directory, sorted, by kind.
#[derive(Debug, Default)]
struct Found {
    sources: Vec<PathBuf>,
    hits: Vec<PathBuf>,
    hots: Vec<PathBuf>,
    evts: Vec<PathBuf>,
    samples: Vec<Arc<Path>>,
}

/// Whether `path`'s extension is `lower` (an ASCII lower-case extension), in any case.
fn has_extension(path: &Path, lower: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(lower))
}

/// Sorts the files of a data folder by kind, through the file rules' walk (links
/// leaving the folder, folders nested too deep, named pipes and devices are refused with
/// a warning each; hidden folders are skipped). In the project's `own` data folder (the
/// first), a link to a sound file elsewhere is left out without a warning: no table may
/// name it (a patch that does is refused, with its own warning), and a station or music
/// folder there plays it on purpose (docs/world.md, "Shortcuts to your own music").
fn walk(dir: &Path, own: bool, found: &mut Found, diagnostics: &mut Vec<Diagnostic>) {
    let options = WalkOptions {
        skip_hidden: true,
        ..WalkOptions::default()
    };
    let walk = match fsrules::walk(dir, &options) {
        Ok(walk) => walk,
        Err(refusal) => {
            diagnostics.push(Diagnostic::error(
                refusal.code(),
                dir,
                0,
                0,
                format!("cannot read folder: {}", refusal.reason()),
            ));
            return;
        }
    };
    for refusal in walk.refused.iter().cloned().chain(walk.too_deep(&options)) {
        let shortcut = own
            && refusal.code() == DiagCode::LinkOutside
            && SAMPLE_EXTENSIONS
                .iter()
                .any(|e| has_extension(refusal.path(), e));
        if shortcut {
            continue;
        }
        diagnostics.push(Diagnostic::warning(
            refusal.code(),
            refusal.path(),
            0,
            0,
            format!("not read: {}", refusal.reason()),
        ));
    }
    // A sample folder holds thousands of files: each is sorted by its extension as it
    // is, with no lower-cased copy of it, and its path moved, not copied.
    let files = walk
        .entries
        .into_iter()
        .filter(|e| e.kind == EntryKind::File);
    for entry in files {
        let path = entry.path;
        let is = |lower| has_extension(&path, lower);
        if SAMPLE_EXTENSIONS.iter().any(|e| is(e)) {
            found.samples.push(Arc::from(path));
        } else if is("src") {
            found.sources.push(path);
        } else if is("hit") {
            found.hits.push(path);
        } else if is("hot") {
            found.hots.push(path);
        } else if is("evt") {
            found.evts.push(path);
        }
    }
}

/// A path without its extension, lower-cased, to pair outputs with their source.
fn stem_key(path: &Path) -> PathBuf {
    let mut key = path.with_extension("");
    key = PathBuf::from(key.to_string_lossy().to_ascii_lowercase());
    key
}

/// What one data directory held: its pieces in load order (sources, built sets,
/// stand-alone tables, event lists) and its sample files.
#[derive(Debug, Default)]
pub struct DirFiles {
    /// The pieces, in load order.
    pub pieces: Vec<Piece>,
    /// The sample files, sorted (each path shared by everything the load keeps of it:
    /// its stamp, the project's list of samples, the patches that play it).
    pub samples: Vec<Arc<Path>>,
    /// The zip packs at the top of the folder and the sound files in each, sorted.
    pub packs: Vec<super::packs::Pack>,
}

/// Reads data directory number `index` into pieces, reading files through `files` (the
/// file rules of the project's data folders). Problems that belong to no piece (a
/// missing directory, an unreadable folder, a file refused) go to `diagnostics`; `None`
/// if the directory is not there.
pub fn read_dir(
    index: usize,
    dir: &Path,
    files: &DiskFiles,
    diagnostics: &mut Vec<Diagnostic>,
    watch: &LoadWatch,
) -> Option<DirFiles> {
    if !dir.is_dir() {
        diagnostics.push(Diagnostic::error(
            DiagCode::MissingDataDir,
            dir,
            0,
            0,
            "data directory not found (or not a folder)",
        ));
        return None;
    }
    let mut found = Found::default();
    walk(dir, index == 0, &mut found, diagnostics);
    for list in [
        &mut found.sources,
        &mut found.hits,
        &mut found.hots,
        &mut found.evts,
    ] {
        list.sort();
    }
    found.samples.sort();
    watch.add_found(
        found.sources.len()
            + found.hits.len()
            + found.hots.len()
            + found.evts.len()
            + found.samples.len(),
    );
    let mut pieces = read_sources(index, &found.sources, files, watch);
    let source_stems: HashSet<PathBuf> = found.sources.iter().map(|s| stem_key(s)).collect();
    let set_stems = read_built_sets(index, &found.hits, &source_stems, files, &mut pieces, watch);
    let rules = files.rules();
    for hot in &found.hots {
        if watch.cancelled() {
            break;
        }
        watch.add_read(1);
        let key = stem_key(hot);
        // Part of a built set (read with it), or a source's earlier `hitbench asm` output
        // (a .hot beside a .hit of the source's name). A lone `x.hot` beside `x.src` is a
        // hand-written table and is read.
        let generated = source_stems.contains(&key) && hot.with_extension("hit").is_file();
        if generated || set_stems.contains(&key) {
            continue;
        }
        let mut piece = Piece::new(PieceKind::Tables, hot, index);
        piece.tables = tables::read_hot_file(index, None, hot, rules, &mut piece.diagnostics);
        piece.stamp(std::slice::from_ref(hot));
        pieces.push(piece);
    }
    for evt in &found.evts {
        if watch.cancelled() {
            break;
        }
        watch.add_read(1);
        let mut piece = Piece::new(PieceKind::Events, evt, index);
        piece.events = tables::read_evt_file(index, evt, rules, &mut piece.diagnostics);
        piece.stamp(std::slice::from_ref(evt));
        pieces.push(piece);
    }
    let packs = super::packs::packs_in(dir)
        .into_iter()
        .filter_map(
            |path| match super::packs::read_pack(&path, SAMPLE_EXTENSIONS) {
                Ok(pack) => Some(pack),
                Err(why) => {
                    diagnostics.push(Diagnostic::error(
                        DiagCode::UnreadableFile,
                        &path,
                        0,
                        0,
                        format!("not a zip pack that can be read ({why}); its sounds are left out"),
                    ));
                    None
                }
            },
        )
        .collect();
    Some(DirFiles {
        pieces,
        samples: found.samples,
        packs,
    })
}

/// Sources: each assembled, with the tables of its `LIST` lines; a file another source
/// includes is part of that source, not a piece of its own. Each assembly is made into
/// its piece at once and dropped, so only one is held at a time on each core (a
/// project's assemblies together, with their `LIST` lines, would take hundreds of
/// megabytes). The sources are assembled on every core (`hitbench-load` threads), the
/// pieces in the sources' order.
fn read_sources(
    index: usize,
    sources: &[PathBuf],
    files: &DiskFiles,
    watch: &LoadWatch,
) -> Vec<Piece> {
    let read = par::map_in_order(sources, 1, 2, "hitbench-load", |run| {
        run.iter()
            .take_while(|_| !watch.cancelled())
            .map(|source| {
                let (code_unit, assembly) = unit::assemble(index, source, files);
                watch.add_read(1);
                let included: Vec<PathBuf> = assembly.sources.iter().skip(1).cloned().collect();
                (source_piece(index, code_unit, &assembly), included)
            })
            .collect()
    });
    let included: HashSet<&PathBuf> = read.iter().flat_map(|(_, included)| included).collect();
    let keep: Vec<bool> = read
        .iter()
        .map(|(piece, _)| !included.contains(&piece.path))
        .collect();
    read.into_iter()
        .zip(keep)
        .filter_map(|((piece, _), keep)| keep.then_some(piece))
        .collect()
}

/// The piece of one assembled source: its unit, the tables of its `LIST` lines, its
/// problems and the stamps of the files it was made from.
fn source_piece(index: usize, code_unit: unit::CodeUnit, assembly: &Assembly) -> Piece {
    let mut piece = Piece::new(PieceKind::Source, code_unit.path(), index);
    piece
        .diagnostics
        .extend(assembly.diagnostics.iter().cloned());
    if !assembly.hot_lines.is_empty() {
        let (doc, origins) = assembly.hot_in_source_order();
        let source = TableSource {
            file: Arc::from(code_unit.path()),
            origins: Some(origins),
        };
        piece.tables = Some(tables::read_hot(
            index,
            Some(0),
            &doc,
            source,
            &mut piece.diagnostics,
        ));
    }
    piece.stamp(&assembly.sources);
    piece.unit = Some(code_unit);
    piece
}

/// Built sets (`x.hit` with its side files), unless they are a source's earlier output
/// (their stem is in `source_stems`), appended to `pieces`; gives the stems read, whose
/// `.hot` files belong to the set.
fn read_built_sets(
    index: usize,
    hits: &[PathBuf],
    source_stems: &HashSet<PathBuf>,
    files: &DiskFiles,
    pieces: &mut Vec<Piece>,
    watch: &LoadWatch,
) -> HashSet<PathBuf> {
    let rules = files.rules();
    let mut set_stems = HashSet::new();
    for hit in hits {
        if watch.cancelled() {
            break;
        }
        watch.add_read(1);
        let key = stem_key(hit);
        if source_stems.contains(&key) {
            continue;
        }
        set_stems.insert(key);
        let mut piece = Piece::new(PieceKind::Built, hit, index);
        let Some(mut code_unit) = unit::load_built(index, hit, rules, &mut piece.diagnostics)
        else {
            piece.stamp(std::slice::from_ref(hit));
            pieces.push(piece);
            continue;
        };
        let hot = hit.with_extension("hot");
        if hot.is_file()
            && let Some(raw) =
                tables::read_hot_file(index, Some(0), &hot, rules, &mut piece.diagnostics)
        {
            code_unit.files.push(hot.clone());
            code_unit.track_data = raw
                .tables
                .track_data
                .iter()
                .map(|t| (t.id, t.address))
                .collect();
            piece.tables = Some(raw);
        }
        piece.stamp(&code_unit.files);
        piece.unit = Some(code_unit);
        pieces.push(piece);
    }
    set_stems
}
