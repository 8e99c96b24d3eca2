//! The disassembler: `.hit` (plus `.hsm` and `.hdb` when present) → MakeTrax source that
//! reassembles to a byte-identical `.hit`.
//!
//! A linear sweep decodes instructions from offset 16; bytes that do not decode (and the
//! `ENTP … EENT` export table) are written as raw data lines. Labels come from the
//! `.hdb`, else the `.hsm`, else the export table (`trk_<id>`), else are synthesized
//! (`loc_<hex>`) for every branch target.

use crate::toolchain::formats::hdb::HdbFile;
use crate::toolchain::formats::hit::{EntryTable, HEADER_LEN, HitFile};
use crate::toolchain::formats::hsm::HsmFile;
use crate::toolchain::formats::sym::SymFile;
use crate::toolchain::formats::text::is_identifier;
use crate::toolchain::isa::{self, Instruction, JumpTarget, OperandKind};
use crate::toolchain::registers::{self, Layout};
use crate::toolchain::symbols;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

/// How to disassemble.
#[derive(Debug, Clone, Copy, Default)]
pub struct DisasmOptions {
    /// Register layout for variable names; `None`: TSO if the file has an export
    /// table, else TS1.
    pub layout: Option<Layout>,
}

/// What the sweep found at an address.
enum Piece {
    Instr(Instruction),
    Raw(u8),
    Table,
}

/// Disassembles `hit` into MakeTrax source. `hsm` and `hdb` supply label names.
pub fn disassemble(
    hit: &HitFile,
    hsm: Option<&HsmFile>,
    hdb: Option<&HdbFile>,
    options: DisasmOptions,
) -> String {
    disassemble_linked(hit, hsm, hdb, None, options)
}

/// [`disassemble`] with the unit's `.sym`: each late-bound import is written back as
/// its name (`#name` or `@name`, declared `EXTERN`), not as the zero the `.hit` holds, so
/// the source reassembles to the same `.hit` *and* the same imports.
pub fn disassemble_linked(
    hit: &HitFile,
    hsm: Option<&HsmFile>,
    hdb: Option<&HdbFile>,
    sym: Option<&SymFile>,
    options: DisasmOptions,
) -> String {
    let bytes = hit.bytes();
    let table = hit.entry_table();
    let layout = options.layout.unwrap_or(if table.is_some() {
        Layout::Tso
    } else {
        Layout::Ts1
    });
    let pieces = sweep(bytes, table);
    let labels = name_labels(bytes.len(), &pieces, table, hsm, hdb, layout);
    let mut out = String::with_capacity(bytes.len() * 12);
    let _ = writeln!(
        out,
        "; {} bytes of HIT code",
        bytes.len().saturating_sub(HEADER_LEN)
    );
    let _ = writeln!(out, "LAYOUT {layout}");
    let imports: BTreeMap<u32, &str> = sym
        .map(|s| {
            s.imports
                .iter()
                .filter(|i| is_identifier(&i.name))
                .map(|i| (i.offset, i.name.as_str()))
                .collect()
        })
        .unwrap_or_default();
    let mut declared: Vec<&str> = Vec::new();
    for name in imports.values() {
        if !declared.iter().any(|d| d.eq_ignore_ascii_case(name)) {
            declared.push(name);
        }
    }
    for chunk in declared.chunks(8) {
        let _ = writeln!(out, "EXTERN {}", chunk.join(" "));
    }
    out.push_str("BINARY [\n");
    let mut raw: Vec<u8> = Vec::new();
    for (&address, piece) in &pieces {
        if let Some(names) = labels.get(&address) {
            flush_raw(&mut out, &mut raw);
            for name in names {
                let _ = writeln!(out, "{name}");
            }
        }
        match piece {
            Piece::Raw(byte) => {
                raw.push(*byte);
                if raw.len() == 16 {
                    flush_raw(&mut out, &mut raw);
                }
            }
            Piece::Instr(instr) => {
                flush_raw(&mut out, &mut raw);
                write_instruction(&mut out, address, instr, layout, &labels, &imports);
            }
            Piece::Table => {
                flush_raw(&mut out, &mut raw);
                if let Some(table) = table {
                    write_table(&mut out, table, &labels);
                }
            }
        }
    }
    flush_raw(&mut out, &mut raw);
    out.push_str("]\n");
    out
}

