//! `hitbench bench ui`: the workbench's frame time with a full trace. The docked panels
//! (the default layout, with the Traces tab in front) are drawn headless by an
//! `egui::Context` at a fixed screen size — layout and logic only, no window and no
//! GPU — over a fixture of 1,000,000 trace records and 64 busy voices, while new
//! records arrive every frame; once following the newest record, once with a filter on
//! (target < 8 ms a frame).

use super::super::Io;
use super::Size;
use crate::workbench::dock::{self, Behavior, Pane, Panels};
use engine_core::host::live::LiveSnapshot;
use engine_core::runtime::trace::{
    ExternalVolume, GainParts, Occupant, PanParts, PanSource, TraceEvent, VoiceTable,
};
use engine_core::runtime::{ControlGroup, SampleTime, TraceKind, TraceRecord};
use engine_core::runtime::{Gain, Pan};
use engine_core::toolchain::project::Project;
use engine_core::tools::inspect::{VoiceOccupant, VoiceView};
use panels::{AppCommand, ContextData, TRACE_LIMIT};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Target: one frame of the UI (logic and layout).
pub const TARGET: Duration = Duration::from_millis(8);

/// Trace records in a full run.
const RECORDS: usize = TRACE_LIMIT;

/// Busy voices.
const VOICES: usize = 64;

/// Frames measured in each case of a full run.
const FRAMES: usize = 100;

/// Frames drawn before measuring (fonts, first layout).
const WARM_UP: usize = 5;

/// New trace records per frame (a busy scene: 6,000 a second at 60 frames a second).
const PER_FRAME: usize = 100;

/// The screen, in points.
const SCREEN: egui::Vec2 = egui::vec2(1280.0, 800.0);

/// The filter of the filtered case: steals, in every kind but errors.
const FILTER_TEXT: &str = "steal";

/// The fixture's names, shared by the records like the engine's `Arc<str>`s.
struct Names {
    events: Vec<Arc<str>>,
    tracks: Vec<Arc<str>>,
}

impl Names {
    fn new() -> Self {
        let events = [
            "vox_greet",
            "vox_laugh",
            "fx_fridge_open",
            "fx_door",
            "ui_click",
            "music_build",
            "fx_shower",
            "vox_angry",
        ];
        Self {
            events: events.iter().map(|e| Arc::from(*e)).collect(),
            tracks: events
                .iter()
                .map(|e| Arc::from(format!("{e}_track").as_str()))
                .collect(),
        }
    }

    /// Record number `n` of a busy scene.
    fn record(&self, n: usize) -> TraceRecord {
        let kind = TraceKind::ALL[n * 7 % TraceKind::ALL.len()];
        let which = n % self.events.len();
        let voice = n % VOICES;
        let track = Arc::clone(&self.tracks[which]);
        let priority = 20 + (n % 40) as i32;
        let what = match kind {
            TraceKind::Voice if n.is_multiple_of(3) => {
                let victim = Occupant {
                    voice,
                    track: Arc::clone(&self.tracks[(which + 1) % self.tracks.len()]),
                    priority: 20,
                    age: n as u64 * 480,
                };
                TraceEvent::Stole {
                    track,
                    priority,
                    occupants: VoiceTable::of(
                        std::slice::from_ref(&victim),
                        SampleTime::from_samples(n as u64 * 480),
                    ),
                    victim,
                    capacity: VOICES,
                }
            }
            TraceKind::Voice => TraceEvent::Started {
                track,
                voice,
                priority,
                in_use: voice + 1,
                capacity: VOICES,
            },
            TraceKind::Sample => TraceEvent::NoteStarted {
                note: n as u64,
                patch: (n % 4096) as u32,
                patch_name: Arc::clone(&self.events[which]),
                sample: Arc::from(format!("sounds/{}.wav", self.events[which]).as_str()),
                gain: GainParts {
                    track_volume: Gain::new(0.8),
                    external: ExternalVolume::Trigger(Gain::UNITY),
                    ducking: Gain::UNITY,
                    group: ControlGroup::Fx,
                    group_volume: Gain::UNITY,
                    master: Gain::UNITY,
                },
                pan: PanParts {
                    value: Pan::new(-0.25),
                    source: PanSource::Trigger,
                },
                looping: false,
                cents: 0,
            },
            TraceKind::Error => TraceEvent::SampleMissing {
                patch: (n % 4096) as u32,
                patch_name: Arc::clone(&self.events[which]),
                reason: "its sample file is missing".into(),
            },
            _ => TraceEvent::Dispatched {
                event: Arc::clone(&self.events[which]),
                type_number: 1,
                track_id: 0x100 + which as u32,
                source: Some((n % 40) as i32),
            },
        };
        TraceRecord {
            time: SampleTime::from_samples(n as u64 * 480),
            kind,
            event: Some(Arc::clone(&self.events[which])),
            track: Some(Arc::clone(&self.tracks[which])),
            object: Some((n % 40) as i32),
            voice: Some(voice),
            note: None,
            what,
        }
    }
}

/// 64 busy voice slots.
fn busy_voices(names: &Names) -> LiveSnapshot {
    let voice_slots = (0..VOICES)
        .map(|slot| VoiceView {
            slot,
            world: None,
            occupant: Some(VoiceOccupant {
                thread: slot,
                track: 0x100 + slot as u32,
                track_name: Arc::clone(&names.tracks[slot % names.tracks.len()]),
                event: Arc::clone(&names.events[slot % names.events.len()]),
                source: Some((slot % 40) as i32),
                owners: vec![(slot % 40) as i32],
                priority: 20 + (slot % 10) as i32,
                group: ControlGroup::Fx,
                gain: Gain::new(0.8),
                pan: Pan::new((slot as f32 / VOICES as f32) * 2.0 - 1.0),
                elapsed: 48_000,
                started_at: SampleTime::ZERO,
                live_notes: 1,
                finished: false,
            }),
        })
        .collect();
    LiveSnapshot {
        voices: (VOICES, VOICES),
        voice_slots,
        ..LiveSnapshot::default()
    }
}

