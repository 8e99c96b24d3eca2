//! The Properties panel on a copy of the demo: the playing piano's volume and priority
//! changed in the panel are what the engine uses at once, undo gives the engine the old
//! value back, and saving changes exactly those two fields of the piano's `LIST [Track]`
//! line — and restarts nothing, since the engine has those values already. A field
//! someone else changes in the file shows at once, and Save anyway writes only the
//! fields edited over their change.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{SIZE, copy_dir, open, screenshot, show, temp, type_line, until, workspace};
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable};
use engine_core::runtime::trace::{ReloadEvent, TraceEvent};
use engine_core::tools::inspect::VoiceOccupant;
use engine_core::tools::properties::PropertyTarget;
use hitbench::workbench::Workbench;
use hitbench::workbench::dock::Pane;

const PIANO: u32 = 0x2200;
const LINE: &str = "LIST [Track] 0x2200=0,piano_play,1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,40";

fn piano(wb: &Workbench) -> Option<VoiceOccupant> {
    wb.live()
        .voice_slots
        .iter()
        .find_map(|v| v.occupant.clone().filter(|o| o.track == PIANO))
}

#[test]
fn a_playing_tracks_volume_and_priority_edited_in_properties_are_heard_at_once_and_saved_in_its_line()
 {
    let dir = temp("properties");
    let demo = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &demo);
    let source = demo.join("piano.src");
    let before = std::fs::read_to_string(&source).unwrap();
    assert!(before.contains(LINE));
    let mut harness = open(&demo, &dir.join("config"));
    type_line(&mut harness, "sev piano play @1");
    until(&mut harness, "the piano plays", |wb| piano(wb).is_some());
    let gain_before = piano(harness.state()).unwrap().gain.get();

    harness
        .state_mut()
        .show_properties(PropertyTarget::Track(PIANO));
    show(&mut harness, Pane::Properties);
    harness.get_by_label_contains("track 0x2200 piano_play");
    harness
        .get_by_role_and_label(Role::SpinButton, "volume")
        .set_value_accesskit(512.0);
    harness.run();
    harness
        .get_by_role_and_label(Role::SpinButton, "priority")
        .set_value_accesskit(90.0);
    harness.run();
    until(
        &mut harness,
        "the playing piano takes the new values",
        |wb| {
            piano(wb).is_some_and(|o| {
                o.priority == 90 && (o.gain.get() - gain_before / 2.0).abs() < 1e-4
            })
        },
    );
    let lines: Vec<&str> = harness
        .state()
        .console()
        .iter()
        .map(|e| e.input.as_str())
        .collect();
    assert!(lines.contains(&"tune track 0x2200 volume 512"), "{lines:?}");
    assert!(
        lines.contains(&"tune track 0x2200 priority 90"),
        "{lines:?}"
    );
    harness.get_by_label_contains("edited · saved 1024");
    harness.get_by_label("Unsaved lines");
    screenshot(&mut harness, "properties.png");

    // Undo the priority: the engine is told the file's value again; redo it.
    harness.get_by_label("Undo").click();
    harness.run();
    until(
        &mut harness,
        "undo gives the engine the saved priority",
        |wb| piano(wb).is_some_and(|o| o.priority == 40),
    );
    harness.get_by_label("Redo").click();
    harness.run();
    until(&mut harness, "redo gives it 90 again", |wb| {
        piano(wb).is_some_and(|o| o.priority == 90)
    });

    // Nothing is on disk until Save; then exactly those two fields of the line change.
    assert_eq!(std::fs::read_to_string(&source).unwrap(), before);
    harness.get_by_label("Save").click();
    harness.run();
    let after = std::fs::read_to_string(&source).unwrap();
    let expected = before.replace(
        LINE,
        "LIST [Track] 0x2200=0,piano_play,512,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,90",
    );
    assert_eq!(after, expected);
    until(
        &mut harness,
        "the project is read again with the saved values",
        |wb| {
            wb.project().tracks[&PIANO].volume == 512 && wb.project().tracks[&PIANO].priority == 90
        },
    );
    harness.get_by_label_contains("saved 1 line(s) in 1 file(s)");
    assert!(piano(harness.state()).is_some_and(|o| o.priority == 90));
}

