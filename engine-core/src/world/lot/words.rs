//! The words of a lot file's line: [`tokenize`] splits it into words and quoted strings
//! with their columns, and [`Words`] reads them in order, each mistake a [`Diagnostic`]
//! at its column.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use std::ops::Range;
use std::path::Path;

/// One word of a line.
#[derive(Debug)]
pub(super) struct Token {
    pub(super) text: String,
    /// 1-based character column.
    pub(super) column: u32,
    pub(super) quoted: bool,
    /// Where it is in the line, in bytes (quotes included).
    pub(super) bytes: Range<usize>,
}

/// Splits a line into words and quoted strings, up to a `#` comment. `Err` holds the
/// column of an unterminated quote.
pub(super) fn tokenize(line: &str) -> Result<Vec<Token>, u32> {
    let mut tokens = Vec::new();
    let mut chars = line.char_indices().zip(1u32..).peekable();
    let end_of = |chars: &mut std::iter::Peekable<_>| {
        chars
            .peek()
            .map_or(line.len(), |&((at, _), _): &((usize, char), u32)| at)
    };
    while let Some(&((start, c), column)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c == '#' {
            break;
        }
        let mut text = String::new();
        if c == '"' {
            chars.next();
            let mut closed = false;
            while let Some(((_, c), _)) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => {
                        if let Some(((_, next), _)) = chars.next() {
                            text.push(next);
                        }
                    }
                    _ => text.push(c),
                }
            }
            if !closed {
                return Err(column);
            }
            tokens.push(Token {
                text,
                column,
                quoted: true,
                bytes: start..end_of(&mut chars),
            });
        } else {
            while let Some(&((_, c), _)) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                text.push(c);
                chars.next();
            }
            tokens.push(Token {
                text,
                column,
                quoted: false,
                bytes: start..end_of(&mut chars),
            });
        }
    }
    Ok(tokens)
}

/// The words of one line, read in order.
pub(super) struct Words<'a> {
    pub(super) tokens: &'a [Token],
    pub(super) next: usize,
    pub(super) file: &'a Path,
    pub(super) line: u32,
    /// Column just past the line's last character (for "expected … here").
    pub(super) end: u32,
}

impl<'a> Words<'a> {
    /// An error of kind `code` at `column` of this line.
    pub(super) fn error_at(
        &self,
        code: DiagCode,
        column: u32,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::error(code, self.file, self.line, column, message)
    }

    pub(super) fn peek(&self) -> Option<&'a Token> {
        self.tokens.get(self.next)
    }

    pub(super) fn take(&mut self, what: &str) -> Result<&'a Token, Diagnostic> {
        match self.tokens.get(self.next) {
            Some(token) => {
                self.next += 1;
                Ok(token)
            }
            None => {
                Err(self.error_at(DiagCode::MissingField, self.end, format!("expected {what}")))
            }
        }
    }

    pub(super) fn float(&mut self, what: &str) -> Result<(f32, &'a Token), Diagnostic> {
        let token = self.take(what)?;
        match token.text.parse::<f32>() {
            Ok(v) if v.is_finite() && !token.quoted => Ok((v, token)),
            _ => Err(self.error_at(
                DiagCode::BadNumber,
                token.column,
                format!("expected {what} (a number), not `{}`", token.text),
            )),
        }
    }

    pub(super) fn int(&mut self, what: &str) -> Result<(i32, &'a Token), Diagnostic> {
        let token = self.take(what)?;
        match token.text.parse::<i32>() {
            Ok(v) if !token.quoted => Ok((v, token)),
            _ => Err(self.error_at(
                DiagCode::BadNumber,
                token.column,
                format!("expected {what} (a whole number), not `{}`", token.text),
            )),
        }
    }

    pub(super) fn in_range(
        &mut self,
        what: &str,
        min: i32,
        max: i32,
    ) -> Result<(i32, &'a Token), Diagnostic> {
        let (v, token) = self.int(what)?;
        if v < min || v > max {
            let message = format!("{what} must be {min}–{max}, not {v}");
            return Err(self.error_at(DiagCode::NumberOutOfRange, token.column, message));
        }
        Ok((v, token))
    }

    pub(super) fn done(&self) -> Result<(), Diagnostic> {
        match self.peek() {
            Some(token) => Err(self.error_at(
                DiagCode::ExtraField,
                token.column,
                format!("unexpected `{}` at the end of the line", token.text),
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_columns_quotes_and_stop_at_comments() {
        let tokens = tokenize(r#"object 2 tv "Kitchen \"TV\"" at 1 2 # note"#).unwrap();
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            texts,
            ["object", "2", "tv", "Kitchen \"TV\"", "at", "1", "2"]
        );
        assert_eq!(tokens[3].column, 13);
        assert!(tokens[3].quoted);
        let line = r#"object 2 tv "Kitchen \"TV\"" at 1 2 # note"#;
        assert_eq!(&line[tokens[3].bytes.clone()], r#""Kitchen \"TV\"""#);
        assert_eq!(&line[tokens[6].bytes.clone()], "2");
        assert_eq!(tokenize("a \"open").unwrap_err(), 3);
    }
}
