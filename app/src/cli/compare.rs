//! `hitbench compare`: two audio files (two renders, usually) side by side — each one's
//! integrated and largest short-term and momentary loudness and true peak, the
//! differences, and the first time the two differ beyond a threshold (the rule is in
//! `engine_core::tools::compare`). Exit status as `cmp` and `diff` have it: 0 when they
//! do not differ, 1 when they do, 2 when they cannot be compared.

use super::Io;
use super::args::{Args, usage};
use engine_core::sound::output::{Level, Loudness};
use engine_core::tools::compare::{
    CompareOptions, Comparison, DifferenceKind, FileFigures, compare,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status when the files differ beyond the threshold.
const EXIT_DIFFER: u8 = 1;

/// Runs `hitbench compare <a> <b> [--threshold <dB>] [--window <ms>]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let threshold_db = parse_threshold(args.value(&["--threshold", "-t"])?)?;
    let window_ms = parse_window(args.value(&["--window", "-w"])?)?;
    let a = args.next_positional().map(PathBuf::from);
    let b = args.next_positional().map(PathBuf::from);
    args.finish()?;
    let (Some(a), Some(b)) = (a, b) else {
        return Err(usage(
            "compare needs two audio files: hitbench compare <a.wav> <b.wav> \
             [--threshold <dB>] [--window <ms>]",
        ));
    };
    let options = CompareOptions {
        threshold_db,
        window_ms,
    };
    let comparison = match compare(&a, &b, &options) {
        Ok(comparison) => comparison,
        Err(error) => {
            writeln!(io.err, "hitbench: error: {error}")?;
            return Ok(ExitCode::from(super::EXIT_TROUBLE));
        }
    };
    if let Err(error) = report(&comparison, io) {
        let _ = writeln!(io.err, "hitbench: error: cannot write the report: {error}");
        return Ok(ExitCode::from(super::EXIT_TROUBLE));
    }
    Ok(if comparison.differ() {
        ExitCode::from(EXIT_DIFFER)
    } else {
        ExitCode::SUCCESS
    })
}

/// Parses `--threshold`: dBFS from −200 to 0 (default −60).
fn parse_threshold(text: Option<String>) -> anyhow::Result<f64> {
    let Some(text) = text else {
        return Ok(CompareOptions::DEFAULT_THRESHOLD_DB);
    };
    text.trim_end_matches("dBFS")
        .trim_end_matches("dB")
        .parse::<f64>()
        .ok()
        .filter(|v| (-200.0..=0.0).contains(v))
        .ok_or_else(|| {
            usage(format!(
                "--threshold must be a level in dBFS from -200 to 0 (e.g. -60), not `{text}`"
            ))
        })
}

/// Parses `--window`: milliseconds from 0.1 to 1000 (default 10).
fn parse_window(text: Option<String>) -> anyhow::Result<f64> {
    let Some(text) = text else {
        return Ok(CompareOptions::DEFAULT_WINDOW_MS);
    };
    let (min, max) = (CompareOptions::MIN_WINDOW_MS, CompareOptions::MAX_WINDOW_MS);
    text.trim_end_matches("ms")
        .parse::<f64>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| {
            usage(format!(
                "--window must be a length in milliseconds from {min} to {max}, not `{text}`"
            ))
        })
}

/// Prints both files' figures, their differences and where they first differ.
fn report(comparison: &Comparison, io: &mut Io<'_>) -> std::io::Result<()> {
    describe("a", &comparison.a, io)?;
    describe("b", &comparison.b, io)?;
    let (a, b) = (&comparison.a.loudness, &comparison.b.loudness);
    writeln!(
        io.out,
        "b - a: integrated {}, max short-term {}, max momentary {}, true peak {}",
        change(a.integrated, b.integrated, "LU"),
        change(a.max_short_term, b.max_short_term, "LU"),
        change(a.max_momentary, b.max_momentary, "LU"),
        change(a.true_peak, b.true_peak, "dB"),
    )?;
    let options = &comparison.options;
    let rule = format!(
        "{:.1} dBFS, the RMS of a - b over {} ms",
        options.threshold_db, options.window_ms
    );
    let (largest, at) = comparison.largest;
    if !largest.is_silent() {
        writeln!(
            io.out,
            "largest difference: {} dBFS over the {} ms from {at:.3} s",
            largest, options.window_ms
        )?;
    }
    match &comparison.first_difference {
        None => writeln!(io.out, "no difference above {rule}"),
        Some(first) => match first.kind {
            DifferenceKind::Signal => writeln!(
                io.out,
                "first difference at {:.3} s: above {rule} (there {} dBFS)",
                first.seconds, first.level
            ),
            DifferenceKind::Length => {
                let (short, long) = if comparison.a.frames < comparison.b.frames {
                    (&comparison.a, &comparison.b)
                } else {
                    (&comparison.b, &comparison.a)
                };
                writeln!(
                    io.out,
                    "first difference at {:.3} s: {} ends there, {} goes on to {:.3} s \
                     (no difference above {rule} before)",
                    first.seconds,
                    short.path.display(),
                    long.path.display(),
                    long.seconds()
                )
            }
        },
    }
}

/// One file's header line (`a: path (format, rate, channels, length)`) and loudness.
fn describe(name: &str, file: &FileFigures, io: &mut Io<'_>) -> std::io::Result<()> {
    let info = &file.info;
    writeln!(
        io.out,
        "{name}: {} ({}, {} Hz, {} channel(s), {:.3} s)",
        file.path.display(),
        info.format,
        info.sample_rate,
        info.source_channels,
        file.seconds()
    )?;
    write_loudness(&file.loudness, "  ", io.out)
}

/// Prints the loudness figures, one line each, each line starting with `indent`.
pub(super) fn write_loudness(
    loudness: &Loudness,
    indent: &str,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let lines = [
        ("integrated loudness", loudness.integrated, "LUFS"),
        ("max short-term loudness", loudness.max_short_term, "LUFS"),
        ("max momentary loudness", loudness.max_momentary, "LUFS"),
        ("true peak", loudness.true_peak, "dBTP"),
    ];
    for (what, level, unit) in lines {
        writeln!(out, "{indent}{what}: {}", shown(level, unit))?;
    }
    Ok(())
}

/// `-23.0 LUFS`, or `-inf LUFS (silent)`.
fn shown(level: Level, unit: &str) -> String {
    if level.is_silent() {
        format!("-inf {unit} (silent)")
    } else {
        format!("{level} {unit}")
    }
}

/// `b − a` in `unit`, signed: `+0.3 LU`; `+0.0` when both are silent, and which one is
/// silent otherwise.
fn change(a: Level, b: Level, unit: &str) -> String {
    match (a.db(), b.db()) {
        (Some(a), Some(b)) => format!("{:+.1} {unit}", b - a),
        (None, None) => format!("+0.0 {unit} (both silent)"),
        (None, Some(_)) => "+inf (a is silent)".to_string(),
        (Some(_), None) => "-inf (b is silent)".to_string(),
    }
}