#[test]
fn ab_snapshots_switch_what_the_playing_piano_uses_list_their_differences_and_one_is_kept() {
    let dir = temp("properties-ab");
    let demo = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &demo);
    let source = demo.join("piano.src");
    let mut harness = open(&demo, &dir.join("config"));
    type_line(&mut harness, "sev piano play @1");
    until(&mut harness, "the piano plays", |wb| piano(wb).is_some());
    harness
        .state_mut()
        .show_properties(PropertyTarget::Track(PIANO));
    show(&mut harness, Pane::Properties);
    let set = |harness: &mut egui_kittest::Harness<'static, Workbench>, field: &str, value: f64| {
        harness
            .get_by_role_and_label(Role::SpinButton, field)
            .set_value_accesskit(value);
        harness.run();
    };

    // A: volume 512. B: volume 800 and priority 90.
    set(&mut harness, "volume", 512.0);
    harness.get_by_label("Store A").click();
    harness.run();
    set(&mut harness, "volume", 800.0);
    set(&mut harness, "priority", 90.0);
    harness.get_by_label("Store B").click();
    harness.run();
    harness.get_by_label("A and B differ in 2 field(s)");
    harness.get_by_label("512 (-6.0 dB)");
    harness.get_by_label("800 (-2.1 dB)");
    harness.get_by_label("hearing B");
    screenshot(&mut harness, "properties-ab.png");

    // Switching to A gives the playing piano A's values at once, and back.
    harness.get_by_role_and_label(Role::Button, "A").click();
    harness.run();
    until(
        &mut harness,
        "A is heard: priority back to the file's 40",
        |wb| piano(wb).is_some_and(|o| o.priority == 40),
    );
    harness.get_by_label("hearing A");
    harness.get_by_role_and_label(Role::Button, "B").click();
    harness.run();
    until(&mut harness, "B is heard: priority 90", |wb| {
        piano(wb).is_some_and(|o| o.priority == 90)
    });

    // Keep A: its edits stay (and are saved), the snapshots are gone.
    harness.get_by_label("Keep A").click();
    harness.run();
    until(&mut harness, "A kept", |wb| {
        piano(wb).is_some_and(|o| o.priority == 40)
    });
    assert!(harness.query_by_label_contains("A and B differ").is_none());
    harness.get_by_label("Save").click();
    harness.run();
    let saved = std::fs::read_to_string(&source).unwrap();
    assert!(
        saved.contains(&LINE.replace(",1024,", ",512,")),
        "A's volume is saved and nothing else: {saved}"
    );
}

#[test]
fn saving_the_volume_the_playing_piano_already_has_live_does_not_restart_it() {
    let dir = temp("properties-no-restart");
    let demo = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &demo);
    let mut harness = open(&demo, &dir.join("config"));
    type_line(&mut harness, "sev piano play @1");
    until(&mut harness, "the piano plays", |wb| piano(wb).is_some());
    let copy = |wb: &Workbench| piano(wb).map(|o| (o.thread, o.started_at));
    let before = copy(harness.state()).unwrap();
    let gain_before = piano(harness.state()).unwrap().gain.get();

    harness
        .state_mut()
        .show_properties(PropertyTarget::Track(PIANO));
    show(&mut harness, Pane::Properties);
    harness
        .get_by_role_and_label(Role::SpinButton, "volume")
        .set_value_accesskit(512.0);
    harness.run();
    until(&mut harness, "the piano is tuned live", |wb| {
        piano(wb).is_some_and(|o| (o.gain.get() - gain_before / 2.0).abs() < 1e-4)
    });
    let reloads = harness.state().live().reload.applied;
    let records = harness.state().trace().len();
    harness.get_by_label("Save").click();
    harness.run();
    // The save is read again by the workbench (its project goes to the engine) and by the
    // engine's own watcher (a hot reload).
    until(
        &mut harness,
        "the engine swapped the saved project in",
        |wb| {
            wb.live().reload.applied > reloads
                && wb.trace().iter().skip(records).any(|r| {
                    matches!(
                        &r.what,
                        TraceEvent::Reload(ReloadEvent::ProjectReplaced { .. })
                    )
                })
        },
    );
    let after: Vec<String> = harness
        .state()
        .trace()
        .iter()
        .skip(records)
        .filter(|r| {
            matches!(
                &r.what,
                TraceEvent::CodeReplaced
                    | TraceEvent::Reload(
                        ReloadEvent::TrackRestarted { .. }
                            | ReloadEvent::TrackStopped { .. }
                            | ReloadEvent::RestartFailed { .. }
                    )
            )
        })
        .map(|r| r.to_string())
        .collect();
    assert_eq!(after, Vec::<String>::new(), "nothing restarted");
    assert_eq!(
        copy(harness.state()),
        Some(before),
        "the same copy of the piano plays on"
    );
    assert_eq!(harness.state().project().tracks[&PIANO].volume, 512);
}

