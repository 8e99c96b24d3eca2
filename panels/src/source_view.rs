//! The source view: a read-only MakeTrax source file with line numbers, scrolled to
//! and highlighting the line a problem or label points at.

use crate::{AppCommand, Panel, PanelContext, display_path};

/// UI state of the source view.
#[derive(Debug, Clone, Default)]
pub struct SourceViewPanel {
    scrolled_to: Option<(std::path::PathBuf, u32)>,
}

impl Panel for SourceViewPanel {
    fn title(&self) -> &'static str {
        "Source"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, _commands: &mut Vec<AppCommand>) {
        let Some(source) = ctx.source else {
            ui.label("Click a problem or a label to see its source here.");
            return;
        };
        ui.strong(display_path(ctx.project, &source.path));
        ui.separator();
        let target = (source.path.clone(), source.line);
        let scroll = self.scrolled_to.as_ref() != Some(&target);
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (index, line) in source.text.lines().enumerate() {
                    let number = index + 1;
                    let current = number as u32 == source.line;
                    let text = egui::RichText::new(format!("{number:>5}  {line}")).monospace();
                    let response = if current {
                        ui.label(text.background_color(ui.visuals().selection.bg_fill))
                    } else {
                        ui.label(text)
                    };
                    if current && scroll {
                        response.scroll_to_me(Some(egui::Align::Center));
                    }
                }
            });
        self.scrolled_to = Some(target);
    }
}
