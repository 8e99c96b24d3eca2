//! The lossless `.hot` document: lines kept byte for byte, and the queries (sections,
//! entries, the effective value of a key) that the edits and the typed views build on.

use super::line::{HotEntry, HotLine, Line, LineEnding, bytes, to_u32};

/// The UTF-8 byte order mark some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A `.hot` file kept byte for byte, with queries and edits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HotDocument {
    pub(super) bom: bool,
    pub(super) lines: Vec<Line>,
}

pub(super) fn line_number(index: usize) -> u32 {
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
    pub(super) fn section_flags(&self, section: &str) -> Vec<bool> {
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
    pub(super) fn entry_indices(&self, section: &str) -> Vec<usize> {
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
    pub(super) fn find_last(&self, section: &str, key: &str) -> Option<usize> {
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
}
