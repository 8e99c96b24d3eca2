//! One document's tables resolved into definitions — patches (with their sample files),
//! global hit lists, tracks and event mappings — and the events of a `.evt` list. A
//! definition replacing an earlier one is recorded as an override.

use super::names::{number_of, to_u32};
use super::put;
use super::samples::{SampleIndex, refused_sample, resource_name_with};
use super::tracks::resolve_track;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::hitlist::HitList;
use crate::toolchain::formats::hot::{self, IdRef};
use crate::toolchain::fsrules::ReadRules;
use crate::toolchain::project::defs::{EventDef, EventType, HitListDef, Origin, PatchDef};
use crate::toolchain::project::error::ResolveError;
use crate::toolchain::project::tables::{self, RawEvents, RawTables, resolve_id};
use crate::toolchain::project::unit::CodeUnit;
use crate::toolchain::project::{DefinitionKind, MAX_HIT_LIST_IDS, Project};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The column of value field `i` (1 when the entry has no such field).
fn column(columns: &[u32], i: usize) -> u32 {
    columns.get(i).copied().unwrap_or(1)
}

/// Resolves the tables of one document into the project.
pub(super) struct TableResolver<'a> {
    /// The document's tables.
    pub raw: &'a RawTables,
    /// The unit they belong to, as numbered in the project (not `raw.unit`, which
    /// stands for its piece's own unit).
    pub unit: Option<usize>,
    /// Every unit loaded (a table may belong to one).
    pub units: &'a [CodeUnit],
    /// The sample files of every directory.
    pub samples: &'a SampleIndex,
    /// What the resource cache may read.
    pub rules: &'a ReadRules,
    /// The project's directories, canonical (`None` where one is not there).
    pub canonical_dirs: &'a [Option<PathBuf>],
    /// The project the definitions go into.
    pub project: &'a mut Project,
    /// Where problems go.
    pub diagnostics: &'a mut Vec<Diagnostic>,
}

