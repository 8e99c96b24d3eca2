//! What the workbench and the console's `world` see of the world: [`WorldView`] (plain
//! data, one per snapshot) and a few lines of text.

use super::WorldDirector;
use crate::runtime::Engine;
pub use crate::runtime::trace::format_hour;
use crate::runtime::units::{Gain, Pan};
use crate::world::ambience::AmbienceState;
use crate::world::lot::Room;
use crate::world::music::{MusicMode, MusicState};
use crate::world::view::{Camera, Placement, ViewSettings};
use crate::world::{ObjectId, ObjectKind, WorldObject};
use std::fmt::Write as _;
use std::path::PathBuf;

/// One station as the workbench shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StationView {
    /// Its code.
    pub code: u32,
    /// Its name (the directory's).
    pub name: String,
    /// The receivers tuned to it and on.
    pub receivers: Vec<ObjectId>,
    /// The file on air and the list it came from.
    pub on_air: Option<(PathBuf, String)>,
    /// The gain and pan it plays at.
    pub level: (Gain, Pan),
}

/// The world as the workbench shows it: plain data, built once per snapshot.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorldView {
    /// The camera.
    pub camera: Camera,
    /// The `[View]` settings (to draw the full-volume area and the fade band).
    pub settings: ViewSettings,
    /// Hour of day.
    pub hour: f32,
    /// Room size around the active character, in tiles.
    pub room: f32,
    /// Every object with its placement (volume, pan and why).
    pub objects: Vec<(WorldObject, Placement)>,
    /// The stations.
    pub stations: Vec<StationView>,
    /// The music.
    pub music: MusicState,
    /// The ambience.
    pub ambience: AmbienceState,
    /// The lot file, if the project names one.
    pub lot_file: Option<PathBuf>,
    /// The lot's rooms.
    pub rooms: Vec<Room>,
    /// The room the active character is in (its name), if any.
    pub active_room: Option<String>,
}

impl Default for WorldView {
    fn default() -> Self {
        Self {
            camera: Camera::default(),
            settings: ViewSettings::default(),
            hour: 12.0,
            room: 0.0,
            objects: Vec::new(),
            stations: Vec::new(),
            music: MusicState {
                mode: MusicMode::Live,
                song: None,
                load_loop: None,
                river: None,
                dying: 0,
                waiting: false,
            },
            ambience: AmbienceState::default(),
            lot_file: None,
            rooms: Vec::new(),
            active_room: None,
        }
    }
}

impl WorldDirector {
    /// The world as the workbench shows it.
    pub fn view(&self, engine: &Engine) -> WorldView {
        WorldView {
            camera: self.camera(),
            settings: self.view,
            hour: self.lot.hour,
            room: self.lot.room_size,
            objects: self.placements(engine),
            stations: self
                .stations
                .all()
                .map(|s| StationView {
                    code: s.def.code,
                    name: s.def.name(),
                    receivers: s.receivers.iter().copied().collect(),
                    on_air: s.on_air.as_ref().map(|o| (o.file.clone(), o.list.clone())),
                    level: s.level,
                })
                .collect(),
            music: self.music.state(),
            ambience: self.ambience.describe(),
            lot_file: self.lot_file.clone(),
            rooms: self.lot.rooms.clone(),
            active_room: self.active_room.clone().flatten(),
        }
    }

    /// A few lines on the world: camera, hour, music, ambience, stations, objects with
    /// their volume and pan and why.
    pub fn describe(&self, engine: &Engine) -> String {
        let mut s = String::new();
        let c = self.camera();
        let _ = writeln!(
            s,
            "camera ({:.2}, {:.2}) zoom {} rotation {} floor {}; hour {}; room {} tiles",
            c.centre[0],
            c.centre[1],
            c.zoom,
            c.rotation,
            c.level,
            format_hour(self.lot.hour),
            self.lot.room_size
        );
        let music = self.music.state();
        let _ = writeln!(
            s,
            "music: mode {}, {}",
            music.mode,
            music.song.as_ref().map_or_else(
                || "no song".to_string(),
                |song| format!(
                    "{}{}",
                    song.file
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                    if song.parked { " (parked)" } else { "" }
                )
            )
        );
        let a = self.ambience.describe();
        let _ = writeln!(
            s,
            "ambience: {}, {}, night loop {}, reverb {:.2}",
            if a.enabled { "on" } else { "off" },
            if a.night { "night" } else { "day" },
            if a.night_loop_playing {
                "playing"
            } else {
                "silent"
            },
            a.reverb
        );
        for station in self.stations.all() {
            let _ = writeln!(
                s,
                "station {} `{}`: {} receiver(s), {}",
                station.def.code,
                station.def.name(),
                station.receivers.len(),
                station.on_air.as_ref().map_or_else(
                    || "off air".to_string(),
                    |on| format!(
                        "playing {} ({})",
                        on.file
                            .file_name()
                            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                        on.list
                    )
                )
            );
        }
        for (o, p) in self.placements(engine) {
            let _ = writeln!(
                s,
                "{:>3} {:<7} {:<16} vol {:>4} pan {:>4}  {} fade {:.2} zoom {:.2} floor {:.2}{}",
                o.id,
                o.kind.to_string(),
                o.name,
                p.volume,
                p.pan,
                p.why.area,
                p.why.fade,
                p.why.zoom,
                p.why.floor,
                if o.kind == ObjectKind::Stereo || o.on {
                    o.station
                        .map(|st| format!(", station {st}{}", if o.on { " on" } else { "" }))
                        .unwrap_or_default()
                } else {
                    String::new()
                }
            );
        }
        s.trim_end().to_string()
    }
}
