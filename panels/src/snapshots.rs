//! A/B snapshots in the Properties panel (`docs/tuning.md`): the unsaved edits stored
//! as A or B, switched between while a loop or script plays (the engine takes each at
//! once), one of them kept; and the diff — every field whose value differs between A
//! and B.

use crate::properties::{PropertiesData, SnapshotData};
use crate::{AppCommand, SnapshotCommand, theme};

const NAMES: [&str; 2] = ["A", "B"];

/// Store, recall and keep for A and B.
pub fn ab_bar(ui: &mut egui::Ui, data: &PropertiesData, commands: &mut Vec<AppCommand>) {
    let snapshots = &data.snapshots;
    ui.horizontal_wrapped(|ui| {
        ui.label("Snapshots");
        for (slot, name) in NAMES.iter().enumerate() {
            ui.separator();
            let stored = snapshots.stored[slot];
            let active = snapshots.active == Some(slot);
            let recall = egui::Button::new(egui::RichText::new(*name).strong()).selected(active);
            let response = ui
                .add_enabled(stored.is_some(), recall)
                .on_hover_text(match stored {
                    Some(n) => format!("switch to {name}: its {n} edited field(s), heard at once"),
                    None => format!("{name} is empty: store the edits as {name} first"),
                });
            if response.clicked() {
                commands.push(AppCommand::Snapshot(SnapshotCommand::Recall(slot)));
            }
            if ui
                .button(format!("Store {name}"))
                .on_hover_text(format!("keep the unsaved edits as they are now as {name}"))
                .clicked()
            {
                commands.push(AppCommand::Snapshot(SnapshotCommand::Store(slot)));
            }
            if ui
                .add_enabled(stored.is_some(), egui::Button::new(format!("Keep {name}")))
                .on_hover_text(format!(
                    "keep {name}'s edits (to save or revert) and forget both snapshots"
                ))
                .clicked()
            {
                commands.push(AppCommand::Snapshot(SnapshotCommand::Keep(slot)));
            }
        }
        if let Some(active) = snapshots.active {
            ui.separator();
            ui.colored_label(theme::EDITED, format!("hearing {}", NAMES[active]));
        }
    });
}

/// Every field that differs between A and B.
pub fn diff_view(
    ui: &mut egui::Ui,
    project: &engine_core::toolchain::project::Project,
    snapshots: &SnapshotData,
) {
    if snapshots.stored.iter().all(Option::is_none) {
        return;
    }
    if snapshots.diff.is_empty() {
        ui.weak("A and B are the same.");
        return;
    }
    ui.strong(format!(
        "A and B differ in {} field(s)",
        snapshots.diff.len()
    ));
    egui::Grid::new("snapshot-diff")
        .num_columns(4)
        .striped(true)
        .show(ui, |ui| {
            for header in ["", "field", "A", "B"] {
                ui.weak(header);
            }
            ui.end_row();
            for row in &snapshots.diff {
                ui.label(&row.target);
                ui.label(row.property.label());
                for value in &row.values {
                    ui.monospace(crate::properties::shown_value(project, row.property, value));
                }
                ui.end_row();
            }
        });
}
