//! QA scripts run against the demo: each assertion family holds where it should and
//! fails where it should, saying what actually was.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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
    run_qa(project, &script, options).unwrap()
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
         0.2 expect picks 99999 norepeat\n\
         0.5 sev baby cry @9\n\
         3.0 sev baby cry @9\n\
         6.0 sev baby cry @9\n\
         8.0 expect picks hl_baby_cry norepeat\n\
         8.0 expect count picks >= 3\n",
        1,
    );
    assert_lines(&report, &[3, 5, 7, 12, 13], &[4, 6, 8]);
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
