//! The editor's errors: why an edit or opening failed ([`EditError`]; the editor is
//! unchanged then) and why saving failed ([`SaveError`]; the file is untouched then).
//! Each names the file, and the line and list where there is one.

use std::path::PathBuf;

/// Why an edit or opening failed. The editor is unchanged after a failed edit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file could not be read.
    #[error("{}: cannot read: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        message: String,
    },
    /// No hit list has this key in the file.
    #[error("{}: no hit list `{key}` in this file", path.display())]
    UnknownList {
        /// The file.
        path: PathBuf,
        /// The key asked for.
        key: String,
    },
    /// An entry index past the end of the list.
    #[error("{}:{line}: hit list `{key}` has {len} entries; there is no entry {index}", path.display())]
    NoSuchEntry {
        /// The file.
        path: PathBuf,
        /// The list's line.
        line: u32,
        /// The list.
        key: String,
        /// The index asked for.
        index: usize,
        /// How many entries the list has.
        len: usize,
    },
    /// The list's text has entries that do not read; only `set_entries` may replace it.
    #[error("{}:{line}: hit list `{key}` has unreadable entries ({message}); replace the whole list", path.display())]
    ListHasErrors {
        /// The file.
        path: PathBuf,
        /// The list's line.
        line: u32,
        /// The list.
        key: String,
        /// The first problem.
        message: String,
    },
    /// The new list cannot be written so that it reads back the same.
    #[error("{}:{line}: hit list `{key}`: {message}", path.display())]
    NotRepresentable {
        /// The file.
        path: PathBuf,
        /// The list's line.
        line: u32,
        /// The list.
        key: String,
        /// Why.
        message: String,
    },
}

/// Why saving failed. The file on disk is untouched then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// The file changed on disk since it was opened (or last saved); saving would throw
    /// those changes away. [`HitListEditor::save_anyway`](super::HitListEditor::save_anyway) overwrites them.
    #[error("{}: the file changed on disk since it was opened ({detail}); not saved", path.display())]
    ChangedOnDisk {
        /// The file.
        path: PathBuf,
        /// How it changed.
        detail: String,
        /// Hash of the content at open (or last save).
        opened_hash: u64,
        /// Hash of the content on disk now, if it could be read.
        disk_hash: Option<u64>,
    },
    /// The edits could not be put over the file as it is now (the line an edit is for
    /// is not in it any more); nothing was written.
    #[error("{}: cannot save over the file as it is now: {message}; not saved", path.display())]
    NotMerged {
        /// The file.
        path: PathBuf,
        /// What is missing.
        message: String,
    },
    /// Reading or writing failed.
    #[error("{}: cannot save: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        message: String,
    },
}
