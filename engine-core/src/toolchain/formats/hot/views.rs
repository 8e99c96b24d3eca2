//! The typed views of a `.hot` document, one section at a time: each reads the
//! section's effective entries (the last of each key), reports every bad one with its
//! line and column, and keeps the rest.

use super::document::{HotDocument, line_number};
use super::fields::{Report, end_column, id_ref, key_id, split_fields};
use super::line::{HotEntry, Parsed};
use super::tables::{
    Equate, EventMapping, GlobalHitListDef, HotOptions, HotTables, PatchDef, TrackDataEntry,
    TrackDef,
};
use super::track_patch::{patch, track};
use super::{
    SECTION_EQUATES, SECTION_EVENT_MAPPING, SECTION_GLOBAL_HIT_LIST, SECTION_OPTIONS,
    SECTION_PATCH, SECTION_TRACK, SECTION_TRACK_DATA,
};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::formats::text::IdRef;
use std::collections::HashMap;
use std::path::Path;

/// Items that carry an ID, for "last definition wins" among different spellings of the
/// same key (`0x10` and `16`).
fn keep_last<T>(
    items: Vec<(T, u32, u32)>,
    id: impl Fn(&T) -> IdRef,
    section: &str,
    report: &mut Report<'_>,
) -> Vec<T> {
    let mut last: HashMap<String, (usize, u32)> = HashMap::new();
    for (index, (item, line, _)) in items.iter().enumerate() {
        last.insert(id(item).identity(), (index, *line));
    }
    let mut out = Vec::with_capacity(items.len());
    for (index, (item, line, column)) in items.into_iter().enumerate() {
        match last.get(&id(&item).identity()) {
            Some(&(winner, winner_line)) if winner != index => {
                let message = format!(
                    "this [{section}] entry is defined again on line {winner_line}; \
                     the later definition wins"
                );
                let d = Diagnostic::warning(
                    DiagCode::DuplicateKey,
                    report.file(),
                    line,
                    column,
                    message,
                )
                .with_subject(id(&item).to_string())
                .with_section(section);
                report.push(d);
            }
            _ => out.push(item),
        }
    }
    out
}

impl HotDocument {
    /// The effective entries of `section` (last occurrence of each key, in file order),
    /// reporting unparsed lines and overridden duplicates as warnings.
    fn view_entries(&self, section: &str, report: &mut Report<'_>) -> Vec<HotEntry> {
        let flags = self.section_flags(section);
        for (index, (line, inside)) in self.lines.iter().zip(flags).enumerate() {
            if let (true, Parsed::Unparsed { column }) = (inside, &line.parsed) {
                report.warning(
                    DiagCode::BadSyntax,
                    line_number(index),
                    *column,
                    format!(
                        "line in [{section}] is not `key=value`, a `[section]` header or a \
                         comment; it is ignored"
                    ),
                );
            }
        }
        let all = self.entries(section);
        let mut last: HashMap<String, (usize, u32)> = HashMap::new();
        for (index, entry) in all.iter().enumerate() {
            last.insert(entry.key.to_ascii_lowercase(), (index, entry.line));
        }
        let mut out = Vec::with_capacity(all.len());
        for (index, entry) in all.into_iter().enumerate() {
            match last.get(&entry.key.to_ascii_lowercase()) {
                Some(&(winner, winner_line)) if winner != index => {
                    let message = format!(
                        "`{}` is set again in [{section}] on line {winner_line}; \
                         this earlier value is ignored",
                        entry.key
                    );
                    let d = Diagnostic::warning(
                        DiagCode::DuplicateKey,
                        report.file(),
                        entry.line,
                        entry.key_column,
                        message,
                    );
                    report.push(d.with_subject(entry.key).with_section(section));
                }
                _ => out.push(entry),
            }
        }
        out
    }