/// Decodes from the header to the end; an instruction may not run into the export
/// table, and the short 1-byte `jump` form (which the assembler never writes) is kept
/// as raw bytes.
fn sweep(bytes: &[u8], table: Option<&EntryTable>) -> BTreeMap<u32, Piece> {
    let mut pieces = BTreeMap::new();
    let mut pc = HEADER_LEN;
    while pc < bytes.len() {
        let address = u32::try_from(pc).unwrap_or(u32::MAX);
        if let Some(t) = table.filter(|t| t.offset == pc) {
            pieces.insert(address, Piece::Table);
            pc = t.end;
            continue;
        }
        let limit = table.map_or(bytes.len(), |t| {
            if pc < t.offset { t.offset } else { bytes.len() }
        });
        match isa::decode(bytes, pc) {
            Ok(instr)
                if pc + instr.len <= limit
                    && !matches!(instr.jump, Some(JumpTarget::Var { len: 1, .. })) =>
            {
                pieces.insert(address, Piece::Instr(instr));
                pc += instr.len;
            }
            _ => {
                pieces.insert(address, Piece::Raw(bytes[pc]));
                pc += 1;
            }
        }
    }
    pieces
}

fn branch_target(instr: &Instruction) -> Option<u32> {
    match instr.info.operands.first()? {
        OperandKind::Addr => Some(instr.operands[0]),
        OperandKind::Jump => match instr.jump? {
            JumpTarget::Address(a) => Some(a),
            JumpTarget::Var { .. } => None,
        },
        _ => None,
    }
}

/// Chooses label names: every address that is a branch target, an export or a known
/// label gets one or more unique, reassemblable names.
fn name_labels(
    len: usize,
    pieces: &BTreeMap<u32, Piece>,
    table: Option<&EntryTable>,
    hsm: Option<&HsmFile>,
    hdb: Option<&HdbFile>,
    layout: Layout,
) -> BTreeMap<u32, Vec<String>> {
    let is_boundary = |a: u32| pieces.contains_key(&a);
    let mut wanted: BTreeSet<u32> = BTreeSet::new();
    for piece in pieces.values() {
        if let Piece::Instr(instr) = piece
            && let Some(target) = branch_target(instr)
            && is_boundary(target)
        {
            wanted.insert(target);
        }
    }
    if let Some(table) = table {
        wanted.extend(
            table
                .entries
                .iter()
                .map(|e| e.address)
                .filter(|&a| is_boundary(a)),
        );
    }
    let mut suggested: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    if let Some(hdb) = hdb {
        for label in &hdb.labels {
            if is_boundary(label.address) {
                suggested
                    .entry(label.address)
                    .or_default()
                    .push(label.name.clone());
                wanted.insert(label.address);
            }
        }
    } else if let Some(hsm) = hsm {
        for symbol in &hsm.symbols {
            let lower = symbol.name.to_ascii_lowercase();
            if lower.starts_with("tkd_") || lower.starts_with("guid_tkd_") {
                continue;
            }
            if let Ok(address) = u32::try_from(symbol.value)
                && (HEADER_LEN as u32..len as u32).contains(&address)
                && is_boundary(address)
            {
                suggested
                    .entry(address)
                    .or_default()
                    .push(symbol.name.clone());
                wanted.insert(address);
            }
        }
    }
    let exports: BTreeMap<u32, u32> = table
        .map(|t| t.entries.iter().map(|e| (e.address, e.track_id)).collect())
        .unwrap_or_default();
    let mut taken: HashSet<String> = HashSet::new();
    let usable = |name: &str, taken: &mut HashSet<String>| -> bool {
        let key = name.to_ascii_lowercase();
        is_identifier(name) && symbols::lookup(layout, name).is_none() && taken.insert(key)
    };
    let mut labels = BTreeMap::new();
    for address in wanted {
        let mut names = Vec::new();
        for name in suggested.get(&address).into_iter().flatten() {
            if usable(name, &mut taken) {
                names.push(name.clone());
            } else {
                let renamed = format!("{name}_{address:x}");
                if usable(&renamed, &mut taken) {
                    names.push(renamed);
                }
            }
        }
        if names.is_empty() {
            let fallback = match exports.get(&address) {
                Some(id) => format!("trk_{id}"),
                None => format!("loc_{address:04x}"),
            };
            let name = if usable(&fallback, &mut taken) {
                fallback
            } else {
                format!("loc_{address:04x}_{}", taken.len())
            };
            taken.insert(name.to_ascii_lowercase());
            names.push(name);
        }
        labels.insert(address, names);
    }
    labels
}

fn address_text(address: u32, labels: &BTreeMap<u32, Vec<String>>, prefix: char) -> String {
    match labels.get(&address).and_then(|names| names.first()) {
        Some(name) => format!("{prefix}{name}"),
        None => format!("#{address}"),
    }
}

