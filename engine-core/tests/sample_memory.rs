//! Decoded sizes against memory: a few kilobytes of FLAC can decode to
//! hundreds of megabytes. Such a sample is refused with its size when it would be held in
//! memory, streamed when it is played, and the resource cache charges decoded bytes
//! against its budget before they are allocated. Memory is measured with a counting
//! global allocator, so the bounds below are on bytes really allocated.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::runtime::SampleTime;
use engine_core::runtime::sink::{ControlGroup, SampleRef, SoundCommand, SoundSink};
use engine_core::runtime::{Gain, Pan};
use engine_core::sound::audio::decode::{self, DecodeError};
use engine_core::sound::cache::Handle;
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::server::{ServerConfig, SoundServer, project_cache};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

// ---------------------------------------------------------------------------
// A counting allocator
// ---------------------------------------------------------------------------

/// The system allocator, counting the bytes currently allocated and their peak.
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    CURRENT.fetch_sub(bytes, Ordering::Relaxed);
}

// Counting needs a global allocator, and implementing one is unsafe by definition; every
// call is handed unchanged to `System`, only the counters are added.
#[allow(unsafe_code)]
// SAFETY: each method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counters do not touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `layout` are the ones `System` needs.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through us) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` (through us) with `layout`; the caller
        // guarantees `new_size` is valid for it.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // A moving realloc holds both blocks for a moment: count the new one first.
            grew(new_size);
            shrank(layout.size());
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement at a time: tests of this binary run on parallel threads.
static MEASURING: Mutex<()> = Mutex::new(());

/// Held by every test for its whole run: the allocator counts every thread, so a test
/// allocating while another measures would make that measurement wrong.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

const MIB: usize = 1 << 20;

/// Runs `f` and returns its result with the most memory it had allocated at once beyond
/// what was allocated before it started (its own threads' allocations included).
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let _one_at_a_time = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    (out, peak)
}

// ---------------------------------------------------------------------------
// A minimal FLAC encoder: CONSTANT subframes only
// ---------------------------------------------------------------------------

/// Frames per FLAC block (the largest block FLAC allows).
const BLOCK: u64 = 65_535;

fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |mut crc, &b| {
        crc ^= b;
        for _ in 0..8 {
            crc = if crc & 0x80 != 0 {
                (crc << 1) ^ 0x07
            } else {
                crc << 1
            };
        }
        crc
    })
}

fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u16, |mut crc, &b| {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x8005
            } else {
                crc << 1
            };
        }
        crc
    })
}

/// FLAC's UTF-8-like coding of a frame number.
fn utf8_number(n: u32, out: &mut Vec<u8>) {
    match n {
        0..0x80 => out.push(n as u8),
        0x80..0x800 => out.extend([0xC0 | (n >> 6) as u8, 0x80 | (n & 0x3F) as u8]),
        _ => out.extend([
            0xE0 | (n >> 12) as u8,
            0x80 | ((n >> 6) & 0x3F) as u8,
            0x80 | (n & 0x3F) as u8,
        ]),
    }
}

/// A 16-bit FLAC of `frames` frames at `rate` Hz, every sample of every channel `value`:
/// each block is a frame of CONSTANT subframes, a few bytes per 65 535 frames — the shape
/// of a decompression bomb: a 6.7 KB FLAC that decodes to 211 MB.
fn constant_flac(rate: u32, channels: u8, frames: u64, value: i16) -> Vec<u8> {
    let mut f = b"fLaC".to_vec();
    // STREAMINFO, the last metadata block: 34 bytes.
    f.extend([0x80, 0, 0, 34]);
    f.extend((BLOCK as u16).to_be_bytes()); // min block size
    f.extend((BLOCK as u16).to_be_bytes()); // max block size
    f.extend([0; 6]); // min/max frame size unknown
    // 20 bits rate, 3 bits channels − 1, 5 bits bits-per-sample − 1, 36 bits frames.
    let packed = (u64::from(rate) << 44)
        | (u64::from(channels - 1) << 41)
        | (15u64 << 36)
        | (frames & 0xF_FFFF_FFFF);
    f.extend(packed.to_be_bytes());
    f.extend([0; 16]); // no MD5
    let mut left = frames;
    let mut number = 0u32;
    while left > 0 {
        let size = left.min(BLOCK);
        let start = f.len();
        // Sync, fixed block size; block size from the end of the header, rate from
        // STREAMINFO; independent channels, 16 bits.
        f.extend([0xFF, 0xF8, 0x70, ((channels - 1) << 4) | 0x08]);
        utf8_number(number, &mut f);
        f.extend(((size - 1) as u16).to_be_bytes());
        let crc = crc8(&f[start..]);
        f.push(crc);
        for _ in 0..channels {
            f.push(0x00); // CONSTANT, no wasted bits
            f.extend(value.to_be_bytes());
        }
        let crc = crc16(&f[start..]);
        f.extend(crc.to_be_bytes());
        left -= size;
        number += 1;
    }
    f
}

