//! A project: one or more data directories, loaded in order, later ones overriding
//! earlier tracks, events, patches, hit lists and names (the design document's
//! `AddDownloadDirectory`).
//!
//! Each directory may hold MakeTrax sources (`*.src`, assembled on load; files another
//! source `INCLUDE`s belong to that source), built sets (`x.hit` with `x.hsm`, `x.hot`,
//! `x.hdb`, `x.sym`), stand-alone `.hot` tables, `.evt` event lists and sample files.
//! A built set (`.hit` and its side files) with the same name as a source beside it is
//! that source's earlier output and is skipped. Loading never fails: every problem becomes a
//! diagnostic naming its file and line, and everything else still loads.
//!
//! Loading runs in phases: read every directory ([`unit`](mod@unit), [`tables`]); collect the
//! project-wide names, later directories winning; resolve the tables into definitions;
//! make events and tracks for labels nobody mapped; bind late symbols (`.sym` imports).
//!
//! Each file is first read into a [`Piece`] ([`inputs`]); the project keeps its pieces so
//! [`Project::reload`] can load the directories again and, for a file that no longer
//! parses, keep the piece of its last good version ([`reload`]).

pub mod defs;
mod error;
pub mod inputs;
mod link;
pub mod packs;
pub mod properties;
pub mod reload;
mod resolve;
mod scan;
pub mod tables;
pub mod unit;
mod watch;

pub use defs::{
    CodeRef, ControlGroup, DEFAULT_PRIORITY, DebugTrace, EventDef, EventType, FULL_VOLUME,
    HitListDef, NameDef, NameValue, Origin, PatchDef, SharedPath, TrackDef,
};
pub use error::{NameProblem, ResolveError};
pub use inputs::{FileStamp, LoadInputs, Piece, PieceKind};
pub use reload::{Changes, KeptFile, ReloadReport};
pub(crate) use resolve::refused_sample;
pub use resolve::{resource_name, sample_key};
pub use scan::SAMPLE_EXTENSIONS;
pub use unit::{CodeImport, CodeUnit, UnitOrigin};
pub use watch::{LoadWatch, SamplesFound};

use crate::toolchain::diag::{self, Diagnostic};
use crate::toolchain::fsrules::SeenMap;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// File extension of MakeTrax sources.
pub const SOURCE_EXTENSION: &str = "src";

/// Extensions of the files the loader reads besides samples (and besides files a
/// source `INCLUDE`s, whatever their names): a change to one of these means the project
/// must be loaded again. A new kind of project file adds its extension here.
pub const PROJECT_EXTENSIONS: &[&str] = &[
    "src", "hit", "hsm", "hdb", "sym", "hot", "evt", "fsc", "ini", "lot",
];

/// First track ID HitBench gives tracks made from labels that no table names.
pub const IMPLICIT_TRACK_BASE: u32 = 0xF000_0000;

/// The most IDs the project's global hit lists may expand to together (4 MiB of IDs); a
/// list that would pass it is refused with an error, so a few kilobytes of long ranges
/// cannot take gigabytes.
pub const MAX_HIT_LIST_IDS: u64 = 1 << 20;

/// What kind of definition an [`Override`] replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefinitionKind {
    /// An event mapping.
    Event,
    /// A `[Track]`.
    Track,
    /// A `[Patch]`.
    Patch,
    /// A global hit list.
    HitList,
    /// A label or named value.
    Name,
}

/// A definition replaced by a later one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// What kind of definition was replaced.
    pub kind: DefinitionKind,
    /// What was replaced, for people: "track 0x2000", "event ui_click", "hit list 92",
    /// "name x".
    pub what: String,
    /// The definition that lost.
    pub old: Origin,
    /// The definition that won.
    pub new: Origin,
}

/// A loaded project.
#[derive(Debug, Clone, Default)]
pub struct Project {
    /// The data directories, in load order.
    pub dirs: Vec<PathBuf>,
    /// Every unit of code, in load order.
    pub units: Vec<CodeUnit>,
    /// Events by lower-cased name.
    pub events: BTreeMap<String, EventDef>,
    /// Tracks by ID.
    pub tracks: BTreeMap<u32, TrackDef>,
    /// Patches by ID (boxed: the map's nodes stay small, and the half of each node a
    /// map built in order leaves empty costs little — a project may have 100,000).
    pub patches: BTreeMap<u32, Box<PatchDef>>,
    /// Global hit lists by ID.
    pub hit_lists: BTreeMap<u32, HitListDef>,
    /// Project-wide code labels by lower-cased name (routines, track entry points).
    pub labels: HashMap<Arc<str>, NameDef>,
    /// Project-wide named numbers by lower-cased name (constants, patch and hit-list
    /// names, equates). A name may be both a label and a value (a track and its patch
    /// are often named alike); each use picks the kind it needs.
    pub values: HashMap<Arc<str>, NameDef>,
    /// Sample files found in the data directories.
    pub samples: Vec<Arc<Path>>,
    /// Definitions a later directory replaced.
    pub overrides: Vec<Override>,
    /// Every problem found while loading.
    pub diagnostics: Vec<Diagnostic>,
    /// What each file was read as (shared between copies of the project): what a
    /// [reload](Project::reload) falls back to for a file that no longer parses.
    pub inputs: Arc<LoadInputs>,
    /// What the load found at each sample path that is not a link (the one `lstat` of
    /// its stamp): `check`'s rules take it instead of looking again.
    pub seen: Arc<SeenMap>,
}

