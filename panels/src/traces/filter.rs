//! Which trace records the Traces panel shows: the [`TraceFilter`] (kinds, decisions,
//! text, object, track), prepared as a [`TraceMatcher`], and the [`Index`] of the matching records,
//! kept up to date as records arrive (only the new ones are tested) and rebuilt when the
//! filter changes or the trace is replaced.

use engine_core::runtime::{DecisionKind, TraceKind, TraceRecord};
use engine_core::toolchain::par;
use engine_core::world::ObjectId;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How many kinds of record there are.
pub(super) const KINDS: usize = TraceKind::ALL.len();

/// How many kinds of decision there are.
pub(super) const DECISIONS: usize = DecisionKind::ALL.len();

/// Which trace records to show (and to export).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceFilter {
    /// The kinds shown, in [`TraceKind::ALL`] order.
    pub kinds: [bool; KINDS],
    /// The decisions shown, in [`DecisionKind::ALL`] order: none ticked shows every
    /// record; some ticked, only the records that decided so
    /// ([`TraceEvent::decision`](engine_core::runtime::trace::TraceEvent::decision)).
    pub decisions: [bool; DECISIONS],
    /// Only records whose message, event or track contains this (ignoring case).
    pub text: String,
    /// Only records about this object.
    pub object: Option<ObjectId>,
    /// Only records whose track name contains this (ignoring case).
    pub track: String,
}

impl Default for TraceFilter {
    fn default() -> Self {
        Self {
            kinds: [true; KINDS],
            decisions: [false; DECISIONS],
            text: String::new(),
            object: None,
            track: String::new(),
        }
    }
}

impl TraceFilter {
    /// Whether records of `kind` are shown.
    pub fn shows(&self, kind: TraceKind) -> bool {
        self.kinds[kind_index(kind)]
    }

    /// Whether only records of some decisions are shown.
    pub fn by_decision(&self) -> bool {
        self.decisions.contains(&true)
    }

    /// Whether `record` passes (to test many records, use [`TraceFilter::matcher`]).
    pub fn matches(&self, record: &TraceRecord) -> bool {
        self.matcher().matches(record)
    }

    /// The filter prepared for testing many records.
    pub fn matcher(&self) -> TraceMatcher {
        TraceMatcher {
            kinds: self.kinds,
            decisions: self.by_decision().then_some(self.decisions),
            text: self.text.trim().to_lowercase(),
            object: self.object,
            track: self.track.trim().to_lowercase(),
        }
    }
}

/// A [`TraceFilter`] prepared for testing many records.
#[derive(Debug, Clone)]
pub struct TraceMatcher {
    kinds: [bool; KINDS],
    decisions: Option<[bool; DECISIONS]>,
    text: String,
    object: Option<ObjectId>,
    track: String,
}

impl TraceMatcher {
    /// Whether `record` passes.
    pub fn matches(&self, record: &TraceRecord) -> bool {
        self.matches_with(record, &mut String::new())
    }

    /// Whether `record` passes, its message written into `scratch` if the text filter
    /// needs it (testing many records, one buffer serves them all).
    pub(super) fn matches_with(&self, record: &TraceRecord, scratch: &mut String) -> bool {
        if !self.kinds[kind_index(record.kind)] {
            return false;
        }
        if let Some(decisions) = &self.decisions
            && !record
                .what
                .decision()
                .is_some_and(|d| decisions[decision_index(d)])
        {
            return false;
        }
        if self.object.is_some() && record.object != self.object {
            return false;
        }
        if !self.track.is_empty()
            && !record
                .track
                .as_deref()
                .is_some_and(|t| contains_ignoring_case(t, &self.track))
        {
            return false;
        }
        if self.text.is_empty()
            || record
                .event
                .as_deref()
                .is_some_and(|e| contains_ignoring_case(e, &self.text))
            || record
                .track
                .as_deref()
                .is_some_and(|t| contains_ignoring_case(t, &self.text))
        {
            return true;
        }
        scratch.clear();
        let _ = write!(scratch, "{}", record.what);
        contains_ignoring_case(scratch, &self.text)
    }
}

