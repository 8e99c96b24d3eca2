//! The resource cache: sits on top of resource files (directories and zip packs) and
//! keeps the resources the engine uses in memory, within a byte budget (after "The
//! Resource Cache" in *Game Coding Complete*).
//!
//! Resources are named by their file name ([`normalize_name`]: case-insensitive, `/`
//! separators, escapes refused), read from the most recently added
//! [source](ResourceCache::add_zip) that has them, turned into [`ResourceData`] by the most
//! specific matching [`ResourceLoader`], and handed out as [`Handle`]s (`Arc<Resource>`):
//! the bytes live as long as anyone holds one.
//!
//! - **Threads.** Shared as `Arc<ResourceCache>` by the engine thread and its loader
//!   thread (`hitbench-loader`); the internal lock is held only for bookkeeping, never
//!   during IO, so [`try_get`](ResourceCache::try_get) never waits on the disk, and two
//!   misses on one name load it once. The audio thread never touches the cache.
//! - **Budget.** Cached, pinned (evicted but still held) and reserved bytes together stay
//!   within the budget: a load reserves what it will allocate before allocating it
//!   ([`ResourceLoader::load_within`]); room is made by evicting what nobody holds, lowest
//!   [priority](ResourceCache::set_priority) then least recently used first; else the load
//!   is refused ([`CacheError::OverBudget`]) — so playing sounds never take more than the
//!   budget. A resource over the size any one may have is [`CacheError::TooLarge`] (the
//!   server streams it instead). A lowered budget's oversized residents go first.
//! - **Misses** are compulsory, capacity or conflict ([`MissKind`]).
//! - **Ticks.** The engine calls [`begin_tick`](ResourceCache::begin_tick) and
//!   [`end_tick`](ResourceCache::end_tick) around each tick. A tick *thrashes* when it
//!   uses more than the budget at once, or loads again a resource evicted for room within
//!   [`THRASH_WINDOW_TICKS`] of its last use: what plays needs more than the budget.
//!
//! `docs/audio.md` says it for designers; the limits are in ARCHITECTURE.md.

mod error;
mod loader;
mod name;
mod pattern;
mod sources;
mod state;
mod stats;
mod worker;

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, RwLock};
use std::thread::{self, JoinHandle};

pub use error::CacheError;
pub use loader::{DefaultLoader, LoadError, ResourceData, ResourceLoader};
pub use name::{MAX_NAME_LEN, normalize_name};
pub use pattern::{Pattern, wildcard_match};
pub use sources::{MAX_RESOURCE_BYTES, SourceInfo, SourceKind};
pub use state::THRASH_WINDOW_TICKS;
pub use stats::{CacheStats, MissKind, Residency, ResourceStats, TickSummary};
pub use worker::{PreloadJob, PreloadProgress, PreloadSummary};

use crate::sound::audio::{BudgetError, MemoryBudget, SampleBuffer};
use loader::LoaderTable;
use sources::Source;
use state::State;
use worker::{Job, PreloadRequest};

/// Budget of a cache made with [`ResourceCache::new`]: 64 MiB.
pub const DEFAULT_BUDGET: usize = 64 << 20;

/// A loaded resource. Immutable; shared through [`Handle`]s.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// Normalised name.
    pub name: String,
    /// What the loader made of it.
    pub data: ResourceData,
    /// Bytes of `data` (what the budget counts).
    pub size: usize,
    /// The directory or zip pack it was read from.
    pub source: PathBuf,
}

impl Resource {
    /// A resource holding decoded audio that did not come from a source (tests, sounds
    /// made in code).
    pub fn from_samples(name: &str, buffer: SampleBuffer) -> Self {
        let size = buffer.size_bytes();
        Self {
            name: name.to_string(),
            data: ResourceData::Sample(buffer),
            size,
            source: PathBuf::new(),
        }
    }

    /// The bytes, when the data is raw.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            ResourceData::Raw(bytes) => Some(bytes),
            ResourceData::Sample(_) => None,
        }
    }

    /// The samples, when the data is decoded audio.
    pub fn samples(&self) -> Option<&SampleBuffer> {
        match &self.data {
            ResourceData::Sample(buffer) => Some(buffer),
            ResourceData::Raw(_) => None,
        }
    }
}

