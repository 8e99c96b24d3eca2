//! Hit lists (hit-reference §2.7): lists of sample IDs, hit-list IDs, ranges and HSM
//! names, in the text grammar of TS1 `[GlobalHitList]` values and in the three binary
//! encodings FreeSO accepts.
//!
//! The format only stores what was written; whether an ID names a sample or another hit
//! list is for the runtime to decide. Names must be resolved (against an `.hsm`) before
//! the list can be expanded to numbers.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::formats::text::{char_count, is_identifier, split_fields};
use std::fmt::{self, Write as _};
use std::path::Path;
use thiserror::Error;

/// The most IDs a single range may expand to; longer ranges are refused, never expanded,
/// so a typo like `1-4000000000` cannot exhaust memory.
pub const MAX_RANGE_LEN: u64 = 65_536;

/// The most IDs a whole hit list may expand to (as many as one range may hold): a list
/// of many ranges, each within [`MAX_RANGE_LEN`], is refused rather than expanded.
pub const MAX_LIST_IDS: u64 = MAX_RANGE_LEN;

/// One entry of a hit list, as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HitEntry {
    /// A single sample or hit-list ID.
    Id(u32),
    /// The IDs `first..=last` (`first <= last` in anything the parser produces).
    Range {
        /// First ID of the range.
        first: u32,
        /// Last ID of the range, inclusive.
        last: u32,
    },
    /// An HSM symbol name standing for an ID (TS1 writes e.g. `sulsaxj_way_aa`).
    Name(String),
}

impl HitEntry {
    /// Checks that the entry can be expanded to numbers and returns how many it stands for.
    fn expanded_len(&self) -> Result<u64, HitListError> {
        match self {
            HitEntry::Id(_) => Ok(1),
            HitEntry::Range { first, last } => range_len(*first, *last),
            HitEntry::Name(name) => Err(HitListError::UnresolvedName { name: name.clone() }),
        }
    }
}

/// Length of `first..=last`, or why it cannot be expanded.
fn range_len(first: u32, last: u32) -> Result<u64, HitListError> {
    if first > last {
        return Err(HitListError::BackwardRange { first, last });
    }
    let len = u64::from(last) - u64::from(first) + 1;
    if len > MAX_RANGE_LEN {
        return Err(HitListError::RangeTooLong { first, last });
    }
    Ok(len)
}

impl fmt::Display for HitEntry {
    /// The canonical text form: `7`, `5-9` or `name`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HitEntry::Id(id) => write!(f, "{id}"),
            HitEntry::Range { first, last } => write!(f, "{first}-{last}"),
            HitEntry::Name(name) => f.write_str(name),
        }
    }
}

/// What went wrong reading, expanding or encoding a hit list.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HitListError {
    /// Fewer than the 4 bytes every binary encoding starts with.
    #[error("hit list is {len} bytes long; every hit-list encoding starts with a 4-byte word")]
    TooShort {
        /// Length of the input in bytes.
        len: usize,
    },
    /// The length word matched the text after it, but that text breaks the list grammar.
    #[error("hit list text, column {column}: {message}")]
    BadText {
        /// 1-based column in the text.
        column: u32,
        /// What is wrong there.
        message: String,
    },
    /// The bytes fit none of the three encodings; `detail` says what each one expected.
    #[error("{len}-byte hit list fits no known encoding: {detail}")]
    Unrecognized {
        /// Length of the input in bytes.
        len: usize,
        /// Why each encoding was rejected.
        detail: String,
    },
    /// A range holds more than [`MAX_RANGE_LEN`] IDs and is not expanded.
    #[error("range {first}-{last} holds more than {MAX_RANGE_LEN} IDs and is not expanded")]
    RangeTooLong {
        /// First ID of the range.
        first: u32,
        /// Last ID of the range.
        last: u32,
    },
    /// A range whose first ID is greater than its last.
    #[error("range {first}-{last} runs backwards")]
    BackwardRange {
        /// First ID of the range.
        first: u32,
        /// Last ID of the range.
        last: u32,
    },
    /// A name where only numbers will do (expansion, the numeric encoding).
    #[error("hit-list entry `{name}` is a name; resolve it to an ID first")]
    UnresolvedName {
        /// The name.
        name: String,
    },
    /// Name resolution found no value for a name.
    #[error("hit-list entry `{name}` is not a known symbol")]
    UnknownName {
        /// The name.
        name: String,
    },
    /// The list expands to more than [`MAX_LIST_IDS`] IDs and is not expanded.
    #[error("hit list expands to {count} IDs, more than the limit of {MAX_LIST_IDS}")]
    ListTooLong {
        /// Number of IDs after expansion.
        count: u64,
    },
    /// More IDs than a 32-bit count can describe.
    #[error("hit list expands to {count} IDs, more than a 32-bit count can hold")]
    TooManyIds {
        /// Number of IDs after expansion.
        count: u64,
    },
}

