//! The Sources panel: the project's assembled source files with the size of the source
//! and of the code it assembled to, labels and problem counts; the selected file's labels jump to their source lines.

use crate::{AppCommand, Panel, PanelContext, display_path};
use engine_core::toolchain::project::{CodeUnit, Project};

/// The size of the source file a unit was assembled from, as it was read (`None` for a
/// built set, or a file that could not be read).
pub fn source_size(project: &Project, unit: &CodeUnit) -> Option<u64> {
    let path = unit.path();
    project
        .inputs
        .pieces
        .iter()
        .filter(|p| p.path == path)
        .flat_map(|p| &p.stamps)
        .find(|stamp| *stamp.path == *path && stamp.len > 0)
        .map(|stamp| stamp.len)
}

/// `1267` as `1,267 bytes`, `1` as `1 byte`.
fn bytes(n: u64) -> String {
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{} bytes", crate::traces::thousands(n))
    }
}

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

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let project = ctx.project;
        ui.horizontal(|ui| {
            ui.label(format!("{} source file(s)", project.units.len()));
            if ui
                .button("Reload")
                .on_hover_text("Assemble the project again")
                .clicked()
            {
                commands.push(AppCommand::ReloadProject);
            }
        });
        ui.separator();
        if project.units.is_empty() {
            ui.label("This project has no MakeTrax sources (*.src).");
            return;
        }
        let all = ctx.problems();
        for (index, unit) in project.units.iter().enumerate() {
            let problems = all.iter().filter(|d| unit.files.contains(&d.file));
            let (errors, warnings) =
                problems.fold(
                    (0, 0),
                    |(e, w), d| {
                        if d.is_error() { (e + 1, w) } else { (e, w + 1) }
                    },
                );
            let mut text = format!(
                "{}  —  {}{} of code, layout {}",
                display_path(project, unit.path()),
                source_size(project, unit)
                    .map_or_else(String::new, |n| format!("{} of source, ", bytes(n))),
                bytes(unit.hit.code().len() as u64),
                unit.layout.title()
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
                    for (name, address) in &unit.labels {
                        let place = unit.locate(*address);
                        if ui.link(name).clicked()
                            && let Some((file, line)) = &place
                        {
                            commands.push(AppCommand::OpenSource {
                                path: file.clone(),
                                line: *line,
                            });
                        }
                        ui.monospace(format!("0x{address:04x}"));
                        ui.label(place.map_or_else(String::new, |(file, line)| {
                            format!("{}:{line}", display_path(project, &file))
                        }));
                        ui.end_row();
                    }
                });
            });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_with_thousands_separated() {
        assert_eq!(super::bytes(1267), "1,267 bytes");
        assert_eq!(super::bytes(58), "58 bytes");
        assert_eq!(super::bytes(1), "1 byte");
        assert_eq!(super::bytes(1_234_567), "1,234,567 bytes");
    }
}
