//! The cache's bookkeeping, kept under its one lock: which resources are held, which are
//! pinned, recency, priorities, the budget, eviction, miss classification, ticks and
//! counters. Nothing here does IO, so the lock is only ever held briefly.

use crate::runtime::hash::FastMap;
use std::sync::{Arc, Weak};
use std::time::Instant;

use super::error::CacheError;
use super::pattern::{Pattern, PatternTable};
use super::stats::{CacheStats, MissKind, Residency, ResourceStats, TickSummary};
use super::{Handle, Resource};
use crate::sound::audio::BudgetError;

/// Why a resource left the cache (decides the kind of its next miss).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EvictionCause {
    /// Room was needed and LRU agreed; or it was over budget and nobody held it.
    Capacity,
    /// A hint threw it out: `evict`, `release`, or priority overriding LRU.
    Conflict,
}

/// Everything the cache knows about one name. Records outlive evictions, so a name's
/// history (and so the kind of its next miss) is kept.
#[derive(Debug, Default)]
pub(crate) struct Record {
    /// The data, when it is in the cache.
    pub(crate) held: Option<Handle>,
    /// The data after eviction while someone still held it, with its size.
    pinned: Option<(Weak<Resource>, usize)>,
    /// The remembered failure of the last load.
    pub(crate) failure: Option<CacheError>,
    /// A background load is queued for it.
    pub(crate) queued: bool,
    /// Some thread is loading it right now (others wait rather than load it twice).
    pub(crate) in_flight: bool,
    /// Its current data has been loaded at least once (see [`MissKind::Compulsory`]).
    ever_loaded: bool,
    last_eviction: Option<EvictionCause>,
    last_miss: Option<MissKind>,
    priority: i32,
    /// The highest priority of a sound that played it ([`State::raise_priority`]):
    /// its priority never falls below this, whatever the patterns say.
    raised: i32,
    /// Size of the last loaded data.
    size: usize,
    /// `size` is larger than the whole budget.
    over_budget: bool,
    hits: u64,
    misses: u64,
    loads: u64,
    evictions: u64,
    /// Use-counter value at the last use or load: the LRU key.
    last_use: u64,
    last_used_at: Option<Instant>,
    /// Id of the last tick it was used in (so each tick counts it once).
    last_tick: u64,
    /// Id of the tick current (or last ended) when it was last used or loaded — a use
    /// between ticks (a console command's note) too: how long ago, for thrashing.
    last_use_tick: Option<u64>,
}

impl Record {
    /// The pinned data, if it is still alive.
    fn pinned_alive(&self) -> Option<Handle> {
        self.pinned.as_ref().and_then(|(weak, _)| weak.upgrade())
    }
}

#[derive(Debug, Default)]
struct Counters {
    hits: u64,
    revivals: u64,
    compulsory: u64,
    capacity: u64,
    conflict: u64,
    loads: u64,
    failures: u64,
    evictions: u64,
    capacity_evictions: u64,
    conflict_evictions: u64,
}

#[derive(Debug, Default)]
struct Ticks {
    /// Id of the current (or last) tick; 0 before the first.
    id: u64,
    open: bool,
    /// When the open tick began: the use time of everything used during it.
    started: Option<Instant>,
    working_set: usize,
    completed: u64,
    thrashing: u64,
    last_thrashed: bool,
    last_working_set: usize,
    /// A capacity miss of this tick was on a resource used within the last
    /// [`THRASH_WINDOW_TICKS`]: the working set over that window is larger than the budget.
    window_overflowed: bool,
    /// The last tick that thrashed.
    last_thrash: Option<u64>,
}

/// The window over which a working set is measured for thrashing: 300 ticks (5 s at the
/// engine's 60 ticks a second). A sound engine asks for few samples in any one tick, but
/// evicts for room a sample it played a moment ago and needs it again soon after: that is
/// thrashing too, seen over a window (Denning's working set) rather than one tick.
pub const THRASH_WINDOW_TICKS: u64 = 300;

/// The cache's state; see the module docs.
#[derive(Debug)]
pub(crate) struct State {
    records: FastMap<Arc<str>, Record>,
    priorities: PatternTable<i32>,
    budget: usize,
    bytes_held: usize,
    over_budget_bytes: usize,
    /// Bytes reserved by loads in progress (see [`State::reserve`]).
    reserved_bytes: usize,
    /// The use counter: bumped on every use and load, never goes back.
    clock: u64,
    counters: Counters,
    ticks: Ticks,
    /// Pinned data that lost its place in its record (a newer version was loaded
    /// while an old handle lived on); only kept to report pinned bytes.
    orphans: Vec<(Weak<Resource>, usize)>,
}

