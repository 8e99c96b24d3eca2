//! The Project browser's stations (from the running world): their receivers and what
//! is on air, switched on through a receiver tuned to them (`turnon`) and off through
//! their receivers (`turnoff`).

use super::Lookup;
use super::widgets::{Action, Columns, action_button, cell};
use crate::{AppCommand, file_name};
use engine_core::host::command::{Command, WorldCommand};
use engine_core::world::director::StationView;

/// What a search matches in a station: its code, name, receivers and what is on air.
pub(super) fn station_hay(station: &StationView, lookup: &Lookup<'_>) -> String {
    let mut hay = format!("{} {}", station.code, station.name);
    for id in &station.receivers {
        if let Some(o) = lookup.object(*id) {
            hay.push(' ');
            hay.push_str(&o.name);
        }
    }
    if let Some((file, list)) = &station.on_air {
        hay.push_str(&format!(" {} {list}", file.display()));
    }
    hay.to_lowercase()
}

/// A station's row: on or off, code and name, its receivers, and what is on air.
pub(super) fn station_row(
    ui: &mut egui::Ui,
    lookup: &Lookup<'_>,
    cols: &Columns,
    station: &StationView,
    commands: &mut Vec<AppCommand>,
) {
    let code = station.code;
    let action = if station.receivers.is_empty() {
        match lookup.receiver_for(code) {
            Some(o) => {
                let turn_on = Command::World(WorldCommand::TurnOn {
                    object: o.id,
                    station: code,
                });
                Action {
                    glyph: "On",
                    ..Action::new(
                        format!("Turn on station {code}"),
                        format!("{turn_on}: switches on {}, which is tuned to it", o.name),
                        vec![turn_on],
                    )
                }
            }
            None => Action {
                glyph: "On",
                ..Action::new(
                    format!("Turn on station {code}"),
                    "No TV, radio or stereo of the lot is tuned to this station".into(),
                    Vec::new(),
                )
            },
        }
    } else {
        let commands: Vec<Command> = station
            .receivers
            .iter()
            .map(|&object| Command::World(WorldCommand::TurnOff { object }))
            .collect();
        let lines: Vec<String> = commands.iter().map(Command::to_string).collect();
        Action {
            glyph: "Off",
            name: format!("Turn off station {code}"),
            tip: format!("{}: switches its receivers off", lines.join("; ")),
            commands,
            more: Vec::new(),
        }
    };
    action_button(ui, action, commands);
    cell(ui, cols.name, cols.height, |ui| {
        ui.add(egui::Label::new(format!("{code} {}", station.name)).truncate());
    });
    cell(ui, cols.place, cols.height, |ui| {
        let receivers: Vec<&str> = station
            .receivers
            .iter()
            .filter_map(|id| lookup.object(*id).map(|o| o.name.as_str()))
            .collect();
        if receivers.is_empty() {
            ui.weak("off");
        } else {
            ui.add(egui::Label::new(format!("on: {}", receivers.join(", "))).truncate());
        }
    });
    match &station.on_air {
        Some((file, list)) => {
            let name = file_name(file);
            ui.add(egui::Label::new(format!("on air: {name} ({list})")).truncate());
        }
        None => {
            ui.weak("nothing on air");
        }
    }
}
