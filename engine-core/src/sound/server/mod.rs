//! The sound server: turns what the runtime decides into mixer commands, and
//! offers the server's own features — sound groups, "two groups" selection sounds,
//! noise reduction by origin, and volume from distance.
//!
//! Samples come through the resource cache. In real time the server never waits for it:
//! a sample not yet loaded is a traced miss, and the note starts when the data arrives —
//! late, from its beginning — or is dropped if that would be too late for a one-shot
//! (loops and music always start). Offline rendering loads synchronously, so output is
//! deterministic.
//!
//! **Long sounds stream.** A sound whose decoded size is over
//! [`ServerConfig::stream_bytes`] (by its headers), music longer than
//! [`ServerConfig::stream_seconds`], and any sound the cache refuses as too large to hold
//! ([`CacheError::TooLarge`]: its length was not in its headers) is played from disk through
//! the streaming path (`streamer`) instead of being decoded whole: a few kilobytes of
//! FLAC can decode to hundreds of megabytes. Live, a streaming thread fills the rings;
//! offline, the server fills them itself once per tick ([`Streamer::inline`]), so renders
//! stay deterministic.
//!
//! The parts: `loader` decodes audio files for the cache; `lengths` tells the runtime
//! how long samples are; `streaming` plays long sounds from disk; `requests` plays the
//! server's own requests (sound groups, selection sounds, noise reduction, distance);
//! `sink` takes the runtime's commands; [`bank`] is the registry of the server's sounds.
//! Here: the server, its notes waiting for samples, and its telemetry.

pub mod bank;
mod lengths;
mod loader;
mod monitor;
mod requests;
mod sink;
mod streaming;

pub use lengths::{CacheSamples, LengthError};
pub use loader::{SampleLoader, project_cache};
pub use monitor::{MonitorState, MonitorTarget, SlotOwner};
pub use requests::{Power, Refusal, Request};

use crate::runtime::clock::SampleTime;
use crate::runtime::hash::FastMap;
use crate::runtime::rng::Rng;
use crate::runtime::sink::{ControlGroup, NoteId, SampleRef};
use crate::runtime::trace::{LoadFailure, MissClass, SampleEvent, TraceEvent, TraceRecord};
use crate::runtime::units::{Gain, Pan};
use crate::sound::audio::decode::DecodeError;
use crate::sound::cache::{CacheError, Handle, Lookup, MissKind, ResourceCache};
use crate::sound::mixer::{MixCommand, MixEvent, MixerHandle, VoiceSource};
use crate::sound::streamer::Streamer;
use bank::{OriginId, SoundBank};
use std::sync::Arc;

/// How the server loads and plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerConfig {
    /// Wait for the cache (offline rendering: deterministic) instead of starting notes
    /// when their data arrives.
    pub blocking: bool,
    /// A one-shot whose sample arrives more than this many samples after its time is
    /// dropped; loops and music start whenever their data arrives.
    pub late_limit: u64,
    /// Music files longer than this many seconds stream from disk.
    pub stream_seconds: f64,
    /// Sounds of any group whose decoded size is more than this many bytes stream from
    /// disk ([`STREAM_BYTES`] by default).
    pub stream_bytes: u64,
    /// Distance beyond which nothing is heard (the server's global maximum range).
    pub max_range: f32,
    /// A note of this priority or more whose sample misses the cache waits for it
    /// however long it takes, instead of being dropped after `late_limit` ("important
    /// sounds take the miss"); `world.ini [Cache] WaitPriority`. Above 127: none waits.
    pub wait_priority: i32,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            blocking: false,
            late_limit: 48_000 / 4,
            stream_seconds: 20.0,
            stream_bytes: STREAM_BYTES,
            max_range: 1000.0,
            wait_priority: DEFAULT_WAIT_PRIORITY,
        }
    }
}

/// The priority from which a note waits for its sample ([`ServerConfig::wait_priority`]):
/// above a track's default (32), so only tracks a designer marked important wait.
pub const DEFAULT_WAIT_PRIORITY: i32 = 64;

/// A start waiting for its sample.
#[derive(Debug, Clone)]
struct Pending {
    note: NoteId,
    at: SampleTime,
    sample: SampleRef,
    gain: Gain,
    pan: Pan,
    pitch: f32,
    looping: bool,
    group: ControlGroup,
    reverb: bool,
    /// The priority of what plays it ([`SoundCommand::Start`]).
    priority: i32,
}

