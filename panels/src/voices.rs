//! The Voices panel: the engine's N Box-X voice slots as rows (track, event, owners,
//! priority, group, gain, pan, elapsed) and as lanes over the last seconds, painted one
//! row per slot with time running to the right; steals, faults and refusals are marked
//! and say why on hover, and listed below with their reasons. The instance map (track →
//! objects saying it) closes the panel. A slot's Quiet button quiets its owners; a click
//! on a slot, a track or an owner selects it for the other panels.

use crate::{Command, Panel, PanelContext, Selection};
use engine_core::runtime::clock::SampleTime;
use engine_core::tools::inspect::{Lane, LaneEnd, VoiceOccupant};
use engine_core::world::ObjectId;

/// The engine's sample rate when the snapshot does not say (it does not today).
const DEFAULT_RATE: u32 = 48_000;
/// Height of one slot's lane.
const LANE_HEIGHT: f32 = 16.0;
/// Width of the slot numbers left of the lanes.
const GUTTER: f32 = 50.0;
/// Height of the time axis under the lanes.
const AXIS_HEIGHT: f32 = 16.0;
/// How many steals, refusals and faults the decisions list shows (newest first).
const DECISIONS_SHOWN: usize = 200;

/// UI state of the Voices panel.
#[derive(Debug, Clone)]
pub struct VoicesPanel {
    /// How many seconds of history the lanes show (up to the 30 the engine keeps).
    pub window_seconds: u32,
    /// The engine clock's sample rate, to turn sample times into seconds.
    pub sample_rate: u32,
}

impl Default for VoicesPanel {
    fn default() -> Self {
        Self {
            window_seconds: 10,
            sample_rate: DEFAULT_RATE,
        }
    }
}

impl Panel for VoicesPanel {
    fn title(&self) -> &'static str {
        "Voices"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let slots = &ctx.live.voice_slots;
        if slots.is_empty() {
            ui.label("No engine is running: play the project to see its voices here.");
            return;
        }
        let used = slots.iter().filter(|s| s.occupant.is_some()).count();
        ui.horizontal(|ui| {
            ui.strong(format!("{used} of {} voices in use", slots.len()));
            ui.separator();
            ui.label("Lanes show the last");
            for seconds in [5, 10, 30] {
                ui.selectable_value(&mut self.window_seconds, seconds, format!("{seconds} s"));
            }
        });
        ui.separator();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::CollapsingHeader::new("Slots")
                    .default_open(true)
                    .show(ui, |ui| self.slots_table(ui, ctx, commands));
                egui::CollapsingHeader::new(format!("Lanes: the last {} s", self.window_seconds))
                    .default_open(true)
                    .show(ui, |ui| self.lanes(ui, ctx, commands));
                egui::CollapsingHeader::new("Steals, refusals and faults")
                    .default_open(true)
                    .show(ui, |ui| self.decisions(ui, ctx, commands));
                egui::CollapsingHeader::new("Instance map")
                    .default_open(true)
                    .show(ui, |ui| instance_map(ui, ctx, commands));
            });
    }
}

impl VoicesPanel {
    fn seconds(&self, samples: SampleTime) -> f64 {
        samples as f64 / f64::from(self.sample_rate.max(1))
    }

    /// The slots as rows of a table; free slots say so.
    fn slots_table(&self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        egui::Grid::new("voice-slots")
            .striped(true)
            .num_columns(11)
            .spacing([12.0, 4.0])
            .show(ui, |ui| {
                for header in [
                    "Slot", "Track", "Event", "Owners", "Priority", "Group", "Gain", "Pan",
                    "Elapsed", "Notes", "",
                ] {
                    ui.strong(header);
                }
                ui.end_row();
                for view in &ctx.live.voice_slots {
                    let selected = ctx.selection == Some(&Selection::Voice(view.slot));
                    if ui
                        .selectable_label(selected, view.slot.to_string())
                        .on_hover_text(format!("Select voice {}", view.slot))
                        .clicked()
                    {
                        commands.push(Command::Select(Selection::Voice(view.slot)));
                    }
                    match &view.occupant {
                        None => {
                            ui.weak("free");
                        }
                        Some(o) => self.occupant_cells(ui, o, commands),
                    }
                    ui.end_row();
                }
            });
    }

