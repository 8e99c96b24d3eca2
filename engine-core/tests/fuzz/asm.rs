//! The MakeTrax source target: generated sources with every directive (`INCLUDE` chains,
//! ladders and cycles, `LIST` lines, `BINARY` blocks, `DEFINE`, `EXTERN`, `LAYOUT`,
//! `BASEID_TRACKDATA`, `SYMBOLFILE`, `INIFILE`), instructions with right and wrong
//! operands, data lines and export tables, then mutated. Each case assembles it from
//! memory and writes every output.

use crate::harness::{Input, MIB, MemoryBound, Target};
use crate::mutate::{self, NUMBERS};
use crate::words::{BUILTINS, name};
use engine_core::toolchain::asm::{AsmOptions, Assembly, MemoryFiles, assemble_text};
use engine_core::toolchain::disasm::{DisasmOptions, disassemble};
use engine_core::toolchain::isa::{OPCODES, OperandKind};
use engine_core::toolchain::registers::{self, Layout};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use std::path::Path;
use std::time::Duration;

/// Memory bound: tokens, symbols, diagnostics and every output for each source line
/// read, each file read once.
pub const MEMORY: MemoryBound = MemoryBound {
    per_byte: 256,
    per_line: 2048,
    fixed: 32 * MIB,
};
/// Time limit of one case (debug build).
pub const TIME: Duration = Duration::from_secs(10);

/// Mutations per file.
const MUTATIONS: usize = 3;

/// One generated source line.
#[derive(Debug, Clone)]
pub enum Line {
    /// A label (`lbl_n`, or a name).
    Label(String),
    /// An instruction; `picks` choose its operands.
    Instr { opcode: usize, picks: [u32; 3] },
    /// A data line.
    Data(Vec<u32>),
    /// A directive or another line, written as is.
    Text(String),
}

fn label_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u8..10).prop_map(|i| format!("lbl_{i}")),
        2 => (0u8..6).prop_map(|i| format!("event_{i}")),
        1 => (0u8..4).prop_map(|i| format!("_local_{i}")),
        1 => name(),
    ]
}

/// A directive line, as written.
fn directive(includes: usize) -> impl Strategy<Value = String> {
    let include_name = prop_oneof![
        6 => (0..includes.max(1)).prop_map(|i| format!("inc_{i}.src")),
        1 => Just("main.src".to_string()),
        1 => Just("ladder_0.src".to_string()),
        1 => Just("missing.src".to_string()),
        1 => Just("\"inc_0.src\"".to_string()),
        1 => Just("sub/../inc_0.src".to_string()),
        1 => Just("INC_0.SRC".to_string()),
        1 => Just(String::new()),
    ];
    let layout = prop_oneof![Just("ts1"), Just("tso"), Just("TSO"), Just("ts2")];
    prop_oneof![
        4 => include_name.prop_map(|n| format!("INCLUDE {n}")),
        4 => (
            proptest::sample::select(&["Track", "Patch", "EventMapping", "GlobalHitList", "TrackData", "EventMappingEquate", ""][..]),
            crate::words::id(),
            crate::words::id(),
        )
            .prop_map(|(s, k, v)| format!("LIST [{s}] {k}={v}")),
        2 => (name(), prop_oneof![crate::words::number(), name()]).prop_map(|(n, v)| format!("DEFINE {n} {v}")),
        2 => proptest::collection::vec(name(), 0..3).prop_map(|n| format!("EXTERN {}", n.join(" "))),
        1 => layout.prop_map(|l| format!("LAYOUT {l}")),
        1 => crate::words::number().prop_map(|n| format!("BASEID_TRACKDATA {n}")),
        1 => Just("SYMBOLFILE x.hsm".to_string()),
        1 => Just("INIFILE x.ini".to_string()),
        1 => Just("SYMBOLFILE missing.hsm".to_string()),
    ]
}