/// Largest sample file [`SoundServer::warm_up`] loads ahead (larger ones, usually
/// music, load or stream when played).
pub const WARM_UP_BYTES: u64 = 1 << 20;

/// Decoded size, in bytes, above which a sound is streamed from disk rather than decoded
/// whole into the cache (the default of [`ServerConfig::stream_bytes`]): 16 MiB, about 44 s
/// of 48 kHz stereo. Well under
/// [`MAX_SAMPLE_BYTES`](crate::sound::audio::decode::MAX_SAMPLE_BYTES), so what the server
/// plays from the cache never meets that limit.
pub const STREAM_BYTES: u64 = 16 << 20;

/// Music of unknown length (no length in its headers) streams when its file is larger than
/// this many bytes (1 MB, about a minute of 128 kbit/s MP3).
pub const MUSIC_STREAM_FILE_BYTES: u64 = 1_000_000;

pub use crate::runtime::sink::{SERVER_NOTES, WORLD_NOTES};

/// The control side of sound.
pub struct SoundServer {
    mixer: MixerHandle,
    cache: Arc<ResourceCache>,
    streamer: Option<Streamer>,
    config: ServerConfig,
    pending: Vec<Pending>,
    origins: FastMap<OriginId, NoteId>,
    note_origins: FastMap<NoteId, OriginId>,
    bank: SoundBank,
    rng: Rng,
    next_note: NoteId,
    now: SampleTime,
    trace: Vec<TraceRecord>,
    ended: Vec<NoteId>,
    started: u64,
    missed: u64,
    dropped: u64,
    /// Mute and solo: the gains held at silence.
    monitor: monitor::NoteMonitor,
}

impl SoundServer {
    /// A server sending to `mixer`, loading through `cache`.
    pub fn new(
        mixer: MixerHandle,
        cache: Arc<ResourceCache>,
        config: ServerConfig,
        seed: u64,
    ) -> Self {
        Self {
            mixer,
            cache,
            streamer: None,
            config,
            pending: Vec::new(),
            origins: FastMap::default(),
            note_origins: FastMap::default(),
            bank: SoundBank::default(),
            rng: Rng::new(0x5EED ^ seed),
            next_note: SERVER_NOTES,
            now: SampleTime::ZERO,
            trace: Vec::new(),
            ended: Vec::new(),
            started: 0,
            missed: 0,
            dropped: 0,
            monitor: monitor::NoteMonitor::default(),
        }
    }

    /// What is muted and soloed.
    pub fn monitor(&self) -> &MonitorState {
        &self.monitor.state
    }

    /// Mutes and solos `state` from `at` on, with who holds each Box-X slot now (the
    /// engine's threads): notes no longer heard fade to silence, notes heard again to
    /// the gain they have by now, over a few milliseconds.
    pub fn set_monitor(
        &mut self,
        state: MonitorState,
        slots: Vec<Option<SlotOwner>>,
        at: SampleTime,
    ) {
        self.monitor.state = state;
        self.update_monitor(slots, at);
    }

    /// While anything is muted or soloed: who holds each slot now (owners change,
    /// slots change hands), and the notes whose hearing changed.
    pub fn update_monitor(&mut self, slots: Vec<Option<SlotOwner>>, at: SampleTime) {
        self.monitor.set_slots(slots);
        let ramp = self.mixer.sample_rate() / 200;
        for (note, gain) in self.monitor.changes() {
            if let Some(p) = self.pending.iter_mut().find(|p| p.note == note) {
                p.gain = gain;
                continue;
            }
            self.send_mixer(MixCommand::SetGain {
                note,
                at: at.samples(),
                gain,
                ramp,
            });
        }
    }

    /// The mixer's control handle (volumes, meters, position).
    pub fn mixer(&self) -> &MixerHandle {
        &self.mixer
    }

    /// Sets from which priority a note waits for its sample ([`ServerConfig::wait_priority`]).
    pub fn set_wait_priority(&mut self, priority: i32) {
        self.config.wait_priority = priority;
    }

    /// The resource cache it plays from.
    pub fn cache(&self) -> &Arc<ResourceCache> {
        &self.cache
    }

    /// The server's sound registry (sounds by ID, sample groups, ranges).
    pub fn bank(&mut self) -> &mut SoundBank {
        &mut self.bank
    }

    /// Sets the distance, in tiles, beyond which no sound of the server's own is heard.
    pub fn set_max_range(&mut self, tiles: f32) {
        self.config.max_range = tiles;
    }

