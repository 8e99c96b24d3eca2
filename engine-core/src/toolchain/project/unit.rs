//! Code units: one `.hit` each, either assembled from a MakeTrax source on load or read
//! as a built set (`.hit` with its `.hsm`, `.hdb`, `.sym`).

use crate::toolchain::asm::{self, AsmOptions, Assembly, DiskFiles, SymbolKind};
use crate::toolchain::diag::{DiagCode, Diagnostic, Severity};
use crate::toolchain::formats::hdb::HdbFile;
use crate::toolchain::formats::hit::HitFile;
use crate::toolchain::formats::hsm::HsmFile;
use crate::toolchain::formats::sym::SymFile;
use crate::toolchain::fsrules::{ReadRules, Refusal};
use crate::toolchain::registers::Layout;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::defs::CodeRef;

/// Where a unit came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitOrigin {
    /// Assembled from this source file on load.
    Source(PathBuf),
    /// Read from this `.hit` file.
    Built(PathBuf),
}

/// A far branch: the 4-byte field at `offset` is a branch target in another unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeImport {
    /// Offset of the 4-byte field in this unit's `.hit`.
    pub offset: u32,
    /// Where it leads.
    pub target: CodeRef,
}

/// One unit of code.
#[derive(Debug, Clone)]
pub struct CodeUnit {
    /// Index of the data directory it belongs to.
    pub dir: usize,
    /// Where it came from.
    pub origin: UnitOrigin,
    /// The code, with late-bound values filled in.
    pub hit: HitFile,
    /// Register layout.
    pub layout: Layout,
    /// Debug info, with source paths made usable from the working directory (shared by
    /// copies of the unit: the load's and the project's).
    pub hdb: Option<Arc<HdbFile>>,
    /// Linking interface (shared likewise).
    pub sym: Option<Arc<SymFile>>,
    /// The `.hsm` of a built set.
    pub hsm: Option<HsmFile>,
    /// Named code addresses (labels).
    pub labels: Vec<(String, u32)>,
    /// Named numbers the unit defines (`DEFINE`, `tkd_`).
    pub constants: Vec<(String, i64)>,
    /// `[TrackData]` of the unit: track-data ID → address.
    pub track_data: Vec<(u32, u32)>,
    /// Far branches bound at load.
    pub code_imports: Vec<CodeImport>,
    /// Every file the unit was made from (for watching).
    pub files: Vec<PathBuf>,
}

impl CodeUnit {
    /// The file people recognise the unit by.
    pub fn path(&self) -> &Path {
        match &self.origin {
            UnitOrigin::Source(p) | UnitOrigin::Built(p) => p,
        }
    }

    /// The source location of a code address, if debug info has it.
    pub fn locate(&self, address: u32) -> Option<(PathBuf, u32)> {
        let hdb = self.hdb.as_ref()?;
        let location = hdb.locate(address)?;
        Some((PathBuf::from(location.file), location.line))
    }

    /// The label at an address, if any.
    pub fn label_at(&self, address: u32) -> Option<&str> {
        self.labels
            .iter()
            .find(|(_, a)| *a == address)
            .map(|(n, _)| n.as_str())
    }

    /// The address of a label (case-insensitive).
    pub fn label(&self, name: &str) -> Option<u32> {
        self.labels
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, a)| *a)
    }

    /// A unit from an assembly (its `LIST` tables are read separately).
    pub fn from_assembly(dir: usize, source: PathBuf, assembly: &Assembly) -> Self {
        let mut labels = Vec::new();
        let mut constants = Vec::new();
        for symbol in &assembly.symbols {
            match symbol.kind {
                SymbolKind::Label => {
                    labels.push((
                        symbol.name.clone(),
                        u32::try_from(symbol.value).unwrap_or(0),
                    ));
                }
                SymbolKind::Constant | SymbolKind::TrackData => {
                    constants.push((symbol.name.clone(), symbol.value));
                }
                SymbolKind::Register => {}
            }
        }
        let track_data = assembly
            .hot_lines
            .iter()
            .filter(|l| l.section.eq_ignore_ascii_case("TrackData"))
            .filter_map(|l| {
                let id = crate::toolchain::formats::number::parse_int(&l.key)?;
                let address = crate::toolchain::formats::number::parse_int(&l.value)?;
                Some((u32::try_from(id).ok()?, u32::try_from(address).ok()?))
            })
            .collect();
        Self {
            dir,
            origin: UnitOrigin::Source(source),
            hit: assembly.hit.clone(),
            layout: assembly.layout,
            hdb: Some(Arc::new(assembly.hdb.clone())),
            sym: Some(Arc::new(assembly.sym.clone())),
            hsm: None,
            labels,
            constants,
            track_data,
            code_imports: Vec::new(),
            files: assembly.sources.clone(),
        }
    }
}

