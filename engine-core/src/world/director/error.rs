//! Why the director refused a world command or a runtime request: each error names the
//! object, station or file it is about.

use crate::world::lot::save::SaveLotError;
use crate::world::stations::StationError;
use crate::world::{ObjectId, ObjectKind};

/// Why a world command (or a runtime request such as kTurnOnTV) did nothing.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// No object of that ID is on the lot.
    #[error("there is no object {object} on the lot")]
    NoObject {
        /// The ID asked for.
        object: ObjectId,
    },
    /// The object is not something that can be tuned to a station.
    #[error(
        "object {object} is a {kind}, not a receiver (a TV, radio, stereo or generic \
         object); nothing was tuned"
    )]
    NotReceiver {
        /// The object.
        object: ObjectId,
        /// What it is.
        kind: ObjectKind,
    },
    /// The receiver is not tuned to any station.
    #[error("object {object} is not playing a station")]
    NotPlaying {
        /// The receiver.
        object: ObjectId,
    },
    /// The station was silent and Box-X gave it no voice slot.
    #[error(
        "station {station} gets no voice: every voice is busy at priority {priority} or \
         above (world.ini [Voices] Station); nothing was tuned"
    )]
    NoVoice {
        /// The station.
        station: u32,
        /// Its priority.
        priority: i32,
    },
    /// `select` and `sound` play through a session's sound server, not the director.
    #[error("`select` and `sound` play through the session's sound server")]
    ServerSound,
    /// The station could not be tuned.
    #[error(transparent)]
    Station(#[from] StationError),
    /// `savelot` was refused or could not write.
    #[error(transparent)]
    SaveLot(#[from] SaveLotError),
    /// `savelot` without a file, in a project that names no lot file.
    #[error(
        "this project names no lot file ([Lot] File = … in world.ini); give one: \
         `savelot <file>`"
    )]
    NoLotFile,
    /// A command or runtime event, named, was refused.
    #[error("{by}: {source}")]
    Refused {
        /// The command (`turnon`) or event that asked.
        by: String,
        /// Why it was refused.
        source: Box<WorldError>,
    },
}
