//! The Voices panel under egui_kittest, on a hand-built snapshot of an eight-voice engine
//! twenty seconds in: slots show their track, event, priority and owners; a steal and a
//! refusal show with their reasons; Quiet quiets the slot's owners; the instance map lists
//! the objects saying each track.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use engine_core::host::command::Command;
use engine_core::host::live::LiveSnapshot;
use engine_core::runtime::sink::ControlGroup;
use engine_core::runtime::trace::{CodePlace, EndReason, Occupant, TraceEvent, VoiceTable};
use engine_core::runtime::vm::FaultKind;
use engine_core::runtime::{Gain, Pan};
use engine_core::runtime::{TraceKind, TraceRecord};
use engine_core::toolchain::project::Origin;
use engine_core::tools::inspect::{
    InstanceCopy, InstanceView, VoiceHistory, VoiceOccupant, VoiceView,
};
use panels::{AppCommand, ContextData, Selection, VoicesPanel, WhyTarget};
use std::sync::Arc;

const RATE: u64 = 48_000;

fn at(seconds: f64) -> engine_core::runtime::SampleTime {
    engine_core::runtime::SampleTime::from_samples((seconds * RATE as f64) as u64)
}

use crate::common;
type State = common::State<VoicesPanel>;

/// A slot's occupant.
struct Occ {
    slot: usize,
    track: u32,
    name: &'static str,
    event: &'static str,
    owners: &'static [i32],
    priority: i32,
    group: ControlGroup,
    gain: f32,
    pan: f32,
    started: f64,
    finished: bool,
}

const NOW: f64 = 20.0;

const OCCUPANTS: &[Occ] = &[
    Occ {
        slot: 0,
        track: 0x2001,
        name: "music_livingroom",
        event: "music_mode_live",
        owners: &[3],
        priority: 40,
        group: ControlGroup::Music,
        gain: 0.7,
        pan: -0.3,
        started: 2.0,
        finished: false,
    },
    Occ {
        slot: 1,
        track: 0x3010,
        name: "vox_greet",
        event: "vox_greet",
        owners: &[12, 14],
        priority: 60,
        group: ControlGroup::Vox,
        gain: 1.0,
        pan: 0.4,
        started: 17.5,
        finished: false,
    },
    Occ {
        slot: 2,
        track: 0x1042,
        name: "piano_skill2",
        event: "piano_play",
        owners: &[5],
        priority: 30,
        group: ControlGroup::Fx,
        gain: 0.55,
        pan: 0.0,
        started: 12.0,
        finished: false,
    },
    Occ {
        slot: 4,
        track: 0x1100,
        name: "tv_news",
        event: "tv_on",
        owners: &[8],
        priority: 20,
        group: ControlGroup::Fx,
        gain: 0.32,
        pan: 0.75,
        started: 6.0,
        finished: false,
    },
    Occ {
        slot: 5,
        track: 0x0001,
        name: "ui_click",
        event: "ui_click",
        owners: &[],
        priority: 90,
        group: ControlGroup::Fx,
        gain: 1.0,
        pan: 0.0,
        started: 19.8,
        finished: true,
    },
    Occ {
        slot: 7,
        track: 0x3200,
        name: "baby_cry",
        event: "baby_cry",
        owners: &[21],
        priority: 50,
        group: ControlGroup::Vox,
        gain: 0.85,
        pan: -0.6,
        started: 15.0,
        finished: false,
    },
];

fn occupant(voice: usize, track: &str, priority: i32) -> Occupant {
    Occupant {
        voice,
        track: Arc::from(track),
        priority,
        age: 48_000,
    }
}

/// `baby_cry` (50) takes voice 7 from `fridge_hum` (10) with all 8 voices busy.
fn steal(time: f64) -> TraceEvent {
    TraceEvent::Stole {
        track: Arc::from("baby_cry"),
        priority: 50,
        victim: occupant(7, "fridge_hum", 10),
        occupants: VoiceTable::of(&[occupant(7, "fridge_hum", 10)], at(time)),
        capacity: 8,
    }
}

/// `phone_ring` (5) is refused: the lowest priority playing is `tv_news` (20).
fn refuse(time: f64) -> TraceEvent {
    TraceEvent::Refused {
        track: Arc::from("phone_ring"),
        priority: 5,
        lowest: occupant(4, "tv_news", 20),
        occupants: VoiceTable::of(&[occupant(4, "tv_news", 20)], at(time)),
        capacity: 8,
    }
}

fn record(
    time: f64,
    kind: TraceKind,
    voice: Option<usize>,
    event: &str,
    track: &str,
    object: Option<i32>,
    what: TraceEvent,
) -> TraceRecord {
    TraceRecord {
        time: at(time),
        kind,
        event: Some(Arc::from(event)),
        track: Some(Arc::from(track)),
        object,
        voice,
        note: None,
        what,
    }
}

