//! `hitbench decode`: XA files come out as their reference decodings sample for sample,
//! other formats at their own rate and channels with the engine's samples; a damaged file
//! exits non-zero naming it and writes nothing.

use crate::xa::xa_fixture;
use engine_core::sound::audio::decode::{DecodeLimits, decode_file};
use hitbench_tests::{TempDir, hitbench, workspace};
use std::path::Path;
use std::process::ExitCode;

/// The spec and samples of a 16-bit WAV.
fn read_wav(path: &Path) -> (hound::WavSpec, Vec<i16>) {
    let mut reader = hound::WavReader::open(path).unwrap();
    let samples = reader.samples::<i16>().map(Result::unwrap).collect();
    (reader.spec(), samples)
}

/// Runs `hitbench decode <input> -o <output>` and expects success.
fn decode(input: &Path, output: &Path) -> String {
    let run = hitbench(&[
        "decode",
        &input.display().to_string(),
        "-o",
        &output.display().to_string(),
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    run.out
}

#[test]
fn xa_files_decode_to_their_reference_samples() {
    let temp = TempDir::new("decode-xa");
    for (name, channels, frames) in [
        ("lbreakout2_excellent_voice", 1u16, 12_375usize),
        ("freedink_secret", 2, 31_041),
    ] {
        let out = temp.join(&format!("{name}.wav"));
        let said = decode(&xa_fixture(&format!("{name}.xa")), &out);
        assert!(
            said.contains(&format!("{frames} frames, 22050 Hz, {channels} channel(s)")),
            "{said}"
        );
        let (spec, samples) = read_wav(&out);
        assert_eq!(
            (spec.sample_rate, spec.channels, spec.bits_per_sample),
            (22_050, channels, 16)
        );
        assert_eq!(spec.sample_format, hound::SampleFormat::Int);
        let (_, reference) = read_wav(&xa_fixture(&format!("{name}.ref.wav")));
        assert_eq!(samples.len(), frames * usize::from(channels));
        let first = samples.iter().zip(&reference).position(|(a, b)| a != b);
        assert_eq!(first, None, "{name}: the first sample that differs");
        assert_eq!(samples.len(), reference.len());
    }
}

#[test]
fn other_formats_decode_at_their_own_rate_and_channels() {
    let temp = TempDir::new("decode-other");
    let fixtures = workspace().join("tests/fixtures/audio");
    // A 16-bit stereo FLAC: every sample as the engine decodes it.
    let flac = fixtures.join("loops/sonicpi_loop_amen.flac");
    let out = temp.join("amen.wav");
    decode(&flac, &out);
    let (spec, samples) = read_wav(&out);
    assert_eq!((spec.sample_rate, spec.channels), (44_100, 2));
    assert_eq!(samples.len(), 77_321 * 2);
    let engine = decode_file(&flac, &DecodeLimits::default()).unwrap();
    let expected: Vec<i16> = engine
        .buffer
        .data
        .iter()
        .map(|&s| (s * 32_768.0).round().clamp(-32_768.0, 32_767.0) as i16)
        .collect();
    assert!(samples == expected, "the engine's samples, unchanged");
    // A mono Ogg Vorbis at 22050 Hz.
    let ogg = fixtures.join("sfx/minetest_glass_door_open.ogg");
    let out = temp.join("door.wav");
    decode(&ogg, &out);
    let (spec, samples) = read_wav(&out);
    assert_eq!((spec.sample_rate, spec.channels), (22_050, 1));
    assert_eq!(samples.len(), 10_024);
    // A 16-bit WAV comes out as it went in.
    let wav = fixtures.join("sfx/freedink_secret.wav");
    let out = temp.join("secret.wav");
    decode(&wav, &out);
    assert_eq!(read_wav(&out), read_wav(&wav));
}

#[test]
fn a_damaged_file_exits_non_zero_naming_it_and_writes_nothing() {
    let temp = TempDir::new("decode-damaged");
    for (name, what) in [
        (
            "damaged_truncated.xa",
            "the data ends before the frames the header promises",
        ),
        ("damaged_zero_channels.xa", "the header says 0 channels"),
    ] {
        let input = xa_fixture(name);
        let out = temp.join("out.wav");
        let run = hitbench(&[
            "decode",
            &input.display().to_string(),
            "-o",
            &out.display().to_string(),
        ]);
        assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
        assert!(
            run.err
                .starts_with(&format!("hitbench: error: {}: ", input.display())),
            "{}",
            run.err
        );
        assert!(run.err.contains(what), "{}", run.err);
        assert!(!out.exists(), "nothing written for {name}");
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
    }
}

#[test]
fn decode_without_an_output_is_a_usage_error_and_is_in_the_help() {
    let run = hitbench(&["decode", "x.xa"]);
    assert_eq!(run.code, ExitCode::from(2), "{}", run.err);
    assert!(
        run.err.contains("hitbench decode <file> -o <out.wav>"),
        "{}",
        run.err
    );
    let help = hitbench(&["help"]);
    assert!(
        help.out.contains("decode <file> -o <out.wav>"),
        "{}",
        help.out
    );
}
