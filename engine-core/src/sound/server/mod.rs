//! The sound server (seed 000): turns what the runtime decides into mixer commands, and
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
//! the streaming path (`mixer::stream`) instead of being decoded whole: a few kilobytes of
//! FLAC can decode to hundreds of megabytes. Live, a streaming thread fills the rings;
//! offline, the server fills them itself once per tick ([`Streamer::inline`]), so renders
//! stay deterministic.

pub mod bank;

use crate::runtime::clock::SampleTime;
use crate::runtime::rng::Rng;
use crate::runtime::samples::{SampleInfo, SampleLibrary};
use crate::runtime::sink::{ControlGroup, NoteId, SampleRef, SoundCommand, SoundSink};
use crate::runtime::trace::{TraceKind, TraceRecord};
use crate::sound::audio::MemoryBudget;
use crate::sound::audio::decode::{self, DecodeError, DecodeLimits, StreamDecoder};
use crate::sound::cache::{
    CacheError, LoadError, Lookup, ResourceCache, ResourceData, ResourceLoader,
};
use crate::sound::mixer::stream::{FrameSource, Streamer};
use crate::sound::mixer::{MixCommand, MixEvent, MixerHandle, VoiceSource};
use crate::toolchain::project::Project;
use bank::{OriginId, SoundBank, SoundId, distance_volume};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Decodes audio files for the resource cache.
#[derive(Debug, Clone)]
pub struct SampleLoader {
    pattern: String,
    limits: DecodeLimits,
}

impl SampleLoader {
    /// A loader for names matching `pattern` (e.g. `*.wav`).
    pub fn new(pattern: &str, limits: DecodeLimits) -> Self {
        Self {
            pattern: pattern.to_string(),
            limits,
        }
    }

    /// Loaders for every audio extension the engine plays.
    pub fn all(limits: DecodeLimits) -> Vec<Arc<dyn ResourceLoader>> {
        ["*.wav", "*.mp3", "*.ogg", "*.oga", "*.flac"]
            .into_iter()
            .map(|p| Arc::new(SampleLoader::new(p, limits)) as Arc<dyn ResourceLoader>)
            .collect()
    }
}

impl ResourceLoader for SampleLoader {
    fn pattern(&self) -> &str {
        &self.pattern
    }

    fn load(&self, name: &str, raw: Vec<u8>) -> Result<ResourceData, String> {
        decode::decode(name, &raw, &self.limits)
            .map(|decoded| ResourceData::Sample(decoded.buffer))
            .map_err(|e| e.to_string())
    }

    /// Decodes with every allocation of samples reserved from `budget` first.
    fn load_within(
        &self,
        name: &str,
        raw: Vec<u8>,
        budget: &mut dyn MemoryBudget,
    ) -> Result<ResourceData, LoadError> {
        decode::decode_within(name, &raw, &self.limits, budget)
            .map(|decoded| ResourceData::Sample(decoded.buffer))
            .map_err(|e| match e {
                DecodeError::TooLarge { .. } => LoadError::TooLarge(e.to_string()),
                other => LoadError::Failed(other.to_string()),
            })
    }
}

/// A resource cache serving the samples of a project's data directories (later
/// directories first), with the audio loaders registered.
pub fn project_cache(
    dirs: &[std::path::PathBuf],
    budget: usize,
) -> (Arc<ResourceCache>, Vec<String>) {
    let cache = Arc::new(ResourceCache::with_budget(budget));
    let mut problems = Vec::new();
    for loader in SampleLoader::all(DecodeLimits::default()) {
        cache.register_loader(loader);
    }
    for dir in dirs {
        if let Err(e) = cache.add_directory(dir) {
            problems.push(e.to_string());
        }
    }
    (cache, problems)
}

/// A streamed file as the streaming thread's frame source.
struct StreamSource(StreamDecoder);

impl FrameSource for StreamSource {
    fn sample_rate(&self) -> u32 {
        self.0.info().sample_rate
    }
    fn channels(&self) -> u16 {
        self.0.info().channels
    }
    fn read(&mut self, out: &mut Vec<f32>, max_frames: usize) -> Result<usize, String> {
        self.0.read(out, max_frames).map_err(|e| e.to_string())
    }
    fn rewind(&mut self) -> Result<(), String> {
        self.0.rewind().map_err(|e| e.to_string())
    }
}

