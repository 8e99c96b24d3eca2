//! Every hit list of a project as the panel shows it: the global lists read from their
//! defining lines (so entries appear as written and the editor knows whether it can change
//! them), one view per track that has its own list, and each ID resolved the way the
//! engine resolves a sound.

use super::document::{Doc, ListLine};
use super::entry_text::parse_value;
use super::errors::EditError;
use super::views::{
    EntryTarget, HitListEntryView, HitListView, ListDefinition, ListOwner, Plays, SampleView,
    TrackRef,
};
use crate::toolchain::formats::hitlist::{HitEntry, MAX_RANGE_LEN};
use crate::toolchain::project::{HitListDef, Origin, Project, TrackDef};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Every hit list of `project`: the global lists by ID, then one view per track that has
/// its own list (by track ID). Reads the defining files to show entries as written and
/// to decide whether each list is editable.
pub fn hit_lists(project: &Project) -> Vec<HitListView> {
    let mut docs: HashMap<PathBuf, Result<Doc, EditError>> = HashMap::new();
    let mut out: Vec<HitListView> = project
        .hit_lists
        .values()
        .map(|def| global_view(project, def, &mut docs))
        .collect();
    for track in project.tracks.values() {
        let Some(id) = track.hit_list else { continue };
        let owner = ListOwner::Track(TrackRef::of(track));
        let view = match out
            .iter()
            .find(|v| v.id == id && v.owner == ListOwner::Global)
        {
            Some(global) => HitListView {
                owner,
                ..global.clone()
            },
            None => undefined_track_list(project, track, id, owner),
        };
        out.push(view);
    }
    out
}

/// The view of a track whose hit-list field names no hit list.
fn undefined_track_list(
    project: &Project,
    track: &TrackDef,
    id: u32,
    owner: ListOwner,
) -> HitListView {
    let plays = plays(project, id);
    let problem = match plays {
        Plays::Patch(_) => format!(
            "{}: track {} ({}) names patch {id} in its hit-list field, not a hit list; \
             `smart_setlist 0` will fault (edit the [Track] line to change it)",
            track.origin, track.id, track.name
        ),
        _ => format!(
            "{}: track {} ({}) uses hit list {id}, which is not defined",
            track.origin, track.id, track.name
        ),
    };
    HitListView {
        id,
        key: id.to_string(),
        name: None,
        owner,
        used_by: Vec::new(),
        text: String::new(),
        entries: Vec::new(),
        expanded: Vec::new(),
        definition: None,
        problems: vec![problem],
    }
}

/// Why a global list cannot be edited in its file: the reason the panel shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Unlocated {
    /// The defining file could not be read.
    #[error(transparent)]
    Unreadable(#[from] EditError),
    /// The loader did not say on which line the list is defined.
    #[error("{}: the line defining hit list {id} is not known", file.display())]
    LineUnknown {
        /// The defining file.
        file: PathBuf,
        /// The list.
        id: u32,
    },
    /// The defining line holds something else now.
    #[error(
        "{origin}: this line no longer holds hit list {id}; the file changed since \
         the project was loaded (reload the project)"
    )]
    LineChanged {
        /// Where the loader found the list.
        origin: Origin,
        /// The list.
        id: u32,
    },
    /// The key is written again further down the same file (that line wins).
    #[error(
        "{origin}: hit list `{key}` is written again on line {line} of the same file; \
         edit the file by hand"
    )]
    WrittenAgain {
        /// Where the loader found the list.
        origin: Origin,
        /// The list's key.
        key: String,
        /// The line that writes it again.
        line: u32,
    },
}

/// The line of `doc` that defines `def`, when the editor can change it there.
fn locate(doc: &Result<Doc, EditError>, def: &HitListDef) -> Result<ListLine, Unlocated> {
    let origin = &def.origin;
    let doc = doc.as_ref().map_err(|e| Unlocated::from(e.clone()))?;
    if origin.line == 0 {
        return Err(Unlocated::LineUnknown {
            file: origin.path_buf(),
            id: def.id,
        });
    }
    let Some(found) = doc.list_at_line(origin.line) else {
        return Err(Unlocated::LineChanged {
            origin: origin.clone(),
            id: def.id,
        });
    };
    match doc.effective(&found.key) {
        Some(last) if last.line != found.line => Err(Unlocated::WrittenAgain {
            origin: origin.clone(),
            key: found.key,
            line: last.line,
        }),
        _ => Ok(found),
    }
}

