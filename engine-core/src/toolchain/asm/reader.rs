//! Reading MakeTrax source: lines, comments, directives, `INCLUDE`s and `BINARY [ … ]`
//! blocks become a flat list of items (labels, instructions, data lines) that the
//! encoder lays out and encodes.

use super::lexer::{self, Tok, is_identifier};
use super::{AsmOptions, SourceFiles};
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::{hot, hsm};
use crate::toolchain::isa::{self, OpcodeInfo};
use crate::toolchain::registers::Layout;
use crate::toolchain::suggest::closest;
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
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    pub fn text(&self, file: u32, tok: Tok) -> &str {
        self.sources
            .get(file as usize)
            .map_or("", |s| tok.text(&s.text))
    }

    pub fn path(&self, file: u32) -> &Path {
        self.sources
            .get(file as usize)
            .map_or(Path::new(""), |s| s.path.as_path())
    }
}

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

/// What looking for an `INCLUDE`/`SYMBOLFILE`/`INIFILE` file found.
enum Lookup {
    /// The file and its bytes.
    Found(PathBuf, Vec<u8>),
    /// Not there; these paths were tried.
    Missing(Vec<PathBuf>),
    /// There, but refused (outside the allowed folders, not a regular file, too big…).
    Refused(String),
}

/// Block state of the file being read.
#[derive(Clone, Copy)]
enum Block {
    Outside,
    /// `BINARY` seen, waiting for `[` on a following line.
    Pending {
        line: u32,
        column: u32,
    },
    Inside {
        line: u32,
        column: u32,
    },
}

