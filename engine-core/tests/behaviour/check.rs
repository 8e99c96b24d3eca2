//! `engine_core::tools::check`: a project with one planted mistake per rule reports each one
//! once, with its rule, file and line (its world.ini and lot file too), and the same rules,
//! codes and facts when every load message is blanked; the same project without the
//! mistakes is clean; the seed examples check without errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::toolchain::diag::{DiagCode, Severity};
use engine_core::toolchain::project::Project;
use engine_core::tools::check::{self, Finding, Lint};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A temporary data directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("hitbench-check-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A short, valid 16-bit mono WAV.
fn wav() -> Vec<u8> {
    let mut bytes = std::io::Cursor::new(Vec::new());
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 22_050,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::new(&mut bytes, spec).unwrap();
    for i in 0..2_000i32 {
        writer
            .write_sample(((i % 100) * 300 - 15_000) as i16)
            .unwrap();
    }
    writer.finalize().unwrap();
    bytes.into_inner()
}

/// The 1-based line of `text` that contains `needle` (exactly one must).
fn line_of(text: &str, needle: &str) -> u32 {
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`{needle}` is on lines {lines:?}");
    lines[0] as u32
}

/// The planted project's source: every line marked `; <- rule` is a mistake.
const PLANTED: &str = r#"; planted mistakes, one per rule
LAYOUT ts1
EXTERN helper_routine

LIST [Patch] 10=0,ok_patch_first,"sounds\ok.wav",0,0,0,0,0 ; <- duplicate-definition
LIST [Patch] 10=0,ok_patch,"sounds\ok.wav",0,0,0,0,0
LIST [Patch] 11=0,gone_patch,"sounds\ok.ogg",0,0,0,0,0 ; <- missing-sample
LIST [Patch] 12=0,cut_patch,"sounds\cut.wav",0,0,0,0,0 ; <- bad-sample (damaged)
LIST [Patch] 13=0,junk_patch,"sounds\junk.wav",0,0,0,0,0 ; <- bad-sample (not audio)
LIST [Patch] 14=0,voice_patch,"vox\hello.wav",0,0,0,0,0
LIST [Patch] 15=0,spare_patch,"sounds\ok.wav",0,0,0,0,0 ; <- unused-patch
LIST [GlobalHitList] 50=10
LIST [GlobalHitList] 51=10 ; <- unused-hit-list
LIST [GlobalHitList] 52=10,9999 ; <- dangling-reference (hit list entry)
LIST [GlobalHitList] 53=53 ; <- hit-list-cycle

LIST [EventMapping] play_ok=kSndobPlay,0x3000,0,0,0,0
LIST [EventMapping] play_gone=kSndobPlay,0x3001,0,0,0,0
LIST [EventMapping] play_nowhere=kSndobPlay,0x3999,0,0,0,0 ; <- event-without-track
LIST [EventMapping] vox_greet=kSndobPlay,0x3002,0,0,0,0
LIST [EventMapping] music_theme=kSndobPlay,0x3003,0,0,0,0
LIST [EventMapping] play_cut=kSndobPlay,0x3005,0,0,0,0
LIST [EventMapping] play_silent=kSndobPlay,0x3006,0,0,0,0
LIST [EventMapping] play_list=kSndobPlay,0x3007,0,0,0,0
LIST [EventMapping] say_hello=kSndobPlay,0x3008,0,0,0,0
LIST [EventMapping] play_stray=kSndobPlay,0x3009,0,0,0,0
LIST [Track] 0x3000=0,play_ok,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@50,0,60
LIST [Track] 0x3001=0,play_gone,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,11,60
LIST [Track] 0x3002=0,vox_greet,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,14,60 ; <- wrong-group (vox in FX)
LIST [Track] 0x3003=0,music_theme,1024,kArgsNormal,duckpri_normal,kGroupVox,spl_normal,@0,10,60 ; <- wrong-group (music in VOX)
LIST [Track] 0x3004=0,lonely,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,10,60 ; <- unused-track
LIST [Track] 0x3005=0,play_cut,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,12,60
LIST [Track] 0x3006=0,0,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60 ; <- track-without-code
LIST [Track] 0x3007=0,0,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@52,0,60
LIST [Track] 0x3008=0,greeting,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60 ; <- wrong-group (voice folder)
LIST [Track] 0x3009=0,0,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,8888,60 ; <- dangling-reference (track patch)
LIST [EventMapping] play_ping=kSndobPlay,0x300A,0,0,0,0
LIST [EventMapping] play_list_cycle=kSndobPlay,0x300C,0,0,0,0
LIST [Track] 0x300A=0,ping,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60
LIST [Track] 0x300B=0,pong,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60
LIST [Track] 0x300C=0,0,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@53,0,60

BINARY [
play_ok
	loadl v1 #50
	smart_setlist v1
	smart_choose patch
	note_on v1
	wait_samp
	end
play_gone
	loadl patch #11
	note_on v1
	wait_samp
	end
vox_greet
	loadl patch #14
	note_on v1
	wait_samp
	end
music_theme
	loadl patch #13
	note_on v1
	wait_samp
	jump @helper_routine ; <- unbound-symbol
lonely
	loadl patch #10
	note_on v1
	wait_samp
	end
play_cut
	loadl patch #12
	note_on v1
	wait_samp
	end
greeting
	loadl patch #14
	note_on v1
	wait_samp
	end
ping
	loadl v1 #0x300B
	play_trk v1 ; <- play-cycle
	end
pong
	loadl v1 #0x300A
	play_trk v1
	end
_helper_routines
	end
]
"#;

/// A second table file: a `[Track]` whose subroutine is misspelt (unbound-symbol) and a
/// line that is no table entry at all (load).
const EXTRA_HOT: &str = "[Track]\n\
0x4000=0,play_okk,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
this line is no entry\n";

/// The world around the planted project: a `[View]` value that is no number (world).
const WORLD_INI: &str = "[Lot]\nFile = planted.lot\n[View]\nFadeDistance = far\n";

/// The planted lot: an object of a kind that does not exist (world).
const PLANTED_LOT: &str = "hour 14\nobject 1 dragon \"Smaug\" at 1 1\n";

/// Writes the planted project; returns it and its folder.
fn planted() -> (TempDir, Project) {
    let dir = TempDir::new("planted");
    dir.write("main.src", PLANTED.as_bytes());
    dir.write("extra.hot", EXTRA_HOT.as_bytes());
    let good = wav();
    dir.write("sounds/ok.wav", &good);
    dir.write("vox/hello.wav", &good);
    // The data chunk claims 4,000 bytes; the file stops 100 bytes into it.
    dir.write("sounds/cut.wav", &good[..good.len() - 3_900]);
    dir.write("sounds/junk.wav", b"this is a text file, not audio");
    dir.write("world.ini", WORLD_INI.as_bytes());
    dir.write("planted.lot", PLANTED_LOT.as_bytes());
    let project = Project::load(&dir.0);
    (dir, project)
}

/// (rule, file name, line, severity) of each finding.
fn summary(findings: &[Finding]) -> Vec<(Lint, String, u32, Severity)> {
    findings
        .iter()
        .map(|f| {
            let d = &f.diagnostic;
            let name = d.file.file_name().unwrap().to_string_lossy().to_string();
            (f.lint, name, d.line, d.severity)
        })
        .collect()
}

fn listing(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| format!("{f}\n"))
        .collect::<String>()
}