/// A handle to a loaded resource: keeps its memory alive while held.
pub type Handle = Arc<Resource>;

/// What [`ResourceCache::try_get`] found.
#[derive(Debug, Clone)]
pub enum Lookup {
    /// In memory.
    Ready(Handle),
    /// Being loaded in the background (queued now if it was not already).
    Loading,
    /// Its load failed; remembered until `forget_failure`, `reload` or a new source.
    Failed(CacheError),
}

/// Who is asking for a resource; decides what is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `get`: a use; a miss when it has to load.
    Get,
    /// A background load queued by `try_get` (which counted the miss) or `request`.
    Background,
    /// A preload: not a use, but makes the resource most recent.
    Preload,
    /// `reload`: a use; loads fresh data, not a miss.
    Reload,
}

/// What both the cache and its loader thread share.
pub(crate) struct Core {
    state: Mutex<State>,
    /// Signalled whenever an in-flight load finishes.
    loaded: Condvar,
    /// Copy-on-write list, oldest first: a load clones the `Arc` and reads without
    /// holding any lock.
    sources: Mutex<Arc<Vec<Arc<Source>>>>,
    loaders: RwLock<LoaderTable>,
    shutdown: AtomicBool,
}

impl Core {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves consistent-enough counters;
        // carrying on beats taking the engine down.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn sources(&self) -> Arc<Vec<Arc<Source>>> {
        Arc::clone(&self.sources.lock().unwrap_or_else(PoisonError::into_inner))
    }

    pub(crate) fn shutting_down(&self) -> bool {
        self.shutdown.load(Ordering::Acquire)
    }

    /// Every name matching `pattern` in source order (sources oldest first, each in its
    /// own order), each once.
    pub(crate) fn names(&self, pattern: &str) -> Vec<String> {
        let pattern = Pattern::new(pattern);
        let sources = self.sources();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for source in sources.iter() {
            for name in source.names() {
                if pattern.matches(name) && seen.insert(name.as_str()) {
                    out.push(name.clone());
                }
            }
        }
        out
    }

    /// Clears the queued mark of a background load that will not run.
    pub(crate) fn unqueue(&self, key: &str) {
        if let Some(record) = self.lock().record_mut(key) {
            record.queued = false;
        }
    }

    /// Runs a queued background load, unless it is no longer needed.
    pub(crate) fn background_load(&self, key: &str) {
        // Errors are remembered in the record, where `try_get` finds them.
        let _ = self.obtain(key, Origin::Background);
    }

    /// The slow path of every lookup: returns the resource, reviving, waiting for
    /// another thread's load, or loading it here (without the lock) as needed.
    pub(crate) fn obtain(&self, key: &str, origin: Origin) -> Result<Handle, CacheError> {
        let mut state = self.lock();
        loop {
            let record = state.record(key);
            if origin == Origin::Background {
                // Queued becomes in flight (or done) in one critical section, so
                // `try_get` never sees it as neither and queues it twice.
                record.queued = false;
            }
            if let Some(handle) = record.held.clone() {
                match origin {
                    Origin::Get => state.mark_use(key, true),
                    Origin::Reload => state.mark_use(key, false),
                    Origin::Preload => state.refresh(key),
                    Origin::Background => {}
                }
                return Ok(handle);
            }
            if let Some(error) = &record.failure {
                return Err(error.clone());
            }
            if record.in_flight {
                state = self
                    .loaded
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            if origin != Origin::Reload
                && let Some(handle) = state.pinned_alive(key)
            {
                state.revive(key, Arc::clone(&handle));
                match origin {
                    Origin::Get => state.mark_use(key, true),
                    _ => state.refresh(key),
                }
                return Ok(handle);
            }
            break;
        }
        if origin == Origin::Get {
            state.count_miss(key);
        }
        state.record(key).in_flight = true;
        drop(state);

        let mut reservation = Reservation {
            core: self,
            key,
            bytes: 0,
            refused: None,
        };
        let outcome = self.read_and_load(key, &mut reservation);

        let mut state = self.lock();
        // The reservation becomes held bytes (or is given back) under the same lock as the
        // install, so no other load can take the memory in between.
        state.unreserve(reservation.take());
        state.record(key).in_flight = false;
        self.loaded.notify_all();
        match outcome {
            Ok(resource) => {
                let handle = Arc::new(resource);
                state.install(key, Arc::clone(&handle));
                if matches!(origin, Origin::Get | Origin::Reload) {
                    state.mark_use(key, false);
                }
                Ok(handle)
            }
            Err(error) => {
                state.fail(key, error.clone());
                Err(error)
            }
        }
    }

    /// Reads `key` from the newest source that has it and runs its loader within
    /// `reservation`, which holds the bytes of the data it returns. No lock held.
    fn read_and_load(
        &self,
        key: &str,
        reservation: &mut Reservation<'_>,
    ) -> Result<Resource, CacheError> {
        let sources = self.sources();
        for source in sources.iter().rev() {
            let Some(read) = source.read(key) else {
                continue;
            };
            let raw = read?;
            let (loader, pattern) = self
                .loaders
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .choose(key);
            let loaded = catch_unwind(AssertUnwindSafe(|| {
                loader.load_within(key, raw, reservation)
            }));
            let data = match loaded {
                Ok(Ok(data)) => data,
                Ok(Err(error)) => {
                    return Err(load_error(key, &pattern, Some(error), reservation));
                }
                Err(_) => return Err(load_error(key, &pattern, None, reservation)),
            };
            let size = data.size_bytes();
            // A loader may have reserved a little more than it kept (or, against the
            // rules, less): the reservation is made to match what is really held.
            reservation
                .settle(size)
                .map_err(|detail| CacheError::OverBudget {
                    name: key.to_owned(),
                    detail,
                })?;
            return Ok(Resource {
                name: key.to_owned(),
                data,
                size,
                source: source.path().to_owned(),
            });
        }
        Err(CacheError::NotFound {
            name: key.to_owned(),
        })
    }
}

