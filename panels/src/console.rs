//! The Console panel: type the commands QA and designers use (`sev <event>`,
//! `quietall`, `trace sample on`, `volume fx 0.5`, `help`) and read the replies.
//! Up and Down walk through what was typed before; while typing, command words and event
//! names are completed with fuzzy matching (`sev ui mnyb` finds `ui_moneyback`): Tab
//! takes the first suggestion, a click takes any. Ctrl+Alt+C (the game's shortcut)
//! focuses the input from anywhere in the window.

use crate::{AppCommand, Panel, PanelContext};
use engine_core::host::command::WORDS;
use engine_core::host::live::Reply;
use engine_core::runtime::SampleTime;
use engine_core::toolchain::project::Project;

/// What the empty input says: what to type.
pub const HINT: &str =
    "type a command: sev <event> plays one · help lists them all · Tab completes";

/// How many suggestions are shown.
pub const SUGGESTIONS: usize = 8;

/// How well `needle` matches `hay` as a fuzzy subsequence (case-insensitive): `None` if
/// some character of the needle is missing; higher is better — a prefix, consecutive
/// characters and matches at word starts (after `_`) score more; shorter names win ties.
pub fn fuzzy_score(needle: &str, hay: &str) -> Option<i32> {
    let hay: Vec<char> = hay.to_lowercase().chars().collect();
    let mut score = 0;
    let mut at = 0;
    let mut previous: Option<usize> = None;
    for c in needle.to_lowercase().chars().filter(|c| !c.is_whitespace()) {
        let c = if c == ' ' { '_' } else { c };
        let found = (at..hay.len()).find(|&i| hay.get(i) == Some(&c))?;
        score += 1;
        if found == 0 {
            score += 8;
        }
        if previous.is_some_and(|p| p + 1 == found) {
            score += 5;
        }
        if found > 0 && hay.get(found - 1) == Some(&'_') {
            score += 3;
        }
        previous = Some(found);
        at = found + 1;
    }
    Some(score * 4 - i32::try_from(hay.len()).unwrap_or(i32::MAX).min(200))
}

/// Completions of the line being typed: the whole line as it would read with each
/// suggestion, best first. The first word completes to a command word; after `sev`,
/// `soundevent`, `ui` or `why`, the rest (words joined with `_`, an `@object` kept)
/// completes to the project's event names.
pub fn completions(input: &str, project: &Project) -> Vec<String> {
    let trimmed = input.trim_start();
    if trimmed.is_empty() {
        return Vec::new();
    }
    let Some((head, rest)) = trimmed.split_once(char::is_whitespace) else {
        return rank(trimmed, WORDS.iter().copied())
            .into_iter()
            .filter(|w| !w.eq_ignore_ascii_case(trimmed))
            .map(|w| format!("{w} "))
            .collect();
    };
    let head_lower = head.to_ascii_lowercase();
    if !matches!(head_lower.as_str(), "sev" | "soundevent" | "ui" | "why") {
        return Vec::new();
    }
    let mut words: Vec<&str> = Vec::new();
    let mut object = None;
    for word in rest.split_whitespace() {
        if word.starts_with('@') {
            object = Some(word);
        } else {
            words.push(word);
        }
    }
    if words.is_empty() {
        return Vec::new();
    }
    let typed = words.join("_");
    let names = project.events.values().map(|e| e.name.as_str());
    rank(&typed, names)
        .into_iter()
        .filter(|name| !name.eq_ignore_ascii_case(&typed))
        .map(|name| match object {
            Some(o) => format!("{head} {name} {o}"),
            None => format!("{head} {name}"),
        })
        .collect()
}

fn rank<'a>(needle: &str, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut scored: Vec<(i32, &str)> = names
        .filter_map(|n| fuzzy_score(needle, n).map(|s| (s, n)))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(SUGGESTIONS)
        .map(|(_, n)| n)
        .collect()
}

/// One line typed and what the engine answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleEntry {
    /// What was typed.
    pub input: String,
    /// The reply, or the problem.
    pub reply: Result<String, String>,
    /// The engine's sample time when it ran the line (`None`: the workbench answered
    /// it itself — `why`, a refusal, no engine).
    pub at: Option<SampleTime>,
}

