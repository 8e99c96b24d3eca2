//! The HIT instruction set: the 96 opcodes, their mnemonics and operand encodings.
//!
//! Numbering, mnemonics (Niotso spelling) and operand sizes follow hit-reference §1.2.
//! Where the reference says an opcode's operands are unknown, HitBench defines them
//! (`OperandSource::Defined`); `docs/vm.md` says why for each. Every other row is the
//! compatibility contract and must not change.

use std::collections::HashMap;
use std::sync::LazyLock;

/// What one operand of an instruction is, and how many bytes it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// 1 byte: a variable (register) number.
    Var,
    /// 1 byte: an immediate constant.
    Byte,
    /// 4 bytes: an immediate constant, little-endian.
    Dword,
    /// 4 bytes: an absolute code address (byte offset into the `.hit` file).
    Addr,
    /// The operand of `jump`: 4 bytes, either an address or a variable number in the
    /// first byte (see [`decode_jump`]). The assembler always writes the 4-byte form.
    Jump,
}

impl OperandKind {
    /// Encoded size in bytes.
    pub const fn size(self) -> usize {
        match self {
            Self::Var | Self::Byte => 1,
            Self::Dword | Self::Addr | Self::Jump => 4,
        }
    }

    /// How the kind is named in diagnostics.
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Var => "a variable",
            Self::Byte => "a 1-byte constant",
            Self::Dword => "a 4-byte constant (#value)",
            Self::Addr => "a code address (@label)",
            Self::Jump => "a code address (@label) or a variable",
        }
    }
}

/// Where an opcode's operand list comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandSource {
    /// Given by the reference (Niotso's table, FreeSO's handlers, shipped data).
    Reference,
    /// Unknown in the reference; defined by HitBench and documented in `docs/vm.md`.
    Defined,
}

/// One row of the opcode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode byte.
    pub opcode: u8,
    /// Mnemonic as the original tools spelled it.
    pub mnemonic: &'static str,
    /// Operand kinds in encoding order.
    pub operands: &'static [OperandKind],
    /// Whether the operands come from the reference or from HitBench.
    pub source: OperandSource,
}

impl OpcodeInfo {
    /// Encoded size of the whole instruction (opcode byte plus operands).
    pub fn size(&self) -> usize {
        1 + self.operands.iter().map(|k| k.size()).sum::<usize>()
    }
}

/// The highest valid opcode (`note_on_loop`).
pub const MAX_OPCODE: u8 = 0x60;

use OperandKind::{Addr, Byte, Dword, Jump, Var};
use OperandSource::{Defined, Reference};

const NONE: &[OperandKind] = &[];
const V: &[OperandKind] = &[Var];
const VV: &[OperandKind] = &[Var, Var];
const VVV: &[OperandKind] = &[Var, Var, Var];
const VB: &[OperandKind] = &[Var, Byte];
const VD: &[OperandKind] = &[Var, Dword];
const VDD: &[OperandKind] = &[Var, Dword, Dword];
const A: &[OperandKind] = &[Addr];
const B: &[OperandKind] = &[Byte];
const BB: &[OperandKind] = &[Byte, Byte];
const D: &[OperandKind] = &[Dword];
const J: &[OperandKind] = &[Jump];

const fn op(
    opcode: u8,
    mnemonic: &'static str,
    operands: &'static [OperandKind],
    source: OperandSource,
) -> OpcodeInfo {
    OpcodeInfo {
        opcode,
        mnemonic,
        operands,
        source,
    }
}

