//! `.hdb` files: debug info for one `.hit` — which source file and line each code address
//! range came from, and where each label was defined. With it, a track that faults is
//! reported as `file:line`, and the disassembler can restore label names.
//! Layout: `docs/formats.md`.

use super::records;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use std::fmt::Write as _;
use std::path::Path;

/// Magic word on the first line.
pub const MAGIC: &str = "HITBENCH-HDB";
/// Format version this build reads and writes.
pub const VERSION: u32 = 1;

/// Code bytes `[start, end)` came from `line` of source `file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRange {
    /// First address (inclusive).
    pub start: u32,
    /// End address (exclusive).
    pub end: u32,
    /// Index into [`HdbFile::files`].
    pub file: u32,
    /// 1-based source line.
    pub line: u32,
}

/// A label and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Address the label names.
    pub address: u32,
    /// The label as spelled in the source.
    pub name: String,
    /// Index into [`HdbFile::files`].
    pub file: u32,
    /// 1-based source line.
    pub line: u32,
}

/// A parsed `.hdb` file. Line ranges are kept sorted by start address.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HdbFile {
    /// Source files, referred to by index.
    pub files: Vec<String>,
    /// Address ranges, sorted and not overlapping.
    pub lines: Vec<LineRange>,
    /// Labels in source order.
    pub labels: Vec<Label>,
}

/// A source location found for an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLocation<'a> {
    /// The source file as recorded.
    pub file: &'a str,
    /// 1-based line.
    pub line: u32,
}

impl HdbFile {
    /// Parses a `.hdb` file, reporting every bad record and keeping the good ones.
    pub fn parse(text: &str, file: &Path) -> (Self, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let mut out = HdbFile::default();
        for record in records::parse(text, file, MAGIC, VERSION, &mut diagnostics) {
            match out.push_record(&record, file) {
                Ok(()) => {}
                Err(d) => diagnostics.push(d),
            }
        }
        out.lines.sort_by_key(|r| (r.start, r.end));
        let mut kept: Vec<LineRange> = Vec::with_capacity(out.lines.len());
        for range in out.lines.drain(..) {
            match kept.last() {
                Some(prev) if range.start < prev.end => diagnostics.push(Diagnostic::warning(
                    DiagCode::OutOfOrder,
                    file,
                    0,
                    0,
                    format!(
                        "line ranges overlap at address {} (ignored the later one)",
                        range.start
                    ),
                )),
                _ => kept.push(range),
            }
        }
        out.lines = kept;
        (out, diagnostics)
    }

    fn push_record(&mut self, r: &records::Record<'_>, file: &Path) -> Result<(), Diagnostic> {
        let file_index = |index: usize, this: &Self| -> Result<u32, Diagnostic> {
            let value: u32 = r.number(index, "file index", file)?;
            if value as usize >= this.files.len() {
                return Err(Diagnostic::error(
                    DiagCode::OutOfOrder,
                    file,
                    r.line,
                    r.column(index),
                    format!("file #{value} is not listed before this record"),
                ));
            }
            Ok(value)
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
            "line" => {
                let start: u32 = r.number(1, "start address", file)?;
                let end: u32 = r.number(2, "end address", file)?;
                if end <= start {
                    return Err(Diagnostic::error(
                        DiagCode::OutOfOrder,
                        file,
                        r.line,
                        r.column(2),
                        format!("end address {end} is not after start address {start}"),
                    ));
                }
                let file_ix = file_index(3, self)?;
                self.lines.push(LineRange {
                    start,
                    end,
                    file: file_ix,
                    line: r.number(4, "line", file)?,
                });
            }
            "label" => {
                let address = r.number(1, "address", file)?;
                let name = r.text(2, "name", file)?.to_string();
                let file_ix = file_index(3, self)?;
                self.labels.push(Label {
                    address,
                    name,
                    file: file_ix,
                    line: r.number(4, "line", file)?,
                });
            }
            other => {
                return Err(Diagnostic::error(
                    DiagCode::UnknownRecord,
                    file,
                    r.line,
                    1,
                    format!("unknown record `{other}` (expected file, line or label)"),
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
        for r in &self.lines {
            let _ = writeln!(out, "line\t{}\t{}\t{}\t{}", r.start, r.end, r.file, r.line);
        }
        for l in &self.labels {
            let _ = writeln!(
                out,
                "label\t{}\t{}\t{}\t{}",
                l.address, l.name, l.file, l.line
            );
        }
        out
    }

    /// Records that `[start, end)` came from `file:line`, merging with the previous range
    /// when it continues the same line. Ranges must be added in address order.
    pub fn push_range(&mut self, start: u32, end: u32, file: u32, line: u32) {
        if end <= start {
            return;
        }
        if let Some(last) = self.lines.last_mut()
            && last.end == start
            && last.file == file
            && last.line == line
        {
            last.end = end;
            return;
        }
        self.lines.push(LineRange {
            start,
            end,
            file,
            line,
        });
    }

    /// The source location of the code at `address`.
    pub fn locate(&self, address: u32) -> Option<SourceLocation<'_>> {
        let index = self.lines.partition_point(|r| r.end <= address);
        let range = self.lines.get(index)?;
        if range.start > address {
            return None;
        }
        Some(SourceLocation {
            file: self.files.get(range.file as usize)?,
            line: range.line,
        })
    }

    /// The first label defined at `address`.
    pub fn label_at(&self, address: u32) -> Option<&Label> {
        self.labels.iter().find(|l| l.address == address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> HdbFile {
        let mut h = HdbFile {
            files: vec!["tracks.src".into(), "inc/common.src".into()],
            ..HdbFile::default()
        };
        h.push_range(16, 22, 0, 3);
        h.push_range(22, 23, 0, 4);
        h.push_range(23, 25, 0, 4);
        h.push_range(30, 31, 1, 9);
        h.labels.push(Label {
            address: 16,
            name: "tv_repair".into(),
            file: 0,
            line: 2,
        });
        h
    }

    #[test]
    fn ranges_merge_and_locate() {
        let h = sample();
        assert_eq!(h.lines.len(), 3);
        let at = |a| h.locate(a).map(|l| (l.file, l.line));
        assert_eq!(at(16), Some(("tracks.src", 3)));
        assert_eq!(at(21), Some(("tracks.src", 3)));
        assert_eq!(at(24), Some(("tracks.src", 4)));
        assert_eq!(at(25), None);
        assert_eq!(at(30), Some(("inc/common.src", 9)));
        assert_eq!(at(3), None);
        assert_eq!(h.label_at(16).map(|l| l.name.as_str()), Some("tv_repair"));
    }

    #[test]
    fn round_trip() {
        let h = sample();
        let (back, d) = HdbFile::parse(&h.to_text(), Path::new("t.hdb"));
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(back, h);
    }

    #[test]
    fn bad_records_are_reported() {
        let text = "HITBENCH-HDB 1\nfile\t0\ta.src\nline\t20\t10\t0\t1\nline\t1\t2\t5\t1\n\
                    label\t1\tx\t0\n";
        let (h, d) = HdbFile::parse(text, Path::new("t.hdb"));
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d[0].message.contains("not after"));
        assert!(d[1].message.contains("file #5"));
        assert!(d[2].message.contains("missing its line"));
        assert!(h.lines.is_empty());
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}", n in 0u32..100) {
            let h = HdbFile::parse(&format!("HITBENCH-HDB 1\n{text}"), Path::new("x.hdb")).0;
            let _ = h.locate(n);
        }
    }
}
