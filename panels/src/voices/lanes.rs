//! The Voices panel's lanes: one painted row per voice slot with time running to the
//! right, each track's time on a slot a bar in its colour; how a voice left (stolen,
//! faulted, quieted, interrupted) marked at the bar's end, refusals on a row of their
//! own; hover for why, click a row to select the voice, click a refusal mark to open the
//! Why panel on its event.

use super::{AXIS_HEIGHT, GUTTER, LANE_HEIGHT, VoicesPanel};
use crate::{AppCommand, PanelContext, Selection, WhyTarget, theme};
use engine_core::runtime::clock::SampleTime;
use engine_core::tools::inspect::{Lane, LaneEnd, VoiceHistory};

impl VoicesPanel {
    /// One painted row per slot: each track's time on it as a coloured bar, how it left
    /// marked at its end; refusals on a row of their own.
    pub(super) fn lanes(
        &self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        let history = &ctx.live.history;
        let count = ctx.live.voice_slots.len();
        let width = ui.available_width().max(GUTTER + 100.0);
        let height = (count + 1) as f32 * LANE_HEIGHT + AXIS_HEIGHT;
        let (rect, canvas) =
            ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::click());
        canvas.widget_info(|| {
            egui::WidgetInfo::labeled(egui::accesskit::Role::Image, true, "Voice lanes")
        });
        let window = u64::from(self.window_seconds) * u64::from(self.sample_rate);
        let layout = LaneLayout::new(rect, count, ctx.live.now, window);
        let painter = ui.painter_at(rect);
        let visuals = ui.visuals().clone();
        let small = egui::FontId::proportional(10.0);
        layout.paint_rows(&painter, &visuals, &small, ctx.selection);
        self.paint_time_axis(&painter, &layout, &visuals, &small);
        let bars = paint_bars(ui, &painter, &layout, history, &small);
        let mut marker_hovered = self.lane_end_marks(ui, &painter, &layout, &bars);
        marker_hovered |= self.refusal_marks(ui, &painter, &layout, history, commands);
        // Hovering a bar tells its story; a click on a row selects the slot.
        let pointer = canvas.hover_pos();
        if !marker_hovered
            && let Some(pos) = pointer
            && let Some((_, lane)) = bars.iter().rev().find(|(bar, _)| bar.contains(pos))
        {
            let story = self.lane_story(lane, layout.now);
            canvas.clone().on_hover_ui_at_pointer(|ui| {
                ui.label(story);
            });
        }
        ui.weak(
            "Red notch: stolen; orange notch: faulted; yellow line: interrupted; dark line: \
             quieted or killed; red marks on the last row: refused. Hover a bar or a mark for \
             why; click a row to select its voice, a refusal mark for the Why panel.",
        );
        if canvas.clicked()
            && let Some(pos) = canvas.interact_pointer_pos()
        {
            let row = ((pos.y - rect.top()) / LANE_HEIGHT).floor();
            if row >= 0.0 && (row as usize) < count {
                commands.push(AppCommand::Select(Selection::Voice(row as usize)));
            }
        }
    }

    /// The time grid over the rows and its axis below them, labelled in seconds back.
    fn paint_time_axis(
        &self,
        painter: &egui::Painter,
        layout: &LaneLayout,
        visuals: &egui::Visuals,
        small: &egui::FontId,
    ) {
        let rect = layout.rect;
        let step = match self.window_seconds {
            0..=10 => 1,
            11..=20 => 2,
            _ => 5,
        };
        let axis_y = rect.top() + (layout.count + 1) as f32 * LANE_HEIGHT;
        for back in (0..=self.window_seconds).step_by(step) {
            let x = layout.right - layout.span * back as f32 / self.window_seconds.max(1) as f32;
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
    }

    /// Marks at the ends of bars (steals, faults, quiets, kills, interrupts); steals and
    /// faults get a notch that says why on hover. True if one is hovered.
    fn lane_end_marks(
        &self,
        ui: &egui::Ui,
        painter: &egui::Painter,
        layout: &LaneLayout,
        bars: &[(egui::Rect, &Lane)],
    ) -> bool {
        let mut hovered = false;
        for (bar, lane) in bars {
            let Some(end) = &lane.end else {
                continue;
            };
            let x = bar.right();
            let (color, notch) = match end {
                LaneEnd::Stolen { .. } => (theme::STOLEN, true),
                LaneEnd::Faulted { .. } => (theme::FAULT, true),
                LaneEnd::Quieted { .. } | LaneEnd::Killed { .. } => (theme::QUIETED, false),
                LaneEnd::Interrupted { .. } => (theme::INTERRUPTED, false),
                LaneEnd::Finished | LaneEnd::Ended => continue,
            };
            painter.vline(x, bar.y_range(), egui::Stroke::new(2.0, color));
            if !notch {
                continue;
            }
            let top = bar.top() - 1.0;
            let corners = [(x - 4.0, top), (x + 4.0, top), (x, top + 6.0)];
            paint_triangle(painter, corners, color);
            let what = format!(
                "voice {}: `{}` {} at {:.2} s",
                lane.slot,
                lane.track_name,
                end,
                self.seconds(lane.ended_at.unwrap_or(layout.now).samples())
            );
            let hit = egui::Rect::from_center_size(
                egui::pos2(x, bar.center().y),
                egui::vec2(8.0, LANE_HEIGHT),
            );
            let id = ui.scope_id().with(("lane-end", lane.slot, lane.started_at));
            hovered |= mark_hover(ui, hit, id, what);
        }
        hovered
    }

    /// The refusals in the window, marked on the last row; each says why on hover, and a
    /// click opens the Why panel on its event. True if one is hovered.
    fn refusal_marks(
        &self,
        ui: &egui::Ui,
        painter: &egui::Painter,
        layout: &LaneLayout,
        history: &VoiceHistory,
        commands: &mut Vec<AppCommand>,
    ) -> bool {
        let mut hovered = false;
        let refused = layout.row_rect(layout.count);
        for (index, refusal) in history.refusals().iter().enumerate() {
            if refusal.time < layout.start {
                continue;
            }
            let x = layout.x_of(refusal.time);
            let c = egui::pos2(x, refused.center().y);
            let corners = [
                (c.x - 5.0, c.y - 5.0),
                (c.x + 5.0, c.y - 5.0),
                (c.x, c.y + 5.0),
            ];
            paint_triangle(painter, corners, ui.visuals().error_fg_color);
            let what = format!(
                "{} `{}` (event `{}`{}) at {:.2} s: {}",
                engine_core::runtime::DecisionKind::Refused,
                refusal.track_name.as_deref().unwrap_or("?"),
                refusal.event,
                refusal
                    .object
                    .map(|o| format!(", object {o}"))
                    .unwrap_or_default(),
                self.seconds(refusal.time.samples()),
                refusal.reason()
            );
            let id = ui.scope_id().with(("refusal", index, refusal.time));
            let hit = egui::Rect::from_center_size(c, egui::vec2(10.0, LANE_HEIGHT));
            let response = ui.interact(hit, id, egui::Sense::click());
            response.widget_info(|| {
                egui::WidgetInfo::labeled(egui::accesskit::Role::Button, true, &what)
            });
            hovered |= response.hovered();
            if response.clicked() {
                commands.push(AppCommand::Why(WhyTarget::Event(refusal.event.to_string())));
            }
            response.on_hover_text(format!("{what} (click: Why)"));
        }
        hovered
    }

    /// What a lane's tooltip says.
    fn lane_story(&self, lane: &Lane, now: SampleTime) -> String {
        let from = match lane.object {
            Some(o) => format!("object {o}"),
            None => "the UI".to_string(),
        };
        let end = lane.ended_at.unwrap_or(now);
        let held = self.seconds(end - lane.started_at);
        let how = match &lane.end {
            Some(how) => format!("{how} at {:.2} s", self.seconds(end.samples())),
            None => "still playing".to_string(),
        };
        format!(
            "voice {}: `{}` (event `{}`, from {from})\nfrom {:.2} s, {held:.1} s\n{how}",
            lane.slot,
            lane.track_name,
            lane.event,
            self.seconds(lane.started_at.samples())
        )
    }
}