/// All 96 opcodes, indexed by `opcode - 1`.
pub static OPCODES: [OpcodeInfo; 96] = [
    op(0x01, "note", NONE, Defined),
    op(0x02, "note_on", V, Reference),
    op(0x03, "note_off", V, Reference),
    op(0x04, "loadb", VB, Reference),
    op(0x05, "loadl", VD, Reference),
    op(0x06, "set", VV, Reference),
    op(0x07, "call", A, Reference),
    op(0x08, "return", NONE, Reference),
    op(0x09, "wait", V, Reference),
    op(0x0A, "callentrypoint", NONE, Defined),
    op(0x0B, "wait_samp", NONE, Reference),
    op(0x0C, "end", NONE, Reference),
    op(0x0D, "jump", J, Reference),
    op(0x0E, "test", V, Reference),
    op(0x0F, "nop", NONE, Reference),
    op(0x10, "add", VV, Reference),
    op(0x11, "sub", VV, Reference),
    op(0x12, "div", VV, Reference),
    op(0x13, "mul", VV, Reference),
    op(0x14, "cmp", VV, Reference),
    op(0x15, "less", VV, Defined),
    op(0x16, "greater", VV, Defined),
    op(0x17, "not", V, Defined),
    op(0x18, "rand", VVV, Reference),
    op(0x19, "abs", V, Defined),
    op(0x1A, "limit", VDD, Defined),
    op(0x1B, "error", D, Defined),
    op(0x1C, "assert", V, Defined),
    op(0x1D, "add_to_group", NONE, Defined),
    op(0x1E, "remove_from_group", NONE, Defined),
    op(0x1F, "get_var", NONE, Defined),
    op(0x20, "loop", NONE, Reference),
    op(0x21, "set_loop", NONE, Reference),
    op(0x22, "callback", NONE, Defined),
    op(0x23, "smart_add", V, Defined),
    op(0x24, "smart_remove", V, Defined),
    op(0x25, "smart_removeall", NONE, Defined),
    op(0x26, "smart_setcrit", NONE, Defined),
    op(0x27, "smart_choose", V, Reference),
    op(0x28, "and", VV, Defined),
    op(0x29, "nand", VV, Defined),
    op(0x2A, "or", VV, Defined),
    op(0x2B, "nor", VV, Defined),
    op(0x2C, "xor", VV, Defined),
    op(0x2D, "max", VD, Reference),
    op(0x2E, "min", VD, Reference),
    op(0x2F, "inc", V, Reference),
    op(0x30, "dec", V, Reference),
    op(0x31, "printreg", V, Defined),
    op(0x32, "play_trk", V, Reference),
    op(0x33, "kill_trk", V, Reference),
    op(0x34, "push", V, Defined),
    op(0x35, "push_mask", NONE, Defined),
    op(0x36, "push_vars", NONE, Defined),
    op(0x37, "call_mask", NONE, Defined),
    op(0x38, "call_push", NONE, Defined),
    op(0x39, "pop", V, Defined),
    op(0x3A, "test1", NONE, Reference),
    op(0x3B, "test2", NONE, Reference),
    op(0x3C, "test3", NONE, Reference),
    op(0x3D, "test4", NONE, Reference),
    op(0x3E, "ifeq", A, Reference),
    op(0x3F, "ifne", A, Reference),
    op(0x40, "ifgt", A, Reference),
    op(0x41, "iflt", A, Reference),
    op(0x42, "ifge", A, Reference),
    op(0x43, "ifle", A, Reference),
    op(0x44, "smart_setlist", V, Reference),
    op(0x45, "seqgroup_kill", B, Reference),
    op(0x46, "seqgroup_wait", B, Defined),
    op(0x47, "seqgroup_return", B, Reference),
    op(0x48, "getsrcdatafield", VVV, Reference),
    op(0x49, "seqgroup_trkid", BB, Reference),
    op(0x4A, "setll", VV, Reference),
    op(0x4B, "setlt", VV, Reference),
    op(0x4C, "settl", VV, Reference),
    op(0x4D, "waiteq", VV, Reference),
    op(0x4E, "waitne", VV, Reference),
    op(0x4F, "waitgt", VV, Reference),
    op(0x50, "waitlt", VV, Reference),
    op(0x51, "waitge", VV, Reference),
    op(0x52, "waitle", VV, Reference),
    op(0x53, "duck", NONE, Reference),
    op(0x54, "unduck", NONE, Reference),
    op(0x55, "testx", NONE, Defined),
    op(0x56, "setlg", VD, Reference),
    op(0x57, "setgl", VD, Reference),
    op(0x58, "throw", NONE, Defined),
    op(0x59, "setsrcdatafield", VVV, Reference),
    op(0x5A, "stop_trk", V, Reference),
    op(0x5B, "setchanreg", NONE, Defined),
    op(0x5C, "play_note", NONE, Defined),
    op(0x5D, "stop_note", NONE, Defined),
    op(0x5E, "kill_note", NONE, Defined),
    op(0x5F, "smart_index", VV, Reference),
    op(0x60, "note_on_loop", V, Reference),
];

