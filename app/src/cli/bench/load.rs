//! `hitbench bench load`: how fast a project opens. A project of 100,000 samples and
//! 20,000 tracks is generated in a temporary folder and linted the way `hitbench check`
//! does it (targets: under 1 s and 200 MB); then the workbench is started on the demo
//! and timed to its first painted frame (target: under 400 ms, `cold_start`).

use super::super::Io;
use super::Size;
use super::cold_start;
use super::scratch::Scratch;
use anyhow::Context as _;
use engine_core::runtime::units::format_bytes;
use engine_core::toolchain::project::Project;
use engine_core::tools::check;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Samples (patches, each with its own file) of the generated project.
pub const SAMPLES: usize = 100_000;
/// Tracks of the generated project.
pub const TRACKS: usize = 20_000;
/// Target: `hitbench check` on the generated project.
pub const CHECK_TARGET: Duration = Duration::from_secs(1);
/// Target: the memory `hitbench check` takes on it, in bytes (200 MB, 190.7 MiB).
pub const MEMORY_TARGET_BYTES: u64 = 200_000_000;

/// Tracks in one generated source file (each with its event, hit list and patches).
const TRACKS_PER_SOURCE: usize = 100;
/// Runs of each timed measurement; the best is printed (the least disturbed).
const RUNS: usize = 3;

/// Generates the project, measures `check` on it, then the cold start.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let tracks = size.scale(TRACKS);
    let per_track = (size.scale(SAMPLES) / tracks).max(1);
    let scratch = Scratch::new("load")?;
    let made = generate(scratch.path(), tracks, per_track)?;
    writeln!(
        io.out,
        "load: a generated project of {} samples ({} of WAV files) and {} tracks \
         ({} sources of {}, one event and one hit list a track), made in {:.1} s",
        made.samples,
        format_bytes(made.sample_bytes as u64),
        made.tracks,
        made.sources,
        format_bytes(made.source_bytes as u64),
        made.seconds,
    )?;
    let dirs = [scratch.path().to_path_buf()];
    let mut best_load = Duration::MAX;
    for _ in 0..RUNS {
        let start = Instant::now();
        let project = Project::load_dirs(&dirs);
        best_load = best_load.min(start.elapsed());
        std::hint::black_box(project);
    }
    writeln!(
        io.out,
        "load: Project::load_dirs alone, in this process: best of {RUNS} {:.0} ms",
        best_load.as_secs_f64() * 1e3
    )?;
    let measured = match hitbench_exe() {
        Some(exe) => check_child(&exe, scratch.path())?,
        None => check_in_process(&dirs),
    };
    writeln!(io.out, "load: {}; {}", measured.how, measured.summary)?;
    let seconds = measured.best.as_secs_f64();
    writeln!(
        io.out,
        "load: check of {} samples and {} tracks = {} s; target < {} s ({})",
        made.samples,
        made.tracks,
        round(seconds),
        CHECK_TARGET.as_secs_f64(),
        ratio(seconds, CHECK_TARGET.as_secs_f64()),
    )?;
    match measured.memory_bytes {
        Some(bytes) => writeln!(
            io.out,
            "load: memory of that check = {} ({}); target < {} ({})",
            format_bytes(bytes),
            measured.memory_how,
            format_bytes(MEMORY_TARGET_BYTES),
            ratio(bytes as f64, MEMORY_TARGET_BYTES as f64),
        )?,
        None => writeln!(
            io.out,
            "load: memory of that check: not measured ({} cannot be read here)",
            measured.memory_how
        )?,
    }
    drop(scratch);
    cold_start::figure(io, size)
}

/// `value` against an upper bound `target`, as the benches say it: "1.6x under the
/// target" or "1.3x over the target".
pub(super) fn ratio(value: f64, target: f64) -> String {
    if value <= 0.0 {
        return "under the target".to_string();
    }
    if value <= target {
        format!("{:.1}x under the target", target / value)
    } else {
        format!("{:.1}x over the target", value / target)
    }
}

