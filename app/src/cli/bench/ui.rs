//! `hitbench bench ui`: the workbench's frame time with a full trace. The docked panels
//! (the default layout, with the Traces tab in front) are drawn headless at a fixed
//! screen size over a fixture of 1,000,000 trace records and 64 busy voices, while new
//! records arrive every frame; once following the newest record, once with a filter on.
//! A frame is all of it (target < 8 ms): the layout (`Context::run_ui`), the
//! tessellation (`Context::tessellate`) and the paint, by the renderer the window would
//! use — egui's OpenGL renderer (`paint_gl.rs`), or its wgpu renderer (`paint.rs`) with
//! `HITBENCH_RENDERER=wgpu` — into an offscreen framebuffer, waited for until it is
//! drawn. Where there is no renderer at all the paint is not measured, and the output
//! says so.

use super::super::Io;
use super::Size;
use super::painter::Renderer;
use crate::workbench;
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

/// Target: one frame of the UI (layout, tessellation and paint).
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
                gain: Box::new(GainParts {
                    track_volume: Gain::new(0.8),
                    external: ExternalVolume::Trigger(Gain::UNITY),
                    ducking: Gain::UNITY,
                    group: ControlGroup::Fx,
                    group_volume: Gain::UNITY,
                    master: Gain::UNITY,
                }),
                pan: Box::new(PanParts {
                    value: Pan::new(-0.25),
                    source: PanSource::Trigger,
                }),
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

/// One frame's times.
#[derive(Debug, Clone, Copy, Default)]
struct Frame {
    /// `Context::run_ui`: the panels' logic and layout, into shapes.
    layout: Duration,
    /// `Context::tessellate`: the shapes into meshes.
    tessellate: Duration,
    /// egui's renderer: texture changes, buffers, the draws, until the frame is drawn
    /// (None: there is no renderer).
    paint: Option<Duration>,
    /// Meshes painted.
    meshes: usize,
    /// Their vertices.
    vertices: usize,
}

impl Frame {
    /// The whole frame (what was measured of it).
    fn total(&self) -> Duration {
        self.layout + self.tessellate + self.paint.unwrap_or_default()
    }
}

/// The workbench's panels and dock, drawn headless.
struct Rig {
    ctx: egui::Context,
    /// egui's renderer, painting offscreen (None: there is no renderer).
    painter: Option<Renderer>,
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
    /// Appends this frame's records, then draws a frame: layout, tessellation, paint.
    fn frame(&mut self, appended: usize) -> anyhow::Result<Frame> {
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
        let mut output = self.ctx.run_ui(input, |ui| {
            let context = self.data.context();
            // As the workbench draws it: the renderer clears to the panels' colour.
            egui::CentralPanel::default()
                .frame(workbench::central_frame(ui.style(), true))
                .show(ui, |ui| {
                    let mut behavior = Behavior {
                        panels: &mut self.panels,
                        context: &context,
                        commands: &mut commands,
                        closed: &mut dock::ClosedPanes::default(),
                    };
                    self.tree.ui(&mut behavior, ui);
                });
        });
        let layout = start.elapsed();
        let start = Instant::now();
        let shapes = std::mem::take(&mut output.shapes);
        let primitives = self.ctx.tessellate(shapes, output.pixels_per_point);
        let tessellate = start.elapsed();
        let paint = match &mut self.painter {
            Some(painter) => {
                let start = Instant::now();
                let clear = workbench::clear_color(&self.ctx.global_style().visuals);
                painter
                    .paint(&mut output.textures_delta, &primitives, clear)
                    .map_err(anyhow::Error::msg)?;
                Some(start.elapsed())
            }
            None => None,
        };
        output.drop_without_applying_deltas();
        Ok(Frame {
            layout,
            tessellate,
            paint,
            meshes: primitives.len(),
            vertices: primitives.iter().map(vertices).sum(),
        })
    }

    /// Draws `frames` frames with new records; returns their times.
    fn measure(&mut self, frames: usize) -> anyhow::Result<Vec<Frame>> {
        (0..frames).map(|_| self.frame(PER_FRAME)).collect()
    }
}