/// The workbench's panels and dock, drawn headless.
struct Rig {
    ctx: egui::Context,
    /// What the panels read (project, live snapshot, trace log).
    data: ContextData,
    names: Names,
    /// How many records the trace keeps (older ones are dropped, as in the workbench).
    cap: usize,
    next: usize,
    panels: Panels,
    tree: egui_tiles::Tree<Pane>,
    time: f64,
}

impl Rig {
    /// Appends this frame's records, then draws a frame; returns how long drawing took.
    fn frame(&mut self, appended: usize) -> Duration {
        let trace = &mut self.data.trace;
        for _ in 0..appended {
            trace.push_back(self.names.record(self.next));
            self.next += 1;
        }
        let excess = trace.len().saturating_sub(self.cap);
        trace.drain(..excess);
        self.data.trace_dropped += excess as u64;
        self.time += 1.0 / 60.0;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, SCREEN)),
            time: Some(self.time),
            ..egui::RawInput::default()
        };
        let mut commands: Vec<AppCommand> = Vec::new();
        let start = Instant::now();
        let output = self.ctx.run_ui(input, |ui| {
            let context = self.data.context();
            egui::CentralPanel::default().show(ui, |ui| {
                let mut behavior = Behavior {
                    panels: &mut self.panels,
                    context: &context,
                    commands: &mut commands,
                    closed: &mut dock::ClosedPanes::default(),
                };
                self.tree.ui(&mut behavior, ui);
            });
        });
        let took = start.elapsed();
        output.drop_without_applying_deltas();
        took
    }

    /// Draws `frames` frames with new records; returns their times.
    fn measure(&mut self, frames: usize) -> Vec<Duration> {
        (0..frames).map(|_| self.frame(PER_FRAME)).collect()
    }
}

/// Median and 95th percentile of `times` (sorted in place).
fn spread(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).copied().unwrap_or_default()
    };
    (at(0.5), at(0.95))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn report(io: &mut Io<'_>, case: &str, times: &mut [Duration]) -> anyhow::Result<()> {
    let (median, p95) = spread(times);
    writeln!(
        io.out,
        "ui: {case:<22} median {:>6.2} ms, p95 {:>6.2} ms; target < {} ms (median {:.2}x, p95 \
         {:.2}x the target)",
        ms(median),
        ms(p95),
        TARGET.as_millis(),
        median.as_secs_f64() / TARGET.as_secs_f64(),
        p95.as_secs_f64() / TARGET.as_secs_f64(),
    )?;
    Ok(())
}

/// Runs the benchmark.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let records = size.scale(RECORDS);
    let frames = match size {
        Size::Full => FRAMES,
        Size::Quick => 10,
    };
    let demo = Path::new(crate::workbench::DEFAULT_PROJECT);
    let project = if demo.is_dir() {
        Project::load(demo)
    } else {
        Project::default()
    };
    let names = Names::new();
    let live = busy_voices(&names);
    let mut trace = VecDeque::with_capacity(records);
    trace.extend((0..records).map(|n| names.record(n)));
    let mut tree = dock::default_layout();
    dock::show_pane(&mut tree, Pane::Traces);
    let mut rig = Rig {
        ctx: egui::Context::default(),
        data: ContextData {
            project,
            live,
            trace,
            ..ContextData::default()
        },
        names,
        cap: records,
        next: records,
        panels: Panels::default(),
        tree,
        time: 0.0,
    };
    writeln!(
        io.out,
        "ui: {records} trace records, {VOICES} busy voices, {}x{} points, the default layout \
         with Traces in front; layout and logic only (no rendering); {frames} frames a case, \
         {PER_FRAME} new records a frame",
        SCREEN.x, SCREEN.y
    )?;
    let start = Instant::now();
    rig.frame(0);
    let first = start.elapsed();
    // The first index of the records, a few milliseconds a frame, then a few frames more.
    while rig.panels.traces.indexing() {
        rig.frame(PER_FRAME);
    }
    for _ in 0..WARM_UP {
        rig.frame(PER_FRAME);
    }
    let mut following = rig.measure(frames);
    report(io, "following the newest", &mut following)?;

    rig.panels.traces.filter.text = FILTER_TEXT.to_string();
    rig.panels.traces.filter.kinds[TraceKind::ALL
        .iter()
        .position(|k| *k == TraceKind::Error)
        .unwrap_or_default()] = false;
    // The new filter tests every record again, a few milliseconds a frame.
    let start = Instant::now();
    let mut indexing = Vec::new();
    while indexing.is_empty() || rig.panels.traces.indexing() {
        indexing.push(rig.frame(PER_FRAME));
    }
    let reindex = start.elapsed();
    let mut filtered = rig.measure(frames);
    report(io, &format!("filter \"{FILTER_TEXT}\" on"), &mut filtered)?;
    report(io, "while re-indexing", &mut indexing)?;
    writeln!(
        io.out,
        "ui: first frame (fonts, layout) {:.1} ms; a filter change re-indexes {records} \
         records over {} frame(s), {:.1} ms in all; {} record(s) match the filter",
        ms(first),
        indexing.len(),
        ms(reindex),
        rig.panels.traces.matching()
    )?;
    Ok(())
}