/// Where the lanes are drawn: the window of time from `start` to `now` across
/// `left..right`, one row of [`LANE_HEIGHT`] per slot and one for refusals.
struct LaneLayout {
    /// The whole canvas.
    rect: egui::Rect,
    /// Voice slots (the refusals row is below them).
    count: usize,
    /// The engine time at the right edge.
    now: SampleTime,
    /// The engine time at the left edge.
    start: SampleTime,
    /// How many samples the window spans.
    window: u64,
    /// Where time starts, right of the slot numbers.
    left: f32,
    /// Where time ends (now).
    right: f32,
    /// `right - left`, at least a pixel.
    span: f32,
}

impl LaneLayout {
    fn new(rect: egui::Rect, count: usize, now: SampleTime, window: u64) -> Self {
        let left = rect.left() + GUTTER;
        let right = rect.right() - 4.0;
        Self {
            rect,
            count,
            now,
            start: now.saturating_sub(window),
            window,
            left,
            right,
            span: (right - left).max(1.0),
        }
    }

    /// The x of engine time `t` (clamped to the window).
    fn x_of(&self, t: SampleTime) -> f32 {
        let t = t.clamp(self.start, self.now.max(self.start));
        self.left + self.span * ((t - self.start) as f32 / self.window.max(1) as f32)
    }

