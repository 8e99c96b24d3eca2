//! [`SampleEvent`]: what the sound server decided about a note's sample — a cache miss
//! and the wait for the data, a late start or a drop, streaming from disk, a refusal by
//! noise reduction, a sample that could not be loaded — as data. The server (in `sound`)
//! converts its own types into these plain ones; `Display` gives the sentence the trace
//! has always printed.

use crate::runtime::sink::{NoteId, NoteName};
use crate::runtime::trace::TraceKind;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// The kind of a cache miss (after Mark Hill; the cache's own `MissKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MissClass {
    /// The data was never loaded before (or it changed).
    Compulsory,
    /// It was evicted for room, in LRU order, and is asked for again.
    Capacity,
    /// It was thrown out on a hint (evict, release, priority) and is asked for again.
    Conflict,
}

impl MissClass {
    /// Lower-case name: `compulsory`, `capacity` or `conflict`.
    pub fn name(self) -> &'static str {
        match self {
            MissClass::Compulsory => "compulsory",
            MissClass::Capacity => "capacity",
            MissClass::Conflict => "conflict",
        }
    }
}

/// Why a sample could not be had, by kind (the cache's and the decoder's errors sorted
/// for readers; the sentence is the error's own, in [`SampleEvent::LoadFailed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LoadFailure {
    /// The name can never name a resource, or tries to leave its pack or directory.
    BadName,
    /// No resource file holds it.
    NotFound,
    /// Its bytes could not be read.
    Unreadable,
    /// Its bytes are not audio the loader or decoder accepts.
    Undecodable,
    /// The memory budget had no room for it.
    OverBudget,
    /// The background loader is not running.
    LoaderStopped,
    /// Something else (a resource directory or pack that cannot be used).
    Other,
}

/// One decision of the sound server about a note's sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SampleEvent {
    /// A note's sample came from the cache: in memory already (a hit), or loaded on
    /// the spot by a render, which waits for it (a miss of its class).
    Fetched {
        /// The note.
        note: NoteId,
        /// The sample's resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
        /// `None` for a hit; the kind of miss for a sample loaded then.
        miss: Option<MissClass>,
    },
    /// The sample is not in memory yet: the note waits for the loader thread.
    CacheMiss {
        /// The note.
        note: NoteId,
        /// The sample's resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
        /// The kind of miss, as the cache counted it.
        class: Option<MissClass>,
    },
    /// A waiting note's sample arrived after the note's time: it starts late, or — a
    /// one-shot later than the server's limit — is dropped.
    Arrived {
        /// The note.
        note: NoteId,
        /// The sample's resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
        /// How late, in samples.
        late: u64,
        /// The output's sample rate (to say it in milliseconds).
        rate: u32,
        /// Dropped instead of started.
        dropped: bool,
        /// Later than a one-shot may start, but started: its priority (given) is at or
        /// above the server's `wait_priority`, so it took the miss.
        waited: Option<i32>,
    },
    /// A note was stopped while it still waited for its sample.
    StoppedWaiting {
        /// The note.
        note: NoteId,
    },
    /// A note plays from disk through the streaming path.
    Streaming {
        /// The note.
        note: NoteId,
        /// The sample's resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
    },
    /// Noise reduction: a server request was dropped because its origin is already
    /// playing a sound.
    OriginBusy {
        /// The sound's registered name.
        #[serde(with = "crate::runtime::trace::names")]
        sound: Arc<str>,
        /// Who asked.
        origin: i64,
    },
    /// A note's sample could not be loaded or opened: the note is dropped.
    LoadFailed {
        /// The note.
        note: NoteId,
        /// The sample's resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
        /// What kind of failure.
        failure: LoadFailure,
        /// The error, as the cache or the decoder says it (names the resource or file).
        reason: String,
    },
    /// The resource is in memory but holds no audio.
    NotAudio {
        /// The note.
        note: NoteId,
        /// The resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
    },
    /// The streaming thread could not be started: the note is dropped.
    StreamThreadFailed {
        /// The note.
        note: NoteId,
        /// The operating system's reason.
        reason: String,
    },
    /// A stream could not be opened on the streaming thread: the note is dropped.
    StreamFailed {
        /// The note.
        note: NoteId,
        /// The sample's resource name.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
        /// Why.
        reason: String,
    },
    /// The mixer had no free voice for a note: it is dropped.
    NoMixerVoice {
        /// The note.
        note: NoteId,
    },
    /// A streamed note's ring ran dry: the audio thread played silence for a moment.
    StreamRanDry {
        /// The note.
        note: NoteId,
    },
    /// The mixer's command ring was full: a command was lost.
    MixerRingFull,
    /// A sound of the server's own (`world.ini [ServerSounds]`) plays.
    ServerSound {
        /// Its note.
        note: NoteId,
        /// The sound's name.
        #[serde(with = "crate::runtime::trace::names")]
        sound: Arc<str>,
        /// The group the sample came from, when the sound is a selection sound (its
        /// first or second group, by the two-groups rule).
        #[serde(with = "crate::runtime::trace::names::option")]
        group: Option<Arc<str>>,
        /// The sample chosen.
        #[serde(with = "crate::runtime::trace::names")]
        sample: Arc<str>,
        /// Who asked (an object, or a selection of objects).
        origin: Option<i64>,
        /// The distance from the view point, in tiles (`None`: played by volume).
        distance: Option<f32>,
        /// The range it falls silent at, in tiles (its own, capped by `MaxRange`).
        range: f32,
        /// The volume it plays at (0–1).
        volume: f32,
    },
    /// A sound of the server's own did not play: out of range, or its sample failed.
    ServerSoundRefused {
        /// The sound's name.
        #[serde(with = "crate::runtime::trace::names")]
        sound: Arc<str>,
        /// Why.
        reason: String,
    },
}

