//! U13: long work shows a progress bar with the time left and a Cancel button. A render
//! exported from the File menu runs in the background; the status bar follows it and
//! can stop it, and a stopped render leaves no file behind.

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
    assert!(out.exists(), "the file is being written");

    harness.get_by_label("Cancel render").click();
    harness.run();
    until(&mut harness, "the render stops", |wb| !wb.rendering());
    let status = harness.state().status().to_string();
    assert!(status.contains("cancelled"), "{status}");
    assert!(status.contains("hour.wav"), "{status}");
    assert!(!out.exists(), "the unfinished file is deleted");
    assert!(harness.query_by_label("Cancel render").is_none());
    assert!(
        harness
            .query_all_by(|n| n.role() == Role::ProgressIndicator
                && n.label().is_some_and(|l| l.contains("% ·")))
            .next()
            .is_none()
    );
}
