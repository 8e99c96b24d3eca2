//! The Traces panel under egui_kittest: the engine-trace toggles emit `trace … on|off`
//! lines; kind, text and object filters narrow the rows; follow keeps the newest record
//! in view and pause freezes the list; clicking a row selects its voice; Export emits the
//! filter; a 200,000-record trace still draws.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::host::command::{Command, TraceTarget};
use engine_core::runtime::trace::{
    CodePlace, EndReason, ExternalVolume, GainParts, Occupant, PanParts, PanSource, TraceEvent,
    VoiceTable, WorldEvent, WorldReply,
};
use engine_core::runtime::{
    ControlGroup, Gain, HookEvent, Pan, SampleTime, TraceKind, TraceRecord,
};
use engine_core::toolchain::project::{Origin, Project};
use panels::{AppCommand, ContextData, Selection, TraceFilter, TracesPanel, WhyTarget};
use std::collections::VecDeque;
use std::sync::Arc;

use crate::common;
type State = common::State<TracesPanel>;

/// A time in seconds at 48 kHz.
fn seconds(time: f64) -> SampleTime {
    SampleTime::from_samples((time * 48_000.0) as u64)
}

fn rec(
    time: f64,
    kind: TraceKind,
    event: Option<&str>,
    track: Option<&str>,
    object: Option<i32>,
    voice: Option<usize>,
    what: TraceEvent,
) -> TraceRecord {
    TraceRecord {
        time: seconds(time),
        kind,
        event: event.map(Arc::from),
        track: track.map(Arc::from),
        object,
        voice,
        note: None,
        what,
    }
}

/// A record that says `text` (in an unknown event's sentence).
fn says(text: &str) -> TraceEvent {
    TraceEvent::UnknownEvent {
        name: Arc::from(text),
    }
}

/// A voice held by `track` as Box-X compared it.
fn occupant(voice: usize, track: &str, priority: i32) -> Occupant {
    Occupant {
        voice,
        track: Arc::from(track),
        priority,
        age: 24_000,
    }
}

/// A note of `patch` at full track volume.
fn note(note: u64, patch: u32, name: &str, sample: &str, external: f32, pan: f32) -> TraceEvent {
    TraceEvent::NoteStarted {
        note,
        patch,
        patch_name: Arc::from(name),
        sample: Arc::from(sample),
        gain: Box::new(GainParts {
            track_volume: Gain::UNITY,
            external: ExternalVolume::Trigger(Gain::new(external)),
            ducking: Gain::UNITY,
            group: ControlGroup::Fx,
            group_volume: Gain::UNITY,
            master: Gain::UNITY,
        }),
        pan: Box::new(PanParts {
            value: Pan::new(pan),
            source: PanSource::Trigger,
        }),
        looping: false,
        cents: 0,
    }
}

fn dispatched(event: &str, track_id: u32, source: Option<i32>) -> TraceEvent {
    TraceEvent::Dispatched {
        event: Arc::from(event),
        type_number: 1,
        track_id,
        source,
    }
}

fn started(track: &str, voice: usize, priority: i32, in_use: usize) -> TraceEvent {
    TraceEvent::Started {
        track: Arc::from(track),
        voice,
        priority,
        in_use,
        capacity: 2,
    }
}