/// The view of a global list, read from its defining line when it can be.
fn global_view(
    project: &Project,
    def: &HitListDef,
    docs: &mut HashMap<PathBuf, Result<Doc, EditError>>,
) -> HitListView {
    let origin = &def.origin;
    let kind = Doc::kind_for(&origin.file);
    let doc = docs
        .entry(origin.path_buf())
        .or_insert_with(|| Doc::read(&origin.file));
    let mut problems = Vec::new();
    let located = locate(doc, def);
    let (key, text, read_only, tokens) = match located {
        Ok(found) => {
            let parsed = parse_value(&found.value, &origin.file, found.line, found.value_column);
            let tokens: Vec<(String, HitEntry)> = parsed.tokens;
            (found.key, found.value, None, tokens)
        }
        Err(unlocated) => {
            let reason = unlocated.to_string();
            problems.push(reason.clone());
            let tokens = def
                .entries
                .iter()
                .map(|id| (id.to_string(), HitEntry::Id(*id)))
                .collect();
            let text = def
                .entries
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",");
            (def.id.to_string(), text, Some(reason), tokens)
        }
    };
    let entries = resolve_entries(project, &tokens, &def.entries);
    let name = (!key.starts_with(|c: char| c.is_ascii_digit())).then(|| key.clone());
    let used_by = project
        .tracks
        .values()
        .filter(|t| t.hit_list == Some(def.id))
        .map(TrackRef::of)
        .collect();
    HitListView {
        id: def.id,
        key,
        name,
        owner: ListOwner::Global,
        used_by,
        text,
        entries,
        expanded: def.entries.clone(),
        definition: Some(ListDefinition {
            file: origin.path_buf(),
            line: origin.line,
            kind,
            read_only,
        }),
        problems,
    }
}

/// How many IDs an entry stands for (a name, one; a range, its length).
fn entry_len(entry: &HitEntry) -> usize {
    match entry {
        HitEntry::Id(_) | HitEntry::Name(_) => 1,
        HitEntry::Range { first, last } => {
            let len = u64::from(*last)
                .saturating_sub(u64::from(*first))
                .saturating_add(1)
                .min(MAX_RANGE_LEN);
            usize::try_from(len).unwrap_or(0)
        }
    }
}

/// Resolves written entries. When they expand to as many IDs as the loader found, the
/// loader's IDs are used (names resolved exactly as at load); otherwise each entry is
/// resolved here.
fn resolve_entries(
    project: &Project,
    tokens: &[(String, HitEntry)],
    loaded: &[u32],
) -> Vec<HitListEntryView> {
    let total: usize = tokens.iter().map(|(_, e)| entry_len(e)).sum();
    let mut loaded_ids = (total == loaded.len()).then(|| loaded.iter().copied());
    let mut out = Vec::with_capacity(tokens.len());
    for (index, (text, entry)) in tokens.iter().enumerate() {
        let mut problem = None;
        let ids: Vec<u32> = match loaded_ids.as_mut() {
            Some(iter) => iter.by_ref().take(entry_len(entry)).collect(),
            None => match entry {
                HitEntry::Id(id) => vec![*id],
                HitEntry::Range { first, last } => {
                    (*first..=*last).take(entry_len(entry)).collect()
                }
                HitEntry::Name(name) => match name_value(project, name) {
                    Some(id) => vec![id],
                    None => {
                        problem = Some(format!("`{name}` is not a known name"));
                        Vec::new()
                    }
                },
            },
        };
        out.push(HitListEntryView {
            index,
            text: text.clone(),
            entry: entry.clone(),
            targets: ids
                .into_iter()
                .map(|id| EntryTarget {
                    id,
                    plays: plays(project, id),
                })
                .collect(),
            problem,
        });
    }
    out
}

/// A name's number: the project's named values, then the built-in constants.
fn name_value(project: &Project, name: &str) -> Option<u32> {
    let value = match project.value(name).map(|n| n.value) {
        Some(crate::toolchain::project::NameValue::Value(v)) => Some(v),
        _ => crate::toolchain::symbols::constant(name),
    }?;
    u32::try_from(value).ok()
}

/// What `id` plays: a patch first, then a hit list (the engine's order).
fn plays(project: &Project, id: u32) -> Plays {
    if let Some(patch) = project.patches.get(&id) {
        return Plays::Patch(SampleView {
            patch: id,
            name: patch.name.to_string(),
            path_text: patch.path_text.to_string(),
            file: patch.file.as_deref().map(Path::to_path_buf),
            resource: patch.resource.as_deref().map(str::to_owned),
            exists: patch.pack.as_ref().map_or_else(
                || patch.file.as_ref().is_some_and(|f| f.is_file()),
                |pack| pack.is_file(),
            ),
            origin: patch.origin.clone(),
        });
    }
    match project.hit_lists.get(&id) {
        Some(list) => Plays::List {
            id,
            len: list.entries.len(),
        },
        None => Plays::Missing,
    }
}
