//! [`FileProblem`]: a problem found in a data file, as a trace record keeps it.

use crate::toolchain::diag::Diagnostic;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// A diagnostic of a data file (`world.ini`, a lot, a score, a source or table file) as
/// a trace record carries it: where it is and whether it is an error, and the
/// diagnostic as the toolchain prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileProblem {
    /// The file.
    pub file: PathBuf,
    /// 1-based line, 0 if unknown.
    pub line: u32,
    /// 1-based column, 0 if unknown.
    pub column: u32,
    /// An error (else a warning).
    pub error: bool,
    /// The diagnostic as printed (`file:line:col: error: message`): the wording is the
    /// toolchain's, which says what is wrong in its own words.
    pub text: String,
}

impl From<&Diagnostic> for FileProblem {
    fn from(d: &Diagnostic) -> Self {
        Self {
            file: d.file.clone(),
            line: d.line,
            column: d.column,
            error: d.is_error(),
            text: d.to_string(),
        }
    }
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
