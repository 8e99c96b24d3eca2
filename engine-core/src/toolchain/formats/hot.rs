//! `.hot` files ("HIT Options Table", hit-reference §2.3): a lossless INI document, an edit
//! API that rewrites only the lines it changes, and typed views of the sections HIT reads.
//!
//! The document model is line based. The input is split at `\n`; every line keeps its raw
//! bytes and its ending (LF, CRLF or none at end of file), so [`HotDocument::to_bytes`]
//! gives back the parsed bytes exactly, whatever they were (invalid UTF-8, NULs, a BOM,
//! mixed endings). Each line is classified as blank, comment, `[section]` header,
//! `key=value` entry or "unparsed"; unparsed lines are kept and reported as warnings by the
//! typed view of the section they are in.
//!
//! Matching rules, chosen to behave like the INI readers that filled dictionaries from
//! these files:
//! - section names and keys compare ASCII case-insensitively and keep their spelling;
//! - a section header that appears again continues the same logical section;
//! - a key that appears twice is kept twice, and the **last** occurrence is the effective
//!   one ([`HotDocument::get`], the typed views, [`HotDocument::set`]);
//! - entries before the first header belong to the section named `""`.
//!
//! Line syntax: a comment line starts (after blanks) with `;`, `#` or `//`. A header is
//! `[Name]`, optionally followed by blanks and a `;` or `#` comment. An entry is split at
//! the first `=`; key and value are trimmed of ASCII whitespace, and a `;` outside double
//! quotes that follows a blank starts a trailing comment that is not part of the value
//! (`a=b;c` has the value `b;c`, `a=b ;c` has the value `b`). A UTF-8 BOM at the start of
//! the file is kept but not seen by the parser. Columns count characters from 1, a tab
//! counting as one and the BOM not at all.

use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::number::parse_int;
pub use crate::toolchain::formats::text::IdRef;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The UTF-8 byte order mark some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Section of label → number constants usable as event types.
pub const SECTION_EQUATES: &str = "EventMappingEquate";
/// Section of file options (`Version`, `LoadPriority`).
pub const SECTION_OPTIONS: &str = "Options";
/// Section assigning sound / hit list IDs to subroutine addresses.
pub const SECTION_TRACK_DATA: &str = "TrackData";
/// TS1 section mapping event names to an event type and a track.
pub const SECTION_EVENT_MAPPING: &str = "EventMapping";
/// TS1 section defining tracks.
pub const SECTION_TRACK: &str = "Track";
/// TS1 section defining patches (sound files).
pub const SECTION_PATCH: &str = "Patch";
/// TS1 section defining global hit lists.
pub const SECTION_GLOBAL_HIT_LIST: &str = "GlobalHitList";

/// Number of comma-separated fields of a `[Track]` value.
const TRACK_FIELDS: usize = 9;
/// HitBench reads one more, optional, `[Track]` field: the Box-X priority.
const TRACK_FIELDS_EXTENDED: usize = 10;
/// Number of comma-separated fields of a `[Patch]` value.
const PATCH_FIELDS: usize = 8;

// ---------------------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------------------

/// How a line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// No ending: the last line of a file without a final newline.
    Missing,
}

impl LineEnding {
    /// The bytes of this ending.
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnding::Lf => b"\n",
            LineEnding::CrLf => b"\r\n",
            LineEnding::Missing => b"",
        }
    }
}

/// What a line is, as seen by the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HotLineKind {
    /// Empty or only whitespace.
    Blank,
    /// A `;`, `#` or `//` comment.
    Comment,
    /// A `[Section]` header.
    Section,
    /// A `key=value` entry.
    Entry,
    /// Anything else; kept as is and reported by the typed views.
    Unparsed,
}

/// A read-only view of one line of a [`HotDocument`], for editors and listings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HotLine<'a> {
    /// 1-based line number.
    pub number: u32,
    /// How the line was classified.
    pub kind: HotLineKind,
    /// The raw bytes of the line without its ending (and without the file's BOM).
    pub content: &'a [u8],
    /// How the line ends.
    pub ending: LineEnding,
    /// The section the line belongs to, spelled as its nearest header above
    /// (a header belongs to its own section); `""` before the first header.
    pub section: &'a str,
}

/// One `key=value` entry of a section.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HotEntry {
    /// The key, trimmed, spelled as written.
    pub key: String,
    /// The value, trimmed, without a trailing comment.
    pub value: String,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column of the key's first character.
    pub key_column: u32,
    /// 1-based column of the value's first character (where it would be, if empty).
    pub value_column: u32,
}

/// A line of the document: raw bytes plus what the parser made of them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    content: Vec<u8>,
    ending: LineEnding,
    parsed: Parsed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Parsed {
    Blank,
    Comment,
    Header { name: String },
    Entry(EntryParts),
    Unparsed { column: u32 },
}

/// Byte positions of the parts of an entry line, so edits can splice the value in.
#[derive(Debug, Clone, PartialEq, Eq)]
struct EntryParts {
    key: String,
    value: String,
    key_start: usize,
    key_end: usize,
    eq: usize,
    /// Start of the value; for an empty value, where a new value should go.
    value_start: usize,
    value_end: usize,
    key_column: u32,
    value_column: u32,
}

impl Line {
    fn new(content: Vec<u8>, ending: LineEnding) -> Self {
        let parsed = parse_line(&content);
        Self {
            content,
            ending,
            parsed,
        }
    }

    fn kind(&self) -> HotLineKind {
        match self.parsed {
            Parsed::Blank => HotLineKind::Blank,
            Parsed::Comment => HotLineKind::Comment,
            Parsed::Header { .. } => HotLineKind::Section,
            Parsed::Entry(_) => HotLineKind::Entry,
            Parsed::Unparsed { .. } => HotLineKind::Unparsed,
        }
    }

    fn entry(&self) -> Option<&EntryParts> {
        match &self.parsed {
            Parsed::Entry(e) => Some(e),
            _ => None,
        }
    }

    fn header(&self) -> Option<&str> {
        match &self.parsed {
            Parsed::Header { name } => Some(name),
            _ => None,
        }
    }
}

fn is_blank(b: u8) -> bool {
    b.is_ascii_whitespace()
}

fn is_blank_char(c: char) -> bool {
    c.is_ascii_whitespace()
}

fn bytes(content: &[u8], start: usize, end: usize) -> &[u8] {
    content.get(start..end).unwrap_or_default()
}