#[test]
fn every_planted_mistake_is_reported_once_at_its_line() {
    let (dir, project) = planted();
    let findings = check::findings(&project);
    let text = listing(&findings);
    let src = |needle: &str| line_of(PLANTED, needle);
    use Lint::*;
    use Severity::{Error, Warning};
    let mut expected: Vec<(Lint, &str, u32, Severity)> = vec![
        (
            UnboundSymbol,
            "main.src",
            src("jump @helper_routine"),
            Error,
        ),
        (UnboundSymbol, "extra.hot", 2, Error),
        (Load, "extra.hot", 3, Warning),
        (World, "world.ini", 4, Error),
        (World, "planted.lot", 2, Error),
        (MissingSample, "main.src", src("gone_patch"), Error),
        (BadSample, "main.src", src("cut_patch"), Error),
        (BadSample, "main.src", src("junk_patch"), Error),
        (UnusedTrack, "main.src", src("0x3004=0,lonely"), Warning),
        (UnusedPatch, "main.src", src("spare_patch"), Warning),
        (UnusedHitList, "main.src", src("51=10"), Warning),
        (EventWithoutTrack, "main.src", src("play_nowhere="), Error),
        (TrackWithoutCode, "main.src", src("0x3006="), Error),
        (WrongGroup, "main.src", src("0x3002=0,vox_greet"), Warning),
        (WrongGroup, "main.src", src("0x3003=0,music_theme"), Warning),
        (WrongGroup, "main.src", src("0x3008=0,greeting"), Warning),
        (DanglingReference, "main.src", src("52=10,9999"), Error),
        (DanglingReference, "main.src", src("0x3009="), Error),
        (HitListCycle, "main.src", src("53=53"), Error),
        (PlayCycle, "main.src", src("<- play-cycle"), Warning),
        (
            DuplicateDefinition,
            "main.src",
            src("ok_patch_first"),
            Warning,
        ),
    ];
    expected.sort_by_key(|e| (e.1, e.2, e.0));
    let mut seen: Vec<(Lint, String, u32, Severity)> = summary(&findings);
    seen.sort_by(|a, b| (&a.1, a.2, a.0).cmp(&(&b.1, b.2, b.0)));
    let seen: Vec<(Lint, &str, u32, Severity)> = seen
        .iter()
        .map(|(l, f, n, s)| (*l, f.as_str(), *n, *s))
        .collect();
    assert_eq!(seen, expected, "\n{text}");

    // Every rule is exercised, and every finding names a real line.
    for lint in Lint::ALL {
        assert!(
            findings.iter().any(|f| f.lint == lint),
            "no {lint}:\n{text}"
        );
    }
    for f in &findings {
        assert!(f.diagnostic.line > 0, "no line: {f}");
        assert!(f.diagnostic.file.starts_with(&dir.0), "{f}");
    }
}

