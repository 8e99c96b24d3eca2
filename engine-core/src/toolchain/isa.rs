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
    /// The opcode as a value.
    pub op: Opcode,
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

/// Declares the opcode table once: the [`Opcode`] enum, the [`OPCODES`] rows and the
/// byte → opcode mapping all come from the same lines, so they cannot disagree.
macro_rules! opcode_table {
    ($($code:literal $variant:ident $mnemonic:literal $operands:ident $source:ident;)*) => {
        /// An opcode as a value: what the VM and the tools match on instead of raw bytes.
        /// [`Opcode::Invalid`] stands for bytes that do not decode.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode {
            /// Bytes that are not an instruction (opcode 0, or above 0x60).
            Invalid = 0,
            $(
                #[doc = concat!("`", $mnemonic, "`")]
                $variant = $code,
            )*
        }

        impl Opcode {
            /// The opcode of a byte ([`Opcode::Invalid`] for 0 and anything above 0x60).
            pub const fn from_byte(byte: u8) -> Self {
                match byte {
                    $($code => Opcode::$variant,)*
                    _ => Opcode::Invalid,
                }
            }
        }

        /// All 96 opcodes, indexed by `opcode - 1`.
        pub static OPCODES: [OpcodeInfo; 96] = [
            $(OpcodeInfo {
                opcode: $code,
                op: Opcode::$variant,
                mnemonic: $mnemonic,
                operands: $operands,
                source: $source,
            },)*
        ];
    };
}

opcode_table! {
    0x01 Note "note" NONE Defined;
    0x02 NoteOn "note_on" V Reference;
    0x03 NoteOff "note_off" V Reference;
    0x04 Loadb "loadb" VB Reference;
    0x05 Loadl "loadl" VD Reference;
    0x06 Set "set" VV Reference;
    0x07 Call "call" A Reference;
    0x08 Return "return" NONE Reference;
    0x09 Wait "wait" V Reference;
    0x0A Callentrypoint "callentrypoint" NONE Defined;
    0x0B WaitSamp "wait_samp" NONE Reference;
    0x0C End "end" NONE Reference;
    0x0D Jump "jump" J Reference;
    0x0E Test "test" V Reference;
    0x0F Nop "nop" NONE Reference;
    0x10 Add "add" VV Reference;
    0x11 Sub "sub" VV Reference;
    0x12 Div "div" VV Reference;
    0x13 Mul "mul" VV Reference;
    0x14 Cmp "cmp" VV Reference;
    0x15 Less "less" VV Defined;
    0x16 Greater "greater" VV Defined;
    0x17 Not "not" V Defined;
    0x18 Rand "rand" VVV Reference;
    0x19 Abs "abs" V Defined;
    0x1A Limit "limit" VDD Defined;
    0x1B Error "error" D Defined;
    0x1C Assert "assert" V Defined;
    0x1D AddToGroup "add_to_group" NONE Defined;
    0x1E RemoveFromGroup "remove_from_group" NONE Defined;
    0x1F GetVar "get_var" NONE Defined;
    0x20 Loop "loop" NONE Reference;
    0x21 SetLoop "set_loop" NONE Reference;
    0x22 Callback "callback" NONE Defined;
    0x23 SmartAdd "smart_add" V Defined;
    0x24 SmartRemove "smart_remove" V Defined;
    0x25 SmartRemoveall "smart_removeall" NONE Defined;
    0x26 SmartSetcrit "smart_setcrit" NONE Defined;
    0x27 SmartChoose "smart_choose" V Reference;
    0x28 And "and" VV Defined;
    0x29 Nand "nand" VV Defined;
    0x2A Or "or" VV Defined;
    0x2B Nor "nor" VV Defined;
    0x2C Xor "xor" VV Defined;
    0x2D Max "max" VD Reference;
    0x2E Min "min" VD Reference;
    0x2F Inc "inc" V Reference;
    0x30 Dec "dec" V Reference;
    0x31 Printreg "printreg" V Defined;
    0x32 PlayTrk "play_trk" V Reference;
    0x33 KillTrk "kill_trk" V Reference;
    0x34 Push "push" V Defined;
    0x35 PushMask "push_mask" NONE Defined;
    0x36 PushVars "push_vars" NONE Defined;
    0x37 CallMask "call_mask" NONE Defined;
    0x38 CallPush "call_push" NONE Defined;
    0x39 Pop "pop" V Defined;
    0x3A Test1 "test1" NONE Reference;
    0x3B Test2 "test2" NONE Reference;
    0x3C Test3 "test3" NONE Reference;
    0x3D Test4 "test4" NONE Reference;
    0x3E Ifeq "ifeq" A Reference;
    0x3F Ifne "ifne" A Reference;
    0x40 Ifgt "ifgt" A Reference;
    0x41 Iflt "iflt" A Reference;
    0x42 Ifge "ifge" A Reference;
    0x43 Ifle "ifle" A Reference;
    0x44 SmartSetlist "smart_setlist" V Reference;
    0x45 SeqgroupKill "seqgroup_kill" B Reference;
    0x46 SeqgroupWait "seqgroup_wait" B Defined;
    0x47 SeqgroupReturn "seqgroup_return" B Reference;
    0x48 Getsrcdatafield "getsrcdatafield" VVV Reference;
    0x49 SeqgroupTrkid "seqgroup_trkid" BB Reference;
    0x4A Setll "setll" VV Reference;
    0x4B Setlt "setlt" VV Reference;
    0x4C Settl "settl" VV Reference;
    0x4D Waiteq "waiteq" VV Reference;
    0x4E Waitne "waitne" VV Reference;
    0x4F Waitgt "waitgt" VV Reference;
    0x50 Waitlt "waitlt" VV Reference;
    0x51 Waitge "waitge" VV Reference;
    0x52 Waitle "waitle" VV Reference;
    0x53 Duck "duck" NONE Reference;
    0x54 Unduck "unduck" NONE Reference;
    0x55 Testx "testx" NONE Defined;
    0x56 Setlg "setlg" VD Reference;
    0x57 Setgl "setgl" VD Reference;
    0x58 Throw "throw" NONE Defined;
    0x59 Setsrcdatafield "setsrcdatafield" VVV Reference;
    0x5A StopTrk "stop_trk" V Reference;
    0x5B Setchanreg "setchanreg" NONE Defined;
    0x5C PlayNote "play_note" NONE Defined;
    0x5D StopNote "stop_note" NONE Defined;
    0x5E KillNote "kill_note" NONE Defined;
    0x5F SmartIndex "smart_index" VV Reference;
    0x60 NoteOnLoop "note_on_loop" V Reference;
}

