//! The whole workbench under egui_kittest on `projects/demo`, with the live engine on the
//! null output: a tester types `sev` and an event in the console, the voice appears in
//! the Voices panel and its records in Traces; `why` opens the Why panel on it; every
//! panel draws with live demo data; the voice limit given on the command line is the
//! engine's, and `voices` changes it.
//!
//! With `HITBENCH_SCREENSHOTS=1` the test also writes `screenshots/*.png` (the window
//! with each panel in front) for the README.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{SIZE, harness_for, open_demo, temp, type_line, until, workspace};
use egui_kittest::kittest::Queryable;
use engine_core::runtime::trace::TraceEvent;
use engine_core::sound::output::OutputChoice;
use hitbench::workbench::dock::Pane;
use hitbench::workbench::{EngineOptions, Workbench};
use std::time::{Duration, Instant};

#[test]
fn a_panel_button_runs_its_command_and_the_console_history_replays_it() {
    let (mut harness, config) = open_demo("typed");
    harness.run();
    until(&mut harness, "the lot is live", |wb| {
        !wb.live().world.objects.is_empty()
    });
    let before = harness.state().live().world.camera.rotation % 4;
    harness.state_mut().show(Pane::Lot);
    harness.run();
    harness.get_by_label("Rotate left").click();
    harness.run();
    until(&mut harness, "the view turns", |wb| {
        wb.live().world.camera.rotation % 4 != before
    });
    let after = harness.state().live().world.camera.rotation % 4;
    let turn = (after + 4 - before) % 4;
    // The history has the line a person would have typed, answered like one.
    until(&mut harness, "the console shows the command", |wb| {
        wb.console().iter().any(|e| e.input == "rotate left")
    });
    let entry = harness
        .state()
        .console()
        .iter()
        .find(|e| e.input == "rotate left")
        .cloned()
        .unwrap();
    assert!(entry.reply.is_ok(), "{entry:?}");
    // Typing the history's line back replays it: the view turns as much again.
    type_line(&mut harness, &entry.input);
    until(&mut harness, "the replayed line turns it again", |wb| {
        wb.live().world.camera.rotation % 4 == (after + turn) % 4
    });
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn sev_in_the_console_shows_up_in_voices_and_traces() {
    let (mut harness, config) = open_demo("e2e");
    harness.run();
    type_line(&mut harness, "sev piano play @2");
    until(&mut harness, "the piano takes a voice", |wb| {
        wb.live().voice_slots.iter().any(|v| {
            v.occupant
                .as_ref()
                .is_some_and(|o| o.event.as_ref() == "piano_play")
        })
    });
    harness.state_mut().show(Pane::Voices);
    harness.run();
    assert!(
        harness.query_all_by_label("piano_play").count() >= 1,
        "the Voices panel lists the piano's track"
    );
    assert!(
        harness.query_all_by_label("@2").count() >= 1,
        "owned by Betty"
    );
    until(
        &mut harness,
        "the trace has the piano's voice decision",
        |wb| {
            wb.trace()
                .iter()
                .any(|r| r.event.as_deref() == Some("piano_play"))
        },
    );
    harness.state_mut().show(Pane::Traces);
    harness.run();
    // The list follows the newest rows, and the world's own records may already have
    // pushed the piano's out of view: narrow it to Betty's, as QA would.
    harness.get_by_label("Object:").click();
    harness.run();
    harness.get_by_label("Object:").type_text("2");
    harness.run();
    harness.run();
    assert!(
        harness
            .query_all_by_label_contains("event=piano_play")
            .count()
            >= 1,
        "the record is listed in Traces"
    );
    // A mistake in the console is answered, not ignored.
    type_line(&mut harness, "sev no such event");
    harness.state_mut().show(Pane::Console);
    let start = Instant::now();
    while harness
        .query_all_by_label_contains("unknown event `no_such_event`")
        .count()
        == 0
    {
        assert!(start.elapsed() < Duration::from_secs(15), "no error reply");
        std::thread::sleep(Duration::from_millis(20));
        harness.run();
    }
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn why_in_the_console_opens_the_why_panel_on_the_event() {
    let (mut harness, config) = open_demo("why");
    harness.run();
    type_line(&mut harness, "sev vox greet @2");
    until(&mut harness, "the greeting's note is traced", |wb| {
        wb.trace().iter().any(|r| {
            r.event.as_deref() == Some("vox_greet")
                && matches!(r.what, TraceEvent::NoteStarted { .. })
        })
    });
    type_line(&mut harness, "why vox greet");
    harness.run();
    // The Why tab is in front, on the event, with the greeting played and its note's gain
    // contribution by contribution: the view's, the VOX group's and the master volume.
    harness.get_by_label("Why: event `vox_greet`");
    harness.get_by_label("started");
    for factor in [
        "track volume",
        "zoom",
        "floor",
        "ducking",
        "group VOX",
        "master",
    ] {
        harness.get_by_label(factor);
    }
    harness.get_by_label("gain");
    let entry = harness.state().console().last().cloned().unwrap();
    assert_eq!(entry.input, "why vox greet");
    assert!(entry.reply.is_ok(), "{entry:?}");
    // A misspelt event is answered with the closest name, and the panel stays.
    type_line(&mut harness, "why vox gret");
    let entry = harness.state().console().last().cloned().unwrap();
    assert_eq!(
        entry.reply,
        Err("unknown event `vox_gret` (did you mean `vox_greet`?)".to_string())
    );
    // So is an object not on the lot.
    type_line(&mut harness, "why @99");
    let entry = harness.state().console().last().cloned().unwrap();
    assert!(
        entry
            .reply
            .as_ref()
            .is_err_and(|e| e.starts_with("there is no object 99 on the lot (on the lot: @1")),
        "{entry:?}"
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn every_panel_draws_the_demo_and_screenshots_are_made_on_request() {
    let (mut harness, config) = open_demo("shots");
    harness.run();
    for line in [
        "sev tv on action @4",
        "sev tv on action @5",
        "sev vox greet @2",
        "sev piano play @2",
        "sev baby cry @9",
        "trace all on",
    ] {
        type_line(&mut harness, line);
    }
    until(&mut harness, "three voices play", |wb| {
        wb.live().voices.0 >= 2
    });
    until(&mut harness, "the station is on air", |wb| {
        wb.live().world.stations.iter().any(|s| s.on_air.is_some())
    });
    // Let the meters and curves fill.
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(25));
        harness.run();
    }
    let write = std::env::var_os("HITBENCH_SCREENSHOTS").is_some();
    let out = workspace().join("screenshots");
    // Why, Properties, Capture and QA have their pictures where they have something to
    // show (below, and in the properties', capture view's and QA panel's tests).
    for pane in Pane::ALL
        .into_iter()
        .filter(|p| !matches!(p, Pane::Why | Pane::Properties | Pane::Capture | Pane::Qa))
    {
        harness.state_mut().show(pane);
        harness.run();
        harness.run();
        if write {
            std::fs::create_dir_all(&out).unwrap();
            let image = harness.render().unwrap();
            let name = format!("{pane:?}").to_lowercase();
            image.save(out.join(format!("{name}.png"))).unwrap();
        }
    }
    // The README's picture: the first screen's panes in front, playing.
    for pane in [Pane::Lot, Pane::Voices, Pane::Console, Pane::Traces] {
        harness.state_mut().show(pane);
    }
    harness.run();
    harness.run();
    if write {
        harness
            .render()
            .unwrap()
            .save(out.join("workbench.png"))
            .unwrap();
    }
    // Why: Betty greets again from far outside the view, and is not heard. (The lot
    // view's and the browser's boxes would be more text inputs: other tabs go in front.)
    harness.state_mut().show(Pane::Source);
    harness.state_mut().show(Pane::Sources);
    for line in [
        "quiet 2",
        "move 2 30 10",
        "sev vox greet @2",
        "why vox greet",
    ] {
        type_line(&mut harness, line);
    }
    until(&mut harness, "the second greeting's note", |wb| {
        wb.trace()
            .iter()
            .filter(|r| {
                r.event.as_deref() == Some("vox_greet")
                    && matches!(r.what, TraceEvent::NoteStarted { .. })
            })
            .count()
            >= 2
    });
    harness.run();
    harness.get_by_label_contains(
        "inaudible: fade (silent) is 0: the object is outside the view's fade",
    );
    if write {
        harness.render().unwrap().save(out.join("why.png")).unwrap();
    }
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn the_voice_limit_given_on_the_command_line_is_the_live_engines() {
    let config = temp("voices-option");
    let workbench = Workbench::with_options(
        Some(&workspace().join("projects/demo")),
        OutputChoice::Null,
        Some(config.clone()),
        EngineOptions {
            voices: Some(4),
            ..EngineOptions::default()
        },
    );
    let mut harness = harness_for(workbench, SIZE);
    until(&mut harness, "the engine reports its voices", |wb| {
        wb.live().voices.1 != 0
    });
    assert_eq!(harness.state().live().voices.1, 4);
    // And the console changes it live.
    type_line(&mut harness, "voices 6");
    until(&mut harness, "the engine has 6 voices", |wb| {
        wb.live().voices.1 == 6
    });
    let reply = harness.state().console().last().unwrap().reply.clone();
    assert_eq!(reply, Ok("voice limit 6 (was 4)".to_owned()));
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}
