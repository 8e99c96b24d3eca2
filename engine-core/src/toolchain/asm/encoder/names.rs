//! The unit's symbol table: constants imported by `SYMBOLFILE`/`INIFILE`, `EXTERN`
//! declarations, `DEFINE`s and track-data names, each checked against the built-ins and
//! what the unit defined before.

use super::{Encoder, Entry, Value, key};
use crate::toolchain::asm::lexer::{Operand, classify};
use crate::toolchain::asm::reader::Decl;
use crate::toolchain::asm::{HotLine, Symbol, SymbolKind};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::symbols;

impl Encoder<'_> {
    /// `SYMBOLFILE`/`INIFILE` constants: lowest priority; built-ins win.
    pub(super) fn import_symbols(&mut self) {
        for imported in &self.parsed.imported {
            if let Some(builtin) = symbols::lookup(self.layout, &imported.name) {
                if builtin.value != imported.value {
                    self.diagnostics.push(Diagnostic::warning(
                        DiagCode::ReservedName,
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

    pub(super) fn declare_externs(&mut self) {
        for decl in &self.parsed.externs {
            let name = self.parsed.text(decl.file, decl.name);
            if let Some(what) = self.builtin_clash(name) {
                let message = format!("EXTERN `{name}` has the name of a built-in {what}");
                let code = DiagCode::ReservedName;
                self.error(code, decl.file, decl.line, decl.name.column, message);
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
    pub(super) fn may_define(
        &mut self,
        name: &str,
        decl_file: u32,
        decl_line: u32,
        column: u32,
        what: &str,
    ) -> bool {
        if let Some(kind) = self.builtin_clash(name) {
            let message = format!("{what} `{name}` has the name of a built-in {kind}");
            self.error(
                DiagCode::ReservedName,
                decl_file,
                decl_line,
                column,
                message,
            );
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
                let code = DiagCode::ExternDefinedHere;
                self.warn(code, decl_file, decl_line, column, message);
                true
            }
            Some((Value::Imported(_), ..)) | None => true,
            Some((_, file, line)) => {
                let message = format!(
                    "duplicate {what} `{name}` (first defined at {})",
                    self.location(file, line)
                );
                let code = DiagCode::DuplicateLabel;
                self.error(code, decl_file, decl_line, column, message);
                false
            }
        }
    }

    pub(super) fn define_constants(&mut self) {
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
                self.error(
                    DiagCode::BadDirective,
                    file,
                    line,
                    value_tok.column,
                    message,
                );
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

    pub(super) fn track_data_id(
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
}
