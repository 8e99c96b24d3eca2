//! The budget: what is held, pinned and reserved; LRU and priorities; misses by kind;
//! ticks and thrashing; lowering the budget; reviving evicted resources.

use super::*;

#[test]
fn budget_is_held_and_pinned_bytes_are_reported() {
    let names: Vec<String> = (0..10).map(|i| format!("s{i}.wav")).collect();
    let files: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 30)).collect();
    let dir = fixture("budget", &files);
    let cache = cache(&dir, 100);
    let held = cache.get("s0.wav").unwrap();
    for name in &names {
        cache.get(name).unwrap();
        let stats = cache.stats();
        assert!(stats.bytes_held + stats.pinned_bytes <= 100, "{stats:?}");
    }
    // Evicting s0 for room would have freed nothing (it is held): it stayed.
    assert!(cache.is_cached("s0.wav"));
    assert_eq!(cache.stats().bytes_held, 90);
    // Thrown out on a hint while held, its bytes are pinned: still counted.
    assert!(cache.evict("s0.wav"));
    let stats = cache.stats();
    assert_eq!(
        (stats.pinned_bytes, stats.pinned, stats.bytes_held),
        (30, 1, 60)
    );
    let s0 = cache
        .resource_stats()
        .into_iter()
        .find(|r| r.name == "s0.wav")
        .unwrap();
    assert_eq!(s0.residency, Residency::Pinned);
    cache.get("s1.wav").unwrap();
    let stats = cache.stats();
    assert!(stats.bytes_held + stats.pinned_bytes <= 100, "{stats:?}");
    // The handle still reads the bytes; letting go frees them.
    assert_eq!(held.bytes().unwrap(), content("s0.wav", 30).as_slice());
    drop(held);
    let stats = cache.stats();
    assert_eq!((stats.pinned_bytes, stats.pinned), (0, 0));
}

#[test]
fn memory_in_use_never_exceeds_the_budget() {
    let names: Vec<String> = (0..6).map(|i| format!("s{i}.wav")).collect();
    let files: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 30)).collect();
    let dir = fixture("in-use", &files);
    let cache = cache(&dir, 100);
    // Every handle kept, as by voices still playing.
    let mut held = Vec::new();
    let mut refused = Vec::new();
    for name in &names {
        match cache.get(name) {
            Ok(handle) => held.push(handle),
            Err(e) => refused.push(e),
        }
        let stats = cache.stats();
        assert!(stats.bytes_held + stats.pinned_bytes <= 100, "{stats:?}");
    }
    assert_eq!((held.len(), refused.len()), (3, 3));
    assert!(
        matches!(&refused[0], CacheError::OverBudget { name, .. } if name == "s3.wav"),
        "{:?}",
        refused[0]
    );
    assert_eq!(
        refused[0].to_string(),
        "resource 's3.wav' was not loaded: it needs 30 bytes more of memory and the cache's \
         budget of 100 bytes is taken by sounds in use: 90 bytes cached (90 bytes of it playing \
         or otherwise held), 0 bytes evicted but still held, 0 bytes being loaded"
    );
    // Remembered for the rest of the tick, tried again in the next.
    assert!(matches!(
        cache.try_get("s3.wav"),
        Lookup::Failed(CacheError::OverBudget { .. })
    ));
    held.clear();
    cache.begin_tick();
    assert_eq!(cache.get("s3.wav").unwrap().size, 30);
    let stats = cache.stats();
    assert_eq!((stats.bytes_held, stats.evictions), (90, 1));
}

#[test]
fn a_resource_larger_than_the_whole_budget_is_refused() {
    let dir = fixture("too-big", &[("a", 20), ("huge", 100)]);
    let cache = cache(&dir, 50);
    cache.get("a").unwrap();
    let e = cache.get("huge").unwrap_err();
    assert_eq!(
        e.to_string(),
        "resource 'huge' was not loaded: it needs 100 bytes of memory, more than the cache's \
         whole budget of 50 bytes"
    );
    // Nothing was thrown out for it.
    assert!(cache.is_cached("a"));
}

