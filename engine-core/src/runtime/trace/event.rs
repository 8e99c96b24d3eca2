//! [`TraceEvent`]: what the runtime decided, as data. Readers (the voice history, the
//! traces panel's filters, faults in the Problems list, replays) match on the variants;
//! `Display` gives the sentence a person reads, the same one the trace has always printed.

use crate::runtime::hooks::HookEvent;
use crate::runtime::objects::ObjectId;
use crate::runtime::outcome::DecisionKind;
use crate::runtime::sink::NoteName;
pub use crate::runtime::trace::end::EndReason;
use crate::runtime::trace::levels::{GainParts, PanParts};
use crate::runtime::trace::reload::ReloadEvent;
use crate::runtime::trace::sample::SampleEvent;
use crate::runtime::trace::seats::{Occupant, VoiceTable};
use crate::runtime::trace::world::WorldEvent;
use crate::runtime::units::Gain;
use crate::runtime::vm::FaultKind;
use crate::runtime::voices::WorldVoice;
use crate::toolchain::project::{DebugTrace, Origin};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where in the code something happened: an address and, when the debug info knows it,
/// the source line (else the unit's file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodePlace {
    /// Byte address in the unit.
    pub address: u32,
    /// The source file and line, from the `.hdb`.
    pub origin: Option<Origin>,
    /// The unit's file, when no source line is known.
    pub unit: Option<PathBuf>,
}

impl CodePlace {
    /// The source file, if known (the unit's file otherwise).
    pub fn file(&self) -> Option<&Path> {
        self.origin
            .as_ref()
            .map(|o| &*o.file)
            .or(self.unit.as_deref())
    }

    /// The 1-based source line, if known.
    pub fn line(&self) -> Option<u32> {
        self.origin.as_ref().map(|o| o.line).filter(|l| *l > 0)
    }
}

impl fmt::Display for CodePlace {
    /// `address 0x0012 (piano.src:31)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "address 0x{:04x} (", self.address)?;
        match (&self.origin, &self.unit) {
            (Some(origin), _) => write!(f, "{origin}")?,
            (None, Some(unit)) => write!(f, "{}", unit.display())?,
            (None, None) => {}
        }
        f.write_str(")")
    }
}

impl TraceEvent {
    /// The decision about a trigger this record gives, if it gives one: what the Why
    /// panel makes a verdict of (`tools::why`), named by its one word. Its sentence
    /// (`Display`) starts with that word.
    pub fn decision(&self) -> Option<DecisionKind> {
        use TraceEvent as E;
        Some(match self {
            E::Started { .. } | E::WorldVoiceTaken { .. } => DecisionKind::Started,
            E::Stole { .. } => DecisionKind::Stole,
            E::Refused { .. } => DecisionKind::Refused,
            E::Joined { .. } => DecisionKind::Joined,
            E::AlreadyOwner { .. } | E::AlreadyPlaying { .. } | E::PlaysItself { .. } => {
                DecisionKind::AlreadyPlaying
            }
            E::Interrupted { .. } => DecisionKind::TookOver,
            E::NoTrack { .. } | E::NoCode { .. } => DecisionKind::NoTrack,
            E::UnknownEvent { .. } => DecisionKind::UnknownEvent,
            E::HandedToWorld(_) => DecisionKind::World,
            _ => return None,
        })
    }

    /// The place in a track's code this record is about — a fault, a `printreg`, a
    /// pause — if it names one.
    pub fn code_place(&self) -> Option<&CodePlace> {
        match self {
            TraceEvent::Fault { place, .. }
            | TraceEvent::Print { place, .. }
            | TraceEvent::Paused { place, .. } => place.as_ref(),
            _ => None,
        }
    }
}

