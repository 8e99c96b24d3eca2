//! Late binding: every `.sym` import of every unit is filled with what the project's
//! names say now — so a later directory that redefines a routine, patch or hit list by
//! name changes what earlier code uses, without rebuilding it.

use super::Project;
use super::defs::NameValue;
use super::unit::CodeImport;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::sym::SymKind;
use std::path::PathBuf;

/// Binds every import of every unit, reporting the ones that cannot be bound.
pub fn bind(project: &mut Project) {
    let mut diagnostics = Vec::new();
    for index in 0..project.units.len() {
        let Some(unit) = project.units.get(index) else {
            continue;
        };
        let Some(sym) = unit.sym.clone() else {
            continue;
        };
        let unit_path = unit.path().to_path_buf();
        let mut writes: Vec<(usize, u32)> = Vec::new();
        let mut far = Vec::new();
        for import in &sym.imports {
            let source = sym
                .files
                .get(import.file as usize)
                .map_or_else(|| unit_path.clone(), PathBuf::from);
            let fail = |code: DiagCode, why: String| {
                Diagnostic::error(
                    code,
                    &source,
                    import.line,
                    0,
                    format!(
                        "cannot bind `{}` (used by {} at offset {}): {why}",
                        import.name,
                        unit_path.display(),
                        import.offset
                    ),
                )
                .with_subject(import.name.clone())
            };
            let key = import.name.to_ascii_lowercase();
            let (wanted, other) = match import.kind {
                SymKind::Code => (
                    project.labels.get(key.as_str()),
                    project.values.get(key.as_str()),
                ),
                SymKind::Value => (
                    project.values.get(key.as_str()),
                    project.labels.get(key.as_str()),
                ),
            };
            let Some(name) = wanted.or(other) else {
                let why = "no data directory defines it".to_string();
                diagnostics.push(fail(DiagCode::UnboundSymbol, why));
                continue;
            };
            match (import.kind, name.value) {
                (SymKind::Value, NameValue::Value(v)) => match u32::try_from(v)
                    .ok()
                    .or_else(|| i32::try_from(v).ok().map(|s| s as u32))
                {
                    Some(bits) => writes.push((import.offset as usize, bits)),
                    None => diagnostics.push(fail(
                        DiagCode::NumberOutOfRange,
                        format!("its value {v} does not fit in 4 bytes"),
                    )),
                },
                (SymKind::Code, NameValue::Code(target)) => {
                    writes.push((import.offset as usize, target.address));
                    if target.unit != index {
                        far.push(CodeImport {
                            offset: import.offset,
                            target,
                        });
                    }
                }
                (SymKind::Code, NameValue::Value(_)) => {
                    diagnostics.push(fail(
                        DiagCode::NumberAsLabel,
                        format!(
                            "it is a number ({}), but it is used as a code address",
                            name.origin
                        ),
                    ));
                }
                (SymKind::Value, NameValue::Code(_)) => {
                    diagnostics.push(fail(
                        DiagCode::LabelAsNumber,
                        format!(
                            "it is a label ({}), but it is used as a number",
                            name.origin
                        ),
                    ));
                }
            }
        }
        if let Some(unit) = project.units.get_mut(index) {
            for (offset, value) in writes {
                if !unit.hit.patch_u32(offset, value) {
                    diagnostics.push(Diagnostic::error(
                        DiagCode::BadImport,
                        &unit_path,
                        0,
                        0,
                        format!("import at offset {offset} is outside the code"),
                    ));
                }
            }
            unit.code_imports = far;
        }
    }
    project.diagnostics.extend(diagnostics);
}