/// Blocks in such a file: 403 × 65 535 stereo frames of `f32` are 211 284 840 bytes.
const HUGE_FRAMES: u64 = 403 * BLOCK;
const HUGE_DECODED_BYTES: u64 = HUGE_FRAMES * 2 * 4;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A scratch folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "hitbench-sample-memory-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------

#[test]
fn the_constant_flac_is_a_real_flac() {
    let _serial = serial();
    let bytes = constant_flac(22_050, 1, 3 * BLOCK + 100, 8192);
    let d = decode::decode("small.flac", &bytes, &decode::DecodeLimits::default()).unwrap();
    assert_eq!(d.partial, None);
    assert_eq!((d.info.sample_rate, d.info.channels), (22_050, 1));
    assert_eq!(d.buffer.frames() as u64, 3 * BLOCK + 100);
    assert!(d.buffer.data.iter().all(|&s| s == 0.25));
}

#[test]
fn a_tiny_flac_that_decodes_to_211_mb_is_refused_with_its_size() {
    let _serial = serial();
    let dir = TempDir::new("refused");
    let bytes = constant_flac(48_000, 2, HUGE_FRAMES, 4096);
    assert!(bytes.len() < 8 * 1024, "{} bytes", bytes.len());
    dir.file("huge.flac", &bytes);
    let (cache, problems) = project_cache(&[dir.path().to_path_buf()], 256 * MIB);
    assert!(problems.is_empty(), "{problems:?}");
    let (result, peak) = peak_during(|| cache.get("huge.flac").map(|h| h.size));
    let message = match result {
        Ok(size) => panic!("decoded {size} bytes into memory (peak {peak} bytes)"),
        Err(e) => e.to_string(),
    };
    assert!(message.contains("huge.flac"), "{message}");
    assert!(
        message.contains(&HUGE_DECODED_BYTES.to_string()),
        "names the decoded size: {message}"
    );
    assert!(peak < 16 * MIB, "refused only after {peak} bytes");
}

#[test]
fn twelve_samples_held_at_once_never_take_more_than_the_budget() {
    let _serial = serial();
    let dir = TempDir::new("budget");
    // Each decodes to 32 × 65 535 mono frames: just under 8 MiB.
    let each = 32 * BLOCK * 4;
    for i in 0..12 {
        dir.file(
            &format!("s{i:02}.flac"),
            &constant_flac(48_000, 1, 32 * BLOCK, 100 + i),
        );
    }
    let budget = 32 * MIB;
    let (cache, _) = project_cache(&[dir.path().to_path_buf()], budget);
    // Every loaded sample stays held, as by voices that are playing it.
    let ((held, refused), peak) = peak_during(|| {
        let mut held: Vec<Handle> = Vec::new();
        let mut refused = Vec::new();
        for i in 0..12 {
            match cache.get(&format!("s{i:02}.flac")) {
                Ok(handle) => held.push(handle),
                Err(e) => refused.push(e.to_string()),
            }
        }
        (held, refused)
    });
    assert_eq!(held.len() as u64, budget as u64 / each, "{refused:?}");
    // The budget, plus one decoder's own working memory (symphonia's block buffers,
    // about 4 MiB for 65 535-frame FLAC blocks) while a refused load is tried.
    assert!(
        peak <= budget + 8 * MIB,
        "{peak} bytes for a budget of {budget}"
    );
    let first = refused.first().unwrap();
    assert!(
        first.contains(&format!("s{:02}.flac", held.len())) && first.contains("budget"),
        "{first}"
    );
    // Once the sounds are let go, their memory is free for others.
    drop(held);
    cache.begin_tick();
    assert!(cache.get("s11.flac").is_ok());
}

