//! The Project browser's global hit lists: their entries, auditioned by their first
//! patch with a sample file.

use super::Lookup;
use super::widgets::{Action, Columns, action_button, cell, source_link};
use crate::{AppCommand, PanelContext};
use engine_core::host::command::Command;
use engine_core::toolchain::project::HitListDef;

/// What a search matches in a hit list: its ID (decimal and hex) and name.
pub(super) fn list_hay(list: &HitListDef, lookup: &Lookup<'_>) -> String {
    format!(
        "{} 0x{:x} {}",
        list.id,
        list.id,
        lookup.list_names.get(&list.id).copied().unwrap_or_default()
    )
    .to_lowercase()
}

/// A hit list's row: audition, ID and name, definition, and its first entries.
pub(super) fn list_row(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    lookup: &Lookup<'_>,
    cols: &Columns,
    list: &HitListDef,
    commands: &mut Vec<AppCommand>,
) {
    // A list plays one of its patches: audition the first one that is a patch.
    let first = list
        .entries
        .iter()
        .find_map(|id| ctx.project.patches.get(id))
        .filter(|p| p.file.is_some());
    let play = first.map(|p| (Command::Play(p.id.to_string()), p));
    let action = Action::new(
        format!("Play hit list {}", list.id),
        match &play {
            Some((play, p)) => format!("{play}: auditions its first patch, {}", p.name),
            None => "None of its entries is a patch with a sample file".into(),
        },
        play.into_iter().map(|(play, _)| play).collect(),
    );
    action_button(ui, action, commands);
    cell(ui, cols.name, cols.height, |ui| {
        let text = match lookup.list_names.get(&list.id) {
            Some(name) => format!("{} {name}", list.id),
            None => list.id.to_string(),
        };
        ui.add(egui::Label::new(text).truncate());
    });
    cell(ui, cols.place, cols.height, |ui| {
        source_link(
            ui,
            ctx,
            &format!("hit list {}", list.id),
            &list.origin,
            commands,
        );
    });
    let shown: Vec<String> = list.entries.iter().take(8).map(u32::to_string).collect();
    let more = if list.entries.len() > 8 { ", …" } else { "" };
    ui.add(
        egui::Label::new(format!(
            "{} entr{}: {}{more}",
            list.entries.len(),
            if list.entries.len() == 1 { "y" } else { "ies" },
            shown.join(", ")
        ))
        .truncate(),
    );
}
