//! The Project browser's patches and the sample files they name: each patch with its
//! file (red when it was not found at load), each distinct sample file with the patches
//! that name it; both auditioned with `play`.

use super::widgets::{Action, Columns, action_button, cell, name_label, source_link};
use crate::{AppCommand, PanelContext};
use engine_core::host::command::Command;
use engine_core::toolchain::project::PatchDef;
use engine_core::tools::properties::PropertyTarget;
use std::collections::BTreeMap;

/// One sample file and the patches naming it.
#[derive(Debug)]
pub(super) struct SampleRow<'a> {
    /// The name `play` takes: the resource-cache name when the file was found, else the
    /// path as written (with `/`).
    name: String,
    /// The patches naming it, by ID.
    patches: Vec<&'a PatchDef>,
    /// The file was found when the project loaded.
    found: bool,
}

/// The name of a patch's sample file: the resource-cache name when the file was found,
/// else the path as written (with `/`).
fn sample_name(patch: &PatchDef) -> String {
    patch
        .resource
        .as_deref()
        .map_or_else(|| patch.path_text.replace('\\', "/"), str::to_owned)
}

/// The distinct sample files the project's patches name, by name.
pub(super) fn sample_rows(patches: &BTreeMap<u32, Box<PatchDef>>) -> Vec<SampleRow<'_>> {
    let mut by_name: BTreeMap<String, SampleRow<'_>> = BTreeMap::new();
    for patch in patches.values() {
        let name = sample_name(patch);
        if name.is_empty() {
            continue;
        }
        let row = by_name.entry(name.to_lowercase()).or_insert(SampleRow {
            name,
            patches: Vec::new(),
            found: false,
        });
        row.found |= patch.file.is_some();
        row.patches.push(patch);
    }
    by_name.into_values().collect()
}

/// What a search matches in a patch: its ID (decimal and hex), name and file as written.
pub(super) fn patch_hay(patch: &PatchDef) -> String {
    format!(
        "{} 0x{:x} {} {}",
        patch.id, patch.id, patch.name, patch.path_text
    )
    .to_lowercase()
}

/// What a search matches in a sample file: its name and its patches' names.
pub(super) fn sample_hay(sample: &SampleRow<'_>) -> String {
    let mut hay = sample.name.to_lowercase();
    for patch in &sample.patches {
        hay.push(' ');
        hay.push_str(&patch.name.to_lowercase());
    }
    hay
}

/// A patch's row: audition, name, definition, and its file (red when missing).
pub(super) fn patch_row(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    cols: &Columns,
    patch: &PatchDef,
    commands: &mut Vec<AppCommand>,
) {
    let found = patch.file.is_some();
    let play = found.then(|| Command::Play(patch.id.to_string()));
    let action = Action::new(
        format!("Play patch {}", patch.id),
        match &play {
            Some(play) => format!("{play}: auditions the patch once as a UI sound"),
            None => "Its sample file was not found when the project loaded".into(),
        },
        play.into_iter().collect(),
    );
    action_button(ui, action, commands);
    cell(ui, cols.name, cols.height, |ui| {
        let selected = ctx.properties.target == Some(PropertyTarget::Patch(patch.id));
        let text = format!("{} {}", patch.id, patch.name);
        if name_label(ui, &text, selected, "Show the patch's properties").clicked() {
            commands.push(AppCommand::ShowProperties(PropertyTarget::Patch(patch.id)));
        }
    });
    cell(ui, cols.place, cols.height, |ui| {
        source_link(
            ui,
            ctx,
            &format!("patch {}", patch.id),
            &patch.origin,
            commands,
        );
    });
    let mut text = sample_name(patch);
    if patch.looped {
        text.push_str(" · loops");
    }
    if patch.piano {
        text.push_str(" · piano");
    }
    if found {
        ui.add(egui::Label::new(text).truncate());
    } else {
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!("{text} (sample file missing)"))
                    .color(ui.visuals().error_fg_color),
            )
            .truncate(),
        );
    }
}

/// A sample file's row: audition, name (red when missing), and the patches naming it.
pub(super) fn sample_row(
    ui: &mut egui::Ui,
    cols: &Columns,
    sample: &SampleRow<'_>,
    commands: &mut Vec<AppCommand>,
) {
    let play = sample.found.then(|| Command::Play(sample.name.clone()));
    let action = Action::new(
        format!("Play sample {}", sample.name),
        match &play {
            Some(play) => format!("{play}: auditions the file once as a UI sound"),
            None => "The file was not found when the project loaded".into(),
        },
        play.into_iter().collect(),
    );
    action_button(ui, action, commands);
    let width = cols.name + cols.place + ui.spacing().item_spacing.x;
    cell(ui, width, cols.height, |ui| {
        let text = egui::RichText::new(&sample.name);
        let text = if sample.found {
            text
        } else {
            text.color(ui.visuals().error_fg_color)
        };
        ui.add(egui::Label::new(text).truncate());
    });
    let names: Vec<String> = sample
        .patches
        .iter()
        .take(4)
        .map(|p| format!("{} {}", p.id, p.name))
        .collect();
    let more = if sample.patches.len() > 4 {
        ", …"
    } else {
        ""
    };
    let mut text = format!("patch {}{more}", names.join(", "));
    if !sample.found {
        text.push_str(" · missing");
    }
    ui.add(egui::Label::new(text).truncate());
}
