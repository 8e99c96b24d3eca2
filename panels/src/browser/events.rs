//! The Project browser's events: each with its type and target, auditioned as a UI
//! sound (`ui <event>`) or, for a TV or radio event, from a receiver of the lot
//! (`sev <event> @<receiver>`); a click on its name selects its track.

use super::Lookup;
use super::widgets::{Action, Columns, action_button, cell, name_label, source_link};
use crate::{AppCommand, PanelContext, Selection};
use engine_core::host::command::Command;
use engine_core::toolchain::project::{EventDef, EventType};
use engine_core::tools::properties::PropertyTarget;
use engine_core::world::music::MusicMode;

fn event_type_name(t: EventType) -> String {
    match t {
        EventType::Play => "Play".into(),
        EventType::Stop => "Stop".into(),
        EventType::Kill => "Kill".into(),
        EventType::UpdateVolPan => "UpdateVolPan".into(),
        EventType::KillAll => "KillAll".into(),
        EventType::KillInstance => "KillInstance".into(),
        EventType::TurnOnTv => "TurnOnTV".into(),
        EventType::TurnOffTv => "TurnOffTV".into(),
        EventType::SetMusicMode => "SetMusicMode".into(),
        EventType::PlayPiano => "PlayPiano".into(),
        EventType::Debug { trace, on } => {
            format!("Debug{trace:?}{}", if on { "On" } else { "Off" })
        }
        EventType::Other(n) => format!("type {n}"),
    }
}

/// What an event refers to: its track, station or music mode.
fn event_target(ctx: &PanelContext<'_>, event: &EventDef) -> String {
    match event.event_type {
        EventType::TurnOnTv | EventType::TurnOffTv => {
            let name = ctx
                .live
                .world
                .stations
                .iter()
                .find(|s| s.code == event.track_id)
                .map(|s| format!(" ({})", s.name))
                .unwrap_or_default();
            format!("station {}{name}", event.track_id)
        }
        EventType::SetMusicMode => match MusicMode::from_number(event.track_id) {
            Some(mode) => format!("mode {} ({})", event.track_id, mode.name()),
            None => format!("mode {}", event.track_id),
        },
        EventType::KillAll | EventType::Debug { .. } => String::new(),
        _ => match ctx.project.track(event.track_id) {
            Some(track) => format!("track 0x{:x} {}", track.id, track.name),
            None => format!("track 0x{:x} (not defined)", event.track_id),
        },
    }
}

/// What a search matches in an event: its name, type and target.
pub(super) fn event_hay(ctx: &PanelContext<'_>, event: &EventDef) -> String {
    format!(
        "{} {} {}",
        event.name,
        event_type_name(event.event_type),
        event_target(ctx, event)
    )
    .to_lowercase()
}

/// An event's row: audition (with more choices on right-click), name (selects its
/// track), definition, type and target.
pub(super) fn event_row(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    lookup: &Lookup<'_>,
    cols: &Columns,
    event: &EventDef,
    commands: &mut Vec<AppCommand>,
) {
    let name = &event.name.to_string();
    let ui_sound = Command::UiSound { name: name.clone() };
    // The controlled character by number, when the engine says who it is: the line
    // says where it plays from, and Stop knows whom to quiet.
    let from_character = Command::SoundEvent {
        name: name.clone(),
        object: ctx.live.controlled,
    };
    let mut action = match event.event_type {
        EventType::TurnOnTv | EventType::TurnOffTv => {
            match lookup.receiver_for_event(event.track_id) {
                Some(o) => {
                    let from_receiver = Command::SoundEvent {
                        name: name.clone(),
                        object: Some(o.id),
                    };
                    Action::new(
                        format!("Play event {name}"),
                        format!(
                            "{from_receiver}: a TV or radio event needs a receiver; this \
                             one is sent from {} (object {})",
                            o.name, o.id
                        ),
                        vec![from_receiver],
                    )
                }
                None => Action::new(
                    format!("Play event {name}"),
                    "A TV or radio event needs a receiver object, and the lot has none".into(),
                    Vec::new(),
                ),
            }
        }
        _ => Action::new(
            format!("Play event {name}"),
            format!(
                "{ui_sound}: plays it as a UI sound (centred, full volume, no source \
                 object). Right-click to play it from the controlled character \
                 instead ({from_character}), which a person's voice needs"
            ),
            vec![ui_sound.clone()],
        ),
    };
    action.more.push((
        format!("From the controlled character ({from_character})"),
        from_character,
    ));
    action
        .more
        .push((format!("As a UI sound ({ui_sound})"), ui_sound));
    action_button(ui, action, commands);
    let track = match event.event_type {
        EventType::Play
        | EventType::Stop
        | EventType::Kill
        | EventType::UpdateVolPan
        | EventType::KillInstance
        | EventType::PlayPiano
        | EventType::Other(_) => ctx.project.track(event.track_id),
        _ => None,
    };
    cell(ui, cols.name, cols.height, |ui| {
        let selected =
            track.is_some_and(|t| ctx.selection == Some(&Selection::Track(t.name.to_string())));
        let tip = match track {
            Some(_) => "Select its track (right-click: the event mapping's properties)",
            None => "Show the event mapping's properties",
        };
        let label = name_label(ui, name, selected, tip);
        label.context_menu(|ui| {
            if ui.button("Event mapping properties").clicked() {
                commands.push(AppCommand::ShowProperties(PropertyTarget::Event(
                    name.to_ascii_lowercase(),
                )));
                ui.close();
            }
        });
        if label.clicked() {
            commands.push(match track {
                Some(t) => AppCommand::Select(Selection::Track(t.name.to_string())),
                None => {
                    AppCommand::ShowProperties(PropertyTarget::Event(name.to_ascii_lowercase()))
                }
            });
        }
    });
    cell(ui, cols.place, cols.height, |ui| {
        source_link(ui, ctx, &format!("event {name}"), &event.origin, commands);
    });
    let mut details = event_type_name(event.event_type);
    let target = event_target(ctx, event);
    if !target.is_empty() {
        details.push_str(" — ");
        details.push_str(&target);
    }
    if event.implicit {
        details.push_str("  (made from its label)");
    }
    ui.add(egui::Label::new(details).truncate());
}
