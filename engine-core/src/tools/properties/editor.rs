//! The editing session on one file's `[Track]`, `[Patch]` and `[EventMapping]` entries:
//! a field set to a new value rewrites only that field of that line (a `.hot` entry, or a
//! source's `LIST` line), undo and redo, the values pending against the file on disk,
//! and saving through the hit-list editor's file session (refused over a file someone
//! else changed, unless "save anyway").
//!
//! The edits are the fields changed from the file as opened; what the panel shows and
//! what is saved is those fields put over the file as it was last read from disk
//! ([`PropertyEditor::follow_disk`]) — a three-way merge by field: the fields someone
//! else changed meanwhile and nobody edited here keep their change, and "save anyway"
//! writes only the edited fields over the file as it is then.

use super::value::{
    SpliceError, check_text, field_ranges, field_text, format_input, replace_field,
};
use super::{
    FieldValue, PendingValue, Property, PropertyError, PropertyInput, PropertySheet, PropertyTarget,
};
use crate::toolchain::formats::hot::{SECTION_EVENT_MAPPING, SECTION_PATCH, SECTION_TRACK};
use crate::toolchain::project::Project;
use crate::tools::hitlist_editor::document::{Doc, ListLine};
use crate::tools::hitlist_editor::session::{FileSession, LineChange, line_changes};
use crate::tools::hitlist_editor::{DiskStatus, SaveError, SaveReport, disk};
use std::path::Path;

/// The sections a property editor edits.
const SECTIONS: [&str; 3] = [SECTION_TRACK, SECTION_PATCH, SECTION_EVENT_MAPPING];

/// An editing session on one file's track, patch and event-mapping lines.
#[derive(Debug, Clone)]
pub struct PropertyEditor {
    file: FileSession,
    /// The file as last read from disk (at open, [`Self::follow_disk`], a save): what
    /// the fields not edited show, and what the edited ones are put over.
    disk: Doc,
}

