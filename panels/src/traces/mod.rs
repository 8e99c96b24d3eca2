//! The Traces panel: every trace record (events, samples and tracks while their engine
//! switch is on; voice decisions, picks, hooks, prints, errors, reloads and the world
//! always), filtered by kind, by decision (started, stole, refused, … — each kind of
//! decision by its one word, `DecisionKind::name`), text, object and track, in a virtualised list that stays
//! smooth with a million records. It follows the newest record or pauses; a click selects
//! a record's voice, object or track; Why (a row's context menu, or beside Export for the
//! selected row) opens the Why panel on a record's trigger; the filtered records can be
//! exported to a text file.
//!
//! Filtering a million records every frame is too slow, so the panel keeps an index of
//! the matching records and only looks at the records appended since the last frame; the
//! index is rebuilt when the filter changes.

use crate::{AppCommand, Panel, PanelContext, Selection, WhyTarget, theme};
use engine_core::host::command::{Command, TraceTarget as Target};
use engine_core::runtime::DecisionKind;
use engine_core::runtime::{TraceKind, TraceRecord};
use filter::{DECISIONS, Index, KINDS};
pub use filter::{TraceFilter, TraceMatcher};
use std::path::{Path, PathBuf};
use std::time::Duration;

mod filter;

/// The sample rate record times are divided by when the engine's is not known.
pub const DEFAULT_RATE: u32 = 48_000;

/// How long one frame may spend indexing records, by default: what the 8 ms frame has
/// left beside the rest of the workbench's layout and its tessellation.
pub const DEFAULT_INDEX_BUDGET: Duration = Duration::from_millis(3);

/// How long one frame may spend indexing records when a software renderer paints the
/// window: its paint takes about 5 ms of the 8 and the rest of the frame 1.5 (`hitbench
/// bench ui`); this is what is left beside the indexing's own overhead. A new filter is
/// tested from the newest record back, so the rows a list following the newest shows are
/// there at once; the older ones fill in over the next frames.
pub const SOFTWARE_INDEX_BUDGET: Duration = Duration::from_micros(500);

/// UI state of the Traces panel.
#[derive(Debug)]
pub struct TracesPanel {
    /// The engine's switches as the live snapshot last reported them.
    live_switches: Option<engine_core::runtime::TraceSwitches>,
    /// The engine's event trace, as last switched from here.
    pub events: bool,
    /// The engine's sample trace, as last switched from here.
    pub samples: bool,
    /// The engine's track trace, as last switched from here.
    pub tracks: bool,
    /// Which records are shown.
    pub filter: TraceFilter,
    /// The object filter as typed (an object id, `@` optional).
    pub object: String,
    /// Keep the newest record in view (false: paused, the list does not move).
    pub follow: bool,
    /// The file the Export button writes (empty: `trace.txt` in the project folder;
    /// relative paths are relative to the project folder).
    pub export_path: String,
    /// The engine's sample rate, to show record times in seconds.
    pub sample_rate: u32,
    /// How long one frame may spend testing records against a new filter; a million
    /// records are indexed over several frames, so that the window stays responsive.
    pub index_budget: Duration,
    /// The record clicked last (its number among all records received).
    selected: Option<u64>,
    /// While paused: one past the number of the last record shown.
    frozen: Option<u64>,
    /// Scroll to the newest record on the next frame (follow was switched on).
    jump: bool,
    /// The list's largest scroll offset on the last frame.
    list_end: f32,
    /// On the last frame: the rows shown, the list's visible height, and whether it was
    /// scrolled to its end.
    last_rows: (usize, f32, bool),
    index: Index,
}

impl Default for TracesPanel {
    fn default() -> Self {
        Self {
            live_switches: None,
            events: false,
            samples: false,
            tracks: false,
            filter: TraceFilter::default(),
            object: String::new(),
            follow: true,
            export_path: String::new(),
            sample_rate: DEFAULT_RATE,
            index_budget: DEFAULT_INDEX_BUDGET,
            selected: None,
            frozen: None,
            jump: false,
            list_end: 0.0,
            last_rows: (0, 0.0, true),
            index: Index::default(),
        }
    }
}

impl TracesPanel {
    /// How many records pass the filter (in the whole trace, paused or not), as of the
    /// last frame drawn.
    pub fn matching(&self) -> usize {
        self.index.rows.len()
    }

    /// Whether records are still being tested against the filter (over several frames).
    pub fn indexing(&self) -> bool {
        !self.index.complete()
    }

