//! Fuzzing every parser with structure-aware generators (`docs/fuzzing.md`): MakeTrax
//! source, `.hit`, `.hsm`, `.hot`, `.evt`, hit lists, `.fsc`, `.sym`, `.hdb`, lot files,
//! `world.ini`, scripts, audio headers, and whole projects loaded, checked and played.
//!
//! A test binary with its own `main` (`harness = false`): the targets run one after
//! another on one thread, each case under a counting allocator (its peak must stay
//! within the target's memory bound), a watchdog (a case running past its time limit
//! ends the run, with the input printed and saved) and `catch_unwind` (a panic is a
//! failure, reported with the input after proptest has shrunk it). Any failure makes the
//! process exit nonzero, so `cargo test` fails.
//!
//! Environment: `HITBENCH_FUZZ_CASES=<n>` cases per target (default: each target's own,
//! chosen so the whole run takes well under a minute in a debug build),
//! `HITBENCH_FUZZ_SEED=<u64>` another seed, `HITBENCH_FUZZ_TARGET=<name>[,<name>…]`
//! only those targets, `HITBENCH_FUZZ_REPRO=<dir>` run the one named target on a saved
//! input, `HITBENCH_FUZZ_TRACE=1` save each input before running it. A command-line
//! word that is not a flag filters targets by name, as libtest filters tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod alloc;
mod asm;
mod audio;
mod formats;
mod harness;
mod hit;
mod mutate;
mod project;
mod script;
mod words;
mod world;

use harness::{MIB, Settings, Target, Watchdog};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

/// The seed used unless `HITBENCH_FUZZ_SEED` gives another.
pub const DEFAULT_SEED: u64 = 0x4849_5442_454e_4348;

/// Every target, in the order they run.
fn targets() -> Vec<&'static Target> {
    vec![
        &asm::TARGET,
        &hit::TARGET,
        &formats::HSM,
        &formats::HOT,
        &formats::EVT,
        &formats::HITLIST_TEXT,
        &formats::HITLIST_BINARY,
        &formats::FSC,
        &formats::SYM,
        &formats::HDB,
        &world::LOT,
        &world::WORLD_INI,
        &world::SHORTCUT,
        &script::TARGET,
        &audio::TARGET,
        &project::TARGET,
    ]
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn settings() -> Result<Settings, String> {
    let seed = match env("HITBENCH_FUZZ_SEED") {
        Some(text) => text
            .trim()
            .parse()
            .map_err(|_| format!("HITBENCH_FUZZ_SEED must be a whole number, not `{text}`"))?,
        None => DEFAULT_SEED,
    };
    let cases =
        match env("HITBENCH_FUZZ_CASES") {
            Some(text) => Some(text.trim().parse().map_err(|_| {
                format!("HITBENCH_FUZZ_CASES must be a whole number, not `{text}`")
            })?),
            None => None,
        };
    let failures = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map_or_else(
            || PathBuf::from("fuzz-failures"),
            |t| t.join("fuzz-failures"),
        );
    Ok(Settings {
        seed,
        cases,
        trace: env("HITBENCH_FUZZ_TRACE").is_some_and(|v| v != "0"),
        failures,
    })
}

fn main() -> ExitCode {
    let settings = match settings() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fuzz: {e}");
            return ExitCode::FAILURE;
        }
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = targets();
    if args.iter().any(|a| a == "--list") {
        for t in &all {
            println!("{}: test", t.name);
        }
        return ExitCode::SUCCESS;
    }
    let filters: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    let wanted: Option<Vec<String>> =
        env("HITBENCH_FUZZ_TARGET").map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    if let Some(names) = &wanted
        && let Some(unknown) = names.iter().find(|n| !all.iter().any(|t| t.name == *n))
    {
        let known: Vec<&str> = all.iter().map(|t| t.name).collect();
        eprintln!(
            "fuzz: no target `{unknown}` (targets: {})",
            known.join(", ")
        );
        return ExitCode::FAILURE;
    }
    let chosen: Vec<&Target> = all
        .into_iter()
        .filter(|t| {
            wanted
                .as_ref()
                .is_none_or(|w| w.iter().any(|n| n == t.name))
        })
        .filter(|t| filters.is_empty() || filters.iter().any(|f| t.name.contains(f)))
        .collect();

    harness::quiet_panics();
    let watchdog = Watchdog::start(settings.clone());

    if let Some(dir) = env("HITBENCH_FUZZ_REPRO") {
        let [target] = chosen.as_slice() else {
            eprintln!("fuzz: HITBENCH_FUZZ_REPRO needs exactly one HITBENCH_FUZZ_TARGET");
            return ExitCode::FAILURE;
        };
        return if harness::reproduce(target, &PathBuf::from(dir), &settings, &watchdog) {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }

    println!(
        "fuzz: {} target(s), seed {}{}",
        chosen.len(),
        settings.seed,
        settings
            .cases
            .map_or(String::new(), |c| format!(", {c} cases each"))
    );
    let started = Instant::now();
    let mut failed = Vec::new();
    for target in &chosen {
        println!("fuzz {}: {} …", target.name, target.about);
        let outcome = harness::run_target(target, &settings, &watchdog);
        println!(
            "fuzz {:<16} {:>6} cases {:>7.2} s  peak {:>8.2} MiB  (bound {}, {:.0} s/case)  {}",
            target.name,
            outcome.cases,
            outcome.elapsed.as_secs_f64(),
            outcome.peak as f64 / MIB as f64,
            target.memory,
            target.time.as_secs_f64(),
            if outcome.passed { "ok" } else { "FAILED" }
        );
        if !outcome.passed {
            failed.push(target.name);
        }
    }
    harness::remove_scratch_root();
    println!(
        "fuzz: {} target(s) in {:.1} s: {}",
        chosen.len(),
        started.elapsed().as_secs_f64(),
        if failed.is_empty() {
            "ok".to_string()
        } else {
            format!("FAILED: {}", failed.join(", "))
        }
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
