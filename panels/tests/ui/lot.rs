//! The Lot view under egui_kittest, on the demo project's lot as the world director sees
//! it (a session on a mixer, no engine thread): objects are drawn with their names,
//! selecting one shows its area, volume, pan and factors, dragging an object or the
//! ground sends `move` / `view`, the buttons send `zoom` / `rotate` / `floor`, and the
//! plots' history grows as engine time advances.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::host::command::{Command, Turn, WorldCommand, ZoomStep};
use engine_core::host::live::LiveSnapshot;
use engine_core::host::session::{Session, SessionConfig};
use engine_core::sound::mixer::{Mixer, MixerConfig, MixerSnapshot, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::Project;
use engine_core::world::music::MusicMode;
use panels::{AppCommand, ContextData, LotPanel, Selection, WhyTarget};
use std::path::Path;

const RATE: u64 = 48_000;

use crate::common;
type State = common::State<LotPanel>;

/// Runs `seconds` of ticks, rendering as the live engine would.
fn run(session: &mut Session, mixer: &mut Mixer, seconds: f64) {
    let end = session.now() + (seconds * RATE as f64) as u64;
    let mut buffer = vec![0.0f32; 4096];
    while session.now() < end {
        let start = session.now();
        session.tick();
        let mut frames = (session.now() - start) as usize;
        while frames > 0 {
            let n = frames.min(buffer.len() / 2);
            mixer.render(&mut buffer[..n * 2]);
            frames -= n;
        }
    }
}

/// A session on the demo project (a mixer, no engine thread) after `lines`.
fn demo_session(lines: &[&str]) -> (Project, Session, Mixer) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo");
    let project = Project::load(&dir);
    let (handle, mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut session = Session::new(project.clone(), handle, config);
    for line in lines {
        session
            .run_line(line)
            .unwrap_or_else(|e| panic!("`{line}`: {e}"));
    }
    (project, session, mixer)
}

/// What the live engine would publish about `session`.
fn live(session: &Session) -> LiveSnapshot {
    LiveSnapshot {
        now: session.now(),
        tracks: session.engine.active_tracks(),
        mixer: MixerSnapshot {
            master: 1.0,
            groups: [1.0, 0.8, 0.9],
            ..MixerSnapshot::default()
        },
        world: session.world.view(&session.engine),
        ..LiveSnapshot::default()
    }
}

/// Both TVs on the action channel and Betty greeting.
const START: [&str; 3] = ["turnon 4 28", "turnon 5 28", "sev vox greet @2"];

/// The demo lot with both TVs on and Betty greeting, the camera moved so that the
/// living-room TV and Little Newbie are fading out at the left.
fn demo_snapshot() -> (Project, LiveSnapshot) {
    let mut lines = START.to_vec();
    lines.push("view 12 8");
    let (project, mut session, mut mixer) = demo_session(&lines);
    run(&mut session, &mut mixer, 0.5);
    (project, live(&session))
}

pub(crate) fn harness() -> Harness<'static, State> {
    let (project, live) = demo_snapshot();
    harness_on(project, live)
}

fn harness_on(project: Project, live: LiveSnapshot) -> Harness<'static, State> {
    let cx = ContextData {
        project,
        live,
        ..ContextData::default()
    };
    common::harness(LotPanel::default(), cx, egui::vec2(1000.0, 720.0))
}

/// The lot's object `id` and its place in the view, as the harness's snapshot has them.
pub(crate) fn object(
    harness: &Harness<'_, State>,
    id: i32,
) -> (
    engine_core::world::WorldObject,
    engine_core::world::view::Placement,
) {
    harness
        .state()
        .cx
        .live
        .world
        .objects
        .iter()
        .find(|(o, _)| o.id == id)
        .cloned()
        .unwrap()
}

/// The world commands sent, in order (selections aside; any other engine command fails
/// the test).
fn sent(harness: &Harness<'_, State>) -> Vec<WorldCommand> {
    harness
        .state()
        .commands
        .iter()
        .filter_map(common::engine_command)
        .map(|c| match c {
            Command::World(world) => world,
            other => panic!("not a world command: {other:?}"),
        })
        .collect()
}