fn start(time: f64, voice: usize, event: &str, track: &str, object: Option<i32>) -> TraceRecord {
    record(
        time,
        TraceKind::Voice,
        Some(voice),
        event,
        track,
        object,
        TraceEvent::Started {
            track: Arc::from(track),
            voice,
            priority: 30,
            in_use: 6,
            capacity: 8,
        },
    )
}

fn ends(time: f64, voice: usize, event: &str, track: &str, why: EndReason) -> TraceRecord {
    record(
        time,
        TraceKind::Track,
        Some(voice),
        event,
        track,
        None,
        TraceEvent::Ended(why),
    )
}

/// Eight voices twenty seconds in: six playing, a steal on voice 7 at 15 s, a refusal at
/// 16 s, a fault on voice 6 at 18 s, and lanes that finished or were quieted before.
pub fn snapshot() -> LiveSnapshot {
    let mut records = vec![
        start(2.0, 0, "music_mode_live", "music_livingroom", Some(3)),
        start(4.0, 7, "fridge_run", "fridge_hum", Some(30)),
        start(6.0, 4, "tv_on", "tv_news", Some(8)),
        start(9.0, 6, "walk", "footsteps", Some(12)),
        start(11.0, 1, "vox_idle", "vox_hum", Some(12)),
        start(12.0, 2, "piano_play", "piano_skill2", Some(5)),
        start(13.0, 3, "door_open", "door_creak", Some(17)),
        start(14.0, 5, "ui_hover", "ui_hover", None),
        record(
            15.0,
            TraceKind::Voice,
            Some(7),
            "baby_cry",
            "baby_cry",
            Some(21),
            steal(15.0),
        ),
        start(15.0, 7, "baby_cry", "baby_cry", Some(21)),
        ends(15.5, 5, "ui_hover", "ui_hover", EndReason::Ended),
        record(
            16.0,
            TraceKind::Voice,
            None,
            "sfx_phone_ring",
            "phone_ring",
            Some(9),
            refuse(16.0),
        ),
        ends(16.5, 3, "door_open", "door_creak", EndReason::Ended),
        ends(17.0, 1, "vox_idle", "vox_hum", EndReason::Ended),
        start(17.5, 1, "vox_greet", "vox_greet", Some(12)),
        record(
            18.0,
            TraceKind::Error,
            Some(6),
            "walk",
            "footsteps",
            Some(12),
            TraceEvent::Fault {
                event: Arc::from("walk"),
                track: Arc::from("footsteps"),
                place: Some(CodePlace {
                    address: 0x42,
                    origin: Some(Origin::new("/demo/src/people.src", 57)),
                    unit: None,
                }),
                kind: FaultKind::DivideByZero,
            },
        ),
        start(19.8, 5, "ui_click", "ui_click", None),
    ];
    records.sort_by_key(|r| r.time);
    let voice_slots: Vec<VoiceView> = (0..8)
        .map(|slot| VoiceView {
            slot,
            world: None,
            occupant: OCCUPANTS
                .iter()
                .find(|o| o.slot == slot)
                .map(|o| VoiceOccupant {
                    thread: o.slot,
                    track: o.track,
                    track_name: Arc::from(o.name),
                    event: Arc::from(o.event),
                    source: o.owners.first().copied(),
                    owners: o.owners.to_vec(),
                    priority: o.priority,
                    group: o.group,
                    gain: Gain::new(o.gain),
                    pan: Pan::new(o.pan),
                    elapsed: at(NOW) - at(o.started),
                    started_at: at(o.started),
                    live_notes: 1,
                    finished: o.finished,
                }),
        })
        .collect();
    let mut history = VoiceHistory::default();
    history.push(&records, at(NOW));
    history.observe(&voice_slots, at(NOW));
    let instances = OCCUPANTS
        .iter()
        .map(|o| InstanceView {
            track: o.track,
            track_name: Arc::from(o.name),
            copies: vec![InstanceCopy {
                thread: o.slot,
                voice: o.slot,
                event: Arc::from(o.event),
                owners: o.owners.to_vec(),
            }],
            owners: o.owners.to_vec(),
        })
        .collect();
    LiveSnapshot {
        now: at(NOW),
        voices: (6, 8),
        voice_slots,
        instances,
        history: Arc::new(history),
        // Slot levels as the mixer measured them: quiet music, a loud voice, a hot TV.
        voice_levels: vec![0.05, 0.5, 0.2, 0.0, 0.8, 0.1, 0.0, 0.3],
        ..LiveSnapshot::default()
    }
}

pub(crate) fn harness() -> Harness<'static, State> {
    let cx = ContextData {
        live: snapshot(),
        ..ContextData::default()
    };
    common::harness(VoicesPanel::default(), cx, egui::vec2(980.0, 900.0))
}

