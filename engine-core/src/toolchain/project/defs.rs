//! What a loaded project knows: events, tracks, patches, hit lists and names, each with
//! the file and line that defined it.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a definition came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The file (shared: a table file's definitions all hold the one path).
    pub file: Arc<Path>,
    /// 1-based line (0 if unknown).
    pub line: u32,
}

/// A path as the shared `Arc<Path>` an [`Origin`] holds (a clone of one already shared,
/// a new one from anything else).
pub trait SharedPath {
    /// The shared path.
    fn shared(self) -> Arc<Path>;
}

impl SharedPath for Arc<Path> {
    fn shared(self) -> Arc<Path> {
        self
    }
}

impl SharedPath for &Arc<Path> {
    fn shared(self) -> Arc<Path> {
        Arc::clone(self)
    }
}

impl SharedPath for &Path {
    fn shared(self) -> Arc<Path> {
        Arc::from(self)
    }
}

impl SharedPath for &PathBuf {
    fn shared(self) -> Arc<Path> {
        Arc::from(self.as_path())
    }
}

impl SharedPath for PathBuf {
    fn shared(self) -> Arc<Path> {
        Arc::from(self)
    }
}

impl SharedPath for &str {
    fn shared(self) -> Arc<Path> {
        Arc::from(Path::new(self))
    }
}

impl SharedPath for String {
    fn shared(self) -> Arc<Path> {
        Arc::from(PathBuf::from(self))
    }
}

impl Default for Origin {
    fn default() -> Self {
        Self::new(Path::new(""), 0)
    }
}

impl Origin {
    /// A file and line.
    pub fn new(file: impl SharedPath, line: u32) -> Self {
        Self {
            file: file.shared(),
            line,
        }
    }

    /// The file as an owned path.
    pub fn path_buf(&self) -> PathBuf {
        self.file.to_path_buf()
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}", self.file.display(), self.line)
        } else {
            write!(f, "{}", self.file.display())
        }
    }
}

/// A code address in one of the project's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CodeRef {
    /// Index into [`super::Project::units`].
    pub unit: usize,
    /// Byte address within that unit's `.hit`.
    pub address: u32,
}

/// How an event is handled (hit-reference §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    /// kSndobPlay (1): start the track.
    Play,
    /// kSndobStop (2): stop the track, letting its current notes end.
    Stop,
    /// kSndobKill (3): kill the track at once.
    Kill,
    /// kSndobUpdate (4), SetVolume (5), SetPan (7), kUpdateSourceVolPan (32): new volume
    /// and pan for the source's sounds.
    UpdateVolPan,
    /// kKillAll (20): quiet everything.
    KillAll,
    /// kKillInstance (23): the source object stops saying the track.
    KillInstance,
    /// kTurnOnTV (30): a TV or radio joins a station.
    TurnOnTv,
    /// kTurnOffTV (31): a TV or radio leaves its station.
    TurnOffTv,
    /// kSetMusicMode (36): the music mode changes.
    SetMusicMode,
    /// kPlayPiano (43): play the track, looping.
    PlayPiano,
    /// 44–49: switch the event, sample or track trace on or off.
    Debug {
        /// Which trace.
        trace: DebugTrace,
        /// On or off.
        on: bool,
    },
    /// Any other number: dispatched and traced, otherwise ignored.
    Other(i64),
}

/// The three trace switches of the debug events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DebugTrace {
    /// kDebugEvents…
    Events,
    /// kDebugSamples…
    Samples,
    /// kDebugTracks…
    Tracks,
}

impl EventType {
    /// The type for an event-type number.
    pub fn from_number(n: i64) -> Self {
        match n {
            1 => EventType::Play,
            2 => EventType::Stop,
            3 => EventType::Kill,
            4 | 5 | 7 | 32 => EventType::UpdateVolPan,
            20 => EventType::KillAll,
            23 => EventType::KillInstance,
            30 => EventType::TurnOnTv,
            31 => EventType::TurnOffTv,
            36 => EventType::SetMusicMode,
            43 => EventType::PlayPiano,
            44..=49 => EventType::Debug {
                trace: match n {
                    44 | 45 => DebugTrace::Events,
                    46 | 47 => DebugTrace::Samples,
                    _ => DebugTrace::Tracks,
                },
                on: n % 2 == 0,
            },
            other => EventType::Other(other),
        }
    }

    /// True for event types that start or stop a track (the others use the track ID as
    /// a station code, a music mode or nothing).
    pub fn needs_track(self) -> bool {
        matches!(
            self,
            EventType::Play
                | EventType::PlayPiano
                | EventType::Stop
                | EventType::Kill
                | EventType::KillInstance
        )
    }
}

/// A named event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDef {
    /// The name as written (matched case-insensitively); shared, so every record that
    /// names the event holds the same text.
    pub name: Arc<str>,
    /// The event-type number as written (resolved).
    pub type_number: i64,
    /// How it is handled.
    pub event_type: EventType,
    /// The track (or station code, or music mode) it refers to.
    pub track_id: u32,
    /// True if the event was made from a label with no `[EventMapping]`/`.evt` entry.
    pub implicit: bool,
    /// Where it was defined.
    pub origin: Origin,
}

