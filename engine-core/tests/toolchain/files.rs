//! What the assembler writes: many `LIST` lines are written in linear time (issue 10
//! R10).

use engine_core::asm::{self, AsmOptions, MemoryFiles};
use std::path::Path;
use std::time::{Duration, Instant};

#[test]
fn writing_eighty_thousand_list_lines_is_linear() {
    const LINES: usize = 80_000;
    let mut source = String::with_capacity(LINES * 48);
    for i in 0..LINES {
        let section = ["Patch", "GlobalHitList", "EventMappingEquate"][i % 3];
        source.push_str(&format!("LIST [{section}] k{i}=v{i}\n"));
    }
    let a = asm::assemble_text(
        Path::new("many.src"),
        &source,
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    assert!(a.diagnostics.is_empty());
    // The quadratic writer took minutes here in a debug build; the linear one takes well
    // under a second. The bound is generous for a loaded machine.
    let started = Instant::now();
    let hot = a.hot();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    let bytes = hot.to_bytes();
    let text = String::from_utf8(bytes).unwrap();
    assert_eq!(
        text.lines().count(),
        LINES + 3 + 2,
        "entries, headers, blank lines"
    );
    assert!(
        text.starts_with("[Patch]\nk0=v0\nk3=v3\n"),
        "{}",
        &text[..40]
    );
    assert!(text.contains("\n\n[GlobalHitList]\nk1=v1\nk4=v4\n"));
}

#[test]
fn the_hot_output_matches_one_insert_per_line() {
    let source = "LIST [Patch] 1=a\nLIST [Track] 2 = b\nLIST [patch] 3=c ; comment\n\
                  LIST [Track] 4=\"q;x\"\nLIST [TrackData] 5=6\nBASEID_TRACKDATA 9\nBINARY [\nt\n\tend\n]\n";
    let a = asm::assemble_text(
        Path::new("x.src"),
        source,
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    let mut expected = engine_core::formats::hot::HotDocument::default();
    for line in &a.hot_lines {
        let _ = expected.insert(&line.section, &line.key, &line.value);
    }
    assert_eq!(
        String::from_utf8(a.hot().to_bytes()).unwrap(),
        String::from_utf8(expected.to_bytes()).unwrap()
    );
}