    fn occupant_cells(&self, ui: &mut egui::Ui, o: &VoiceOccupant, commands: &mut Vec<Command>) {
        let track = if o.finished {
            format!("{} (notes ending)", o.track_name)
        } else {
            o.track_name.to_string()
        };
        if ui
            .link(track)
            .on_hover_text(format!(
                "Track {} (ID {}), thread {}; click to select the track",
                o.track_name, o.track, o.thread
            ))
            .clicked()
        {
            commands.push(Command::Select(Selection::Track(o.track_name.to_string())));
        }
        ui.label(o.event.as_ref());
        owner_links(ui, &o.owners, commands);
        ui.label(o.priority.to_string());
        ui.label(o.group.name());
        ui.label(format!("{:.2}", o.gain))
            .on_hover_text(format!("{:.1} dB", 20.0 * o.gain.max(1e-6).log10()));
        ui.label(pan_text(o.pan));
        ui.label(format!("{:.1} s", self.seconds(o.elapsed)));
        ui.label(o.live_notes.to_string());
        let quiet = ui
            .add_enabled(!o.owners.is_empty(), egui::Button::new("Quiet").small())
            .on_hover_text(if o.owners.is_empty() {
                "A UI sound has no object to quiet (use quietall)".to_string()
            } else {
                format!(
                    "quiet {}: the object(s) stop saying everything they play",
                    join(&o.owners)
                )
            });
        if quiet.clicked() {
            for owner in &o.owners {
                commands.push(Command::RunLine(format!("quiet {owner}")));
            }
        }
    }

