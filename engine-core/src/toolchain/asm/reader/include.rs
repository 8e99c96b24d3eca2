//! Finding and reading the files a source names: `INCLUDE`d sources (each once, no
//! cycles, within the nesting limit), and the constants of `SYMBOLFILE` (`.hsm`) and
//! `INIFILE` (INI or `.hot`) files.

use super::{Imported, MAX_INCLUDE_DEPTH, Reader};
use crate::toolchain::asm::lexer::Tok;
use crate::toolchain::diag::DiagCode;
use crate::toolchain::formats::{hot, hsm};
use crate::toolchain::fsrules::Refusal;
use std::path::{Path, PathBuf};

/// What looking for an `INCLUDE`/`SYMBOLFILE`/`INIFILE` file found.
enum Lookup {
    /// The file and its bytes.
    Found(PathBuf, Vec<u8>),
    /// Not there; these paths were tried.
    Missing(Vec<PathBuf>),
    /// There, but refused (outside the allowed folders, not a regular file, too big…):
    /// the kind of refusal and why.
    Refused(DiagCode, String),
}

impl Reader<'_> {
    /// Looks for `name` in the including file's folder, then the include folders. A
    /// file that is there but refused stops the search: the user must hear why.
    fn resolve(&self, from_file: u32, name: &str) -> Lookup {
        let name = name.trim_matches('"');
        let wanted = Path::new(name);
        let mut tried = Vec::new();
        let mut candidates = Vec::new();
        if wanted.is_absolute() {
            candidates.push(wanted.to_path_buf());
        } else {
            let base = self.out.path(from_file).parent().unwrap_or(Path::new(""));
            candidates.push(base.join(wanted));
            for dir in &self.options.include_dirs {
                candidates.push(dir.join(wanted));
            }
        }
        for candidate in candidates {
            match self.files.read(&candidate) {
                Ok(bytes) => return Lookup::Found(candidate, bytes),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => tried.push(candidate),
                Err(e) => return Lookup::Refused(Refusal::io_code(&e), e.to_string()),
            }
        }
        Lookup::Missing(tried)
    }

    fn missing(
        &mut self,
        file: u32,
        line_no: u32,
        column: u32,
        what: &str,
        name: &str,
        tried: &[PathBuf],
    ) {
        let looked: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        let looked = looked.join(", ");
        if self.options.strict {
            let message = format!("cannot find {what} `{name}` (looked for {looked})");
            self.error(DiagCode::MissingInclude, file, line_no, column, message);
        } else {
            let message =
                format!("cannot find {what} `{name}` (looked for {looked}); going on without it");
            self.warning(DiagCode::MissingInclude, file, line_no, column, message);
        }
    }

    pub(super) fn include(&mut self, file: u32, line_no: u32, head: Tok, name: &str) {
        let column = head.column;
        if name.is_empty() {
            let code = DiagCode::BadDirective;
            self.error(code, file, line_no, column, "INCLUDE needs a file name");
            return;
        }
        let (path, bytes) = match self.resolve(file, name) {
            Lookup::Found(path, bytes) => (path, bytes),
            Lookup::Missing(tried) => {
                self.missing(file, line_no, column, "include file", name, &tried);
                self.out.missing_includes.push(super::MissingInclude {
                    name: name.trim_matches('"').to_string(),
                    file,
                    line: line_no,
                });
                return;
            }
            Lookup::Refused(code, why) => {
                self.error(
                    code,
                    file,
                    line_no,
                    column,
                    format!("INCLUDE `{name}`: {why}"),
                );
                return;
            }
        };
        let key = self.files.identity(&path);
        if self.stack.contains(&key) {
            self.error(
                DiagCode::IncludeCycle,
                file,
                line_no,
                column,
                format!(
                    "INCLUDE cycle: `{}` is already being included",
                    path.display()
                ),
            );
            return;
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            self.error(
                DiagCode::IncludeTooDeep,
                file,
                line_no,
                column,
                format!("INCLUDE nested more than {MAX_INCLUDE_DEPTH} deep"),
            );
            return;
        }
        // Included before: its labels and lines are there already (a no-op, like
        // `#pragma once`), which also keeps a file including the next one twice, level
        // after level, from doubling at each level.
        if !self.included.insert(key) {
            return;
        }
        self.read_file(path, String::from_utf8_lossy(&bytes).into_owned());
    }

    /// `SYMBOLFILE x.hsm` imports every constant of an `.hsm`; `INIFILE x.ini` imports the
    /// `[EventMappingEquate]` constants of an INI/`.hot` file.
    pub(super) fn symbol_file(
        &mut self,
        file: u32,
        line_no: u32,
        head: Tok,
        name: &str,
        ini: bool,
    ) {
        let what = if ini { "INIFILE" } else { "SYMBOLFILE" };
        if name.is_empty() {
            self.error(
                DiagCode::BadDirective,
                file,
                line_no,
                head.column,
                format!("{what} needs a file name"),
            );
            return;
        }
        let (path, bytes) = match self.resolve(file, name) {
            Lookup::Found(path, bytes) => (path, bytes),
            Lookup::Missing(tried) => {
                self.missing(file, line_no, head.column, "symbol file", name, &tried);
                return;
            }
            Lookup::Refused(code, why) => {
                self.error(
                    code,
                    file,
                    line_no,
                    head.column,
                    format!("{what} `{name}`: {why}"),
                );
                return;
            }
        };
        if ini {
            let doc = hot::HotDocument::parse(&bytes);
            let (equates, diagnostics) = doc.equates(&path);
            self.out.diagnostics.extend(diagnostics);
            for equate in equates {
                self.out.imported.push(Imported {
                    name: equate.name,
                    value: equate.value,
                    path: path.clone(),
                    line: equate.line,
                });
            }
        } else {
            let text = String::from_utf8_lossy(&bytes);
            let (symbols, diagnostics) = hsm::HsmFile::parse(&text, &path);
            self.out.diagnostics.extend(diagnostics);
            for symbol in symbols.symbols {
                self.out.imported.push(Imported {
                    name: symbol.name,
                    value: symbol.value,
                    path: path.clone(),
                    line: symbol.line,
                });
            }
        }
    }
}
