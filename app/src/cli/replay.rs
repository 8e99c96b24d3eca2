//! `hitbench replay` and `hitbench why`: a capture's inputs run again against the project
//! as it is now (or with a setting changed) and its decisions compared; one trigger's
//! decision explained.

use super::args::usage;
use super::render::{load_project, parse_seed, plugin_dirs};
use super::{EXIT_TROUBLE, Io};
use engine_core::host::capture;
use engine_core::host::replay::{self, ReplaySettings};
use engine_core::toolchain::fsrules;
use engine_core::toolchain::project::Project;
use engine_core::tools::why::{Decision, decisions};
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs `hitbench replay <capture> [--project DIR] [--voices N] [--seed S] [--cache-mb N]
/// [--diff]`.
pub fn run(args: &mut super::Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let project_dir = args.value(&["--project"])?.map(PathBuf::from);
    let voices = super::render::voice_limit(args)?;
    let seed = args
        .value(&["--seed"])?
        .map(|t| parse_seed(Some(t)))
        .transpose()?;
    let show_diff = args.flag(&["--diff"]);
    let plugins = plugin_dirs(args)?;
    let cache_budget = super::render::cache_budget(args)?;
    let path = args
        .next_positional()
        .map(PathBuf::from)
        .ok_or_else(|| usage("replay needs a capture: hitbench replay <file.hbcap>"))?;
    args.finish()?;
    let capture = match capture::read(&path) {
        Ok(capture) => capture,
        Err(e) => return trouble(io, &e.to_string()),
    };
    let project = match &project_dir {
        Some(dir) => load_project(dir, &plugins, io)?,
        // The capture's folders (its plug-ins with them), found and checked, then any
        // more given.
        None => match capture::project_dirs(&capture, &path) {
            Ok(dirs) => Project::load_dirs(&[dirs, plugins].concat()),
            Err(e) => return trouble(io, &e.to_string()),
        },
    };
    for change in capture::changed_files(&capture.header.files, &capture::hash_files(&project.dirs))
    {
        writeln!(io.out, "project {change}")?;
    }
    let settings = ReplaySettings {
        seed,
        voices,
        cache_budget,
    };
    let replayed = match replay::replay(&capture, &path, project, settings) {
        Ok(replayed) => replayed,
        Err(message) => return trouble(io, &message),
    };
    writeln!(
        io.out,
        "replayed {} input(s) over {:.2} s: {} trigger(s) now, {} in the capture",
        replayed.inputs,
        replayed.report.seconds,
        decisions(&replayed.records).len(),
        decisions(&capture.records).len()
    )?;
    if let Some(cut) = capture.cut_off_at() {
        writeln!(
            io.out,
            "{} was cut off (it has no end): it holds nothing after {:.3} s, so only what \
             was decided before then is compared",
            path.display(),
            cut.samples() as f64 / f64::from(capture.header.sample_rate.max(1))
        )?;
    }
    if !show_diff {
        return Ok(ExitCode::SUCCESS);
    }
    let changes = replay::differences(&capture, &replayed.records);
    for change in &changes {
        writeln!(io.out, "{}", change.line(capture.header.sample_rate))?;
    }
    if changes.is_empty() {
        writeln!(io.out, "no decision differs")?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(io.out, "{}", engine_core::tools::diff::summary(&changes))?;
        Ok(ExitCode::from(1))
    }
}

fn trouble(io: &mut Io<'_>, message: &str) -> anyhow::Result<ExitCode> {
    writeln!(io.err, "hitbench: error: {message}")?;
    Ok(ExitCode::from(EXIT_TROUBLE))
}

/// Runs `hitbench why <capture> <event name | seconds>`.
pub fn why(args: &mut super::Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let path = args
        .next_positional()
        .map(PathBuf::from)
        .ok_or_else(|| usage("why needs a capture: hitbench why <file.hbcap> <event|seconds>"))?;
    let target = args.next_positional().ok_or_else(|| {
        usage("why needs an event name or a time: hitbench why <file.hbcap> <event|seconds>")
    })?;
    args.finish()?;
    let capture = match capture::read(&path) {
        Ok(capture) => capture,
        Err(e) => return trouble(io, &format!("cannot explain: {e}")),
    };
    let rate = capture.header.sample_rate;
    let all = decisions(&capture.records);
    let end = capture.reaches();
    let chosen: Vec<&Decision> = match target.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
            let at = (seconds * f64::from(rate)).round() as u64;
            if let Some(end) = end.filter(|end| end.samples() < at) {
                let how = match capture.end {
                    Some(_) => "ends",
                    None => "was cut off (it has no end)",
                };
                writeln!(
                    io.err,
                    "hitbench: {} {how} at {:.3} s, before {seconds} s: the last triggers in it",
                    path.display(),
                    end.samples() as f64 / f64::from(rate.max(1))
                )?;
            }
            let last = all
                .iter()
                .filter(|d| d.time.samples() <= at)
                .map(|d| d.time)
                .max();
            all.iter().filter(|d| Some(d.time) == last).collect()
        }
        _ => all
            .iter()
            .filter(|d| d.event.eq_ignore_ascii_case(&target))
            .collect(),
    };
    if chosen.is_empty() {
        let mut events: Vec<&str> = all.iter().map(|d| &*d.event).collect();
        events.sort_unstable();
        events.dedup();
        events.sort_by_key(|e| e.to_ascii_lowercase());
        let hint = match engine_core::toolchain::suggest::closest(&target, events.iter().copied()) {
            Some(near) => format!("; did you mean `{near}`?"),
            None if target.parse::<f64>().is_ok() => String::new(),
            None => format!(
                "; it has triggers of {} event(s){}",
                events.len(),
                match events.as_slice() {
                    [] => String::new(),
                    few if few.len() <= 8 => format!(": {}", few.join(", ")),
                    many => format!(", e.g. {}", many[..8].join(", ")),
                }
            ),
        };
        writeln!(
            io.err,
            "hitbench: no trigger of `{target}` in {} (events are named as triggered; a time is in seconds){hint}",
            path.display()
        )?;
        return Ok(ExitCode::from(1));
    }
    for decision in chosen {
        for line in decision.explain(rate) {
            writeln!(io.out, "{line}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `hitbench capture-text <capture> [-o out.jsonl]`: the capture as JSON lines, to
/// standard output or a file; it reads back like the capture itself.
pub fn capture_text(args: &mut super::Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let out = args.value(&["-o", "--output"])?.map(PathBuf::from);
    let path = args.next_positional().map(PathBuf::from).ok_or_else(|| {
        usage("capture-text needs a capture: hitbench capture-text <file.hbcap> [-o out.jsonl]")
    })?;
    args.finish()?;
    if let Some(file) = &out {
        super::paths::check_output(file, &[&path])?;
    }
    let capture = match capture::read(&path) {
        Ok(capture) => capture,
        Err(e) => return trouble(io, &e.to_string()),
    };
    match &out {
        Some(file) => {
            fsrules::write_output_with(file, &[&path], |writer| {
                capture::write_text(&capture, writer)
            })
            .map_err(super::paths::output_error)?;
            writeln!(io.out, "wrote {}", file.display())?;
        }
        None => capture::write_text(&capture, io.out)?,
    }
    Ok(ExitCode::SUCCESS)
}
