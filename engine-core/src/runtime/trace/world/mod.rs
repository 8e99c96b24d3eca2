//! [`WorldEvent`]: what the world director decided — the lot's start, runtime requests
//! (kTurnOnTV, kTurnOffTV, kSetMusicMode) carried out or refused, the console's world
//! commands, and the news of the stations, the music and the ambience ([`players`]) —
//! as data. The world (a layer below the runtime) converts its own types into these
//! plain ones; `Display` gives the sentence the trace has always printed.

mod players;

pub use players::{AmbienceEvent, MusicEvent, MusicLoop, StationEvent};

use crate::runtime::hooks::MusicMode;
use crate::runtime::objects::ObjectId;
use crate::runtime::trace::TraceKind;
use crate::runtime::trace::end::EndReason;
use crate::runtime::trace::problem::FileProblem;
use crate::runtime::voices::WorldVoice;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// `19:00`, `06:30`: an hour of the day as a clock shows it (wrapped into 0–24).
pub fn format_hour(hour: f32) -> String {
    let minutes = (f64::from(hour.rem_euclid(24.0)) * 60.0).round() as u32;
    format!("{:02}:{:02}", (minutes / 60) % 24, minutes % 60)
}

/// What a world command of the console did (the reply it prints, as data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorldReply {
    /// `view`: the camera centred on a tile.
    CameraAt {
        /// The tile, x and y.
        centre: [f32; 2],
    },
    /// `scroll`: the view scrolled by pixels.
    Scrolled {
        /// Pixels, x right and y down.
        by: [f32; 2],
        /// Where the camera looks now.
        centre: [f32; 2],
    },
    /// `zoom`.
    Zoom {
        /// 1 near … 3 far.
        level: u8,
    },
    /// `rotate`.
    Rotation {
        /// Quarter turns, 0–3.
        quarter_turns: u8,
    },
    /// `floor`.
    Floor {
        /// The floor shown (0 ground).
        level: i32,
    },
    /// `hour`: the lot's hour.
    Hour {
        /// The hour.
        hour: f32,
        /// The ambience hears night.
        night: bool,
    },
    /// `mode`: the music mode.
    Mode(MusicMode),
    /// `move`: an object moved.
    Moved {
        /// The object.
        object: ObjectId,
        /// Where to, in lot tiles.
        position: [f32; 2],
        /// Its floor.
        floor: i32,
    },
    /// `room`: the size of the room around the character, and the reverb that gives.
    Room {
        /// Tiles (0: outdoors).
        tiles: f32,
        /// The ambience's reverb send (0: none).
        reverb: f32,
    },
    /// `turnon` (or kTurnOnTV): a receiver tuned in.
    TurnedOn {
        /// The receiver.
        object: ObjectId,
        /// The station's code.
        station: u32,
        /// The station's name.
        name: String,
    },
    /// `turnoff` (or kTurnOffTV): a receiver turned off.
    TurnedOff {
        /// The receiver.
        object: ObjectId,
    },
    /// `world`: the camera, music, ambience, stations and every object, described. It
    /// is a report of the state, not a decision, and is kept as the text it printed.
    Described {
        /// The description, one line per part.
        text: String,
    },
    /// `savelot`: the lot written.
    LotSaved {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for WorldReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use WorldReply as R;
        match self {
            R::CameraAt { centre: [x, y] } => write!(f, "camera at ({x}, {y})"),
            R::Scrolled {
                by: [dx, dy],
                centre: [x, y],
            } => write!(f, "scrolled by ({dx}, {dy}) px: camera at ({x:.2}, {y:.2})"),
            R::Zoom { level } => write!(f, "zoom {level} (1 near … 3 far)"),
            R::Rotation { quarter_turns } => write!(f, "rotation {quarter_turns} (quarter turns)"),
            R::Floor { level } => write!(f, "camera on floor {level}"),
            R::Hour { hour, night } => write!(
                f,
                "hour {} ({})",
                format_hour(*hour),
                if *night { "night" } else { "day" }
            ),
            R::Mode(mode) => write!(f, "music mode {mode}"),
            R::Moved {
                object,
                position: [x, y],
                floor,
            } => write!(f, "object {object} at ({x}, {y}) floor {floor}"),
            R::Room { tiles, reverb } => {
                write!(f, "room of {tiles} tiles: ")?;
                if *reverb > 0.0 {
                    write!(f, "small, ambience reverb {reverb:.2}")
                } else {
                    f.write_str("no reverb")
                }
            }
            R::TurnedOn { object, name, .. } => write!(f, "object {object} is on `{name}`"),
            R::TurnedOff { object } => write!(f, "object {object} turned off"),
            R::Described { text } => f.write_str(text),
            R::LotSaved { path } => write!(f, "lot saved to {}", path.display()),
        }
    }
}