fn lossy(content: &[u8], start: usize, end: usize) -> String {
    String::from_utf8_lossy(bytes(content, start, end)).into_owned()
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// 1-based character column of byte `pos`. Positions handed in always follow an ASCII
/// byte or the line start, so the prefix never ends inside a multi-byte character.
fn column_at(content: &[u8], pos: usize) -> u32 {
    let prefix = String::from_utf8_lossy(bytes(content, 0, pos));
    to_u32(prefix.chars().count()).saturating_add(1)
}

/// Shrinks `start..end` to exclude surrounding whitespace; an all-blank range collapses
/// to `end..end`.
fn trim_range(content: &[u8], start: usize, end: usize) -> (usize, usize) {
    let inner = bytes(content, start, end);
    match inner.iter().position(|&b| !is_blank(b)) {
        None => (end, end),
        Some(first) => {
            let last = inner.iter().rposition(|&b| !is_blank(b)).unwrap_or(first);
            (start + first, start + last + 1)
        }
    }
}

fn parse_line(content: &[u8]) -> Parsed {
    let Some(start) = content.iter().position(|&b| !is_blank(b)) else {
        return Parsed::Blank;
    };
    let rest = bytes(content, start, content.len());
    if rest.starts_with(b";") || rest.starts_with(b"#") || rest.starts_with(b"//") {
        return Parsed::Comment;
    }
    if let Some(name) = parse_header(content, start) {
        return Parsed::Header { name };
    }
    if let Some(entry) = parse_entry(content, start) {
        return Parsed::Entry(entry);
    }
    Parsed::Unparsed {
        column: column_at(content, start),
    }
}

/// `[Name]` with optional trailing blanks and `;`/`#` comment; the name must not be empty.
fn parse_header(content: &[u8], start: usize) -> Option<String> {
    if content.get(start) != Some(&b'[') {
        return None;
    }
    let open = start + 1;
    let close = open
        + bytes(content, open, content.len())
            .iter()
            .position(|&b| b == b']')?;
    let (name_start, name_end) = trim_range(content, open, close);
    if name_start == name_end {
        return None;
    }
    let after = bytes(content, close + 1, content.len());
    let tail = match after.iter().position(|&b| !is_blank(b)) {
        Some(i) => bytes(after, i, after.len()),
        None => &[],
    };
    if !(tail.is_empty() || tail.starts_with(b";") || tail.starts_with(b"#")) {
        return None;
    }
    Some(lossy(content, name_start, name_end))
}

fn parse_entry(content: &[u8], start: usize) -> Option<EntryParts> {
    let eq = content.iter().position(|&b| b == b'=')?;
    let (key_start, key_end) = trim_range(content, start, eq);
    if key_start >= key_end {
        return None;
    }
    // A `;` after a blank and outside quotes starts the trailing comment.
    let mut in_quotes = false;
    let mut comment = None;
    let mut previous = b'=';
    for (i, &b) in content.iter().enumerate().skip(eq + 1) {
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if b == b';' && !in_quotes && is_blank(previous) {
            comment = Some(i);
            break;
        }
        previous = b;
    }
    let region_end = comment.unwrap_or(content.len());
    let (mut value_start, mut value_end) = trim_range(content, eq + 1, region_end);
    if value_start == value_end {
        // Where `set` will put a value: after one blank when there is room, so that
        // `key = ;c` becomes `key = v ;c` and the comment keeps a blank before it.
        let gap = region_end - (eq + 1);
        let skip = usize::from(gap >= 2 || (gap >= 1 && comment.is_none()));
        value_start = eq + 1 + skip;
        value_end = value_start;
    }
    Some(EntryParts {
        key: lossy(content, key_start, key_end),
        value: lossy(content, value_start, value_end),
        key_start,
        key_end,
        eq,
        value_start,
        value_end,
        key_column: column_at(content, key_start),
        value_column: column_at(content, value_start),
    })
}

// ---------------------------------------------------------------------------------------
// Document
// ---------------------------------------------------------------------------------------

/// A `.hot` file kept byte for byte, with queries and edits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HotDocument {
    bom: bool,
    lines: Vec<Line>,
}

/// Why an edit was refused. The document is unchanged when an edit fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HotEditError {
    /// A section name, key or value contains `\n` or `\r`.
    #[error("the {what} `{text}` contains a line break")]
    LineBreak {
        /// `"section name"`, `"key"` or `"value"`.
        what: &'static str,
        /// The offending text.
        text: String,
    },
    /// The key is empty.
    #[error("the key is empty")]
    EmptyKey,
    /// The key contains `=`, which would split it.
    #[error("the key `{0}` contains `=`")]
    KeyContainsEquals(String),
    /// The key starts with `[`, `;`, `#` or `//` and would be read as a header or comment.
    #[error("the key `{0}` would be read as a section header or a comment")]
    KeyLooksLikeMarker(String),
    /// Written out, the text would read back differently (leading or trailing blanks,
    /// an unbalanced quote swallowing a comment, ` ;` outside quotes, `]` in a section
    /// name…).
    #[error("the {what} `{text}` would not read back unchanged from a .hot file")]
    NotRepresentable {
        /// `"section name"`, `"key"` or `"value"`.
        what: &'static str,
        /// The offending text.
        text: String,
    },
}

fn check_no_line_break(what: &'static str, text: &str) -> Result<(), HotEditError> {
    if text.contains(['\n', '\r']) {
        return Err(HotEditError::LineBreak {
            what,
            text: text.to_owned(),
        });
    }
    Ok(())
}

fn check_key(key: &str) -> Result<(), HotEditError> {
    check_no_line_break("key", key)?;
    if key.is_empty() {
        return Err(HotEditError::EmptyKey);
    }
    if key.contains('=') {
        return Err(HotEditError::KeyContainsEquals(key.to_owned()));
    }
    let start = key.trim_start_matches(is_blank_char);
    if ["[", ";", "#", "//"].iter().any(|m| start.starts_with(m)) {
        return Err(HotEditError::KeyLooksLikeMarker(key.to_owned()));
    }
    Ok(())
}

/// Spacing copied from an existing entry: indentation and blanks around `=`.
#[derive(Debug, Clone, Default)]
struct Spacing {
    indent: Vec<u8>,
    before_eq: Vec<u8>,
    after_eq: Vec<u8>,
}

/// `bytes` if it is only spaces and tabs, else nothing (never copy stray control bytes).
fn spaces_only(b: &[u8]) -> Vec<u8> {
    if b.iter().all(|&c| c == b' ' || c == b'\t') {
        b.to_vec()
    } else {
        Vec::new()
    }
}

impl Spacing {
    fn of(line: &Line) -> Option<Self> {
        let e = line.entry()?;
        let c = &line.content;
        let after_eq = if e.value.is_empty() {
            Vec::new()
        } else {
            spaces_only(bytes(c, e.eq + 1, e.value_start))
        };
        Some(Self {
            indent: spaces_only(bytes(c, 0, e.key_start)),
            before_eq: spaces_only(bytes(c, e.key_end, e.eq)),
            after_eq,
        })
    }
}

fn line_number(index: usize) -> u32 {
    to_u32(index).saturating_add(1)
}

impl HotDocument {
    /// Parses any bytes. Never fails: what is not understood is kept as unparsed lines.
    pub fn parse(input: &[u8]) -> Self {
        let (bom, mut rest) = match input.strip_prefix(BOM) {
            Some(body) => (true, body),
            None => (false, input),
        };
        let mut lines = Vec::new();
        while !rest.is_empty() {
            match rest.iter().position(|&b| b == b'\n') {
                Some(nl) => {
                    let line = bytes(rest, 0, nl);
                    let (content, ending) = match line.strip_suffix(b"\r") {
                        Some(c) => (c, LineEnding::CrLf),
                        None => (line, LineEnding::Lf),
                    };
                    lines.push(Line::new(content.to_vec(), ending));
                    rest = bytes(rest, nl + 1, rest.len());
                }
                None => {
                    lines.push(Line::new(rest.to_vec(), LineEnding::Missing));
                    rest = &[];
                }
            }
        }
        Self { bom, lines }
    }

    /// The document as bytes: exactly the parsed input when nothing was edited.
    pub fn to_bytes(&self) -> Vec<u8> {
        let size: usize = self.lines.iter().map(|l| l.content.len() + 2).sum();
        let mut out = Vec::with_capacity(size + BOM.len());
        if self.bom {
            out.extend_from_slice(BOM);
        }
        for line in &self.lines {
            out.extend_from_slice(&line.content);
            out.extend_from_slice(line.ending.as_bytes());
        }
        out
    }

