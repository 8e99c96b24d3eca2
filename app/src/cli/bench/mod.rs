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

/// Seconds of CPU the calling thread has used so far, from the scheduler's own count
/// (`/proc/thread-self/schedstat`, nanoseconds on Linux); `None` where there is none.
pub(super) fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}
