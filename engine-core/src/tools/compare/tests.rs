//! Tests of `compare` on WAV files written here: the difference rule, lengths, and the
//! errors.

use super::*;
use crate::sound::output::WavWriter;

/// A folder of its own for one test, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(tag: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("hitbench-compare-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("folder");
        Self(path)
    }

    /// Writes interleaved stereo `samples` at 48 kHz as a 16-bit WAV named `name`.
    fn wav(&self, name: &str, samples: &[f32]) -> PathBuf {
        let path = self.0.join(name);
        let mut writer = WavWriter::create(&path, 48_000).expect("create");
        writer.write(samples).expect("write");
        writer.finish().expect("finish");
        path
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `seconds` of a stereo 440 Hz sine at −20 dBFS, 48 kHz.
fn tone(seconds: f64) -> Vec<f32> {
    let frames = (seconds * 48_000.0) as usize;
    (0..frames)
        .flat_map(|n| {
            let s = (0.1 * (std::f64::consts::TAU * 440.0 * n as f64 / 48_000.0).sin()) as f32;
            [s, s]
        })
        .collect()
}

fn run(a: &Path, b: &Path) -> Comparison {
    compare(a, b, &CompareOptions::default()).expect("compared")
}

#[test]
fn a_file_does_not_differ_from_itself() {
    let dir = Folder::new("same");
    let a = dir.wav("a.wav", &tone(2.0));
    let result = run(&a, &a);
    assert!(!result.differ());
    assert_eq!(result.first_difference, None);
    assert!(result.largest.0.is_silent());
    assert_eq!(result.a.frames, 96_000);
    assert_eq!(result.a.loudness, result.b.loudness);
    let integrated = result.a.loudness.integrated.db().expect("not silent");
    // A −20 dBFS sine in both channels: −20 LUFS at 1 kHz, a little less at 440 Hz,
    // below the K-weighting's shelf.
    assert!((-21.0..-20.0).contains(&integrated), "{integrated}");
}

#[test]
fn the_first_difference_is_where_it_starts_to_the_millisecond() {
    let dir = Folder::new("click");
    let clean = tone(3.0);
    let mut clicked = clean.clone();
    // A short burst at 1.234 s, in the left channel only.
    let at = (1.234 * 48_000.0) as usize;
    for frame in at..at + 24 {
        clicked[frame * 2] += 0.05;
    }
    let a = dir.wav("a.wav", &clean);
    let b = dir.wav("b.wav", &clicked);
    let result = run(&a, &b);
    let first = result.first_difference.expect("they differ");
    assert_eq!(first.kind, DifferenceKind::Signal);
    assert_eq!(first.frame, at as u64);
    assert!((first.seconds - 1.234).abs() < 0.0005, "{}", first.seconds);
    assert!(first.level > Level::from_db(-60.0));
    let (largest, from) = result.largest;
    assert!(largest >= first.level);
    assert!((1.22..1.24).contains(&from), "{from}");
}

#[test]
fn a_difference_below_the_threshold_is_no_difference() {
    let dir = Folder::new("quiet");
    let clean = tone(1.0);
    // About −75 dBFS of difference: a fraction of a 16-bit step more than rounding.
    let nudged: Vec<f32> = clean.iter().map(|s| s + 0.000_2).collect();
    let a = dir.wav("a.wav", &clean);
    let b = dir.wav("b.wav", &nudged);
    let result = run(&a, &b);
    assert!(!result.differ(), "{:?}", result.first_difference);
    assert!(!result.largest.0.is_silent());
    // A stricter threshold sees it.
    let strict = CompareOptions {
        threshold_db: -90.0,
        ..CompareOptions::default()
    };
    let result = compare(&a, &b, &strict).expect("compared");
    assert_eq!(result.first_difference.map(|d| d.frame), Some(0));
}

#[test]
fn a_longer_file_differs_at_the_shorter_ones_end() {
    let dir = Folder::new("length");
    let long = tone(2.0);
    let a = dir.wav("a.wav", &long[..2 * 72_000]);
    let b = dir.wav("b.wav", &long);
    for (x, y) in [(&a, &b), (&b, &a)] {
        let result = run(x, y);
        let first = result.first_difference.expect("they differ");
        assert_eq!(first.kind, DifferenceKind::Length);
        assert_eq!(first.frame, 72_000);
        assert!((first.seconds - 1.5).abs() < 1e-9);
    }
    // Both files' loudness covers the whole of each.
    let result = run(&a, &b);
    assert_eq!((result.a.frames, result.b.frames), (72_000, 96_000));
}

#[test]
fn files_of_other_rates_or_channels_are_not_compared() {
    let dir = Folder::new("mismatch");
    let a = dir.wav("a.wav", &tone(0.5));
    let write = |name: &str, channels: u16, rate: u32| {
        let path = dir.0.join(name);
        let spec = hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::create(&path, spec).expect("create");
        for _ in 0..4800 * u32::from(channels) {
            writer.write_sample(0i16).expect("write");
        }
        writer.finalize().expect("finish");
        path
    };
    let rate = write("rate.wav", 2, 44_100);
    let mono = write("mono.wav", 1, 48_000);
    let message = compare(&a, &rate, &CompareOptions::default())
        .expect_err("other rate")
        .to_string();
    assert!(
        message.contains("a.wav") && message.contains("rate.wav"),
        "{message}"
    );
    assert!(
        message.contains("44100 Hz") && message.contains("sample rates"),
        "{message}"
    );
    let message = compare(&mono, &a, &CompareOptions::default())
        .expect_err("other channels")
        .to_string();
    assert!(
        message.contains("mono.wav") && message.contains("channel counts"),
        "{message}"
    );
}

#[test]
fn missing_damaged_and_special_files_are_errors_naming_them() {
    let dir = Folder::new("bad");
    let a = dir.wav("a.wav", &tone(0.5));
    let bytes = std::fs::read(&a).expect("read");
    let cut = dir.0.join("cut.wav");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    let text = dir.0.join("text.wav");
    std::fs::write(&text, "not audio at all").expect("write");
    let missing = dir.0.join("missing.wav");
    let mut cases = vec![
        (cut.clone(), "damaged"),
        (text.clone(), "not a WAV file"),
        (missing.clone(), "does not exist"),
        (dir.0.clone(), "folder"),
    ];
    if Path::new("/dev/zero").exists() {
        cases.push((PathBuf::from("/dev/zero"), "not a regular file"));
    }
    for (bad, why) in cases {
        for (x, y) in [(&a, &bad), (&bad, &a)] {
            let message = compare(x, y, &CompareOptions::default())
                .expect_err("refused")
                .to_string();
            let name = bad.display().to_string();
            assert!(message.contains(&name), "{message}");
            assert!(message.contains(why), "{why}: {message}");
        }
    }
}