#[test]
fn slots_show_track_event_priority_and_owners() {
    let mut harness = harness();
    harness.run();
    harness.get_by_role_and_label(Role::Link, "music_livingroom");
    harness.get_by_label("music_mode_live");
    harness.get_by_label("piano_play");
    harness.get_by_role_and_label(Role::Link, "ui_click (notes ending)");
    for priority in ["40", "60", "30", "20", "90", "50"] {
        assert!(
            harness.query_all_by_label(priority).count() >= 1,
            "priority {priority} is shown"
        );
    }
    harness.get_by_label("6 of 8 voices in use");
    assert_eq!(harness.query_all_by_label("free").count(), 2);
    assert_eq!(harness.query_all_by_label("VOX").count(), 2);
    assert!(
        harness.query_all_by_label("@14").count() >= 1,
        "second owner"
    );
    // An owner's link selects the object.
    harness.get_all_by_label("@21").next().unwrap().click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::Select(Selection::Object(21))]
    );
}

fn image_with(harness: &Harness<'_, State>, text: &str) -> usize {
    harness
        .query_all_by(|n| n.role() == Role::Image && n.label().is_some_and(|l| l.contains(text)))
        .count()
}

/// The refusal marks on the lanes are buttons (a click opens Why).
fn button_with(harness: &Harness<'_, State>, text: &str) -> usize {
    harness
        .query_all_by(|n| n.role() == Role::Button && n.label().is_some_and(|l| l.contains(text)))
        .count()
}

#[test]
fn why_on_a_slot_a_steal_or_a_refusal_opens_the_why_panel() {
    let mut harness = harness();
    harness.run();
    // One per slot (0–7: a free slot's Why tells what played on it last), then the
    // refusal and the steal listed below the lanes, newest first.
    let buttons: Vec<_> = harness.get_all_by_label("Why").collect();
    assert_eq!(buttons.len(), 10);
    buttons[1].click();
    buttons[3].click();
    buttons[8].click();
    buttons[9].click();
    harness.run();
    // The refusal's mark on the lanes opens it too.
    harness
        .get_by(|n| n.role() == Role::Button && n.label().is_some_and(|l| l.contains("refused")))
        .click();
    harness.run();
    let event = || AppCommand::Why(WhyTarget::Event("sfx_phone_ring".into()));
    assert_eq!(
        harness.state().commands,
        [
            AppCommand::Why(WhyTarget::Voice(1)),
            AppCommand::Why(WhyTarget::Voice(3)),
            event(),
            AppCommand::Why(WhyTarget::Voice(7)),
            event(),
        ]
    );
}

#[test]
fn a_steal_and_a_refusal_show_with_their_reasons() {
    let mut harness = harness();
    harness.run();
    // The lanes mark them, and say why.
    assert_eq!(
        image_with(&harness, "`fridge_hum` stolen by `baby_cry` (50 > 10"),
        1
    );
    assert_eq!(button_with(&harness, "refused `phone_ring`"), 1);
    assert_eq!(button_with(&harness, "(5 <= 20)"), 1);
    assert_eq!(image_with(&harness, "faulted"), 1);
    // The list below says it too.
    let listed = harness
        .query_all_by_label_contains("voice 7: `fridge_hum` stolen by `baby_cry` (50 > 10")
        .filter(|n| n.accesskit_node().role() == Role::Label)
        .count();
    assert_eq!(listed, 1);
    harness.get_by_label_contains("`phone_ring` (event `sfx_phone_ring`): all 8 voices busy");
    // Hovering the refusal mark shows its reason.
    let before = harness.query_all_by_label_contains("(5 <= 20)").count();
    harness
        .get_by(|n| n.role() == Role::Button && n.label().is_some_and(|l| l.contains("refused")))
        .hover();
    harness.run();
    let after = harness.query_all_by_label_contains("(5 <= 20)").count();
    assert_eq!(after, before + 1, "the tooltip adds the reason");
}

#[test]
fn quiet_quiets_the_slots_owners() {
    let mut harness = harness();
    harness.run();
    // One per slot, 0–7 (5 a UI sound and 3, 6 free: disabled): the second button is
    // vox_greet on voice 1.
    let buttons: Vec<_> = harness.get_all_by_label("Quiet").collect();
    assert_eq!(buttons.len(), 8);
    assert_eq!(
        buttons
            .iter()
            .filter(|b| b.accesskit_node().is_disabled())
            .count(),
        3
    );
    buttons[1].click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [
            AppCommand::Run(Command::Quiet(12)),
            AppCommand::Run(Command::Quiet(14)),
        ]
    );
    harness.state_mut().commands.clear();
    // A UI sound has no owner to quiet.
    let buttons: Vec<_> = harness.get_all_by_label("Quiet").collect();
    buttons[5].click();
    buttons[3].click();
    harness.run();
    assert!(harness.state().commands.is_empty());
}

