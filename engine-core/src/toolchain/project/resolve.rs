//! Turning what the directories held into definitions: the project-wide names (later
//! directories winning), then tracks, patches, hit lists and events, then events and
//! tracks for labels nobody mapped.

use super::defs::ControlGroup;
use super::defs::{
    CodeRef, DEFAULT_PRIORITY, EventDef, EventType, FULL_VOLUME, HitListDef, NameDef, NameValue,
    Origin, PatchDef, TrackDef,
};
use super::inputs::{Piece, PieceKind};
use super::tables::{self, RawEvents, RawTables, resolve_id};
use super::unit::CodeUnit;
use super::{IMPLICIT_TRACK_BASE, MAX_HIT_LIST_IDS, Override, Project};
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::hitlist::HitList;
use crate::toolchain::formats::hot::{self, IdRef};
use crate::toolchain::fsrules::{MAX_RESOURCE_BYTES, ReadRules, Refusal};
use crate::toolchain::symbols;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Sample files of every directory, found by relative path or by file name.
#[derive(Debug, Default)]
pub struct SampleIndex {
    /// (dir, path relative to it lower-cased with `/`, full path), in load order.
    files: Vec<(usize, String, PathBuf)>,
}

impl SampleIndex {
    /// Adds the samples of directory `dir` (rooted at `root`).
    pub fn add(&mut self, dir: usize, root: &Path, samples: &[PathBuf]) {
        for path in samples {
            let relative = path.strip_prefix(root).unwrap_or(path);
            let key = relative
                .to_string_lossy()
                .replace('\\', "/")
                .to_ascii_lowercase();
            self.files.push((dir, key, path.clone()));
        }
    }

    /// Finds the file a `[Patch]` path means: next to the table, in the table's data
    /// directory, then by relative path and finally by file name in every directory,
    /// later directories first (as the game's global sample lists did). A file next to
    /// the table or in its directory that the file rules refuse (a link leading out of
    /// its data folder, a path out of every data folder, a named pipe…) is the answer,
    /// refused: what the patch names is there, and must not be read.
    fn find(
        &self,
        relative: &Path,
        table_file: &Path,
        dir_root: Option<&Path>,
        rules: &ReadRules,
    ) -> Result<Option<PathBuf>, Refusal> {
        let mut direct = Vec::new();
        if let Some(parent) = table_file.parent() {
            direct.push(parent.join(relative));
        }
        if let Some(root) = dir_root {
            direct.push(root.join(relative));
        }
        for candidate in direct {
            // Something that is not a folder is there (a file, or a link even to
            // nothing).
            let there = std::fs::symlink_metadata(&candidate).is_ok();
            if there && !candidate.is_dir() {
                return rules.check(&candidate).map(|_| Some(candidate));
            }
        }
        let key = relative
            .to_string_lossy()
            .replace('\\', "/")
            .to_ascii_lowercase();
        let suffix = format!("/{key}");
        let by_path = self
            .files
            .iter()
            .rev()
            .find(|(_, k, _)| *k == key || k.ends_with(&suffix));
        if let Some((_, _, path)) = by_path {
            return Ok(Some(path.clone()));
        }
        let Some(name) = relative.file_name() else {
            return Ok(None);
        };
        let name = name.to_string_lossy().to_ascii_lowercase();
        Ok(self
            .files
            .iter()
            .rev()
            .find(|(_, k, _)| k.rsplit('/').next() == Some(name.as_str()))
            .map(|(_, _, p)| p.clone()))
    }

    /// Every sample file.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.iter().map(|(_, _, p)| p.clone()).collect()
    }
}

/// Everything read from the directories, before resolution.
#[derive(Debug, Default)]
pub struct Loader {
    pub units: Vec<CodeUnit>,
    pub tables: Vec<RawTables>,
    pub evts: Vec<RawEvents>,
    pub table_files: Vec<PathBuf>,
    pub sample_index: SampleIndex,
    pub diagnostics: Vec<Diagnostic>,
}