    /// One painted row per slot: each track's time on it as a coloured bar, how it left
    /// marked at its end; refusals on a row of their own.
    fn lanes(&self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let history = &ctx.live.history;
        let now = ctx.live.now;
        let count = ctx.live.voice_slots.len();
        let window = u64::from(self.window_seconds) * u64::from(self.sample_rate);
        let start = now.saturating_sub(window);
        let width = ui.available_width().max(GUTTER + 100.0);
        let height = (count + 1) as f32 * LANE_HEIGHT + AXIS_HEIGHT;
        let (rect, canvas) =
            ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::click());
        canvas.widget_info(|| {
            egui::WidgetInfo::labeled(egui::accesskit::Role::Image, true, "Voice lanes")
        });
        let painter = ui.painter_at(rect);
        let visuals = ui.visuals().clone();
        let left = rect.left() + GUTTER;
        let right = rect.right() - 4.0;
        let span = (right - left).max(1.0);
        let x_of = |t: SampleTime| -> f32 {
            let t = t.clamp(start, now.max(start));
            left + span * ((t - start) as f32 / window.max(1) as f32)
        };
        let row_rect = |row: usize| {
            let top = rect.top() + row as f32 * LANE_HEIGHT;
            egui::Rect::from_min_max(
                egui::pos2(left, top + 1.0),
                egui::pos2(right, top + LANE_HEIGHT - 1.0),
            )
        };
        let small = egui::FontId::proportional(10.0);
        // Rows and slot numbers.
        for row in 0..=count {
            let r = row_rect(row);
            let selected = row < count && ctx.selection == Some(&Selection::Voice(row));
            let fill = if selected {
                visuals.selection.bg_fill.gamma_multiply(0.5)
            } else if row % 2 == 0 {
                visuals.faint_bg_color
            } else {
                visuals.extreme_bg_color
            };
            painter.rect_filled(r, 0.0, fill);
            let label = if row < count {
                row.to_string()
            } else {
                "refused".to_string()
            };
            painter.text(
                egui::pos2(left - 4.0, r.center().y),
                egui::Align2::RIGHT_CENTER,
                label,
                small.clone(),
                visuals.weak_text_color(),
            );
        }
        // Time grid and axis.
        let step = match self.window_seconds {
            0..=10 => 1,
            11..=20 => 2,
            _ => 5,
        };
        let axis_y = rect.top() + (count + 1) as f32 * LANE_HEIGHT;
        for back in (0..=self.window_seconds).step_by(step) {
            let x = right - span * back as f32 / self.window_seconds.max(1) as f32;
            painter.vline(
                x,
                rect.top()..=axis_y,
                egui::Stroke::new(1.0, visuals.weak_text_color().gamma_multiply(0.25)),
            );
            let align = if back == 0 {
                egui::Align2::RIGHT_TOP
            } else if back == self.window_seconds {
                egui::Align2::LEFT_TOP
            } else {
                egui::Align2::CENTER_TOP
            };
            painter.text(
                egui::pos2(x, axis_y + 2.0),
                align,
                if back == 0 {
                    "now".to_string()
                } else {
                    format!("-{back} s")
                },
                small.clone(),
                visuals.weak_text_color(),
            );
        }
        // Bars.
        let mut bars: Vec<(egui::Rect, &Lane)> = Vec::new();
        for lane in history.lanes() {
            let end = lane.ended_at.unwrap_or(now);
            if end < start || lane.slot >= count {
                continue;
            }
            let r = row_rect(lane.slot);
            let x0 = x_of(lane.started_at);
            let x1 = x_of(end).max(x0 + 2.0);
            let bar = egui::Rect::from_min_max(
                egui::pos2(x0, r.top() + 1.0),
                egui::pos2(x1, r.bottom() - 1.0),
            );
            let color = track_color(&lane.track_name);
            painter.rect_filled(bar, 2.0, color);
            let text = ui.painter().layout_no_wrap(
                lane.track_name.to_string(),
                small.clone(),
                egui::Color32::BLACK,
            );
            if text.size().x + 6.0 < bar.width() {
                painter.with_clip_rect(bar.intersect(rect)).galley(
                    egui::pos2(bar.left() + 3.0, bar.center().y - text.size().y / 2.0),
                    text,
                    egui::Color32::BLACK,
                );
            }
            bars.push((bar, lane));
        }
        // Marks at the ends of bars: steals, faults, quiets, kills, interrupts.
        let mut marker_hovered = false;
        for (bar, lane) in &bars {
            let Some(end) = &lane.end else {
                continue;
            };
            let x = bar.right();
            let (color, notch) = match end {
                LaneEnd::Stolen { .. } => (egui::Color32::from_rgb(230, 40, 40), true),
                LaneEnd::Faulted { .. } => (egui::Color32::from_rgb(255, 140, 0), true),
                LaneEnd::Quieted { .. } | LaneEnd::Killed { .. } => {
                    (egui::Color32::from_gray(40), false)
                }
                LaneEnd::Interrupted { .. } => (egui::Color32::from_rgb(230, 200, 40), false),
                LaneEnd::Finished | LaneEnd::Ended => continue,
            };
            painter.vline(x, bar.y_range(), egui::Stroke::new(2.0, color));
            if !notch {
                continue;
            }
            let top = bar.top() - 1.0;
            painter.add(egui::Shape::convex_polygon(
                vec![
                    egui::pos2(x - 4.0, top),
                    egui::pos2(x + 4.0, top),
                    egui::pos2(x, top + 6.0),
                ],
                color,
                egui::Stroke::NONE,
            ));
            let what = format!(
                "voice {}: `{}` {} at {:.2} s",
                lane.slot,
                lane.track_name,
                end,
                self.seconds(lane.ended_at.unwrap_or(now))
            );
            let hit = egui::Rect::from_center_size(
                egui::pos2(x, bar.center().y),
                egui::vec2(8.0, LANE_HEIGHT),
            );
            let id = ui.scope_id().with(("lane-end", lane.slot, lane.started_at));
            let response = ui.interact(hit, id, egui::Sense::hover());
            response.widget_info(|| {
                egui::WidgetInfo::labeled(egui::accesskit::Role::Image, true, &what)
            });
            marker_hovered |= response.hovered();
            response.on_hover_text(what);
        }
        // Refusals.
        let refused = row_rect(count);
        for (index, refusal) in history.refusals().iter().enumerate() {
            if refusal.time < start {
                continue;
            }
            let x = x_of(refusal.time);
            let c = egui::pos2(x, refused.center().y);
            let color = visuals.error_fg_color;
            painter.add(egui::Shape::convex_polygon(
                vec![
                    egui::pos2(c.x - 5.0, c.y - 5.0),
                    egui::pos2(c.x + 5.0, c.y - 5.0),
                    egui::pos2(c.x, c.y + 5.0),
                ],
                color,
                egui::Stroke::NONE,
            ));
            let what = format!(
                "refused `{}` (event `{}`{}) at {:.2} s: {}",
                refusal.track_name.as_deref().unwrap_or("?"),
                refusal.event,
                refusal
                    .object
                    .map(|o| format!(", object {o}"))
                    .unwrap_or_default(),
                self.seconds(refusal.time),
                refusal.reason
            );
            let id = ui.scope_id().with(("refusal", index, refusal.time));
            let hit = egui::Rect::from_center_size(c, egui::vec2(10.0, LANE_HEIGHT));
            let response = ui.interact(hit, id, egui::Sense::hover());
            response.widget_info(|| {
                egui::WidgetInfo::labeled(egui::accesskit::Role::Image, true, &what)
            });
            marker_hovered |= response.hovered();
            response.on_hover_text(what);
        }
        // Hovering a bar tells its story; a click on a row selects the slot.
        let pointer = canvas.hover_pos();
        if !marker_hovered
            && let Some(pos) = pointer
            && let Some((_, lane)) = bars.iter().rev().find(|(bar, _)| bar.contains(pos))
        {
            let story = self.lane_story(lane, now);
            canvas.clone().on_hover_ui_at_pointer(|ui| {
                ui.label(story);
            });
        }
        ui.weak(
            "Red notch: stolen; orange notch: faulted; yellow line: interrupted; dark line: \
             quieted or killed; red marks on the last row: refused. Hover a bar or a mark for \
             why; click a row to select its voice.",
        );
        if canvas.clicked()
            && let Some(pos) = canvas.interact_pointer_pos()
        {
            let row = ((pos.y - rect.top()) / LANE_HEIGHT).floor();
            if row >= 0.0 && (row as usize) < count {
                commands.push(Command::Select(Selection::Voice(row as usize)));
            }
        }
    }

    /// What a lane's tooltip says.
    fn lane_story(&self, lane: &Lane, now: SampleTime) -> String {
        let from = match lane.object {
            Some(o) => format!("object {o}"),
            None => "the UI".to_string(),
        };
        let end = lane.ended_at.unwrap_or(now);
        let held = self.seconds(end.saturating_sub(lane.started_at));
        let how = match &lane.end {
            Some(how) => format!("{how} at {:.2} s", self.seconds(end)),
            None => "still playing".to_string(),
        };
        format!(
            "voice {}: `{}` (event `{}`, from {from})\nfrom {:.2} s, {held:.1} s\n{how}",
            lane.slot,
            lane.track_name,
            lane.event,
            self.seconds(lane.started_at)
        )
    }

    /// Steals, refusals and faults of the history, newest first, with their reasons.
    fn decisions(&self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let history = &ctx.live.history;
        enum Entry<'a> {
            Steal(&'a Lane),
            Refusal(&'a engine_core::tools::inspect::Refusal),
            Fault(&'a engine_core::tools::inspect::FaultView),
        }
        let mut entries: Vec<(SampleTime, Entry<'_>)> = Vec::new();
        for lane in history.lanes() {
            if let (Some(LaneEnd::Stolen { .. }), Some(at)) = (&lane.end, lane.ended_at) {
                entries.push((at, Entry::Steal(lane)));
            }
        }
        entries.extend(
            history
                .refusals()
                .iter()
                .map(|r| (r.time, Entry::Refusal(r))),
        );
        entries.extend(history.faults().iter().map(|f| (f.time, Entry::Fault(f))));
        if entries.is_empty() {
            ui.weak("No steals, refusals or faults in the last 30 s.");
            return;
        }
        entries.sort_by_key(|(time, _)| std::cmp::Reverse(*time));
        egui::Grid::new("voice-decisions")
            .striped(true)
            .num_columns(3)
            .show(ui, |ui| {
                for (time, entry) in entries.iter().take(DECISIONS_SHOWN) {
                    ui.monospace(format!("{:8.2} s", self.seconds(*time)));
                    match entry {
                        Entry::Steal(lane) => {
                            ui.colored_label(egui::Color32::from_rgb(230, 40, 40), "stolen");
                            if let Some(end) = &lane.end {
                                ui.label(format!(
                                    "voice {}: `{}` {end}",
                                    lane.slot, lane.track_name
                                ));
                            }
                        }
                        Entry::Refusal(r) => {
                            ui.colored_label(ui.visuals().error_fg_color, "refused");
                            ui.label(format!(
                                "`{}` (event `{}`): {}",
                                r.track_name.as_deref().unwrap_or("?"),
                                r.event,
                                r.reason
                            ));
                        }
                        Entry::Fault(f) => {
                            ui.colored_label(egui::Color32::from_rgb(255, 140, 0), "fault");
                            ui.horizontal(|ui| {
                                if let Some(file) = &f.file {
                                    let place = match f.line {
                                        Some(line) => format!("{}:{line}", file_name(file)),
                                        None => file_name(file),
                                    };
                                    if ui
                                        .link(place)
                                        .on_hover_text(file.display().to_string())
                                        .clicked()
                                    {
                                        commands.push(Command::OpenSource {
                                            path: file.clone(),
                                            line: f.line.unwrap_or(0),
                                        });
                                    }
                                }
                                ui.label(format!(
                                    "`{}`: {}",
                                    f.track_name.as_deref().unwrap_or("?"),
                                    crate::threads::fault_what(&f.message)
                                ))
                                .on_hover_text(&f.message);
                            });
                        }
                    }
                    ui.end_row();
                }
            });
    }
}

/// The instance map: each track playing, the slots of its copies and the objects saying
/// it (each selectable).
fn instance_map(ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
    let map = &ctx.live.instances;
    if map.is_empty() {
        ui.weak("No track is playing.");
        return;
    }
    egui::Grid::new("instance-map")
        .striped(true)
        .num_columns(3)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            ui.strong("Track");
            ui.strong("Copies");
            ui.strong("Objects saying it");
            ui.end_row();
            for entry in map {
                let selected =
                    ctx.selection == Some(&Selection::Track(entry.track_name.to_string()));
                if ui
                    .selectable_label(selected, entry.track_name.as_ref())
                    .on_hover_text(format!("Track ID {}; click to select it", entry.track))
                    .clicked()
                {
                    commands.push(Command::Select(Selection::Track(
                        entry.track_name.to_string(),
                    )));
                }
                let copies: Vec<String> = entry
                    .copies
                    .iter()
                    .map(|c| format!("voice {} (`{}`)", c.voice, c.event))
                    .collect();
                ui.label(copies.join(", "));
                owner_links(ui, &entry.owners, commands);
                ui.end_row();
            }
        });
}

