//! The Problems panel: every load and assemble error and warning, each with its code
//! (`docs/diagnostics.md`), filterable by severity, by code and by text, each clickable
//! to its source line.
//!
//! What is shown is decided by [`ProblemsPanel::shown`] and the code menu by
//! [`codes`], from the diagnostics' severities, codes, files and facts: a message is only
//! ever searched for the text the user typed.

use crate::{AppCommand, Panel, PanelContext, display_path};
use engine_core::host::live::LiveSnapshot;
use engine_core::toolchain::diag::{DiagCode, Diagnostic, Severity};
use engine_core::toolchain::project::Project;

/// Every problem there is now: the project's, and those a hot reload found in files
/// whose last good version still plays (the project does not hold those yet), each
/// once. The Problems panel lists these and the status bar counts them ([`counts`]):
/// one source for both.
pub fn all<'a>(project: &'a Project, live: &'a LiveSnapshot) -> Vec<&'a Diagnostic> {
    let mut all: Vec<&'a Diagnostic> = project.all_diagnostics().collect();
    for d in live.reload.errors.iter().flat_map(|f| &f.diagnostics) {
        let known = all.iter().any(|k| {
            k.file == d.file && k.line == d.line && k.code == d.code && k.message == d.message
        });
        if !known {
            all.push(d);
        }
    }
    all
}

/// How many of `all` are errors and how many warnings.
pub fn counts(all: &[&Diagnostic]) -> (usize, usize) {
    let errors = all.iter().filter(|d| d.is_error()).count();
    (errors, all.len() - errors)
}

/// UI state of the Problems panel.
#[derive(Debug, Clone)]
pub struct ProblemsPanel {
    /// Only rows containing this text (case-insensitive) in their file, code, subject or
    /// message are shown.
    pub filter: String,
    /// Show errors.
    pub show_errors: bool,
    /// Show warnings.
    pub show_warnings: bool,
    /// Only problems of this code; `None` shows every code.
    pub code: Option<DiagCode>,
}

impl Default for ProblemsPanel {
    fn default() -> Self {
        Self {
            filter: String::new(),
            show_errors: true,
            show_warnings: true,
            code: None,
        }
    }
}

/// Every code among `all`, by name, with how many problems have it: the code menu.
pub fn codes<'d>(all: impl IntoIterator<Item = &'d Diagnostic>) -> Vec<(DiagCode, usize)> {
    let mut counts: Vec<(DiagCode, usize)> = Vec::new();
    for d in all {
        match counts.iter_mut().find(|(code, _)| *code == d.code) {
            Some((_, n)) => *n += 1,
            None => counts.push((d.code, 1)),
        }
    }
    counts.sort_by_key(|(code, _)| code.name());
    counts
}

impl ProblemsPanel {
    /// The problems of `all` the panel shows, in order: those of a ticked severity, of
    /// the chosen code (if one is), and holding the filter text.
    pub fn shown<'d>(&self, all: impl IntoIterator<Item = &'d Diagnostic>) -> Vec<&'d Diagnostic> {
        let needle = self.filter.to_lowercase();
        all.into_iter()
            .filter(|d| match d.severity {
                Severity::Error => self.show_errors,
                Severity::Warning => self.show_warnings,
            })
            .filter(|d| self.code.is_none_or(|code| d.code == code))
            .filter(|d| needle.is_empty() || holds(d, &needle))
            .collect()
    }

    /// The Errors / Warnings boxes, the code menu and the filter box.
    fn controls(&mut self, ui: &mut egui::Ui, all: &[&Diagnostic]) {
        let (errors, warnings) = counts(all);
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.show_errors, format!("Errors ({errors})"));
            ui.checkbox(&mut self.show_warnings, format!("Warnings ({warnings})"));
            let codes = codes(all.iter().copied());
            if self
                .code
                .is_some_and(|chosen| codes.iter().all(|(c, _)| *c != chosen))
            {
                self.code = None;
            }
            let selected = self.code.map_or("All codes", DiagCode::name);
            egui::ComboBox::from_label("Code")
                .selected_text(selected)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.code, None, "All codes");
                    for (code, n) in codes {
                        ui.selectable_value(&mut self.code, Some(code), format!("{code} ({n})"))
                            .on_hover_text(code.summary());
                    }
                })
                .response
                .on_hover_text("Show only problems of one code (docs/diagnostics.md)");
            ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("Filter")
                    .desired_width(160.0),
            )
            .on_hover_text("Show only problems whose file, code or message contains this text");
        });
    }
}

/// True if the file, the code, the subject or the message of `d` holds `needle`
/// (lowercase): the user's own search, never a classification.
fn holds(d: &Diagnostic, needle: &str) -> bool {
    let file = d.file.to_string_lossy().to_lowercase();
    let subject = d.subject().unwrap_or_default().to_lowercase();
    d.code.name().contains(needle)
        || file.contains(needle)
        || subject.contains(needle)
        || d.message.to_lowercase().contains(needle)
}

impl Panel for ProblemsPanel {
    fn title(&self) -> &'static str {
        "Problems"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let all: Vec<&Diagnostic> = ctx.problems();
        self.controls(ui, &all);
        ui.separator();
        let shown = self.shown(all.iter().copied());
        if shown.is_empty() {
            ui.label(if all.is_empty() {
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
                for d in shown.get(rows).unwrap_or_default() {
                    row(ui, ctx, d, commands);
                }
            });
    }
}

/// One problem: severity, place (a link to the line), code, message (whole on hover).
fn row(ui: &mut egui::Ui, ctx: &PanelContext<'_>, d: &Diagnostic, commands: &mut Vec<AppCommand>) {
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
            commands.push(AppCommand::OpenSource {
                path: d.file.clone(),
                line: d.line,
            });
        }
        ui.label(egui::RichText::new(format!("[{}]", d.code)).monospace())
            .on_hover_text(d.code.summary());
        // One line a row (the list is virtualised by row): cut at the pane's edge, whole
        // on hover.
        ui.add(crate::cut_label(&d.message))
            .on_hover_text(&d.message);
    });
}
