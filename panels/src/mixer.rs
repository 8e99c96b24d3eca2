//! The Mixer panel: the FX / Music / VOX option volumes and the master volume as
//! sliders, a meter per bus on a dB scale (peak and 300 ms RMS, each with a held mark),
//! the EBU R 128 momentary and short-term loudness, a clip light that stays lit until
//! clicked, mute and solo per option group (`panels::monitor`), the output device, and
//! the audio thread's load, underruns, dropped commands and clipping.
//!
//! A slider sends `volume fx|music|vox|master <v>` once, when the drag ends (or on a
//! keyboard step), never every frame; until the engine's snapshot shows the new value
//! the slider keeps showing the value asked for.

use crate::{AppCommand, Panel, PanelContext, theme};
use egui::{Rect, Sense, Stroke, StrokeKind, Vec2, pos2, vec2};
use engine_core::host::command::{Command, VolumeTarget};
use engine_core::runtime::sink::ControlGroup;
use engine_core::sound::mixer::MixerSnapshot;
use engine_core::sound::server::MonitorTarget;

/// The sample rate assumed until the app says which one the output runs at.
pub const DEFAULT_RATE: u32 = 48_000;

/// The lowest level a meter shows, in dB (silence sits at the bottom).
pub const METER_FLOOR_DB: f32 = -60.0;
/// The highest level a meter shows, in dB.
pub const METER_TOP_DB: f32 = 6.0;
/// The largest volume a slider sets (the console accepts up to 4; more than 1 amplifies).
pub const SLIDER_MAX: f32 = 2.0;

/// How long a meter's peak mark stays, in seconds.
const PEAK_HOLD_SECONDS: f64 = 1.5;

/// The channel strips, in the order of the snapshot's peaks: label and the volume
/// their slider sets.
const STRIPS: [(&str, VolumeTarget); 4] = [
    ("FX", VolumeTarget::Group(ControlGroup::Fx)),
    ("Music", VolumeTarget::Group(ControlGroup::Music)),
    ("VOX", VolumeTarget::Group(ControlGroup::Vox)),
    ("Master", VolumeTarget::Master),
];

/// A volume asked for and not yet seen in the snapshot.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pending {
    /// The value the slider shows.
    value: f32,
    /// The snapshot's value when it was asked for (`None` while still dragging).
    sent_over: Option<f32>,
}

/// UI state of the Mixer panel.
#[derive(Debug, Clone)]
pub struct MixerPanel {
    /// Where the sound goes ("sound card: …", "null output …"), as the app knows it;
    /// empty when unknown.
    pub output: String,
    /// The output's sample rate (frames per second), for times and the peak hold.
    pub sample_rate: u32,
    /// Per strip: a value being dragged or sent and not yet in the snapshot.
    pending: [Option<Pending>; 4],
    /// Per strip: the held peak (linear) and the engine time it was reached.
    held: [(f32, u64); 4],
    /// Per strip: the held RMS level and when it was reached.
    held_rms: [(f32, u64); 4],
    /// Per strip: the overs count when its clip light was last cleared.
    clip_seen: [u64; 4],
}

impl Default for MixerPanel {
    fn default() -> Self {
        Self {
            output: String::new(),
            sample_rate: DEFAULT_RATE,
            pending: [None; 4],
            held: [(0.0, 0); 4],
            held_rms: [(0.0, 0); 4],
            clip_seen: [0; 4],
        }
    }
}

/// A linear level in dB (−∞ as [`f32::NEG_INFINITY`]).
pub fn to_db(level: f32) -> f32 {
    if level > 0.0 && level.is_finite() {
        20.0 * level.log10()
    } else {
        f32::NEG_INFINITY
    }
}

