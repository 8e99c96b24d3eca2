//! The MakeTrax assembler: Maxis-style track source → `.hit`, `.hsm`, `.hot`, `.hdb` and
//! `.sym`.
//!
//! Source syntax (hit-reference §2.5, and `docs/asm.md` for the whole language): code in
//! `BINARY [ … ]` blocks; a token in column 1 is a label; indented lines are instructions
//! with space- or tab-separated operands; `#name`/`#number` are 4-byte values, `@label`
//! a code address, bare numbers and names one byte; bare numbers at the start of a line
//! are raw bytes; `;` and `# ` comments. Directives: `BASEID_TRACKDATA`, `INCLUDE`,
//! `LIST`, `SYMBOLFILE`, `INIFILE`, and HitBench's `DEFINE`, `EXTERN`, `LAYOUT`.
//!
//! [`assemble`] never panics and never stops at the first problem: it returns the
//! output together with every diagnostic. The parts: [`lexer`](self) splits lines into
//! tokens, `reader` follows includes and directives, `encoder` lays out and encodes.

mod encoder;
mod lexer;
mod reader;

pub use reader::{MAX_EXPANDED_LINES, MAX_INCLUDE_DEPTH};

use crate::toolchain::diag::{self, Diagnostic};
use crate::toolchain::formats::hdb::HdbFile;
use crate::toolchain::formats::hit::HitFile;
use crate::toolchain::formats::hot::HotDocument;
use crate::toolchain::formats::hsm::HsmFile;
use crate::toolchain::formats::sym::SymFile;
use crate::toolchain::fsrules::{self, ReadRules, Refusal};
use crate::toolchain::registers::Layout;
use crate::toolchain::symbols;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

/// How to assemble.
#[derive(Debug, Clone, Default)]
pub struct AsmOptions {
    /// Force a register layout (overrides a `LAYOUT` directive). `None`: the source's
    /// `LAYOUT` directive, else TSO if the source has an ENTP table, else TS1.
    pub layout: Option<Layout>,
    /// Folders searched for `INCLUDE`, `SYMBOLFILE` and `INIFILE` files after the
    /// including file's own folder (`-I`/`--include`); [`DiskFiles::for_source`] also
    /// allows reading inside them.
    pub include_dirs: Vec<PathBuf>,
    /// `--strict`: a missing `INCLUDE` is an error, and a label used but never defined
    /// stays an error even when an include is missing (otherwise it becomes a late-bound
    /// import with a warning, as real Maxis listings need: they include files that are
    /// not shipped).
    pub strict: bool,
}

/// Where the assembler reads source files from.
pub trait SourceFiles {
    /// The bytes of the file at `path`. A file that is not there is
    /// [`io::ErrorKind::NotFound`] (the include search goes on to the next folder); any
    /// other error stops the search and is reported.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// What identifies the file at `path`, so that one file reached by two spellings is
    /// included once: the path with `.` and `..` resolved by name.
    fn identity(&self, path: &Path) -> PathBuf {
        fsrules::normalize(path)
    }
}

/// Reads source files from disk under the file rules ([`fsrules`]): regular files only,
/// at most [`fsrules::MAX_TEXT_FILE_BYTES`] each, inside the allowed folders.
#[derive(Debug, Clone)]
pub struct DiskFiles {
    rules: ReadRules,
}

impl DiskFiles {
    /// Files inside `folders` (a project's data folders, say).
    pub fn within(folders: &[PathBuf]) -> Self {
        Self {
            rules: ReadRules::within(folders),
        }
    }

    /// For assembling `source` on its own (`hitbench asm`): files inside its folder and
    /// the include folders of `options`.
    pub fn for_source(source: &Path, options: &AsmOptions) -> Self {
        let folder = match source.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut folders = vec![folder];
        folders.extend(options.include_dirs.iter().cloned());
        Self::within(&folders)
    }

    /// The rules it reads under.
    pub fn rules(&self) -> &ReadRules {
        &self.rules
    }
}

impl SourceFiles for DiskFiles {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.rules.read(path).map_err(Refusal::into_io)
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| fsrules::normalize(path))
    }
}

/// Source files held in memory (tests, editors with unsaved buffers).
#[derive(Debug, Clone, Default)]
pub struct MemoryFiles {
    files: HashMap<PathBuf, Vec<u8>>,
}

impl MemoryFiles {
    /// Adds or replaces a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, text: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), text.into());
    }
}

impl SourceFiles for MemoryFiles {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files.get(path).cloned().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} not found", path.display()),
            )
        })
    }
}

/// What a defined name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    /// A code label; the value is its address.
    Label,
    /// A `DEFINE`d constant.
    Constant,
    /// A `DEFINE`d alias of a register; the value is the register number.
    Register,
    /// A `tkd_<label>` track-data ID from `BASEID_TRACKDATA`.
    TrackData,
}

