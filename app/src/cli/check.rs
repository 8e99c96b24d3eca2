//! `hitbench check`: load a project and lint it — every load diagnostic and the linter's
//! own (`engine_core::tools::check`), sorted by file and line, each as
//! `file:line: error|warning[rule]: message [code]` (like rustc and gcc, so editors can
//! jump to it), then a summary line. Exit status 1 on errors (or, with `--strict`, on warnings
//! too), 2 on a wrong command line.

use super::Io;
use super::args::{Args, usage};
use engine_core::toolchain::project::LoadWatch;
use engine_core::tools::check::{self, SampleJudging};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

const HELP: &str = "\
Usage: hitbench check <project> [<more data dirs>...] [--strict]

Lint a project: load its data directories in order (later ones override earlier
ones, as the engine does) and report what loads but would sound wrong — unbound
symbols, missing or undecodable samples, unused tracks, patches and hit lists,
events that lead nowhere, dangling table references, duplicate definitions and
sounds controlled by the wrong option (a `vox_*` track in the FX group).

Each problem is one line, `file:line: error|warning[rule]: message [code]`,
sorted by file and line; a summary line follows: `N errors, M warnings in K
files`. docs/check.md describes every rule, docs/diagnostics.md every code.

Options:
  --strict    Treat warnings as errors for the exit status.
  -h, --help  Show this text.

Exit status: 0 clean (or only warnings), 1 errors (or warnings with --strict),
2 a wrong command line.
";

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Runs `hitbench check <project> [<more data dirs>...] [--strict]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    if args.flag(&["--help", "-h"]) {
        write!(io.out, "{HELP}")?;
        return Ok(ExitCode::SUCCESS);
    }
    let strict = args.flag(&["--strict"]);
    let plugins = super::render::plugin_dirs(args)?;
    let mut dirs = Vec::new();
    while let Some(dir) = args.next_positional() {
        dirs.push(PathBuf::from(dir));
    }
    args.finish()?;
    if dirs.is_empty() {
        return Err(usage(
            "check needs a project folder: hitbench check <project> [<more data dirs>...] \
             [--strict] (see hitbench check --help)",
        ));
    }
    let missing: Vec<String> = dirs
        .iter()
        .filter(|d| !d.is_dir())
        .map(|d| format!("`{}`", d.display()))
        .collect();
    if !missing.is_empty() {
        return Err(usage(format!(
            "no such project folder: {}",
            missing.join(", ")
        )));
    }

    dirs.extend(plugins);
    // The samples are judged from the moment the load has found them, while it goes on.
    let judging = Arc::new(Mutex::new(None));
    let watch = {
        let judging = Arc::clone(&judging);
        let dirs = dirs.clone();
        LoadWatch::with_samples_hook(Box::new(move |samples, seen| {
            let started = SampleJudging::start(&dirs, samples, seen);
            *judging.lock().unwrap_or_else(PoisonError::into_inner) = Some(started);
        }))
    };
    let project = super::progress::load_project_watched(io, &dirs, watch);
    let judging = judging
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    let findings = match judging {
        Some(judging) => check::findings_judged(&project, judging),
        None => check::findings(&project),
    };
    for finding in &findings {
        writeln!(io.out, "{finding}")?;
    }
    let errors = findings.iter().filter(|f| f.is_error()).count();
    let warnings = findings.len() - errors;
    writeln!(
        io.out,
        "{}, {} in {}",
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings"),
        plural(check::files_checked(&project), "file", "files"),
    )?;
    // The answer is out and the process ends: its memory goes back to the system at
    // once, where freeing a large project piece by piece (100,000 samples: a tenth of a
    // second) would only keep the user waiting for the exit.
    std::mem::forget(project);
    Ok(if errors > 0 || (strict && warnings > 0) {
        ExitCode::from(super::EXIT_INPUT_ERRORS)
    } else {
        ExitCode::SUCCESS
    })
}