/// What a finding says besides its message: rule, code, place, severity and facts.
type Said = (
    Lint,
    DiagCode,
    PathBuf,
    u32,
    u32,
    Severity,
    [Option<String>; 3],
);

fn said(findings: &[Finding]) -> Vec<Said> {
    findings
        .iter()
        .map(|f| {
            let d = &f.diagnostic;
            let facts = [d.subject(), d.section(), d.suggestion()].map(|f| f.map(str::to_string));
            (
                f.lint,
                d.code,
                d.file.clone(),
                d.line,
                d.column,
                d.severity,
                facts,
            )
        })
        .collect()
}

/// `check` sorts load diagnostics into rules, raises them, rewords them and suggests
/// fixes from their codes and facts alone: with every message blanked, the findings
/// are the same, and the ones it rewords read the same.
#[test]
fn rules_codes_and_facts_do_not_depend_on_the_words() {
    let (_dir, project) = planted();
    let mut blank = project.clone();
    for d in &mut blank.diagnostics {
        d.message.clear();
    }
    let findings = check::findings(&project);
    let blanked = check::findings(&blank);
    let text = listing(&findings);
    assert_eq!(said(&findings), said(&blanked), "\n{text}");
    let find = |all: &[Finding], code: DiagCode| -> Finding {
        all.iter()
            .find(|f| f.diagnostic.code == code)
            .unwrap_or_else(|| panic!("no {code}:\n{text}"))
            .clone()
    };
    let fact = |code: DiagCode| find(&blanked, code).diagnostic;
    let subroutine = fact(DiagCode::UnknownSubroutine);
    assert_eq!(subroutine.subject(), Some("play_okk"));
    assert_eq!(subroutine.suggestion(), Some("play_ok"));
    assert_eq!(
        find(&blanked, DiagCode::UnknownSubroutine).lint,
        Lint::UnboundSymbol
    );
    let extern_use = fact(DiagCode::UnboundSymbol);
    assert_eq!(extern_use.subject(), Some("helper_routine"));
    let duplicate = fact(DiagCode::DuplicateKey);
    assert_eq!(duplicate.subject(), Some("10"));
    assert_eq!(duplicate.section(), Some("Patch"));
    assert_eq!(
        fact(DiagCode::EventWithoutTrack).subject(),
        Some("play_nowhere")
    );
    let sample = fact(DiagCode::MissingSample);
    assert_eq!(sample.subject(), Some("sounds\\ok.ogg"));
    assert_eq!(sample.suggestion(), Some("sounds\\ok.wav"));
    // What check words from facts reads the same without the loader's words.
    for code in [DiagCode::EventWithoutTrack, DiagCode::DuplicateKey] {
        assert_eq!(
            find(&findings, code).diagnostic.message,
            find(&blanked, code).diagnostic.message
        );
    }
}

