//! Reading MakeTrax source: lines, comments, directives, `INCLUDE`s and `BINARY [ … ]`
//! blocks become a flat list of items (labels, instructions, data lines) that the
//! encoder lays out and encodes.
//!
//! The parts: `lines` reads one line inside or outside a `BINARY` block (labels,
//! instructions, data lines); `directive` reads the directives; `include` finds and reads
//! `INCLUDE`, `SYMBOLFILE` and `INIFILE` files.

mod directive;
mod include;
mod lines;

use super::lexer::{self, Tok};
use super::{AsmOptions, SourceFiles};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::fsrules::Refusal;
use crate::toolchain::isa::OpcodeInfo;
use crate::toolchain::registers::Layout;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Deepest `INCLUDE` nesting accepted (the root source is level 1).
pub const MAX_INCLUDE_DEPTH: usize = 32;

/// Most lines one assembly reads, the root source and everything it includes together;
/// reading stops there with an error. Real sources are a few thousand lines; a source
/// writing 80,000 `LIST` lines is far below.
pub const MAX_EXPANDED_LINES: usize = 1_000_000;

/// One source file that was read.
pub(crate) struct Source {
    pub path: PathBuf,
    pub text: Arc<str>,
}

/// What a source line turned into.
pub(crate) enum ItemKind {
    /// A label in column 1.
    Label { name: Tok },
    /// An instruction; `count` operands were written (it may not match the opcode, in
    /// which case a diagnostic was already given and `ok` is false).
    Instr {
        info: &'static OpcodeInfo,
        ops: [Tok; 3],
        count: usize,
        ok: bool,
    },
    /// Raw bytes and 4-byte values.
    Data { tokens: Vec<Tok> },
    /// `BASEID_TRACKDATA n`: labels after this get track-data IDs n, n+1, …
    TrackDataBase(u32),
}

/// An item and where it came from.
pub(crate) struct Item {
    pub kind: ItemKind,
    pub file: u32,
    pub line: u32,
}

/// A `DEFINE name value` or `EXTERN name` declaration.
pub(crate) struct Decl {
    pub name: Tok,
    pub value: Option<Tok>,
    pub file: u32,
    pub line: u32,
}

/// A constant imported by `SYMBOLFILE` or `INIFILE`.
pub(crate) struct Imported {
    pub name: String,
    pub value: i64,
    pub path: PathBuf,
    pub line: u32,
}

/// A `LIST [Section] key=value` line.
pub(crate) struct ListLine {
    pub section: String,
    pub key: String,
    pub value: String,
    pub file: u32,
    pub line: u32,
    /// 1-based column of `key` in the source line.
    pub key_column: u32,
}

/// An `INCLUDE` whose file was found nowhere.
pub(crate) struct MissingInclude {
    /// The name as written.
    pub name: String,
    pub file: u32,
    pub line: u32,
}

/// Everything read from the source tree.
#[derive(Default)]
pub(crate) struct Parsed {
    pub sources: Vec<Source>,
    pub items: Vec<Item>,
    pub defines: Vec<Decl>,
    pub externs: Vec<Decl>,
    pub imported: Vec<Imported>,
    pub list_lines: Vec<ListLine>,
    pub layout: Option<(Layout, u32, u32, u32)>,
    pub entp_seen: bool,
    /// `INCLUDE`s whose file was found nowhere, in reading order.
    pub missing_includes: Vec<MissingInclude>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// The text of token `tok` of source `file`.
    pub fn text(&self, file: u32, tok: Tok) -> &str {
        self.sources
            .get(file as usize)
            .map_or("", |s| tok.text(&s.text))
    }

    /// The path of source `file` (empty for an index never read).
    pub fn path(&self, file: u32) -> &Path {
        self.sources
            .get(file as usize)
            .map_or(Path::new(""), |s| s.path.as_path())
    }
}

/// The state of one read: the output so far and the files on the way to this one.
struct Reader<'a> {
    options: &'a AsmOptions,
    files: &'a dyn SourceFiles,
    out: Parsed,
    /// Identities of the files being read, outermost first (for cycles).
    stack: Vec<PathBuf>,
    /// Identities of every file read: a file is included once (like `#pragma once`).
    included: HashSet<PathBuf>,
    /// Lines read so far, all files together.
    lines: usize,
    /// Set when [`MAX_EXPANDED_LINES`] is reached: nothing more is read.
    stopped: bool,
}