impl HitListError {
    /// The diagnostic code of this kind of problem.
    pub fn code(&self) -> DiagCode {
        match self {
            HitListError::TooShort { .. } | HitListError::Unrecognized { .. } => {
                DiagCode::BadHeader
            }
            HitListError::BadText { .. } => DiagCode::BadSyntax,
            HitListError::BackwardRange { .. } => DiagCode::OutOfOrder,
            HitListError::UnresolvedName { .. } | HitListError::UnknownName { .. } => {
                DiagCode::UnboundSymbol
            }
            HitListError::RangeTooLong { .. }
            | HitListError::ListTooLong { .. }
            | HitListError::TooManyIds { .. } => DiagCode::TooManyIds,
        }
    }
}

/// A hit list: its entries in the order written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct HitList {
    /// The entries, ranges and names kept as written.
    pub entries: Vec<HitEntry>,
}

impl HitList {
    /// Parses the text form `1,2,5-9,name`.
    ///
    /// `line` is the line the text sits on in `file`; `column_offset` is how many
    /// characters precede the text on that line (0 if it starts the line; for the `.hot`
    /// line `12=1,2` pass 3), so diagnostics point into the file. Bad entries are
    /// reported and skipped; the rest are kept.
    pub fn parse_text(
        text: &str,
        file: &Path,
        line: u32,
        column_offset: u32,
    ) -> (HitList, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let mut entries = Vec::new();
        let body = text.trim_end_matches(['\r', '\n']);
        if body.trim().is_empty() {
            return (HitList { entries }, diagnostics);
        }
        for field in split_fields(body, ',') {
            let column = column_offset.saturating_add(field.column);
            if field.text.is_empty() {
                diagnostics.push(Diagnostic::warning(
                    DiagCode::EmptyField,
                    file,
                    line,
                    column,
                    "empty hit-list entry (two commas in a row or a trailing comma); ignored",
                ));
                continue;
            }
            match parse_entry(field.text) {
                Ok(entry) => {
                    if let HitEntry::Range { first, last } = entry
                        && range_len(first, last).is_err()
                    {
                        diagnostics.push(Diagnostic::warning(
                            DiagCode::TooManyIds,
                            file,
                            line,
                            column,
                            format!(
                                "range {first}-{last} holds more than {MAX_RANGE_LEN} IDs; \
                                 it is kept but cannot be expanded"
                            ),
                        ));
                    }
                    entries.push(entry);
                }
                Err(bad) => {
                    let within = char_count(field.text.get(..bad.offset).unwrap_or(""));
                    diagnostics.push(Diagnostic::error(
                        bad.code,
                        file,
                        line,
                        column.saturating_add(within),
                        bad.message,
                    ));
                }
            }
        }
        (HitList { entries }, diagnostics)
    }

