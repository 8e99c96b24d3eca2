//! Saving an editing session: the file on disk compared with what was opened (content
//! and modification time), a refusal when someone else changed it, and an atomic write.

use super::disk::{fnv1a, modified, read_file, write_atomically};
use super::document::Doc;
use super::editor::HitListEditor;
use super::errors::SaveError;
use super::session::{FileSession, LineChange};
use std::path::PathBuf;

/// What [`HitListEditor::save`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveReport {
    /// The file written.
    pub path: PathBuf,
    /// The lines that changed (empty, and nothing written, when there was nothing to
    /// save).
    pub changed: Vec<LineChange>,
    /// True if the file was written.
    pub written: bool,
}

/// The file on disk compared with what the editor opened (or last saved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiskStatus {
    /// Same content.
    Unchanged,
    /// Same content, but the modification time moved (touched, or rewritten as it was).
    Touched,
    /// Someone else changed the file; `detail` says how.
    Changed {
        /// A sentence for the warning.
        detail: String,
    },
    /// The file is gone.
    Missing,
    /// The file cannot be read.
    Unreadable {
        /// The error.
        message: String,
    },
}

impl HitListEditor {
    /// Compares the file on disk with what was opened (or last saved), so a panel can
    /// warn before saving.
    pub fn disk_status(&self) -> DiskStatus {
        self.file.disk_status()
    }

    /// Saves the edits: refuses with [`SaveError::ChangedOnDisk`] when the file's content
    /// is no longer what was opened (or last saved), else writes it atomically (a
    /// temporary file beside it, then a rename). Nothing is written when nothing changed.
    ///
    /// # Errors
    /// [`SaveError`]; the file is untouched then.
    pub fn save(&mut self) -> Result<SaveReport, SaveError> {
        self.file.save()
    }

    /// Saves the edits whatever happened to the file on disk meanwhile (after the user
    /// saw the [`SaveError::ChangedOnDisk`] warning): the other changes are lost.
    ///
    /// # Errors
    /// [`SaveError::Io`] when writing fails; the file is untouched then.
    pub fn save_anyway(&mut self) -> Result<SaveReport, SaveError> {
        self.file.save_anyway()
    }
}

impl FileSession {
    /// Compares the file on disk with what was opened (or last saved), so a panel can
    /// warn before saving.
    pub(crate) fn disk_status(&self) -> DiskStatus {
        match read_file(&self.path) {
            Ok(bytes) if bytes == self.base_bytes => {
                if modified(&self.path) == self.base_mtime {
                    DiskStatus::Unchanged
                } else {
                    DiskStatus::Touched
                }
            }
            Ok(bytes) => DiskStatus::Changed {
                detail: self.change_detail(&bytes),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => DiskStatus::Missing,
            Err(e) => DiskStatus::Unreadable {
                message: e.to_string(),
            },
        }
    }

    fn change_detail(&self, now: &[u8]) -> String {
        let now_doc = Doc::parse(&self.path, now);
        let before = self.base.line_contents();
        let after = now_doc.line_contents();
        let first = (0..before.len().max(after.len())).find(|&i| before.get(i) != after.get(i));
        match first {
            Some(i) => format!(
                "{} bytes when opened, {} now; first difference on line {}",
                self.base_bytes.len(),
                now.len(),
                i + 1
            ),
            None => format!(
                "{} bytes when opened, {} now",
                self.base_bytes.len(),
                now.len()
            ),
        }
    }

    /// Saves the edits: refuses with [`SaveError::ChangedOnDisk`] when the file's content
    /// is no longer what was opened (or last saved), else writes it atomically (a
    /// temporary file beside it, then a rename). Nothing is written when nothing changed.
    ///
    /// # Errors
    /// [`SaveError`]; the file is untouched then.
    pub(crate) fn save(&mut self) -> Result<SaveReport, SaveError> {
        match self.disk_status() {
            DiskStatus::Unchanged | DiskStatus::Touched => {}
            DiskStatus::Changed { detail } => {
                let disk_hash = read_file(&self.path).ok().map(|b| fnv1a(&b));
                return Err(self.changed_on_disk(detail, disk_hash));
            }
            DiskStatus::Missing => {
                return Err(self.changed_on_disk("it was deleted".to_owned(), None));
            }
            DiskStatus::Unreadable { message } => {
                return Err(SaveError::Io {
                    path: self.path.clone(),
                    message,
                });
            }
        }
        self.write()
    }

    fn changed_on_disk(&self, detail: String, disk_hash: Option<u64>) -> SaveError {
        SaveError::ChangedOnDisk {
            path: self.path.clone(),
            detail,
            opened_hash: self.base_hash,
            disk_hash,
        }
    }

    /// Saves the edits whatever happened to the file on disk meanwhile (after the user
    /// saw the [`SaveError::ChangedOnDisk`] warning): the other changes are lost.
    ///
    /// # Errors
    /// [`SaveError::Io`] when writing fails; the file is untouched then.
    pub(crate) fn save_anyway(&mut self) -> Result<SaveReport, SaveError> {
        let on_disk = read_file(&self.path).ok();
        if on_disk.as_deref() != Some(self.base_bytes.as_slice()) {
            // Write even an unedited document: the user chose this version.
            return self.write_bytes(self.pending_changes());
        }
        self.write()
    }

    /// Writes `merged` — the edits put over `theirs`, the file as it is on disk now —
    /// and starts over from it (the lines reported are those that differ from theirs).
    ///
    /// # Errors
    /// [`SaveError::Io`] when writing fails; the file is untouched then.
    pub(crate) fn save_over(&mut self, theirs: &Doc, merged: Doc) -> Result<SaveReport, SaveError> {
        let changed = super::session::line_changes(theirs, &merged);
        self.current = merged;
        let report = self.write_bytes(changed)?;
        self.start_over(self.current.clone());
        Ok(report)
    }

    fn write(&mut self) -> Result<SaveReport, SaveError> {
        let changed = self.pending_changes();
        if !self.is_modified() {
            return Ok(SaveReport {
                path: self.path.clone(),
                changed,
                written: false,
            });
        }
        self.write_bytes(changed)
    }

    fn write_bytes(&mut self, changed: Vec<LineChange>) -> Result<SaveReport, SaveError> {
        let bytes = self.current.to_bytes();
        write_atomically(&self.path, &bytes).map_err(|e| SaveError::Io {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        self.base = self.current.clone();
        self.base_hash = fnv1a(&bytes);
        self.base_bytes = bytes;
        self.base_mtime = modified(&self.path);
        Ok(SaveReport {
            path: self.path.clone(),
            changed,
            written: true,
        })
    }
}
