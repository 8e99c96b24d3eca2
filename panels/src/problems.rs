//! The Problems panel: every load and assemble error and warning, filterable,
//! each clickable to its source line.

use crate::{Command, Panel, PanelContext, display_path};
use engine_core::toolchain::diag::Severity;

/// UI state of the Problems panel.
#[derive(Debug, Clone)]
pub struct ProblemsPanel {
    /// Only rows containing this text (case-insensitive) are shown.
    pub filter: String,
    /// Show errors.
    pub show_errors: bool,
    /// Show warnings.
    pub show_warnings: bool,
}

impl Default for ProblemsPanel {
    fn default() -> Self {
        Self {
            filter: String::new(),
            show_errors: true,
            show_warnings: true,
        }
    }
}

impl Panel for ProblemsPanel {
    fn title(&self) -> &'static str {
        "Problems"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let all: Vec<_> = ctx.project.all_diagnostics().collect();
        let errors = all.iter().filter(|d| d.is_error()).count();
        let warnings = all.len() - errors;
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.show_errors, format!("Errors ({errors})"));
            ui.checkbox(&mut self.show_warnings, format!("Warnings ({warnings})"));
            ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("Filter")
                    .desired_width(160.0),
            )
            .on_hover_text("Show only problems whose file or message contains this text");
        });
        ui.separator();
        let needle = self.filter.to_lowercase();
        let shown: Vec<_> = all
            .into_iter()
            .filter(|d| match d.severity {
                Severity::Error => self.show_errors,
                Severity::Warning => self.show_warnings,
            })
            .filter(|d| {
                needle.is_empty()
                    || d.message.to_lowercase().contains(&needle)
                    || d.file.to_string_lossy().to_lowercase().contains(&needle)
            })
            .collect();
        if shown.is_empty() {
            ui.label(if errors + warnings == 0 {
                "No problems."
            } else {
                "No problems match the filter."
            });
            return;
        }
        let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show_rows(ui, row_height, shown.len(), |ui, rows| {
                for d in &shown[rows] {
                    let (icon, color) = match d.severity {
                        Severity::Error => ("error", ui.visuals().error_fg_color),
                        Severity::Warning => ("warning", ui.visuals().warn_fg_color),
                    };
                    let place = if d.line > 0 {
                        format!(
                            "{}:{}:{}",
                            display_path(ctx.project, &d.file),
                            d.line,
                            d.column
                        )
                    } else {
                        display_path(ctx.project, &d.file)
                    };
                    ui.horizontal(|ui| {
                        ui.colored_label(color, icon);
                        let link = ui.link(place).on_hover_text("Open at this line");
                        if link.clicked() {
                            commands.push(Command::OpenSource {
                                path: d.file.clone(),
                                line: d.line,
                            });
                        }
                        ui.label(&d.message);
                    });
                }
            });
    }
}
