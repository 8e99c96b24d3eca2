//! The source view: a read-only MakeTrax source file with line numbers, scrolled to
//! and highlighting the line a problem or label points at — and the track debugger's
//! face (`docs/debugger.md`): a gutter to set and clear breakpoints (a dot; hollow when
//! disabled), the paused line highlighted with a marker, a toolbar (continue, step
//! over, step into, step instruction, to wait) and the breakpoints list. Every button
//! sends the debugger command it stands for, so the console history can replay it.

use crate::{AppCommand, Panel, PanelContext, display_path, theme};
use engine_core::host::command::{Command, DebugCommand};
use engine_core::runtime::debug::{BreakAt, Breakpoint, DebugView, StepKind};
use engine_core::runtime::engine::GoOn;
use std::path::Path;

/// UI state of the source view.
#[derive(Debug, Clone, Default)]
pub struct SourceViewPanel {
    scrolled_to: Option<(std::path::PathBuf, u32)>,
    /// The pause scrolled to last (its file and line), so a new one scrolls again.
    paused_seen: Option<(std::path::PathBuf, u32)>,
}

/// Width of the gutter, in points.
const GUTTER: f32 = 16.0;

/// The toolbar's buttons: label, shortcut and how the engine goes on.
pub const GO_ON_BUTTONS: [(&str, &str, GoOn); 5] = [
    ("Continue", "F5", GoOn::Continue),
    ("Step over", "F10", GoOn::Step(StepKind::Over)),
    ("Step into", "F11", GoOn::Step(StepKind::Into)),
    ("Step instruction", "", GoOn::Step(StepKind::Instruction)),
    ("To wait", "", GoOn::Step(StepKind::ToWait)),
];

/// A debugger command as a panel sends it.
fn debug(command: DebugCommand) -> AppCommand {
    AppCommand::Run(Command::Debug(command))
}

/// True when the breakpoint's file is `path` (its name or the end of its path).
fn same_file(path: &Path, file: &str) -> bool {
    path.ends_with(Path::new(file))
}

/// The line breakpoints on `path`, by line.
fn breakpoints_in<'d>(view: &'d DebugView, path: &Path) -> Vec<(u32, &'d Breakpoint)> {
    view.breakpoints
        .iter()
        .filter_map(|b| match &b.at {
            BreakAt::Line { file, line } if same_file(path, file) => Some((*line, b)),
            _ => None,
        })
        .collect()
}

/// The command that toggles a breakpoint on `line` of the file shown as `shown`:
/// delete the one there, or set one.
pub fn toggle_breakpoint(view: &DebugView, path: &Path, shown: &str, line: u32) -> AppCommand {
    match breakpoints_in(view, path).iter().find(|(l, _)| *l == line) {
        Some((_, b)) => debug(DebugCommand::Delete(Some(b.id))),
        None => debug(DebugCommand::Break {
            at: BreakAt::Line {
                file: shown.to_string(),
                line,
            },
            condition: None,
        }),
    }
}

impl Panel for SourceViewPanel {
    fn title(&self) -> &'static str {
        "Source"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let view = &ctx.live.debug;
        let live = ctx.capture.is_none();
        if live && (view.paused.is_some() || !view.breakpoints.is_empty() || view.break_on_fault) {
            toolbar(ui, view, commands);
            breakpoint_list(ui, view, commands);
            ui.separator();
        }
        let Some(source) = ctx.source else {
            ui.label("Click a problem or a label to see its source here.");
            return;
        };
        let shown = display_path(ctx.project, &source.path);
        ui.horizontal(|ui| {
            ui.strong(&shown);
            if live {
                ui.weak("· click beside a line number to set or clear a breakpoint (F9)");
            }
        });
        ui.separator();
        let paused_line = view.paused.as_ref().and_then(|p| {
            let (file, line) = p.place.as_ref()?;
            source.path.ends_with(file).then_some(*line)
        });
        let target = (source.path.clone(), source.line);
        let mut scroll = self.scrolled_to.as_ref() != Some(&target);
        let pause_target = paused_line.map(|l| (source.path.clone(), l));
        let scroll_to_pause = pause_target.is_some() && pause_target != self.paused_seen;
        self.paused_seen = pause_target;
        if scroll_to_pause {
            scroll = false;
        }
        let marks = breakpoints_in(view, &source.path);
        let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (index, line) in source.text.lines().enumerate() {
                    let number = index as u32 + 1;
                    let current = number == source.line;
                    let paused = paused_line == Some(number);
                    let response = ui
                        .horizontal(|ui| {
                            ui.spacing_mut().item_spacing.x = 2.0;
                            let mark = marks.iter().find(|(l, _)| *l == number).map(|(_, b)| *b);
                            let gutter = gutter(ui, row_height, mark, paused, live, number);
                            if gutter.clicked() {
                                commands.push(toggle_breakpoint(
                                    view,
                                    &source.path,
                                    &shown,
                                    number,
                                ));
                            }
                            let text =
                                egui::RichText::new(format!("{number:>5}  {line}")).monospace();
                            if paused {
                                ui.label(text.background_color(theme::PAUSED_LINE))
                            } else if current {
                                ui.label(text.background_color(ui.visuals().selection.bg_fill))
                            } else {
                                ui.label(text)
                            }
                        })
                        .inner;
                    if (current && scroll) || (paused && scroll_to_pause) {
                        // Down to the line, but not sideways: the gutter stays in view
                        // however long the line is (centring the line's left end is as
                        // far left as the view goes).
                        let start = egui::Rect::from_min_size(
                            egui::pos2(ui.min_rect().left(), response.rect.top()),
                            egui::vec2(0.0, response.rect.height()),
                        );
                        ui.scroll_to_rect(start, Some(egui::Align::Center));
                    }
                }
            });
        self.scrolled_to = Some(target);
    }
}

