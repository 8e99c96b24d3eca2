//! One command line as the argument readers see it: the words with their 1-based
//! columns ([`Line`]), helpers that read an object ID, a number or the rest of the line,
//! and [`ParseError`], which says at which column what is wrong.

use crate::world::ObjectId;
use std::fmt;

/// A command line that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based column of the problem in the line.
    pub column: u32,
    /// What is wrong, and how to write it.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A [`ParseError`] at `column`.
pub(super) fn error(column: u32, message: impl Into<String>) -> ParseError {
    ParseError {
        column,
        message: message.into(),
    }
}

/// One command line split into words, each with its 1-based column: what an argument
/// reader of [`COMMANDS`](super::COMMANDS) gets.
pub(super) struct Line<'a> {
    /// The line without its comment (a `play` target is the rest of it).
    code: &'a str,
    /// The command word as typed.
    pub(super) head: &'a str,
    /// The command word's column.
    pub(super) head_column: u32,
    /// The words after the command word.
    pub(super) args: &'a [(u32, &'a str)],
    /// The column just past the last word, where a missing argument is reported.
    end: u32,
}

impl<'a> Line<'a> {
    /// The line `code` (comment cut) split into `words` ([`split_words`]); `None` when it
    /// has none.
    pub(super) fn new(code: &'a str, words: &'a [(u32, &'a str)]) -> Option<Self> {
        let (&(head_column, head), args) = words.split_first()?;
        Some(Self {
            code,
            head,
            head_column,
            args,
            end: end_column(words),
        })
    }

    /// Argument `index` (0 is the first after the command word) and its column.
    pub(super) fn arg(&self, index: usize) -> Option<(u32, &'a str)> {
        self.args.get(index).copied()
    }

    /// An error for an argument that is not there.
    pub(super) fn missing(&self, message: impl Into<String>) -> ParseError {
        error(self.end, message)
    }

    /// Argument `index` as an object ID (`3` or `@3`); `what` names the command.
    pub(super) fn object(&self, index: usize, what: &str) -> Result<ObjectId, ParseError> {
        let Some((column, text)) = self.arg(index) else {
            return Err(self.missing(format!("{what} needs an object ID (a number)")));
        };
        text.trim_start_matches('@')
            .parse()
            .map_err(|_| error(column, format!("`{text}` is not an object ID (a number)")))
    }

    /// Argument `index` as a finite number; `usage` shows how to write the command.
    pub(super) fn number(&self, index: usize, usage: &str) -> Result<f32, ParseError> {
        let Some((column, text)) = self.arg(index) else {
            return Err(self.missing(format!("missing a number: {usage}")));
        };
        text.parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| error(column, format!("`{text}` is not a number: {usage}")))
    }

    /// The rest of the line from argument `index` on, spaces inside kept (a path may
    /// hold them).
    pub(super) fn rest_from(&self, index: usize) -> Option<&'a str> {
        let (column, _) = self.arg(index)?;
        let start = usize::try_from(column.saturating_sub(1)).unwrap_or(0);
        let rest = self
            .code
            .char_indices()
            .nth(start)
            .and_then(|(i, _)| self.code.get(i..))
            .unwrap_or_default();
        Some(rest.trim())
    }
}

/// The words of a line with their 1-based columns (in characters).
pub(crate) fn split_words(line: &str) -> Vec<(u32, &str)> {
    let mut items = Vec::new();
    let mut start = None;
    let mut column = 0u32;
    let mut byte_start = 0;
    for (i, c) in line.char_indices() {
        column += 1;
        if c.is_whitespace() {
            if let Some(col) = start.take() {
                items.push((col, &line[byte_start..i]));
            }
        } else if start.is_none() {
            start = Some(column);
            byte_start = i;
        }
    }
    if let Some(col) = start {
        items.push((col, &line[byte_start..]));
    }
    items
}

/// The column just past the last word.
fn end_column(words: &[(u32, &str)]) -> u32 {
    words.last().map_or(1, |(c, w)| {
        c + u32::try_from(w.chars().count()).unwrap_or(0)
    })
}
