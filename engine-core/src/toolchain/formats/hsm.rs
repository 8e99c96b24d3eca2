//! `.hsm` HIT symbol files (hit-reference §2.4): one constant per line,
//! `name decimal (hex)`, e.g. `note_on 2 (0x2)`.
//!
//! Every entry is kept in file order with its spelling and line. Lookup ignores ASCII
//! case and the first definition wins, as in FreeSO; repeated names are legitimate (local
//! labels such as `gotit` recur), so they are not reported. The decimal is what counts:
//! the hex part is optional, and only checked against it.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::{parse_int, to_u32_bits};
use crate::toolchain::formats::text::{char_count, numbered_lines, split_whitespace};
use std::fmt::Write as _;
use std::path::Path;

/// One constant of a symbol file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HsmSymbol {
    /// The name as spelled in the file.
    pub name: String,
    /// The value (an opcode, register, address, sound or hit-list ID…).
    pub value: i64,
    /// 1-based line it was read from (for [`HsmFile::push`], the line `to_text` puts it on).
    pub line: u32,
}

/// A parsed `.hsm` file: every constant, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct HsmFile {
    /// All entries, duplicates included.
    pub symbols: Vec<HsmSymbol>,
}

impl HsmFile {
    /// Parses a symbol file, reporting every malformed line and keeping the good ones.
    pub fn parse(text: &str, file: &Path) -> (HsmFile, Vec<Diagnostic>) {
        let mut out = HsmFile::default();
        let mut diagnostics = Vec::new();
        for (line, content) in numbered_lines(text) {
            if let Some(symbol) = parse_line(content, line, file, &mut diagnostics) {
                out.symbols.push(symbol);
            }
        }
        (out, diagnostics)
    }

    /// The first constant called `name`, ignoring ASCII case.
    pub fn get(&self, name: &str) -> Option<&HsmSymbol> {
        self.symbols
            .iter()
            .find(|symbol| symbol.name.eq_ignore_ascii_case(name))
    }

    /// Appends a constant; its `line` is the line [`HsmFile::to_text`] will write it on.
    /// The name should be non-empty and free of whitespace to read back the same.
    pub fn push(&mut self, name: impl Into<String>, value: i64) {
        let line = u32::try_from(self.symbols.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        self.symbols.push(HsmSymbol {
            name: name.into(),
            value,
            line,
        });
    }

    /// The file as `name value (0xhex)` lines with LF endings. The hex part is lowercase;
    /// a negative value shows its 32-bit two's complement there (`-1 (0xffffffff)`).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for symbol in &self.symbols {
            // Writing into a String cannot fail.
            let _ = writeln!(
                out,
                "{} {} ({:#x})",
                symbol.name,
                symbol.value,
                hex_bits(symbol.value)
            );
        }
        out
    }
}

/// The bit pattern the hex part shows: 32 bits when the value fits HIT data, else 64.
fn hex_bits(value: i64) -> u64 {
    match to_u32_bits(value) {
        Some(bits) => u64::from(bits),
        None => value as u64,
    }
}

