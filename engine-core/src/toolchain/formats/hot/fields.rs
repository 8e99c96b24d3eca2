//! The value syntax the typed views share: IDs that are numbers or names, fields split
//! at commas outside quotes, quoted text, and the diagnostics of one file.

use super::line::{HotEntry, is_blank_char, to_u32};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::formats::text::IdRef;
use std::path::Path;

/// Why a field is not an [`IdRef`]; each message names the field (`what`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdRefError {
    /// The field is empty.
    #[error("{what} is missing")]
    Missing {
        /// The field: "track ID", "event type", "field 3"…
        what: String,
    },
    /// The field starts like a number but is not one that fits in 64 bits.
    #[error("{what} `{text}` is not a valid number (decimal or 0x hex, within 64 bits)")]
    BadNumber {
        /// The field.
        what: String,
        /// The text written.
        text: String,
    },
    /// The field holds blanks, quotes or commas, so it is no name either.
    #[error("{what} `{text}` is neither a number nor a name")]
    NotNumberOrName {
        /// The field.
        what: String,
        /// The text written.
        text: String,
    },
}

impl IdRefError {
    /// The diagnostic code of this kind of problem.
    pub fn code(&self) -> DiagCode {
        match self {
            IdRefError::Missing { .. } => DiagCode::MissingField,
            IdRefError::BadNumber { .. } => DiagCode::BadNumber,
            IdRefError::NotNumberOrName { .. } => DiagCode::BadSyntax,
        }
    }
}

/// Reads an [`IdRef`] from the text of the field `what`.
pub(super) fn id_ref(text: &str, what: &str) -> Result<IdRef, IdRefError> {
    if text.is_empty() {
        return Err(IdRefError::Missing {
            what: what.to_owned(),
        });
    }
    if let Some(n) = parse_int(text) {
        return Ok(IdRef::Number(n));
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if unsigned.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(IdRefError::BadNumber {
            what: what.to_owned(),
            text: text.to_owned(),
        });
    }
    if text.contains(|c: char| c.is_whitespace() || c == '"' || c == ',') {
        return Err(IdRefError::NotNumberOrName {
            what: what.to_owned(),
            text: text.to_owned(),
        });
    }
    Ok(IdRef::Name(text.to_owned()))
}

/// The ID an entry's key gives (`what` names it: "track ID"…), or `None` after
/// reporting why the key is not one.
pub(super) fn key_id(entry: &HotEntry, what: &str, report: &mut Report<'_>) -> Option<IdRef> {
    match id_ref(&entry.key, what) {
        Ok(id) => Some(id),
        Err(problem) => {
            report.error(
                problem.code(),
                entry.line,
                entry.key_column,
                problem.to_string(),
            );
            None
        }
    }
}

/// Collects diagnostics for one file.
pub(super) struct Report<'a> {
    file: &'a Path,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Report<'a> {
    pub(super) fn new(file: &'a Path) -> Self {
        Self {
            file,
            diagnostics: Vec::new(),
        }
    }

    pub(super) fn error(
        &mut self,
        code: DiagCode,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) {
        self.diagnostics
            .push(Diagnostic::error(code, self.file, line, column, message));
    }

    pub(super) fn warning(
        &mut self,
        code: DiagCode,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) {
        self.push(Diagnostic::warning(code, self.file, line, column, message));
    }

    /// Adds a diagnostic built with its facts.
    pub(super) fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// The file reported on.
    pub(super) fn file(&self) -> &'a Path {
        self.file
    }

    pub(super) fn finish(mut self) -> Vec<Diagnostic> {
        self.diagnostics.sort_by_key(|d| (d.line, d.column));
        self.diagnostics
    }
}

/// One comma-separated field of a value: its column and its trimmed text.
#[derive(Debug, Clone, Copy)]
pub(super) struct Field<'a> {
    pub(super) column: u32,
    pub(super) text: &'a str,
}

/// Splits `value` (which starts at `value_column`) at commas outside double quotes.
/// An empty value has no fields.
pub(super) fn split_fields(value: &str, value_column: u32) -> Vec<Field<'_>> {
    if value.is_empty() {
        return Vec::new();
    }
    let mut cuts = Vec::new();
    let mut in_quotes = false;
    for (i, c) in value.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => cuts.push(i),
            _ => {}
        }
    }
    let mut fields = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for end in cuts.into_iter().chain(std::iter::once(value.len())) {
        let raw = value.get(start..end).unwrap_or_default();
        let text = raw.trim_start_matches(is_blank_char);
        let skipped = raw.len() - text.len();
        let offset = value
            .get(..start + skipped)
            .map_or(0, |s| s.chars().count());
        fields.push(Field {
            column: value_column.saturating_add(to_u32(offset)),
            text: text.trim_end_matches(is_blank_char),
        });
        start = end + 1;
    }
    fields
}

/// Column just past the end of an entry's value, where a missing field would be.
pub(super) fn end_column(entry: &HotEntry) -> u32 {
    entry
        .value_column
        .saturating_add(to_u32(entry.value.chars().count()))
}

/// Removes surrounding double quotes; `Err` for an opening quote that is not closed.
pub(super) fn unquote(text: &str) -> Result<&str, ()> {
    match text.strip_prefix('"') {
        None => Ok(text),
        Some(inner) => inner.strip_suffix('"').ok_or(()),
    }
}
