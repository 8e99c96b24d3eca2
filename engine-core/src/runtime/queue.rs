//! The engine's time queue: a calendar of per-tick buckets. Work due in the current
//! tick comes out in (time, sequence) order; pushing and popping cost O(1) amortised
//! for the common case of work due within the next few seconds (a binary heap holds the
//! rest), which keeps 10,000 live tracks cheap.

use super::clock::{Clock, SampleTime};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Ticks covered by buckets; later work waits in the overflow heap. A power of two:
/// tick `k`'s bucket is `buckets[k % HORIZON]`.
const HORIZON: u64 = 512;

/// The bucket of tick `k`.
#[inline(always)]
fn slot(k: u64) -> usize {
    (k % HORIZON) as usize
}

/// One queued item: when, in which order, what.
type Entry<T> = (SampleTime, u64, T);

/// Timed work, popped in (time, sequence) order.
#[derive(Debug, Clone)]
pub struct TimedQueue<T: Ord + Copy> {
    /// `buckets[slot(k)]` holds work for tick `k`, for `base <= k < base + HORIZON`.
    buckets: Box<[Vec<Entry<T>>; HORIZON as usize]>,
    base: u64,
    overflow: BinaryHeap<Reverse<Entry<T>>>,
    /// The current tick's bucket, sorted, and how far it has been taken.
    due: Vec<Entry<T>>,
    next_due: usize,
    /// Work pushed for the current tick while it is being processed.
    late: BinaryHeap<Reverse<Entry<T>>>,
    /// Emptied buckets kept with their room, for the next bucket that gets work: the
    /// calendar reuses a few vectors instead of growing a new one every tick.
    spare: Vec<Vec<Entry<T>>>,
    seq: u64,
    len: usize,
}

impl<T: Ord + Copy> Default for TimedQueue<T> {
    fn default() -> Self {
        Self {
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            base: 0,
            overflow: BinaryHeap::new(),
            due: Vec::new(),
            next_due: 0,
            late: BinaryHeap::new(),
            spare: Vec::new(),
            seq: 0,
            len: 0,
        }
    }
}

impl<T: Ord + Copy> TimedQueue<T> {
    /// Number of items queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if nothing is queued.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Queues `item` for time `at`. Items for the same time come out in push order.
    pub fn push(&mut self, at: SampleTime, item: T, clock: &Clock) {
        self.push_in_tick(at, clock.tick_of(at), item);
    }

    /// Queues `item` for time `at`, which falls in tick `tick` (`Clock::tick_of(at)`):
    /// for a caller that knows the tick without a division (a wake at the start of the
    /// next tick).
    pub fn push_in_tick(&mut self, at: SampleTime, tick: u64, item: T) {
        self.seq += 1;
        self.len += 1;
        let entry = (at, self.seq, item);
        if tick <= self.base {
            self.late.push(Reverse(entry));
        } else if tick - self.base < HORIZON {
            let bucket = &mut self.buckets[slot(tick)];
            if bucket.capacity() == 0
                && let Some(room) = self.spare.pop()
            {
                *bucket = room;
            }
            bucket.push(entry);
        } else {
            self.overflow.push(Reverse(entry));
        }
    }

    /// Starts processing tick `tick` (the clock's current tick).
    pub fn begin_tick(&mut self, tick: u64, clock: &Clock) {
        while self.base < tick {
            self.advance(clock);
        }
        let mut bucket = std::mem::take(&mut self.buckets[slot(self.base)]);
        bucket.sort_unstable();
        self.due = bucket;
        self.next_due = 0;
    }

