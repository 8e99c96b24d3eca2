//! The Box-X voice slots (who holds each, at what priority, gain and pan) and the
//! instance map (each track and the objects saying it).

use crate::runtime::clock::SampleTime;
use crate::runtime::engine::{Engine, note_gain, note_pan};
use crate::runtime::sink::ControlGroup;
use crate::runtime::thread::{Thread, ThreadState};
use crate::runtime::units::{Gain, Pan};
use crate::runtime::voices::WorldVoice;
use crate::world::ObjectId;
use std::collections::HashMap;
use std::sync::Arc;

/// The track holding a voice slot.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VoiceOccupant {
    /// The thread's index.
    pub thread: usize,
    /// Track ID.
    pub track: u32,
    /// Track name.
    pub track_name: Arc<str>,
    /// The event that started it.
    pub event: Arc<str>,
    /// The object it sounds from (`None`: a UI sound).
    pub source: Option<ObjectId>,
    /// The objects saying it, ascending.
    pub owners: Vec<ObjectId>,
    /// Current Box-X priority.
    pub priority: i32,
    /// Option group.
    pub group: ControlGroup,
    /// Linear gain its notes get (track volume × external volume × ducking; 1 is full,
    /// above 1 if a volume register exceeds 1024).
    pub gain: Gain,
    /// Pan its notes get.
    pub pan: Pan,
    /// Samples since it started.
    pub elapsed: u64,
    /// When it started.
    pub started_at: SampleTime,
    /// Notes sounding.
    pub live_notes: usize,
    /// True once its code has ended (its notes still sound).
    pub finished: bool,
}

/// A world player (station, music, load loop, river, ambience) holding a voice slot.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorldOccupant {
    /// Who.
    pub who: WorldVoice,
    /// Its Box-X priority (`world.ini [Voices]`).
    pub priority: i32,
    /// When it took the slot.
    pub started_at: SampleTime,
    /// Samples since then.
    pub elapsed: u64,
}

/// One Box-X voice slot.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VoiceView {
    /// The slot number, 0 to N−1.
    pub slot: usize,
    /// The track holding it, if any.
    pub occupant: Option<VoiceOccupant>,
    /// The world player holding it, if any.
    #[serde(default)]
    pub world: Option<WorldOccupant>,
}

impl VoiceView {
    /// True if nothing holds the slot.
    pub fn is_free(&self) -> bool {
        self.occupant.is_none() && self.world.is_none()
    }
}

/// How loud each Box-X slot plays: the loudest of its track's sounding notes, from the
/// mixer's levels of the notes it played in its last block (`MixerControls::note_levels`);
/// one value per slot, 0 for a silent or free one.
pub fn slot_levels(engine: &Engine, note_levels: &HashMap<u64, f32>) -> Vec<f32> {
    let mut levels = vec![0.0f32; engine.config().max_voices];
    for (_, th) in engine.live_threads() {
        let loudest = th
            .live_notes()
            .filter_map(|n| note_levels.get(&n.id))
            .fold(0.0f32, |a, &b| a.max(b));
        if let Some(slot) = levels.get_mut(th.voice) {
            *slot = slot.max(loudest);
        }
    }
    levels
}

/// Every Box-X voice slot, in order: always exactly the engine's voice count.
pub fn voices(engine: &Engine) -> Vec<VoiceView> {
    let now = engine.now();
    let threads: Vec<Option<&Thread>> = {
        let mut all = Vec::new();
        for (index, th) in engine.live_threads() {
            if all.len() <= index {
                all.resize(index + 1, None);
            }
            if let Some(slot) = all.get_mut(index) {
                *slot = Some(th);
            }
        }
        all
    };
    let world = engine.world_seats();
    engine
        .voice_table()
        .slots()
        .iter()
        .enumerate()
        .map(|(slot, thread)| VoiceView {
            slot,
            world: world
                .get(slot)
                .copied()
                .flatten()
                .map(|seat| WorldOccupant {
                    who: seat.who,
                    priority: seat.priority,
                    started_at: seat.since,
                    elapsed: now - seat.since,
                }),
            occupant: thread.and_then(|index| {
                let th = threads.get(index).copied().flatten()?;
                Some(VoiceOccupant {
                    thread: index,
                    track: th.track,
                    track_name: th.track_name.clone(),
                    event: th.event.clone(),
                    source: th.source,
                    owners: th.owners.iter().copied().collect(),
                    priority: th.priority(),
                    group: th.group,
                    gain: note_gain(th),
                    pan: note_pan(th),
                    elapsed: now - th.started_at,
                    started_at: th.started_at,
                    live_notes: th.live_notes().count(),
                    finished: th.state == ThreadState::Finished,
                })
            }),
        })
        .collect()
}

/// One playing copy of a track.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InstanceCopy {
    /// The thread's index.
    pub thread: usize,
    /// Its voice slot.
    pub voice: usize,
    /// The event that started it.
    pub event: Arc<str>,
    /// The objects saying this copy, ascending.
    pub owners: Vec<ObjectId>,
}

/// One entry of the instance map: a track and the objects saying it. Normally one copy
/// plays and every object that triggers the track joins it as an owner; a track whose
/// `MultipleInstances` register is set plays one copy per trigger.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InstanceView {
    /// Track ID.
    pub track: u32,
    /// Track name.
    pub track_name: Arc<str>,
    /// The copies playing, oldest first.
    pub copies: Vec<InstanceCopy>,
    /// Every object saying the track (all copies), ascending, without repeats.
    pub owners: Vec<ObjectId>,
}

/// The instance map (track → objects saying it), by track ID.
pub fn instances(engine: &Engine) -> Vec<InstanceView> {
    let mut threads: HashMap<usize, &Thread> = HashMap::new();
    threads.extend(engine.live_threads());
    let mut map: Vec<InstanceView> = engine
        .voice_table()
        .instance_map()
        .map(|(track, indices)| {
            let copies: Vec<InstanceCopy> = indices
                .iter()
                .filter_map(|index| {
                    let th = threads.get(index)?;
                    Some(InstanceCopy {
                        thread: *index,
                        voice: th.voice,
                        event: th.event.clone(),
                        owners: th.owners.iter().copied().collect(),
                    })
                })
                .collect();
            let track_name = indices
                .iter()
                .find_map(|index| threads.get(index).map(|th| th.track_name.clone()))
                .unwrap_or_else(|| Arc::from(""));
            let mut owners: Vec<ObjectId> = copies
                .iter()
                .flat_map(|c| c.owners.iter().copied())
                .collect();
            owners.sort_unstable();
            owners.dedup();
            InstanceView {
                track,
                track_name,
                copies,
                owners,
            }
        })
        .collect();
    map.sort_by_key(|entry| entry.track);
    map
}
