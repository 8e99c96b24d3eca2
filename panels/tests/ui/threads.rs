//! The Track threads panel under egui_kittest, on hand-built threads: the list shows each
//! thread's PC and `file:line`; selecting one shows its registers and, when its file is
//! the open source, the lines around its line (else it asks to open the file); a fault's
//! `file:line` opens the source there.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::host::live::LiveSnapshot;
use engine_core::runtime::trace::{CodePlace, TraceEvent};
use engine_core::runtime::vm::FaultKind;
use engine_core::runtime::{SampleTime, TraceKind, TraceRecord};
use engine_core::toolchain::project::Origin;
use engine_core::toolchain::registers::{self, Layout};
use engine_core::tools::inspect::{ThreadStatus, ThreadView, VoiceHistory};
use panels::{AppCommand, ContextData, Selection, SourceText, ThreadsPanel};
use std::path::PathBuf;
use std::sync::Arc;

const RATE: u64 = 48_000;
const PEOPLE: &str = "/demo/src/people.src";
const MUSIC: &str = "/demo/src/music.src";

use crate::common;
type State = common::State<ThreadsPanel>;

/// Where a fixture thread is and what it holds.
struct Spec<'a> {
    index: usize,
    voice: usize,
    event: &'a str,
    track: &'a str,
    file: &'a str,
    line: u32,
    pc: u32,
    instruction: &'static str,
    state: ThreadStatus,
    set: &'a [(&'a str, i32)],
}

/// A thread as the spec says, with its other registers zero.
fn thread(spec: Spec<'_>) -> ThreadView {
    let Spec {
        index,
        voice,
        event,
        track,
        file,
        line,
        pc,
        instruction,
        state,
        set,
    } = spec;
    let registers = registers::all(Layout::Tso)
        .filter(|(number, _)| !registers::is_global(*number))
        .map(|(_, name)| {
            let value = set.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
            (name.to_string(), value)
        })
        .collect();
    ThreadView {
        thread: index,
        voice,
        event: Arc::from(event),
        track: 0x1000 + index as u32,
        track_name: Arc::from(track),
        source: Some(12),
        owners: vec![12],
        state,
        simple: false,
        pc: Some(pc),
        next_pc: Some(pc + 2),
        unit: Some(0),
        instruction: Some(instruction),
        file: Some(PathBuf::from(file)),
        line: Some(line),
        layout: Layout::Tso,
        registers,
        zero: false,
        sign: false,
        call_depth: 1,
        fuel_used: 6,
        fuel_per_tick: 1000,
        time: SampleTime::from_samples(19 * RATE),
        started_at: SampleTime::from_samples(9 * RATE),
        live_notes: 1,
        interrupted: false,
    }
}

const PEOPLE_TEXT: &str = "\
; people.src: footsteps and idle voices
footsteps
\tloadb patch step_wood
\tloadl v2 #420
loop
\tnote_on v3
\twait v2
\tinc v1
\tcmp v1 #12
\tjump_ne loop
\tend
";

fn snapshot() -> LiveSnapshot {
    let now = SampleTime::from_samples(20 * RATE);
    let threads = vec![
        thread(Spec {
            index: 0,
            voice: 0,
            event: "music_mode_live",
            track: "music_livingroom",
            file: MUSIC,
            line: 31,
            pc: 0x0120,
            instruction: "wait_samp",
            state: ThreadStatus::WaitingForNote { until: None },
            set: &[("patch", 7), ("vol", 1024), ("pan", -300), ("priority", 40)],
        }),
        thread(Spec {
            index: 3,
            voice: 6,
            event: "walk",
            track: "footsteps",
            file: PEOPLE,
            line: 7,
            pc: 0x0042,
            instruction: "wait",
            state: ThreadStatus::WaitingUntil(now + RATE / 4),
            set: &[
                ("v1", 5),
                ("v2", 420),
                ("v3", 1),
                ("patch", 14),
                ("vol", 900),
                ("source", 12),
                ("isplaying", 1),
            ],
        }),
    ];
    let fault = TraceRecord {
        time: SampleTime::from_samples(18 * RATE),
        kind: TraceKind::Error,
        event: Some(Arc::from("walk")),
        track: Some(Arc::from("footsteps_run")),
        object: Some(12),
        voice: Some(4),
        note: None,
        what: TraceEvent::Fault {
            event: Arc::from("walk"),
            track: Arc::from("footsteps_run"),
            place: Some(CodePlace {
                address: 0x56,
                origin: Some(Origin::new(PEOPLE, 9)),
                unit: None,
            }),
            kind: FaultKind::DivideByZero,
        },
    };
    let mut history = VoiceHistory::default();
    history.push(&[fault], now);
    LiveSnapshot {
        now,
        threads,
        history: Arc::new(history),
        ..LiveSnapshot::default()
    }
}

pub(crate) fn harness(source: Option<SourceText>) -> Harness<'static, State> {
    let cx = ContextData {
        live: snapshot(),
        source,
        ..ContextData::default()
    };
    common::harness(ThreadsPanel::default(), cx, egui::vec2(900.0, 880.0))
}

fn people_source() -> SourceText {
    SourceText {
        path: PathBuf::from(PEOPLE),
        text: PEOPLE_TEXT.to_string(),
        line: 7,
    }
}

