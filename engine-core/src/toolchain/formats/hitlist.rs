//! Hit lists (hit-reference §2.7): lists of sample IDs, hit-list IDs, ranges and HSM
//! names, in the text grammar of TS1 `[GlobalHitList]` values and in the three binary
//! encodings FreeSO accepts.
//!
//! The format only stores what was written; whether an ID names a sample or another hit
//! list is for the runtime to decide. Names must be resolved (against an `.hsm`) before
//! the list can be expanded to numbers.
//!
//! This file also holds the small line/field helpers the other text formats share
//! (`numbered_lines`, `split_fields`, `split_whitespace`, `is_identifier`).

use crate::toolchain::diag::Diagnostic;
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

/// Why an entry did not parse: byte offset within the entry and a message.
struct BadEntry {
    offset: usize,
    message: String,
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
                message: format!("range {first}-{last} runs backwards; write it as {last}-{first}"),
            });
        }
        return Ok(HitEntry::Range { first, last });
    }
    if token.starts_with(|c: char| c.is_ascii_digit() || c == '+') {
        return parse_id(token)
            .map(HitEntry::Id)
            .map_err(|message| BadEntry { offset: 0, message });
    }
    if is_identifier(token) {
        return Ok(HitEntry::Name(token.to_owned()));
    }
    Err(BadEntry {
        offset: 0,
        message: format!("`{token}` is not an ID, a range (`first-last`) or a symbol name"),
    })
}

/// One side of a range, which must be a number.
fn parse_bound(text: &str, which: &str, offset: usize) -> Result<u32, BadEntry> {
    if text.is_empty() {
        return Err(BadEntry {
            offset,
            message: format!("range is missing its {which} ID"),
        });
    }
    parse_id(text).map_err(|message| BadEntry { offset, message })
}