impl TableResolver<'_> {
    /// Patches, then hit lists, tracks and event mappings (a later kind may name an
    /// earlier one).
    pub(super) fn resolve(mut self) {
        let t = &self.raw.tables;
        for patch in &t.patches {
            self.patch(patch);
        }
        // IDs the project's lists hold so far, against MAX_HIT_LIST_IDS (kept up to date
        // list by list, not summed again per list, so many lists stay linear).
        let mut expanded: u64 = self
            .project
            .hit_lists
            .values()
            .map(|l| l.entries.len() as u64)
            .sum();
        for list in &t.global_hit_lists {
            self.hit_list(list, &mut expanded);
        }
        for track in &t.tracks {
            self.track(track);
        }
        for mapping in &t.event_mappings {
            self.event_mapping(mapping);
        }
    }

    /// A name of this document as a number, or why it is none.
    fn id(&self, id: &IdRef, what: &'static str) -> Result<i64, ResolveError> {
        resolve_id(id, what, |n| number_of(n, Some(self.raw), self.project))
    }

    /// A 32-bit ID, or `None` after reporting why at `line`.
    fn id_u32(&mut self, id: &IdRef, what: &'static str, line: u32) -> Option<u32> {
        match self.id(id, what).and_then(|v| to_u32(v, what)) {
            Ok(id) => Some(id),
            Err(problem) => {
                let d = self.raw.source.resolve_error(line, 1, &problem);
                self.diagnostics.push(d);
                None
            }
        }
    }

    fn patch(&mut self, patch: &hot::PatchDef) {
        let Some(id) = self.id_u32(&patch.id, "patch ID", patch.line) else {
            return;
        };
        let source = &self.raw.source;
        let relative = tables::patch_path(&patch.path);
        let origin = source.origin(patch.line);
        let dir_root = self.project.dirs.get(self.raw.dir).cloned();
        let found = self
            .samples
            .find(&relative, &origin.file, dir_root.as_deref(), self.rules);
        let refused = found.as_ref().err().cloned();
        let (mut file, canonical) = found.ok().flatten().unzip();
        // A sample must live in a data directory: its name there is what the resource
        // cache serves (and what a later directory can override).
        let packed = file
            .as_ref()
            .and_then(|f| self.samples.packed(f))
            .map(|(pack, entry)| (pack.to_path_buf(), entry.to_string()));
        let resource = match &packed {
            Some((_, entry)) => Some(entry.clone()),
            None => file.as_ref().and_then(|f| {
                let canonical = canonical
                    .flatten()
                    .or_else(|| self.rules.canonicalize(f).ok());
                resource_name_with(f, canonical, &self.project.dirs, self.canonical_dirs)
            }),
        };
        let found_by_name = resource.as_deref().is_some_and(|r| stands_in(&relative, r));
        let problem = if let Some(refusal) = refused {
            Some((
                DiagCode::SampleRefused,
                refused_sample(id, &patch.name, &patch.path, &refusal),
            ))
        } else if file.is_some() && resource.is_none() {
            file = None;
            Some((
                DiagCode::SampleOutsideData,
                format!(
                    "patch {id} ({}): `{}` is outside the data directories; it is not used",
                    patch.name, patch.path
                ),
            ))
        } else if file.is_none() {
            Some((
                DiagCode::MissingSample,
                format!(
                    "patch {id} ({}): sample file `{}` not found",
                    patch.name, patch.path
                ),
            ))
        } else if found_by_name {
            Some((
                DiagCode::SampleFoundByName,
                format!(
                    "patch {id} ({}): `{}` is not there; `{}`, found by its file name alone, \
                     plays instead",
                    patch.name,
                    patch.path,
                    resource.as_deref().unwrap_or_default()
                ),
            ))
        } else {
            None
        };
        if let Some((code, message)) = problem {
            let at = column(&patch.field_columns, 2);
            let d = source.warning(code, patch.line, at, message);
            self.diagnostics
                .push(d.with_subject(patch.path.to_string()));
        }
        let def = Box::new(PatchDef {
            id,
            name: patch.name.clone(),
            path_text: patch.path.clone(),
            resource: resource.map(|r| Arc::from(r.as_str())),
            file,
            pack: packed.map(|(pack, _)| pack),
            found_by_name,
            looped: patch.looped,
            piano: patch.piano,
            origin,
        });
        let project = &mut *self.project;
        put(
            &mut project.patches,
            id,
            def,
            (DefinitionKind::Patch, || format!("patch {id}")),
            |d| &d.origin,
            &mut project.overrides,
        );
    }

    fn hit_list(&mut self, list: &hot::GlobalHitListDef, expanded: &mut u64) {
        let Some(id) = self.id_u32(&list.id, "hit list ID", list.line) else {
            return;
        };
        let source = &self.raw.source;
        let (parsed, found) = HitList::parse_text(
            &list.list_text,
            &source.file,
            list.line,
            list.value_column.saturating_sub(1),
        );
        self.diagnostics
            .extend(found.into_iter().map(|d| source.diagnostic(d)));
        let mut unresolved = Vec::new();
        let resolved =
            parsed.resolve_names(|name| match number_of(name, Some(self.raw), self.project) {
                Ok(v) => u32::try_from(v).ok(),
                Err(_) => {
                    unresolved.push(name.to_string());
                    None
                }
            });
        let replaced = self
            .project
            .hit_lists
            .get(&id)
            .map_or(0, |l| l.entries.len() as u64);
        let counted = resolved.and_then(|l| Ok((l.id_count()?, l)));
        let entries = match counted {
            Ok((count, _)) if *expanded - replaced + count > MAX_HIT_LIST_IDS => {
                self.diagnostics.push(source.error(
                    DiagCode::TooManyIds,
                    list.line,
                    list.value_column,
                    format!(
                        "hit list {id} expands to {count} IDs; with the lists before it the \
                         project's hit lists would hold more than {MAX_HIT_LIST_IDS}, so it is \
                         not loaded"
                    ),
                ));
                return;
            }
            Ok((count, l)) => {
                *expanded = *expanded - replaced + count;
                l.ids().map(Iterator::collect).unwrap_or_default()
            }
            Err(e) => {
                let d = match unresolved.first() {
                    None => source.error(
                        e.code(),
                        list.line,
                        list.value_column,
                        format!("hit list {id}: {e}"),
                    ),
                    Some(first) => source
                        .error(
                            DiagCode::UnboundSymbol,
                            list.line,
                            list.value_column,
                            format!("hit list {id}: unknown name(s) {}", unresolved.join(", ")),
                        )
                        .with_subject(first.clone()),
                };
                self.diagnostics.push(d);
                return;
            }
        };
        let def = HitListDef {
            id,
            entries,
            origin: source.origin(list.line),
        };
        let project = &mut *self.project;
        put(
            &mut project.hit_lists,
            id,
            def,
            (DefinitionKind::HitList, || format!("hit list {id}")),
            |d| &d.origin,
            &mut project.overrides,
        );
    }

    fn track(&mut self, track: &hot::TrackDef) {
        match resolve_track(track, self.raw, self.unit, self.units, self.project) {
            Ok(def) => {
                let id = def.id;
                let project = &mut *self.project;
                put(
                    &mut project.tracks,
                    id,
                    def,
                    (DefinitionKind::Track, || format!("track {id}")),
                    |d| &d.origin,
                    &mut project.overrides,
                );
            }
            Err((field, problem)) => {
                let at = column(&track.field_columns, field);
                let d = self.raw.source.resolve_error(track.line, at, &problem);
                self.diagnostics.push(d);
            }
        }
    }

    fn event_mapping(&mut self, mapping: &hot::EventMapping) {
        let event_type = self.id(&mapping.event_type, "event type");
        let track = self
            .id(&mapping.track_id, "track")
            .and_then(|v| to_u32(v, "track ID"));
        let source = &self.raw.source;
        match (event_type, track) {
            (Ok(type_number), Ok(track_id)) => {
                let key = mapping.name.to_ascii_lowercase();
                let def = EventDef {
                    name: mapping.name.as_str().into(),
                    type_number,
                    event_type: EventType::from_number(type_number),
                    track_id,
                    implicit: false,
                    origin: source.origin(mapping.line),
                };
                let name = mapping.name.clone();
                let project = &mut *self.project;
                put(
                    &mut project.events,
                    key,
                    def,
                    (DefinitionKind::Event, || format!("event {name}")),
                    |d| &d.origin,
                    &mut project.overrides,
                );
            }
            (Err(problem), _) => self.diagnostics.push(source.resolve_error(
                mapping.line,
                column(&mapping.field_columns, 0),
                &problem,
            )),
            (_, Err(problem)) => self.diagnostics.push(source.resolve_error(
                mapping.line,
                column(&mapping.field_columns, 1),
                &problem,
            )),
        }
    }
}