fn line(includes: usize) -> impl Strategy<Value = Line> {
    prop_oneof![
        3 => label_name().prop_map(Line::Label),
        12 => (0..OPCODES.len(), any::<[u32; 3]>())
            .prop_map(|(opcode, picks)| Line::Instr { opcode, picks }),
        1 => proptest::collection::vec(any::<u32>(), 1..6).prop_map(Line::Data),
        1 => Just(Line::Text("\t69 78 84 80\n\t#1 #lbl_0\n\t#2 @lbl_1\n\t69 69 78 84".to_string())),
        2 => directive(includes).prop_map(Line::Text),
        1 => prop_oneof![
            Just("; comment".to_string()),
            Just("# comment".to_string()),
            Just("BINARY [".to_string()),
            Just("]".to_string()),
            Just("[".to_string()),
            Just(String::new()),
        ]
        .prop_map(Line::Text),
    ]
}

/// An operand of `kind` as text: right, or (unless `clean`) now and then a wrong kind or
/// a bad value.
fn operand_text(kind: OperandKind, pick: u32, layout: Layout, clean: bool) -> String {
    let names: Vec<&str> = registers::all(layout).map(|(_, n)| n).collect();
    let label = |p: u32| format!("lbl_{}", p % 10);
    if pick.is_multiple_of(23) && !clean {
        return match pick % 7 {
            0 => NUMBERS[(pick as usize / 7) % NUMBERS.len()].to_string(),
            1 => format!("#{}", NUMBERS[(pick as usize / 7) % NUMBERS.len()]),
            2 => format!("@{}", BUILTINS[(pick as usize / 7) % BUILTINS.len()]),
            3 => "#".to_string(),
            4 => "@".to_string(),
            5 => format!("#ext_{}", pick % 3),
            _ => format!("event_{}", pick % 6),
        };
    }
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
            2 => format!("#{}", label(pick / 4)),
            _ => format!("#0x{:x}", pick / 4),
        },
        OperandKind::Addr => match pick % 3 {
            0 => format!("@{}", label(pick / 3)),
            1 => format!("@event_{}", pick % 6),
            _ => format!("#{}", pick / 3),
        },
        OperandKind::Jump => match pick % 3 {
            0 => format!("@{}", label(pick / 3)),
            1 => ["arg0", "v1", "v2", "v8", "h3"][pick as usize % 5].to_string(),
            _ => format!("#{}", pick / 3),
        },
    }
}

/// Writes lines as source text (with `sep` between operands).
pub fn render(lines: &[Line], layout: Layout, sep: &str, clean: bool) -> String {
    let mut out = String::new();
    for line in lines {
        match line {
            Line::Label(name) => out.push_str(name),
            Line::Instr { opcode, picks } => {
                let info = &OPCODES[*opcode];
                out.push('\t');
                out.push_str(info.mnemonic);
                for (kind, pick) in info.operands.iter().zip(picks) {
                    out.push_str(sep);
                    out.push_str(&operand_text(*kind, *pick, layout, clean));
                }
            }
            Line::Data(values) => {
                out.push('\t');
                let tokens: Vec<String> = values
                    .iter()
                    .map(|v| match v % 2 {
                        0 => (v % 256).to_string(),
                        _ => format!("#{v}"),
                    })
                    .collect();
                out.push_str(&tokens.join(" "));
            }
            Line::Text(text) => out.push_str(text),
        }
        out.push('\n');
    }
    out
}

/// A whole source file: a few directives, then one or more `BINARY` blocks.
pub fn source(includes: usize, max_lines: usize) -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(directive(includes), 0..4),
        proptest::collection::vec(
            proptest::collection::vec(line(includes), 0..max_lines),
            1..3,
        ),
        prop_oneof![Just(Layout::Ts1), Just(Layout::Tso)],
        prop_oneof![4 => Just(" "), 1 => Just("\t")],
        any::<bool>(),
    )
        .prop_map(|(head, blocks, layout, sep, externs)| {
            let mut out = String::new();
            if externs {
                out.push_str("EXTERN ext_0 ext_1 ext_2\n");
            }
            for d in head {
                out.push_str(&d);
                out.push('\n');
            }
            for block in blocks {
                out.push_str("BINARY [\n");
                out.push_str(&render(&block, layout, sep, false));
                out.push_str("]\n");
            }
            out
        })
}