/// A decimal or `0x` hex ID that fits in 32 bits.
fn parse_id(text: &str) -> Result<u32, String> {
    let value = parse_int(text).ok_or_else(|| format!("`{text}` is not a number"))?;
    u32::try_from(value).map_err(|_| format!("`{text}` does not fit in a 32-bit ID"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::diag::Severity;
    use proptest::prelude::*;

    fn parse(text: &str) -> (HitList, Vec<Diagnostic>) {
        HitList::parse_text(text, Path::new("g.hot"), 7, 0)
    }

    fn ids(list: &HitList) -> Vec<u32> {
        list.ids().map(Iterator::collect).unwrap_or_default()
    }

    fn words(values: &[u32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn a_list_expanding_past_the_limit_is_refused_not_expanded() {
        // Found by the fuzzer: each range was bounded but a list of many was not, so a
        // line of a few bytes per entry expanded to a quarter of a megabyte per entry.
        let (list, _) = parse("0-65535,0-65535");
        assert_eq!(
            list.id_count(),
            Err(HitListError::ListTooLong { count: 2 * 65_536 })
        );
        assert!(list.ids().is_err());
        assert!(list.to_bytes_v1().is_err());
        let (fits, _) = parse("0-65534,7");
        assert_eq!(fits.id_count(), Ok(MAX_LIST_IDS));
    }

    #[test]
    fn parses_global_hit_list_value() {
        let (list, diags) = parse(" 1025-1035, 20016 ,0x4F85,sulsaxj_way_aa\r\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            list.entries,
            vec![
                HitEntry::Range {
                    first: 1025,
                    last: 1035
                },
                HitEntry::Id(20016),
                HitEntry::Id(0x4F85),
                HitEntry::Name("sulsaxj_way_aa".into()),
            ]
        );
        assert_eq!(list.to_text(), "1025-1035,20016,20357,sulsaxj_way_aa");
    }

    #[test]
    fn ranges_tolerate_spaces_and_single_id_ranges() {
        let (list, diags) = parse("5 - 9,3-3");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            list.entries,
            vec![
                HitEntry::Range { first: 5, last: 9 },
                HitEntry::Range { first: 3, last: 3 }
            ]
        );
        assert_eq!(ids(&list), vec![5, 6, 7, 8, 9, 3]);
        assert_eq!(list.id_count(), Ok(6));
    }

    #[test]
    fn empty_text_is_an_empty_list() {
        for text in ["", "  ", "\n", "\r\n"] {
            let (list, diags) = parse(text);
            assert!(list.entries.is_empty() && diags.is_empty(), "{text:?}");
        }
    }

    fn only(diags: &[Diagnostic]) -> &Diagnostic {
        assert_eq!(diags.len(), 1, "{diags:?}");
        &diags[0]
    }

    #[test]
    fn empty_entry_is_a_warning_with_column() {
        let (list, diags) = parse("1,,2,");
        assert_eq!(list.entries, vec![HitEntry::Id(1), HitEntry::Id(2)]);
        assert_eq!(diags.len(), 2);
        assert_eq!(
            (diags[0].severity, diags[0].line, diags[0].column),
            (Severity::Warning, 7, 3)
        );
        assert_eq!(diags[1].column, 6);
        assert!(diags[0].message.contains("empty"));
    }

    #[test]
    fn backward_range_is_an_error_and_skipped() {
        let (list, diags) = parse("1, 9-5, 2");
        assert_eq!(list.entries, vec![HitEntry::Id(1), HitEntry::Id(2)]);
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 7, 4));
        assert!(d.message.contains("backwards"), "{}", d.message);
    }

    #[test]
    fn bad_range_bound_points_at_the_bound() {
        let (_, diags) = parse("10-x1");
        let d = only(&diags);
        assert_eq!(d.column, 4);
        assert!(d.message.contains("`x1` is not a number"), "{}", d.message);
        let (_, diags) = parse("10-");
        assert!(only(&diags).message.contains("missing its last"));
        let (_, diags) = parse("-3");
        assert_eq!(only(&diags).column, 1);
    }

    #[test]
    fn bad_token_and_out_of_range_id() {
        let (list, diags) = parse("3,$x,4294967296,4294967295");
        assert_eq!(list.entries, vec![HitEntry::Id(3), HitEntry::Id(u32::MAX)]);
        assert_eq!(diags.len(), 2);
        assert_eq!(diags[0].column, 3);
        assert!(diags[0].message.contains("not an ID"));
        assert_eq!(diags[1].column, 6);
        assert!(diags[1].message.contains("32-bit"));
    }

    #[test]
    fn column_offset_shifts_columns() {
        // As the .hot reader would call it for the line `12=1,,2`.
        let (_, diags) = HitList::parse_text("1,,2", Path::new("a.hot"), 3, 3);
        assert_eq!((only(&diags).line, only(&diags).column), (3, 6));
    }

    #[test]
    fn long_range_is_kept_with_a_warning_but_never_expanded() {
        let (list, diags) = parse("1-65536,0-65536");
        let d = only(&diags);
        assert_eq!((d.severity, d.column), (Severity::Warning, 9));
        assert_eq!(list.entries.len(), 2);
        assert_eq!(
            list.ids().err(),
            Some(HitListError::RangeTooLong {
                first: 0,
                last: 65536
            })
        );
        let ok = HitList {
            entries: vec![HitEntry::Range {
                first: 1,
                last: 65536,
            }],
        };
        assert_eq!(ok.id_count(), Ok(65536));
        let huge = HitList {
            entries: vec![HitEntry::Range {
                first: 0,
                last: u32::MAX,
            }],
        };
        assert!(matches!(
            huge.to_bytes_v1(),
            Err(HitListError::RangeTooLong { .. })
        ));
    }

    #[test]
    fn names_must_be_resolved_before_expansion() {
        let (list, _) = parse("1,sulsaxj_way_aa,3-4");
        assert_eq!(
            list.ids().err(),
            Some(HitListError::UnresolvedName {
                name: "sulsaxj_way_aa".into()
            })
        );
        let resolved = list
            .resolve_names(|n| (n.eq_ignore_ascii_case("SULSAXJ_WAY_AA")).then_some(20016))
            .unwrap();
        assert_eq!(ids(&resolved), vec![1, 20016, 3, 4]);
        assert_eq!(
            list.resolve_names(|_| None),
            Err(HitListError::UnknownName {
                name: "sulsaxj_way_aa".into()
            })
        );
    }

    #[test]
    fn binary_v1() {
        let mut bytes = words(&[1, 3, 0x4F85, 10, 11]);
        assert_eq!(
            ids(&HitList::from_bytes(&bytes).unwrap()),
            vec![0x4F85, 10, 11]
        );
        bytes.pop();
        // Truncated: 19 bytes fit nothing.
        let err = HitList::from_bytes(&bytes).unwrap_err();
        assert!(
            matches!(err, HitListError::Unrecognized { len: 19, .. }),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("version 1 with count 3 it would need 20 bytes"),
            "{err}"
        );
    }

    #[test]
    fn binary_text() {
        let text = b"1025-1035,7,sulsaxj_way_aa\n";
        let mut bytes = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
        bytes.extend_from_slice(text);
        let list = HitList::from_bytes(&bytes).unwrap();
        assert_eq!(list.to_text(), "1025-1035,7,sulsaxj_way_aa");
        assert_eq!(list.to_bytes_text(), bytes);
    }

    #[test]
    fn binary_text_whose_length_field_is_one() {
        // First word 1 looks like version 1 to FreeSO, but 5 bytes cannot hold a count.
        let list = HitList::from_bytes(&[1, 0, 0, 0, b'7']).unwrap();
        assert_eq!(list.entries, vec![HitEntry::Id(7)]);
        let empty = HitList::from_bytes(&[1, 0, 0, 0, b'\n']).unwrap();
        assert!(empty.entries.is_empty());
        assert_eq!(HitList::default().to_bytes_text(), vec![1, 0, 0, 0, b'\n']);
    }

    #[test]
    fn binary_text_with_grammar_error() {
        let err = HitList::from_bytes(&[5, 0, 0, 0, b'1', b',', b'9', b'-', b'5']).unwrap_err();
        assert!(
            matches!(err, HitListError::BadText { column: 3, .. }),
            "{err}"
        );
    }

    #[test]
    fn binary_length_matching_non_text_falls_through() {
        let err = HitList::from_bytes(&[2, 0, 0, 0, 0xFF, 0x00]).unwrap_err();
        assert!(
            err.to_string()
                .contains("not hit-list text (byte 0xff at offset 4)"),
            "{err}"
        );
    }

    #[test]
    fn binary_v3_fallback() {
        let bytes = words(&[2, 0x4F85, 0x4F86]);
        assert_eq!(
            ids(&HitList::from_bytes(&bytes).unwrap()),
            vec![0x4F85, 0x4F86]
        );
    }

    #[test]
    fn binary_v3_whose_count_is_one() {
        // First word 1 but the second is an ID, not a count that fits.
        let bytes = words(&[1, 0x4F85]);
        assert_eq!(ids(&HitList::from_bytes(&bytes).unwrap()), vec![0x4F85]);
        // The one truly ambiguous input: read as an empty version-1 list.
        assert!(
            HitList::from_bytes(&words(&[1, 0]))
                .unwrap()
                .entries
                .is_empty()
        );
    }

    #[test]
    fn binary_oversized_count_is_refused_without_allocating() {
        for bytes in [
            words(&[1, u32::MAX, 5]),
            words(&[u32::MAX, 1, 2]),
            words(&[0x4000_0000]),
        ] {
            let err = HitList::from_bytes(&bytes).unwrap_err();
            assert!(matches!(err, HitListError::Unrecognized { .. }), "{err}");
        }
        assert_eq!(
            HitList::from_bytes(&[1, 0]),
            Err(HitListError::TooShort { len: 2 })
        );
        assert_eq!(HitList::from_bytes(&[0, 0, 0, 0]), Ok(HitList::default()));
    }

    #[test]
    fn v1_writer_expands_and_refuses_names() {
        let (list, _) = parse("7,1-3");
        assert_eq!(list.to_bytes_v1().unwrap(), words(&[1, 4, 7, 1, 2, 3]));
        let (named, _) = parse("x");
        assert!(matches!(
            named.to_bytes_v1(),
            Err(HitListError::UnresolvedName { .. })
        ));
    }

    fn entry() -> impl Strategy<Value = HitEntry> {
        prop_oneof![
            any::<u32>().prop_map(HitEntry::Id),
            (any::<u32>(), 0u32..70_000).prop_map(|(first, span)| HitEntry::Range {
                first,
                last: first.saturating_add(span)
            }),
            "[A-Za-z_][A-Za-z0-9_]{0,12}".prop_map(HitEntry::Name),
        ]
    }

    fn numeric_entry() -> impl Strategy<Value = HitEntry> {
        prop_oneof![
            any::<u32>().prop_map(HitEntry::Id),
            (any::<u32>(), 0u32..50).prop_map(|(first, span)| HitEntry::Range {
                first,
                last: first.saturating_add(span)
            }),
        ]
    }

    proptest! {
        #[test]
        fn text_parser_never_panics(text in "\\PC*", line in any::<u32>(), offset in any::<u32>()) {
            let _ = HitList::parse_text(&text, Path::new("x"), line, offset);
        }

        #[test]
        fn grammar_like_text_never_panics(text in "[0-9a-z_,\\- x\r\n]{0,40}") {
            let _ = parse(&text);
        }

        #[test]
        fn binary_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = HitList::from_bytes(&bytes);
        }

        #[test]
        fn binary_reader_never_panics_on_small_headers(
            first in 0u32..12, rest in proptest::collection::vec(any::<u8>(), 0..48)
        ) {
            let mut bytes = first.to_le_bytes().to_vec();
            bytes.extend(rest);
            let _ = HitList::from_bytes(&bytes);
        }

        #[test]
        fn text_round_trips(entries in proptest::collection::vec(entry(), 0..12)) {
            let list = HitList { entries };
            let (back, diags) = parse(&list.to_text());
            prop_assert!(!crate::toolchain::diag::has_errors(&diags), "{:?}", diags);
            prop_assert_eq!(&back, &list);
            prop_assert_eq!(HitList::from_bytes(&list.to_bytes_text()), Ok(list));
        }

        #[test]
        fn v1_round_trips(entries in proptest::collection::vec(numeric_entry(), 0..8)) {
            let list = HitList { entries };
            let bytes = list.to_bytes_v1().unwrap();
            let back = HitList::from_bytes(&bytes).unwrap();
            prop_assert_eq!(ids(&back), ids(&list));
        }

        #[test]
        fn v3_round_trips(values in proptest::collection::vec(any::<u32>(), 0..16)) {
            let mut bytes = u32::try_from(values.len()).unwrap().to_le_bytes().to_vec();
            bytes.extend(words(&values));
            let back = HitList::from_bytes(&bytes).unwrap();
            // A single ID 0 is the ambiguous case: it reads as an empty version-1 list.
            if values != [0] {
                prop_assert_eq!(ids(&back), values);
            }
        }
    }
}
