//! Property tests: assemble → disassemble → assemble is byte-identical for generated
//! sources; disassembling arbitrary code reassembles to the same bytes; random token
//! soup never panics the assembler or any parser.

use super::support::assemble_with;
use engine_core::toolchain::asm::{AsmOptions, MemoryFiles, assemble_text};
use engine_core::toolchain::disasm::{DisasmOptions, disassemble};
use engine_core::toolchain::formats::hit::HitFile;
use engine_core::toolchain::formats::{evt, fsc, hdb, hitlist, hot, hsm, sym};
use engine_core::toolchain::isa::{OPCODES, OperandKind};
use engine_core::toolchain::registers::{self, Layout};
use proptest::prelude::*;
use std::path::Path;

/// One generated statement: a label, an instruction or a data line, with the random
/// numbers that choose its operands.
#[derive(Debug, Clone)]
enum Stmt {
    Label,
    Instr { opcode: usize, picks: [u32; 3] },
    Data(Vec<u32>),
}

fn stmt() -> impl Strategy<Value = Stmt> {
    prop_oneof![
        1 => Just(Stmt::Label),
        8 => (0..OPCODES.len(), any::<[u32; 3]>())
            .prop_map(|(opcode, picks)| Stmt::Instr { opcode, picks }),
        1 => proptest::collection::vec(any::<u32>(), 1..6).prop_map(Stmt::Data),
    ]
}

fn operand_text(kind: OperandKind, pick: u32, labels: usize, layout: Layout) -> String {
    let names: Vec<&str> = registers::all(layout).map(|(_, n)| n).collect();
    let label = |p: u32| format!("lbl_{}", p as usize % labels.max(1));
    match kind {
        OperandKind::Var => match pick % 3 {
            0 => (pick % 256).to_string(),
            _ => names[pick as usize % names.len()].to_string(),
        },
        OperandKind::Byte => match pick % 3 {
            0 => ((pick % 384) as i64 - 128).to_string(),
            1 => "Instance".to_string(),
            _ => "kGroupVox".to_string(),
        },
        OperandKind::Dword => match pick % 4 {
            0 => format!("#{}", pick as i32),
            1 => format!("#{pick}"),
            2 if labels > 0 => format!("#{}", label(pick / 4)),
            _ => format!("#0x{:x}", pick / 4),
        },
        OperandKind::Addr => match pick % 2 {
            0 if labels > 0 => format!("@{}", label(pick / 2)),
            _ => format!("#{}", pick / 2),
        },
        OperandKind::Jump => match pick % 3 {
            0 if labels > 0 => format!("@{}", label(pick / 3)),
            1 => ["arg0", "v1", "v2", "v8", "h3"][pick as usize % 5].to_string(),
            _ => format!("#{}", pick / 3),
        },
    }
}

fn render(stmts: &[Stmt], layout: Layout) -> String {
    let labels = stmts.iter().filter(|s| matches!(s, Stmt::Label)).count();
    let mut out = format!("LAYOUT {layout}\nBINARY [\n");
    let mut next_label = 0;
    for stmt in stmts {
        match stmt {
            Stmt::Label => {
                out.push_str(&format!("lbl_{next_label}\n"));
                next_label += 1;
            }
            Stmt::Instr { opcode, picks } => {
                let info = &OPCODES[*opcode];
                out.push('\t');
                out.push_str(info.mnemonic);
                for (kind, pick) in info.operands.iter().zip(picks) {
                    out.push(' ');
                    out.push_str(&operand_text(*kind, *pick, labels, layout));
                }
                out.push('\n');
            }
            Stmt::Data(values) => {
                out.push('\t');
                let tokens: Vec<String> = values
                    .iter()
                    .map(|v| match v % 2 {
                        0 => (v % 256).to_string(),
                        _ => format!("#{v}"),
                    })
                    .collect();
                out.push_str(&tokens.join(" "));
                out.push('\n');
            }
        }
    }
    out.push_str("]\n");
    out
}

