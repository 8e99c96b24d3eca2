//! A file holding table entries, kept byte for byte: a `.hot` file (its sections'
//! entries) or a MakeTrax source (its `LIST [Section] key=value` lines, each edited as a
//! one-line splice), with the one edit the editors make — set an entry's value — and a
//! line-by-line view for diffs. The hit-list editor works on `[GlobalHitList]`, the
//! properties editor (`tools::properties`) on `[Track]`, `[Patch]` and `[EventMapping]`.

use super::disk::read_file;
use super::errors::EditError;
use super::list_line::section_span;
use super::views::DefinitionKind;
use crate::toolchain::formats::hot::{
    HotDocument, HotEditError, LineEnding, SECTION_GLOBAL_HIT_LIST,
};
use std::path::Path;

/// One entry line of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListLine {
    /// The entry's key as written.
    pub(crate) key: String,
    /// Its value as written.
    pub(crate) value: String,
    /// 1-based line.
    pub(crate) line: u32,
    /// 1-based column where the value starts.
    pub(crate) value_column: u32,
}

/// A file holding table entries, kept byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Doc {
    Hot(HotDocument),
    Source(SourceDoc),
}

impl Doc {
    pub(super) fn kind_for(path: &Path) -> DefinitionKind {
        let hot = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("hot"));
        if hot {
            DefinitionKind::HotFile
        } else {
            DefinitionKind::SourceList
        }
    }

    pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Self {
        match Self::kind_for(path) {
            DefinitionKind::HotFile => Doc::Hot(HotDocument::parse(bytes)),
            DefinitionKind::SourceList => Doc::Source(SourceDoc::parse(bytes)),
        }
    }

    pub(crate) fn read(path: &Path) -> Result<Self, EditError> {
        read_file(path)
            .map(|bytes| Self::parse(path, &bytes))
            .map_err(|e| EditError::Read {
                path: path.to_path_buf(),
                message: e.to_string(),
            })
    }

    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        match self {
            Doc::Hot(doc) => doc.to_bytes(),
            Doc::Source(doc) => doc.to_bytes(),
        }
    }

    /// Every hit-list line, in file order (a key may appear more than once).
    pub(super) fn list_lines(&self) -> Vec<ListLine> {
        self.entry_lines(SECTION_GLOBAL_HIT_LIST)
    }

    /// Every line of `section`, in file order (a key may appear more than once).
    pub(crate) fn entry_lines(&self, section: &str) -> Vec<ListLine> {
        match self {
            Doc::Hot(doc) => doc
                .entries(section)
                .into_iter()
                .map(|e| ListLine {
                    key: e.key,
                    value: e.value,
                    line: e.line,
                    value_column: e.value_column,
                })
                .collect(),
            Doc::Source(doc) => doc.entry_lines(section),
        }
    }

    pub(super) fn list_at_line(&self, line: u32) -> Option<ListLine> {
        self.list_lines().into_iter().find(|l| l.line == line)
    }

    /// The effective (last) hit-list line of `key`.
    pub(super) fn effective(&self, key: &str) -> Option<ListLine> {
        self.effective_entry(SECTION_GLOBAL_HIT_LIST, key)
    }

    /// The effective (last) line of `key` in `section`.
    pub(crate) fn effective_entry(&self, section: &str, key: &str) -> Option<ListLine> {
        self.entry_lines(section)
            .into_iter()
            .rev()
            .find(|l| l.key.eq_ignore_ascii_case(key))
    }

    /// Sets the effective hit-list line of `key` (which must exist) to `value`.
    pub(super) fn set_value(&mut self, key: &str, value: &str) -> Result<(), SetValueError> {
        self.set_entry(SECTION_GLOBAL_HIT_LIST, key, value)
    }

    /// Sets the effective line of `key` in `section` (which must exist) to `value`.
    pub(crate) fn set_entry(
        &mut self,
        section: &str,
        key: &str,
        value: &str,
    ) -> Result<(), SetValueError> {
        match self {
            Doc::Hot(doc) => Ok(doc.set(section, key, value)?),
            Doc::Source(doc) => doc.set_value(section, key, value),
        }
    }

    /// Each line's bytes without its ending.
    pub(super) fn line_contents(&self) -> Vec<Vec<u8>> {
        match self {
            Doc::Hot(doc) => doc
                .lines()
                .into_iter()
                .map(|l| l.content.to_vec())
                .collect(),
            Doc::Source(doc) => doc.line_contents(),
        }
    }
}