/// One thing the runtime decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TraceEvent {
    /// An event name nobody defines.
    UnknownEvent {
        /// The name as triggered.
        #[serde(with = "crate::runtime::trace::names")]
        name: Arc<str>,
    },
    /// An event was triggered.
    Dispatched {
        /// The event.
        #[serde(with = "crate::runtime::trace::names")]
        event: Arc<str>,
        /// Its type number.
        type_number: i64,
        /// Its track ID.
        track_id: u32,
        /// The object it sounds from (`None`: a UI sound).
        source: Option<ObjectId>,
    },
    /// An event for the world (TV, music mode).
    HandedToWorld(HookEvent),
    /// A debug event switched a trace.
    TraceSwitched {
        /// Which trace.
        trace: DebugTrace,
        /// On or off.
        on: bool,
    },
    /// An event type with no handler.
    Unhandled {
        /// The type number.
        type_number: i64,
    },
    /// A track got a voice.
    Started {
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its voice.
        voice: usize,
        /// Its priority.
        priority: i32,
        /// Voices busy now.
        in_use: usize,
        /// The voice limit.
        capacity: usize,
    },
    /// A new thread began.
    TrackStarted,
    /// `play_trk` of the track itself while it plays.
    PlaysItself {
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its voice.
        voice: usize,
    },
    /// A second object joined a playing copy as an owner.
    Joined {
        /// The object that joined.
        object: ObjectId,
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its voice.
        voice: usize,
        /// Every owner now, ascending.
        owners: Vec<ObjectId>,
    },
    /// The object already owns the playing copy.
    AlreadyOwner {
        /// The object.
        object: ObjectId,
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its voice.
        voice: usize,
    },
    /// A UI trigger of a track already playing.
    AlreadyPlaying {
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its voice.
        voice: usize,
    },
    /// An event whose track is not defined.
    NoTrack {
        /// The event.
        #[serde(with = "crate::runtime::trace::names")]
        event: Arc<str>,
        /// The track ID it names.
        track_id: u32,
    },
    /// A track whose entry address holds no instruction.
    NoCode {
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// The entry address.
        address: u32,
    },
    /// A new trigger takes over an interruptible copy.
    Interrupted {
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its voice.
        voice: usize,
        /// The old copy's looping notes finish their cycle first (`nc_` events).
        finish_loops: bool,
    },
    /// Box-X stole a voice.
    Stole {
        /// The new track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its priority.
        priority: i32,
        /// The track that lost the voice (the lowest priority, the oldest on a tie).
        victim: Occupant,
        /// Every track that held a voice, as compared.
        occupants: VoiceTable,
        /// The voice limit.
        capacity: usize,
    },
    /// Box-X refused a track.
    Refused {
        /// The refused track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Its priority.
        priority: i32,
        /// The lowest priority playing (the one it would have had to beat).
        lowest: Occupant,
        /// Every track that held a voice, as compared.
        occupants: VoiceTable,
        /// The voice limit.
        capacity: usize,
    },
    /// An object stopped saying a track and it had no owner left.
    QuietedLastOwner {
        /// The object.
        object: ObjectId,
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
    },
    /// An object stopped saying a track that plays on for others.
    QuietedOwner {
        /// The object.
        object: ObjectId,
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// The owners left.
        left: Vec<ObjectId>,
    },
    /// Quiet all.
    QuietAll {
        /// Tracks that stop.
        count: usize,
    },
    /// A world player (a station, the music, the load loop, the river, the ambience)
    /// took a voice slot, free or stolen (a [`TraceEvent::Stole`] says from whom).
    WorldVoiceTaken {
        /// Who.
        who: WorldVoice,
        /// The slot.
        voice: usize,
        /// Its priority (`world.ini [Voices]`).
        priority: i32,
        /// Voices busy after it took its own.
        in_use: usize,
        /// The voice limit.
        capacity: usize,
    },
    /// A world player left its voice slot: it went silent, or lost the slot.
    WorldVoiceLeft {
        /// Who.
        who: WorldVoice,
        /// The slot.
        voice: usize,
        /// Why: `Ended` (it went silent), `Stolen`, `QuietAll`, `LastOwnerQuieted`
        /// (`quiet` of its last receiver), `VoiceLimit` (the limit was lowered).
        why: EndReason,
    },
    /// A stop event: the track's notes play out.
    StoppedPlayingOut,
    /// A track ended.
    Ended(EndReason),
    /// A track's code ended (its notes may still sound).
    CodeEnded,
    /// The tick's instruction budget ran out.
    Overloaded {
        /// Instructions run in the tick.
        used: u64,
        /// Track runs moved to the next tick.
        deferred: usize,
    },
    /// A track faulted.
    Fault {
        /// The event.
        #[serde(with = "crate::runtime::trace::names")]
        event: Arc<str>,
        /// The track.
        #[serde(with = "crate::runtime::trace::names")]
        track: Arc<str>,
        /// Where (`None`: its sound, not its code).
        place: Option<CodePlace>,
        /// What went wrong.
        kind: FaultKind,
    },
    /// A track changed its ducking level.
    Ducked {
        /// The new level (1 when unducked).
        level: Gain,
        /// Its own ducking priority.
        duck_priority: i32,
    },
    /// A track started or stopped ducking others.
    Ducking {
        /// On or off.
        on: bool,
        /// Its ducking priority.
        duck_priority: i32,
    },
    /// `seqgroup_kill` stopped other tracks.
    SequenceGroupKill {
        /// The group (0: this actor's vocals).
        group: u8,
        /// Tracks stopped.
        count: usize,
    },
    /// A hit-list pick.
    Pick {
        /// The list.
        list: u32,
        /// The entry's index.
        index: usize,
        /// The value picked.
        value: u32,
        /// Entries left out because they were picked last time.
        excluded: Vec<u32>,
    },
    /// A note started.
    NoteStarted {
        /// The note.
        note: u64,
        /// The patch.
        patch: u32,
        /// Its name.
        #[serde(with = "crate::runtime::trace::names")]
        patch_name: Arc<str>,
        /// The sample's resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
        /// The gain, contribution by contribution.
        gain: Box<GainParts>,
        /// The pan and where it came from.
        pan: Box<PanParts>,
        /// Looping until stopped.
        looping: bool,
        /// Pitch register, in cents.
        cents: i32,
    },
    /// A note could not start: its patch has no sample file, or the file is unusable.
    SampleMissing {
        /// The patch.
        patch: u32,
        /// Its name.
        #[serde(with = "crate::runtime::trace::names")]
        patch_name: Arc<str>,
        /// Why.
        reason: String,
    },
    /// `setsrcdatafield` on a field the object lacks.
    NoSuchField {
        /// The object.
        object: i32,
        /// The field.
        field: i32,
    },
    /// `play_trk` could not start a track.
    PlayTrackFailed {
        /// Why.
        reason: String,
    },
    /// `printreg`.
    Print {
        /// The register's name.
        name: String,
        /// Its value.
        value: i32,
        /// Where the instruction is.
        place: Option<CodePlace>,
    },
    /// A data directory was added while running.
    DirectoryAdded {
        /// The directory.
        dir: PathBuf,
        /// Problems found loading it.
        problems: usize,
    },
    /// A reload replaced a running track's code: it ends after its notes.
    CodeReplaced,
    /// The sound server's decision about a note's sample.
    Sample(SampleEvent),
    /// The world director's decision or news.
    World(WorldEvent),
    /// A step of a hot reload.
    Reload(ReloadEvent),
    /// The debugger paused the engine before an instruction of the track (or at its
    /// fault): the clock stands still until it goes on.
    Paused {
        /// Where (`None`: no code place known).
        place: Option<CodePlace>,
        /// Why: a breakpoint, a step's end, a fault.
        reason: crate::runtime::debug::PauseReason,
    },
    /// The voice limit was lowered below the voices in use: Box-X let this track go
    /// (the lowest priority playing, the oldest on a tie); it stops at once. A world
    /// player let go says so with [`TraceEvent::WorldVoiceLeft`].
    LimitStopped {
        /// The track that lost its voice, as compared.
        victim: Occupant,
        /// The voice limit now.
        capacity: usize,
    },
}

