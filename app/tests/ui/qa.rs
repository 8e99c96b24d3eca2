//! The QA panel under egui_kittest: Run all runs a copy of the demo's suite in the
//! background with progress, each script passes or fails per expectation, and a failed
//! one opens its run in the capture view at that time with the Why panel on the
//! decision; "Save console history as QA script…" turns lines typed at the console into
//! a script that lists in the panel, reads back and passes.
//!
//! With `HITBENCH_SCREENSHOTS=1` it also writes `screenshots/qa.png` (the QA panel after
//! a run with one failure) and `screenshots/qa-why.png` (that failure shown).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{copy_dir, open, screenshot, show, temp, type_line, until, workspace};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable};
use engine_core::host::qa::{ScriptRun, parse_qa};
use hitbench::workbench::Workbench;
use hitbench::workbench::dock::Pane;
use panels::QaState;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Clicks the save dialog's checkbox whose label `matches`.
fn click_box(harness: &mut Harness<'static, Workbench>, matches: impl Fn(&str) -> bool) {
    harness
        .get_all_by_role(Role::CheckBox)
        .find(|n| n.accesskit_node().label().is_some_and(|l| matches(&l)))
        .unwrap()
        .click();
    harness.run();
}

/// Clicks the save dialog's Save.
fn click_save(harness: &mut Harness<'static, Workbench>) {
    harness.get_by_role_and_label(Role::Button, "Save").click();
    harness.run();
    harness.run();
}

/// A copy of the demo in `dir` keeping only the QA scripts named.
fn demo_copy(dir: &Path, keep: &[&str]) -> PathBuf {
    let copy = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &copy);
    for entry in std::fs::read_dir(copy.join("qa")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !keep.contains(&name.as_str()) {
            std::fs::remove_file(&path).unwrap();
        }
    }
    copy
}