#[test]
fn messages_say_what_to_do() {
    let (_dir, project) = planted();
    let findings = check::findings(&project);
    let text = listing(&findings);
    let message = |lint: Lint, fragment: &str| -> String {
        findings
            .iter()
            .find(|f| f.lint == lint && f.diagnostic.message.contains(fragment))
            .unwrap_or_else(|| panic!("no {lint} mentioning `{fragment}`:\n{text}"))
            .diagnostic
            .message
            .clone()
    };
    let m = message(Lint::WrongGroup, "vox_greet");
    assert!(
        m.contains("FX (kGroupSfx)") && m.contains("put it in kGroupVox"),
        "{m}"
    );
    let m = message(Lint::WrongGroup, "music_theme");
    assert!(m.contains("put it in kGroupMusic"), "{m}");
    let m = message(Lint::WrongGroup, "greeting");
    assert!(
        m.contains("voice samples") && m.contains("vox\\hello.wav"),
        "{m}"
    );
    let m = message(Lint::UnboundSymbol, "helper_routine");
    assert!(m.contains("did you mean `_helper_routines`"), "{m}");
    let m = message(Lint::UnboundSymbol, "play_okk");
    assert!(m.contains("did you mean `play_ok`"), "{m}");
    let m = message(Lint::EventWithoutTrack, "play_nowhere");
    assert!(m.contains("0x3999"), "{m}");
    let m = message(Lint::BadSample, "cut_patch");
    assert!(m.contains("sounds/cut.wav") && m.contains("damaged"), "{m}");
    let m = message(Lint::BadSample, "junk_patch");
    assert!(m.contains("not a WAV file"), "{m}");
    let m = message(Lint::DuplicateDefinition, "`10`");
    let again = line_of(PLANTED, "10=0,ok_patch,");
    assert!(m.contains(&format!("[Patch] on line {again}")), "{m}");
    let m = message(Lint::World, "dragon");
    assert!(m.contains("unknown kind"), "{m}");
    let m = message(Lint::MissingSample, "gone_patch");
    assert!(m.contains("did you mean `sounds\\ok.wav`"), "{m}");
    let m = message(Lint::HitListCycle, "53");
    assert!(
        m.contains("hit list 53 contains itself, and nothing else"),
        "{m}"
    );
    let m = message(Lint::PlayCycle, "ping");
    assert!(
        m.contains("play_trk cycle without a wait")
            && m.contains("`ping` → track 12299 (0x300b) `pong` → track 12298 (0x300a) `ping`"),
        "{m}"
    );

    // The printed form: `file:line[:col]: severity[rule]: message`.
    let f = findings
        .iter()
        .find(|f| f.lint == Lint::UnusedTrack)
        .unwrap();
    let shown = f.to_string();
    let prefix = format!(
        "{}:{}: warning[unused-track]: track 12292 (0x3004) `lonely` is never used",
        f.diagnostic.file.display(),
        line_of(PLANTED, "0x3004=0,lonely")
    );
    assert!(shown.starts_with(&prefix), "{shown}");
}

/// The planted project with its mistakes put right.
const CLEAN: &str = r#"; the planted project, put right
LAYOUT ts1

LIST [Patch] 10=0,ok_patch,"sounds\ok.wav",0,0,0,0,0
LIST [Patch] 14=0,voice_patch,"vox\hello.wav",0,0,0,0,0
LIST [GlobalHitList] 50=10
LIST [GlobalHitList] 52=10