#[test]
fn the_instance_map_lists_owners() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label("Objects saying it");
    // Owners appear in the slots table and in the instance map.
    assert_eq!(harness.query_all_by_label("@12").count(), 2);
    assert_eq!(harness.query_all_by_label("@14").count(), 2);
    harness.get_by_label("voice 1 (`vox_greet`)");
    // The map's track selects the track.
    harness
        .get_by_role_and_label(Role::Button, "tv_news")
        .click();
    harness.run();
    assert!(
        harness
            .state()
            .commands
            .contains(&AppCommand::Select(Selection::Track("tv_news".into()))),
        "{:?}",
        harness.state().commands
    );
}

#[test]
fn snapshot_of_the_panel() {
    let mut harness = harness();
    harness.state_mut().cx.selection = Some(Selection::Voice(1));
    harness.run();
    harness.remove_cursor();
    harness.run();
    harness.snapshot("voices");
}

/// 64 busy slots, each on its own track (`track_0` …).
fn busy(slots: usize) -> LiveSnapshot {
    let voice_slots = (0..slots)
        .map(|slot| VoiceView {
            slot,
            world: None,
            occupant: Some(VoiceOccupant {
                thread: slot,
                track: 0x100 + slot as u32,
                track_name: Arc::from(format!("track_{slot}").as_str()),
                event: Arc::from("vox_greet"),
                source: Some(slot as i32),
                owners: vec![slot as i32],
                priority: 20,
                group: ControlGroup::Fx,
                gain: Gain::new(0.8),
                pan: Pan::new(0.0),
                elapsed: at(1.0) - at(0.0),
                started_at: at(0.0),
                live_notes: 1,
                finished: false,
            }),
        })
        .collect();
    LiveSnapshot {
        now: at(1.0),
        voices: (slots, slots),
        voice_slots,
        ..LiveSnapshot::default()
    }
}

fn row_top(harness: &Harness<'_, State>, slot: usize) -> Option<f32> {
    harness
        .query_by_role_and_label(Role::Link, &format!("track_{slot}"))
        .map(|n| n.rect().top())
}

/// Slots scrolled out of view are not built, and keep their place: every slot's row is
/// as tall as a row left out, so the rows do not move as others come and go; scrolled
/// to the end, the last slots are there and the first are not.
#[test]
fn slots_out_of_view_keep_their_place_without_their_widgets() {
    let cx = || ContextData {
        live: busy(64),
        ..ContextData::default()
    };
    // All 64 in view: one row after another, each as tall as a row left out.
    let mut tall = common::harness(VoicesPanel::default(), cx(), egui::vec2(980.0, 2400.0));
    tall.run();
    let pitch = tall.ctx.global_style().spacing.interact_size.y + 4.0;
    let tops: Vec<f32> = (0..64).map(|s| row_top(&tall, s).unwrap()).collect();
    for (slot, pair) in tops.windows(2).enumerate() {
        assert!(
            (pair[1] - pair[0] - pitch).abs() < 0.01,
            "row {slot} to {}: {} px",
            slot + 1,
            pair[1] - pair[0]
        );
    }

    // A short pane: the first rows only.
    let mut short = common::harness(VoicesPanel::default(), cx(), egui::vec2(980.0, 300.0));
    short.run();
    assert_eq!(row_top(&short, 0), Some(tops[0]));
    assert!(row_top(&short, 63).is_none(), "the last slot is not built");
    let shown = (0..64).filter(|s| row_top(&short, *s).is_some()).count();
    assert!((5..20).contains(&shown), "{shown} rows built");

    // Scrolled down step by step until the last slot comes into view: it is built, the
    // first is not, and the rows above it are where they were in the tall pane.
    short.hover_at(egui::pos2(400.0, 200.0));
    let mut steps = 0;
    while row_top(&short, 63).is_none() {
        steps += 1;
        assert!(steps < 200, "the last slot never came into view");
        short.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -40.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        });
        short.step();
    }
    assert!(row_top(&short, 0).is_none(), "the first slot is not built");
    let last = row_top(&short, 63).unwrap();
    let before = row_top(&short, 60).expect("the ones before it are built");
    assert!((last - before - 3.0 * pitch).abs() < 0.01);
    // Measured from the section's header, now scrolled out of view above: the rows left
    // out above took exactly the room they would have.
    let header = |h: &Harness<'_, State>| h.get_by_label("Slots").rect().top();
    let tall_span = tops[63] - header(&tall);
    assert!(
        (last - header(&short) - tall_span).abs() < 0.01,
        "{} against {tall_span}",
        last - header(&short)
    );
}
