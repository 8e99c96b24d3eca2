//! The workbench's capture view under egui_kittest: a capture of the first 32 s of the
//! demo tour opens in every panel — Traces, Voices, Track threads, Lot view and the
//! resource cache show it as it was at the time scrubbed to; Why opens from Voices,
//! Traces and the Lot view on the capture's records; the console says the engine's
//! commands are off; the diff against the project now runs in the background; a bad
//! file is an error naming it and its line. File → Start/Stop capture writes a capture
//! of the live session that reads back.
//!
//! With `HITBENCH_SCREENSHOTS=1` it also writes `screenshots/capture.png` (the capture
//! view: the timeline bar, the lot view and the Capture tab with its diff).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{SIZE, copy_dir, show, temp, type_line, until, workspace};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::host::capture::{self, CaptureWriter, Header};
use engine_core::host::command::parse_script;
use engine_core::host::offline::{self, RenderOptions};
use engine_core::runtime::SampleTime;
use engine_core::toolchain::project::Project;
use hitbench::workbench::Workbench;
use hitbench::workbench::dock::Pane;
use hitbench::workbench::files::Dialog;
use panels::DiffState;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Captures the first `seconds` of the demo tour into `path` (as `render --capture`).
fn capture_tour(path: &Path, seconds: f64) {
    capture_tour_at(path, seconds, 48_000);
}

/// [`capture_tour`] at `rate` samples per second.
fn capture_tour_at(path: &Path, seconds: f64, rate: u32) {
    let demo = workspace().join("projects/demo").canonicalize().unwrap();
    let tour = demo.join("tour.txt");
    let (script, problems) = parse_script(&std::fs::read_to_string(&tour).unwrap(), &tour);
    assert!(problems.iter().all(|p| !p.is_error()), "{problems:?}");
    let project = Project::load(&demo);
    let options = RenderOptions {
        duration: Some(seconds),
        sample_rate: rate,
        ..RenderOptions::default()
    };
    let header = Header::for_render(&project, &options);
    let writer = RefCell::new(CaptureWriter::create(path, &header).unwrap());
    for timed in &script {
        writer
            .borrow_mut()
            .input(timed.time, timed.command.to_string())
            .unwrap();
    }
    let wav = path.with_extension("wav");
    let report = offline::render_with_keyframes(
        project,
        &script,
        &wav,
        options,
        &mut |r| writer.borrow_mut().record(r).unwrap(),
        &mut |k| writer.borrow_mut().keyframe(k).unwrap(),
    )
    .unwrap();
    writer
        .into_inner()
        .finish(SampleTime::from_samples(report.frames))
        .unwrap();
}

/// The workbench on `project` at `size`, its settings in a fresh folder for `tag`.
fn open_tagged(
    project: &Path,
    tag: &str,
    size: egui::Vec2,
) -> (Harness<'static, Workbench>, PathBuf) {
    let config = temp(&format!("{tag}-config"));
    (common::open_sized(project, &config, size), config)
}

/// The Traces (in front) filtered by `text`.
fn filter_traces(harness: &mut Harness<'static, Workbench>, text: &str) {
    harness.get_by_label("Text:").click();
    harness.run();
    harness.get_by_label("Text:").type_text(text);
    harness.run();
}

/// In the Traces (in front), the newest record of `event` selected: filtered by its
/// name, then clicked.
fn select_newest(harness: &mut Harness<'static, Workbench>, event: &str) {
    filter_traces(harness, event);
    harness
        .get_all_by_label_contains(&format!("event={event}"))
        .last()
        .unwrap()
        .click();
    harness.run();
}

fn seek(harness: &mut Harness<'static, Workbench>, seconds: u64) {
    harness
        .state_mut()
        .seek(SampleTime::from_samples(seconds * 48_000));
    harness.run();
}

