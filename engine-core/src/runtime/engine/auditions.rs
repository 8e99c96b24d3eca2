//! Auditions: a sample started by `play` (no voice, no source), and `stop`, which ends
//! what auditions started — those samples and every UI sound, the tracks playing for no
//! object — as the Project browser's Stop. `quietall` ends the samples too.

use super::Engine;
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::{AUDITION_PRIORITY, ControlGroup, NoteId, SampleRef, SoundCommand};
use crate::runtime::trace::EndReason;
use crate::runtime::units::{Gain, Pan};

/// How many auditions still sounding are remembered (the oldest is forgotten first; a
/// person auditions a few at a time).
const KEPT: usize = 64;

/// The samples `play` started, with when each ends by itself (`None`: not known).
#[derive(Debug, Default)]
pub(super) struct Auditions(Vec<(NoteId, Option<SampleTime>)>);

/// What `stop` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stopped {
    /// Samples `play` started that were still sounding.
    pub samples: usize,
    /// UI sounds: tracks playing for no object.
    pub ui_sounds: usize,
}

impl Engine {
    /// Starts `sample` once as a UI sound at the engine's time — no voice, no source:
    /// full volume, centred, in the FX group — for auditioning a patch or a sample file.
    /// Returns its note; [`Engine::stop_auditions`] ends it early.
    pub fn play_sample(&mut self, sample: SampleRef) -> NoteId {
        let note = self.next_note;
        self.next_note += 1;
        let at = self.now();
        let end = self
            .samples
            .info(&sample)
            .ok()
            .map(|info| at.saturating_add(info.length_at(self.clock.sample_rate()).max(1)));
        self.sink.send(SoundCommand::Start {
            note,
            voice: usize::MAX,
            at,
            sample,
            gain: Gain::UNITY,
            pan: Pan::CENTRE,
            pitch: 1.0,
            looping: false,
            group: ControlGroup::Fx,
            reverb: false,
            priority: AUDITION_PRIORITY,
        });
        let kept = &mut self.auditions.0;
        kept.retain(|(_, end)| end.is_none_or(|end| end > at));
        if kept.len() == KEPT {
            kept.remove(0);
        }
        kept.push((note, end));
        note
    }

    /// Stops what auditions started: every sample `play` started that still sounds, and
    /// every UI sound (a track playing for no object). Tracks an object says play on.
    pub fn stop_auditions(&mut self) -> Stopped {
        let samples = self.stop_audition_samples();
        let ui_sounds: Vec<usize> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.source.is_none() && t.owners.is_empty())
                    .map(|_| i)
            })
            .collect();
        for index in &ui_sounds {
            self.kill(*index, EndReason::AuditionStopped);
        }
        Stopped {
            samples,
            ui_sounds: ui_sounds.len(),
        }
    }

    /// Stops the samples `play` started that still sound; returns how many.
    pub(super) fn stop_audition_samples(&mut self) -> usize {
        let now = self.now();
        let sounding: Vec<NoteId> = self
            .auditions
            .0
            .drain(..)
            .filter(|(_, end)| end.is_none_or(|end| end > now))
            .map(|(note, _)| note)
            .collect();
        for note in &sounding {
            self.sink.send(SoundCommand::Stop {
                note: *note,
                at: now,
            });
        }
        sounding.len()
    }
}
