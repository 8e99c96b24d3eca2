//! A capture shown as it was at any moment, with no engine running: the workbench's
//! capture view scrubs a [`Timeline`].
//!
//! [`Timeline::snapshot_at`] makes the [`LiveSnapshot`] the panels read for a time: the
//! views of the latest keyframe at or before it (`host::keyframe`), and the voice
//! history rebuilt from the records up to it (the records open and close the lanes, the
//! keyframes' voice slots keep them true, as live). [`Timeline::records_until`] is the
//! trace up to the time; the markers (steals, refusals, faults) and the decision times
//! (to step from one trigger to the next) come from the typed records.

use crate::host::capture::Capture;
use crate::host::keyframe::{KeyState, Keyframe};
use crate::host::live::LiveSnapshot;
use crate::runtime::trace::TraceEvent;
use crate::runtime::{SampleTime, TraceKind, TraceRecord, TraceSwitches};
use crate::tools::inspect::VoiceHistory;
use crate::tools::why::decisions;
use std::sync::Arc;

/// How long the rebuilt voice history reaches back, in seconds (as live).
const HISTORY_SECONDS: u64 = 30;
/// Lanes, refusals and faults the rebuilt history keeps at most (as live).
const HISTORY_CAPACITY: usize = 4096;

/// What a marker on the timeline shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerKind {
    /// A track stole a voice.
    Steal,
    /// A track was refused a voice.
    Refusal,
    /// A runtime fault.
    Fault,
}

/// A moment worth finding on the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    /// When.
    pub at: SampleTime,
    /// What happened.
    pub kind: MarkerKind,
}

/// Which keyframe holds each part as of one keyframe.
#[derive(Debug, Clone, Copy, Default)]
struct Latest {
    tracks: Option<usize>,
    threads: Option<usize>,
    slots: Option<usize>,
    instances: Option<usize>,
    world: Option<usize>,
    cache: Option<usize>,
    resources: Option<usize>,
}

impl Latest {
    /// Moves on to keyframe `index`: the parts it holds are its own from now on.
    fn follow(&mut self, index: usize, key: &Keyframe) {
        let mine = |held: bool, slot: &mut Option<usize>| {
            if held {
                *slot = Some(index);
            }
        };
        mine(key.tracks.is_some(), &mut self.tracks);
        mine(key.threads.is_some(), &mut self.threads);
        mine(key.voice_slots.is_some(), &mut self.slots);
        mine(key.instances.is_some(), &mut self.instances);
        mine(key.world.is_some(), &mut self.world);
        mine(key.cache.is_some(), &mut self.cache);
        mine(key.cache_resources.is_some(), &mut self.resources);
    }
}

/// How soon after a moment with records a keyframe may come and still show that moment
/// ([`Timeline::snapshot_at`]), in seconds: a few ticks, as soon as a command's
/// keyframe may come.
const SETTLED: f64 = crate::host::keyframe::SOON_GAP_SECONDS;

/// A capture read for showing at any time.
#[derive(Debug)]
pub struct Timeline {
    /// The capture.
    pub capture: Capture,
    /// For each keyframe, which keyframe holds each part as of it (the parts it left
    /// out are carried over from the one before): the parts are not copied.
    latest: Vec<Latest>,
    markers: Vec<Marker>,
    /// The times of the triggers, ascending, without repeats.
    decisions: Vec<SampleTime>,
}

impl Timeline {
    /// The timeline of `capture`.
    pub fn new(capture: Capture) -> Self {
        let mut latest = Latest::default();
        let latest = capture
            .keyframes
            .iter()
            .enumerate()
            .map(|(index, key)| {
                latest.follow(index, key);
                latest
            })
            .collect();
        let markers = capture
            .records
            .iter()
            .filter_map(|r| {
                let kind = match &r.what {
                    TraceEvent::Stole { .. } => MarkerKind::Steal,
                    TraceEvent::Refused { .. } => MarkerKind::Refusal,
                    TraceEvent::Fault { .. } => MarkerKind::Fault,
                    _ => return None,
                };
                Some(Marker { at: r.time, kind })
            })
            .collect();
        let mut times: Vec<SampleTime> =
            decisions(&capture.records).iter().map(|d| d.time).collect();
        times.sort_unstable();
        times.dedup();
        Self {
            capture,
            latest,
            markers,
            decisions: times,
        }
    }

