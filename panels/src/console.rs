//! The Console panel: type the commands QA and designers use (`sev <event>`,
//! `quietall`, `trace sample on`, `volume fx 0.5`, `help`) and read the replies.
//! Up and Down walk through what was typed before; while typing, command words, event
//! names, objects after `@` (by ID or name), music modes, stations and trace kinds are
//! completed with fuzzy matching (`sev ui mnyb` finds `ui_moneyback`): Tab takes the
//! first suggestion and goes round them (Shift+Tab back) with the keyboard staying in
//! the input, a click takes any; the strip sits above the input, never over it. Enter
//! brings the newest reply into view. Ctrl+Alt+C (the game's shortcut) focuses the input
//! from anywhere in the window.

use crate::{AppCommand, Panel, PanelContext};
use engine_core::host::command::WORDS;
use engine_core::host::live::Reply;
use engine_core::runtime::SampleTime;
use engine_core::toolchain::project::Project;
use engine_core::world::director::WorldView;
use engine_core::world::music::MusicMode;

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

/// One completion: the whole line as it would read, and what the suggestion strip shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The line with the word completed.
    pub line: String,
    /// The suggestion as shown (`@1 Bob Newbie`, `vox_greet`, `28 action`).
    pub shown: String,
}

/// Completions of the line being typed, knowing the lot: an `@` word completes to an
/// object (matched by ID or, fuzzily, by name; completed to its ID), `mode` to a music
/// mode, `turnon <object>` to a station, `trace` to a trace kind and `on`/`off`; the rest
/// as [`completions`] does.
pub fn suggestions(input: &str, project: &Project, world: &WorldView) -> Vec<Completion> {
    let trimmed = input.trim_start();
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let ends_word = !trimmed.is_empty() && !trimmed.ends_with(char::is_whitespace);
    let (done, last) = match (ends_word, words.split_last()) {
        (true, Some((last, done))) => (done.to_vec(), *last),
        _ => (words.clone(), ""),
    };
    let line_with = |word: &str| {
        let mut parts: Vec<&str> = done.clone();
        parts.push(word);
        format!("{} ", parts.join(" "))
    };
    let head = done.first().map(|w| w.to_ascii_lowercase());
    let pick = |candidates: Vec<(String, String)>| -> Vec<Completion> {
        let mut scored: Vec<(i32, String, String)> = candidates
            .into_iter()
            .filter_map(|(word, shown)| {
                let score = if last.is_empty() {
                    Some(0)
                } else {
                    fuzzy_score(last, &shown).or_else(|| fuzzy_score(last, &word))
                }?;
                Some((score, word, shown))
            })
            .filter(|(_, word, _)| !word.eq_ignore_ascii_case(last))
            .collect();
        scored.sort_by_key(|c| std::cmp::Reverse(c.0));
        scored
            .into_iter()
            .take(SUGGESTIONS)
            .map(|(_, word, shown)| Completion {
                line: line_with(&word),
                shown,
            })
            .collect()
    };
    if let Some(typed) = last.strip_prefix('@') {
        let objects = world
            .objects
            .iter()
            .map(|(o, _)| (format!("@{}", o.id), format!("@{} {}", o.id, o.name)));
        let mut found: Vec<(String, String)> = objects.collect();
        if !typed.is_empty() {
            // By ID first: `@1` keeps `@1`, `@12`… in order.
            found.sort_by_key(|(word, _)| !word[1..].starts_with(typed));
        }
        let typed_last = typed.to_string();
        let objects: Vec<Completion> = found
            .into_iter()
            .filter(|(word, shown)| {
                typed_last.is_empty()
                    || word[1..].starts_with(&typed_last)
                    || fuzzy_score(&typed_last, &shown[word.len()..]).is_some()
            })
            .filter(|(word, _)| word != last)
            .take(SUGGESTIONS)
            .map(|(word, shown)| Completion {
                line: line_with(&word),
                shown,
            })
            .collect();
        if !objects.is_empty() {
            return objects;
        }
    }
    if let Some(candidates) = argument_candidates(head.as_deref(), done.len(), project, world) {
        let mut found = pick(candidates);
        if head.as_deref() == Some("break") {
            // A source file, then `:` and the line number to type.
            for completion in &mut found {
                completion.line = format!("break {}:", completion.shown);
            }
        }
        return found;
    }
    completions(input, project)
        .into_iter()
        .map(|line| {
            // A command word shows itself; an event suggestion its name.
            let shown = if line.ends_with(' ') {
                line.trim_end().to_string()
            } else {
                line.split_whitespace().nth(1).unwrap_or(&line).to_string()
            };
            Completion { line, shown }
        })
        .collect()
}

