//! The tab-separated record layout shared by HitBench's own text formats (`.sym`, `.hdb`):
//! a magic line `NAME VERSION`, then one record per line, fields separated by tabs,
//! blank lines and `;` comment lines ignored.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use std::path::Path;

/// One record: its 1-based line number and its tab-separated fields.
pub struct Record<'a> {
    /// 1-based line number.
    pub line: u32,
    /// The fields, the record kind first.
    pub fields: Vec<&'a str>,
}

impl Record<'_> {
    /// The 1-based column where field `index` starts.
    pub fn column(&self, index: usize) -> u32 {
        let before: usize = self
            .fields
            .iter()
            .take(index)
            .map(|f| f.chars().count() + 1)
            .sum();
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }

    /// Field `index` parsed as an unsigned number, or a diagnostic naming it.
    pub fn number<T: std::str::FromStr>(
        &self,
        index: usize,
        what: &str,
        file: &Path,
    ) -> Result<T, Diagnostic> {
        let text = self.text(index, what, file)?;
        text.parse::<T>().map_err(|_| {
            Diagnostic::error(
                DiagCode::BadNumber,
                file,
                self.line,
                self.column(index),
                format!("{what} must be a number, found `{text}`"),
            )
        })
    }

    /// Field `index` as text, or a diagnostic if the record is too short.
    pub fn text(&self, index: usize, what: &str, file: &Path) -> Result<&str, Diagnostic> {
        self.fields.get(index).copied().ok_or_else(|| {
            Diagnostic::error(
                DiagCode::MissingField,
                file,
                self.line,
                self.column(self.fields.len()),
                format!("`{}` record is missing its {what}", self.fields[0]),
            )
        })
    }
}

/// Splits `text` into records after checking the magic line (`magic` followed by a
/// space and `version`). A missing or different magic is one error and no records.
pub fn parse<'a>(
    text: &'a str,
    file: &Path,
    magic: &str,
    version: u32,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Record<'a>> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (u32::try_from(i + 1).unwrap_or(u32::MAX), l));
    let header = lines.find(|(_, l)| !l.trim().is_empty());
    let expected = format!("{magic} {version}");
    match header {
        Some((_, l)) if l.trim().trim_start_matches('\u{feff}') == expected => {}
        Some((line, l)) => {
            let (code, message) = match l.trim().strip_prefix(magic) {
                Some(v) => (
                    DiagCode::UnsupportedVersion,
                    format!(
                        "unsupported {magic} version `{}` (this build reads version {version})",
                        v.trim()
                    ),
                ),
                None => (
                    DiagCode::BadHeader,
                    format!("not a {magic} file: the first line must be `{expected}`"),
                ),
            };
            diagnostics.push(Diagnostic::error(code, file, line, 1, message));
            return Vec::new();
        }
        None => {
            diagnostics.push(Diagnostic::error(
                DiagCode::BadHeader,
                file,
                0,
                0,
                format!("empty file: expected `{expected}`"),
            ));
            return Vec::new();
        }
    }
    lines
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with(';')
        })
        .map(|(line, l)| Record {
            line,
            fields: l.trim_end_matches('\r').split('\t').collect(),
        })
        .collect()
}
