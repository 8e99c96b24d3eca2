//! Pass 2: the bytes of every item, the debug lines and labels of the `.hdb`, and the
//! exports and late-bound imports of the `.sym`.

use super::addresses::data_token_size;
use super::operands::{Problem, byte, word};
use super::{Encoded, Encoder, Entry, Value, key};
use crate::toolchain::asm::SymbolKind;
use crate::toolchain::asm::lexer::{Operand, Tok, classify};
use crate::toolchain::asm::reader::ItemKind;
use crate::toolchain::diag::DiagCode;
use crate::toolchain::formats::hdb::{self, HdbFile};
use crate::toolchain::formats::hit;
use crate::toolchain::formats::sym::{self, SymFile, SymKind};

impl Encoder<'_> {
    /// Pass 2: the bytes, the debug info and the linking interface.
    pub(super) fn emit(&mut self, addresses: &[u32]) -> (Vec<u8>, HdbFile, SymFile) {
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
    pub(super) fn put(
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

    pub(super) fn data_token(
        &mut self,
        text: &str,
        tok: Tok,
        file: u32,
        line: u32,
    ) -> Option<Encoded> {
        let result = match classify(text) {
            Err(bad) => Err(Problem::Token(bad)),
            Ok(Operand::Int(n)) => byte(n),
            Ok(Operand::HashInt(n)) => word(n),
            Ok(Operand::Name(name)) => match self.lookup(name) {
                Some(Value::Constant(v) | Value::Imported(v)) => byte(v),
                Some(Value::Register(r)) => Ok(Encoded::Byte(r)),
                Some(Value::Label(_)) => Err(Problem::Kind(format!(
                    "`{name}` is a label; write `#{name}` for its 4-byte address"
                ))),
                Some(Value::Extern) => Err(extern_in_data(name)),
                None => Err(self.wrong_or_unknown(None, name)),
            },
            Ok(Operand::HashName(name) | Operand::AtName(name)) => match self.lookup(name) {
                Some(Value::Label(a)) => Ok(Encoded::Word(a)),
                Some(Value::Constant(v) | Value::Imported(v)) => word(v),
                Some(Value::Register(r)) => Ok(Encoded::Word(u32::from(r))),
                Some(Value::Extern) => Err(extern_in_data(name)),
                None => Err(self.undefined(name, "symbol")),
            },
        };
        match result {
            Ok(encoded) => Some(encoded),
            Err(problem) => {
                let message = problem.short();
                self.report(file, line, tok.column, &problem, message);
                None
            }
        }
    }

    /// An `ENTP` spelled out in the code must be closed by `EENT`.
    pub(super) fn check_entry_table(&mut self, code: &[u8], addresses: &[u32]) {
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
            DiagCode::UnclosedExportTable,
            file,
            line,
            column,
            "export table ENTP (69 78 84 80) is not closed by EENT (69 69 78 84)",
        );
    }
}

pub(super) fn extern_in_data(name: &str) -> Problem {
    Problem::Kind(format!(
        "late-bound `{name}` can only be used as an instruction operand, not in data"
    ))
}
