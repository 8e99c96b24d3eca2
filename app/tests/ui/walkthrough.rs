//! The workbench as a new user first meets it (issue 16's walk-through): what the first
//! screen shows, where the keyboard is, where closed panels come back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::{open_demo, until};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use hitbench::workbench::dock::Pane;

/// U1: the first screen shows the lot, the voices, the console and the traces; the
/// console has the keyboard (typing needs no click first) and says what to type; the
/// Source pane appears once there is a file to show.
#[test]
fn the_first_screen_shows_the_work_and_the_console_has_the_keyboard() {
    let (mut harness, config) = open_demo("first-screen");
    harness.run();
    until(&mut harness, "the lot is live", |wb| {
        !wb.live().world.objects.is_empty()
    });
    // In front: the lot map, the voice slots, the console's input with its hint, the
    // traces' filter.
    harness.get_by_label("Lot map");
    assert!(
        harness
            .query_all_by_label_contains("voices in use")
            .next()
            .is_some()
    );
    assert!(
        harness
            .query_all_by_label_contains("record(s)")
            .next()
            .is_some()
    );
    assert_eq!(
        harness
            .query_all_by_role(Role::TextInput)
            .filter(|input| input.is_focused())
            .count(),
        1,
        "an input has the keyboard (typing below shows it is the console's)"
    );
    assert!(
        harness
            .query_by_label_contains("`help` lists them")
            .is_some()
    );
    assert!(
        harness
            .state()
            .layout()
            .tiles
            .find_pane(&Pane::Source)
            .is_none(),
        "no Source pane before there is a file to show"
    );

    // Typing straight away runs a command.
    harness.event(egui::Event::Text("help".into()));
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
    until(&mut harness, "help answers", |wb| {
        wb.console()
            .iter()
            .any(|e| e.input == "help" && e.reply.is_ok())
    });

    // The Sources list says what its sizes are.
    harness.state_mut().show(Pane::Sources);
    harness.run();
    assert!(
        harness
            .query_all_by_label_contains("of source, ")
            .next()
            .is_some()
    );

    // A label opens its file: the Source pane appears beside the lot view.
    let label = harness
        .state()
        .project()
        .units
        .iter()
        .find_map(|u| u.labels.first().map(|(name, _)| name.clone()))
        .unwrap();
    harness
        .get_all_by_label_contains("baby.src")
        .next()
        .unwrap()
        .click();
    harness.run();
    harness.get_by_label(&label).click();
    harness.run();
    harness.run();
    let tree = harness.state().layout();
    assert!(tree.tiles.find_pane(&Pane::Source).is_some());
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

/// U5: View → a closed panel comes back as a tab where it was, and the layout is not
/// wrapped in a new group around it.
#[test]
fn a_closed_panel_comes_back_where_it_was() {
    let (mut harness, config) = open_demo("closed-panel");
    harness.run();
    let root = harness.state().layout().root();
    // Close the Problems tab (as its close button does).
    harness.state_mut().close(Pane::Problems);
    harness.run();
    assert!(
        harness
            .state()
            .layout()
            .tiles
            .find_pane(&Pane::Problems)
            .is_none()
    );
    // View → Problems.
    harness.get_by_label("View").click();
    harness.run();
    harness.get_by_label("Problems").click();
    harness.run();
    let tree = harness.state().layout();
    assert_eq!(tree.root(), root, "the layout keeps its root");
    let problems = tree.tiles.find_pane(&Pane::Problems).unwrap();
    let console = tree.tiles.find_pane(&Pane::Console).unwrap();
    assert_eq!(
        tree.tiles.parent_of(problems),
        tree.tiles.parent_of(console),
        "back as a tab beside the console, where it was"
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

/// U2: a hot reload that breaks a file shows its error in Problems, Sources and the status
/// bar at once; fixing the file takes the error away.
#[test]
fn problems_follow_hot_reloads_both_ways() {
    let dir = common::temp("problems-live");
    let project = dir.join("demo");
    common::copy_dir(&common::workspace().join("projects/demo"), &project);
    let config = dir.join("config");
    let mut harness = common::open(&project, &config);
    harness.run();
    until(&mut harness, "the lot is live", |wb| {
        !wb.live().world.objects.is_empty()
    });
    harness.state_mut().show(Pane::Problems);
    harness.run();
    harness.get_by_label("Errors (0)");

    let file = project.join("baby.src");
    let good = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{good}\nnot_an_opcode v1 v2\n")).unwrap();
    until(&mut harness, "the broken file's error shows", |wb| {
        wb.status().contains("error")
    });
    harness.run();
    harness.get_by_label("Errors (1)");
    assert!(
        harness
            .query_all_by_label_contains("baby.src:")
            .next()
            .is_some(),
        "the error names its file and line"
    );
    harness.state_mut().show(Pane::Sources);
    harness.run();
    assert!(
        harness
            .query_all_by_label_contains("1 error(s)")
            .next()
            .is_some(),
        "Sources counts it"
    );

    std::fs::write(&file, good).unwrap();
    until(&mut harness, "the fixed error goes", |wb| {
        !wb.status().contains("error(s)")
    });
    harness.state_mut().show(Pane::Problems);
    harness.run();
    harness.get_by_label("Errors (0)");
    drop(harness);
    let _ = std::fs::remove_dir_all(&dir);
}

/// U4: `@bob` names the lot's Bob; an object that is not on the lot is an error, not a
/// sound from nowhere; an unknown event gets "did you mean". U7: `quiet` says per track
/// what it did.
#[test]
fn objects_by_name_and_helpful_errors_at_the_console() {
    let (mut harness, config) = open_demo("object-names");
    harness.run();
    until(&mut harness, "the lot is live", |wb| {
        !wb.live().world.objects.is_empty()
    });
    let reply = |harness: &mut egui_kittest::Harness<'static, hitbench::workbench::Workbench>,
                 line: &str| {
        common::type_line(harness, line);
        until(harness, "the console answers", |wb| {
            wb.console().iter().any(|e| e.input == line)
        });
        harness
            .state()
            .console()
            .iter()
            .rev()
            .find(|e| e.input == line)
            .unwrap()
            .reply
            .clone()
    };
    let bob = reply(&mut harness, "sev vox greet @bob");
    assert!(bob.is_ok(), "{bob:?}");
    until(&mut harness, "Bob says it", |wb| {
        wb.live().tracks.iter().any(|t| t.owners.contains(&1))
    });
    let nobody = reply(&mut harness, "sev vox greet @99").unwrap_err();
    assert!(nobody.contains("no object 99 on the lot"), "{nobody}");
    let nameless = reply(&mut harness, "sev vox greet @zed").unwrap_err();
    assert!(nameless.contains("@1 Bob Newbie"), "{nameless}");
    let typo = reply(&mut harness, "sev vox gret").unwrap_err();
    assert!(typo.contains("did you mean `vox_greet`"), "{typo}");
    let why = reply(&mut harness, "why @betty");
    assert!(why.is_ok(), "{why:?}");
    // U7: quiet says what it did to each track the object said, in one reply. (The
    // piano loops until quieted.)
    assert!(reply(&mut harness, "sev piano play @bob").is_ok());
    until(&mut harness, "Bob plays the piano", |wb| {
        wb.live()
            .tracks
            .iter()
            .any(|t| t.owners.contains(&1) && t.track_name.contains("piano"))
    });
    let quiet = reply(&mut harness, "quiet @bob").unwrap();
    assert!(
        quiet.starts_with("quieted object 1: `") && quiet.contains("ended (its last owner)"),
        "{quiet}"
    );
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

/// U12: the mixer's volumes and the trace switches are kept per project, like the layout.
#[test]
fn mixer_volumes_and_trace_switches_come_back_with_the_project() {
    let (mut harness, config) = open_demo("project-state");
    harness.run();
    until(&mut harness, "the lot is live", |wb| {
        !wb.live().world.objects.is_empty()
    });
    common::type_line(&mut harness, "volume fx 0.5");
    common::type_line(&mut harness, "trace samples off");
    until(&mut harness, "the engine took them", |wb| {
        (wb.live().mixer.groups[0] - 0.5).abs() < 1e-6 && !wb.live().trace_switches.samples
    });
    harness.state_mut().save_settings().unwrap();
    drop(harness);

    let mut harness = common::open(&common::workspace().join("projects/demo"), &config);
    harness.run();
    until(&mut harness, "the volumes and traces come back", |wb| {
        (wb.live().mixer.groups[0] - 0.5).abs() < 1e-6 && !wb.live().trace_switches.samples
    });
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}

/// Every group of tabs holds panels only (no tab wrapping a split or another group).
fn tabs_hold_panes_only(tree: &egui_tiles::Tree<Pane>) -> bool {
    tree.tiles.iter().all(|(_, tile)| match tile {
        egui_tiles::Tile::Container(egui_tiles::Container::Tabs(tabs)) => tabs
            .children
            .iter()
            .all(|child| matches!(tree.tiles.get(*child), Some(egui_tiles::Tile::Pane(_)))),
        _ => true,
    })
}

/// Drags from `from` to `to` in small steps, as a hand does.
fn drag(
    harness: &mut egui_kittest::Harness<'static, hitbench::workbench::Workbench>,
    from: egui::Pos2,
    to: egui::Pos2,
) {
    harness.hover_at(from);
    harness.run();
    harness.drag_at(from);
    harness.run();
    for step in 1..=12 {
        harness.hover_at(from + (to - from) * (step as f32 / 12.0));
        harness.run();
    }
    harness.drop_at(to);
    harness.run();
    harness.run();
}

/// U5: a tab dropped on another group's tab bar joins that group; dropped at the edge of
/// a panel it splits the panel there — and no group ever wraps a split or another group.
#[test]
fn tabs_dragged_between_groups_join_them_or_split_beside_them() {
    let (mut harness, config) = open_demo("drag-tabs");
    harness.run();
    let tab = |harness: &egui_kittest::Harness<'static, hitbench::workbench::Workbench>,
               name: &str| {
        harness
            .query_all_by_label(name)
            .map(|n| n.rect())
            .min_by(|a, b| a.top().total_cmp(&b.top()))
            .expect("the tab")
    };
    // The Mixer's tab (with the Voices) onto the Console's tab bar.
    let mixer = tab(&harness, "Mixer");
    let console = tab(&harness, "Console");
    drag(
        &mut harness,
        mixer.center(),
        console.right_center() + egui::vec2(30.0, 0.0),
    );
    let tree = harness.state().layout();
    let mixer_id = tree.tiles.find_pane(&Pane::Mixer).unwrap();
    let console_id = tree.tiles.find_pane(&Pane::Console).unwrap();
    assert_eq!(
        tree.tiles.parent_of(mixer_id),
        tree.tiles.parent_of(console_id),
        "the Mixer joined the Console's group"
    );
    assert!(tabs_hold_panes_only(tree));

    // The Cache's tab onto the right edge of the lot view (the edge the Voices group
    // starts at): a group of its own beside it.
    let cache = tab(&harness, "Resource cache");
    let edge = egui::pos2(
        tab(&harness, "Voices").left() - 8.0,
        harness.get_by_label("Lot map").rect().center().y,
    );
    drag(&mut harness, cache.center(), edge);
    let tree = harness.state().layout();
    let cache_id = tree.tiles.find_pane(&Pane::Cache).unwrap();
    let lot_id = tree.tiles.find_pane(&Pane::Lot).unwrap();
    let cache_group = tree.tiles.parent_of(cache_id).unwrap();
    let lot_group = tree.tiles.parent_of(lot_id).unwrap();
    assert_ne!(cache_group, lot_group, "a split, not a tab");
    assert_eq!(
        tree.tiles.parent_of(cache_group),
        tree.tiles.parent_of(lot_group),
        "beside the lot view"
    );
    assert!(tabs_hold_panes_only(tree));
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}