/// What the word at `position` of a command `head` can be, when it is one of a known
/// set: music modes, stations, trace kinds and switches, and paths relative to the
/// project folder (samples after `play`, sources after `break`, lot files after
/// `savelot`) — each as (the word, what the strip shows).
fn argument_candidates(
    head: Option<&str>,
    position: usize,
    project: &Project,
    world: &WorldView,
) -> Option<Vec<(String, String)>> {
    let words = |words: &[&str]| {
        words
            .iter()
            .map(|w| (w.to_string(), w.to_string()))
            .collect()
    };
    let paths = |paths: Vec<String>| paths.into_iter().map(|p| (p.clone(), p)).collect();
    Some(match (head?, position) {
        ("mode", 1) => MusicMode::ALL
            .iter()
            .map(|m| (m.name().to_string(), m.name().to_string()))
            .collect(),
        ("turnon", 2) => world
            .stations
            .iter()
            .map(|s| (s.code.to_string(), format!("{} {}", s.code, s.name)))
            .collect(),
        ("trace", 1) => words(&["events", "samples", "tracks", "all"]),
        ("trace", 2) => words(&["on", "off"]),
        ("play", 1) => paths(
            project
                .samples
                .iter()
                .map(|f| relative(project, f))
                .collect(),
        ),
        ("savelot", 1) => paths(lot_files(project)),
        ("mute" | "solo", 1) => words(&["fx", "music", "vox", "track", "object", "voice"]),
        ("mute" | "solo", 3) => words(&["off"]),
        ("monitor", 1) => words(&["clear"]),
        ("tune", 1) => words(&["track", "patch", "event"]),
        ("break", 1) => paths(
            project
                .units
                .iter()
                .map(|u| relative(project, u.path()))
                .collect(),
        ),
        _ => return None,
    })
}

/// `path` as a command takes it: relative to the project folder, with `/`.
fn relative(project: &Project, path: &std::path::Path) -> String {
    crate::display_path(project, path).replace('\\', "/")
}

