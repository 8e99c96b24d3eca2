//! `hitbench asm`, `disasm`, `check` and `bench` as a user runs them.

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
    // Each line is `file:line:col: error: message [code]`.
    assert!(
        lines[0].starts_with(&format!("{path}:2:10: error: "))
            && lines[0].ends_with(" [unbound-symbol]"),
        "{}",
        run.err
    );
    assert!(
        lines[1].starts_with(&format!("{path}:3:2: error: unknown mnemonic"))
            && lines[1].ends_with(" [unknown-opcode]"),
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
    let line = run.err.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("/no/such/file.src: error: cannot read source file")
            && line.ends_with(" [file-not-found]"),
        "{}",
        run.err
    );
}

#[test]
fn asm_reads_includes_only_in_its_folder_and_the_include_folders() {
    let dir = TempDir::new("asm-include");
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    std::fs::create_dir_all(dir.join("proj")).unwrap();
    std::fs::write(dir.join("shared/common.inc"), "DEFINE shared_value 7\n").unwrap();
    let source = dir.join("proj/a.src");
    std::fs::write(
        &source,
        "INCLUDE ../shared/common.inc\nBINARY [\nbeep\n\tend\n]\n",
    )
    .unwrap();
    let source = source.to_str().unwrap();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let refused = hitbench(&["asm", source, "-o", out]);
    assert_eq!(refused.code, ExitCode::from(1), "{}", refused.err);
    assert!(
        refused
            .err
            .contains("error: INCLUDE `../shared/common.inc`: ")
            && refused
                .err
                .contains("is outside the folders HitBench may read here"),
        "{}",
        refused.err
    );
    let shared = dir.join("shared");
    for flag in ["--include", "-I"] {
        let run = hitbench(&["asm", source, "-o", out, flag, shared.to_str().unwrap()]);
        assert_eq!(run.code, ExitCode::SUCCESS, "{flag}: {}", run.err);
    }
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

/// A project folder that is not there is a command-line mistake for every command that
/// loads one, said before anything runs: a run of nothing would pass for one (a silent
/// render, a replay whose every trigger is unknown now).
#[test]
fn a_project_folder_that_is_not_there_is_a_usage_mistake() {
    let dir = TempDir::new("cli-no-project");
    let missing = dir.join("nowhere").display().to_string();
    let script = dir.join("s.txt");
    std::fs::write(&script, "0 quietall\n").unwrap();
    let script = script.display().to_string();
    let wav = dir.join("out.wav");
    let cap = dir.join("c.hbcap");
    let demo = workspace().join("projects/demo").display().to_string();
    let captured = hitbench(&[
        "render",
        &demo,
        "--script",
        &script,
        "-o",
        &wav.display().to_string(),
        "--capture",
        &cap.display().to_string(),
    ]);
    assert_eq!(captured.code, ExitCode::SUCCESS, "{}", captured.err);
    std::fs::remove_file(&wav).unwrap();
    let cap = cap.display().to_string();
    let wav_text = wav.display().to_string();
    for args in [
        &["render", &missing, "--script", &script, "-o", &wav_text][..],
        &["play", &missing, "--script", &script],
        &["test", &missing],
        &["replay", &cap, "--project", &missing, "--diff"],
    ] {
        let run = hitbench(args);
        assert_eq!(run.code, ExitCode::from(2), "{args:?}: {}", run.err);
        assert!(
            run.err.contains(&format!(
                "hitbench: error: no such project folder: `{missing}`"
            )),
            "{args:?}: {}",
            run.err
        );
    }
    assert!(!wav.exists(), "nothing rendered");
}

#[test]
fn help_is_there_for_every_command_whichever_way_it_is_asked_for() {
    for ask in [&["--help"][..], &["-h"], &["help"]] {
        let run = hitbench(ask);
        assert_eq!(run.code, ExitCode::SUCCESS, "{ask:?}");
        assert!(run.out.starts_with("HitBench — "), "{ask:?}: {}", run.out);
    }
    for command in ["render", "replay", "why", "play", "test", "compare", "open"] {
        for ask in [
            vec![command, "--help"],
            vec![command, "-h"],
            vec!["help", command],
        ] {
            let run = hitbench(&ask);
            assert_eq!(run.code, ExitCode::SUCCESS, "{ask:?}: {}", run.err);
            assert!(
                run.out.starts_with(&format!(
                    "Usage: hitbench {command} [options]\n\n  {command}"
                )),
                "{ask:?}: {}",
                run.out
            );
            // Only that command's part.
            assert!(!run.out.contains("\n  asm <source>"), "{ask:?}");
        }
    }
    // --plugin and --cache-mb are explained where a command takes them.
    assert!(
        hitbench(&["render", "--help"])
            .out
            .contains("Shared options (--plugin DIR")
    );
    assert!(!hitbench(&["why", "--help"]).out.contains("Shared options"));
    // `bench` has a part per measurement; `check` a page of its own.
    let bench = hitbench(&["bench", "--help"]).out;
    assert!(
        bench.contains("  bench vm\n") && bench.contains("  bench ui\n"),
        "{bench}"
    );
    assert_eq!(
        hitbench(&["help", "check"]).out,
        hitbench(&["check", "--help"]).out
    );
    assert!(hitbench(&["check", "-h"]).out.contains("--strict"));
    let unknown = hitbench(&["nosuch", "--help"]);
    assert_eq!(unknown.code, ExitCode::from(2));
    assert!(
        unknown.err.contains("unknown command `nosuch`"),
        "{}",
        unknown.err
    );
    assert_eq!(hitbench(&["help", "nosuch"]).code, ExitCode::from(2));
    // The version, however it is asked for.
    for ask in ["--version", "-V"] {
        let run = hitbench(&[ask]);
        assert_eq!(run.code, ExitCode::SUCCESS, "{ask}: {}", run.err);
        assert!(run.out.starts_with("hitbench 0."), "{ask}: {}", run.out);
    }
}

#[test]
fn bench_vm_prints_its_three_figures() {
    let run = hitbench(&["bench", "vm", "--quick"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    assert!(
        run.out.contains("M instructions/s; target >= 800 M/s"),
        "{}",
        run.out
    );
    assert!(run.out.contains("live tracks at 60 Hz"), "{}", run.out);
    assert!(run.out.contains("% of one core"), "{}", run.out);
    assert!(run.out.contains("target < 1 %"), "{}", run.out);
    assert!(
        run.out.contains("k events/s") && run.out.contains("target >= 5000 k/s"),
        "{}",
        run.out
    );
    assert!(run.out.contains("capture costs"), "{}", run.out);
}

#[test]
fn bench_reload_prints_write_to_live_times() {
    let run = hitbench(&["bench", "reload", "--quick"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    for kind in ["source (.src)", "sample (.wav)", "tables (.hot)"] {
        let line = run
            .out
            .lines()
            .find(|l| l.contains(kind))
            .unwrap_or_else(|| panic!("no line for {kind}: {}", run.out));
        assert!(line.contains("median") && line.contains("p90"), "{line}");
        // Issue 18's targets: median 15 ms, p90 25 ms, each as a ratio.
        assert!(line.contains("x the 15 ms target"), "{line}");
        assert!(line.contains("x the 25 ms target"), "{line}");
    }
    assert!(run.out.contains("worst median"), "{}", run.out);
    assert!(run.out.contains("worst p90"), "{}", run.out);
}

#[test]
fn bench_load_prints_its_targets_with_ratios() {
    let run = hitbench(&["bench", "load", "--quick"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let out = &run.out;
    assert!(
        out.contains("load: a generated project of 1000 samples"),
        "{out}"
    );
    // The generated project checks clean.
    assert!(out.contains("0 errors, 0 warnings in"), "{out}");
    let line = |what: &str| {
        out.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no line for {what}: {out}"))
    };
    let check = line("load: check of 1000 samples and 200 tracks = ");
    assert!(check.contains("target < 1 s ("), "{check}");
    assert!(check.contains("x under the target") || check.contains("x over the target"));
    let memory = line("load: memory of that check");
    // Sizes in binary units, from the one formatter: the 200 MB target is 190.7 MiB.
    assert!(memory.contains("target < 190.7 MiB"), "{memory}");
    for decimal in [" MB ", " MB)", " MB,", " KB ", " KB)", " KB,"] {
        assert!(!out.contains(decimal), "a size in decimal units: {out}");
    }
    // In-process (this is not the hitbench binary) the cold start is not measured, and
    // says why with its target.
    let cold = line("cold start: ");
    assert!(
        cold.contains("not measured") && cold.contains("target < 400 ms"),
        "{cold}"
    );
}

#[test]
fn bench_ui_prints_frame_times() {
    let run = hitbench(&["bench", "ui", "--quick"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let out = &run.out;
    assert!(
        out.contains("ui: 10000 trace records, 64 busy voices"),
        "{out}"
    );
    // A frame is layout, tessellation and paint — by egui's OpenGL renderer, as the
    // window's, or its wgpu renderer where OpenGL cannot be had headless; where there is
    // no renderer at all, the output says the paint was not measured rather than
    // pretending.
    let painted = out.contains("ui: painted by egui_glow (OpenGL) on ")
        || out.contains("ui: painted by egui_wgpu on ");
    let unpainted = out.contains("the paint could not be measured");
    assert!(painted != unpainted, "{out}");
    if painted {
        let alone = out
            .lines()
            .find(|l| l.starts_with("ui: the renderer alone: an empty frame"))
            .unwrap_or_else(|| panic!("no line for the renderer alone: {out}"));
        assert!(
            alone.contains("one rectangle over all 1280x800 pixels median"),
            "{alone}"
        );
    }
    for case in [
        "following the newest",
        "filter \"steal\" on",
        "while re-indexing",
    ] {
        let line = out
            .lines()
            .find(|l| l.contains(case) && l.contains("median"))
            .unwrap_or_else(|| panic!("no line for {case}: {out}"));
        assert!(line.contains("median") && line.contains("p95"), "{line}");
        assert!(line.contains("target < 8 ms"), "{line}");
        assert!(line.contains("x the target"), "{line}");
        let frame = if painted {
            "full frame:"
        } else {
            "layout+tessellation only, paint not measured:"
        };
        assert!(line.contains(frame), "{line}");
        // The split of the frame, on the line after.
        let split = out
            .lines()
            .find(|l| l.starts_with(&format!("ui:   {case}: layout ")))
            .unwrap_or_else(|| panic!("no split for {case}: {out}"));
        assert!(split.contains(" ms, tessellation "), "{split}");
        if painted {
            assert!(
                split.contains(" ms, paint ") && split.contains(" ms (medians)"),
                "{split}"
            );
        } else {
            assert!(split.contains("paint not measured"), "{split}");
        }
        assert!(
            split.contains(" meshes, ") && split.contains(" vertices"),
            "{split}"
        );
    }
    assert!(
        out.contains("a filter change re-indexes 10000 records over"),
        "{out}"
    );
}

#[test]
fn bench_asm_prints_throughput() {
    let run = hitbench(&["bench", "asm"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    assert!(run.out.contains("M lines/s"), "{}", run.out);
    assert!(run.out.contains("x the target"), "{}", run.out);
    assert!(
        run.out
            .contains("asm: 80000 LIST lines written as a .hot of "),
        "{}",
        run.out
    );
}

#[test]
fn bench_mix_prints_the_comparison_decode_and_cache_figures() {
    let run = hitbench(&["bench", "mix", "--quick"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let out = &run.out;
    assert!(
        out.contains(
            "voices  hitbench ns/vf  cubic ns/vf   kira ns/vf   rodio ns/vf   vs kira   \
             cubic vs kira   vs rodio"
        ),
        "{out}"
    );
    for voices in ["16", "256", "1024"] {
        assert!(
            out.lines()
                .any(|line| line.split_whitespace().next() == Some(voices)
                    && line.matches('×').count() == 3),
            "no row for {voices} voices: {out}"
        );
    }
    assert!(
        out.contains("target: ≤ 0.45 ns per voice-frame at 256 voices, HitBench linear ("),
        "{out}"
    );
    assert!(
        out.contains("target: ≥ 25× kira at 256 voices, HitBench linear against kira's cubic ("),
        "{out}"
    );
    assert!(
        out.contains(
            "target: ≥ 10× kira at 256 voices at equal quality, HitBench cubic against \
             kira's cubic ("
        ),
        "{out}"
    );
    assert!(out.contains("× the target)"), "{out}");
    assert!(out.contains("memory bound: streaming read "), "{out}");
    assert!(out.contains("× that bound"), "{out}");
    assert!(out.contains("decode: WAV 16-bit"), "{out}");
    assert!(out.contains(" MiB/s"), "{out}");
    assert!(out.contains("decode: Ogg Vorbis, "), "{out}");
    assert!(out.contains("decode: MP3, "), "{out}");
    assert!(out.contains("× real time"), "{out}");
    assert!(out.contains("cache: hit latency"), "{out}");
    assert!(out.contains("target < 100 ns"), "{out}");
}

/// A short, valid 16-bit mono WAV.
fn short_wav() -> Vec<u8> {
    let mut bytes = std::io::Cursor::new(Vec::new());
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 22_050,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::new(&mut bytes, spec).unwrap();
    for i in 0..1_000i32 {
        writer.write_sample((i % 64 * 400 - 12_800) as i16).unwrap();
    }
    writer.finalize().unwrap();
    bytes.into_inner()
}

/// A project with one mistake of each kind `hitbench check` looks for, line by line.
const CHECK_PLANTED: &str = r#"LAYOUT ts1
EXTERN helper_routine
LIST [Patch] 10=0,ok_patch,"sounds\ok.wav",0,0,0,0,0
LIST [Patch] 11=0,gone_patch,"sounds\gone.wav",0,0,0,0,0
LIST [Patch] 12=0,junk_patch,"sounds\junk.wav",0,0,0,0,0
LIST [EventMapping] play_ok=kSndobPlay,0x3000,0,0,0,0
LIST [EventMapping] play_nowhere=kSndobPlay,0x3999,0,0,0,0
LIST [EventMapping] vox_greet=kSndobPlay,0x3002,0,0,0,0
LIST [Track] 0x3000=0,play_ok,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,11,60
LIST [Track] 0x3002=0,vox_greet,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,12,60
LIST [Track] 0x3004=0,lonely,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,10,60
BINARY [
play_ok
	loadl patch #11
	note_on v1
	wait_samp
	jump @helper_routine
vox_greet
	loadl patch #12
	note_on v1
	wait_samp
	end
lonely
	loadl patch #10
	note_on v1
	wait_samp
	end
]
"#;

#[test]
fn check_reports_each_planted_mistake_at_its_line() {
    let dir = TempDir::new("check");
    std::fs::write(dir.join("main.src"), CHECK_PLANTED).unwrap();
    std::fs::create_dir_all(dir.join("sounds")).unwrap();
    std::fs::write(dir.join("sounds/ok.wav"), short_wav()).unwrap();
    std::fs::write(dir.join("sounds/junk.wav"), b"not audio").unwrap();
    let project = dir.path().display().to_string();
    let run = hitbench(&["check", &project]);
    assert_eq!(run.code, ExitCode::from(1), "{}{}", run.out, run.err);
    let src = dir.join("main.src").display().to_string();
    let lines: Vec<&str> = run.out.lines().collect();
    // Each line is `file:line: severity[rule]: message [code]`; here every code is the
    // code of its rule's name but the missing sample's, which the loader reported.
    let expected = [
        format!("{src}:2: error[unbound-symbol]: cannot bind `helper_routine`"),
        format!(
            "{src}:4:30: error[missing-sample]: patch 11 (gone_patch): sample file `sounds\\gone.wav` not found"
        ),
        format!(
            "{src}:5: error[bad-sample]: patch 12 (junk_patch): sample `sounds/junk.wav` does not decode"
        ),
        format!(
            "{src}:7: error[event-without-track]: event `play_nowhere` plays track 14745 (0x3999)"
        ),
        format!(
            "{src}:10: warning[wrong-group]: track 12290 (0x3002) `vox_greet` is in the FX (kGroupSfx) group"
        ),
        format!("{src}:11: warning[unused-track]: track 12292 (0x3004) `lonely` is never used"),
    ];
    let codes = [
        "unbound-symbol",
        "missing-sample",
        "bad-sample",
        "event-without-track",
        "wrong-group",
        "unused-track",
    ];
    // The EXTERN's use is on the `jump` line, below the tables.
    let jump = CHECK_PLANTED
        .lines()
        .position(|l| l.contains("jump @helper_routine"))
        .unwrap()
        + 1;
    let expected: Vec<String> = expected
        .iter()
        .map(|e| e.replace(&format!("{src}:2:"), &format!("{src}:{jump}:")))
        .collect();
    let mut sorted: Vec<(String, &str)> = expected.into_iter().zip(codes).collect();
    sorted.sort_by_key(|(e, _)| {
        let rest = &e[src.len() + 1..];
        rest.split(':').next().unwrap().parse::<u32>().unwrap()
    });
    assert_eq!(lines.len(), sorted.len() + 1, "{}", run.out);
    for (line, (want, code)) in lines.iter().zip(&sorted) {
        assert!(
            line.starts_with(want.as_str()),
            "\n{line}\nshould start with\n{want}"
        );
        assert!(
            line.ends_with(&format!(" [{code}]")),
            "\n{line}\nshould end with [{code}]"
        );
    }
    assert_eq!(
        lines.last().copied(),
        Some("4 errors, 2 warnings in 3 files"),
        "{}",
        run.out
    );
    assert!(run.err.is_empty(), "{}", run.err);
}

#[test]
fn check_strict_fails_on_warnings_alone() {
    let dir = TempDir::new("check-strict");
    let source = CHECK_PLANTED
        .lines()
        .filter(|l| {
            ![
                "EXTERN",
                "helper_routine",
                "gone_patch",
                "junk_patch",
                "play_nowhere",
                "0x3000",
                "0x3002",
            ]
            .iter()
            .any(|k| l.contains(k))
        })
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    std::fs::write(dir.join("main.src"), &source).unwrap();
    std::fs::create_dir_all(dir.join("sounds")).unwrap();
    std::fs::write(dir.join("sounds/ok.wav"), short_wav()).unwrap();
    let project = dir.path().display().to_string();
    let run = hitbench(&["check", &project]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.out);
    assert!(
        run.out.ends_with("0 errors, 1 warning in 2 files\n"),
        "{}",
        run.out
    );
    let run = hitbench(&["check", &project, "--strict"]);
    assert_eq!(run.code, ExitCode::from(1), "{}", run.out);
}

#[test]
fn check_of_the_demo_project_is_clean() {
    let demo = workspace().join("projects/demo").display().to_string();
    let run = hitbench(&["check", &demo]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}{}", run.out, run.err);
    let last = run.out.lines().last().unwrap_or_default();
    assert!(last.starts_with("0 errors, "), "{}", run.out);
}

#[test]
fn check_usage() {
    for args in [&["check"][..], &["check", "--frobnicate", "x"]] {
        let run = hitbench(args);
        assert_eq!(run.code, ExitCode::from(2), "{args:?}: {}", run.err);
        assert!(run.err.starts_with("hitbench: error: "), "{}", run.err);
    }
    let run = hitbench(&["check", "--help"]);
    assert_eq!(run.code, ExitCode::SUCCESS);
    assert!(run.out.contains("--strict"), "{}", run.out);
    assert!(
        run.out.contains("error|warning[rule]: message [code]"),
        "{}",
        run.out
    );
    // A wrong command line, as for every command that loads a project.
    let run = hitbench(&["check", "/no/such/project"]);
    assert_eq!(run.code, ExitCode::from(2));
    assert!(run.err.contains("no such project folder"), "{}", run.err);
}

#[test]
fn names_in_data_files_cannot_forge_lines_or_drive_the_terminal() {
    let dir = TempDir::new("check-controls");
    // A patch whose name holds a carriage return and a forged diagnostic, and an event
    // whose name holds an ESC sequence (clear the screen).
    std::fs::write(
        dir.join("tables.hot"),
        "[Patch]\n15=0,spare\rforged.src:1: error: fake,\"gone.wav\",0,0,0,0,0\n\
         [EventMapping]\nevil\x1b[2J=kSndobPlay,0x3999,0,0,0,0\n",
    )
    .unwrap();
    let project = dir.path().display().to_string();
    let run = hitbench(&["check", &project]);
    let all = format!("{}{}", run.out, run.err);
    assert!(!all.contains('\r') && !all.contains('\x1b'), "{all:?}");
    assert!(all.contains("spare\\rforged.src:1: error: fake"), "{all}");
    assert!(all.contains("evil\\x1b[2J"), "{all}");
    // Every diagnostic line names a file of the project: nothing forged a line.
    for line in all
        .lines()
        .filter(|l| l.contains(": error") || l.contains(": warning"))
    {
        assert!(line.starts_with(&project), "forged line: {line:?}");
    }
}