fn ids(list: &[impl ToString]) -> String {
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for TraceEvent {
    /// A decision's sentence starts with its word ([`TraceEvent::decision`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceEvent as E;
        match self {
            E::Dispatched {
                event,
                type_number,
                track_id,
                source,
            } => {
                write!(f, "`{event}` (type {type_number}, track {track_id}) ")?;
                match source {
                    Some(object) => write!(f, "from object {object}"),
                    None => f.write_str("as a UI sound"),
                }
            }
            E::TraceSwitched { trace, on } => {
                let what = match trace {
                    DebugTrace::Events => "event",
                    DebugTrace::Samples => "sample",
                    DebugTrace::Tracks => "track",
                };
                write!(f, "{what} trace {}", if *on { "on" } else { "off" })
            }
            E::Unhandled { type_number } => {
                write!(f, "event type {type_number} has no handler here; ignored")
            }
            E::TrackStarted => f.write_str("track started"),
            E::Sample(what) => write!(f, "{what}"),
            E::World(what) => write!(f, "{what}"),
            E::Reload(what) => write!(f, "{what}"),
            other if other.decision().is_some() => other.fmt_decision(f),
            other => other.fmt_more(f),
        }
    }
}

impl TraceEvent {
    /// The sentence of a decision about a trigger: it starts with the decision's word.
    fn fmt_decision(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DecisionKind as D;
        use TraceEvent as E;
        match self {
            E::UnknownEvent { name } => write!(f, "{} `{name}`", D::UnknownEvent),
            E::HandedToWorld(hook) => write!(f, "{}: {hook:?}", D::World),
            E::Started {
                track,
                voice,
                priority,
                in_use,
                capacity,
            } => write!(
                f,
                "{} `{track}` on voice {voice} (priority {priority}; {in_use} of {capacity} voices in use)",
                D::Started
            ),
            E::PlaysItself { track, voice } => write!(
                f,
                "{}: `{track}` starts its own track with play_trk while it plays on voice {voice} (one copy of a track at a time)",
                D::AlreadyPlaying
            ),
            E::Joined {
                object,
                track,
                voice,
                owners,
            } => write!(
                f,
                "{}: object {object} now also says `{track}` (already on voice {voice}); owners [{}]",
                D::Joined,
                ids(owners)
            ),
            E::AlreadyOwner {
                object,
                track,
                voice,
            } => write!(
                f,
                "{}: object {object} already says `{track}` (voice {voice})",
                D::AlreadyPlaying
            ),
            E::AlreadyPlaying { track, voice } => write!(
                f,
                "{}: `{track}` on voice {voice} (one copy of a track at a time)",
                D::AlreadyPlaying
            ),
            E::NoTrack { event, track_id } => write!(
                f,
                "{}: event `{event}` refers to track {track_id}, which is not defined",
                D::NoTrack
            ),
            E::NoCode { track, address } => write!(
                f,
                "{}: track `{track}` has no instruction at its entry address 0x{address:x}",
                D::NoTrack
            ),
            E::Interrupted {
                track,
                voice,
                finish_loops,
            } => write!(
                f,
                "{}: `{track}` on voice {voice} has its interrupt register set; the new trigger takes its voice{}",
                D::TookOver,
                if *finish_loops {
                    " after its loops finish their cycle"
                } else {
                    ""
                }
            ),
            E::Stole {
                track,
                priority,
                victim,
                capacity,
                ..
            } => write!(
                f,
                "{} voice {} from `{}` (priority {}) for `{track}` (priority {priority}): {priority} > {}, all {capacity} voices busy, lowest priority and oldest loses",
                D::Stole,
                victim.voice,
                victim.track,
                victim.priority,
                victim.priority
            ),
            E::Refused {
                track,
                priority,
                lowest,
                capacity,
                ..
            } => write!(
                f,
                "{} `{track}` (priority {priority}): all {capacity} voices busy and the lowest priority playing is `{}` on voice {} with priority {} ({priority} <= {})",
                D::Refused,
                lowest.track,
                lowest.voice,
                lowest.priority,
                lowest.priority
            ),
            E::WorldVoiceTaken {
                who,
                voice,
                priority,
                in_use,
                capacity,
            } => write!(
                f,
                "{} {who} on voice {voice} (priority {priority}; {in_use} of {capacity} voices in use)",
                DecisionKind::Started
            ),
            other => other.fmt_more(f),
        }
    }
}