/// The table row for an opcode byte, or `None` for 0 and anything above 0x60.
pub fn info(opcode: u8) -> Option<&'static OpcodeInfo> {
    match opcode {
        1..=MAX_OPCODE => OPCODES.get(usize::from(opcode) - 1),
        _ => None,
    }
}

static BY_MNEMONIC: LazyLock<HashMap<&'static str, &'static OpcodeInfo>> =
    LazyLock::new(|| OPCODES.iter().map(|info| (info.mnemonic, info)).collect());

/// Looks a mnemonic up, case-insensitively.
pub fn by_mnemonic(mnemonic: &str) -> Option<&'static OpcodeInfo> {
    if mnemonic.bytes().any(|b| b.is_ascii_uppercase()) {
        BY_MNEMONIC
            .get(mnemonic.to_ascii_lowercase().as_str())
            .copied()
    } else {
        BY_MNEMONIC.get(mnemonic).copied()
    }
}

/// Largest variable number a `jump` can jump through. A first operand byte above this
/// is part of a literal address (FreeSO's rule, and the only one that keeps both forms
/// apart).
pub const MAX_JUMP_VAR: u8 = 15;

/// What a decoded `jump` operand means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JumpTarget {
    /// Jump to this absolute address (4-byte operand).
    Address(u32),
    /// Jump to the address held in this variable; the operand takes `len` bytes
    /// (4 for the form the assembler writes, 1 for the short form Niotso describes).
    Var {
        /// Variable number (0–15).
        var: u8,
        /// Operand length in bytes: 1 or 4.
        len: usize,
    },
}

impl JumpTarget {
    /// Operand length in bytes.
    pub fn operand_len(self) -> usize {
        match self {
            JumpTarget::Address(_) => 4,
            JumpTarget::Var { len, .. } => len,
        }
    }
}

/// Decodes a `jump` operand from the bytes after the opcode; `code_len` is the length
/// of the whole `.hit` file.
///
/// The rule reads everything the assembler writes and both forms described in
/// hit-reference §1.2: four bytes that read as an address inside the file (16 ≤ value <
/// `code_len`) are an address; four bytes `[var, 0, 0, 0]` are a jump through `var`
/// (var ≤ 15); otherwise a first byte ≤ 15 is the 1-byte form (var only) and anything
/// else is an address outside the code (the VM faults on it). Returns `None` only when
/// the bytes run out.
pub fn decode_jump(operand: &[u8], code_len: usize) -> Option<JumpTarget> {
    let first = *operand.first()?;
    if let Some(&[b0, b1, b2, b3]) = operand.get(..4) {
        let value = u32::from_le_bytes([b0, b1, b2, b3]);
        if value > u32::from(MAX_JUMP_VAR) && (value as usize) < code_len {
            return Some(JumpTarget::Address(value));
        }
        if value <= u32::from(MAX_JUMP_VAR) {
            return Some(JumpTarget::Var { var: first, len: 4 });
        }
        if first > MAX_JUMP_VAR {
            return Some(JumpTarget::Address(value));
        }
    }
    (first <= MAX_JUMP_VAR).then_some(JumpTarget::Var { var: first, len: 1 })
}

/// One decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction {
    /// The opcode's table row.
    pub info: &'static OpcodeInfo,
    /// Operand values in order (bytes zero-extended; dwords and addresses as stored).
    /// Unused slots are 0.
    pub operands: [u32; 3],
    /// For `jump`: how the operand decoded.
    pub jump: Option<JumpTarget>,
    /// Encoded length in bytes, including the opcode.
    pub len: usize,
}

/// Why bytes did not decode as an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The byte is not one of the 96 opcodes.
    #[error("unknown opcode {0} (0x{0:02x})")]
    UnknownOpcode(u8),
    /// The instruction's operands run past the end of the code.
    #[error("instruction `{0}` is cut off by the end of the code")]
    Truncated(&'static str),
    /// The address is outside the code.
    #[error("address {0} is outside the code")]
    OutOfRange(usize),
}

