//! How trace records change a voice history, by their [`TraceEvent`]: a Box-X decision
//! opens or closes a lane (start, steal, interrupt, quiet) or files a refusal, a track's
//! end closes a lane with its reason, a fault is filed (with `file:line`) and closes its
//! lane. Only the typed facts are read, never the sentences.

use super::history::VoiceHistory;
use super::lanes::{FaultView, Lane, LaneEnd, Refusal};
use crate::runtime::trace::{CodePlace, EndReason, Occupant, TraceEvent, TraceRecord};
use crate::runtime::vm::FaultKind;
use std::path::Path;
use std::sync::Arc;

impl VoiceHistory {
    pub(super) fn voice_record(&mut self, record: &TraceRecord) {
        match &record.what {
            TraceEvent::QuietAll { .. } => self.close_all(record.time, "quiet all"),
            TraceEvent::Refused {
                priority,
                lowest,
                occupants,
                capacity,
                ..
            } => self.refuse(
                record,
                (*priority, *capacity),
                lowest,
                occupants.at(record.time),
            ),
            TraceEvent::Started { voice, .. } => {
                self.open(*voice, lane_from(*voice, record), false);
            }
            TraceEvent::Stole {
                priority,
                victim,
                capacity,
                ..
            } => {
                let end = LaneEnd::Stolen {
                    by_event: name(record.event.as_ref()),
                    by_track: name(record.track.as_ref()),
                    reason: format!(
                        "{priority} > {}, all {capacity} voices busy, lowest priority and oldest loses",
                        victim.priority
                    ),
                };
                self.close(victim.voice, record.time, end);
            }
            TraceEvent::LimitStopped { victim, capacity } => {
                let end = LaneEnd::Killed {
                    reason: format!("the voice limit was lowered to {capacity}"),
                };
                self.close(victim.voice, record.time, end);
            }
            TraceEvent::Interrupted {
                voice,
                finish_loops,
                ..
            } => {
                let end = LaneEnd::Interrupted {
                    by_event: name(record.event.as_ref()),
                };
                self.close(*voice, record.time, end);
                self.open(*voice, lane_from(*voice, record), *finish_loops);
            }
            TraceEvent::WorldVoiceTaken { voice, .. } => {
                self.open(*voice, lane_from(*voice, record), false);
            }
            TraceEvent::WorldVoiceLeft { voice, why, .. }
                if self.open_matches(*voice, record, false) =>
            {
                let end = match why {
                    EndReason::Ended => LaneEnd::Finished,
                    // A steal was closed by the thief's record.
                    EndReason::Stolen => return,
                    other => LaneEnd::Quieted {
                        reason: other.to_string(),
                    },
                };
                self.close(*voice, record.time, end);
            }
            TraceEvent::QuietedLastOwner { .. } => {
                if let Some(voice) = record.voice
                    && self.open_matches(voice, record, false)
                {
                    let reason = record.what.to_string();
                    let reason = reason.trim_start_matches("quiet: ").to_string();
                    self.close(voice, record.time, LaneEnd::Quieted { reason });
                }
            }
            _ => {}
        }
    }

    /// Files a Box-X refusal.
    fn refuse(
        &mut self,
        record: &TraceRecord,
        (priority, capacity): (i32, usize),
        lowest: &Occupant,
        occupants: Vec<Occupant>,
    ) {
        self.refusals.push(Refusal {
            time: record.time,
            event: name(record.event.as_ref()),
            track_name: record.track.clone(),
            object: record.object,
            priority,
            lowest: lowest.clone(),
            occupants,
            capacity,
        });
        self.version += 1;
    }

    pub(super) fn track_record(&mut self, record: &TraceRecord) {
        let TraceEvent::Ended(why) = record.what else {
            return;
        };
        let Some(voice) = record.voice else {
            return;
        };
        let Some(state) = self.slots.get(voice) else {
            return;
        };
        let Some(lane) = state.open.and_then(|i| self.lanes.get(i)) else {
            return;
        };
        if record.track.as_ref() != Some(&lane.track_name) {
            return;
        }
        if state.handoff {
            // The interrupted copy playing out its loops ended, not its successor.
            self.slot(voice).handoff = false;
            return;
        }
        if record.event.as_ref() != Some(&lane.event) {
            return;
        }
        let end = match why {
            // Already closed by the voice record that caused them.
            EndReason::Interrupted | EndReason::Stolen => return,
            EndReason::Ended => LaneEnd::Finished,
            EndReason::Fault => LaneEnd::Faulted {
                message: "fault".to_string(),
            },
            EndReason::LastOwnerQuieted | EndReason::QuietAll | EndReason::AuditionStopped => {
                LaneEnd::Quieted {
                    reason: why.to_string(),
                }
            }
            EndReason::KilledByEvent
            | EndReason::KilledItself
            | EndReason::SequenceGroupKill
            | EndReason::ChainStopped
            | EndReason::VoiceLimit => LaneEnd::Killed {
                reason: why.to_string(),
            },
        };
        self.close(voice, record.time, end);
    }

    pub(super) fn error_record(&mut self, record: &TraceRecord) {
        let TraceEvent::Fault { kind, place, .. } = &record.what else {
            return;
        };
        if record.track.is_none() || matches!(kind, FaultKind::ChainOutOfFuel { .. }) {
            return;
        }
        let message = record.what.to_string();
        self.faults.push(FaultView {
            time: record.time,
            event: record.event.clone(),
            track_name: record.track.clone(),
            object: record.object,
            voice: record.voice,
            address: place.as_ref().map(|p| p.address),
            file: place.as_ref().and_then(|p| p.file().map(Path::to_path_buf)),
            line: place.as_ref().and_then(CodePlace::line),
            kind: kind.clone(),
            message: message.clone(),
        });
        self.version += 1;
        if let Some(voice) = record.voice
            && self.open_matches(voice, record, true)
        {
            self.close(voice, record.time, LaneEnd::Faulted { message });
        }
    }

    /// True if the lane open on `voice` is the record's track (and event, if asked).
    fn open_matches(&self, voice: usize, record: &TraceRecord, event: bool) -> bool {
        self.slots
            .get(voice)
            .and_then(|s| s.open)
            .and_then(|i| self.lanes.get(i))
            .is_some_and(|lane| {
                record.track.as_ref() == Some(&lane.track_name)
                    && (!event || record.event.as_ref() == Some(&lane.event))
            })
    }
}

fn name(value: Option<&Arc<str>>) -> Arc<str> {
    value.cloned().unwrap_or_else(|| Arc::from(""))
}

fn lane_from(slot: usize, record: &TraceRecord) -> Lane {
    Lane {
        slot,
        track_name: name(record.track.as_ref()),
        event: name(record.event.as_ref()),
        object: record.object,
        started_at: record.time,
        ended_at: None,
        end: None,
    }
}
