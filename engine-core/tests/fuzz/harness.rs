//! The fuzz harness: what a target is, how its cases run (one after another on this
//! thread, each under the counting allocator, the watchdog and `catch_unwind`), and how a
//! failure is reported and saved so it can be run again.

use crate::alloc;
use proptest::strategy::BoxedStrategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A memory bound: the peak a case may allocate is `per_byte` × the input's size, plus
/// `per_line` × its lines (a parser keeps a structure per line, whatever its length:
/// a file of empty lines costs more per byte than one of long lines), plus `fixed`.
#[derive(Debug, Clone, Copy)]
pub struct MemoryBound {
    /// Bytes allowed per byte of input.
    pub per_byte: usize,
    /// Bytes allowed per line of input (per `\n`).
    pub per_line: usize,
    /// Bytes allowed whatever the input.
    pub fixed: usize,
}

impl MemoryBound {
    /// The bound for `input`.
    pub fn for_input(self, input: &Input) -> usize {
        self.per_byte
            .saturating_mul(input.size())
            .saturating_add(self.per_line.saturating_mul(input.lines()))
            .saturating_add(self.fixed)
    }
}

impl fmt::Display for MemoryBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} × bytes", self.per_byte)?;
        if self.per_line > 0 {
            write!(f, " + {} × lines", self.per_line)?;
        }
        write!(f, " + {} MiB", self.fixed / MIB)
    }
}

/// One mebibyte.
pub const MIB: usize = 1 << 20;

/// A case runs against the watchdog's ceiling of this many times its memory bound (the
/// bound itself is checked when the case ends, so that proptest can shrink the input).
pub const CEILING_FACTOR: usize = 4;

/// The input of one case: named files (a single file for most targets; a source with its
/// includes, or a whole data directory, for others).
#[derive(Clone, Default)]
pub struct Input {
    /// Relative path (with `/`) and content of each file.
    pub files: Vec<(String, Vec<u8>)>,
}

impl Input {
    /// An input of one file.
    pub fn single(name: &str, bytes: Vec<u8>) -> Self {
        Self {
            files: vec![(name.to_string(), bytes)],
        }
    }

    /// Total bytes of every file.
    pub fn size(&self) -> usize {
        self.files.iter().map(|(n, b)| n.len() + b.len()).sum()
    }

    /// Total lines (line feeds) of every file.
    pub fn lines(&self) -> usize {
        self.files
            .iter()
            .map(|(_, b)| b.iter().filter(|&&c| c == b'\n').count())
            .sum()
    }

    /// The content of the file named `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }

    /// The first file's content (empty if there is none).
    pub fn first(&self) -> &[u8] {
        self.files.first().map_or(&[], |(_, b)| b.as_slice())
    }

    /// Writes every file under `dir`.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<()> {
        for (name, bytes) in &self.files {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, bytes)?;
        }
        Ok(())
    }

    /// Reads every file under `dir` (the reverse of [`Input::write_to`]).
    pub fn read_from(dir: &Path) -> std::io::Result<Self> {
        let mut input = Input::default();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(folder) = stack.pop() {
            for entry in std::fs::read_dir(&folder)? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if let Ok(relative) = path.strip_prefix(dir) {
                    let name = relative.to_string_lossy().replace('\\', "/");
                    input.files.push((name, std::fs::read(&path)?));
                }
            }
        }
        input.files.sort();
        Ok(input)
    }
}

/// How much of each file a report prints (the saved copy is whole).
const SHOWN_BYTES: usize = 2048;

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, bytes) in &self.files {
            let shown = &bytes[..bytes.len().min(SHOWN_BYTES)];
            writeln!(
                f,
                "  {name} ({} bytes): \"{}\"{}",
                bytes.len(),
                shown.escape_ascii(),
                if shown.len() < bytes.len() {
                    " …"
                } else {
                    ""
                }
            )?;
        }
        Ok(())
    }
}

/// A fuzz target: a generator of inputs and the code that must survive them.
pub struct Target {
    /// Its name (for `HITBENCH_FUZZ_TARGET` and the reports).
    pub name: &'static str,
    /// What it feeds where, in a few words.
    pub about: &'static str,
    /// Cases run by default (`HITBENCH_FUZZ_CASES` overrides).
    pub cases: u32,
    /// The most a case may allocate.
    pub memory: MemoryBound,
    /// The longest a case may run before the watchdog calls it a hang.
    pub time: Duration,
    /// The generator.
    pub strategy: fn() -> BoxedStrategy<Input>,
    /// Runs one case; `Err` is a broken invariant (a panic is caught separately).
    pub run: fn(&Input) -> Result<(), String>,
}