    /// The canonical text form, `1,2,5-9,name`, without a line ending.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (i, entry) in self.entries.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            // Writing into a String cannot fail.
            let _ = write!(out, "{entry}");
        }
        out
    }

    /// The numeric IDs in order, ranges expanded lazily.
    ///
    /// Fails, before yielding anything, if an entry is a name, a range runs backwards, a
    /// range is longer than [`MAX_RANGE_LEN`] or the list longer than [`MAX_LIST_IDS`].
    pub fn ids(&self) -> Result<impl Iterator<Item = u32> + '_, HitListError> {
        self.id_count()?;
        let ranges = self.entries.iter().filter_map(|entry| match entry {
            HitEntry::Id(id) => Some(*id..=*id),
            HitEntry::Range { first, last } => Some(*first..=*last),
            // Not reached once `id_count` succeeded.
            HitEntry::Name(_) => None,
        });
        Ok(ranges.flatten())
    }

    /// How many IDs [`HitList::ids`] yields, or why it would fail (a name, a bad range,
    /// more than [`MAX_LIST_IDS`] in all).
    pub fn id_count(&self) -> Result<u64, HitListError> {
        let count = self.entries.iter().try_fold(0u64, |sum, entry| {
            Ok(sum.saturating_add(entry.expanded_len()?))
        })?;
        if count > MAX_LIST_IDS {
            return Err(HitListError::ListTooLong { count });
        }
        Ok(count)
    }

    /// A copy with every name replaced by `lookup(name)`; unknown names are an error.
    pub fn resolve_names(
        &self,
        mut lookup: impl FnMut(&str) -> Option<u32>,
    ) -> Result<HitList, HitListError> {
        let entries = self
            .entries
            .iter()
            .map(|entry| match entry {
                HitEntry::Name(name) => lookup(name)
                    .map(HitEntry::Id)
                    .ok_or_else(|| HitListError::UnknownName { name: name.clone() }),
                other => Ok(other.clone()),
            })
            .collect::<Result<_, _>>()?;
        Ok(HitList { entries })
    }

    /// Reads any of the three binary encodings (hit-reference §2.7), all little-endian:
    ///
    /// 1. `1`, count, count × u32 — chosen when the first word is exactly 1 and the
    ///    length is exactly `8 + 4 × count`;
    /// 2. length, then `length` bytes of list text — chosen when exactly `length` bytes
    ///    follow and they are plausible list text (ASCII digits, letters, `_ , -` and
    ///    whitespace);
    /// 3. count, count × u32 — chosen when the length is exactly `4 + 4 × count`.
    ///
    /// The only input two encodings both fit is `01 00 00 00 00 00 00 00` (an empty
    /// version-1 list, or a count-prefixed list holding the single ID 0); like FreeSO it
    /// is read as version 1. Counts are never trusted beyond the input length.
    pub fn from_bytes(bytes: &[u8]) -> Result<HitList, HitListError> {
        let len = bytes.len();
        let (Some(first), Some(rest)) = (word_at(bytes, 0), bytes.get(4..)) else {
            return Err(HitListError::TooShort { len });
        };
        let rest_len = rest.len() as u64;
        let v1_count = word_at(bytes, 4);
        if first == 1
            && let (Some(count), Some(ids)) = (v1_count, bytes.get(8..))
            && ids.len() as u64 == 4 * u64::from(count)
        {
            return Ok(from_words(ids));
        }
        let mut text_note = format!(
            "as text it would need {first} bytes after the length word, and {rest_len} follow"
        );
        if rest_len == u64::from(first) {
            match implausible_byte(rest) {
                None => return parse_binary_text(rest),
                Some((offset, byte)) => {
                    text_note = format!(
                        "the {rest_len} bytes after the length word are not hit-list text \
                         (byte {byte:#04x} at offset {})",
                        offset.saturating_add(4)
                    );
                }
            }
        }
        if rest_len == 4 * u64::from(first) {
            return Ok(from_words(rest));
        }
        let v1_note = match (first, v1_count) {
            (1, Some(count)) => format!(
                "as version 1 with count {count} it would need {} bytes",
                8 + 4 * u64::from(count)
            ),
            (1, None) => "as version 1 it is missing its count".to_owned(),
            _ => format!("the first word is {first}, not version 1"),
        };
        let v3_note = format!(
            "as a count of {first} IDs it would need {} bytes",
            4 + 4 * u64::from(first)
        );
        Err(HitListError::Unrecognized {
            len,
            detail: format!("{v1_note}; {text_note}; {v3_note}"),
        })
    }

    /// Encoding 1 (`1`, count, IDs). Ranges are expanded; names cannot be stored, so
    /// resolve them first.
    pub fn to_bytes_v1(&self) -> Result<Vec<u8>, HitListError> {
        let count = self.id_count()?;
        let count_word = u32::try_from(count).map_err(|_| HitListError::TooManyIds { count })?;
        let mut out = Vec::with_capacity(8usize.saturating_add((count as usize).saturating_mul(4)));
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&count_word.to_le_bytes());
        for id in self.ids()? {
            out.extend_from_slice(&id.to_le_bytes());
        }
        Ok(out)
    }

    /// Encoding 2: a u32 length, then the canonical text ending in LF. Keeps ranges and
    /// names. (A list whose text passed 4 GiB could not be described; the length word
    /// saturates rather than wrap.)
    pub fn to_bytes_text(&self) -> Vec<u8> {
        let mut text = self.to_text();
        text.push('\n');
        let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
        let mut out = Vec::with_capacity(text.len().saturating_add(4));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(text.as_bytes());
        out
    }
}

/// The little-endian u32 at `offset`, if the input holds it.
fn word_at(bytes: &[u8], offset: usize) -> Option<u32> {
    let end = offset.checked_add(4)?;
    let word: [u8; 4] = bytes.get(offset..end)?.try_into().ok()?;
    Some(u32::from_le_bytes(word))
}

