//! QA scripts run against the demo: each assertion family holds where it should and
//! fails where it should, saying what actually was.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use engine_core::host::offline::RenderOptions;
use engine_core::host::qa::{QaReport, parse_qa, run_qa};
use engine_core::toolchain::project::Project;
use std::path::{Path, PathBuf};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo")
}

/// Runs `text` as a QA script on the demo with `voices` voices.
fn run(text: &str, voices: usize) -> QaReport {
    let (script, problems) = parse_qa(text, Path::new("t.qa"));
    assert!(problems.is_empty(), "{problems:#?}");
    let project = Project::load(&demo());
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let options = RenderOptions {
        voices,
        tail_seconds: 0.5,
        ..RenderOptions::default()
    };
    run_qa(project, &script, Path::new("t.qa"), options).unwrap()
}

/// The results by line: (line, passed, actual).
fn outcomes(report: &QaReport) -> Vec<(u32, bool, String)> {
    report
        .results
        .iter()
        .map(|r| {
            (
                r.expectation.line,
                r.outcome.passed,
                r.outcome.actual.clone(),
            )
        })
        .collect()
}

fn assert_lines(report: &QaReport, passing: &[u32], failing: &[u32]) {
    let all = outcomes(report);
    for (line, passed, actual) in &all {
        if passing.contains(line) {
            assert!(passed, "line {line} should hold: {actual}\n{all:#?}");
        } else if failing.contains(line) {
            assert!(!passed, "line {line} should fail: {actual}\n{all:#?}");
        }
    }
    assert_eq!(all.len(), passing.len() + failing.len(), "{all:#?}");
}

#[test]
fn triggers_voices_and_counts() {
    let report = run(
        "0.0 sev vox greet @1\n\
         0.0 expect started vox_greet @1\n\
         0.0 expect started vox_greet @2\n\
         0.1 expect voices >= 1\n\
         0.1 expect voices > 10\n\
         0.2 sev door open @1\n\
         0.2 sev piano play @2\n\
         0.2 sev baby cry @9\n\
         0.2 sev vox laugh @3\n\
         0.3 expect count steals > 0\n\
         0.3 expect stolen door_open\n\
         0.3 expect not stolen\n\
         0.3 expect count events == 5\n\
         0.3 expect no fault\n\
         0.3 expect fault divide-by-zero\n",
        2,
    );
    assert_lines(&report, &[2, 4, 10, 11, 13, 14], &[3, 5, 12, 15]);
    // A failure keeps the decision behind it.
    let greet = &report.results[1];
    assert!(
        greet.outcome.actual.contains("not triggered"),
        "{:?}",
        greet.outcome
    );
}

#[test]
fn refusals_picks_and_levels() {
    let report = run(
        "0.0 sev vox laugh @3\n\
         0.05 sev door open @1\n\
         0.1 expect refused door_open\n\
         0.1 expect started door_open\n\
         0.2 expect gain @1 > 0.5\n\
         0.2 expect gain @1 < 0.5\n\
         0.2 expect pan @3 < 0\n\
         0.5 sev baby cry @9\n\
         3.0 sev baby cry @9\n\
         6.0 sev baby cry @9\n\
         8.0 expect picks hl_baby_cry norepeat\n\
         8.0 expect count picks >= 3\n",
        1,
    );
    assert_lines(&report, &[3, 5, 7, 11, 12], &[4, 6]);
    let refused = &report.results[0];
    assert!(
        refused.outcome.actual.contains("refuse"),
        "{:?}",
        refused.outcome
    );
    assert!(refused.outcome.decision.is_some());
}

#[test]
fn sounding_and_output_levels() {
    let report = run(
        "0.0 sev piano play @2\n\
         0.5 expect playing track piano_play\n\
         0.5 expect silent track piano_play\n\
         0.5 expect peak below 0\n\
         0.5 expect peak below -90\n\
         1.0 quiet 2\n\
         1.5 expect silent track piano_play\n\
         1.5 expect loudness > -70\n\
         1.5 expect loudness < -70\n\
         1.5 expect stolen piano_play\n\
         1.5 expect playing night loop\n\
         1.5 expect silent night loop\n\
         1.5 expect pan @3 > 0\n",
        16,
    );
    assert_lines(&report, &[2, 4, 7, 8, 12], &[3, 5, 9, 10, 11, 13]);
}