/// A short, realistic trace: a greeting, a steal, a refusal, an error.
pub(crate) fn demo_trace() -> VecDeque<TraceRecord> {
    use TraceKind::*;
    let mut t = VecDeque::new();
    t.push_back(rec(
        0.000,
        World,
        None,
        None,
        None,
        None,
        TraceEvent::World(WorldEvent::Command(WorldReply::CameraAt {
            centre: [10.0, 10.0],
        })),
    ));
    t.push_back(rec(
        0.020,
        Event,
        Some("vox_greet"),
        None,
        Some(2),
        None,
        dispatched("vox_greet", 0x1010, Some(2)),
    ));
    t.push_back(rec(
        0.020,
        Voice,
        Some("vox_greet"),
        Some("vox_greet_adult"),
        Some(2),
        Some(0),
        started("vox_greet_adult", 0, 20, 1),
    ));
    t.push_back(rec(
        0.021,
        Pick,
        None,
        Some("vox_greet_adult"),
        Some(2),
        Some(0),
        TraceEvent::Pick {
            list: 0x12,
            index: 3,
            value: 0x2041,
            excluded: vec![0x2040, 0x2043],
        },
    ));
    t.push_back(rec(
        0.021,
        Sample,
        None,
        Some("vox_greet_adult"),
        Some(2),
        Some(0),
        note(1, 0x2041, "greet_03", "vox/greet_03.wav", 0.82, -0.31),
    ));
    t.push_back(rec(
        0.350,
        Event,
        Some("ui_click"),
        None,
        None,
        None,
        dispatched("ui_click", 0x1001, None),
    ));
    t.push_back(rec(
        0.350,
        Voice,
        Some("ui_click"),
        Some("ui_click"),
        None,
        Some(1),
        started("ui_click", 1, 25, 2),
    ));
    t.push_back(rec(
        0.351,
        Sample,
        None,
        Some("ui_click"),
        None,
        Some(1),
        note(2, 0x1001, "click", "ui/click.wav", 1.0, 0.0),
    ));
    t.push_back(rec(
        0.900,
        Event,
        Some("fx_fridge_open"),
        None,
        Some(7),
        None,
        dispatched("fx_fridge_open", 0x1020, Some(7)),
    ));
    t.push_back(rec(
        0.900,
        Voice,
        Some("fx_fridge_open"),
        Some("fx_fridge"),
        Some(7),
        Some(0),
        TraceEvent::Stole {
            track: Arc::from("fx_fridge"),
            priority: 30,
            victim: occupant(0, "vox_greet_adult", 20),
            occupants: VoiceTable::of(
                &[
                    occupant(0, "vox_greet_adult", 20),
                    occupant(1, "ui_click", 25),
                ],
                seconds(0.900),
            ),
            capacity: 2,
        },
    ));
    t.push_back(rec(
        0.901,
        Sample,
        None,
        Some("fx_fridge"),
        Some(7),
        Some(0),
        note(3, 0x3010, "fridge_open", "fx/fridge_open.wav", 0.64, 0.55),
    ));
    t.push_back(rec(
        1.200,
        Event,
        Some("vox_laugh"),
        None,
        Some(3),
        None,
        dispatched("vox_laugh", 0x1011, Some(3)),
    ));
    t.push_back(rec(
        1.200,
        Voice,
        Some("vox_laugh"),
        Some("vox_laugh_child"),
        Some(3),
        None,
        TraceEvent::Refused {
            track: Arc::from("vox_laugh_child"),
            priority: 10,
            lowest: occupant(1, "ui_click", 25),
            occupants: VoiceTable::of(
                &[occupant(0, "fx_fridge", 30), occupant(1, "ui_click", 25)],
                seconds(1.200),
            ),
            capacity: 2,
        },
    ));
    t.push_back(rec(
        1.500,
        Hook,
        Some("tv_on"),
        Some("tv_station"),
        Some(9),
        None,
        TraceEvent::HandedToWorld(HookEvent::TurnOn {
            event: "tv_on".into(),
            station: 28,
            object: Some(9),
        }),
    ));
    t.push_back(rec(
        1.800,
        Print,
        None,
        Some("fx_fridge"),
        Some(7),
        Some(0),
        TraceEvent::Print {
            name: "v1".into(),
            value: 1024,
            place: Some(CodePlace {
                address: 0x10,
                origin: Some(Origin::new("fridge.src", 12)),
                unit: None,
            }),
        },
    ));
    t.push_back(rec(
        2.100,
        Error,
        Some("fx_toaster"),
        None,
        Some(8),
        None,
        TraceEvent::UnknownEvent {
            name: Arc::from("fx_toaster"),
        },
    ));
    t.push_back(rec(
        2.400,
        Track,
        None,
        Some("ui_click"),
        None,
        Some(1),
        TraceEvent::Ended(EndReason::Ended),
    ));
    t.push_back(rec(
        2.700,
        Error,
        None,
        Some("fx_fridge"),
        Some(7),
        Some(0),
        TraceEvent::SampleMissing {
            patch: 0x3011,
            patch_name: Arc::from("fridge_hum"),
            reason: "sample file `fridge_hum.wav` not found".into(),
        },
    ));
    t
}

pub(crate) fn harness_with(
    trace: VecDeque<TraceRecord>,
    size: egui::Vec2,
) -> Harness<'static, State> {
    let cx = ContextData {
        trace,
        ..ContextData::default()
    };
    common::harness_in_panel(TracesPanel::default(), cx, size)
}

pub(crate) fn harness() -> Harness<'static, State> {
    harness_with(demo_trace(), egui::vec2(900.0, 560.0))
}

fn shows(harness: &Harness<'_, State>, text: &str) -> bool {
    harness.query_by_label_contains(text).is_some()
}

fn trace(target: TraceTarget, on: bool) -> AppCommand {
    AppCommand::Run(Command::Trace { target, on })
}

#[test]
fn the_engine_trace_toggles_send_trace_commands() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label("Events").click();
    harness.run();
    harness.get_by_label("Samples").click();
    harness.run();
    harness.get_by_label("Events").click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [
            trace(TraceTarget::Events, true),
            trace(TraceTarget::Samples, true),
            trace(TraceTarget::Events, false),
        ]
    );
    // The console history shows them as the lines that replay them.
    let lines: Vec<String> = harness.state().commands.iter().map(common::line).collect();
    assert_eq!(
        lines,
        ["trace events on", "trace samples on", "trace events off"]
    );
}

