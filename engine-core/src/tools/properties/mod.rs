//! The properties editor's model (`docs/tuning.md`): a track's, a patch's or an event
//! mapping's table fields, edited one at a time and saved into the `.hot` line or the
//! source's `LIST` line they came from — only the edited field changes; every other byte,
//! spelling and line ending stays.
//!
//! No UI here: the workbench's Properties panel draws a [`PropertySheet`] and asks for
//! edits; the app keeps one [`PropertyEditor`] per file, sends the running engine each
//! live value as a typed `tune` command ([`crate::host::command::Command::Tune`]) and
//! saves.
//!
//! - [`Property`] and [`PropertyTarget`] are the project's (`toolchain::project::
//!   properties`): each editable field's section, index, label, `tune` word and
//!   [`FieldKind`], and how a loaded definition takes a new value.
//! - `value` — a line's value field by field; a new value written in the old one's style
//!   (a name stays a name, hex stays hex); a field's text read as a number.
//! - `editor` — [`PropertyEditor`], the session on one file (undo, redo, the values
//!   pending against the disk, saving through the hit-list editor's file session).

mod editor;
mod value;

pub use crate::toolchain::project::properties::{FieldKind, Property, PropertyTarget};
pub use editor::PropertyEditor;
pub use value::PropertyInput;

use crate::toolchain::project::Project;
use std::path::PathBuf;

/// The file to edit a target in: where its definition is, if that is a file of the
/// project's data folders (not built in, not inside a zip pack).
///
/// # Errors
/// [`PropertyError::Unknown`] or [`PropertyError::NotEditable`].
pub fn file_of(target: &PropertyTarget, project: &Project) -> Result<PathBuf, PropertyError> {
    let origin = target
        .origin(project)
        .ok_or_else(|| PropertyError::Unknown {
            target: target.to_string(),
        })?;
    let inside = project.dirs.iter().any(|d| origin.file.starts_with(d));
    if origin.line == 0 || !inside || !origin.file.is_file() {
        return Err(PropertyError::NotEditable {
            target: target.to_string(),
            origin: origin.to_string(),
        });
    }
    Ok(origin.path_buf())
}

/// One field of a [`PropertySheet`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldValue {
    /// Which field.
    pub property: Property,
    /// Its text now, in the editor (empty when the line has no such field).
    pub text: String,
    /// The number it stands for, if it is one.
    pub value: Option<i64>,
    /// Its text in the file on disk.
    pub saved_text: String,
}

impl FieldValue {
    /// True if the editor has changed it.
    pub fn is_edited(&self) -> bool {
        self.text != self.saved_text
    }
}

/// A target's fields as the properties panel shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertySheet {
    /// What they belong to.
    pub target: PropertyTarget,
    /// The file of its line.
    pub file: PathBuf,
    /// The 1-based line.
    pub line: u32,
    /// The key as written.
    pub key: String,
    /// Each field, in the target's order.
    pub values: Vec<FieldValue>,
}

impl PropertySheet {
    /// One field.
    pub fn get(&self, property: Property) -> Option<&FieldValue> {
        self.values.iter().find(|v| v.property == property)
    }
}

/// A field whose text in the editor differs from the file on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingValue {
    /// Whose field.
    pub target: PropertyTarget,
    /// Which field.
    pub property: Property,
    /// Its text now.
    pub text: String,
    /// The number it stands for now, if it is one.
    pub value: Option<i64>,
    /// Its text on disk.
    pub saved_text: String,
    /// The number it stood for on disk.
    pub saved_value: Option<i64>,
}

/// Why the properties editor could not open, read or change something; the editor is
/// unchanged then. Each names the file and line where there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PropertyError {
    /// The file could not be read.
    #[error("{}: cannot read: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        message: String,
    },
    /// The project has no such track, patch or event.
    #[error("the project has no {target}")]
    Unknown {
        /// What was asked for.
        target: String,
    },
    /// Its definition is not a line of a file in the data folders.
    #[error("{target} is defined at {origin}, which is not a file HitBench can edit")]
    NotEditable {
        /// What was asked for.
        target: String,
        /// Where it is defined.
        origin: String,
    },
    /// The file has no line for it where the project says it is.
    #[error("{}:{line}: no line for {target} here (the file changed since it was loaded?)", path.display())]
    NoEntry {
        /// The file.
        path: PathBuf,
        /// Where the project says it is.
        line: u32,
        /// What was asked for.
        target: String,
    },
    /// The value cannot be written into the field.
    #[error("{}:{line}: {}: {message}", path.display(), property.label())]
    BadValue {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u32,
        /// The field.
        property: Property,
        /// Why.
        message: String,
    },
    /// The line stops before the field, with more than one field missing.
    #[error("{}:{line}: the line has {has} fields, so the {} (field {}) cannot be added; add the fields before it by hand", path.display(), property.label(), property.index() + 1)]
    TooFewFields {
        /// The file.
        path: PathBuf,
        /// The line.
        line: u32,
        /// The field.
        property: Property,
        /// Fields the line has.
        has: usize,
    },
}