/// The console lines of the commands sent.
fn lines(harness: &Harness<'_, State>) -> Vec<String> {
    sent(harness).iter().map(WorldCommand::to_string).collect()
}

/// Drags with the primary button from `from` to `to` in a few steps.
fn drag(harness: &mut Harness<'_, State>, from: egui::Pos2, to: egui::Pos2) {
    harness.hover_at(from);
    harness.run();
    harness.drag_at(from);
    harness.run();
    for step in 1..=5 {
        harness.hover_at(from.lerp(to, step as f32 / 5.0));
        harness.run();
    }
    harness.drop_at(to);
    harness.run();
}

const NAMES: [&str; 9] = [
    "Bob Newbie",
    "Betty Newbie",
    "Little Newbie",
    "Living room TV",
    "Bedroom TV",
    "Kitchen radio",
    "Neighbour's stereo",
    "Upright piano",
    "Baby Newbie",
];

#[test]
fn the_demo_lot_is_drawn_with_names() {
    let mut harness = harness();
    harness.run();
    for name in NAMES {
        harness.get_by_role_and_label(Role::Button, name);
    }
    harness.get_by_label_contains("camera (12.00, 8.00)");
    // Both TVs on one station: it is listed with its receivers.
    harness.get_by_label_contains("receivers: Living room TV, Bedroom TV");
    assert!(sent(&harness).is_empty(), "nothing sent by just looking");
}

/// The picture: the view walks from the living room towards the bedroom over three
/// seconds, so the living-room TV fades out and the curves show it.
#[test]
fn snapshot_of_the_view_moving() {
    let (project, mut session, mut mixer) = demo_session(&START);
    run(&mut session, &mut mixer, 0.25);
    let mut harness = harness_on(project, live(&session));
    harness.state_mut().panel.select(Some(4));
    harness.run();
    harness.get_by_label("All sounding").click();
    harness.run();
    for step in 1..=12 {
        let t = step as f32 / 12.0;
        let line = format!("view {:.2} {:.2}", 10.0 + 2.0 * t, 10.0 - 2.0 * t);
        session.run_line(&line).unwrap();
        run(&mut session, &mut mixer, 0.25);
        harness.state_mut().cx.live = live(&session);
        harness.run();
    }
    let history = harness.state().panel.history(4);
    assert_eq!(history.len(), 13);
    assert!(history.last().unwrap().volume < history[0].volume);
    harness.get_by_label("area: fading");
    harness.remove_cursor();
    harness.run();
    harness.snapshot("lot");
}

#[test]
fn selecting_an_object_shows_where_its_volume_and_pan_come_from() {
    let mut harness = harness();
    harness.run();
    harness
        .get_by_role_and_label(Role::Button, "Living room TV")
        .click();
    harness.run();
    harness.remove_cursor();
    harness.run();
    assert_eq!(harness.state().panel.selected(), Some(4));
    assert!(
        harness
            .state()
            .commands
            .contains(&AppCommand::Select(Selection::Object(4)))
    );
    harness.get_by_label("#4 Living room TV (tv)");
    harness.get_by_label("area: fading");
    let (tv, p) = object(&harness, 4);
    assert_eq!(tv.name, "Living room TV");
    assert!(p.volume > 0 && p.volume < 1024, "{}", p.volume);
    // Volume 0–1 with its dB and pan −1…1, as every panel shows them.
    harness.get_by_label_contains(&format!(
        "volume {} · pan {}",
        panels::gain_text(engine_core::runtime::Gain::from_hit_volume(p.volume)),
        panels::pan_text(panels::hit_pan(p.pan))
    ));
    harness.get_by_label_contains("tuned to");

    harness
        .get_by_role_and_label(Role::Button, "Neighbour's stereo")
        .click();
    harness.run();
    harness.remove_cursor();
    harness.run();
    harness.get_by_label("area: exempt (stereo)");

    harness
        .get_by_role_and_label(Role::Button, "Betty Newbie")
        .click();
    harness.run();
    harness.remove_cursor();
    harness.run();
    harness.get_by_label("area: inside");
    harness.get_by_label_contains("saying");
    // Betty speaks on the VOX bus, at 0.9 in the fixture's mixer.
    harness.get_by_label_contains("(VOX option)");
}