/// How the server loads and plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerConfig {
    /// Wait for the cache (offline rendering: deterministic) instead of starting notes
    /// when their data arrives.
    pub blocking: bool,
    /// A one-shot whose sample arrives more than this many samples after its time is
    /// dropped; loops and music start whenever their data arrives.
    pub late_limit: SampleTime,
    /// Music files longer than this many seconds stream from disk.
    pub stream_seconds: f64,
    /// Sounds of any group whose decoded size is more than this many bytes stream from
    /// disk ([`STREAM_BYTES`] by default).
    pub stream_bytes: u64,
    /// Distance beyond which nothing is heard (seed 000's global maximum range).
    pub max_range: f32,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            blocking: false,
            late_limit: 48_000 / 4,
            stream_seconds: 20.0,
            stream_bytes: STREAM_BYTES,
            max_range: 1000.0,
        }
    }
}

/// A start waiting for its sample.
#[derive(Debug, Clone)]
struct Pending {
    note: NoteId,
    at: SampleTime,
    sample: SampleRef,
    gain: f32,
    pan: f32,
    pitch: f32,
    looping: bool,
    group: ControlGroup,
    reverb: bool,
}

/// How loud a seed-000 request is: a volume, or a distance from the view point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Power {
    /// Volume 0…1.
    Volume(f32),
    /// Distance from the view point (volume from the sound's range).
    Distance(f32),
}

/// A seed-000 sound request (the server's own FIFO element).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    /// The sound.
    pub sound: SoundId,
    /// Who asks (noise reduction, selection sounds).
    pub origin: Option<OriginId>,
    /// Volume or distance.
    pub power: Power,
    /// A selection sound (drives the two-groups cycle).
    pub selection: bool,
    /// Pan −1…1.
    pub pan: f32,
    /// When to play.
    pub at: SampleTime,
}

/// Why a request did not play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Noise reduction: the origin is already playing.
    #[error("origin {0} is already playing a sound (noise reduction)")]
    Busy(OriginId),
    /// Out of range.
    #[error("the sound is out of range (volume 0)")]
    Silent,
    /// No such sound.
    #[error("sound {0} is not registered")]
    Unknown(SoundId),
    /// The sample could not be loaded.
    #[error("{0}")]
    Sample(String),
}

/// Largest sample file [`SoundServer::warm_up`] loads ahead (larger ones, usually
/// music, load or stream when played).
pub const WARM_UP_BYTES: u64 = 1 << 20;

/// Decoded size, in bytes, above which a sound is streamed from disk rather than decoded
/// whole into the cache (the default of [`ServerConfig::stream_bytes`]): 16 MiB, about 44 s
/// of 48 kHz stereo. Well under [`decode::MAX_SAMPLE_BYTES`], so what the server plays
/// from the cache never meets that limit.
pub const STREAM_BYTES: u64 = 16 << 20;

/// Music of unknown length (no length in its headers) streams when its file is larger than
/// this many bytes (1 MB, about a minute of 128 kbit/s MP3).
pub const MUSIC_STREAM_FILE_BYTES: u64 = 1_000_000;

/// The first note ID of seed-000 requests (runtime notes count up from 1).
pub const SERVER_NOTES: NoteId = 1 << 62;

/// The first note ID of the world's own sounds (stations, music, ambience); below
/// [`SERVER_NOTES`].
pub const WORLD_NOTES: NoteId = 1 << 61;

