//! Mutations shared by the text targets: a generator makes a mostly valid document, then
//! a few of these damage it the ways real files are damaged — lines dropped, duplicated
//! or swapped, fields spliced between lines, numbers replaced by huge, negative or
//! overflowing ones, control and non-UTF-8 bytes inserted, lines made very long, the file
//! cut short or emptied.

use proptest::prelude::*;

/// Numbers that break parsers: type limits and one past them, signs, hex, floats that
/// are not finite, ranges that overflow, and things that only look like numbers.
pub const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "127",
    "128",
    "-129",
    "255",
    "256",
    "32767",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "184467440737095516160",
    "0x",
    "0xFFFFFFFF",
    "0x100000000",
    "-0x80000000",
    "0x7FFFFFFFFFFFFFFF",
    "1e308",
    "-1e308",
    "1e309",
    "NaN",
    "inf",
    "-inf",
    "1.5",
    "1e-320",
    "1-4294967295",
    "0-4294967295",
    "4294967295-0",
    "1-65537",
    "",
    "+",
    "-",
    "--1",
    "1_000",
];

/// Bytes that break text handling: line ends inside a line, NUL, terminal escapes, a
/// BOM, bytes that are not UTF-8 (a lone continuation, a cut sequence, a surrogate),
/// bidirectional overrides and the separators every format uses.
pub const SPECIALS: &[&[u8]] = &[
    b"\r",
    b"\r\n",
    b"\0",
    b"\x1b[2J\x1b[31m",
    b"\x1b]0;title\x07",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\x80",
    b"\xc3",
    b"\xed\xa0\x80",
    "\u{202e}".as_bytes(),
    "é".as_bytes(),
    b"\t",
    b" ",
    b"\"",
    b"\\",
    b";",
    b"#",
    b"=",
    b",",
    b"[",
    b"]",
    b"@",
    b"-",
    b"..",
    b"/",
    b"\x7f",
];

/// One change to a document. Indices pick modulo the lines, fields or bytes present.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// Remove a line.
    DropLine(usize),
    /// Write a line twice.
    DuplicateLine(usize),
    /// Exchange two lines.
    SwapLines(usize, usize),
    /// Copy field `field` of line `from` into line `to` before its field `at`.
    SpliceField {
        from: usize,
        to: usize,
        field: usize,
        at: usize,
    },
    /// Replace the `which`-th number of a line (or a word, if it has none).
    Number {
        line: usize,
        which: usize,
        value: &'static str,
    },
    /// Insert special bytes into a line.
    Insert {
        line: usize,
        at: usize,
        bytes: &'static [u8],
    },
    /// Make a line very long by repeating it (up to `bytes`).
    LongLine { line: usize, bytes: usize },
    /// Repeat `count` lines from `line` on until the file holds about `bytes` more bytes
    /// (many lines: catches work that grows faster than the input).
    Repeat {
        line: usize,
        count: usize,
        bytes: usize,
    },
    /// Flip one byte of the file.
    Flip { at: usize, value: u8 },
    /// Cut the file after `at` bytes.
    Truncate(usize),
    /// Replace the whole file by nothing.
    Empty,
}

/// Most bytes a growing mutation ([`Mutation::LongLine`], [`Mutation::Repeat`], and the
/// binary targets' repeats) adds: 256 KiB in a debug build, 4 MiB in a release build,
/// where the same time limits allow inputs that much bigger (and catch work that grows
/// faster than the input at sizes a debug build cannot reach in time).
pub const GROWTH_MAX: usize = if cfg!(debug_assertions) {
    256 * 1024
} else {
    4 * 1024 * 1024
};

/// How many bytes a growing mutation adds: mostly a few kilobytes, rarely up to `max`.
pub fn growth(max: usize) -> impl Strategy<Value = usize> {
    prop_oneof![12 => 100usize..8_000, 3 => 8_000usize..65_536, 1 => 65_536..=max.max(65_536)]
}