impl TraceEvent {
    /// The sentences of the variants after the Box-X ones.
    fn fmt_more(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceEvent as E;
        match self {
            E::QuietedLastOwner { object, track } => write!(
                f,
                "quiet: object {object} was the last owner of `{track}`: it stops"
            ),
            E::QuietedOwner {
                object,
                track,
                left,
            } => write!(
                f,
                "quiet: object {object} stops saying `{track}`; it plays on for [{}]",
                ids(left)
            ),
            E::QuietAll { count } => write!(f, "quiet all: {count} track(s) stop"),
            E::LimitStopped { victim, capacity } => write!(
                f,
                "the voice limit is now {capacity}: {victim} stops, the lowest priority playing"
            ),
            E::WorldVoiceLeft { who, voice, why } => {
                write!(f, "{who} leaves voice {voice} ({why})")
            }
            E::StoppedPlayingOut => f.write_str("stopped: its current notes play out"),
            E::Ended(why) => write!(f, "track ends ({why})"),
            E::CodeEnded => f.write_str("code ended"),
            E::Overloaded { used, deferred } => write!(
                f,
                "overloaded: all tracks together ran {used} instructions in one tick (the limit); {deferred} track run(s) wait for the next tick"
            ),
            E::Fault {
                event,
                track,
                place,
                kind,
            } => {
                write!(f, "event `{event}`, track `{track}`, ")?;
                match place {
                    Some(place) => write!(f, "{place}")?,
                    None => f.write_str("its sound")?,
                }
                let stopped = if matches!(kind, FaultKind::ChainOutOfFuel { .. }) {
                    "the chain is stopped"
                } else {
                    "the track is stopped"
                };
                write!(f, ": {kind}; {stopped}")
            }
            E::Ducked {
                level,
                duck_priority,
            } => {
                if *level == Gain::UNITY {
                    f.write_str("unducked")
                } else {
                    write!(
                        f,
                        "ducked to {level} (its ducking priority {duck_priority} is below a ducking track's)"
                    )
                }
            }
            E::Ducking { on, duck_priority } => {
                if *on {
                    write!(
                        f,
                        "duck: sounds below ducking priority {duck_priority} are lowered"
                    )
                } else {
                    f.write_str("unduck")
                }
            }
            E::SequenceGroupKill { group, count } => {
                write!(f, "seqgroup_kill {group}: {count} other track(s) stop")
            }
            E::Pick {
                list,
                index,
                value,
                excluded,
            } => {
                write!(f, "hit list {list}: picked {value} (entry {index}); ")?;
                if excluded.is_empty() {
                    f.write_str("nothing excluded")
                } else {
                    write!(f, "excluded {} (picked last time)", ids(excluded))
                }
            }
            other => other.fmt_rest(f),
        }
    }