/// How far up a meter a level reaches (0 at [`METER_FLOOR_DB`] or below, 1 at
/// [`METER_TOP_DB`]).
pub fn meter_fraction(level: f32) -> f32 {
    let db = to_db(level);
    if db.is_finite() {
        ((db - METER_FLOOR_DB) / (METER_TOP_DB - METER_FLOOR_DB)).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// A level as text: `-12.0 dB`, or `-inf dB` for silence.
pub fn db_text(level: f32) -> String {
    let db = to_db(level);
    if db.is_finite() {
        format!("{db:.1} dB")
    } else {
        "-inf dB".to_string()
    }
}

fn volume_of(snapshot: &MixerSnapshot, strip: usize) -> f32 {
    match strip {
        3 => snapshot.master,
        i => snapshot.groups.get(i).copied().unwrap_or(1.0),
    }
}

impl MixerPanel {
    /// Updates the held peaks from the snapshot's peaks at engine time `now`.
    fn hold_peaks(&mut self, snapshot: &MixerSnapshot, now: u64) {
        let hold = (PEAK_HOLD_SECONDS * f64::from(self.sample_rate.max(1))) as u64;
        let levels = self
            .held
            .iter_mut()
            .zip(snapshot.peaks)
            .chain(self.held_rms.iter_mut().zip(snapshot.rms));
        for (held, level) in levels {
            let expired = now < held.1 || now.saturating_sub(held.1) > hold;
            if level >= held.0 || expired {
                *held = (level.max(0.0), now);
            }
        }
    }

    /// The samples strip `index` sent over full scale so far: a group's bus, or for the
    /// master the samples the soft clip had to bend.
    fn overs(snapshot: &MixerSnapshot, index: usize) -> u64 {
        match index {
            3 => snapshot.clipped,
            i => snapshot.overs.get(i).copied().unwrap_or(0),
        }
    }

    /// The clip light: lit (and saying how many samples) once the strip went over full
    /// scale since it was last cleared; a click clears it.
    fn clip_light(&mut self, ui: &mut egui::Ui, index: usize, snapshot: &MixerSnapshot) {
        let overs = Self::overs(snapshot, index);
        if overs < self.clip_seen[index] {
            self.clip_seen[index] = 0;
        }
        let new = overs - self.clip_seen[index];
        let label = STRIPS[index].0;
        let text = egui::RichText::new("CLIP").small().strong();
        let button = if new > 0 {
            egui::Button::new(text.color(theme::LIT_TEXT)).fill(theme::CLIP_LIGHT)
        } else {
            egui::Button::new(text.weak())
        };
        let response = ui.add(button.small());
        response.widget_info(|| {
            egui::WidgetInfo::selected(egui::Role::Button, true, new > 0, format!("{label} clip"))
        });
        let tip = if new > 0 {
            format!("{new} sample(s) over full scale since cleared: click to clear")
        } else {
            "nothing over full scale since cleared".to_owned()
        };
        if response.on_hover_text(tip).clicked() {
            self.clip_seen[index] = overs;
        }
    }

    /// One channel strip: name, volume slider beside its meter, value and peak.
    fn strip(
        &mut self,
        ui: &mut egui::Ui,
        index: usize,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        let snapshot = &ctx.live.mixer;
        let (label, target) = STRIPS[index];
        let actual = volume_of(snapshot, index);
        // Forget a pending value once the snapshot shows it, or shows a change made
        // elsewhere (the console).
        if let Some(Pending {
            value,
            sent_over: Some(before),
        }) = self.pending[index]
            && ((actual - value).abs() < 1.0e-3 || (actual - before).abs() >= 1.0e-3)
        {
            self.pending[index] = None;
        }
        let mut value = self.pending[index].map_or(actual, |p| p.value);
        let peak = snapshot.peaks.get(index).copied().unwrap_or(0.0);
        let held = self.held[index].0;
        ui.vertical(|ui| {
            ui.set_width(104.0);
            ui.horizontal(|ui| {
                ui.strong(label);
                if let VolumeTarget::Group(group) = target {
                    crate::monitor::toggles(
                        ui,
                        &ctx.live.monitor,
                        MonitorTarget::Group(group),
                        commands,
                    );
                }
            });
            ui.horizontal(|ui| {
                let response = ui.add(
                    egui::Slider::new(&mut value, 0.0..=SLIDER_MAX)
                        .vertical()
                        .show_value(false)
                        .step_by(0.01),
                );
                let response = response
                    .accessible_name(format!("{label} volume"))
                    .on_hover_text(format!(
                        "{label} volume: 0 silent, 1 as recorded, above 1 amplifies \
                     (sends `volume {target} <v>` when you let go)"
                    ));
                if response.dragged() || response.changed() {
                    self.pending[index] = Some(Pending {
                        value,
                        sent_over: None,
                    });
                }
                let finished =
                    response.drag_stopped() || (response.changed() && !response.dragged());
                if finished && let Some(p) = self.pending[index].as_mut() {
                    p.sent_over = Some(actual);
                    commands.push(AppCommand::Run(Command::Volume {
                        target,
                        value: p.value,
                    }));
                }
                meter(ui, peak, held, response.rect.height().max(120.0));
                let rms = snapshot.rms.get(index).copied().unwrap_or(0.0);
                meter(
                    ui,
                    rms,
                    self.held_rms[index].0,
                    response.rect.height().max(120.0),
                );
            });
            ui.label(format!("{value:.2} ({})", db_text(value)));
            ui.label(format!("peak {}", db_text(peak)))
                .on_hover_text(format!("held peak {}", db_text(held)));
            let rms = snapshot.rms.get(index).copied().unwrap_or(0.0);
            ui.label(format!("RMS {}", db_text(rms)))
                .on_hover_text(format!(
                    "300 ms RMS; held {}",
                    db_text(self.held_rms[index].0)
                ));
            let loudness = |values: &[f32; 4]| lufs_text(values.get(index).copied());
            ui.label(format!("M {}", loudness(&snapshot.momentary)))
                .on_hover_text("EBU R 128 momentary loudness (400 ms)");
            ui.label(format!("S {}", loudness(&snapshot.short_term)))
                .on_hover_text("EBU R 128 short-term loudness (3 s)");
            self.clip_light(ui, index, snapshot);
        });
    }
}

/// A loudness as text: `-23.0 LUFS`, or `-inf LUFS` below −70 (silence, and BS.1770's
/// absolute gate).
pub fn lufs_text(lufs: Option<f32>) -> String {
    match lufs {
        Some(l) if l > -70.0 => format!("{l:.1} LUFS"),
        _ => "-inf LUFS".to_owned(),
    }
}

/// Paints a vertical peak meter: the bar (green, yellow from −12 dB, red from −3 dB),
/// the held peak as a line, and marks at 0, −6, −12, −24 and −48 dB.
fn meter(ui: &mut egui::Ui, peak: f32, held: f32, height: f32) {
    let (rect, _) = ui.allocate_exact_size(vec2(14.0, height), Sense::hover());
    let painter = ui.painter_at(rect.expand(1.0));
    let visuals = ui.visuals();
    painter.rect_filled(rect, 2.0, visuals.extreme_bg_color);
    let y_of = |fraction: f32| rect.bottom() - fraction * rect.height();
    let db_fraction = |db: f32| (db - METER_FLOOR_DB) / (METER_TOP_DB - METER_FLOOR_DB);
    let fraction = meter_fraction(peak);
    if fraction > 0.0 {
        // Three coloured segments up to the level.
        let segments = [
            (METER_FLOOR_DB, -12.0, theme::METER_SAFE),
            (-12.0, -3.0, theme::METER_LOUD),
            (-3.0, METER_TOP_DB, theme::METER_HOT),
        ];
        for (from, to, colour) in segments {
            let low = db_fraction(from);
            let high = db_fraction(to).min(fraction);
            if high > low {
                let r = Rect::from_min_max(
                    pos2(rect.left() + 1.0, y_of(high)),
                    pos2(rect.right() - 1.0, y_of(low)),
                );
                painter.rect_filled(r, 1.0, colour);
            }
        }
    }
    let held_fraction = meter_fraction(held);
    if held_fraction > 0.0 {
        let y = y_of(held_fraction);
        painter.line_segment(
            [pos2(rect.left(), y), pos2(rect.right(), y)],
            Stroke::new(1.5, visuals.strong_text_color()),
        );
    }
    for db in [0.0, -6.0, -12.0, -24.0, -48.0] {
        let y = y_of(db_fraction(db));
        let width = if db == 0.0 { 1.5 } else { 1.0 };
        painter.line_segment(
            [pos2(rect.left(), y), pos2(rect.left() + 4.0, y)],
            Stroke::new(width, visuals.weak_text_color()),
        );
    }
    painter.rect_stroke(
        rect,
        2.0,
        Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color),
        StrokeKind::Inside,
    );
}

impl Panel for MixerPanel {
    fn title(&self) -> &'static str {
        "Mixer"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let snapshot = ctx.live.mixer;
        self.hold_peaks(&snapshot, ctx.live.now.samples());
        crate::monitor::banner_row(ui, &ctx.live.monitor, commands);
        ui.horizontal_wrapped(|ui| {
            ui.label("Output:");
            if self.output.is_empty() {
                ui.weak("unknown (no engine running)");
            } else {
                ui.strong(&self.output);
            }
            ui.separator();
            ui.label(format!("{} Hz", self.sample_rate));
        });
        ui.separator();
        ui.horizontal(|ui| {
            for index in 0..STRIPS.len() {
                self.strip(ui, index, ctx, commands);
                if index + 2 == STRIPS.len() {
                    ui.separator();
                }
            }
        });
        ui.separator();
        let rate = f64::from(self.sample_rate.max(1));
        egui::Grid::new("mixer-stats")
            .num_columns(2)
            .spacing(Vec2::new(16.0, 2.0))
            .show(ui, |ui| {
                ui.label("Render load");
                ui.label(format!(
                    "{:.1} % ({:.0} µs per block)",
                    snapshot.load * 100.0,
                    snapshot.render_ns as f64 / 1000.0
                ));
                ui.end_row();
                ui.label("Voices playing");
                ui.label(snapshot.voices.to_string());
                ui.end_row();
                ui.label("Underruns");
                ui.label(snapshot.underruns.to_string());
                ui.end_row();
                ui.label("Dropped");
                ui.label(snapshot.dropped.to_string())
                    .on_hover_text("commands that found no free voice or a full ring");
                ui.end_row();
                ui.label("Clipped samples");
                ui.label(snapshot.clipped.to_string());
                ui.end_row();
                ui.label("Room reverb");
                ui.label(format!("{:.2}", snapshot.reverb));
                ui.end_row();
                ui.label("Played");
                let seconds = snapshot.position as f64 / rate;
                ui.label(format!(
                    "{}:{:04.1}",
                    (seconds / 60.0).floor(),
                    seconds % 60.0
                ));
                ui.end_row();
            });
    }
}