    /// True if the file starts with a UTF-8 byte order mark.
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// Number of lines (a final newline does not start another line).
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Every line with its classification and section, in file order.
    pub fn lines(&self) -> Vec<HotLine<'_>> {
        let mut section = "";
        let mut out = Vec::with_capacity(self.lines.len());
        for (index, line) in self.lines.iter().enumerate() {
            if let Some(name) = line.header() {
                section = name;
            }
            out.push(HotLine {
                number: line_number(index),
                kind: line.kind(),
                content: &line.content,
                ending: line.ending,
                section,
            });
        }
        out
    }

    /// The ending new lines get: CRLF if more lines end in CRLF than in LF, else LF.
    pub fn dominant_ending(&self) -> LineEnding {
        let crlf = self
            .lines
            .iter()
            .filter(|l| l.ending == LineEnding::CrLf)
            .count();
        let lf = self
            .lines
            .iter()
            .filter(|l| l.ending == LineEnding::Lf)
            .count();
        if crlf > lf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        }
    }

    /// Section names in order of first appearance, spelled as first written. The unnamed
    /// part before the first header is not listed.
    pub fn sections(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in self.lines.iter().filter_map(Line::header) {
            if !out.iter().any(|seen| seen.eq_ignore_ascii_case(name)) {
                out.push(name.to_owned());
            }
        }
        out
    }

    /// For every line, whether it belongs to `section` (case-insensitive; `""` is the part
    /// before the first header).
    fn section_flags(&self, section: &str) -> Vec<bool> {
        let mut current = "";
        self.lines
            .iter()
            .map(|line| {
                if let Some(name) = line.header() {
                    current = name;
                }
                current.eq_ignore_ascii_case(section)
            })
            .collect()
    }

    /// Indices of the entry lines of `section`, in file order.
    fn entry_indices(&self, section: &str) -> Vec<usize> {
        self.section_flags(section)
            .into_iter()
            .zip(&self.lines)
            .enumerate()
            .filter(|(_, (inside, line))| *inside && line.entry().is_some())
            .map(|(index, _)| index)
            .collect()
    }

    /// Every entry of `section` (all parts, duplicates included), in file order.
    pub fn entries(&self, section: &str) -> Vec<HotEntry> {
        self.entry_indices(section)
            .into_iter()
            .filter_map(|index| {
                let e = self.lines.get(index)?.entry()?;
                Some(HotEntry {
                    key: e.key.clone(),
                    value: e.value.clone(),
                    line: line_number(index),
                    key_column: e.key_column,
                    value_column: e.value_column,
                })
            })
            .collect()
    }

    /// Index of the effective (last) line of `key` in `section`.
    fn find_last(&self, section: &str, key: &str) -> Option<usize> {
        self.entry_indices(section)
            .into_iter()
            .rev()
            .find(|&index| {
                self.lines
                    .get(index)
                    .and_then(Line::entry)
                    .is_some_and(|e| e.key.eq_ignore_ascii_case(key))
            })
    }

    /// The effective value of `key` in `section`: the last occurrence wins.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        let index = self.find_last(section, key)?;
        self.lines
            .get(index)
            .and_then(Line::entry)
            .map(|e| e.value.as_str())
    }

    /// Sets the effective (last) occurrence of `key` in `section` to `value`, rewriting
    /// only the value's bytes (key spelling, spacing, trailing comment and line ending are
    /// kept). Inserts the entry, as [`HotDocument::insert`] does, when the key is absent.
    ///
    /// # Errors
    /// [`HotEditError`] when `value` has a line break or would read back differently in
    /// this line (and, when inserting, for the reasons [`HotDocument::insert`] gives).
    /// The document is unchanged then.
    pub fn set(&mut self, section: &str, key: &str, value: &str) -> Result<(), HotEditError> {
        check_no_line_break("value", value)?;
        let Some(index) = self.find_last(section, key) else {
            return self.insert(section, key, value);
        };
        let Some(line) = self.lines.get_mut(index) else {
            return self.insert(section, key, value);
        };
        let Some(parts) = line.entry() else {
            return Err(HotEditError::NotRepresentable {
                what: "key",
                text: key.to_owned(),
            });
        };
        let mut content = Vec::with_capacity(line.content.len() + value.len());
        content.extend_from_slice(bytes(&line.content, 0, parts.value_start));
        content.extend_from_slice(value.as_bytes());
        content.extend_from_slice(bytes(&line.content, parts.value_end, line.content.len()));
        let replacement = Line::new(content, line.ending);
        let reads_back = replacement
            .entry()
            .is_some_and(|e| e.key == parts.key && e.value == value);
        if !reads_back {
            return Err(HotEditError::NotRepresentable {
                what: "value",
                text: value.to_owned(),
            });
        }
        *line = replacement;
        Ok(())
    }

    /// Adds a `key=value` line to `section` (even if the key exists: the new line comes
    /// last, so it becomes the effective one).
    ///
    /// The line goes right after the section's last entry (before trailing blank and
    /// comment lines), or right after its first header when it has no entries; entries
    /// of section `""` go before the first header (at the top of the file when there are
    /// none yet). A missing section is appended as `[section]` plus the entry, after a
    /// blank line unless the file is empty or already ends with one. Spacing around `=`
    /// is copied from a neighbouring entry, and the new lines end with the document's
    /// dominant ending; a last line without ending gets that ending too.
    ///
    /// # Errors
    /// [`HotEditError`] when the section name, key or value has a line break, the key is
    /// empty, contains `=` or starts like a header or comment, or any of them would read
    /// back differently. The document is unchanged then.
    pub fn insert(&mut self, section: &str, key: &str, value: &str) -> Result<(), HotEditError> {
        check_no_line_break("section name", section)?;
        check_key(key)?;
        check_no_line_break("value", value)?;
        let ending = self.dominant_ending();
        let entries = self.entry_indices(section);
        let position = match entries.last() {
            Some(&last) => Some(last + 1),
            None if section.is_empty() => Some(0),
            None => self
                .section_flags(section)
                .iter()
                .position(|&inside| inside)
                .map(|header| header + 1),
        };
        let spacing = self.neighbour_spacing(entries.last().copied(), position);

        let mut content = spacing.indent;
        content.extend_from_slice(key.as_bytes());
        content.extend_from_slice(&spacing.before_eq);
        content.push(b'=');
        content.extend_from_slice(&spacing.after_eq);
        content.extend_from_slice(value.as_bytes());
        let entry_line = Line::new(content, ending);
        match entry_line.entry() {
            Some(e) if e.key == key && e.value == value => {}
            Some(e) if e.key != key => {
                return Err(HotEditError::NotRepresentable {
                    what: "key",
                    text: key.to_owned(),
                });
            }
            _ => {
                return Err(HotEditError::NotRepresentable {
                    what: "value",
                    text: value.to_owned(),
                });
            }
        }

        match position {
            Some(at) => {
                if let Some(previous) = at.checked_sub(1).and_then(|p| self.lines.get_mut(p))
                    && previous.ending == LineEnding::Missing
                {
                    previous.ending = ending;
                }
                let at = at.min(self.lines.len());
                self.lines.insert(at, entry_line);
            }
            None => {
                let header = Line::new(format!("[{section}]").into_bytes(), ending);
                if header.header() != Some(section) {
                    return Err(HotEditError::NotRepresentable {
                        what: "section name",
                        text: section.to_owned(),
                    });
                }
                if let Some(last) = self.lines.last_mut() {
                    if last.ending == LineEnding::Missing {
                        last.ending = ending;
                    }
                    if last.kind() != HotLineKind::Blank {
                        self.lines.push(Line::new(Vec::new(), ending));
                    }
                }
                self.lines.push(header);
                self.lines.push(entry_line);
            }
        }
        Ok(())
    }

    /// The document that inserting every `(section, key, value)` in turn into an empty
    /// document with [`HotDocument::insert`] makes — each section's entries together,
    /// sections in order of first appearance, a blank line between sections, entries
    /// `insert` refuses left out — built in one pass (inserting one by one rescans the
    /// document each time, which is quadratic).
    pub fn from_entries<'a>(
        entries: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
    ) -> Self {
        let entries: Vec<(&str, &str, &str)> = entries.into_iter().collect();
        if entries.iter().any(|(section, _, _)| section.is_empty()) {
            // Entries before the first header are placed by position; rare enough to
            // take the slow path rather than a second placement rule.
            let mut doc = Self::default();
            for (section, key, value) in entries {
                let _ = doc.insert(section, key, value);
            }
            return doc;
        }
        let mut sections: Vec<(Line, Vec<Line>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for (section, key, value) in entries {
            let valid = check_no_line_break("section name", section).is_ok()
                && check_key(key).is_ok()
                && check_no_line_break("value", value).is_ok();
            if !valid {
                continue;
            }
            let line = Line::new(format!("{key}={value}").into_bytes(), LineEnding::Lf);
            if !line
                .entry()
                .is_some_and(|e| e.key == key && e.value == value)
            {
                continue;
            }
            let slot = match index.get(&section.to_ascii_lowercase()) {
                Some(&slot) => slot,
                None => {
                    let header = Line::new(format!("[{section}]").into_bytes(), LineEnding::Lf);
                    if header.header() != Some(section) {
                        continue;
                    }
                    sections.push((header, Vec::new()));
                    index.insert(section.to_ascii_lowercase(), sections.len() - 1);
                    sections.len() - 1
                }
            };
            if let Some((_, lines)) = sections.get_mut(slot) {
                lines.push(line);
            }
        }
        let mut lines = Vec::new();
        for (number, (header, entries)) in sections.into_iter().enumerate() {
            if number > 0 {
                lines.push(Line::new(Vec::new(), LineEnding::Lf));
            }
            lines.push(header);
            lines.extend(entries);
        }
        Self { bom: false, lines }
    }

    /// Spacing for a new entry: from the entry it follows, else the nearest entry before
    /// the insertion point, else the first entry after it, else `key=value`.
    fn neighbour_spacing(&self, after: Option<usize>, position: Option<usize>) -> Spacing {
        if let Some(spacing) = after.and_then(|i| self.lines.get(i)).and_then(Spacing::of) {
            return spacing;
        }
        let at = position.unwrap_or(self.lines.len()).min(self.lines.len());
        let (before, rest) = self.lines.split_at(at);
        before
            .iter()
            .rev()
            .chain(rest.iter())
            .find_map(Spacing::of)
            .unwrap_or_default()
    }

    /// Removes every line of `key` in `section`; returns how many were removed.
    pub fn remove(&mut self, section: &str, key: &str) -> usize {
        let doomed: Vec<bool> = self
            .section_flags(section)
            .into_iter()
            .zip(&self.lines)
            .map(|(inside, line)| {
                inside
                    && line
                        .entry()
                        .is_some_and(|e| e.key.eq_ignore_ascii_case(key))
            })
            .collect();
        let before = self.lines.len();
        let mut doomed = doomed.into_iter();
        self.lines.retain(|_| !doomed.next().unwrap_or(false));
        before - self.lines.len()
    }
}

