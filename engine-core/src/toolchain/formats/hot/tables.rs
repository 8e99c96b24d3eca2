//! The typed values the views of a `.hot` document give: one type per section HIT
//! reads, and [`HotTables`] with all of them.

use super::SECTION_EQUATES;
use super::document::HotDocument;
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::formats::text::IdRef;
use std::path::PathBuf;
use std::sync::Arc;

/// `[EventMappingEquate]` entry: a named constant.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Equate {
    /// The label, spelled as written.
    pub name: String,
    /// Its value.
    pub value: i64,
    /// 1-based line number.
    pub line: u32,
}

/// The `[Options]` section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct HotOptions {
    /// `Version=` (1 in every known file).
    pub version: Option<i64>,
    /// `LoadPriority=` (meaning unclear; hitdump writes 2).
    pub load_priority: Option<i64>,
    /// Every other entry: key, value, 1-based line.
    pub other: Vec<(String, String, u32)>,
}

/// `[TrackData]` entry: a sound / hit list ID and the subroutine address it maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TrackDataEntry {
    /// The ID (the key).
    pub id: u32,
    /// The address (the value).
    pub address: u32,
    /// 1-based line number.
    pub line: u32,
}

/// `[EventMapping]` entry (TS1): `eventname=EventType,TrackID,0,0,0,0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventMapping {
    /// The event name, spelled as written (users match it case-insensitively).
    pub name: String,
    /// The event type: a number or an `[EventMappingEquate]` label.
    pub event_type: IdRef,
    /// The track.
    pub track_id: IdRef,
    /// The remaining fields (normally four zeros).
    pub extra: Vec<IdRef>,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column of each value field: event type, track ID, then the extras.
    pub field_columns: Vec<u32>,
}

/// `[Track]` entry (TS1): `TrackID=0,Subroutine,Volume,Arguments,DuckingPriority,
/// ControlGroup,SoundPressureLevel,@HitlistID,PatchID`. Missing trailing fields are
/// `None` (with a warning); empty fields are `None` too.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TrackDef {
    /// The track ID (the key).
    pub id: IdRef,
    /// The first field, 0 in known files; meaning unknown.
    pub reserved: Option<IdRef>,
    /// The subroutine (an HSM symbol or an address).
    pub subroutine: Option<IdRef>,
    /// Volume.
    pub volume: Option<IdRef>,
    /// Arguments.
    pub arguments: Option<IdRef>,
    /// Ducking priority.
    pub ducking_priority: Option<IdRef>,
    /// Control group.
    pub control_group: Option<IdRef>,
    /// Sound pressure level.
    pub sound_pressure_level: Option<IdRef>,
    /// The hit list, without its `@`.
    pub hitlist: Option<IdRef>,
    /// True if the hit list field was written with a leading `@`.
    pub hitlist_at: bool,
    /// The patch (usually 0 in favour of one-entry hit lists).
    pub patch: Option<IdRef>,
    /// HitBench's optional 10th field: the track's Box-X priority.
    pub priority: Option<IdRef>,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column of each value field present, in order.
    pub field_columns: Vec<u32>,
}

/// `[Patch]` entry (TS1): `PatchID=0,Name,"path\file",Looped,Piano,0,0,0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PatchDef {
    /// The patch ID (the key).
    pub id: IdRef,
    /// The first field, 0 in known files; meaning unknown.
    pub reserved: Option<IdRef>,
    /// The patch name (quotes removed; shared with the project's definition).
    pub name: Arc<str>,
    /// The file path, quotes removed, backslashes kept as written (shared with the
    /// project's definition).
    pub path: Arc<str>,
    /// Looped flag (non-zero is true).
    pub looped: bool,
    /// Piano flag (non-zero is true).
    pub piano: bool,
    /// The fields after Piano (normally three zeros): a number as its value, anything
    /// else as written (numbers need no text of their own: a project's hundred thousand
    /// patches hold no strings for them).
    pub extra: Vec<IdRef>,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column of each value field present, in order.
    pub field_columns: Vec<u32>,
}

impl PatchDef {
    /// [`PatchDef::path`] as a relative path; see [`hot_path_to_relative`].
    pub fn relative_path(&self) -> PathBuf {
        hot_path_to_relative(&self.path)
    }
}

/// Turns a path written in a `.hot` file (`sounds\vox\a.wav`, possibly with a drive or a
/// leading separator) into a relative path: `\` and `/` both separate, a drive prefix,
/// empty and `.` components are dropped. `..` is kept: callers joining the result to a
/// data directory decide whether to allow it.
pub fn hot_path_to_relative(path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for (index, part) in path.split(['\\', '/']).enumerate() {
        let is_drive = index == 0 && part.len() == 2 && part.ends_with(':');
        if part.is_empty() || part == "." || is_drive {
            continue;
        }
        out.push(part);
    }
    out
}

/// `[GlobalHitList]` entry (TS1): `HitlistID=list`. The list grammar (`1,2,5-9`, names)
/// is read by the hit list module; the text is kept raw here.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GlobalHitListDef {
    /// The hit list ID (the key).
    pub id: IdRef,
    /// The list, as written.
    pub list_text: String,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column where the list starts.
    pub value_column: u32,
}

/// Every typed view of one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HotTables {
    /// `[EventMappingEquate]`.
    pub equates: Vec<Equate>,
    /// `[Options]`.
    pub options: HotOptions,
    /// `[TrackData]`.
    pub track_data: Vec<TrackDataEntry>,
    /// `[EventMapping]`.
    pub event_mappings: Vec<EventMapping>,
    /// `[Track]`.
    pub tracks: Vec<TrackDef>,
    /// `[Patch]`.
    pub patches: Vec<PatchDef>,
    /// `[GlobalHitList]`.
    pub global_hit_lists: Vec<GlobalHitListDef>,
}

/// The value of the `[EventMappingEquate]` label `name` (case-insensitive, last one wins),
/// if it is defined as a number.
pub fn equate_value(doc: &HotDocument, name: &str) -> Option<i64> {
    doc.get(SECTION_EQUATES, name).and_then(parse_int)
}

/// Resolves `id` against `[EventMappingEquate]`: numbers as they are, names as labels.
pub fn resolve_equate(doc: &HotDocument, id: &IdRef) -> Option<i64> {
    id.resolve(|name| equate_value(doc, name))
}
