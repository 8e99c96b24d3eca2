//! Box-X: at most N sounds play at once, each in a voice slot, and only one copy of a
//! track plays at a time (the instance map: track → the thread playing it, whose owners
//! are the objects "saying" it). Besides tracks, the world's own players hold slots:
//! every station on air, the music, the load loop, the river and the ambience
//! ([`WorldVoice`]), each with the priority `world.ini [Voices]` gives its kind, so they
//! steal and are stolen like tracks.

use super::clock::SampleTime;
use super::thread::Thread;
use crate::runtime::hash::FastMap;
use std::sync::Arc;

/// A world player that holds a voice slot like a track.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum WorldVoice {
    /// A station on air (its code), for all its receivers.
    Station(u32),
    /// The music of the mode (buy, build, neighbourhood, family, credits songs).
    Music,
    /// The load loop.
    LoadLoop,
    /// The neighbourhood's river loop.
    River,
    /// The lot ambience (its score and the night loop).
    Ambience,
}

impl WorldVoice {
    /// The name its slot goes by in the voice table and the trace: `[station 28]`,
    /// `[music]`, `[load loop]`, `[river]`, `[ambience]` (brackets: no track is named so).
    pub fn label(self) -> Arc<str> {
        Arc::from(self.to_string().as_str())
    }

    /// The `world.ini [Voices]` key of its kind.
    pub fn key(self) -> &'static str {
        match self {
            WorldVoice::Station(_) => "Station",
            WorldVoice::Music => "Music",
            WorldVoice::LoadLoop => "LoadLoop",
            WorldVoice::River => "River",
            WorldVoice::Ambience => "Ambience",
        }
    }
}

impl std::fmt::Display for WorldVoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorldVoice::Station(code) => write!(f, "[station {code}]"),
            WorldVoice::Music => f.write_str("[music]"),
            WorldVoice::LoadLoop => f.write_str("[load loop]"),
            WorldVoice::River => f.write_str("[river]"),
            WorldVoice::Ambience => f.write_str("[ambience]"),
        }
    }
}

/// A world player in a voice slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldSeat {
    /// Who.
    pub who: WorldVoice,
    /// Its Box-X priority.
    pub priority: i32,
    /// The engine's start sequence number when it took the slot (the oldest loses a tie).
    pub seq: u64,
    /// When it took the slot.
    pub since: SampleTime,
}

/// Who holds a voice slot that Box-X compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// A track's thread.
    Thread(usize),
    /// A world player.
    World(WorldVoice),
}

/// The voice slots and the instance map.
#[derive(Debug, Clone)]
pub struct Voices {
    slots: Vec<Option<usize>>,
    world: Vec<Option<WorldSeat>>,
    instances: FastMap<u32, Vec<usize>>,
    changes: u64,
    /// The Box-X key of the thread in each slot as last told ([`Self::occupy`],
    /// [`Self::set_priority`]): its priority and start sequence, so a decision reads
    /// one short list instead of every thread.
    keys: Vec<(i32, u64)>,
}

/// What Box-X decided for a newcomer when every voice is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    /// A free voice.
    Free(usize),
    /// Steal this voice from its holder (lower priority than the newcomer).
    Steal {
        /// The voice.
        voice: usize,
        /// Who loses it.
        holder: Holder,
        /// Its priority.
        priority: i32,
    },
    /// Refused: the lowest priority playing is not lower than the newcomer's.
    Refuse {
        /// The voice with the lowest priority.
        voice: usize,
        /// Its holder.
        holder: Holder,
        /// Its priority.
        priority: i32,
    },
}

impl Voices {
    /// `count` empty voice slots.
    pub fn new(count: usize) -> Self {
        Self {
            slots: vec![None; count.max(1)],
            world: vec![None; count.max(1)],
            instances: FastMap::default(),
            changes: 0,
            keys: vec![(0, 0); count.max(1)],
        }
    }

    /// How many times a slot was taken or freed: a table built at the same count is
    /// still the table (the priorities aside).
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Number of voice slots.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Number of voices in use.
    pub fn in_use(&self) -> usize {
        (0..self.slots.len()).filter(|v| !self.is_free(*v)).count()
    }

    /// The thread in each slot (`None` for a free slot and for one a world player holds).
    pub fn slots(&self) -> &[Option<usize>] {
        &self.slots
    }

    /// The world player in each slot.
    pub fn world_slots(&self) -> &[Option<WorldSeat>] {
        &self.world
    }

    /// The slot `who` holds.
    pub fn world_voice(&self, who: WorldVoice) -> Option<usize> {
        self.world
            .iter()
            .position(|seat| seat.is_some_and(|s| s.who == who))
    }

    fn is_free(&self, voice: usize) -> bool {
        self.slots.get(voice).is_some_and(Option::is_none)
            && self.world.get(voice).is_some_and(Option::is_none)
    }

    /// Seats a world player in a free voice.
    pub fn seat_world(&mut self, voice: usize, seat: WorldSeat) {
        if self.is_free(voice)
            && let Some(slot) = self.world.get_mut(voice)
        {
            *slot = Some(seat);
            self.changes += 1;
        }
    }

    /// Frees the voice `who` holds; returns it.
    pub fn unseat_world(&mut self, who: WorldVoice) -> Option<usize> {
        let voice = self.world_voice(who)?;
        if let Some(slot) = self.world.get_mut(voice) {
            *slot = None;
            self.changes += 1;
        }
        Some(voice)
    }

