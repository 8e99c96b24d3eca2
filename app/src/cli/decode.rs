//! `hitbench decode`: any audio file the engine plays, decoded as the engine decodes it,
//! into a 16-bit PCM WAV at the file's own sample rate and channels (the work is
//! `engine_core::tools::export`). One line on standard output says what was written; a
//! file with more than two channels is written downmixed to stereo, as it plays, which a
//! note on standard error says.

use super::Io;
use super::args::{Args, usage};
use engine_core::tools::export::decode_to_wav;
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs `hitbench decode <file> -o <out.wav>`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let out = args.value(&["-o", "--output"])?.map(PathBuf::from);
    let input = args.next_positional().map(PathBuf::from);
    args.finish()?;
    let (Some(input), Some(out)) = (input, out) else {
        return Err(usage(
            "decode needs an audio file and an output file: hitbench decode <file> -o <out.wav>",
        ));
    };
    super::paths::check_output(&out, &[&input])?;
    let done = decode_to_wav(&input, &out)?;
    let info = &done.info;
    if info.source_channels > 2 {
        writeln!(
            io.err,
            "{}: note: {} channels, written downmixed to stereo as they play",
            input.display(),
            info.source_channels
        )?;
    }
    writeln!(
        io.out,
        "{}: {} frames, {} Hz, {} channel(s), {:.3} s (from {}, {})",
        out.display(),
        done.frames,
        info.sample_rate,
        info.channels,
        done.frames as f64 / f64::from(info.sample_rate.max(1)),
        input.display(),
        info.format
    )?;
    Ok(ExitCode::SUCCESS)
}