/// One thing the world director did or refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorldEvent {
    /// The world's first tick: what the lot starts with.
    Began {
        /// Objects on the lot.
        objects: usize,
        /// The hour.
        hour: f32,
        /// The music mode.
        mode: MusicMode,
        /// Where the camera looks, in lot tiles.
        camera: [f32; 2],
        /// The camera's zoom (1 near … 3 far).
        zoom: u8,
    },
    /// A problem of `world.ini`, the lot or the score, told at the first tick.
    Problem(FileProblem),
    /// A station's news.
    Station {
        /// The station's code.
        code: u32,
        /// What it did.
        what: StationEvent,
    },
    /// The music's news.
    Music(MusicEvent),
    /// The ambience's news.
    Ambience(AmbienceEvent),
    /// A runtime event (kTurnOnTV, kTurnOffTV) carried out.
    Hook {
        /// The event's name.
        event: String,
        /// What it did.
        did: WorldReply,
    },
    /// kTurnOnTV or kTurnOffTV without a source object.
    NoReceiver {
        /// The event's name.
        event: String,
        /// kTurnOnTV (else kTurnOffTV).
        on: bool,
    },
    /// kSetMusicMode with a number that names no mode.
    NotAMusicMode {
        /// The event's name.
        event: String,
        /// The number it carried.
        mode: u32,
    },
    /// A console command or runtime event was refused.
    Refused {
        /// The command (`turnon`) or event that asked.
        by: String,
        /// The object it was about.
        object: ObjectId,
        /// Why, as the world's error says it.
        reason: String,
    },
    /// A receiver the lot says is on could not tune in at the start.
    LotTuneFailed {
        /// The receiver.
        object: ObjectId,
        /// The station it names.
        station: u32,
        /// Why.
        reason: String,
    },
    /// A world command of the console.
    Command(WorldReply),
    /// The active character entered a room of the lot (or left every room): the
    /// ambience's reverb follows the room's size.
    EnteredRoom {
        /// The character.
        object: ObjectId,
        /// The room's name; `None`: in no room of the lot (the lot's `room <tiles>`).
        room: Option<String>,
        /// The room's size in tiles.
        tiles: f32,
        /// The ambience's reverb send now (0: none).
        reverb: f32,
    },
    /// A world player got no voice slot (every voice busy at its priority or above): it
    /// stays silent — a station's receivers stay off, the music waits for the next mode.
    NoVoice {
        /// Who.
        who: WorldVoice,
        /// Its priority.
        priority: i32,
    },
    /// A world player lost its voice slot and went silent.
    LostVoice {
        /// Who.
        who: WorldVoice,
        /// Why: `Stolen` (a track of higher priority), `QuietAll`, `LastOwnerQuieted`.
        why: EndReason,
    },
}

impl WorldEvent {
    /// The kind of record it makes: `error` for problems, refusals and requests that
    /// cannot be carried out, `world` for the rest.
    pub fn kind(&self) -> TraceKind {
        let error = match self {
            WorldEvent::Problem(problem) => problem.error,
            WorldEvent::Station { what, .. } => what.is_error(),
            WorldEvent::Music(MusicEvent::BrokenLink { .. }) => true,
            WorldEvent::NoReceiver { .. }
            | WorldEvent::NotAMusicMode { .. }
            | WorldEvent::Refused { .. }
            | WorldEvent::LotTuneFailed { .. } => true,
            WorldEvent::NoVoice { .. } | WorldEvent::LostVoice { .. } => false,
            WorldEvent::Began { .. }
            | WorldEvent::Music(_)
            | WorldEvent::Ambience(_)
            | WorldEvent::Hook { .. }
            | WorldEvent::Command(_)
            | WorldEvent::EnteredRoom { .. } => false,
        };
        if error {
            TraceKind::Error
        } else {
            TraceKind::World
        }
    }
}

impl fmt::Display for WorldEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use WorldEvent as W;
        match self {
            W::Began {
                objects,
                hour,
                mode,
                camera: [x, y],
                zoom,
            } => write!(
                f,
                "world: {objects} object(s), hour {hour}, mode {mode}, camera at ({x}, {y}) zoom {zoom}"
            ),
            W::Problem(problem) => write!(f, "{problem}"),
            W::Station { code, what } => write!(f, "station {code}: {what}"),
            W::Music(what) => write!(f, "{what}"),
            W::Ambience(what) => write!(f, "{what}"),
            W::Hook { event, did } => write!(f, "{event}: {did}"),
            W::NoReceiver { event, on: true } => write!(
                f,
                "`{event}` (kTurnOnTV) has no source object: a station needs a receiver"
            ),
            W::NoReceiver { event, on: false } => {
                write!(f, "`{event}` (kTurnOffTV) has no source object")
            }
            W::NotAMusicMode { event, mode } => write!(
                f,
                "`{event}`: {mode} is not a music mode (0 live … 8 family)"
            ),
            W::Refused { by, reason, .. } => write!(f, "{by}: {reason}"),
            W::LotTuneFailed { object, reason, .. } => write!(f, "lot: object {object}: {reason}"),
            W::Command(reply) => write!(f, "{reply}"),
            W::EnteredRoom {
                object,
                room,
                tiles,
                reverb,
            } => {
                match room {
                    Some(room) => write!(f, "object {object} is in `{room}` ({tiles} tiles): ")?,
                    None => write!(
                        f,
                        "object {object} is in no room of the lot ({tiles} tiles): "
                    )?,
                }
                if *reverb > 0.0 {
                    write!(f, "ambience reverb {reverb:.2}")
                } else {
                    f.write_str("no reverb")
                }
            }
            W::NoVoice { who, priority } => write!(
                f,
                "{who} gets no voice: every voice is busy at priority {priority} or above; it stays silent"
            ),
            W::LostVoice { who, why } => write!(f, "{who} lost its voice ({why}) and goes silent"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_format_as_clock_times() {
        assert_eq!(format_hour(19.0), "19:00");
        assert_eq!(format_hour(6.5), "06:30");
        assert_eq!(format_hour(24.0), "00:00");
        assert_eq!(format_hour(-1.0), "23:00");
    }
}