    /// The band of row `row` (a slot, or `count` for the refusals).
    fn row_rect(&self, row: usize) -> egui::Rect {
        let top = self.rect.top() + row as f32 * LANE_HEIGHT;
        egui::Rect::from_min_max(
            egui::pos2(self.left, top + 1.0),
            egui::pos2(self.right, top + LANE_HEIGHT - 1.0),
        )
    }

    /// The rows, striped, the selected voice's highlighted, with their slot numbers.
    fn paint_rows(
        &self,
        painter: &egui::Painter,
        visuals: &egui::Visuals,
        small: &egui::FontId,
        selection: Option<&Selection>,
    ) {
        for row in 0..=self.count {
            let r = self.row_rect(row);
            let selected = row < self.count && selection == Some(&Selection::Voice(row));
            let fill = if selected {
                visuals.selection.bg_fill.gamma_multiply(0.5)
            } else if row % 2 == 0 {
                visuals.faint_bg_color
            } else {
                visuals.extreme_bg_color
            };
            painter.rect_filled(r, 0.0, fill);
            let label = if row < self.count {
                row.to_string()
            } else {
                engine_core::runtime::DecisionKind::Refused
                    .name()
                    .to_string()
            };
            painter.text(
                egui::pos2(self.left - 4.0, r.center().y),
                egui::Align2::RIGHT_CENTER,
                label,
                small.clone(),
                visuals.weak_text_color(),
            );
        }
    }
}

/// Each lane in the window as a bar in its track's colour, named when the name fits.
/// Returns the bars with their lanes.
fn paint_bars<'h>(
    ui: &egui::Ui,
    painter: &egui::Painter,
    layout: &LaneLayout,
    history: &'h VoiceHistory,
    small: &egui::FontId,
) -> Vec<(egui::Rect, &'h Lane)> {
    let mut bars = Vec::new();
    for lane in history.lanes() {
        let end = lane.ended_at.unwrap_or(layout.now);
        if end < layout.start || lane.slot >= layout.count {
            continue;
        }
        let r = layout.row_rect(lane.slot);
        let x0 = layout.x_of(lane.started_at);
        let x1 = layout.x_of(end).max(x0 + 2.0);
        let bar = egui::Rect::from_min_max(
            egui::pos2(x0, r.top() + 1.0),
            egui::pos2(x1, r.bottom() - 1.0),
        );
        painter.rect_filled(bar, 2.0, theme::track(&lane.track_name));
        let text = ui.painter().layout_no_wrap(
            lane.track_name.to_string(),
            small.clone(),
            theme::LANE_LABEL,
        );
        if text.size().x + 6.0 < bar.width() {
            painter.with_clip_rect(bar.intersect(layout.rect)).galley(
                egui::pos2(bar.left() + 3.0, bar.center().y - text.size().y / 2.0),
                text,
                theme::LANE_LABEL,
            );
        }
        bars.push((bar, lane));
    }
    bars
}

/// A filled triangle (a mark on a lane) with corners `corners`.
fn paint_triangle(painter: &egui::Painter, corners: [(f32, f32); 3], color: egui::Color32) {
    painter.add(egui::Shape::convex_polygon(
        corners.map(|(x, y)| egui::pos2(x, y)).to_vec(),
        color,
        egui::Stroke::NONE,
    ));
}

/// Makes a mark's area hoverable, named `what` and saying it on hover; true if hovered.
fn mark_hover(ui: &egui::Ui, hit: egui::Rect, id: egui::Id, what: String) -> bool {
    let response = ui.interact(hit, id, egui::Sense::hover());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::accesskit::Role::Image, true, &what));
    let hovered = response.hovered();
    response.on_hover_text(what);
    hovered
}