/// How the run was asked for.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The seed (`HITBENCH_FUZZ_SEED`).
    pub seed: u64,
    /// Cases per target, if given (`HITBENCH_FUZZ_CASES`).
    pub cases: Option<u32>,
    /// Save every case's input before running it (`HITBENCH_FUZZ_TRACE`), to find an
    /// input that aborts the process (a stack overflow).
    pub trace: bool,
    /// Where failures are saved.
    pub failures: PathBuf,
}

/// What the watchdog watches: the case running now.
struct Running {
    target: &'static str,
    input: Input,
    started: Instant,
    limit: Duration,
}

/// The watchdog: a thread that ends the process when a case runs past its time limit or
/// allocates past its ceiling, after printing and saving the input.
#[derive(Clone)]
pub struct Watchdog {
    running: Arc<Mutex<Option<Running>>>,
    settings: Settings,
}

/// How often the watchdog looks.
const WATCH_PERIOD: Duration = Duration::from_millis(20);

impl Watchdog {
    /// Starts the watchdog thread.
    pub fn start(settings: Settings) -> Self {
        let watchdog = Watchdog {
            running: Arc::new(Mutex::new(None)),
            settings,
        };
        let watcher = watchdog.clone();
        let spawned = std::thread::Builder::new()
            .name("hitbench-fuzz-watchdog".into())
            .spawn(move || watcher.watch());
        if let Err(e) = spawned {
            eprintln!("fuzz: cannot start the watchdog: {e}");
            std::process::exit(2);
        }
        watchdog
    }

    fn watch(&self) {
        loop {
            std::thread::sleep(WATCH_PERIOD);
            let guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
            let Some(case) = guard.as_ref() else {
                continue;
            };
            let reason = if alloc::OVER_CEILING.load(Ordering::SeqCst) {
                format!(
                    "allocated {} MiB, past the ceiling of {CEILING_FACTOR} × its memory bound",
                    alloc::OVER_BYTES.load(Ordering::SeqCst) / MIB
                )
            } else if case.started.elapsed() > case.limit {
                format!(
                    "still running after {:.1} s (limit {:.1} s): a hang or a blow-up",
                    case.started.elapsed().as_secs_f64(),
                    case.limit.as_secs_f64()
                )
            } else {
                continue;
            };
            report(&self.settings, case.target, &reason, &case.input);
            remove_scratch_root();
            std::process::exit(1);
        }
    }

    fn begin(&self, target: &'static str, input: &Input, limit: Duration) {
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        *guard = Some(Running {
            target,
            input: input.clone(),
            started: Instant::now(),
            limit,
        });
    }

    fn end(&self) {
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        *guard = None;
    }
}

/// The last panic's message and place, kept by the panic hook (which prints nothing:
/// the report does, with the input).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

thread_local! {
    /// Whether this thread is running a case (its panics are reported with the input).
    static IN_CASE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Replaces the panic hook with one that remembers a case's panic for the report (the
/// default hook still prints any other panic).
pub fn quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if IN_CASE.with(std::cell::Cell::get) {
            let mut last = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
            *last = Some(info.to_string());
        } else {
            default(info);
        }
    }));
}