#[test]
fn the_toggles_show_switches_changed_elsewhere() {
    let mut harness = harness();
    harness.run();
    // `trace all on` typed in the console: the next snapshot reports it.
    harness.state_mut().cx.live.trace_switches = engine_core::runtime::TraceSwitches::ALL;
    harness.run();
    assert!(harness.state().panel.events && harness.state().panel.tracks);
    // Clicking now switches it off.
    harness.get_by_label("Tracks").click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [trace(TraceTarget::Tracks, false)]
    );
}

#[test]
fn kinds_are_counted_and_filter_the_rows() {
    let mut harness = harness();
    harness.run();
    assert!(shows(&harness, "Showing 18 of 18 record(s)"));
    harness.get_by_label("voice (4)");
    harness.get_by_label("error (2)").click();
    harness.run();
    assert!(shows(&harness, "Showing 16 of 18 record(s)"));
    assert!(!shows(&harness, "unknown event `fx_toaster`"));
    assert!(shows(&harness, "stole voice 0"));
}

#[test]
fn the_text_filter_narrows_the_rows() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label("Text:").click();
    harness.run();
    harness.get_by_label("Text:").type_text("FRIDGE");
    harness.run();
    // The event, the steal, the sample, the print and the missing sample.
    assert!(shows(&harness, "Showing 5 of 18 record(s)"), "fridge rows");
    assert!(shows(&harness, "stole voice 0"));
    assert!(!shows(&harness, "ui_click"));
}

#[test]
fn the_object_and_track_filters_narrow_the_rows() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label("Object:").click();
    harness.run();
    harness.get_by_label("Object:").type_text("@2");
    harness.run();
    assert!(shows(&harness, "Showing 4 of 18 record(s)"));
    assert!(!shows(&harness, "fridge"));
    harness.state_mut().panel.object.clear();
    harness.state_mut().panel.filter.track = "ui_".into();
    harness.run();
    assert!(shows(&harness, "Showing 3 of 18 record(s)"));
}

#[test]
fn clicking_a_row_selects_its_voice() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label_contains("stole voice 0").click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::Select(Selection::Voice(0))]
    );
    // A record with no voice selects its object.
    harness.state_mut().commands.clear();
    harness
        .get_by_label_contains("unknown event `fx_toaster`")
        .click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::Select(Selection::Object(8))]
    );
}

#[test]
fn why_on_a_row_opens_the_why_panel_on_its_trigger() {
    let mut harness = harness();
    harness.run();
    // Nothing selected: no Why beside Export.
    assert_eq!(harness.query_all_by_label("Why").count(), 0);
    let number = |text: &str, h: &Harness<'_, State>| {
        h.state()
            .cx
            .trace
            .iter()
            .position(|r| r.message().contains(text))
            .unwrap() as u64
    };
    // A row's context menu.
    harness
        .get_by_label_contains("stole voice 0")
        .click_secondary();
    harness.run();
    harness.get_by_label("Why").click();
    harness.run();
    let stole = number("stole voice 0", &harness);
    assert_eq!(
        harness.state().commands,
        [AppCommand::Why(WhyTarget::Record(stole))]
    );
    // The selected row's Why, beside Export.
    harness.state_mut().commands.clear();
    harness
        .get_by_label_contains("started `ui_click` on voice 1")
        .click();
    harness.run();
    harness.get_by_label("Why").click();
    harness.run();
    let start = number("started `ui_click` on voice 1", &harness);
    assert_eq!(
        harness.state().commands,
        [
            AppCommand::Select(Selection::Voice(1)),
            AppCommand::Why(WhyTarget::Record(start))
        ]
    );
}

#[test]
fn export_emits_the_file_and_the_filter() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label("error (2)").click();
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    let mut filter = TraceFilter::default();
    filter.kinds[7] = false;
    assert_eq!(
        harness.state().commands,
        [AppCommand::ExportTrace {
            path: Project::default().root().join("trace.txt"),
            filter: filter.clone(),
        }]
    );
    // The filter the app applies keeps what the panel shows.
    let kept = demo_trace().iter().filter(|r| filter.matches(r)).count();
    assert_eq!(kept, 16);
}

fn numbered(n: usize) -> TraceRecord {
    rec(
        n as f64 / 100.0,
        if n.is_multiple_of(10) {
            TraceKind::Error
        } else {
            TraceKind::Voice
        },
        Some("fx_loop"),
        Some("fx_loop"),
        Some((n % 50) as i32),
        Some(n % 64),
        says(&format!("record number {n:07}")),
    )
}

