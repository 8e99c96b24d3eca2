//! Threads: sharing the cache while a preload runs, and the loader thread stopping
//! when the cache is dropped.

use super::*;

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
