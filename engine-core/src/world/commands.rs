//! The commands the world director carries out: the view (centre, scroll, zoom, rotate,
//! floor), the hour and the music mode, moving objects, the room, turning receivers on
//! and off, describing the world and saving the lot. The command language
//! (`crate::host::command`) parses them from console and script lines.

use super::ObjectId;
use super::music::MusicMode;
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
