//! The QA panel: the project's QA scripts (`qa/*.qa`, `docs/qa.md`), run one or all
//! offline in the background with progress, each expectation passed or failed with what
//! actually was; a failed one opens its run at that time in the capture view with the
//! Why panel on the decision behind it. **Save console history as QA script…** turns
//! what a tester just did at the console into a script: the lines that ran, timed from
//! the first, and the decisions they caused offered as expectations to tick.
//!
//! The panel reads [`QaData`] (kept by the app) and asks for runs, saves and the
//! failure view with [`AppCommand`]s; it runs nothing itself.

use crate::{AppCommand, Panel, PanelContext, display_path, file_name, theme};
use engine_core::host::qa::{HandLine, QaReport, Recording, ScriptRun, record};
use engine_core::runtime::TraceRecord;
use std::path::PathBuf;

/// Where one script stands.
#[derive(Debug, Clone, Default)]
pub enum QaState {
    /// Not run since the panel listed it.
    #[default]
    NotRun,
    /// Waiting for, or in, a run.
    Running,
    /// Its run: every expectation's outcome, or why it could not run.
    Done(ScriptRun),
}

/// One script of the suite.
#[derive(Debug, Clone)]
pub struct QaScriptState {
    /// The `.qa` file.
    pub file: PathBuf,
    /// Where it stands.
    pub state: QaState,
    /// The file changed on disk since the run its state shows (the result is of the
    /// script before).
    pub changed: bool,
}

/// The QA suite as the app keeps it: what the panel shows.
#[derive(Debug, Clone, Default)]
pub struct QaData {
    /// The project's scripts, by name.
    pub scripts: Vec<QaScriptState>,
    /// Why the suite could not be listed (no `qa` folder, …), if it could not.
    pub problem: Option<String>,
    /// A run under way: scripts done, and of how many.
    pub progress: Option<(usize, usize)>,
    /// How the last save went: the file written, or the problem.
    pub saved: Option<Result<PathBuf, String>>,
}

impl QaData {
    /// How many scripts passed and failed (of those run).
    pub fn tally(&self) -> (usize, usize) {
        self.scripts
            .iter()
            .fold((0, 0), |(passed, failed), s| match &s.state {
                QaState::Done(run) if run.passed() => (passed + 1, failed),
                QaState::Done(_) => (passed, failed + 1),
                _ => (passed, failed),
            })
    }
}

/// UI state of the QA panel.
#[derive(Debug, Clone)]
pub struct QaPanel {
    /// Samples per second of the live engine (for the history's times).
    pub sample_rate: u32,
    /// The save dialog, while open.
    pub saving: Option<SaveDialog>,
}

impl Default for QaPanel {
    fn default() -> Self {
        Self {
            sample_rate: 48_000,
            saving: None,
        }
    }
}

/// "Save console history as QA script…": the recording and the file name.
#[derive(Debug, Clone)]
pub struct SaveDialog {
    /// The lines, what was skipped and the expectations offered (ticked or not).
    pub recording: Recording,
    /// The file's name inside the project's `qa` folder.
    pub name: String,
}

impl SaveDialog {
    /// The dialog for the console history in `ctx`: every line the engine ran (at its
    /// time) with the decisions in the trace since the first.
    pub fn from_history(ctx: &PanelContext<'_>, rate: u32) -> Self {
        let history: Vec<HandLine> = ctx
            .console
            .iter()
            .filter_map(|entry| {
                entry.at.map(|at| HandLine {
                    line: entry.input.clone(),
                    at,
                    ok: entry.reply.is_ok(),
                })
            })
            .collect();
        let first = history.iter().map(|h| h.at).min();
        let records: Vec<TraceRecord> = first.map_or_else(Vec::new, |first| {
            let start = ctx.trace.partition_point(|r| r.time < first);
            ctx.trace.range(start..).cloned().collect()
        });
        let taken: Vec<String> = ctx.qa.scripts.iter().map(|s| file_name(&s.file)).collect();
        let name = (1..)
            .map(|n| format!("console_{n}.qa"))
            .find(|name| !taken.contains(name))
            .unwrap_or_default();
        Self {
            recording: record(&history, &records, rate),
            name,
        }
    }
}