/// The vertices of a primitive (none for a callback).
fn vertices(primitive: &egui::ClippedPrimitive) -> usize {
    match &primitive.primitive {
        egui::epaint::Primitive::Mesh(mesh) => mesh.vertices.len(),
        egui::epaint::Primitive::Callback(_) => 0,
    }
}

/// Median and 95th percentile of `values`.
fn spread<T: Ord + Copy + Default>(values: impl IntoIterator<Item = T>) -> (T, T) {
    let mut values: Vec<T> = values.into_iter().collect();
    values.sort();
    let at = |q: f64| {
        let i = ((values.len() as f64 - 1.0) * q).round() as usize;
        values.get(i).copied().unwrap_or_default()
    };
    (at(0.5), at(0.95))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One case's line: the frame against the target, then its parts.
fn report(io: &mut Io<'_>, case: &str, frames: &[Frame]) -> anyhow::Result<()> {
    let (median, p95) = spread(frames.iter().map(Frame::total));
    let painted = frames.iter().all(|f| f.paint.is_some());
    let what = if painted {
        "full frame"
    } else {
        "layout+tessellation only, paint not measured"
    };
    let part = |f: fn(&Frame) -> Duration| ms(spread(frames.iter().map(f)).0);
    let paint = if painted {
        format!("{:.2} ms", part(|f| f.paint.unwrap_or_default()))
    } else {
        "not measured".to_string()
    };
    writeln!(
        io.out,
        "ui: {case:<22} {what}: median {:>6.2} ms, p95 {:>6.2} ms; target < {} ms (median \
         {:.2}x, p95 {:.2}x the target)",
        ms(median),
        ms(p95),
        TARGET.as_millis(),
        median.as_secs_f64() / TARGET.as_secs_f64(),
        p95.as_secs_f64() / TARGET.as_secs_f64(),
    )?;
    writeln!(
        io.out,
        "ui:   {case}: layout {:.2} ms, tessellation {:.2} ms, paint {paint} (medians); \
         {} meshes, {} vertices",
        part(|f| f.layout),
        part(|f| f.tessellate),
        spread(frames.iter().map(|f| f.meshes)).0,
        spread(frames.iter().map(|f| f.vertices)).0,
    )?;
    Ok(())
}

/// What the renderer costs by itself, whatever the panels do: an empty frame (cleared,
/// submitted, waited for) and one rectangle over the whole screen (what a frame that
/// paints every pixel once costs at the least).
fn renderer_alone(io: &mut Io<'_>, painter: &mut Renderer, frames: usize) -> anyhow::Result<()> {
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, SCREEN);
    let mut mesh = egui::epaint::Mesh::default();
    mesh.add_colored_rect(screen, egui::Color32::from_gray(27));
    let fill = [egui::ClippedPrimitive {
        clip_rect: screen,
        primitive: egui::epaint::Primitive::Mesh(mesh),
    }];
    let mut time = |primitives: &[egui::ClippedPrimitive]| -> anyhow::Result<_> {
        let mut times = Vec::new();
        for i in 0..WARM_UP + frames {
            let start = Instant::now();
            painter
                .paint(
                    &mut egui::TexturesDelta::default(),
                    primitives,
                    [0.0, 0.0, 0.0, 1.0],
                )
                .map_err(anyhow::Error::msg)?;
            if i >= WARM_UP {
                times.push(start.elapsed());
            }
        }
        Ok(spread(times))
    };
    let empty = time(&[])?;
    let full = time(&fill)?;
    writeln!(
        io.out,
        "ui: the renderer alone: an empty frame (cleared, submitted, waited for) median {:.2} \
         ms, p95 {:.2} ms; one rectangle over all {}x{} pixels median {:.2} ms, p95 {:.2} ms{}",
        ms(empty.0),
        ms(empty.1),
        SCREEN.x,
        SCREEN.y,
        ms(full.0),
        ms(full.1),
        if painter.software() {
            " (rasterised on the CPU: every pixel painted costs, which a GPU would not feel)"
        } else {
            ""
        }
    )?;
    Ok(())
}