/// Loader that reserves `reserve` bytes, then fails or returns `keep` bytes.
struct Reserving {
    reserve: usize,
    keep: Option<usize>,
}

impl ResourceLoader for Reserving {
    fn pattern(&self) -> &str {
        "reserving/*"
    }
    fn load(&self, _name: &str, _raw: Vec<u8>) -> Result<ResourceData, LoadError> {
        Err(LoadError::Failed("only loads within a budget".to_owned()))
    }
    fn load_within(
        &self,
        _name: &str,
        _raw: Vec<u8>,
        budget: &mut dyn MemoryBudget,
    ) -> Result<ResourceData, LoadError> {
        budget.reserve(self.reserve)?;
        match self.keep {
            Some(n) => Ok(ResourceData::Raw(vec![0; n])),
            None => Err(LoadError::Failed("damaged".to_owned())),
        }
    }
}

#[test]
fn a_load_gives_back_what_it_reserved_and_did_not_keep() {
    let dir = fixture(
        "reserving",
        &[("reserving/fails", 1), ("reserving/keeps", 1), ("b", 50)],
    );
    let cache = cache(&dir, 100);
    cache.register_loader(Arc::new(Reserving {
        reserve: 90,
        keep: None,
    }));
    assert!(matches!(
        cache.get("reserving/fails"),
        Err(CacheError::Load { .. })
    ));
    // Nothing of the failed load's 90 bytes is still reserved.
    cache.get("b").unwrap();
    cache.register_loader(Arc::new(Reserving {
        reserve: 50,
        keep: Some(10),
    }));
    assert_eq!(cache.get("reserving/keeps").unwrap().size, 10);
    assert_eq!(cache.stats().bytes_held, 60);
    // Only the 10 bytes kept count, not the 50 reserved: 40 more fit beside them.
    cache.register_loader(Arc::new(Reserving {
        reserve: 40,
        keep: Some(40),
    }));
    cache.forget_failure("reserving/fails");
    assert_eq!(cache.get("reserving/fails").unwrap().size, 40);
    assert_eq!(
        cached(&cache, &["b", "reserving/keeps", "reserving/fails"]),
        [true, true, true],
        "fitted without evicting"
    );
}

#[test]
fn eviction_is_least_recently_used_first() {
    let dir = fixture(
        "lru",
        &[("a", 10), ("b", 10), ("c", 10), ("d", 10), ("e", 10)],
    );
    let cache = cache(&dir, 30);
    for name in ["a", "b", "c", "a"] {
        cache.get(name).unwrap();
    }
    cache.get("d").unwrap();
    assert_eq!(
        cached(&cache, &["a", "b", "c", "d"]),
        [true, false, true, true]
    );
    cache.get("e").unwrap();
    assert_eq!(
        cached(&cache, &["a", "c", "d", "e"]),
        [true, false, true, true]
    );
    let stats = cache.stats();
    assert_eq!((stats.evictions, stats.capacity_evictions), (2, 2));
}

