//! `hitbench bench <what>`: the project's speed targets, printed as per-item figures
//! and ratios against their targets (never asserted in tests): `asm` (assembler
//! throughput), `vm` (the runtime), `mix` (the mixer against kira and rodio, decode
//! throughput, cache hit latency), `reload` (from a file write to the new version
//! live), `ui` (the workbench's frame time with a million trace records; with
//! `--window`, the CPU the workbench uses in a real window, idle and playing) and `load`
//! (`check` on a project of 100,000 samples and 20,000 tracks, and the workbench's cold
//! start to its first painted frame).

mod asm;
mod bandwidth;
mod cold_start;
mod cores;
mod load;
mod mix;
mod paint;
mod paint_gl;
mod painter;
mod reload;
mod scratch;
mod ui;
mod vm;
mod window;

use super::Io;
use super::args::{Args, usage};
use std::process::ExitCode;

/// How much work a benchmark does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// The sizes the targets are stated for.
    Full,
    /// A hundredth of the work: the same code paths, for tests and quick looks.
    Quick,
}

impl Size {
    /// `n`, or a hundredth of it (at least 1) when quick.
    pub fn scale(self, n: usize) -> usize {
        match self {
            Size::Full => n,
            Size::Quick => (n / 100).max(1),
        }
    }
}

/// Runs `hitbench bench <asm|vm|mix|reload|ui|load> [--quick]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let size = if args.flag(&["--quick"]) {
        Size::Quick
    } else {
        Size::Full
    };
    let window = args.flag(&["--window"]);
    let what = args.next_positional().ok_or_else(|| {
        usage("bench needs what to measure: hitbench bench asm|vm|mix|reload|ui|load")
    })?;
    args.finish()?;
    if size == Size::Quick {
        writeln!(
            io.out,
            "note: --quick runs a hundredth of the work; the figures are indicative only"
        )?;
    }
    if cfg!(debug_assertions) {
        writeln!(
            io.out,
            "note: this is a debug build; figures are several times lower than in a release build \
             (cargo run --release -p hitbench -- bench {what})"
        )?;
    }
    match what.as_str() {
        "asm" => asm::run(io, size)?,
        "vm" => vm::run(io, size)?,
        "mix" => mix::run(io, size)?,
        "reload" => reload::run(io, size)?,
        "ui" if window => window::run(io, size)?,
        "ui" => ui::run(io, size)?,
        "load" => load::run(io, size)?,
        other => {
            return Err(usage(format!(
                "unknown benchmark `{other}` (available: asm, vm, mix, reload, ui, load)"
            )));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Seconds of CPU the calling thread has used so far, to the nanosecond
/// (`CLOCK_THREAD_CPUTIME_ID`, which counts the time it has been running up to now —
/// the scheduler's own count in `/proc/thread-self/schedstat` moves only at its ticks,
/// every 4 ms on a 250 Hz kernel: 2 % of a dispatch run); `None` where there is none.
#[cfg(unix)]
pub(super) fn thread_cpu_seconds() -> Option<f64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    #[allow(unsafe_code)]
    // SAFETY: clock_gettime writes only through the pointer, which points at a live
    // timespec.
    let failed = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut now) };
    (failed == 0).then(|| now.tv_sec as f64 + now.tv_nsec as f64 / 1e9)
}

/// No per-thread CPU clock here: the callers use the wall clock.
#[cfg(not(unix))]
pub(super) fn thread_cpu_seconds() -> Option<f64> {
    None
}