    /// `[EventMappingEquate]`: `Label=Value` with an integer value.
    pub fn equates(&self, file: &Path) -> (Vec<Equate>, Vec<Diagnostic>) {
        let mut report = Report::new(file);
        let section = SECTION_EQUATES;
        let mut out = Vec::new();
        for entry in self.view_entries(section, &mut report) {
            match parse_int(&entry.value) {
                Some(value) => out.push(Equate {
                    name: entry.key,
                    value,
                    line: entry.line,
                }),
                None if entry.value.is_empty() => report.error(
                    DiagCode::MissingField,
                    entry.line,
                    entry.value_column,
                    format!("equate `{}` has no value", entry.key),
                ),
                None => report.error(
                    DiagCode::BadNumber,
                    entry.line,
                    entry.value_column,
                    format!(
                        "equate `{}` must be an integer (decimal or 0x hex), found `{}`",
                        entry.key, entry.value
                    ),
                ),
            }
        }
        (out, report.finish())
    }

    /// `[Options]`: `Version`, `LoadPriority` and the rest.
    pub fn options(&self, file: &Path) -> (HotOptions, Vec<Diagnostic>) {
        let mut report = Report::new(file);
        let mut out = HotOptions::default();
        for entry in self.view_entries(SECTION_OPTIONS, &mut report) {
            let slot = if entry.key.eq_ignore_ascii_case("Version") {
                &mut out.version
            } else if entry.key.eq_ignore_ascii_case("LoadPriority") {
                &mut out.load_priority
            } else {
                out.other.push((entry.key, entry.value, entry.line));
                continue;
            };
            match parse_int(&entry.value) {
                Some(n) => *slot = Some(n),
                None => report.error(
                    DiagCode::BadNumber,
                    entry.line,
                    entry.value_column,
                    format!(
                        "`{}` must be an integer (decimal or 0x hex), found `{}`",
                        entry.key, entry.value
                    ),
                ),
            }
            if entry.key.eq_ignore_ascii_case("Version")
                && let Some(version) = out.version
                && version != 1
            {
                report.warning(
                    DiagCode::UnsupportedVersion,
                    entry.line,
                    entry.value_column,
                    format!("unknown .hot version {version}; reading it as version 1"),
                );
            }
        }
        (out, report.finish())
    }