/// The error for a load of `key` that failed (`None`: its loader, chosen by `pattern`,
/// panicked): over budget if the budget refused it anything, whatever the loader then
/// said; too large if the loader says so; else what the loader said.
fn load_error(
    key: &str,
    pattern: &str,
    failure: Option<LoadError>,
    reservation: &mut Reservation<'_>,
) -> CacheError {
    let name = key.to_owned();
    if let Some(detail) = reservation.refused.take() {
        return CacheError::OverBudget { name, detail };
    }
    match failure {
        Some(error) if error.too_large() => CacheError::TooLarge {
            name,
            message: error.to_string(),
        },
        Some(error) => CacheError::Load {
            name,
            loader: pattern.to_owned(),
            message: error.to_string(),
        },
        None => CacheError::Load {
            name,
            loader: pattern.to_owned(),
            message: "the loader panicked".to_owned(),
        },
    }
}

/// The memory a load has reserved against the budget: the loader's [`MemoryBudget`].
/// Whatever is still reserved when it is dropped (a failed load) is given back.
struct Reservation<'c> {
    core: &'c Core,
    key: &'c str,
    bytes: usize,
    /// Why the budget refused a request, if it did.
    refused: Option<BudgetError>,
}

impl Reservation<'_> {
    /// Makes the reservation exactly `size` bytes.
    fn settle(&mut self, size: usize) -> Result<(), BudgetError> {
        if size > self.bytes {
            self.reserve(size - self.bytes)
        } else {
            self.release(self.bytes - size);
            Ok(())
        }
    }

    /// Hands the reserved bytes over (to be unreserved by the caller, under its lock).
    fn take(&mut self) -> usize {
        std::mem::take(&mut self.bytes)
    }
}

impl MemoryBudget for Reservation<'_> {
    fn reserve(&mut self, bytes: usize) -> Result<(), BudgetError> {
        match self.core.lock().reserve(self.key, bytes) {
            Ok(()) => {
                self.bytes += bytes;
                Ok(())
            }
            Err(why) => {
                self.refused = Some(why.clone());
                Err(why)
            }
        }
    }

    fn release(&mut self, bytes: usize) {
        let bytes = bytes.min(self.bytes);
        if bytes > 0 {
            self.bytes -= bytes;
            self.core.lock().unreserve(bytes);
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        let bytes = self.take();
        if bytes > 0 {
            self.core.lock().unreserve(bytes);
        }
    }
}

