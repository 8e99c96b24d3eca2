//! `hitbench bench asm`: assembler throughput on a generated source.

use super::super::Io;
use super::Size;
use engine_core::toolchain::asm::{self, AsmOptions, MemoryFiles};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Lines of generated source the assembler benchmark uses.
pub const ASM_BENCH_LINES: usize = 100_000;
/// Target throughput, source lines per second.
pub const ASM_TARGET_LINES_PER_SEC: f64 = 1_000_000.0;
/// `LIST` lines of the `.hot` writing figure (writing them one by one was quadratic:
/// 21 s for 80,000, when it was quadratic).
pub const HOT_BENCH_LIST_LINES: usize = 80_000;

/// Assembles the generated source and prints lines per second.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let source = generate_source(size.scale(ASM_BENCH_LINES).max(1_000));
    let lines = source.lines().count();
    let path = Path::new("bench.src");
    let files = MemoryFiles::default();
    let options = AsmOptions::default();
    // One warm-up, then the best of several runs (the least disturbed by the machine).
    let warm = asm::assemble_text(path, &source, &options, &files);
    let errors = warm.diagnostics.iter().filter(|d| d.is_error()).count();
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        let assembly = asm::assemble_text(path, &source, &options, &files);
        best = best.min(start.elapsed());
        std::hint::black_box(assembly);
    }
    let per_sec = lines as f64 / best.as_secs_f64();
    writeln!(
        io.out,
        "asm: {lines} source lines ({}, {} bytes of code, {errors} errors), best of 5: {:.1} ms",
        engine_core::runtime::units::format_bytes(source.len() as u64),
        warm.hit.code().len(),
        best.as_secs_f64() * 1e3,
    )?;
    writeln!(
        io.out,
        "asm: {:.2} M lines/s = {:.0} ns/line; target >= {:.2} M lines/s ({:.2}x the target)",
        per_sec / 1e6,
        best.as_nanos() as f64 / lines as f64,
        ASM_TARGET_LINES_PER_SEC / 1e6,
        per_sec / ASM_TARGET_LINES_PER_SEC,
    )?;
    hot_figure(io, size)
}

/// Prints how long writing many `LIST` lines as a `.hot` takes.
fn hot_figure(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let lines = size.scale(HOT_BENCH_LIST_LINES).max(1_000);
    let mut source = String::with_capacity(lines * 32);
    for i in 0..lines {
        let section = ["Patch", "GlobalHitList", "EventMappingEquate"][i % 3];
        let _ = writeln!(source, "LIST [{section}] k{i}=v{i}");
    }
    let assembly = asm::assemble_text(
        Path::new("list.src"),
        &source,
        &AsmOptions::default(),
        &MemoryFiles::default(),
    );
    let start = Instant::now();
    let bytes = assembly.hot().to_bytes();
    let elapsed = start.elapsed();
    writeln!(
        io.out,
        "asm: {} LIST lines written as a .hot of {} bytes in {:.1} ms",
        assembly.hot_lines.len(),
        bytes.len(),
        elapsed.as_secs_f64() * 1e3,
    )?;
    Ok(())
}

/// A deterministic, realistic MakeTrax source of about `lines` lines: tracks with
/// labels, comments, every operand kind, forward and backward branches, LIST lines and
/// an export table.
pub fn generate_source(lines: usize) -> String {
    let mut out = String::with_capacity(lines * 24);
    let mut seed: u32 = 0x1234_5678;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    out.push_str("; generated benchmark source\nLAYOUT tso\nBASEID_TRACKDATA 0x1000\n");
    out.push_str("LIST [Options] Version=1\nBINARY [\n");
    // 13 lines per track, plus the export table of up to 100 tracks and 8 fixed lines.
    let tracks = lines.saturating_sub(110) / 13;
    for track in 0..tracks {
        let _ = writeln!(out, "track_{track}\t; track {track}");
        let body = [
            "\tloadl v1 #1000",
            "\tloadb v2 0",
            "\trand v1 v2 v1",
            "\tloadl v2 #100",
            "\tcmp v1 v2",
        ];
        for line in body {
            out.push_str(line);
            out.push('\n');
        }
        let _ = writeln!(out, "\tiflt @_play_{track}");
        out.push_str("\tend\n");
        let _ = writeln!(out, "_play_{track}");
        let _ = writeln!(out, "\tloadl patch #{}", next() % 5000);
        out.push_str("\tnote_on v1\n\twait_samp\t; until the note ends\n");
        let target = if track > 0 { track - 1 } else { 0 };
        let _ = writeln!(out, "\tjump @track_{target}");
    }
    out.push_str("\t69 78 84 80\n");
    for track in 0..tracks.min(100) {
        let _ = writeln!(out, "\t#{track} #track_{track}");
    }
    out.push_str("\t69 69 78 84\n]\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_source_assembles_cleanly() {
        let source = generate_source(5000);
        let assembly = asm::assemble_text(
            Path::new("bench.src"),
            &source,
            &AsmOptions::default(),
            &MemoryFiles::default(),
        );
        assert!(
            assembly.diagnostics.is_empty(),
            "{:?}",
            assembly.diagnostics
        );
        let lines = source.lines().count();
        assert!((4950..=5000).contains(&lines), "{lines}");
        assert_eq!(
            assembly.hit.entry_table().map(|t| t.entries.len()),
            Some(100)
        );
    }
}