impl Project {
    /// Loads one data directory.
    pub fn load(root: &Path) -> Self {
        Self::load_dirs(&[root.to_path_buf()])
    }

    /// Loads data directories in order; later ones override earlier ones.
    pub fn load_dirs(dirs: &[PathBuf]) -> Self {
        reload::load(dirs, None, &LoadWatch::default()).0
    }

    /// Loads data directories as [`load_dirs`](Self::load_dirs) does, counting the files
    /// found and read into `watch` as it goes (another thread shows the progress);
    /// `None` when the load was cancelled through `watch`.
    pub fn load_dirs_watched(dirs: &[PathBuf], watch: &LoadWatch) -> Option<Self> {
        let (project, _) = reload::load(dirs, None, watch);
        (!watch.cancelled()).then_some(project)
    }

    /// Loads the project's directories again. A source, built set, `.hot` or `.evt`
    /// whose new version has errors keeps the version `self` had (if that one loaded
    /// without errors) and its new errors are reported; everything else is read anew.
    /// The report also says what changed since `self`.
    pub fn reload(&self) -> (Self, ReloadReport) {
        reload::load(&self.dirs, Some(self), &LoadWatch::default())
    }

    /// Like [`reload`](Self::reload), with a different list of data directories (one
    /// added, say): files are matched with the earlier version by path.
    pub fn reload_dirs(&self, dirs: &[PathBuf]) -> (Self, ReloadReport) {
        reload::load(dirs, Some(self), &LoadWatch::default())
    }

    /// The first data directory.
    pub fn root(&self) -> &Path {
        self.dirs.first().map_or(Path::new(""), PathBuf::as_path)
    }

    /// Every diagnostic of the load.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter()
    }

    /// True if anything failed to load.
    pub fn has_errors(&self) -> bool {
        diag::has_errors(&self.diagnostics)
    }

    /// The event with this name (case-insensitive).
    ///
    /// The six trace switches of the debug cheats (`debugeventson`, `debugeventsoff`,
    /// `debugsampleson`, `debugsamplesoff`, `debugtrackson`, `debugtracksoff`: event
    /// types 44–49) are built in: every project has them unless it defines them itself.
    pub fn event(&self, name: &str) -> Option<&EventDef> {
        // Names are kept in lower case: one already written so needs no copy.
        let lower;
        let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            lower = name.to_ascii_lowercase();
            lower.as_str()
        } else {
            name
        };
        self.events
            .get(name)
            .or_else(|| defs::built_in_events().get(name))
    }

    /// The track with this ID.
    pub fn track(&self, id: u32) -> Option<&TrackDef> {
        self.tracks.get(&id)
    }

    /// The track whose name is `name` (case-insensitive).
    pub fn track_by_name(&self, name: &str) -> Option<&TrackDef> {
        self.tracks
            .values()
            .find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// A project-wide code label (case-insensitive).
    pub fn label(&self, name: &str) -> Option<&NameDef> {
        self.labels.get(name.to_ascii_lowercase().as_str())
    }

    /// A project-wide named number (case-insensitive).
    pub fn value(&self, name: &str) -> Option<&NameDef> {
        self.values.get(name.to_ascii_lowercase().as_str())
    }

    /// Every file the project was made from (sources, includes, tables, samples), for
    /// watching.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self
            .units
            .iter()
            .flat_map(|u| u.files.iter().cloned())
            .chain(self.samples.iter().map(|s| s.to_path_buf()))
            .collect();
        files.sort();
        files.dedup();
        files
    }

    /// The unit a source or `.hit` file became, if any.
    pub fn unit_for(&self, path: &Path) -> Option<usize> {
        self.units.iter().position(|u| u.path() == path)
    }

    /// Where code at `at` came from, as `file:line` when debug info knows it.
    pub fn locate(&self, at: CodeRef) -> Option<Origin> {
        let (file, line) = self.units.get(at.unit)?.locate(at.address)?;
        Some(Origin::new(file, line))
    }
}