    /// Decides where a newcomer of `priority` goes: a free voice, else the
    /// lowest-priority voice (the oldest on a tie; tracks and world players alike) if the
    /// newcomer ranks strictly higher, else refused.
    ///
    /// A thread's priority is the one last told ([`Self::set_priority`]); a thread not
    /// in `threads` (running, taken out) is passed over.
    pub fn allocate(&self, priority: i32, threads: &[Option<Box<Thread>>]) -> Allocation {
        if let Some(voice) = (0..self.slots.len()).find(|v| self.is_free(*v)) {
            return Allocation::Free(voice);
        }
        match self.lowest(threads) {
            Some((voice, holder, lowest)) if priority > lowest => Allocation::Steal {
                voice,
                holder,
                priority: lowest,
            },
            Some((voice, holder, lowest)) => Allocation::Refuse {
                voice,
                holder,
                priority: lowest,
            },
            None => Allocation::Free(0),
        }
    }

    /// The holder Box-X would take a voice from first: the lowest (priority, start
    /// sequence), tracks before world players and lower slots first on a full tie — its
    /// slot, who and its priority; `None` when no slot is held.
    pub fn lowest(&self, threads: &[Option<Box<Thread>>]) -> Option<(usize, Holder, i32)> {
        let mut lowest: Option<((i32, u64, bool, usize), Holder)> = None;
        let slots = self.slots.iter().zip(&self.world).zip(&self.keys);
        for (voice, ((slot, seat), &(priority, seq))) in slots.enumerate() {
            let (key, holder) = match (slot, seat) {
                (None, None) => continue,
                (None, Some(seat)) => (
                    (seat.priority, seat.seq, true, voice),
                    Holder::World(seat.who),
                ),
                (Some(thread), _) => match threads.get(*thread).and_then(Option::as_ref) {
                    Some(th) => {
                        debug_assert_eq!(
                            (th.priority(), th.started_seq),
                            (priority, seq),
                            "voice {voice}'s key is out of date"
                        );
                        ((priority, seq, false, voice), Holder::Thread(*thread))
                    }
                    None => continue,
                },
            };
            if lowest.as_ref().is_none_or(|(best, _)| key < *best) {
                lowest = Some((key, holder));
            }
        }
        lowest.map(|((priority, _, _, voice), holder)| (voice, holder, priority))
    }

    /// Makes the table `count` slots long (at least one). Each holder of a slot at or
    /// past the new end moves to a free slot before it; returns the moves, (from, to).
    /// Holders without a free slot to move to are the caller's to evict first: those
    /// left over are dropped from the table.
    pub fn set_capacity(&mut self, count: usize) -> Vec<(usize, usize)> {
        let count = count.max(1);
        let mut moves = Vec::new();
        for from in count..self.slots.len() {
            if self.is_free(from) {
                continue;
            }
            let Some(to) = (0..count).find(|v| self.is_free(*v)) else {
                break;
            };
            self.slots.swap(from, to);
            self.world.swap(from, to);
            self.keys.swap(from, to);
            moves.push((from, to));
        }
        self.slots.resize(count, None);
        self.world.resize(count, None);
        self.keys.resize(count, (0, 0));
        self.changes += 1;
        moves
    }

    /// Puts a thread in a voice, with its priority and start sequence.
    pub fn occupy(&mut self, voice: usize, thread: usize, (priority, seq): (i32, u64)) {
        if let (Some(slot), Some(key)) = (self.slots.get_mut(voice), self.keys.get_mut(voice)) {
            *slot = Some(thread);
            *key = (priority, seq);
            self.changes += 1;
        }
    }

    /// Notes that the threads Box-X compares changed without a slot changing (one was
    /// taken out to run, or put back).
    pub fn touch(&mut self) {
        self.changes += 1;
    }

    /// Tells the priority of `thread` in `voice` (a track may change its own): a
    /// change counts as a change of the voice table.
    pub fn set_priority(&mut self, voice: usize, thread: usize, priority: i32) {
        if self.slots.get(voice) == Some(&Some(thread))
            && let Some(key) = self.keys.get_mut(voice)
            && key.0 != priority
        {
            key.0 = priority;
            self.changes += 1;
        }
    }

    /// Frees a voice if `thread` holds it.
    pub fn release(&mut self, voice: usize, thread: usize) {
        if let Some(slot) = self.slots.get_mut(voice)
            && *slot == Some(thread)
        {
            *slot = None;
            self.changes += 1;
        }
    }

    /// Records that `thread` plays `track`.
    pub fn add_instance(&mut self, track: u32, thread: usize) {
        let list = self.instances.entry(track).or_default();
        if !list.contains(&thread) {
            list.push(thread);
        }
    }

    /// Forgets that `thread` plays `track`.
    pub fn remove_instance(&mut self, track: u32, thread: usize) {
        if let Some(list) = self.instances.get_mut(&track) {
            list.retain(|t| *t != thread);
            if list.is_empty() {
                self.instances.remove(&track);
            }
        }
    }

    /// The threads playing a track (oldest first).
    pub fn instances(&self, track: u32) -> &[usize] {
        self.instances.get(&track).map_or(&[], Vec::as_slice)
    }

    /// Every (track, threads) of the instance map.
    pub fn instance_map(&self) -> impl Iterator<Item = (u32, &[usize])> {
        self.instances.iter().map(|(t, v)| (*t, v.as_slice()))
    }
}
