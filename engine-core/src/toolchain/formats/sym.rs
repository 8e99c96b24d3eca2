//! `.sym` files: the linking interface of one assembled `.hit` — what it exports (labels
//! and constants, by name) and what it imports (late-bound names it references but does
//! not define, with every place that refers to them). The project loader binds imports
//! by name, so a later data directory can replace a routine, patch or hit list without
//! rebuilding the files that use it. Layout: `docs/formats.md`.

use super::records;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use std::fmt::Write as _;
use std::path::Path;

/// Magic word on the first line.
pub const MAGIC: &str = "HITBENCH-SYM";
/// Format version this build reads and writes.
pub const VERSION: u32 = 1;

/// Whether a symbol is a code address or a plain value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymKind {
    /// A code address in the defining `.hit` (a label).
    Code,
    /// A number: a constant, patch ID, hit list ID…
    Value,
}

impl SymKind {
    fn as_str(self) -> &'static str {
        match self {
            SymKind::Code => "code",
            SymKind::Value => "value",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text {
            "code" => Some(SymKind::Code),
            "value" => Some(SymKind::Value),
            _ => None,
        }
    }
}

/// A name this `.hit` defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The name, spelled as in the source.
    pub name: String,
    /// Label or constant.
    pub kind: SymKind,
    /// Address (for code) or value.
    pub value: i64,
}

/// One place where this `.hit` uses a late-bound name: a 4-byte field to fill in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The name to bind.
    pub name: String,
    /// What the field needs: an address (branch target) or a value.
    pub kind: SymKind,
    /// Offset of the 4-byte field in the `.hit` file.
    pub offset: u32,
    /// Index into [`SymFile::files`] of the source that refers to it.
    pub file: u32,
    /// 1-based source line of the reference.
    pub line: u32,
}

/// A parsed `.sym` file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SymFile {
    /// Source files, referred to by index.
    pub files: Vec<String>,
    /// Defined names.
    pub exports: Vec<Export>,
    /// References to bind at load time.
    pub imports: Vec<Import>,
}

impl SymFile {
    /// Parses a `.sym` file, reporting every bad record and keeping the good ones.
    pub fn parse(text: &str, file: &Path) -> (Self, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let mut out = SymFile::default();
        for record in records::parse(text, file, MAGIC, VERSION, &mut diagnostics) {
            if let Err(d) = out.push_record(&record, file) {
                diagnostics.push(d);
            }
        }
        for import in &out.imports {
            if import.file as usize >= out.files.len() {
                diagnostics.push(Diagnostic::error(
                    DiagCode::BadImport,
                    file,
                    0,
                    0,
                    format!(
                        "import `{}` refers to source file #{} which is not listed",
                        import.name, import.file
                    ),
                ));
            }
        }
        (out, diagnostics)
    }

    fn push_record(&mut self, r: &records::Record<'_>, file: &Path) -> Result<(), Diagnostic> {
        let kind_of = |index: usize| -> Result<SymKind, Diagnostic> {
            let text = r.text(index, "kind", file)?;
            SymKind::parse(text).ok_or_else(|| {
                Diagnostic::error(
                    DiagCode::UnknownValue,
                    file,
                    r.line,
                    r.column(index),
                    format!("symbol kind must be `code` or `value`, found `{text}`"),
                )
            })
        };
        match r.fields[0] {
            "file" => {
                let index: usize = r.number(1, "file index", file)?;
                if index != self.files.len() {
                    return Err(Diagnostic::error(
                        DiagCode::OutOfOrder,
                        file,
                        r.line,
                        r.column(1),
                        format!(
                            "file records must be numbered in order: expected {}",
                            self.files.len()
                        ),
                    ));
                }
                self.files.push(r.text(2, "path", file)?.to_string());
            }
            "export" => self.exports.push(Export {
                name: r.text(1, "name", file)?.to_string(),
                kind: kind_of(2)?,
                value: r.number(3, "value", file)?,
            }),
            "import" => self.imports.push(Import {
                name: r.text(1, "name", file)?.to_string(),
                kind: kind_of(2)?,
                offset: r.number(3, "offset", file)?,
                file: r.number(4, "file index", file)?,
                line: r.number(5, "line", file)?,
            }),
            other => {
                return Err(Diagnostic::error(
                    DiagCode::UnknownRecord,
                    file,
                    r.line,
                    1,
                    format!("unknown record `{other}` (expected file, export or import)"),
                ));
            }
        }
        Ok(())
    }

    /// Writes the file in the documented layout.
    pub fn to_text(&self) -> String {
        let mut out = format!("{MAGIC} {VERSION}\n");
        for (index, path) in self.files.iter().enumerate() {
            let _ = writeln!(out, "file\t{index}\t{path}");
        }
        for e in &self.exports {
            let _ = writeln!(out, "export\t{}\t{}\t{}", e.name, e.kind.as_str(), e.value);
        }
        for i in &self.imports {
            let _ = writeln!(
                out,
                "import\t{}\t{}\t{}\t{}\t{}",
                i.name,
                i.kind.as_str(),
                i.offset,
                i.file,
                i.line
            );
        }
        out
    }

    /// The export with this name (case-insensitive).
    pub fn export(&self, name: &str) -> Option<&Export> {
        self.exports
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> SymFile {
        SymFile {
            files: vec!["tracks.src".into(), "common/generic.src".into()],
            exports: vec![
                Export {
                    name: "PlayPiano".into(),
                    kind: SymKind::Code,
                    value: 16,
                },
                Export {
                    name: "hl_piano".into(),
                    kind: SymKind::Value,
                    value: -3,
                },
            ],
            imports: vec![Import {
                name: "generic_fm_smartlists".into(),
                kind: SymKind::Code,
                offset: 40,
                file: 1,
                line: 12,
            }],
        }
    }

    #[test]
    fn round_trip() {
        let s = sample();
        let (back, diags) = SymFile::parse(&s.to_text(), Path::new("a.sym"));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(back, s);
        assert_eq!(back.export("playpiano").map(|e| e.value), Some(16));
    }

    #[test]
    fn bad_magic_and_records_are_reported() {
        let (_, d) = SymFile::parse("HITBENCH-HDB 1\n", Path::new("a.sym"));
        assert_eq!(d.len(), 1);
        assert!(d[0].message.contains("not a HITBENCH-SYM file"));
        let (_, d) = SymFile::parse("HITBENCH-SYM 9\n", Path::new("a.sym"));
        assert!(
            d[0].message
                .contains("unsupported HITBENCH-SYM version `9`")
        );
        let text = "HITBENCH-SYM 1\nfile\t0\ta.src\nexport\tx\tcode\tzz\nbogus\n\
                    import\ty\tvalue\t4\t0\t3\n";
        let (s, d) = SymFile::parse(text, Path::new("a.sym"));
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!((d[0].line, d[0].column), (3, 15));
        assert_eq!(d[1].line, 4);
        assert_eq!(s.imports.len(), 1);
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = SymFile::parse(&text, Path::new("x.sym"));
            let _ = SymFile::parse(&format!("HITBENCH-SYM 1\n{text}"), Path::new("x.sym"));
        }
    }
}