#[test]
fn one_event_playing_twelve_huge_flacs_streams_them_in_bounded_memory() {
    let _serial = serial();
    let dir = TempDir::new("render");
    let names: Vec<String> = (0..12).map(|i| format!("huge{i:02}.flac")).collect();
    for (i, name) in names.iter().enumerate() {
        dir.file(
            name,
            &constant_flac(48_000, 2, HUGE_FRAMES, 1000 + i as i16),
        );
    }
    let (handle, mut mixer) = mixer(MixerConfig::default());
    let (cache, _) = project_cache(&[dir.path().to_path_buf()], 256 * MIB);
    let config = ServerConfig {
        blocking: true,
        ..ServerConfig::default()
    };
    let mut server = SoundServer::new(handle, cache, config, 1);
    let ((peak_sample, counts), peak) = peak_during(|| {
        for (i, name) in names.iter().enumerate() {
            let path = dir.path().join(name).display().to_string();
            server.send(SoundCommand::Start {
                note: i as u64 + 1,
                voice: 0,
                at: SampleTime::from_samples(0),
                sample: SampleRef {
                    patch: i as u32,
                    name: Arc::from(name.as_str()),
                    path: Arc::from(Path::new(&path)),
                    linked: false,
                },
                gain: Gain::new(0.05),
                pan: Pan::CENTRE,
                pitch: 1.0,
                looping: false,
                group: ControlGroup::Fx,
                reverb: false,
                priority: 32,
            });
        }
        // One second, tick by tick, as the offline renderer does.
        let mut out = vec![0.0f32; 800 * 2];
        let mut peak_sample = 0.0f32;
        for tick in 1..=60u64 {
            server.update(SampleTime::from_samples(tick * 800));
            mixer.render(&mut out);
            peak_sample = out.iter().fold(peak_sample, |p, s| p.max(s.abs()));
        }
        (peak_sample, server.counts())
    });
    assert_eq!(counts, (12, 0, 0), "started, missed, dropped");
    // Twelve constants of about 0.03 at gain 0.05 each: audible, and all of them.
    assert!(peak_sample > 0.015, "{peak_sample}");
    assert!(peak < 128 * MIB, "{peak} bytes to play twelve samples");
}

#[test]
fn a_flac_at_an_absurd_sample_rate_is_refused() {
    let _serial = serial();
    for rate in [1, 999, 655_350] {
        let bytes = constant_flac(rate, 1, BLOCK, 1);
        let e = decode::probe("odd.flac", &bytes).unwrap_err();
        assert!(
            matches!(e, DecodeError::Invalid { .. })
                && e.to_string().contains(&format!("{rate} Hz")),
            "{rate}: {e}"
        );
    }
    assert!(decode::probe("ok.flac", &constant_flac(8000, 1, BLOCK, 1)).is_ok());
}

/// A server on `dir` with the sample loaders limited to `max_bytes` decoded, and every
/// sound small enough by its headers to be cached (so only the cache can send one to the
/// streaming path).
fn server_refusing_above(dir: &Path, max_bytes: usize, blocking: bool) -> (SoundServer, Mixer) {
    use engine_core::sound::audio::decode::DecodeLimits;
    use engine_core::sound::cache::ResourceCache;
    use engine_core::sound::server::SampleLoader;
    let cache = Arc::new(ResourceCache::with_budget(256 * MIB));
    let limits = DecodeLimits {
        max_bytes,
        ..DecodeLimits::default()
    };
    for loader in SampleLoader::all(limits) {
        cache.register_loader(loader);
    }
    cache.add_directory(dir).unwrap();
    let config = ServerConfig {
        blocking,
        stream_bytes: u64::MAX,
        ..ServerConfig::default()
    };
    let (handle, mixer) = mixer(MixerConfig::default());
    (SoundServer::new(handle, cache, config, 1), mixer)
}

