//! The five track examples of the seed's appendix assemble without errors, with the
//! labels and instruction sequences the document shows.

use engine_core::toolchain::asm::{AsmOptions, Assembly, DiskFiles, SymbolKind, assemble};
use engine_core::toolchain::isa;
use std::path::Path;

fn seed_examples() -> Assembly {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/seed-examples/seed_tracks.src");
    let options = AsmOptions::default();
    assemble(&path, &options, &DiskFiles::for_source(&path, &options))
}

fn label(a: &Assembly, name: &str) -> usize {
    a.symbols
        .iter()
        .find(|s| s.kind == SymbolKind::Label && s.name == name)
        .map(|s| s.value as usize)
        .unwrap_or_else(|| panic!("no label {name}"))
}

/// The mnemonics from `start` up to and including the first `end`/`loop`/`jump`.
fn mnemonics_from(a: &Assembly, start: usize) -> Vec<&'static str> {
    let bytes = a.hit.bytes();
    let mut pc = start;
    let mut out = Vec::new();
    loop {
        let instr = isa::decode(bytes, pc).expect("decodes");
        out.push(instr.info.mnemonic);
        pc += instr.len;
        if matches!(instr.info.mnemonic, "end" | "loop" | "jump") {
            return out;
        }
    }
}

#[test]
fn all_five_assemble_without_errors_or_warnings() {
    let a = seed_examples();
    assert!(a.diagnostics.is_empty(), "{:#?}", a.diagnostics);
    for name in [
        "tv_repair_deathwarning",
        "comeseeme_like_vox",
        "PlayPiano",
        "med_cab_brush_teeth_vox",
        "vox_baby_cry_windup",
        "generic_fm_smartlists",
    ] {
        label(&a, name);
    }
}

#[test]
fn instruction_sequences_match_the_document() {
    let a = seed_examples();
    assert_eq!(
        mnemonics_from(&a, label(&a, "tv_repair_deathwarning")),
        ["loadl", "loadb", "rand", "loadl", "cmp", "iflt", "end"]
    );
    assert_eq!(
        mnemonics_from(&a, label(&a, "PlayPiano")),
        [
            "loadb",
            "getsrcdatafield",
            "loadb",
            "div",
            "loadl",
            "add",
            "smart_setlist",
            "smart_choose",
            "set",
            "note_on",
            "wait_samp",
            "loop"
        ]
    );
    assert_eq!(
        mnemonics_from(&a, label(&a, "vox_baby_cry_windup")),
        [
            "seqgroup_kill",
            "set_loop",
            "loadl",
            "smart_setlist",
            "smart_choose",
            "set",
            "note_on",
            "wait_samp",
            "loadl",
            "loadb",
            "rand",
            "loadl",
            "cmp",
            "iflt",
            "loop"
        ]
    );
    assert_eq!(
        mnemonics_from(&a, label(&a, "comeseeme_like_vox")),
        ["loadl", "loadl", "loadl", "jump"]
    );
}

#[test]
fn debug_info_points_at_the_source_lines() {
    let a = seed_examples();
    let at = label(&a, "PlayPiano") as u32;
    let location = a.hdb.locate(at).expect("located");
    assert!(
        location.file.ends_with("seed_tracks.src"),
        "{}",
        location.file
    );
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/seed-examples/seed_tracks.src"),
    )
    .unwrap();
    let line = text.lines().nth(location.line as usize - 1).unwrap();
    assert!(line.contains("loadb v7 5"), "{line}");
    let generic = a
        .hdb
        .locate(label(&a, "generic_fm_smartlists") as u32)
        .unwrap();
    assert!(generic.file.ends_with("generic.src"));
}
