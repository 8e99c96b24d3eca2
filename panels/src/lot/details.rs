//! The Lot view's words: an object's details (what it is, whether it sounds, its volume
//! and pan and the factors they came from), shown beside the map and on hover, and the
//! column beside the map with the selected object's buttons (Why among them), the
//! stations, the music and the hour.

use super::controls::run;
use super::geometry::hundredths;
use super::{LotPanel, Sounding, object_name};
use crate::{AppCommand, PanelContext, WhyTarget, file_name};
use egui::vec2;
use engine_core::host::command::{Command, WorldCommand};
use engine_core::runtime::Gain;
use engine_core::runtime::sink::ControlGroup;
use engine_core::sound::mixer::MixerSnapshot;
use engine_core::sound::mixer::controls::group_index;
use engine_core::world::WorldObject;
use engine_core::world::director::WorldView;
use engine_core::world::view::{Area, Placement};

/// A station pan (−1…1) with its sign, `0.00` in the middle (never `-0.00`).
pub(super) fn signed(v: f32) -> String {
    crate::pan_text(v)
}

/// Pan as words: "centre", "left 40 %", "right 12 %".
fn pan_words(pan: i32) -> String {
    let off = pan - 512;
    let share = (f64::from(off.unsigned_abs()) / 512.0 * 100.0).round();
    match off {
        0 => "centre".to_string(),
        o if o < 0 => format!("left {share:.0} %"),
        _ => format!("right {share:.0} %"),
    }
}

fn group_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "FX",
        ControlGroup::Music => "Music",
        ControlGroup::Vox => "VOX",
    }
}

fn group_gain(mixer: &MixerSnapshot, group: ControlGroup) -> f32 {
    mixer.groups.get(group_index(group)).copied().unwrap_or(1.0)
}

/// An object's details: what it is, where, whether it sounds, and its volume and pan
/// with the factors they came from.
pub(super) fn details(
    ui: &mut egui::Ui,
    object: &WorldObject,
    placement: &Placement,
    sounding: &Sounding,
    ctx: &PanelContext<'_>,
    full: bool,
) {
    let world = &ctx.live.world;
    ui.strong(format!("#{} {} ({})", object.id, object.name, object.kind));
    ui.label(format!(
        "tile ({:.2}, {:.2}) · floor {}",
        object.position[0], object.position[1], object.level
    ));
    what_it_says(ui, object, sounding, world);
    let why = &placement.why;
    ui.separator();
    ui.label(format!("area: {}", why.area.name()))
        .on_hover_text(match why.area {
            Area::Inside => "inside the full-volume area: no fade",
            Area::Fading => "between the full-volume area and the silent edge",
            Area::Silent => "past the silent edge",
            Area::Exempt => "a stereo is never faded",
        });
    ui.label(format!(
        "volume {} · pan {} ({})",
        crate::gain_text(Gain::from_hit_volume(placement.volume)),
        signed(crate::hit_pan(placement.pan)),
        pan_words(placement.pan)
    ))
    .on_hover_text(format!(
        "volume 0–1 (the engine's {} of 1024), pan −1 left … +1 right (the engine's {} of \
         0–1024)",
        placement.volume, placement.pan
    ));
    egui::Grid::new(("lot-factors", object.id, full))
        .num_columns(2)
        .spacing(vec2(12.0, 1.0))
        .show(ui, |ui| factors(ui, object, placement, sounding, ctx));
    ui.weak(format!(
        "volume = fade × zoom × floor; {:.0} px from the screen centre",
        why.centre_distance
    ));
}

/// The tracks an object says, the station it is tuned to, or "not sounding now".
fn what_it_says(ui: &mut egui::Ui, object: &WorldObject, sounding: &Sounding, world: &WorldView) {
    if let Some((tracks, _)) = sounding.tracks.get(&object.id) {
        ui.label(format!("saying {}", tracks.join(", ")));
    }
    if let Some(code) = sounding.stations.get(&object.id)
        && let Some(station) = world.stations.iter().find(|s| s.code == *code)
    {
        ui.label(format!(
            "tuned to {} ({}): station at gain {:.2}, pan {}",
            station.name,
            station.code,
            station.level.0,
            signed(station.level.1.get())
        ));
    } else if let Some(code) = object.station {
        ui.label(format!(
            "station {code}, {}",
            if object.on { "on" } else { "off" }
        ));
    }
    if !sounding.contains(object.id) {
        ui.weak("not sounding now");
    }
}