impl Opcode {
    /// The opcode byte.
    pub const fn byte(self) -> u8 {
        self as u8
    }

    /// The table row (`None` for [`Opcode::Invalid`]).
    pub fn info(self) -> Option<&'static OpcodeInfo> {
        info(self.byte())
    }

    /// The mnemonic (`"?"` for [`Opcode::Invalid`]).
    pub fn mnemonic(self) -> &'static str {
        self.info().map_or("?", |i| i.mnemonic)
    }

    /// True for the opcodes whose 4-byte operand is a code address: `call`, `jump` and
    /// the six conditional branches.
    pub const fn is_branch(self) -> bool {
        matches!(
            self,
            Opcode::Call
                | Opcode::Jump
                | Opcode::Ifeq
                | Opcode::Ifne
                | Opcode::Ifgt
                | Opcode::Iflt
                | Opcode::Ifge
                | Opcode::Ifle
        )
    }

    /// True for the instructions after which a thread may not go on in the same tick
    /// (`wait`, `wait_samp`, `note_on_loop`, the wait comparisons, `seqgroup_wait`).
    pub const fn may_yield(self) -> bool {
        matches!(
            self,
            Opcode::Wait
                | Opcode::WaitSamp
                | Opcode::NoteOnLoop
                | Opcode::Waiteq
                | Opcode::Waitne
                | Opcode::Waitgt
                | Opcode::Waitlt
                | Opcode::Waitge
                | Opcode::Waitle
                | Opcode::SeqgroupWait
        )
    }
}

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
            assert_eq!(row.op.byte(), row.opcode);
            assert_eq!(Opcode::from_byte(row.opcode), row.op);
            assert_eq!(row.op.mnemonic(), row.mnemonic);
            assert_eq!(by_mnemonic(row.mnemonic), Some(row));
            assert_eq!(by_mnemonic(&row.mnemonic.to_uppercase()), Some(row));
        }
        assert!(info(0).is_none());
        assert!(info(0x61).is_none());
        assert_eq!(Opcode::from_byte(0), Opcode::Invalid);
        assert_eq!(Opcode::from_byte(0x61), Opcode::Invalid);
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