/// Why an entry's value could not be set in its line (the hit-list editor reports it as
/// [`EditError::NotRepresentable`] of the list's file and line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SetValueError {
    /// The `.hot` document refused the value.
    #[error(transparent)]
    Hot(#[from] HotEditError),
    /// The source has no `LIST` line for the key.
    #[error("no `LIST [{section}] {key}=…` line")]
    NoListLine {
        /// The section.
        section: String,
        /// The entry's key.
        key: String,
    },
    /// The new line would read back as another entry.
    #[error("the value `{value}` would not read back unchanged from a LIST line")]
    NotReadBack {
        /// The entry's new text.
        value: String,
    },
}

/// A source file as lines with their endings, for splicing one `LIST` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceDoc {
    bom: bool,
    lines: Vec<(Vec<u8>, LineEnding)>,
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A count or index as a line or column number (saturating).
pub(super) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl SourceDoc {
    pub(super) fn parse(input: &[u8]) -> Self {
        let (bom, mut rest) = match input.strip_prefix(BOM) {
            Some(body) => (true, body),
            None => (false, input),
        };
        let mut lines = Vec::new();
        while !rest.is_empty() {
            match rest.iter().position(|&b| b == b'\n') {
                Some(nl) => {
                    let line = rest.get(..nl).unwrap_or_default();
                    let (content, ending) = match line.strip_suffix(b"\r") {
                        Some(c) => (c, LineEnding::CrLf),
                        None => (line, LineEnding::Lf),
                    };
                    lines.push((content.to_vec(), ending));
                    rest = rest.get(nl + 1..).unwrap_or_default();
                }
                None => {
                    lines.push((rest.to_vec(), LineEnding::Missing));
                    rest = &[];
                }
            }
        }
        Self { bom, lines }
    }

    pub(super) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice(BOM);
        }
        for (content, ending) in &self.lines {
            out.extend_from_slice(content);
            out.extend_from_slice(ending.as_bytes());
        }
        out
    }

    fn entry_lines(&self, section: &str) -> Vec<ListLine> {
        self.lines
            .iter()
            .enumerate()
            .filter_map(|(index, (content, _))| {
                let span = section_span(content, section)?;
                let prefix = String::from_utf8_lossy(content.get(..span.value_start)?);
                Some(ListLine {
                    key: span.key,
                    value: span.value,
                    line: to_u32(index).saturating_add(1),
                    value_column: to_u32(prefix.chars().count()).saturating_add(1),
                })
            })
            .collect()
    }

    fn set_value(&mut self, section: &str, key: &str, value: &str) -> Result<(), SetValueError> {
        let no_line = || SetValueError::NoListLine {
            section: section.to_owned(),
            key: key.to_owned(),
        };
        let found = self.lines.iter().enumerate().rev().find_map(|(i, (c, _))| {
            section_span(c, section)
                .filter(|s| s.key.eq_ignore_ascii_case(key))
                .map(|s| (i, s))
        });
        let Some((index, span)) = found else {
            return Err(no_line());
        };
        let Some((content, _)) = self.lines.get_mut(index) else {
            return Err(no_line());
        };
        let mut new = content.get(..span.value_start).unwrap_or_default().to_vec();
        new.extend_from_slice(value.as_bytes());
        new.extend_from_slice(content.get(span.value_end..).unwrap_or_default());
        let reads_back =
            section_span(&new, section).is_some_and(|s| s.key == span.key && s.value == value);
        if !reads_back || value.contains(['\n', '\r']) {
            return Err(SetValueError::NotReadBack {
                value: value.to_owned(),
            });
        }
        *content = new;
        Ok(())
    }

    /// Each line's bytes without its ending.
    pub(super) fn line_contents(&self) -> Vec<Vec<u8>> {
        self.lines.iter().map(|(c, _)| c.clone()).collect()
    }
}