impl SampleEvent {
    /// The kind of record it makes: waits, late starts and streams are `sample`, a
    /// noise-reduction refusal is a `voice` decision, failures are `error`s.
    pub fn kind(&self) -> TraceKind {
        match self {
            SampleEvent::Fetched { .. }
            | SampleEvent::CacheMiss { .. }
            | SampleEvent::Arrived { .. }
            | SampleEvent::StoppedWaiting { .. }
            | SampleEvent::Streaming { .. } => TraceKind::Sample,
            SampleEvent::OriginBusy { .. }
            | SampleEvent::ServerSound { .. }
            | SampleEvent::ServerSoundRefused { .. } => TraceKind::Voice,
            SampleEvent::LoadFailed { .. }
            | SampleEvent::NotAudio { .. }
            | SampleEvent::StreamThreadFailed { .. }
            | SampleEvent::StreamFailed { .. }
            | SampleEvent::NoMixerVoice { .. }
            | SampleEvent::StreamRanDry { .. }
            | SampleEvent::MixerRingFull => TraceKind::Error,
        }
    }

    /// The note it is about, if any.
    pub fn note(&self) -> Option<NoteId> {
        match self {
            SampleEvent::Fetched { note, .. }
            | SampleEvent::CacheMiss { note, .. }
            | SampleEvent::Arrived { note, .. }
            | SampleEvent::StoppedWaiting { note }
            | SampleEvent::Streaming { note, .. }
            | SampleEvent::LoadFailed { note, .. }
            | SampleEvent::NotAudio { note, .. }
            | SampleEvent::StreamThreadFailed { note, .. }
            | SampleEvent::StreamFailed { note, .. }
            | SampleEvent::NoMixerVoice { note }
            | SampleEvent::StreamRanDry { note } => Some(*note),
            SampleEvent::ServerSound { note, .. } => Some(*note),
            SampleEvent::OriginBusy { .. }
            | SampleEvent::ServerSoundRefused { .. }
            | SampleEvent::MixerRingFull => None,
        }
    }

