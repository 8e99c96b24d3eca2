//! `hitbench render`: plays a timed script of console commands against a project,
//! offline, into a WAV file — as fast as the machine allows, bit-identical for the same
//! project, script and seed. Runtime faults and the world's errors always go to standard
//! error as they happen; `--trace` prints every trace record to standard output;
//! `--loudness` prints the output's loudness and true peak after the render; `--capture`
//! writes the inputs, settings, project hashes and every decision to a capture file
//! (`docs/capture.md`).

use super::Io;
use super::args::{Args, usage};
use super::progress::Bar;
use engine_core::host::capture::{CaptureError, CaptureWriter, Header};
use engine_core::host::command::{
    MAX_SCRIPT_SECONDS, TimedCommand, parse_script, read_script, savelot_refusals,
};
use engine_core::host::keyframe::Keyframe;
use engine_core::host::offline::{
    self, Flow, RenderOptions, RenderProgress, SAMPLE_RATES, Taps, VOICE_LIMITS,
};
use engine_core::host::session::SaveLotPolicy;
use engine_core::runtime::{SampleTime, TraceKind, TraceRecord};
use engine_core::toolchain::fsrules;
use engine_core::toolchain::project::Project;
use engine_core::world::cache_settings::{MAX_CACHE_MB, budget_bytes};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `hitbench render <project> --script <file> -o <out.wav> [--seed N] [--rate R]
/// [--duration S] [--trace] [--allow-savelot] [--loudness] [--capture <file.hbcap>]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let script_path = args
        .value(&["--script", "-s"])?
        .map(PathBuf::from)
        .ok_or_else(|| usage("render needs a script: --script <file>"))?;
    let out = args
        .value(&["-o", "--output"])?
        .map(PathBuf::from)
        .ok_or_else(|| usage("render needs an output file: -o <out.wav>"))?;
    let seed = parse_seed(args.value(&["--seed"])?)?;
    let plugins = plugin_dirs(args)?;
    let cache_budget = cache_budget(args)?;
    let rate = parse_number(args.value(&["--rate"])?, "--rate")?.map_or(48_000.0, |v| v);
    let (low, high) = (*SAMPLE_RATES.start(), *SAMPLE_RATES.end());
    if !(f64::from(low)..=f64::from(high)).contains(&rate) {
        return Err(usage(format!(
            "--rate must be between {low} and {high}, not {rate}"
        )));
    }
    let duration = parse_number(args.value(&["--duration"])?, "--duration")?;
    let show_trace = args.flag(&["--trace"]);
    let allow_savelot = args.flag(&["--allow-savelot"]);
    let loudness = args.flag(&["--loudness"]);
    let capture_path = args.value(&["--capture"])?.map(PathBuf::from);
    let project_dir = args.next_positional().map(PathBuf::from).ok_or_else(|| {
        usage(
            "render needs a project folder: hitbench render <project> --script <file> -o <out.wav>",
        )
    })?;
    args.finish()?;
    check_outputs(&out, capture_path.as_deref(), &script_path)?;

    let Some(script) = load_script(&script_path, allow_savelot, io)? else {
        return Ok(ExitCode::from(super::EXIT_INPUT_ERRORS));
    };
    let project = load_project(&project_dir, &plugins, io)?;
    let options = RenderOptions {
        sample_rate: rate as u32,
        seed,
        duration,
        save_lot: savelot_policy(allow_savelot),
        loudness,
        cache_budget,
        ..RenderOptions::default()
    };
    let capture = match &capture_path {
        Some(path) => Some(start_capture(path, &project, &script, options)?),
        None => None,
    };
    // Both taps write into the one capture; the first write error stops it.
    let capture = RefCell::new(capture.map(|writer| (writer, None)));
    let write = |step: &mut dyn FnMut(&mut CaptureWriter) -> Result<(), CaptureError>| {
        if let Some((writer, error @ None)) = &mut *capture.borrow_mut()
            && let Err(e) = step(writer)
        {
            *error = Some(e);
        }
    };
    let bar = Bar::new(io, &format!("rendering {}", out.display()), 1);
    let mut on_record = |record: TraceRecord| {
        // Standard output or error gone: nothing left to tell.
        let _ = bar.around(|| print_record(&record, show_trace, io));
        let mut record = Some(record);
        write(&mut |writer| record.take().map_or(Ok(()), |r| writer.record(r)));
    };
    let mut on_keyframe = |keyframe: Keyframe| {
        let mut keyframe = Some(keyframe);
        write(&mut |writer| keyframe.take().map_or(Ok(()), |k| writer.keyframe(k)));
    };
    let mut on_progress = |at: RenderProgress| {
        bar.set_total(at.total_frames);
        bar.set(at.frames);
        Flow::Continue
    };
    let taps = Taps {
        record: &mut on_record,
        keyframe: if capture_path.is_some() {
            Some(&mut on_keyframe)
        } else {
            None
        },
        progress: Some(&mut on_progress),
    };
    let report =
        offline::render_tapped(project, &script, &out, options, taps).map_err(anyhow::Error::msg);
    drop(bar);
    let report = report?;
    if let (Some((writer, error)), Some(path)) = (capture.into_inner(), &capture_path) {
        if let Some(e) = error {
            return Err(anyhow::Error::new(e).context("the capture is incomplete"));
        }
        writer.finish(SampleTime::from_samples(report.frames))?;
        writeln!(io.out, "captured {}", path.display())?;
    }
    say_report(&report, &out, options.sample_rate, &script_path, io)
}

/// What a render did: its log, the file written, its loudness when asked for; a failed
/// `savelot` of the script is an error and exit status 1.
fn say_report(
    report: &offline::RenderReport,
    out: &Path,
    rate: u32,
    script_path: &Path,
    io: &mut Io<'_>,
) -> anyhow::Result<ExitCode> {
    for line in &report.log {
        writeln!(io.out, "{line}")?;
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
        rate,
        report.started,
        report.dropped,
    )?;
    if let Some(loudness) = &report.loudness {
        super::compare::write_loudness(loudness, "", io.out)?;
    }
    // The sound is written, but a lot the script asked to save is not: say so, and fail.
    if !report.failed_saves.is_empty() {
        for failed in &report.failed_saves {
            writeln!(
                io.err,
                "hitbench: error: {}: savelot: {failed}",
                script_path.display()
            )?;
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The output and the capture under the output rule, before any work; never one file.
fn check_outputs(out: &Path, capture: Option<&Path>, script: &Path) -> anyhow::Result<()> {
    super::paths::check_output(out, &[script])?;
    if let Some(path) = capture {
        super::paths::check_output(path, &[script])?;
        if fsrules::lexical_absolute(path) == fsrules::lexical_absolute(out) {
            return Err(usage(format!(
                "{} is both the output and the capture: choose two files",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Creates the capture file: its header (settings and the project's file hashes) and the
/// script's inputs.
fn start_capture(
    path: &Path,
    project: &Project,
    script: &[TimedCommand],
    options: RenderOptions,
) -> anyhow::Result<CaptureWriter> {
    let mut writer = CaptureWriter::create(path, &Header::for_render(project, &options))?;
    for timed in script {
        writer.input(timed.time, timed.command.to_string())?;
    }
    Ok(writer)
}

/// What `--allow-savelot` lets a script do: save inside the project, or nothing.
pub(super) fn savelot_policy(allowed: bool) -> SaveLotPolicy {
    if allowed {
        SaveLotPolicy::InsideProject
    } else {
        SaveLotPolicy::Denied
    }
}

/// Prints a trace record: an error always, to standard error; every record to standard
/// output with `--trace`.
pub(super) fn print_record(
    record: &TraceRecord,
    show_trace: bool,
    io: &mut Io<'_>,
) -> std::io::Result<()> {
    if record.kind == TraceKind::Error {
        writeln!(io.err, "{record}")?;
    }
    if show_trace {
        writeln!(io.out, "{record}")?;
    }
    Ok(())
}

/// Reads and parses a timed script, printing its problems; `None` if it has errors.
/// `savelot` lines are errors unless `allow_savelot`.
pub(super) fn load_script(
    path: &Path,
    allow_savelot: bool,
    io: &mut Io<'_>,
) -> anyhow::Result<Option<Vec<TimedCommand>>> {
    let text = read_script(path).map_err(|e| anyhow::anyhow!("cannot read the script {e}"))?;
    let (script, mut problems) = parse_script(&text, path);
    if !allow_savelot {
        problems.extend(savelot_refusals(&script, path));
        problems.sort_by_key(|d| d.line);
    }
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

/// `--cache-mb N`: the resource cache's budget in MiB, over `world.ini [Cache] BudgetMB`.
pub(super) fn cache_budget(args: &mut Args) -> anyhow::Result<Option<usize>> {
    match parse_number(args.value(&["--cache-mb"])?, "--cache-mb")? {
        None => Ok(None),
        Some(mb) => budget_bytes(mb).map(Some).ok_or_else(|| {
            usage(format!(
                "--cache-mb must be more than 0 (at least a byte) and at most {MAX_CACHE_MB}, not {mb}"
            ))
        }),
    }
}

/// `--voices N`: the Box-X voice limit, within [`VOICE_LIMITS`].
pub(super) fn voice_limit(args: &mut Args) -> anyhow::Result<Option<usize>> {
    args.value(&["--voices"])?
        .map(|t| {
            t.parse::<usize>()
                .ok()
                .filter(|v| VOICE_LIMITS.contains(v))
                .ok_or_else(|| {
                    let (low, high) = (VOICE_LIMITS.start(), VOICE_LIMITS.end());
                    usage(format!("--voices must be from {low} to {high}, not `{t}`"))
                })
        })
        .transpose()
}

/// The `--plugin DIR` folders (repeatable, in order: a later one wins), each checked to
/// be a folder.
pub(super) fn plugin_dirs(args: &mut Args) -> anyhow::Result<Vec<PathBuf>> {
    let dirs: Vec<PathBuf> = args
        .values(&["--plugin"])?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    if let Some(missing) = dirs.iter().find(|d| !d.is_dir()) {
        return Err(usage(format!(
            "no such plug-in folder: `{}`",
            missing.display()
        )));
    }
    Ok(dirs)
}

/// Loads a project, printing its problems (what loaded is still used). A project folder
/// that is not there is a command-line error: nothing would load, and a run of nothing
/// (a silent render, a replay where every trigger is unknown) would pass for one.
pub(super) fn load_project(
    dir: &Path,
    plugins: &[PathBuf],
    io: &mut Io<'_>,
) -> anyhow::Result<Project> {
    project_folder(dir)?;
    let dirs: Vec<PathBuf> = std::iter::once(dir.to_path_buf())
        .chain(plugins.iter().cloned())
        .collect();
    let project = super::progress::load_project(io, &dirs);
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

/// Checks that the project folder given is one (a command-line error if not).
pub(super) fn project_folder(dir: &Path) -> anyhow::Result<()> {
    if dir.is_dir() {
        Ok(())
    } else {
        Err(usage(format!(
            "no such project folder: `{}`",
            dir.display()
        )))
    }
}

/// Parses `--seed`: a whole number (0 when not given), read exactly.
pub(super) fn parse_seed(text: Option<String>) -> anyhow::Result<u64> {
    text.map_or(Ok(0), |t| {
        t.parse::<u64>().map_err(|_| {
            usage(format!(
                "--seed must be a whole number from 0 to {}, not `{t}`",
                u64::MAX
            ))
        })
    })
}

/// Parses an optional length in seconds, at most [`MAX_SCRIPT_SECONDS`].
pub(super) fn parse_seconds(text: Option<String>, what: &str) -> anyhow::Result<Option<f64>> {
    let seconds = parse_number(text, what)?;
    if let Some(s) = seconds.filter(|s| *s > MAX_SCRIPT_SECONDS) {
        return Err(usage(format!(
            "{what} must be at most {MAX_SCRIPT_SECONDS} s (24 h), not {s}"
        )));
    }
    Ok(seconds)
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