// ---------------------------------------------------------------------------------------
// Typed views
// ---------------------------------------------------------------------------------------

/// Reads an [`IdRef`]; the error is a sentence naming `what`.
fn id_ref(text: &str, what: &str) -> Result<IdRef, String> {
    if text.is_empty() {
        return Err(format!("{what} is missing"));
    }
    if let Some(n) = parse_int(text) {
        return Ok(IdRef::Number(n));
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if unsigned.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!(
            "{what} `{text}` is not a valid number (decimal or 0x hex, within 64 bits)"
        ));
    }
    if text.contains(|c: char| c.is_whitespace() || c == '"' || c == ',') {
        return Err(format!("{what} `{text}` is neither a number nor a name"));
    }
    Ok(IdRef::Name(text.to_owned()))
}

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
    /// The patch name (quotes removed).
    pub name: String,
    /// The file path, quotes removed, backslashes kept as written.
    pub path: String,
    /// Looped flag (non-zero is true).
    pub looped: bool,
    /// Piano flag (non-zero is true).
    pub piano: bool,
    /// The fields after Piano, as written (normally three zeros).
    pub extra: Vec<String>,
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

/// Collects diagnostics for one file.
struct Report<'a> {
    file: &'a Path,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Report<'a> {
    fn new(file: &'a Path) -> Self {
        Self {
            file,
            diagnostics: Vec::new(),
        }
    }

    fn error(&mut self, line: u32, column: u32, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::error(self.file, line, column, message));
    }

    fn warning(&mut self, line: u32, column: u32, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::warning(self.file, line, column, message));
    }

    fn finish(mut self) -> Vec<Diagnostic> {
        self.diagnostics.sort_by_key(|d| (d.line, d.column));
        self.diagnostics
    }
}

/// One comma-separated field of a value: its column and its trimmed text.
#[derive(Debug, Clone, Copy)]
struct Field<'a> {
    column: u32,
    text: &'a str,
}

/// Splits `value` (which starts at `value_column`) at commas outside double quotes.
/// An empty value has no fields.
fn split_fields(value: &str, value_column: u32) -> Vec<Field<'_>> {
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
fn end_column(entry: &HotEntry) -> u32 {
    entry
        .value_column
        .saturating_add(to_u32(entry.value.chars().count()))
}

/// Removes surrounding double quotes; `Err` for an opening quote that is not closed.
fn unquote(text: &str) -> Result<&str, ()> {
    match text.strip_prefix('"') {
        None => Ok(text),
        Some(inner) => inner.strip_suffix('"').ok_or(()),
    }
}

