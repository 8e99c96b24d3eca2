//! Splitting MakeTrax source lines into tokens and classifying operand tokens.
//!
//! Tokens are byte spans into the source text (no allocation per token); columns are
//! 1-based character positions, a tab counting as one.

use crate::toolchain::diag::DiagCode;
use crate::toolchain::formats::number::parse_int;
pub(crate) use crate::toolchain::formats::text::is_identifier;

/// A token: a byte span into its file's text plus its 1-based column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tok {
    pub start: u32,
    pub end: u32,
    pub column: u32,
}

impl Tok {
    /// The token's text within `source` (empty if the span is somehow out of range).
    pub fn text(self, source: &str) -> &str {
        source
            .get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }
}

/// True for the separators between tokens.
fn is_space(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\u{feff}' || c == '\r'
}

/// Where a line's comment starts (`;` anywhere), as a byte index.
pub(crate) fn comment_start(line: &str) -> usize {
    line.find(';').unwrap_or(line.len())
}

/// True for a `# ` comment line: first non-blank character `#` followed by a blank or
/// nothing (`#name` and `#12` are operands, not comments).
pub(crate) fn is_hash_comment(line: &str) -> bool {
    let trimmed = line.trim_start_matches(is_space);
    match trimmed.strip_prefix('#') {
        Some(rest) => rest.is_empty() || rest.starts_with(is_space),
        None => false,
    }
}

/// Tokenizes `line` (which starts at byte `line_offset` of its file) up to its comment,
/// appending to `out`. Returns true if the first token starts in column 1.
pub(crate) fn tokenize(line: &str, line_offset: usize, out: &mut Vec<Tok>) -> bool {
    out.clear();
    let code = &line[..comment_start(line)];
    let ascii = code.is_ascii();
    let mut token_start: Option<usize> = None;
    let push = |start: usize, end: usize, out: &mut Vec<Tok>| {
        let column = if ascii {
            start + 1
        } else {
            code[..start].chars().count() + 1
        };
        out.push(Tok {
            start: to_u32(line_offset + start),
            end: to_u32(line_offset + end),
            column: to_u32(column),
        });
    };
    for (index, c) in code.char_indices() {
        if is_space(c) {
            if let Some(start) = token_start.take() {
                push(start, index, out);
            }
        } else if token_start.is_none() {
            token_start = Some(index);
        }
    }
    if let Some(start) = token_start {
        push(start, code.len(), out);
    }
    out.first().is_some_and(|t| t.column == 1)
}

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// What an operand token says, before symbols are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operand<'a> {
    /// A bare number: one byte.
    Int(i64),
    /// A bare name: a register or a 1-byte constant.
    Name(&'a str),
    /// `#number`: four bytes.
    HashInt(i64),
    /// `#name`: four bytes (constant, label address, or late-bound symbol).
    HashName(&'a str),
    /// `@name`: a code label.
    AtName(&'a str),
}

/// Why a token is no operand: the kind of problem and a message for the diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadToken {
    /// `bad-number` or `bad-syntax`.
    pub(crate) code: DiagCode,
    /// What is wrong, for a person.
    pub(crate) message: String,
}

impl BadToken {
    fn syntax(message: String) -> Self {
        Self {
            code: DiagCode::BadSyntax,
            message,
        }
    }
}

/// Classifies an operand token; the error says what is wrong with it.
pub(crate) fn classify(text: &str) -> Result<Operand<'_>, BadToken> {
    if let Some(rest) = text.strip_prefix('#') {
        if looks_numeric(rest) {
            return parse_int(rest)
                .map(Operand::HashInt)
                .ok_or_else(|| bad_number(rest));
        }
        if is_identifier(rest) {
            return Ok(Operand::HashName(rest));
        }
        return Err(BadToken::syntax(if rest.is_empty() {
            "`#` must be followed by a number or a name".to_string()
        } else {
            format!("`{text}` is neither #number nor #name")
        }));
    }
    if let Some(rest) = text.strip_prefix('@') {
        if is_identifier(rest) {
            return Ok(Operand::AtName(rest));
        }
        return Err(BadToken::syntax(format!(
            "`{text}` is not a label reference (@name)"
        )));
    }
    if looks_numeric(text) {
        return parse_int(text)
            .map(Operand::Int)
            .ok_or_else(|| bad_number(text));
    }
    if is_identifier(text) {
        return Ok(Operand::Name(text));
    }
    if text.ends_with(',') {
        return Err(BadToken::syntax(format!(
            "`{text}`: operands are separated by spaces or tabs, not commas"
        )));
    }
    Err(BadToken::syntax(format!(
        "`{text}` is not a number, a name, #value or @label"
    )))
}

/// True if the token is meant as a number: starts with a digit, or a sign and a digit.
pub(crate) fn looks_numeric(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    unsigned.bytes().next().is_some_and(|b| b.is_ascii_digit())
}

fn bad_number(text: &str) -> BadToken {
    BadToken {
        code: DiagCode::BadNumber,
        message: format!("bad number `{text}` (write decimal like 42, -7 or hex like 0x2A)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> (bool, Vec<(String, u32)>) {
        let mut out = Vec::new();
        let col1 = tokenize(line, 0, &mut out);
        (
            col1,
            out.iter()
                .map(|t| (t.text(line).to_string(), t.column))
                .collect(),
        )
    }

    #[test]
    fn tokens_columns_and_comments() {
        let (col1, toks) = texts("\tloadl v1 #1000 ; comment");
        assert!(!col1);
        assert_eq!(
            toks,
            vec![("loadl".into(), 2), ("v1".into(), 8), ("#1000".into(), 11)]
        );
        let (col1, toks) = texts("label\r");
        assert!(col1);
        assert_eq!(toks, vec![("label".into(), 1)]);
        let (_, toks) = texts("  é x");
        assert_eq!(toks[1], ("x".into(), 5));
        assert!(texts("   ; only a comment").1.is_empty());
    }

    #[test]
    fn hash_comments() {
        assert!(is_hash_comment("# a comment"));
        assert!(is_hash_comment("   #"));
        assert!(!is_hash_comment("#12 #label"));
        assert!(!is_hash_comment("  #x"));
    }

    #[test]
    fn operand_classes() {
        assert_eq!(classify("12"), Ok(Operand::Int(12)));
        assert_eq!(classify("-1"), Ok(Operand::Int(-1)));
        assert_eq!(classify("0x1F"), Ok(Operand::Int(31)));
        assert_eq!(classify("v1"), Ok(Operand::Name("v1")));
        assert_eq!(classify("#1000"), Ok(Operand::HashInt(1000)));
        assert_eq!(classify("#hl_x"), Ok(Operand::HashName("hl_x")));
        assert_eq!(classify("@_end"), Ok(Operand::AtName("_end")));
        assert_eq!(classify("12ab").unwrap_err().code, DiagCode::BadNumber);
        assert_eq!(classify("#0xZZ").unwrap_err().code, DiagCode::BadNumber);
        assert!(classify("#").is_err());
        assert!(classify("@1x").is_err());
        let comma = classify("v1,").unwrap_err();
        assert_eq!(comma.code, DiagCode::BadSyntax);
        assert!(comma.message.contains("commas"));
        assert!(classify("a.b").is_err());
    }
}
