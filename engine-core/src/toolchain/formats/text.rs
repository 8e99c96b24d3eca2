//! Small text helpers shared by the text formats: identifiers, columns, numbered lines,
//! field splitting, and [`IdRef`] (a number or a name resolved later).

use std::fmt;

/// True for `[A-Za-z_][A-Za-z0-9_]*`, the shape of HSM symbol names.
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Number of characters in `text` as a column width (tabs count as one).
pub(crate) fn char_count(text: &str) -> u32 {
    u32::try_from(text.chars().count()).unwrap_or(u32::MAX)
}

/// The lines of a text file with their 1-based numbers, for LF or CRLF files; a leading
/// byte-order mark is dropped.
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n').enumerate().map(|(i, line)| {
        let number = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
        (number, line.strip_suffix('\r').unwrap_or(line))
    })
}

/// A field of a line: its trimmed text and the 1-based column where that text starts
/// (where the field starts, if it is empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Field<'a> {
    /// 1-based column of the trimmed text.
    pub column: u32,
    /// The field without surrounding whitespace.
    pub text: &'a str,
}

/// Splits `line` at every `separator`, trimming each field.
pub(crate) fn split_fields(line: &str, separator: char) -> impl Iterator<Item = Field<'_>> {
    let mut column = 1u32;
    line.split(separator).map(move |raw| {
        let trimmed = raw.trim_start();
        let lead = raw.get(..raw.len() - trimmed.len()).unwrap_or("");
        let field = Field {
            column: column.saturating_add(char_count(lead)),
            text: trimmed.trim_end(),
        };
        column = column.saturating_add(char_count(raw)).saturating_add(1);
        field
    })
}

/// Splits `line` into whitespace-separated tokens with their columns.
pub(crate) fn split_whitespace(line: &str) -> Vec<Field<'_>> {
    let mut tokens = Vec::new();
    let mut start: Option<(usize, u32)> = None;
    let mut column = 0u32;
    for (index, c) in line.char_indices() {
        column = column.saturating_add(1);
        match (c.is_whitespace(), start) {
            (false, None) => start = Some((index, column)),
            (true, Some((from, col))) => {
                tokens.push(Field {
                    column: col,
                    text: line.get(from..index).unwrap_or(""),
                });
                start = None;
            }
            _ => {}
        }
    }
    if let Some((from, col)) = start {
        tokens.push(Field {
            column: col,
            text: line.get(from..).unwrap_or(""),
        });
    }
    tokens
}

/// A number, or a name the loader resolves later (an equate label or an HSM symbol).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IdRef {
    /// Written as a decimal or `0x` hex number.
    Number(i64),
    /// Written as a name, spelled as in the file.
    Name(String),
}

impl IdRef {
    /// The number, if written as one.
    pub fn as_number(&self) -> Option<i64> {
        match self {
            IdRef::Number(n) => Some(*n),
            IdRef::Name(_) => None,
        }
    }

    /// The name, if written as one.
    pub fn as_name(&self) -> Option<&str> {
        match self {
            IdRef::Number(_) => None,
            IdRef::Name(name) => Some(name),
        }
    }

    /// The number, looking names up with `lookup`.
    pub fn resolve(&self, lookup: impl FnOnce(&str) -> Option<i64>) -> Option<i64> {
        match self {
            IdRef::Number(n) => Some(*n),
            IdRef::Name(name) => lookup(name),
        }
    }

    /// A key under which two references to the same thing compare equal
    /// (numbers by value, names case-insensitively).
    pub(crate) fn identity(&self) -> String {
        match self {
            IdRef::Number(n) => format!("#{n}"),
            IdRef::Name(name) => name.to_ascii_lowercase(),
        }
    }
}

impl fmt::Display for IdRef {
    /// Numbers in decimal, names as written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdRef::Number(n) => write!(f, "{n}"),
            IdRef::Name(name) => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_helpers_report_columns() {
        let fields: Vec<_> = split_fields(" a ,\tb,", ',').collect();
        assert_eq!(
            fields,
            vec![
                Field {
                    column: 2,
                    text: "a"
                },
                Field {
                    column: 6,
                    text: "b"
                },
                Field {
                    column: 8,
                    text: ""
                }
            ]
        );
        let tokens = split_whitespace("  x\tyz  (0x2)");
        let cols: Vec<_> = tokens.iter().map(|t| (t.column, t.text)).collect();
        assert_eq!(cols, vec![(3, "x"), (5, "yz"), (9, "(0x2)")]);
        let lines: Vec<_> = numbered_lines("\u{feff}a\r\nb\n").collect();
        assert_eq!(lines, vec![(1, "a"), (2, "b"), (3, "")]);
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("_a1") && is_identifier("Zed"));
        assert!(!is_identifier("") && !is_identifier("1a") && !is_identifier("a-b"));
        assert_eq!(char_count("é\tx"), 3);
    }
}
