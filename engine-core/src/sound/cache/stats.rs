//! Snapshots of what the cache is doing, for the workbench's heatmap and for tests:
//! hits, the three kinds of miss, evictions, memory held and pinned, thrashing.

use std::time::Instant;

use super::error::CacheError;

/// The three kinds of cache miss (after Mark Hill).
///
/// - **Compulsory**: the resource is asked for and its data was never loaded before
///   (or the data changed: a newly added source now serves the name).
/// - **Capacity**: it was loaded before and evicted because the cache needed room, and
///   plain LRU would have evicted it too.
/// - **Conflict**: it was loaded before and thrown out although it could have stayed:
///   the cache was given a hint that the data was no longer needed. Hints are
///   `evict(name)`, `release(pattern)`, and priorities: a resource pushed out for room
///   while an *older* (less recently used) resource of higher priority was kept was
///   thrown out on the priority hint, not by LRU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MissKind {
    /// First load of this data.
    Compulsory,
    /// Evicted for room, in LRU order, and asked for again.
    Capacity,
    /// Thrown out on a hint (evict/release/priority), and asked for again.
    Conflict,
}

/// Where a resource's data is right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Residency {
    /// In the cache, counted against the budget.
    Cached,
    /// Evicted, but still alive because someone holds a handle: its bytes are pinned.
    Pinned,
    /// Not in memory.
    Absent,
}

/// The whole cache at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CacheStats {
    /// Requests served from memory (including revivals).
    pub hits: u64,
    /// Hits on evicted resources that were still alive in someone's handle and were
    /// taken back into the cache instead of being read again.
    pub revivals: u64,
    /// Misses on data never loaded before.
    pub compulsory_misses: u64,
    /// Misses on data evicted for room.
    pub capacity_misses: u64,
    /// Misses on data thrown out on a hint.
    pub conflict_misses: u64,
    /// Resources read and loaded (by any thread, for any reason).
    pub loads: u64,
    /// Loads that failed.
    pub failures: u64,
    /// Resources thrown out of the cache, for any reason except reload or shadowing.
    pub evictions: u64,
    /// Evictions for room in LRU order (and over-budget resources let go).
    pub capacity_evictions: u64,
    /// Evictions on a hint: `evict`, `release`, or priority overriding LRU.
    pub conflict_evictions: u64,
    /// Bytes of the resources in the cache.
    pub bytes_held: usize,
    /// Part of `bytes_held` taken by resources larger than the whole budget.
    pub over_budget_bytes: usize,
    /// The byte budget.
    pub budget: usize,
    /// Bytes of evicted resources still alive in someone's handle (not in `bytes_held`,
    /// never free).
    pub pinned_bytes: usize,
    /// Resources in the cache.
    pub resident: usize,
    /// Evicted resources still alive in someone's handle.
    pub pinned: usize,
    /// Names queued for a background load or being loaded right now.
    pub loading: usize,
    /// Ticks completed (`end_tick` calls after a `begin_tick`).
    pub ticks: u64,
    /// Ticks that thrashed: their working set was larger than the budget, or they had to
    /// load again a resource evicted for room within the last
    /// [`THRASH_WINDOW_TICKS`](super::THRASH_WINDOW_TICKS) of its use.
    pub thrashing_ticks: u64,
    /// Whether the last completed tick thrashed.
    pub last_tick_thrashed: bool,
    /// Whether a tick thrashed within the last
    /// [`THRASH_WINDOW_TICKS`](super::THRASH_WINDOW_TICKS): the cache is thrashing now.
    pub thrashing_now: bool,
    /// Bytes of the distinct resources used during the last completed tick.
    pub last_working_set_bytes: usize,
}

impl CacheStats {
    /// All misses.
    pub fn misses(&self) -> u64 {
        self.compulsory_misses + self.capacity_misses + self.conflict_misses
    }

    /// Hits over requests, 0 when nothing was asked yet.
    pub fn hit_rate(&self) -> f64 {
        let requests = self.hits + self.misses();
        if requests == 0 {
            0.0
        } else {
            self.hits as f64 / requests as f64
        }
    }
}

/// One resource the cache knows of (asked for at least once).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResourceStats {
    /// Normalised name.
    pub name: String,
    /// Bytes of its last loaded data (0 if never loaded).
    pub size: usize,
    /// Requests served from memory.
    pub hits: u64,
    /// Requests that had to load it.
    pub misses: u64,
    /// Kind of its latest miss.
    pub last_miss: Option<MissKind>,
    /// Times it was read and loaded.
    pub loads: u64,
    /// Times it was thrown out.
    pub evictions: u64,
    /// Use counter at its last use or load (a cache-wide counter that only grows; 0 =
    /// never). Orders resources by recency.
    pub last_use: u64,
    /// When it was last used by `get`/`try_get`: the start of the tick it was used in,
    /// or the exact time for a use outside ticks.
    /// Not kept in a capture (an instant of this process), where it reads as `None`.
    #[serde(skip)]
    pub last_used_at: Option<Instant>,
    /// Its priority (see `set_priority`).
    pub priority: i32,
    /// In cache, pinned, or absent.
    pub residency: Residency,
    /// Larger than the whole budget: kept only while someone holds it.
    pub over_budget: bool,
    /// Queued for a background load or being loaded right now.
    pub loading: bool,
    /// The remembered failure, if its last load failed.
    pub failure: Option<CacheError>,
}

/// What one tick used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickSummary {
    /// Bytes of the distinct resources used during the tick.
    pub working_set_bytes: usize,
    /// The working set was larger than the budget.
    pub thrashed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misses_add_up_and_hit_rate_is_safe() {
        let mut stats = CacheStats::default();
        assert_eq!(stats.hit_rate(), 0.0);
        stats.hits = 3;
        stats.compulsory_misses = 1;
        stats.capacity_misses = 1;
        stats.conflict_misses = 1;
        assert_eq!(stats.misses(), 3);
        assert!((stats.hit_rate() - 0.5).abs() < 1e-12);
    }
}