LIST [EventMapping] play_ok=kSndobPlay,0x3000,0,0,0,0
LIST [EventMapping] vox_greet=kSndobPlay,0x3002,0,0,0,0
LIST [EventMapping] music_theme=kSndobPlay,0x3003,0,0,0,0
LIST [EventMapping] play_list=kSndobPlay,0x3007,0,0,0,0
LIST [EventMapping] say_hello=kSndobPlay,0x3008,0,0,0,0
LIST [Track] 0x3000=0,play_ok,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@50,0,60
LIST [Track] 0x3002=0,vox_greet,1024,kArgsNormal,duckpri_normal,kGroupVox,spl_normal,@0,14,60
LIST [Track] 0x3003=0,music_theme,1024,kArgsNormal,duckpri_normal,kGroupMusic,spl_normal,@0,10,60
LIST [Track] 0x3007=0,0,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@52,0,60
LIST [Track] 0x3008=0,greeting,1024,kArgsNormal,duckpri_normal,kGroupVox,spl_normal,@0,0,60
LIST [EventMapping] play_ping=kSndobPlay,0x300A,0,0,0,0
LIST [Track] 0x300A=0,ping,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60
LIST [Track] 0x300B=0,pong,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60

BINARY [
play_ok
	loadl v1 #50
	smart_setlist v1
	smart_choose patch
	note_on v1
	wait_samp
	end
vox_greet
	loadl patch #14
	note_on v1
	wait_samp
	end
music_theme
	loadl patch #10
	note_on v1
	wait_samp
	jump @_helper_routine
greeting
	loadl patch #14
	note_on v1
	wait_samp
	end
ping
	loadl patch #10
	note_on v1
	wait_samp
	loadl v1 #0x300B
	play_trk v1
	end
pong
	loadl patch #10
	note_on v1
	wait_samp
	loadl v1 #0x300A
	play_trk v1
	end
_helper_routine
	end
]
"#;

#[test]
fn the_project_without_its_mistakes_is_clean() {
    let dir = TempDir::new("clean");
    dir.write("main.src", CLEAN.as_bytes());
    dir.write("sounds/ok.wav", &wav());
    dir.write("vox/hello.wav", &wav());
    let project = Project::load(&dir.0);
    let findings = check::findings(&project);
    assert!(findings.is_empty(), "{}", listing(&findings));
    // main.src and the two samples.
    assert_eq!(check::files_checked(&project), 3);
}

#[test]
fn the_seed_examples_check_without_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/seed-examples");
    let project = Project::load(&root);
    let findings = check::findings(&project);
    let text = listing(&findings);
    assert!(!findings.iter().any(Finding::is_error), "{text}");
    // The design document's own examples put every sound in the right group: the vox tracks in
    // kGroupVox, the TV in FX, the piano in Music.
    assert!(
        !findings.iter().any(|f| f.lint == Lint::WrongGroup),
        "{text}"
    );
    // All five examples' tracks are used, their patches and hit lists too (the piano
    // reaches 1210–1220 by computing `1210 + skill level`).
    for lint in [Lint::UnusedTrack, Lint::UnusedPatch, Lint::UnusedHitList] {
        assert!(!findings.iter().any(|f| f.lint == lint), "{text}");
    }
}

#[test]
fn a_later_directory_overriding_an_earlier_one_is_no_duplicate() {
    let base = TempDir::new("base");
    let plug = TempDir::new("plug");
    let table = |volume: u32| {
        format!(
            "[EventMapping]\nplay_ok=kSndobPlay,0x3000,0,0,0,0\n\
             [Track]\n0x3000=0,0,{volume},kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,10\n\
             [Patch]\n10=0,ok_patch,\"ok.wav\",0,0,0,0,0\n"
        )
    };
    base.write("base.hot", table(1024).as_bytes());
    base.write("ok.wav", &wav());
    plug.write("plug.hot", table(512).as_bytes());
    let project = Project::load_dirs(&[base.0.clone(), plug.0.clone()]);
    assert!(!project.overrides.is_empty());
    let findings = check::findings(&project);
    assert!(findings.is_empty(), "{}", listing(&findings));
}