    /// `[TrackData]`: `ID=address`, both 32-bit numbers in decimal or `0x` hex.
    pub fn track_data(&self, file: &Path) -> (Vec<TrackDataEntry>, Vec<Diagnostic>) {
        let mut report = Report::new(file);
        let section = SECTION_TRACK_DATA;
        let mut items = Vec::new();
        for entry in self.view_entries(section, &mut report) {
            let number = |text: &str, what: &str, column: u32, report: &mut Report<'_>| {
                let value = parse_int(text).and_then(|n| u32::try_from(n).ok());
                if value.is_none() {
                    report.error(
                        DiagCode::BadNumber,
                        entry.line,
                        column,
                        format!(
                            "track data {what} must be a number from 0 to 0xFFFFFFFF \
                             (decimal or 0x hex), found `{text}`"
                        ),
                    );
                }
                value
            };
            let id = number(&entry.key, "ID", entry.key_column, &mut report);
            let address = number(&entry.value, "address", entry.value_column, &mut report);
            if let (Some(id), Some(address)) = (id, address) {
                let item = TrackDataEntry {
                    id,
                    address,
                    line: entry.line,
                };
                items.push((item, entry.line, entry.key_column));
            }
        }
        let out = keep_last(
            items,
            |t| IdRef::Number(i64::from(t.id)),
            section,
            &mut report,
        );
        (out, report.finish())
    }

    /// `[EventMapping]` (TS1): `eventname=EventType,TrackID,0,0,0,0`.
    pub fn event_mappings(&self, file: &Path) -> (Vec<EventMapping>, Vec<Diagnostic>) {
        let mut report = Report::new(file);
        let mut out = Vec::new();
        'entries: for entry in self.view_entries(SECTION_EVENT_MAPPING, &mut report) {
            let fields = split_fields(&entry.value, entry.value_column);
            if fields.len() < 2 {
                report.error(
                    DiagCode::MissingField,
                    entry.line,
                    fields
                        .first()
                        .map_or(entry.value_column, |_| end_column(&entry)),
                    format!(
                        "event mapping `{}` needs an event type and a track ID \
                         (`EventType,TrackID,0,0,0,0`)",
                        entry.key
                    ),
                );
                continue;
            }
            let mut refs = Vec::with_capacity(fields.len());
            for (index, field) in fields.iter().enumerate() {
                let what = match index {
                    0 => "event type".to_owned(),
                    1 => "track ID".to_owned(),
                    n => format!("field {}", n + 1),
                };
                match id_ref(field.text, &what) {
                    Ok(r) => refs.push(r),
                    Err(problem) => {
                        report.error(
                            problem.code(),
                            entry.line,
                            field.column,
                            format!("event mapping `{}`: {problem}", entry.key),
                        );
                        continue 'entries;
                    }
                }
            }
            let mut refs = refs.into_iter();
            if let (Some(event_type), Some(track_id)) = (refs.next(), refs.next()) {
                out.push(EventMapping {
                    name: entry.key,
                    event_type,
                    track_id,
                    extra: refs.collect(),
                    line: entry.line,
                    field_columns: fields.iter().map(|f| f.column).collect(),
                });
            }
        }
        (out, report.finish())
    }

    /// `[Track]` (TS1): nine fields; missing trailing ones are warned about and `None`,
    /// extra ones are warned about and ignored.
    pub fn tracks(&self, file: &Path) -> (Vec<TrackDef>, Vec<Diagnostic>) {
        let section = SECTION_TRACK;
        let mut report = Report::new(file);
        let mut items = Vec::new();
        for entry in self.view_entries(section, &mut report) {
            if let Some(def) = track(&entry, &mut report) {
                items.push((def, entry.line, entry.key_column));
            }
        }
        let out = keep_last(items, |t| t.id.clone(), section, &mut report);
        (out, report.finish())
    }

    /// `[Patch]` (TS1): `PatchID=0,Name,"path\file",Looped,Piano,0,0,0`. Name and path
    /// are required; missing Looped/Piano are warned about and read as false.
    pub fn patches(&self, file: &Path) -> (Vec<PatchDef>, Vec<Diagnostic>) {
        let section = SECTION_PATCH;
        let mut report = Report::new(file);
        let mut items = Vec::new();
        for entry in self.view_entries(section, &mut report) {
            if let Some(def) = patch(&entry, &mut report) {
                items.push((def, entry.line, entry.key_column));
            }
        }
        let out = keep_last(items, |p| p.id.clone(), section, &mut report);
        (out, report.finish())
    }

    /// `[GlobalHitList]` (TS1): `HitlistID=list`, the list kept as text.
    pub fn global_hit_lists(&self, file: &Path) -> (Vec<GlobalHitListDef>, Vec<Diagnostic>) {
        let section = SECTION_GLOBAL_HIT_LIST;
        let mut report = Report::new(file);
        let mut items = Vec::new();
        for entry in self.view_entries(section, &mut report) {
            let Some(id) = key_id(&entry, "hit list ID", &mut report) else {
                continue;
            };
            if entry.value.is_empty() {
                report.warning(
                    DiagCode::EmptyHitList,
                    entry.line,
                    entry.value_column,
                    format!("hit list {id} is empty"),
                );
            }
            let item = GlobalHitListDef {
                id,
                list_text: entry.value,
                line: entry.line,
                value_column: entry.value_column,
            };
            items.push((item, entry.line, entry.key_column));
        }
        let out = keep_last(items, |h| h.id.clone(), section, &mut report);
        (out, report.finish())
    }

    /// Every typed view at once, diagnostics sorted by line.
    pub fn tables(&self, file: &Path) -> (HotTables, Vec<Diagnostic>) {
        fn take<T>(all: &mut Vec<Diagnostic>, (value, found): (T, Vec<Diagnostic>)) -> T {
            all.extend(found);
            value
        }
        let mut diagnostics = Vec::new();
        let d = &mut diagnostics;
        let tables = HotTables {
            equates: take(d, self.equates(file)),
            options: take(d, self.options(file)),
            track_data: take(d, self.track_data(file)),
            event_mappings: take(d, self.event_mappings(file)),
            tracks: take(d, self.tracks(file)),
            patches: take(d, self.patches(file)),
            global_hit_lists: take(d, self.global_hit_lists(file)),
        };
        diagnostics.sort_by_key(|d| (d.line, d.column));
        (tables, diagnostics)
    }
}
