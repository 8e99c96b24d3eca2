//! A table line's value field by field: where each field's text is (commas inside double
//! quotes do not split), one field replaced keeping every other byte, a new value written
//! in the style of the one it replaces, and a field's text read as a number.

use super::{FieldKind, Property};
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::project::Project;
use std::ops::Range;

/// What the user gives a field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PropertyInput {
    /// A number (a choice field writes the family's name for it when it has one).
    Number(i64),
    /// A flag.
    Flag(bool),
    /// Text: a name or a path (written as given; a path in double quotes).
    Text(String),
}

impl PropertyInput {
    /// The number the running engine is given, if the input is one.
    pub fn live_value(&self) -> Option<i64> {
        match self {
            PropertyInput::Number(n) => Some(*n),
            PropertyInput::Flag(on) => Some(i64::from(*on)),
            PropertyInput::Text(_) => None,
        }
    }
}

/// The byte range of each field's text (without the blanks around it) in `value`.
pub(crate) fn field_ranges(value: &str) -> Vec<Range<usize>> {
    if value.is_empty() {
        return Vec::new();
    }
    let mut cuts = Vec::new();
    let mut quoted = false;
    for (i, c) in value.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => cuts.push(i),
            _ => {}
        }
    }
    let mut ranges = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for end in cuts.into_iter().chain(std::iter::once(value.len())) {
        let raw = value.get(start..end).unwrap_or_default();
        let lead = raw.len() - raw.trim_start().len();
        let text = raw.trim();
        ranges.push(start + lead..start + lead + text.len());
        start = end + 1;
    }
    ranges
}

/// The text of field `index`, if the value has that many fields.
pub(crate) fn field_text(value: &str, index: usize) -> Option<&str> {
    field_ranges(value)
        .get(index)
        .and_then(|r| value.get(r.clone()))
}

/// Why a field could not be replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SpliceError {
    /// The line has fewer fields than the one asked for, by more than one.
    TooFewFields {
        /// Fields the line has.
        has: usize,
    },
}

/// `value` with field `index` replaced by `text`; every other byte kept. A field just
/// past the last one is appended (`,text`); a line missing more fields is refused, since
/// what the fields between would be is not known.
pub(crate) fn replace_field(value: &str, index: usize, text: &str) -> Result<String, SpliceError> {
    let ranges = field_ranges(value);
    match ranges.get(index) {
        Some(range) => {
            let mut out = String::with_capacity(value.len() + text.len());
            out.push_str(value.get(..range.start).unwrap_or_default());
            out.push_str(text);
            out.push_str(value.get(range.end..).unwrap_or_default());
            Ok(out)
        }
        None if index == ranges.len() => {
            let separator = if value.contains(", ") { ", " } else { "," };
            Ok(format!("{value}{separator}{text}"))
        }
        None => Err(SpliceError::TooFewFields { has: ranges.len() }),
    }
}

/// The text to write for `input` in a field that now reads `original`: a choice keeps
/// being a name when its family has one for the number; a number written in hex stays
/// hex; a path is quoted.
pub(crate) fn format_input(property: Property, input: &PropertyInput, original: &str) -> String {
    match input {
        PropertyInput::Flag(on) => if *on { "1" } else { "0" }.to_owned(),
        PropertyInput::Text(text) if property.kind() == FieldKind::Path => {
            format!("\"{}\"", text.trim_matches('"'))
        }
        PropertyInput::Text(text) => text.clone(),
        PropertyInput::Number(n) => {
            let was_name = !original.is_empty() && parse_int(original).is_none();
            let named = (was_name || property.kind() == FieldKind::Choice)
                .then(|| property.choices().into_iter().find(|&(_, v)| v == *n))
                .flatten();
            if let Some((name, _)) = named {
                return name.to_owned();
            }
            let hex = original
                .get(..2)
                .is_some_and(|p| p.eq_ignore_ascii_case("0x"));
            if hex && *n >= 0 {
                format!("0x{n:X}")
            } else {
                n.to_string()
            }
        }
    }
}