/// A project of one source (and the `ok.wav` sample), checked.
fn check_source(tag: &str, source: &str) -> (TempDir, Vec<Finding>) {
    let dir = TempDir::new(tag);
    dir.write("main.src", source.as_bytes());
    dir.write("ok.wav", &wav());
    let project = Project::load(&dir.0);
    let findings = check::findings(&project);
    (dir, findings)
}

#[test]
fn a_track_that_allows_copies_and_starts_itself_is_a_play_cycle() {
    let source = |wait: &str| {
        format!(
            "LAYOUT tso\n\
             LIST [EventMapping] breed=kSndobPlay,0x500,0,0,0,0\n\
             LIST [EventMapping] selfish=kSndobPlay,0x501,0,0,0,0\n\
             LIST [Track] 0x500=0,breeder,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
             LIST [Track] 0x501=0,selfish,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
             BINARY [\n\
             breeder\n\tloadb MultipleInstances 1\n{wait}\tloadl v1 #0x500\n\tplay_trk v1\n\tplay_trk v1\n\tend\n\
             selfish\n\tloadl v1 #0x501\n\tplay_trk v1\n\tend\n]\n"
        )
    };
    let (_dir, findings) = check_source("breeder", &source(""));
    let cycles: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.lint == Lint::PlayCycle)
        .collect();
    // `breeder` multiplies; `selfish` (one copy at a time) only finds itself playing.
    assert_eq!(cycles.len(), 1, "{}", listing(&findings));
    let m = &cycles[0].diagnostic.message;
    assert!(
        m.contains("`breeder` allows several copies") && m.contains("starts itself"),
        "{m}"
    );
    assert_eq!(cycles[0].diagnostic.line, 10, "the first play_trk line");
    let (_dir, findings) = check_source("breeder-waits", &source("\twait_samp\n"));
    assert!(
        !findings.iter().any(|f| f.lint == Lint::PlayCycle),
        "waiting first breaks the cycle:\n{}",
        listing(&findings)
    );
}

#[test]
fn a_hit_list_round_itself_with_a_way_out_is_a_warning() {
    let source = "LAYOUT ts1\n\
         LIST [Patch] 10=0,ok_patch,\"ok.wav\",0,0,0,0,0\n\
         LIST [GlobalHitList] 60=61,10\n\
         LIST [GlobalHitList] 61=60\n\
         LIST [EventMapping] play_list=kSndobPlay,0x600,0,0,0,0\n\
         LIST [Track] 0x600=0,0,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@60,0\n";
    let (_dir, findings) = check_source("listcycle", source);
    let cycles: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.lint == Lint::HitListCycle)
        .collect();
    assert_eq!(
        cycles.len(),
        1,
        "one report for the cycle:\n{}",
        listing(&findings)
    );
    assert_eq!(cycles[0].diagnostic.severity, Severity::Warning);
    assert!(
        cycles[0]
            .diagnostic
            .message
            .contains("hit lists contain one another in a cycle: 60 → 61 → 60"),
        "{}",
        cycles[0]
    );
}

// ---------------------------------------------------------------------------------------
// Files outside the project
// ---------------------------------------------------------------------------------------

/// A table with one event, one track and one patch playing `sample`.
fn one_patch_table(sample: &str) -> String {
    format!(
        "[EventMapping]\nplay_it=kSndobPlay,0x3000,0,0,0,0\n\
         [Track]\n0x3000=0,0,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,10\n\
         [Patch]\n10=0,the_patch,\"{sample}\",0,0,0,0,0\n"
    )
}