/// A list of the little-endian u32s in `bytes` (a whole number of words, checked by the
/// caller), so the allocation is bounded by the input.
fn from_words(bytes: &[u8]) -> HitList {
    let entries = bytes
        .chunks_exact(4)
        .filter_map(|chunk| <[u8; 4]>::try_from(chunk).ok())
        .map(|word| HitEntry::Id(u32::from_le_bytes(word)))
        .collect();
    HitList { entries }
}

/// The first byte (offset, value) that cannot appear in list text, if any.
fn implausible_byte(bytes: &[u8]) -> Option<(usize, u8)> {
    bytes.iter().copied().enumerate().find(|&(_, b)| {
        !(b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b',' | b'-' | b' ' | b'\t' | b'\r' | b'\n'))
    })
}

/// Parses the text of encoding 2; grammar errors make the whole list unreadable.
fn parse_binary_text(bytes: &[u8]) -> Result<HitList, HitListError> {
    // `implausible_byte` admitted only ASCII, so this cannot fail; stay total anyway.
    let text = std::str::from_utf8(bytes).map_err(|e| HitListError::BadText {
        column: u32::try_from(e.valid_up_to())
            .unwrap_or(u32::MAX)
            .saturating_add(1),
        message: "not ASCII text".to_owned(),
    })?;
    let (list, diagnostics) = HitList::parse_text(text, Path::new(""), 1, 0);
    match diagnostics.into_iter().find(Diagnostic::is_error) {
        Some(d) => Err(HitListError::BadText {
            column: d.column,
            message: d.message,
        }),
        None => Ok(list),
    }
}

/// Why an entry did not parse: byte offset within the entry, the kind and a message.
struct BadEntry {
    offset: usize,
    code: DiagCode,
    message: String,
}

impl IdProblem {
    fn code(&self) -> DiagCode {
        match self {
            IdProblem::NotANumber(_) => DiagCode::BadNumber,
            IdProblem::TooBig(_) => DiagCode::NumberOutOfRange,
        }
    }
}

/// One trimmed, non-empty entry: an ID, a range `a-b` or a name.
fn parse_entry(token: &str) -> Result<HitEntry, BadEntry> {
    if let Some((left, right)) = token.split_once('-') {
        let right_offset = token.len() - right.len();
        let right_lead = right.len() - right.trim_start().len();
        let first = parse_bound(left.trim(), "first", 0)?;
        let last = parse_bound(right.trim(), "last", right_offset + right_lead)?;
        if first > last {
            return Err(BadEntry {
                offset: 0,
                code: DiagCode::OutOfOrder,
                message: format!("range {first}-{last} runs backwards; write it as {last}-{first}"),
            });
        }
        return Ok(HitEntry::Range { first, last });
    }
    if token.starts_with(|c: char| c.is_ascii_digit() || c == '+') {
        return parse_id(token)
            .map(HitEntry::Id)
            .map_err(|problem| BadEntry {
                offset: 0,
                code: problem.code(),
                message: problem.to_string(),
            });
    }
    if is_identifier(token) {
        return Ok(HitEntry::Name(token.to_owned()));
    }
    Err(BadEntry {
        offset: 0,
        code: DiagCode::BadSyntax,
        message: format!("`{token}` is not an ID, a range (`first-last`) or a symbol name"),
    })
}

/// One side of a range, which must be a number.
fn parse_bound(text: &str, which: &str, offset: usize) -> Result<u32, BadEntry> {
    if text.is_empty() {
        return Err(BadEntry {
            offset,
            code: DiagCode::MissingField,
            message: format!("range is missing its {which} ID"),
        });
    }
    parse_id(text).map_err(|problem| BadEntry {
        offset,
        code: problem.code(),
        message: problem.to_string(),
    })
}

/// Why the text of a hit-list ID is no ID.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
enum IdProblem {
    /// Not a decimal or `0x` hex number.
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// A number outside 0 to 4294967295.
    #[error("`{0}` does not fit in a 32-bit ID")]
    TooBig(String),
}

/// A decimal or `0x` hex ID that fits in 32 bits.
fn parse_id(text: &str) -> Result<u32, IdProblem> {
    let value = parse_int(text).ok_or_else(|| IdProblem::NotANumber(text.to_owned()))?;
    u32::try_from(value).map_err(|_| IdProblem::TooBig(text.to_owned()))
}

#[cfg(test)]
mod tests;
