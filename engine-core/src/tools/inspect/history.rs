//! A bounded history of the voice slots for the voices inspector.
//!
//! How the history is derived: the engine's trace records say *why* a voice changed
//! hands (the `Voice` records — start, steal, refuse, interrupt, quiet — are always
//! kept, whatever the trace switches), so [`VoiceHistory::push`] opens and closes lanes
//! from them at their exact sample times. A track that simply ends (its code and notes
//! done), or is killed by an event, leaves only a `Track` record, which exists only while
//! the track trace is on; [`VoiceHistory::observe`] therefore also compares the history
//! with the current voice slots and closes lanes whose track has left its slot (at the
//! snapshot's time, as [`LaneEnd::Finished`] if its code had ended, else
//! [`LaneEnd::Ended`]) and opens lanes for tracks it has not heard of. Records give the
//! reasons and exact times; the slots make sure the lanes never drift from the truth.

use super::lanes::{FaultView, Lane, LaneEnd, Refusal};
use super::voices::VoiceView;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::{TraceKind, TraceRecord};
use std::sync::Arc;

/// Per-slot bookkeeping of the history.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct SlotState {
    /// Index into `lanes` of the lane still open on this slot.
    pub(super) open: Option<usize>,
    /// The open lane's code had ended when last observed.
    pub(super) code_ended: bool,
    /// The open lane took over from an interrupted copy still playing out its loops:
    /// the next end of that track on this slot is the old copy's.
    pub(super) handoff: bool,
    /// (track, start) of the last lane opened here.
    pub(super) last: Option<(Arc<str>, SampleTime)>,
}

/// A bounded history of the voice slots: lanes (who held which slot, when, and how they
/// left), refusals and faults, kept for a window of sample time and capped in count.
/// Feed it the trace records with [`push`](Self::push) and the slots with
/// [`observe`](Self::observe) (see the module documentation for why both).
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceHistory {
    /// How long ended lanes are kept, in samples.
    pub(super) window: u64,
    pub(super) capacity: usize,
    pub(super) lanes: Vec<Lane>,
    pub(super) refusals: Vec<Refusal>,
    pub(super) faults: Vec<FaultView>,
    pub(super) slots: Vec<SlotState>,
    /// The earliest end among closed lanes (to know cheaply when to prune).
    pub(super) oldest_end: Option<SampleTime>,
    pub(super) version: u64,
}

impl Default for VoiceHistory {
    /// The last 30 seconds at 48 kHz, at most 4096 lanes (and as many refusals and
    /// faults).
    fn default() -> Self {
        Self::new(30 * 48_000, 4096)
    }
}

impl VoiceHistory {
    /// A history keeping what ended within the last `window` samples, at most
    /// `capacity` lanes, refusals and faults each (the oldest go first; open lanes are
    /// always kept).
    pub fn new(window: u64, capacity: usize) -> Self {
        Self {
            window,
            capacity: capacity.max(1),
            lanes: Vec::new(),
            refusals: Vec::new(),
            faults: Vec::new(),
            slots: Vec::new(),
            oldest_end: None,
            version: 0,
        }
    }

    /// The lanes, in the order they started (open ones have no end).
    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    /// The refusals, oldest first.
    pub fn refusals(&self) -> &[Refusal] {
        &self.refusals
    }

    /// The faults, oldest first.
    pub fn faults(&self) -> &[FaultView] {
        &self.faults
    }

    /// The lane open on a slot, if any.
    pub fn current(&self, slot: usize) -> Option<&Lane> {
        let index = self.slots.get(slot)?.open?;
        self.lanes.get(index)
    }

    /// A counter that changes whenever the history does (to copy it only then).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Takes in trace records (in time order; kinds other than `Voice`, `Track` and
    /// `Error` are skipped), then forgets what is older than the window before `now`.
    pub fn push(&mut self, records: &[TraceRecord], now: SampleTime) {
        for record in records {
            match record.kind {
                TraceKind::Voice => self.voice_record(record),
                TraceKind::Track => self.track_record(record),
                TraceKind::Error => self.error_record(record),
                _ => {}
            }
        }
        self.prune(now);
    }

