//! Laying out and encoding what the reader produced: chooses the register layout, builds
//! the symbol table, assigns addresses (pass 1), then type-checks and encodes every
//! operand against hit-reference §1.2 (pass 2), recording debug lines and late-bound
//! references as it goes.

use super::lexer::{Operand, Tok, classify};
use super::reader::{Decl, ItemKind, Parsed};
use super::{AsmOptions, Assembly, HotLine, Symbol, SymbolKind};
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::hdb::{self, HdbFile};
use crate::toolchain::formats::hit::{self, HitFile};
use crate::toolchain::formats::number::to_u32_bits;
use crate::toolchain::formats::sym::{self, SymFile, SymKind};
use crate::toolchain::isa::{MAX_JUMP_VAR, OpcodeInfo, OperandKind};
use crate::toolchain::registers::{self, Layout};
use crate::toolchain::suggest::closest;
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

struct Encoder<'p> {
    parsed: &'p Parsed,
    layout: Layout,
    table: HashMap<String, Entry>,
    diagnostics: Vec<Diagnostic>,
    symbols: Vec<Symbol>,
    hot_lines: Vec<HotLine>,
    track_data: Vec<HotLine>,
}

fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

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
    };
    if let (Some(forced), Some((declared, file, line, column))) = (options.layout, parsed.layout)
        && forced != declared
    {
        encoder.warn(
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

    fn error(&mut self, file: u32, line: u32, column: u32, message: impl Into<String>) {
        let d = Diagnostic::error(self.path(file), line, column, message);
        self.diagnostics.push(d);
    }

    fn warn(&mut self, file: u32, line: u32, column: u32, message: impl Into<String>) {
        let d = Diagnostic::warning(self.path(file), line, column, message);
        self.diagnostics.push(d);
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

    /// `SYMBOLFILE`/`INIFILE` constants: lowest priority; built-ins win.
    fn import_symbols(&mut self) {
        for imported in &self.parsed.imported {
            if let Some(builtin) = symbols::lookup(self.layout, &imported.name) {
                if builtin.value != imported.value {
                    self.diagnostics.push(Diagnostic::warning(
                        &imported.path,
                        imported.line,
                        1,
                        format!(
                            "`{}` = {} here, but the built-in {} `{}` is {}; the built-in is used",
                            imported.name,
                            imported.value,
                            self.layout.title(),
                            builtin.name,
                            builtin.value
                        ),
                    ));
                }
                continue;
            }
            self.table.entry(key(&imported.name)).or_insert(Entry {
                value: Value::Imported(imported.value),
                file: 0,
                line: 0,
            });
        }
    }

    fn declare_externs(&mut self) {
        for decl in &self.parsed.externs {
            let name = self.parsed.text(decl.file, decl.name);
            if let Some(what) = self.builtin_clash(name) {
                let message = format!("EXTERN `{name}` has the name of a built-in {what}");
                self.error(decl.file, decl.line, decl.name.column, message);
                continue;
            }
            self.table.insert(
                key(name),
                Entry {
                    value: Value::Extern,
                    file: decl.file,
                    line: decl.line,
                },
            );
        }
    }

    /// Checks that a name the unit defines clashes with nothing; returns false (after a
    /// diagnostic) if it must not be defined.
    fn may_define(
        &mut self,
        name: &str,
        decl_file: u32,
        decl_line: u32,
        column: u32,
        what: &str,
    ) -> bool {
        if let Some(kind) = self.builtin_clash(name) {
            let message = format!("{what} `{name}` has the name of a built-in {kind}");
            self.error(decl_file, decl_line, column, message);
            return false;
        }
        match self
            .table
            .get(&key(name))
            .map(|e| (e.value, e.file, e.line))
        {
            Some((Value::Extern, file, line)) => {
                let message = format!(
                    "`{name}` is declared EXTERN at {} but defined here; the definition here is used",
                    self.location(file, line)
                );
                self.warn(decl_file, decl_line, column, message);
                true
            }
            Some((Value::Imported(_), ..)) | None => true,
            Some((_, file, line)) => {
                let message = format!(
                    "duplicate {what} `{name}` (first defined at {})",
                    self.location(file, line)
                );
                self.error(decl_file, decl_line, column, message);
                false
            }
        }
    }

    fn define_constants(&mut self) {
        let parsed = self.parsed;
        for Decl {
            name,
            value,
            file,
            line,
        } in &parsed.defines
        {
            let (file, line) = (*file, *line);
            let name_text = parsed.text(file, *name);
            let Some(value_tok) = value else { continue };
            let value_text = parsed.text(file, *value_tok);
            let resolved = match classify(value_text) {
                Ok(Operand::Int(v)) | Ok(Operand::HashInt(v)) => Some(Value::Constant(v)),
                Ok(Operand::Name(n)) | Ok(Operand::HashName(n)) => match self.lookup(n) {
                    Some(v @ (Value::Constant(_) | Value::Register(_))) => Some(v),
                    Some(Value::Imported(v)) => Some(Value::Constant(v)),
                    _ => None,
                },
                _ => None,
            };
            let Some(resolved) = resolved else {
                let message = format!(
                    "DEFINE `{name_text}`: `{value_text}` is not a number, a register or a constant defined earlier"
                );
                self.error(file, line, value_tok.column, message);
                continue;
            };
            if !self.may_define(name_text, file, line, name.column, "name") {
                continue;
            }
            let (value, kind) = match resolved {
                Value::Register(r) => (i64::from(r), SymbolKind::Register),
                Value::Constant(v) => (v, SymbolKind::Constant),
                _ => continue,
            };
            self.table.insert(
                key(name_text),
                Entry {
                    value: resolved,
                    file,
                    line,
                },
            );
            self.symbols.push(Symbol {
                name: name_text.to_string(),
                value,
                kind,
                file: self.path(file).to_path_buf(),
                line,
            });
        }
    }

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

    /// Pass 1: the address of every item, labels and track-data IDs defined.
    fn lay_out(&mut self) -> Vec<u32> {
        let parsed = self.parsed;
        let mut addresses = Vec::with_capacity(parsed.items.len());
        let mut address = hit::HEADER_LEN as u64;
        let mut next_track_data: Option<u32> = None;
        let mut overflow_reported = false;
        for item in &parsed.items {
            let here = u32::try_from(address).unwrap_or(u32::MAX);
            addresses.push(here);
            match &item.kind {
                ItemKind::Label { name } => {
                    let name_text = parsed.text(item.file, *name);
                    if !self.may_define(name_text, item.file, item.line, name.column, "label") {
                        continue;
                    }
                    self.table.insert(
                        key(name_text),
                        Entry {
                            value: Value::Label(here),
                            file: item.file,
                            line: item.line,
                        },
                    );
                    self.symbols.push(Symbol {
                        name: name_text.to_string(),
                        value: i64::from(here),
                        kind: SymbolKind::Label,
                        file: self.path(item.file).to_path_buf(),
                        line: item.line,
                    });
                    if let Some(id) = next_track_data.filter(|_| !name_text.starts_with('_')) {
                        self.track_data_id(name_text, id, here, item.file, item.line, name.column);
                        next_track_data = id.checked_add(1);
                    }
                }
                ItemKind::Instr { info, .. } => address += info.size() as u64,
                ItemKind::Data { tokens } => {
                    address += tokens
                        .iter()
                        .map(|t| data_token_size(parsed.text(item.file, *t)) as u64)
                        .sum::<u64>();
                }
                ItemKind::TrackDataBase(base) => next_track_data = Some(*base),
            }
            if address > u64::from(u32::MAX) && !overflow_reported {
                overflow_reported = true;
                self.error(item.file, item.line, 1, "code is larger than 4 GiB");
            }
        }
        addresses
    }

    fn track_data_id(
        &mut self,
        label: &str,
        id: u32,
        address: u32,
        file: u32,
        line: u32,
        column: u32,
    ) {
        let name = format!("tkd_{label}");
        if !self.may_define(&name, file, line, column, "track-data name") {
            return;
        }
        self.table.insert(
            key(&name),
            Entry {
                value: Value::Constant(i64::from(id)),
                file,
                line,
            },
        );
        self.symbols.push(Symbol {
            name,
            value: i64::from(id),
            kind: SymbolKind::TrackData,
            file: self.path(file).to_path_buf(),
            line,
        });
        self.track_data.push(HotLine {
            section: "TrackData".to_string(),
            key: format!("0x{id:x}"),
            value: format!("0x{address:x}"),
            file: self.path(file).to_path_buf(),
            line,
            key_column: column,
        });
    }

    /// Pass 2: the bytes, the debug info and the linking interface.
    fn emit(&mut self, addresses: &[u32]) -> (Vec<u8>, HdbFile, SymFile) {
        let parsed = self.parsed;
        let files: Vec<String> = parsed
            .sources
            .iter()
            .map(|s| s.path.display().to_string())
            .collect();
        let mut hdb = HdbFile {
            files: files.clone(),
            ..HdbFile::default()
        };
        let mut sym = SymFile {
            files,
            ..SymFile::default()
        };
        let mut code = Vec::with_capacity(addresses.last().map_or(0, |a| *a as usize + 16));
        code.extend_from_slice(&hit::header());
        for (item, &address) in parsed.items.iter().zip(addresses) {
            let start = code.len();
            match &item.kind {
                ItemKind::Label { name } => {
                    let name_text = parsed.text(item.file, *name);
                    let is_ours = matches!(
                        self.table.get(&key(name_text)),
                        Some(Entry { value: Value::Label(a), .. }) if *a == address
                    );
                    if is_ours {
                        hdb.labels.push(hdb::Label {
                            address,
                            name: name_text.to_string(),
                            file: item.file,
                            line: item.line,
                        });
                        sym.exports.push(sym::Export {
                            name: name_text.to_string(),
                            kind: SymKind::Code,
                            value: i64::from(address),
                        });
                    }
                }
                ItemKind::Instr {
                    info,
                    ops,
                    count,
                    ok,
                } => {
                    code.push(info.opcode);
                    for (slot, kind) in info.operands.iter().enumerate() {
                        let encoded = if *ok && slot < *count {
                            self.operand(info, slot, *kind, ops[slot], item.file, item.line)
                        } else {
                            None
                        };
                        self.put(
                            &mut code,
                            &mut sym,
                            kind.size(),
                            encoded,
                            item.file,
                            item.line,
                        );
                    }
                }
                ItemKind::Data { tokens } => {
                    for tok in tokens {
                        let text = parsed.text(item.file, *tok);
                        let size = data_token_size(text);
                        let encoded = self.data_token(text, *tok, item.file, item.line);
                        self.put(&mut code, &mut sym, size, encoded, item.file, item.line);
                    }
                }
                ItemKind::TrackDataBase(_) => {}
            }
            if code.len() > start {
                let end = u32::try_from(code.len()).unwrap_or(u32::MAX);
                hdb.push_range(address, end, item.file, item.line);
            }
        }
        for symbol in &self.symbols {
            if matches!(symbol.kind, SymbolKind::Constant | SymbolKind::TrackData) {
                sym.exports.push(sym::Export {
                    name: symbol.name.clone(),
                    kind: SymKind::Value,
                    value: symbol.value,
                });
            }
        }
        (code, hdb, sym)
    }

    /// Appends an encoded operand, padding with zeros to `size` (so an operand with an
    /// error still keeps every later address where pass 1 put it).
    fn put(
        &self,
        code: &mut Vec<u8>,
        sym: &mut SymFile,
        size: usize,
        encoded: Option<Encoded>,
        file: u32,
        line: u32,
    ) {
        let start = code.len();
        match encoded {
            Some(Encoded::Byte(b)) if size == 1 => code.push(b),
            Some(Encoded::Word(w)) if size == 4 => code.extend_from_slice(&w.to_le_bytes()),
            Some(Encoded::Extern(name, kind)) if size == 4 => {
                sym.imports.push(sym::Import {
                    name,
                    kind,
                    offset: u32::try_from(start).unwrap_or(u32::MAX),
                    file,
                    line,
                });
                code.extend_from_slice(&[0; 4]);
            }
            _ => {}
        }
        code.resize(start + size, 0);
    }

    /// Encodes one instruction operand, reporting a diagnostic and returning `None` if
    /// it does not fit the operand's kind.
    fn operand(
        &mut self,
        info: &OpcodeInfo,
        slot: usize,
        kind: OperandKind,
        tok: Tok,
        file: u32,
        line: u32,
    ) -> Option<Encoded> {
        let text = self.parsed.text(file, tok);
        let operand = match classify(text) {
            Ok(operand) => operand,
            Err(message) => {
                self.error(file, line, tok.column, message);
                return None;
            }
        };
        let result = self.check(kind, operand, text);
        match result {
            Ok(encoded) => Some(encoded),
            Err(problem) => {
                let message = problem.message(info, slot, kind, text);
                self.error(file, line, tok.column, message);
                None
            }
        }
    }

    fn check(
        &self,
        kind: OperandKind,
        operand: Operand<'_>,
        text: &str,
    ) -> Result<Encoded, Problem> {
        use OperandKind as K;
        match (kind, operand) {
            (K::Var, Operand::Int(n)) => u8::try_from(n)
                .map(Encoded::Byte)
                .map_err(|_| Problem::Range("a variable number", 0, 255)),
            (K::Var, Operand::Name(name)) => match self.lookup(name) {
                Some(Value::Register(r)) => Ok(Encoded::Byte(r)),
                Some(Value::Imported(v)) => u8::try_from(v)
                    .map(Encoded::Byte)
                    .map_err(|_| Problem::Range("a variable number", 0, 255)),
                other => Err(self.wrong_or_unknown(other, name)),
            },
            (K::Byte, Operand::Int(n)) => byte(n),
            (K::Byte, Operand::Name(name)) => match self.lookup(name) {
                Some(Value::Constant(v) | Value::Imported(v)) => byte(v),
                other => Err(self.wrong_or_unknown(other, name)),
            },
            (K::Var | K::Byte, Operand::HashInt(_) | Operand::HashName(_)) => {
                Err(Problem::Kind(format!("`{text}` is a 4-byte value")))
            }
            (K::Var | K::Byte, Operand::AtName(_)) => {
                Err(Problem::Kind(format!("`{text}` is a code address")))
            }
            (K::Dword, Operand::HashInt(n)) => word(n),
            (K::Dword, Operand::HashName(name)) => match self.lookup(name) {
                Some(Value::Label(a)) => Ok(Encoded::Word(a)),
                Some(Value::Constant(v) | Value::Imported(v)) => word(v),
                Some(Value::Register(r)) => Ok(Encoded::Word(u32::from(r))),
                Some(Value::Extern) => Ok(Encoded::Extern(name.to_string(), SymKind::Value)),
                None => Err(self.undefined(name, "symbol")),
            },
            (K::Dword, Operand::AtName(name)) => self.label(name, SymKind::Value),
            (K::Dword, Operand::Int(_) | Operand::Name(_)) => Err(Problem::Kind(format!(
                "`{text}` is one byte; write `#{text}` for a 4-byte value"
            ))),
            (K::Addr | K::Jump, Operand::AtName(name)) => self.label(name, SymKind::Code),
            (K::Addr | K::Jump, Operand::HashInt(n)) => word(n),
            (K::Addr | K::Jump, Operand::HashName(name)) => match self.lookup(name) {
                Some(Value::Label(a)) => Ok(Encoded::Word(a)),
                Some(Value::Constant(v) | Value::Imported(v)) => word(v),
                Some(Value::Extern) => Ok(Encoded::Extern(name.to_string(), SymKind::Code)),
                Some(Value::Register(_)) => Err(Problem::Kind(format!("`{name}` is a variable"))),
                None => Err(self.undefined(name, "label")),
            },
            (K::Jump, Operand::Name(name)) => match self.lookup(name) {
                Some(Value::Register(r)) => jump_var(i64::from(r)),
                Some(Value::Imported(v)) => jump_var(v),
                other => Err(self.wrong_or_unknown(other, name)),
            },
            (K::Jump, Operand::Int(n)) => jump_var(n),
            (K::Addr, Operand::Int(_) | Operand::Name(_)) => Err(Problem::Kind(format!(
                "`{text}` is not a code address; write `@label`"
            ))),
        }
    }

    fn label(&self, name: &str, kind: SymKind) -> Result<Encoded, Problem> {
        match self.lookup(name) {
            Some(Value::Label(a)) => Ok(Encoded::Word(a)),
            Some(Value::Extern) => Ok(Encoded::Extern(name.to_string(), kind)),
            Some(_) => Err(Problem::Kind(match self.builtin_clash(name) {
                Some(what) => format!("`{name}` is a built-in {what}, not a label"),
                None => format!("`{name}` is not a label"),
            })),
            None => Err(self.undefined(name, "label")),
        }
    }

    fn undefined(&self, name: &str, what: &'static str) -> Problem {
        let labels = self.table.iter().filter_map(|(k, e)| {
            matches!(e.value, Value::Label(_) | Value::Constant(_)).then_some(k.as_str())
        });
        Problem::Undefined {
            what,
            name: name.to_string(),
            hint: closest(name, labels).map(str::to_string),
        }
    }

    fn wrong_or_unknown(&self, value: Option<Value>, name: &str) -> Problem {
        match value {
            Some(Value::Register(_)) => Problem::Kind(format!("`{name}` is a variable")),
            Some(Value::Constant(_) | Value::Imported(_)) => {
                Problem::Kind(format!("`{name}` is a constant"))
            }
            Some(Value::Label(_)) => Problem::Kind(format!(
                "`{name}` is a label (write `#{name}` for its address)"
            )),
            Some(Value::Extern) => Problem::Kind(format!(
                "`{name}` is late-bound (EXTERN) and can only fill a 4-byte operand"
            )),
            None => {
                let other = match self.layout {
                    Layout::Ts1 => Layout::Tso,
                    Layout::Tso => Layout::Ts1,
                };
                if registers::lookup(other, name).is_some() {
                    return Problem::OtherLayout {
                        name: name.to_string(),
                        layout: self.layout,
                        other,
                    };
                }
                let candidates = symbols::all(self.layout)
                    .iter()
                    .map(|b| b.name)
                    .chain(self.table.keys().map(String::as_str));
                Problem::Undefined {
                    what: "name",
                    name: name.to_string(),
                    hint: closest(name, candidates).map(str::to_string),
                }
            }
        }
    }

    fn data_token(&mut self, text: &str, tok: Tok, file: u32, line: u32) -> Option<Encoded> {
        let result = match classify(text) {
            Err(message) => Err(message),
            Ok(Operand::Int(n)) => byte(n).map_err(|p| p.short()),
            Ok(Operand::HashInt(n)) => word(n).map_err(|p| p.short()),
            Ok(Operand::Name(name)) => match self.lookup(name) {
                Some(Value::Constant(v) | Value::Imported(v)) => byte(v).map_err(|p| p.short()),
                Some(Value::Register(r)) => Ok(Encoded::Byte(r)),
                Some(Value::Label(_)) => Err(format!(
                    "`{name}` is a label; write `#{name}` for its 4-byte address"
                )),
                Some(Value::Extern) => Err(extern_in_data(name)),
                None => Err(self.wrong_or_unknown(None, name).short()),
            },
            Ok(Operand::HashName(name) | Operand::AtName(name)) => match self.lookup(name) {
                Some(Value::Label(a)) => Ok(Encoded::Word(a)),
                Some(Value::Constant(v) | Value::Imported(v)) => word(v).map_err(|p| p.short()),
                Some(Value::Register(r)) => Ok(Encoded::Word(u32::from(r))),
                Some(Value::Extern) => Err(extern_in_data(name)),
                None => Err(self.undefined(name, "symbol").short()),
            },
        };
        match result {
            Ok(encoded) => Some(encoded),
            Err(message) => {
                self.error(file, line, tok.column, message);
                None
            }
        }
    }

    /// An `ENTP` spelled out in the code must be closed by `EENT`.
    fn check_entry_table(&mut self, code: &[u8], addresses: &[u32]) {
        let Err(hit::HitError::UnterminatedEntryTable { offset }) = hit::find_entry_table(code)
        else {
            return;
        };
        let at = u32::try_from(offset).unwrap_or(u32::MAX);
        // The last item starting at or before the marker is the line that spells it.
        let index = addresses.partition_point(|&a| a <= at).saturating_sub(1);
        let (file, line, column) = self.parsed.items.get(index).map_or((0, 0, 0), |item| {
            let column = match &item.kind {
                ItemKind::Data { tokens } => tokens.first().map_or(1, |t| t.column),
                _ => 1,
            };
            (item.file, item.line, column)
        });
        self.error(
            file,
            line,
            column,
            "export table ENTP (69 78 84 80) is not closed by EENT (69 69 78 84)",
        );
    }
}

fn extern_in_data(name: &str) -> String {
    format!("late-bound `{name}` can only be used as an instruction operand, not in data")
}

/// Size in bytes of a token on a data line (decided from its form, so pass 1 and pass 2
/// agree even when the token has an error).
fn data_token_size(text: &str) -> usize {
    if text.starts_with('#') || text.starts_with('@') {
        4
    } else {
        1
    }
}

fn byte(n: i64) -> Result<Encoded, Problem> {
    if (-128..=255).contains(&n) {
        Ok(Encoded::Byte(n as u8))
    } else {
        Err(Problem::Range("a 1-byte value", -128, 255))
    }
}

fn word(n: i64) -> Result<Encoded, Problem> {
    to_u32_bits(n).map(Encoded::Word).ok_or(Problem::Range(
        "a 4-byte value",
        i64::from(i32::MIN),
        i64::from(u32::MAX),
    ))
}

fn jump_var(n: i64) -> Result<Encoded, Problem> {
    match u8::try_from(n) {
        Ok(var) if var <= MAX_JUMP_VAR => Ok(Encoded::Word(u32::from(var))),
        _ => Err(Problem::Kind(format!(
            "jump can only go through variables 0-{MAX_JUMP_VAR} (arg0-arg4, v1-v8, h1-h3), not {n}"
        ))),
    }
}

/// Why an operand did not encode.
enum Problem {
    Range(&'static str, i64, i64),
    Kind(String),
    Undefined {
        what: &'static str,
        name: String,
        hint: Option<String>,
    },
    OtherLayout {
        name: String,
        layout: Layout,
        other: Layout,
    },
}

impl Problem {
    fn short(self) -> String {
        match self {
            Problem::Range(what, lo, hi) => format!("{what} must be from {lo} to {hi}"),
            Problem::Kind(message) => message,
            Problem::Undefined { what, name, hint } => {
                let mut message = format!("undefined {what} `{name}`");
                match hint {
                    Some(h) => message.push_str(&format!(" (did you mean `{h}`?)")),
                    None if what != "name" => {
                        message.push_str(" (declare it with `EXTERN` if another file defines it)")
                    }
                    None => {}
                }
                message
            }
            Problem::OtherLayout {
                name,
                layout,
                other,
            } => format!(
                "`{name}` is a {} register, but this file is assembled with the {} layout \
                 (use `LAYOUT {other}` or --layout {other})",
                other.title(),
                layout.title()
            ),
        }
    }

    fn message(self, info: &OpcodeInfo, slot: usize, kind: OperandKind, text: &str) -> String {
        let position = format!("operand {} of `{}`", slot + 1, info.mnemonic);
        match self {
            Problem::Kind(why) => {
                let mut message = format!("{position} must be {}; {why}", kind.describe());
                if info.mnemonic == "loadb" && slot == 1 && why.contains("is a variable") {
                    message.push_str(" (use `set` to copy a variable)");
                }
                message
            }
            Problem::Range(..) => format!("{position}: `{text}` is out of range: {}", self.short()),
            other => other.short(),
        }
    }
}