    /// The file Export writes, for a project in `root`.
    pub fn export_file(&self, root: &Path) -> PathBuf {
        let typed = self.export_path.trim();
        if typed.is_empty() {
            root.join("trace.txt")
        } else {
            root.join(typed)
        }
    }

    fn switches(&mut self, ui: &mut egui::Ui, commands: &mut Vec<AppCommand>) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Engine traces:");
            for (target, on, what) in [
                (
                    Target::Events,
                    &mut self.events,
                    "each event as it is triggered",
                ),
                (
                    Target::Samples,
                    &mut self.samples,
                    "each sample as it starts",
                ),
                (
                    Target::Tracks,
                    &mut self.tracks,
                    "each track as it starts and ends",
                ),
            ] {
                let name = target.to_string();
                let label = format!("{}{}", name[..1].to_uppercase(), &name[1..]);
                let state = if *on { "on" } else { "off" };
                if ui
                    .checkbox(on, label)
                    .on_hover_text(format!("Record {what} (trace {name} on|off; now {state})"))
                    .changed()
                {
                    let on = *on;
                    commands.push(AppCommand::Run(Command::Trace { target, on }));
                }
            }
            ui.weak("Voice decisions, picks, hooks and errors are always recorded.");
        });
    }

    fn kinds(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Kinds:");
            for (i, kind) in TraceKind::ALL.iter().enumerate() {
                let count = self.index.counts[i];
                ui.checkbox(
                    &mut self.filter.kinds[i],
                    format!("{} ({})", kind.name(), thousands(count as u64)),
                );
            }
            if ui.small_button("all").clicked() {
                self.filter.kinds = [true; KINDS];
            }
            if ui.small_button("none").clicked() {
                self.filter.kinds = [false; KINDS];
            }
        });
    }

    /// The decision filter: a menu with a box for each kind of decision, named by its
    /// word; ticked ones show only the records that decided so. Its button says which.
    fn decisions(&mut self, ui: &mut egui::Ui) {
        let ticked: Vec<&str> = self
            .filter
            .decisions
            .iter()
            .zip(DecisionKind::ALL)
            .filter(|(on, _)| **on)
            .map(|(_, kind)| kind.name())
            .collect();
        let title = if ticked.is_empty() {
            "Decisions: any".to_string()
        } else {
            format!("Decisions: {}", ticked.join(", "))
        };
        let config = egui::containers::menu::MenuConfig::new()
            .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
        egui::containers::menu::MenuButton::new(title)
            .config(config)
            .ui(ui, |ui| {
                for (on, kind) in self.filter.decisions.iter_mut().zip(DecisionKind::ALL) {
                    ui.checkbox(on, kind.name());
                }
                ui.separator();
                let any = egui::Button::new("any");
                if ui.add_enabled(self.filter.by_decision(), any).clicked() {
                    self.filter.decisions = [false; DECISIONS];
                }
            })
            .0
            .on_hover_text("Show only the records that decided so (none ticked: every record)");
    }

    fn filters(&mut self, ui: &mut egui::Ui, end: u64) {
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Text:");
            ui.add(
                egui::TextEdit::singleline(&mut self.filter.text)
                    .hint_text("message, event or track")
                    .desired_width(160.0),
            )
            .labelled_by(label.id);
            let label = ui.label("Object:");
            ui.add(
                egui::TextEdit::singleline(&mut self.object)
                    .hint_text("id")
                    .desired_width(48.0),
            )
            .labelled_by(label.id);
            let typed = self.object.trim().trim_start_matches('@');
            self.filter.object = typed.parse().ok();
            // The mark's place is kept while the id is fine: the fields after it stay put.
            let size = egui::vec2(10.0, ui.spacing().interact_size.y);
            if !typed.is_empty() && self.filter.object.is_none() {
                let mark = egui::RichText::new("?").color(ui.visuals().error_fg_color);
                ui.add_sized(size, egui::Label::new(mark))
                    .on_hover_text("Not an object id: the object filter is off");
            } else {
                ui.allocate_exact_size(size, egui::Sense::hover());
            }
            let label = ui.label("Track:");
            ui.add(
                egui::TextEdit::singleline(&mut self.filter.track)
                    .hint_text("name")
                    .desired_width(100.0),
            )
            .labelled_by(label.id);
            ui.separator();
            let was = self.follow;
            ui.selectable_value(&mut self.follow, true, "Follow")
                .on_hover_text("Keep the newest record in view");
            ui.selectable_value(&mut self.follow, false, "Pause")
                .on_hover_text("Freeze the list; new records are counted, not shown");
            if self.follow != was {
                self.frozen = (!self.follow).then_some(end);
                self.jump = self.follow;
            }
            // Last in the row: its title grows with what is ticked and moves nothing.
            ui.separator();
            self.decisions(ui);
        });
    }

    fn export(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        // Wrapped: in a narrow pane the selection's Why goes to the next line rather
        // than off the edge.
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Export to:");
            ui.add(
                egui::TextEdit::singleline(&mut self.export_path)
                    .hint_text("trace.txt (in the project folder)")
                    .desired_width(220.0),
            )
            .labelled_by(label.id);
            let file = self.export_file(ctx.project.root());
            if ui
                .button("Export")
                .on_hover_text(format!(
                    "Write the records that pass the filter to {}, one per line",
                    file.display()
                ))
                .clicked()
            {
                commands.push(AppCommand::ExportTrace {
                    path: file,
                    filter: self.filter.clone(),
                });
            }
            if let Some(selection) = ctx.selection {
                ui.separator();
                ui.label(format!("Selected: {}", describe_selection(selection)));
            }
            let at = |n: u64| {
                ctx.trace
                    .get(usize::try_from(n.checked_sub(ctx.trace_dropped)?).ok()?)
            };
            if let Some(n) = self
                .selected
                .filter(|n| at(*n).is_some_and(|r| r.event.is_some()))
            {
                ui.separator();
                why_button(ui, n, commands);
            }
        });
    }
}

