//! The Project browser under egui_kittest, on `projects/demo` with a hand-made world
//! (the demo lot's TVs, radio and stereo, a station on air): the sections list every
//! category with its count, the search narrows them, the play buttons send the right
//! console lines (`ui`, `sev … @receiver`, `play`, `turnon`, `turnoff`), the links open
//! the defining line, and sections fold.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use engine_core::host::command::{Command, WorldCommand};
use engine_core::host::live::LiveSnapshot;
use engine_core::runtime::{Gain, Pan};
use engine_core::toolchain::project::Project;
use engine_core::tools::hitlist_editor::hit_lists;
use engine_core::world::director::{StationView, WorldView};
use engine_core::world::view::{Camera, ViewSettings, place};
use engine_core::world::{ObjectKind, WorldObject};
use panels::{AppCommand, BrowserPanel, ContextData, HitListData};
use std::path::{Path, PathBuf};

use crate::common;
type State = common::State<BrowserPanel>;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo")
}

/// The demo lot's receivers: the living-room TV on, showing the action station.
fn world() -> WorldView {
    let camera = Camera::default();
    let settings = ViewSettings::default();
    let objects = [
        WorldObject::new(1, "Bob Newbie", ObjectKind::Person).at(10.0, 10.0),
        WorldObject::new(4, "Living room TV", ObjectKind::Tv)
            .at(8.0, 12.0)
            .tuned_to(28),
        WorldObject::new(5, "Bedroom TV", ObjectKind::Tv)
            .at(12.0, 8.0)
            .tuned_to(28)
            .switched(false),
        WorldObject::new(6, "Kitchen radio", ObjectKind::Radio)
            .at(14.0, 10.0)
            .tuned_to(260)
            .switched(false),
        WorldObject::new(7, "Neighbour's stereo", ObjectKind::Stereo)
            .at(20.0, 4.0)
            .tuned_to(280)
            .switched(false),
    ]
    .into_iter()
    .map(|o| {
        let p = place(&o, &camera, &settings);
        (o, p)
    })
    .collect();
    let station = |code: u32, name: &str| StationView {
        code,
        name: name.into(),
        receivers: Vec::new(),
        on_air: None,
        level: (Gain::SILENT, Pan::CENTRE),
    };
    let mut action = station(28, "action");
    action.receivers = vec![4];
    action.on_air = Some((
        demo().join("sounds/stations/tv/action/chase/chase_music.ogg"),
        "chase".into(),
    ));
    action.level = (Gain::new(0.8), Pan::new(-0.2));
    WorldView {
        camera,
        settings,
        objects,
        stations: vec![
            action,
            station(29, "cartoon"),
            station(260, "pop"),
            station(280, "pop"),
        ],
        ..WorldView::default()
    }
}

pub(crate) fn harness() -> Harness<'static, State> {
    let project = Project::load(&demo());
    assert!(!project.has_errors(), "{:?}", project.diagnostics);
    let data = HitListData {
        views: hit_lists(&project),
        ..HitListData::default()
    };
    let cx = ContextData {
        project,
        hitlists: data,
        live: LiveSnapshot {
            world: world(),
            ..LiveSnapshot::default()
        },
        ..ContextData::default()
    };
    let mut harness = common::harness(BrowserPanel::default(), cx, egui::vec2(900.0, 640.0));
    harness.run();
    harness
}

pub(crate) fn search(harness: &mut Harness<'_, State>, text: &str) {
    harness
        .get_by_role_and_label(Role::TextInput, "Search")
        .click();
    harness.run();
    harness
        .get_by_role_and_label(Role::TextInput, "Search")
        .type_text(text);
    harness.run();
    harness.run();
}

/// The engine commands sent, in order (anything else fails the test).
fn sent(harness: &Harness<'_, State>) -> Vec<Command> {
    harness
        .state()
        .commands
        .iter()
        .map(|c| common::engine_command(c).unwrap_or_else(|| panic!("unexpected command {c:?}")))
        .collect()
}

/// The console lines of the commands sent.
fn lines(harness: &Harness<'_, State>) -> Vec<String> {
    sent(harness).iter().map(Command::to_string).collect()
}

/// The 1-based line of `file` that contains `text`.
fn line_of(file: &Path, text: &str) -> u32 {
    let source = std::fs::read_to_string(file).unwrap();
    let index = source.lines().position(|l| l.contains(text)).unwrap();
    u32::try_from(index + 1).unwrap()
}

