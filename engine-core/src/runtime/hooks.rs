//! [`HookEvent`]: what the runtime hands to the world (stations, music, ambience) instead
//! of playing itself.

use crate::runtime::objects::ObjectId;

/// A request the runtime hands to the world (stations, music, ambience).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookEvent {
    /// kTurnOnTV: an object tuned to a station.
    TurnOn {
        /// The event name.
        event: String,
        /// Station code (the event's track ID).
        station: u32,
        /// The receiver.
        object: Option<ObjectId>,
    },
    /// kTurnOffTV.
    TurnOff {
        /// The event name.
        event: String,
        /// Station code.
        station: u32,
        /// The receiver.
        object: Option<ObjectId>,
    },
    /// kSetMusicMode.
    MusicMode {
        /// The event name.
        event: String,
        /// The mode number.
        mode: u32,
    },
}