/// Seconds with two significant decimals below 10 s.
fn round(seconds: f64) -> String {
    if seconds < 10.0 {
        format!("{seconds:.2}")
    } else {
        format!("{seconds:.0}")
    }
}

/// This process's executable when it is `hitbench` (not a test binary running the
/// command line in-process).
pub(super) fn hitbench_exe() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    (exe.file_stem()? == "hitbench").then_some(exe)
}

/// What the generator wrote.
struct Made {
    samples: usize,
    sample_bytes: usize,
    tracks: usize,
    sources: usize,
    source_bytes: usize,
    seconds: f64,
}

/// Writes a project of `tracks` tracks and `per_track` samples for each into `dir`, as
/// a sound designer lays one out (`projects/demo`): sources of 100 tracks, each source
/// with its `[Patch]` lines (a WAV file each, in a folder per source, named with
/// Windows separators as Maxis' tables are), a global hit list of its patches per track,
/// an event mapping and a `[Track]` line per track, and the tracks' code: choose a
/// sample from the hit list and play it.
fn generate(dir: &Path, tracks: usize, per_track: usize) -> anyhow::Result<Made> {
    let start = Instant::now();
    let wav = tiny_wav();
    let mut made = Made {
        samples: 0,
        sample_bytes: 0,
        tracks,
        sources: tracks.div_ceil(TRACKS_PER_SOURCE),
        source_bytes: 0,
        seconds: 0.0,
    };
    for bank in 0..made.sources {
        let first = bank * TRACKS_PER_SOURCE;
        let bank_tracks = first..tracks.min(first + TRACKS_PER_SOURCE);
        let folder = format!("bank_{bank:03}");
        let sounds = dir.join("sounds").join(&folder);
        std::fs::create_dir_all(&sounds)
            .with_context(|| format!("cannot create {}", sounds.display()))?;
        for sample in bank_tracks.start * per_track..bank_tracks.end * per_track {
            let file = sounds.join(format!("s_{sample:06}.wav"));
            std::fs::write(&file, &wav)
                .with_context(|| format!("cannot write {}", file.display()))?;
            made.samples += 1;
            made.sample_bytes += wav.len();
        }
        let source = source(bank, &folder, bank_tracks, per_track);
        let file = dir.join(format!("{folder}.src"));
        std::fs::write(&file, &source)
            .with_context(|| format!("cannot write {}", file.display()))?;
        made.source_bytes += source.len();
    }
    made.seconds = start.elapsed().as_secs_f64();
    Ok(made)
}

/// The source of one bank: its patches, hit lists, events, tracks and code.
fn source(bank: usize, folder: &str, tracks: std::ops::Range<usize>, per_track: usize) -> String {
    let mut out = String::with_capacity(tracks.len() * (per_track * 80 + 400));
    let _ = writeln!(
        out,
        "; {folder}.src — generated by hitbench bench load: tracks {}-{}\n\nLAYOUT ts1\n",
        tracks.start,
        tracks.end.saturating_sub(1)
    );
    for track in tracks.clone() {
        for sample in track * per_track..(track + 1) * per_track {
            let _ = writeln!(
                out,
                "LIST [Patch] {}=0,b{bank}_s{sample},\"sounds\\{folder}\\s_{sample:06}.wav\",0,0,0,0,0",
                sample + 1
            );
        }
        let _ = writeln!(
            out,
            "LIST [GlobalHitList] {}={}-{}",
            hit_list_id(track),
            track * per_track + 1,
            (track + 1) * per_track
        );
    }
    for track in tracks.clone() {
        let id = track_id(track);
        let _ = writeln!(
            out,
            "LIST [EventMapping] t{track}_play=kSndobPlay,{id:#x},0,0,0,0\n\
             LIST [Track] {id:#x}=0,t{track},1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0"
        );
    }
    out.push_str("\nBINARY [\n");
    for track in tracks {
        let _ = writeln!(
            out,
            "t{track}\n\tloadl v1 #{}\t; the track's hit list\n\tsmart_setlist v1\n\
             \tsmart_choose v2\n\tset patch v2\n\tnote_on v2\n\twait_samp\n\tend",
            hit_list_id(track)
        );
    }
    out.push_str("]\n");
    out
}