impl TracesPanel {
    /// The trace shown was replaced by another (a capture opened or closed): no record
    /// of the one before stays selected, and the list follows the newest again.
    pub fn trace_replaced(&mut self) {
        self.selected = None;
        self.frozen = None;
        self.follow = true;
        self.jump = true;
    }

    /// The rows: the first `shown` of the index, following the newest or frozen.
    fn list(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
        shown: usize,
        end: u64,
    ) {
        let (trace, dropped) = (ctx.trace, ctx.trace_dropped);
        let rows = &self.index.rows;
        let row_height = ui.spacing().interact_size.y;
        // No rubber band past the ends: with it, an offset set to the end of a list that
        // grew this frame is taken for an overscroll and springs back over many frames.
        ui.spacing_mut().scroll.kinetic.rubber_band = false;
        let mut area = egui::ScrollArea::vertical()
            .id_salt("trace rows")
            .auto_shrink([false, false])
            .stick_to_bottom(self.follow);
        if self.follow && self.jump {
            // Step to the end the list had last frame (the scroll physics clamp to it),
            // until the list is at its end and sticks there.
            area = area.vertical_scroll_offset(self.list_end.max(0.0));
            ui.ctx().request_repaint();
        } else if self.follow && self.last_rows.2 && shown != self.last_rows.0 {
            // New rows while at the end: scroll to them in this frame (the scroll area
            // would stick to the end only on the next one, and a window at rest paints
            // no next one until more news comes).
            let spacing = ui.spacing().item_spacing.y;
            let content = shown as f32 * (row_height + spacing) - spacing;
            area = area.vertical_scroll_offset((content - self.last_rows.1).max(0.0));
        }
        let rate = f64::from(self.sample_rate.max(1));
        let selected = &mut self.selected;
        let root = ctx.project.root();
        let mut clicked = false;
        let output = area.show_rows(ui, row_height, shown, |ui, range| {
            for n in rows.range(range) {
                let Some(record) = n.checked_sub(dropped).and_then(|i| trace.get(i as usize))
                else {
                    continue;
                };
                clicked |= row(ui, *n, record, rate, root, selected, commands);
            }
        });
        // A click on a row stops the list running away from it.
        if clicked && self.follow {
            self.follow = false;
            self.frozen = Some(end);
        }
        self.list_end = output.content_size.y - output.inner_rect.height();
        self.last_rows = (
            shown,
            output.inner_rect.height(),
            output.state.clamped_offset().y >= self.list_end - 0.5,
        );
        if self.jump && output.state.clamped_offset().y >= self.list_end - 0.5 {
            self.jump = false;
        }
        // Scrolling up while following pauses.
        let scrolled_up = ui.input(|i| {
            i.events
                .iter()
                .any(|e| matches!(e, egui::Event::MouseWheel { delta, .. } if delta.y > 0.0))
                && i.pointer
                    .hover_pos()
                    .is_some_and(|p| output.inner_rect.contains(p))
        });
        if self.follow && scrolled_up {
            self.follow = false;
            self.frozen = Some(end);
        }
    }
}

