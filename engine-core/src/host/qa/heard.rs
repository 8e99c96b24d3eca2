//! What reached the output, read from the mixer's per-voice levels after every block it
//! renders: for `expect heard`, each track note's loudest level at the output and when
//! it was first and last at or above [`HEARD_DBFS`]; for `expect playing sample`, which
//! notes — of tracks, stations, music, the ambience or the server's own sounds — the
//! mixer played in its last block, and each one's sample. A voice's level is the mixer's
//! RMS estimate after the note's gain and pan (mute and solo included); its option
//! group's volume and the master volume, applied on the bus, multiply it here.

use super::HEARD_DBFS;
use crate::runtime::sink::{ControlGroup, NoteId};
use crate::runtime::trace::{SampleEvent, TraceEvent};
use crate::runtime::{SampleTime, TraceRecord};
use crate::sound::mixer::MixerControls;
use crate::sound::mixer::controls::{FREE_VOICE, group_index};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// How loud one note was at the output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct NoteLevel {
    /// Its loudest level (linear, 1 = full scale).
    pub loudest: f32,
    /// The first and the last block in which it was at or above [`HEARD_DBFS`].
    pub heard: Option<(SampleTime, SampleTime)>,
}

/// A note's sample, and for a track's note its patch.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NoteSample {
    /// The sample's resource name.
    pub sample: Arc<str>,
    /// The patch and its name (`None`: a note of the world or the server).
    pub patch: Option<(u32, Arc<str>)>,
}

/// The notes started so far: their samples, how loud each track note was at the output,
/// and which the mixer played last.
#[derive(Debug)]
pub(super) struct HeardNotes {
    /// Each track note's option group (its bus), from its `NoteStarted` record.
    groups: HashMap<NoteId, ControlGroup>,
    levels: HashMap<NoteId, NoteLevel>,
    /// Every note's sample, as its records name it.
    samples: HashMap<NoteId, NoteSample>,
    /// The notes the mixer played in the last block.
    sounding: Vec<NoteId>,
    threshold: f32,
}

impl Default for HeardNotes {
    fn default() -> Self {
        Self {
            groups: HashMap::new(),
            levels: HashMap::new(),
            samples: HashMap::new(),
            sounding: Vec::new(),
            threshold: 10f32.powf(HEARD_DBFS as f32 / 20.0),
        }
    }
}

impl HeardNotes {
    /// Takes what `record` says of a note: a track note's bus, patch and sample, or the
    /// sample of a note of the world or the server.
    pub fn record(&mut self, record: &TraceRecord) {
        match &record.what {
            TraceEvent::NoteStarted {
                note,
                gain,
                patch,
                patch_name,
                sample,
                ..
            } => {
                self.groups.insert(*note, gain.group);
                self.samples.insert(
                    *note,
                    NoteSample {
                        sample: Arc::clone(sample),
                        patch: Some((*patch, Arc::clone(patch_name))),
                    },
                );
            }
            TraceEvent::Sample(
                SampleEvent::Fetched { note, sample, .. }
                | SampleEvent::CacheMiss { note, sample, .. }
                | SampleEvent::Streaming { note, sample }
                | SampleEvent::ServerSound { note, sample, .. },
            ) => {
                self.samples.entry(*note).or_insert_with(|| NoteSample {
                    sample: Arc::clone(sample),
                    patch: None,
                });
            }
            _ => {}
        }
    }

    /// The mixer rendered a block starting at `at`: which notes it played, and every
    /// track note's level times its bus's volume and the master.
    pub fn block(&mut self, at: SampleTime, controls: &MixerControls) {
        let master = controls.master.get();
        self.sounding.clear();
        for voice in &controls.voice_levels {
            let note = voice.note.load(Ordering::Relaxed);
            if note == FREE_VOICE {
                continue;
            }
            self.sounding.push(note);
            let Some(group) = self.groups.get(&note) else {
                continue;
            };
            let bus = controls.groups[group_index(*group)].get() * master;
            let level = voice.level.get() * bus;
            let entry = self.levels.entry(note).or_insert(NoteLevel {
                loudest: 0.0,
                heard: None,
            });
            entry.loudest = entry.loudest.max(level);
            if level >= self.threshold {
                entry.heard = Some(entry.heard.map_or((at, at), |(first, _)| (first, at)));
            }
        }
    }

    /// How loud `note` was, if the mixer played it.
    pub fn level(&self, note: NoteId) -> Option<NoteLevel> {
        self.levels.get(&note).copied()
    }

    /// The samples of the notes the mixer played in its last block.
    pub fn sounding(&self) -> impl Iterator<Item = &NoteSample> {
        self.sounding
            .iter()
            .filter_map(|note| self.samples.get(note))
    }
}

/// A linear level in dBFS, in words (`-12.3 dBFS`, `-inf dBFS`).
pub(super) fn dbfs_text(level: f32) -> String {
    if level > 0.0 {
        format!("{:.1} dBFS", 20.0 * level.log10())
    } else {
        "-inf dBFS".to_string()
    }
}
