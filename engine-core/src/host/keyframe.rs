//! Keyframes: what the workbench's inspectors showed at a moment, kept in a capture so
//! that it can be shown in every panel with no engine running (`docs/capture.md`).
//!
//! Trace records say what was decided, but not what the VM threads were doing (PC,
//! registers), where the objects and the camera were, or what the cache held. A
//! [`Keyframe`] holds those views as the live snapshot has them: the threads, the voice
//! slots, the instance map, the world, the cache's statistics and resources, the
//! mixer's meters. The [`Keyframer`] takes one every [`KEYFRAME_SECONDS`] of sample time,
//! and leaves out (`None`) each part that has not changed since the last one, so a
//! quiet stretch costs a few bytes per keyframe. [`KeyState`] puts the parts back
//! together: every part as of a keyframe, the ones it left out carried over.

use crate::host::session::Session;
use crate::runtime::{ActiveTrack, SampleTime};
use crate::sound::cache::{CacheStats, ResourceStats};
use crate::sound::mixer::MixerSnapshot;
use crate::tools::inspect::{self, InstanceView, ThreadView, VoiceView};
use crate::world::director::WorldView;
use serde::{Deserialize, Serialize};

/// Seconds of sample time between two keyframes.
pub const KEYFRAME_SECONDS: f64 = 0.25;

/// The inspectors' views at one moment; each `Option` part is `None` when it is the same
/// as in the keyframe before.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Keyframe {
    /// When (after the tick that ended here).
    pub at: SampleTime,
    /// Voices in use / the limit.
    pub voices: (usize, usize),
    /// Notes the sound server started, found not yet loaded, and dropped.
    pub notes: (u64, u64, u64),
    /// The mixer's volumes and meters.
    pub mixer: MixerSnapshot,
    /// Tracks playing.
    pub tracks: Option<Vec<ActiveTrack>>,
    /// The VM threads.
    pub threads: Option<Vec<ThreadView>>,
    /// The Box-X voice slots (each occupant's `elapsed` is 0: it is `at` − its start).
    pub voice_slots: Option<Vec<VoiceView>>,
    /// The instance map.
    pub instances: Option<Vec<InstanceView>>,
    /// The world: camera, objects with their placement, stations, music, ambience.
    pub world: Option<Box<WorldView>>,
    /// The cache's statistics (their tick count moves every tick and alone is no change).
    pub cache: Option<CacheStats>,
    /// Every resource the cache knows of.
    pub cache_resources: Option<Vec<ResourceStats>>,
}

/// Every part a keyframe can hold, as of one keyframe: the parts it left out carried
/// over from the keyframes before it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyState {
    /// When.
    pub at: SampleTime,
    /// Voices in use / the limit.
    pub voices: (usize, usize),
    /// Notes started, missed, dropped.
    pub notes: (u64, u64, u64),
    /// The mixer.
    pub mixer: MixerSnapshot,
    /// Tracks playing.
    pub tracks: Vec<ActiveTrack>,
    /// The VM threads.
    pub threads: Vec<ThreadView>,
    /// The voice slots, with each occupant's `elapsed` as of `at`.
    pub voice_slots: Vec<VoiceView>,
    /// The instance map.
    pub instances: Vec<InstanceView>,
    /// The world.
    pub world: WorldView,
    /// The cache's statistics.
    pub cache: Option<CacheStats>,
    /// The cache's resources.
    pub cache_resources: Vec<ResourceStats>,
}

impl KeyState {
    /// Takes in the next keyframe: its parts replace these, the ones it left out stay.
    pub fn apply(&mut self, key: &Keyframe) {
        self.at = key.at;
        self.voices = key.voices;
        self.notes = key.notes;
        self.mixer = key.mixer;
        if let Some(tracks) = &key.tracks {
            self.tracks.clone_from(tracks);
        }
        if let Some(threads) = &key.threads {
            self.threads.clone_from(threads);
        }
        if let Some(slots) = &key.voice_slots {
            self.voice_slots.clone_from(slots);
        }
        if let Some(instances) = &key.instances {
            self.instances.clone_from(instances);
        }
        if let Some(world) = &key.world {
            self.world = (**world).clone();
        }
        if let Some(cache) = &key.cache {
            self.cache = Some(cache.clone());
        }
        if let Some(resources) = &key.cache_resources {
            self.cache_resources.clone_from(resources);
        }
        self.set_elapsed();
    }

