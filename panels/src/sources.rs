//! The Sources panel: the project's assembled source files with their size, labels and
//! problem counts; the selected file's labels jump to their source lines.

use crate::{Command, Panel, PanelContext, display_path};
use engine_core::asm::SymbolKind;

/// UI state of the Sources panel.
#[derive(Debug, Clone, Default)]
pub struct SourcesPanel {
    /// Index of the selected unit.
    pub selected: Option<usize>,
}

impl Panel for SourcesPanel {
    fn title(&self) -> &'static str {
        "Sources"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let project = ctx.project;
        ui.horizontal(|ui| {
            ui.label(format!("{} source file(s)", project.units.len()));
            if ui
                .button("Reload")
                .on_hover_text("Assemble the project again")
                .clicked()
            {
                commands.push(Command::ReloadProject);
            }
        });
        ui.separator();
        if project.units.is_empty() {
            ui.label("This project has no MakeTrax sources (*.src).");
            return;
        }
        for (index, unit) in project.units.iter().enumerate() {
            let a = &unit.assembly;
            let errors = a.diagnostics.iter().filter(|d| d.is_error()).count();
            let warnings = a.diagnostics.len() - errors;
            let mut text = format!(
                "{}  —  {} bytes, layout {}",
                display_path(project, &unit.source),
                a.hit.code().len(),
                a.layout.title()
            );
            if errors > 0 {
                text.push_str(&format!(", {errors} error(s)"));
            }
            if warnings > 0 {
                text.push_str(&format!(", {warnings} warning(s)"));
            }
            let selected = self.selected == Some(index);
            if ui.selectable_label(selected, text).clicked() {
                self.selected = if selected { None } else { Some(index) };
            }
        }
        let Some(unit) = self.selected.and_then(|i| project.units.get(i)) else {
            return;
        };
        ui.separator();
        ui.strong("Labels");
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("labels").striped(true).show(ui, |ui| {
                    for symbol in unit
                        .assembly
                        .symbols
                        .iter()
                        .filter(|s| s.kind == SymbolKind::Label)
                    {
                        if ui.link(&symbol.name).clicked() {
                            commands.push(Command::OpenSource {
                                path: symbol.file.clone(),
                                line: symbol.line,
                            });
                        }
                        ui.monospace(format!("0x{:04x}", symbol.value));
                        ui.label(format!(
                            "{}:{}",
                            display_path(project, &symbol.file),
                            symbol.line
                        ));
                        ui.end_row();
                    }
                });
            });
    }
}