/// The position of `kind` in [`TraceKind::ALL`].
pub(super) fn kind_index(kind: TraceKind) -> usize {
    TraceKind::ALL
        .iter()
        .position(|k| *k == kind)
        .unwrap_or_default()
}

/// The position of `decision` in [`DecisionKind::ALL`].
pub(super) fn decision_index(decision: DecisionKind) -> usize {
    DecisionKind::ALL
        .iter()
        .position(|d| *d == decision)
        .unwrap_or_default()
}

/// Whether `haystack` contains `needle` (already lower case), ignoring case; without
/// allocating when both are ASCII.
pub(super) fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if haystack.is_ascii() && needle.is_ascii() {
        let needle = needle.as_bytes();
        let (first, rest) = (needle[0], &needle[1..]);
        let upper = first.to_ascii_uppercase();
        // The first byte decides most windows: compare the rest only where it matches.
        return haystack
            .as_bytes()
            .windows(needle.len())
            .any(|w| (w[0] == first || w[0] == upper) && w[1..].eq_ignore_ascii_case(rest));
    }
    haystack.to_lowercase().contains(needle)
}

/// The matching records, kept up to date as records arrive.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// The filter `rows` was built for (None: not built yet).
    pub(super) filter: Option<TraceFilter>,
    /// The numbers (counted from the first record ever received) of the matching
    /// records, ascending.
    pub(super) rows: VecDeque<u64>,
    /// The kind of every record in the trace (indices into [`TraceKind::ALL`]).
    pub(super) kinds: VecDeque<u8>,
    /// How many records of each kind the trace holds.
    pub(super) counts: [usize; KINDS],
    /// The number of the first record in the trace.
    pub(super) dropped: u64,
    /// One past the number of the last record counted in `kinds`.
    pub(super) seen: u64,
    /// The records tested against `filter` are those from this number…
    pub(super) tested_from: u64,
    /// …to one before this one. A new filter is tested from the newest record back,
    /// so what a list following the newest shows is there in the first frame; records
    /// arriving meanwhile are tested as they come.
    pub(super) tested_to: u64,
    /// `filter`, prepared.
    pub(super) matcher: Option<TraceMatcher>,
    /// The trace's epoch (`PanelContext::trace_epoch`) the index was built on.
    pub(super) epoch: u64,
    /// A record's message, written while testing it against the text filter.
    scratch: String,
}

impl Index {
    /// Brings the index up to date with `trace`, whose first record is number
    /// `dropped`, of epoch `epoch` (another epoch: another trace), for `filter`, testing
    /// records for about `budget` (the rest on later calls): first those that arrived
    /// since the last call, then older ones, newest first. Returns whether every record
    /// has been tested.
    pub(super) fn update(
        &mut self,
        trace: &VecDeque<TraceRecord>,
        dropped: u64,
        epoch: u64,
        filter: &TraceFilter,
        budget: Duration,
    ) -> bool {
        let start = Instant::now();
        let end = dropped + trace.len() as u64;
        if dropped < self.dropped || end < self.seen || epoch != self.epoch {
            // The trace was replaced: start again.
            *self = Index {
                epoch,
                ..Index::default()
            };
            self.dropped = dropped;
            self.seen = dropped;
            self.tested_from = dropped;
            self.tested_to = dropped;
        }
        self.drop_front(dropped);
        // Count the new records.
        for record in trace.range((self.seen - dropped) as usize..) {
            let kind = kind_index(record.kind);
            self.kinds.push_back(kind as u8);
            if let Some(count) = self.counts.get_mut(kind) {
                *count += 1;
            }
        }
        self.seen = end;
        // A new filter tests every record again, from the newest back.
        if self.filter.as_ref() != Some(filter) {
            self.rows.clear();
            self.tested_from = end;
            self.tested_to = end;
            self.filter = Some(filter.clone());
            self.matcher = Some(filter.matcher());
        }
        let Some(matcher) = &self.matcher else {
            return true;
        };
        let at = |n: u64| (n - dropped) as usize;
        // The records that arrived since, then older ones.
        let newer = at(self.tested_to)..trace.len();
        if !newer.is_empty() {
            let (tested, rows) = test(
                matcher,
                trace,
                newer.clone(),
                false,
                budget,
                &mut self.scratch,
            );
            self.rows
                .extend(rows.into_iter().map(|i| dropped + i as u64));
            self.tested_to += tested as u64;
            if self.tested_to < end {
                return false;
            }
        }
        let older = 0..at(self.tested_from);
        if !older.is_empty() {
            let left = budget.saturating_sub(start.elapsed());
            let (tested, rows) = test(matcher, trace, older, true, left, &mut self.scratch);
            for i in rows.into_iter().rev() {
                self.rows.push_front(dropped + i as u64);
            }
            self.tested_from -= tested as u64;
        }
        self.complete()
    }