/// The value the panel's `field` shows.
fn shown(harness: &egui_kittest::Harness<'static, Workbench>, field: &str) -> Option<f64> {
    harness
        .query_by_role_and_label(Role::SpinButton, field)
        .and_then(|n| n.accesskit_node().numeric_value())
}

#[test]
fn a_field_changed_outside_shows_at_once_and_save_anyway_writes_only_the_fields_edited() {
    let dir = temp("properties-merge");
    let demo = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &demo);
    let source = demo.join("piano.src");
    let mut harness = open(&demo, &dir.join("config"));
    harness
        .state_mut()
        .show_properties(PropertyTarget::Track(PIANO));
    show(&mut harness, Pane::Properties);
    // Each round: a field edited here, another changed in the file by someone else.
    let mut line = LINE.to_owned();
    for (round, (mine, my_value, theirs, their_value)) in
        [("volume", 512, 9, 46), ("priority", 90, 2, 300)]
            .into_iter()
            .enumerate()
    {
        harness
            .get_by_role_and_label(Role::SpinButton, mine)
            .set_value_accesskit(f64::from(my_value));
        harness.run();
        let theirs_label = if theirs == 9 { "priority" } else { "volume" };
        let mut fields: Vec<String> = line.split(',').map(str::to_owned).collect();
        fields[theirs] = their_value.to_string();
        let their_line = fields.join(",");
        let text = std::fs::read_to_string(&source).unwrap();
        assert!(text.contains(&line), "{round}");
        std::fs::write(
            &source,
            format!(
                "; edited elsewhere ({round})\n{}",
                text.replace(&line, &their_line)
            ),
        )
        .unwrap();

        // The hot reload shows their value in the field not edited here; mine stays.
        until_shown(&mut harness, theirs_label, their_value);
        assert_eq!(shown(&harness, mine), Some(f64::from(my_value)), "{round}");

        // Save refuses, saying so in a message that wraps, its button on screen.
        harness.get_by_label("Save").click();
        harness.run();
        let message = harness.get_by_label_contains("changed on disk").rect();
        let anyway = harness
            .get_by_role_and_label(Role::Button, "Save anyway")
            .rect();
        for rect in [message, anyway] {
            assert!(
                rect.right() <= SIZE.x && rect.bottom() <= SIZE.y,
                "{rect:?} is off the 1280 x 800 window"
            );
        }
        screenshot(&mut harness, "properties-conflict.png");
        harness
            .get_by_role_and_label(Role::Button, "Save anyway")
            .click();
        harness.run();

        // Only my field is written; theirs and their comment stay.
        let mut fields: Vec<String> = their_line.split(',').map(str::to_owned).collect();
        fields[if mine == "volume" { 2 } else { 9 }] = my_value.to_string();
        let merged = fields.join(",");
        let after = std::fs::read_to_string(&source).unwrap();
        assert!(after.contains(&merged), "{round}: {after}");
        assert!(
            after.starts_with(&format!("; edited elsewhere ({round})\n")),
            "{after}"
        );
        line = merged;
        until(&mut harness, "the saved file is read again", |wb| {
            wb.project().tracks[&PIANO].priority == if round == 0 { 46 } else { 90 }
        });
    }
}

/// Runs frames until the panel's `field` shows `value`.
fn until_shown(harness: &mut egui_kittest::Harness<'static, Workbench>, field: &str, value: i32) {
    let start = std::time::Instant::now();
    while shown(harness, field) != Some(f64::from(value)) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "{field} never showed {value}: {:?}",
            shown(harness, field)
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        harness.run();
    }
}