/// The events of a `.evt` list.
pub(super) fn resolve_evt(
    raw: &RawEvents,
    project: &mut Project,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for event in &raw.events.events {
        let event_type = resolve_id(&event.event_type, "event type", |n| {
            number_of(n, None, project)
        });
        let track = resolve_id(&event.track_id, "track", |n| number_of(n, None, project))
            .and_then(|v| to_u32(v, "track ID"));
        match (event_type, track) {
            (Ok(type_number), Ok(track_id)) => {
                let def = EventDef {
                    name: event.name.as_str().into(),
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
                    (DefinitionKind::Event, || format!("event {name}")),
                    |d| &d.origin,
                    &mut project.overrides,
                );
            }
            (Err(problem), _) | (_, Err(problem)) => {
                diagnostics.push(problem.diagnostic(&raw.file, event.line, 1));
            }
        }
    }
}

/// True when the sample found for a path with folders (`relative`, as written) is not
/// at that path: its resource name does not end with it (`..` and `.` left out), so it
/// was found by its file name alone.
fn stands_in(relative: &Path, resource: &str) -> bool {
    let written: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(part) => Some(part.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect();
    if written.len() < 2 {
        return false;
    }
    let found: Vec<String> = resource.split(['/', '\\']).map(str::to_lowercase).collect();
    !found.ends_with(&written)
}