/// Checks that `text` reads back as a value for `property` (a number, a known name, a
/// quoted path, an identifier): what the editor refuses before changing a line.
pub(crate) fn check_text(property: Property, text: &str, project: &Project) -> Result<(), String> {
    match property.kind() {
        FieldKind::Path => {
            let inner = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
            match inner {
                Some(path) if !path.is_empty() && !path.contains(['"', '\n', '\r']) => Ok(()),
                _ => Err(format!("`{text}` is not a quoted path")),
            }
        }
        FieldKind::Name => {
            let ok = text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if ok {
                Ok(())
            } else {
                Err(format!("`{text}` is not a name (letters, digits and `_`)"))
            }
        }
        _ => match project.resolve_field(property, text) {
            Some(value) => check_range(property, value),
            None => Err(format!("`{text}` is not a number or a known name")),
        },
    }
}

fn check_range(property: Property, value: i64) -> Result<(), String> {
    match property.kind() {
        FieldKind::Number { min, max } if !(min..=max).contains(&value) => Err(format!(
            "{value} is outside {min}–{max} for the {}",
            property.label()
        )),
        FieldKind::Flag if !(0..=1).contains(&value) => Err(format!("{value} is not 0 or 1")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_split_outside_quotes_and_keep_their_blanks() {
        let v = r#"0, door_open ,1024,"a,b",@0"#;
        let texts: Vec<&str> = field_ranges(v).into_iter().map(|r| &v[r]).collect();
        assert_eq!(texts, ["0", "door_open", "1024", "\"a,b\"", "@0"]);
        assert_eq!(
            replace_field(v, 2, "800").unwrap(),
            r#"0, door_open ,800,"a,b",@0"#
        );
        assert_eq!(replace_field(v, 1, "x").unwrap(), r#"0, x ,1024,"a,b",@0"#);
        assert_eq!(replace_field("1,2", 2, "3").unwrap(), "1,2,3");
        assert_eq!(replace_field("1, 2", 2, "3").unwrap(), "1, 2, 3");
        assert_eq!(
            replace_field("1,2", 3, "3"),
            Err(SpliceError::TooFewFields { has: 2 })
        );
    }

    #[test]
    fn new_values_keep_the_style_of_the_old() {
        let n = PropertyInput::Number;
        assert_eq!(format_input(Property::Volume, &n(800), "1024"), "800");
        assert_eq!(
            format_input(Property::EventTrack, &n(0x2401), "0x2400"),
            "0x2401"
        );
        assert_eq!(
            format_input(Property::DuckPriority, &n(30), "duckpri_normal"),
            "duckpri_high"
        );
        assert_eq!(
            format_input(Property::DuckPriority, &n(31), "duckpri_normal"),
            "31"
        );
        assert_eq!(format_input(Property::Group, &n(2), "1"), "kGroupMusic");
        assert_eq!(
            format_input(
                Property::PatchFile,
                &PropertyInput::Text("s\\a.wav".into()),
                ""
            ),
            "\"s\\a.wav\""
        );
        assert_eq!(
            format_input(Property::Looped, &PropertyInput::Flag(true), "0"),
            "1"
        );
    }

    #[test]
    fn texts_are_checked_before_they_are_written() {
        let project = Project::default();
        assert!(check_text(Property::Volume, "800", &project).is_ok());
        assert!(check_text(Property::Volume, "5000", &project).is_err());
        assert!(check_text(Property::Group, "kGroupVox", &project).is_ok());
        assert!(check_text(Property::Group, "loud", &project).is_err());
        assert!(check_text(Property::PatchFile, "\"a\\b.wav\"", &project).is_ok());
        assert!(check_text(Property::PatchFile, "a.wav", &project).is_err());
        assert!(check_text(Property::PatchName, "door_2", &project).is_ok());
        assert!(check_text(Property::PatchName, "door 2", &project).is_err());
        assert_eq!(project.resolve_field(Property::HitList, "@0x10"), Some(16));
    }
}
