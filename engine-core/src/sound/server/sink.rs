//! The server as the runtime's [`SoundSink`]: starts go through the cache (or wait for
//! it), stops and changes of a note still waiting for its sample change the waiting note.

use super::{Pending, SoundServer};
use crate::runtime::sink::{SoundCommand, SoundSink};
use crate::runtime::trace::SampleEvent;
use crate::sound::mixer::MixCommand;

impl SoundSink for SoundServer {
    fn send(&mut self, command: SoundCommand) {
        match command {
            SoundCommand::Start {
                note,
                voice,
                at,
                sample,
                gain,
                pan,
                pitch,
                looping,
                group,
                reverb,
                priority,
            } => {
                let gain = self.monitor.started(note, voice, group, gain);
                self.start(Pending {
                    note,
                    at,
                    sample,
                    gain,
                    pan,
                    pitch,
                    looping,
                    group,
                    reverb,
                    priority,
                });
            }
            SoundCommand::Stop { note, at } => {
                if let Some(index) = self.pending.iter().position(|p| p.note == note) {
                    self.pending.remove(index);
                    self.mark_ended(note);
                    self.record(SampleEvent::StoppedWaiting { note });
                } else {
                    self.send_mixer(MixCommand::Stop {
                        note,
                        at: at.samples(),
                    });
                }
            }
            SoundCommand::SetGain {
                note,
                at,
                gain,
                ramp,
            } => {
                let gain = self.monitor.gain(note, gain);
                if let Some(p) = self.pending.iter_mut().find(|p| p.note == note) {
                    p.gain = gain;
                } else {
                    self.send_mixer(MixCommand::SetGain {
                        note,
                        at: at.samples(),
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
                        at: at.samples(),
                        pan,
                        ramp,
                    });
                }
            }
        }
    }
}