/// The resource cache; see the module docs. Share it as `Arc<ResourceCache>`.
pub struct ResourceCache {
    core: Arc<Core>,
    jobs: Sender<Job>,
    worker: Option<JoinHandle<()>>,
}

// The cache is shared between the engine and loader threads.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<ResourceCache>();
    shared::<Handle>();
};

impl Default for ResourceCache {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ResourceCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceCache")
            .field("budget", &self.budget())
            .field("sources", &self.sources().len())
            .finish_non_exhaustive()
    }
}

impl ResourceCache {
    /// A cache with the [`DEFAULT_BUDGET`].
    pub fn new() -> Self {
        Self::with_budget(DEFAULT_BUDGET)
    }

    /// A cache with a budget of `bytes`, and its loader thread started.
    ///
    /// Should the thread fail to start, the cache still works synchronously; background
    /// loads and preloads then report [`CacheError::LoaderStopped`].
    pub fn with_budget(bytes: usize) -> Self {
        let core = Arc::new(Core {
            state: Mutex::new(State::new(bytes)),
            loaded: Condvar::new(),
            sources: Mutex::new(Arc::new(Vec::new())),
            loaders: RwLock::new(LoaderTable::default()),
            shutdown: AtomicBool::new(false),
        });
        let (jobs, queue) = mpsc::channel();
        let worker = worker::spawn(Arc::clone(&core), queue).ok();
        Self { core, jobs, worker }
    }

    /// The byte budget.
    pub fn budget(&self) -> usize {
        self.core.lock().budget()
    }

    /// Changes the byte budget, evicting at once if the cache no longer fits.
    pub fn set_budget(&self, bytes: usize) {
        self.core.lock().set_budget(bytes);
    }

    /// Adds a directory tree as a resource file; it is searched before every source
    /// added earlier. Returns what was found in it.
    ///
    /// Remembered failures are forgotten (the new source may hold them), and cached
    /// resources the new source also has are dropped so the next request reads the new
    /// data.
    pub fn add_directory(&self, path: impl AsRef<Path>) -> Result<SourceInfo, CacheError> {
        let source = Source::open_directory(path.as_ref())?;
        Ok(self.add_source(source))
    }

    /// Adds a zip pack as a resource file; it is searched before every source added
    /// earlier. Same rules as [`add_directory`](Self::add_directory).
    pub fn add_zip(&self, path: impl AsRef<Path>) -> Result<SourceInfo, CacheError> {
        let source = Source::open_zip(path.as_ref())?;
        Ok(self.add_source(source))
    }

    /// Serves the file at `path` under `name` (a `linked/…` name): a file outside the
    /// data folders that a trusted station or music folder links to. Searched before
    /// every source added earlier; adding the same name again does nothing.
    pub fn add_linked(&self, name: &str, path: &Path) -> Result<(), CacheError> {
        let key = normalize_name(name)?;
        if self.core.sources().iter().any(|s| s.contains(&key)) {
            return Ok(());
        }
        let source = Source::open_linked(&key, path)?;
        self.add_source(source);
        Ok(())
    }

    fn add_source(&self, source: Source) -> SourceInfo {
        let source = Arc::new(source);
        let info = source.info();
        {
            let mut sources = self
                .core
                .sources
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let mut list = Vec::clone(&sources);
            list.push(Arc::clone(&source));
            *sources = Arc::new(list);
        }
        let mut state = self.core.lock();
        state.clear_failures();
        state.shadow(|name| source.contains(name));
        info
    }

    /// Stops serving the directory `dir` and the zip packs at its top (a plug-in folder
    /// removed): what they served is dropped from memory, and the next request for one
    /// of their names finds it in the sources left, if any. Returns how many sources
    /// went.
    pub fn remove_directory(&self, dir: &Path) -> usize {
        let removed: Vec<Arc<Source>> = {
            let mut sources = self
                .core
                .sources
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let (gone, kept): (Vec<Arc<Source>>, Vec<Arc<Source>>) =
                sources.iter().cloned().partition(|s| {
                    let path = s.path();
                    path == dir || (s.info().kind == SourceKind::Zip && path.parent() == Some(dir))
                });
            *sources = Arc::new(kept);
            gone
        };
        if !removed.is_empty() {
            let mut state = self.core.lock();
            state.clear_failures();
            state.shadow(|name| removed.iter().any(|s| s.contains(name)));
        }
        removed.len()
    }

