//! Pass 1: the address of every item; labels and track-data IDs are defined as their
//! addresses become known.

use super::{Encoder, Entry, Value, key};
use crate::toolchain::asm::reader::ItemKind;
use crate::toolchain::asm::{Symbol, SymbolKind};
use crate::toolchain::diag::DiagCode;
use crate::toolchain::formats::hit;

impl Encoder<'_> {
    /// Pass 1: the address of every item, labels and track-data IDs defined.
    pub(super) fn lay_out(&mut self) -> Vec<u32> {
        let parsed = self.parsed;
        let mut addresses = Vec::with_capacity(parsed.items.len());
        let mut address = hit::HEADER_LEN as u64;
        let mut next_track_data: Option<u32> = None;
        let mut overflow_reported = false;
        for item in &parsed.items {
            let here = u32::try_from(address).unwrap_or(u32::MAX);
            addresses.push(here);
            match &item.kind {
                ItemKind::Label { name } => {
                    let name_text = parsed.text(item.file, *name);
                    if !self.may_define(name_text, item.file, item.line, name.column, "label") {
                        continue;
                    }
                    self.table.insert(
                        key(name_text),
                        Entry {
                            value: Value::Label(here),
                            file: item.file,
                            line: item.line,
                        },
                    );
                    self.symbols.push(Symbol {
                        name: name_text.to_string(),
                        value: i64::from(here),
                        kind: SymbolKind::Label,
                        file: self.path(item.file).to_path_buf(),
                        line: item.line,
                    });
                    if let Some(id) = next_track_data.filter(|_| !name_text.starts_with('_')) {
                        self.track_data_id(name_text, id, here, item.file, item.line, name.column);
                        next_track_data = id.checked_add(1);
                    }
                }
                ItemKind::Instr { info, .. } => address += info.size() as u64,
                ItemKind::Data { tokens } => {
                    address += tokens
                        .iter()
                        .map(|t| data_token_size(parsed.text(item.file, *t)) as u64)
                        .sum::<u64>();
                }
                ItemKind::TrackDataBase(base) => next_track_data = Some(*base),
            }
            if address > u64::from(u32::MAX) && !overflow_reported {
                overflow_reported = true;
                self.error(
                    DiagCode::CodeTooLarge,
                    item.file,
                    item.line,
                    1,
                    "code is larger than 4 GiB",
                );
            }
        }
        addresses
    }
}

/// Size in bytes of a token on a data line (decided from its form, so pass 1 and pass 2
/// agree even when the token has an error).
pub(super) fn data_token_size(text: &str) -> usize {
    if text.starts_with('#') || text.starts_with('@') {
        4
    } else {
        1
    }
}