/// Assembles a source file as a unit, reading it and its includes through `files` (the
/// project's data folders).
pub fn assemble(dir: usize, source: &Path, files: &DiskFiles) -> (CodeUnit, Assembly) {
    let assembly = asm::assemble(source, &AsmOptions::default(), files);
    (
        CodeUnit::from_assembly(dir, source.to_path_buf(), &assembly),
        assembly,
    )
}

/// The error saying why the file at `path` was not read.
fn not_read(path: &Path, refusal: &Refusal) -> Diagnostic {
    let message = format!("not read: {}", refusal.reason());
    Diagnostic::error(refusal.code(), path, 0, 0, message)
}

/// Reads a built set: `x.hit` with the `x.hsm`, `x.hdb` and `x.sym` beside it, under
/// the file rules. The `.hit` must be valid; the side files are optional, their problems
/// are reported and what parses is used.
pub fn load_built(
    dir: usize,
    hit_path: &Path,
    rules: &ReadRules,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<CodeUnit> {
    let bytes = match rules.read(hit_path) {
        Ok(bytes) => bytes,
        Err(refusal) => {
            diagnostics.push(not_read(hit_path, &refusal));
            return None;
        }
    };
    let hit = match HitFile::from_bytes(bytes) {
        Ok(hit) => hit,
        Err(e) => {
            let d = Diagnostic::error(DiagCode::BadHitFile, hit_path, 0, 0, e.to_string());
            diagnostics.push(d);
            return None;
        }
    };
    let mut files = vec![hit_path.to_path_buf()];
    let mut refused = Vec::new();
    let mut side = |extension: &str| -> Option<(PathBuf, String)> {
        let path = hit_path.with_extension(extension);
        let bytes = match rules.read(&path) {
            Ok(bytes) => bytes,
            Err(Refusal::NotFound { .. }) => return None,
            Err(refusal) => {
                let mut d = not_read(&path, &refusal);
                d.severity = Severity::Warning;
                refused.push(d);
                return None;
            }
        };
        files.push(path.clone());
        Some((path, String::from_utf8_lossy(&bytes).into_owned()))
    };
    let hsm = side("hsm").map(|(path, text)| {
        let (hsm, d) = HsmFile::parse(&text, &path);
        diagnostics.extend(d);
        hsm
    });
    let hdb = side("hdb").map(|(path, text)| {
        let (mut hdb, d) = HdbFile::parse(&text, &path);
        diagnostics.extend(d);
        // Source paths in an .hdb are relative to its own folder.
        let base = path.parent().unwrap_or(Path::new(""));
        for file in &mut hdb.files {
            let relative = Path::new(file.as_str());
            if relative.is_relative() {
                *file = base.join(relative).display().to_string();
            }
        }
        hdb
    });
    let sym = side("sym").map(|(path, text)| {
        let (sym, d) = SymFile::parse(&text, &path);
        diagnostics.extend(d);
        sym
    });
    diagnostics.append(&mut refused);
    let layout = if hit.entry_table().is_some() {
        Layout::Tso
    } else {
        Layout::Ts1
    };
    let mut labels: Vec<(String, u32)> = Vec::new();
    let mut constants = Vec::new();
    if let Some(sym) = &sym {
        for export in &sym.exports {
            match export.kind {
                crate::toolchain::formats::sym::SymKind::Code => {
                    labels.push((
                        export.name.clone(),
                        u32::try_from(export.value).unwrap_or(0),
                    ));
                }
                crate::toolchain::formats::sym::SymKind::Value => {
                    constants.push((export.name.clone(), export.value));
                }
            }
        }
    } else if let Some(hdb) = &hdb {
        labels.extend(hdb.labels.iter().map(|l| (l.name.clone(), l.address)));
    } else if let (Some(hsm), Some(table)) = (&hsm, hit.entry_table()) {
        // Without debug info, the .hsm names the exported entry points.
        for entry in &table.entries {
            let named = hsm.symbols.iter().find(|s| {
                s.value == i64::from(entry.address)
                    && !s.name.to_ascii_lowercase().starts_with("tkd_")
            });
            if let Some(symbol) = named {
                labels.push((symbol.name.clone(), entry.address));
            }
        }
    }
    Some(CodeUnit {
        dir,
        origin: UnitOrigin::Built(hit_path.to_path_buf()),
        hit,
        layout,
        hdb: hdb.map(Arc::new),
        sym: sym.map(Arc::new),
        hsm,
        labels,
        constants,
        track_data: Vec::new(),
        code_imports: Vec::new(),
        files,
    })
}