impl Panel for TracesPanel {
    fn title(&self) -> &'static str {
        "Traces"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let trace = ctx.trace;
        let dropped = ctx.trace_dropped;
        let end = dropped + trace.len() as u64;
        let live = ctx.live.trace_switches;
        if self.live_switches != Some(live) {
            // The engine's switches changed (here, from the console or a script):
            // show them as they are.
            self.live_switches = Some(live);
            self.events = live.events;
            self.samples = live.samples;
            self.tracks = live.tracks;
        }
        match ctx.capture {
            Some(view) => {
                ui.label(format!(
                    "The capture's records up to {:.3} s (every trace was on while capturing).",
                    view.seconds(view.at)
                ));
            }
            None => self.switches(ui, commands),
        }
        // The counts above the list are of the records as they are now (this frame may
        // be the only one painted for them); a filter changed below is indexed again.
        // Both share the frame's budget: with the filter as it was and the budget spent,
        // the rest waits for the next frame.
        let start = std::time::Instant::now();
        let mut indexed = self.index.update(
            trace,
            dropped,
            ctx.trace_epoch,
            &self.filter,
            self.index_budget,
        );
        self.kinds(ui);
        self.filters(ui, end);
        self.export(ui, ctx, commands);
        let left = self.index_budget.saturating_sub(start.elapsed());
        if !left.is_zero() || self.index.filter.as_ref() != Some(&self.filter) {
            indexed = self
                .index
                .update(trace, dropped, ctx.trace_epoch, &self.filter, left);
        }
        if !indexed {
            ui.ctx().request_repaint();
        }

        // While paused, the rows after the pause are counted but not shown.
        let rows = &self.index.rows;
        let shown = match self.frozen {
            Some(frozen) if !self.follow => rows.partition_point(|&n| n < frozen),
            _ => rows.len(),
        };
        ui.horizontal(|ui| {
            ui.label(format!(
                "Showing {} of {} record(s)",
                thousands(shown as u64),
                thousands(trace.len() as u64)
            ));
            if !indexed {
                ui.weak(format!("filtering… {:.0}%", 100.0 * self.index.progress()));
            }
            if let Some(frozen) = self.frozen.filter(|_| !self.follow) {
                let new = end.saturating_sub(frozen);
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!(
                        "paused: {} new record(s), {} matching",
                        thousands(new),
                        thousands((rows.len() - shown) as u64)
                    ),
                );
            }
        });
        ui.separator();
        if shown == 0 {
            ui.label(if trace.is_empty() {
                "No trace records yet. Trigger an event, or switch on the engine traces above."
            } else {
                "No records match the filter."
            });
            return;
        }

        self.list(ui, ctx, commands, shown, end);
    }
}

