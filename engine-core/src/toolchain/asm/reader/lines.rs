//! One source line: the `[` and `]` of `BINARY` blocks, a label in column 1, and the
//! instruction or data line after it.

use super::directive::DIRECTIVES;
use super::{Block, Item, ItemKind, Line, Reader};
use crate::toolchain::asm::lexer::{self, Tok, is_identifier};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::isa::{self, OpcodeInfo};
use crate::toolchain::suggest::closest;

impl Reader<'_> {
    /// Reads the tokens of one line (`column1`: the first starts in column 1) in block
    /// state `block`; gives the block state after the line.
    pub(super) fn read_tokens(
        &mut self,
        l: &Line<'_>,
        toks: &[Tok],
        column1: bool,
        block: Block,
    ) -> Block {
        let Some(&first) = toks.first() else {
            return block;
        };
        let first_text = l.text(first);
        let block = match block {
            Block::Pending { line, column } => {
                if first_text == "[" {
                    if let Some(extra) = toks.get(1) {
                        let message = "unexpected text after `[`";
                        self.error(
                            DiagCode::ExtraField,
                            l.file,
                            l.number,
                            extra.column,
                            message,
                        );
                    }
                    return Block::Inside { line, column };
                }
                let message = "BINARY must be followed by `[` to open the block";
                self.error(DiagCode::BlockStructure, l.file, line, column, message);
                Block::Outside
            }
            other => other,
        };
        if first_text == "]" {
            self.close_block(l, toks, block);
            return Block::Outside;
        }
        if let Some(directive) = DIRECTIVES
            .iter()
            .find(|d| d.eq_ignore_ascii_case(first_text))
        {
            return self.directive(directive, l, toks, block);
        }
        let inside = matches!(block, Block::Inside { .. });
        let rest = match (column1, inside) {
            (true, true) => self.label(l, toks),
            (false, true) => toks,
            (true, false) => {
                let message = format!(
                    "label `{first_text}` outside a BINARY block (code and labels go between \
                     `BINARY [` and `]`)"
                );
                self.error(DiagCode::BlockStructure, l.file, l.number, 1, message);
                &[]
            }
            (false, false) => {
                let message =
                    "instruction outside a BINARY block (code goes between `BINARY [` and `]`)";
                let code = DiagCode::BlockStructure;
                self.error(code, l.file, l.number, first.column, message);
                &[]
            }
        };
        if !rest.is_empty() {
            self.statement(l, rest);
        }
        block
    }

    /// A line starting with `]`, which closes the open block.
    fn close_block(&mut self, l: &Line<'_>, toks: &[Tok], block: Block) {
        if let Some(extra) = toks.get(1) {
            let message = "unexpected text after `]`";
            self.error(
                DiagCode::ExtraField,
                l.file,
                l.number,
                extra.column,
                message,
            );
        }
        if let (Block::Outside, Some(first)) = (block, toks.first()) {
            let message = "`]` without an open BINARY block";
            let code = DiagCode::BlockStructure;
            self.error(code, l.file, l.number, first.column, message);
        }
    }

    /// The label in column 1 of `toks` (inside a block); gives the tokens after it.
    fn label<'t>(&mut self, l: &Line<'_>, toks: &'t [Tok]) -> &'t [Tok] {
        let Some((&first, rest)) = toks.split_first() else {
            return toks;
        };
        let text = l.text(first);
        if is_identifier(text) {
            self.out.items.push(Item {
                kind: ItemKind::Label { name: first },
                file: l.file,
                line: l.number,
            });
        } else {
            let message = format!(
                "bad label `{text}`: labels are letters, digits and `_`, not starting with a \
                 digit"
            );
            self.error(DiagCode::BadSyntax, l.file, l.number, 1, message);
        }
        rest
    }

    /// An instruction or a data line.
    fn statement(&mut self, l: &Line<'_>, toks: &[Tok]) {
        let Some((&head, operands)) = toks.split_first() else {
            return;
        };
        let head_text = l.text(head);
        if lexer::looks_numeric(head_text) || head_text.starts_with('#') {
            self.data_line(l, toks);
            return;
        }
        let Some(info) = isa::by_mnemonic(head_text) else {
            self.unknown_mnemonic(l, toks);
            return;
        };
        let ok = operands.len() == info.operands.len();
        if !ok {
            self.operand_count(l, toks, info);
        }
        let mut ops = [Tok::default(); 3];
        for (slot, tok) in ops.iter_mut().zip(operands) {
            *slot = *tok;
        }
        self.out.items.push(Item {
            kind: ItemKind::Instr {
                info,
                ops,
                count: operands.len().min(3),
                ok,
            },
            file: l.file,
            line: l.number,
        });
    }

    /// Raw bytes and 4-byte values; a line spelling `ENTP` marks an export table.
    fn data_line(&mut self, l: &Line<'_>, toks: &[Tok]) {
        let values: Vec<i64> = toks
            .iter()
            .take(4)
            .filter_map(|t| parse_int(l.text(*t)))
            .collect();
        if values == [69, 78, 84, 80] {
            self.out.entp_seen = true;
        }
        self.out.items.push(Item {
            kind: ItemKind::Data {
                tokens: toks.to_vec(),
            },
            file: l.file,
            line: l.number,
        });
    }

    /// A first word that is no mnemonic, with the likeliest one it was meant to be.
    fn unknown_mnemonic(&mut self, l: &Line<'_>, toks: &[Tok]) {
        let Some(&head) = toks.first() else { return };
        let head_text = l.text(head);
        // `smart setlist` (a space for an underscore, as the design document prints
        // it) is the likeliest slip; then plain typos.
        let joined = toks
            .get(1)
            .map(|next| format!("{head_text}_{}", l.text(*next)))
            .and_then(|j| isa::by_mnemonic(&j))
            .map(|info| info.mnemonic);
        let best = joined.or_else(|| closest(head_text, isa::OPCODES.iter().map(|i| i.mnemonic)));
        let hint = best
            .map(|m| format!(" (did you mean `{m}`?)"))
            .unwrap_or_default();
        let message = format!("unknown mnemonic `{head_text}`{hint}");
        let path = self.out.path(l.file);
        let d = Diagnostic::error(
            DiagCode::UnknownOpcode,
            path,
            l.number,
            head.column,
            message,
        )
        .with_subject(head_text)
        .with_suggestion(best.map(str::to_string));
        self.push(d);
    }

    /// An instruction written with the wrong number of operands: the error is at the
    /// first extra operand, or just past the line for a missing one.
    fn operand_count(&mut self, l: &Line<'_>, toks: &[Tok], info: &OpcodeInfo) {
        let Some((&head, operands)) = toks.split_first() else {
            return;
        };
        let expected = info.operands.len();
        let kinds: Vec<&str> = info.operands.iter().map(|k| k.describe()).collect();
        let wanted = match expected {
            0 => "no operands".to_string(),
            1 => format!("1 operand ({})", kinds.join(", ")),
            n => format!("{n} operands ({})", kinds.join(", ")),
        };
        let column = match operands.get(expected) {
            Some(extra) => extra.column,
            None => toks.last().map_or(head.column, |t| {
                let width = u32::try_from(l.text(*t).chars().count()).unwrap_or(0);
                t.column.saturating_add(width)
            }),
        };
        let mut message = format!(
            "`{}` takes {wanted}, found {}",
            info.mnemonic,
            operands.len()
        );
        let mut suggestion = None;
        if let (true, Some(next)) = (operands.len() > expected, operands.first()) {
            let joined = format!("{}_{}", info.mnemonic, l.text(*next));
            if isa::by_mnemonic(&joined).is_some() {
                message.push_str(&format!(" (did you mean `{joined}`?)"));
                suggestion = Some(joined);
            }
        }
        let path = self.out.path(l.file);
        let d = Diagnostic::error(DiagCode::OperandCount, path, l.number, column, message)
            .with_subject(info.mnemonic)
            .with_suggestion(suggestion);
        self.push(d);
    }
}
