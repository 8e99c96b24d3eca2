//! `hitbench render`: plays a timed script of console commands against a project,
//! offline, into a WAV file — as fast as the machine allows, bit-identical for the same
//! project, script and seed.

use super::Io;
use super::args::{Args, usage};
use anyhow::Context as _;
use engine_core::command::{TimedCommand, parse_script};
use engine_core::offline::{self, RenderOptions};
use engine_core::project::Project;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `hitbench render <project> --script <file> -o <out.wav> [--seed N] [--rate R]
/// [--duration S] [--trace]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let script_path = args
        .value(&["--script", "-s"])?
        .map(PathBuf::from)
        .ok_or_else(|| usage("render needs a script: --script <file>"))?;
    let out = args
        .value(&["-o", "--output"])?
        .map(PathBuf::from)
        .ok_or_else(|| usage("render needs an output file: -o <out.wav>"))?;
    let seed = parse_number(args.value(&["--seed"])?, "--seed")?.map_or(0, |v| v as u64);
    let rate = parse_number(args.value(&["--rate"])?, "--rate")?.map_or(48_000.0, |v| v);
    if !(8_000.0..=192_000.0).contains(&rate) {
        return Err(usage(format!(
            "--rate must be between 8000 and 192000, not {rate}"
        )));
    }
    let duration = parse_number(args.value(&["--duration"])?, "--duration")?;
    let show_trace = args.flag(&["--trace"]);
    let project_dir = args.next_positional().map(PathBuf::from).ok_or_else(|| {
        usage(
            "render needs a project folder: hitbench render <project> --script <file> -o <out.wav>",
        )
    })?;
    args.finish()?;

    let Some(script) = load_script(&script_path, io)? else {
        return Ok(ExitCode::from(super::EXIT_INPUT_ERRORS));
    };
    let project = load_project(&project_dir, io)?;
    let options = RenderOptions {
        sample_rate: rate as u32,
        seed,
        duration,
        ..RenderOptions::default()
    };
    let report = offline::render(project, &script, &out, options).map_err(anyhow::Error::msg)?;
    for line in &report.log {
        writeln!(io.out, "{line}")?;
    }
    if show_trace {
        for record in &report.trace {
            writeln!(io.out, "{record}")?;
        }
    }
    let peak_db = if report.peak > 0.0 {
        format!("{:.1} dBFS", 20.0 * report.peak.log10())
    } else {
        "silent".to_string()
    };
    writeln!(
        io.out,
        "wrote {}: {:.2} s, {} Hz stereo 16-bit, {} note(s) played, {} dropped, peak {peak_db}",
        out.display(),
        report.seconds,
        options.sample_rate,
        report.started,
        report.dropped,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Reads and parses a timed script, printing its problems; `None` if it has errors.
pub(super) fn load_script(
    path: &Path,
    io: &mut Io<'_>,
) -> anyhow::Result<Option<Vec<TimedCommand>>> {
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (script, problems) = parse_script(&String::from_utf8_lossy(&text), path);
    for problem in &problems {
        writeln!(io.err, "{problem}")?;
    }
    if problems.iter().any(|d| d.is_error()) {
        writeln!(
            io.err,
            "{}: the script has errors; nothing played",
            path.display()
        )?;
        return Ok(None);
    }
    Ok(Some(script))
}

/// Loads a project, printing its problems (what loaded is still used).
pub(super) fn load_project(dir: &Path, io: &mut Io<'_>) -> anyhow::Result<Project> {
    let project = Project::load(dir);
    for problem in &project.diagnostics {
        writeln!(io.err, "{problem}")?;
    }
    let errors = project.diagnostics.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        writeln!(
            io.err,
            "{}: {errors} error(s) in the project; using what loaded",
            dir.display()
        )?;
    }
    Ok(project)
}

/// Parses an optional non-negative number option.
pub(super) fn parse_number(text: Option<String>, what: &str) -> anyhow::Result<Option<f64>> {
    text.map(|t| {
        t.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| usage(format!("{what} must be a non-negative number, not `{t}`")))
    })
    .transpose()
}