impl Panel for QaPanel {
    fn title(&self) -> &'static str {
        "QA"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let qa = ctx.qa;
        ui.horizontal_wrapped(|ui| {
            let running = qa.progress.is_some();
            let all = ui.add_enabled(
                !running && !qa.scripts.is_empty(),
                egui::Button::new("Run all"),
            );
            if all.clicked() {
                commands.push(AppCommand::RunQa(Vec::new()));
            }
            if running && ui.button("Stop").clicked() {
                commands.push(AppCommand::StopQa);
            }
            if let Some((done, total)) = qa.progress {
                ui.add(
                    egui::ProgressBar::new(done as f32 / total.max(1) as f32)
                        .desired_width(140.0)
                        .text(format!("{done} of {total} script(s)")),
                );
            }
            let (passed, failed) = qa.tally();
            if passed + failed > 0 {
                ui.label(format!("{passed} passed, {failed} failed"));
            }
            ui.separator();
            let history = ctx.console.iter().any(|e| e.at.is_some());
            let save = ui
                .add_enabled(
                    history && ctx.capture.is_none(),
                    egui::Button::new("Save console history as QA script…"),
                )
                .on_disabled_hover_text("run some lines at the Console first");
            if save.clicked() {
                self.saving = Some(SaveDialog::from_history(ctx, self.sample_rate));
            }
        });
        match &qa.saved {
            Some(Ok(path)) => {
                ui.label(format!("saved {}", display_path(ctx.project, path)));
            }
            Some(Err(problem)) => {
                ui.colored_label(ui.visuals().error_fg_color, problem);
            }
            None => {}
        }
        if let Some(problem) = &qa.problem {
            ui.colored_label(ui.visuals().warn_fg_color, problem);
        }
        ui.separator();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for script in &qa.scripts {
                    script_ui(ui, script, qa.progress.is_some(), commands);
                }
            });
        self.save_dialog(ui, ctx, commands);
    }
}

/// One script: its state and name, Run and Open, and its expectations once run.
fn script_ui(
    ui: &mut egui::Ui,
    script: &QaScriptState,
    busy: bool,
    commands: &mut Vec<AppCommand>,
) {
    let visuals = ui.visuals().clone();
    let (glyph, colour, summary) = match &script.state {
        QaState::NotRun => ("—", visuals.weak_text_color(), "not run".to_string()),
        QaState::Running => ("…", visuals.text_color(), "running".to_string()),
        QaState::Done(ScriptRun::Broken(problems)) => (
            "FAIL",
            visuals.error_fg_color,
            format!("cannot run: {} problem(s)", problems.len()),
        ),
        QaState::Done(ScriptRun::Ran(report, _)) => {
            if report.passed() {
                ("ok", theme::PLAYED, report.summary())
            } else {
                ("FAIL", visuals.error_fg_color, report.summary())
            }
        }
    };
    let name = file_name(&script.file);
    // The buttons before the name, so they line up and a narrow tab cuts off the
    // summary rather than them.
    let row = |ui: &mut egui::Ui, commands: &mut Vec<AppCommand>| {
        // As wide as the widest ("FAIL"), in the monospace font, so the buttons align.
        ui.colored_label(
            colour,
            egui::RichText::new(format!("{glyph:<4}"))
                .monospace()
                .strong(),
        );
        if ui.add_enabled(!busy, egui::Button::new("Run")).clicked() {
            commands.push(AppCommand::RunQa(vec![script.file.clone()]));
        }
        if ui.button("Open").clicked() {
            commands.push(AppCommand::OpenSource {
                path: script.file.clone(),
                line: 1,
            });
        }
        ui.label(egui::RichText::new(&name).strong());
        // Before the summary, which a narrow tab cuts off first.
        if script.changed {
            ui.colored_label(visuals.warn_fg_color, "changed on disk")
                .on_hover_text(
                    "the script changed on disk since this run: its result is of the script \
                     as it was then; Run it again",
                );
        }
        ui.label(summary);
    };
    // Only a script that ran has expectations to open.
    let QaState::Done(run) = &script.state else {
        ui.horizontal(|ui| {
            ui.add_space(ui.spacing().indent);
            row(ui, commands);
        });
        return;
    };
    let id = ui.make_persistent_id(("qa", &script.file));
    // A failed script opens by itself …
    let failed = !run.passed();
    let mut state =
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, failed);
    // … and again each time it turns from passing (or not run) to failing.
    let key = id.with("failed");
    if failed && ui.ctx().data(|d| d.get_temp::<bool>(key)) != Some(true) {
        state.set_open(true);
    }
    ui.ctx().data_mut(|d| d.insert_temp(key, failed));
    let header = state.show_header(ui, |ui| row(ui, commands));
    header.body(|ui| match run {
        ScriptRun::Broken(problems) => {
            for problem in problems {
                ui.colored_label(visuals.error_fg_color, problem);
            }
        }
        ScriptRun::Ran(report, _) => results_ui(ui, script, report, &name, commands),
    });
}

/// A run's expectations: each `ok` or `FAIL`, its place (a click opens it), and for a
/// failure what actually was and Show why.
fn results_ui(
    ui: &mut egui::Ui,
    script: &QaScriptState,
    report: &QaReport,
    name: &str,
    commands: &mut Vec<AppCommand>,
) {
    let visuals = ui.visuals().clone();
    let rate = f64::from(report.rate.max(1));
    for (index, result) in report.results.iter().enumerate() {
        let passed = result.outcome.passed;
        ui.horizontal_wrapped(|ui| {
            if passed {
                ui.colored_label(theme::PLAYED, "ok  ");
            } else {
                ui.colored_label(visuals.error_fg_color, "FAIL");
            }
            // Trouble from the project as loaded stands at no line of the script.
            let line = result.expectation.line;
            let place = match line {
                0 => name.to_string(),
                line => format!("{name}:{line}"),
            };
            if ui.link(&place).clicked() {
                commands.push(AppCommand::OpenSource {
                    path: script.file.clone(),
                    line: line.max(1),
                });
            }
            ui.label(result.label());
            if !passed {
                ui.colored_label(
                    visuals.error_fg_color,
                    format!(
                        "actually: {} (at {:.3} s)",
                        result.outcome.actual,
                        result.at.samples() as f64 / rate
                    ),
                );
                let why = ui
                    .button("Show why")
                    .on_hover_text("show this run at that time, with the decision");
                if why.clicked() {
                    commands.push(AppCommand::ShowQaFailure {
                        file: script.file.clone(),
                        result: index,
                    });
                }
            }
        });
    }
}

