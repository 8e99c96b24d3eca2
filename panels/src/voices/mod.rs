//! The Voices panel: the engine's N Box-X voice slots as rows (track, event, owners,
//! priority, group, gain, pan, elapsed) and as lanes over the last seconds, painted one
//! row per slot with time running to the right; steals, faults and refusals are marked
//! and say why on hover, and listed below with their reasons. The instance map (track →
//! objects saying it) closes the panel. A slot's Quiet button quiets its owners; a click
//! on a slot, a track or an owner selects it for the other panels. Why — on a slot, a
//! steal or a refusal (listed, or its mark on the lanes) — opens the Why panel on it.
//!
//! The lanes are drawn in `lanes`; the table, the decisions and the instance map here.

mod lanes;

use crate::{AppCommand, Panel, PanelContext, Selection, WhyTarget, file_name, pan_text, theme};
use engine_core::host::command::Command;
use engine_core::runtime::clock::SampleTime;
use engine_core::runtime::voices::WorldVoice;
use engine_core::tools::inspect::{Lane, LaneEnd, VoiceOccupant, VoiceView, WorldOccupant};
use engine_core::world::ObjectId;
use engine_core::world::director::StationView;

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

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let slots = &ctx.live.voice_slots;
        if slots.is_empty() {
            ui.label("No engine is running: play the project to see its voices here.");
            return;
        }
        let used = slots.iter().filter(|s| !s.is_free()).count();
        ui.horizontal(|ui| {
            ui.strong(format!("{used} of {} voices in use", slots.len()));
            ui.separator();
            ui.label("Lanes show the last");
            for seconds in [5, 10, 30] {
                ui.selectable_value(&mut self.window_seconds, seconds, format!("{seconds} s"));
            }
        });
        ui.separator();
        // The scroll bar always shown: this panel's height changes with every track that
        // starts or ends, and a bar that came and went would animate over several frames.
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
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
    fn seconds(&self, samples: u64) -> f64 {
        samples as f64 / f64::from(self.sample_rate.max(1))
    }

    /// The slots as rows of a table; free slots say so. Rows scrolled out of view keep
    /// their place (and the stripes their order) without their widgets: with 64 busy
    /// voices they were most of the workbench's layout.
    fn slots_table(
        &self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        let clip = ui.clip_rect();
        let row_height = ui.spacing().interact_size.y;
        egui::Grid::new("voice-slots")
            .striped(true)
            .num_columns(12)
            .spacing([12.0, 4.0])
            .show(ui, |ui| {
                // The actions next to the slot number, where a narrow pane still shows
                // them.
                for header in [
                    "Slot", "", "Track", "Event", "Owners", "Priority", "Group", "Gain", "Pan",
                    "Elapsed", "Notes", "Level",
                ] {
                    ui.strong(header);
                }
                ui.end_row();
                for view in &ctx.live.voice_slots {
                    let top = ui.cursor().top();
                    if top > clip.bottom() || top + row_height < clip.top() {
                        ui.allocate_exact_size(egui::vec2(0.0, row_height), egui::Sense::hover());
                        ui.end_row();
                        continue;
                    }
                    let selected = ctx.selection == Some(&Selection::Voice(view.slot));
                    let slot = crate::keyed(ui, ("voice slot", view.slot), |ui| {
                        ui.selectable_label(selected, view.slot.to_string())
                            .on_hover_text(format!("Select voice {}", view.slot))
                    });
                    if slot.clicked() {
                        commands.push(AppCommand::Select(Selection::Voice(view.slot)));
                    }
                    slot_actions(ui, ctx, view, commands);
                    match (&view.occupant, &view.world) {
                        (Some(o), _) => {
                            self.occupant_cells(ui, o, commands);
                            let level = ctx.live.voice_levels.get(view.slot).copied();
                            level_bar(ui, level.unwrap_or(0.0));
                        }
                        (None, Some(w)) => self.world_cells(ui, ctx, w, commands),
                        (None, None) => {
                            ui.weak("free");
                        }
                    }
                    ui.end_row();
                }
            });
    }

    fn occupant_cells(&self, ui: &mut egui::Ui, o: &VoiceOccupant, commands: &mut Vec<AppCommand>) {
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
            commands.push(AppCommand::Select(Selection::Track(
                o.track_name.to_string(),
            )));
        }
        ui.label(o.event.as_ref());
        owner_links(ui, &o.owners, commands);
        ui.label(o.priority.to_string());
        ui.label(o.group.name());
        ui.label(crate::gain_text(o.gain));
        ui.label(pan_text(o.pan.get()));
        ui.label(format!("{:.1} s", self.seconds(o.elapsed)));
        ui.label(o.live_notes.to_string());
    }

    /// A world player's row: a station (its name, its receivers as owners), the music,
    /// the load loop, the river or the ambience, with its priority; Quiet turns a
    /// station's receivers off.
    fn world_cells(
        &self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        w: &WorldOccupant,
        commands: &mut Vec<AppCommand>,
    ) {
        let station = station_of(ctx, w);
        let (name, group) = match (w.who, station) {
            (WorldVoice::Station(code), Some(s)) => (format!("station {code} ({})", s.name), "—"),
            (WorldVoice::Station(code), None) => (format!("station {code}"), "—"),
            (WorldVoice::Music, _) => ("music".to_string(), "Music"),
            (WorldVoice::LoadLoop, _) => ("load loop".to_string(), "FX"),
            (WorldVoice::River, _) => ("river".to_string(), "FX"),
            (WorldVoice::Ambience, _) => ("ambience".to_string(), "FX"),
        };
        ui.label(egui::RichText::new(name).italics())
            .on_hover_text(format!(
                "{}: a world player holding a voice slot like a track, at priority {} \
             (world.ini [Voices] {})",
                w.who,
                w.priority,
                w.who.key()
            ));
        ui.weak("world");
        let receivers = station.map_or(&[][..], |s| s.receivers.as_slice());
        if receivers.is_empty() {
            ui.weak("—");
        } else {
            owner_links(ui, receivers, commands);
        }
        ui.label(w.priority.to_string());
        ui.label(group);
        let level = station.map(|s| s.level);
        match level {
            Some((gain, pan)) => {
                ui.label(crate::gain_text(gain));
                ui.label(pan_text(pan.get()));
            }
            None => {
                ui.weak("—");
                ui.weak("—");
            }
        }
        ui.label(format!("{:.1} s", self.seconds(w.elapsed)));
        ui.weak("—");
        ui.weak("—");
    }

    /// Steals, refusals and faults of the history, newest first, with their reasons.
    fn decisions(&self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
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
            .num_columns(4)
            .show(ui, |ui| {
                for (time, entry) in entries.iter().take(DECISIONS_SHOWN) {
                    ui.monospace(format!("{:8.2} s", self.seconds(time.samples())));
                    match entry {
                        Entry::Steal(lane) => {
                            ui.colored_label(theme::STOLEN, "stolen");
                            crate::keyed(ui, ("stolen", time.samples(), lane.slot), |ui| {
                                why_button(ui, WhyTarget::Voice(lane.slot), commands);
                            });
                            ui.label(match &lane.end {
                                Some(end) => {
                                    format!("voice {}: `{}` {end}", lane.slot, lane.track_name)
                                }
                                None => format!("voice {}", lane.slot),
                            });
                        }
                        Entry::Refusal(r) => {
                            ui.colored_label(
                                ui.visuals().error_fg_color,
                                engine_core::runtime::DecisionKind::Refused.name(),
                            );
                            crate::keyed(ui, ("refused", time.samples(), &r.event), |ui| {
                                why_button(ui, WhyTarget::Event(r.event.to_string()), commands);
                            });
                            ui.label(format!(
                                "`{}` (event `{}`): {}",
                                r.track_name.as_deref().unwrap_or("?"),
                                r.event,
                                r.reason()
                            ));
                        }
                        Entry::Fault(f) => {
                            ui.colored_label(theme::FAULT, "fault");
                            ui.label("");
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
                                        commands.push(AppCommand::OpenSource {
                                            path: file.clone(),
                                            line: f.line.unwrap_or(0),
                                        });
                                    }
                                }
                                ui.label(format!(
                                    "`{}`: {}",
                                    f.track_name.as_deref().unwrap_or("?"),
                                    f.kind
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
fn instance_map(ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
    let map = &ctx.live.instances;
    let world: Vec<(usize, &WorldOccupant)> = ctx
        .live
        .voice_slots
        .iter()
        .filter_map(|v| v.world.as_ref().map(|w| (v.slot, w)))
        .collect();
    if map.is_empty() && world.is_empty() {
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
                let track = crate::keyed(ui, ("instance", entry.track), |ui| {
                    ui.selectable_label(selected, entry.track_name.as_ref())
                        .on_hover_text(format!("Track ID {}; click to select it", entry.track))
                });
                if track.clicked() {
                    commands.push(AppCommand::Select(Selection::Track(
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
            // The world's players: one copy each; a station's receivers say it.
            for (slot, w) in world {
                ui.label(egui::RichText::new(w.who.to_string()).italics())
                    .on_hover_text("A world player: it holds a voice slot like a track");
                ui.label(format!("voice {slot}"));
                let receivers = match w.who {
                    WorldVoice::Station(code) => ctx
                        .live
                        .world
                        .stations
                        .iter()
                        .find(|s| s.code == code)
                        .map_or(&[][..], |s| s.receivers.as_slice()),
                    _ => &[][..],
                };
                if receivers.is_empty() {
                    ui.weak("the world");
                } else {
                    owner_links(ui, receivers, commands);
                }
                ui.end_row();
            }
        });
}

/// A small "Why" button that opens the Why panel on `target`.
/// A slot's Quiet and Why, on every row (a free slot's Why tells what played on it last;
/// its Quiet has nothing to quiet). The buttons stay when the slot fills and empties, so
/// a voice coming or going costs one frame, not two.
fn slot_actions(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    view: &VoiceView,
    commands: &mut Vec<AppCommand>,
) {
    let (owners, hover): (&[ObjectId], String) = match (&view.occupant, &view.world) {
        (Some(o), _) if o.owners.is_empty() => (
            &[],
            "A UI sound has no object to quiet (use quietall)".into(),
        ),
        (Some(o), _) => (
            &o.owners,
            format!(
                "quiet {}: the object(s) stop saying everything they play",
                join(&o.owners)
            ),
        ),
        (None, Some(w)) => match station_of(ctx, w) {
            Some(s) if !s.receivers.is_empty() => (
                &s.receivers,
                format!(
                    "quiet {}: the receiver(s) turn off and the station goes silent",
                    join(&s.receivers)
                ),
            ),
            _ => (&[], "A world player with no receivers to quiet".into()),
        },
        (None, None) => (&[], "Nothing plays on this voice".into()),
    };
    crate::keyed(ui, ("voice actions", view.slot), |ui| {
        let quiet = ui
            .add_enabled(!owners.is_empty(), egui::Button::new("Quiet").small())
            .on_hover_text(&hover)
            .on_disabled_hover_text(&hover);
        if quiet.clicked() {
            for owner in owners {
                commands.push(AppCommand::Run(Command::Quiet(*owner)));
            }
        }
        why_button(ui, WhyTarget::Voice(view.slot), commands);
        crate::monitor::toggles(
            ui,
            &ctx.live.monitor,
            engine_core::sound::server::MonitorTarget::Voice(view.slot),
            commands,
        );
    });
}

/// A slot's level as a small horizontal meter (green, yellow from −12 dB, red from
/// −3 dB), its dB on hover.
fn level_bar(ui: &mut egui::Ui, level: f32) {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(64.0, 10.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let fraction = crate::mixer::meter_fraction(level);
    if fraction > 0.0 {
        let db = crate::mixer::to_db(level);
        let colour = if db >= -3.0 {
            theme::METER_HOT
        } else if db >= -12.0 {
            theme::METER_LOUD
        } else {
            theme::METER_SAFE
        };
        let mut bar = rect;
        bar.set_width(rect.width() * fraction);
        painter.rect_filled(bar, 2.0, colour);
    }
    response
        .on_hover_text(format!("level {}", crate::mixer::db_text(level)))
        .widget_info(|| {
            egui::WidgetInfo::labeled(
                egui::Role::Meter,
                true,
                format!("level {}", crate::mixer::db_text(level)),
            )
        });
}

/// The station a world player is, if it is one.
fn station_of<'a>(ctx: &'a PanelContext<'_>, w: &WorldOccupant) -> Option<&'a StationView> {
    match w.who {
        WorldVoice::Station(code) => ctx.live.world.stations.iter().find(|s| s.code == code),
        _ => None,
    }
}

fn why_button(ui: &mut egui::Ui, target: WhyTarget, commands: &mut Vec<AppCommand>) {
    if ui
        .add(egui::Button::new("Why").small())
        .on_hover_text(format!("Why: the decisions about {}", target.describe()))
        .clicked()
    {
        commands.push(AppCommand::Why(target));
    }
}

/// Owners as `@7` links that select the object; "UI" when there are none.
fn owner_links(ui: &mut egui::Ui, owners: &[ObjectId], commands: &mut Vec<AppCommand>) {
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
                commands.push(AppCommand::Select(Selection::Object(*owner)));
            }
        }
    });
}

fn join(owners: &[ObjectId]) -> String {
    owners
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pan_reads_minus_one_to_one() {
        assert_eq!(pan_text(0.0), "0.00");
        assert_eq!(pan_text(-0.5), "-0.50");
        assert_eq!(pan_text(0.25), "+0.25");
    }
}