/// One line: `None` for blank or unusable lines (the latter reported).
fn parse_line(
    content: &str,
    line: u32,
    file: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<HsmSymbol> {
    let tokens = split_whitespace(content);
    let name = tokens.first()?;
    let Some(value_token) = tokens.get(1) else {
        // Point just past the name, where the value is missing.
        let column = name.column.saturating_add(char_count(name.text));
        diagnostics.push(Diagnostic::error(
            DiagCode::MissingField,
            file,
            line,
            column,
            format!(
                "symbol `{}` has no value; expected `name decimal (hex)`",
                name.text
            ),
        ));
        return None;
    };
    let Some(value) = parse_int(value_token.text) else {
        diagnostics.push(Diagnostic::error(
            DiagCode::BadNumber,
            file,
            line,
            value_token.column,
            format!(
                "value of `{}` must be a decimal number, found `{}`",
                name.text, value_token.text
            ),
        ));
        return None;
    };
    if let Some(hex) = tokens.get(2) {
        match parse_hex_part(hex.text) {
            None => diagnostics.push(Diagnostic::warning(
                DiagCode::BadSyntax,
                file,
                line,
                hex.column,
                format!("`{}` is not a hex part like `(0x1f)`; ignored", hex.text),
            )),
            Some(bits) if bits != hex_bits(value) && bits != value as u64 => {
                diagnostics.push(Diagnostic::warning(
                    DiagCode::InconsistentValue,
                    file,
                    line,
                    hex.column,
                    format!(
                        "hex part {bits:#x} disagrees with the decimal {value}; the decimal is used"
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = tokens.get(3) {
        diagnostics.push(Diagnostic::warning(
            DiagCode::ExtraField,
            file,
            line,
            extra.column,
            format!("unexpected `{}` after the value; ignored", extra.text),
        ));
    }
    Some(HsmSymbol {
        name: name.text.to_owned(),
        value,
        line,
    })
}

/// The number inside `(0x…)` (the `0x` is optional).
fn parse_hex_part(text: &str) -> Option<u64> {
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    let digits = inner
        .strip_prefix("0x")
        .or_else(|| inner.strip_prefix("0X"))
        .unwrap_or(inner);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::diag::Severity;
    use proptest::prelude::*;

    fn parse(text: &str) -> (HsmFile, Vec<Diagnostic>) {
        HsmFile::parse(text, Path::new("tsov2.hsm"))
    }

    const SAMPLE: &str = "note_on 2 (0x2)\r\n\
                          v1 5 (0x5)\r\n\
                          \r\n\
                          Fire_Loop 4180 (0x1054)\r\n\
                          gotit 4210 (0x1072)\r\n\
                          tkd_fire_loop 20357\r\n\
                          GOTIT 4290 (0x10c2)\r\n\
                          minus_one -1 (0xffffffff)\r\n";

    #[test]
    fn parses_sample_in_order_with_lines() {
        let (hsm, diags) = parse(SAMPLE);
        assert!(diags.is_empty(), "{diags:?}");
        let got: Vec<_> = hsm
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.value, s.line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("note_on", 2, 1),
                ("v1", 5, 2),
                ("Fire_Loop", 4180, 4),
                ("gotit", 4210, 5),
                ("tkd_fire_loop", 20357, 6),
                ("GOTIT", 4290, 7),
                ("minus_one", -1, 8),
            ]
        );
    }

    #[test]
    fn lookup_ignores_case_and_first_wins() {
        let (hsm, _) = parse(SAMPLE);
        assert_eq!(hsm.get("fire_loop").map(|s| s.value), Some(4180));
        assert_eq!(hsm.get("Gotit").map(|s| (s.value, s.line)), Some((4210, 5)));
        assert!(hsm.get("missing").is_none());
    }

    fn only(diags: &[Diagnostic]) -> &Diagnostic {
        assert_eq!(diags.len(), 1, "{diags:?}");
        &diags[0]
    }

    #[test]
    fn missing_value_is_an_error_after_the_name() {
        let (hsm, diags) = parse("a 1\n  lonely\nb 2\n");
        assert_eq!(hsm.symbols.len(), 2);
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 2, 9));
        assert!(d.message.contains("no value"), "{}", d.message);
    }

    #[test]
    fn bad_value_is_an_error_at_the_value() {
        let (hsm, diags) = parse("a\t12x (0x12)\nb 2");
        assert_eq!(hsm.symbols.len(), 1);
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 1, 3));
        assert!(d.message.contains("`12x`"), "{}", d.message);
    }

    #[test]
    fn disagreeing_hex_is_a_warning_and_the_decimal_wins() {
        let (hsm, diags) = parse("x 16 (0x11)");
        assert_eq!(hsm.get("x").map(|s| s.value), Some(16));
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Warning, 1, 6));
        assert!(
            d.message.contains("0x11 disagrees with the decimal 16"),
            "{}",
            d.message
        );
        // Either width of two's complement agrees with a negative decimal.
        let (_, diags) = parse("y -2 (0xfffffffffffffffe)\nz -2 (FFFFFFFE)");
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn malformed_hex_part_is_a_warning() {
        let (hsm, diags) = parse("x 16 0x10");
        assert_eq!(hsm.symbols.len(), 1);
        let d = only(&diags);
        assert_eq!((d.severity, d.column), (Severity::Warning, 6));
        assert!(d.message.contains("not a hex part"), "{}", d.message);
    }

    #[test]
    fn trailing_text_is_a_warning() {
        let (hsm, diags) = parse("x 16 (0x10) extra");
        assert_eq!(hsm.symbols.len(), 1);
        let d = only(&diags);
        assert_eq!((d.severity, d.column), (Severity::Warning, 13));
    }

    #[test]
    fn writer_uses_lowercase_hex_and_32_bit_negatives() {
        let mut hsm = HsmFile::default();
        hsm.push("note_on", 2);
        hsm.push("Fire_Loop", 0x4F85);
        hsm.push("minus_one", -1);
        hsm.push("big", 0x1_0000_0000);
        assert_eq!(
            hsm.to_text(),
            "note_on 2 (0x2)\nFire_Loop 20357 (0x4f85)\nminus_one -1 (0xffffffff)\n\
             big 4294967296 (0x100000000)\n"
        );
        let (back, diags) = parse(&hsm.to_text());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(back, hsm);
    }

    proptest! {
        #[test]
        fn parser_never_panics(text in any::<String>()) {
            let _ = parse(&text);
        }

        #[test]
        fn line_shaped_text_never_panics(text in "([a-z]{0,3}[ \t]{0,2}-?[0-9x]{0,4}[ \t(]{0,2}[0-9a-fx]{0,9}\\)?\r?\n){0,6}") {
            let _ = parse(&text);
        }

        #[test]
        fn built_files_round_trip(
            // `parse_int` cannot read i64::MIN (its magnitude overflows), so it is left out.
            symbols in proptest::collection::vec(("[A-Za-z_][A-Za-z0-9_]{0,16}", (i64::MIN + 1)..=i64::MAX), 0..20)
        ) {
            let mut hsm = HsmFile::default();
            for (name, value) in symbols {
                hsm.push(name, value);
            }
            let (back, diags) = parse(&hsm.to_text());
            prop_assert!(diags.is_empty(), "{:?}", diags);
            prop_assert_eq!(back, hsm);
        }
    }
}