impl State {
    pub(crate) fn new(budget: usize) -> Self {
        Self {
            records: FastMap::default(),
            priorities: PatternTable::default(),
            budget,
            bytes_held: 0,
            over_budget_bytes: 0,
            reserved_bytes: 0,
            clock: 0,
            counters: Counters::default(),
            ticks: Ticks::default(),
            orphans: Vec::new(),
        }
    }

    pub(crate) fn budget(&self) -> usize {
        self.budget
    }

    /// The time a use is stamped with: the start of the open tick, else now.
    ///
    /// Reading the clock costs about half as much as the rest of a hit, and a tick is
    /// the engine's unit of time anyway; outside ticks (the offline renderer) the clock
    /// is read for each use.
    fn use_time(&self) -> Instant {
        match self.ticks.started {
            Some(started) if self.ticks.open => started,
            _ => Instant::now(),
        }
    }

    /// The hit path: the handle if `key` is in the cache, counted as a hit and a use.
    /// Allocates nothing, and hashes the name once (hence not built on `mark_use`).
    pub(crate) fn hit(&mut self, key: &str) -> Option<Handle> {
        let stamp = self.clock + 1;
        let tick = self.ticks.open.then_some(self.ticks.id);
        let now_tick = self.ticks.id;
        let started = self.ticks.started.filter(|_| self.ticks.open);
        let record = self.records.get_mut(key)?;
        let handle = Arc::clone(record.held.as_ref()?);
        record.hits += 1;
        record.last_use = stamp;
        record.last_use_tick = Some(now_tick);
        record.last_used_at = Some(started.unwrap_or_else(Instant::now));
        let mut grown = 0;
        if let Some(id) = tick
            && record.last_tick != id
        {
            record.last_tick = id;
            grown = record.size;
        }
        self.clock = stamp;
        self.counters.hits += 1;
        self.ticks.working_set += grown;
        Some(handle)
    }

    /// The record of `key`, made if it is new (with the priority its patterns give).
    pub(crate) fn record(&mut self, key: &str) -> &mut Record {
        // Only called on miss paths, so the key allocation here is fine.
        let priorities = &self.priorities;
        self.records
            .entry(Arc::from(key))
            .or_insert_with(|| Record {
                priority: priorities.best(key).map_or(0, |(_, p)| *p),
                ..Record::default()
            })
    }

    /// The kind of the latest miss on `key`, if it ever missed.
    pub(crate) fn last_miss(&self, key: &str) -> Option<MissKind> {
        self.records.get(key).and_then(|r| r.last_miss)
    }

    /// The record of `key`, if the cache has one; never allocates.
    pub(crate) fn record_mut(&mut self, key: &str) -> Option<&mut Record> {
        self.records.get_mut(key)
    }

    /// Counts a use of `key` by the engine: recency, time, tick working set, and a hit
    /// when `hit` is set.
    pub(crate) fn mark_use(&mut self, key: &str, hit: bool) {
        let now = self.use_time();
        let stamp = self.clock + 1;
        let tick = self.ticks.open.then_some(self.ticks.id);
        let now_tick = self.ticks.id;
        let Some(record) = self.records.get_mut(key) else {
            return;
        };
        record.last_use = stamp;
        record.last_use_tick = Some(now_tick);
        record.last_used_at = Some(now);
        let mut grown = 0;
        if let Some(id) = tick
            && record.last_tick != id
        {
            record.last_tick = id;
            grown = record.size;
        }
        if hit {
            record.hits += 1;
            self.counters.hits += 1;
        }
        self.clock = stamp;
        self.ticks.working_set += grown;
    }

    /// Makes `key` the most recently used without counting a use (preload's "needed
    /// soon").
    pub(crate) fn refresh(&mut self, key: &str) {
        let stamp = self.clock + 1;
        if let Some(record) = self.records.get_mut(key) {
            record.last_use = stamp;
            self.clock = stamp;
        }
    }

