//! Reading the tables of a data directory (`.hot` files, the `LIST` lines of sources,
//! `.evt` lists) into raw entries, and resolving them into definitions once every
//! directory's names are known.

use super::defs::Origin;
use super::error::{NameProblem, ResolveError};
use crate::toolchain::asm::HotLineOrigin;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::evt::EvtFile;
use crate::toolchain::formats::hot::{self, HotDocument, HotTables, IdRef};
use crate::toolchain::fsrules::ReadRules;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a table's lines came from: a real `.hot` file, or `LIST` lines of a source
/// (then each document line maps back to the source line that wrote it).
#[derive(Debug, Clone)]
pub struct TableSource {
    /// The `.hot` file, or the source file for `LIST` lines (shared with the origins of
    /// its definitions).
    pub file: Arc<Path>,
    /// For `LIST` lines: `origins[i]` is where document line i+1 came from.
    pub origins: Option<Vec<Option<HotLineOrigin>>>,
}

impl TableSource {
    /// The origin of document line `line`.
    pub fn origin(&self, line: u32) -> Origin {
        match self.mapped(line) {
            Some(spot) => Origin::new(Arc::clone(&spot.file), spot.line),
            None => Origin::new(Arc::clone(&self.file), line),
        }
    }

    fn mapped(&self, line: u32) -> Option<&HotLineOrigin> {
        let origins = self.origins.as_ref()?;
        origins
            .get(usize::try_from(line).ok()?.checked_sub(1)?)?
            .as_ref()
    }

    /// A diagnostic at document line `line`, column `column`, moved to the source line
    /// for `LIST` tables.
    pub fn diagnostic(&self, mut d: Diagnostic) -> Diagnostic {
        if let Some(spot) = self.mapped(d.line) {
            d.file = spot.file.to_path_buf();
            d.line = spot.line;
            if d.column > 0 {
                d.column = d.column.saturating_add(spot.key_column.saturating_sub(1));
            }
        }
        d
    }

    /// An error of kind `code` at a document position.
    pub fn error(
        &self,
        code: DiagCode,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.diagnostic(Diagnostic::error(code, &self.file, line, column, message))
    }

    /// Why an entry does not resolve, as an error at a document position.
    pub fn resolve_error(&self, line: u32, column: u32, problem: &ResolveError) -> Diagnostic {
        self.diagnostic(problem.diagnostic(&self.file, line, column))
    }

    /// A warning of kind `code` at a document position.
    pub fn warning(
        &self,
        code: DiagCode,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.diagnostic(Diagnostic::warning(code, &self.file, line, column, message))
    }
}

/// The tables of one document, not yet resolved.
#[derive(Debug, Clone)]
pub struct RawTables {
    /// Index of the data directory.
    pub dir: usize,
    /// The unit the tables belong to (a source's `LIST` lines, a built set's `.hot`).
    pub unit: Option<usize>,
    /// Where the lines came from.
    pub source: TableSource,
    /// The typed views.
    pub tables: HotTables,
}

/// Reads a document's typed views, reporting problems at their real source lines.
pub fn read_hot(
    dir: usize,
    unit: Option<usize>,
    doc: &HotDocument,
    source: TableSource,
    diagnostics: &mut Vec<Diagnostic>,
) -> RawTables {
    let (tables, found) = doc.tables(&source.file);
    diagnostics.extend(found.into_iter().map(|d| source.diagnostic(d)));
    RawTables {
        dir,
        unit,
        source,
        tables,
    }
}

/// Reads a `.hot` file from disk under the file rules.
pub fn read_hot_file(
    dir: usize,
    unit: Option<usize>,
    path: &Path,
    rules: &ReadRules,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<RawTables> {
    match rules.read(path) {
        Ok(bytes) => Some(read_hot(
            dir,
            unit,
            &HotDocument::parse(&bytes),
            TableSource {
                file: Arc::from(path),
                origins: None,
            },
            diagnostics,
        )),
        Err(refusal) => {
            diagnostics.push(Diagnostic::error(
                refusal.code(),
                path,
                0,
                0,
                format!("not read: {}", refusal.reason()),
            ));
            None
        }
    }
}

/// A `.evt` event list, not yet resolved.
#[derive(Debug, Clone)]
pub struct RawEvents {
    /// Index of the data directory.
    pub dir: usize,
    /// The file.
    pub file: PathBuf,
    /// Its events.
    pub events: EvtFile,
}

/// Reads a `.evt` file from disk under the file rules.
pub fn read_evt_file(
    dir: usize,
    path: &Path,
    rules: &ReadRules,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<RawEvents> {
    match rules.read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let (events, found) = EvtFile::parse(&text, path);
            diagnostics.extend(found);
            Some(RawEvents {
                dir,
                file: path.to_path_buf(),
                events,
            })
        }
        Err(refusal) => {
            diagnostics.push(Diagnostic::error(
                refusal.code(),
                path,
                0,
                0,
                format!("not read: {}", refusal.reason()),
            ));
            None
        }
    }
}

/// Resolves an [`IdRef`] to a number: numbers are themselves; names are looked up with
/// `lookup`. `what` names the field in the error.
pub fn resolve_id(
    id: &IdRef,
    what: &'static str,
    lookup: impl FnOnce(&str) -> Result<i64, NameProblem>,
) -> Result<i64, ResolveError> {
    match id {
        IdRef::Number(n) => Ok(*n),
        IdRef::Name(name) => lookup(name).map_err(|problem| ResolveError::Name {
            what,
            name: name.clone(),
            problem,
        }),
    }
}

/// The `[EventMappingEquate]` value of a name in one document.
pub fn equate(tables: &HotTables, name: &str) -> Option<i64> {
    tables
        .equates
        .iter()
        .rev()
        .find(|e| e.name.eq_ignore_ascii_case(name))
        .map(|e| e.value)
}

/// Path text of a `[Patch]` entry as a relative path.
pub fn patch_path(text: &str) -> PathBuf {
    hot::hot_path_to_relative(text)
}
