//! Mute and solo (`docs/tuning.md`): what the designer listens to, never what the game
//! decides. The engine, the world and the server go on exactly as they would; only the
//! gain a note reaches the mixer with is held at silence while it is not heard — so
//! traces, picks, steals and captures stay the same, and turning monitoring off brings
//! every note back at the gain it has by then.
//!
//! A note is heard when nothing it belongs to is muted and, if anything is soloed, at
//! least one thing it belongs to is soloed. It belongs to its option group, and — for a
//! track's note — its Box-X voice slot, the track holding that slot and the objects
//! saying it ([`SlotOwner`], which the session hands over each tick while monitoring is
//! on). The world's own notes (stations, music, ambience) belong to their group only.

use crate::runtime::hash::FastMap;
use crate::runtime::objects::ObjectId;
use crate::runtime::sink::{ControlGroup, NoteId};
use crate::runtime::units::Gain;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What can be muted or soloed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum MonitorTarget {
    /// An option group (FX, Music, VOX): the world's sounds in it too.
    Group(ControlGroup),
    /// A track by ID: every copy of it.
    Track(u32),
    /// What an object says.
    Object(ObjectId),
    /// A Box-X voice slot.
    Voice(usize),
}

impl std::fmt::Display for MonitorTarget {
    /// As the `mute` and `solo` commands write it: `fx`, `track 0x2200`, `object 3`,
    /// `voice 2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MonitorTarget::Group(group) => f.write_str(&group.name().to_ascii_lowercase()),
            MonitorTarget::Track(id) => write!(f, "track 0x{id:X}"),
            MonitorTarget::Object(id) => write!(f, "object {id}"),
            MonitorTarget::Voice(slot) => write!(f, "voice {slot}"),
        }
    }
}

/// What is muted and what is soloed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonitorState {
    /// Muted targets.
    pub muted: BTreeSet<MonitorTarget>,
    /// Soloed targets.
    pub soloed: BTreeSet<MonitorTarget>,
}

impl MonitorState {
    /// True if anything is muted or soloed.
    pub fn is_active(&self) -> bool {
        !self.muted.is_empty() || !self.soloed.is_empty()
    }

    /// Whether a sound belonging to `targets` is heard.
    pub fn hears(&self, targets: impl Iterator<Item = MonitorTarget> + Clone) -> bool {
        let muted = targets.clone().any(|t| self.muted.contains(&t));
        !muted && (self.soloed.is_empty() || targets.into_iter().any(|t| self.soloed.contains(&t)))
    }

    /// Mutes (`solo` false) or solos `target`, or takes that back (`on` false).
    pub fn set(&mut self, solo: bool, target: MonitorTarget, on: bool) {
        let set = if solo {
            &mut self.soloed
        } else {
            &mut self.muted
        };
        if on {
            set.insert(target);
        } else {
            set.remove(&target);
        }
    }

    /// A sentence: "muted: fx, track 0x2200; soloed: voice 2", or "nothing muted or
    /// soloed".
    pub fn describe(&self) -> String {
        let list = |set: &BTreeSet<MonitorTarget>| {
            set.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (self.muted.is_empty(), self.soloed.is_empty()) {
            (true, true) => "nothing muted or soloed".to_owned(),
            (false, true) => format!("muted: {}", list(&self.muted)),
            (true, false) => format!("soloed: {}", list(&self.soloed)),
            (false, false) => format!(
                "muted: {}; soloed: {}",
                list(&self.muted),
                list(&self.soloed)
            ),
        }
    }
}

/// Who holds a Box-X slot: the track and the objects saying it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SlotOwner {
    /// The track.
    pub track: u32,
    /// Its source and owners.
    pub objects: Vec<ObjectId>,
}

/// A note the monitor follows.
#[derive(Debug, Clone, Copy)]
struct Watched {
    group: ControlGroup,
    /// Its Box-X slot (`usize::MAX`: a world or server note).
    voice: usize,
    /// The gain its makers want now.
    gain: Gain,
    /// Whether it is heard now.
    heard: bool,
}

/// The server's side: every sounding note's group, slot and wanted gain, and whether
/// it is heard.
#[derive(Debug, Default)]
pub(super) struct NoteMonitor {
    pub(super) state: MonitorState,
    slots: Vec<Option<SlotOwner>>,
    notes: FastMap<NoteId, Watched>,
}

