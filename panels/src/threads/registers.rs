//! The Track threads panel's registers: a grid with as many columns as the widest
//! register shown leaves room for in the width the pane shows (one column in a narrow
//! pane, which scrolls sideways to what it cannot show), the volume registers with their dB beside, the paused
//! thread's editable (the debugger's `set`), and the registers the last step changed
//! marked with what they were.

use super::{ThreadsPanel, paused_thread};
use crate::{AppCommand, PanelContext, theme};
use engine_core::host::command::{Command, DebugCommand};
use engine_core::runtime::clock::SampleTime;
use engine_core::toolchain::registers::holds_volume;
use engine_core::tools::inspect::ThreadView;
use std::collections::BTreeMap;

/// Space between the grid's columns.
const GAP: f32 = 8.0;

/// The selected thread's registers as last seen, and which of them changed when it last
/// moved (a step, or any new snapshot while it runs).
#[derive(Debug, Clone, Default)]
pub(super) struct RegisterMarks {
    /// The thread (its index, when it started) and its PC when `values` were seen.
    at: Option<(usize, SampleTime, Option<u32>)>,
    /// Its registers then.
    values: Vec<(String, i32)>,
    /// The registers whose value changed at the last move, with what they were.
    changed: BTreeMap<String, i32>,
}

impl RegisterMarks {
    /// Notes `th` as it is now. When its PC or a register moved since it was last seen,
    /// the registers whose value changed (and what they were) become the marked ones: a
    /// step that changed none leaves none marked. Another thread starts afresh.
    fn update(&mut self, th: &ThreadView) {
        let at = Some((th.thread, th.started_at, th.pc));
        if self.at == at && self.values == th.registers {
            return;
        }
        let same_thread = self
            .at
            .is_some_and(|(thread, started, _)| thread == th.thread && started == th.started_at);
        self.changed = if same_thread {
            th.registers
                .iter()
                .filter_map(|(name, value)| {
                    let before = self.values.iter().find(|(n, _)| n == name)?.1;
                    (before != *value).then(|| (name.clone(), before))
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        self.at = at;
        self.values.clone_from(&th.registers);
    }
}

/// A register's value as shown: a volume register's with its dB beside.
fn value_text(name: &str, value: i32) -> String {
    if holds_volume(name) {
        crate::hit_volume_text(i64::from(value))
    } else {
        value.to_string()
    }
}

impl ThreadsPanel {
    /// The registers the selected thread's last step (or snapshot) changed, by name.
    pub fn changed_registers(&self) -> Vec<&str> {
        self.marks.changed.keys().map(String::as_str).collect()
    }

    /// The selected thread's registers; the paused thread's can be edited (the debugger's
    /// `set`).
    pub(super) fn registers(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        th: &ThreadView,
        commands: &mut Vec<AppCommand>,
    ) {
        self.marks.update(th);
        let editable = ctx.capture.is_none() && paused_thread(ctx) == Some(th.thread);
        ui.horizontal_wrapped(|ui| {
            ui.strong(format!("Registers ({})", th.registers.len()));
            ui.checkbox(&mut self.nonzero_only, "Only non-zero");
            // The legend is always there, so the grid does not move when a mark or the
            // pause comes.
            ui.label(
                egui::RichText::new("changed by the last step")
                    .background_color(theme::REGISTER_CHANGED),
            );
        });
        // One line either way (the grid stays put when the debugger pauses here).
        let hint = if editable {
            egui::RichText::new("paused: drag or type a value to change it")
                .color(theme::PAUSED_MARK)
        } else {
            egui::RichText::new("editable while the debugger holds this thread").weak()
        };
        ui.add(egui::Label::new(hint).truncate());
        let shown: Vec<(&str, i32, String)> = th
            .registers
            .iter()
            .filter(|(_, value)| !self.nonzero_only || *value != 0)
            .map(|(name, value)| (name.as_str(), *value, value_text(name, *value)))
            .collect();
        let columns = columns_that_fit(ui, &shown, editable);
        egui::Grid::new("thread-registers")
            .striped(true)
            .num_columns(columns * 2)
            .spacing([GAP, 2.0])
            .show(ui, |ui| {
                for row in shown.chunks(columns) {
                    for (name, value, text) in row {
                        self.register(ui, (name, *value, text), editable, commands);
                    }
                    ui.end_row();
                }
            });
    }

    /// One register's name and value, marked when the last step changed it.
    fn register(
        &self,
        ui: &mut egui::Ui,
        (name, value, text): (&str, i32, &str),
        editable: bool,
        commands: &mut Vec<AppCommand>,
    ) {
        let was = self.marks.changed.get(name).copied();
        let label = egui::RichText::new(name);
        let label = match was {
            Some(_) => label.strong().background_color(theme::REGISTER_CHANGED),
            None => label.weak(),
        };
        let response = ui.label(label);
        if let Some(was) = was {
            let marked = format!(
                "{name}, changed by the last step (was {})",
                value_text(name, was)
            );
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &marked));
            response.on_hover_text(format!(
                "changed by the last step: was {}, now {text}",
                value_text(name, was)
            ));
        }
        if editable {
            let mut edited = value;
            let field = ui.add(egui::DragValue::new(&mut edited));
            if field.changed() && edited != value {
                commands.push(AppCommand::Run(Command::Debug(DebugCommand::Set {
                    register: name.to_owned(),
                    value: edited,
                })));
            }
            return;
        }
        let rich = egui::RichText::new(text).monospace();
        let rich = match (was, value) {
            (Some(_), _) => rich.strong().background_color(theme::REGISTER_CHANGED),
            (None, 0) => rich.weak(),
            (None, _) => rich.strong(),
        };
        ui.label(rich);
    }
}

/// How many (name, value) pairs fit side by side in the width the pane shows: the most
/// columns for which the grid — each column as wide as its widest cell, as egui lays a
/// grid out — is no wider. At least one.
fn columns_that_fit(ui: &egui::Ui, shown: &[(&str, i32, String)], editable: bool) -> usize {
    let painter = ui.painter();
    let body = egui::TextStyle::Body.resolve(ui.style());
    let mono = egui::TextStyle::Monospace.resolve(ui.style());
    let colour = ui.visuals().text_color();
    let width = |text: &str, font: &egui::FontId| {
        painter
            .layout_no_wrap(text.to_owned(), font.clone(), colour)
            .size()
            .x
    };
    // A grid's column is at least `interact_size.x` wide; a strong (marked) name is a
    // little wider than a weak one.
    let least = ui.spacing().interact_size.x;
    let padding = if editable {
        2.0 * ui.spacing().button_padding.x
    } else {
        0.0
    };
    let cells: Vec<(f32, f32)> = shown
        .iter()
        .map(|(name, _, text)| {
            (
                (width(name, &body) + 1.0).max(least),
                (width(text, &mono) + padding).max(least),
            )
        })
        .collect();
    // What the pane shows of the width left: the panel's other tables may be wider
    // than the pane (it scrolls sideways to them).
    let visible = (ui.clip_rect().right() - ui.cursor().left()).min(ui.available_width());
    let grid_width = |columns: usize| {
        let mut widest = vec![(0.0f32, 0.0f32); columns];
        for (i, (name, value)) in cells.iter().enumerate() {
            let column = &mut widest[i % columns];
            column.0 = column.0.max(*name);
            column.1 = column.1.max(*value);
        }
        let sum: f32 = widest.iter().map(|(name, value)| name + value).sum();
        sum + GAP * (2 * columns - 1) as f32
    };
    (1..=cells.len().max(1))
        .rev()
        .find(|&columns| grid_width(columns) <= visible)
        .unwrap_or(1)
}