    /// The sources, oldest first.
    pub fn sources(&self) -> Vec<SourceInfo> {
        self.core.sources().iter().map(|s| s.info()).collect()
    }

    /// Every resource name the sources hold that matches the wildcard `pattern`, in
    /// source order (oldest source first, each in its own order), each name once.
    pub fn names(&self, pattern: &str) -> Vec<String> {
        self.core.names(pattern)
    }

    /// Registers a loader for the names its pattern matches. Resources already cached
    /// keep what their old loader made of them until they are loaded again.
    pub fn register_loader(&self, loader: Arc<dyn ResourceLoader>) {
        self.core
            .loaders
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .register(loader);
    }

    /// The resource `name`, loading it on this thread if it is not in memory (the
    /// offline renderer needs that determinism). Waits if another thread is loading it.
    pub fn get(&self, name: &str) -> Result<Handle, CacheError> {
        let key = normalize_name(name)?;
        if let Some(handle) = self.core.lock().hit(&key) {
            return Ok(handle);
        }
        self.core.obtain(&key, Origin::Get)
    }

    /// The resource `name` if it is in memory; otherwise queues it on the loader thread
    /// (once) and says it is loading. Never waits on IO.
    pub fn try_get(&self, name: &str) -> Lookup {
        let key = match normalize_name(name) {
            Ok(key) => key,
            Err(error) => return Lookup::Failed(error),
        };
        let mut state = self.core.lock();
        if let Some(handle) = state.hit(&key) {
            return Lookup::Ready(handle);
        }
        // `record_mut`, not `record`: asked every tick while loading, this must not
        // allocate.
        if let Some(record) = state.record_mut(&key) {
            if let Some(error) = &record.failure {
                return Lookup::Failed(error.clone());
            }
            if record.in_flight || record.queued {
                return Lookup::Loading;
            }
        }
        if let Some(handle) = state.pinned_alive(&key) {
            state.revive(&key, Arc::clone(&handle));
            state.mark_use(&key, true);
            return Lookup::Ready(handle);
        }
        state.count_miss(&key);
        match self.queue(&mut state, &key) {
            Ok(()) => Lookup::Loading,
            Err(error) => Lookup::Failed(error),
        }
    }

    /// The kind of the latest miss on `name` (what [`ResourceCache::try_get`] or
    /// [`ResourceCache::get`] counted when it had to load), if it ever missed.
    pub fn last_miss(&self, name: &str) -> Option<MissKind> {
        let key = normalize_name(name).ok()?;
        self.core.lock().last_miss(&key)
    }

    /// Queues a background load of `name` (a hint that it will be needed soon). Does
    /// nothing if it is in memory, loading, or remembered as failed.
    pub fn request(&self, name: &str) -> Result<(), CacheError> {
        let key = normalize_name(name)?;
        let mut state = self.core.lock();
        if let Some(record) = state.record_mut(&key)
            && (record.held.is_some()
                || record.queued
                || record.in_flight
                || record.failure.is_some())
        {
            return Ok(());
        }
        if let Some(handle) = state.pinned_alive(&key) {
            state.revive(&key, handle);
            state.refresh(&key);
            return Ok(());
        }
        self.queue(&mut state, &key)
    }

    fn queue(&self, state: &mut State, key: &str) -> Result<(), CacheError> {
        state.record(key).queued = true;
        if self.jobs.send(Job::Load(Arc::from(key))).is_err() {
            state.record(key).queued = false;
            return Err(CacheError::LoaderStopped {
                name: key.to_owned(),
            });
        }
        Ok(())
    }

    /// Reads `name` again now, replacing the cached data (a handle to the old data stays
    /// valid and is reported as pinned). Forgets a remembered failure first. Counts a
    /// load and a use, not a miss.
    pub fn reload(&self, name: &str) -> Result<Handle, CacheError> {
        let key = normalize_name(name)?;
        {
            let mut state = self.core.lock();
            state.record(&key).failure = None;
            state.displace(&key);
        }
        self.core.obtain(&key, Origin::Reload)
    }

