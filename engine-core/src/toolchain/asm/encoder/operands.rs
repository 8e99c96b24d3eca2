//! One instruction operand type-checked against its kind (hit-reference §1.2) and
//! encoded, or the problem with it, worded for the diagnostic.

use super::{Encoded, Encoder, Value};
use crate::toolchain::asm::lexer::{BadToken, Operand, Tok, classify};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::to_u32_bits;
use crate::toolchain::formats::sym::SymKind;
use crate::toolchain::isa::{MAX_JUMP_VAR, OpcodeInfo, OperandKind};
use crate::toolchain::registers::{self, Layout};
use crate::toolchain::suggest::closest;
use crate::toolchain::symbols;

impl Encoder<'_> {
    /// Encodes one instruction operand, reporting a diagnostic and returning `None` if
    /// it does not fit the operand's kind.
    pub(super) fn operand(
        &mut self,
        info: &OpcodeInfo,
        slot: usize,
        kind: OperandKind,
        tok: Tok,
        file: u32,
        line: u32,
    ) -> Option<Encoded> {
        let text = self.parsed.text(file, tok);
        let result = classify(text)
            .map_err(Problem::Token)
            .and_then(|operand| self.check(kind, operand, text));
        match result {
            Ok(encoded) => Some(encoded),
            Err(problem) => {
                let message = problem.message(info, slot, kind, text);
                self.report(file, line, tok.column, &problem, message);
                None
            }
        }
    }

    /// Reports `problem` at `file:line:column` with its code and facts.
    pub(super) fn report(
        &mut self,
        file: u32,
        line: u32,
        column: u32,
        problem: &Problem,
        message: String,
    ) {
        let mut d = Diagnostic::error(problem.code(), self.path(file), line, column, message);
        if let Problem::Undefined { name, hint, .. } = problem {
            d = d.with_subject(name.clone()).with_suggestion(hint.clone());
        } else if let Problem::OtherLayout { name, .. } = problem {
            d = d.with_subject(name.clone());
        }
        self.diagnostics.push(d);
    }

    pub(super) fn check(
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
                None => self.unresolved(name, SymKind::Value, "symbol"),
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
                Some(Value::Register(_)) => Err(Problem::Variable(name.to_string())),
                None => self.unresolved(name, SymKind::Code, "label"),
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

    pub(super) fn label(&self, name: &str, kind: SymKind) -> Result<Encoded, Problem> {
        match self.lookup(name) {
            Some(Value::Label(a)) => Ok(Encoded::Word(a)),
            Some(Value::Extern) => Ok(Encoded::Extern(name.to_string(), kind)),
            Some(_) => Err(Problem::Kind(match self.builtin_clash(name) {
                Some(what) => format!("`{name}` is a built-in {what}, not a label"),
                None => format!("`{name}` is not a label"),
            })),
            None => self.unresolved(name, kind, "label"),
        }
    }

    /// A name used in a 4-byte field that nothing defines: a late-bound import when an
    /// `INCLUDE` of the unit was missing (it may define it; [`Self::late_bound`] says
    /// so once per name), else an error — always an error with `--strict`.
    fn unresolved(
        &self,
        name: &str,
        kind: SymKind,
        what: &'static str,
    ) -> Result<Encoded, Problem> {
        if self.late_bound_allowed() {
            Ok(Encoded::Extern(name.to_string(), kind))
        } else {
            Err(self.undefined(name, what))
        }
    }

    pub(super) fn undefined(&self, name: &str, what: &'static str) -> Problem {
        let labels = self.table.iter().filter_map(|(k, e)| {
            matches!(e.value, Value::Label(_) | Value::Constant(_)).then_some(k.as_str())
        });
        Problem::Undefined {
            what,
            name: name.to_string(),
            hint: closest(name, labels).map(str::to_string),
        }
    }

    pub(super) fn wrong_or_unknown(&self, value: Option<Value>, name: &str) -> Problem {
        match value {
            Some(Value::Register(_)) => Problem::Variable(name.to_string()),
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
}

pub(super) fn byte(n: i64) -> Result<Encoded, Problem> {
    if (-128..=255).contains(&n) {
        Ok(Encoded::Byte(n as u8))
    } else {
        Err(Problem::Range("a 1-byte value", -128, 255))
    }
}

pub(super) fn word(n: i64) -> Result<Encoded, Problem> {
    to_u32_bits(n).map(Encoded::Word).ok_or(Problem::Range(
        "a 4-byte value",
        i64::from(i32::MIN),
        i64::from(u32::MAX),
    ))
}

pub(super) fn jump_var(n: i64) -> Result<Encoded, Problem> {
    match u8::try_from(n) {
        Ok(var) if var <= MAX_JUMP_VAR => Ok(Encoded::Word(u32::from(var))),
        _ => Err(Problem::Kind(format!(
            "jump can only go through variables 0-{MAX_JUMP_VAR} (arg0-arg4, v1-v8, h1-h3), not {n}"
        ))),
    }
}

/// Why an operand did not encode.
#[derive(Debug, Clone)]
pub(super) enum Problem {
    Range(&'static str, i64, i64),
    Kind(String),
    /// A variable where something else is needed.
    Variable(String),
    /// The token is no operand at all.
    Token(BadToken),
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
    /// The diagnostic code of this kind of problem.
    pub(super) fn code(&self) -> DiagCode {
        match self {
            Problem::Range(..) => DiagCode::NumberOutOfRange,
            Problem::Kind(_) | Problem::Variable(_) | Problem::OtherLayout { .. } => {
                DiagCode::BadOperand
            }
            Problem::Token(bad) => bad.code,
            Problem::Undefined { .. } => DiagCode::UnboundSymbol,
        }
    }

    pub(super) fn short(&self) -> String {
        match self {
            Problem::Range(what, lo, hi) => format!("{what} must be from {lo} to {hi}"),
            Problem::Kind(message) => message.clone(),
            Problem::Variable(name) => format!("`{name}` is a variable"),
            Problem::Token(bad) => bad.message.clone(),
            Problem::Undefined { what, name, hint } => {
                let mut message = format!("undefined {what} `{name}`");
                match hint {
                    Some(h) => message.push_str(&format!(" (did you mean `{h}`?)")),
                    None if *what != "name" => {
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

    pub(super) fn message(
        &self,
        info: &OpcodeInfo,
        slot: usize,
        kind: OperandKind,
        text: &str,
    ) -> String {
        let position = format!("operand {} of `{}`", slot + 1, info.mnemonic);
        match self {
            Problem::Kind(_) | Problem::Variable(_) => {
                let why = self.short();
                let mut message = format!("{position} must be {}; {why}", kind.describe());
                if info.mnemonic == "loadb" && slot == 1 && matches!(self, Problem::Variable(_)) {
                    message.push_str(" (use `set` to copy a variable)");
                }
                message
            }
            Problem::Range(..) => format!("{position}: `{text}` is out of range: {}", self.short()),
            other => other.short(),
        }
    }
}
