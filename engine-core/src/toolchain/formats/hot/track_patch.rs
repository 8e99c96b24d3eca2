//! One `[Track]` or `[Patch]` entry read field by field into a [`TrackDef`] or a
//! [`PatchDef`], or skipped after saying why.

use super::fields::{Field, Report, end_column, id_ref, key_id, split_fields, unquote};
use super::line::HotEntry;
use super::tables::{PatchDef, TrackDef};
use crate::toolchain::diag::DiagCode;
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::formats::text::IdRef;
use std::sync::Arc;

/// Number of comma-separated fields of a `[Track]` value.
const TRACK_FIELDS: usize = 9;
/// HitBench reads one more, optional, `[Track]` field: the Box-X priority.
const TRACK_FIELDS_EXTENDED: usize = 10;
/// Number of comma-separated fields of a `[Patch]` value.
const PATCH_FIELDS: usize = 8;

/// One `[Track]` entry, or `None` after reporting why it is skipped. Warnings about the
/// field count are only reported for entries that are kept: on a skipped entry they are
/// usually a consequence of the error.
pub(super) fn track(entry: &HotEntry, report: &mut Report<'_>) -> Option<TrackDef> {
    const NAMES: [&str; TRACK_FIELDS_EXTENDED] = [
        "first field",
        "subroutine",
        "volume",
        "arguments",
        "ducking priority",
        "control group",
        "sound pressure level",
        "hit list",
        "patch ID",
        "priority",
    ];
    let id = key_id(entry, "track ID", report)?;
    let fields = split_fields(&entry.value, entry.value_column);
    let mut warnings: Vec<(DiagCode, u32, String)> = Vec::new();
    if fields.len() < TRACK_FIELDS {
        let missing = NAMES.get(fields.len()..).unwrap_or_default().join(", ");
        warnings.push((
            DiagCode::MissingField,
            end_column(entry),
            format!(
                "track {id} has {} of {TRACK_FIELDS} fields; missing: {missing}",
                fields.len()
            ),
        ));
    }
    if let Some(extra) = fields.get(TRACK_FIELDS_EXTENDED) {
        warnings.push((
            DiagCode::ExtraField,
            extra.column,
            format!(
                "track {id} has {} fields; only {TRACK_FIELDS_EXTENDED} are defined (the 10th \
                 is the priority), the rest are ignored",
                fields.len()
            ),
        ));
    }
    let mut values: [Option<IdRef>; TRACK_FIELDS_EXTENDED] = Default::default();
    let mut hitlist_at = false;
    for ((field, name), slot) in fields.iter().zip(NAMES).zip(values.iter_mut()) {
        let mut text = field.text;
        if name == "hit list"
            && let Some(rest) = text.strip_prefix('@')
        {
            hitlist_at = true;
            text = rest;
            if text.is_empty() {
                report.error(
                    DiagCode::MissingField,
                    entry.line,
                    field.column,
                    format!("track {id}: `@` must be followed by a hit list"),
                );
                return None;
            }
        }
        if text.is_empty() {
            warnings.push((
                DiagCode::EmptyField,
                field.column,
                format!("track {id}: the {name} field is empty"),
            ));
            continue;
        }
        match id_ref(text, name) {
            Ok(r) => *slot = Some(r),
            Err(problem) => {
                let message = format!("track {id}: {problem}");
                report.error(problem.code(), entry.line, field.column, message);
                return None;
            }
        }
    }
    for (code, column, message) in warnings {
        report.warning(code, entry.line, column, message);
    }
    let [
        reserved,
        subroutine,
        volume,
        arguments,
        ducking_priority,
        control_group,
        sound_pressure_level,
        hitlist,
        patch,
        priority,
    ] = values;
    Some(TrackDef {
        id,
        reserved,
        subroutine,
        volume,
        arguments,
        ducking_priority,
        control_group,
        sound_pressure_level,
        hitlist,
        hitlist_at,
        patch,
        priority,
        line: entry.line,
        field_columns: fields.iter().map(|f| f.column).collect(),
    })
}

/// One `[Patch]` entry, or `None` after reporting why it is skipped.
pub(super) fn patch(entry: &HotEntry, report: &mut Report<'_>) -> Option<PatchDef> {
    let id = key_id(entry, "patch ID", report)?;
    let fields = split_fields(&entry.value, entry.value_column);
    if fields.len() < 3 {
        report.error(
            DiagCode::MissingField,
            entry.line,
            end_column(entry),
            format!(
                "patch {id} needs at least a first field, a name and a path \
                 (`0,Name,\"path\\file\",Looped,Piano,0,0,0`)"
            ),
        );
        return None;
    }
    let mut fields_iter = fields.iter();
    let (Some(first), Some(name), Some(path)) =
        (fields_iter.next(), fields_iter.next(), fields_iter.next())
    else {
        return None;
    };
    let reserved = if first.text.is_empty() {
        None
    } else {
        match id_ref(first.text, "first field") {
            Ok(r) => Some(r),
            Err(problem) => {
                let message = format!("patch {id}: {problem}");
                report.error(problem.code(), entry.line, first.column, message);
                return None;
            }
        }
    };
    let Ok(name_text) = unquote(name.text) else {
        report.error(
            DiagCode::BadSyntax,
            entry.line,
            name.column,
            format!("patch {id}: the name's opening quote is not closed"),
        );
        return None;
    };
    let path_text = match unquote(path.text) {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => {
            report.error(
                DiagCode::EmptyField,
                entry.line,
                path.column,
                format!("patch {id}: the file path is empty"),
            );
            return None;
        }
        Err(()) => {
            report.error(
                DiagCode::BadSyntax,
                entry.line,
                path.column,
                format!("patch {id}: the file path's opening quote is not closed"),
            );
            return None;
        }
    };
    let mut flag = |field: Option<&Field<'_>>, what: &str| -> Option<bool> {
        let Some(field) = field else {
            return Some(false);
        };
        match parse_int(field.text) {
            Some(n) => Some(n != 0),
            None => {
                report.error(
                    DiagCode::BadNumber,
                    entry.line,
                    field.column,
                    format!("patch {id}: {what} must be 0 or 1, found `{}`", field.text),
                );
                None
            }
        }
    };
    let looped = flag(fields_iter.next(), "Looped")?;
    let piano = flag(fields_iter.next(), "Piano")?;
    // Count warnings only for kept entries; on skipped ones they follow from the error.
    if fields.len() < 5 {
        report.warning(
            DiagCode::MissingField,
            entry.line,
            end_column(entry),
            format!("patch {id} has no Looped/Piano flags; reading them as 0"),
        );
    }
    if let Some(extra) = fields.get(PATCH_FIELDS) {
        report.warning(
            DiagCode::ExtraField,
            entry.line,
            extra.column,
            format!(
                "patch {id} has {} fields; only {PATCH_FIELDS} are defined",
                fields.len()
            ),
        );
    }
    Some(PatchDef {
        id,
        reserved,
        name: Arc::from(name_text),
        path: Arc::from(path_text),
        looped,
        piano,
        extra: fields_iter
            .map(|f| {
                parse_int(f.text).map_or_else(|| IdRef::Name(f.text.to_owned()), IdRef::Number)
            })
            .collect(),
        line: entry.line,
        field_columns: fields.iter().map(|f| f.column).collect(),
    })
}
