//! The editing session on one file's `[Track]`, `[Patch]` and `[EventMapping]` entries:
//! a field set to a new value rewrites only that field of that line (a `.hot` entry, or a
//! source's `LIST` line), undo and redo, the values pending against the file on disk,
//! and saving through the hit-list editor's file session (refused over a file someone
//! else changed).

use super::value::{SpliceError, check_text, field_text, format_input, replace_field};
use super::{
    FieldValue, PendingValue, Property, PropertyError, PropertyInput, PropertySheet, PropertyTarget,
};
use crate::toolchain::formats::hot::{SECTION_EVENT_MAPPING, SECTION_PATCH, SECTION_TRACK};
use crate::toolchain::project::Project;
use crate::tools::hitlist_editor::document::ListLine;
use crate::tools::hitlist_editor::session::{FileSession, LineChange};
use crate::tools::hitlist_editor::{DiskStatus, SaveError, SaveReport, disk};
use std::path::Path;

/// An editing session on one file's track, patch and event-mapping lines.
#[derive(Debug, Clone)]
pub struct PropertyEditor {
    file: FileSession,
}

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
        Ok(Self {
            file: FileSession::new(path, bytes),
        })
    }

    /// The file being edited.
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// The line of `target` in this file: the one its definition came from.
    fn entry(&self, project: &Project, target: &PropertyTarget) -> Result<ListLine, PropertyError> {
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
        self.file
            .current
            .entry_lines(target.section())
            .into_iter()
            .find(|l| l.line == origin.line)
            .ok_or_else(not_here)
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
        let entry = self.entry(project, target)?;
        let saved = self
            .file
            .base
            .entry_lines(target.section())
            .into_iter()
            .find(|l| l.line == entry.line);
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
        let entry = self.entry(project, target)?;
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
        let mut out = Vec::new();
        for section in [SECTION_TRACK, SECTION_PATCH, SECTION_EVENT_MAPPING] {
            let saved = self.file.base.entry_lines(section);
            for now in self.file.current.entry_lines(section) {
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

    /// True if the document differs from the file as opened (or last saved).
    pub fn is_modified(&self) -> bool {
        self.file.is_modified()
    }

    /// The lines that differ from the file as opened (or last saved).
    pub fn pending_changes(&self) -> Vec<LineChange> {
        self.file.pending_changes()
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
        self.file.save()
    }

    /// Saves the edits over whatever is on disk now.
    ///
    /// # Errors
    /// [`SaveError::Io`]; the file is untouched then.
    pub fn save_anyway(&mut self) -> Result<SaveReport, SaveError> {
        self.file.save_anyway()
    }

    /// The document as it would be saved now.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.file.current.to_bytes()
    }
}