#[test]
fn dragging_an_object_sends_move_with_its_new_tile() {
    let mut harness = harness();
    harness.run();
    let bob = harness
        .get_by_role_and_label(Role::Button, "Bob Newbie")
        .rect()
        .center();
    let betty = harness
        .get_by_role_and_label(Role::Button, "Betty Newbie")
        .rect()
        .center();
    drag(&mut harness, bob, betty);
    // Bob lands where Betty stands: tile (11, 9).
    assert_eq!(
        sent(&harness),
        [WorldCommand::Move {
            object: 1,
            x: 11.0,
            y: 9.0,
            floor: None
        }]
    );
    assert_eq!(lines(&harness), ["move 1 11 9"]);
}

#[test]
fn dragging_the_ground_moves_the_camera() {
    let mut harness = harness();
    harness.run();
    // Start on empty ground between the radio (14, 10) and the stereo (20, 4) and
    // drag to the right.
    let radio = harness
        .get_by_role_and_label(Role::Button, "Kitchen radio")
        .rect()
        .center();
    let stereo = harness
        .get_by_role_and_label(Role::Button, "Neighbour's stereo")
        .rect()
        .center();
    let from = radio.lerp(stereo, 0.5);
    drag(&mut harness, from, from + egui::vec2(120.0, 0.0));
    let sent = sent(&harness);
    let [WorldCommand::View { x, y }] = sent[..] else {
        panic!("one view command: {sent:?}");
    };
    // The camera's screen follows the pointer: to the right is +x on the lot.
    assert!(x > 12.5, "{sent:?}");
    assert!((y - 8.0).abs() < 0.01, "{sent:?}");
    // On a hundredth of a tile, so the console line stays short.
    for v in [x, y] {
        assert_eq!(v, (v * 100.0).round() / 100.0, "{sent:?}");
    }
}

#[test]
fn buttons_zoom_rotate_and_change_floor() {
    let mut harness = harness();
    harness.run();
    // Already at the nearest zoom: zooming in is disabled.
    harness.get_by_label("Zoom in").click();
    harness.run();
    for button in ["Zoom out", "Rotate left", "Rotate right", "Floor up"] {
        harness.get_by_label(button).click();
        harness.run();
    }
    assert_eq!(
        sent(&harness),
        [
            WorldCommand::Zoom(ZoomStep::Out),
            WorldCommand::Rotate(Turn::Left),
            WorldCommand::Rotate(Turn::Right),
            WorldCommand::Floor(1),
        ]
    );
    assert_eq!(
        lines(&harness),
        ["zoom out", "rotate left", "rotate right", "floor 1"]
    );
}

#[test]
fn history_grows_as_engine_time_advances() {
    let mut harness = harness();
    harness.run();
    harness.run();
    // Same engine time, several frames: one point.
    assert_eq!(harness.state().panel.history(2).len(), 1);
    let start = harness.state().cx.live.now;
    for step in 1..=5u64 {
        let s = harness.state_mut();
        s.cx.live.now = start + step * RATE / 10;
        // Betty's volume falls step by step (as if the view moved away).
        for (o, p) in &mut s.cx.live.world.objects {
            if o.id == 2 {
                p.volume = 1024 - step as i32 * 100;
            }
        }
        harness.run();
    }
    let history = harness.state().panel.history(2);
    assert_eq!(history.len(), 6);
    assert_eq!(history.last().unwrap().volume, 524);
    let span = history.last().unwrap().time - history[0].time;
    assert!((span - 0.5).abs() < 1e-6, "{span}");
    // Ten seconds later the old points are gone.
    harness.state_mut().cx.live.now = start + 20 * RATE;
    harness.run();
    assert_eq!(harness.state().panel.history(2).len(), 1);
}

