//! How trace records change a voice history: a `Voice` record opens or closes a lane (start,
//! steal, interrupt, quiet) or files a refusal, a `Track` record closes a lane with the
//! reason the track ended, an `Error` record files a fault (with `file:line`) and closes
//! its lane.

use super::history::VoiceHistory;
use super::lanes::{FaultView, Lane, LaneEnd, Refusal};
use crate::runtime::trace::TraceRecord;
use std::path::PathBuf;
use std::sync::Arc;

impl VoiceHistory {
    pub(super) fn voice_record(&mut self, record: &TraceRecord) {
        let message = record.message.as_str();
        let Some(voice) = record.voice else {
            if message.starts_with("quiet all") {
                self.close_all(record.time, "quiet all");
            } else if message.starts_with("refuse `") {
                self.refuse(record);
            }
            return;
        };
        if message.starts_with("start `") {
            self.open(voice, lane_from(voice, record), false);
        } else if message.starts_with("steal voice ") {
            let end = LaneEnd::Stolen {
                by_event: name(record.event.as_ref()),
                by_track: name(record.track.as_ref()),
                reason: after_colon(message).to_string(),
            };
            self.close(voice, record.time, end);
        } else if message.starts_with("interrupt: ") {
            let end = LaneEnd::Interrupted {
                by_event: name(record.event.as_ref()),
            };
            self.close(voice, record.time, end);
            let handoff = message.contains("after its loops finish");
            self.open(voice, lane_from(voice, record), handoff);
        } else if message.starts_with("quiet: ") && message.contains("was the last owner") {
            if self.open_matches(voice, record, false) {
                let reason = message.trim_start_matches("quiet: ").to_string();
                self.close(voice, record.time, LaneEnd::Quieted { reason });
            }
        } else if message.starts_with("refuse `") {
            // Refusals carry no voice today; take them either way.
            self.refuse(record);
        }
    }

    /// Files a Box-X refusal.
    fn refuse(&mut self, record: &TraceRecord) {
        self.refusals.push(Refusal {
            time: record.time,
            event: name(record.event.as_ref()),
            track_name: record.track.clone(),
            object: record.object,
            reason: after_colon(&record.message).to_string(),
        });
        self.version += 1;
    }

    pub(super) fn track_record(&mut self, record: &TraceRecord) {
        let Some(why) = record
            .message
            .strip_prefix("track ends (")
            .and_then(|rest| rest.strip_suffix(')'))
        else {
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
            "interrupted by a new trigger" | "its voice was stolen" => return,
            "ended" => LaneEnd::Finished,
            "fault" => LaneEnd::Faulted {
                message: "fault".to_string(),
            },
            "its last owner was quieted" | "quiet all" => LaneEnd::Quieted {
                reason: why.to_string(),
            },
            _ => LaneEnd::Killed {
                reason: why.to_string(),
            },
        };
        self.close(voice, record.time, end);
    }

    pub(super) fn error_record(&mut self, record: &TraceRecord) {
        let message = record.message.as_str();
        if record.track.is_none() || !message.ends_with("the track is stopped") {
            return;
        }
        let (address, file, line) = fault_place(message);
        self.faults.push(FaultView {
            time: record.time,
            event: record.event.clone(),
            track_name: record.track.clone(),
            object: record.object,
            voice: record.voice,
            address,
            file,
            line,
            message: message.to_string(),
        });
        self.version += 1;
        if let Some(voice) = record.voice
            && self.open_matches(voice, record, true)
        {
            let end = LaneEnd::Faulted {
                message: message.to_string(),
            };
            self.close(voice, record.time, end);
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

/// The text after the first `": "` (the reason part of a voice decision), or all of it.
fn after_colon(message: &str) -> &str {
    message
        .split_once(": ")
        .map_or(message, |(_, reason)| reason)
}

/// Address, file and line of a fault message: the engine writes
/// "event `e`, track `t`, address 0x0012 (file.src:7): what; the track is stopped", or
/// "…, its sound: what; …" when the track's sound failed.
fn fault_place(message: &str) -> (Option<u32>, Option<PathBuf>, Option<u32>) {
    let Some(start) = message.find(", address 0x") else {
        return (None, None, None);
    };
    let rest = &message[start + ", address 0x".len()..];
    let digits = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    let address = u32::from_str_radix(&rest[..digits], 16).ok();
    let Some(inner) = rest[digits..].strip_prefix(" (") else {
        return (address, None, None);
    };
    let Some(close) = inner.find("): ") else {
        return (address, None, None);
    };
    let place = &inner[..close];
    match place.rsplit_once(':') {
        Some((file, line)) if !file.is_empty() => match line.parse::<u32>() {
            Ok(line) => (address, Some(PathBuf::from(file)), Some(line)),
            Err(_) => (address, Some(PathBuf::from(place)), None),
        },
        _ if place.is_empty() => (address, None, None),
        _ => (address, Some(PathBuf::from(place)), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_places_parse() {
        let m = "event `e`, track `t`, address 0x001a (/tmp/x (copy)/f.src:12): divide by zero; the track is stopped";
        assert_eq!(
            fault_place(m),
            (
                Some(0x1a),
                Some(PathBuf::from("/tmp/x (copy)/f.src")),
                Some(12)
            )
        );
        let m = "event `e`, track `t`, address 0x0010 (unit.hit): x; the track is stopped";
        assert_eq!(
            fault_place(m),
            (Some(0x10), Some(PathBuf::from("unit.hit")), None)
        );
        let m = "event `e`, track `t`, its sound: patch 3 does not exist; the track is stopped";
        assert_eq!(fault_place(m), (None, None, None));
    }
}