/// The lot files (`*.lot`) at the top of the project's folders, as `savelot` takes them.
fn lot_files(project: &Project) -> Vec<String> {
    let mut files: Vec<String> = project
        .dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("lot"))
        })
        .map(|path| relative(project, &path))
        .collect();
    files.sort();
    files
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
    let names = project.events.values().map(|e| &*e.name);
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
    /// Tab cycling: the completions Tab went through, and which is in the input.
    cycle: Option<(Vec<String>, usize)>,
    /// Scroll the history to its newest reply at the next frame (after Enter).
    scroll_to_end: bool,
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
        let suggestions = suggestions(&self.input, ctx.project, &ctx.live.world);
        // The input and the suggestion strip have their room below the history: the
        // strip never covers the input.
        let row = ui.spacing().interact_size.y + 8.0;
        let reserved = if suggestions.is_empty() {
            row
        } else {
            2.0 * row
        };
        let scroll_to_end = std::mem::take(&mut self.scroll_to_end);
        history(ui, ctx, reserved, scroll_to_end);
        let mut take = None;
        if !suggestions.is_empty() {
            ui.horizontal_wrapped(|ui| {
                ui.weak("Tab:");
                for suggestion in &suggestions {
                    if ui
                        .small_button(&suggestion.shown)
                        .on_hover_text(format!("complete to `{}`", suggestion.line.trim_end()))
                        .clicked()
                    {
                        take = Some(suggestion.line.clone());
                    }
                }
            });
        }
        let id = ui.scope_id().with("console-input");
        let focused = ui.memory(|m| m.has_focus(id));
        // Tab and Shift+Tab complete (and cycle) while the input has the keyboard; they
        // never move the keyboard elsewhere.
        let (tab, back) = if focused {
            ui.input_mut(|i| {
                // Shift+Tab first: a plain Tab's check would take it too.
                let back = i.consume_key(egui::Modifiers::SHIFT, egui::Key::Tab);
                (i.consume_key(egui::Modifiers::NONE, egui::Key::Tab), back)
            })
        } else {
            (false, false)
        };
        if (tab || back)
            && let Some(line) = self.cycle_step(&suggestions, back)
        {
            take = Some(line);
        }
        // The text field stops reading a frame's events at Enter: what was typed after
        // it in the same frame (fast typing, a slow frame) is kept for the next line.
        let typed_after_enter = if focused { typed_after_enter(ui) } else { None };
        let before = self.input.clone();
        let response = ui.add(
            egui::TextEdit::singleline(&mut self.input)
                .id(id)
                .font(egui::TextStyle::Monospace)
                .hint_text(HINT)
                .desired_width(f32::INFINITY),
        );
        if self.input != before {
            // Typing ends a Tab cycle.
            self.cycle = None;
        }
        if let Some(line) = take {
            self.input = line;
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
                self.cycle = None;
            }
        }
        if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            if let Some(line) = self.submit() {
                commands.push(AppCommand::RunLine(line));
                self.scroll_to_end = true;
            }
            self.cycle = None;
            if let Some(rest) = typed_after_enter {
                self.input = rest;
                move_cursor_to_end(ui, response.id, &self.input);
            }
            response.request_focus();
        }
    }
}

impl ConsolePanel {
    /// Tab (or Shift+Tab, `back`): the next (previous) completion. A cycle starts from
    /// the suggestions shown and goes round them while the input holds the one it put
    /// there.
    fn cycle_step(&mut self, suggestions: &[Completion], back: bool) -> Option<String> {
        let continuing = self
            .cycle
            .as_ref()
            .is_some_and(|(lines, at)| lines.get(*at) == Some(&self.input));
        if !continuing {
            let lines: Vec<String> = suggestions.iter().map(|c| c.line.clone()).collect();
            if lines.is_empty() {
                return None;
            }
            let at = if back { lines.len() - 1 } else { 0 };
            let line = lines.get(at).cloned();
            self.cycle = Some((lines, at));
            return line;
        }
        let (lines, at) = self.cycle.as_mut()?;
        let n = lines.len();
        *at = if back {
            (*at + n - 1) % n
        } else {
            (*at + 1) % n
        };
        lines.get(*at).cloned()
    }
}

/// The lines run so far and their replies, above the input (which keeps `reserved`
/// points below); `scroll_to_end` brings the newest into view.
fn history(ui: &mut egui::Ui, ctx: &PanelContext<'_>, reserved: f32, scroll_to_end: bool) {
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .max_height((ui.available_height() - reserved).max(0.0))
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
            if scroll_to_end {
                // After Enter the newest reply is in view, however far up the
                // history was scrolled.
                ui.scroll_to_cursor(Some(egui::Align::BOTTOM));
            }
        });
}

/// Takes the text events after the first Enter of this frame out of the input (the text
/// field would drop them) and returns their text; `None` without an Enter.
fn typed_after_enter(ui: &mut egui::Ui) -> Option<String> {
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
