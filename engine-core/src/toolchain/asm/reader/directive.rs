//! The directives: `BINARY`, `INCLUDE`, `SYMBOLFILE`, `INIFILE`, `BASEID_TRACKDATA`,
//! `LIST`, and HitBench's `DEFINE`, `EXTERN` and `LAYOUT`.

use super::{Block, Decl, Item, ItemKind, Line, ListLine, Reader};
use crate::toolchain::asm::lexer::{Tok, is_identifier};
use crate::toolchain::diag::DiagCode;
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::registers::Layout;

/// The directive words (matched ASCII case-insensitively).
pub(super) const DIRECTIVES: &[&str] = &[
    "BINARY",
    "INCLUDE",
    "SYMBOLFILE",
    "INIFILE",
    "BASEID_TRACKDATA",
    "LIST",
    "DEFINE",
    "EXTERN",
    "LAYOUT",
];

impl Reader<'_> {
    /// Reads the directive `directive` (one of [`DIRECTIVES`]) that starts `toks`; gives
    /// the block state after it (only `BINARY` changes it).
    pub(super) fn directive(
        &mut self,
        directive: &str,
        l: &Line<'_>,
        toks: &[Tok],
        block: Block,
    ) -> Block {
        let Some((&head, args)) = toks.split_first() else {
            return block;
        };
        // The raw text after the directive word, without its comment (quote-aware: paths
        // in [Patch] values are quoted and may contain `;`).
        let after = (head.end as usize).saturating_sub(l.offset);
        let stripped = strip_comment_outside_quotes(l.raw.get(after..).unwrap_or(""));
        let rest_offset = after + (stripped.len() - stripped.trim_start().len());
        let rest = stripped.trim();
        let (file, line_no) = (l.file, l.number);
        match directive {
            "BINARY" => return self.binary(l, head, args, block),
            "INCLUDE" => self.include(file, line_no, head, rest),
            "SYMBOLFILE" => self.symbol_file(file, line_no, head, rest, false),
            "INIFILE" => self.symbol_file(file, line_no, head, rest, true),
            "BASEID_TRACKDATA" => self.track_data_base(l, head, args),
            "LIST" => self.list(l, head, rest, rest_offset),
            "DEFINE" => self.define(l, head, args),
            "EXTERN" => self.externs(l, head, args),
            "LAYOUT" => self.layout(l, head, args),
            _ => {}
        }
        block
    }

    /// `BINARY [`, or `BINARY` with the `[` on a following line.
    fn binary(&mut self, l: &Line<'_>, head: Tok, args: &[Tok], block: Block) -> Block {
        let (file, line_no) = (l.file, l.number);
        if matches!(block, Block::Inside { .. }) {
            self.error(
                DiagCode::BlockStructure,
                file,
                line_no,
                head.column,
                "BINARY inside an open BINARY block (missing `]`?)",
            );
            return block;
        }
        let open = Block::Inside {
            line: line_no,
            column: head.column,
        };
        match args {
            [] => Block::Pending {
                line: line_no,
                column: head.column,
            },
            [bracket] if l.text(*bracket) == "[" => open,
            [bracket, extra, ..] if l.text(*bracket) == "[" => {
                let message = "unexpected text after `[`";
                self.error(DiagCode::ExtraField, file, line_no, extra.column, message);
                open
            }
            [other, ..] => {
                self.error(
                    DiagCode::BlockStructure,
                    file,
                    line_no,
                    other.column,
                    "BINARY must be followed by `[` to open the block",
                );
                block
            }
        }
    }

    /// `BASEID_TRACKDATA n`: the track-data ID of the next label.
    fn track_data_base(&mut self, l: &Line<'_>, head: Tok, args: &[Tok]) {
        let base = match args {
            [n] => parse_int(l.text(*n)).and_then(|v| u32::try_from(v).ok()),
            _ => None,
        };
        match base {
            Some(base) => self.out.items.push(Item {
                kind: ItemKind::TrackDataBase(base),
                file: l.file,
                line: l.number,
            }),
            None => {
                let column = args.first().map_or(head.column, |t| t.column);
                self.error(
                    DiagCode::BadDirective,
                    l.file,
                    l.number,
                    column,
                    "BASEID_TRACKDATA needs one number from 0 to 4294967295",
                );
            }
        }
    }

    /// `DEFINE name value`.
    fn define(&mut self, l: &Line<'_>, head: Tok, args: &[Tok]) {
        match args {
            [name, value] if is_identifier(l.text(*name)) => {
                self.out.defines.push(Decl {
                    name: *name,
                    value: Some(*value),
                    file: l.file,
                    line: l.number,
                });
            }
            _ => {
                let column = args.first().map_or(head.column, |t| t.column);
                self.error(
                    DiagCode::BadDirective,
                    l.file,
                    l.number,
                    column,
                    "DEFINE needs a name and a value: `DEFINE name 42`",
                );
            }
        }
    }

    /// `EXTERN name…`: names another unit defines, bound when the project links.
    fn externs(&mut self, l: &Line<'_>, head: Tok, args: &[Tok]) {
        if args.is_empty() {
            self.error(
                DiagCode::BadDirective,
                l.file,
                l.number,
                head.column,
                "EXTERN needs at least one name",
            );
        }
        for name in args {
            let text = l.text(*name);
            if is_identifier(text) {
                self.out.externs.push(Decl {
                    name: *name,
                    value: None,
                    file: l.file,
                    line: l.number,
                });
            } else {
                let message = format!("EXTERN: `{text}` is not a name");
                self.error(DiagCode::BadSyntax, l.file, l.number, name.column, message);
            }
        }
    }

    /// `LAYOUT ts1` or `LAYOUT tso`: the register layout.
    fn layout(&mut self, l: &Line<'_>, head: Tok, args: &[Tok]) {
        let value = match args {
            [v] => l
                .text(*v)
                .parse::<Layout>()
                .ok()
                .map(|layout| (layout, v.column)),
            _ => None,
        };
        match value {
            Some((layout, column)) => {
                self.out.layout = Some((layout, l.file, l.number, column));
            }
            None => self.error(
                DiagCode::UnknownValue,
                l.file,
                l.number,
                args.first().map_or(head.column, |t| t.column),
                "LAYOUT needs `ts1` or `tso`",
            ),
        }
    }

    /// `body` is the text after `LIST`, starting at byte `body_offset` of the line.
    fn list(&mut self, l: &Line<'_>, head: Tok, body: &str, body_offset: usize) {
        let parsed = body.strip_prefix('[').and_then(|after| {
            let close = after.find(']')?;
            let section = after[..close].trim();
            let entry_raw = &after[close + 1..];
            let entry = entry_raw.trim();
            let eq = entry.find('=')?;
            let key = entry[..eq].trim();
            let value = entry[eq + 1..].trim();
            // Where the key starts in the source line, for diagnostics about the entry.
            let key_offset =
                body_offset + 1 + close + 1 + (entry_raw.len() - entry_raw.trim_start().len());
            let key_column = l.raw.get(..key_offset).map_or(1, |p| p.chars().count() + 1);
            (!section.is_empty() && !key.is_empty()).then(|| ListLine {
                section: section.to_string(),
                key: key.to_string(),
                value: value.to_string(),
                file: l.file,
                line: l.number,
                key_column: u32::try_from(key_column).unwrap_or(1),
            })
        });
        match parsed {
            Some(list_line) => self.out.list_lines.push(list_line),
            None => self.error(
                DiagCode::BadDirective,
                l.file,
                l.number,
                head.column,
                "LIST needs `[Section] key=value`",
            ),
        }
    }
}

/// Cuts a `;` comment that is not inside double quotes.
fn strip_comment_outside_quotes(text: &str) -> &str {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => return &text[..i],
            _ => {}
        }
    }
    text
}