    /// Takes the server's trace records (misses, late starts, drops, errors).
    pub fn take_trace(&mut self) -> Vec<TraceRecord> {
        std::mem::take(&mut self.trace)
    }

    /// Notes started, misses and drops so far.
    pub fn counts(&self) -> (u64, u64, u64) {
        (self.started, self.missed, self.dropped)
    }

    /// Notes waiting for their samples.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Traces a decision at the server's time (its kind and note are the event's).
    fn record(&mut self, what: SampleEvent) {
        let note = what.note();
        let mut record = TraceRecord::new(self.now, what.kind(), TraceEvent::Sample(what));
        record.note = note;
        self.trace.push(record);
    }

    /// A note that will never sound (or sound again): counted, traced, and reported to
    /// [`SoundServer::take_ended`] like a note that played out.
    fn drop_note(&mut self, note: NoteId, what: SampleEvent) {
        self.dropped += 1;
        self.record(what);
        self.mark_ended(note);
    }

    /// A note whose sample the cache could not give: dropped.
    fn drop_failed(&mut self, note: NoteId, sample: &Arc<str>, error: &CacheError) {
        let what = SampleEvent::LoadFailed {
            note,
            sample: Arc::clone(sample),
            failure: cache_failure(error),
            reason: error.to_string(),
        };
        self.drop_note(note, what);
    }

    /// A note is over (played out, faded, stopped while waiting, dropped): the monitor
    /// forgets it, and a world note is handed to [`SoundServer::take_ended`].
    fn mark_ended(&mut self, note: NoteId) {
        self.monitor.forget(note);
        if (WORLD_NOTES..SERVER_NOTES).contains(&note) {
            self.ended.push(note);
        }
    }

    /// World notes (from [`WORLD_NOTES`] up) that ended since the last call — played
    /// out, faded after a stop, or dropped without sounding — so stations and music can
    /// go on to the next piece.
    pub fn take_ended(&mut self) -> Vec<NoteId> {
        std::mem::take(&mut self.ended)
    }

    fn send_mixer(&mut self, command: MixCommand) {
        if self.mixer.send(command).is_err() {
            self.dropped += 1;
            self.record(SampleEvent::MixerRingFull);
        }
    }

    /// Keeps the server current: starts notes whose samples arrived, drops those that
    /// waited too long, reads the mixer's telemetry and frees what it retired. Call it
    /// once per engine tick with the engine's time.
    pub fn update(&mut self, now: SampleTime) {
        self.now = now;
        let waiting = std::mem::take(&mut self.pending);
        for pending in waiting {
            match self.cache.try_get(&pending.sample.name) {
                Lookup::Ready(handle) => {
                    if self.too_late(&pending, now) {
                        continue;
                    }
                    self.start_from_handle(&pending, now.max(pending.at), handle);
                }
                Lookup::Loading => self.pending.push(pending),
                Lookup::Failed(CacheError::TooLarge { .. }) => {
                    if self.too_late(&pending, now) {
                        continue;
                    }
                    self.start_stream(&pending, now.max(pending.at), None);
                }
                Lookup::Failed(e) => self.drop_failed(pending.note, &pending.sample.name, &e),
            }
        }
        for event in self.mixer.events() {
            match event {
                MixEvent::Ended { note, .. } => {
                    self.mark_ended(note);
                    if let Some(origin) = self.note_origins.remove(&note)
                        && self.origins.get(&origin) == Some(&note)
                    {
                        self.origins.remove(&origin);
                    }
                }
                MixEvent::NoVoice { note } => {
                    self.drop_note(note, SampleEvent::NoMixerVoice { note });
                }
                MixEvent::Starved { note } => self.record(SampleEvent::StreamRanDry { note }),
                MixEvent::Started { .. } => {}
            }
        }
        self.mixer.collect_retired();
        // Offline, the streams are filled here, once per tick, before the mixer renders it.
        if let Some(streamer) = &mut self.streamer {
            streamer.pump();
        }
    }

    /// True (and the note dropped) when the sample of a waiting one-shot came too late for
    /// it; traces a late start otherwise.
    fn too_late(&mut self, pending: &Pending, now: SampleTime) -> bool {
        let late = now - pending.at;
        let over = late > self.config.late_limit
            && !pending.looping
            && pending.group != ControlGroup::Music;
        let important = pending.priority >= self.config.wait_priority;
        let dropped = over && !important;
        let what = SampleEvent::Arrived {
            note: pending.note,
            sample: Arc::clone(&pending.sample.name),
            late,
            rate: self.mixer.sample_rate(),
            dropped,
            waited: (over && important).then_some(pending.priority),
        };
        if dropped {
            self.drop_note(pending.note, what);
        } else if late > 0 {
            self.record(what);
        }
        dropped
    }