/// Decodes the instruction at byte offset `pc` of `code` (`code` is the whole `.hit`
/// file, so addresses and `pc` agree).
pub fn decode(code: &[u8], pc: usize) -> Result<Instruction, DecodeError> {
    let opcode = *code.get(pc).ok_or(DecodeError::OutOfRange(pc))?;
    let info = info(opcode).ok_or(DecodeError::UnknownOpcode(opcode))?;
    let mut at = pc + 1;
    let mut operands = [0u32; 3];
    let mut jump = None;
    for (slot, kind) in info.operands.iter().enumerate() {
        let rest = code.get(at..).unwrap_or(&[]);
        let (value, len) = match kind {
            Var | Byte => (
                u32::from(*rest.first().ok_or(DecodeError::Truncated(info.mnemonic))?),
                1,
            ),
            Dword | Addr => {
                let bytes = rest.get(..4).ok_or(DecodeError::Truncated(info.mnemonic))?;
                (
                    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
                    4,
                )
            }
            Jump => {
                let target =
                    decode_jump(rest, code.len()).ok_or(DecodeError::Truncated(info.mnemonic))?;
                jump = Some(target);
                match target {
                    JumpTarget::Address(address) => (address, 4),
                    JumpTarget::Var { var, len } => (u32::from(var), len),
                }
            }
        };
        if let Some(out) = operands.get_mut(slot) {
            *out = value;
        }
        at += len;
    }
    Ok(Instruction {
        info,
        operands,
        jump,
        len: at - pc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_complete_and_ordered() {
        assert_eq!(OPCODES.len(), 96);
        for (index, row) in OPCODES.iter().enumerate() {
            assert_eq!(usize::from(row.opcode), index + 1, "{}", row.mnemonic);
            assert_eq!(by_mnemonic(row.mnemonic), Some(row));
            assert_eq!(by_mnemonic(&row.mnemonic.to_uppercase()), Some(row));
        }
        assert!(info(0).is_none());
        assert!(info(0x61).is_none());
    }

    #[test]
    fn source_listing_numbers_hold() {
        // The original source listing's comment: note_on = 2, wait_samp = 11, end = 12,
        // loop = 32.
        assert_eq!(by_mnemonic("note_on").map(|i| i.opcode), Some(2));
        assert_eq!(by_mnemonic("wait_samp").map(|i| i.opcode), Some(11));
        assert_eq!(by_mnemonic("end").map(|i| i.opcode), Some(12));
        assert_eq!(by_mnemonic("loop").map(|i| i.opcode), Some(32));
    }

    #[test]
    fn jump_forms() {
        let n = 0x200;
        assert_eq!(
            decode_jump(&[0x20, 0, 0, 0], n),
            Some(JumpTarget::Address(0x20))
        );
        assert_eq!(
            decode_jump(&[0x05, 0x01, 0, 0], n),
            Some(JumpTarget::Address(0x105))
        );
        assert_eq!(
            decode_jump(&[0x05, 0, 0, 0], n),
            Some(JumpTarget::Var { var: 5, len: 4 })
        );
        // Short form: v1 followed by the next opcode (`end`), not a plausible address.
        assert_eq!(
            decode_jump(&[0x05, 0x0C, 0x0C, 0x0C], n),
            Some(JumpTarget::Var { var: 5, len: 1 })
        );
        assert_eq!(
            decode_jump(&[0x05], n),
            Some(JumpTarget::Var { var: 5, len: 1 })
        );
        assert_eq!(
            decode_jump(&[0x88, 0x13, 0, 0], n),
            Some(JumpTarget::Address(5000))
        );
        assert_eq!(decode_jump(&[0x40], n), None);
        assert_eq!(decode_jump(&[], n), None);
    }

    #[test]
    fn decode_reports_truncation_and_unknown_opcodes() {
        let code = [0x05, 0x05, 0xE8, 0x03];
        assert_eq!(decode(&code, 0), Err(DecodeError::Truncated("loadl")));
        assert_eq!(decode(&[0x00], 0), Err(DecodeError::UnknownOpcode(0)));
        assert_eq!(decode(&[0x61], 0), Err(DecodeError::UnknownOpcode(0x61)));
        let ok = decode(&[0x05, 0x05, 0xE8, 0x03, 0, 0], 0).map(|i| (i.operands, i.len));
        assert_eq!(ok, Ok(([5, 1000, 0], 6)));
    }
}
