//! One file being edited, table entry by table entry: its content as last seen on disk
//! (at open or the last save: bytes, hash, modification time), the document with the
//! edits, and the undo and redo stacks. The hit-list editor and the properties editor
//! (`tools::properties`) are each one of these with their own edits; saving, and
//! noticing changes on disk, is in `save`.

use super::disk::{fnv1a, modified};
use super::document::{Doc, to_u32};
use std::path::PathBuf;
use std::time::SystemTime;

/// One line the editor changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineChange {
    /// 1-based line number.
    pub line: u32,
    /// The line before (without its ending).
    pub before: String,
    /// The line after (without its ending).
    pub after: String,
}

/// One file being edited: what it was on disk and what it is now.
#[derive(Debug, Clone)]
pub(crate) struct FileSession {
    pub(crate) path: PathBuf,
    /// The file's content as last seen on disk (open or save).
    pub(crate) base: Doc,
    /// Its bytes, hash and modification time then.
    pub(crate) base_bytes: Vec<u8>,
    pub(crate) base_hash: u64,
    pub(crate) base_mtime: Option<SystemTime>,
    /// The document with the edits.
    pub(crate) current: Doc,
    undo: Vec<Doc>,
    redo: Vec<Doc>,
}

impl FileSession {
    /// A session on `path`, whose content on disk is `bytes` now.
    pub(crate) fn new(path: PathBuf, bytes: Vec<u8>) -> Self {
        let doc = Doc::parse(&path, &bytes);
        Self {
            base_hash: fnv1a(&bytes),
            base_mtime: modified(&path),
            base: doc.clone(),
            base_bytes: bytes,
            current: doc,
            path,
            undo: Vec::new(),
            redo: Vec::new(),
        }
    }

    /// Makes `next` the current document, the one before it undoable.
    pub(crate) fn push(&mut self, next: Doc) {
        self.undo.push(std::mem::replace(&mut self.current, next));
        self.redo.clear();
    }

    pub(crate) fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub(crate) fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    pub(crate) fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(previous) => {
                self.redo
                    .push(std::mem::replace(&mut self.current, previous));
                true
            }
            None => false,
        }
    }

    pub(crate) fn redo(&mut self) -> bool {
        match self.redo.pop() {
            Some(next) => {
                self.undo.push(std::mem::replace(&mut self.current, next));
                true
            }
            None => false,
        }
    }

    pub(crate) fn is_modified(&self) -> bool {
        self.current != self.base
    }

    /// The lines that differ from the file as opened (or last saved).
    pub(crate) fn pending_changes(&self) -> Vec<LineChange> {
        line_changes(&self.base, &self.current)
    }

    /// Makes `doc` the document and the file's content as last seen on disk (it was just
    /// written), with a fresh undo history.
    pub(crate) fn start_over(&mut self, doc: Doc) {
        self.base = doc.clone();
        self.current = doc;
        self.undo.clear();
        self.redo.clear();
    }
}

/// The lines of `after` that differ from `before`.
pub(crate) fn line_changes(before: &Doc, after: &Doc) -> Vec<LineChange> {
    let before = before.line_contents();
    let after = after.line_contents();
    let count = before.len().max(after.len());
    (0..count)
        .filter_map(|i| {
            let (b, a) = (before.get(i), after.get(i));
            (b != a).then(|| LineChange {
                line: to_u32(i).saturating_add(1),
                before: b
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default(),
                after: a
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .unwrap_or_default(),
            })
        })
        .collect()
}