/// Block state of the file being read.
#[derive(Clone, Copy)]
enum Block {
    /// Outside any block: only directives are allowed.
    Outside,
    /// `BINARY` seen, waiting for `[` on a following line.
    Pending { line: u32, column: u32 },
    /// Inside a block opened at `line`, `column`.
    Inside { line: u32, column: u32 },
}

/// Reads `root` (from `text` if given, else through `files`) and everything it includes.
pub(crate) fn read(
    root: &Path,
    text: Option<String>,
    options: &AsmOptions,
    files: &dyn SourceFiles,
) -> Parsed {
    let mut reader = Reader {
        options,
        files,
        out: Parsed::default(),
        stack: Vec::new(),
        included: HashSet::new(),
        lines: 0,
        stopped: false,
    };
    let text = match text {
        Some(text) => text,
        None => match files.read(root) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                reader.out.diagnostics.push(Diagnostic::error(
                    Refusal::io_code(&e),
                    root,
                    0,
                    0,
                    format!("cannot read source file: {e}"),
                ));
                return reader.out;
            }
        },
    };
    reader.included.insert(files.identity(root));
    reader.read_file(root.to_path_buf(), text);
    reader.out
}

impl Reader<'_> {
    fn error(
        &mut self,
        code: DiagCode,
        file: u32,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) {
        let d = Diagnostic::error(code, self.out.path(file), line, column, message);
        self.out.diagnostics.push(d);
    }

    fn warning(
        &mut self,
        code: DiagCode,
        file: u32,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) {
        let d = Diagnostic::warning(code, self.out.path(file), line, column, message);
        self.out.diagnostics.push(d);
    }

    /// Adds a diagnostic built with its facts.
    fn push(&mut self, diagnostic: Diagnostic) {
        self.out.diagnostics.push(diagnostic);
    }

    fn read_file(&mut self, path: PathBuf, text: String) {
        let file = u32::try_from(self.out.sources.len()).unwrap_or(u32::MAX);
        let text: Arc<str> = Arc::from(text);
        self.stack.push(self.files.identity(&path));
        self.out.sources.push(Source {
            path,
            text: Arc::clone(&text),
        });
        let mut block = Block::Outside;
        let mut offset = 0usize;
        let mut toks = Vec::new();
        for (index, raw) in text.split('\n').enumerate() {
            let line_no = u32::try_from(index + 1).unwrap_or(u32::MAX);
            if self.stopped {
                break;
            }
            self.lines += 1;
            if self.lines > MAX_EXPANDED_LINES {
                self.stopped = true;
                self.error(
                    DiagCode::SourceTooLong,
                    file,
                    line_no,
                    0,
                    format!(
                        "the source and its includes are more than {MAX_EXPANDED_LINES} lines; \
                         the rest is not read"
                    ),
                );
                break;
            }
            if !lexer::is_hash_comment(raw) {
                let column1 = lexer::tokenize(raw, offset, &mut toks);
                let line = Line {
                    src: &text,
                    raw,
                    offset,
                    file,
                    number: line_no,
                };
                block = self.read_tokens(&line, &toks, column1, block);
            }
            offset += raw.len() + 1;
        }
        match block {
            Block::Outside => {}
            // Cut short: the block's end is in what was not read.
            _ if self.stopped => {}
            Block::Pending { line, column } | Block::Inside { line, column } => self.error(
                DiagCode::BlockStructure,
                file,
                line,
                column,
                "unterminated BINARY block: the `[` opened here has no closing `]`",
            ),
        }
        self.stack.pop();
    }
}

/// One line being read, with what is needed to get token texts back.
struct Line<'a> {
    src: &'a str,
    raw: &'a str,
    offset: usize,
    file: u32,
    number: u32,
}

impl Line<'_> {
    fn text(&self, tok: Tok) -> &str {
        tok.text(self.src)
    }
}
