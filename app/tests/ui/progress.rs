//! U13: long work shows a progress bar with the time left and a Cancel button. A render
//! exported from the File menu runs in the background; the status bar follows it and
//! can stop it, and a stopped render leaves no file behind (it is written beside its
//! place and put there only whole).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{self, open_demo, until};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;

#[test]
fn an_exported_render_shows_its_progress_and_cancel_stops_it() {
    let (mut harness, _config) = open_demo("render-progress");
    harness.run();
    let dir = common::temp("render-progress-out");
    // An hour of the demo: long enough that it is still running when Cancel is pressed.
    let script = dir.join("hour.txt");
    std::fs::write(&script, "0 sev vox_greet\n3600 quietall\n").unwrap();
    let out = dir.join("hour.wav");
    harness.state_mut().export_render(&script, &out);
    until(&mut harness, "the render is under way", |wb| {
        wb.render_status().is_none_or(|s| s.fraction > 0.0)
    });
    assert!(harness.state().rendering(), "{}", harness.state().status());
    // The bar says how far it has got and how long is left; hovering names the render.
    until(&mut harness, "the time left is estimated", |wb| {
        wb.render_status()
            .is_some_and(|s| s.fraction >= 0.01 && s.elapsed.as_millis() >= 100)
    });
    assert!(
        harness
            .query_all_by(|n| n.role() == Role::ProgressIndicator
                && n.label()
                    .is_some_and(|l| l.contains("% ·") && l.contains("left")))
            .next()
            .is_some(),
        "a progress bar in the status bar says the time left"
    );
    // Written beside its place under a temporary name: the output appears only whole.
    let temporary = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().starts_with(".hour.wav."))
    };
    assert!(temporary(), "the file is being written");
    assert!(!out.exists(), "not in its place before it is whole");

    harness.get_by_label("Cancel render").click();
    harness.run();
    until(&mut harness, "the render stops", |wb| !wb.rendering());
    let status = harness.state().status().to_string();
    assert!(status.contains("cancelled"), "{status}");
    assert!(status.contains("hour.wav"), "{status}");
    assert!(!out.exists(), "nothing is put in its place");
    assert!(!temporary(), "the unfinished file is deleted");
    assert!(harness.query_by_label("Cancel render").is_none());
    assert!(
        harness
            .query_all_by(|n| n.role() == Role::ProgressIndicator
                && n.label().is_some_and(|l| l.contains("% ·")))
            .next()
            .is_none()
    );
}

/// A project of `files` sources of `tracks` tracks each: seconds to load in a debug build.
fn large_project(tag: &str, files: usize, tracks: usize) -> std::path::PathBuf {
    let dir = common::temp(tag);
    for file in 0..files {
        let mut text = String::with_capacity(tracks * 40);
        for track in 0..tracks {
            text.push_str(&format!(
                "t{file}_{track}\t; track {track}\n\tloadb v1 {}\n\tend\n",
                track % 100
            ));
        }
        std::fs::write(dir.join(format!("s{file:03}.src")), text).unwrap();
    }
    dir
}

#[test]
fn opening_a_large_project_shows_its_progress_and_cancel_keeps_the_open_one() {
    let (mut harness, _config) = open_demo("open-progress");
    harness.run();
    let demo = harness.state().project().root().to_path_buf();
    let big = large_project("open-progress-big", 100, 2000);

    harness.state_mut().open_project_dir(&big);
    assert!(harness.state().opening());
    until(&mut harness, "the first files are read", |wb| {
        wb.open_status().is_none_or(|s| s.read > 0)
    });
    let status = harness.state().open_status().expect("still loading");
    assert_eq!(status.found, 100, "every source found before reading");
    assert!(status.read < status.found);
    // The open project stays while the other loads.
    assert_eq!(harness.state().project().root(), demo);
    harness.run();
    // A progress bar in the status bar; hovering it says how many files are read.
    harness
        .get_by(|n| {
            n.role() == Role::ProgressIndicator && n.label().is_some_and(|l| l.contains("% ·"))
        })
        .hover();
    harness.run();
    harness.run();
    assert!(
        harness
            .query_by_label_contains("of 100 file(s) read")
            .is_some()
    );

    harness.get_by_label("Cancel opening").click();
    harness.run();
    assert!(!harness.state().opening());
    let said = harness.state().status().to_string();
    assert!(said.contains("cancelled"), "{said}");
    assert_eq!(
        harness.state().project().root(),
        demo,
        "the demo stays open"
    );
    assert!(harness.query_by_label("Cancel opening").is_none());

    // Left alone, a load ends with the project open and the engine on it.
    let seed = common::workspace()
        .join("projects/seed-examples")
        .canonicalize()
        .unwrap();
    harness.state_mut().open_project_dir(&seed);
    until(&mut harness, "the project opens", |wb| !wb.opening());
    assert_eq!(harness.state().project().root(), seed);
    let _ = std::fs::remove_dir_all(&big);
}
