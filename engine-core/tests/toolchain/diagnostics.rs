//! One test per diagnostic class, each checking file, line and column; and the
//! promise that assembly reports every problem, not just the first.

use super::support::{Seen, assemble, assemble_with, diagnostics, diagnostics_with, expect_one};
use engine_core::toolchain::asm::MemoryFiles;
use engine_core::toolchain::diag::Severity::{Error, Warning};
use std::path::Path;

#[test]
fn unknown_mnemonic() {
    let seen = diagnostics("BINARY [\n\tplya v1\n]\n");
    expect_one(&seen, Error, 2, 2, &["unknown mnemonic `plya`"]);
    let seen = diagnostics("BINARY [\n\tsmart setlist v7\n]\n");
    expect_one(
        &seen,
        Error,
        2,
        2,
        &["unknown mnemonic `smart`", "did you mean `smart_setlist`"],
    );
}

#[test]
fn wrong_operand_count() {
    let seen = diagnostics("BINARY [\n\tadd v1\n]\n");
    expect_one(&seen, Error, 2, 8, &["`add` takes 2 operands", "found 1"]);
    // The seed's OCR damage: `note on v1` is `note` (no operands) with two extra.
    let seen = diagnostics("BINARY [\n\tnote on v1\n]\n");
    expect_one(
        &seen,
        Error,
        2,
        7,
        &["`note` takes no operands", "did you mean `note_on`"],
    );
}

#[test]
fn wrong_operand_kind() {
    let seen = diagnostics("BINARY [\n\tloadl v1 v2\n]\n");
    expect_one(&seen, Error, 2, 11, &["operand 2 of `loadl`", "#v2"]);
    let seen = diagnostics("BINARY [\n\tloadb v1 v2\n]\n");
    expect_one(
        &seen,
        Error,
        2,
        11,
        &["operand 2 of `loadb`", "`v2` is a variable", "set"],
    );
    let seen = diagnostics("BINARY [\n\tnote_on #5\n]\n");
    expect_one(&seen, Error, 2, 10, &["operand 1 of `note_on`", "4-byte"]);
    let seen = diagnostics("BINARY [\nhere\n\tnote_on @here\n]\n");
    expect_one(&seen, Error, 3, 10, &["code address"]);
    let seen = diagnostics("BINARY [\n\tiflt v1\n]\n");
    expect_one(&seen, Error, 2, 7, &["operand 1 of `iflt`", "@label"]);
    let seen = diagnostics("BINARY [\n\tnote_on Instance\n]\n");
    expect_one(&seen, Error, 2, 10, &["`Instance` is a constant"]);
    let seen = diagnostics("LAYOUT tso\nBINARY [\n\tset filter_type v1\n]\n");
    expect_one(&seen, Error, 3, 6, &["TS1 register", "TSO layout"]);
    let seen = diagnostics("BINARY [\n\tjump v8\n\tjump main_vol\n]\n");
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!((seen[0].line, seen[0].column), (3, 7));
    assert!(seen[0].message.contains("variables 0-15"));
}

#[test]
fn undefined_label() {
    let seen = diagnostics("BINARY [\nloop_top\n\tjump @lop_top\n]\n");
    expect_one(
        &seen,
        Error,
        3,
        7,
        &["undefined label `lop_top`", "did you mean `loop_top`"],
    );
    let seen = diagnostics("BINARY [\n\tcall @elsewhere\n]\n");
    expect_one(
        &seen,
        Error,
        2,
        7,
        &["undefined label `elsewhere`", "EXTERN"],
    );
    let seen = diagnostics("BINARY [\n\tloadl patch #door_slam\n]\n");
    expect_one(&seen, Error, 2, 14, &["undefined symbol `door_slam`"]);
}

#[test]
fn duplicate_label() {
    let seen = diagnostics("BINARY [\nfoo\n\tend\nFOO\n\tend\n]\n");
    expect_one(&seen, Error, 4, 1, &["duplicate label `FOO`", "test.src:2"]);
    let seen = diagnostics("BINARY [\nloop\n\tend\n]\n");
    expect_one(&seen, Error, 2, 1, &["label `loop`", "built-in mnemonic"]);
    // Names are case-insensitive: the TSO register `X` takes the name `x` too.
    let seen = diagnostics("LAYOUT tso\nBINARY [\nx\n\tend\n]\n");
    expect_one(&seen, Error, 3, 1, &["label `x`", "built-in register"]);
}

#[test]
fn missing_include_is_a_warning_and_assembly_goes_on() {
    let a = assemble("INCLUDE nothere.src\nBINARY [\n\tend\n]\n");
    let seen: Vec<_> = a.diagnostics.iter().collect();
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(
        (seen[0].severity, seen[0].line, seen[0].column),
        (Warning, 1, 1)
    );
    assert!(
        seen[0]
            .message
            .contains("cannot find include file `nothere.src`")
    );
    assert!(!a.has_errors());
    assert_eq!(a.hit.code(), &[0x0C]);
}

