//! One line of a `.hot` file: its ending, what the parser classifies it as, and the byte
//! positions of an entry's key and value (so edits can splice a value in).

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
///
/// [`HotDocument`]: super::document::HotDocument
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
pub(super) struct Line {
    pub(super) content: Vec<u8>,
    pub(super) ending: LineEnding,
    pub(super) parsed: Parsed,
}

/// What the parser made of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Parsed {
    Blank,
    Comment,
    Header { name: String },
    Entry(EntryParts),
    Unparsed { column: u32 },
}

/// Byte positions of the parts of an entry line, so edits can splice the value in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct EntryParts {
    pub(super) key: String,
    pub(super) value: String,
    pub(super) key_start: usize,
    pub(super) key_end: usize,
    pub(super) eq: usize,
    /// Start of the value; for an empty value, where a new value should go.
    pub(super) value_start: usize,
    pub(super) value_end: usize,
    pub(super) key_column: u32,
    pub(super) value_column: u32,
}

impl Line {
    pub(super) fn new(content: Vec<u8>, ending: LineEnding) -> Self {
        let parsed = parse_line(&content);
        Self {
            content,
            ending,
            parsed,
        }
    }

    pub(super) fn kind(&self) -> HotLineKind {
        match self.parsed {
            Parsed::Blank => HotLineKind::Blank,
            Parsed::Comment => HotLineKind::Comment,
            Parsed::Header { .. } => HotLineKind::Section,
            Parsed::Entry(_) => HotLineKind::Entry,
            Parsed::Unparsed { .. } => HotLineKind::Unparsed,
        }
    }

    pub(super) fn entry(&self) -> Option<&EntryParts> {
        match &self.parsed {
            Parsed::Entry(e) => Some(e),
            _ => None,
        }
    }

    pub(super) fn header(&self) -> Option<&str> {
        match &self.parsed {
            Parsed::Header { name } => Some(name),
            _ => None,
        }
    }
}

fn is_blank(b: u8) -> bool {
    b.is_ascii_whitespace()
}

pub(super) fn is_blank_char(c: char) -> bool {
    c.is_ascii_whitespace()
}

pub(super) fn bytes(content: &[u8], start: usize, end: usize) -> &[u8] {
    content.get(start..end).unwrap_or_default()
}

fn lossy(content: &[u8], start: usize, end: usize) -> String {
    String::from_utf8_lossy(bytes(content, start, end)).into_owned()
}

pub(super) fn to_u32(n: usize) -> u32 {
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
