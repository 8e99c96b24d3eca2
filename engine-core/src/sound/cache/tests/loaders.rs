//! Loaders: chosen by pattern, run in the background (`try_get`, `request`), failures
//! remembered.

use super::*;

/// Loader that decodes 8-bit unsigned PCM into samples.
struct Pcm8;

impl ResourceLoader for Pcm8 {
    fn pattern(&self) -> &str {
        "*.wav"
    }
    fn load(&self, _name: &str, raw: Vec<u8>) -> Result<ResourceData, LoadError> {
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
    fn load(&self, _name: &str, raw: Vec<u8>) -> Result<ResourceData, LoadError> {
        Ok(ResourceData::Raw(raw.to_ascii_uppercase()))
    }
}

/// Loader that refuses everything it is given.
pub(super) struct Refuse(pub(super) &'static str);

impl ResourceLoader for Refuse {
    fn pattern(&self) -> &str {
        self.0
    }
    fn load(&self, _name: &str, _raw: Vec<u8>) -> Result<ResourceData, LoadError> {
        Err(LoadError::Failed("bad header".to_owned()))
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
    fn load(&self, _name: &str, raw: Vec<u8>) -> Result<ResourceData, LoadError> {
        *self.thread.lock().unwrap() = thread::current().name().map(str::to_owned);
        self.go
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10))
            .map_err(|e| LoadError::Failed(e.to_string()))?;
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