#[test]
fn a_capture_shows_in_every_panel_at_the_time_scrubbed_to() {
    let dir = temp("capture-view");
    let cap = dir.join("tour.hbcap");
    capture_tour(&cap, 32.0);
    let demo = workspace().join("projects/demo");
    let (mut harness, config) = open_tagged(&demo, "capture-view", SIZE);
    harness.run();
    harness.state_mut().open_capture(&cap);
    harness.run();
    assert!(
        harness.state().capture().is_some(),
        "{}",
        harness.state().status()
    );
    harness.get_by_label("Capture: tour.hbcap");
    harness.get_by_label("Close capture");

    // 9 s: Bob plays the piano, the greetings are over.
    seek(&mut harness, 9);
    harness.get_by_label("9.000 s of 0.000–32.000 s");
    show(&mut harness, Pane::Voices);
    assert!(
        harness.query_all_by_label("piano_play").count() >= 1,
        "Voices"
    );
    show(&mut harness, Pane::Threads);
    harness.get_by_label_contains("live thread(s)");
    assert!(
        harness.query_all_by_label("piano_play").count() >= 1,
        "Threads"
    );
    show(&mut harness, Pane::Lot);
    harness.get_by_role_and_label(Role::Button, "Betty Newbie");
    show(&mut harness, Pane::Cache);
    harness.get_by_label("Budget");
    assert_eq!(
        harness
            .query_all_by_label_contains("No cache statistics")
            .count(),
        0,
        "the capture's cache"
    );
    show(&mut harness, Pane::Traces);
    harness.get_by_label_contains("The capture's records up to 9.000 s");
    assert!(
        harness
            .query_all_by_label_contains("event=piano_play")
            .count()
            >= 1
    );
    assert_eq!(
        harness
            .query_all_by_label_contains("event=baby_cry")
            .count(),
        0,
        "the baby cries at 24.5 s"
    );
    // On to 25 s the baby's records come in; back to 9 s they go again.
    seek(&mut harness, 25);
    assert!(
        harness
            .query_all_by_label_contains("event=baby_cry")
            .count()
            >= 1
    );
    seek(&mut harness, 9);
    harness.run();
    assert_eq!(
        harness
            .query_all_by_label_contains("event=baby_cry")
            .count(),
        0
    );
    // The steps between decisions.
    harness.get_by_label("Next decision").click();
    harness.run();
    let at = harness.state().capture().unwrap().at.samples();
    assert!(
        (9 * 48_000 + 1..=13 * 48_000 + 24_000).contains(&at),
        "the next trigger is at most Betty's piano at 13.5 s: {at}"
    );

    // The engine's commands are off, and the console says so.
    type_line(&mut harness, "sev vox greet @1");
    let reply = harness.state().console().last().unwrap().reply.clone();
    assert!(
        reply
            .as_ref()
            .is_err_and(|e| e.contains("a capture is open (tour.hbcap)")),
        "{reply:?}"
    );

    // Close: live again.
    harness.get_by_label("Close capture").click();
    harness.run();
    assert!(harness.state().capture().is_none());
    assert_eq!(harness.query_all_by_label("Capture: tour.hbcap").count(), 0);
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn why_opens_from_voices_traces_and_the_lot_view_on_the_capture() {
    let dir = temp("capture-why");
    let cap = dir.join("tour.hbcap");
    capture_tour(&cap, 10.0);
    let demo = workspace().join("projects/demo");
    // Tall enough for the lot view's column to show its Why below an object's details.
    let (mut harness, config) = open_tagged(&demo, "capture-why", egui::vec2(1280.0, 1600.0));
    harness.run();
    harness.state_mut().open_capture(&cap);
    seek(&mut harness, 9);

    // Voices: the piano's slot. (The first "Why" is the Why panel's tab, then one per
    // slot in order.)
    show(&mut harness, Pane::Voices);
    let piano = harness
        .state()
        .shown()
        .voice_slots
        .iter()
        .rev()
        .find(|v| v.occupant.is_some())
        .map(|v| v.slot)
        .expect("a voice plays at 9 s");
    harness
        .get_all_by_label("Why")
        .nth(1 + piano)
        .unwrap()
        .click();
    harness.run();
    harness.get_by_label_contains("Why: voice");
    assert!(harness.query_all_by_label("started").count() >= 1);

    // Traces: a greeting's record (the newest, in view), selected: Why beside Export.
    // (The track threads in front of the voices, whose Why buttons are in view no more.)
    show(&mut harness, Pane::Threads);
    show(&mut harness, Pane::Traces);
    select_newest(&mut harness, "vox_greet");
    harness.get_all_by_label("Why").last().unwrap().click();
    harness.run();
    harness.get_by_label_contains("Why: the trigger of trace record");

    // Lot view: Betty, who greeted at 3.5 s and plays nothing at 9 s. (The traces
    // closed, whose Why is in view no more.)
    harness.state_mut().close(Pane::Traces);
    show(&mut harness, Pane::Lot);
    harness
        .get_by_role_and_label(Role::Button, "Betty Newbie")
        .click();
    harness.run();
    // Its Why is the button beside her details (the lot view is left of the Why tab).
    harness
        .get_all_by_role_and_label(Role::Button, "Why")
        .next()
        .unwrap()
        .click();
    harness.run();
    harness.get_by_label("Why: object 2");
    // Her greeting's gain, by named contribution: the view's zoom among them.
    assert!(
        harness.get_all_by_label("zoom").next().is_some(),
        "the Why panel names the zoom's part in the note's gain"
    );
    assert_eq!(
        harness.state().capture().map(|c| c.at),
        Some(SampleTime::from_samples(9 * 48_000))
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_diff_against_the_project_now_lists_what_an_edit_changed() {
    let dir = temp("capture-diff");
    let cap = dir.join("tour.hbcap");
    capture_tour(&cap, 32.0);
    // The workbench has a copy of the demo open, whose baby has one cry only.
    let copy = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &copy);
    let (mut harness, config) = open_tagged(&copy, "capture-diff", SIZE);
    harness.run();
    harness.state_mut().open_capture(&cap);
    harness.run();
    harness.get_by_label("Diff against the project now").click();
    harness.run();
    until(&mut harness, "the same project decides the same", |wb| {
        !wb.diffing()
    });
    assert_eq!(
        harness.state().capture().unwrap().diff,
        DiffState::Done(Vec::new())
    );
    harness.get_by_label_contains("No decision differs");

    let source = copy.join("baby.src");
    let edited = std::fs::read_to_string(&source)
        .unwrap()
        .replace("hl_baby_cry=2201-2203", "hl_baby_cry=2203-2203");
    std::fs::write(&source, edited).unwrap();
    harness.state_mut().diff_capture();
    until(&mut harness, "the edited project's diff", |wb| {
        !wb.diffing()
    });
    let DiffState::Done(differences) = harness.state().capture().unwrap().diff.clone() else {
        panic!("{:?}", harness.state().capture().unwrap().diff);
    };
    let cry = differences
        .iter()
        .find(|d| d.event.as_ref() == "baby_cry")
        .unwrap_or_else(|| panic!("{differences:?}"));
    show(&mut harness, Pane::Capture);
    harness.get_by_label(&format!(
        "{}:",
        engine_core::tools::diff::summary(&differences)
    ));
    // A click on its time scrubs there.
    let time = format!("{:.3} s", cry.time.samples() as f64 / 48_000.0);
    harness.get_all_by_label(&time).next().unwrap().click();
    harness.run();
    assert_eq!(harness.state().capture().unwrap().at, cry.time);
    if std::env::var_os("HITBENCH_SCREENSHOTS").is_some() {
        harness.state_mut().show(Pane::Lot);
        harness.state_mut().show(Pane::Capture);
        harness.run();
        harness.run();
        let out = workspace().join("screenshots");
        std::fs::create_dir_all(&out).unwrap();
        harness
            .render()
            .unwrap()
            .save(out.join("capture.png"))
            .unwrap();
    }
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A capture cut off half way (a crash's) opens with its length up to its last whole
/// frame, and its diff compares only what it recorded: the script's later inputs,
/// written ahead, are not taken for triggers gone missing.
#[test]
fn a_cut_off_capture_opens_and_its_diff_compares_only_what_it_recorded() {
    let dir = temp("capture-cut");
    let whole = dir.join("tour.hbcap");
    capture_tour(&whole, 32.0);
    let bytes = std::fs::read(&whole).unwrap();
    let cut = dir.join("cut.hbcap");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let read = capture::read(&cut).unwrap();
    assert!(read.end.is_none());
    let reach = read.cut_off_at().unwrap();
    assert!(
        reach > SampleTime::ZERO && reach < SampleTime::from_samples(32 * 48_000),
        "{reach:?}"
    );
    let demo = workspace().join("projects/demo");
    let (mut harness, config) = open_tagged(&demo, "capture-cut", SIZE);
    harness.run();
    harness.state_mut().open_capture(&cut);
    harness.run();
    show(&mut harness, Pane::Capture);
    harness.get_by_label_contains("(cut off: no end)");
    harness.state_mut().diff_capture();
    until(&mut harness, "the diff", |wb| !wb.diffing());
    assert_eq!(
        harness.state().capture().unwrap().diff,
        DiffState::Done(Vec::new())
    );
    harness.get_by_label_contains("No decision differs");
    harness.get_by_label(&format!(
        "The capture was cut off at {:.3} s: what was decided from then on is not compared.",
        reach.samples() as f64 / 48_000.0
    ));
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An open capture shows one moment: the window repaints on a timer only while it
/// plays (or diffs), not because the moment shown has sounds playing.
#[test]
fn an_open_capture_repaints_on_a_timer_only_while_it_plays() {
    let dir = temp("capture-idle");
    let cap = dir.join("tour.hbcap");
    capture_tour(&cap, 8.0);
    let demo = workspace().join("projects/demo");
    let (mut harness, config) = open_tagged(&demo, "capture-idle", SIZE);
    harness.run();
    harness.state_mut().open_capture(&cap);
    show(&mut harness, Pane::Voices);
    seek(&mut harness, 2);
    let view = harness.state().capture().unwrap();
    assert!(
        !view.timeline.snapshot_at(view.at).tracks.is_empty(),
        "sounds play at the moment shown"
    );
    assert!(!harness.state().repaints_on_a_timer());
    harness.state_mut().play_capture(true);
    harness.run();
    assert!(harness.state().repaints_on_a_timer());
    harness.state_mut().play_capture(false);
    harness.run();
    assert!(!harness.state().repaints_on_a_timer());
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_capture_is_an_error_naming_the_file_and_the_workbench_goes_on() {
    let dir = temp("capture-bad");
    let bad = dir.join("bad.hbcap");
    std::fs::write(&bad, "{\"line\": \"header\"\nnot json\n").unwrap();
    let demo = workspace().join("projects/demo");
    let (mut harness, config) = open_tagged(&demo, "capture-bad", SIZE);
    harness.run();
    harness.state_mut().open_capture(&bad);
    harness.run();
    assert!(harness.state().capture().is_none());
    let status = harness.state().status().to_string();
    assert!(
        status.contains(&format!("{}:1:", bad.display())),
        "{status}"
    );
    harness.state_mut().open_capture(&dir.join("missing.hbcap"));
    assert!(harness.state().status().contains("missing.hbcap"));
    // The live engine still answers.
    type_line(&mut harness, "sev vox greet @1");
    until(&mut harness, "the engine answers", |wb| {
        wb.console().last().is_some_and(|e| e.reply.is_ok())
    });
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn start_and_stop_capture_write_a_readable_capture_of_the_live_session() {
    let dir = temp("capture-live");
    let cap = dir.join("live.hbcap");
    let demo = workspace().join("projects/demo");
    let (mut harness, config) = open_tagged(&demo, "capture-live", SIZE);
    harness.run();
    harness.state_mut().start_capture(&cap);
    until(&mut harness, "it captures", Workbench::capturing);
    harness.get_by_label_contains(&format!("capturing to {} ·", cap.display()));
    type_line(&mut harness, "sev vox greet @2");
    until(&mut harness, "the greeting plays", |wb| {
        wb.trace()
            .iter()
            .any(|r| r.event.as_deref() == Some("vox_greet"))
    });
    harness.state_mut().stop_capture();
    until(&mut harness, "it is written", |wb| {
        wb.status().starts_with("captured")
    });
    assert!(!harness.state().capturing());
    let read = capture::read(&cap).unwrap();
    assert_eq!(read.inputs.len(), 1);
    assert_eq!(read.inputs[0].1, "sev vox greet @2", "the line as typed");
    assert!(read.end.is_some());
    assert!(!read.keyframes.is_empty());
    assert!(
        read.records
            .iter()
            .any(|r| r.event.as_deref() == Some("vox_greet"))
    );
    // It opens in the capture view.
    harness.state_mut().open_capture(&cap);
    assert!(
        harness.state().capture().is_some(),
        "{}",
        harness.state().status()
    );

    // Without a file dialog, Start capture captures to the project's next
    // captures/capture-NNN.hbcap, and the file dropped on the window opens.
    harness.state_mut().close_capture();
    let project = temp("capture-no-dialog");
    copy_dir(&demo, &project);
    let (mut other, other_config) = open_tagged(&project, "capture-no-dialog", SIZE);
    other.run();
    std::fs::create_dir_all(project.join("captures")).unwrap();
    std::fs::write(project.join("captures/capture-001.hbcap"), b"taken").unwrap();
    other.state_mut().no_dialog(Dialog::StartCapture);
    let made = project.join("captures/capture-002.hbcap");
    let status = other.state().status().to_string();
    assert!(
        status.starts_with("no file dialog could be shown")
            && status.contains(&format!("capturing to {}", made.display())),
        "{status}"
    );
    until(&mut other, "it captures", Workbench::capturing);
    other.state_mut().stop_capture();
    until(&mut other, "it is written", |wb| {
        wb.status().starts_with("captured")
    });
    other.state_mut().dropped(std::slice::from_ref(&made));
    assert!(
        other.state().capture().is_some(),
        "{}",
        other.state().status()
    );
    // The text form opens when dropped too; the other entries say what to do instead.
    let text = dir.join("live.jsonl");
    let mut lines = Vec::new();
    capture::write_text(&capture::read(&made).unwrap(), &mut lines).unwrap();
    std::fs::write(&text, lines).unwrap();
    other.state_mut().close_capture();
    other.state_mut().dropped(std::slice::from_ref(&text));
    assert!(
        other.state().capture().is_some(),
        "{}",
        other.state().status()
    );
    other.state_mut().no_dialog(Dialog::OpenCapture);
    assert!(other.state().status().contains("drop a capture (.hbcap)"));
    other.state_mut().no_dialog(Dialog::ExportRender);
    assert!(other.state().status().contains("hitbench render"));
    drop(other);
    let _ = std::fs::remove_dir_all(&other_config);
    let _ = std::fs::remove_dir_all(&project);

    // A capture that cannot be written is said, naming the file.
    harness.state_mut().close_capture();
    let nowhere = dir.join("no/such/folder/x.hbcap");
    harness.state_mut().start_capture(&nowhere);
    let status = harness.state().status().to_string();
    assert!(
        status.starts_with("cannot capture") && status.contains(&nowhere.display().to_string()),
        "{status}"
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `hitbench open` given a capture opens it in the capture view, on the project it was
/// made with; given another file, the project folder it is in.
#[test]
fn open_takes_a_capture_or_a_file_as_well_as_a_folder() {
    use hitbench::workbench::files::what_to_open;
    let dir = temp("capture-open");
    let cap = dir.join("tour.hbcap");
    capture_tour(&cap, 2.0);
    let demo = workspace().join("projects/demo").canonicalize().unwrap();
    let open = what_to_open(&cap);
    assert_eq!(open.project, Some(demo.clone()));
    let (path, read) = open.capture.expect("the capture");
    assert_eq!(path, cap);
    let read = read.unwrap();
    let inside = what_to_open(&demo.join("tour.txt"));
    assert_eq!(
        inside.project.map(|f| f.canonicalize().unwrap()),
        Some(demo.clone())
    );
    assert!(inside.capture.is_none());
    let folder = what_to_open(&demo);
    assert_eq!(folder.project, Some(demo.clone()));
    assert!(folder.capture.is_none());
    // A capture whose project folder is gone opens on the usual project.
    let mut moved = read;
    moved.header.dirs = vec![dir.join("gone")];
    let text = dir.join("moved.jsonl");
    let mut lines = Vec::new();
    capture::write_text(&moved, &mut lines).unwrap();
    std::fs::write(&text, lines).unwrap();
    let open = what_to_open(&text);
    assert_eq!(open.project, None);
    assert!(
        open.capture
            .is_some_and(|(p, read)| p == text && read.is_ok())
    );
    // A damaged one is said when it is shown, naming the file.
    let bad = dir.join("bad.hbcap");
    std::fs::write(&bad, b"hbcap\0\r\nnot frames").unwrap();
    let open = what_to_open(&bad);
    assert_eq!(open.project, None);
    let (path, read) = open.capture.unwrap();
    let (mut harness, config) = open_tagged(&demo, "capture-open-bad", SIZE);
    harness.state_mut().open_read_capture(&path, read);
    assert!(harness.state().capture().is_none());
    assert!(
        harness.state().status().contains("bad.hbcap"),
        "{}",
        harness.state().status()
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    // The workbench shows it.
    let (mut harness, config) = open_tagged(&demo, "capture-open", SIZE);
    harness.state_mut().open_capture(&cap);
    harness.run();
    assert!(harness.state().capture().is_some());
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn close_capture_leaves_nothing_of_it_in_why_traces_or_the_selection() {
    let dir = temp("capture-close");
    let cap = dir.join("tour.hbcap");
    capture_tour(&cap, 10.0);
    let demo = workspace().join("projects/demo");
    let (mut harness, config) = open_tagged(&demo, "capture-close", SIZE);
    harness.run();
    harness.state_mut().open_capture(&cap);
    seek(&mut harness, 9);

    // In the capture: a greeting's record selected in Traces (which pauses it), Why on
    // it, an object selected in the lot view.
    show(&mut harness, Pane::Traces);
    select_newest(&mut harness, "vox_greet");
    harness.get_by_label_contains("paused:");
    harness.get_all_by_label("Why").last().unwrap().click();
    harness.run();
    harness.get_by_label_contains("Why: the trigger of trace record");
    show(&mut harness, Pane::Lot);
    harness
        .get_by_role_and_label(Role::Button, "Betty Newbie")
        .click();
    harness.run();
    show(&mut harness, Pane::Traces);
    harness.get_by_label_contains("Selected: ");

    // Closed: the Why panel explains nothing of it, the Traces follow the live records
    // with nothing selected, and no object of it is selected.
    harness.get_by_label("Close capture").click();
    harness.run();
    harness.run();
    assert!(harness.state().capture().is_none());
    for gone in [
        "Why: the trigger of trace record",
        "paused:",
        "Selected: ",
        "The capture's records",
    ] {
        assert!(
            harness.query_by_label_contains(gone).is_none(),
            "`{gone}` is still shown after Close capture"
        );
    }
    show(&mut harness, Pane::Why);
    assert!(
        harness
            .query_by_label_contains("Why: the trigger of trace record")
            .is_none()
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The seconds `text` shows for `at` at `rate`, to `places` decimals.
fn secs(at: SampleTime, rate: u32, places: usize) -> String {
    format!("{:.*}", places, at.samples() as f64 / f64::from(rate))
}

/// Every time the capture view shows — the timeline, the Traces' rows, the Voices'
/// decisions, the Why panel — is the capture's own time in seconds: the same origin
/// (the engine's clock, as its records have it) and the capture's sample rate, even when
/// the capture was made at another rate than the live engine's, or began while the
/// engine had run a while.
#[test]
fn every_time_the_capture_view_shows_agrees() {
    // A render at 44.1 kHz (the live engine runs at 48 kHz).
    let dir = temp("capture-times");
    let cap = dir.join("tour.hbcap");
    let rate = 44_100;
    capture_tour_at(&cap, 16.0, rate);
    let demo = workspace().join("projects/demo");
    let (mut harness, config) = open_tagged(&demo, "capture-times", SIZE);
    harness.run();
    harness.state_mut().open_capture(&cap);
    harness
        .state_mut()
        .seek(SampleTime::from_samples(9 * u64::from(rate)));
    harness.run();
    let shown = |harness: &Harness<'static, Workbench>, pane: Pane, text: &str| {
        harness.query_all_by_label_contains(text).next().is_some() || {
            panic!("{pane:?} does not show `{text}`")
        }
    };
    // At 9 s, the Voices: how long the longest-held voice has been held.
    show(&mut harness, Pane::Voices);
    let held = harness
        .state()
        .shown()
        .voice_slots
        .iter()
        .filter_map(|v| v.occupant.as_ref().map(|o| o.elapsed))
        .max()
        .unwrap();
    assert!(held >= u64::from(rate), "held {held} samples");
    shown(
        &harness,
        Pane::Voices,
        &format!("{} s", secs(SampleTime::from_samples(held), rate, 1)),
    );
    harness.get_by_label("Next decision").click();
    harness.run();
    let at = harness.state().capture().unwrap().at;
    assert!(at.samples() > 9 * u64::from(rate), "{at:?}");
    harness.get_by_label_contains(&format!("{} s of ", secs(at, rate, 3)));
    // The Traces' row of the newest record's trigger, then Why on it.
    show(&mut harness, Pane::Traces);
    let newest = harness
        .state()
        .shown_trace()
        .iter()
        .rev()
        .find(|r| r.time == at && r.event.is_some())
        .unwrap()
        .event
        .clone()
        .unwrap();
    select_newest(&mut harness, &newest);
    shown(
        &harness,
        Pane::Traces,
        &format!("{:>10}", secs(at, rate, 3)),
    );
    harness.get_all_by_label("Why").last().unwrap().click();
    harness.run();
    shown(&harness, Pane::Why, &format!("{} s", secs(at, rate, 3)));
    drop(harness);

    // A live capture begun after the engine ran a while: its times are the engine's.
    let live = dir.join("live.hbcap");
    let (mut harness, config2) = open_tagged(&demo, "capture-times-live", SIZE);
    until(&mut harness, "the engine has run a second", |wb| {
        wb.live().now.samples() > 48_000
    });
    harness.state_mut().start_capture(&live);
    until(&mut harness, "it captures", Workbench::capturing);
    type_line(&mut harness, "sev vox greet @2");
    until(&mut harness, "the greeting plays", |wb| {
        wb.trace()
            .iter()
            .any(|r| r.event.as_deref() == Some("vox_greet"))
    });
    harness.state_mut().stop_capture();
    until(&mut harness, "it is written", |wb| {
        wb.status().starts_with("captured")
    });
    let greeting = capture::read(&live)
        .unwrap()
        .records
        .iter()
        .find(|r| r.event.as_deref() == Some("vox_greet"))
        .unwrap()
        .time;
    harness.state_mut().open_capture(&live);
    harness.state_mut().seek(greeting);
    harness.run();
    harness.get_by_label_contains(&format!("{} s of ", secs(greeting, 48_000, 3)));
    show(&mut harness, Pane::Traces);
    filter_traces(&mut harness, "vox_greet");
    // The view stays on the decision's sample (1.1833… s), not the bar's millisecond.
    assert_eq!(harness.state().capture().unwrap().at, greeting);
    shown(
        &harness,
        Pane::Traces,
        &format!("{:>10}", secs(greeting, 48_000, 3)),
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
    let _ = std::fs::remove_dir_all(&config2);
    let _ = std::fs::remove_dir_all(&dir);
}