/// Any one mutation, most of them small.
pub fn mutation() -> impl Strategy<Value = Mutation> {
    let index = || any::<u16>().prop_map(usize::from);
    prop_oneof![
        3 => index().prop_map(Mutation::DropLine),
        2 => index().prop_map(Mutation::DuplicateLine),
        2 => (index(), index()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        2 => (index(), index(), index(), index())
            .prop_map(|(from, to, field, at)| Mutation::SpliceField { from, to, field, at }),
        5 => (index(), index(), proptest::sample::select(NUMBERS))
            .prop_map(|(line, which, value)| Mutation::Number { line, which, value }),
        4 => (index(), index(), proptest::sample::select(SPECIALS))
            .prop_map(|(line, at, bytes)| Mutation::Insert { line, at, bytes }),
        1 => (index(), growth(GROWTH_MAX))
            .prop_map(|(line, bytes)| Mutation::LongLine { line, bytes }),
        1 => (index(), 1usize..8, growth(GROWTH_MAX))
            .prop_map(|(line, count, bytes)| Mutation::Repeat { line, count, bytes }),
        2 => (index(), any::<u8>()).prop_map(|(at, value)| Mutation::Flip { at, value }),
        1 => index().prop_map(Mutation::Truncate),
        1 => Just(Mutation::Empty),
    ]
}

/// Up to `max` mutations (none in about one case of `max + 1`, so valid documents are
/// exercised as much as damaged ones).
pub fn mutations(max: usize) -> impl Strategy<Value = Vec<Mutation>> {
    proptest::collection::vec(mutation(), 0..=max)
}

/// `doc` with `mutations` applied in order.
pub fn apply(doc: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = doc.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let mut cut: Option<usize> = None;
    for m in mutations {
        let n = lines.len().max(1);
        match *m {
            Mutation::DropLine(i) => {
                if !lines.is_empty() {
                    lines.remove(i % n);
                }
            }
            Mutation::DuplicateLine(i) => {
                if let Some(line) = lines.get(i % n).cloned() {
                    lines.insert(i % n, line);
                }
            }
            Mutation::SwapLines(a, b) => {
                if !lines.is_empty() {
                    lines.swap(a % n, b % n);
                }
            }
            Mutation::SpliceField {
                from,
                to,
                field,
                at,
            } => {
                let Some(source) = lines.get(from % n) else {
                    continue;
                };
                let fields = field_spans(source);
                if fields.is_empty() {
                    continue;
                }
                let (s, e) = fields[field % fields.len()];
                let piece = source[s..e].to_vec();
                let target = &mut lines[to % n];
                let spots = field_spans(target);
                let pos = if spots.is_empty() {
                    target.len()
                } else {
                    spots[at % spots.len()].0
                };
                let mut insert = piece;
                insert.push(b' ');
                target.splice(pos..pos, insert);
            }
            Mutation::Number { line, which, value } => {
                if let Some(target) = lines.get_mut(line % n) {
                    replace_number(target, which, value.as_bytes());
                }
            }
            Mutation::Insert { line, at, bytes } => {
                if let Some(target) = lines.get_mut(line % n) {
                    let pos = at % (target.len() + 1);
                    target.splice(pos..pos, bytes.iter().copied());
                }
            }
            Mutation::LongLine { line, bytes } => {
                if let Some(target) = lines.get_mut(line % n) {
                    let unit = if target.is_empty() {
                        b"x".to_vec()
                    } else {
                        target.clone()
                    };
                    while target.len() < bytes {
                        target.extend_from_slice(&unit);
                    }
                    target.truncate(bytes);
                }
            }
            Mutation::Repeat { line, count, bytes } => {
                if lines.is_empty() {
                    continue;
                }
                let start = line % n;
                let end = (start + count).min(lines.len());
                let block: Vec<Vec<u8>> = lines[start..end].to_vec();
                let block_len: usize = block.iter().map(|l| l.len() + 1).sum();
                let times = bytes / block_len.max(1);
                let mut grown = Vec::with_capacity(block.len() * times);
                for _ in 0..times {
                    grown.extend(block.iter().cloned());
                }
                lines.splice(end..end, grown);
            }
            Mutation::Flip { at, value } => {
                let total: usize = lines.iter().map(Vec::len).sum();
                if total > 0 {
                    let mut pos = at % total;
                    for line in &mut lines {
                        if pos < line.len() {
                            line[pos] ^= value | 1;
                            break;
                        }
                        pos -= line.len();
                    }
                }
            }
            Mutation::Truncate(at) => cut = Some(cut.map_or(at, |c| c.min(at))),
            Mutation::Empty => {
                lines.clear();
                cut = None;
            }
        }
    }
    let mut out = lines.join(&b'\n');
    if let Some(at) = cut {
        out.truncate(at % (out.len() + 1));
    }
    out
}

/// Byte spans of the fields of a line: runs between blanks, commas, `=` and tabs.
fn field_spans(line: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, &b) in line.iter().enumerate() {
        let sep = matches!(b, b' ' | b'\t' | b',' | b'=');
        match (start, sep) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, line.len()));
    }
    spans
}

/// Replaces the `which`-th number of `line` (digits with a sign or `0x` prefix) by
/// `value`; a line without numbers gets a word replaced instead.
fn replace_number(line: &mut Vec<u8>, which: usize, value: &[u8]) {
    let mut numbers = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i].is_ascii_digit() {
            let mut start = i;
            if start > 0 && (line[start - 1] == b'-' || line[start - 1] == b'+') {
                start -= 1;
            }
            let mut end = i;
            if line[i] == b'0' && matches!(line.get(i + 1), Some(b'x' | b'X')) {
                end += 2;
                while end < line.len() && line[end].is_ascii_hexdigit() {
                    end += 1;
                }
            } else {
                while end < line.len() && (line[end].is_ascii_digit() || line[end] == b'.') {
                    end += 1;
                }
            }
            numbers.push((start, end));
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    let spans = if numbers.is_empty() {
        field_spans(line)
    } else {
        numbers
    };
    if spans.is_empty() {
        line.extend_from_slice(value);
        return;
    }
    let (s, e) = spans[which % spans.len()];
    line.splice(s..e, value.iter().copied());
}

/// A document from a generator or a seed corpus, then up to `max` mutations of it.
pub fn mutated(doc: impl Strategy<Value = Vec<u8>>, max: usize) -> impl Strategy<Value = Vec<u8>> {
    (doc, mutations(max)).prop_map(|(doc, m)| apply(&doc, &m))
}
