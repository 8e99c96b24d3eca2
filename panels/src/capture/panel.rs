//! The Capture tab: the diff against the project now — each difference with its time
//! (click: go there) and a Why on its event —, what the open capture was made with (its
//! project's folders, seed, rate, voice limit and cache budget; the project files
//! changed since), what it holds, and its inputs.

use super::{CaptureView, DiffState};
use crate::{AppCommand, Panel, PanelContext, WhyTarget};
use engine_core::tools::diff::{Difference, summary};

/// How many inputs and differences the tab lists.
const SHOWN: usize = 500;

/// UI state of the Capture tab (it has none of its own: the capture is the app's).
#[derive(Debug, Default)]
pub struct CapturePanel;

impl Panel for CapturePanel {
    fn title(&self) -> &'static str {
        "Capture"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let Some(view) = ctx.capture else {
            ui.label(
                "No capture is open. File > Open capture… shows one in every panel, with a \
                 timeline to scrub; File > Start capture… records the live session into one.",
            );
            return;
        };
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                diff(ui, view, commands);
                ui.separator();
                facts(ui, view);
                ui.separator();
                inputs(ui, view, commands);
            });
    }
}

/// The header's facts and what the capture holds.
fn facts(ui: &mut egui::Ui, view: &CaptureView) {
    let capture = &view.timeline.capture;
    let header = &capture.header;
    let length = view.seconds(view.timeline.end()) - view.seconds(view.timeline.start());
    egui::Grid::new("capture facts")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            let mut row = |name: &str, value: String| {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            };
            row("File", view.path.display().to_string());
            let dirs: Vec<String> = header
                .dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect();
            row("Project", dirs.join(", "));
            row("Seed", header.seed.to_string());
            row("Sample rate", format!("{} Hz", header.sample_rate));
            row("Voices", header.voices.to_string());
            row(
                "Cache budget",
                crate::cache::format_bytes(header.cache_budget),
            );
            row(
                "Length",
                match capture.end {
                    Some(_) => format!("{length:.3} s"),
                    None => format!("{length:.3} s (cut off: no end)"),
                },
            );
            row(
                "Holds",
                format!(
                    "{} input(s), {} record(s), {} keyframe(s), {} project file(s)",
                    capture.inputs.len(),
                    capture.records.len(),
                    capture.keyframes.len(),
                    header.files.len()
                ),
            );
        });
    ui.add_space(4.0);
    if view.changed_files.is_empty() {
        ui.label("The project's files are as they were when it was captured.");
    } else {
        ui.label(format!(
            "{} project file(s) differ from the capture's:",
            view.changed_files.len()
        ));
        for change in &view.changed_files {
            ui.monospace(change);
        }
    }
}

/// The diff against the project now.
fn diff(ui: &mut egui::Ui, view: &CaptureView, commands: &mut Vec<AppCommand>) {
    ui.horizontal(|ui| {
        ui.strong("Against the project now");
        let running = view.diff == DiffState::Running;
        if ui
            .add_enabled(!running, egui::Button::new("Diff"))
            .on_hover_text("Run the inputs against the project as it is now and compare")
            .clicked()
        {
            commands.push(AppCommand::DiffCapture);
        }
    });
    if let (DiffState::Done(_), Some(cut)) = (&view.diff, view.timeline.capture.cut_off_at()) {
        ui.weak(format!(
            "The capture was cut off at {:.3} s: what was decided from then on is not compared.",
            view.seconds(cut)
        ));
    }
    match &view.diff {
        DiffState::NotRun => {
            ui.weak("Not compared yet: Diff runs the inputs again, offline, in the background.");
        }
        DiffState::Running => {
            ui.label("Running the inputs against the project…");
        }
        DiffState::Failed(error) => {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        DiffState::Done(differences) if differences.is_empty() => {
            ui.label("No decision differs: the project now decides as it did.");
        }
        DiffState::Done(differences) => {
            ui.label(format!("{}:", summary(differences)));
            for (i, d) in differences.iter().take(SHOWN).enumerate() {
                difference(ui, view, i, d, commands);
            }
        }
    }
}

/// One difference: its time (click: go there), event, object, change, and Why.
fn difference(
    ui: &mut egui::Ui,
    view: &CaptureView,
    index: usize,
    d: &Difference,
    commands: &mut Vec<AppCommand>,
) {
    ui.push_id(index, |ui| {
        ui.horizontal(|ui| {
            if ui
                .link(format!("{:.3} s", view.seconds(d.time)))
                .on_hover_text("Show the capture at this time")
                .clicked()
            {
                commands.push(AppCommand::Seek(d.time));
            }
            ui.monospace(d.event.as_ref());
            if let Some(object) = d.object {
                ui.label(format!("@{object}"));
            }
            ui.label(d.change.text(view.timeline.sample_rate()));
            if ui
                .small_button("Why")
                .on_hover_text("Why: this event's decisions in the capture")
                .clicked()
            {
                commands.push(AppCommand::Seek(d.time));
                commands.push(AppCommand::Why(WhyTarget::Event(d.event.to_string())));
            }
        });
    });
}

/// The inputs, each a click away from its time.
fn inputs(ui: &mut egui::Ui, view: &CaptureView, commands: &mut Vec<AppCommand>) {
    let inputs = &view.timeline.capture.inputs;
    ui.strong(format!("Inputs ({})", inputs.len()));
    for (i, (seconds, line)) in inputs.iter().take(SHOWN).enumerate() {
        ui.push_id(("input", i), |ui| {
            ui.horizontal(|ui| {
                if ui.link(format!("{seconds:>8.3} s")).clicked() {
                    commands.push(AppCommand::Seek(view.time(*seconds)));
                }
                ui.monospace(line);
            });
        });
    }
}