/// The fields edited in one entry line: the section, the entry's key, and each field's
/// index and new text.
type EntryEdits = (&'static str, String, Vec<(usize, String)>);

impl PropertyEditor {
    /// Opens `path` for editing and remembers its content, hash and modification time.
    ///
    /// # Errors
    /// [`PropertyError::Read`] when the file cannot be read.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, PropertyError> {
        let path = path.as_ref().to_path_buf();
        let bytes = disk::read_file(&path).map_err(|e| PropertyError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let file = FileSession::new(path, bytes);
        Ok(Self {
            disk: file.base.clone(),
            file,
        })
    }

    /// Reads the file on disk again; true if it changed since it was last read. The
    /// fields not edited then show what it says now ([`Self::sheet`], [`Self::pending`]);
    /// a file that cannot be read is left as last read.
    pub fn follow_disk(&mut self) -> bool {
        let Ok(bytes) = disk::read_file(&self.file.path) else {
            return false;
        };
        let now = Doc::parse(&self.file.path, &bytes);
        if now == self.disk {
            return false;
        }
        self.disk = now;
        true
    }

    /// Every field edited (changed from the file as opened), entry by entry.
    fn edits(&self) -> Vec<EntryEdits> {
        let mut out = Vec::new();
        for section in SECTIONS {
            let opened = self.file.base.entry_lines(section);
            for now in self.file.current.entry_lines(section) {
                let Some(before) = opened.iter().find(|l| l.line == now.line) else {
                    continue;
                };
                if before.value == now.value {
                    continue;
                }
                let fields: Vec<(usize, String)> = (0..field_ranges(&now.value).len())
                    .filter_map(|i| {
                        let text = field_text(&now.value, i)?;
                        (field_text(&before.value, i) != Some(text)).then(|| (i, text.to_owned()))
                    })
                    .collect();
                out.push((section, now.key, fields));
            }
        }
        out
    }

    /// The edited fields put over `theirs` (each into the line of its entry's key there),
    /// every other byte of `theirs` kept.
    fn merged_onto(&self, theirs: &Doc) -> Result<Doc, String> {
        let mut doc = theirs.clone();
        for (section, key, fields) in self.edits() {
            let gone = || format!("the {section} line of `{key}` is not in it any more");
            let entry = doc.effective_entry(section, &key).ok_or_else(gone)?;
            let mut value = entry.value;
            for (index, text) in fields {
                value = replace_field(&value, index, &text).map_err(
                    |SpliceError::TooFewFields { has }| {
                        format!("its {section} line of `{key}` has only {has} fields")
                    },
                )?;
            }
            doc.set_entry(section, &key, &value)
                .map_err(|e| format!("{section} `{key}`: {e}"))?;
        }
        Ok(doc)
    }

    /// The document as the panel shows it and a save would write it, and the file it is
    /// compared with: the edits over the file as last read — or, when they no longer
    /// fit it (an edited line is gone), the edits over the file as opened.
    fn shown(&self) -> (Doc, &Doc) {
        match self.merged_onto(&self.disk) {
            Ok(doc) => (doc, &self.disk),
            Err(_) => (self.file.current.clone(), &self.file.base),
        }
    }

    /// The file being edited.
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// The key of `target`'s line in this file: the line its definition came from, in
    /// the file as last read (which the project was loaded from).
    fn key_of(&self, project: &Project, target: &PropertyTarget) -> Result<String, PropertyError> {
        let origin = target
            .origin(project)
            .ok_or_else(|| PropertyError::Unknown {
                target: target.to_string(),
            })?;
        let not_here = || PropertyError::NoEntry {
            path: self.file.path.clone(),
            line: origin.line,
            target: target.to_string(),
        };
        if *origin.file != *self.file.path {
            return Err(not_here());
        }
        self.disk
            .entry_lines(target.section())
            .into_iter()
            .find(|l| l.line == origin.line)
            .map(|l| l.key)
            .ok_or_else(not_here)
    }

    /// `target`'s line in `doc`, found by its key.
    fn entry_in(
        &self,
        doc: &Doc,
        project: &Project,
        target: &PropertyTarget,
    ) -> Result<ListLine, PropertyError> {
        let key = self.key_of(project, target)?;
        doc.effective_entry(target.section(), &key)
            .ok_or_else(|| PropertyError::NoEntry {
                path: self.file.path.clone(),
                line: target.origin(project).map_or(0, |o| o.line),
                target: target.to_string(),
            })
    }

    /// The target's fields as they are now in the editor, beside what the file on disk
    /// says.
    ///
    /// # Errors
    /// [`PropertyError::NoEntry`] when the target is not defined on a line of this file.
    pub fn sheet(
        &self,
        project: &Project,
        target: &PropertyTarget,
    ) -> Result<PropertySheet, PropertyError> {
        let (shown, file) = self.shown();
        let entry = self.entry_in(&shown, project, target)?;
        let saved = self.entry_in(file, project, target).ok();
        let values = target
            .properties()
            .iter()
            .map(|&property| {
                let text = field_text(&entry.value, property.index()).unwrap_or_default();
                let saved_text = saved
                    .as_ref()
                    .and_then(|s| field_text(&s.value, property.index()))
                    .unwrap_or_default();
                FieldValue {
                    property,
                    text: text.to_owned(),
                    value: project.resolve_field(property, text),
                    saved_text: saved_text.to_owned(),
                }
            })
            .collect();
        Ok(PropertySheet {
            target: target.clone(),
            file: self.file.path.clone(),
            line: entry.line,
            key: entry.key,
            values,
        })
    }

    /// Sets `property` of `target` to `input`: only that field of its line changes. True
    /// if that added an undo step; an input equal to what is there changes nothing (and
    /// adds none).
    ///
    /// # Errors
    /// [`PropertyError`] when the target is not in this file, the value is not valid for
    /// the field, or the line cannot hold it; the editor is unchanged then.
    pub fn set(
        &mut self,
        project: &Project,
        target: &PropertyTarget,
        property: Property,
        input: &PropertyInput,
    ) -> Result<bool, PropertyError> {
        self.change(project, target, property, input, false)
    }

    /// As [`Self::set`], but continuing the last edit (a value being dragged): the
    /// document changes without a new undo step, so one undo goes back to before the
    /// drag. With nothing to undo it is a plain [`Self::set`]. True if it added an undo
    /// step.
    ///
    /// # Errors
    /// As [`Self::set`].
    pub fn amend(
        &mut self,
        project: &Project,
        target: &PropertyTarget,
        property: Property,
        input: &PropertyInput,
    ) -> Result<bool, PropertyError> {
        self.change(project, target, property, input, true)
    }

    fn change(
        &mut self,
        project: &Project,
        target: &PropertyTarget,
        property: Property,
        input: &PropertyInput,
        amend: bool,
    ) -> Result<bool, PropertyError> {
        let entry = self.entry_in(&self.file.current, project, target)?;
        let bad = |message: String| PropertyError::BadValue {
            path: self.file.path.clone(),
            line: entry.line,
            property,
            message,
        };
        if property.section() != target.section() {
            return Err(bad(format!(
                "a {} has no {}",
                target.kind_name(),
                property.label()
            )));
        }
        let original = field_text(&entry.value, property.index()).unwrap_or_default();
        let text = format_input(property, input, original);
        check_text(property, &text, project).map_err(bad)?;
        let value = replace_field(&entry.value, property.index(), &text).map_err(
            |SpliceError::TooFewFields { has }| PropertyError::TooFewFields {
                path: self.file.path.clone(),
                line: entry.line,
                property,
                has,
            },
        )?;
        if value == entry.value {
            return Ok(false);
        }
        let mut next = self.file.current.clone();
        next.set_entry(target.section(), &entry.key, &value)
            .map_err(|e| bad(e.to_string()))?;
        if amend && self.file.can_undo() {
            self.file.current = next;
            Ok(false)
        } else {
            self.file.push(next);
            Ok(true)
        }
    }

    /// Every field of this file whose text differs from the file on disk, with the value
    /// it has now and the one on disk: what the running engine should be told after an
    /// edit, an undo or a redo.
    pub fn pending(&self, project: &Project) -> Vec<PendingValue> {
        let (shown, file) = self.shown();
        let mut out = Vec::new();
        for section in SECTIONS {
            let saved = file.entry_lines(section);
            for now in shown.entry_lines(section) {
                let Some(before) = saved.iter().find(|l| l.line == now.line) else {
                    continue;
                };
                if before.value == now.value {
                    continue;
                }
                let Some(target) = PropertyTarget::from_key(section, &now.key, project) else {
                    continue;
                };
                for &property in target.properties() {
                    let text = field_text(&now.value, property.index()).unwrap_or_default();
                    let saved_text =
                        field_text(&before.value, property.index()).unwrap_or_default();
                    if text != saved_text {
                        out.push(PendingValue {
                            target: target.clone(),
                            property,
                            value: project.resolve_field(property, text),
                            saved_value: project.resolve_field(property, saved_text),
                            text: text.to_owned(),
                            saved_text: saved_text.to_owned(),
                        });
                    }
                }
            }
        }
        out
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

    /// Undoes every edit (back to the file as opened or last saved).
    pub fn revert(&mut self) {
        while self.file.undo() {}
    }

    /// True if saving would change the file (as last read from disk).
    pub fn is_modified(&self) -> bool {
        let (shown, file) = self.shown();
        shown != *file
    }

    /// The lines a save would change in the file (as last read from disk).
    pub fn pending_changes(&self) -> Vec<LineChange> {
        let (shown, file) = self.shown();
        line_changes(file, &shown)
    }

    /// The file on disk compared with what was opened (or last saved).
    pub fn disk_status(&self) -> DiskStatus {
        self.file.disk_status()
    }

    /// Saves the edits, refusing when the file changed on disk since it was opened.
    ///
    /// # Errors
    /// [`SaveError`]; the file is untouched then.
    pub fn save(&mut self) -> Result<SaveReport, SaveError> {
        let report = self.file.save()?;
        self.disk = self.file.base.clone();
        Ok(report)
    }

    /// Saves the edits over the file as it is on disk now: only the fields edited are
    /// written, into their lines as they are now; everything else someone else changed
    /// stays. A file that is gone is written as the editor has it.
    ///
    /// # Errors
    /// [`SaveError::NotMerged`] when a line an edit is for is not in the file any more,
    /// [`SaveError::Io`]; the file is untouched then.
    pub fn save_anyway(&mut self) -> Result<SaveReport, SaveError> {
        let path = self.file.path.clone();
        let theirs = match disk::read_file(&path) {
            Ok(bytes) => Doc::parse(&path, &bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let report = self.file.save_anyway()?;
                self.disk = self.file.base.clone();
                return Ok(report);
            }
            Err(e) => {
                return Err(SaveError::Io {
                    path,
                    message: e.to_string(),
                });
            }
        };
        let merged = self
            .merged_onto(&theirs)
            .map_err(|message| SaveError::NotMerged {
                path: path.clone(),
                message,
            })?;
        let report = self.file.save_over(&theirs, merged)?;
        self.disk = self.file.base.clone();
        Ok(report)
    }

    /// The document as it would be saved now.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.shown().0.to_bytes()
    }
}