fn start(server: &mut SoundServer, dir: &Path, name: &str) {
    let path = dir.join(name).display().to_string();
    server.send(SoundCommand::Start {
        note: 1,
        voice: 0,
        at: SampleTime::from_samples(0),
        sample: SampleRef {
            patch: 1,
            name: Arc::from(name),
            path: Arc::from(Path::new(&path)),
            linked: false,
        },
        gain: Gain::UNITY,
        pan: Pan::CENTRE,
        pitch: 1.0,
        looping: false,
        group: ControlGroup::Fx,
        reverb: false,
        priority: 32,
    });
}

#[test]
fn a_sound_the_cache_refuses_as_too_large_is_streamed_live_and_offline() {
    let _serial = serial();
    let dir = TempDir::new("fallback");
    dir.file("long.flac", &constant_flac(48_000, 1, 4 * BLOCK, 500));
    for blocking in [true, false] {
        let (mut server, _mixer) = server_refusing_above(dir.path(), 64 * 1024, blocking);
        start(&mut server, dir.path(), "long.flac");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while server.pending() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
            server.update(SampleTime::from_samples(0));
        }
        assert_eq!(
            server.counts(),
            (1, u64::from(!blocking), 0),
            "blocking {blocking}"
        );
        let trace: Vec<String> = server
            .take_trace()
            .into_iter()
            .map(|r| r.message())
            .collect();
        assert!(
            trace
                .iter()
                .any(|m| m.contains("streaming `long.flac` from disk")),
            "blocking {blocking}: {trace:?}"
        );
    }
}

#[test]
fn streamed_sounds_render_the_same_every_time_offline() {
    let _serial = serial();
    let dir = TempDir::new("determinism");
    let names: Vec<String> = (0..3).map(|i| format!("long{i}.flac")).collect();
    for (i, name) in names.iter().enumerate() {
        dir.file(
            name,
            &constant_flac(
                44_100 + 1000 * i as u32,
                2,
                10 * BLOCK,
                3000 * (i as i16 + 1),
            ),
        );
    }
    let render = || {
        let (handle, mut mixer) = mixer(MixerConfig::default());
        let (cache, _) = project_cache(&[dir.path().to_path_buf()], 256 * MIB);
        let config = ServerConfig {
            blocking: true,
            stream_bytes: 1 << 20,
            ..ServerConfig::default()
        };
        let mut server = SoundServer::new(handle, cache, config, 1);
        for (i, name) in names.iter().enumerate() {
            let path = dir.path().join(name).display().to_string();
            server.send(SoundCommand::Start {
                note: i as u64 + 1,
                voice: 0,
                at: SampleTime::from_samples(100 * i as u64),
                sample: SampleRef {
                    patch: i as u32,
                    name: Arc::from(name.as_str()),
                    path: Arc::from(Path::new(&path)),
                    linked: false,
                },
                gain: Gain::new(0.3),
                pan: Pan::CENTRE,
                pitch: 1.5,
                looping: false,
                group: ControlGroup::Fx,
                reverb: false,
                priority: 32,
            });
        }
        let mut all = Vec::new();
        let mut out = vec![0.0f32; 800 * 2];
        for tick in 1..=300u64 {
            server.update(SampleTime::from_samples(tick * 800));
            mixer.render(&mut out);
            all.extend_from_slice(&out);
        }
        all
    };
    let first = render();
    assert!(first.iter().any(|&s| s != 0.0));
    // Nothing ran dry: after the starts, every frame has all three constants.
    let expected = 0.3 * (3000.0 + 6000.0 + 9000.0) / 32768.0;
    let steady = &first[2 * 1000..];
    let off = steady.iter().position(|&s| (s - expected).abs() > 1e-3);
    assert_eq!(off, None, "a stream ran dry (expected {expected})");
    assert_eq!(first, render());
}
