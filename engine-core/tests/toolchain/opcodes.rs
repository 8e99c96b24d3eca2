//! Table-driven: every opcode with known operands assembles to exactly the bytes
//! hit-reference §1.2 gives (opcode number, operand kinds and sizes). The expected bytes
//! are written out by hand from the reference, independently of the assembler's table.

use super::support::code_of;
use engine_core::toolchain::isa::{self, OperandSource};

/// (source line, expected bytes). `top` is a label at address 16 (the first code
/// byte); v1 = 5, v2 = 6, v3 = 7 (hit-reference §1.3).
const REFERENCE: &[(&str, &[u8])] = &[
    ("note_on v1", &[0x02, 5]),
    ("note_off v1", &[0x03, 5]),
    ("loadb v1 -1", &[0x04, 5, 0xFF]),
    ("loadb v1 127", &[0x04, 5, 0x7F]),
    ("loadl v1 #0x11223344", &[0x05, 5, 0x44, 0x33, 0x22, 0x11]),
    ("loadl v1 #-2", &[0x05, 5, 0xFE, 0xFF, 0xFF, 0xFF]),
    ("set v1 v2", &[0x06, 5, 6]),
    ("call @top", &[0x07, 16, 0, 0, 0]),
    ("return", &[0x08]),
    ("wait v1", &[0x09, 5]),
    ("wait_samp", &[0x0B]),
    ("end", &[0x0C]),
    ("jump @top", &[0x0D, 16, 0, 0, 0]),
    ("jump #0x200", &[0x0D, 0, 2, 0, 0]),
    ("jump v1", &[0x0D, 5, 0, 0, 0]),
    ("test v1", &[0x0E, 5]),
    ("nop", &[0x0F]),
    ("add v1 v2", &[0x10, 5, 6]),
    ("sub v1 v2", &[0x11, 5, 6]),
    ("div v1 v2", &[0x12, 5, 6]),
    ("mul v1 v2", &[0x13, 5, 6]),
    ("cmp v1 v2", &[0x14, 5, 6]),
    ("rand v1 v2 v3", &[0x18, 5, 6, 7]),
    ("loop", &[0x20]),
    ("set_loop", &[0x21]),
    ("smart_choose v1", &[0x27, 5]),
    ("max v1 #7", &[0x2D, 5, 7, 0, 0, 0]),
    ("min v1 #-7", &[0x2E, 5, 0xF9, 0xFF, 0xFF, 0xFF]),
    ("inc v1", &[0x2F, 5]),
    ("dec v1", &[0x30, 5]),
    ("play_trk v1", &[0x32, 5]),
    ("kill_trk v1", &[0x33, 5]),
    ("test1", &[0x3A]),
    ("test2", &[0x3B]),
    ("test3", &[0x3C]),
    ("test4", &[0x3D]),
    ("ifeq @top", &[0x3E, 16, 0, 0, 0]),
    ("ifne @top", &[0x3F, 16, 0, 0, 0]),
    ("ifgt @top", &[0x40, 16, 0, 0, 0]),
    ("iflt @top", &[0x41, 16, 0, 0, 0]),
    ("ifge @top", &[0x42, 16, 0, 0, 0]),
    ("ifle @top", &[0x43, 16, 0, 0, 0]),
    ("smart_setlist v1", &[0x44, 5]),
    ("seqgroup_kill Instance", &[0x45, 0]),
    ("seqgroup_kill 1", &[0x45, 1]),
    ("seqgroup_return 3", &[0x47, 3]),
    ("getsrcdatafield v1 arg1 v3", &[0x48, 5, 1, 7]),
    ("seqgroup_trkid 1 2", &[0x49, 1, 2]),
    ("setll v1 v2", &[0x4A, 5, 6]),
    ("setlt v1 v2", &[0x4B, 5, 6]),
    ("settl v1 v2", &[0x4C, 5, 6]),
    ("waiteq v1 v2", &[0x4D, 5, 6]),
    ("waitne v1 v2", &[0x4E, 5, 6]),
    ("waitgt v1 v2", &[0x4F, 5, 6]),
    ("waitlt v1 v2", &[0x50, 5, 6]),
    ("waitge v1 v2", &[0x51, 5, 6]),
    ("waitle v1 v2", &[0x52, 5, 6]),
    ("duck", &[0x53]),
    ("unduck", &[0x54]),
    ("setlg v1 #3", &[0x56, 5, 3, 0, 0, 0]),
    ("setgl v1 #3", &[0x57, 5, 3, 0, 0, 0]),
    ("setsrcdatafield v1 v2 v3", &[0x59, 5, 6, 7]),
    ("stop_trk v1", &[0x5A, 5]),
    ("smart_index v1 v2", &[0x5F, 5, 6]),
    ("note_on_loop v1", &[0x60, 5]),
];