    /// Each voice occupant's `elapsed`, as of `at`.
    fn set_elapsed(&mut self) {
        for occupant in self
            .voice_slots
            .iter_mut()
            .filter_map(|v| v.occupant.as_mut())
        {
            occupant.elapsed = self.at - occupant.started_at;
        }
    }
}

/// The least time, in seconds, between two keyframes made for commands
/// ([`Keyframer::soon`]).
pub const SOON_GAP_SECONDS: f64 = 0.05;

/// Takes a keyframe of a session every [`KEYFRAME_SECONDS`], each with only the parts
/// that changed since the one before.
#[derive(Debug)]
pub struct Keyframer {
    interval: u64,
    /// The least time between two keyframes asked for ([`soon`](Self::soon)).
    gap: u64,
    /// When the next keyframe is due in any case.
    next: SampleTime,
    /// When a keyframe asked for is due, if one is.
    asked: Option<SampleTime>,
    /// When the last keyframe asked for was taken.
    answered: Option<SampleTime>,
    /// What the keyframes so far add up to.
    last: Option<KeyState>,
}

impl Keyframer {
    /// Keyframes at `sample_rate`, the first one due at once.
    pub fn new(sample_rate: u32) -> Self {
        Self {
            interval: (KEYFRAME_SECONDS * f64::from(sample_rate.max(1))).round() as u64,
            gap: (SOON_GAP_SECONDS * f64::from(sample_rate.max(1))).round() as u64,
            next: SampleTime::ZERO,
            asked: None,
            answered: None,
            last: None,
        }
    }

    /// Whether a keyframe is due at `now`.
    pub fn due(&self, now: SampleTime) -> bool {
        now >= self.next || self.asked.is_some_and(|asked| now >= asked)
    }

    /// Asks for a keyframe at the next look (after the tick to come): a command just
    /// run shows what it did in a keyframe of its own, right after it — unless the last
    /// one asked for is less than [`SOON_GAP_SECONDS`] old, then as soon as it is that
    /// old (commands in a stream, such as a camera dragged, do not make a keyframe a
    /// tick).
    pub fn soon(&mut self) {
        if self.asked.is_none() {
            self.asked = Some(
                self.answered
                    .map_or(SampleTime::ZERO, |answered| answered + self.gap),
            );
        }
    }

    /// A keyframe of `session` now (the first one whole, then only what changed), and
    /// the next one due [`KEYFRAME_SECONDS`] later.
    pub fn take(&mut self, session: &Session) -> Keyframe {
        let now = session.now();
        let engine = &session.engine;
        let mut slots = inspect::voices(engine);
        for occupant in slots.iter_mut().filter_map(|v| v.occupant.as_mut()) {
            occupant.elapsed = 0;
        }
        let cache = session.server.cache();
        let mut stats = cache.stats();
        let first = self.last.is_none();
        let last = self.last.get_or_insert_with(KeyState::default);
        // Every tick counts one more tick: alone it is no change.
        let ticks = stats.ticks;
        stats.ticks = last.cache.as_ref().map_or(ticks, |c| c.ticks);
        let cache_changed = first || last.cache.as_ref() != Some(&stats);
        stats.ticks = ticks;
        let key = Keyframe {
            at: now,
            voices: (engine.voices_in_use(), engine.config().max_voices),
            notes: session.server.counts(),
            mixer: session.server.mixer().controls.snapshot(),
            tracks: changed(first, &last.tracks, engine.active_tracks()),
            threads: changed(first, &last.threads, inspect::threads(engine)),
            voice_slots: changed(first, &without_elapsed(&last.voice_slots), slots),
            instances: changed(first, &last.instances, inspect::instances(engine)),
            world: changed(first, &last.world, session.world.view(engine)).map(Box::new),
            cache: cache_changed.then_some(stats),
            cache_resources: if cache_changed {
                changed(first, &last.cache_resources, cache.resource_stats())
            } else {
                None
            },
        };
        last.apply(&key);
        self.next = now + self.interval;
        if self.asked.is_some_and(|asked| now >= asked) {
            self.asked = None;
            self.answered = Some(now);
        }
        key
    }
}

/// `now` if it differs from `before` (or this is the first keyframe).
fn changed<T: PartialEq>(first: bool, before: &T, now: T) -> Option<T> {
    (first || *before != now).then_some(now)
}

/// The slots with every occupant's `elapsed` 0, as a keyframe holds them.
fn without_elapsed(slots: &[VoiceView]) -> Vec<VoiceView> {
    let mut slots = slots.to_vec();
    for occupant in slots.iter_mut().filter_map(|v| v.occupant.as_mut()) {
        occupant.elapsed = 0;
    }
    slots
}