/// The definition of a key, remembering who set it so an override can be recorded.
fn put<K: Ord + Clone, V>(
    map: &mut BTreeMap<K, V>,
    key: K,
    value: V,
    what: impl FnOnce() -> String,
    origin_of: impl Fn(&V) -> &Origin,
    overrides: &mut Vec<Override>,
) {
    let new = origin_of(&value).clone();
    if let Some(old) = map.insert(key, value) {
        overrides.push(Override {
            what: what(),
            old: origin_of(&old).clone(),
            new,
        });
    }
}

impl Loader {
    /// Adds what one piece holds: its unit (given the next unit index, which its tables
    /// then refer to), its tables and events, and its problems. For a kept earlier
    /// version, the problems are those of the file on disk, and a warning says which
    /// version is in use.
    pub fn add_piece(&mut self, piece: &Piece) {
        if piece.is_kept() {
            self.diagnostics.extend(piece.kept_because.iter().cloned());
            self.diagnostics.push(Diagnostic::warning(
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
        if let Some(tables) = &piece.tables {
            let mut tables = tables.clone();
            tables.unit = tables.unit.and(unit_index);
            self.tables.push(tables);
            if piece.kind == PieceKind::Tables {
                self.table_files.push(piece.path.clone());
            }
        }
        if let Some(events) = &piece.events {
            self.evts.push(events.clone());
            self.table_files.push(piece.path.clone());
        }
    }

    /// Resolves everything into a project.
    pub fn finish(mut self, dirs: Vec<PathBuf>) -> Project {
        let mut project = Project {
            dirs,
            ..Project::default()
        };
        let (labels, values) = self.collect_names(&mut project.overrides);
        project.labels = labels;
        project.values = values;
        let dir_count = project.dirs.len();
        // What the resource cache will serve: samples inside their data folder.
        let rules = ReadRules::within(&project.dirs).with_max_bytes(MAX_RESOURCE_BYTES);
        for dir in 0..dir_count {
            for raw in self.tables.iter().filter(|t| t.dir == dir) {
                resolve_tables(
                    raw,
                    &self.units,
                    &self.sample_index,
                    &rules,
                    &mut project,
                    &mut self.diagnostics,
                );
            }
            for raw in self.evts.iter().filter(|e| e.dir == dir) {
                resolve_evt(raw, &mut project, &mut self.diagnostics);
            }
        }
        project.units = self.units;
        complete_events_and_tracks(&mut project, &mut self.diagnostics);
        project.samples = self.sample_index.paths();
        project.diagnostics = self.diagnostics;
        project
    }

    /// Labels and named values from every unit and table, in load order: later
    /// definitions win.
    fn collect_names(
        &self,
        overrides: &mut Vec<Override>,
    ) -> (HashMap<String, NameDef>, HashMap<String, NameDef>) {
        let mut labels: HashMap<String, NameDef> = HashMap::new();
        let mut values: HashMap<String, NameDef> = HashMap::new();
        let mut define =
            |name: &str, value: NameValue, origin: Origin, overrides: &mut Vec<Override>| {
                let key = name.to_ascii_lowercase();
                let new = NameDef {
                    name: name.to_string(),
                    value,
                    origin,
                };
                let map = match value {
                    NameValue::Code(_) => &mut labels,
                    NameValue::Value(_) => &mut values,
                };
                if let Some(old) = map.insert(key, new.clone())
                    && old.value != new.value
                {
                    overrides.push(Override {
                        what: format!("name {name}"),
                        old: old.origin,
                        new: new.origin,
                    });
                }
            };
        let dirs = self
            .units
            .iter()
            .map(|u| u.dir)
            .chain(self.tables.iter().map(|t| t.dir))
            .max();
        for dir in 0..=dirs.unwrap_or(0) {
            for (index, unit) in self.units.iter().enumerate().filter(|(_, u)| u.dir == dir) {
                let origin_of = |address: u32| {
                    unit.locate(address)
                        .map_or_else(|| Origin::new(unit.path(), 0), |(f, l)| Origin::new(f, l))
                };
                for (name, address) in &unit.labels {
                    let at = CodeRef {
                        unit: index,
                        address: *address,
                    };
                    define(name, NameValue::Code(at), origin_of(*address), overrides);
                }
                for (name, value) in &unit.constants {
                    define(
                        name,
                        NameValue::Value(*value),
                        Origin::new(unit.path(), 0),
                        overrides,
                    );
                }
                if unit.sym.is_none()
                    && let Some(hsm) = &unit.hsm
                {
                    for symbol in &hsm.symbols {
                        if symbols::lookup(unit.layout, &symbol.name).is_none() {
                            let origin =
                                Origin::new(unit.path().with_extension("hsm"), symbol.line);
                            define(
                                &symbol.name,
                                NameValue::Value(symbol.value),
                                origin,
                                overrides,
                            );
                        }
                    }
                }
            }
            for raw in self.tables.iter().filter(|t| t.dir == dir) {
                for equate in &raw.tables.equates {
                    define(
                        &equate.name,
                        NameValue::Value(equate.value),
                        raw.source.origin(equate.line),
                        overrides,
                    );
                }
                for patch in &raw.tables.patches {
                    if let IdRef::Number(id) = patch.id
                        && !patch.name.is_empty()
                        && hitlist_name_ok(&patch.name)
                    {
                        define(
                            &patch.name,
                            NameValue::Value(id),
                            raw.source.origin(patch.line),
                            overrides,
                        );
                    }
                }
            }
        }
        (labels, values)
    }
}

fn hitlist_name_ok(name: &str) -> bool {
    crate::toolchain::formats::text::is_identifier(name)
}

/// The resource-cache name of a sample file: its path relative to the last data
/// directory that contains it, with `/` separators. A file that exists is named by where
/// it really is, and only inside a directory that really holds it — the cache's rule: a
/// link leading out of its data directory names nothing.
pub fn resource_name(file: &Path, dirs: &[PathBuf]) -> Option<String> {
    let canonical = file.canonicalize().ok();
    dirs.iter().rev().find_map(|dir| {
        let relative = match &canonical {
            Some(canonical) => {
                let dir = dir.canonicalize().ok()?;
                canonical.strip_prefix(dir).ok()?.to_path_buf()
            }
            None => file.strip_prefix(dir).ok()?.to_path_buf(),
        };
        let text = relative.to_string_lossy().replace('\\', "/");
        (!text.is_empty() && !text.split('/').any(|c| c == "..")).then_some(text)
    })
}

/// What is said of a patch whose sample file the file rules refuse (the loader and
/// `check` say it alike, and `check` classifies it by these words).
pub(crate) fn refused_sample(id: u32, name: &str, path: &str, refusal: &Refusal) -> String {
    format!("patch {id} ({name}): sample file `{path}` is refused ({refusal}); it is not used")
}

/// Looks a name up as a number: the document's equates, then the project's names,
/// then the built-in constants.
fn number_of(name: &str, raw: Option<&RawTables>, project: &Project) -> Result<i64, String> {
    if let Some(value) = raw.and_then(|r| tables::equate(&r.tables, name)) {
        return Ok(value);
    }
    let key = name.to_ascii_lowercase();
    if let Some(NameValue::Value(v)) = project.values.get(&key).map(|n| n.value) {
        return Ok(v);
    }
    if let Some(value) = symbols::constant(name) {
        return Ok(value);
    }
    if project.labels.contains_key(&key) {
        return Err("is a code label, not a number".into());
    }
    Err("is not defined (no equate, constant or name has it)".into())
}

fn to_u32(value: i64, what: &str) -> Result<u32, String> {
    u32::try_from(value).map_err(|_| format!("{what} {value} is out of range (0 to 4294967295)"))
}

fn resolve_tables(
    raw: &RawTables,
    units: &[CodeUnit],
    samples: &SampleIndex,
    rules: &ReadRules,
    project: &mut Project,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let source = &raw.source;
    let t = &raw.tables;
    let column = |columns: &[u32], i: usize| columns.get(i).copied().unwrap_or(1);
    let dir_root = project.dirs.get(raw.dir).cloned();

    for patch in &t.patches {
        let id = resolve_id(&patch.id, "patch ID", |n| number_of(n, Some(raw), project))
            .and_then(|v| to_u32(v, "patch ID"));
        let id = match id {
            Ok(id) => id,
            Err(message) => {
                diagnostics.push(source.error(patch.line, 1, message));
                continue;
            }
        };
        let relative = tables::patch_path(&patch.path);
        let origin = source.origin(patch.line);
        let found = samples.find(&relative, &origin.file, dir_root.as_deref(), rules);
        let refused = found.as_ref().err().cloned();
        let mut file = found.ok().flatten();
        // A sample must live in a data directory: its name there is what the resource
        // cache serves (and what a later directory can override).
        let resource = file.as_ref().and_then(|f| resource_name(f, &project.dirs));
        let problem = if let Some(refusal) = refused {
            Some(refused_sample(id, &patch.name, &patch.path, &refusal))
        } else if file.is_some() && resource.is_none() {
            file = None;
            Some(format!(
                "patch {id} ({}): `{}` is outside the data directories; it is not used",
                patch.name, patch.path
            ))
        } else if file.is_none() {
            Some(format!(
                "patch {id} ({}): sample file `{}` not found",
                patch.name, patch.path
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            diagnostics.push(source.warning(patch.line, column(&patch.field_columns, 2), message));
        }
        let def = PatchDef {
            id,
            name: patch.name.clone(),
            path_text: patch.path.clone(),
            resource: resource.map(|r| std::sync::Arc::from(r.as_str())),
            path: file
                .as_ref()
                .map(|f| std::sync::Arc::from(f.to_string_lossy().as_ref())),
            file,
            looped: patch.looped,
            piano: patch.piano,
            origin,
        };
        put(
            &mut project.patches,
            id,
            def,
            || format!("patch {id}"),
            |d| &d.origin,
            &mut project.overrides,
        );
    }

    // IDs the project's lists hold so far, against MAX_HIT_LIST_IDS (kept up to date
    // below, not summed again per list, so many lists stay linear).
    let mut expanded: u64 = project
        .hit_lists
        .values()
        .map(|l| l.entries.len() as u64)
        .sum();
    for list in &t.global_hit_lists {
        let id = resolve_id(&list.id, "hit list ID", |n| {
            number_of(n, Some(raw), project)
        })
        .and_then(|v| to_u32(v, "hit list ID"));
        let id = match id {
            Ok(id) => id,
            Err(message) => {
                diagnostics.push(source.error(list.line, 1, message));
                continue;
            }
        };
        let (parsed, found) = HitList::parse_text(
            &list.list_text,
            &source.file,
            list.line,
            list.value_column.saturating_sub(1),
        );
        diagnostics.extend(found.into_iter().map(|d| source.diagnostic(d)));
        let mut unresolved = Vec::new();
        let resolved = parsed.resolve_names(|name| match number_of(name, Some(raw), project) {
            Ok(v) => u32::try_from(v).ok(),
            Err(_) => {
                unresolved.push(name.to_string());
                None
            }
        });
        let replaced = project
            .hit_lists
            .get(&id)
            .map_or(0, |l| l.entries.len() as u64);
        let entries = resolved.and_then(|l| {
            let count = l.id_count()?;
            Ok((count, l))
        });
        let entries = match entries {
            Ok((count, _)) if expanded - replaced + count > MAX_HIT_LIST_IDS => {
                diagnostics.push(source.error(
                    list.line,
                    list.value_column,
                    format!(
                        "hit list {id} expands to {count} IDs; with the lists before it the \
                         project's hit lists would hold more than {MAX_HIT_LIST_IDS}, so it is \
                         not loaded"
                    ),
                ));
                continue;
            }
            Ok((count, l)) => {
                expanded = expanded - replaced + count;
                l.ids().map(Iterator::collect).unwrap_or_default()
            }
            Err(e) => {
                let message = if unresolved.is_empty() {
                    format!("hit list {id}: {e}")
                } else {
                    format!("hit list {id}: unknown name(s) {}", unresolved.join(", "))
                };
                diagnostics.push(source.error(list.line, list.value_column, message));
                continue;
            }
        };
        let def = HitListDef {
            id,
            entries,
            origin: source.origin(list.line),
        };
        put(
            &mut project.hit_lists,
            id,
            def,
            || format!("hit list {id}"),
            |d| &d.origin,
            &mut project.overrides,
        );
    }

    for track in &t.tracks {
        match resolve_track(track, raw, units, project) {
            Ok(def) => {
                let id = def.id;
                put(
                    &mut project.tracks,
                    id,
                    def,
                    || format!("track {id}"),
                    |d| &d.origin,
                    &mut project.overrides,
                );
            }
            Err((field, message)) => {
                diagnostics.push(source.error(
                    track.line,
                    column(&track.field_columns, field),
                    message,
                ));
            }
        }
    }

    for mapping in &t.event_mappings {
        let event_type = resolve_id(&mapping.event_type, "event type", |n| {
            number_of(n, Some(raw), project)
        });
        let track = resolve_id(&mapping.track_id, "track", |n| {
            number_of(n, Some(raw), project)
        })
        .and_then(|v| to_u32(v, "track ID"));
        match (event_type, track) {
            (Ok(type_number), Ok(track_id)) => {
                let key = mapping.name.to_ascii_lowercase();
                let def = EventDef {
                    name: mapping.name.clone(),
                    type_number,
                    event_type: EventType::from_number(type_number),
                    track_id,
                    implicit: false,
                    origin: source.origin(mapping.line),
                };
                let name = mapping.name.clone();
                put(
                    &mut project.events,
                    key,
                    def,
                    || format!("event {name}"),
                    |d| &d.origin,
                    &mut project.overrides,
                );
            }
            (Err(message), _) => diagnostics.push(source.error(
                mapping.line,
                column(&mapping.field_columns, 0),
                message,
            )),
            (_, Err(message)) => diagnostics.push(source.error(
                mapping.line,
                column(&mapping.field_columns, 1),
                message,
            )),
        }
    }
}

/// One `[Track]` entry; the error names the field index (for its column) and why.
fn resolve_track(
    track: &hot::TrackDef,
    raw: &RawTables,
    units: &[CodeUnit],
    project: &Project,
) -> Result<TrackDef, (usize, String)> {
    let number = |field: usize,
                  id: &Option<IdRef>,
                  what: &str,
                  default: i64|
     -> Result<i64, (usize, String)> {
        match id {
            None => Ok(default),
            Some(id) => {
                resolve_id(id, what, |n| number_of(n, Some(raw), project)).map_err(|m| (field, m))
            }
        }
    };
    let id = resolve_id(&track.id, "track ID", |n| number_of(n, Some(raw), project))
        .and_then(|v| to_u32(v, "track ID"))
        .map_err(|m| (0, m))?;
    let optional_id =
        |field: usize, id: &Option<IdRef>, what: &str| -> Result<Option<u32>, (usize, String)> {
            let value = number(field, id, what, 0)?;
            let value = to_u32(value, what).map_err(|m| (field, m))?;
            Ok((value != 0).then_some(value))
        };
    let hit_list = optional_id(7, &track.hitlist, "hit list")?;
    let patch = optional_id(8, &track.patch, "patch")?;
    let owner = raw.unit.and_then(|u| units.get(u).map(|unit| (u, unit)));
    let (entry, name) = match &track.subroutine {
        Some(IdRef::Name(label)) => {
            let at = subroutine(label, owner, project).ok_or_else(|| {
                (
                    1,
                    format!("track {id}: subroutine `{label}` is not a label in any loaded code"),
                )
            })?;
            (Some(at), label.clone())
        }
        Some(IdRef::Number(address)) if *address != 0 => {
            let (unit_index, unit) = owner.ok_or_else(|| {
                (1, format!("track {id}: subroutine address {address} needs the .hit the table belongs to"))
            })?;
            let address = u32::try_from(*address)
                .ok()
                .filter(|a| (*a as usize) < unit.hit.bytes().len())
                .ok_or_else(|| {
                    (
                        1,
                        format!("track {id}: subroutine address {address} is outside the code"),
                    )
                })?;
            (
                Some(CodeRef {
                    unit: unit_index,
                    address,
                }),
                unit.label_at(address)
                    .map_or_else(|| format!("track_{id}"), str::to_string),
            )
        }
        _ => {
            // FreeSO's TS1 rule: the address is TrackData[hit list] or TrackData[patch].
            let derived = owner.and_then(|(unit_index, unit)| {
                [hit_list, patch].into_iter().flatten().find_map(|key| {
                    unit.track_data
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, address)| CodeRef {
                            unit: unit_index,
                            address: *address,
                        })
                })
            });
            let name = derived
                .and_then(|at| units.get(at.unit)?.label_at(at.address).map(str::to_string))
                .unwrap_or_else(|| format!("track_{id}"));
            (derived, name)
        }
    };
    Ok(TrackDef {
        id,
        name,
        entry,
        volume: number(2, &track.volume, "volume", i64::from(FULL_VOLUME))? as i32,
        args_type: number(3, &track.arguments, "arguments", 0)? as i32,
        duck_priority: number(4, &track.ducking_priority, "ducking priority", 20)? as i32,
        control_group: ControlGroup::from_number(number(
            5,
            &track.control_group,
            "control group",
            1,
        )?),
        spl: number(6, &track.sound_pressure_level, "sound pressure level", 20)? as i32,
        hit_list,
        patch,
        priority: number(9, &track.priority, "priority", i64::from(DEFAULT_PRIORITY))? as i32,
        origin: raw.source.origin(track.line),
    })
}

/// A subroutine name: the owning unit's labels and `.hsm`, then the project's names.
fn subroutine(
    label: &str,
    owner: Option<(usize, &CodeUnit)>,
    project: &Project,
) -> Option<CodeRef> {
    if let Some((unit_index, unit)) = owner {
        if let Some(address) = unit.label(label) {
            return Some(CodeRef {
                unit: unit_index,
                address,
            });
        }
        if let Some(symbol) = unit.hsm.as_ref().and_then(|h| h.get(label)) {
            return Some(CodeRef {
                unit: unit_index,
                address: u32::try_from(symbol.value).ok()?,
            });
        }
    }
    match project.labels.get(&label.to_ascii_lowercase())?.value {
        NameValue::Code(at) => Some(at),
        NameValue::Value(_) => None,
    }
}

fn resolve_evt(raw: &RawEvents, project: &mut Project, diagnostics: &mut Vec<Diagnostic>) {
    for event in &raw.events.events {
        let event_type = resolve_id(&event.event_type, "event type", |n| {
            number_of(n, None, project)
        });
        let track = resolve_id(&event.track_id, "track", |n| number_of(n, None, project))
            .and_then(|v| u32::try_from(v).map_err(|_| format!("track ID {v} is out of range")));
        match (event_type, track) {
            (Ok(type_number), Ok(track_id)) => {
                let def = EventDef {
                    name: event.name.clone(),
                    type_number,
                    event_type: EventType::from_number(type_number),
                    track_id,
                    implicit: false,
                    origin: Origin::new(raw.file.clone(), event.line),
                };
                let name = event.name.clone();
                put(
                    &mut project.events,
                    event.key(),
                    def,
                    || format!("event {name}"),
                    |d| &d.origin,
                    &mut project.overrides,
                );
            }
            (Err(message), _) | (_, Err(message)) => {
                diagnostics.push(Diagnostic::error(&raw.file, event.line, 1, message));
            }
        }
    }
}

/// True for event types that start or stop a track (the others use the track ID as a
/// station code, a music mode or nothing).
pub fn needs_track(event_type: EventType) -> bool {
    matches!(
        event_type,
        EventType::Play
            | EventType::PlayPiano
            | EventType::Stop
            | EventType::Kill
            | EventType::KillInstance
    )
}

fn default_track(id: u32, name: String, entry: Option<CodeRef>, origin: Origin) -> TrackDef {
    TrackDef {
        id,
        name,
        entry,
        volume: FULL_VOLUME,
        args_type: 2,
        duck_priority: 20,
        control_group: ControlGroup::Fx,
        spl: 20,
        hit_list: None,
        patch: None,
        priority: DEFAULT_PRIORITY,
        origin,
    }
}

/// Events whose track no table defines get one from the export tables or a label named
/// like the event (TSO's way); every label nobody maps becomes an event of its own name.
fn complete_events_and_tracks(project: &mut Project, diagnostics: &mut Vec<Diagnostic>) {
    let label_of = |project: &Project, name: &str| -> Option<CodeRef> {
        match project.labels.get(&name.to_ascii_lowercase())?.value {
            NameValue::Code(at) => Some(at),
            NameValue::Value(_) => None,
        }
    };
    let mut missing = Vec::new();
    for event in project.events.values() {
        if needs_track(event.event_type) && !project.tracks.contains_key(&event.track_id) {
            missing.push((event.name.clone(), event.track_id, event.origin.clone()));
        }
    }
    for (name, track_id, origin) in missing {
        let exported = project
            .units
            .iter()
            .enumerate()
            .rev()
            .find_map(|(index, unit)| {
                let address = unit.hit.entry(track_id)?;
                Some(CodeRef {
                    unit: index,
                    address,
                })
            });
        match exported.or_else(|| label_of(project, &name)) {
            Some(at) => {
                let label = project
                    .units
                    .get(at.unit)
                    .and_then(|u| u.label_at(at.address))
                    .map_or_else(|| name.clone(), str::to_string);
                project
                    .tracks
                    .insert(track_id, default_track(track_id, label, Some(at), origin));
            }
            None => diagnostics.push(Diagnostic::warning(
                &origin.file,
                origin.line,
                0,
                format!("event `{name}` refers to track {track_id}, which no table, export table or label defines"),
            )),
        }
    }

    // Labels nobody maps become events of their own name (the TSO convention: the
    // subroutine is named like the event). Labels starting with `_` are internal.
    let by_entry: HashMap<CodeRef, u32> = project
        .tracks
        .values()
        .filter_map(|t| Some((t.entry?, t.id)))
        .collect();
    let mut next_id = IMPLICIT_TRACK_BASE;
    let mut labels: Vec<(String, CodeRef, Origin)> = project
        .labels
        .values()
        .filter_map(|n| match n.value {
            NameValue::Code(at) if !n.name.starts_with('_') => {
                Some((n.name.clone(), at, n.origin.clone()))
            }
            _ => None,
        })
        .collect();
    labels.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    for (label, at, origin) in labels {
        let key = label.to_ascii_lowercase();
        if project.events.contains_key(&key) {
            continue;
        }
        let track_id = match by_entry.get(&at) {
            Some(id) => *id,
            None => {
                while project.tracks.contains_key(&next_id) {
                    next_id += 1;
                }
                let id = next_id;
                project.tracks.insert(
                    id,
                    default_track(id, label.clone(), Some(at), origin.clone()),
                );
                id
            }
        };
        project.events.insert(
            key,
            EventDef {
                name: label,
                type_number: 1,
                event_type: EventType::Play,
                track_id,
                implicit: true,
                origin,
            },
        );
    }
}