fn assemble_clean(source: &str) -> Vec<u8> {
    let a = assemble_with(source, &MemoryFiles::default());
    assert!(
        a.diagnostics.is_empty(),
        "{:#?}\n---\n{source}",
        a.diagnostics
    );
    a.hit.into_bytes()
}

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![Just(Layout::Ts1), Just(Layout::Tso)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn assemble_disassemble_assemble_is_identical(
        stmts in proptest::collection::vec(stmt(), 0..60),
        layout in layout(),
        with_debug in any::<bool>(),
    ) {
        let source = render(&stmts, layout);
        let a = assemble_with(&source, &MemoryFiles::default());
        prop_assert!(a.diagnostics.is_empty(), "{:#?}\n---\n{}", a.diagnostics, source);
        let debug = with_debug.then_some(&a.hdb);
        let text = disassemble(&a.hit, None, debug, DisasmOptions::default());
        let again = assemble_clean(&text);
        prop_assert_eq!(again, a.hit.bytes().to_vec(), "source:\n{}\ndisassembly:\n{}", source, text);
    }

    #[test]
    fn arbitrary_code_disassembles_to_source_that_reassembles(
        code in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let hit = HitFile::from_code(&code);
        let text = disassemble(&hit, None, None, DisasmOptions::default());
        prop_assert_eq!(assemble_clean(&text), hit.bytes().to_vec());
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_readers(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(hit) = HitFile::from_bytes(bytes.clone()) {
            let _ = disassemble(&hit, None, None, DisasmOptions::default());
        }
        let text = String::from_utf8_lossy(&bytes);
        let path = Path::new("fuzz");
        let _ = hot::HotDocument::parse(&bytes);
        let _ = hsm::HsmFile::parse(&text, path);
        let _ = evt::EvtFile::parse(&text, path);
        let _ = hitlist::HitList::from_bytes(&bytes);
        let _ = fsc::FscScore::parse(&text, path);
        let _ = sym::SymFile::parse(&text, path);
        let _ = hdb::HdbFile::parse(&text, path);
    }

    #[test]
    fn token_soup_never_panics_the_assembler(
        tokens in proptest::collection::vec(
            prop_oneof![
                Just("BINARY"), Just("["), Just("]"), Just("\n"), Just("\n\t"), Just(" "),
                Just("INCLUDE self.src"), Just("INCLUDE other.src"), Just("SYMBOLFILE x.hsm"),
                Just("INIFILE x.ini"), Just("LIST [Track] 1=2"), Just("LIST"), Just("DEFINE"),
                Just("EXTERN"), Just("LAYOUT"), Just("ts1"), Just("BASEID_TRACKDATA 5"),
                Just("note_on"), Just("jump"), Just("loadl"), Just("v1"), Just("patch"),
                Just("#"), Just("#12"), Just("#lbl"), Just("@"), Just("@lbl"), Just("lbl"),
                Just("0x"), Just("-"), Just("99999999999999999999"), Just(";"), Just("# c"),
                Just("69 78 84 80"), Just("69 69 78 84"), Just("\r\n"), Just("é"), Just("\u{0}"),
                Just("\u{feff}"), Just("\""), Just(","), Just("=")
            ],
            0..80,
        ),
        raw in "\\PC{0,80}",
    ) {
        let soup: String = tokens.concat();
        let mut files = MemoryFiles::default();
        files.insert("self.src", soup.clone());
        files.insert("other.src", raw.clone());
        files.insert("x.hsm", raw.clone());
        files.insert("x.ini", soup.clone());
        for text in [&soup, &raw] {
            let a = assemble_text(Path::new("self.src"), text, &AsmOptions::default(), &files);
            let _ = a.hsm().to_text();
            let _ = a.hot().to_bytes();
            let _ = disassemble(&a.hit, None, Some(&a.hdb), DisasmOptions::default());
        }
    }
}

#[test]
fn seed_examples_disassemble_and_reassemble() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/seed-examples");
    let source = root.join("seed_tracks.src");
    let options = AsmOptions::default();
    let a = engine_core::toolchain::asm::assemble(
        &source,
        &options,
        &engine_core::toolchain::asm::DiskFiles::for_source(&source, &options),
    );
    assert!(!a.has_errors(), "{:#?}", a.diagnostics);
    let hsm_text = a.hsm().to_text();
    let (hsm_file, _) = hsm::HsmFile::parse(&hsm_text, Path::new("seed.hsm"));
    for (hsm, hdb) in [(None, None), (Some(&hsm_file), None), (None, Some(&a.hdb))] {
        let text = disassemble(&a.hit, hsm, hdb, DisasmOptions::default());
        if hsm.is_some() || hdb.is_some() {
            assert!(text.contains("\nPlayPiano\n"), "{text}");
            assert!(text.contains("jump @generic_fm_smartlists"), "{text}");
        }
        assert_eq!(assemble_clean(&text), a.hit.bytes().to_vec());
    }
}
