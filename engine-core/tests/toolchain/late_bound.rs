//! Real Maxis listings `INCLUDE` files that are not shipped (user data, global symbol
//! files) and call labels defined there. A label used but never defined while an
//! include is missing becomes a late-bound import: one warning naming the label and the
//! include, the import recorded in the `.sym`, bound when the project loads. Without a
//! missing include it stays an error; `--strict` makes all of it an error. `disasm` with
//! the `.sym` writes the names back, and the result reassembles to the same `.hit` and
//! the same imports.

use engine_core::toolchain::asm::{AsmOptions, Assembly, MemoryFiles, assemble_text};
use engine_core::toolchain::diag::{DiagCode, Severity};
use engine_core::toolchain::disasm::{self, DisasmOptions};
use engine_core::toolchain::formats::sym::{SymFile, SymKind};
use engine_core::toolchain::project::Project;
use engine_core::toolchain::registers::Layout;
use std::path::Path;

/// A listing in the Maxis style: it includes a header that is not there and calls,
/// jumps to and loads the address of labels that header would define (`user_init`
/// twice).
const LISTING: &str = "\
; lamp.src
INCLUDE userdata.h

BINARY [
lamp_on
\tcall @user_init
\tloadl v1 #user_table
\tcall @user_init
\tifeq @user_done
\tjump @user_loop
\tend
]
";

fn assemble(text: &str, options: &AsmOptions) -> Assembly {
    assemble_text(
        Path::new("lamp.src"),
        text,
        options,
        &MemoryFiles::default(),
    )
}

fn with_code(a: &Assembly, code: DiagCode) -> Vec<String> {
    a.diagnostics
        .iter()
        .filter(|d| d.code == code)
        .map(ToString::to_string)
        .collect()
}

#[test]
fn labels_of_a_missing_include_become_imports_with_one_warning_each() {
    let a = assemble(LISTING, &AsmOptions::default());
    assert!(!a.has_errors(), "{:#?}", a.diagnostics);
    assert!(
        a.diagnostics
            .iter()
            .all(|d| d.severity == Severity::Warning),
        "{:#?}",
        a.diagnostics
    );
    assert_eq!(with_code(&a, DiagCode::MissingInclude).len(), 1);
    let late = with_code(&a, DiagCode::LateBoundImport);
    assert_eq!(late.len(), 4, "one per name, not per use: {late:#?}");
    for (name, line) in [
        ("user_init", 6),
        ("user_table", 7),
        ("user_done", 9),
        ("user_loop", 10),
    ] {
        let warning = late
            .iter()
            .find(|w| w.contains(&format!("`{name}`")))
            .unwrap_or_else(|| panic!("no warning for {name}: {late:#?}"));
        assert!(
            warning.starts_with(&format!("lamp.src:{line}:")),
            "{warning}"
        );
        assert!(
            warning.contains("late-bound import") && warning.contains("`userdata.h` (lamp.src:2)"),
            "{warning}"
        );
    }
    // The column is the name's.
    let init = &a
        .diagnostics
        .iter()
        .find(|d| d.code == DiagCode::LateBoundImport)
        .unwrap();
    assert_eq!((init.line, init.column), (6, 8));

    // The .sym lists every use, with its kind, and the .hit holds zeros there.
    let imports: Vec<(&str, SymKind)> = a
        .sym
        .imports
        .iter()
        .map(|i| (i.name.as_str(), i.kind))
        .collect();
    assert_eq!(
        imports,
        [
            ("user_init", SymKind::Code),
            ("user_table", SymKind::Value),
            ("user_init", SymKind::Code),
            ("user_done", SymKind::Code),
            ("user_loop", SymKind::Code),
        ]
    );
    let bytes = a.hit.bytes();
    for import in &a.sym.imports {
        let at = import.offset as usize;
        assert_eq!(&bytes[at..at + 4], &[0, 0, 0, 0], "{}", import.name);
    }
    // And it reads back from its text form unchanged.
    let (back, problems) = SymFile::parse(&a.sym.to_text(), Path::new("lamp.sym"));
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(back.imports, a.sym.imports);
}

#[test]
fn without_a_missing_include_an_undefined_label_stays_an_error() {
    let text = LISTING.replace("INCLUDE userdata.h\n", "");
    let a = assemble(&text, &AsmOptions::default());
    let unbound = with_code(&a, DiagCode::UnboundSymbol);
    assert_eq!(unbound.len(), 5, "{:#?}", a.diagnostics);
    assert!(
        unbound[0].contains("undefined label `user_init`"),
        "{unbound:#?}"
    );
    assert!(with_code(&a, DiagCode::LateBoundImport).is_empty());
    assert!(a.sym.imports.is_empty());
}

