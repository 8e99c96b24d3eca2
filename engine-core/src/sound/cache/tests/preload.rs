//! Preloads: progress in source order, cancelling, failures.

use super::loaders::Refuse;
use super::*;

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