    /// Compares the history with the voice slots as they are at `now` (call it after
    /// [`push`](Self::push) with the same moment's [`voices`](super::voices())): a lane whose track has
    /// left its slot closes at `now`, a track the records did not announce gets a lane.
    pub fn observe(&mut self, voices: &[VoiceView], now: SampleTime) {
        for view in voices {
            let slot = view.slot;
            let state = self.slot(slot).clone();
            // Who holds the slot: a track, or a world player (as its records name it).
            let occupant: Option<Lane> = match (&view.occupant, &view.world) {
                (Some(o), _) => Some(Lane {
                    slot,
                    track_name: o.track_name.clone(),
                    event: o.event.clone(),
                    object: o.source,
                    started_at: o.started_at,
                    ended_at: None,
                    end: None,
                }),
                (None, Some(w)) => Some(Lane {
                    slot,
                    track_name: w.who.label(),
                    event: Arc::from(w.who.key()),
                    object: None,
                    started_at: w.started_at,
                    ended_at: None,
                    end: None,
                }),
                (None, None) => None,
            };
            let finished = view.occupant.as_ref().is_some_and(|o| o.finished);
            let same = |name: &Arc<str>, start: SampleTime| {
                occupant
                    .as_ref()
                    .is_some_and(|o| o.track_name == *name && o.started_at == start)
            };
            if let Some(index) = state.open {
                let matches = self
                    .lanes
                    .get(index)
                    .is_some_and(|lane| same(&lane.track_name, lane.started_at));
                if matches {
                    if state.code_ended != finished {
                        self.slot(slot).code_ended = finished;
                    }
                    continue;
                }
                let end = if state.code_ended {
                    LaneEnd::Finished
                } else {
                    LaneEnd::Ended
                };
                self.close(slot, now, end);
            }
            if let Some(lane) = &occupant {
                let known = state
                    .last
                    .as_ref()
                    .is_some_and(|(name, start)| same(name, *start));
                if !known {
                    self.open(slot, lane.clone(), false);
                    self.slot(slot).code_ended = finished;
                }
            }
        }
        self.prune(now);
    }

    pub(super) fn slot(&mut self, slot: usize) -> &mut SlotState {
        if self.slots.len() <= slot {
            self.slots.resize(slot + 1, SlotState::default());
        }
        // The resize above makes the index valid; the fallback keeps this panic-free.
        let last = self.slots.len() - 1;
        &mut self.slots[slot.min(last)]
    }

    pub(super) fn open(&mut self, slot: usize, lane: Lane, handoff: bool) {
        if self.slot(slot).open.is_some() {
            // A lane nobody closed (records were lost): it ended when this one began.
            self.close(slot, lane.started_at, LaneEnd::Ended);
        }
        let identity = (lane.track_name.clone(), lane.started_at);
        let index = self.lanes.len();
        self.lanes.push(lane);
        let state = self.slot(slot);
        state.open = Some(index);
        state.code_ended = false;
        state.handoff = handoff;
        state.last = Some(identity);
        self.version += 1;
    }

    pub(super) fn close(&mut self, slot: usize, at: SampleTime, end: LaneEnd) {
        let Some(index) = self.slots.get_mut(slot).and_then(|s| s.open.take()) else {
            return;
        };
        if let Some(state) = self.slots.get_mut(slot) {
            state.code_ended = false;
            state.handoff = false;
        }
        if let Some(lane) = self.lanes.get_mut(index) {
            let at = at.max(lane.started_at);
            lane.ended_at = Some(at);
            lane.end = Some(end);
            self.oldest_end = Some(self.oldest_end.map_or(at, |t| t.min(at)));
        }
        self.version += 1;
    }

    pub(super) fn close_all(&mut self, at: SampleTime, reason: &str) {
        for slot in 0..self.slots.len() {
            let end = LaneEnd::Quieted {
                reason: reason.to_string(),
            };
            self.close(slot, at, end);
        }
    }