impl QaPanel {
    /// The save dialog, while open: the lines (each may be left out) beside the
    /// expectations to tick, each list as tall as the window allows, and the file name.
    fn save_dialog(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        let Some(dialog) = &mut self.saving else {
            return;
        };
        let mut open = true;
        let mut close = false;
        let screen = ui.ctx().content_rect();
        egui::Window::new("Save console history as QA script")
            .open(&mut open)
            .collapsible(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .default_width((screen.width() - 80.0).clamp(320.0, 1000.0))
            .max_height(screen.height() - 80.0)
            .show(ui.ctx(), |ui| {
                let recording = &mut dialog.recording;
                let kept = (0..recording.commands.len())
                    .filter(|i| recording.keeps(*i))
                    .count();
                ui.add(
                    egui::Label::new(format!(
                        "{kept} of {} line(s) become the script's commands, timed from the \
                         first on a fresh engine; untick a line to leave it out (and the \
                         expectations about it). Tick the expectations to check:",
                        recording.commands.len()
                    ))
                    .wrap(),
                );
                ui.separator();
                // Room for the lists: the window's height less the name and the buttons.
                let lists = (ui.available_height() - 4.0 * ui.spacing().interact_size.y)
                    .max(4.0 * ui.spacing().interact_size.y);
                ui.columns(2, |columns| {
                    columns[0].strong("Lines");
                    egui::ScrollArea::vertical()
                        .id_salt("qa_save_lines")
                        .max_height(lists)
                        .auto_shrink([false, true])
                        .show(&mut columns[0], |ui| lines_ui(ui, recording));
                    columns[1].strong("Expectations");
                    egui::ScrollArea::vertical()
                        .id_salt("qa_save_offers")
                        .max_height(lists)
                        .auto_shrink([false, true])
                        .show(&mut columns[1], |ui| offers_ui(ui, recording));
                });
                ui.separator();
                ui.horizontal(|ui| {
                    ui.label("qa/");
                    ui.add(
                        egui::TextEdit::singleline(&mut dialog.name)
                            .desired_width(220.0)
                            .hint_text("name.qa"),
                    );
                });
                ui.horizontal(|ui| {
                    let name = dialog.name.trim();
                    let valid = !name.is_empty() && !name.contains(['/', '\\']) && kept > 0;
                    if ui.add_enabled(valid, egui::Button::new("Save")).clicked() {
                        let name = if name.ends_with(".qa") {
                            name.to_string()
                        } else {
                            format!("{name}.qa")
                        };
                        let origin = format!(
                            "{name}: saved from the console of the workbench on {}",
                            file_name(ctx.project.root())
                        );
                        commands.push(AppCommand::SaveQaScript {
                            path: ctx.project.root().join("qa").join(&name),
                            text: recording.script(&origin),
                        });
                        close = true;
                    }
                    if ui.button("Cancel").clicked() {
                        close = true;
                    }
                });
            });
        if !open || close {
            self.saving = None;
        }
    }
}

/// The save dialog's lines: each command ticked to keep it, then those left out by
/// themselves (refused, not commands) and why.
fn lines_ui(ui: &mut egui::Ui, recording: &mut Recording) {
    for index in 0..recording.commands.len() {
        let (seconds, line) = &recording.commands[index];
        let mut keep = recording.keeps(index);
        let text = egui::RichText::new(format!("{seconds:>8.3} {line}")).monospace();
        if ui.checkbox(&mut keep, text).changed() {
            if keep {
                recording.dropped.remove(&index);
            } else {
                recording.dropped.insert(index);
            }
        }
    }
    for (line, why) in &recording.skipped {
        ui.weak(format!("left out: {line} ({why})"));
    }
}

/// The save dialog's expectations, each ticked to check it; one about a line left out
/// cannot be.
fn offers_ui(ui: &mut egui::Ui, recording: &mut Recording) {
    let applies: Vec<bool> = recording
        .offers
        .iter()
        .map(|o| recording.offer_applies(o))
        .collect();
    for (offer, applies) in recording.offers.iter_mut().zip(applies) {
        let text = format!("{:.3} expect {}", offer.seconds, offer.assertion);
        let hover = if applies {
            offer.seen.clone()
        } else {
            format!("{} (its line is left out)", offer.seen)
        };
        ui.add_enabled(applies, egui::Checkbox::new(&mut offer.ticked, text))
            .on_hover_text(hover)
            .on_disabled_hover_text("its line is left out");
    }
}
