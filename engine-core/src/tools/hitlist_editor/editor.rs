//! The editing session on one file's hit lists: the lists as they are now, entry-wise
//! edits that read back the same, undo and redo, and the pending line changes. Saving,
//! and noticing changes on disk, is in `save`.

use super::disk::read_file;
use super::document::{Doc, ListLine};
use super::entry_text::{list_text, parse_value, separator};
use super::errors::EditError;
use super::session::{FileSession, LineChange};
use super::views::DefinitionKind;
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::hitlist::{HitEntry, HitList};
use std::path::Path;
use std::time::SystemTime;

/// A hit list as the editor holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditableList {
    /// The key as written.
    pub key: String,
    /// 1-based line of its (effective) definition in the editor's file.
    pub line: u32,
    /// The list's text as it is now.
    pub text: String,
    /// The entries, in order.
    pub entries: Vec<HitEntry>,
    /// The text of each entry, parallel to `entries`.
    pub texts: Vec<String>,
    /// Problems reading the text (bad entries are not in `entries`).
    pub diagnostics: Vec<Diagnostic>,
}

impl EditableList {
    /// True if a part of the text could not be read as an entry: such a list can only be
    /// replaced as a whole ([`HitListEditor::set_entries`]).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// An editing session on one file's hit lists: a `.hot` file (its `[GlobalHitList]`
/// entries, edited through [`HotDocument::set`](crate::toolchain::formats::hot::HotDocument::set)) or a MakeTrax source (its
/// `LIST [GlobalHitList] key=value` lines, each edited as a one-line splice).
///
/// Every edit rewrites only the edited list's line; every other byte, line endings
/// included, stays as it was.
#[derive(Debug, Clone)]
pub struct HitListEditor {
    pub(super) file: FileSession,
}

impl HitListEditor {
    /// Opens `path` for editing and remembers its content, hash and modification time.
    ///
    /// # Errors
    /// [`EditError::Read`] when the file cannot be read.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, EditError> {
        let path = path.as_ref().to_path_buf();
        let bytes = read_file(&path).map_err(|e| EditError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        Ok(Self {
            file: FileSession::new(path, bytes),
        })
    }

    /// The file being edited.
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// A `.hot` file or a source.
    pub fn kind(&self) -> DefinitionKind {
        Doc::kind_for(&self.file.path)
    }

    /// Hash of the content at open (or last save).
    pub fn opened_hash(&self) -> u64 {
        self.file.base_hash
    }

    /// Modification time at open (or last save), if the file system gives one.
    pub fn opened_mtime(&self) -> Option<SystemTime> {
        self.file.base_mtime
    }

    /// The document as it would be saved now.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.file.current.to_bytes()
    }

    /// Every hit list of the file (the effective line of each key), in file order.
    pub fn lists(&self) -> Vec<EditableList> {
        let all = self.file.current.list_lines();
        all.iter()
            .enumerate()
            .filter(|(i, l)| {
                !all.iter()
                    .skip(i + 1)
                    .any(|later| later.key.eq_ignore_ascii_case(&l.key))
            })
            .map(|(_, l)| self.editable(l))
            .collect()
    }

    /// The list `key` (case-insensitive) as it is now.
    ///
    /// # Errors
    /// [`EditError::UnknownList`] when the file has no such list.
    pub fn list(&self, key: &str) -> Result<EditableList, EditError> {
        self.file
            .current
            .effective(key)
            .map(|l| self.editable(&l))
            .ok_or_else(|| EditError::UnknownList {
                path: self.file.path.clone(),
                key: key.to_owned(),
            })
    }

    fn editable(&self, l: &ListLine) -> EditableList {
        let parsed = parse_value(&l.value, &self.file.path, l.line, l.value_column);
        let (texts, entries) = parsed.tokens.into_iter().unzip();
        EditableList {
            key: l.key.clone(),
            line: l.line,
            text: l.value.clone(),
            entries,
            texts,
            diagnostics: parsed.diagnostics,
        }
    }