    /// Counts a miss on `key` and says which kind it was.
    pub(crate) fn count_miss(&mut self, key: &str) -> MissKind {
        let now_tick = self.ticks.id;
        let record = self.record(key);
        let kind = if !record.ever_loaded {
            MissKind::Compulsory
        } else if record.last_eviction == Some(EvictionCause::Conflict) {
            MissKind::Conflict
        } else {
            MissKind::Capacity
        };
        record.misses += 1;
        record.last_miss = Some(kind);
        // Evicted for room, in LRU order, and asked for again within the window of its
        // last use: more than the budget was used in that window. (Between ticks — a
        // console command's note — it counts to the tick that ends next.)
        let overflowed = kind == MissKind::Capacity
            && record
                .last_use_tick
                .is_some_and(|used| now_tick.saturating_sub(used) <= THRASH_WINDOW_TICKS);
        record.last_use_tick = Some(now_tick);
        self.ticks.window_overflowed |= overflowed;
        match kind {
            MissKind::Compulsory => self.counters.compulsory += 1,
            MissKind::Capacity => self.counters.capacity += 1,
            MissKind::Conflict => self.counters.conflict += 1,
        }
        kind
    }

    /// Puts freshly loaded data for `key` into the cache and makes room for it.
    pub(crate) fn install(&mut self, key: &str, handle: Handle) {
        self.counters.loads += 1;
        {
            let now_tick = self.ticks.id;
            let record = self.record(key);
            record.loads += 1;
            record.ever_loaded = true;
            // Loaded to be played soon (a preload too): as good as a use for how recently
            // it was wanted.
            record.last_use_tick = Some(now_tick);
            record.failure = None;
            // Fresh data supersedes an older copy someone still holds: that copy stays
            // reported as pinned but must never be revived in place of this one.
            let superseded = record.pinned.take();
            if let Some(old) = superseded
                && old.0.strong_count() > 0
            {
                self.orphans.push(old);
            }
        }
        // A reload can meet an older version still held by the cache or a caller.
        self.displace(key);
        self.adopt(key, handle);
        self.evict_pass(Some(key));
    }

    /// Takes evicted-but-alive data back into the cache instead of reading it again.
    pub(crate) fn revive(&mut self, key: &str, handle: Handle) {
        self.counters.revivals += 1;
        if let Some(record) = self.records.get_mut(key) {
            record.pinned = None;
        }
        self.adopt(key, handle);
        self.evict_pass(Some(key));
    }

    /// The pinned data of `key`, if still alive and not in the cache.
    pub(crate) fn pinned_alive(&self, key: &str) -> Option<Handle> {
        self.records.get(key).and_then(Record::pinned_alive)
    }

    /// Accounts `handle` as held for `key` (record must be free of held data).
    fn adopt(&mut self, key: &str, handle: Handle) {
        let size = handle.size;
        let over = size > self.budget;
        let stamp = self.clock + 1;
        let record = self.record(key);
        record.size = size;
        record.over_budget = over;
        record.last_use = stamp;
        record.held = Some(handle);
        self.clock = stamp;
        self.bytes_held += size;
        if over {
            self.over_budget_bytes += size;
        }
    }

    /// Takes `key`'s data out of the cache without counting an eviction (reload, or a
    /// new source shadowing it); a version someone still holds stays reported as
    /// pinned. Returns whether it was held.
    pub(crate) fn displace(&mut self, key: &str) -> bool {
        self.take_out(key).is_some()
    }

    /// Removes the held data of `key` from the accounting, pinning it if it is still
    /// referenced elsewhere.
    fn take_out(&mut self, key: &str) -> Option<()> {
        let record = self.records.get_mut(key)?;
        let handle = record.held.take()?;
        let size = handle.size;
        let was_over = record.over_budget;
        if Arc::strong_count(&handle) > 1 {
            if let Some(old) = record.pinned.take()
                && old.0.strong_count() > 0
            {
                self.orphans.push(old);
            }
            record.pinned = Some((Arc::downgrade(&handle), size));
        }
        self.bytes_held = self.bytes_held.saturating_sub(size);
        if was_over {
            self.over_budget_bytes = self.over_budget_bytes.saturating_sub(size);
        }
        Some(())
    }