const DIRECTIVES: &[&str] = &[
    "BINARY",
    "INCLUDE",
    "SYMBOLFILE",
    "INIFILE",
    "BASEID_TRACKDATA",
    "LIST",
    "DEFINE",
    "EXTERN",
    "LAYOUT",
];

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
    fn error(&mut self, file: u32, line: u32, column: u32, message: impl Into<String>) {
        let path = self.out.path(file).to_path_buf();
        self.out
            .diagnostics
            .push(Diagnostic::error(&path, line, column, message));
    }

    fn warning(&mut self, file: u32, line: u32, column: u32, message: impl Into<String>) {
        let path = self.out.path(file).to_path_buf();
        self.out
            .diagnostics
            .push(Diagnostic::warning(&path, line, column, message));
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
                file,
                line,
                column,
                "unterminated BINARY block: the `[` opened here has no closing `]`",
            ),
        }
        self.stack.pop();
    }

    fn read_tokens(
        &mut self,
        l: &Line<'_>,
        toks: &[Tok],
        column1: bool,
        mut block: Block,
    ) -> Block {
        let (file, line_no) = (l.file, l.number);
        let Some(&first) = toks.first() else {
            return block;
        };
        let first_text = l.text(first);
        if let Block::Pending {
            line: open_line,
            column,
        } = block
        {
            if first_text == "[" {
                if let Some(extra) = toks.get(1) {
                    self.error(file, line_no, extra.column, "unexpected text after `[`");
                }
                return Block::Inside {
                    line: open_line,
                    column,
                };
            }
            self.error(
                file,
                open_line,
                column,
                "BINARY must be followed by `[` to open the block",
            );
            block = Block::Outside;
        }
        if first_text == "]" {
            if let Some(extra) = toks.get(1) {
                self.error(file, line_no, extra.column, "unexpected text after `]`");
            }
            if matches!(block, Block::Outside) {
                self.error(
                    file,
                    line_no,
                    first.column,
                    "`]` without an open BINARY block",
                );
            }
            return Block::Outside;
        }
        if let Some(directive) = DIRECTIVES
            .iter()
            .find(|d| d.eq_ignore_ascii_case(first_text))
        {
            return self.directive(directive, l, toks, block);
        }
        let inside = matches!(block, Block::Inside { .. });
        let mut rest = toks;
        if column1 {
            if !inside {
                self.error(
                    file,
                    line_no,
                    1,
                    format!(
                        "label `{first_text}` outside a BINARY block (code and labels go \
                         between `BINARY [` and `]`)"
                    ),
                );
                return block;
            }
            if is_identifier(first_text) {
                self.out.items.push(Item {
                    kind: ItemKind::Label { name: first },
                    file,
                    line: line_no,
                });
            } else {
                self.error(
                    file,
                    line_no,
                    1,
                    format!(
                        "bad label `{first_text}`: labels are letters, digits and `_`, \
                         not starting with a digit"
                    ),
                );
            }
            rest = &toks[1..];
            if rest.is_empty() {
                return block;
            }
        } else if !inside {
            self.error(
                file,
                line_no,
                first.column,
                "instruction outside a BINARY block (code goes between `BINARY [` and `]`)",
            );
            return block;
        }
        self.statement(l, rest);
        block
    }

    /// An instruction or a data line.
    fn statement(&mut self, l: &Line<'_>, toks: &[Tok]) {
        let (file, line_no) = (l.file, l.number);
        let Some(&head) = toks.first() else { return };
        let head_text = l.text(head);
        if lexer::looks_numeric(head_text) || head_text.starts_with('#') {
            let values: Vec<i64> = toks
                .iter()
                .take(4)
                .filter_map(|t| crate::toolchain::formats::number::parse_int(l.text(*t)))
                .collect();
            if values == [69, 78, 84, 80] {
                self.out.entp_seen = true;
            }
            self.out.items.push(Item {
                kind: ItemKind::Data {
                    tokens: toks.to_vec(),
                },
                file,
                line: line_no,
            });
            return;
        }
        let Some(info) = isa::by_mnemonic(head_text) else {
            // `smart setlist` (a space for an underscore, as in the seed's printed text)
            // is the likeliest slip; then plain typos.
            let joined = toks
                .get(1)
                .map(|next| format!("{head_text}_{}", l.text(*next)))
                .and_then(|j| isa::by_mnemonic(&j))
                .map(|info| info.mnemonic);
            let hint = joined
                .or_else(|| closest(head_text, isa::OPCODES.iter().map(|i| i.mnemonic)))
                .map(|m| format!(" (did you mean `{m}`?)"))
                .unwrap_or_default();
            self.error(
                file,
                line_no,
                head.column,
                format!("unknown mnemonic `{head_text}`{hint}"),
            );
            return;
        };
        let operands = &toks[1..];
        let expected = info.operands.len();
        let ok = operands.len() == expected;
        if !ok {
            let kinds: Vec<&str> = info.operands.iter().map(|k| k.describe()).collect();
            let wanted = match expected {
                0 => "no operands".to_string(),
                1 => format!("1 operand ({})", kinds.join(", ")),
                n => format!("{n} operands ({})", kinds.join(", ")),
            };
            let column = match operands.get(expected) {
                Some(extra) => extra.column,
                None => toks.last().map_or(head.column, |t| {
                    let width = u32::try_from(l.text(*t).chars().count()).unwrap_or(0);
                    t.column.saturating_add(width)
                }),
            };
            let mut message = format!(
                "`{}` takes {wanted}, found {}",
                info.mnemonic,
                operands.len()
            );
            if let (true, Some(next)) = (operands.len() > expected, operands.first()) {
                let joined = format!("{}_{}", info.mnemonic, l.text(*next));
                if isa::by_mnemonic(&joined).is_some() {
                    message.push_str(&format!(" (did you mean `{joined}`?)"));
                }
            }
            self.error(file, line_no, column, message);
        }
        let mut ops = [Tok::default(); 3];
        for (slot, tok) in ops.iter_mut().zip(operands) {
            *slot = *tok;
        }
        self.out.items.push(Item {
            kind: ItemKind::Instr {
                info,
                ops,
                count: operands.len().min(3),
                ok,
            },
            file,
            line: line_no,
        });
    }

    fn directive(&mut self, directive: &str, l: &Line<'_>, toks: &[Tok], block: Block) -> Block {
        let (file, line_no) = (l.file, l.number);
        let head = toks[0];
        let args = &toks[1..];
        // The raw text after the directive word, without its comment (quote-aware: paths
        // in [Patch] values are quoted and may contain `;`).
        let after = (head.end as usize).saturating_sub(l.offset);
        let stripped = strip_comment_outside_quotes(l.raw.get(after..).unwrap_or(""));
        let rest_offset = after + (stripped.len() - stripped.trim_start().len());
        let rest = stripped.trim();
        match directive {
            "BINARY" => {
                if matches!(block, Block::Inside { .. }) {
                    self.error(
                        file,
                        line_no,
                        head.column,
                        "BINARY inside an open BINARY block (missing `]`?)",
                    );
                    return block;
                }
                let open = Block::Inside {
                    line: line_no,
                    column: head.column,
                };
                match args {
                    [] => {
                        return Block::Pending {
                            line: line_no,
                            column: head.column,
                        };
                    }
                    [bracket] if l.text(*bracket) == "[" => return open,
                    [bracket, extra, ..] if l.text(*bracket) == "[" => {
                        self.error(file, line_no, extra.column, "unexpected text after `[`");
                        return open;
                    }
                    [other, ..] => {
                        self.error(
                            file,
                            line_no,
                            other.column,
                            "BINARY must be followed by `[` to open the block",
                        );
                    }
                }
            }
            "INCLUDE" => self.include(file, line_no, head, rest),
            "SYMBOLFILE" => self.symbol_file(file, line_no, head, rest, false),
            "INIFILE" => self.symbol_file(file, line_no, head, rest, true),
            "BASEID_TRACKDATA" => {
                let parsed = match args {
                    [n] => crate::toolchain::formats::number::parse_int(l.text(*n))
                        .and_then(|v| u32::try_from(v).ok()),
                    _ => None,
                };
                match parsed {
                    Some(base) => self.out.items.push(Item {
                        kind: ItemKind::TrackDataBase(base),
                        file,
                        line: line_no,
                    }),
                    None => {
                        let column = args.first().map_or(head.column, |t| t.column);
                        self.error(
                            file,
                            line_no,
                            column,
                            "BASEID_TRACKDATA needs one number from 0 to 4294967295",
                        );
                    }
                }
            }
            "LIST" => self.list(l, head, rest, rest_offset),
            "DEFINE" => match args {
                [name, value] if is_identifier(l.text(*name)) => {
                    self.out.defines.push(Decl {
                        name: *name,
                        value: Some(*value),
                        file,
                        line: line_no,
                    });
                }
                _ => {
                    let column = args.first().map_or(head.column, |t| t.column);
                    self.error(
                        file,
                        line_no,
                        column,
                        "DEFINE needs a name and a value: `DEFINE name 42`",
                    );
                }
            },
            "EXTERN" => {
                if args.is_empty() {
                    self.error(file, line_no, head.column, "EXTERN needs at least one name");
                }
                for name in args {
                    if is_identifier(l.text(*name)) {
                        self.out.externs.push(Decl {
                            name: *name,
                            value: None,
                            file,
                            line: line_no,
                        });
                    } else {
                        let text = l.text(*name);
                        self.error(
                            file,
                            line_no,
                            name.column,
                            format!("EXTERN: `{text}` is not a name"),
                        );
                    }
                }
            }
            "LAYOUT" => {
                let value = match args {
                    [v] => l
                        .text(*v)
                        .parse::<Layout>()
                        .ok()
                        .map(|layout| (layout, v.column)),
                    _ => None,
                };
                match value {
                    Some((layout, column)) => {
                        self.out.layout = Some((layout, file, line_no, column));
                    }
                    None => self.error(
                        file,
                        line_no,
                        args.first().map_or(head.column, |t| t.column),
                        "LAYOUT needs `ts1` or `tso`",
                    ),
                }
            }
            _ => {}
        }
        block
    }

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
                Err(e) => return Lookup::Refused(e.to_string()),
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
        self.warning(
            file,
            line_no,
            column,
            format!(
                "cannot find {what} `{name}` (looked for {}); going on without it",
                looked.join(", ")
            ),
        );
    }

    fn include(&mut self, file: u32, line_no: u32, head: Tok, name: &str) {
        let column = head.column;
        if name.is_empty() {
            self.error(file, line_no, column, "INCLUDE needs a file name");
            return;
        }
        let (path, bytes) = match self.resolve(file, name) {
            Lookup::Found(path, bytes) => (path, bytes),
            Lookup::Missing(tried) => {
                self.missing(file, line_no, column, "include file", name, &tried);
                return;
            }
            Lookup::Refused(why) => {
                self.error(file, line_no, column, format!("INCLUDE `{name}`: {why}"));
                return;
            }
        };
        let key = self.files.identity(&path);
        if self.stack.contains(&key) {
            self.error(
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
    fn symbol_file(&mut self, file: u32, line_no: u32, head: Tok, name: &str, ini: bool) {
        let what = if ini { "INIFILE" } else { "SYMBOLFILE" };
        if name.is_empty() {
            self.error(
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
            Lookup::Refused(why) => {
                self.error(
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

    /// `body` is the text after `LIST`, starting at byte `body_offset` of the line.
    fn list(&mut self, l: &Line<'_>, head: Tok, body: &str, body_offset: usize) {
        let parsed = body.strip_prefix('[').and_then(|after| {
            let close = after.find(']')?;
            let section = after[..close].trim();
            let entry_raw = &after[close + 1..];
            let entry = entry_raw.trim();
            let eq = entry.find('=')?;
            let key = entry[..eq].trim();
            let value = entry[eq + 1..].trim();
            // Where the key starts in the source line, for diagnostics about the entry.
            let key_offset =
                body_offset + 1 + close + 1 + (entry_raw.len() - entry_raw.trim_start().len());
            let key_column = l.raw.get(..key_offset).map_or(1, |p| p.chars().count() + 1);
            (!section.is_empty() && !key.is_empty()).then(|| ListLine {
                section: section.to_string(),
                key: key.to_string(),
                value: value.to_string(),
                file: l.file,
                line: l.number,
                key_column: u32::try_from(key_column).unwrap_or(1),
            })
        });
        match parsed {
            Some(list_line) => self.out.list_lines.push(list_line),
            None => self.error(
                l.file,
                l.number,
                head.column,
                "LIST needs `[Section] key=value`",
            ),
        }
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

/// Cuts a `;` comment that is not inside double quotes.
fn strip_comment_outside_quotes(text: &str) -> &str {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => return &text[..i],
            _ => {}
        }
    }
    text
}
