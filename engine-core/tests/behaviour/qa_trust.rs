//! QA scripts that cannot pass by accident: an expectation naming something the project
//! does not have is an error at its column; samples are named as the project names them;
//! trouble the script does not expect fails it at the line that caused it; `heard` asks
//! whether a trigger's note reached the output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use engine_core::host::offline::RenderOptions;
use engine_core::host::qa::{QaError, QaReport, parse_qa, run_qa};
use engine_core::toolchain::diag::DiagCode;
use engine_core::toolchain::project::Project;
use std::path::{Path, PathBuf};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo")
}

/// Runs `text` as a QA script against `project`.
fn try_run(project: Project, text: &str) -> Result<QaReport, QaError> {
    let (script, problems) = parse_qa(text, Path::new("t.qa"));
    assert!(problems.is_empty(), "{problems:#?}\n{text}");
    let options = RenderOptions {
        tail_seconds: 0.2,
        ..RenderOptions::default()
    };
    run_qa(project, &script, Path::new("t.qa"), options)
}

fn run(project: Project, text: &str) -> QaReport {
    try_run(project, text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Every result as `(line, passed, label, actual)`, for messages.
fn results(report: &QaReport) -> Vec<(u32, bool, String, String)> {
    report
        .results
        .iter()
        .map(|r| {
            (
                r.expectation.line,
                r.outcome.passed,
                r.label(),
                r.outcome.actual.clone(),
            )
        })
        .collect()
}

#[test]
fn an_expectation_naming_what_the_project_lacks_is_an_error_at_its_column() {
    let demo = Project::load(&demo());
    // (the line, the name as written, what it is, the name the error suggests, the
    // line written right — which runs).
    let cases: [(&str, &str, &str, Option<&str>, &str); 16] = [
        (
            "expect started vox_gret",
            "vox_gret",
            "event",
            Some("vox_greet"),
            "expect started vox_greet",
        ),
        (
            "expect heard vox_gret @1",
            "vox_gret",
            "event",
            Some("vox_greet"),
            "expect heard vox_greet @1",
        ),
        (
            "expect refused door_opn",
            "door_opn",
            "event",
            Some("door_open"),
            "expect refused door_open",
        ),
        (
            "expect stolen piano_ply",
            "piano_ply",
            "track",
            Some("piano_play"),
            "expect stolen piano_play",
        ),
        (
            "expect silent track nothing_at_all",
            "nothing_at_all",
            "track",
            None,
            "expect silent track piano_play",
        ),
        (
            "expect silent station acton",
            "acton",
            "station",
            Some("action"),
            "expect silent station action",
        ),
        (
            "expect silent sample no_such_thing",
            "no_such_thing",
            "sample",
            None,
            "expect silent sample sounds/piano/good_1.wav",
        ),
        (
            "expect silent sample sounds/piano/god_1.wav",
            "sounds/piano/god_1.wav",
            "sample",
            Some("sounds/piano/good_1.wav"),
            "expect silent sample sounds\\piano\\good_1.wav",
        ),
        (
            "expect silent sample piano_god_1",
            "piano_god_1",
            "sample",
            Some("piano_good_1"),
            "expect silent sample piano_good_1",
        ),
        (
            "expect picks hl_baby_cri norepeat",
            "hl_baby_cri",
            "hit list",
            Some("hl_baby_cry"),
            "expect picks hl_baby_cry norepeat",
        ),
        (
            "expect picks 99999 norepeat",
            "99999",
            "hit list",
            None,
            "expect picks hl_baby_cry norepeat",
        ),
        (
            "expect started vox_greet @99",
            "@99",
            "object",
            None,
            "expect started vox_greet @1",
        ),
        (
            "expect gain @42 > 0",
            "@42",
            "object",
            None,
            "expect gain @9 >= 0",
        ),
        (
            "expect pan @0 > 0",
            "@0",
            "object",
            None,
            "expect pan @3 <= 1",
        ),
        (
            "expect room Kitchn",
            "Kitchn",
            "room",
            Some("Kitchen"),
            "expect room Living room",
        ),
        (
            "expect fault divide-by-zero at nothing.src:3",
            "nothing.src",
            "source file",
            None,
            "expect count faults == 0",
        ),
    ];
    for (line, name, what, suggestion, right) in cases {
        let text = format!("0.0 sev vox greet @1\n0.5 {line}\n");
        let Err(QaError::UnknownNames(problems)) = try_run(demo.clone(), &text) else {
            panic!("`{line}` ran, though the project has no {what} `{name}`");
        };
        assert_eq!(problems.len(), 1, "{problems:#?}");
        let problem = &problems[0];
        assert_eq!(problem.code, DiagCode::UnknownName, "{problem}");
        assert_eq!(problem.line, 2, "{problem}");
        let column = text.lines().nth(1).unwrap().find(name).unwrap() as u32 + 1;
        assert_eq!(problem.column, column, "{problem}");
        assert!(
            problem.message.contains(&format!("no {what} `{name}`")),
            "{problem}"
        );
        assert_eq!(problem.suggestion(), suggestion, "{problem}");
        if let Some(suggestion) = suggestion {
            assert!(
                problem
                    .message
                    .contains(&format!("did you mean `{suggestion}`")),
                "{problem}"
            );
        }
        // Named as the project names it, the same line runs.
        let text = format!("0.0 sev vox greet @1\n0.5 {right}\n");
        try_run(demo.clone(), &text).unwrap_or_else(|e| panic!("`{right}`: {e}"));
    }
}

/// A project with one track per kind of trouble: `hum` plays `sounds\Tone.wav` for a
/// second; `gone` names a sample that is not there; `noise` one that is not audio;
/// `divider` divides by zero.
fn troubled() -> support::TempProject {
    let p = support::TempProject::new("qa-trouble");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nhum\n\tloadb patch 1\n\tnote_on v3\n\tloadl v2 #1000\n\twait v2\n\tend\n\
         gone\n\tloadb patch 2\n\tnote_on v3\n\tend\nnoise\n\tloadb patch 3\n\tnote_on v3\n\tend\n\
         divider\n\tdiv v1 v2\n\tend\n]\n",
    )
    .file(
        "t.hot",
        "[Patch]\n1=0,hum,\"sounds\\Tone.wav\",0,0,0,0,0\n\
         2=0,gone,\"sounds\\gone.wav\",0,0,0,0,0\n\
         3=0,noise,\"sounds\\noise.wav\",0,0,0,0,0\n",
    )
    .file("sounds/noise.wav", "this is not a wave file");
    support::constant_wav(&p.path().join("sounds/Tone.wav"), 1.0, 8_000.0 / 32_768.0);
    p
}

