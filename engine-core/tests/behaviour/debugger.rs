//! The track debugger in render scripts (`docs/debugger.md`): a breakpoint pauses the
//! demo's piano at a line and says where; `regs` shows its registers, `next` reaches the
//! following line, `continue` goes on — and the WAV is byte for byte the one rendered
//! without the debugger. Conditional breakpoints, stepping over and into a `call`,
//! running to a `wait`, editing a register and pausing on a fault each have a test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use engine_core::host::command::parse_script;
use engine_core::host::offline::{RenderOptions, RenderReport, render_with};
use engine_core::runtime::TraceRecord;
use engine_core::runtime::trace::TraceEvent;
use engine_core::toolchain::project::Project;
use std::path::{Path, PathBuf};

fn demo() -> Project {
    let project = Project::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo"));
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    project
}

/// A fresh output file for `tag`.
fn out(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hitbench-debugger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{tag}.wav"))
}

/// Renders `script` against `project` into `wav`: the report and every record.
fn render(
    project: Project,
    script: &str,
    wav: &Path,
    seconds: f64,
) -> (RenderReport, Vec<TraceRecord>) {
    let (script, problems) = parse_script(script, Path::new("t.txt"));
    assert!(problems.is_empty(), "{problems:#?}");
    let options = RenderOptions {
        duration: Some(seconds),
        ..RenderOptions::default()
    };
    let mut records = Vec::new();
    let report = render_with(project, &script, wav, options, &mut |r| records.push(r)).unwrap();
    (report, records)
}

fn log_has(report: &RenderReport, text: &str) -> bool {
    report.log.iter().any(|l| l.contains(text))
}

#[test]
fn a_breakpoint_pauses_the_piano_and_the_wav_is_the_same_as_without_it() {
    let plain = out("plain");
    let (plain_report, _) = render(demo(), "0 sev piano play @1\n2 quietall\n", &plain, 4.0);
    let debugged = out("debugged");
    let (report, records) = render(
        demo(),
        "0 break piano.src:37\n\
         0 sev piano play @1\n\
         0 regs\n\
         0 next\n\
         0 regs\n\
         0 stepi\n\
         0 continue\n\
         2 quietall\n",
        &debugged,
        4.0,
    );
    let log = report.log.join("\n");
    assert!(
        log_has(
            &report,
            "paused at piano.src:37 (track piano_play, object 1)"
        ),
        "{log}"
    );
    // `regs` before the division: v7 holds the creativity (15); after `next`, 15 / 10.
    assert!(
        report.log[3].contains("v7=15") && report.log[3].contains("v6=10"),
        "{log}"
    );
    assert!(
        log_has(
            &report,
            "paused at piano.src:38 (track piano_play, object 1) — step"
        ),
        "{log}"
    );
    assert!(
        report
            .log
            .iter()
            .any(|l| l.contains("line 5:") && l.contains("v7=1 ")),
        "{log}"
    );
    assert!(log_has(&report, "paused at piano.src:39"), "{log}");
    assert!(log_has(&report, "continuing"), "{log}");
    // The pauses are in the trace too.
    let pauses = records
        .iter()
        .filter(|r| matches!(r.what, TraceEvent::Paused { .. }))
        .count();
    assert_eq!(pauses, 3);
    // Paused, stepped and continued: the same sound, byte for byte.
    assert_eq!(report.started, plain_report.started);
    assert_eq!(
        std::fs::read(&debugged).unwrap(),
        std::fs::read(&plain).unwrap()
    );
}

#[test]
fn a_conditional_breakpoint_pauses_only_when_it_holds() {
    // Betty's creativity is 15: her piano's level (v7 after the division) is 1.
    let (report, _) = render(
        demo(),
        "0 break piano.src:38 if v7 == 2\n0 sev piano play @1\n",
        &out("cond-no"),
        1.0,
    );
    assert!(!log_has(&report, "paused"), "{:#?}", report.log);
    let (report, _) = render(
        demo(),
        "0 break piano.src:38 if v7 <= 1\n0 sev piano play @1\n0 regs\n0 continue\n",
        &out("cond-yes"),
        1.0,
    );
    assert!(
        log_has(&report, "paused at piano.src:38"),
        "{:#?}",
        report.log
    );
    // A line without code, a file that is not there, a bad condition: errors that say so.
    let (report, _) = render(
        demo(),
        "0 break piano.src:3\n0 break nothing.src:3\n0 break no_such_track\n",
        &out("cond-bad"),
        0.1,
    );
    let log = report.log.join("\n");
    assert!(
        log.contains("no code at piano.src:3 (the nearest line with code is 34)"),
        "{log}"
    );
    assert!(log.contains("no source file `nothing.src`"), "{log}");
    assert!(log.contains("no track `no_such_track`"), "{log}");
}