/// Opcodes whose operands the reference leaves unknown; HitBench's definitions
/// (docs/vm.md).
const DEFINED: &[(&str, &[u8])] = &[
    ("note", &[0x01]),
    ("callentrypoint", &[0x0A]),
    ("less v1 v2", &[0x15, 5, 6]),
    ("greater v1 v2", &[0x16, 5, 6]),
    ("not v1", &[0x17, 5]),
    ("abs v1", &[0x19, 5]),
    ("limit v1 #0 #9", &[0x1A, 5, 0, 0, 0, 0, 9, 0, 0, 0]),
    ("error #42", &[0x1B, 42, 0, 0, 0]),
    ("assert v1", &[0x1C, 5]),
    ("add_to_group", &[0x1D]),
    ("remove_from_group", &[0x1E]),
    ("get_var", &[0x1F]),
    ("callback", &[0x22]),
    ("smart_add v1", &[0x23, 5]),
    ("smart_remove v1", &[0x24, 5]),
    ("smart_removeall", &[0x25]),
    ("smart_setcrit", &[0x26]),
    ("and v1 v2", &[0x28, 5, 6]),
    ("nand v1 v2", &[0x29, 5, 6]),
    ("or v1 v2", &[0x2A, 5, 6]),
    ("nor v1 v2", &[0x2B, 5, 6]),
    ("xor v1 v2", &[0x2C, 5, 6]),
    ("printreg v1", &[0x31, 5]),
    ("push v1", &[0x34, 5]),
    ("push_mask", &[0x35]),
    ("push_vars", &[0x36]),
    ("call_mask", &[0x37]),
    ("call_push", &[0x38]),
    ("pop v1", &[0x39, 5]),
    ("seqgroup_wait Instance", &[0x46, 0]),
    ("testx", &[0x55]),
    ("throw", &[0x58]),
    ("setchanreg", &[0x5B]),
    ("play_note", &[0x5C]),
    ("stop_note", &[0x5D]),
    ("kill_note", &[0x5E]),
];

fn check(table: &[(&str, &[u8])]) {
    for (line, expected) in table {
        let source = format!("LAYOUT tso\nBINARY [\ntop\n\t{line}\n]\n");
        assert_eq!(&code_of(&source), expected, "`{line}`");
    }
}

#[test]
fn reference_opcodes_encode_exactly() {
    check(REFERENCE);
}

#[test]
fn defined_opcodes_encode_as_documented() {
    check(DEFINED);
}

#[test]
fn every_opcode_is_covered_once() {
    let mut covered = std::collections::BTreeSet::new();
    for (line, bytes) in REFERENCE.iter().chain(DEFINED) {
        let mnemonic = line.split_whitespace().next().unwrap();
        let info = isa::by_mnemonic(mnemonic).unwrap();
        assert_eq!(bytes[0], info.opcode, "{line}");
        assert_eq!(bytes.len(), info.size(), "{line}: size");
        covered.insert(info.opcode);
        let from_reference = REFERENCE.iter().any(|(l, _)| l == line);
        let expected_source = if from_reference {
            OperandSource::Reference
        } else {
            OperandSource::Defined
        };
        assert_eq!(info.source, expected_source, "{line}");
    }
    assert_eq!(covered.len(), 96);
}

#[test]
fn register_layouts_change_track_register_numbers() {
    // TS1: patch = 0x32, vol = 0x12; TSO: patch = 0x12, vol = 0x14.
    let ts1 = code_of("LAYOUT ts1\nBINARY [\n\tset patch vol\n]\n");
    assert_eq!(ts1, [0x06, 0x32, 0x12]);
    let tso = code_of("LAYOUT tso\nBINARY [\n\tset patch vol\n]\n");
    assert_eq!(tso, [0x06, 0x12, 0x14]);
    // Globals are shared: main_vol = 0x7C in both.
    assert_eq!(code_of("BINARY [\n\ttest main_vol\n]\n"), [0x0E, 0x7C]);
}

#[test]
fn layout_defaults_to_tso_with_an_export_table() {
    let source = "BINARY [\nt\n\tset patch v1\n\t69 78 84 80\n\t#1 #t\n\t69 69 78 84\n]\n";
    let code = code_of(source);
    assert_eq!(&code[..3], &[0x06, 0x12, 0x05]);
    let plain = code_of("BINARY [\n\tset patch v1\n]\n");
    assert_eq!(plain, [0x06, 0x32, 0x05]);
}

#[test]
fn names_are_case_insensitive() {
    assert_eq!(
        code_of("binary [\nTop\n\tNOTE_ON V1\n\tJump @TOP\n]\n"),
        [0x02, 5, 0x0D, 16, 0, 0, 0]
    );
}
