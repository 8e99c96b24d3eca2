//! The Console panel: type the commands QA and designers use (`sev <event>`,
//! `quietall`, `trace sample on`, `volume fx 0.5`, `help`) and read the replies.
//! Up and Down walk through what was typed before.

use crate::{Command, Panel, PanelContext};

/// One line typed and what the engine answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleEntry {
    /// What was typed.
    pub input: String,
    /// The reply, or the problem.
    pub reply: Result<String, String>,
}

/// UI state of the Console panel.
#[derive(Debug, Clone, Default)]
pub struct ConsolePanel {
    /// The line being typed.
    pub input: String,
    /// Lines typed before, oldest first.
    pub history: Vec<String>,
    /// Position while walking the history with Up/Down (`None` = the new line).
    browsing: Option<usize>,
}

impl ConsolePanel {
    /// Takes the typed line (if any), remembers it and returns it to be run.
    pub fn submit(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.input).trim().to_string();
        self.browsing = None;
        if line.is_empty() {
            return None;
        }
        if self.history.last() != Some(&line) {
            self.history.push(line.clone());
        }
        Some(line)
    }

    /// Shows the previous (`back`) or next line of the history in the input.
    pub fn browse(&mut self, back: bool) {
        let len = self.history.len();
        if len == 0 {
            return;
        }
        self.browsing = match (self.browsing, back) {
            (None, true) => Some(len - 1),
            (None, false) => None,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) if i + 1 < len => Some(i + 1),
            (Some(_), false) => None,
        };
        self.input = self
            .browsing
            .and_then(|i| self.history.get(i).cloned())
            .unwrap_or_default();
    }
}

impl Panel for ConsolePanel {
    fn title(&self) -> &'static str {
        "Console"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let input_height = ui.spacing().interact_size.y + 8.0;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .max_height((ui.available_height() - input_height).max(0.0))
            .stick_to_bottom(true)
            .show(ui, |ui| {
                if ctx.console.is_empty() {
                    ui.weak("Type a command and press Enter — `help` lists them.");
                }
                for entry in ctx.console {
                    ui.monospace(format!("> {}", entry.input));
                    match &entry.reply {
                        Ok(reply) if reply.is_empty() => {}
                        Ok(reply) => {
                            ui.monospace(reply);
                        }
                        Err(problem) => {
                            ui.colored_label(ui.visuals().error_fg_color, problem);
                        }
                    }
                }
            });
        let response = ui.add(
            egui::TextEdit::singleline(&mut self.input)
                .font(egui::TextStyle::Monospace)
                .hint_text("sev ui_click")
                .desired_width(f32::INFINITY),
        );
        if response.has_focus() {
            let (up, down) = ui.input(|i| {
                (
                    i.key_pressed(egui::Key::ArrowUp),
                    i.key_pressed(egui::Key::ArrowDown),
                )
            });
            if up || down {
                self.browse(up);
            }
        }
        if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            if let Some(line) = self.submit() {
                commands.push(Command::RunLine(line));
            }
            response.request_focus();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn submit_remembers_lines_once_and_clears_the_input() {
        let mut console = ConsolePanel {
            input: "  sev ui_click ".into(),
            ..Default::default()
        };
        assert_eq!(console.submit().as_deref(), Some("sev ui_click"));
        assert!(console.input.is_empty());
        console.input = "sev ui_click".into();
        console.submit();
        assert_eq!(console.history, ["sev ui_click"]);
        assert_eq!(console.submit(), None, "an empty line runs nothing");
    }

    #[test]
    fn up_and_down_walk_the_history() {
        let mut console = ConsolePanel::default();
        for line in ["one", "two", "three"] {
            console.input = line.into();
            console.submit();
        }
        console.browse(true);
        assert_eq!(console.input, "three");
        console.browse(true);
        console.browse(true);
        console.browse(true);
        assert_eq!(console.input, "one", "stops at the oldest line");
        console.browse(false);
        assert_eq!(console.input, "two");
        console.browse(false);
        console.browse(false);
        assert_eq!(console.input, "", "past the newest line is a fresh line");
    }
}