#[test]
fn a_sample_is_named_as_the_project_names_it() {
    let p = troubled();
    let forms = [
        "hum",
        "HUM",
        "sounds\\Tone.wav",
        "sounds/Tone.wav",
        "SOUNDS/TONE.WAV",
        "Sounds\\tone.WAV",
        "./sounds/tone.wav",
    ];
    for form in forms {
        let report = run(
            p.load(),
            &format!(
                "0.0 ui hum\n0.5 expect playing sample {form}\n2.0 expect silent sample {form}\n"
            ),
        );
        assert!(report.passed(), "`{form}`: {:#?}", results(&report));
    }
    // The world's notes too: a station's item, named with either slash.
    for form in [
        "sounds/stations/tv/action/chase/chase_drums.ogg",
        "sounds\\stations\\tv\\action\\chase\\chase_drums.ogg",
    ] {
        let report = run(
            Project::load(&demo()),
            &format!(
                "0.0 sev tv on action @4\n2.0 expect playing sample {form}\n\
                 2.0 expect silent sample sounds/piano/good_1.wav\n"
            ),
        );
        assert!(report.passed(), "`{form}`: {:#?}", results(&report));
    }
}

#[test]
fn trouble_the_script_does_not_expect_fails_it_at_the_line_that_caused_it() {
    // (the event, a word the trouble's sentence holds, an expectation that expects it).
    let cases = [
        ("gone", "gone.wav", "expect count errors == 1"),
        ("noise", "noise.wav", "expect count errors >= 1"),
        ("divider", "divide", "expect fault divide-by-zero"),
        ("divider", "divide", "expect count faults == 1"),
        ("no_such_event", "no_such_event", "expect count error == 1"),
    ];
    for (event, word, expects) in cases {
        let p = troubled();
        // Nothing goes wrong without it.
        let calm = run(p.load(), "0.0 ui hum\n0.5 expect started hum\n");
        assert!(calm.passed(), "{:#?}", results(&calm));
        assert_eq!(calm.trouble().count(), 0);

        let text = format!("0.0 ui hum\n0.5 ui {event}\n0.8 expect started hum\n");
        let report = run(p.load(), &text);
        assert!(
            !report.passed(),
            "`ui {event}` passed: {:#?}",
            results(&report)
        );
        let trouble: Vec<_> = report.trouble().collect();
        assert_eq!(trouble.len(), 1, "{:#?}", results(&report));
        let trouble = trouble[0];
        assert_eq!(trouble.expectation.line, 2, "{:#?}", results(&report));
        assert!(
            trouble.label().starts_with(&format!("ui {event}")),
            "{}",
            trouble.label()
        );
        assert!(
            trouble.outcome.actual.contains(word),
            "{:?}",
            trouble.outcome
        );
        // The expectation of its own still held; the summary says both.
        assert!(
            report.summary().contains("1 unexpected error"),
            "{}",
            report.summary()
        );
        assert!(
            report.summary().contains("1 expectation(s) held"),
            "{}",
            report.summary()
        );

        // A script that expects the trouble passes.
        let text = format!("{text}1.0 {expects}\n");
        let report = run(p.load(), &text);
        assert!(report.passed(), "{expects}: {:#?}", results(&report));
    }
}

