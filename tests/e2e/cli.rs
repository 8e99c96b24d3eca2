//! `hitbench asm`, `disasm` and `bench asm` as a user runs them.

use hitbench_tests::{TempDir, hitbench, workspace};
use std::process::ExitCode;

fn seed_source() -> String {
    workspace()
        .join("projects/seed-examples/seed_tracks.src")
        .display()
        .to_string()
}

#[test]
fn asm_writes_the_five_outputs() {
    let dir = TempDir::new("asm");
    let out = dir.path().display().to_string();
    let run = hitbench(&["asm", &seed_source(), "-o", &out]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    assert!(run.out.contains("13 label(s), layout ts1"), "{}", run.out);
    for ext in ["hit", "hsm", "hot", "hdb", "sym"] {
        let path = dir.join(&format!("seed_tracks.{ext}"));
        assert!(path.is_file(), "{} missing", path.display());
    }
    let hit = std::fs::read(dir.join("seed_tracks.hit")).unwrap();
    assert_eq!(&hit[..4], b"HIT!");
    let hsm = std::fs::read_to_string(dir.join("seed_tracks.hsm")).unwrap();
    assert!(hsm.lines().any(|l| l.starts_with("PlayPiano ")), "{hsm}");
    assert!(hsm.lines().any(|l| l == "note_on 2 (0x2)"), "{hsm}");
    let hdb = std::fs::read_to_string(dir.join("seed_tracks.hdb")).unwrap();
    assert!(hdb.starts_with("HITBENCH-HDB 1\n"));
}

#[test]
fn debug_paths_are_relative_to_the_output_folder() {
    let dir = TempDir::new("asm-paths");
    for name in ["seed_tracks.src", "generic.src"] {
        let from = workspace().join("projects/seed-examples").join(name);
        std::fs::copy(from, dir.join(name)).unwrap();
    }
    let source = dir.join("seed_tracks.src");
    let out = dir.join("build");
    let run = hitbench(&["asm", source.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let hdb = std::fs::read_to_string(out.join("seed_tracks.hdb")).unwrap();
    assert!(hdb.contains("file\t0\t../seed_tracks.src\n"), "{hdb}");
    assert!(hdb.contains("file\t1\t../generic.src\n"), "{hdb}");
    let sym = std::fs::read_to_string(out.join("seed_tracks.sym")).unwrap();
    assert!(sym.contains("file\t0\t../seed_tracks.src\n"), "{sym}");
}

#[test]
fn asm_reports_errors_as_file_line_col_and_writes_nothing() {
    let dir = TempDir::new("asm-errors");
    let source = dir.join("broken.src");
    std::fs::write(&source, "BINARY [\n\tnote_on zz\n\tplya\n]\n").unwrap();
    let out = dir.join("out");
    let run = hitbench(&["asm", source.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.code, ExitCode::from(1));
    let lines: Vec<&str> = run.err.lines().collect();
    let path = source.display().to_string();
    assert!(
        lines[0].starts_with(&format!("{path}:2:10: error: ")),
        "{}",
        run.err
    );
    assert!(
        lines[1].starts_with(&format!("{path}:3:2: error: unknown mnemonic")),
        "{}",
        run.err
    );
    assert!(
        run.err
            .contains("2 error(s), 0 warning(s); nothing written")
    );
    assert!(!out.exists());
}

#[test]
fn asm_of_a_missing_file_is_a_clear_error() {
    let run = hitbench(&["asm", "/no/such/file.src"]);
    assert_eq!(run.code, ExitCode::from(1));
    assert!(
        run.err
            .contains("/no/such/file.src: error: cannot read source file"),
        "{}",
        run.err
    );
}

#[test]
fn disasm_round_trips_through_files() {
    let dir = TempDir::new("disasm");
    let out = dir.path().display().to_string();
    assert_eq!(
        hitbench(&["asm", &seed_source(), "-o", &out]).code,
        ExitCode::SUCCESS
    );
    let hit = dir.join("seed_tracks.hit");
    let listing = dir.join("listing.src");
    let run = hitbench(&[
        "disasm",
        hit.to_str().unwrap(),
        "-o",
        listing.to_str().unwrap(),
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let text = std::fs::read_to_string(&listing).unwrap();
    // The .hdb next to the .hit gives the real label names.
    assert!(text.contains("\nvox_baby_cry_windup\n"), "{text}");
    let again = dir.join("again");
    let run = hitbench(&[
        "asm",
        listing.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    assert_eq!(
        std::fs::read(again.join("listing.hit")).unwrap(),
        std::fs::read(&hit).unwrap()
    );
    // Without -o the listing goes to standard output.
    let run = hitbench(&["disasm", hit.to_str().unwrap()]);
    assert_eq!(run.out, text);
}

#[test]
fn disasm_of_a_damaged_file_names_the_problem() {
    let dir = TempDir::new("disasm-bad");
    let bad = dir.join("bad.hit");
    std::fs::write(&bad, b"HIT!\x01\x00").unwrap();
    let run = hitbench(&["disasm", bad.to_str().unwrap()]);
    assert_eq!(run.code, ExitCode::from(1));
    assert!(run.err.contains("bad.hit"), "{}", run.err);
    assert!(
        run.err.contains("shorter than the 16-byte .hit header"),
        "{}",
        run.err
    );
}

#[test]
fn usage_mistakes_exit_with_status_2() {
    for args in [
        &["frobnicate"][..],
        &["asm"],
        &["asm", "x.src", "--layout", "ts9"],
        &["asm", "x.src", "-o"],
        &["disasm"],
        &["bench", "nothing"],
    ] {
        let run = hitbench(args);
        assert_eq!(run.code, ExitCode::from(2), "{args:?}: {}", run.err);
        assert!(run.err.starts_with("hitbench: error: "), "{}", run.err);
    }
    let help = hitbench(&["help"]);
    assert_eq!(help.code, ExitCode::SUCCESS);
    assert!(help.out.contains("asm <source>"));
}

#[test]
fn bench_vm_prints_its_three_figures() {
    let run = hitbench(&["bench", "vm", "--quick"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    assert!(
        run.out.contains("M instructions/s; target >= 300 M/s"),
        "{}",
        run.out
    );
    assert!(run.out.contains("live tracks at 60 Hz"), "{}", run.out);
    assert!(run.out.contains("% of one core"), "{}", run.out);
    assert!(run.out.contains("k events/s"), "{}", run.out);
}

#[test]
fn bench_asm_prints_throughput() {
    let run = hitbench(&["bench", "asm"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    assert!(run.out.contains("M lines/s"), "{}", run.out);
    assert!(run.out.contains("x the target"), "{}", run.out);
}

#[test]
fn bench_mix_prints_the_comparison_decode_and_cache_figures() {
    let run = hitbench(&["bench", "mix", "--quick"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let out = &run.out;
    assert!(
        out.contains("voices  hitbench ns/vf   kira ns/vf   rodio ns/vf   vs kira   vs rodio"),
        "{out}"
    );
    for voices in ["16", "256", "1024"] {
        assert!(
            out.lines()
                .any(|line| line.split_whitespace().next() == Some(voices)
                    && line.matches('×').count() == 2),
            "no row for {voices} voices: {out}"
        );
    }
    assert!(out.contains("target: ≤ 1.5 ns per voice-frame"), "{out}");
    assert!(out.contains("≥ 3× faster than both at 256 voices"), "{out}");
    assert!(out.contains("decode: WAV 16-bit"), "{out}");
    assert!(out.contains(" MB/s"), "{out}");
    assert!(out.contains("decode: Ogg Vorbis, "), "{out}");
    assert!(out.contains("decode: MP3, "), "{out}");
    assert!(out.contains("× real time"), "{out}");
    assert!(out.contains("cache: hit latency"), "{out}");
    assert!(out.contains("target < 100 ns"), "{out}");
}
