//! Output that cannot drive the terminal: every byte a command writes goes through
//! [`TerminalSafe`], which escapes control characters other than newline and tab, so a
//! name in a data file (a patch called `x\r…`, a file name with an ESC sequence) can
//! neither forge a line of output nor send the terminal a command.
//!
//! Diagnostics already escape their text (`engine_core::toolchain::diag::printable`), newlines
//! included; this is the backstop for everything else a command prints.

use std::io::{self, Write};

/// A writer that passes text through and escapes ASCII control characters (but `\n` and
/// `\t`) as `\r`, `\x1b`, … . Bytes of multi-byte UTF-8 characters pass unchanged.
pub struct TerminalSafe<'a> {
    inner: &'a mut dyn Write,
}

impl<'a> TerminalSafe<'a> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut dyn Write) -> Self {
        Self { inner }
    }
}

impl Write for TerminalSafe<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut start = 0;
        for (i, &byte) in buf.iter().enumerate() {
            let escaped: Option<&[u8]> = match byte {
                b'\n' | b'\t' => None,
                b'\r' => Some(b"\\r"),
                0x00..=0x1f | 0x7f => Some(&[]),
                _ => None,
            };
            let Some(escaped) = escaped else {
                continue;
            };
            self.inner.write_all(&buf[start..i])?;
            if escaped.is_empty() {
                write!(self.inner, "\\x{byte:02x}")?;
            } else {
                self.inner.write_all(escaped)?;
            }
            start = i + 1;
        }
        self.inner.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bytes_are_escaped_newlines_and_text_pass() {
        let mut out = Vec::new();
        {
            let mut safe = TerminalSafe::new(&mut out);
            write!(safe, "ok\tline\n\x1b[31mred\rforged\x07 é\n").unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ok\tline\n\\x1b[31mred\\rforged\\x07 é\n"
        );
    }
}
