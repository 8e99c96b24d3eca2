//! A list's text as entries with the text each was written as, so an edit writes
//! untouched entries back exactly as they were; and one entry typed by a user.

use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::hitlist::{HitEntry, HitList};
use std::path::Path;

/// A list value read entry by entry.
pub(super) struct ParsedValue {
    /// Each readable entry with the text it was written as.
    pub(super) tokens: Vec<(String, HitEntry)>,
    /// Problems reading the value (unreadable entries are not in `tokens`).
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// Reads a list value keeping each entry's text, so an edit can write untouched entries
/// back exactly as they were (`0x10` stays `0x10`).
pub(super) fn parse_value(text: &str, file: &Path, line: u32, value_column: u32) -> ParsedValue {
    let (_, diagnostics) = HitList::parse_text(text, file, line, value_column.saturating_sub(1));
    let mut tokens = Vec::new();
    for field in text.split(',') {
        let field = field.trim();
        if field.is_empty() {
            continue;
        }
        if let Ok(entry) = parse_entry_text(field) {
            tokens.push((field.to_owned(), entry));
        }
    }
    ParsedValue {
        tokens,
        diagnostics,
    }
}

/// Why a typed text is not exactly one hit-list entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryTextError {
    /// The text does not read as an entry (the hit-list reader's message, which quotes
    /// the text).
    #[error("{0}")]
    Unreadable(String),
    /// Nothing but blanks.
    #[error("the entry is empty")]
    Empty,
    /// Several entries where one was asked for.
    #[error("`{0}` is more than one entry")]
    MoreThanOne(String),
}

/// Reads one hit-list entry typed by a user (`7`, `0x10`, `5-9`, `name`).
///
/// # Errors
/// [`EntryTextError`]: why the text is not exactly one entry.
pub fn parse_entry_text(text: &str) -> Result<HitEntry, EntryTextError> {
    let (list, diagnostics) = HitList::parse_text(text, Path::new(""), 1, 0);
    if let Some(d) = diagnostics.iter().find(|d| d.is_error()) {
        return Err(EntryTextError::Unreadable(d.message.clone()));
    }
    match list.entries.as_slice() {
        [one] if !text.contains(',') => Ok(one.clone()),
        [] => Err(EntryTextError::Empty),
        _ => Err(EntryTextError::MoreThanOne(text.to_owned())),
    }
}

/// The separator to write between entries: `, ` if the list already spaces its commas.
pub(super) fn separator(original: &str) -> &'static str {
    let mut commas = original.match_indices(',').peekable();
    if commas.peek().is_none() {
        return ",";
    }
    let spaced = commas.all(|(i, _)| original.get(i + 1..).is_some_and(|r| r.starts_with(' ')));
    if spaced { ", " } else { "," }
}

/// The text of `entries`, reusing the original spelling of entries that were there.
pub(super) fn list_text(
    entries: &[HitEntry],
    original: &[(String, HitEntry)],
    sep: &str,
) -> String {
    let mut used = vec![false; original.len()];
    let mut parts = Vec::with_capacity(entries.len());
    for entry in entries {
        let reuse = original
            .iter()
            .zip(used.iter_mut())
            .find(|((_, e), used)| e == entry && !**used);
        match reuse {
            Some(((text, _), used)) => {
                *used = true;
                parts.push(text.clone());
            }
            None => parts.push(entry.to_string()),
        }
    }
    parts.join(sep)
}