    /// Throws `key` out of the cache, counting the eviction and remembering its cause.
    pub(crate) fn evict_one(&mut self, key: &str, cause: EvictionCause) -> bool {
        if self.take_out(key).is_none() {
            return false;
        }
        if let Some(record) = self.records.get_mut(key) {
            record.evictions += 1;
            record.last_eviction = Some(cause);
        }
        self.counters.evictions += 1;
        match cause {
            EvictionCause::Capacity => self.counters.capacity_evictions += 1,
            EvictionCause::Conflict => self.counters.conflict_evictions += 1,
        }
        true
    }

    /// Reserves `bytes` more for the load of `key` in progress, before its loader
    /// allocates them. Everything in memory counts: cached data, evicted data still in use
    /// (pinned) and other loads' reservations. To make room, cached resources that nobody
    /// else holds are evicted, lowest priority and least recently used first (evicting
    /// one in use would free nothing). If that is not enough, the reservation is refused
    /// with what the budget is taken by.
    pub(crate) fn reserve(&mut self, key: &str, bytes: usize) -> Result<(), BudgetError> {
        self.evict_loose_over_budget(Some(key));
        let (pinned, _) = self.pinned();
        let free = self
            .budget
            .saturating_sub(self.bytes_held + pinned + self.reserved_bytes);
        if bytes > free {
            // Only evict when that makes enough room: a refused load should not cost the
            // cache its contents.
            let freeable: usize = self
                .records
                .iter()
                .filter(|(name, r)| &***name != key && !r.over_budget)
                .filter_map(|(_, r)| r.held.as_ref())
                .filter(|h| Arc::strong_count(h) == 1)
                .map(|h| h.size)
                .sum();
            if free + freeable < bytes {
                return Err(self.refusal(bytes, pinned));
            }
            self.evict_lru(bytes - free, Some(key), true);
        }
        self.reserved_bytes += bytes;
        Ok(())
    }

    /// Gives back bytes reserved by a load (it failed, freed some, or its data is being
    /// installed and counted as held instead).
    pub(crate) fn unreserve(&mut self, bytes: usize) {
        self.reserved_bytes = self.reserved_bytes.saturating_sub(bytes);
    }

    /// Why `bytes` more do not fit.
    fn refusal(&self, bytes: usize, pinned: usize) -> BudgetError {
        if bytes > self.budget {
            return BudgetError::OverWholeBudget {
                needed: bytes,
                budget: self.budget,
            };
        }
        let in_use: usize = self
            .records
            .values()
            .filter_map(|r| r.held.as_ref())
            .filter(|h| Arc::strong_count(h) > 1)
            .map(|h| h.size)
            .sum();
        BudgetError::TakenByUse {
            needed: bytes,
            budget: self.budget,
            cached: self.bytes_held,
            in_use,
            pinned,
            loading: self.reserved_bytes,
        }
    }

    /// Lets go of what must go: first over-budget resources nobody else holds, then, in
    /// order of (priority, last use), resources until the held bytes (over-budget ones
    /// aside) fit the budget. `keep` (the resource just loaded) is never chosen.
    pub(crate) fn evict_pass(&mut self, keep: Option<&str>) {
        self.evict_loose_over_budget(keep);
        let fitted = self.bytes_held.saturating_sub(self.over_budget_bytes);
        if fitted <= self.budget {
            return;
        }
        self.evict_lru(fitted - self.budget, keep, false);
    }

    /// Evicts the over-budget resources nobody else holds (but `keep`).
    fn evict_loose_over_budget(&mut self, keep: Option<&str>) {
        let kept = |name: &str| keep == Some(name);
        if self.over_budget_bytes > 0 {
            let loose: Vec<Arc<str>> = self
                .records
                .iter()
                .filter(|(name, r)| {
                    r.over_budget
                        && !kept(name)
                        && r.held.as_ref().is_some_and(|h| Arc::strong_count(h) == 1)
                })
                .map(|(name, _)| Arc::clone(name))
                .collect();
            for name in loose {
                self.evict_one(&name, EvictionCause::Capacity);
            }
        }
    }