    /// Forgets closed lanes, refusals and faults older than the window, then the oldest
    /// beyond the capacity.
    fn prune(&mut self, now: SampleTime) {
        let cutoff = now.saturating_sub(self.window);
        let old = self.oldest_end.is_some_and(|t| t < cutoff);
        let open = self.slots.iter().filter(|s| s.open.is_some()).count();
        if old || self.lanes.len() > self.capacity.max(open) {
            let mut keep: Vec<bool> = self
                .lanes
                .iter()
                .map(|lane| lane.ended_at.is_none_or(|end| end >= cutoff))
                .collect();
            let kept = keep.iter().filter(|k| **k).count();
            let mut excess = kept.saturating_sub(self.capacity.max(open));
            for (flag, lane) in keep.iter_mut().zip(&self.lanes) {
                if excess == 0 {
                    break;
                }
                if *flag && lane.ended_at.is_some() {
                    *flag = false;
                    excess -= 1;
                }
            }
            let mut new_index = vec![None; self.lanes.len()];
            let mut next = 0;
            for (slot, kept) in new_index.iter_mut().zip(&keep) {
                if *kept {
                    *slot = Some(next);
                    next += 1;
                }
            }
            let mut flags = keep.iter();
            self.lanes.retain(|_| flags.next().copied().unwrap_or(true));
            for state in &mut self.slots {
                state.open = state.open.and_then(|i| new_index.get(i).copied().flatten());
            }
            self.oldest_end = self.lanes.iter().filter_map(|l| l.ended_at).min();
            self.version += 1;
        }
        if drop_oldest(&mut self.refusals, |r| r.time, cutoff, self.capacity) {
            self.version += 1;
        }
        if drop_oldest(&mut self.faults, |f| f.time, cutoff, self.capacity) {
            self.version += 1;
        }
    }
}

/// Drops the oldest of `items` (kept in time order): those before `cutoff`, and more
/// until at most `capacity` are left. True if any went.
fn drop_oldest<T>(
    items: &mut Vec<T>,
    time: impl Fn(&T) -> SampleTime,
    cutoff: SampleTime,
    capacity: usize,
) -> bool {
    let stale = items.partition_point(|item| time(item) < cutoff);
    let over = items.len().saturating_sub(capacity);
    let drop = stale.max(over);
    if drop > 0 {
        items.drain(..drop);
    }
    drop > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_bounded_and_keeps_open_lanes() {
        let mut h = VoiceHistory::new(100, 3);
        let record = |time, voice, _sentence: &str| TraceRecord {
            time,
            kind: TraceKind::Voice,
            event: Some(Arc::from("e")),
            track: Some(Arc::from("t")),
            object: None,
            voice: Some(voice),
            note: None,
            what: crate::runtime::trace::TraceEvent::Started {
                track: Arc::from("t"),
                voice,
                priority: 1,
                in_use: 1,
                capacity: 16,
            },
        };
        // A lane that stays open on slot 0, then many short ones on slot 1.
        h.push(
            &[record(
                SampleTime::from_samples(0),
                0,
                "start `t` on voice 0",
            )],
            SampleTime::from_samples(0),
        );
        for i in 0..10u64 {
            h.push(
                &[record(
                    SampleTime::from_samples(i * 10),
                    1,
                    "start `t` on voice 1",
                )],
                SampleTime::from_samples(i * 10),
            );
        }
        assert!(h.lanes().len() <= 3, "{:#?}", h.lanes());
        assert!(
            h.current(0)
                .is_some_and(|l| l.started_at == SampleTime::from_samples(0))
        );
        assert!(
            h.current(1)
                .is_some_and(|l| l.started_at == SampleTime::from_samples(90))
        );
        // Past the window only the open lanes stay.
        h.push(&[], SampleTime::from_samples(10_000));
        assert_eq!(h.lanes().len(), 2);
        assert!(h.current(0).is_some() && h.current(1).is_some());
    }
}