    /// The sentences of notes, samples, prints and directories.
    fn fmt_rest(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use TraceEvent as E;
        match self {
            E::NoteStarted {
                note,
                patch,
                patch_name,
                sample,
                gain,
                pan,
                looping,
                cents,
            } => {
                write!(
                    f,
                    "{}: patch {patch} `{patch_name}` ({sample}) gain {:.2} pan {:+.2}",
                    NoteName(*note),
                    gain.total().get(),
                    pan.value.get()
                )?;
                if *looping {
                    f.write_str(", looping")?;
                }
                if *cents != 0 {
                    write!(f, ", pitch {cents} cents")?;
                }
                Ok(())
            }
            E::SampleMissing {
                patch,
                patch_name,
                reason,
            } => write!(f, "patch {patch} ({patch_name}): {reason}; note not played"),
            E::NoSuchField { object, field } => write!(
                f,
                "setsrcdatafield: object {object} has no field {field}; nothing written"
            ),
            E::PlayTrackFailed { reason } => write!(f, "play_trk: {reason}"),
            E::Print { name, value, place } => {
                write!(f, "{name} = {value} at ")?;
                match place {
                    Some(place) => write!(f, "{place}"),
                    None => f.write_str("an address outside the code"),
                }
            }
            E::DirectoryAdded { dir, problems } => write!(
                f,
                "data directory added: {} ({problems} problem(s))",
                dir.display()
            ),
            E::CodeReplaced => {
                f.write_str("code replaced by a reload: the track ends after its current notes")
            }
            E::Paused { place, reason } => {
                f.write_str("paused")?;
                if let Some(place) = place {
                    write!(f, " at {place}")?;
                }
                match reason {
                    crate::runtime::debug::PauseReason::Breakpoint(id) => {
                        write!(f, " (breakpoint {id})")
                    }
                    crate::runtime::debug::PauseReason::Step => f.write_str(" (step)"),
                    crate::runtime::debug::PauseReason::Fault(fault) => {
                        write!(f, " (fault: {fault}; it ends when the engine goes on)")
                    }
                }
            }
            _ => Ok(()),
        }
    }
}