    /// Samples per second.
    pub fn sample_rate(&self) -> u32 {
        self.capture.header.sample_rate
    }

    /// When the capture began: its first keyframe (a live capture starts when asked,
    /// not at 0), else its first record, else 0.
    pub fn start(&self) -> SampleTime {
        self.capture
            .keyframes
            .first()
            .map(|k| k.at)
            .or_else(|| self.capture.records.first().map(|r| r.time))
            .unwrap_or(SampleTime::ZERO)
    }

    /// When it ended: its end, else (cut off) the latest record or keyframe.
    pub fn end(&self) -> SampleTime {
        self.capture
            .reaches()
            .unwrap_or(SampleTime::ZERO)
            .max(self.start())
    }

    /// Steals, refusals and faults, in time order.
    pub fn markers(&self) -> &[Marker] {
        &self.markers
    }

    /// The latest trigger before `at`.
    pub fn decision_before(&self, at: SampleTime) -> Option<SampleTime> {
        let index = self.decisions.partition_point(|t| *t < at);
        index
            .checked_sub(1)
            .and_then(|i| self.decisions.get(i).copied())
    }

    /// The first trigger after `at`.
    pub fn decision_after(&self, at: SampleTime) -> Option<SampleTime> {
        let index = self.decisions.partition_point(|t| *t <= at);
        self.decisions.get(index).copied()
    }

    /// The records up to and including `at`.
    pub fn records_until(&self, at: SampleTime) -> &[TraceRecord] {
        let end = self.capture.records.partition_point(|r| r.time <= at);
        self.capture.records.get(..end).unwrap_or_default()
    }

    /// The index of the latest keyframe at or before `at`.
    fn key_index(&self, at: SampleTime) -> Option<usize> {
        self.capture
            .keyframes
            .partition_point(|k| k.at <= at)
            .checked_sub(1)
    }

    /// The index of the keyframe that shows `at` as the trace does, with the records of
    /// `at` itself: the latest at or before `at` — or, when records were made at `at`,
    /// the first keyframe after it if that came within [`SETTLED`] seconds with no record
    /// between (a keyframe is taken before the records of its own moment, so that one is
    /// the state right after them: a command's outcome, in the keyframe taken after its
    /// tick).
    fn shown_key(&self, at: SampleTime) -> Option<usize> {
        let keys = &self.capture.keyframes;
        let after = keys.partition_point(|k| k.at <= at);
        let records = &self.capture.records;
        let from = records.partition_point(|r| r.time < at);
        let made_at = records.get(from).is_some_and(|r| r.time == at);
        let within = (SETTLED * f64::from(self.sample_rate())) as u64;
        if let Some(next) = keys.get(after)
            && made_at
            && next.at.samples() <= at.samples().saturating_add(within)
        {
            let later = records.partition_point(|r| r.time <= at);
            if records.get(later).is_none_or(|r| r.time >= next.at) {
                return Some(after);
            }
        }
        after.checked_sub(1)
    }

