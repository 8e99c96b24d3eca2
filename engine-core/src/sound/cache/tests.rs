//! Tests of the cache as the engine uses it: budget, LRU, priorities, misses, ticks,
//! preloads, sources, escapes, loaders, background loads and threads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::sources::tests::{TempDir, write_zip};
use super::*;
use crate::sound::audio::MemoryBudget;

/// A directory holding `files`, each `size` bytes of a byte derived from its name.
fn fixture(tag: &str, files: &[(&str, usize)]) -> TempDir {
    let dir = TempDir::new(tag);
    for (name, size) in files {
        dir.file(name, &content(name, *size));
    }
    dir
}

fn content(name: &str, size: usize) -> Vec<u8> {
    let seed = name
        .bytes()
        .fold(0u8, |a, b| a.wrapping_mul(31).wrapping_add(b));
    vec![seed; size]
}

fn cache(dir: &TempDir, budget: usize) -> ResourceCache {
    let cache = ResourceCache::with_budget(budget);
    cache.add_directory(&dir.0).unwrap();
    cache
}

fn cached(cache: &ResourceCache, names: &[&str]) -> Vec<bool> {
    names.iter().map(|n| cache.is_cached(n)).collect()
}

/// Polls `try_get` until it is no longer `Loading` (or 10 s pass).
fn settle(cache: &ResourceCache, name: &str) -> Lookup {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match cache.try_get(name) {
            Lookup::Loading if Instant::now() < deadline => thread::sleep(Duration::from_millis(1)),
            other => return other,
        }
    }
}

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
    fn load(&self, _name: &str, _raw: Vec<u8>) -> Result<ResourceData, String> {
        Err("only loads within a budget".to_owned())
    }
    fn load_within(
        &self,
        _name: &str,
        _raw: Vec<u8>,
        budget: &mut dyn MemoryBudget,
    ) -> Result<ResourceData, LoadError> {
        budget.reserve(self.reserve).map_err(LoadError::Failed)?;
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

    cache.begin_tick();
    for name in ["a", "b", "a", "b"] {
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

type Reports = Arc<Mutex<Vec<PreloadProgress>>>;

fn recorder() -> (Reports, Box<dyn FnMut(PreloadProgress) + Send>) {
    let reports: Reports = Arc::default();
    let sink = Arc::clone(&reports);
    let callback = Box::new(move |p: PreloadProgress| {
        sink.lock().unwrap().push(p);
    });
    (reports, callback)
}

#[test]
fn preload_reports_every_step_in_source_order() {
    let dir = fixture(
        "preload",
        &[
            ("w/c.wav", 5),
            ("w/a.wav", 5),
            ("w/b.wav", 5),
            ("readme.txt", 5),
            ("w/d.wav", 5),
        ],
    );
    let cache = cache(&dir, 1000);
    let (reports, callback) = recorder();
    let job = cache.preload("*.WAV", callback, Arc::new(AtomicBool::new(false)));
    let summary = job.wait().unwrap();
    assert_eq!((summary.total, summary.loaded, summary.failed), (4, 4, 0));
    assert!(!summary.cancelled);
    let reports = reports.lock().unwrap();
    let steps: Vec<(usize, usize, &str)> = reports
        .iter()
        .map(|p| (p.done, p.total, p.current.as_str()))
        .collect();
    assert_eq!(
        steps,
        [
            (1, 4, "w/a.wav"),
            (2, 4, "w/b.wav"),
            (3, 4, "w/c.wav"),
            (4, 4, "w/d.wav")
        ]
    );
    assert!(reports.iter().all(|p| !p.cancelled && p.errors == 0));
    assert!(cache.is_cached("w/d.wav") && !cache.is_cached("readme.txt"));
    // Preloading is prediction, not use: no misses, no hits.
    let stats = cache.stats();
    assert_eq!((stats.loads, stats.misses(), stats.hits), (4, 0, 0));
}

#[test]
fn preload_stops_when_cancelled() {
    let dir = fixture(
        "cancel",
        &[("a.wav", 5), ("b.wav", 5), ("c.wav", 5), ("d.wav", 5)],
    );
    let cache = cache(&dir, 1000);
    let cancel = Arc::new(AtomicBool::new(false));
    let reports: Reports = Arc::default();
    let sink = Arc::clone(&reports);
    let flag = Arc::clone(&cancel);
    let job = cache.preload(
        "*",
        Box::new(move |p: PreloadProgress| {
            if p.done == 2 {
                flag.store(true, Ordering::Release);
            }
            sink.lock().unwrap().push(p);
        }),
        cancel,
    );
    let summary = job.wait().unwrap();
    assert!(summary.cancelled);
    assert_eq!((summary.total, summary.loaded), (4, 2));
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 3);
    let last = reports.last().unwrap();
    assert!(last.cancelled);
    assert_eq!((last.done, last.current.as_str()), (2, "c.wav"));
    assert_eq!(
        cached(&cache, &["a.wav", "b.wav", "c.wav"]),
        [true, true, false]
    );
}

#[test]
fn preload_reports_failures() {
    let dir = fixture("preload-fail", &[("ok.wav", 5), ("bad.wav", 5)]);
    let cache = cache(&dir, 1000);
    cache.register_loader(Arc::new(Refuse("bad*")));
    let (reports, callback) = recorder();
    let summary = cache
        .preload("*", callback, Arc::new(AtomicBool::new(false)))
        .wait()
        .unwrap();
    assert_eq!((summary.loaded, summary.failed), (1, 1));
    assert_eq!(
        summary.errors.first().map(|e| e.0.as_str()),
        Some("bad.wav")
    );
    let reports = reports.lock().unwrap();
    let first = reports.first().unwrap();
    assert_eq!((first.current.as_str(), first.errors), ("bad.wav", 1));
    assert!(matches!(first.error, Some(CacheError::Load { .. })));
}

#[test]
fn directory_and_zip_sources_last_added_wins() {
    let dir = fixture(
        "sources-dir",
        &[("sfx/boom.wav", 3), ("sfx/dir-only.wav", 3)],
    );
    let packs = TempDir::new("sources-zip");
    let pack = packs.0.join("level1.zip");
    write_zip(
        &pack,
        &[("SFX/Boom.wav", b"zip-boom"), ("music/theme.ogg", b"theme")],
        true,
    );
    let cache = ResourceCache::with_budget(1000);
    cache.add_directory(&dir.0).unwrap();
    assert_eq!(
        cache.get("sfx/boom.wav").unwrap().bytes().unwrap(),
        content("sfx/boom.wav", 3)
    );
    let info = cache.add_zip(&pack).unwrap();
    assert_eq!((info.kind, info.resources), (SourceKind::Zip, 2));
    // The pack was added last: it wins, and the cached copy from the directory is gone.
    let boom = cache.get("sfx/boom.wav").unwrap();
    assert_eq!(boom.bytes().unwrap(), b"zip-boom");
    assert_eq!(boom.source, pack);
    assert_eq!(cache.get("sfx/dir-only.wav").unwrap().size, 3);
    assert_eq!(
        cache.get("Music/Theme.OGG").unwrap().bytes().unwrap(),
        b"theme"
    );
    assert_eq!(
        cache.names("*"),
        ["sfx/boom.wav", "sfx/dir-only.wav", "music/theme.ogg"]
    );
    assert_eq!(cache.names("sfx/*"), ["sfx/boom.wav", "sfx/dir-only.wav"]);
    assert_eq!(cache.sources().len(), 2);
    // New data for a name is a compulsory miss again.
    assert_eq!(cache.stats().compulsory_misses, 4);
}

#[test]
fn bad_sources_are_clean_errors_naming_the_path() {
    let cache = ResourceCache::with_budget(1000);
    let dir = TempDir::new("bad-sources");
    let error = cache.add_directory(dir.0.join("missing")).unwrap_err();
    assert!(error.to_string().contains("missing"), "{error}");
    let junk = dir.file("junk.zip", b"PK\x03\x04 not really");
    let error = cache.add_zip(&junk).unwrap_err();
    assert!(matches!(error, CacheError::Zip { .. }));
    assert!(error.to_string().contains("junk.zip"), "{error}");
    assert!(cache.sources().is_empty());
}

#[test]
fn escape_attempts_are_refused() {
    let dir = fixture("escape", &[("ok.wav", 3)]);
    let packs = TempDir::new("escape-zip");
    let pack = packs.0.join("evil.zip");
    write_zip(
        &pack,
        &[("../evil.wav", b"evil"), ("fine.wav", b"fine")],
        false,
    );
    let cache = cache(&dir, 1000);
    cache.add_zip(&pack).unwrap();
    for name in ["../x", "/etc/passwd", r"C:\x", "sfx/../../x", "../evil.wav"] {
        match cache.get(name) {
            Err(CacheError::Escape { .. }) => {}
            other => panic!("{name:?} gave {other:?}"),
        }
        assert!(matches!(
            cache.try_get(name),
            Lookup::Failed(CacheError::Escape { .. })
        ));
        assert!(matches!(
            cache.request(name),
            Err(CacheError::Escape { .. })
        ));
    }
    // The zip entry is never served, under any name.
    assert!(matches!(
        cache.get("evil.wav"),
        Err(CacheError::NotFound { .. })
    ));
    assert_eq!(cache.names("*evil*"), Vec::<String>::new());
    assert_eq!(cache.get("fine.wav").unwrap().bytes().unwrap(), b"fine");
    // Refused names leave no trace in the statistics.
    assert_eq!(cache.resource_stats().len(), 2);
}

#[cfg(unix)]
#[test]
fn symlink_to_a_file_outside_the_directory_is_refused() {
    let outside = TempDir::new("escape-outside");
    let secret = outside.file("passwd", b"root:x:0:0");
    let dir = fixture("escape-link", &[("ok.wav", 3)]);
    std::os::unix::fs::symlink(&secret, dir.0.join("leak.wav")).unwrap();
    let cache = cache(&dir, 1000);
    let error = cache.get("leak.wav").unwrap_err();
    assert!(matches!(error, CacheError::Escape { .. }), "{error}");
    assert!(error.to_string().contains("leak.wav"), "{error}");
    assert!(!cache.names("*").contains(&"leak.wav".to_owned()));
}

#[test]
fn names_are_case_insensitive_and_take_backslashes() {
    let dir = fixture("case", &[("Sfx/Boom.WAV", 4)]);
    let cache = cache(&dir, 1000);
    let first = cache.get(r"SFX\boom.wav").unwrap();
    assert_eq!(first.name, "sfx/boom.wav");
    let second = cache.get("./sfx/BOOM.wav").unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    let third = cache.get("sfx/boom.wav").unwrap();
    assert!(Arc::ptr_eq(&first, &third));
    let stats = cache.stats();
    assert_eq!((stats.loads, stats.hits), (1, 2));
    assert_eq!(cache.names("SFX/*.wav"), ["sfx/boom.wav"]);
}

/// Loader that decodes 8-bit unsigned PCM into samples.
struct Pcm8;

impl ResourceLoader for Pcm8 {
    fn pattern(&self) -> &str {
        "*.wav"
    }
    fn load(&self, _name: &str, raw: Vec<u8>) -> Result<ResourceData, String> {
        Ok(ResourceData::Sample(SampleBuffer {
            sample_rate: 11_025,
            channels: 1,
            data: raw
                .iter()
                .map(|&b| (f32::from(b) - 128.0) / 128.0)
                .collect(),
        }))
    }
}

/// Loader that upper-cases text.
struct Upper(&'static str);

impl ResourceLoader for Upper {
    fn pattern(&self) -> &str {
        self.0
    }
    fn load(&self, _name: &str, raw: Vec<u8>) -> Result<ResourceData, String> {
        Ok(ResourceData::Raw(raw.to_ascii_uppercase()))
    }
}

/// Loader that refuses everything it is given.
struct Refuse(&'static str);

impl ResourceLoader for Refuse {
    fn pattern(&self) -> &str {
        self.0
    }
    fn load(&self, _name: &str, _raw: Vec<u8>) -> Result<ResourceData, String> {
        Err("bad header".to_owned())
    }
}

#[test]
fn loader_is_chosen_by_pattern_specificity() {
    let dir = TempDir::new("loaders");
    dir.file("sfx/boom.wav", &[128, 255, 0]);
    dir.file("voice/hello.wav", b"hello");
    dir.file("notes.txt", b"notes");
    let cache = cache(&dir, 1000);
    cache.register_loader(Arc::new(Pcm8));
    cache.register_loader(Arc::new(Upper("voice/*.wav"))); // 10 literals beat "*.wav"'s 4
    let boom = cache.get("sfx/boom.wav").unwrap();
    let samples = boom.samples().unwrap();
    assert_eq!(samples.data.len(), 3);
    assert_eq!(boom.size, 12);
    assert_eq!(
        cache.get("voice/hello.wav").unwrap().bytes().unwrap(),
        b"HELLO"
    );
    // No loader matches: the default keeps the bytes.
    assert_eq!(cache.get("notes.txt").unwrap().bytes().unwrap(), b"notes");
}

/// Loader that waits for a go-ahead before loading, and notes the thread it ran on.
struct Gated {
    go: Mutex<mpsc::Receiver<()>>,
    thread: Mutex<Option<String>>,
}

impl ResourceLoader for Gated {
    fn pattern(&self) -> &str {
        "gated/*"
    }
    fn load(&self, _name: &str, raw: Vec<u8>) -> Result<ResourceData, String> {
        *self.thread.lock().unwrap() = thread::current().name().map(str::to_owned);
        self.go
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10))
            .map_err(|e| e.to_string())?;
        Ok(ResourceData::Raw(raw))
    }
}

#[test]
fn try_get_is_loading_then_ready() {
    let dir = fixture("try-get", &[("gated/a.wav", 7)]);
    let cache = cache(&dir, 1000);
    let (go, gate) = mpsc::channel();
    let gated = Arc::new(Gated {
        go: Mutex::new(gate),
        thread: Mutex::new(None),
    });
    cache.register_loader(Arc::clone(&gated) as Arc<dyn ResourceLoader>);
    assert!(matches!(cache.try_get("gated/a.wav"), Lookup::Loading));
    assert!(matches!(cache.try_get("Gated/A.wav"), Lookup::Loading));
    assert_eq!(cache.stats().loading, 1);
    go.send(()).unwrap();
    match settle(&cache, "gated/a.wav") {
        Lookup::Ready(handle) => assert_eq!(handle.size, 7),
        other => panic!("expected Ready, got {other:?}"),
    }
    assert_eq!(
        gated.thread.lock().unwrap().as_deref(),
        Some(worker::THREAD_NAME)
    );
    let stats = cache.stats();
    // One miss (when it was queued), one load, then a hit.
    assert_eq!(
        (stats.compulsory_misses, stats.loads, stats.hits),
        (1, 1, 1)
    );
}

#[test]
fn try_get_remembers_a_broken_file() {
    let dir = fixture("broken", &[("broken/x.wav", 4)]);
    let cache = cache(&dir, 1000);
    cache.register_loader(Arc::new(Refuse("broken/*")));
    assert!(matches!(cache.try_get("broken/x.wav"), Lookup::Loading));
    let error = match settle(&cache, "broken/x.wav") {
        Lookup::Failed(error) => error,
        other => panic!("expected Failed, got {other:?}"),
    };
    assert!(error.to_string().contains("broken/x.wav"), "{error}");
    assert!(error.to_string().contains("bad header"), "{error}");
    // Asked again every tick, it is not read again.
    for _ in 0..5 {
        assert!(matches!(cache.try_get("broken/x.wav"), Lookup::Failed(_)));
    }
    assert!(matches!(
        cache.get("broken/x.wav"),
        Err(CacheError::Load { .. })
    ));
    assert_eq!(cache.stats().failures, 1);
    assert!(cache.forget_failure("broken/x.wav"));
    assert!(!cache.forget_failure("broken/x.wav"));
    assert!(matches!(cache.try_get("broken/x.wav"), Lookup::Loading));
    assert!(matches!(settle(&cache, "broken/x.wav"), Lookup::Failed(_)));
    assert_eq!(cache.stats().failures, 2);
    // A missing file is remembered too, with its own message.
    let missing = cache.get("nope.wav").unwrap_err();
    assert!(matches!(missing, CacheError::NotFound { .. }), "{missing}");
}

#[test]
fn request_loads_in_the_background() {
    let dir = fixture("request", &[("a.wav", 5)]);
    let cache = cache(&dir, 1000);
    cache.request("a.wav").unwrap();
    assert!(matches!(settle(&cache, "a.wav"), Lookup::Ready(_)));
    let stats = cache.stats();
    // A request is a prediction: the later use is a hit, not a miss.
    assert_eq!((stats.loads, stats.misses(), stats.hits), (1, 0, 1));
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
fn reload_reads_fresh_data_and_keeps_old_handles_valid() {
    let dir = fixture("reload", &[("a.txt", 3)]);
    let cache = cache(&dir, 1000);
    let old = cache.get("a.txt").unwrap();
    dir.file("a.txt", b"new data");
    let new = cache.reload("a.txt").unwrap();
    assert_eq!(new.bytes().unwrap(), b"new data");
    assert_eq!(old.bytes().unwrap(), content("a.txt", 3));
    let stats = cache.stats();
    assert_eq!(
        (stats.pinned_bytes, stats.bytes_held, stats.loads),
        (3, 8, 2)
    );
    assert!(Arc::ptr_eq(&cache.get("a.txt").unwrap(), &new));
    // Evicted, the new data is read again; the old copy someone holds is never revived.
    drop(new);
    assert!(cache.evict("a.txt"));
    assert_eq!(cache.get("a.txt").unwrap().bytes().unwrap(), b"new data");
    assert_eq!(cache.stats().pinned_bytes, 3);
}

#[test]
fn threads_share_the_cache_while_a_preload_runs() {
    let names: Vec<String> = (0..24).map(|i| format!("sfx/s{i:02}.wav")).collect();
    let files: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 64)).collect();
    let dir = fixture("threads", &files);
    for (budget, exact) in [(1 << 20, true), (64 * 5, false)] {
        let cache = Arc::new(cache(&dir, budget));
        let job = cache.preload("*", Box::new(|_| {}), Arc::new(AtomicBool::new(false)));
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let cache = Arc::clone(&cache);
                let names = names.clone();
                thread::spawn(move || {
                    for round in 0..20 {
                        for i in 0..names.len() {
                            let name = &names[(i * (t + 1) + round) % names.len()];
                            let handle = cache.get(name).unwrap();
                            assert_eq!(handle.bytes().unwrap(), content(name, 64));
                            let _ = cache.try_get(name);
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        let summary = job.wait().unwrap();
        assert_eq!(summary.loaded, names.len());
        let stats = cache.stats();
        assert!(stats.bytes_held <= budget, "{stats:?}");
        if exact {
            // Nobody loaded a name twice: threads wait for each other's loads.
            assert_eq!(stats.loads, names.len() as u64);
        }
    }
}

#[test]
fn dropping_the_cache_stops_the_loader_thread() {
    let dir = fixture("drop", &[("a", 1), ("b", 1), ("c", 1), ("d", 1)]);
    let cache = cache(&dir, 1000);
    let job = cache.preload(
        "*",
        Box::new(|_| thread::sleep(Duration::from_millis(20))),
        Arc::new(AtomicBool::new(false)),
    );
    cache.request("a").unwrap();
    drop(cache);
    // Either it finished (possibly cancelled by the shutdown) or it says why not.
    match job.wait() {
        Ok(summary) => assert!(summary.cancelled || summary.loaded == 4),
        Err(error) => assert!(matches!(error, CacheError::LoaderStopped { .. })),
    }
}

#[test]
fn last_owner_dropping_on_the_loader_thread_does_not_hang() {
    let dir = fixture("self-drop", &[("a", 1)]);
    let cache = Arc::new(cache(&dir, 1000));
    let owned = Mutex::new(Some(Arc::clone(&cache)));
    let job = cache.preload(
        "*",
        Box::new(move |_| {
            // Drops what may be the last Arc, on the loader thread.
            owned.lock().unwrap().take();
        }),
        Arc::new(AtomicBool::new(false)),
    );
    drop(cache);
    let _ = job.wait();
}

#[test]
fn arbitrary_names_never_panic_and_never_escape() {
    let dir = fixture("proptest", &[("ok.wav", 2), ("sfx/boom.wav", 3)]);
    let outside = TempDir::new("proptest-outside");
    outside.file("secret.wav", b"secret");
    let cache = cache(&dir, 1000);
    let known = ["ok.wav", "sfx/boom.wav"];
    let names = prop_oneof![
        any::<String>(),
        "[a-zA-Z./\\\\:]{0,16}",
        "(\\.\\./|\\.\\.\\\\|/|[A-Z]:|sfx/|ok|\\.wav|secret|boom){0,6}",
    ];
    let mut runner = TestRunner::new(Config {
        cases: 512,
        ..Config::default()
    });
    runner
        .run(&names, |name| {
            match cache.get(&name) {
                Ok(handle) => {
                    prop_assert!(known.contains(&handle.name.as_str()));
                    prop_assert!(handle.bytes() != Some(b"secret".as_slice()));
                }
                Err(
                    CacheError::Escape { .. }
                    | CacheError::InvalidName { .. }
                    | CacheError::NotFound { .. },
                ) => {}
                Err(other) => prop_assert!(false, "{name:?} gave {other}"),
            }
            let _ = cache.try_get(&name);
            let _ = cache.names(&name);
            Ok(())
        })
        .unwrap();
}