/// Owners as `@7` links that select the object; "UI" when there are none.
fn owner_links(ui: &mut egui::Ui, owners: &[ObjectId], commands: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        if owners.is_empty() {
            ui.weak("UI");
        }
        for owner in owners {
            if ui
                .link(format!("@{owner}"))
                .on_hover_text(format!("Select object {owner}"))
                .clicked()
            {
                commands.push(Command::Select(Selection::Object(*owner)));
            }
        }
    });
}

/// A track's lane colour: a hue from its name, the same every run.
fn track_color(name: &str) -> egui::Color32 {
    // FNV-1a: stable across runs and Rust versions.
    let mut hash: u32 = 0x811c_9dc5;
    for byte in name.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    let hue = (hash % 360) as f32 / 360.0;
    egui::ecolor::Hsva::new(hue, 0.45, 0.85, 1.0).into()
}

fn pan_text(pan: f32) -> String {
    if pan.abs() < 0.005 {
        "C".to_string()
    } else if pan < 0.0 {
        format!("L {:.2}", -pan)
    } else {
        format!("R {pan:.2}")
    }
}

fn join(owners: &[ObjectId]) -> String {
    owners
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pan_reads_left_centre_right() {
        assert_eq!(pan_text(0.0), "C");
        assert_eq!(pan_text(-0.5), "L 0.50");
        assert_eq!(pan_text(0.25), "R 0.25");
    }

    #[test]
    fn track_colours_are_stable() {
        assert_eq!(track_color("music_a"), track_color("music_a"));
        assert_ne!(track_color("music_a"), track_color("vox_greet"));
    }
}
