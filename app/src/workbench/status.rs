//! The workbench's status bar. On the left, always in the same places: what happened
//! last (the status line), the project's problems as the Problems panel counts them
//! (`panels::problems`: one count for both) with the run-time errors apart, and the live
//! engine's state. On the right, anchored to the bar's right edge, the banners and the
//! work in progress: what is muted or soloed (with Clear all, rightmost), a capture being
//! written, the debugger's pause, an opening or a render with its Cancel. The bar is
//! always a control high, so a banner coming or going moves nothing — neither in the bar
//! nor in the panes above it.

use super::Workbench;
use super::dock::{self, Pane};
use panels::AppCommand;

/// The share of the bar the status line may take (it is cut beyond, whole on hover).
const STATUS_SHARE: f32 = 0.3;

impl Workbench {
    /// Draws the status bar at the bottom of the window. `live` is the engine's line,
    /// `problems` the errors and warnings the Problems panel lists.
    pub(super) fn status_bar(
        &mut self,
        ui: &mut egui::Ui,
        live: &str,
        problems: (usize, usize),
        commands: &mut Vec<AppCommand>,
    ) {
        egui::Panel::bottom("status").show(ui, |ui| {
            let full = ui.available_width();
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.set_min_height(ui.spacing().interact_size.y);
                self.banners(ui, commands);
                ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                    self.standing(ui, full, live, problems);
                });
            });
        });
    }

    /// The left part: the status line, the problems, the run-time errors, the engine.
    fn standing(&mut self, ui: &mut egui::Ui, full: f32, live: &str, problems: (usize, usize)) {
        let height = ui.spacing().interact_size.y;
        let width = (full * STATUS_SHARE).clamp(120.0, 480.0);
        let status = self.status.as_str();
        ui.allocate_ui_with_layout(
            egui::vec2(width, height),
            egui::Layout::left_to_right(egui::Align::Center),
            |ui| {
                ui.set_min_width(width);
                ui.add(panels::cut_label(status)).on_hover_text(status);
            },
        );
        ui.separator();
        let (errors, warnings) = problems;
        if ui
            .link(format!(
                "problems: {errors} error(s), {warnings} warning(s)"
            ))
            .on_hover_text("The Problems panel lists them")
            .clicked()
        {
            dock::show_pane(&mut self.tree, Pane::Problems);
        }
        if ui
            .link(format!("runtime errors: {}", self.runtime_errors))
            .on_hover_text(
                "Faults, unknown events, missing samples traced since the project was \
                 opened: the Traces panel's error records",
            )
            .clicked()
        {
            dock::show_pane(&mut self.tree, Pane::Traces);
        }
        self.renderer_ui(ui);
        ui.separator();
        // Last: it is cut where the banners begin.
        ui.add(panels::cut_label(live))
            .on_hover_text(format!("{live}\n{}", self.audio.1));
    }

    /// The right part, from the right edge leftwards: what is muted or soloed, a
    /// capture being written, the debugger's pause, an opening or a render.
    fn banners(&mut self, ui: &mut egui::Ui, commands: &mut Vec<AppCommand>) {
        // Laid out right to left: what comes first here is rightmost.
        if self.live_state.monitor.is_active() {
            panels::monitor::clear_all(ui, commands);
            panels::monitor::description(ui, &self.live_state.monitor);
            ui.separator();
        }
        if let Some(capturing) = self.capture_label() {
            ui.colored_label(ui.visuals().error_fg_color, capturing);
            ui.separator();
        }
        if let Some(paused) = &self.live_state.debug.paused {
            ui.colored_label(
                panels::theme::PAUSED_MARK,
                egui::RichText::new(format!("{paused} · F5 continues")).strong(),
            );
            ui.separator();
        }
        self.open_progress_ui(ui);
        self.render_progress_ui(ui);
    }
}