/// A source that assembles without a diagnostic: the layout declared, every label the
/// operands name (`lbl_0`…`lbl_9`, `event_0`…`event_5`) defined once, only instructions
/// with right operands and data lines.
pub fn clean_source(max_lines: usize) -> impl Strategy<Value = String> {
    let line = prop_oneof![
        12 => (0..OPCODES.len(), any::<[u32; 3]>())
            .prop_map(|(opcode, picks)| Line::Instr { opcode, picks }),
        1 => proptest::collection::vec(any::<u32>(), 1..6).prop_map(Line::Data),
    ];
    (
        proptest::collection::vec(line, 0..max_lines),
        proptest::collection::vec(any::<u16>(), 16),
        prop_oneof![Just(Layout::Ts1), Just(Layout::Tso)],
    )
        .prop_map(|(mut lines, spots, layout)| {
            let labels = (0..10)
                .map(|i| format!("lbl_{i}"))
                .chain((0..6).map(|i| format!("event_{i}")));
            for (label, spot) in labels.zip(spots) {
                let at = usize::from(spot) % (lines.len() + 1);
                lines.insert(at, Line::Label(label));
            }
            format!(
                "LAYOUT {layout}\nBINARY [\n{}\tend\n]\n",
                render(&lines, layout, " ", true)
            )
        })
}

/// Files that each include the next `fanout` times, `depth` deep: the work a reader
/// does without remembering what it already read doubles per level.
pub fn ladder(depth: usize, fanout: usize) -> Vec<(String, Vec<u8>)> {
    (0..=depth)
        .map(|level| {
            let mut text = format!("; ladder level {level}\n");
            if level < depth {
                for _ in 0..fanout {
                    text.push_str(&format!("INCLUDE ladder_{}.src\n", level + 1));
                }
            } else {
                text.push_str("BINARY [\nladder_end\n\tend\n]\n");
            }
            (format!("ladder_{level}.src"), text.into_bytes())
        })
        .collect()
}

/// Depth and fan-out of a ladder: mostly none or shallow, sometimes deep.
pub fn ladder_shape() -> impl Strategy<Value = (usize, usize)> {
    prop_oneof![
        6 => Just((0usize, 0usize)),
        3 => (1usize..6, 1usize..3),
        1 => (6usize..=24, 2usize..=3),
    ]
}

fn strategy() -> BoxedStrategy<Input> {
    let main = prop_oneof![3 => source(3, 40), 1 => clean_source(40)];
    (
        mutate::mutated(main.prop_map(String::into_bytes), MUTATIONS),
        proptest::collection::vec(
            mutate::mutated(source(3, 12).prop_map(String::into_bytes), MUTATIONS),
            0..3,
        ),
        ladder_shape(),
        "([a-z_]{1,6} [0-9]{1,4}\n){0,4}",
    )
        .prop_map(|(main, includes, (depth, fanout), hsm)| {
            let mut input = Input::single("main.src", main);
            for (i, text) in includes.into_iter().enumerate() {
                input.files.push((format!("inc_{i}.src"), text));
            }
            if fanout > 0 {
                input.files.extend(ladder(depth, fanout));
            }
            input
                .files
                .push(("x.hsm".to_string(), hsm.clone().into_bytes()));
            input.files.push((
                "x.ini".to_string(),
                format!("[EventMappingEquate]\n{}", hsm.replace(' ', "=")).into_bytes(),
            ));
            input
        })
        .boxed()
}

/// Every output of an assembly, written (what `hitbench asm` and the loader do).
pub fn use_assembly(a: &Assembly) {
    let hsm = a.hsm();
    let _ = hsm.to_text();
    let _ = a.hot().to_bytes();
    let _ = a.hot_in_source_order();
    let _ = a.hdb.to_text();
    let _ = a.sym.to_text();
    let _ = disassemble(&a.hit, Some(&hsm), Some(&a.hdb), DisasmOptions::default());
}

fn run(input: &Input) -> Result<(), String> {
    let mut files = MemoryFiles::default();
    for (name, bytes) in &input.files {
        files.insert(name, bytes.clone());
    }
    let text = String::from_utf8_lossy(input.get("main.src").unwrap_or_default()).into_owned();
    let a = assemble_text(Path::new("main.src"), &text, &AsmOptions::default(), &files);
    use_assembly(&a);
    Ok(())
}

/// MakeTrax source.
pub const TARGET: Target = Target {
    name: "asm",
    about: "MakeTrax source (with includes) into assemble_text and every output",
    cases: 1500,
    memory: MEMORY,
    time: TIME,
    strategy,
    run,
};
