//! Laying out and encoding what the reader produced: chooses the register layout, builds
//! the symbol table, assigns addresses (pass 1), then type-checks and encodes every
//! operand against hit-reference §1.2 (pass 2), recording debug lines and late-bound
//! references as it goes.
//!
//! The parts: `names` builds the unit's symbol table (imports, `EXTERN`s, `DEFINE`s and
//! the checks every definition passes); `addresses` is pass 1; `emit` is pass 2, with
//! `operands` type-checking and encoding each operand.

mod addresses;
mod emit;
mod names;
mod operands;

use super::reader::Parsed;
use super::{AsmOptions, Assembly, HotLine, Symbol};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::hit::{self, HitFile};
use crate::toolchain::formats::sym::{SymFile, SymKind};
use crate::toolchain::registers::Layout;
use crate::toolchain::symbols::{self, BuiltinKind};
use std::collections::HashMap;
use std::path::Path;

/// What a name in the unit's own table stands for.
#[derive(Debug, Clone, Copy)]
enum Value {
    Label(u32),
    Constant(i64),
    Register(u8),
    Imported(i64),
    Extern,
}

/// A name of the unit's table: what it stands for and where it was defined.
struct Entry {
    value: Value,
    file: u32,
    line: u32,
}

/// An encoded operand.
enum Encoded {
    Byte(u8),
    Word(u32),
    /// A late-bound 4-byte field (written as zero, recorded in `.sym`).
    Extern(String, SymKind),
}

/// The state of one encoding: the table of names and everything produced so far.
struct Encoder<'p> {
    parsed: &'p Parsed,
    layout: Layout,
    table: HashMap<String, Entry>,
    diagnostics: Vec<Diagnostic>,
    symbols: Vec<Symbol>,
    hot_lines: Vec<HotLine>,
    track_data: Vec<HotLine>,
    /// `--strict`: no late-bound imports for names nothing defines.
    strict: bool,
}

/// The table key of a name: names compare ASCII case-insensitively.
fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// Encodes what the reader produced into an assembly with every diagnostic, in reading
/// order.
pub(crate) fn encode(mut parsed: Parsed, options: &AsmOptions) -> Assembly {
    let diagnostics = std::mem::take(&mut parsed.diagnostics);
    let layout = choose_layout(&parsed, options);
    let mut encoder = Encoder {
        parsed: &parsed,
        layout,
        table: HashMap::new(),
        diagnostics,
        symbols: Vec::new(),
        hot_lines: Vec::new(),
        track_data: Vec::new(),
        strict: options.strict,
    };
    if let (Some(forced), Some((declared, file, line, column))) = (options.layout, parsed.layout)
        && forced != declared
    {
        encoder.warn(
            DiagCode::LayoutOverridden,
            file,
            line,
            column,
            format!("LAYOUT {declared} is overridden by the --layout {forced} option"),
        );
    }
    encoder.import_symbols();
    encoder.declare_externs();
    encoder.define_constants();
    let addresses = encoder.lay_out();
    let (code, hdb, sym) = encoder.emit(&addresses);
    encoder.late_bound(&sym);
    encoder.check_entry_table(&code, &addresses);
    encoder
        .hot_lines
        .extend(parsed.list_lines.iter().map(|l| HotLine {
            section: l.section.clone(),
            key: l.key.clone(),
            value: l.value.clone(),
            file: parsed.path(l.file).to_path_buf(),
            line: l.line,
            key_column: l.key_column,
        }));
    let track_data = std::mem::take(&mut encoder.track_data);
    encoder.hot_lines.extend(track_data);
    // Reading order: by file (in the order they were read), then line and column.
    let order = |path: &Path| {
        parsed
            .sources
            .iter()
            .position(|s| s.path == path)
            .unwrap_or(parsed.sources.len())
    };
    encoder
        .diagnostics
        .sort_by_key(|d| (order(&d.file), d.line, d.column));
    Assembly {
        hit: HitFile::from_code(code.get(hit::HEADER_LEN..).unwrap_or(&[])),
        layout,
        symbols: encoder.symbols,
        hot_lines: encoder.hot_lines,
        hdb,
        sym,
        sources: parsed.sources.iter().map(|s| s.path.clone()).collect(),
        diagnostics: encoder.diagnostics,
    }
}

