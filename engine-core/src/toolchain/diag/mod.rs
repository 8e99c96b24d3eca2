//! Diagnostics: errors and warnings that name a file, a line and a column.
//!
//! Every text parser and the assembler return their result together with *all* the
//! diagnostics they found, so an editor can show them at once. Each names its kind of
//! problem with a [`DiagCode`], and carries the facts a reader needs (the name it is
//! about, the table section, a suggestion) as fields: nothing reads a message's words.

use std::fmt;
use std::path::{Path, PathBuf};

mod code;

pub use code::DiagCode;

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
///
/// The message is for people; a program reads the [`code`](Diagnostic::code) and the
/// optional facts ([`subject`](Diagnostic::subject), [`section`](Diagnostic::section),
/// [`suggestion`](Diagnostic::suggestion)), which producers set where they know them
/// with the `with_…` builders.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of problem it is.
    pub code: DiagCode,
    /// The file the problem is in.
    pub file: PathBuf,
    /// 1-based line, 0 if unknown.
    pub line: u32,
    /// 1-based column, 0 if unknown.
    pub column: u32,
    /// A sentence a person understands.
    pub message: String,
    /// The facts, boxed (most diagnostics have none, and a diagnostic travels in
    /// `Result`s).
    facts: Option<Box<Facts>>,
}

/// What a diagnostic is about, beyond its code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct Facts {
    subject: Option<String>,
    section: Option<String>,
    suggestion: Option<String>,
}

impl Diagnostic {
    /// An error of kind `code` at `file:line:column`.
    pub fn error(
        code: DiagCode,
        file: &Path,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity: Severity::Error,
            code,
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
            facts: None,
        }
    }

    /// A warning of kind `code` at `file:line:column`.
    pub fn warning(
        code: DiagCode,
        file: &Path,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(code, file, line, column, message)
        }
    }

    fn facts_mut(&mut self) -> &mut Facts {
        self.facts.get_or_insert_with(Box::default)
    }

    /// The same, about `subject` (a name, key or path as written).
    #[must_use]
    pub fn with_subject(mut self, subject: impl Into<String>) -> Self {
        self.facts_mut().subject = Some(subject.into());
        self
    }

    /// The same, in table section `section` (without brackets).
    #[must_use]
    pub fn with_section(mut self, section: impl Into<String>) -> Self {
        self.facts_mut().section = Some(section.into());
        self
    }

    /// The same, suggesting `suggestion` (when the producer knows a close name).
    #[must_use]
    pub fn with_suggestion(mut self, suggestion: Option<String>) -> Self {
        if suggestion.is_some() || self.facts.is_some() {
            self.facts_mut().suggestion = suggestion;
        }
        self
    }

    /// The name, key or path the problem is about, as the file writes it (an unbound
    /// symbol, an event, a duplicated key, a patch's sample path), when known.
    pub fn subject(&self) -> Option<&str> {
        self.facts.as_ref()?.subject.as_deref()
    }

    /// The table section the problem is in, without brackets (`Track`, `Patch`), when
    /// known.
    pub fn section(&self) -> Option<&str> {
        self.facts.as_ref()?.section.as_deref()
    }

    /// What the author may have meant (a close name), when one is known; the message
    /// says it too.
    pub fn suggestion(&self) -> Option<&str> {
        self.facts.as_ref()?.suggestion.as_deref()
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:col: error|warning: message [code]`, leaving out unknown line/column
    /// parts. Control characters in the path and the message are escaped (see
    /// [`printable`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_place(f, self)?;
        write!(
            f,
            ": {}: {} [{}]",
            self.severity,
            printable(&self.message),
            self.code
        )
    }
}

/// `file:line:col` of a diagnostic, leaving out an unknown line or column, with control
/// characters escaped: how every printed diagnostic starts.
pub fn write_place(f: &mut fmt::Formatter<'_>, d: &Diagnostic) -> fmt::Result {
    write!(f, "{}", printable(&d.file.display().to_string()))?;
    if d.line > 0 {
        write!(f, ":{}", d.line)?;
        if d.column > 0 {
            write!(f, ":{}", d.column)?;
        }
    }
    Ok(())
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
        let d = Diagnostic::error(DiagCode::BadNumber, Path::new("a.src"), 3, 7, "bad");
        assert_eq!(d.to_string(), "a.src:3:7: error: bad [bad-number]");
        let w = Diagnostic::warning(DiagCode::ExtraField, Path::new("a.src"), 3, 0, "meh");
        assert_eq!(w.to_string(), "a.src:3: warning: meh [extra-field]");
        let f = Diagnostic::error(DiagCode::FileNotFound, Path::new("a.src"), 0, 0, "gone");
        assert_eq!(f.to_string(), "a.src: error: gone [file-not-found]");
        assert!(has_errors(&[w.clone(), d]));
        assert!(!has_errors(&[w]));
    }

    #[test]
    fn control_characters_cannot_forge_lines_or_reach_the_terminal() {
        let d = Diagnostic::error(
            DiagCode::BadSyntax,
            Path::new("a\x1b[2J.src"),
            3,
            0,
            "patch `x\rb.src:1: error: forged` \u{202e}gnp.exe\u{7}\u{9b}",
        );
        let shown = d.to_string();
        assert_eq!(
            shown,
            "a\\x1b[2J.src:3: error: patch `x\\rb.src:1: error: forged` \\u{202e}gnp.exe\\x07\\x9b \
             [bad-syntax]"
        );
        assert!(!shown.chars().any(needs_escape), "{shown:?}");
        assert!(matches!(
            printable("plain text"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(printable("tab\there\nline"), "tab\\there\\nline");
    }
}
