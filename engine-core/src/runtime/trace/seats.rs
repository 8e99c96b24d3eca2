//! The voice table as a Box-X verdict saw it, shared between the verdicts that saw the
//! same one: each occupant with the time it started rather than its age, so the table
//! stays the same while nobody takes or leaves a voice, and the engine builds it again
//! only then.

use crate::runtime::clock::SampleTime;
use serde::{Deserialize, Serialize, Serializer};
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

thread_local! {
    /// Whether voice tables written on this thread are left out ([`without_tables`]).
    static LEFT_OUT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `write` with every voice table it serializes written as an empty one: a compact
/// capture writes each table apart, as the seats that changed since the last one.
pub(crate) fn without_tables<R>(write: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            LEFT_OUT.set(self.0);
        }
    }
    let _restore = Restore(LEFT_OUT.replace(true));
    write()
}

/// A track holding a voice, as a Box-X verdict compared it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occupant {
    /// Its voice slot.
    pub voice: usize,
    /// Its track.
    #[serde(with = "crate::runtime::trace::names")]
    pub track: Arc<str>,
    /// Its priority then.
    pub priority: i32,
    /// Samples it had been playing.
    pub age: u64,
}

impl fmt::Display for Occupant {
    /// `` `track` on voice 3 (priority 20, 1.25 s) `` at 48 kHz-independent sample counts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` on voice {} (priority {}, playing {} samples)",
            self.track, self.voice, self.priority, self.age
        )
    }
}

/// A track holding a voice: the slot, the track, its priority and when it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// Its voice slot.
    pub voice: usize,
    /// Its track.
    #[serde(with = "crate::runtime::trace::names")]
    pub track: Arc<str>,
    /// Its priority.
    pub priority: i32,
    /// When it started playing.
    pub since: SampleTime,
}

impl Seat {
    /// The seat as an occupant compared at `time` (its age then).
    pub fn at(&self, time: SampleTime) -> Occupant {
        Occupant {
            voice: self.voice,
            track: Arc::clone(&self.track),
            priority: self.priority,
            age: time.samples().saturating_sub(self.since.samples()),
        }
    }
}

/// Every track holding a voice, in slot order (cheap to clone: shared).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct VoiceTable(Arc<[Seat]>);

impl Serialize for VoiceTable {
    /// Its seats, as a sequence (none inside `without_tables`).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let seats: &[Seat] = if LEFT_OUT.get() { &[] } else { &self.0 };
        serializer.serialize_newtype_struct("VoiceTable", seats)
    }
}

impl VoiceTable {
    /// A table of these seats.
    pub fn new(seats: Vec<Seat>) -> Self {
        Self(seats.into())
    }

    /// The table of these occupants as compared at `time`.
    pub fn of(occupants: &[Occupant], time: SampleTime) -> Self {
        Self::new(
            occupants
                .iter()
                .map(|o| Seat {
                    voice: o.voice,
                    track: Arc::clone(&o.track),
                    priority: o.priority,
                    since: time.saturating_sub(o.age),
                })
                .collect(),
        )
    }

    /// The seats.
    pub fn seats(&self) -> &[Seat] {
        &self.0
    }

    /// Every occupant as compared at `time`, with its age then.
    pub fn at(&self, time: SampleTime) -> Vec<Occupant> {
        self.0.iter().map(|seat| seat.at(time)).collect()
    }

    /// Whether both are the same shared table (not only equal).
    pub fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