    /// Replaces the entries of list `key`. Entries that were already there keep their
    /// spelling; new ones are written in canonical form.
    ///
    /// # Errors
    /// [`EditError`] when there is no such list or the entries cannot be written so that
    /// they read back the same (a backward range, a name that is not an identifier).
    pub fn set_entries(&mut self, key: &str, entries: &[HitEntry]) -> Result<(), EditError> {
        let list = self.list(key)?;
        let original: Vec<(String, HitEntry)> = list
            .texts
            .iter()
            .cloned()
            .zip(list.entries.iter().cloned())
            .collect();
        let text = list_text(entries, &original, separator(&list.text));
        let not_representable = |message: String| EditError::NotRepresentable {
            path: self.file.path.clone(),
            line: list.line,
            key: list.key.clone(),
            message,
        };
        let (reread, found) = HitList::parse_text(&text, &self.file.path, list.line, 0);
        if !found.is_empty() || reread.entries != entries {
            let why = found.first().map_or_else(
                || "it reads back differently".to_owned(),
                |d| d.message.clone(),
            );
            return Err(not_representable(format!("cannot write `{text}`: {why}")));
        }
        if text == list.text {
            return Ok(());
        }
        let mut next = self.file.current.clone();
        next.set_value(&list.key, &text)
            .map_err(|e| not_representable(e.to_string()))?;
        self.file.push(next);
        Ok(())
    }

    /// The list's entries for an entry-wise edit; refused when part of the text does not
    /// read (the edit would silently drop it).
    fn clean_entries(&self, key: &str) -> Result<(EditableList, Vec<HitEntry>), EditError> {
        let list = self.list(key)?;
        if let Some(d) = list.diagnostics.iter().find(|d| d.is_error()) {
            return Err(EditError::ListHasErrors {
                path: self.file.path.clone(),
                line: list.line,
                key: list.key.clone(),
                message: d.message.clone(),
            });
        }
        let entries = list.entries.clone();
        Ok((list, entries))
    }

    fn no_such_entry(&self, list: &EditableList, index: usize) -> EditError {
        EditError::NoSuchEntry {
            path: self.file.path.clone(),
            line: list.line,
            key: list.key.clone(),
            index,
            len: list.entries.len(),
        }
    }

    /// Appends `entry` to list `key`.
    ///
    /// # Errors
    /// As [`HitListEditor::set_entries`], and [`EditError::ListHasErrors`].
    pub fn add_entry(&mut self, key: &str, entry: HitEntry) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        entries.push(entry);
        self.set_entries(&list.key, &entries)
    }

    /// Inserts `entry` at position `index` (0 to the list's length) of list `key`.
    ///
    /// # Errors
    /// As [`HitListEditor::add_entry`], and [`EditError::NoSuchEntry`] past the end.
    pub fn insert_entry(
        &mut self,
        key: &str,
        index: usize,
        entry: HitEntry,
    ) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        if index > entries.len() {
            return Err(self.no_such_entry(&list, index));
        }
        entries.insert(index, entry);
        self.set_entries(&list.key, &entries)
    }

    /// Removes entry `index` of list `key`.
    ///
    /// # Errors
    /// As [`HitListEditor::add_entry`], and [`EditError::NoSuchEntry`].
    pub fn remove_entry(&mut self, key: &str, index: usize) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        if index >= entries.len() {
            return Err(self.no_such_entry(&list, index));
        }
        entries.remove(index);
        self.set_entries(&list.key, &entries)
    }

    /// Moves entry `from` of list `key` so that it ends up at position `to`.
    ///
    /// # Errors
    /// As [`HitListEditor::add_entry`], and [`EditError::NoSuchEntry`].
    pub fn move_entry(&mut self, key: &str, from: usize, to: usize) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        for index in [from, to] {
            if index >= entries.len() {
                return Err(self.no_such_entry(&list, index));
            }
        }
        let entry = entries.remove(from);
        entries.insert(to, entry);
        self.set_entries(&list.key, &entries)
    }

    /// True if there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        self.file.can_undo()
    }

    /// True if there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        self.file.can_redo()
    }

    /// Undoes the last edit; false if there was none.
    pub fn undo(&mut self) -> bool {
        self.file.undo()
    }

    /// Redoes the last undone edit; false if there was none.
    pub fn redo(&mut self) -> bool {
        self.file.redo()
    }

    /// True if the document differs from the file as opened (or last saved).
    pub fn is_modified(&self) -> bool {
        self.file.is_modified()
    }

    /// The lines that differ from the file as opened (or last saved), for a diff view.
    pub fn pending_changes(&self) -> Vec<LineChange> {
        self.file.pending_changes()
    }
}