#[test]
fn a_console_history_round_trips_as_a_qa_script() {
    use engine_core::host::qa::{HandLine, record};
    use engine_core::host::session::{Session, SessionConfig};
    use engine_core::runtime::TraceSwitches;
    use engine_core::sound::mixer::{MixerConfig, mixer};
    use engine_core::sound::server::ServerConfig;

    // A tester at the console of a session that has run a while: lines at 1.2 s, 1.7 s
    // and 2.4 s of its time, one misspelt and one that only asks Why.
    let project = Project::load(&demo());
    let (handle, mut mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut session = Session::new(project, handle, config);
    session.engine.set_trace_switches(TraceSwitches::ALL);
    let rate = 48_000u64;
    let plan = [
        (1.2, "sev vox greet @1"),
        (1.7, "sev nothing_such"),
        (1.7, "why @1"),
        (2.4, "sev vox greet @2"),
    ];
    let mut history = Vec::new();
    let mut records = Vec::new();
    let mut out = vec![0.0f32; 2 * 4096];
    let mut next = 0;
    while session.now().samples() < 4 * rate {
        while let Some((seconds, line)) = plan.get(next)
            && session.now().samples() as f64 >= seconds * rate as f64
        {
            let at = session.now();
            let ok = session.run_line(line).is_ok();
            history.push(HandLine {
                line: line.to_string(),
                at,
                ok,
            });
            next += 1;
        }
        let start = session.now();
        session.tick();
        let frames = ((session.now() - start) as usize).min(4096);
        mixer.render(&mut out[..frames * 2]);
        records.extend(session.take_trace());
    }
    let recording = record(&history, &records, rate as u32);

    // The two greetings, timed from the first; the misspelt line and Why left out.
    let lines: Vec<&str> = recording.commands.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(
        lines,
        ["sev vox_greet @1", "sev vox_greet @2"],
        "{recording:#?}"
    );
    assert_eq!(recording.commands[0].0, 0.0);
    let gap = recording.commands[1].0;
    assert!((gap - 1.2).abs() < 0.05, "{gap}");
    assert_eq!(recording.skipped.len(), 2, "{recording:#?}");
    let ticked: Vec<&str> = recording
        .offers
        .iter()
        .filter(|o| o.ticked)
        .map(|o| o.assertion.as_str())
        .collect();
    assert_eq!(
        ticked,
        ["started vox_greet @1", "started vox_greet @2", "no fault"],
        "{recording:#?}"
    );

    // Its script reads back and passes on a fresh engine.
    let text = recording.script("test");
    recording.check(Path::new("saved.qa")).unwrap();
    let (script, problems) = parse_qa(&text, Path::new("saved.qa"));
    assert!(problems.is_empty(), "{problems:#?}\n{text}");
    assert_eq!(script.commands.len(), 2, "{text}");
    assert_eq!(script.expectations.len(), 3, "{text}");
    let report = run(&text, 16);
    assert!(report.passed(), "{:#?}\n{text}", outcomes(&report));
}

#[test]
fn stations_music_refusals_and_counts_fail_where_they_should() {
    let report = run(
        "0.0 sev tv on action @4\n\
         0.0 ui music neighborhood\n\
         0.0 sev door open @1\n\
         0.0 expect refused door_open\n\
         2.0 expect playing station action\n\
         2.0 expect silent station action\n\
         2.0 expect playing station pop\n\
         2.0 expect silent station pop\n\
         3.0 expect playing music\n\
         3.0 expect silent music\n\
         3.0 expect not stolen\n\
         3.0 expect count steals > 0\n\
         3.0 expect count events >= 2\n",
        16,
    );
    assert_lines(&report, &[5, 8, 9, 11, 13], &[4, 6, 7, 10, 12]);
}

/// A track that plays a sample for a second, and one that divides by zero at line 9.
const SCRATCH: &str = "\
LAYOUT tso
BINARY [
hum
\tloadb patch 1
\tnote_on v3
\tloadl v2 #1000
\tdivider_never
divider
\tdiv v1 v2
\tend
]
";

#[test]
fn samples_and_faults_fail_where_they_should() {
    let p = support::TempProject::new("qa-faults");
    let source = SCRATCH.replace("\tdivider_never\n", "\twait v2\n\tend\n");
    p.file("t.src", &source)
        .file("t.hot", "[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n");
    support::constant_wav(&p.path().join("s.wav"), 1.0, 8_000.0 / 32_768.0);
    let line = source
        .lines()
        .position(|l| l.contains("div v1 v2"))
        .unwrap()
        + 1;
    let text = format!(
        "0.0 ui hum\n\
         0.0 ui divider\n\
         0.5 expect playing sample s.wav\n\
         0.5 expect silent sample s.wav\n\
         0.5 expect fault divide-by-zero at t.src:{line}\n\
         0.5 expect fault divide-by-zero at t.src:{}\n\
         0.5 expect no fault\n\
         0.5 expect count faults == 1\n\
         0.5 expect count faults == 0\n\
         2.0 expect silent sample s.wav\n",
        line + 1
    );
    let (script, problems) = parse_qa(&text, Path::new("t.qa"));
    assert!(problems.is_empty(), "{problems:#?}");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let options = RenderOptions {
        tail_seconds: 0.2,
        ..RenderOptions::default()
    };
    let report = run_qa(project, &script, Path::new("t.qa"), options).unwrap();
    assert_lines(&report, &[3, 5, 8, 10], &[4, 6, 7, 9]);
    let fault = &report.results[2];
    assert!(
        fault.outcome.actual.contains("divide"),
        "{:?}",
        fault.outcome
    );
}