#[test]
fn errors_in_included_files_name_that_file() {
    let mut files = MemoryFiles::default();
    files.insert("lib/common.src", "BINARY [\n\tnote_on zz\n]\n");
    files.insert("lib/loop.src", "INCLUDE loop.src\n");
    let seen = diagnostics_with("INCLUDE lib/common.src\nINCLUDE lib/loop.src\n", &files);
    assert_eq!(seen.len(), 2, "{seen:#?}");
    assert_eq!(seen[0].file, Path::new("lib/common.src"));
    assert_eq!((seen[0].line, seen[0].column), (2, 10));
    assert!(seen[0].message.contains("undefined name `zz`"));
    assert_eq!(seen[1].file, Path::new("lib/loop.src"));
    assert!(seen[1].message.contains("INCLUDE cycle"));
}

#[test]
fn bad_number() {
    let seen = diagnostics("BINARY [\n\tloadb v1 12x\n]\n");
    expect_one(&seen, Error, 2, 11, &["bad number `12x`"]);
    let seen = diagnostics("BINARY [\n\tloadl v1 #0x\n]\n");
    expect_one(&seen, Error, 2, 11, &["bad number `0x`"]);
    let seen = diagnostics("BINARY [\n\tloadb v1 300\n]\n");
    expect_one(&seen, Error, 2, 11, &["out of range", "-128 to 255"]);
    let seen = diagnostics("BASEID_TRACKDATA lots\n");
    expect_one(&seen, Error, 1, 18, &["BASEID_TRACKDATA needs one number"]);
}

#[test]
fn unterminated_binary_block() {
    let seen = diagnostics("; header\n  BINARY [\n\tend\n");
    expect_one(&seen, Error, 2, 3, &["unterminated BINARY block"]);
    let seen = diagnostics("BINARY\n\tend\n");
    assert!(
        seen.iter()
            .any(|d| d.line == 1 && d.message.contains("followed by `[`")),
        "{seen:#?}"
    );
}

#[test]
fn label_outside_a_block() {
    let seen = diagnostics("foo\nBINARY [\n]\n");
    expect_one(&seen, Error, 1, 1, &["label `foo` outside a BINARY block"]);
    let seen = diagnostics("\tnote_on v1\n");
    expect_one(&seen, Error, 1, 2, &["instruction outside a BINARY block"]);
    let seen = diagnostics("]\n");
    expect_one(&seen, Error, 1, 1, &["without an open BINARY block"]);
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let source = "foo\nBINARY [\n\tplya\n\tadd v1\n\tjump @nowhere\n\tloadb v1 1z\n";
    let seen: Vec<(u32, u32)> = diagnostics(source)
        .iter()
        .map(|d| (d.line, d.column))
        .collect();
    assert_eq!(seen, vec![(1, 1), (2, 1), (3, 2), (4, 8), (5, 7), (6, 11)]);
}

#[test]
fn directives_report_their_mistakes() {
    let cases: &[(&str, u32, u32, &str)] = &[
        ("LIST [Track 1=2\n", 1, 1, "LIST needs"),
        ("DEFINE 1x 3\n", 1, 8, "DEFINE needs"),
        ("DEFINE x zz\n", 1, 10, "not a number"),
        ("EXTERN\n", 1, 1, "at least one name"),
        ("LAYOUT ts2\n", 1, 8, "LAYOUT needs `ts1` or `tso`"),
        (
            "BINARY [\n\t69 78 84 80\n\t#1 #0\n]\n",
            2,
            2,
            "not closed by EENT",
        ),
    ];
    for (source, line, column, fragment) in cases {
        let seen: Vec<Seen> = diagnostics(source);
        expect_one(&seen, Error, *line, *column, &[fragment]);
    }
}

#[test]
fn extern_symbols_are_late_bound() {
    let a = assemble(
        "EXTERN generic door_slam\nBINARY [\n\tloadl patch #door_slam\n\tjump @generic\n]\n",
    );
    assert!(a.diagnostics.is_empty(), "{:#?}", a.diagnostics);
    let imports: Vec<_> = a
        .sym
        .imports
        .iter()
        .map(|i| (i.name.as_str(), i.offset, i.line))
        .collect();
    assert_eq!(imports, vec![("door_slam", 18, 3), ("generic", 23, 4)]);
    let seen = diagnostics("EXTERN elsewhere\nBINARY [\n\tnote_on elsewhere\n]\n");
    expect_one(&seen, Error, 3, 10, &["late-bound"]);
    let seen = diagnostics("EXTERN routine\nBINARY [\nroutine\n\tend\n]\n");
    expect_one(&seen, Warning, 3, 1, &["declared EXTERN", "defined here"]);
}

#[test]
fn include_search_uses_the_including_folder_then_include_dirs() {
    let mut files = MemoryFiles::default();
    files.insert("src/a.src", "INCLUDE b.src\nINCLUDE shared.src\n");
    files.insert("src/b.src", "DEFINE from_b 7\n");
    files.insert("inc/shared.src", "DEFINE from_shared 9\n");
    let options = engine_core::toolchain::asm::AsmOptions {
        include_dirs: vec!["inc".into()],
        ..Default::default()
    };
    let a = engine_core::toolchain::asm::assemble(Path::new("src/a.src"), &options, &files);
    assert!(a.diagnostics.is_empty(), "{:#?}", a.diagnostics);
    let names: Vec<_> = a
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.value))
        .collect();
    assert_eq!(names, vec![("from_b", 7), ("from_shared", 9)]);
    let sources: Vec<_> = a
        .sources
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    assert_eq!(sources, vec!["src/a.src", "src/b.src", "inc/shared.src"]);
    let _ = assemble_with("", &files);
}
