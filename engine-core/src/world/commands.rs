//! The commands the world director carries out: the view (centre, scroll, zoom, rotate,
//! floor), the hour and the music mode, moving objects, the room, turning receivers on
//! and off, the sound server's own sounds (`select`, `sound`), describing the world and
//! saving the lot. The command language
//! (`crate::host::command`) parses them from console and script lines, and `Display`
//! writes each back as the line that parses to it.

use super::ObjectId;
use super::music::MusicMode;
use std::fmt;
use std::path::PathBuf;

/// A command for the world director.
#[derive(Debug, Clone, PartialEq)]
pub enum WorldCommand {
    /// Centre the camera on a lot tile.
    View {
        /// Tile x.
        x: f32,
        /// Tile y.
        y: f32,
    },
    /// Scroll the view by pixels (x right, y down).
    Scroll {
        /// Pixels right.
        dx: f32,
        /// Pixels down.
        dy: f32,
    },
    /// Zoom in, out or to a level.
    Zoom(ZoomStep),
    /// Rotate the view.
    Rotate(Turn),
    /// Show another floor.
    Floor(i32),
    /// Set the hour of day (0–24).
    Hour(f32),
    /// Set the music mode.
    Mode(MusicMode),
    /// Move an object.
    Move {
        /// The object.
        object: ObjectId,
        /// Tile x.
        x: f32,
        /// Tile y.
        y: f32,
        /// A new floor.
        floor: Option<i32>,
    },
    /// Set the size of the room around the active character, in tiles.
    Room(f32),
    /// Turn a radio or TV on, tuned to a station.
    TurnOn {
        /// The receiver.
        object: ObjectId,
        /// The station code.
        station: u32,
    },
    /// Turn a radio or TV off.
    TurnOff {
        /// The receiver.
        object: ObjectId,
    },
    /// Play the project's selection sound (`[ServerSounds] Select`) for a selection of
    /// objects, by the two-groups rule.
    Select(Vec<ObjectId>),
    /// Play a sound of the server's own (`[ServerSounds]`), from an object (its distance
    /// from the view point sets the volume; noise reduction by object) or by volume.
    Sound {
        /// The sound's name (lower case).
        name: String,
        /// The object it comes from.
        object: Option<ObjectId>,
    },
    /// Describe the world: camera, music, ambience, stations, objects' volume and pan.
    Describe,
    /// Save the lot (to the project's lot file, or the given file).
    SaveLot(Option<PathBuf>),
}

/// A zoom request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoomStep {
    /// One level nearer.
    In,
    /// One level farther.
    Out,
    /// A level, 1 near … 3 far.
    Level(u8),
}

/// A rotation request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// A quarter turn to the left.
    Left,
    /// A quarter turn to the right.
    Right,
    /// To a rotation, 0–3.
    To(u8),
}

/// The console line of a world command: `parse(&command.to_string())` gives the same
/// command back. Numbers are written exactly (`{}`: the shortest text that reads back as
/// the same `f32`), objects and stations as decimal numbers, music modes by name. A
/// value the grammar cannot write reads back differently or not at all: a number that is
/// not finite, a zoom level outside 1–3, a rotation outside 0–3, an hour outside 0–24, a
/// negative room, or a `savelot` path that is empty, not UTF-8, or holds whitespace,
/// `#` or `;`.
impl fmt::Display for WorldCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldCommand::View { x, y } => write!(f, "view {x} {y}"),
            WorldCommand::Scroll { dx, dy } => write!(f, "scroll {dx} {dy}"),
            WorldCommand::Zoom(step) => write!(f, "zoom {step}"),
            WorldCommand::Rotate(turn) => write!(f, "rotate {turn}"),
            WorldCommand::Floor(floor) => write!(f, "floor {floor}"),
            WorldCommand::Hour(hour) => write!(f, "hour {hour}"),
            WorldCommand::Mode(mode) => write!(f, "mode {}", mode.name()),
            WorldCommand::Move {
                object,
                x,
                y,
                floor,
            } => {
                write!(f, "move {object} {x} {y}")?;
                match floor {
                    Some(floor) => write!(f, " {floor}"),
                    None => Ok(()),
                }
            }
            WorldCommand::Room(tiles) => write!(f, "room {tiles}"),
            WorldCommand::TurnOn { object, station } => write!(f, "turnon {object} {station}"),
            WorldCommand::TurnOff { object } => write!(f, "turnoff {object}"),
            WorldCommand::Select(objects) => {
                f.write_str("select")?;
                for object in objects {
                    write!(f, " {object}")?;
                }
                Ok(())
            }
            WorldCommand::Sound { name, object } => {
                write!(f, "sound {name}")?;
                match object {
                    Some(object) => write!(f, " @{object}"),
                    None => Ok(()),
                }
            }
            WorldCommand::Describe => f.write_str("world"),
            WorldCommand::SaveLot(None) => f.write_str("savelot"),
            WorldCommand::SaveLot(Some(path)) => write!(f, "savelot {}", path.display()),
        }
    }
}

/// `in`, `out` or the level's number, as `zoom` reads it.
impl fmt::Display for ZoomStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZoomStep::In => f.write_str("in"),
            ZoomStep::Out => f.write_str("out"),
            ZoomStep::Level(level) => write!(f, "{level}"),
        }
    }
}

/// `left`, `right` or the rotation's number, as `rotate` reads it.
impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Turn::Left => f.write_str("left"),
            Turn::Right => f.write_str("right"),
            Turn::To(rotation) => write!(f, "{rotation}"),
        }
    }
}