#[test]
fn priority_comes_before_lru() {
    let dir = fixture(
        "priority",
        &[
            ("music/m.ogg", 10),
            ("sfx/a.wav", 10),
            ("sfx/b.wav", 10),
            ("sfx/c.wav", 10),
            ("sfx/d.wav", 10),
        ],
    );
    let cache = cache(&dir, 30);
    cache.set_priority("music/*", 5);
    for name in ["music/m.ogg", "sfx/a.wav", "sfx/b.wav", "sfx/c.wav"] {
        cache.get(name).unwrap();
    }
    // Plain LRU would drop the music; its priority keeps it and the oldest sfx goes.
    assert_eq!(
        cached(
            &cache,
            &["music/m.ogg", "sfx/a.wav", "sfx/b.wav", "sfx/c.wav"]
        ),
        [true, false, true, true]
    );
    // A more specific pattern overrides: d is now more important than the music.
    cache.set_priority("sfx/d.wav", 9);
    cache.get("sfx/d.wav").unwrap();
    assert_eq!(
        cached(
            &cache,
            &["music/m.ogg", "sfx/b.wav", "sfx/c.wav", "sfx/d.wav"]
        ),
        [true, false, true, true]
    );
    let stats = cache.stats();
    // Both evictions kept an older, higher-priority resource: priority hints.
    assert_eq!((stats.conflict_evictions, stats.capacity_evictions), (2, 0));
    cache.get("sfx/a.wav").unwrap();
    assert_eq!(cache.stats().conflict_misses, 1);
    let priorities: HashMap<String, i32> = cache
        .resource_stats()
        .into_iter()
        .map(|r| (r.name, r.priority))
        .collect();
    assert_eq!(priorities.get("music/m.ogg"), Some(&5));
    assert_eq!(priorities.get("sfx/d.wav"), Some(&9));
    assert_eq!(priorities.get("sfx/a.wav"), Some(&0));
}

#[test]
fn each_kind_of_miss_is_counted_exactly() {
    let dir = fixture("misses", &[("a", 10), ("b", 10), ("c", 10)]);
    let cache = cache(&dir, 20);
    cache.get("a").unwrap(); // compulsory 1
    cache.get("b").unwrap(); // compulsory 2
    cache.get("a").unwrap(); // hit 1
    cache.get("c").unwrap(); // compulsory 3, evicts b (LRU): capacity
    cache.get("b").unwrap(); // capacity 1, evicts a (LRU): capacity
    assert!(cache.evict("c")); // hint
    cache.get("c").unwrap(); // conflict 1
    assert_eq!(cache.release("*"), 2); // hint: b and c
    cache.get("b").unwrap(); // conflict 2
    cache.get("a").unwrap(); // capacity 2
    cache.get("a").unwrap(); // hit 2
    let stats = cache.stats();
    assert_eq!(stats.compulsory_misses, 3);
    assert_eq!(stats.capacity_misses, 2);
    assert_eq!(stats.conflict_misses, 2);
    assert_eq!(stats.hits, 2);
    assert_eq!(stats.loads, 7);
    assert_eq!(stats.misses(), 7);
    assert_eq!((stats.capacity_evictions, stats.conflict_evictions), (2, 3));
    let b = cache
        .resource_stats()
        .into_iter()
        .find(|r| r.name == "b")
        .unwrap();
    assert_eq!((b.loads, b.misses, b.evictions), (3, 3, 2));
    assert_eq!(b.last_miss, Some(MissKind::Conflict));
}

#[test]
fn a_tick_thrashes_when_its_working_set_exceeds_the_budget() {
    let dir = fixture("thrash", &[("a", 40), ("b", 40), ("c", 40)]);
    let cache = cache(&dir, 100);
    cache.begin_tick();
    for name in ["a", "b", "c", "a", "b", "c"] {
        cache.get(name).unwrap();
    }
    let tick = cache.end_tick();
    assert!(tick.thrashed);
    assert_eq!(tick.working_set_bytes, 120);
    assert!(cache.stats().last_tick_thrashed);

    // What is resident (the last two) fits: no tick of its own thrashes. (Asking for `a`
    // again here would: it was evicted for room within the window of its last use.)
    cache.begin_tick();
    for name in ["b", "c", "b", "c"] {
        cache.get(name).unwrap();
    }
    let tick = cache.end_tick();
    assert!(!tick.thrashed);
    assert_eq!(tick.working_set_bytes, 80);
    let stats = cache.stats();
    assert_eq!((stats.ticks, stats.thrashing_ticks), (2, 1));
    assert!(!stats.last_tick_thrashed);
    assert_eq!(stats.last_working_set_bytes, 80);

    // Uses outside a tick are no tick's working set.
    cache.get("c").unwrap();
    cache.begin_tick();
    assert_eq!(cache.end_tick().working_set_bytes, 0);
}