#[cfg(unix)]
#[test]
fn a_sample_link_leaving_the_project_is_refused_alike_by_check_and_the_cache() {
    let elsewhere = TempDir::new("elsewhere");
    let target = elsewhere.write("private.wav", b"PRIVATEBYTES of a file outside the project");
    let dir = TempDir::new("leak");
    dir.write("main.hot", one_patch_table("leak.wav").as_bytes());
    std::os::unix::fs::symlink(&target, dir.0.join("leak.wav")).unwrap();
    let project = Project::load(&dir.0);
    let findings = check::findings(&project);
    let text = listing(&findings);
    assert!(
        !text.contains("PRIVATE"),
        "check printed the target's bytes:\n{text}"
    );

    let reason = format!(
        "{} is a link leading outside {}",
        dir.0.join("leak.wav").display(),
        dir.0.display()
    );
    let (cache, problems) = engine_core::sound::server::project_cache(&project.dirs, 1 << 20);
    assert!(problems.is_empty(), "{problems:?}");
    let refused = cache.get("leak.wav").unwrap_err().to_string();
    assert!(refused.contains(&reason), "the cache said: {refused}");
    let finding = findings
        .iter()
        .find(|f| f.diagnostic.message.contains(&reason))
        .unwrap_or_else(|| panic!("check does not say `{reason}`:\n{text}"));
    assert_eq!(finding.lint, Lint::MissingSample, "{text}");
    assert!(finding.is_error(), "the patch is used: {text}");
}

#[test]
fn a_source_including_a_file_outside_the_project_is_refused_and_never_shown() {
    let elsewhere = TempDir::new("elsewhere");
    let target = elsewhere.write(
        "passwd",
        b"root:x:0:0:PRIVATELINE:/root:/bin/sh\n\tPRIVATEOP one two\n",
    );
    let dir = TempDir::new("include-out");
    let source = format!(
        "INCLUDE {}\nINIFILE {}\nBINARY [\nbeep\n\tend\n]\n",
        target.display(),
        target.display()
    );
    dir.write("main.src", source.as_bytes());
    let project = Project::load(&dir.0);
    let findings = check::findings(&project);
    let text = listing(&findings);
    assert!(!text.contains("PRIVATE"), "{text}");
    let refusals = findings
        .iter()
        .filter(|f| f.is_error() && f.diagnostic.message.contains("is outside the folders"))
        .count();
    assert_eq!(refusals, 2, "{text}");
}

#[test]
fn station_and_music_folders_outside_the_project_are_reported() {
    let elsewhere = TempDir::new("elsewhere");
    elsewhere.write("radio/song.wav", &wav());
    let name = elsewhere
        .0
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let dir = TempDir::new("outside-folders");
    dir.write(
        "world.ini",
        format!("[Stations]\n28 = ../{name}/radio, music\n[Music]\nBuy = ../{name}/radio\n")
            .as_bytes(),
    );
    let project = Project::load(&dir.0);
    let findings = check::findings(&project);
    let text = listing(&findings);
    let outside: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.lint == Lint::World && f.diagnostic.message.contains("is outside"))
        .collect();
    assert_eq!(outside.len(), 2, "{text}");
    assert_eq!(
        outside
            .iter()
            .map(|f| f.diagnostic.line)
            .collect::<Vec<_>>(),
        [2, 4],
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// Large projects
// ---------------------------------------------------------------------------------------

#[test]
fn forty_thousand_unused_patches_check_in_linear_time() {
    const PATCHES: u32 = 40_000;
    let dir = TempDir::new("many-patches");
    dir.write("ok.wav", &wav());
    let mut table = String::from("[Patch]\n");
    for id in 1_000..1_000 + PATCHES {
        table.push_str(&format!("{id}=0,p{id},\"ok.wav\",0,0,0,0,0\n"));
    }
    dir.write("patches.hot", table.as_bytes());
    let project = Project::load(&dir.0);
    assert_eq!(project.patches.len(), PATCHES as usize);
    // The quadratic rule took minutes here in a debug build; the linear one well under
    // a second. The bound is generous for a loaded machine.
    let started = std::time::Instant::now();
    let findings = check::findings(&project);
    let elapsed = started.elapsed();
    assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
    let unused = findings
        .iter()
        .filter(|f| f.lint == Lint::UnusedPatch)
        .count();
    assert_eq!(unused, PATCHES as usize);
}

#[test]
fn long_hit_list_chains_and_cycles_are_checked_in_linear_time() {
    // Found by the fuzzer: the cycle rule searched for a cycle from every list, each
    // search walking the whole chain, so 35 000 lists in a chain took minutes. Here a
    // chain and a cycle of 20 000 lists each must be checked well within the generous
    // limit, with one report for the cycle.
    const LISTS: u32 = 20_000;
    let mut text = String::from("[GlobalHitList]\n");
    for k in 0..LISTS {
        text.push_str(&format!("{}={}\n", 100_000 + k, 100_000 + (k + 1) % LISTS));
        let next = if k + 1 < LISTS { 200_000 + k + 1 } else { 10 };
        text.push_str(&format!("{}={next}\n", 200_000 + k));
    }
    text.push_str("[Patch]\n10=0,ok_patch,\"ok.wav\",0,0,0,0,0\n");
    let dir = TempDir::new("long-lists");
    dir.write("lists.hot", text.as_bytes());
    dir.write("ok.wav", &wav());
    let project = Project::load(&dir.0);
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(check::findings(&project));
    });
    let findings = result
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("checking 40 000 hit lists took more than 10 s");
    let cycles: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.lint == Lint::HitListCycle)
        .collect();
    assert_eq!(cycles.len(), 1, "{}", cycles.len());
    assert_eq!(cycles[0].diagnostic.severity, Severity::Error);
    assert!(
        cycles[0]
            .diagnostic
            .message
            .starts_with("hit lists contain one another in a cycle: 100000 → 100001 → "),
        "{}",
        &cycles[0].diagnostic.message[..200]
    );
}