    /// The next item due before `end`, in order.
    pub fn pop_before(&mut self, end: SampleTime) -> Option<(SampleTime, T)> {
        let due = self.due.get(self.next_due);
        // Sequence numbers are unique: time and sequence decide the order.
        let late_first = match (due, self.late.peek()) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(d), Some(Reverse(l))) => (l.0, l.1) < (d.0, d.1),
        };
        let at = if late_first {
            self.late.peek().map(|Reverse(e)| e.0)
        } else {
            due.map(|e| e.0)
        }?;
        if at >= end {
            return None;
        }
        let item = if late_first {
            self.late.pop().map(|Reverse(e)| e.2)
        } else {
            let item = due.map(|e| e.2);
            self.next_due += 1;
            item
        }?;
        self.len -= 1;
        Some((at, item))
    }

    /// Ends the current tick: whatever of it was not taken moves to the next one.
    pub fn end_tick(&mut self, clock: &Clock) {
        let rest: Vec<Entry<T>> = self.due.drain(self.next_due..).collect();
        self.next_due = 0;
        // The taken entries are done; the emptied vector is kept for a bucket to come.
        let mut spare = std::mem::take(&mut self.due);
        spare.clear();
        self.keep(spare);
        for entry in rest {
            self.late.push(Reverse(entry));
        }
        self.advance(clock);
    }

    /// Keeps an empty vector's room for a later bucket (a few are enough).
    fn keep(&mut self, room: Vec<Entry<T>>) {
        if room.capacity() > 0 && self.spare.len() < 4 {
            self.spare.push(room);
        }
    }

    /// Moves the calendar one tick on.
    fn advance(&mut self, clock: &Clock) {
        // Work left in the bucket that is leaving (pushed for a tick never begun)
        // joins the late heap so nothing is lost.
        // Its slot is the bucket of the tick the horizon reaches next.
        let mut leaving = std::mem::take(&mut self.buckets[slot(self.base)]);
        for entry in leaving.drain(..) {
            self.late.push(Reverse(entry));
        }
        self.keep(leaving);
        self.base += 1;
        let horizon_end = self.base + HORIZON;
        while let Some(Reverse(entry)) = self.overflow.peek().copied() {
            let tick = clock.tick_of(entry.0);
            if tick >= horizon_end {
                break;
            }
            self.overflow.pop();
            if tick <= self.base {
                self.late.push(Reverse(entry));
            } else {
                self.buckets[slot(tick)].push(entry);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_out_once_at_their_tick() {
        let mut clock = Clock::new(48_000, 60);
        let mut queue = TimedQueue::<u32>::default();
        queue.push(SampleTime::from_samples(48_000), 1, &clock);
        let mut out = Vec::new();
        for _ in 0..200 {
            queue.begin_tick(clock.tick(), &clock);
            while let Some((at, item)) = queue.pop_before(clock.tick_end()) {
                out.push((clock.tick(), at, item));
                if item < 3 {
                    queue.push(at + 12_000, item + 1, &clock);
                }
            }
            queue.end_tick(&clock);
            clock.advance();
        }
        let out: Vec<(u64, u64, u32)> = out.iter().map(|(k, t, i)| (*k, t.samples(), *i)).collect();
        assert_eq!(out, vec![(60, 48_000, 1), (75, 60_000, 2), (90, 72_000, 3)]);
        assert_eq!(queue.len(), 0);
    }

    #[test]
    fn pops_in_time_then_push_order_across_ticks_and_the_horizon() {
        let clock_rate = Clock::new(48_000, 60);
        let mut queue = TimedQueue::<u32>::default();
        let times = [5u64, 1_000, 799, 800, 0, 5, 48_000 * 20, 1_601, 10];
        for (i, t) in times.iter().enumerate() {
            queue.push(SampleTime::from_samples(*t), i as u32, &clock_rate);
        }
        let mut clock = clock_rate;
        let mut out = Vec::new();
        for _ in 0..(60 * 21) {
            queue.begin_tick(clock.tick(), &clock);
            while let Some((at, item)) = queue.pop_before(clock.tick_end()) {
                out.push((at, item));
                if item == 4 {
                    // Work pushed during a tick for that same tick comes out in order.
                    queue.push(clock.now() + 3, 100, &clock);
                }
            }
            queue.end_tick(&clock);
            clock.advance();
        }
        // Each item came out once, at its own tick, and the queue is empty.
        let expected = vec![
            (0, 4),
            (3, 100),
            (5, 0),
            (5, 5),
            (10, 8),
            (799, 2),
            (800, 3),
            (1_000, 1),
            (1_601, 7),
            (48_000 * 20, 6),
        ];
        let out: Vec<(u64, u32)> = out.iter().map(|(t, i)| (t.samples(), *i)).collect();
        assert_eq!(out, expected);
        assert!(queue.is_empty());
    }
}