    /// Forgets the records before number `dropped`, gone from the trace.
    fn drop_front(&mut self, dropped: u64) {
        if dropped <= self.dropped {
            return;
        }
        let gone = (dropped - self.dropped).min(self.kinds.len() as u64);
        for _ in 0..gone {
            if let Some(kind) = self.kinds.pop_front()
                && let Some(count) = self.counts.get_mut(usize::from(kind))
            {
                *count = count.saturating_sub(1);
            }
        }
        while self.rows.front().is_some_and(|&n| n < dropped) {
            self.rows.pop_front();
        }
        self.dropped = dropped;
        self.seen = self.seen.max(dropped);
        self.tested_from = self.tested_from.max(dropped);
        self.tested_to = self.tested_to.max(dropped);
    }

    /// Whether every record has been tested against the filter.
    pub(super) fn complete(&self) -> bool {
        self.tested_from <= self.dropped && self.tested_to >= self.seen
    }

    /// How far testing the records has come, 0 to 1.
    pub(super) fn progress(&self) -> f32 {
        let total = self.seen.saturating_sub(self.dropped);
        if total == 0 {
            return 1.0;
        }
        self.tested_to.saturating_sub(self.tested_from) as f32 / total as f32
    }
}

/// Records tested at a time: between looks at the clock, and the unit of work the
/// threads share.
const CHUNK: usize = 256;

/// With fewer records than this to test, they are tested on the calling thread alone
/// (records arriving a few at a time); with more (a new filter over a long trace), on
/// every core.
const PARALLEL_FROM: usize = 16 * CHUNK;

/// How many threads test records when there are many: the cores, up to four.
fn testers() -> usize {
    static TESTERS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *TESTERS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(4)
    })
}

/// Tests the records of `trace` at positions `range` against `matcher` — from the first
/// on, or with `newest_first` from the last back — for about `budget` (at least one
/// chunk of them). Returns how many were tested (always the first ones in that order)
/// and the positions of those that match, ascending.
fn test(
    matcher: &TraceMatcher,
    trace: &VecDeque<TraceRecord>,
    range: Range<usize>,
    newest_first: bool,
    budget: Duration,
    scratch: &mut String,
) -> (usize, Vec<usize>) {
    let start = Instant::now();
    let chunks = range.len().div_ceil(CHUNK);
    // Chunk `k` in the order of testing.
    let chunk = |k: usize| {
        if newest_first {
            range.end.saturating_sub((k + 1) * CHUNK).max(range.start)..range.end - k * CHUNK
        } else {
            range.start + k * CHUNK..(range.start + (k + 1) * CHUNK).min(range.end)
        }
    };
    let threads = if range.len() >= PARALLEL_FROM {
        testers()
    } else {
        1
    };
    // Each thread takes the next chunk until the budget is spent; the chunks tested
    // without a gap from the first are kept (a few past a gap are tested again).
    let next = AtomicUsize::new(0);
    let work = |scratch: &mut String| {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= chunks {
                break;
            }
            let mut rows = Vec::new();
            test_chunk(matcher, trace, chunk(k), scratch, &mut rows);
            done.push((k, rows));
            if start.elapsed() >= budget {
                break;
            }
        }
        done
    };
    let mut done = par::on_threads(
        threads,
        "hitbench-index",
        || work(scratch),
        || work(&mut String::new()),
    );
    done.sort_unstable_by_key(|(k, _)| *k);
    let kept = done
        .iter()
        .enumerate()
        .take_while(|(i, (k, _))| i == k)
        .count();
    done.truncate(kept);
    if newest_first {
        done.reverse();
    }
    let tested = (kept * CHUNK).min(range.len());
    (
        tested,
        done.into_iter().flat_map(|(_, rows)| rows).collect(),
    )
}

