//! What the world's players decided: a station ([`StationEvent`]), the music
//! ([`MusicEvent`]) and the ambience ([`AmbienceEvent`]).

use super::format_hour;
use crate::runtime::hooks::MusicMode;
use crate::runtime::objects::ObjectId;
use crate::runtime::units::{Gain, Pan};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// A file's name without its folder (`chase_drums.ogg`).
fn file_name(file: &Path) -> String {
    file.file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
}

/// A file's stem (`bird_2`).
fn stem(file: &Path) -> String {
    file.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// One decision of a station (its code is in [`super::WorldEvent::Station`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StationEvent {
    /// A receiver tuned in.
    Tuned {
        /// The station's name (its directory).
        name: String,
        /// The receiver.
        object: ObjectId,
        /// Receivers tuned to it now.
        receivers: usize,
    },
    /// A receiver turned off.
    TurnedOff {
        /// The station's name.
        name: String,
        /// The receiver.
        object: ObjectId,
        /// It was the last: the station fades out.
        quiet: bool,
    },
    /// The next item went on air.
    Plays {
        /// The station's name.
        name: String,
        /// The item's file.
        file: PathBuf,
        /// The list it came from (`chase`, `commercials`, or the station's own).
        list: String,
        /// The symbolic link or `.lnk` shortcut it was reached through (then `file` is
        /// the real file the link leads to).
        via: Option<PathBuf>,
    },
    /// The station's directory has no sound files.
    Empty {
        /// The directory.
        dir: PathBuf,
    },
    /// A list's directory cannot be read.
    Unreadable {
        /// The directory.
        dir: PathBuf,
        /// Why (the file rules' words).
        reason: String,
    },
    /// An item lies outside the project's data directories (the cache cannot serve it).
    Outside {
        /// The file.
        file: PathBuf,
    },
    /// A link or shortcut in the station's folder leads to no sound file: it is skipped
    /// (said once while it stays broken).
    BrokenLink {
        /// The station's name.
        name: String,
        /// The link or shortcut.
        link: PathBuf,
        /// Why it is skipped.
        reason: String,
    },
}

impl StationEvent {
    /// True for problems (records of kind `error`).
    pub fn is_error(&self) -> bool {
        matches!(
            self,
            StationEvent::Empty { .. }
                | StationEvent::BrokenLink { .. }
                | StationEvent::Unreadable { .. }
                | StationEvent::Outside { .. }
        )
    }
}

impl fmt::Display for StationEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StationEvent::Tuned {
                name,
                object,
                receivers,
            } => write!(
                f,
                "object {object} tuned to `{name}` ({receivers} receiver(s))"
            ),
            StationEvent::TurnedOff {
                name,
                object,
                quiet,
            } => {
                write!(f, "object {object} turned off `{name}`")?;
                if *quiet {
                    f.write_str("; nobody is listening, the station goes quiet")?;
                }
                Ok(())
            }
            StationEvent::Plays {
                name,
                file,
                list,
                via: None,
            } => write!(f, "`{name}` plays {} ({list})", file_name(file)),
            StationEvent::Plays {
                name,
                file,
                list,
                via: Some(via),
            } => write!(
                f,
                "`{name}` plays {} ({list}, through {})",
                file.display(),
                file_name(via)
            ),
            StationEvent::BrokenLink { name, link, reason } => {
                write!(f, "`{name}`: {} is skipped: {reason}", link.display())
            }
            StationEvent::Empty { dir } => {
                write!(f, "nothing to play: {} has no sound files", dir.display())
            }
            StationEvent::Unreadable { dir, reason } => {
                write!(f, "cannot read {}: {reason}", dir.display())
            }
            StationEvent::Outside { file } => write!(
                f,
                "{} is outside the project's data directories",
                file.display()
            ),
        }
    }
}

/// The music's two loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MusicLoop {
    /// The load loop (load mode).
    Load,
    /// The neighbourhood's river.
    River,
}

impl fmt::Display for MusicLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MusicLoop::Load => "load loop",
            MusicLoop::River => "river loop",
        })
    }
}

/// One decision of the music player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum MusicEvent {
    /// Everything music plays fades out (the world is read again).
    FadesOut,
    /// The music mode changed.
    ModeChanged {
        /// The mode before.
        from: MusicMode,
        /// The mode now.
        to: MusicMode,
    },
    /// Leaving buy or build: the song goes silent and waits for the return.
    SongParked,
    /// Back in buy or build: the waiting song fades back up.
    SongUnparked,
    /// `world.ini` names no file for a loop: silence.
    NoLoop(MusicLoop),
    /// A loop started.
    LoopStarts(MusicLoop),
    /// A file lies outside the project's data directories.
    Outside {
        /// The file.
        file: PathBuf,
    },
    /// `world.ini` names no directory for a list: silence.
    NoList {
        /// The list's `[Music]` key (`Buy`, `Neighborhood`).
        list: String,
    },
    /// A list's directory has no songs.
    ListEmpty {
        /// The list's `[Music]` key.
        list: String,
        /// Its directory.
        dir: PathBuf,
    },
    /// A list's directory cannot be read.
    ListUnreadable {
        /// The directory.
        dir: PathBuf,
        /// Why (the file rules' words).
        reason: String,
    },
    /// A song started.
    Song {
        /// The list's `[Music]` key.
        list: String,
        /// The song's file (the real file, for a link).
        file: PathBuf,
        /// The symbolic link or `.lnk` shortcut it was reached through.
        via: Option<PathBuf>,
    },
    /// A link or shortcut in a music folder leads to no sound file: it is skipped (said
    /// once while it stays broken).
    BrokenLink {
        /// The link or shortcut.
        link: PathBuf,
        /// Why it is skipped.
        reason: String,
    },
}