#[test]
fn follow_shows_the_newest_and_pause_freezes_the_list() {
    let mut harness = harness_with((0..200).map(numbered).collect(), egui::vec2(900.0, 400.0));
    harness.run();
    assert!(shows(&harness, "record number 0000199"));
    assert!(!shows(&harness, "record number 0000000"));
    // Following: new records come into view.
    harness
        .state_mut()
        .cx
        .trace
        .extend((200..210).map(numbered));
    harness.run();
    assert!(shows(&harness, "record number 0000209"));
    // Paused: new records are counted, not shown.
    harness.get_by_label("Pause").click();
    harness.run();
    harness
        .state_mut()
        .cx
        .trace
        .extend((210..215).map(numbered));
    harness.run();
    assert!(shows(&harness, "paused: 5 new record(s), 5 matching"));
    assert!(shows(&harness, "Showing 210 of 215 record(s)"));
    assert!(!shows(&harness, "record number 0000214"));
    // Follow again: the newest is back in view.
    harness.get_by_label("Follow").click();
    harness.run();
    assert!(shows(&harness, "record number 0000214"));
    assert!(!shows(&harness, "paused:"));
}

#[test]
fn records_dropped_from_the_front_leave_the_list() {
    let mut harness = harness_with((0..100).map(numbered).collect(), egui::vec2(900.0, 400.0));
    harness.run();
    let state = harness.state_mut();
    state.cx.trace.drain(..40);
    state.cx.trace_dropped = 40;
    state.cx.trace.extend((100..120).map(numbered));
    harness.run();
    assert!(shows(&harness, "Showing 80 of 80 record(s)"));
    assert!(shows(&harness, "error (8)"), "errors 40, 50, … 110");
    assert!(shows(&harness, "record number 0000119"));
}

#[test]
fn a_200_000_record_trace_still_draws_and_filters() {
    let trace: VecDeque<TraceRecord> = (0..200_000).map(numbered).collect();
    let mut harness = harness_with(trace, egui::vec2(900.0, 500.0));
    // Index in one frame (the default budget spreads it over frames; see the unit tests).
    harness.state_mut().panel.index_budget = std::time::Duration::from_secs(600);
    harness.run();
    assert!(shows(&harness, "Showing 200,000 of 200,000 record(s)"));
    assert!(shows(&harness, "record number 0199999"));
    harness.state_mut().panel.filter.text = "number 01234".into();
    harness.run();
    assert!(shows(&harness, "Showing 100 of 200,000 record(s)"));
    assert!(shows(&harness, "record number 0123499"));
    let mut late = numbered(200_000);
    late.what = says("late: record number 01234 again");
    harness.state_mut().cx.trace.push_back(late);
    harness.run();
    assert!(shows(&harness, "Showing 101 of 200,001 record(s)"));
    assert!(shows(&harness, "late: record number 01234 again"));
}

#[test]
fn snapshot() {
    let mut harness = harness();
    harness.state_mut().panel.events = true;
    harness.state_mut().panel.samples = true;
    harness.run();
    harness.get_by_label_contains("stole voice 0").click();
    harness.run();
    harness.state_mut().cx.selection = Some(Selection::Voice(0));
    harness.run();
    harness.remove_cursor();
    harness.run();
    harness.snapshot("traces");
}

/// U9: a row about a place in a track's code opens the source there; a click pauses
/// Follow; a long row shows all of itself on hover; world notes read as `world N`.
#[test]
fn a_click_on_a_row_with_a_code_place_opens_the_source_and_pauses_follow() {
    let mut harness = harness();
    harness.run();
    assert!(harness.state().panel.follow);
    harness.get_by_label_contains("v1 = 1024").click();
    harness.run();
    let root = Project::default().root().to_path_buf();
    assert!(
        harness.state().commands.contains(&AppCommand::OpenSource {
            path: root.join("fridge.src"),
            line: 12,
        }),
        "{:?}",
        harness.state().commands
    );
    assert!(!harness.state().panel.follow, "the click paused Follow");
}

#[test]
fn world_notes_read_as_world_numbers_and_exports_use_seconds() {
    use engine_core::sound::server::WORLD_NOTES;
    assert_eq!(panels::traces::note_name(WORLD_NOTES + 102), "world 102");
    assert_eq!(panels::traces::note_name(7), "7");
    let mut record = rec(1.5, TraceKind::Sample, None, None, None, None, says("x"));
    record.note = Some(WORLD_NOTES + 102);
    let line = panels::traces::export_line(&record, 48_000);
    assert!(line.starts_with("1.500 sample"), "{line}");
    assert!(line.contains("note=world 102"), "{line}");
}
