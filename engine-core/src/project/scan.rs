//! Reading one data directory: finding its files by kind and turning sources, built
//! sets, tables and event lists into units and raw tables.

use super::resolve::Loader;
use super::tables::{self, TableSource};
use super::unit;
use crate::diag::Diagnostic;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// File extensions of samples the engine plays.
pub const SAMPLE_EXTENSIONS: &[&str] = &["wav", "mp3", "ogg", "oga", "flac", "xa", "utk"];

/// The files of one directory, sorted, by kind.
#[derive(Debug, Default)]
struct Found {
    sources: Vec<PathBuf>,
    hits: Vec<PathBuf>,
    hots: Vec<PathBuf>,
    evts: Vec<PathBuf>,
    samples: Vec<PathBuf>,
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

fn walk(dir: &Path, found: &mut Found, diagnostics: &mut Vec<Diagnostic>, depth: usize) {
    if depth > 32 {
        diagnostics.push(Diagnostic::warning(
            dir,
            0,
            0,
            "folders nested more than 32 deep are not read",
        ));
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                dir,
                0,
                0,
                format!("cannot read folder: {e}"),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !entry.file_name().to_string_lossy().starts_with('.') {
                walk(&path, found, diagnostics, depth + 1);
            }
            continue;
        }
        if !kind.is_file() {
            continue;
        }
        let ext = extension(&path);
        match ext.as_str() {
            "src" => found.sources.push(path),
            "hit" => found.hits.push(path),
            "hot" => found.hots.push(path),
            "evt" => found.evts.push(path),
            e if SAMPLE_EXTENSIONS.contains(&e) => found.samples.push(path),
            _ => {}
        }
    }
}

/// A path without its extension, lower-cased, to pair outputs with their source.
fn stem_key(path: &Path) -> PathBuf {
    let mut key = path.with_extension("");
    key = PathBuf::from(key.to_string_lossy().to_ascii_lowercase());
    key
}

/// Reads data directory number `index` into the loader.
pub fn read_dir(loader: &mut Loader, index: usize, dir: &Path) {
    if !dir.is_dir() {
        loader.diagnostics.push(Diagnostic::error(
            dir,
            0,
            0,
            "data directory not found (or not a folder)",
        ));
        return;
    }
    let mut found = Found::default();
    walk(dir, &mut found, &mut loader.diagnostics, 0);
    for list in [
        &mut found.sources,
        &mut found.hits,
        &mut found.hots,
        &mut found.evts,
        &mut found.samples,
    ] {
        list.sort();
    }
    loader.sample_index.add(index, dir, &found.samples);

    // Sources: assemble each; a file another source includes is part of that source.
    let assembled: Vec<(unit::CodeUnit, crate::asm::Assembly)> = found
        .sources
        .iter()
        .map(|source| unit::assemble(index, source))
        .collect();
    let included: HashSet<PathBuf> = assembled
        .iter()
        .flat_map(|(_, a)| a.sources.iter().skip(1).cloned())
        .collect();
    let source_stems: HashSet<PathBuf> = found.sources.iter().map(|s| stem_key(s)).collect();
    for (code_unit, assembly) in assembled {
        if included.contains(code_unit.path()) {
            continue;
        }
        loader
            .diagnostics
            .extend(assembly.diagnostics.iter().cloned());
        let unit_index = loader.units.len();
        let (doc, origins) = assembly.hot_in_source_order();
        let source = TableSource {
            file: code_unit.path().to_path_buf(),
            origins: Some(origins),
        };
        loader.units.push(code_unit);
        if !assembly.hot_lines.is_empty() {
            let raw = tables::read_hot(
                index,
                Some(unit_index),
                &doc,
                source,
                &mut loader.diagnostics,
            );
            loader.tables.push(raw);
        }
    }

    // Built sets, unless they are a source's earlier output.
    let mut set_stems = HashSet::new();
    for hit in &found.hits {
        let key = stem_key(hit);
        if source_stems.contains(&key) {
            continue;
        }
        set_stems.insert(key);
        let Some(code_unit) = unit::load_built(index, hit, &mut loader.diagnostics) else {
            continue;
        };
        let unit_index = loader.units.len();
        loader.units.push(code_unit);
        let hot = hit.with_extension("hot");
        if hot.is_file()
            && let Some(raw) =
                tables::read_hot_file(index, Some(unit_index), &hot, &mut loader.diagnostics)
        {
            if let Some(u) = loader.units.get_mut(unit_index) {
                u.files.push(hot.clone());
                u.track_data = raw
                    .tables
                    .track_data
                    .iter()
                    .map(|t| (t.id, t.address))
                    .collect();
            }
            loader.tables.push(raw);
        }
    }

    // Stand-alone tables and event lists.
    for hot in &found.hots {
        let key = stem_key(hot);
        // Part of a built set (read with it), or a source's earlier `hitbench asm` output
        // (a .hot beside a .hit of the source's name). A lone `x.hot` beside `x.src` is a
        // hand-written table and is read.
        let generated = source_stems.contains(&key) && hot.with_extension("hit").is_file();
        if generated || set_stems.contains(&key) {
            continue;
        }
        if let Some(raw) = tables::read_hot_file(index, None, hot, &mut loader.diagnostics) {
            loader.table_files.push(hot.clone());
            loader.tables.push(raw);
        }
    }
    for evt in &found.evts {
        if let Some(raw) = tables::read_evt_file(index, evt, &mut loader.diagnostics) {
            loader.table_files.push(evt.clone());
            loader.evts.push(raw);
        }
    }
}
