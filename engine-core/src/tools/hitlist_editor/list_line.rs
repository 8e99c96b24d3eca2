//! Reading one `LIST [Section] key=value` line of a MakeTrax source the way the assembler
//! reads it, with the byte offsets of its value so that it can be spliced.

/// Where the parts of a `LIST [Section] key=value` line are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ListSpan {
    /// The section named in brackets.
    pub(super) section: String,
    /// The key.
    pub(super) key: String,
    /// The value, trimmed.
    pub(super) value: String,
    /// Byte offset of the value in the line.
    pub(super) value_start: usize,
    /// Byte offset just past the value.
    pub(super) value_end: usize,
}

fn trim_range(content: &[u8], start: usize, end: usize) -> (usize, usize) {
    let inner = content.get(start..end).unwrap_or_default();
    match inner.iter().position(|b| !b.is_ascii_whitespace()) {
        None => (end, end),
        Some(first) => {
            let last = inner
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .unwrap_or(first);
            (start + first, start + last + 1)
        }
    }
}

fn lossy(content: &[u8], start: usize, end: usize) -> String {
    String::from_utf8_lossy(content.get(start..end).unwrap_or_default()).into_owned()
}

/// Reads a source line as the assembler reads a `LIST` directive: `LIST` first (any
/// case), a `;` outside double quotes starts a comment, then `[Section] key=value`.
fn parse_list_line(content: &[u8]) -> Option<ListSpan> {
    let start = content.iter().position(|b| !b.is_ascii_whitespace())?;
    let word_end = start + 4;
    if !content.get(start..word_end)?.eq_ignore_ascii_case(b"LIST")
        || !content.get(word_end)?.is_ascii_whitespace()
    {
        return None;
    }
    let mut quoted = false;
    let mut region_end = content.len();
    for (i, &b) in content.iter().enumerate().skip(word_end) {
        match b {
            b'"' => quoted = !quoted,
            b';' if !quoted => {
                region_end = i;
                break;
            }
            _ => {}
        }
    }
    let (body_start, body_end) = trim_range(content, word_end, region_end);
    if content.get(body_start) != Some(&b'[') {
        return None;
    }
    let close = body_start
        + content
            .get(body_start..body_end)?
            .iter()
            .position(|&b| b == b']')?;
    let (section_start, section_end) = trim_range(content, body_start + 1, close);
    let eq = close
        + content
            .get(close..body_end)?
            .iter()
            .position(|&b| b == b'=')?;
    let (key_start, key_end) = trim_range(content, close + 1, eq);
    let (mut value_start, mut value_end) = trim_range(content, eq + 1, body_end);
    if value_start == value_end {
        value_start = eq + 1;
        value_end = eq + 1;
    }
    if section_start == section_end || key_start == key_end {
        return None;
    }
    Some(ListSpan {
        section: lossy(content, section_start, section_end),
        key: lossy(content, key_start, key_end),
        value: lossy(content, value_start, value_end),
        value_start,
        value_end,
    })
}

/// The parts of a `LIST [<section>] key=value` line.
pub(super) fn section_span(content: &[u8], section: &str) -> Option<ListSpan> {
    parse_list_line(content).filter(|s| s.section.eq_ignore_ascii_case(section))
}