#[test]
fn the_list_shows_pc_and_file_line() {
    let mut harness = harness(None);
    harness.run();
    harness.get_by_label("2 live thread(s)");
    harness.get_by_label("0x0042");
    harness.get_by_label("0x0120");
    harness.get_by_label("people.src:7");
    harness.get_by_label("music.src:31");
    harness.get_by_label("looping note");
    harness.get_by_label("wait 0.25 s");
}

#[test]
fn selecting_a_thread_shows_its_registers_and_asks_for_its_source() {
    let mut harness = harness(None);
    harness.run();
    harness.get_by_label("#3").click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [
            AppCommand::Select(Selection::Voice(6)),
            AppCommand::OpenSource {
                path: PathBuf::from(PEOPLE),
                line: 7,
            },
        ]
    );
    harness.get_by_label("Thread #3: event `walk`, track `footsteps`, voice 6");
    harness.get_by_label("0x0042 wait");
    harness.get_by_label("v2");
    harness.get_by_label("420");
    harness.get_by_label("isplaying");
    harness.get_by_label_contains("Source not open");
    // With the file open, the lines around its line show and nothing more is asked.
    harness.state_mut().cx.source = Some(people_source());
    harness.state_mut().commands.clear();
    harness.run();
    harness.get_by_label_contains("7  \twait v2");
    harness.get_by_label_contains("4  \tloadl v2 #420");
    assert!(harness.query_by_label_contains("1  ; people.src").is_none());
    harness.get_by_label("#0").click();
    harness.run();
    harness.get_by_label("#3").click();
    harness.run();
    assert_eq!(
        harness.state().commands.last(),
        Some(&AppCommand::Select(Selection::Voice(6))),
        "the open file is not asked for again"
    );
    // Only non-zero registers.
    harness.get_by_label("Only non-zero").click();
    harness.run();
    assert!(harness.query_by_label("h1").is_none());
    harness.get_by_label("v2");
}

#[test]
fn a_fault_opens_its_source_line() {
    let mut harness = harness(None);
    harness.run();
    harness.get_by_label("Faults (1)");
    harness.get_by_label_contains("divide by zero");
    harness.get_by_label("people.src:9").click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::OpenSource {
            path: PathBuf::from(PEOPLE),
            line: 9,
        }]
    );
}

#[test]
fn snapshot_of_the_panel() {
    let mut harness = harness(Some(people_source()));
    harness.run();
    harness.get_by_label("#3").click();
    harness.run();
    harness.remove_cursor();
    harness.run();
    harness.snapshot("threads");
}

/// The registers grid fits the pane — as many columns as the widest
/// register leaves room for — at any width, and the volume registers show their dB.
#[test]
fn the_register_grid_fits_narrow_and_wide_panes() {
    for width in [900.0, 560.0, 320.0] {
        let cx = ContextData {
            live: snapshot(),
            ..ContextData::default()
        };
        let mut harness = common::harness(ThreadsPanel::default(), cx, egui::vec2(width, 1400.0));
        harness.run();
        harness.get_by_label("#3").click();
        harness.run();
        harness.run();
        let th = harness.state().cx.live.threads[1].clone();
        let mut cells = 0;
        for (name, _) in &th.registers {
            for node in harness.query_all_by_label(name) {
                cells += 1;
                let rect = node.rect();
                assert!(
                    rect.right() <= width,
                    "{width} px: register `{name}` is cut at {rect:?}"
                );
            }
        }
        assert!(
            cells >= th.registers.len(),
            "{width} px: {cells} register cells"
        );
        let vol = harness.get_by_label("900 (-1.1 dB)");
        assert!(vol.rect().right() <= width, "{width} px: vol is cut");
    }
}

/// After a step, the registers whose value it changed are marked
/// (with what they were); a step that changes none leaves none marked.
#[test]
fn registers_a_step_changed_are_marked() {
    let mut harness = harness(None);
    harness.run();
    harness.get_by_label("#3").click();
    harness.run();
    assert!(harness.state().panel.changed_registers().is_empty());
    // The step: `inc v1` ran, the PC moved on.
    let step = |harness: &mut Harness<'static, State>, pc: u32, set: &[(&str, i32)]| {
        let th = &mut harness.state_mut().cx.live.threads[1];
        th.pc = Some(pc);
        for (name, value) in set {
            th.registers.iter_mut().find(|(n, _)| n == name).unwrap().1 = *value;
        }
        harness.run();
        harness.run();
    };
    step(&mut harness, 0x0044, &[("v1", 6)]);
    assert_eq!(harness.state().panel.changed_registers(), ["v1"]);
    harness.get_by_label("v1, changed by the last step (was 5)");
    assert!(
        harness
            .query_by_label("v2, changed by the last step (was 420)")
            .is_none()
    );
    // `cmp` changes no register: nothing stays marked.
    step(&mut harness, 0x0046, &[]);
    assert!(harness.state().panel.changed_registers().is_empty());
    assert!(
        harness
            .query_by_label_contains(", changed by the last step")
            .is_none()
    );
    // Two at once.
    step(&mut harness, 0x0048, &[("v2", 421), ("isplaying", 0)]);
    assert_eq!(
        harness.state().panel.changed_registers(),
        ["isplaying", "v2"]
    );
    harness.get_by_label("isplaying, changed by the last step (was 1)");
}
