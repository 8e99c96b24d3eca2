//! The Project browser's tracks: group, priority and volume, a link to their code, and
//! an audition that plays the event that starts the track (or its patch); a click on the
//! name selects the track for the other panels.

use super::widgets::{Action, Columns, action_button, cell, name_label, source_link};
use crate::{AppCommand, PanelContext, Selection};
use engine_core::host::command::Command;
use engine_core::toolchain::project::{EventType, TrackDef};

/// What a search matches in a track: its ID (hex and decimal), name and group.
pub(super) fn track_hay(track: &TrackDef) -> String {
    format!(
        "0x{:x} {} {} {}",
        track.id,
        track.id,
        track.name,
        track.control_group.name()
    )
    .to_lowercase()
}

/// A track's row: audition, name (selects it), definition, group, priority and volume,
/// and a link to its code.
pub(super) fn track_row(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    cols: &Columns,
    track: &TrackDef,
    commands: &mut Vec<AppCommand>,
) {
    let starter = ctx.project.events.values().find(|e| {
        e.track_id == track.id && matches!(e.event_type, EventType::Play | EventType::PlayPiano)
    });
    let action = match (starter, track.patch) {
        (Some(event), _) => {
            let ui_sound = Command::UiSound {
                name: event.name.to_string(),
            };
            Action::new(
                format!("Play track 0x{:x}", track.id),
                format!("{ui_sound}: plays the event that starts this track as a UI sound"),
                vec![ui_sound],
            )
        }
        (None, Some(patch)) => {
            let play = Command::Play(patch.to_string());
            Action::new(
                format!("Play track 0x{:x}", track.id),
                format!("{play}: no event starts this track; plays its patch"),
                vec![play],
            )
        }
        (None, None) => Action::new(
            format!("Play track 0x{:x}", track.id),
            "No event starts this track and it has no patch".into(),
            Vec::new(),
        ),
    };
    action_button(ui, action, commands);
    cell(ui, cols.name, cols.height, |ui| {
        let selected = ctx.selection == Some(&Selection::Track(track.name.to_string()));
        let text = format!("0x{:x} {}", track.id, track.name);
        let tip = "Select this track (the voices and threads panels show it)";
        if name_label(ui, &text, selected, tip).clicked() {
            commands.push(AppCommand::Select(Selection::Track(track.name.to_string())));
        }
    });
    cell(ui, cols.place, cols.height, |ui| {
        source_link(
            ui,
            ctx,
            &format!("track 0x{:x}", track.id),
            &track.origin,
            commands,
        );
    });
    ui.add(
        egui::Label::new(format!(
            "{} · priority {} · volume {}",
            track.control_group.name(),
            track.priority,
            crate::hit_volume_text(i64::from(track.volume))
        ))
        .truncate(),
    );
    if let Some(code) = track.entry.and_then(|at| ctx.project.locate(at)) {
        ui.weak("code");
        source_link(
            ui,
            ctx,
            &format!("the code of track 0x{:x}", track.id),
            &code,
            commands,
        );
    } else if track.entry.is_none() {
        ui.weak("(simple: plays its sound once)");
    }
}