#[test]
fn lowering_the_budget_lets_over_budget_resources_go_once_released() {
    let dir = fixture("over", &[("a", 20), ("b", 20), ("big", 40)]);
    let cache = cache(&dir, 100);
    cache.get("a").unwrap();
    cache.get("b").unwrap();
    let big = cache.get("big").unwrap();
    cache.set_budget(30);
    // The big one is over the new budget but held: it stays, flagged.
    assert!(cache.is_cached("big"));
    let stats = cache.stats();
    assert_eq!((stats.bytes_held, stats.over_budget_bytes), (60, 40));
    assert!(
        cache
            .resource_stats()
            .iter()
            .any(|r| r.name == "big" && r.over_budget)
    );
    // Held: it stays through a tick end.
    cache.begin_tick();
    cache.end_tick();
    assert!(cache.is_cached("big"));
    drop(big);
    cache.begin_tick();
    cache.end_tick();
    assert!(!cache.is_cached("big"));
    let stats = cache.stats();
    assert_eq!((stats.bytes_held, stats.over_budget_bytes), (20, 0));
}

#[test]
fn evicted_but_held_resource_is_revived_not_reread() {
    let dir = fixture("revive", &[("a", 10), ("b", 10)]);
    let cache = cache(&dir, 20);
    let a = cache.get("a").unwrap();
    assert!(cache.evict("a"));
    cache.get("b").unwrap();
    assert!(!cache.is_cached("a"));
    let again = cache.get("a").unwrap();
    assert!(Arc::ptr_eq(&a, &again));
    let stats = cache.stats();
    assert_eq!((stats.loads, stats.revivals, stats.hits), (2, 1, 1));
    assert!(stats.bytes_held + stats.pinned_bytes <= 20);
}

#[test]
fn a_resource_evicted_for_room_and_needed_again_soon_is_thrashing() {
    // A budget of two; three resources used in turn, one a tick: no tick's own working
    // set is over the budget, yet each use evicts the one needed two ticks later. This
    // is what a small budget does to a lot that plays (127 capacity evictions at 0.4 MB
    // used to show no warning at all).
    let dir = fixture("thrash-window", &[("a", 40), ("b", 40), ("c", 40)]);
    let cache = cache(&dir, 100);
    for name in ["a", "b", "c", "a", "b", "c"] {
        cache.begin_tick();
        cache.get(name).unwrap();
        let tick = cache.end_tick();
        assert!(tick.working_set_bytes <= 100, "{name}: {tick:?}");
    }
    let stats = cache.stats();
    assert!(stats.capacity_misses >= 3, "{stats:?}");
    assert!(stats.thrashing_ticks >= 3, "{stats:?}");
    assert!(stats.last_tick_thrashed, "{stats:?}");
    assert!(stats.thrashing_now, "{stats:?}");

    // Two resources that fit, used for longer than the window: the warning goes.
    for _ in 0..=THRASH_WINDOW_TICKS {
        cache.begin_tick();
        cache.get("b").unwrap();
        cache.get("c").unwrap();
        cache.end_tick();
    }
    let stats = cache.stats();
    assert!(
        !stats.thrashing_now && !stats.last_tick_thrashed,
        "{stats:?}"
    );

    // A resource evicted for room long after its last use is not thrashing: it was not
    // needed within the window.
    cache.begin_tick();
    cache.get("a").unwrap();
    assert!(!cache.end_tick().thrashed);

    // Uses between ticks (a console command's notes, fetched before the next tick)
    // count the same, to the tick that ends next (the first, before any tick began, has
    // no tick to be counted from).
    let cache = super::cache(&dir, 100);
    for name in ["a", "b", "c", "a", "b", "c"] {
        cache.get(name).unwrap();
        cache.begin_tick();
        cache.end_tick();
    }
    let stats = cache.stats();
    assert!(stats.capacity_misses >= 3, "{stats:?}");
    assert!(
        stats.thrashing_now && stats.thrashing_ticks >= 2,
        "{stats:?}"
    );
}