#[test]
fn a_tangle_of_hit_lists_is_checked_in_linear_time() {
    // Found by the fuzzer: in 2 000 lists that each hold the next two (round the end),
    // every list's shortest cycle is long, and searching one from every list took
    // seconds (quadratic). The tangle is reported by its first lists only.
    const LISTS: u32 = 20_000;
    let mut text = String::from("[GlobalHitList]\n");
    for k in 0..LISTS {
        let next = |d: u32| 100_000 + (k + d) % LISTS;
        text.push_str(&format!("{}={},{}\n", 100_000 + k, next(1), next(2)));
    }
    let dir = TempDir::new("tangle");
    dir.write("lists.hot", text.as_bytes());
    let project = Project::load(&dir.0);
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(check::findings(&project));
    });
    let findings = result
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("checking a tangle of 20 000 hit lists took more than 10 s");
    let cycles = findings
        .iter()
        .filter(|f| f.lint == Lint::HitListCycle)
        .count();
    assert!(
        (1..=check::MAX_CYCLE_SEARCHES).contains(&cycles),
        "{cycles} reports"
    );
}

#[test]
fn samples_judged_while_the_project_loads_give_the_same_findings() {
    use engine_core::toolchain::project::LoadWatch;
    use std::sync::{Arc, Mutex};
    let (dir, _) = planted();
    // A damaged file no patch plays: judged with the others, reported by neither.
    dir.write("sounds/nobody.wav", b"RIFF and nothing else");
    let dirs = vec![dir.0.clone()];
    let judging = Arc::new(Mutex::new(None));
    let watch = {
        let judging = Arc::clone(&judging);
        let dirs = dirs.clone();
        LoadWatch::with_samples_hook(Box::new(move |samples, seen| {
            assert_eq!(samples.len(), 5, "{samples:?}");
            let started = check::SampleJudging::start(&dirs, samples, seen);
            *judging.lock().unwrap() = Some(started);
        }))
    };
    let project = Project::load_dirs_watched(&dirs, &watch).unwrap();
    let judging = judging.lock().unwrap().take();
    let judging = judging.expect("the load handed its samples to the hook");
    let judged = listing(&check::findings_judged(&project, judging));
    assert_eq!(judged, listing(&check::findings(&project)));
    for bad in ["sounds/cut.wav", "sounds/junk.wav"] {
        assert!(
            judged.contains(&format!("sample `{bad}` does not decode")),
            "{judged}"
        );
    }
    assert!(!judged.contains("nobody.wav"), "{judged}");

    // A judging nobody finishes stops with its owner.
    let samples: Vec<Arc<Path>> = project.samples.clone();
    drop(check::SampleJudging::start(&dirs, &samples, &project.seen));
}
