//! Edits of a `.hot` document that rewrite only the lines they change: set a value,
//! insert an entry (or a section), remove a key, and build a document from entries in
//! one pass. An edit whose text would not read back unchanged is refused.

use super::document::HotDocument;
use super::line::{HotLineKind, Line, LineEnding, bytes, is_blank_char};
use std::collections::HashMap;

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

impl HotDocument {
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
