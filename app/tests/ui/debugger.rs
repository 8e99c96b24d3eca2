//! The track debugger in the workbench, under egui_kittest with the live engine on the
//! null output: the Source view's gutter sets a breakpoint, a trigger pauses the engine
//! there (the line highlighted, the status bar and Track threads saying so), F10 and the
//! toolbar step, Continue goes on; the Breakpoints list disables and deletes; F9
//! toggles a breakpoint on the line shown.
//!
//! With `HITBENCH_SCREENSHOTS=1` it also writes `screenshots/debugger.png`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{open_demo, screenshot, show, type_line, until};
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable};
use hitbench::workbench::Workbench;
use hitbench::workbench::dock::Pane;

/// The line the engine is paused at, if it is.
fn paused_line(wb: &Workbench) -> Option<u32> {
    wb.live()
        .debug
        .paused
        .as_ref()
        .and_then(|p| p.place.as_ref())
        .map(|(_, line)| *line)
}

#[test]
fn the_gutter_toolbar_and_keys_drive_the_debugger() {
    let (mut harness, config) = open_demo("debugger");
    harness.run();
    until(&mut harness, "the lot is live", |wb| {
        !wb.live().world.objects.is_empty()
    });

    // Open piano.src at its track's label and click the gutter beside line 37: a
    // breakpoint.
    show(&mut harness, Pane::Sources);
    harness.get_by_label_contains("piano.src").click();
    harness.run();
    harness
        .get_by_role_and_label(Role::Link, "piano_play")
        .click();
    harness.run();
    show(&mut harness, Pane::Source);
    harness.get_by_label("set a breakpoint on line 37").click();
    harness.run();
    until(&mut harness, "the breakpoint is set", |wb| {
        wb.live().debug.breakpoints.len() == 1
    });
    harness.get_by_label("breakpoint 1 on line 37");
    // The toolbar is there, its steps off until something pauses.
    assert!(
        harness
            .get_by_role_and_label(Role::Button, "Continue")
            .accesskit_node()
            .is_disabled()
    );

    // Trigger the piano: the engine pauses at line 37, shown everywhere.
    type_line(&mut harness, "sev piano play @1");
    until(&mut harness, "paused at 37", |wb| {
        paused_line(wb) == Some(37)
    });
    show(&mut harness, Pane::Source);
    harness.get_by_label("breakpoint 1 on line 37");
    assert!(
        harness
            .get_all_by_label_contains("paused at piano.src:37 (track piano_play, object 1)")
            .next()
            .is_some(),
        "the toolbar and the status bar say where"
    );
    screenshot(&mut harness, "debugger.png");
    // Nothing moves while paused: the voices shown (the piano's among them) hold, and
    // the window repaints only on news and input.
    show(&mut harness, Pane::Voices);
    assert!(!harness.state().live().tracks.is_empty());
    assert!(!harness.state().repaints_on_a_timer());

    // F10 steps over to line 38: the highlight moves there.
    harness.key_press(egui::Key::F10);
    harness.run();
    until(&mut harness, "paused at 38", |wb| {
        paused_line(wb) == Some(38)
    });
    harness.get_by_label("paused on line 38");

    // The toolbar: one instruction, to line 39.
    harness
        .get_by_role_and_label(Role::Button, "Step instruction")
        .click();
    harness.run();
    until(&mut harness, "paused at 39", |wb| {
        paused_line(wb) == Some(39)
    });

    // Track threads marks the paused thread.
    show(&mut harness, Pane::Threads);
    harness.get_by_label("PAUSED");

    // Continue: the engine goes on.
    show(&mut harness, Pane::Source);
    harness
        .get_by_role_and_label(Role::Button, "Continue")
        .click();
    harness.run();
    until(&mut harness, "running again", |wb| {
        wb.live().debug.paused.is_none()
    });
    // The piano plays on, its voice's time moving in the Voices tab.
    show(&mut harness, Pane::Voices);
    until(&mut harness, "the voices move again", |wb| {
        wb.repaints_on_a_timer()
    });

    // The list: disable, then delete.
    harness
        .get_by_role_and_label(Role::CheckBox, "1: piano.src:37")
        .click();
    harness.run();
    until(&mut harness, "disabled", |wb| {
        wb.live()
            .debug
            .breakpoints
            .first()
            .is_some_and(|b| !b.enabled)
    });
    harness.get_by_label("breakpoint 1 on line 37");
    harness
        .get_by_role_and_label(Role::Button, "Delete")
        .click();
    harness.run();
    until(&mut harness, "deleted", |wb| {
        wb.live().debug.breakpoints.is_empty()
    });

    // F9 sets one on the line shown: the last pause (39) opened the file there.
    harness.key_press(egui::Key::F9);
    harness.run();
    until(&mut harness, "F9 set one", |wb| {
        wb.live().debug.breakpoints.len() == 1
    });
    assert_eq!(
        harness.state().live().debug.breakpoints[0].at.to_string(),
        "piano.src:39"
    );
    // Every step went through the console language: the history replays it.
    let lines: Vec<&str> = harness
        .state()
        .console()
        .iter()
        .map(|e| e.input.as_str())
        .collect();
    for line in [
        "break piano.src:37",
        "next",
        "stepi",
        "continue",
        "disable 1",
        "delete 1",
    ] {
        assert!(lines.contains(&line), "{line} in {lines:?}");
    }
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}