/// Tests the records at positions `range`, adding the positions of those that match to
/// `rows`.
fn test_chunk(
    matcher: &TraceMatcher,
    trace: &VecDeque<TraceRecord>,
    range: Range<usize>,
    scratch: &mut String,
    rows: &mut Vec<usize>,
) {
    let first = range.start;
    for (i, record) in trace.range(range).enumerate() {
        if matcher.matches_with(record, scratch) {
            rows.push(first + i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn record(time: u64, kind: TraceKind, message: &str) -> TraceRecord {
        TraceRecord {
            time: engine_core::runtime::SampleTime::from_samples(time),
            kind,
            event: None,
            track: Some(Arc::from("vox_greet")),
            object: Some(2),
            voice: None,
            note: None,
            // Any sentence holding the text will do.
            what: engine_core::runtime::trace::TraceEvent::UnknownEvent {
                name: Arc::from(message),
            },
        }
    }

    #[test]
    fn the_index_follows_appends_and_drops() {
        let mut trace: VecDeque<TraceRecord> = (0..10u64)
            .map(|i| {
                let kind = if i.is_multiple_of(2) {
                    TraceKind::Voice
                } else {
                    TraceKind::Error
                };
                record(i, kind, "x")
            })
            .collect();
        let mut index = Index::default();
        let mut filter = TraceFilter::default();
        filter.kinds[kind_index(TraceKind::Error)] = false;
        let all = Duration::from_secs(60);
        assert!(index.update(&trace, 0, 0, &filter, all));
        assert_eq!(index.rows, [0, 2, 4, 6, 8]);
        assert_eq!(index.counts[kind_index(TraceKind::Error)], 5);
        // Three dropped, two appended.
        trace.drain(..3);
        trace.push_back(record(10, TraceKind::Voice, "y"));
        trace.push_back(record(11, TraceKind::Error, "y"));
        assert!(index.update(&trace, 3, 0, &filter, all));
        assert_eq!(index.rows, [4, 6, 8, 10]);
        assert_eq!(index.counts[kind_index(TraceKind::Voice)], 4);
        assert_eq!(index.counts[kind_index(TraceKind::Error)], 5);
        // A new filter rebuilds.
        filter.text = "Y".into();
        assert!(index.update(&trace, 3, 0, &filter, all));
        assert_eq!(index.rows, [10]);
    }

    #[test]
    fn a_big_index_is_built_over_several_calls() {
        let mut trace: VecDeque<TraceRecord> = (0..20_000u64)
            .map(|i| {
                record(
                    i,
                    TraceKind::Voice,
                    if i.is_multiple_of(1000) { "hit" } else { "x" },
                )
            })
            .collect();
        let mut index = Index::default();
        let filter = TraceFilter {
            text: "hit".into(),
            ..TraceFilter::default()
        };
        let mut calls = 1;
        while !index.update(&trace, 0, 0, &filter, Duration::ZERO) {
            calls += 1;
            // Records keep arriving meanwhile.
            trace.push_back(record(0, TraceKind::Voice, "hit late"));
        }
        assert!(calls >= 4, "{calls} calls");
        assert_eq!(index.rows.len(), 20 + calls - 1);
        assert!(
            index
                .rows
                .iter()
                .zip(index.rows.iter().skip(1))
                .all(|(a, b)| a < b)
        );
        assert_eq!(index.counts[kind_index(TraceKind::Voice)], trace.len());
        assert!((index.progress() - 1.0).abs() < f32::EPSILON);
    }

    /// A new filter over a long trace is tested on every core, and finds what testing
    /// each record by itself finds, in order; over one call or many.
    #[test]
    fn many_records_are_tested_in_parallel_as_one_by_one() {
        let trace: VecDeque<TraceRecord> = (0..(PARALLEL_FROM as u64 * 5 + 17))
            .map(|i| {
                let kind = if i % 3 == 0 {
                    TraceKind::Error
                } else {
                    TraceKind::Voice
                };
                let text = if i % 7 == 0 { "a Hit" } else { "miss" };
                record(i, kind, text)
            })
            .collect();
        let mut filter = TraceFilter {
            text: "hit".into(),
            ..TraceFilter::default()
        };
        filter.kinds[kind_index(TraceKind::Error)] = false;
        let expected: Vec<u64> = (0..trace.len() as u64)
            .filter(|&i| filter.matches(&trace[i as usize]))
            .collect();
        assert!(expected.len() > 1000);
        let mut index = Index::default();
        assert!(index.update(&trace, 0, 0, &filter, Duration::from_secs(60)));
        assert_eq!(index.rows, expected);
        // A budget spent at once: a few chunks a call, the same rows in the end.
        let mut index = Index::default();
        let mut calls = 1;
        while !index.update(&trace, 0, 0, &filter, Duration::ZERO) {
            calls += 1;
        }
        assert!(calls > 3, "{calls} calls");
        assert_eq!(index.rows, expected);
    }

    /// A new filter is tested from the newest record back: after one short call the
    /// newest matches are found (what a list following the newest shows), the oldest
    /// not yet; records arriving meanwhile are tested as they come.
    #[test]
    fn a_new_filter_finds_the_newest_matches_first() {
        for records in [3_000u64, 40_000] {
            let mut trace: VecDeque<TraceRecord> = (0..records)
                .map(|i| record(i, TraceKind::Voice, if i % 100 == 7 { "hit" } else { "x" }))
                .collect();
            let filter = TraceFilter {
                text: "hit".into(),
                ..TraceFilter::default()
            };
            let mut index = Index::default();
            assert!(!index.update(&trace, 0, 0, &filter, Duration::ZERO));
            let newest = records - 93;
            assert_eq!(index.rows.back(), Some(&newest), "{records} records");
            assert_ne!(index.rows.front(), Some(&7));
            assert!(index.progress() < 1.0);
            trace.push_back(record(records, TraceKind::Voice, "a late hit"));
            while !index.update(&trace, 0, 0, &filter, Duration::ZERO) {}
            let expected: Vec<u64> = (0..=records)
                .filter(|i| i % 100 == 7 || *i == records)
                .collect();
            assert_eq!(index.rows, expected);
        }
    }

    #[test]
    fn text_matching_ignores_case() {
        assert!(contains_ignoring_case("Stole voice 3", "stole"));
        assert!(!contains_ignoring_case("refused", "stole"));
        assert!(contains_ignoring_case("Ünïcode STOLE", "stole"));
        // Windows that start like the needle but are not it, then one that is.
        assert!(contains_ignoring_case("st sto stoLX StOlE", "stole"));
        assert!(!contains_ignoring_case("st sto stol", "stole"));
        assert!(contains_ignoring_case("x", "x"));
        assert!(!contains_ignoring_case("", "x"));
    }

    #[test]
    fn one_scratch_buffer_tests_many_records_as_fresh_ones_would() {
        let mut with_event = record(1, TraceKind::Voice, "nothing here");
        with_event.event = Some(Arc::from("Steal_Event"));
        let records = [
            record(0, TraceKind::Voice, "Stole voice 3"),
            with_event,
            record(2, TraceKind::Voice, "a long message about nothing at all"),
            record(3, TraceKind::Voice, "stole"),
        ];
        let filter = TraceFilter {
            text: "STE".into(),
            ..TraceFilter::default()
        };
        let matcher = filter.matcher();
        let mut scratch = String::new();
        let shared: Vec<bool> = records
            .iter()
            .map(|r| matcher.matches_with(r, &mut scratch))
            .collect();
        let fresh: Vec<bool> = records.iter().map(|r| filter.matches(r)).collect();
        assert_eq!(shared, fresh);
        assert_eq!(shared, [false, true, false, false]);
        let filter = TraceFilter {
            text: "stole".into(),
            ..TraceFilter::default()
        };
        let matcher = filter.matcher();
        let shared: Vec<bool> = records
            .iter()
            .map(|r| matcher.matches_with(r, &mut scratch))
            .collect();
        assert_eq!(shared, [true, false, false, true]);
    }
}