#[test]
fn a_sample_found_only_by_its_file_name_elsewhere_is_trouble() {
    for (written, stand_in) in [("b\\x.wav", true), ("B/X.WAV", true), ("x.wav", false)] {
        let p = support::TempProject::new("qa-stand-in");
        p.file(
            "t.src",
            "LAYOUT tso\nBINARY [\nhum\n\tloadb patch 1\n\tnote_on v3\n\tend\n]\n",
        )
        .file(
            "t.hot",
            &format!("[Patch]\n1=0,hum,\"{written}\",0,0,0,0,0\n"),
        );
        std::fs::create_dir_all(p.path().join("a")).unwrap();
        support::constant_wav(&p.path().join("a/x.wav"), 0.5, 0.25);
        let project = p.load();
        let warned = project
            .diagnostics
            .iter()
            .any(|d| d.code == DiagCode::SampleFoundByName);
        assert_eq!(warned, stand_in, "`{written}`: {:#?}", project.diagnostics);
        let report = run(project, "0.0 ui hum\n0.3 expect started hum\n");
        let trouble: Vec<_> = report.trouble().collect();
        assert_eq!(trouble.len(), usize::from(stand_in), "`{written}`");
        if let Some(trouble) = trouble.first() {
            assert_eq!(trouble.expectation.line, 1);
            assert!(
                trouble.outcome.actual.contains("a/x.wav"),
                "{:?}",
                trouble.outcome
            );
            assert!(
                trouble.outcome.actual.contains(written),
                "{:?}",
                trouble.outcome
            );
        }
    }
}

#[test]
fn heard_asks_whether_a_note_reached_the_output() {
    let demo = Project::load(&demo());
    let greet = "0.1 sev vox greet @1\n";
    let heard = run(
        demo.clone(),
        &format!("{greet}0.1 expect heard vox_greet within 100ms\n0.6 expect heard vox_greet @1\n"),
    );
    assert!(heard.passed(), "{:#?}", results(&heard));
    assert!(
        heard.results[0]
            .outcome
            .actual
            .contains("reached the output")
    );
    // (what comes before the trigger, what the failure says).
    let cases = [
        ("0.0 mute vox\n", "below -60 dBFS"),
        ("0.0 mute @1\n", "below -60 dBFS"),
        ("0.0 volume vox 0\n", "below -60 dBFS"),
        ("0.0 volume master 0\n", "below -60 dBFS"),
        ("0.0 scroll 6000 0\n", "below -60 dBFS"),
        ("0.0 sev vox laugh @3\n", "refused"),
    ];
    for (before, says) in cases {
        let voices = if says == "refused" {
            "0 set voices 1\n"
        } else {
            ""
        };
        let report = run(
            demo.clone(),
            &format!("{voices}{before}{greet}0.6 expect heard vox_greet @1\n"),
        );
        let result = report.expectations().next().unwrap();
        assert!(!result.outcome.passed, "{before}: {:#?}", results(&report));
        assert!(
            result.outcome.actual.contains(says),
            "{before}: {:?}",
            result.outcome
        );
    }
    let never = run(demo.clone(), "0.5 expect heard vox_greet\n");
    assert!(never.results[0].outcome.actual.contains("not triggered"));
}