#[test]
fn run_all_shows_each_expectation_and_a_failure_opens_at_its_time_with_why() {
    let dir = temp("qa-panel");
    let copy = demo_copy(&dir, &["ui_sounds.qa", "voice_limit.qa", "stations.qa"]);
    // The laugh's priority lowered below the door's: with four voices it no longer
    // steals the door's voice, and voice_limit.qa:12 fails.
    let people = copy.join("people.src");
    let text = std::fs::read_to_string(&people).unwrap();
    let lowered = text.replace(
        "0x2102=0,vox_laugh,1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,@0,0,50",
        "0x2102=0,vox_laugh,1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,@0,0,10",
    );
    assert_ne!(lowered, text);
    std::fs::write(&people, lowered).unwrap();
    let mut harness = open(&copy, &dir.join("config"));
    show(&mut harness, Pane::Qa);

    // The suite is listed, not run yet.
    for name in ["stations.qa", "ui_sounds.qa", "voice_limit.qa"] {
        harness.get_by_label(name);
    }
    assert_eq!(harness.get_all_by_label("not run").count(), 3);

    // Run all: progress while it runs, then the tally and each script's verdict.
    harness
        .get_by_role_and_label(Role::Button, "Run all")
        .click();
    harness.run();
    assert!(harness.state().qa_running() || harness.state().qa().tally() != (0, 0));
    until(&mut harness, "the suite ran", |wb| !wb.qa_running());
    harness.run();
    assert_eq!(harness.state().qa().tally(), (2, 1));
    harness.get_by_label("2 passed, 1 failed");
    harness.get_by_label_contains("of 5 expectation(s) failed");
    assert_eq!(
        harness
            .get_all_by_label_contains("expectation(s) held")
            .count(),
        2
    );
    // The failure, open: its place, the expectation and what actually was.
    harness.get_by_label("voice_limit.qa:12");
    harness.get_by_label("expect started vox_laugh @3");
    assert!(
        harness
            .get_all_by_label_contains("actually: refused: all 4 voices busy")
            .next()
            .is_some()
    );
    screenshot(&mut harness, "qa.png");

    // Show why: the run in the capture view at the time it was checked, the Why panel
    // on the refused laugh.
    // Lines 11 and 12 failed (13, some steal, holds: a greeting takes the ambience's
    // voice); the second is the laugh's.
    assert_eq!(harness.get_all_by_label("Show why").count(), 2);
    harness.get_all_by_label("Show why").nth(1).unwrap().click();
    harness.run();
    harness.run();
    let script = copy.join("qa/voice_limit.qa");
    let (at, rate) = {
        let qa = harness.state().qa();
        let state = qa.scripts.iter().find(|s| s.file == script).unwrap();
        let QaState::Done(ScriptRun::Ran(report, _)) = &state.state else {
            panic!("voice_limit.qa ran");
        };
        let failed = report
            .failures()
            .find(|r| r.expectation.line == 12)
            .unwrap();
        (failed.at, report.rate)
    };
    let capture = harness
        .state()
        .capture()
        .expect("the run opens as a capture");
    assert_eq!(capture.path, script);
    assert_eq!(capture.at, at);
    // Checked at 0.2 s: the first tick at or after it.
    assert!(at.samples() >= u64::from(rate) / 5, "{at:?}");
    harness.get_by_label_contains("Why: the trigger of trace record");
    harness.get_by_label_contains("1 decision(s)");
    assert!(
        harness
            .get_all_by_label_contains("all 4 voices busy")
            .next()
            .is_some(),
        "the Why panel shows the refusal"
    );
    if std::env::var_os("HITBENCH_SCREENSHOTS").is_some() {
        let out = workspace().join("screenshots");
        harness
            .render()
            .unwrap()
            .save(out.join("qa-why.png"))
            .unwrap();
    }
    drop(harness);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn console_history_saved_as_a_qa_script_reads_back_and_passes() {
    let dir = temp("qa-save");
    let copy = demo_copy(&dir, &["ui_sounds.qa"]);
    let mut harness = open(&copy, &dir.join("config"));
    harness.run();

    // What a tester does by hand: two greetings, a line misspelt.
    for line in ["sev vox greet @1", "sev nothing_such", "sev vox greet @2"] {
        type_line(&mut harness, line);
        let n = harness.state().console().len();
        until(&mut harness, "the engine answers", |wb| {
            wb.console().len() >= n && wb.console().iter().all(|e| e.at.is_some())
        });
        std::thread::sleep(Duration::from_millis(300));
        harness.run();
    }
    until(&mut harness, "the replies are in", |wb| {
        wb.console().len() == 3 && wb.console().iter().all(|e| e.at.is_some())
    });
    // The greetings' decisions reach the trace.
    until(&mut harness, "the greetings are traced", |wb| {
        wb.trace()
            .iter()
            .filter(|r| r.event.as_deref() == Some("vox_greet"))
            .count()
            >= 2
    });

    show(&mut harness, Pane::Qa);
    harness
        .get_by_role_and_label(Role::Button, "Save console history as QA script…")
        .click();
    harness.run();
    harness.run();
    // The dialog: the lines, the one left out, the expectations offered.
    harness.get_by_label("Save console history as QA script");
    harness.get_by_label_contains("left out: sev nothing_such");
    let started = |harness: &Harness<'static, Workbench>, object: u32| {
        harness
            .get_all_by_role(Role::CheckBox)
            .find(|n| {
                n.accesskit_node()
                    .label()
                    .is_some_and(|l| l.ends_with(&format!("expect started vox_greet @{object}")))
            })
            .is_some()
    };
    assert!(started(&harness, 1) && started(&harness, 2));
    // Untick the steal count (it is unticked already) and tick the refusals' count.
    click_box(&mut harness, |l| l.contains("count refusals == 0"));
    click_save(&mut harness);

    // Written into qa/, listed in the panel, and said so.
    let saved = copy.join("qa/console_1.qa");
    assert!(saved.is_file(), "{:?}", harness.state().qa().saved);
    harness.get_by_label("console_1.qa");
    harness.get_by_label_contains("saved qa/console_1.qa");
    let text = std::fs::read_to_string(&saved).unwrap();
    let (script, problems) = parse_qa(&text, &saved);
    assert!(problems.is_empty(), "{problems:#?}\n{text}");
    let lines: Vec<String> = script
        .commands
        .iter()
        .map(|c| c.command.to_string())
        .collect();
    assert_eq!(lines, ["sev vox_greet @1", "sev vox_greet @2"], "{text}");
    assert_eq!(script.commands[0].time, 0.0, "{text}");
    let expected: Vec<&str> = script
        .expectations
        .iter()
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        expected,
        [
            "started vox_greet @1",
            "started vox_greet @2",
            "no fault",
            "count refusals == 0"
        ],
        "{text}"
    );

    // Run from the panel, it passes on a fresh engine.
    harness.state_mut().run_qa(std::slice::from_ref(&saved));
    until(&mut harness, "the saved script ran", |wb| !wb.qa_running());
    let qa = harness.state().qa();
    let state = qa.scripts.iter().find(|s| s.file == saved).unwrap();
    assert!(
        matches!(&state.state, QaState::Done(run) if run.passed()),
        "{:#?}\n{text}",
        state.state
    );

    // A second save never overwrites: the name moves on.
    harness
        .get_by_role_and_label(Role::Button, "Save console history as QA script…")
        .click();
    harness.run();
    assert!(
        harness
            .get_all_by_role(Role::TextInput)
            .any(|n| n.accesskit_node().value().as_deref() == Some("console_2.qa")),
        "the next name is offered"
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs frames until the QA tab shows a label containing `text` (or, with `gone`, none).
fn until_label(harness: &mut Harness<'static, Workbench>, text: &str, gone: bool) {
    let start = std::time::Instant::now();
    while harness.query_by_label_contains(text).is_some() == gone {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "`{text}` {} within 60 s",
            if gone { "still shown" } else { "not shown" }
        );
        std::thread::sleep(Duration::from_millis(20));
        harness.run();
    }
}