fn write_instruction(
    out: &mut String,
    address: u32,
    instr: &Instruction,
    layout: Layout,
    labels: &BTreeMap<u32, Vec<String>>,
    imports: &BTreeMap<u32, &str>,
) {
    let mnemonic = instr.info.mnemonic;
    out.push('\t');
    out.push_str(mnemonic);
    let signed = matches!(mnemonic, "loadb" | "loadl" | "max" | "min" | "limit");
    let mut offset = address.saturating_add(1);
    for (slot, kind) in instr.info.operands.iter().enumerate() {
        let value = instr.operands[slot];
        let at = offset;
        offset = offset.saturating_add(kind.size() as u32);
        out.push(' ');
        if kind.size() == 4
            && let Some(name) = imports.get(&at)
        {
            let prefix = if *kind == OperandKind::Dword {
                '#'
            } else {
                '@'
            };
            out.push(prefix);
            out.push_str(name);
            continue;
        }
        match kind {
            OperandKind::Var => var_text(out, value, layout),
            OperandKind::Byte if signed => {
                let _ = write!(out, "{}", value as u8 as i8);
            }
            OperandKind::Byte => {
                let _ = write!(out, "{value}");
            }
            OperandKind::Dword if signed => {
                let _ = write!(out, "#{}", value as i32);
            }
            OperandKind::Dword => {
                let _ = write!(out, "#{value}");
            }
            OperandKind::Addr => out.push_str(&address_text(value, labels, '@')),
            OperandKind::Jump => match instr.jump {
                Some(JumpTarget::Var { var, .. }) => var_text(out, u32::from(var), layout),
                _ => out.push_str(&address_text(value, labels, '@')),
            },
        }
    }
    out.push('\n');
}

fn var_text(out: &mut String, value: u32, layout: Layout) {
    match u8::try_from(value)
        .ok()
        .and_then(|v| registers::name(layout, v))
    {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "{value}");
        }
    }
}

fn write_table(out: &mut String, table: &EntryTable, labels: &BTreeMap<u32, Vec<String>>) {
    out.push_str("\t69 78 84 80\t; ENTP: exported tracks (track ID, address)\n");
    for entry in &table.entries {
        let _ = writeln!(
            out,
            "\t#{} {}",
            entry.track_id,
            address_text(entry.address, labels, '#')
        );
    }
    out.push_str("\t69 69 78 84\t; EENT\n");
}

fn flush_raw(out: &mut String, raw: &mut Vec<u8>) {
    if raw.is_empty() {
        return;
    }
    out.push('\t');
    for (i, byte) in raw.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{byte}");
    }
    out.push_str("\t; raw bytes\n");
    raw.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::asm::{AsmOptions, MemoryFiles, assemble_text};
    use crate::toolchain::formats::hit::header;
    use std::path::Path;

    fn reassemble(source: &str) -> Vec<u8> {
        let a = assemble_text(
            Path::new("dis.src"),
            source,
            &AsmOptions::default(),
            &MemoryFiles::default(),
        );
        assert!(!a.has_errors(), "{:#?}\n{source}", a.diagnostics);
        a.hit.into_bytes()
    }

    #[test]
    fn raw_and_undecodable_bytes_round_trip() {
        let mut bytes = header().to_vec();
        // loadl v1 #1000, an unknown opcode, a truncated loadl.
        bytes.extend_from_slice(&[0x05, 0x05, 0xE8, 0x03, 0, 0, 0x99, 0x00, 0x05, 0x05]);
        let hit = HitFile::from_bytes(bytes.clone()).expect("valid header");
        let source = disassemble(&hit, None, None, DisasmOptions::default());
        assert!(source.contains("loadl v1 #1000"), "{source}");
        assert_eq!(reassemble(&source), bytes);
    }

    #[test]
    fn jump_forms_round_trip() {
        let mut bytes = header().to_vec();
        // jump @16 ; jump v1 (4-byte) ; jump v1 (1-byte short form) ; end
        bytes.extend_from_slice(&[0x0D, 16, 0, 0, 0, 0x0D, 5, 0, 0, 0, 0x0D, 5, 0x0C]);
        let hit = HitFile::from_bytes(bytes.clone()).expect("valid header");
        let source = disassemble(&hit, None, None, DisasmOptions::default());
        assert!(source.contains("jump @loc_0010"), "{source}");
        assert!(source.contains("jump v1"), "{source}");
        assert_eq!(reassemble(&source), bytes);
    }
}