/// The control side of sound.
pub struct SoundServer {
    mixer: MixerHandle,
    cache: Arc<ResourceCache>,
    streamer: Option<Streamer>,
    config: ServerConfig,
    pending: Vec<Pending>,
    origins: HashMap<OriginId, NoteId>,
    note_origins: HashMap<NoteId, OriginId>,
    bank: SoundBank,
    rng: Rng,
    next_note: NoteId,
    now: SampleTime,
    trace: Vec<TraceRecord>,
    ended: Vec<NoteId>,
    started: u64,
    missed: u64,
    dropped: u64,
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
            origins: HashMap::new(),
            note_origins: HashMap::new(),
            bank: SoundBank::default(),
            rng: Rng::new(seed ^ 0x5EED),
            next_note: SERVER_NOTES,
            now: 0,
            trace: Vec::new(),
            ended: Vec::new(),
            started: 0,
            missed: 0,
            dropped: 0,
        }
    }

    /// The mixer's control handle (volumes, meters, position).
    pub fn mixer(&self) -> &MixerHandle {
        &self.mixer
    }

    /// The resource cache.
    pub fn cache(&self) -> &Arc<ResourceCache> {
        &self.cache
    }

    /// The seed-000 sound registry.
    pub fn bank(&mut self) -> &mut SoundBank {
        &mut self.bank
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

    fn record(&mut self, kind: TraceKind, note: Option<NoteId>, message: String) {
        self.trace.push(TraceRecord {
            time: self.now,
            kind,
            event: None,
            track: None,
            object: None,
            voice: None,
            note,
            message,
        });
    }

    /// A note that will never sound (or sound again): counted, traced, and reported to
    /// [`SoundServer::take_ended`] like a note that played out.
    fn drop_note(&mut self, note: NoteId, kind: TraceKind, message: String) {
        self.dropped += 1;
        self.record(kind, Some(note), message);
        self.mark_ended(note);
    }

    fn mark_ended(&mut self, note: NoteId) {
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
            self.record(
                TraceKind::Error,
                None,
                "mixer command ring full: a command was dropped".into(),
            );
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
                Lookup::Failed(e) => {
                    self.drop_note(
                        pending.note,
                        TraceKind::Error,
                        format!("note {}: {e}", pending.note),
                    );
                }
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
                    self.drop_note(
                        note,
                        TraceKind::Error,
                        format!("note {note}: no free mixer voice; dropped"),
                    );
                }
                MixEvent::Starved { note } => {
                    self.record(
                        TraceKind::Error,
                        Some(note),
                        format!("note {note}: its stream ran dry"),
                    );
                }
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
        let late = now.saturating_sub(pending.at);
        if late > self.config.late_limit && !pending.looping && pending.group != ControlGroup::Music
        {
            let message = format!(
                "note {}: `{}` arrived {:.0} ms late; dropped (a one-shot that late would be out of place)",
                pending.note,
                pending.sample.name,
                late as f64 * 1000.0 / f64::from(self.mixer.sample_rate().max(1))
            );
            self.drop_note(pending.note, TraceKind::Sample, message);
            return true;
        }
        if late > 0 {
            let message = format!(
                "note {}: `{}` arrived; starting {late} samples late",
                pending.note, pending.sample.name
            );
            self.record(TraceKind::Sample, Some(pending.note), message);
        }
        false
    }

    fn start_from_handle(
        &mut self,
        p: &Pending,
        at: SampleTime,
        handle: crate::sound::cache::Handle,
    ) {
        if handle.samples().is_none() {
            self.drop_note(
                p.note,
                TraceKind::Error,
                format!("`{}` is not audio", p.sample.name),
            );
            return;
        }
        // The mixer plays the cache's own handle: the memory stays counted (pinned if
        // evicted) while the voice plays, and nothing is copied.
        self.started += 1;
        self.send_mixer(MixCommand::Start {
            note: p.note,
            at,
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
        if let Some(decoder) = self.long_sound(&p) {
            self.start_stream(&p, p.at, Some(decoder));
            return;
        }
        if self.config.blocking {
            match self.cache.get(&p.sample.name) {
                Ok(handle) => self.start_from_handle(&p, p.at, handle),
                Err(CacheError::TooLarge { .. }) => self.start_stream(&p, p.at, None),
                Err(e) => {
                    self.drop_note(p.note, TraceKind::Error, format!("note {}: {e}", p.note));
                }
            }
            return;
        }
        match self.cache.try_get(&p.sample.name) {
            Lookup::Ready(handle) => self.start_from_handle(&p, p.at, handle),
            Lookup::Loading => {
                self.missed += 1;
                let message = format!(
                    "note {}: cache miss for `{}`; it starts when the data arrives",
                    p.note, p.sample.name
                );
                self.record(TraceKind::Sample, Some(p.note), message);
                self.pending.push(p);
            }
            Lookup::Failed(CacheError::TooLarge { .. }) => self.start_stream(&p, p.at, None),
            Lookup::Failed(e) => {
                self.drop_note(p.note, TraceKind::Error, format!("note {}: {e}", p.note));
            }
        }
    }

    /// The sample of `p`, opened for streaming, when it is too long to be decoded whole:
    /// decoded larger than `stream_bytes` by its headers, or music longer than
    /// `stream_seconds` (music without a length in its headers: a file over 1 MB). A
    /// sample already in the cache plays from there without a look at its file.
    fn long_sound(&self, p: &Pending) -> Option<StreamDecoder> {
        if self.cache.is_cached(&p.sample.name) {
            return None;
        }
        let path = Path::new(p.sample.path.as_ref());
        let decoder = StreamDecoder::open(path).ok()?;
        let info = decoder.info();
        let music = p.group == ControlGroup::Music;
        let long = match info.frames {
            Some(frames) => {
                let bytes = frames
                    .saturating_mul(u64::from(info.channels))
                    .saturating_mul(size_of::<f32>() as u64);
                let seconds = frames as f64 / f64::from(info.sample_rate.max(1));
                bytes > self.config.stream_bytes || (music && seconds > self.config.stream_seconds)
            }
            None => {
                music && std::fs::metadata(path).is_ok_and(|m| m.len() > MUSIC_STREAM_FILE_BYTES)
            }
        };
        long.then_some(decoder)
    }

    /// Plays `p` from disk through the streaming path, from `at`. `decoder` is its file
    /// when it is open already.
    fn start_stream(&mut self, p: &Pending, at: SampleTime, decoder: Option<StreamDecoder>) {
        if self.streamer.is_none() {
            // Offline (blocking) the server fills the rings itself: deterministic renders.
            let streamer = if self.config.blocking {
                Ok(Streamer::inline())
            } else {
                Streamer::start()
            };
            match streamer {
                Ok(streamer) => self.streamer = Some(streamer),
                Err(e) => {
                    self.drop_note(
                        p.note,
                        TraceKind::Error,
                        format!("cannot start the streaming thread: {e}"),
                    );
                    return;
                }
            }
        }
        let decoder = match decoder.map_or_else(
            || StreamDecoder::open(Path::new(p.sample.path.as_ref())),
            Ok,
        ) {
            Ok(decoder) => decoder,
            Err(e) => {
                self.drop_note(p.note, TraceKind::Error, format!("note {}: {e}", p.note));
                return;
            }
        };
        let Some(streamer) = &mut self.streamer else {
            return;
        };
        match streamer.open(Box::new(StreamSource(decoder)), p.looping) {
            Ok(reader) => {
                self.started += 1;
                self.record(
                    TraceKind::Sample,
                    Some(p.note),
                    format!("note {}: streaming `{}` from disk", p.note, p.sample.name),
                );
                self.send_mixer(MixCommand::Start {
                    note: p.note,
                    at,
                    source: VoiceSource::Stream(reader),
                    gain: p.gain,
                    pan: p.pan,
                    pitch: p.pitch,
                    looping: false,
                    group: p.group,
                    reverb: p.reverb,
                });
            }
            Err(e) => {
                self.drop_note(
                    p.note,
                    TraceKind::Error,
                    format!("note {}: cannot stream `{}`: {e}", p.note, p.sample.name),
                );
            }
        }
    }

    /// Plays a seed-000 request: chooses the sample (group, two groups), applies noise
    /// reduction and distance volume. Returns the note.
    pub fn play(&mut self, request: Request, group: ControlGroup) -> Result<NoteId, Refusal> {
        let sound = self
            .bank
            .get(request.sound)
            .cloned()
            .ok_or(Refusal::Unknown(request.sound))?;
        if let Some(origin) = request.origin
            && self.origins.contains_key(&origin)
        {
            let message = format!(
                "`{}` from origin {origin} dropped: that origin is already playing",
                sound.name
            );
            self.record(TraceKind::Voice, None, message);
            return Err(Refusal::Busy(origin));
        }
        let volume = match request.power {
            Power::Volume(v) => v,
            Power::Distance(d) => distance_volume(d, sound.range, self.config.max_range),
        };
        if volume <= 0.0 {
            return Err(Refusal::Silent);
        }
        let name = self
            .bank
            .choose(
                request.sound,
                request.origin,
                request.selection,
                &mut self.rng,
            )
            .ok_or(Refusal::Unknown(request.sound))?;
        let handle = self
            .cache
            .get(&name)
            .map_err(|e| Refusal::Sample(e.to_string()))?;
        let note = self.next_note;
        self.next_note += 1;
        if let Some(origin) = request.origin {
            self.origins.insert(origin, note);
            self.note_origins.insert(note, origin);
        }
        let pending = Pending {
            note,
            at: request.at,
            sample: SampleRef {
                patch: 0,
                name: Arc::clone(&name),
                path: Arc::clone(&name),
            },
            gain: volume,
            pan: request.pan,
            pitch: 1.0,
            looping: false,
            group,
            reverb: false,
        };
        self.start_from_handle(&pending, request.at, handle);
        Ok(note)
    }

    /// Asks the cache to load, in the background, the samples of `project`'s patches
    /// that are small enough to be kept whole (up to [`WARM_UP_BYTES`]), so the first
    /// play of a sound does not wait for the disk. Returns how many were queued.
    pub fn warm_up(&self, project: &Project) -> usize {
        project
            .patches
            .values()
            .filter_map(|patch| Some((patch.resource.as_ref()?, patch.path.as_ref()?)))
            .filter(|(_, path)| {
                std::fs::metadata(path.as_ref()).is_ok_and(|m| m.len() <= WARM_UP_BYTES)
            })
            .filter(|(resource, _)| self.cache.request(resource).is_ok())
            .count()
    }

    /// True while an origin is playing (noise reduction holds its next request back).
    pub fn origin_busy(&self, origin: OriginId) -> bool {
        self.origins.contains_key(&origin)
    }
}

impl SoundSink for SoundServer {
    fn send(&mut self, command: SoundCommand) {
        match command {
            SoundCommand::Start {
                note,
                at,
                sample,
                gain,
                pan,
                pitch,
                looping,
                group,
                reverb,
                ..
            } => self.start(Pending {
                note,
                at,
                sample,
                gain,
                pan,
                pitch,
                looping,
                group,
                reverb,
            }),
            SoundCommand::Stop { note, at } => {
                if let Some(index) = self.pending.iter().position(|p| p.note == note) {
                    self.pending.remove(index);
                    self.mark_ended(note);
                    self.record(
                        TraceKind::Sample,
                        Some(note),
                        format!("note {note} stopped before its sample arrived"),
                    );
                } else {
                    self.send_mixer(MixCommand::Stop { note, at });
                }
            }
            SoundCommand::SetGain {
                note,
                at,
                gain,
                ramp,
            } => {
                if let Some(p) = self.pending.iter_mut().find(|p| p.note == note) {
                    p.gain = gain;
                } else {
                    self.send_mixer(MixCommand::SetGain {
                        note,
                        at,
                        gain,
                        ramp,
                    });
                }
            }
            SoundCommand::SetPan {
                note,
                at,
                pan,
                ramp,
            } => {
                if let Some(p) = self.pending.iter_mut().find(|p| p.note == note) {
                    p.pan = pan;
                } else {
                    self.send_mixer(MixCommand::SetPan {
                        note,
                        at,
                        pan,
                        ramp,
                    });
                }
            }
        }
    }
}

fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut file = crate::toolchain::fsrules::open_regular(path)
        .map_err(crate::toolchain::fsrules::Refusal::into_io)?;
    let mut head = vec![0u8; 64 * 1024];
    let n = file.read(&mut head)?;
    head.truncate(n);
    Ok(head)
}

