//! Turning what the directories held into definitions: the project-wide names (later
//! directories winning), then tracks, patches, hit lists and events, then events and
//! tracks for labels nobody mapped.
//!
//! The parts: `names` collects the names and looks a name up as a number; `samples`
//! finds the file a patch names; `tables` resolves one document's tables and the `.evt`
//! lists; `tracks` resolves a `[Track]` entry and makes what nobody mapped.

mod names;
mod samples;
mod tables;
mod tracks;

pub(crate) use samples::refused_sample;
pub use samples::{SampleIndex, resource_name, sample_key};

use super::defs::Origin;
use super::inputs::{Piece, PieceKind};
use super::tables::{RawEvents, RawTables};
use super::unit::CodeUnit;
use super::{DefinitionKind, Override, Project};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::fsrules::{MAX_RESOURCE_BYTES, ReadRules, SeenMap};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything read from the directories, before resolution: the pieces' tables and
/// event lists borrowed (a project's tables can take tens of megabytes), their units
/// copied (the project keeps them).
#[derive(Debug, Default)]
pub struct Loader<'a> {
    /// Every unit of code, in load order.
    pub units: Vec<CodeUnit>,
    /// The tables of every document (`.hot` files, `LIST` lines).
    pub tables: Vec<LoadedTables<'a>>,
    /// The `.evt` event lists.
    pub evts: Vec<&'a RawEvents>,
    /// Every table and event-list file read.
    pub table_files: Vec<PathBuf>,
    /// The sample files of every directory.
    pub sample_index: SampleIndex,
    /// Every problem found so far.
    pub diagnostics: Vec<Diagnostic>,
}

/// A document's tables, and the unit they belong to as numbered in the project.
#[derive(Debug, Clone, Copy)]
pub struct LoadedTables<'a> {
    /// The tables.
    pub raw: &'a RawTables,
    /// Their unit's index in [`Loader::units`].
    pub unit: Option<usize>,
}

/// The definition of a key, remembering who set it so an override can be recorded.
fn put<K: Ord + Clone, V>(
    map: &mut BTreeMap<K, V>,
    key: K,
    value: V,
    (kind, what): (DefinitionKind, impl FnOnce() -> String),
    origin_of: impl Fn(&V) -> &Origin,
    overrides: &mut Vec<Override>,
) {
    let new = origin_of(&value).clone();
    if let Some(old) = map.insert(key, value) {
        overrides.push(Override {
            kind,
            what: what(),
            old: origin_of(&old).clone(),
            new,
        });
    }
}

impl<'a> Loader<'a> {
    /// Adds what one piece holds: its unit (given the next unit index, which its tables
    /// then refer to), its tables and events, and its problems. For a kept earlier
    /// version, the problems are those of the file on disk, and a warning says which
    /// version is in use.
    pub fn add_piece(&mut self, piece: &'a Piece) {
        if piece.is_kept() {
            self.diagnostics.extend(piece.kept_because.iter().cloned());
            self.diagnostics.push(Diagnostic::warning(
                DiagCode::KeptLastGood,
                &piece.path,
                0,
                0,
                format!(
                    "the {} on disk has errors: its last version that loaded is still in use",
                    piece.kind.name()
                ),
            ));
        } else {
            self.diagnostics.extend(piece.diagnostics.iter().cloned());
        }
        let unit_index = piece.unit.as_ref().map(|unit| {
            self.units.push(unit.clone());
            self.units.len() - 1
        });
        if let Some(raw) = &piece.tables {
            self.tables.push(LoadedTables {
                raw,
                unit: raw.unit.and(unit_index),
            });
            if piece.kind == PieceKind::Tables {
                self.table_files.push(piece.path.clone());
            }
        }
        if let Some(events) = &piece.events {
            self.evts.push(events);
            self.table_files.push(piece.path.clone());
        }
    }

    /// Resolves everything into a project.
    /// `seen`: what is at some sample paths (not links), looked at moments ago by the
    /// load's stamps; the rules take it instead of looking again.
    pub fn finish(mut self, dirs: Vec<PathBuf>, seen: Arc<SeenMap>) -> Project {
        let mut project = Project {
            dirs,
            seen: Arc::clone(&seen),
            ..Project::default()
        };
        let (labels, values) = self.collect_names(&mut project.overrides);
        project.labels = labels;
        project.values = values;
        let dir_count = project.dirs.len();
        // What the resource cache will serve: samples inside their data folder.
        let rules = ReadRules::within(&project.dirs)
            .with_max_bytes(MAX_RESOURCE_BYTES)
            .remembering_folders()
            .knowing(seen);
        let canonical_dirs: Vec<Option<PathBuf>> =
            project.dirs.iter().map(|d| d.canonicalize().ok()).collect();
        for dir in 0..dir_count {
            for loaded in self.tables.iter().filter(|t| t.raw.dir == dir) {
                tables::TableResolver {
                    raw: loaded.raw,
                    unit: loaded.unit,
                    units: &self.units,
                    samples: &self.sample_index,
                    rules: &rules,
                    canonical_dirs: &canonical_dirs,
                    project: &mut project,
                    diagnostics: &mut self.diagnostics,
                }
                .resolve();
            }
            for raw in self.evts.iter().filter(|e| e.dir == dir) {
                tables::resolve_evt(raw, &mut project, &mut self.diagnostics);
            }
        }
        project.units = self.units;
        tracks::complete_events_and_tracks(&mut project, &mut self.diagnostics);
        project.samples = self.sample_index.into_paths();
        project.diagnostics = self.diagnostics;
        project
    }
}
