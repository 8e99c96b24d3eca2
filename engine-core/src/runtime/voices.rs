//! Box-X: at most N tracks play at once, each in a voice slot, and only one copy of a
//! track plays at a time (the instance map: track → the thread playing it, whose owners
//! are the objects "saying" it).

use super::thread::Thread;
use std::collections::HashMap;

/// The voice slots and the instance map.
#[derive(Debug, Clone)]
pub struct Voices {
    slots: Vec<Option<usize>>,
    instances: HashMap<u32, Vec<usize>>,
    changes: u64,
}

/// What Box-X decided for a new track when every voice is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    /// A free voice.
    Free(usize),
    /// Steal this voice from this thread (lower priority than the newcomer).
    Steal {
        /// The voice.
        voice: usize,
        /// The thread that loses it.
        thread: usize,
        /// Its priority.
        priority: i32,
    },
    /// Refused: the lowest priority playing is not lower than the newcomer's.
    Refuse {
        /// The voice with the lowest priority.
        voice: usize,
        /// Its thread.
        thread: usize,
        /// Its priority.
        priority: i32,
    },
}

impl Voices {
    /// `count` empty voice slots.
    pub fn new(count: usize) -> Self {
        Self {
            slots: vec![None; count.max(1)],
            instances: HashMap::new(),
            changes: 0,
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
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// The thread in each slot.
    pub fn slots(&self) -> &[Option<usize>] {
        &self.slots
    }

    /// Decides where a track of `priority` goes: a free voice, else the lowest-priority
    /// voice (the oldest on a tie) if the newcomer ranks strictly higher, else refused.
    pub fn allocate(&self, priority: i32, threads: &[Option<Box<Thread>>]) -> Allocation {
        if let Some(free) = self.slots.iter().position(Option::is_none) {
            return Allocation::Free(free);
        }
        let lowest = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(voice, slot)| {
                let thread = (*slot)?;
                let th = threads.get(thread)?.as_ref()?;
                Some((th.priority(), th.started_seq, voice, thread))
            })
            .min_by_key(|(priority, seq, ..)| (*priority, *seq));
        match lowest {
            Some((lowest_priority, _, voice, thread)) if priority > lowest_priority => {
                Allocation::Steal {
                    voice,
                    thread,
                    priority: lowest_priority,
                }
            }
            Some((lowest_priority, _, voice, thread)) => Allocation::Refuse {
                voice,
                thread,
                priority: lowest_priority,
            },
            None => Allocation::Free(0),
        }
    }

    /// Puts a thread in a voice.
    pub fn occupy(&mut self, voice: usize, thread: usize) {
        if let Some(slot) = self.slots.get_mut(voice) {
            *slot = Some(thread);
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