fn take_panic() -> Option<String> {
    LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Prints a failure with its input and saves the input under the failures folder.
pub fn report(settings: &Settings, target: &str, reason: &str, input: &Input) {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let dir = settings
        .failures
        .join(format!("{target}-{:x}-{stamp}", settings.seed));
    let saved = input
        .write_to(&dir.join("input"))
        .and_then(|()| {
            std::fs::write(
                dir.join("FAILURE.txt"),
                format!(
                    "target: {target}\nseed: {}\n{reason}\n\nreproduce:\n  HITBENCH_FUZZ_TARGET={target} \
                     HITBENCH_FUZZ_REPRO={} cargo test -p engine-core --test fuzz\n",
                    settings.seed,
                    dir.join("input").display()
                ),
            )
        });
    eprintln!(
        "\nfuzz target `{target}` FAILED (seed {}): {reason}",
        settings.seed
    );
    eprintln!("input ({} file(s)):\n{input:?}", input.files.len());
    match saved {
        Ok(()) => eprintln!(
            "saved to {}\nreproduce: HITBENCH_FUZZ_TARGET={target} HITBENCH_FUZZ_REPRO={} \
             cargo test -p engine-core --test fuzz",
            dir.display(),
            dir.join("input").display()
        ),
        Err(e) => eprintln!("(could not save it under {}: {e})", dir.display()),
    }
}

/// Runs one case under every check; `Err` says why it failed.
fn run_case(target: &Target, input: &Input, watchdog: &Watchdog) -> Result<(), String> {
    let bound = target.memory.for_input(input);
    watchdog.begin(target.name, input, target.time);
    take_panic();
    alloc::reset(bound.saturating_mul(CEILING_FACTOR));
    IN_CASE.with(|c| c.set(true));
    let result = catch_unwind(AssertUnwindSafe(|| (target.run)(input)));
    IN_CASE.with(|c| c.set(false));
    let peak = alloc::peak();
    alloc::unwatch();
    watchdog.end();
    match result {
        Err(_) => Err(format!(
            "panicked: {}",
            take_panic().unwrap_or_else(|| "(no message)".to_string())
        )),
        Ok(Err(broken)) => Err(broken),
        Ok(Ok(())) if peak > bound => Err(format!(
            "allocated {peak} bytes at the peak, more than its bound of {bound} ({} for {} bytes in {} lines)",
            target.memory,
            input.size(),
            input.lines()
        )),
        Ok(Ok(())) => Ok(()),
    }
}

/// What running a target found.
pub struct Outcome {
    /// Cases run (without shrinking).
    pub cases: u32,
    /// Largest peak of a case, in bytes.
    pub peak: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// Whether every case passed.
    pub passed: bool,
}

/// The generator's seed for `target`: the run's seed mixed with the target's name, so
/// each target has its own stream and adding a target changes no other.
fn rng_for(seed: u64, target: &str) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in target.bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    bytes[8..16].copy_from_slice(&hash.to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// Runs a target's cases; a failing case is shrunk, then reported and saved.
pub fn run_target(target: &Target, settings: &Settings, watchdog: &Watchdog) -> Outcome {
    let cases = settings.cases.unwrap_or(target.cases);
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 512,
        max_shrink_time: 30_000,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, rng_for(settings.seed, target.name));
    let strategy = (target.strategy)();
    let started = Instant::now();
    let peak = std::cell::Cell::new(0usize);
    let result = runner.run(&strategy, |input| {
        if settings.trace {
            let dir = settings.failures.join(format!("{}-current", target.name));
            let _ = std::fs::remove_dir_all(&dir);
            let _ = input.write_to(&dir);
        }
        let outcome = run_case(target, &input, watchdog);
        peak.set(peak.get().max(alloc::peak()));
        outcome.map_err(TestCaseError::fail)
    });
    let passed = match result {
        Ok(()) => true,
        Err(TestError::Fail(reason, input)) => {
            report(settings, target.name, &format!("{reason}"), &input);
            false
        }
        Err(TestError::Abort(reason)) => {
            eprintln!("fuzz target `{}` aborted: {reason}", target.name);
            false
        }
    };
    Outcome {
        cases,
        peak: peak.get(),
        elapsed: started.elapsed(),
        passed,
    }
}

/// Runs a target once on a saved input (`HITBENCH_FUZZ_REPRO`).
pub fn reproduce(target: &Target, dir: &Path, settings: &Settings, watchdog: &Watchdog) -> bool {
    let input = match Input::read_from(dir) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("fuzz: cannot read the input in {}: {e}", dir.display());
            return false;
        }
    };
    match run_case(target, &input, watchdog) {
        Ok(()) => {
            eprintln!(
                "fuzz target `{}` passes on {} (peak {} bytes)",
                target.name,
                dir.display(),
                alloc::peak()
            );
            true
        }
        Err(reason) => {
            report(settings, target.name, &reason, &input);
            false
        }
    }
}

/// Where this process's scratch folders go.
fn scratch_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-{}", std::process::id()))
}

/// Removes every scratch folder of this process (at the end, and before the watchdog
/// ends the process, whose running case cannot drop its own).
pub fn remove_scratch_root() {
    let _ = std::fs::remove_dir_all(scratch_root());
}

/// A folder for one case under the target directory, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new empty folder.
    pub fn new() -> std::io::Result<Self> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = scratch_root().join(n.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Self(dir))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