    /// Evicts cached resources in order of (priority, last use) until `excess` bytes are
    /// out of the cache (or no candidate is left). `keep` is never chosen, nor are
    /// over-budget resources (they go on their own); with `only_free`, neither is anything
    /// someone else still holds, whose eviction would free no memory.
    fn evict_lru(&mut self, excess: usize, keep: Option<&str>, only_free: bool) {
        let kept = |name: &str| keep == Some(name);
        let mut candidates: Vec<(i32, u64, usize, Arc<str>)> = self
            .records
            .iter()
            .filter(|(name, r)| {
                r.held
                    .as_ref()
                    .is_some_and(|h| !only_free || Arc::strong_count(h) == 1)
                    && !r.over_budget
                    && !kept(name)
            })
            .map(|(name, r)| (r.priority, r.last_use, r.size, Arc::clone(name)))
            .collect();
        candidates.sort_unstable_by_key(|c| (c.0, c.1));
        let mut freed = 0usize;
        let mut count = 0usize;
        for candidate in &candidates {
            if freed >= excess {
                break;
            }
            freed += candidate.2;
            count += 1;
        }
        let (victims, retained) = candidates.split_at(count.min(candidates.len()));
        // A victim used more recently than something retained was only chosen because
        // the retained one has a higher priority: a priority hint, not LRU.
        let oldest_retained = retained.iter().map(|c| c.1).min();
        for (_, last_use, _, name) in victims {
            let cause = match oldest_retained {
                Some(oldest) if oldest < *last_use => EvictionCause::Conflict,
                _ => EvictionCause::Capacity,
            };
            self.evict_one(name, cause);
        }
    }

    /// Throws `key` out on a hint. Returns whether it was in the cache.
    pub(crate) fn evict_hint(&mut self, key: &str) -> bool {
        self.evict_one(key, EvictionCause::Conflict)
    }

    /// Throws every cached resource matching `pattern` out on a hint; returns how many.
    pub(crate) fn release(&mut self, pattern: &Pattern) -> usize {
        let names: Vec<Arc<str>> = self
            .records
            .iter()
            .filter(|(name, r)| r.held.is_some() && pattern.matches(name))
            .map(|(name, _)| Arc::clone(name))
            .collect();
        names
            .iter()
            .filter(|name| self.evict_one(name, EvictionCause::Conflict))
            .count()
    }

    /// Remembers that loading `key` failed.
    pub(crate) fn fail(&mut self, key: &str, error: CacheError) {
        self.counters.failures += 1;
        self.record(key).failure = Some(error);
    }

    /// Forgets every remembered failure (a source was added: they may load now).
    pub(crate) fn clear_failures(&mut self) {
        for record in self.records.values_mut() {
            record.failure = None;
        }
    }

    /// Drops cached data for every name `shadowed` says a new source now serves; the
    /// next request loads the new data as a compulsory miss.
    pub(crate) fn shadow(&mut self, shadowed: impl Fn(&str) -> bool) {
        let names: Vec<Arc<str>> = self
            .records
            .iter()
            .filter(|(name, r)| r.ever_loaded && shadowed(name))
            .map(|(name, _)| Arc::clone(name))
            .collect();
        for name in names {
            self.displace(&name);
            if let Some(record) = self.records.get_mut(&*name) {
                record.ever_loaded = false;
                record.last_eviction = None;
                // The pinned copy is the old data: it must not be revived.
                if let Some(old) = record.pinned.take()
                    && old.0.strong_count() > 0
                {
                    self.orphans.push(old);
                }
            }
        }
    }