fn hit_list_id(track: usize) -> usize {
    200_000 + track
}

fn track_id(track: usize) -> usize {
    0x1_0000 + track
}

/// A valid 20 ms WAV (22,050 Hz mono 16-bit, a 1 kHz square wave): small, so the
/// figure is the loader's and the linter's, not the disk's.
fn tiny_wav() -> Vec<u8> {
    const RATE: u32 = 22_050;
    const FRAMES: u32 = 441;
    let data_len = FRAMES * 2;
    let mut bytes = Vec::with_capacity(44 + data_len as usize);
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + data_len).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes()); // PCM
    bytes.extend_from_slice(&1u16.to_le_bytes()); // mono
    bytes.extend_from_slice(&RATE.to_le_bytes());
    bytes.extend_from_slice(&(RATE * 2).to_le_bytes());
    bytes.extend_from_slice(&2u16.to_le_bytes());
    bytes.extend_from_slice(&16u16.to_le_bytes());
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&data_len.to_le_bytes());
    for frame in 0..FRAMES {
        let level: i16 = if (frame * 2000 / RATE).is_multiple_of(2) {
            6_000
        } else {
            -6_000
        };
        bytes.extend_from_slice(&level.to_le_bytes());
    }
    bytes
}

/// What measuring `check` found.
struct Measured {
    /// How it was run.
    how: String,
    /// The best time.
    best: Duration,
    /// Its memory, MB.
    memory_bytes: Option<u64>,
    /// How the memory was measured.
    memory_how: &'static str,
    /// What `check` said.
    summary: String,
}

/// `hitbench check <dir>` as a child process, as a user runs it: wall time from the
/// spawn to its exit, and its peak resident memory as the kernel counted it.
fn check_child(exe: &Path, dir: &Path) -> anyhow::Result<Measured> {
    let mut best = Duration::MAX;
    let mut peak_kb = None;
    let mut summary = String::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let mut child = Command::new(exe)
            .arg("check")
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot run {} check", exe.display()))?;
        let mut out = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            stdout.read_to_string(&mut out)?;
        }
        let (status, max_rss_kb) = peak::wait(&mut child)?;
        best = best.min(start.elapsed());
        peak_kb = peak_kb.max(max_rss_kb);
        let last = out.lines().last().unwrap_or("(nothing)");
        summary = if status.success() {
            format!("it said: {last}")
        } else {
            format!("it failed ({status}), saying: {}", first_and_last(&out))
        };
    }
    Ok(Measured {
        how: format!("`hitbench check` as a child process, spawn to exit, best of {RUNS}"),
        best,
        memory_bytes: peak_kb.map(|kb| kb.saturating_mul(1024)),
        memory_how: "the child's peak resident set, from wait4",
        summary,
    })
}

fn first_and_last(out: &str) -> String {
    let mut lines = out.lines();
    let first = lines.next().unwrap_or("(nothing)");
    match lines.last() {
        Some(last) => format!("{first} … {last}"),
        None => first.to_string(),
    }
}