#[test]
fn a_label_defined_in_the_unit_is_never_an_import() {
    let text = LISTING.replace("\tend\n]", "\tend\nuser_done\n\tend\n]");
    let a = assemble(&text, &AsmOptions::default());
    assert!(!a.has_errors(), "{:#?}", a.diagnostics);
    assert!(a.sym.imports.iter().all(|i| i.name != "user_done"));
    assert_eq!(with_code(&a, DiagCode::LateBoundImport).len(), 3);
}

#[test]
fn strict_makes_the_missing_include_and_every_such_label_an_error() {
    let options = AsmOptions {
        strict: true,
        ..AsmOptions::default()
    };
    let a = assemble(LISTING, &options);
    let missing: Vec<_> = a
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagCode::MissingInclude)
        .collect();
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].severity, Severity::Error);
    assert_eq!(with_code(&a, DiagCode::UnboundSymbol).len(), 5);
    assert!(with_code(&a, DiagCode::LateBoundImport).is_empty());
}

#[test]
fn disasm_with_the_sym_writes_the_imports_back_and_reassembles_the_same() {
    let a = assemble(LISTING, &AsmOptions::default());
    assert!(!a.has_errors());
    let plain = disasm::disassemble(&a.hit, None, None, DisasmOptions::default());
    assert!(
        !plain.contains("user_init"),
        "without the .sym there are no names"
    );

    let source = disasm::disassemble_linked(
        &a.hit,
        None,
        Some(&a.hdb),
        Some(&a.sym),
        DisasmOptions::default(),
    );
    for line in [
        "EXTERN user_init user_table user_done user_loop",
        "\tcall @user_init\n",
        "\tloadl v1 #user_table\n",
        "\tifeq @user_done\n",
        "\tjump @user_loop\n",
    ] {
        assert!(source.contains(line), "{line:?} not in\n{source}");
    }
    let again = assemble_text(
        Path::new("lamp.dis.src"),
        &source,
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    assert!(again.diagnostics.is_empty(), "{:#?}", again.diagnostics);
    assert_eq!(again.hit.bytes(), a.hit.bytes());
    let key = |s: &SymFile| -> Vec<(String, SymKind, u32)> {
        s.imports
            .iter()
            .map(|i| (i.name.clone(), i.kind, i.offset))
            .collect()
    };
    assert_eq!(key(&again.sym), key(&a.sym));
}

#[test]
fn an_export_table_without_a_layout_line_gets_the_tso_layout() {
    let text = "\
BINARY [
tso_track
\tloadb duckpri 3
\tend
\t69 78 84 80
\t#7 #tso_track
\t69 69 78 84
]
";
    let a = assemble_text(
        Path::new("tso.src"),
        text,
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    assert!(a.diagnostics.is_empty(), "{:#?}", a.diagnostics);
    assert_eq!(a.layout, Layout::Tso);
    let without_table = assemble_text(
        Path::new("ts1.src"),
        "BINARY [\nt\n\tend\n]\n",
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    assert_eq!(without_table.layout, Layout::Ts1);
}

#[test]
fn a_project_binds_the_imports_to_a_routine_another_source_defines() {
    let dir = std::env::temp_dir().join(format!("hitbench-late-bound-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("lamp.src"),
        "INCLUDE userdata.h\nBINARY [\nlamp_on\n\tcall @user_init\n\tend\n]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("user.src"),
        "BINARY [\nuser_init\n\tloadb v1 1\n\treturn\n]\n",
    )
    .unwrap();
    let project = Project::load(&dir);
    let errors: Vec<_> = project
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(
        project
            .diagnostics
            .iter()
            .any(|d| d.code == DiagCode::LateBoundImport),
        "{:#?}",
        project.diagnostics
    );

    // Without the source that defines it, loading says it cannot be bound.
    std::fs::remove_file(dir.join("user.src")).unwrap();
    let project = Project::load(&dir);
    assert!(
        project
            .diagnostics
            .iter()
            .any(|d| d.code == DiagCode::UnboundSymbol
                && d.message.contains("cannot bind `user_init`")),
        "{:#?}",
        project.diagnostics
    );
    let _ = std::fs::remove_dir_all(&dir);
}