#[test]
fn editing_a_register_while_paused_changes_what_the_track_does() {
    // Paused after the division (level 1: the clumsy list), the level set to 9: the
    // piano picks from the good list instead.
    let (_, records) = render(
        demo(),
        "0 break piano.src:38\n0 sev piano play @1\n0 set v7 9\n0 delete all\n0 continue\n",
        &out("set"),
        1.0,
    );
    let lists: Vec<u32> = records
        .iter()
        .filter_map(|r| match &r.what {
            TraceEvent::Pick { list, .. } => Some(*list),
            _ => None,
        })
        .collect();
    assert_eq!(lists.first(), Some(&222), "{lists:?}");
}

/// `caller` calls `helper` and waits; `divider` divides by zero.
const CALLS: &str = "\
LAYOUT tso
BINARY [
caller
\tloadb v1 1
\tcall @helper
\tloadb v1 3
\tloadl v2 #100
\twait v2
\tend
helper
\tloadb v3 2
\treturn
divider
\tloadb v1 5
\tloadb v2 0
\tdiv v1 v2
\tend
]
";

fn calls_project() -> support::TempProject {
    let p = support::TempProject::new("debugger-calls");
    p.file("t.src", CALLS);
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    p
}

#[test]
fn next_steps_over_a_call_step_goes_into_it_and_towait_runs_to_the_wait() {
    let p = calls_project();
    let (report, _) = render(
        p.load(),
        "0 break t.src:5\n0 ui caller\n0 next\n0 regs\n0 continue\n",
        &out("over"),
        0.5,
    );
    let log = report.log.join("\n");
    assert!(
        log_has(&report, "paused at t.src:5 (track caller)"),
        "{log}"
    );
    // Over the call: the next line of the caller, with the call's work done.
    assert!(
        log_has(&report, "paused at t.src:6 (track caller) — step"),
        "{log}"
    );
    assert!(log.contains("v3=2"), "{log}");

    let (report, _) = render(
        p.load(),
        "0 break t.src:5\n0 ui caller\n0 step\n0 regs\n0 continue\n",
        &out("into"),
        0.5,
    );
    let log = report.log.join("\n");
    assert!(
        log_has(&report, "paused at t.src:11 (track caller) — step"),
        "{log}"
    );
    assert!(log.contains("v3=0"), "{log}");

    let (report, _) = render(
        p.load(),
        "0 break caller\n0 ui caller\n0 towait\n0 regs\n0 continue\n",
        &out("towait"),
        0.5,
    );
    let log = report.log.join("\n");
    assert!(
        log_has(&report, "paused at t.src:4 (track caller) — breakpoint 1"),
        "{log}"
    );
    assert!(
        log_has(&report, "paused at t.src:8 (track caller) — step"),
        "{log}"
    );
    assert!(log.contains("v1=3") && log.contains("v2=100"), "{log}");
}

#[test]
fn break_on_fault_pauses_at_the_faulting_line_and_the_fault_follows() {
    let p = calls_project();
    let (report, records) = render(
        p.load(),
        "0 break on fault\n0 ui divider\n0 regs\n0 continue\n",
        &out("fault"),
        0.5,
    );
    let log = report.log.join("\n");
    assert!(
        log_has(
            &report,
            "paused at t.src:16 (track divider) — fault: divide by zero"
        ),
        "{log}"
    );
    assert!(log.contains("v1=5 v2=0"), "{log}");
    let fault = records
        .iter()
        .position(|r| matches!(r.what, TraceEvent::Fault { .. }))
        .expect("the fault is traced once the engine goes on");
    let pause = records
        .iter()
        .position(|r| matches!(r.what, TraceEvent::Paused { .. }))
        .unwrap();
    assert!(pause < fault);
    // Without it, the same fault, no pause.
    let (report, _) = render(p.load(), "0 ui divider\n0 regs\n", &out("nofault"), 0.5);
    assert!(!log_has(&report, "paused at"), "{:#?}", report.log);
    assert!(log_has(&report, "not paused"), "{:#?}", report.log);
}

#[test]
fn quieting_the_paused_track_lets_the_engine_go_on() {
    let (report, _) = render(
        demo(),
        "0 break piano.src:37\n0 sev piano play @1\n0 regs\n0.5 quietall\n1 sev piano play @2\n",
        &out("quiet"),
        2.0,
    );
    let log = report.log.join("\n");
    // Paused, quieted (the line ran at once, while paused), and the clock moved on: the
    // second trigger at 1 s ran at its time and paused again.
    assert!(
        log_has(
            &report,
            "paused at piano.src:37 (track piano_play, object 1)"
        ),
        "{log}"
    );
    assert!(
        log.contains("quieted everything: 1 track(s) ended"),
        "{log}"
    );
    assert!(
        log_has(
            &report,
            "paused at piano.src:37 (track piano_play, object 2)"
        ),
        "{log}"
    );
}