impl fmt::Display for MusicEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MusicEvent::FadesOut => f.write_str("music fades out"),
            MusicEvent::ModeChanged { from, to } => write!(f, "music mode {from} → {to}"),
            MusicEvent::SongParked => {
                f.write_str("the song fades down and waits for buy or build mode")
            }
            MusicEvent::SongUnparked => f.write_str("the song fades back up"),
            MusicEvent::NoLoop(which) => write!(f, "no {which} in world.ini [Music]; silence"),
            MusicEvent::LoopStarts(which) => write!(f, "{which} starts"),
            MusicEvent::Outside { file } => write!(
                f,
                "{} is outside the project's data directories",
                file.display()
            ),
            MusicEvent::NoList { list } => {
                write!(f, "no `{list}` list in world.ini [Music]; silence")
            }
            MusicEvent::ListEmpty { list, dir } => {
                write!(f, "the {list} list ({}) is empty", dir.display())
            }
            MusicEvent::ListUnreadable { dir, reason } => {
                write!(f, "cannot read {}: {reason}", dir.display())
            }
            MusicEvent::Song {
                list,
                file,
                via: None,
            } => write!(f, "{list} song: {}", file_name(file)),
            MusicEvent::Song {
                list,
                file,
                via: Some(via),
            } => write!(
                f,
                "{list} song: {} (through {})",
                file.display(),
                file_name(via)
            ),
            MusicEvent::BrokenLink { link, reason } => {
                write!(f, "{} is skipped: {reason}", link.display())
            }
        }
    }
}

/// One decision of the ambience (the freshness score, the night loop).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AmbienceEvent {
    /// The mode turned the ambience on.
    On,
    /// The mode turned the ambience off: its notes fade out.
    Off {
        /// Seconds of the fade.
        fade: f32,
    },
    /// An hour that is not a number was ignored.
    HourIgnored {
        /// The hour given, as a number prints (`NaN`, `inf`): kept as text because
        /// JSON has no such numbers.
        hour: String,
    },
    /// The hour entered the day or the night (or was first set).
    DayOrNight {
        /// Night.
        night: bool,
        /// The hour.
        hour: f32,
    },
    /// The night loop's file is missing or outside the data directories.
    NightLoopUnplayable {
        /// The file.
        file: PathBuf,
    },
    /// The night loop started or fades out.
    NightLoop {
        /// Started.
        on: bool,
        /// The hour then, if one was set.
        hour: Option<f32>,
    },
    /// The night loop ended on its own (it could not play); it is not retried.
    NightLoopEnded,
    /// More score steps fell into one update than are played at once: skipped ahead.
    SkippedAhead,
    /// A score file lies outside the project's data directories.
    Outside {
        /// The file.
        file: PathBuf,
    },
    /// A score note would be out of earshot where it falls: not played.
    OutOfEarshot {
        /// The score row's name.
        row: String,
        /// Where it would sound, in lot tiles.
        position: [f32; 2],
        /// Its distance from the listener, in tiles.
        distance: f32,
        /// The `Distance` setting: nothing farther is heard.
        limit: f32,
    },
    /// A score note started.
    Played {
        /// The file picked.
        file: PathBuf,
        /// Where it sounds, in lot tiles.
        position: [f32; 2],
        /// Its gain (row, master, setting and distance).
        gain: Gain,
        /// Its pan.
        pan: Pan,
        /// Recent picks the freshness rule avoided, newest first.
        skipped: Vec<PathBuf>,
    },
}

impl fmt::Display for AmbienceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AmbienceEvent as A;
        match self {
            A::On => f.write_str("ambience on"),
            A::Off { fade } => write!(f, "ambience off (fading out over {fade} s)"),
            A::HourIgnored { hour } => write!(f, "ambience: hour {hour} ignored (not a number)"),
            A::DayOrNight { night, hour } => write!(
                f,
                "{} ({})",
                if *night { "night" } else { "day" },
                format_hour(*hour)
            ),
            A::NightLoopUnplayable { file } => write!(
                f,
                "night loop {} cannot play (missing or outside the data directories)",
                file.display()
            ),
            A::NightLoop { on, hour } => write!(
                f,
                "night loop {} ({})",
                if *on { "on" } else { "off" },
                hour.map_or_else(String::new, format_hour)
            ),
            A::NightLoopEnded => f.write_str("the night loop ended by itself"),
            A::SkippedAhead => f.write_str("ambience: too many steps in one update; skipped ahead"),
            A::Outside { file } => write!(
                f,
                "ambience: {} is outside the project's data directories",
                file.display()
            ),
            A::OutOfEarshot {
                row,
                position,
                distance,
                limit,
            } => write!(
                f,
                "ambience: {row} at ({:.1}, {:.1}) is out of earshot ({distance:.1} tiles, Distance {limit})",
                position[0], position[1]
            ),
            A::Played {
                file,
                position,
                gain,
                pan,
                skipped,
            } => {
                write!(
                    f,
                    "ambience: {} at ({:.1}, {:.1}) gain {:.2} pan {:.2}",
                    stem(file),
                    position[0],
                    position[1],
                    gain.get(),
                    pan.get()
                )?;
                if !skipped.is_empty() {
                    let names: Vec<String> = skipped.iter().map(|f| stem(f)).collect();
                    write!(f, " (freshness skipped {})", names.join(", "))?;
                }
                Ok(())
            }
        }
    }
}