fn choose_layout(parsed: &Parsed, options: &AsmOptions) -> Layout {
    options
        .layout
        .or(parsed.layout.map(|(layout, ..)| layout))
        .unwrap_or(if parsed.entp_seen {
            Layout::Tso
        } else {
            Layout::Ts1
        })
}

impl Encoder<'_> {
    fn path(&self, file: u32) -> &Path {
        self.parsed.path(file)
    }

    fn error(
        &mut self,
        code: DiagCode,
        file: u32,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) {
        let d = Diagnostic::error(code, self.path(file), line, column, message);
        self.diagnostics.push(d);
    }

    fn warn(
        &mut self,
        code: DiagCode,
        file: u32,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) {
        let d = Diagnostic::warning(code, self.path(file), line, column, message);
        self.diagnostics.push(d);
    }

    /// Whether a name nothing defines may become a late-bound import: only when an
    /// `INCLUDE` was missing (it may have defined it), and never with `--strict`.
    fn late_bound_allowed(&self) -> bool {
        !self.strict && !self.parsed.missing_includes.is_empty()
    }

    /// One warning for each name that became a late-bound import because nothing
    /// defines it (not declared `EXTERN`), at its first use, naming the missing include.
    fn late_bound(&mut self, sym: &SymFile) {
        if !self.late_bound_allowed() {
            return;
        }
        let mut said = std::collections::HashSet::new();
        for import in &sym.imports {
            let name = key(&import.name);
            if self.table.contains_key(&name) || !said.insert(name) {
                continue;
            }
            let includes: Vec<String> = self
                .parsed
                .missing_includes
                .iter()
                .map(|m| format!("`{}` ({})", m.name, self.location(m.file, m.line)))
                .collect();
            let message = format!(
                "`{}` is not defined here; it becomes a late-bound import, bound when the \
                 project loads (the missing include {} may define it)",
                import.name,
                includes.join(", ")
            );
            let column = self.column_of(import.file, import.line, &import.name);
            let code = DiagCode::LateBoundImport;
            self.warn(code, import.file, import.line, column, message);
        }
    }

    /// The 1-based column where `name` is written in line `line` of `file` (1 if not
    /// found: the line came from elsewhere).
    fn column_of(&self, file: u32, line: u32, name: &str) -> u32 {
        let text = self
            .parsed
            .sources
            .get(file as usize)
            .map_or("", |s| &*s.text);
        let wanted = name.to_ascii_lowercase();
        text.lines()
            .nth((line as usize).saturating_sub(1))
            .and_then(|l| l.to_ascii_lowercase().find(&wanted))
            .and_then(|at| u32::try_from(at + 1).ok())
            .unwrap_or(1)
    }

    fn location(&self, file: u32, line: u32) -> String {
        format!("{}:{line}", self.path(file).display())
    }

    fn builtin_clash(&self, name: &str) -> Option<&'static str> {
        symbols::lookup(self.layout, name).map(|b| match b.kind {
            BuiltinKind::Opcode => "mnemonic",
            BuiltinKind::Register => "register",
            BuiltinKind::Constant => "constant",
        })
    }

    /// What `name` stands for: the unit's own table first (names compare
    /// case-insensitively), then the layout's built-ins.
    fn lookup(&self, name: &str) -> Option<Value> {
        let local = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            self.table.get(&key(name))
        } else {
            self.table.get(name)
        };
        if let Some(entry) = local {
            return Some(entry.value);
        }
        let builtin = symbols::lookup(self.layout, name)?;
        Some(match builtin.kind {
            BuiltinKind::Register => Value::Register(u8::try_from(builtin.value).unwrap_or(0)),
            BuiltinKind::Opcode | BuiltinKind::Constant => Value::Constant(builtin.value),
        })
    }
}