    /// What the panels read at `at`: the views of the keyframe that shows it (nothing
    /// before the first; see `shown_key`), the voice history rebuilt
    /// from the records up to `at`, and every trace on (a capture records them all).
    /// Trace records and replies are left empty: the trace is
    /// [`records_until`](Self::records_until).
    pub fn snapshot_at(&self, at: SampleTime) -> LiveSnapshot {
        let state = self
            .shown_key(at)
            .map(|i| self.state(i))
            .unwrap_or_default();
        let mut snapshot = LiveSnapshot {
            now: at,
            tracks: state.tracks,
            voices: state.voices,
            mixer: state.mixer,
            cache: state.cache,
            notes: state.notes,
            threads: state.threads,
            voice_slots: state.voice_slots,
            instances: state.instances,
            world: state.world,
            trace_switches: TraceSwitches::ALL,
            cache_resources: state.cache_resources,
            ..LiveSnapshot::default()
        };
        for occupant in snapshot
            .voice_slots
            .iter_mut()
            .filter_map(|v| v.occupant.as_mut())
        {
            occupant.elapsed = at.samples().saturating_sub(occupant.started_at.samples());
        }
        snapshot.history = Arc::new(self.history_at(at));
        snapshot
    }

    /// The voice history at `at`: the records before each keyframe, then its slots
    /// observed; then the records after the last keyframe up to `at`.
    fn history_at(&self, at: SampleTime) -> VoiceHistory {
        let rate = u64::from(self.sample_rate().max(1));
        let mut history = VoiceHistory::new(HISTORY_SECONDS * rate, HISTORY_CAPACITY);
        let records = self.records_until(at);
        let relevant = |r: &&TraceRecord| {
            matches!(
                r.kind,
                TraceKind::Voice | TraceKind::Track | TraceKind::Error
            )
        };
        let mut from = 0;
        let keys = self.key_index(at).map_or(0, |i| i + 1);
        for (key, latest) in self.capture.keyframes.iter().zip(&self.latest).take(keys) {
            let upto = from + records[from..].partition_point(|r| r.time < key.at);
            let batch: Vec<TraceRecord> = records[from..upto]
                .iter()
                .filter(relevant)
                .cloned()
                .collect();
            history.push(&batch, key.at);
            let slots = latest.slots.and_then(|i| self.part(i, |k| &k.voice_slots));
            history.observe(slots.map_or(&[], Vec::as_slice), key.at);
            from = upto;
        }
        let rest: Vec<TraceRecord> = records[from..].iter().filter(relevant).cloned().collect();
        history.push(&rest, at);
        history
    }

    /// Part `get` of keyframe `index`.
    fn part<T>(&self, index: usize, get: impl Fn(&Keyframe) -> &Option<T>) -> Option<&T> {
        self.capture
            .keyframes
            .get(index)
            .and_then(|k| get(k).as_ref())
    }

    /// Every part as of keyframe `index` (each `elapsed` still 0).
    fn state(&self, index: usize) -> KeyState {
        let mut state = KeyState::default();
        let Some((key, latest)) = self
            .capture
            .keyframes
            .get(index)
            .zip(self.latest.get(index))
        else {
            return state;
        };
        state.at = key.at;
        state.voices = key.voices;
        state.notes = key.notes;
        state.mixer = key.mixer;
        if let Some(v) = latest.tracks.and_then(|i| self.part(i, |k| &k.tracks)) {
            state.tracks.clone_from(v);
        }
        if let Some(v) = latest.threads.and_then(|i| self.part(i, |k| &k.threads)) {
            state.threads.clone_from(v);
        }
        if let Some(v) = latest.slots.and_then(|i| self.part(i, |k| &k.voice_slots)) {
            state.voice_slots.clone_from(v);
        }
        if let Some(v) = latest
            .instances
            .and_then(|i| self.part(i, |k| &k.instances))
        {
            state.instances.clone_from(v);
        }
        if let Some(v) = latest.world.and_then(|i| self.part(i, |k| &k.world)) {
            state.world = (**v).clone();
        }
        state.cache = latest
            .cache
            .and_then(|i| self.part(i, |k| &k.cache))
            .cloned();
        if let Some(v) = latest
            .resources
            .and_then(|i| self.part(i, |k| &k.cache_resources))
        {
            state.cache_resources.clone_from(v);
        }
        state
    }

    /// The keyframes (for tests and tools).
    pub fn keyframes(&self) -> &[Keyframe] {
        &self.capture.keyframes
    }
}