impl NoteMonitor {
    fn hears(&self, w: &Watched) -> bool {
        if !self.state.is_active() {
            return true;
        }
        let owner = self.slots.get(w.voice).and_then(Option::as_ref);
        let targets = std::iter::once(MonitorTarget::Group(w.group))
            .chain((w.voice != usize::MAX).then_some(MonitorTarget::Voice(w.voice)))
            .chain(owner.map(|o| MonitorTarget::Track(o.track)))
            .chain(
                owner
                    .into_iter()
                    .flat_map(|o| o.objects.iter().map(|&x| MonitorTarget::Object(x))),
            );
        self.state.hears(targets)
    }

    /// A note starts: the gain it starts with.
    pub(super) fn started(
        &mut self,
        note: NoteId,
        voice: usize,
        group: ControlGroup,
        gain: Gain,
    ) -> Gain {
        let mut w = Watched {
            group,
            voice,
            gain,
            heard: true,
        };
        w.heard = self.hears(&w);
        self.notes.insert(note, w);
        if w.heard { gain } else { Gain::SILENT }
    }

    /// A note's makers want `gain`: what it gets.
    pub(super) fn gain(&mut self, note: NoteId, gain: Gain) -> Gain {
        match self.notes.get_mut(&note) {
            Some(w) => {
                w.gain = gain;
                if w.heard { gain } else { Gain::SILENT }
            }
            None => gain,
        }
    }

    /// A note is gone.
    pub(super) fn forget(&mut self, note: NoteId) {
        self.notes.remove(&note);
    }

    /// New slot owners (the session's, each tick while monitoring is on).
    pub(super) fn set_slots(&mut self, slots: Vec<Option<SlotOwner>>) {
        self.slots = slots;
    }

    /// Decides again for every note; returns those whose hearing changed with the gain
    /// they now get.
    pub(super) fn changes(&mut self) -> Vec<(NoteId, Gain)> {
        let decided: Vec<(NoteId, bool)> = self
            .notes
            .iter()
            .map(|(&note, w)| (note, self.hears(w)))
            .filter(|&(note, heard)| self.notes.get(&note).is_some_and(|w| w.heard != heard))
            .collect();
        let mut out = Vec::with_capacity(decided.len());
        for (note, heard) in decided {
            if let Some(w) = self.notes.get_mut(&note) {
                w.heard = heard;
                out.push((note, if heard { w.gain } else { Gain::SILENT }));
            }
        }
        out.sort_by_key(|&(note, _)| note);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mute_wins_and_solo_silences_the_rest() {
        let mut state = MonitorState::default();
        let fx = || {
            [
                MonitorTarget::Group(ControlGroup::Fx),
                MonitorTarget::Track(7),
            ]
            .into_iter()
        };
        let vox = || std::iter::once(MonitorTarget::Group(ControlGroup::Vox));
        assert!(state.hears(fx()) && state.hears(vox()));
        state.set(true, MonitorTarget::Group(ControlGroup::Vox), true);
        assert!(!state.hears(fx()) && state.hears(vox()));
        state.set(true, MonitorTarget::Track(7), true);
        assert!(state.hears(fx()));
        state.set(false, MonitorTarget::Track(7), true);
        assert!(!state.hears(fx()), "a mute wins over a solo");
        assert_eq!(state.describe(), "muted: track 0x7; soloed: vox, track 0x7");
        state = MonitorState::default();
        assert!(!state.is_active());
    }

    #[test]
    fn notes_keep_their_wanted_gain_while_silenced() {
        let mut monitor = NoteMonitor::default();
        let g = Gain::new(0.5);
        assert_eq!(monitor.started(1, 0, ControlGroup::Fx, g), g);
        monitor.set_slots(vec![Some(SlotOwner {
            track: 9,
            objects: vec![3],
        })]);
        monitor.state.set(false, MonitorTarget::Object(3), true);
        assert_eq!(monitor.changes(), vec![(1, Gain::SILENT)]);
        assert_eq!(monitor.gain(1, Gain::new(0.25)), Gain::SILENT);
        monitor.state = MonitorState::default();
        assert_eq!(monitor.changes(), vec![(1, Gain::new(0.25))]);
        assert!(monitor.changes().is_empty());
    }
}