    /// Sets the budget, re-flags over-budget resources and evicts down to it.
    pub(crate) fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
        let mut over_bytes = 0usize;
        for record in self.records.values_mut() {
            record.over_budget = record.size > budget;
            if record.over_budget && record.held.is_some() {
                over_bytes += record.size;
            }
        }
        self.over_budget_bytes = over_bytes;
        self.evict_pass(None);
    }

    /// Sets the priority of every name matching `pattern` (most specific pattern wins,
    /// ties to the latest), re-ranking known resources.
    pub(crate) fn set_priority(&mut self, pattern: Pattern, priority: i32) {
        self.priorities.set(pattern, priority);
        let priorities = &self.priorities;
        for (name, record) in &mut self.records {
            let pattern = priorities.best(name).map_or(0, |(_, p)| *p);
            record.priority = pattern.max(record.raised);
        }
    }

    /// Raises the priority of `key` to at least `priority` (a sound of that priority is
    /// playing it), for good: the samples of important tracks stay longest.
    pub(crate) fn raise_priority(&mut self, key: &str, priority: i32) {
        if let Some(record) = self.records.get_mut(key) {
            if record.raised >= priority {
                return;
            }
            record.raised = priority;
            record.priority = record.priority.max(priority);
            return;
        }
        let record = self.record(key);
        record.raised = priority;
        record.priority = record.priority.max(priority);
    }

    pub(crate) fn begin_tick(&mut self) {
        // A load the budget refused may fit now that sounds have ended: try it again when
        // it is next asked for.
        for record in self.records.values_mut() {
            if matches!(record.failure, Some(CacheError::OverBudget { .. })) {
                record.failure = None;
            }
        }
        self.ticks.id += 1;
        self.ticks.open = true;
        self.ticks.started = Some(Instant::now());
        self.ticks.working_set = 0;
    }

    pub(crate) fn end_tick(&mut self) -> TickSummary {
        let mut summary = TickSummary::default();
        if self.ticks.open {
            summary = TickSummary {
                working_set_bytes: self.ticks.working_set,
                thrashed: self.ticks.working_set > self.budget || self.ticks.window_overflowed,
            };
            self.ticks.window_overflowed = false;
            self.ticks.open = false;
            self.ticks.completed += 1;
            if summary.thrashed {
                self.ticks.thrashing += 1;
                self.ticks.last_thrash = Some(self.ticks.id);
            }
            self.ticks.last_thrashed = summary.thrashed;
            self.ticks.last_working_set = summary.working_set_bytes;
        }
        // Over-budget resources go as soon as nobody holds them; a tick end is the
        // regular moment to notice.
        self.evict_pass(None);
        summary
    }

    /// Pinned bytes and count, forgetting pinned data that has died since.
    fn pinned(&mut self) -> (usize, usize) {
        let mut bytes = 0usize;
        let mut count = 0usize;
        for record in self.records.values_mut() {
            if let Some((weak, size)) = &record.pinned {
                if weak.strong_count() > 0 {
                    bytes += size;
                    count += 1;
                } else {
                    record.pinned = None;
                }
            }
        }
        self.orphans.retain(|(weak, _)| weak.strong_count() > 0);
        for (_, size) in &self.orphans {
            bytes += size;
            count += 1;
        }
        (bytes, count)
    }

    pub(crate) fn stats(&mut self) -> CacheStats {
        let (pinned_bytes, pinned) = self.pinned();
        let c = &self.counters;
        CacheStats {
            hits: c.hits,
            revivals: c.revivals,
            compulsory_misses: c.compulsory,
            capacity_misses: c.capacity,
            conflict_misses: c.conflict,
            loads: c.loads,
            failures: c.failures,
            evictions: c.evictions,
            capacity_evictions: c.capacity_evictions,
            conflict_evictions: c.conflict_evictions,
            bytes_held: self.bytes_held,
            over_budget_bytes: self.over_budget_bytes,
            budget: self.budget,
            pinned_bytes,
            resident: self.records.values().filter(|r| r.held.is_some()).count(),
            pinned,
            loading: self
                .records
                .values()
                .filter(|r| r.queued || r.in_flight)
                .count(),
            ticks: self.ticks.completed,
            thrashing_ticks: self.ticks.thrashing,
            last_tick_thrashed: self.ticks.last_thrashed,
            thrashing_now: self
                .ticks
                .last_thrash
                .is_some_and(|t| self.ticks.id.saturating_sub(t) <= THRASH_WINDOW_TICKS),
            last_working_set_bytes: self.ticks.last_working_set,
        }
    }

    pub(crate) fn resource_stats(&mut self) -> Vec<ResourceStats> {
        let _ = self.pinned();
        let mut out: Vec<ResourceStats> = self
            .records
            .iter()
            .map(|(name, r)| ResourceStats {
                name: name.to_string(),
                size: r.size,
                hits: r.hits,
                misses: r.misses,
                last_miss: r.last_miss,
                loads: r.loads,
                evictions: r.evictions,
                last_use: r.last_use,
                last_used_at: r.last_used_at,
                priority: r.priority,
                residency: if r.held.is_some() {
                    Residency::Cached
                } else if r.pinned.is_some() {
                    Residency::Pinned
                } else {
                    Residency::Absent
                },
                over_budget: r.over_budget,
                loading: r.queued || r.in_flight,
                failure: r.failure.clone(),
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// True when `key` is in the cache.
    pub(crate) fn is_cached(&self, key: &str) -> bool {
        self.records.get(key).is_some_and(|r| r.held.is_some())
    }
}