/// How long samples are, for the runtime (`wait_samp`): from the file's header when it
/// says, else from the decoded sample in the cache, else by decoding a stream once.
pub struct CacheSamples {
    cache: Arc<ResourceCache>,
    known: Mutex<HashMap<Arc<str>, Result<SampleInfo, String>>>,
}

impl CacheSamples {
    /// Lengths of samples served by `cache`.
    pub fn new(cache: Arc<ResourceCache>) -> Self {
        Self {
            cache,
            known: Mutex::new(HashMap::new()),
        }
    }

    fn measure(&self, sample: &SampleRef) -> Result<SampleInfo, String> {
        let path = Path::new(sample.path.as_ref());
        let head = read_head(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let info = decode::probe(&sample.name, &head).map_err(|e| e.to_string())?;
        if let Some(frames) = info.frames {
            // Trust a header length only as far as the file holds it (damaged files).
            if !matches!(info.format, decode::AudioFormat::Wav { .. }) {
                return Ok(SampleInfo {
                    frames,
                    sample_rate: info.sample_rate,
                });
            }
        }
        // Small files: decode through the cache (they will be played from it anyway),
        // unless they turn out too large to hold there.
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if size <= 4_000_000 {
            match self.cache.get(&sample.name) {
                Ok(handle) => {
                    let buffer = handle
                        .samples()
                        .ok_or_else(|| format!("`{}` is not audio", sample.name))?;
                    return Ok(SampleInfo {
                        frames: buffer.frames() as u64,
                        sample_rate: buffer.sample_rate,
                    });
                }
                Err(CacheError::TooLarge { .. } | CacheError::OverBudget { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        // Long files (music) stream: count their frames once without keeping them.
        let scanned = decode::scan_file(path, u64::MAX).map_err(|e| e.to_string())?;
        Ok(SampleInfo {
            frames: scanned.frames,
            sample_rate: scanned.info.sample_rate,
        })
    }
}

impl SampleLibrary for CacheSamples {
    fn info(&mut self, sample: &SampleRef) -> Result<SampleInfo, String> {
        if let Ok(known) = self.known.lock()
            && let Some(result) = known.get(&sample.name)
        {
            return result.clone();
        }
        let result = self.measure(sample);
        if let Ok(mut known) = self.known.lock() {
            known.insert(Arc::clone(&sample.name), result.clone());
        }
        result
    }
}