/// Items that carry an identity, for "last definition wins" among different spellings
/// of the same key (`0x10` and `16`).
fn keep_last<T>(
    items: Vec<(T, u32, u32)>,
    identity: impl Fn(&T) -> String,
    section: &str,
    report: &mut Report<'_>,
) -> Vec<T> {
    let mut last: HashMap<String, (usize, u32)> = HashMap::new();
    for (index, (item, line, _)) in items.iter().enumerate() {
        last.insert(identity(item), (index, *line));
    }
    let mut out = Vec::with_capacity(items.len());
    for (index, (item, line, column)) in items.into_iter().enumerate() {
        match last.get(&identity(&item)) {
            Some(&(winner, winner_line)) if winner != index => report.warning(
                line,
                column,
                format!(
                    "this [{section}] entry is defined again on line {winner_line}; \
                     the later definition wins"
                ),
            ),
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
                Some(&(winner, winner_line)) if winner != index => report.warning(
                    entry.line,
                    entry.key_column,
                    format!(
                        "`{}` is set again in [{section}] on line {winner_line}; \
                         this earlier value is ignored",
                        entry.key
                    ),
                ),
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
                    entry.line,
                    entry.value_column,
                    format!("equate `{}` has no value", entry.key),
                ),
                None => report.error(
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
        let out = keep_last(items, |t| t.id.to_string(), section, &mut report);
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
                    Err(message) => {
                        report.error(
                            entry.line,
                            field.column,
                            format!("event mapping `{}`: {message}", entry.key),
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
        let out = keep_last(items, |t| t.id.identity(), section, &mut report);
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
        let out = keep_last(items, |p| p.id.identity(), section, &mut report);
        (out, report.finish())
    }

    /// `[GlobalHitList]` (TS1): `HitlistID=list`, the list kept as text.
    pub fn global_hit_lists(&self, file: &Path) -> (Vec<GlobalHitListDef>, Vec<Diagnostic>) {
        let section = SECTION_GLOBAL_HIT_LIST;
        let mut report = Report::new(file);
        let mut items = Vec::new();
        for entry in self.view_entries(section, &mut report) {
            let id = match id_ref(&entry.key, "hit list ID") {
                Ok(id) => id,
                Err(message) => {
                    report.error(entry.line, entry.key_column, message);
                    continue;
                }
            };
            if entry.value.is_empty() {
                report.warning(
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
        let out = keep_last(items, |h| h.id.identity(), section, &mut report);
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

/// One `[Track]` entry, or `None` after reporting why it is skipped. Warnings about the
/// field count are only reported for entries that are kept: on a skipped entry they are
/// usually a consequence of the error.
fn track(entry: &HotEntry, report: &mut Report<'_>) -> Option<TrackDef> {
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
    let id = match id_ref(&entry.key, "track ID") {
        Ok(id) => id,
        Err(message) => {
            report.error(entry.line, entry.key_column, message);
            return None;
        }
    };
    let fields = split_fields(&entry.value, entry.value_column);
    let mut warnings: Vec<(u32, String)> = Vec::new();
    if fields.len() < TRACK_FIELDS {
        let missing = NAMES.get(fields.len()..).unwrap_or_default().join(", ");
        warnings.push((
            end_column(entry),
            format!(
                "track {id} has {} of {TRACK_FIELDS} fields; missing: {missing}",
                fields.len()
            ),
        ));
    }
    if let Some(extra) = fields.get(TRACK_FIELDS_EXTENDED) {
        warnings.push((
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
                    entry.line,
                    field.column,
                    format!("track {id}: `@` must be followed by a hit list"),
                );
                return None;
            }
        }
        if text.is_empty() {
            warnings.push((
                field.column,
                format!("track {id}: the {name} field is empty"),
            ));
            continue;
        }
        match id_ref(text, name) {
            Ok(r) => *slot = Some(r),
            Err(message) => {
                report.error(entry.line, field.column, format!("track {id}: {message}"));
                return None;
            }
        }
    }
    for (column, message) in warnings {
        report.warning(entry.line, column, message);
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
fn patch(entry: &HotEntry, report: &mut Report<'_>) -> Option<PatchDef> {
    let id = match id_ref(&entry.key, "patch ID") {
        Ok(id) => id,
        Err(message) => {
            report.error(entry.line, entry.key_column, message);
            return None;
        }
    };
    let fields = split_fields(&entry.value, entry.value_column);
    if fields.len() < 3 {
        report.error(
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
            Err(message) => {
                report.error(entry.line, first.column, format!("patch {id}: {message}"));
                return None;
            }
        }
    };
    let Ok(name_text) = unquote(name.text) else {
        report.error(
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
                entry.line,
                path.column,
                format!("patch {id}: the file path is empty"),
            );
            return None;
        }
        Err(()) => {
            report.error(
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
            entry.line,
            end_column(entry),
            format!("patch {id} has no Looped/Piano flags; reading them as 0"),
        );
    }
    if let Some(extra) = fields.get(PATCH_FIELDS) {
        report.warning(
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
        name: name_text.to_owned(),
        path: path_text.to_owned(),
        looped,
        piano,
        extra: fields_iter.map(|f| f.text.to_owned()).collect(),
        line: entry.line,
        field_columns: fields.iter().map(|f| f.column).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::diag::Severity;
    use proptest::prelude::*;

    fn round_trip(input: &[u8]) {
        let doc = HotDocument::parse(input);
        assert_eq!(
            doc.to_bytes(),
            input,
            "input {:?}",
            String::from_utf8_lossy(input)
        );
    }

    /// Splits bytes into lines keeping their endings, to compare documents line by line.
    fn raw_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
        bytes
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect()
    }

    fn differing_lines(a: &[u8], b: &[u8]) -> Vec<usize> {
        let (a, b) = (raw_lines(a), raw_lines(b));
        assert_eq!(a.len(), b.len(), "line counts differ");
        (0..a.len()).filter(|&i| a[i] != b[i]).collect()
    }

    fn file() -> &'static Path {
        Path::new("sample.hot")
    }

    #[test]
    fn round_trips_hand_written_inputs() {
        let inputs: &[&[u8]] = &[
            b"",
            b"\n",
            b"\r\n",
            b"\r",
            b"; comment\n# other\n\n[Options]\nVersion=1\n",
            b"[Options]\r\nVersion=1\r\nLoadPriority=2\r\n",
            b"[A]\nk=v\r\nj=w\n\r\n[B]\r\nx=y",
            b"[A]\nkey = value\nkey2=  value  \n\tkey3\t=\tv\t\n",
            b"[A]\nk=1\nk=2\nK=3\n[a]\nk=4\n",
            b"[Unknown]\nwhatever=1\nnot an entry\n[]\n=novalue\n",
            b"\xEF\xBB\xBF[Options]\nVersion=1\n",
            b"\xEF\xBB\xBF",
            b"\xEF\xBB",
            b"[A]\nk=v",
            b"[A]\nk=\xFF\xFEbad utf8\n\xC3(\n",
            b"[A]\nk=a\rb\n\r\r\n\0\0=\0\n",
            b"[A] ; header comment\nk=v ; trailing\nq=\"a ;b\" ;c\n// slashes\n",
        ];
        for input in inputs {
            round_trip(input);
        }
    }

    #[test]
    fn classifies_lines() {
        let doc = HotDocument::parse(
            b"\xEF\xBB\xBF[First] ; c\npre\n; c\n# c\n// c\n\n  [ Second ]\t\nk = v\n[x]y\n[]\n",
        );
        let kinds: Vec<_> = doc.lines().iter().map(|l| l.kind).collect();
        use HotLineKind::*;
        assert_eq!(
            kinds,
            [
                Section, Unparsed, Comment, Comment, Comment, Blank, Section, Entry, Unparsed,
                Unparsed
            ]
        );
        assert!(doc.has_bom());
        assert_eq!(doc.sections(), ["First", "Second"]);
        assert_eq!(doc.lines()[8].section, "Second");
        assert_eq!(doc.line_count(), 10);
    }

    #[test]
    fn entries_trim_and_drop_trailing_comments() {
        let doc = HotDocument::parse(
            b"top=1\n[S]\n  key  =  some value  ; note\nq=\"a ;b\" ; c\nsemi=a;b\nempty=\n\
              tab\t=\tx\n",
        );
        let e = doc.entries("s");
        let got: Vec<_> = e
            .iter()
            .map(|e| {
                (
                    e.key.as_str(),
                    e.value.as_str(),
                    e.line,
                    e.key_column,
                    e.value_column,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("key", "some value", 3, 3, 11),
                ("q", "\"a ;b\"", 4, 1, 3),
                ("semi", "a;b", 5, 1, 6),
                ("empty", "", 6, 1, 7),
                ("tab", "x", 7, 1, 7),
            ]
        );
        assert_eq!(doc.get("", "TOP"), Some("1"));
        assert_eq!(doc.get("S", "missing"), None);
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let doc = HotDocument::parse("[S]\nnäme=wért\n".as_bytes());
        let e = &doc.entries("S")[0];
        assert_eq!((e.key_column, e.value_column), (1, 6));
        // The BOM is not a column.
        let doc = HotDocument::parse(b"\xEF\xBB\xBFk=v\n");
        assert_eq!(doc.entries("")[0].key_column, 1);
    }

    #[test]
    fn duplicates_last_wins_and_sections_continue() {
        let doc = HotDocument::parse(b"[A]\nk=1\nother=x\n[B]\nk=9\n[a]\nK=2\n");
        assert_eq!(doc.get("a", "k"), Some("2"));
        assert_eq!(doc.get("B", "k"), Some("9"));
        assert_eq!(doc.entries("A").len(), 3);
        assert_eq!(doc.sections(), ["A", "B"]);
    }

    #[test]
    fn set_on_crlf_file_changes_only_one_line() {
        let input = b"; header\r\n[Options]\r\nVersion = 1\r\nLoadPriority  =\t2   ; why\r\n\r\n";
        let mut doc = HotDocument::parse(input);
        doc.set("options", "loadpriority", "7").unwrap();
        let out = doc.to_bytes();
        assert_eq!(differing_lines(input, &out), [3]);
        assert_eq!(raw_lines(&out)[3], b"LoadPriority  =\t7   ; why\r\n");
        assert_eq!(
            HotDocument::parse(&out).get("Options", "LoadPriority"),
            Some("7")
        );
    }

    #[test]
    fn set_on_duplicate_changes_last_occurrence_only() {
        let input = b"[A]\nk=1\nk = 2\n[B]\nk=3\n[A]\nk=4 ;x\nz=0\n";
        let mut doc = HotDocument::parse(input);
        doc.set("A", "K", "five").unwrap();
        let out = doc.to_bytes();
        assert_eq!(differing_lines(input, &out), [6]);
        assert_eq!(raw_lines(&out)[6], b"k=five ;x\n");
        assert_eq!(doc.get("A", "k"), Some("five"));
    }

    #[test]
    fn set_fills_empty_values_keeping_comments() {
        let mut doc = HotDocument::parse(b"[A]\na=\nb= ;c\nc =  ;c\nd=   \n");
        for key in ["a", "b", "c", "d"] {
            doc.set("A", key, "v").unwrap();
        }
        assert_eq!(doc.to_bytes(), b"[A]\na=v\nb=v ;c\nc = v ;c\nd= v  \n");
        doc.set("A", "a", "").unwrap();
        assert_eq!(doc.get("A", "a"), Some(""));
    }

    #[test]
    fn set_keeps_missing_final_newline() {
        let mut doc = HotDocument::parse(b"[A]\nk=1");
        doc.set("A", "k", "22").unwrap();
        assert_eq!(doc.to_bytes(), b"[A]\nk=22");
    }

    #[test]
    fn set_inserts_absent_key() {
        let mut doc = HotDocument::parse(b"[A]\nx=1\n");
        doc.set("A", "y", "2").unwrap();
        assert_eq!(doc.to_bytes(), b"[A]\nx=1\ny=2\n");
    }

    #[test]
    fn insert_into_existing_section_adds_one_line() {
        let input = b"[A]\r\nfirst = 1\r\nsecond = 2\r\n; trailing comment\r\n\r\n[B]\r\nb=1\r\n";
        let mut doc = HotDocument::parse(input);
        doc.insert("a", "third", "3").unwrap();
        let out = doc.to_bytes();
        let (old, new) = (raw_lines(input), raw_lines(&out));
        assert_eq!(new.len(), old.len() + 1);
        assert_eq!(new[3], b"third = 3\r\n");
        assert_eq!(&new[..3], &old[..3]);
        assert_eq!(&new[4..], &old[3..]);
        assert_eq!(doc.get("A", "third"), Some("3"));
    }

    #[test]
    fn insert_into_empty_section_goes_after_header() {
        let mut doc = HotDocument::parse(b"x=1\n[A]\n; nothing yet\n[B]\nb=2\n");
        doc.insert("A", "k", "v").unwrap();
        assert_eq!(doc.to_bytes(), b"x=1\n[A]\nk=v\n; nothing yet\n[B]\nb=2\n");
        doc.insert("", "top", "t").unwrap();
        assert_eq!(
            doc.to_bytes(),
            b"x=1\ntop=t\n[A]\nk=v\n; nothing yet\n[B]\nb=2\n"
        );
    }

    #[test]
    fn insert_new_section_at_end() {
        let mut doc = HotDocument::parse(b"[A]\r\nk = 1\r\nj=2\n\r\n[B]\r\nb=1");
        doc.insert("New", "key", "value").unwrap();
        assert_eq!(
            doc.to_bytes(),
            b"[A]\r\nk = 1\r\nj=2\n\r\n[B]\r\nb=1\r\n\r\n[New]\r\nkey=value\r\n"
        );
        // A file ending in a blank line gets no second one.
        let mut doc = HotDocument::parse(b"[A]\nk=1\n\n");
        doc.insert("B", "x", "y").unwrap();
        assert_eq!(doc.to_bytes(), b"[A]\nk=1\n\n[B]\nx=y\n");
    }

    #[test]
    fn build_from_empty_document() {
        let mut doc = HotDocument::default();
        doc.insert("Options", "Version", "1").unwrap();
        doc.insert("Options", "LoadPriority", "2").unwrap();
        doc.insert("TrackData", "0xb0f4", "0x10").unwrap();
        assert_eq!(
            doc.to_bytes(),
            b"[Options]\nVersion=1\nLoadPriority=2\n\n[TrackData]\n0xb0f4=0x10\n"
        );
        let (data, diagnostics) = HotDocument::parse(&doc.to_bytes()).track_data(file());
        assert!(diagnostics.is_empty());
        assert_eq!(
            data,
            [TrackDataEntry {
                id: 0xb0f4,
                address: 0x10,
                line: 6
            }]
        );
        let mut doc = HotDocument::default();
        doc.insert("", "k", "v").unwrap();
        assert_eq!(doc.to_bytes(), b"k=v\n");
    }

    #[test]
    fn insert_edge_cases() {
        // Header without final newline: it gets the ending, the entry follows.
        let mut doc = HotDocument::parse(b"[A]");
        doc.insert("a", "k", "v").unwrap();
        assert_eq!(doc.to_bytes(), b"[A]\nk=v\n");
        // A BOM stays first, even when inserting at the top.
        let mut doc = HotDocument::parse(b"\xEF\xBB\xBF");
        doc.insert("S", "k", "v").unwrap();
        assert_eq!(doc.to_bytes(), b"\xEF\xBB\xBF[S]\nk=v\n");
        let mut doc = HotDocument::parse(b"\xEF\xBB\xBF[S]\r\nk = v\r\n");
        doc.insert("", "top", "1").unwrap();
        assert_eq!(doc.to_bytes(), b"\xEF\xBB\xBFtop = 1\r\n[S]\r\nk = v\r\n");
        // An existing invalid UTF-8 value can be replaced; the rest of the line stays.
        let mut doc = HotDocument::parse(b"[S]\nk=\xFF\xFE ;\xFF\n");
        doc.set("S", "k", "ok").unwrap();
        assert_eq!(doc.to_bytes(), b"[S]\nk=ok ;\xFF\n");
    }

    #[test]
    fn remove_every_occurrence_in_section() {
        let mut doc = HotDocument::parse(b"[A]\nk=1\nx=0\n[B]\nk=2\n[a]\nK=3\n");
        assert_eq!(doc.remove("A", "k"), 2);
        assert_eq!(doc.to_bytes(), b"[A]\nx=0\n[B]\nk=2\n[a]\n");
        assert_eq!(doc.remove("A", "k"), 0);
        assert_eq!(doc.remove("Nope", "x"), 0);
    }

    #[test]
    fn edits_reject_unwritable_text() {
        let mut doc = HotDocument::parse(b"[A]\nk=1 ;c\n");
        let before = doc.clone();
        assert!(matches!(
            doc.insert("A", "a\nb", "1"),
            Err(HotEditError::LineBreak { what: "key", .. })
        ));
        assert!(matches!(
            doc.set("A", "k", "1\r2"),
            Err(HotEditError::LineBreak { what: "value", .. })
        ));
        assert!(matches!(
            doc.insert("A\n", "k", "1"),
            Err(HotEditError::LineBreak { .. })
        ));
        assert_eq!(doc.insert("A", "", "1"), Err(HotEditError::EmptyKey));
        assert!(matches!(
            doc.insert("A", "a=b", "1"),
            Err(HotEditError::KeyContainsEquals(_))
        ));
        for key in ["[x]", ";x", "#x", "//x"] {
            assert!(matches!(
                doc.insert("A", key, "1"),
                Err(HotEditError::KeyLooksLikeMarker(_))
            ));
        }
        assert!(matches!(
            doc.insert("A", " padded", "1"),
            Err(HotEditError::NotRepresentable { what: "key", .. })
        ));
        assert!(matches!(
            doc.insert("A", "k2", "a ;b"),
            Err(HotEditError::NotRepresentable { what: "value", .. })
        ));
        // An unbalanced quote would swallow the trailing comment.
        assert!(matches!(
            doc.set("A", "k", "\"open"),
            Err(HotEditError::NotRepresentable { what: "value", .. })
        ));
        assert!(matches!(
            doc.insert("Bad]Name", "k", "1"),
            Err(HotEditError::NotRepresentable {
                what: "section name",
                ..
            })
        ));
        assert_eq!(doc, before);
        assert!(!HotEditError::EmptyKey.to_string().is_empty());
    }

    /// A TS1-style table. Line numbers matter to the tests below.
    const SAMPLE: &str = "\
; HIT options table for a TS1-style object\r
[Options]\r
Version=1\r
LoadPriority=2\r
Author=someone\r
\r
[EventMappingEquate]\r
kSndobPlay=1\r
kSndobStop=2\r
kSetMusicMode=0x24\r
\r
[EventMapping]\r
vox_laugh=kSndobPlay,0x2001,0,0,0,0\r
Vox_Stop=2,0x2001,0,0,0,0\r
music_mode=kSetMusicMode,buy_music,0,0,0,0\r
\r
[TrackData]\r
0xb0f4=0x10\r
8193=0x2A0\r
0x2002=bad\r
0x2003=0x30\r
\r
[Track]\r
0x2001=0,vox_laugh_sub,1024,0,32,1,0,@hl_laugh,0\r
0x2002=0,music_sub,1024\r
0x2003=0,x,1,2,3,4,5,@6,7,8\r
\r
[Patch]\r
0x3001=0,Laugh,\"sounds\\vox\\laugh.wav\",0,0,0,0,0\r
0x3002=0,Radio,\"music\\radio, loop.mp3\",1,0,0,0,0\r
\r
[GlobalHitList]\r
0x4001=1,2,5-9\r
hl_laugh=0x3001\r
";

    #[test]
    fn typed_views_of_sample() {
        let doc = HotDocument::parse(SAMPLE.as_bytes());
        assert_eq!(doc.to_bytes(), SAMPLE.as_bytes());

        let (options, d) = doc.options(file());
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            options,
            HotOptions {
                version: Some(1),
                load_priority: Some(2),
                other: vec![("Author".into(), "someone".into(), 5)],
            }
        );

        let (equates, d) = doc.equates(file());
        assert!(d.is_empty(), "{d:?}");
        let equates: Vec<_> = equates
            .iter()
            .map(|e| (e.name.as_str(), e.value, e.line))
            .collect();
        assert_eq!(
            equates,
            [
                ("kSndobPlay", 1, 8),
                ("kSndobStop", 2, 9),
                ("kSetMusicMode", 0x24, 10)
            ]
        );
        assert_eq!(equate_value(&doc, "ksndobplay"), Some(1));
        assert_eq!(equate_value(&doc, "nope"), None);

        let (events, d) = doc.event_mappings(file());
        assert!(d.is_empty(), "{d:?}");
        let name = |s: &str| IdRef::Name(s.to_owned());
        assert_eq!(
            events[0],
            EventMapping {
                name: "vox_laugh".into(),
                event_type: name("kSndobPlay"),
                track_id: IdRef::Number(0x2001),
                extra: vec![IdRef::Number(0); 4],
                line: 13,
                field_columns: vec![11, 22, 29, 31, 33, 35],
            }
        );
        assert_eq!(events[1].name, "Vox_Stop");
        assert_eq!(events[1].event_type, IdRef::Number(2));
        assert_eq!(events[2].track_id, name("buy_music"));
        assert_eq!(resolve_equate(&doc, &events[0].event_type), Some(1));
        assert_eq!(resolve_equate(&doc, &events[2].event_type), Some(0x24));

        let (data, d) = doc.track_data(file());
        assert_eq!(
            data,
            [
                TrackDataEntry {
                    id: 0xb0f4,
                    address: 0x10,
                    line: 18
                },
                TrackDataEntry {
                    id: 8193,
                    address: 0x2A0,
                    line: 19
                },
                TrackDataEntry {
                    id: 0x2003,
                    address: 0x30,
                    line: 21
                },
            ]
        );
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].severity, d[0].line, d[0].column),
            (Severity::Error, 20, 8)
        );
        assert!(d[0].message.contains("`bad`"), "{}", d[0].message);

        let (tracks, d) = doc.tracks(file());
        assert_eq!(tracks.len(), 3);
        assert_eq!(
            tracks[0],
            TrackDef {
                id: IdRef::Number(0x2001),
                reserved: Some(IdRef::Number(0)),
                subroutine: Some(name("vox_laugh_sub")),
                volume: Some(IdRef::Number(1024)),
                arguments: Some(IdRef::Number(0)),
                ducking_priority: Some(IdRef::Number(32)),
                control_group: Some(IdRef::Number(1)),
                sound_pressure_level: Some(IdRef::Number(0)),
                hitlist: Some(name("hl_laugh")),
                hitlist_at: true,
                patch: Some(IdRef::Number(0)),
                priority: None,
                line: 24,
                field_columns: vec![8, 10, 24, 29, 31, 34, 36, 38, 48],
            }
        );
        assert_eq!(tracks[1].subroutine, Some(name("music_sub")));
        assert_eq!(tracks[1].volume, Some(IdRef::Number(1024)));
        assert_eq!(tracks[1].arguments, None);
        assert_eq!(tracks[1].patch, None);
        assert_eq!(tracks[2].hitlist, Some(IdRef::Number(6)));
        assert_eq!(tracks[2].patch, Some(IdRef::Number(7)));
        // The 10th field is HitBench's optional priority, not an extra field.
        assert_eq!(tracks[2].priority, Some(IdRef::Number(8)));
        let found: Vec<_> = d.iter().map(|d| (d.severity, d.line, d.column)).collect();
        assert_eq!(found, [(Severity::Warning, 25, 24)]);
        assert!(d[0].message.contains("arguments"), "{}", d[0].message);

        let (patches, d) = doc.patches(file());
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            patches[0],
            PatchDef {
                id: IdRef::Number(0x3001),
                reserved: Some(IdRef::Number(0)),
                name: "Laugh".into(),
                path: "sounds\\vox\\laugh.wav".into(),
                looped: false,
                piano: false,
                extra: vec!["0".into(); 3],
                line: 29,
                field_columns: vec![8, 10, 16, 39, 41, 43, 45, 47],
            }
        );
        assert_eq!(
            patches[0].relative_path(),
            PathBuf::from("sounds/vox/laugh.wav")
        );
        assert_eq!(patches[1].path, "music\\radio, loop.mp3");
        assert!(patches[1].looped);

        let (lists, d) = doc.global_hit_lists(file());
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            lists,
            [
                GlobalHitListDef {
                    id: IdRef::Number(0x4001),
                    list_text: "1,2,5-9".into(),
                    line: 33,
                    value_column: 8,
                },
                GlobalHitListDef {
                    id: name("hl_laugh"),
                    list_text: "0x3001".into(),
                    line: 34,
                    value_column: 10,
                },
            ]
        );

        let (tables, all) = doc.tables(file());
        assert_eq!(tables.tracks.len(), 3);
        assert_eq!(tables.patches, patches);
        assert_eq!(all.len(), 2);
        assert!(all.windows(2).all(|w| w[0].line <= w[1].line));
    }

    #[test]
    fn bad_entries_are_reported_and_skipped() {
        let text = "\
[EventMappingEquate]
good=5
bad=five
[EventMapping]
ok=1,2,0,0,0,0
short=1
badtype=1x,2
[Track]
1=0,sub,1024,0,32,1,0,@hl,0
2=0,sub,12q
[Patch]
1=0,Name,\"open.wav,0,0
2=0,Name
3=0,Name,\"a.wav\",maybe,0
4=0,Name,\"b.wav\"
this line is junk
[GlobalHitList]
1 0=1
";
        let doc = HotDocument::parse(text.as_bytes());
        let where_ = |d: &[Diagnostic]| -> Vec<(Severity, u32, u32)> {
            d.iter().map(|d| (d.severity, d.line, d.column)).collect()
        };

        let (equates, d) = doc.equates(file());
        assert_eq!(equates.len(), 1);
        assert_eq!(where_(&d), [(Severity::Error, 3, 5)]);

        let (events, d) = doc.event_mappings(file());
        assert_eq!(events.len(), 1);
        assert_eq!(
            where_(&d),
            [(Severity::Error, 6, 8), (Severity::Error, 7, 9)]
        );

        let (tracks, d) = doc.tracks(file());
        assert_eq!(tracks.len(), 1);
        assert_eq!(where_(&d), [(Severity::Error, 10, 9)]);

        let (patches, d) = doc.patches(file());
        assert_eq!(patches.len(), 1);
        assert_eq!(patches[0].path, "b.wav");
        assert_eq!(
            where_(&d),
            [
                (Severity::Error, 12, 10),
                (Severity::Error, 13, 9),
                (Severity::Error, 14, 18),
                (Severity::Warning, 15, 17),
                (Severity::Warning, 16, 1),
            ]
        );

        let (lists, d) = doc.global_hit_lists(file());
        assert!(lists.is_empty());
        assert_eq!(where_(&d), [(Severity::Error, 18, 1)]);
    }

    #[test]
    fn duplicate_definitions_warn_and_last_wins() {
        let doc = HotDocument::parse(b"[TrackData]\n0x10=1\n16=2\n0x10=3\n[Options]\nVersion=2\n");
        let (data, d) = doc.track_data(file());
        assert_eq!(
            data,
            [TrackDataEntry {
                id: 16,
                address: 3,
                line: 4
            }]
        );
        let lines: Vec<_> = d.iter().map(|d| (d.severity, d.line)).collect();
        assert_eq!(lines, [(Severity::Warning, 2), (Severity::Warning, 3)]);
        let (options, d) = doc.options(file());
        assert_eq!(options.version, Some(2));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, Severity::Warning);
    }

    #[test]
    fn edits_then_reparse_give_typed_values() {
        let mut doc = HotDocument::parse(SAMPLE.as_bytes());
        doc.set("TrackData", "0x2002", "0x20").unwrap();
        doc.set("EventMappingEquate", "kSndobStop", "0x3").unwrap();
        doc.insert("EventMapping", "vox_new", "kSndobStop,0x2003,0,0,0,0")
            .unwrap();
        assert_eq!(doc.remove("Patch", "0x3002"), 1);
        doc.insert("Patch", "0x3003", "0,Piano,\"piano\\c4.wav\",0,1,0,0,0")
            .unwrap();
        let bytes = doc.to_bytes();
        assert!(
            !bytes
                .windows(2)
                .any(|w| w != b"\r\n" && w[1] == b'\n' && w[0] != b'\r')
        );
        let doc = HotDocument::parse(&bytes);
        let (data, d) = doc.track_data(file());
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(data[2].id, 0x2002);
        assert_eq!(data[2].address, 0x20);
        let (events, _) = doc.event_mappings(file());
        let new = events.last().unwrap();
        assert_eq!((new.name.as_str(), new.line), ("vox_new", 16));
        assert_eq!(resolve_equate(&doc, &new.event_type), Some(3));
        let (patches, _) = doc.patches(file());
        assert_eq!(patches.len(), 2);
        assert!(patches[1].piano);
        assert_eq!(patches[1].relative_path(), PathBuf::from("piano/c4.wav"));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(hot_path_to_relative("a\\b.wav"), PathBuf::from("a/b.wav"));
        assert_eq!(
            hot_path_to_relative("C:\\x\\.\\y//z.mp3"),
            PathBuf::from("x/y/z.mp3")
        );
        assert_eq!(hot_path_to_relative("\\..\\q.xa"), PathBuf::from("../q.xa"));
    }

    #[test]
    fn id_refs() {
        assert_eq!(id_ref("0x10", "v"), Ok(IdRef::Number(16)));
        assert_eq!(id_ref("-3", "v"), Ok(IdRef::Number(-3)));
        assert_eq!(id_ref("kName", "v"), Ok(IdRef::Name("kName".into())));
        for bad in ["", "12ab", "-1x", "two words", "\"q\""] {
            assert!(id_ref(bad, "v").is_err(), "{bad:?}");
        }
        assert_eq!(IdRef::Number(5).to_string(), "5");
        assert_eq!(IdRef::Name("x".into()).as_name(), Some("x"));
        assert_eq!(IdRef::Name("x".into()).resolve(|_| Some(4)), Some(4));
        assert_eq!(IdRef::Number(7).as_number(), Some(7));
    }

    /// Fragments that make INI-like text with every awkward case nearby.
    fn ini_ish() -> impl Strategy<Value = String> {
        let fragment = prop::sample::select(vec![
            "[",
            "]",
            "=",
            ";",
            "#",
            "//",
            "\r\n",
            "\n",
            "\r",
            "\"",
            ",",
            " ",
            "\t",
            "@",
            "a",
            "K",
            "z",
            "0",
            "1",
            "9",
            "0x",
            "-",
            "Track",
            "Patch",
            "TrackData",
            "Options",
            "EventMapping",
            "GlobalHitList",
            "EventMappingEquate",
            "\u{FEFF}",
            "é",
        ]);
        prop::collection::vec(fragment, 0..80).prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn any_bytes_round_trip(input in prop::collection::vec(any::<u8>(), 0..400)) {
            let doc = HotDocument::parse(&input);
            prop_assert_eq!(doc.to_bytes(), input);
        }

        #[test]
        fn ini_ish_text_round_trips_and_views_never_panic(text in ini_ish()) {
            let doc = HotDocument::parse(text.as_bytes());
            prop_assert_eq!(doc.to_bytes(), text.as_bytes());
            let (_, diagnostics) = doc.tables(file());
            for d in diagnostics {
                prop_assert!(d.line >= 1 && d.column >= 1);
            }
            let _ = doc.sections();
            let _ = doc.lines();
        }

        #[test]
        fn set_then_get_reads_back(
            text in ini_ish(),
            section in prop::sample::select(vec!["", "Track", "a", "New"]),
            key in prop::sample::select(vec!["a", "K", "0x1", "z z"]),
            value in "[a-z0-9 ;\",]{0,8}",
        ) {
            let mut doc = HotDocument::parse(text.as_bytes());
            let before = doc.to_bytes();
            match doc.set(section, key, &value) {
                Ok(()) => {
                    let reparsed = HotDocument::parse(&doc.to_bytes());
                    prop_assert_eq!(reparsed.get(section, key), Some(value.as_str()));
                }
                Err(_) => prop_assert_eq!(doc.to_bytes(), before),
            }
        }
    }
}
