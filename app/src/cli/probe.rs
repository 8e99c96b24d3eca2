//! `hitbench probe`: decodes audio files and prints one tab-separated line per file —
//! path, format, sample rate, channels, bit depth, frames, seconds — or the path,
//! `error` and the exact message. Designers use it to find out why a sample will not play.
//!
//! Files are decoded as the engine streams them, one block at a time, so probing a long
//! file (or a tiny one that decodes to hundreds of megabytes) takes no more memory than
//! playing it. The channels are those of the file; more than two play downmixed to stereo,
//! which a note on standard error says.

use super::Io;
use super::args::{Args, usage};
use engine_core::sound::audio::decode::{DecodeLimits, scan_file};
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs `hitbench probe <file>...`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let mut files = Vec::new();
    while let Some(file) = args.next_positional() {
        files.push(PathBuf::from(file));
    }
    args.finish()?;
    if files.is_empty() {
        return Err(usage(
            "probe needs one or more audio files: hitbench probe <file>...",
        ));
    }
    let mut failed = false;
    for path in &files {
        match scan_file(path, DecodeLimits::default().max_frames) {
            Ok(probed) => {
                let info = &probed.info;
                let bits = info.bits.map_or_else(|| "-".to_string(), |b| b.to_string());
                writeln!(
                    io.out,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{:.6}",
                    path.display(),
                    info.format.name(),
                    info.sample_rate,
                    info.source_channels,
                    bits,
                    probed.frames,
                    probed.frames as f64 / f64::from(info.sample_rate.max(1)),
                )?;
                if info.source_channels > 2 {
                    writeln!(
                        io.err,
                        "{}: note: {} channels, played downmixed to stereo",
                        path.display(),
                        info.source_channels
                    )?;
                }
                if let Some(why) = &probed.partial {
                    writeln!(
                        io.err,
                        "{}: warning: incomplete audio: {why}",
                        path.display()
                    )?;
                }
            }
            Err(e) => {
                failed = true;
                writeln!(io.out, "{}\terror\t{e}", path.display())?;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(super::EXIT_INPUT_ERRORS)
    } else {
        ExitCode::SUCCESS
    })
}