/// The gutter cell of a line: a dot for a breakpoint (hollow when disabled), an arrow
/// for the paused line; clickable (live) to toggle a breakpoint.
fn gutter(
    ui: &mut egui::Ui,
    height: f32,
    mark: Option<&Breakpoint>,
    paused: bool,
    live: bool,
    number: u32,
) -> egui::Response {
    let sense = if live {
        egui::Sense::click()
    } else {
        egui::Sense::hover()
    };
    let (rect, response) = ui.allocate_exact_size(egui::vec2(GUTTER, height), sense);
    let painter = ui.painter();
    let centre = rect.center();
    let radius = (height * 0.3).min(5.0);
    if response.hovered() && live && mark.is_none() {
        painter.circle_stroke(centre, radius, (1.0, theme::BREAKPOINT.gamma_multiply(0.5)));
    }
    if let Some(b) = mark {
        if b.enabled {
            painter.circle_filled(centre, radius, theme::BREAKPOINT);
        } else {
            painter.circle_stroke(centre, radius, (1.5, theme::BREAKPOINT));
        }
    }
    if paused {
        let w = radius * 1.4;
        let points = vec![
            centre + egui::vec2(-w * 0.6, -w),
            centre + egui::vec2(w, 0.0),
            centre + egui::vec2(-w * 0.6, w),
        ];
        painter.add(egui::Shape::convex_polygon(
            points,
            theme::PAUSED_MARK,
            egui::Stroke::NONE,
        ));
    }
    let label = match (mark, paused) {
        (Some(b), _) => format!("breakpoint {} on line {number}", b.id),
        (None, true) => format!("paused on line {number}"),
        (None, false) => format!("set a breakpoint on line {number}"),
    };
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, live, label.clone()));
    response
}

/// Continue, the steps, and where the engine is paused.
fn toolbar(ui: &mut egui::Ui, view: &DebugView, commands: &mut Vec<AppCommand>) {
    ui.horizontal_wrapped(|ui| {
        let paused = view.paused.is_some();
        for (label, key, how) in GO_ON_BUTTONS {
            let hover = if key.is_empty() {
                label.to_string()
            } else {
                format!("{label} ({key})")
            };
            if ui
                .add_enabled(paused, egui::Button::new(label))
                .on_hover_text(hover)
                .clicked()
            {
                commands.push(debug(DebugCommand::GoOn(how)));
            }
        }
        ui.separator();
        match &view.paused {
            Some(p) => {
                ui.colored_label(
                    theme::PAUSED_MARK,
                    egui::RichText::new(p.to_string()).strong(),
                );
            }
            None => {
                ui.weak("running — a breakpoint pauses the engine");
            }
        }
    });
}

/// Every breakpoint: on or off, its place and condition, hits, delete; break on fault.
fn breakpoint_list(ui: &mut egui::Ui, view: &DebugView, commands: &mut Vec<AppCommand>) {
    egui::CollapsingHeader::new(format!("Breakpoints ({})", view.breakpoints.len()))
        .id_salt("debugger-breakpoints")
        .default_open(true)
        .show(ui, |ui| {
            for b in &view.breakpoints {
                ui.horizontal(|ui| {
                    let mut on = b.enabled;
                    if ui
                        .checkbox(&mut on, format!("{}: {}", b.id, b.at))
                        .changed()
                    {
                        commands.push(debug(DebugCommand::Enable(b.id, on)));
                    }
                    if let Some(c) = &b.condition {
                        ui.monospace(format!("if {c}"));
                    }
                    ui.weak(format!("{} hit(s)", b.hits));
                    if ui.small_button("Delete").clicked() {
                        commands.push(debug(DebugCommand::Delete(Some(b.id))));
                    }
                });
            }
            ui.horizontal(|ui| {
                let mut on = view.break_on_fault;
                if ui.checkbox(&mut on, "Break on fault").changed() {
                    commands.push(debug(DebugCommand::BreakOnFault(on)));
                }
                if !view.breakpoints.is_empty() && ui.small_button("Delete all").clicked() {
                    commands.push(debug(DebugCommand::Delete(None)));
                }
            });
        });
}
