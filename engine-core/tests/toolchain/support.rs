//! Helpers shared by the toolchain tests.

use engine_core::toolchain::asm::{AsmOptions, Assembly, MemoryFiles, assemble_text};
use engine_core::toolchain::diag::Severity;
use std::path::{Path, PathBuf};

/// Assembles `source` (named `test.src`) with no include files.
pub fn assemble(source: &str) -> Assembly {
    assemble_with(source, &MemoryFiles::default())
}

/// Assembles `source` (named `test.src`) with the given in-memory files.
pub fn assemble_with(source: &str, files: &MemoryFiles) -> Assembly {
    assemble_text(Path::new("test.src"), source, &AsmOptions::default(), files)
}

/// Assembles and insists on a clean result; returns the code after the header.
pub fn code_of(source: &str) -> Vec<u8> {
    let a = assemble(source);
    assert!(
        a.diagnostics.is_empty(),
        "{:#?}\n---\n{source}",
        a.diagnostics
    );
    a.hit.code().to_vec()
}

/// A diagnostic reduced to what the tests compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub severity: Severity,
    pub file: PathBuf,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// The diagnostics of assembling `source` with `files`.
pub fn diagnostics_with(source: &str, files: &MemoryFiles) -> Vec<Seen> {
    assemble_with(source, files)
        .diagnostics
        .into_iter()
        .map(|d| Seen {
            severity: d.severity,
            file: d.file,
            line: d.line,
            column: d.column,
            message: d.message,
        })
        .collect()
}

/// The diagnostics of assembling `source`.
pub fn diagnostics(source: &str) -> Vec<Seen> {
    diagnostics_with(source, &MemoryFiles::default())
}

/// Asserts exactly one diagnostic, at `line:column`, of the given severity, whose
/// message contains every fragment.
pub fn expect_one(seen: &[Seen], severity: Severity, line: u32, column: u32, fragments: &[&str]) {
    assert_eq!(seen.len(), 1, "expected one diagnostic, got {seen:#?}");
    let d = &seen[0];
    assert_eq!(
        (d.severity, d.line, d.column),
        (severity, line, column),
        "{d:#?}"
    );
    for fragment in fragments {
        assert!(
            d.message.contains(fragment),
            "`{fragment}` not in `{}`",
            d.message
        );
    }
}