    /// Forgets the remembered failure of `name` so the next request tries again.
    /// Returns whether there was one.
    pub fn forget_failure(&self, name: &str) -> bool {
        let Ok(key) = normalize_name(name) else {
            return false;
        };
        self.core
            .lock()
            .record_mut(&key)
            .and_then(|record| record.failure.take())
            .is_some()
    }

    /// True when `name` is in the cache (pinned data does not count).
    pub fn is_cached(&self, name: &str) -> bool {
        normalize_name(name).is_ok_and(|key| self.core.lock().is_cached(&key))
    }

    /// Hint: `name` is no longer needed; throws it out now. Returns whether it was
    /// cached. Asking for it again is a conflict miss.
    pub fn evict(&self, name: &str) -> bool {
        normalize_name(name).is_ok_and(|key| self.core.lock().evict_hint(&key))
    }

    /// Hint: nothing matching `pattern` is needed any more; throws it all out. Returns
    /// how many resources went.
    pub fn release(&self, pattern: &str) -> usize {
        self.core.lock().release(&Pattern::new(pattern))
    }

    /// Sets the priority of the names matching `pattern` (default 0). Lower priority is
    /// evicted first. Where several patterns match a name, the most specific decides,
    /// ties going to the one set last (see [`Pattern::specificity`]).
    pub fn set_priority(&self, pattern: &str, priority: i32) {
        self.core
            .lock()
            .set_priority(Pattern::new(pattern), priority);
    }

    /// Raises the priority of the resource `name` to at least `priority`, for good: the
    /// sound server calls it with the priority of each track that plays a sample, so a
    /// track's priority becomes its samples' ([`set_priority`](Self::set_priority)
    /// patterns can only add to it). A name that is not valid is ignored.
    pub fn raise_priority(&self, name: &str, priority: i32) {
        if let Ok(key) = normalize_name(name) {
            self.core.lock().raise_priority(&key, priority);
        }
    }

    /// Starts a tick: resources used from now on make up its working set. Beginning a
    /// tick while one is open replaces it (the unfinished one is not judged).
    pub fn begin_tick(&self) {
        self.core.lock().begin_tick();
    }

    /// Ends the tick: judges its working set against the budget, and lets go of
    /// over-budget resources nobody holds. Without an open tick, only the latter
    /// (and the summary is empty).
    pub fn end_tick(&self) -> TickSummary {
        self.core.lock().end_tick()
    }

    /// A snapshot of the whole cache.
    pub fn stats(&self) -> CacheStats {
        self.core.lock().stats()
    }

    /// A snapshot of every resource the cache knows of, sorted by name.
    pub fn resource_stats(&self) -> Vec<ResourceStats> {
        self.core.lock().resource_stats()
    }

    /// Loads every resource matching `pattern`, in source order, on the loader thread,
    /// after whatever is queued before it. `progress` is called after each name (and
    /// once more, with `cancelled`, if `cancel` stops it early). Names already cached
    /// become most recently used; names remembered as failed are reported as failures
    /// without being read again. Preloading is prediction: it counts loads, not misses.
    pub fn preload(
        &self,
        pattern: &str,
        progress: Box<dyn FnMut(PreloadProgress) + Send>,
        cancel: Arc<AtomicBool>,
    ) -> PreloadJob {
        let (done, summary) = worker::summary_channel();
        let job = PreloadJob::new(pattern.to_owned(), summary, Arc::clone(&cancel));
        // If the thread is gone the request is dropped with its sender, and the job
        // reports `LoaderStopped` when waited on.
        let _ = self.jobs.send(Job::Preload(PreloadRequest {
            pattern: pattern.to_owned(),
            progress,
            cancel,
            done,
        }));
        job
    }
}

impl Drop for ResourceCache {
    fn drop(&mut self) {
        self.core.shutdown.store(true, Ordering::Release);
        let _ = self.jobs.send(Job::Shutdown);
        if let Some(worker) = self.worker.take() {
            // The last owner of the cache can be a progress callback running on the
            // loader thread itself; joining there would wait forever.
            if worker.thread().id() != thread::current().id() {
                let _ = worker.join();
            }
        }
    }
}
