//! The capture's timeline bar: which capture is open, the time shown (a slider over the
//! capture's length), play and pause, a step to the previous or next decision, the
//! steals, refusals and faults as marks on a strip (a click there scrubs too), the diff
//! against the project now, and Close.

use super::{CaptureView, DiffState};
use crate::{AppCommand, theme};
use engine_core::host::timeline::MarkerKind;

/// The strip's height, in points.
const STRIP_HEIGHT: f32 = 14.0;

/// Draws the bar for `view`; what it asks for goes into `commands`.
pub fn timeline_bar(ui: &mut egui::Ui, view: &CaptureView, commands: &mut Vec<AppCommand>) {
    let timeline = &view.timeline;
    let (start, end) = (view.seconds(timeline.start()), view.seconds(timeline.end()));
    ui.horizontal(|ui| {
        ui.strong(format!("Capture: {}", view.name()))
            .on_hover_text(view.path.display().to_string());
        // The engine's time, as every panel shows it (a live capture begins where the
        // engine was then, not at 0).
        ui.monospace(format!(
            "{:.3} s of {start:.3}–{end:.3} s",
            view.seconds(view.at)
        ));
        ui.separator();
        let previous = timeline.decision_before(view.at);
        if ui
            .add_enabled(previous.is_some(), egui::Button::new("Previous decision"))
            .on_hover_text("Go back to the trigger before this time")
            .clicked()
            && let Some(at) = previous
        {
            commands.push(AppCommand::Seek(at));
        }
        let (label, tip) = if view.playing {
            ("Pause", "Stop at this time")
        } else {
            ("Play", "Move on in real time")
        };
        if ui.button(label).on_hover_text(tip).clicked() {
            commands.push(AppCommand::PlayCapture(!view.playing));
        }
        let next = timeline.decision_after(view.at);
        if ui
            .add_enabled(next.is_some(), egui::Button::new("Next decision"))
            .on_hover_text("Go on to the next trigger")
            .clicked()
            && let Some(at) = next
        {
            commands.push(AppCommand::Seek(at));
        }
        ui.separator();
        let diffing = view.diff == DiffState::Running;
        if ui
            .add_enabled(!diffing, egui::Button::new("Diff against the project now"))
            .on_hover_text(
                "Run the capture's inputs against the project as it is now, offline, and \
                 list the decisions that differ (the Capture tab)",
            )
            .clicked()
        {
            commands.push(AppCommand::DiffCapture);
        }
        if ui
            .button("Close capture")
            .on_hover_text("Back to the live engine")
            .clicked()
        {
            commands.push(AppCommand::CloseCapture);
        }
    });
    ui.horizontal(|ui| {
        let mut seconds = view.seconds(view.at);
        ui.spacing_mut().slider_width = (ui.available_width() - 150.0).max(100.0);
        let slider = egui::Slider::new(&mut seconds, start..=end.max(start))
            .suffix(" s")
            .fixed_decimals(3)
            .text("time");
        // The slider shows milliseconds: a value it only rounded to what it shows (its
        // text parsed back while focused) is not a move — it would take the view off
        // the sample a decision is at, and that decision's records with it.
        let changed = ui.add(slider).changed();
        if changed && (seconds - view.seconds(view.at)).abs() >= 0.0005 {
            commands.push(AppCommand::Seek(view.time(seconds)));
        }
    });
    strip(ui, view, commands);
}

/// The marks of the steals, refusals and faults, and the time shown; a click scrubs.
fn strip(ui: &mut egui::Ui, view: &CaptureView, commands: &mut Vec<AppCommand>) {
    let timeline = &view.timeline;
    let width = ui.available_width() - 150.0;
    let (rect, response) = ui.allocate_exact_size(
        egui::vec2(width.max(100.0), STRIP_HEIGHT),
        egui::Sense::click_and_drag(),
    );
    let (start, end) = (timeline.start().samples(), timeline.end().samples());
    let span = end.saturating_sub(start).max(1) as f32;
    let x =
        |samples: u64| rect.left() + rect.width() * (samples.saturating_sub(start)) as f32 / span;
    let painter = ui.painter_at(rect);
    let (ground, now) = theme::timeline(ui.visuals());
    painter.rect_filled(rect, 2.0, ground);
    for marker in timeline.markers() {
        let px = x(marker.at.samples());
        let color = theme::marker(ui.visuals(), marker.kind);
        painter.line_segment(
            [egui::pos2(px, rect.top()), egui::pos2(px, rect.bottom())],
            egui::Stroke::new(2.0, color),
        );
    }
    let px = x(view.at.samples());
    painter.line_segment(
        [
            egui::pos2(px, rect.top() - 2.0),
            egui::pos2(px, rect.bottom() + 2.0),
        ],
        egui::Stroke::new(2.0, now),
    );
    let counts = [MarkerKind::Steal, MarkerKind::Refusal, MarkerKind::Fault]
        .map(|kind| timeline.markers().iter().filter(|m| m.kind == kind).count());
    let response = response.on_hover_text(format!(
        "{} steal(s), {} refusal(s), {} fault(s); click to go there",
        counts[0], counts[1], counts[2]
    ));
    if (response.clicked() || response.dragged())
        && let Some(pos) = response.interact_pointer_pos()
    {
        let share = ((pos.x - rect.left()) / rect.width()).clamp(0.0, 1.0);
        let at = start + (share * span).round() as u64;
        commands.push(AppCommand::Seek(
            engine_core::runtime::SampleTime::from_samples(at),
        ));
    }
}