#[test]
fn the_selected_objects_buttons_control_quiet_and_centre_it() {
    let mut harness = harness();
    harness.run();
    harness
        .get_by_role_and_label(Role::Button, "Betty Newbie")
        .click();
    harness.run();
    for button in ["Control", "Quiet", "Centre view"] {
        harness.get_by_role_and_label(Role::Button, button).click();
        harness.run();
    }
    let sent: Vec<Command> = harness
        .state()
        .commands
        .iter()
        .filter_map(common::engine_command)
        .collect();
    // Betty is object 2, standing on tile (11, 9).
    assert_eq!(
        sent,
        [
            Command::Control(2),
            Command::Quiet(2),
            Command::World(WorldCommand::View { x: 11.0, y: 9.0 }),
        ]
    );
}

#[test]
fn why_on_the_selected_object_opens_the_why_panel() {
    let mut harness = harness();
    harness.run();
    assert_eq!(
        harness.query_all_by_label("Why").count(),
        0,
        "nothing selected"
    );
    harness
        .get_by_role_and_label(Role::Button, "Betty Newbie")
        .click();
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Why").click();
    harness.run();
    assert_eq!(
        harness.state().commands.last(),
        Some(&AppCommand::Why(WhyTarget::Object(2)))
    );
}

#[test]
fn keys_over_the_map_and_the_music_mode_box() {
    let mut harness = harness();
    harness.run();
    let piano = harness
        .get_by_role_and_label(Role::Button, "Upright piano")
        .rect()
        .center();
    // Keys work while the pointer is over the map.
    harness.hover_at(piano + egui::vec2(40.0, -60.0));
    harness.run();
    harness.key_press(egui::Key::E);
    harness.run();
    harness.key_press(egui::Key::Minus);
    harness.run();
    assert_eq!(
        sent(&harness),
        [
            WorldCommand::Rotate(Turn::Right),
            WorldCommand::Zoom(ZoomStep::Out)
        ]
    );
    harness.state_mut().commands.clear();
    harness.get_by_label("Music mode").click();
    harness.run();
    harness.get_by_label("buy").click();
    harness.run();
    assert_eq!(sent(&harness), [WorldCommand::Mode(MusicMode::Buy)]);
    assert_eq!(lines(&harness), ["mode buy"]);
}

/// U6: the drawing fits the lot whatever the game camera's zoom; the mouse wheel zooms
/// the drawing and Fit fits it again; labels that would overlap are hidden (and say so).
#[test]
fn the_map_fits_the_lot_not_the_camera_and_the_wheel_zooms_it() {
    let mut harness = harness();
    harness.run();
    let fitted = harness.state().panel.map_scale().unwrap();
    // The game camera zooms out: what is heard changes, the drawing does not.
    harness.state_mut().cx.live.world.camera.zoom = 2;
    harness.run();
    harness.run();
    assert_eq!(harness.state().panel.map_scale(), Some(fitted));

    // The wheel over the map zooms the drawing in, and it stays zoomed.
    let map = harness.get_by_label("Lot map").rect().center();
    harness.hover_at(map);
    harness.run();
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, 120.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: egui::Modifiers::NONE,
    });
    for _ in 0..10 {
        harness.run();
    }
    let zoomed = harness.state().panel.map_scale().unwrap();
    assert!(zoomed > fitted * 1.2, "{zoomed} vs {fitted}");
    // Fit fits the lot again.
    harness.get_by_label("Fit").click();
    harness.run();
    harness.run();
    assert_eq!(harness.state().panel.map_scale(), Some(fitted));
}

#[test]
fn labels_that_would_overlap_are_hidden_and_named_on_hover() {
    // A small map: the lot's labels cannot all fit.
    let (project, live) = demo_snapshot();
    let cx = ContextData {
        project,
        live,
        ..ContextData::default()
    };
    let mut harness = common::harness(LotPanel::default(), cx, egui::vec2(520.0, 420.0));
    harness.run();
    harness.run();
    harness.get_by_label_contains("label(s) hidden");
    // Every object can still be grabbed, and names itself on hover.
    for name in NAMES {
        harness.get_by_role_and_label(Role::Button, name);
    }
}