/// A name the source defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// As spelled in the source.
    pub name: String,
    /// Address, value or register number.
    pub value: i64,
    /// What it is.
    pub kind: SymbolKind,
    /// Source file.
    pub file: PathBuf,
    /// 1-based line of the definition.
    pub line: u32,
}

/// One `.hot` line the assembly emits (`LIST` lines and `[TrackData]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotLine {
    /// Section name without brackets.
    pub section: String,
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
    /// The source file that produced it.
    pub file: PathBuf,
    /// 1-based source line.
    pub line: u32,
    /// 1-based column of the key in that line (the label's column for `[TrackData]`).
    pub key_column: u32,
}

/// Where a `.hot` document line came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotLineOrigin {
    /// The source file (shared by the lines of one file: a source may write a hundred
    /// thousand `LIST` lines).
    pub file: std::sync::Arc<Path>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the key in that line.
    pub key_column: u32,
}

/// The result of assembling one source file (with its includes).
#[derive(Debug, Clone)]
pub struct Assembly {
    /// The `.hit` file.
    pub hit: HitFile,
    /// The register layout the source was assembled with.
    pub layout: Layout,
    /// Labels, constants and track-data IDs the source defines, in source order.
    pub symbols: Vec<Symbol>,
    /// `.hot` lines: `LIST` lines, then `[TrackData]`.
    pub hot_lines: Vec<HotLine>,
    /// Debug info: address ranges → source lines, labels.
    pub hdb: HdbFile,
    /// Linking interface: exports and late-bound imports.
    pub sym: SymFile,
    /// Every source file read, the root first (for file watching).
    pub sources: Vec<PathBuf>,
    /// Every error and warning, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Assembly {
    /// True if any diagnostic is an error (the output must not be used then).
    pub fn has_errors(&self) -> bool {
        diag::has_errors(&self.diagnostics)
    }

    /// The `.hsm` symbol file: every label and constant the source defines, then the
    /// built-in names of the layout (as Maxis' `.hsm` files listed `defaultsyms.txt`).
    pub fn hsm(&self) -> HsmFile {
        let mut hsm = HsmFile::default();
        for symbol in &self.symbols {
            hsm.push(&symbol.name, symbol.value);
        }
        for builtin in symbols::all(self.layout) {
            hsm.push(builtin.name, builtin.value);
        }
        hsm
    }

    /// The `.hot` lines in source order as a document, with where each document line
    /// came from (`origins[i]` is the source of line `i + 1`), so problems found in the
    /// tables can be reported at the `LIST` line that wrote them.
    pub fn hot_in_source_order(&self) -> (HotDocument, Vec<Option<HotLineOrigin>>) {
        // Written piece by piece (a source may write tens of thousands of lines).
        let bytes: usize = self
            .hot_lines
            .iter()
            .map(|l| l.key.len() + l.value.len() + 2)
            .sum();
        let mut text = String::with_capacity(bytes + 64);
        let mut origins = Vec::with_capacity(self.hot_lines.len() + 1);
        let mut section: Option<&str> = None;
        let mut file: Option<std::sync::Arc<Path>> = None;
        for line in &self.hot_lines {
            if section != Some(line.section.as_str()) {
                text.push('[');
                text.push_str(&line.section);
                text.push_str("]\n");
                origins.push(None);
                section = Some(&line.section);
            }
            text.push_str(&line.key);
            text.push('=');
            text.push_str(&line.value);
            text.push('\n');
            let shared = match &file {
                // The same spelling is the same file: compared by bytes, not by parts.
                Some(shared) if shared.as_os_str() == line.file.as_os_str() => shared.clone(),
                _ => file
                    .insert(std::sync::Arc::from(line.file.as_path()))
                    .clone(),
            };
            origins.push(Some(HotLineOrigin {
                file: shared,
                line: line.line,
                key_column: line.key_column,
            }));
        }
        (HotDocument::parse(text.as_bytes()), origins)
    }

    /// The `.hot` options table holding [`Self::hot_lines`], one section after another
    /// (built in one pass: a source may write tens of thousands of `LIST` lines).
    pub fn hot(&self) -> HotDocument {
        HotDocument::from_entries(
            self.hot_lines
                .iter()
                .map(|l| (l.section.as_str(), l.key.as_str(), l.value.as_str())),
        )
    }
}

/// Assembles the source file at `path`, reading it and its includes through `files`.
pub fn assemble(path: &Path, options: &AsmOptions, files: &dyn SourceFiles) -> Assembly {
    encoder::encode(reader::read(path, None, options, files), options)
}

/// Assembles source text held in memory, named `path` in diagnostics; includes are
/// read through `files`, relative to `path`'s folder.
pub fn assemble_text(
    path: &Path,
    text: &str,
    options: &AsmOptions,
    files: &dyn SourceFiles,
) -> Assembly {
    encoder::encode(
        reader::read(path, Some(text.to_string()), options, files),
        options,
    )
}
