//! The server's own requests (the sound server's FIFO): a registered sound played by
//! volume or by distance, with sound groups, "two groups" selection sounds and noise
//! reduction by origin; and warming the cache up for a project.

use super::bank::{OriginId, SoundId, distance_volume};
use super::{Pending, SoundServer, WARM_UP_BYTES};
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::{ControlGroup, NoteId, SampleRef};
use crate::runtime::trace::SampleEvent;
use crate::runtime::units::{Gain, Pan};
use crate::toolchain::project::Project;
use std::path::Path;
use std::sync::Arc;

/// How loud a server request is: a volume, or a distance from the view point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Power {
    /// Volume 0…1.
    Volume(f32),
    /// Distance from the view point (volume from the sound's range).
    Distance(f32),
}

/// A request to the sound server itself (an element of its FIFO): a registered sound
/// by ID.
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
    /// Where it sits between the speakers.
    pub pan: Pan,
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

impl SoundServer {
    /// Plays a server request: chooses the sample (group, two groups), applies noise
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
            self.record(SampleEvent::OriginBusy {
                sound: Arc::from(sound.name.as_str()),
                origin,
            });
            return Err(Refusal::Busy(origin));
        }
        let volume = match request.power {
            Power::Volume(v) => v,
            Power::Distance(d) => distance_volume(d, sound.range, self.config.max_range),
        };
        let range = sound
            .range
            .map_or(self.config.max_range, |r| r.min(self.config.max_range));
        if volume <= 0.0 {
            self.record(SampleEvent::ServerSoundRefused {
                sound: Arc::from(sound.name.as_str()),
                reason: match request.power {
                    Power::Distance(d) => {
                        format!("{d:.1} tiles away is out of its range of {range} tiles")
                    }
                    Power::Volume(_) => "its volume is 0".to_string(),
                },
            });
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
        let handle = match self.cache.get(&name) {
            Ok(handle) => handle,
            Err(e) => {
                self.record(SampleEvent::ServerSoundRefused {
                    sound: Arc::from(sound.name.as_str()),
                    reason: format!("`{name}`: {e}"),
                });
                return Err(Refusal::Sample(e.to_string()));
            }
        };
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
                path: Arc::from(Path::new(&*name)),
                linked: false,
            },
            gain: self
                .monitor
                .started(note, usize::MAX, group, Gain::new(volume)),
            pan: request.pan,
            pitch: 1.0,
            looping: false,
            group,
            reverb: false,
            priority: crate::runtime::sink::WORLD_PRIORITY,
        };
        self.record(SampleEvent::ServerSound {
            note,
            sound: Arc::from(sound.name.as_str()),
            group: self.bank.last_group().map(Arc::from),
            sample: Arc::clone(&name),
            origin: request.origin,
            distance: match request.power {
                Power::Distance(d) => Some(d),
                Power::Volume(_) => None,
            },
            range,
            volume,
        });
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
            .filter_map(|patch| Some((patch.resource.as_ref()?, patch.file.as_ref()?)))
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