/// `check`'s work (load and lint) in this process, when this is not the `hitbench`
/// binary (a test runs the command line in-process): the memory is the peak resident
/// set's growth over the first run, the peak reset just before.
fn check_in_process(dirs: &[PathBuf]) -> Measured {
    let mut best = Duration::MAX;
    let mut memory_bytes = None;
    let mut summary = String::new();
    for run in 0..RUNS {
        let before = (run == 0).then(peak::reset_and_read).flatten();
        let start = Instant::now();
        let project = Project::load_dirs(dirs);
        let findings = check::findings(&project);
        best = best.min(start.elapsed());
        if let (Some(before), Some(peak)) = (before, peak::read("VmHWM")) {
            memory_bytes = Some(peak.saturating_sub(before).saturating_mul(1024));
        }
        let errors = findings.iter().filter(|f| f.is_error()).count();
        summary = format!(
            "{errors} errors, {} warnings in {} files",
            findings.len() - errors,
            check::files_checked(&project)
        );
    }
    Measured {
        how: format!(
            "check's load and lint in this process (not the hitbench binary), best of {RUNS}"
        ),
        best,
        memory_bytes,
        memory_how: "growth of this process's peak resident set (/proc/self/status VmHWM)",
        summary,
    }
}

/// Peak resident memory: of a child (wait4's rusage), or of this process
/// (`/proc/self/status`).
mod peak {
    use std::process::{Child, ExitStatus};

    /// A line of `/proc/self/status` in kB (`VmRSS`, `VmHWM`).
    pub(super) fn read(field: &str) -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// Resets this process's peak resident set to what it holds now (Linux 4.0 and
    /// later) and returns that, kB; `None` where that cannot be done.
    pub(super) fn reset_and_read() -> Option<u64> {
        std::fs::write("/proc/self/clear_refs", "5").ok()?;
        read("VmRSS")
    }

    /// Waits for `child` to exit; its status and peak resident set in kB (`None` where
    /// the system does not say).
    #[cfg(unix)]
    pub(super) fn wait(child: &mut Child) -> std::io::Result<(ExitStatus, Option<u64>)> {
        use std::os::unix::process::ExitStatusExt as _;
        let pid = libc::pid_t::try_from(child.id()).map_err(std::io::Error::other)?;
        let mut status: libc::c_int = 0;
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        loop {
            #[allow(unsafe_code)]
            // SAFETY: wait4 writes only through the two pointers, which point at live
            // locals of the types it expects; `pid` is this process's own child, not yet
            // waited for (std's `Child` is never waited on after this).
            let got = unsafe { libc::wait4(pid, &raw mut status, 0, usage.as_mut_ptr()) };
            if got == pid {
                break;
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
        #[allow(unsafe_code)]
        // SAFETY: wait4 returned the child's pid, so it filled the rusage in (and it
        // started zeroed, a valid rusage in any case).
        let usage = unsafe { usage.assume_init() };
        // Linux counts ru_maxrss in kB.
        let kb = u64::try_from(usage.ru_maxrss).ok().filter(|&kb| kb > 0);
        Ok((ExitStatus::from_raw(status), kb))
    }

    /// Waits for `child` to exit; no peak where there is no wait4.
    #[cfg(not(unix))]
    pub(super) fn wait(child: &mut Child) -> std::io::Result<(ExitStatus, Option<u64>)> {
        Ok((child.wait()?, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine_core::toolchain::project::Project;

    #[test]
    fn the_generated_project_loads_and_checks_clean() {
        let scratch = Scratch::new("load-test").unwrap();
        let made = generate(scratch.path(), 150, 5).unwrap();
        assert_eq!((made.samples, made.tracks, made.sources), (750, 150, 2));
        let project = Project::load(scratch.path());
        assert_eq!(project.tracks.len(), 150);
        assert_eq!(project.patches.len(), 750);
        assert_eq!(project.hit_lists.len(), 150);
        assert!(project.patches.values().all(|p| p.file.is_some()));
        let findings = check::findings(&project);
        assert!(findings.is_empty(), "{:?}", findings.first());
    }

    #[test]
    fn ratios_read_as_the_other_benches_say_them() {
        assert_eq!(ratio(0.62, 1.0), "1.6x under the target");
        assert_eq!(ratio(260.0, 200.0), "1.3x over the target");
    }
}