#[test]
fn every_category_is_listed_with_its_count() {
    let mut harness = harness();
    let p = &harness.state().cx.project;
    let samples: std::collections::BTreeSet<_> = p
        .patches
        .values()
        .filter_map(|p| p.resource.as_deref().map(str::to_lowercase))
        .collect();
    assert!(p.events.len() >= 30, "the demo has its events");
    let counts = [
        ("Events", p.events.len()),
        ("Tracks", p.tracks.len()),
        ("Patches", p.patches.len()),
        ("Hit lists", p.hit_lists.len()),
        ("Samples", samples.len()),
        ("Stations", 4),
    ];
    // The first rows: events, with their type and what they refer to.
    harness.get_by_label("baby_cry");
    harness.get_by_label("Play — track 0x2300 baby_cry");
    harness.get_by_label("TurnOnTV — station 28 (action)");
    harness.get_by_label("SetMusicMode — mode 3 (neighborhood)");
    // Folded, every section's header fits.
    harness.get_by_label("Collapse all").click();
    harness.run();
    for (title, count) in counts {
        harness.get_by_label(&format!("{title} ({count})"));
    }
    assert!(harness.query_by_label("baby_cry").is_none());
}

#[test]
fn search_narrows_every_category() {
    let mut harness = harness();
    let events = harness.state().cx.project.events.len();
    search(&mut harness, "greet");
    harness.get_by_label_contains(&format!("Events (1 of {events})"));
    harness.get_by_label_contains("Tracks (1 of");
    harness.get_by_label_contains("Patches (9 of");
    harness.get_by_label_contains("Hit lists (3 of");
    harness.get_by_label("vox_greet");
    harness.get_by_label("0x2100 vox_greet");
    harness.get_by_label("2001 vox_m_greet_1");
    harness.get_by_label("200 hl_vox_greet_m");
    assert!(harness.query_by_label("vox_hungry").is_none());
    assert!(harness.query_by_label("baby_cry").is_none());
    // Below: the sample files, and no station.
    harness.get_by_label_contains("Patches (").click();
    harness.run();
    harness.get_by_label_contains("Samples (9 of");
    harness.get_by_label("sounds/vox/child/greet_1.wav");
    harness.get_by_label_contains("Stations (0 of 4)");
    harness.get_by_label("Expand all").click();
    harness.run();
    // Every word must be found, in any order, case-insensitively.
    search(&mut harness, " FEMALE");
    assert_eq!(harness.state().panel.search, "greet FEMALE");
    harness.get_by_label_contains("Patches (3 of");
    harness.get_by_label_contains("Events (0 of");
    harness.get_by_label("2016 vox_f_greet_1");
    assert!(harness.query_by_label("2001 vox_m_greet_1").is_none());
    assert!(sent(&harness).is_empty(), "nothing sent by searching");
}

#[test]
fn an_events_play_button_runs_it() {
    let mut harness = harness();
    search(&mut harness, "greet");
    harness.get_by_label("Play event vox_greet").click();
    harness.run();
    let ui_greet = Command::UiSound {
        name: "vox_greet".into(),
    };
    assert_eq!(sent(&harness), std::slice::from_ref(&ui_greet));
    // A TV event needs a receiver: it is sent from a TV tuned to its station.
    harness.get_by_label("Clear").click();
    harness.run();
    search(&mut harness, "tv_on_action");
    harness.get_by_label("Play event tv_on_action").click();
    harness.run();
    let from_tv = Command::SoundEvent {
        name: "tv_on_action".into(),
        object: Some(4),
    };
    assert_eq!(sent(&harness), [ui_greet, from_tv]);
    assert_eq!(lines(&harness), ["ui vox_greet", "sev tv_on_action @4"]);
}

#[test]
fn patches_and_samples_are_auditioned_with_play() {
    let mut harness = harness();
    search(&mut harness, "click");
    harness.get_by_label("Play patch 1002").click();
    harness.run();
    harness
        .get_by_label("Play sample sounds/ui/click_knock.wav")
        .click();
    harness.run();
    assert_eq!(
        sent(&harness),
        [
            Command::Play("1002".into()),
            Command::Play("sounds/ui/click_knock.wav".into())
        ]
    );
    assert_eq!(
        lines(&harness),
        ["play 1002", "play sounds/ui/click_knock.wav"]
    );
}

#[test]
fn stations_turn_on_through_a_tuned_receiver() {
    let mut harness = harness();
    // Stations are last: fold everything and unfold them.
    harness.get_by_label("Collapse all").click();
    harness.run();
    harness.get_by_label("Stations (4)").click();
    harness.run();
    harness.get_by_label("on air: chase_music.ogg (chase)");
    harness.get_by_label("on: Living room TV");
    harness.get_by_label("Turn off station 28").click();
    harness.run();
    harness.get_by_label("Turn on station 260").click();
    harness.run();
    // No receiver of the lot is tuned to the cartoon station.
    assert!(
        harness
            .get_by_label("Turn on station 29")
            .accesskit_node()
            .is_disabled()
    );
    harness.get_by_label("Turn on station 29").click();
    harness.run();
    assert_eq!(
        sent(&harness),
        [
            Command::World(WorldCommand::TurnOff { object: 4 }),
            Command::World(WorldCommand::TurnOn {
                object: 6,
                station: 260
            }),
        ]
    );
    assert_eq!(lines(&harness), ["turnoff 4", "turnon 6 260"]);
}