/// Default Box-X priority of a track (the Maxis register table's default, 0–127).
pub const DEFAULT_PRIORITY: i32 = 32;
/// Full volume on the HIT scale.
pub const FULL_VOLUME: i32 = 1024;

/// A track: the code an event starts, and its attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackDef {
    /// Track ID.
    pub id: u32,
    /// Name for people: the subroutine label, else `track_<id>`; shared, so every
    /// record and thread that names the track holds the same text.
    pub name: Arc<str>,
    /// Where its code starts; `None` plays the track's sound once ("simple mode").
    pub entry: Option<CodeRef>,
    /// Volume 0–1024.
    pub volume: i32,
    /// kArgs… type: how event arguments fill the arg registers.
    pub args_type: i32,
    /// Ducking priority.
    pub duck_priority: i32,
    /// Option group.
    pub control_group: ControlGroup,
    /// Sound pressure level.
    pub spl: i32,
    /// The track's own hit list (`smart_setlist 0`).
    pub hit_list: Option<u32>,
    /// The track's patch.
    pub patch: Option<u32>,
    /// Box-X priority (higher wins).
    pub priority: i32,
    /// Where it was defined.
    pub origin: Origin,
}

/// A patch: a sample file and how to play it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchDef {
    /// Patch ID.
    pub id: u32,
    /// Name.
    pub name: Arc<str>,
    /// The path as written in the table.
    pub path_text: Arc<str>,
    /// The file found for it, if any (inside a zip pack: `<pack>/<entry>`, which is
    /// not a file on disk; `pack` says so). Shared, made once at load: each note of the
    /// patch names its sample with it.
    pub file: Option<Arc<Path>>,
    /// The zip pack its sample is in, if it is in one.
    pub pack: Option<PathBuf>,
    /// The file's name as the resource cache knows it: its path relative to the data
    /// directory holding it (shared, made once at load).
    pub resource: Option<Arc<str>>,
    /// Its file was found by file name alone, elsewhere than the folders the path
    /// written names (which are not there): the game's rule for bare names, a stand-in
    /// for a path with folders (warned at load, `sample-found-by-name`).
    pub found_by_name: bool,
    /// Loop the sample.
    pub looped: bool,
    /// A piano patch.
    pub piano: bool,
    /// Where it was defined.
    pub origin: Origin,
}

/// A global hit list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitListDef {
    /// Hit list ID.
    pub id: u32,
    /// Entries (patch or hit list IDs), ranges expanded, names resolved.
    pub entries: Vec<u32>,
    /// Where it was defined.
    pub origin: Origin,
}

/// What a project-wide name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameValue {
    /// A number (constant, patch ID, hit list ID).
    Value(i64),
    /// A code label.
    Code(CodeRef),
}

/// A project-wide name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameDef {
    /// The name as written.
    pub name: Arc<str>,
    /// What it stands for.
    pub value: NameValue,
    /// Where it was defined.
    pub origin: Origin,
}

/// The option group a sound belongs to: each group has its own volume in the options.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum ControlGroup {
    /// Sound effects, including TVs (`kGroupSfx` = 1).
    #[default]
    Fx,
    /// Music, radios and stings (`kGroupMusic` = 2).
    Music,
    /// Voices (`kGroupVox` = 3).
    Vox,
}

impl ControlGroup {
    /// The group for a `kGroup…` number (1 FX, 2 Music, 3 VOX; anything else FX).
    pub fn from_number(n: i64) -> Self {
        match n {
            2 => ControlGroup::Music,
            3 => ControlGroup::Vox,
            _ => ControlGroup::Fx,
        }
    }

    /// The `kGroup…` number.
    pub fn number(self) -> i32 {
        match self {
            ControlGroup::Fx => 1,
            ControlGroup::Music => 2,
            ControlGroup::Vox => 3,
        }
    }

    /// "FX", "Music" or "VOX".
    pub fn name(self) -> &'static str {
        match self {
            ControlGroup::Fx => "FX",
            ControlGroup::Music => "Music",
            ControlGroup::Vox => "VOX",
        }
    }

    /// All groups, in option order.
    pub const ALL: [ControlGroup; 3] = [ControlGroup::Fx, ControlGroup::Music, ControlGroup::Vox];
}

/// The events every project has unless it defines them: the debug cheats' trace switches
/// (`debugeventson` … `debugtracksoff`, event types 44–49), by lower-case name.
pub fn built_in_events() -> &'static std::collections::BTreeMap<String, EventDef> {
    static EVENTS: std::sync::LazyLock<std::collections::BTreeMap<String, EventDef>> =
        std::sync::LazyLock::new(|| {
            [
                ("debugeventson", 44),
                ("debugeventsoff", 45),
                ("debugsampleson", 46),
                ("debugsamplesoff", 47),
                ("debugtrackson", 48),
                ("debugtracksoff", 49),
            ]
            .into_iter()
            .map(|(name, number)| {
                let event = EventDef {
                    name: name.into(),
                    type_number: number,
                    event_type: EventType::from_number(number),
                    track_id: 0,
                    implicit: false,
                    origin: Origin::new("(built in)", 0),
                };
                (name.to_string(), event)
            })
            .collect()
        });
    &EVENTS
}