/// The renderer, and its line: what it paints with, or why there is none.
fn painter(io: &mut Io<'_>) -> anyhow::Result<Option<Renderer>> {
    let start = Instant::now();
    match Renderer::new([SCREEN.x as u32, SCREEN.y as u32], 1.0) {
        Ok(painter) => {
            writeln!(
                io.out,
                "ui: painted by {} (ready in {:.0} ms)",
                painter.describe(),
                ms(start.elapsed())
            )?;
            Ok(Some(painter))
        }
        Err(why) => {
            writeln!(
                io.out,
                "ui: {why}: the paint could not be measured; the frame times below are \
                 layout and tessellation only, NOT full frames"
            )?;
            Ok(None)
        }
    }
}

/// Runs the benchmark.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let records = size.scale(RECORDS);
    let frames = match size {
        Size::Full => FRAMES,
        Size::Quick => 10,
    };
    let demo = Path::new(workbench::DEFAULT_PROJECT);
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
    writeln!(
        io.out,
        "ui: {records} trace records, {VOICES} busy voices, {}x{} points at 1 pixel a point, \
         the default layout with Traces in front; a frame is layout (egui's run_ui), \
         tessellation and paint (egui's renderer, as the window's, into an offscreen \
         framebuffer, until it is drawn); {frames} frames a case, {PER_FRAME} new records a \
         frame",
        SCREEN.x, SCREEN.y
    )?;
    let mut rig = Rig {
        ctx: egui::Context::default(),
        painter: painter(io)?,
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
    // The indexing budget the window takes with this renderer.
    rig.panels.traces.index_budget =
        workbench::index_budget(rig.painter.as_ref().is_some_and(Renderer::software));
    let first = rig.frame(0)?;
    if let Some(painter) = &mut rig.painter {
        // After the first frame: the font atlas the rectangle is painted from is there.
        renderer_alone(io, painter, frames)?;
    }
    // The first index of the records, a few milliseconds a frame, then a few frames more.
    while rig.panels.traces.indexing() {
        rig.frame(PER_FRAME)?;
    }
    for _ in 0..WARM_UP {
        rig.frame(PER_FRAME)?;
    }
    let following = rig.measure(frames)?;
    report(io, "following the newest", &following)?;

    rig.panels.traces.filter.text = FILTER_TEXT.to_string();
    rig.panels.traces.filter.kinds[TraceKind::ALL
        .iter()
        .position(|k| *k == TraceKind::Error)
        .unwrap_or_default()] = false;
    // The new filter tests every record again, a few milliseconds a frame.
    let start = Instant::now();
    let mut indexing = Vec::new();
    // Frames until the list following the newest shows matching rows.
    let mut first_rows = None;
    while indexing.is_empty() || rig.panels.traces.indexing() {
        indexing.push(rig.frame(PER_FRAME)?);
        if first_rows.is_none() && rig.panels.traces.matching() > 0 {
            first_rows = Some(indexing.len());
        }
    }
    let reindex = start.elapsed();
    let filtered = rig.measure(frames)?;
    report(io, &format!("filter \"{FILTER_TEXT}\" on"), &filtered)?;
    report(io, "while re-indexing", &indexing)?;
    writeln!(
        io.out,
        "ui: first frame (fonts, layout, the font atlas uploaded) {:.1} ms; a filter change \
         re-indexes {records} records over {} frame(s) ({:.1} ms of indexing a frame, the \
         window's budget with this renderer), {:.1} ms in all, the newest matches shown \
         from frame {}; {} record(s) match the filter",
        ms(first.total()),
        indexing.len(),
        ms(rig.panels.traces.index_budget),
        ms(reindex),
        first_rows.map_or_else(|| "(none)".to_string(), |n| n.to_string()),
        rig.panels.traces.matching()
    )?;
    Ok(())
}
