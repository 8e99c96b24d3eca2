//! Diagnostics: errors and warnings that name a file, a line and a column.
//!
//! Every text parser and the assembler return their result together with *all* the
//! diagnostics they found, so an editor can show them at once.

use std::fmt;
use std::path::{Path, PathBuf};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The input is usable; something looks wrong.
    Warning,
    /// The input (or this part of it) could not be used.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One problem found in an input file.
///
/// `line` and `column` are 1-based; 0 means "not known" (for example an error about
/// a whole file). Columns count characters, a tab counting as one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file the problem is in.
    pub file: PathBuf,
    /// 1-based line, 0 if unknown.
    pub line: u32,
    /// 1-based column, 0 if unknown.
    pub column: u32,
    /// A sentence a person understands.
    pub message: String,
}

impl Diagnostic {
    /// An error at `file:line:column`.
    pub fn error(file: &Path, line: u32, column: u32, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A warning at `file:line:column`.
    pub fn warning(file: &Path, line: u32, column: u32, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(file, line, column, message)
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: error|warning: message`, leaving out unknown line/column parts.
    /// Control characters in the path and the message are escaped (see [`printable`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", printable(&self.file.display().to_string()))?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        write!(f, ": {}: {}", self.severity, printable(&self.message))
    }
}

/// `text` with every character that could change how a terminal or a log shows it
/// escaped: C0 and C1 control characters (a `\r` would let a name in a data file forge
/// a line of its own, an ESC start a terminal sequence), DEL, and the Unicode
/// direction overrides that reorder what is shown. Escapes are Rust-style (`\r`, `\n`,
/// `\t`, `\x1b`, `\u{202e}`); a backslash itself is left alone. Borrows when there is
/// nothing to escape.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) && u32::from(c) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// True for the characters [`printable`] escapes.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// True if any diagnostic in the slice is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_includes_known_parts_only() {
        let d = Diagnostic::error(Path::new("a.src"), 3, 7, "bad");
        assert_eq!(d.to_string(), "a.src:3:7: error: bad");
        let w = Diagnostic::warning(Path::new("a.src"), 3, 0, "meh");
        assert_eq!(w.to_string(), "a.src:3: warning: meh");
        let f = Diagnostic::error(Path::new("a.src"), 0, 0, "gone");
        assert_eq!(f.to_string(), "a.src: error: gone");
        assert!(has_errors(&[w.clone(), d]));
        assert!(!has_errors(&[w]));
    }

    #[test]
    fn control_characters_cannot_forge_lines_or_reach_the_terminal() {
        let d = Diagnostic::error(
            Path::new("a\x1b[2J.src"),
            3,
            0,
            "patch `x\rb.src:1: error: forged` \u{202e}gnp.exe\u{7}\u{9b}",
        );
        let shown = d.to_string();
        assert_eq!(
            shown,
            "a\\x1b[2J.src:3: error: patch `x\\rb.src:1: error: forged` \\u{202e}gnp.exe\\x07\\x9b"
        );
        assert!(!shown.chars().any(needs_escape), "{shown:?}");
        assert!(matches!(
            printable("plain text"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(printable("tab\there\nline"), "tab\\there\\nline");
    }
}