    /// True for what the server counts as dropped (`SoundServer::counts`): a note that
    /// will never sound because it came too late or failed, or a lost mixer command. A
    /// note stopped while waiting and a request refused by noise reduction are not.
    pub fn dropped(&self) -> bool {
        match self {
            SampleEvent::Arrived { dropped, .. } => *dropped,
            SampleEvent::LoadFailed { .. }
            | SampleEvent::NotAudio { .. }
            | SampleEvent::StreamThreadFailed { .. }
            | SampleEvent::StreamFailed { .. }
            | SampleEvent::NoMixerVoice { .. }
            | SampleEvent::MixerRingFull => true,
            SampleEvent::Fetched { .. }
            | SampleEvent::CacheMiss { .. }
            | SampleEvent::StoppedWaiting { .. }
            | SampleEvent::Streaming { .. }
            | SampleEvent::OriginBusy { .. }
            | SampleEvent::ServerSound { .. }
            | SampleEvent::ServerSoundRefused { .. }
            | SampleEvent::StreamRanDry { .. } => false,
        }
    }
}

impl fmt::Display for SampleEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SampleEvent as S;
        match self {
            S::Fetched {
                note,
                sample,
                miss: None,
            } => write!(f, "{}: `{sample}` from the cache (hit)", NoteName(*note)),
            S::Fetched {
                note,
                sample,
                miss: Some(class),
            } => write!(
                f,
                "{}: `{sample}` loaded for it ({} miss)",
                NoteName(*note),
                class.name()
            ),
            S::CacheMiss { note, sample, .. } => write!(
                f,
                "{}: cache miss for `{sample}`; it starts when the data arrives",
                NoteName(*note)
            ),
            S::Arrived {
                note,
                sample,
                late,
                rate,
                dropped: true,
                ..
            } => write!(
                f,
                "{}: `{sample}` arrived {:.0} ms late; dropped (a one-shot that late would be out of place)",
                NoteName(*note),
                *late as f64 * 1000.0 / f64::from((*rate).max(1))
            ),
            S::Arrived {
                note,
                sample,
                late,
                rate,
                waited: Some(priority),
                ..
            } => write!(
                f,
                "{}: `{sample}` arrived {:.0} ms late; started anyway (priority {priority} takes the miss)",
                NoteName(*note),
                *late as f64 * 1000.0 / f64::from((*rate).max(1))
            ),
            S::Arrived {
                note, sample, late, ..
            } => write!(
                f,
                "{}: `{sample}` arrived; starting {late} samples late",
                NoteName(*note)
            ),
            S::StoppedWaiting { note } => {
                write!(f, "{} stopped before its sample arrived", NoteName(*note))
            }
            S::Streaming { note, sample } => {
                write!(f, "{}: streaming `{sample}` from disk", NoteName(*note))
            }
            S::OriginBusy { sound, origin } => write!(
                f,
                "`{sound}` from origin {origin} dropped: that origin is already playing"
            ),
            S::LoadFailed { note, reason, .. } => write!(f, "{}: {reason}", NoteName(*note)),
            S::NotAudio { sample, .. } => write!(f, "`{sample}` is not audio"),
            S::StreamThreadFailed { reason, .. } => {
                write!(f, "cannot start the streaming thread: {reason}")
            }
            S::StreamFailed {
                note,
                sample,
                reason,
            } => write!(f, "{}: cannot stream `{sample}`: {reason}", NoteName(*note)),
            S::NoMixerVoice { note } => {
                write!(f, "{}: no free mixer voice; dropped", NoteName(*note))
            }
            S::StreamRanDry { note } => write!(f, "{}: its stream ran dry", NoteName(*note)),
            S::MixerRingFull => f.write_str("mixer command ring full: a command was dropped"),
            S::ServerSound {
                note,
                sound,
                group,
                sample,
                origin,
                distance,
                range,
                volume,
            } => {
                write!(f, "server sound `{sound}`")?;
                if let Some(origin) = origin {
                    write!(f, " from origin {origin}")?;
                }
                if let Some(group) = group {
                    write!(f, " (selection: group `{group}`)")?;
                }
                write!(
                    f,
                    " plays `{sample}` as {} at volume {volume:.2}",
                    NoteName(*note)
                )?;
                match distance {
                    Some(d) => write!(f, " ({d:.1} of {range} tiles away)"),
                    None => Ok(()),
                }
            }
            S::ServerSoundRefused { sound, reason } => {
                write!(f, "server sound `{sound}` not played: {reason}")
            }
        }
    }
}