#[test]
fn links_open_the_defining_line() {
    let mut harness = harness();
    search(&mut harness, "vox_greet");
    let people = demo().join("people.src");
    let event_line = line_of(&people, "[EventMapping] vox_greet=");
    let track_line = line_of(&people, "[Track] 0x2100=");
    harness
        .get_by_label(&format!("Open event vox_greet at people.src:{event_line}"))
        .click();
    harness.run();
    harness
        .get_by_label(&format!("Open track 0x2100 at people.src:{track_line}"))
        .click();
    harness.run();
    // The track's code: where its label stands in the BINARY block.
    harness
        .get_by_label_contains("Open the code of track 0x2100 at people.src:")
        .click();
    harness.run();
    let opened: Vec<(PathBuf, u32)> = harness
        .state()
        .commands
        .iter()
        .map(|c| match c {
            AppCommand::OpenSource { path, line } => (path.clone(), *line),
            other => panic!("unexpected command {other:?}"),
        })
        .collect();
    assert_eq!(opened.len(), 3);
    for (path, _) in &opened {
        assert_eq!(path.canonicalize().unwrap(), people.canonicalize().unwrap());
    }
    assert_eq!(opened[0].1, event_line);
    assert_eq!(opened[1].1, track_line);
    let source = std::fs::read_to_string(&people).unwrap();
    let code = source.lines().nth(opened[2].1 as usize - 1).unwrap();
    assert!(
        code.trim_start().starts_with("vox_greet") || code.contains("loadl"),
        "the code of vox_greet starts at line {}: {code}",
        opened[2].1
    );
}

#[test]
fn sections_fold_and_unfold() {
    let mut harness = harness();
    harness.get_by_label("baby_cry");
    harness.get_by_label_contains("Events (").click();
    harness.run();
    assert!(harness.query_by_label("baby_cry").is_none());
    assert!(
        harness
            .state()
            .panel
            .is_collapsed(panels::browser::Category::Events)
    );
    // The tracks move up into view.
    harness.get_by_label("0x2000 ui_click");
    harness.get_by_label("Expand all").click();
    harness.run();
    harness.get_by_label("baby_cry");
}

#[test]
fn snapshot() {
    let mut harness = harness();
    search(&mut harness, "greet");
    harness.remove_cursor();
    harness.run();
    harness.snapshot("browser");
}

/// Stop stops what the Browser started — `stop` ends the samples and
/// UI sounds it auditioned, and each object it played an event from (the controlled
/// character, a TV) is quieted. Stop is always there, first in the bar: it never moves.
#[test]
fn stop_stops_what_the_browser_started() {
    let mut harness = harness();
    harness.state_mut().cx.live.controlled = Some(1);
    harness.run();
    let stop_at = harness.get_by_role_and_label(Role::Button, "Stop").rect();
    search(&mut harness, "greet");
    harness.get_by_label("Play event vox_greet").click();
    harness.run();
    // From the controlled character: the event names it.
    harness
        .get_by_label("Play event vox_greet")
        .click_secondary();
    harness.run();
    harness
        .get_by_label("From the controlled character (sev vox_greet @1)")
        .click();
    harness.run();
    harness.get_by_label("Clear").click();
    harness.run();
    search(&mut harness, "tv_on_action");
    harness.get_by_label("Play event tv_on_action").click();
    harness.run();
    harness.get_by_label("Clear").click();
    harness.run();
    search(&mut harness, "click");
    harness.get_by_label("Play patch 1002").click();
    harness.run();
    assert_eq!(
        lines(&harness),
        [
            "ui vox_greet",
            "sev vox_greet @1",
            "sev tv_on_action @4",
            "play 1002"
        ]
    );
    assert_eq!(
        harness.get_by_role_and_label(Role::Button, "Stop").rect(),
        stop_at,
        "Stop stays where it was"
    );
    harness.state_mut().commands.clear();
    harness.get_by_role_and_label(Role::Button, "Stop").click();
    harness.run();
    assert_eq!(lines(&harness), ["stop", "quiet 1", "quiet 4"]);
    // Nothing played from an object since: only the auditions are stopped.
    harness.state_mut().commands.clear();
    harness.get_by_role_and_label(Role::Button, "Stop").click();
    harness.run();
    assert_eq!(lines(&harness), ["stop"]);
}