#[test]
fn the_qa_tab_follows_scripts_changed_added_renamed_and_removed_on_disk() {
    let dir = temp("qa-notices");
    let copy = demo_copy(&dir, &["ui_sounds.qa", "stations.qa"]);
    let mut harness = open(&copy, &dir.join("config"));
    show(&mut harness, Pane::Qa);
    let ui_sounds = copy.join("qa/ui_sounds.qa");
    harness.state_mut().run_qa(std::slice::from_ref(&ui_sounds));
    until(&mut harness, "ui_sounds.qa ran", |wb| !wb.qa_running());
    harness.get_by_label_contains("expectation(s) held");
    assert!(harness.query_by_label_contains("changed since").is_none());

    // Its text changes: the result shown is marked as of the script before.
    let text = std::fs::read_to_string(&ui_sounds).unwrap();
    std::fs::write(&ui_sounds, format!("{text}# one more comment\n")).unwrap();
    until_label(&mut harness, "changed on disk", false);
    assert_eq!(
        harness.get_all_by_label("changed on disk").count(),
        1,
        "only the script that changed"
    );
    // Beside its name, before the summary a narrow tab cuts off first.
    let mark = harness.get_by_label("changed on disk").rect();
    let name = harness.get_by_label("ui_sounds.qa").rect();
    let summary = harness.get_by_label_contains("expectation(s) held").rect();
    assert!(
        mark.left() >= name.right() && mark.right() <= summary.left(),
        "{name:?} {mark:?} {summary:?}"
    );
    // Run again: the mark goes.
    harness.state_mut().run_qa(std::slice::from_ref(&ui_sounds));
    until(&mut harness, "ui_sounds.qa ran again", |wb| {
        !wb.qa_running()
    });
    until_label(&mut harness, "changed on disk", true);

    // A new script is listed, a renamed one under its new name, a removed one no more.
    std::fs::write(
        copy.join("qa/new.qa"),
        "0 ui ui click\n0.1 expect no fault\n",
    )
    .unwrap();
    until_label(&mut harness, "new.qa", false);
    std::fs::rename(copy.join("qa/stations.qa"), copy.join("qa/renamed.qa")).unwrap();
    until_label(&mut harness, "renamed.qa", false);
    until_label(&mut harness, "stations.qa", true);
    std::fs::remove_file(copy.join("qa/new.qa")).unwrap();
    until_label(&mut harness, "new.qa", true);
    drop(harness);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Types each of `lines` at the console and waits for the engine's answer.
fn type_lines(harness: &mut Harness<'static, Workbench>, lines: &[&str]) {
    for line in lines {
        let n = harness.state().console().len();
        type_line(harness, line);
        until(harness, "the engine answers", |wb| {
            wb.console().len() > n && wb.console().iter().all(|e| e.at.is_some())
        });
        std::thread::sleep(Duration::from_millis(200));
        harness.run();
    }
}

/// The checkboxes of the save dialog whose label contains `text`, with their rects.
fn boxes(harness: &Harness<'static, Workbench>, text: &str) -> Vec<(String, egui::Rect)> {
    harness
        .get_all_by_role(Role::CheckBox)
        .filter_map(|n| {
            let label = n.accesskit_node().label()?;
            label.contains(text).then(|| (label.to_string(), n.rect()))
        })
        .collect()
}

#[test]
fn the_save_dialog_shows_every_expectation_offered_and_lines_can_be_left_out() {
    let dir = temp("qa-save-all");
    let copy = demo_copy(&dir, &["ui_sounds.qa"]);
    let mut harness = open(&copy, &dir.join("config"));
    harness.run();
    // Eight triggers: eight expectations about them and three at the end.
    type_lines(
        &mut harness,
        &[
            "sev vox greet @1",
            "sev vox laugh @2",
            "sev vox hungry @3",
            "sev piano play @2",
            "sev baby cry @9",
            "ui ui moneyback",
            "sev door open @1",
            "ui ui click",
        ],
    );
    until(&mut harness, "the triggers are traced", |wb| {
        wb.trace()
            .iter()
            .any(|r| r.event.as_deref() == Some("ui_click"))
    });
    show(&mut harness, Pane::Qa);
    harness
        .get_by_role_and_label(Role::Button, "Save console history as QA script…")
        .click();
    harness.run();
    harness.run();
    let offers = boxes(&harness, "expect ");
    assert!(offers.len() >= 11, "{offers:#?}");
    // Every one of them on screen at once, above the file name and the buttons.
    let save = harness.get_by_role_and_label(Role::Button, "Save").rect();
    let lines = boxes(&harness, " sev ");
    assert_eq!(lines.len(), 6, "{lines:#?}");
    for (label, rect) in offers.iter().chain(&lines) {
        assert!(
            rect.top() >= 0.0 && rect.bottom() <= save.top() && rect.right() <= 1280.0,
            "`{label}` at {rect:?} is not in view above the Save button at {save:?}"
        );
    }

    // Leave the laugh out: its line and the expectation about it are not written.
    click_box(&mut harness, |l| l.ends_with(" sev vox_laugh @2"));
    click_save(&mut harness);
    let saved = copy.join("qa/console_1.qa");
    let text = std::fs::read_to_string(&saved).unwrap();
    let (script, problems) = parse_qa(&text, &saved);
    assert!(problems.is_empty(), "{problems:#?}\n{text}");
    assert_eq!(script.commands.len(), 7, "{text}");
    assert!(!text.contains("vox_laugh"), "{text}");
    assert!(text.contains("expect started vox_greet @1"), "{text}");
    drop(harness);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_line_that_changed_what_was_heard_is_recorded_across_ab_snapshots() {
    use engine_core::tools::properties::PropertyTarget;
    let dir = temp("qa-save-ab");
    let copy = demo_copy(&dir, &["ui_sounds.qa"]);
    let mut harness = open(&copy, &dir.join("config"));
    type_lines(&mut harness, &["sev piano play @1"]);
    harness
        .state_mut()
        .show_properties(PropertyTarget::Track(0x2200));
    show(&mut harness, Pane::Properties);
    let answered = |harness: &mut Harness<'static, Workbench>, n: usize| {
        until(harness, "the engine answers", |wb| {
            wb.console().len() >= n && wb.console().iter().all(|e| e.at.is_some())
        });
        std::thread::sleep(Duration::from_millis(100));
        harness.run();
    };
    let set = |harness: &mut Harness<'static, Workbench>, field: &str, value: f64| {
        harness
            .get_by_role_and_label(Role::SpinButton, field)
            .set_value_accesskit(value);
        harness.run();
    };
    let click = |harness: &mut Harness<'static, Workbench>, label: &str| {
        harness.get_by_role_and_label(Role::Button, label).click();
        harness.run();
    };
    // Each step: what is done, and the lines it makes heard.
    set(&mut harness, "volume", 512.0);
    answered(&mut harness, 2);
    click(&mut harness, "Store A");
    set(&mut harness, "volume", 800.0);
    answered(&mut harness, 3);
    click(&mut harness, "Store B");
    for (snapshot, lines) in [("A", 4), ("B", 5), ("A", 6)] {
        click(&mut harness, snapshot);
        answered(&mut harness, lines);
    }
    type_lines(&mut harness, &["mute track 0x2200", "voices 12"]);
    click(&mut harness, "B");
    answered(&mut harness, 9);
    type_lines(&mut harness, &["solo fx", "mute track 0x2200 off"]);
    click(&mut harness, "Keep A");
    answered(&mut harness, 12);
    set(&mut harness, "volume", 600.0);
    answered(&mut harness, 13);
    let heard = [
        "sev piano_play @1",
        "tune track 0x2200 volume 512",
        "tune track 0x2200 volume 800",
        "tune track 0x2200 volume 512",
        "tune track 0x2200 volume 800",
        "tune track 0x2200 volume 512",
        "mute track 0x2200",
        "voices 12",
        "tune track 0x2200 volume 800",
        "solo fx",
        "mute track 0x2200 off",
        "tune track 0x2200 volume 512",
        "tune track 0x2200 volume 600",
    ];
    let console: Vec<String> = harness
        .state()
        .console()
        .iter()
        .map(|e| e.input.clone())
        .collect();
    assert_eq!(console.len(), heard.len(), "{console:#?}");

    // Saved as a script, every one of them is there, in order.
    harness.state_mut().close(Pane::Properties);
    show(&mut harness, Pane::Qa);
    click(&mut harness, "Save console history as QA script…");
    harness.run();
    click(&mut harness, "Save");
    harness.run();
    let saved = copy.join("qa/console_1.qa");
    let text = std::fs::read_to_string(&saved).unwrap();
    let (script, problems) = parse_qa(&text, &saved);
    assert!(problems.is_empty(), "{problems:#?}\n{text}");
    let lines: Vec<String> = script
        .commands
        .iter()
        .map(|c| c.command.to_string())
        .collect();
    assert_eq!(lines, heard, "{text}");
    drop(harness);
    let _ = std::fs::remove_dir_all(&dir);
}