impl ConsoleEntry {
    /// A line the workbench answered itself (no engine time).
    pub fn answered(input: impl Into<String>, reply: Result<String, String>) -> Self {
        Self {
            input: input.into(),
            reply,
            at: None,
        }
    }
}

impl From<Reply> for ConsoleEntry {
    fn from(reply: Reply) -> Self {
        Self {
            input: reply.line,
            reply: reply.result,
            at: Some(reply.at),
        }
    }
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
    /// Set by the app (Ctrl+Alt+C): focus the input at the next frame.
    pub focus_requested: bool,
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

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
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
        let suggestions = completions(&self.input, ctx.project);
        let mut take = None;
        if !suggestions.is_empty() {
            ui.horizontal_wrapped(|ui| {
                ui.weak("Tab:");
                for (i, line) in suggestions.iter().enumerate() {
                    // A command word shows itself; an event suggestion its name.
                    let shown = if line.ends_with(' ') {
                        line.trim_end()
                    } else {
                        line.split_whitespace().nth(1).unwrap_or(line)
                    };
                    if ui
                        .small_button(shown)
                        .on_hover_text(format!("complete to `{}`", line.trim_end()))
                        .clicked()
                    {
                        take = Some(i);
                    }
                }
            });
        }
        let tab = ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Tab));
        let id = ui.scope_id().with("console-input");
        // The text field stops reading a frame's events at Enter: what was typed after
        // it in the same frame (fast typing, a slow frame) is kept for the next line.
        let typed_after_enter = if ui.memory(|m| m.has_focus(id)) {
            ui.input_mut(|i| {
                let enter = i.events.iter().position(|e| {
                    matches!(
                        e,
                        egui::Event::Key {
                            key: egui::Key::Enter,
                            pressed: true,
                            ..
                        }
                    )
                })?;
                let after: Vec<egui::Event> = i.events.drain(enter + 1..).collect();
                Some(
                    after
                        .into_iter()
                        .filter_map(|e| match e {
                            egui::Event::Text(t) => Some(t),
                            _ => None,
                        })
                        .collect::<String>(),
                )
            })
        } else {
            None
        };
        let response = ui.add(
            egui::TextEdit::singleline(&mut self.input)
                .id(id)
                .font(egui::TextStyle::Monospace)
                .hint_text(HINT)
                .desired_width(f32::INFINITY),
        );
        if tab && (response.has_focus() || response.lost_focus()) && !suggestions.is_empty() {
            take = Some(0);
        }
        if let Some(line) = take.and_then(|i| suggestions.get(i)) {
            self.input = line.clone();
            self.browsing = None;
            response.request_focus();
            move_cursor_to_end(ui, response.id, &self.input);
        }
        if self.focus_requested {
            self.focus_requested = false;
            response.request_focus();
        }
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
                commands.push(AppCommand::RunLine(line));
            }
            if let Some(rest) = typed_after_enter {
                self.input = rest;
                move_cursor_to_end(ui, response.id, &self.input);
            }
            response.request_focus();
        }
    }
}

/// Puts the text cursor after the last character of the input.
fn move_cursor_to_end(ui: &egui::Ui, id: egui::Id, text: &str) {
    if let Some(mut state) = egui::TextEdit::load_state(ui.ctx(), id) {
        let end = egui::text::CCursor::new(text.chars().count());
        state
            .cursor
            .set_char_range(Some(egui::text::CCursorRange::one(end)));
        state.store(ui.ctx(), id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_prefers_prefixes_and_runs() {
        assert!(fuzzy_score("mnyb", "ui_moneyback").is_some());
        assert!(fuzzy_score("xyz", "ui_moneyback").is_none());
        let a = fuzzy_score("ui_mon", "ui_moneyback").unwrap();
        let b = fuzzy_score("ui_mon", "vox_ui_amount").unwrap_or(i32::MIN);
        assert!(a > b);
    }

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