    fn start_from_handle(&mut self, p: &Pending, at: SampleTime, handle: Handle) {
        if handle.samples().is_none() {
            let what = SampleEvent::NotAudio {
                note: p.note,
                sample: Arc::clone(&p.sample.name),
            };
            self.drop_note(p.note, what);
            return;
        }
        // The mixer plays the cache's own handle: the memory stays counted (pinned if
        // evicted) while the voice plays, and nothing is copied.
        self.started += 1;
        self.send_mixer(MixCommand::Start {
            note: p.note,
            at: at.samples(),
            source: VoiceSource::Sample(handle),
            gain: p.gain,
            pan: p.pan,
            pitch: p.pitch,
            looping: p.looping,
            group: p.group,
            reverb: p.reverb,
        });
    }

    fn start(&mut self, p: Pending) {
        // The sample is as important as the most important sound that played it.
        self.cache.raise_priority(&p.sample.name, p.priority);
        if p.sample.linked
            && let Err(e) = self
                .cache
                .add_linked(&p.sample.name, std::path::Path::new(p.sample.path.as_ref()))
        {
            self.drop_failed(p.note, &p.sample.name, &e);
            return;
        }
        if let Some(decoder) = self.long_sound(&p) {
            self.start_stream(&p, p.at, Some(decoder));
            return;
        }
        if self.config.blocking {
            let hit = self.cache.is_cached(&p.sample.name);
            match self.cache.get(&p.sample.name) {
                Ok(handle) => {
                    let miss = if hit {
                        None
                    } else {
                        self.cache.last_miss(&p.sample.name).map(miss_class)
                    };
                    self.fetched(&p, miss);
                    self.start_from_handle(&p, p.at, handle);
                }
                Err(CacheError::TooLarge { .. }) => self.start_stream(&p, p.at, None),
                Err(e) => self.drop_failed(p.note, &p.sample.name, &e),
            }
            return;
        }
        match self.cache.try_get(&p.sample.name) {
            Lookup::Ready(handle) => {
                self.fetched(&p, None);
                self.start_from_handle(&p, p.at, handle);
            }
            Lookup::Loading => {
                self.missed += 1;
                self.record(SampleEvent::CacheMiss {
                    note: p.note,
                    sample: Arc::clone(&p.sample.name),
                    class: self.cache.last_miss(&p.sample.name).map(miss_class),
                });
                self.pending.push(p);
            }
            Lookup::Failed(CacheError::TooLarge { .. }) => self.start_stream(&p, p.at, None),
            Lookup::Failed(e) => self.drop_failed(p.note, &p.sample.name, &e),
        }
    }
}

impl SoundServer {
    /// Traces where a note's sample came from: a hit, or (`miss`) loaded for it.
    fn fetched(&mut self, p: &Pending, miss: Option<MissClass>) {
        self.record(SampleEvent::Fetched {
            note: p.note,
            sample: Arc::clone(&p.sample.name),
            miss,
        });
    }
}

/// The cache's kind of miss, as the trace says it.
fn miss_class(kind: MissKind) -> MissClass {
    match kind {
        MissKind::Compulsory => MissClass::Compulsory,
        MissKind::Capacity => MissClass::Capacity,
        MissKind::Conflict => MissClass::Conflict,
    }
}

/// What kind of failure a cache error is, for the trace.
fn cache_failure(error: &CacheError) -> LoadFailure {
    match error {
        CacheError::Escape { .. } | CacheError::InvalidName { .. } => LoadFailure::BadName,
        CacheError::NotFound { .. } => LoadFailure::NotFound,
        CacheError::Read { .. } => LoadFailure::Unreadable,
        CacheError::Load { .. } | CacheError::TooLarge { .. } => LoadFailure::Undecodable,
        CacheError::OverBudget { .. } => LoadFailure::OverBudget,
        CacheError::LoaderStopped { .. } => LoadFailure::LoaderStopped,
        CacheError::Directory { .. } | CacheError::Zip { .. } => LoadFailure::Other,
    }
}

/// What kind of failure a decoder error is, for the trace.
fn decode_failure(error: &DecodeError) -> LoadFailure {
    match error {
        DecodeError::Io { .. } => LoadFailure::Unreadable,
        DecodeError::Refused { .. } => LoadFailure::OverBudget,
        _ => LoadFailure::Undecodable,
    }
}