/// One record's row: time, kind, the rest (all of it on hover); a click selects it and,
/// for a record about a place in a track's code, opens the source there. True if
/// clicked.
fn row(
    ui: &mut egui::Ui,
    number: u64,
    record: &TraceRecord,
    rate: f64,
    root: &Path,
    selected: &mut Option<u64>,
    commands: &mut Vec<AppCommand>,
) -> bool {
    ui.horizontal(|ui| {
        ui.label(
            egui::RichText::new(format!("{:>10.3}", record.time.samples() as f64 / rate))
                .monospace()
                .weak(),
        );
        let color = theme::trace_kind(ui.visuals(), record.kind);
        ui.label(
            egui::RichText::new(format!("{:<6}", record.kind.name()))
                .monospace()
                .color(color),
        );
        let text = describe(record);
        let place = record
            .what
            .code_place()
            .and_then(|p| Some((p.file()?.to_path_buf(), p.line()?)));
        // A label that senses clicks, with its own highlight, rather than a selectable
        // button: a button seen for the first time costs egui a second frame to style
        // it, and new rows come with every record (a window at rest would paint each
        // arrival twice or three times).
        let background = ui.painter().add(egui::Shape::Noop);
        let response = ui.add(crate::cut_label(text.as_str()).sense(egui::Sense::click()));
        let fill = if *selected == Some(number) {
            Some(ui.visuals().selection.bg_fill)
        } else if response.hovered() {
            Some(ui.visuals().widgets.hovered.weak_bg_fill)
        } else {
            None
        };
        if let Some(fill) = fill {
            ui.painter().set(
                background,
                egui::Shape::rect_filled(response.rect.expand(1.0), 2.0, fill),
            );
        }
        // To assistive technology a row is what it does: a button, named by its text.
        response.widget_info(|| {
            egui::WidgetInfo::selected(
                egui::accesskit::Role::Button,
                true,
                *selected == Some(number),
                text.as_str(),
            )
        });
        let response = response.on_hover_text(match &place {
            Some((file, line)) => format!("{text}\n\nClick to open {}:{line}", file.display()),
            None => text.clone(),
        });
        let choices = selections(record);
        if response.clicked() {
            *selected = Some(number);
            if let Some(first) = choices.first() {
                commands.push(AppCommand::Select(first.clone()));
            }
            if let Some((file, line)) = place {
                let path = if file.is_absolute() {
                    file
                } else {
                    root.join(file)
                };
                commands.push(AppCommand::OpenSource { path, line });
            }
        }
        if !choices.is_empty() || record.event.is_some() {
            response.context_menu(|ui| {
                if record.event.is_some() && why_button(ui, number, commands) {
                    *selected = Some(number);
                    ui.close();
                }
                for choice in choices {
                    if ui
                        .button(format!("Select {}", describe_selection(&choice)))
                        .clicked()
                    {
                        *selected = Some(number);
                        commands.push(AppCommand::Select(choice));
                        ui.close();
                    }
                }
            });
        }
        response.clicked()
    })
    .inner
}

/// "Why", opening the Why panel on record `number`'s trigger; true if clicked.
fn why_button(ui: &mut egui::Ui, number: u64, commands: &mut Vec<AppCommand>) -> bool {
    let clicked = ui
        .button("Why")
        .on_hover_text("Why: the decision this record belongs to (its trigger)")
        .clicked();
    if clicked {
        commands.push(AppCommand::Why(WhyTarget::Record(number)));
    }
    clicked
}

/// What a record can select, most specific first: its voice, object, track.
fn selections(record: &TraceRecord) -> Vec<Selection> {
    let mut all = Vec::new();
    if let Some(voice) = record.voice {
        all.push(Selection::Voice(voice));
    }
    if let Some(object) = record.object {
        all.push(Selection::Object(object));
    }
    if let Some(track) = &record.track {
        all.push(Selection::Track(track.to_string()));
    }
    all
}

fn describe_selection(selection: &Selection) -> String {
    match selection {
        Selection::Voice(v) => format!("voice {v}"),
        Selection::Object(o) => format!("object {o}"),
        Selection::Track(t) => format!("track {t}"),
    }
}

/// A record without its time and kind.
fn describe(record: &TraceRecord) -> String {
    let mut text = String::new();
    if let Some(event) = &record.event {
        text.push_str(&format!("event={event} "));
    }
    if let Some(track) = &record.track {
        text.push_str(&format!("track={track} "));
    }
    if let Some(object) = record.object {
        text.push_str(&format!("object={object} "));
    }
    if let Some(voice) = record.voice {
        text.push_str(&format!("voice={voice} "));
    }
    if let Some(note) = record.note {
        text.push_str(&format!("note={} ", note_name(note)));
    }
    text.push_str(&record.message());
    text
}

/// A note's number as people read it: the engine's notes count up from 1; the world's
/// (stations, music, ambience) and the server's own are numbered apart, from a high base
/// that means nothing to a reader (`world 102`, not `2305843009213694054`).
pub fn note_name(note: u64) -> String {
    use engine_core::runtime::sink::{SERVER_NOTES, WORLD_NOTES};
    if note >= SERVER_NOTES {
        format!("server {}", note - SERVER_NOTES)
    } else if note >= WORLD_NOTES {
        format!("world {}", note - WORLD_NOTES)
    } else {
        note.to_string()
    }
}

/// A record as an exported line reads: the time in seconds as the panel shows it, the
/// kind, the rest.
pub fn export_line(record: &TraceRecord, sample_rate: u32) -> String {
    format!(
        "{:.3} {:<6} {}",
        record.time.samples() as f64 / f64::from(sample_rate.max(1)),
        record.kind.name(),
        describe(record)
    )
}

/// `n` with thin separators between thousands: 1,000,000.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