/// The factors of an object's volume, as rows of a grid: fade, zoom, floor, group.
fn factors(
    ui: &mut egui::Ui,
    object: &WorldObject,
    placement: &Placement,
    sounding: &Sounding,
    ctx: &PanelContext<'_>,
) {
    let why = &placement.why;
    ui.label("fade");
    ui.label(format!("× {:.2} (band {:.2})", why.fade, why.band));
    ui.end_row();
    ui.label("zoom");
    ui.label(format!(
        "× {:.2} (zoom {})",
        why.zoom, ctx.live.world.camera.zoom
    ));
    ui.end_row();
    ui.label("floor");
    ui.label(format!("× {:.2}", why.floor));
    ui.end_row();
    ui.label("group");
    match sounding.tracks.get(&object.id) {
        Some((_, group)) => {
            let gain = group_gain(&ctx.live.mixer, *group);
            let heard = placement.with_group(gain);
            ui.label(format!(
                "× {gain:.2} ({} option): {} at the mixer",
                group_name(*group),
                crate::hit_volume_text(i64::from(heard.volume))
            ));
        }
        None => {
            ui.label("applied by the mixer");
        }
    }
    ui.end_row();
}

impl LotPanel {
    /// The column beside the map: the selected object, the stations, music and hour.
    pub(super) fn side(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        sounding: &Sounding,
        commands: &mut Vec<AppCommand>,
    ) {
        let world = &ctx.live.world;
        match self
            .selected
            .and_then(|id| world.objects.iter().find(|(o, _)| o.id == id))
        {
            Some((object, placement)) => {
                details(ui, object, placement, sounding, ctx, true);
                object_buttons(ui, ctx, object, commands);
            }
            None => {
                ui.weak("Click an object to see where its volume and pan come from; drag it to move it, drag the ground to move the camera.");
            }
        }
        ui.separator();
        stations(ui, world);
        ui.separator();
        let music = &world.music;
        ui.label(format!(
            "music: {}{}",
            music.mode.name(),
            if music.waiting {
                " (waiting for the old music to end)"
            } else {
                ""
            }
        ));
        let a = &world.ambience;
        let tiles = a.room_tiles.unwrap_or(world.room);
        let room = match &world.active_room {
            Some(name) => format!("in `{name}`, {tiles:.0} tiles"),
            None => format!("room {tiles:.0} tiles"),
        };
        let reverb = if a.reverb > 0.0 {
            format!(" · reverb {:.2}", a.reverb)
        } else {
            String::new()
        };
        ui.label(format!(
            "hour {:.2}{} · {room}{reverb}",
            world.hour,
            if a.night { " (night)" } else { "" },
        ));
    }
}

/// The selected object's buttons: control it, quiet it, centre the view on it, ask why,
/// mute or solo what it says.
fn object_buttons(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    object: &WorldObject,
    commands: &mut Vec<AppCommand>,
) {
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Control")
            .on_hover_text("make it the controlled character (the source of sev)")
            .clicked()
        {
            commands.push(AppCommand::Run(Command::Control(object.id)));
        }
        if ui
            .button("Quiet")
            .on_hover_text("stop its sounds")
            .clicked()
        {
            commands.push(AppCommand::Run(Command::Quiet(object.id)));
        }
        if ui
            .button("Centre view")
            .on_hover_text("put it in the middle of the screen")
            .clicked()
        {
            let [x, y] = object.position.map(hundredths);
            run(commands, WorldCommand::View { x, y });
        }
        if ui
            .button("Why")
            .on_hover_text("why it sounds as it does (or not): its decisions in the Why panel")
            .clicked()
        {
            commands.push(AppCommand::Why(WhyTarget::Object(object.id)));
        }
        crate::monitor::toggles(
            ui,
            &ctx.live.monitor,
            engine_core::sound::server::MonitorTarget::Object(object.id),
            commands,
        );
    });
}

/// The stations with receivers or on air: level, receivers, what is on air.
fn stations(ui: &mut egui::Ui, world: &WorldView) {
    ui.strong("Stations");
    let mut any = false;
    for station in &world.stations {
        if station.receivers.is_empty() && station.on_air.is_none() {
            continue;
        }
        any = true;
        let receivers: Vec<String> = station
            .receivers
            .iter()
            .map(|id| object_name(world, *id))
            .collect();
        ui.label(format!(
            "{} ({}): gain {:.2}, pan {}",
            station.name,
            station.code,
            station.level.0,
            signed(station.level.1.get())
        ));
        ui.weak(format!("  receivers: {}", receivers.join(", ")));
        if let Some((file, list)) = &station.on_air {
            ui.weak(format!("  on air: {} ({list})", file_name(file)));
        }
    }
    if !any {
        ui.weak("no station on air");
    }
}
