//! Decodes every file of the shared audio fixture set and checks it against MANIFEST.tsv.
//!
//! The fixtures are found through `HITBENCH_AUDIO_FIXTURES` if set, else at
//! `<CARGO_MANIFEST_DIR>/../tests/fixtures/audio`. Every manifest row is checked according to
//! its `expect` column (see the README there), a table of outcomes is printed (run with
//! `--nocapture` to see it), and the test fails if any row fails or if any row was not checked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use engine_core::sound::audio::decode::{DecodeLimits, Decoded, StreamDecoder, decode, probe};

/// Largest difference allowed between our MP3 frame count and the manifest's (one MPEG frame:
/// decoders differ in how they handle encoder delay and padding).
const MP3_FRAME_TOLERANCE: u64 = 1152;

fn fixtures_dir() -> PathBuf {
    let dir = match std::env::var_os("HITBENCH_AUDIO_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/audio"),
    };
    assert!(
        dir.join("MANIFEST.tsv").is_file(),
        "no MANIFEST.tsv in {} (set HITBENCH_AUDIO_FIXTURES to the fixture folder)",
        dir.display()
    );
    dir
}

/// One manifest row, by column name.
struct Row(BTreeMap<String, String>);

impl Row {
    fn get(&self, column: &str) -> &str {
        self.0.get(column).map_or("", String::as_str)
    }

    fn number(&self, column: &str) -> Option<u64> {
        self.get(column).parse().ok()
    }

    fn is_mp3(&self) -> bool {
        self.get("format").starts_with("MP3")
    }

    fn is_wav(&self) -> bool {
        self.get("format").starts_with("WAV")
    }
}

fn read_manifest(dir: &std::path::Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split('\t')
        .map(str::to_owned)
        .collect();
    for needed in ["path", "format", "rate", "channels", "frames", "expect"] {
        assert!(
            header.iter().any(|h| h == needed),
            "MANIFEST.tsv has no `{needed}` column"
        );
    }
    lines
        .map(|line| {
            Row(header
                .iter()
                .cloned()
                .zip(line.split('\t').map(str::to_owned))
                .collect())
        })
        .collect()
}

/// Checks that the decoded length, rate and channels match the manifest.
fn check_shape(row: &Row, d: &Decoded) -> Result<(), String> {
    let frames = d.buffer.frames() as u64;
    let want_frames = row.number("frames").ok_or("manifest has no frame count")?;
    let tolerance = if row.is_mp3() { MP3_FRAME_TOLERANCE } else { 0 };
    if frames.abs_diff(want_frames) > tolerance {
        return Err(format!(
            "{frames} frames, manifest says {want_frames} (±{tolerance})"
        ));
    }
    check_rate_channels(row, d.buffer.sample_rate, d.buffer.channels, "decoded")
}

fn check_rate_channels(row: &Row, rate: u32, channels: u16, what: &str) -> Result<(), String> {
    let want_rate = row.number("rate").ok_or("manifest has no rate")?;
    let want_channels = row
        .number("channels")
        .ok_or("manifest has no channel count")?;
    if u64::from(rate) != want_rate || u64::from(channels) != want_channels {
        return Err(format!(
            "{what} as {rate} Hz × {channels} ch, manifest says {want_rate} Hz × {want_channels} ch"
        ));
    }
    Ok(())
}

/// Checks `probe` against the manifest for a file that decodes.
fn check_probe(row: &Row, bytes: &[u8]) -> Result<(), String> {
    let info = probe(row.get("path"), bytes).map_err(|e| format!("probe failed: {e}"))?;
    check_rate_channels(row, info.sample_rate, info.channels, "probed")
}

/// Checks one row; returns (outcome shown in the table, problem if the row fails).
fn check_row(dir: &std::path::Path, row: &Row) -> (String, Option<String>) {
    let path = row.get("path");
    let bytes = match std::fs::read(dir.join(path)) {
        Ok(b) => b,
        Err(e) => return ("missing".into(), Some(format!("cannot read the file: {e}"))),
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        decode(path, &bytes, &DecodeLimits::default())
    }));
    let result = match result {
        Ok(r) => r,
        Err(_) => return ("PANIC".into(), Some("decode panicked".into())),
    };
    let outcome = match &result {
        Ok(d) => match &d.partial {
            None => format!("ok {} frames", d.buffer.frames()),
            Some(why) => format!("partial {} frames: {why}", d.buffer.frames()),
        },
        Err(e) => format!("error: {e}"),
    };
    let problem = match (row.get("expect"), &result) {
        ("decode", Ok(d)) => check_shape(row, d)
            .and_then(|()| check_probe(row, &bytes))
            .err(),
        ("decode", Err(e)) => Some(format!("should decode but failed: {e}")),
        ("partial", Ok(d)) if d.partial.is_none() && d.buffer.frames() == 0 => {
            Some("Ok with no audio and no partial marker".into())
        }
        ("partial", Ok(d)) => match row.number("frames") {
            // For WAV the manifest gives the frames actually present.
            Some(want) if row.is_wav() && d.buffer.frames() as u64 != want => Some(format!(
                "{} frames, manifest says {want}",
                d.buffer.frames()
            )),
            _ => None,
        },
        ("partial", Err(_)) => None,
        ("error", Ok(_)) => Some("should fail but decoded".into()),
        ("error", Err(_)) => None,
        ("decode_or_error", Ok(d)) => check_shape(row, d)
            .and_then(|()| check_probe(row, &bytes))
            .err(),
        ("decode_or_error", Err(e)) => {
            let text = e.to_string().to_lowercase();
            (!text.contains("not supported") && !text.contains("unsupported"))
                .then(|| format!("error does not say unsupported: {e}"))
        }
        (other, _) => Some(format!("unknown expect value `{other}`")),
    };
    (outcome, problem)
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    }
}

#[test]
fn every_manifest_row_meets_its_expectation() {
    let dir = fixtures_dir();
    let rows = read_manifest(&dir);
    assert!(!rows.is_empty(), "MANIFEST.tsv lists no files");
    let mut checked = 0usize;
    let mut failures = Vec::new();
    println!("{:<52} {:<16} {:>9}  outcome", "path", "expect", "frames");
    for row in &rows {
        let (outcome, problem) = check_row(&dir, row);
        checked += 1;
        let verdict = if problem.is_some() { "FAIL" } else { "pass" };
        println!(
            "{:<52} {:<16} {:>9}  {verdict} {}",
            row.get("path"),
            row.get("expect"),
            row.get("frames"),
            shorten(&outcome, 110)
        );
        if let Some(p) = problem {
            failures.push(format!("{}: {p}", row.get("path")));
        }
    }
    println!(
        "{} of {checked} rows meet their expectation",
        checked - failures.len()
    );
    assert_eq!(checked, rows.len(), "not every manifest row was checked");
    assert!(
        failures.is_empty(),
        "fixture rows failed:\n{}",
        failures.join("\n")
    );
}

/// Streaming a file yields the same samples as decoding it whole, and rewinding starts over.
#[test]
fn streaming_matches_whole_file_decoding() {
    let dir = fixtures_dir();
    let rows = read_manifest(&dir);
    let mut streamed = 0;
    for row in rows.iter().filter(|r| r.get("expect") == "decode") {
        let path = dir.join(row.get("path"));
        let whole = decode(
            row.get("path"),
            &std::fs::read(&path).unwrap(),
            &DecodeLimits::default(),
        )
        .unwrap()
        .buffer;
        let mut stream = StreamDecoder::open(&path).unwrap();
        assert_eq!(
            stream.info().sample_rate,
            whole.sample_rate,
            "{}",
            path.display()
        );
        assert_eq!(stream.info().channels, whole.channels, "{}", path.display());
        let mut out = Vec::new();
        while stream.read(&mut out, 4096).unwrap() > 0 {}
        assert!(
            out == whole.data,
            "{}: streamed samples differ from decode()",
            path.display()
        );
        stream.rewind().unwrap();
        let mut again = Vec::new();
        stream.read(&mut again, 1000).unwrap();
        assert_eq!(
            again.as_slice(),
            &whole.data[..again.len()],
            "{}: rewind",
            path.display()
        );
        streamed += 1;
    }
    assert!(streamed > 0, "no decodable fixtures");
}

/// Small real compressed files with bytes overwritten and cut off still end in `Ok` or `Err`:
/// never a panic or a hang. (A fixed pseudo-random sequence, so failures repeat.)
#[test]
fn mutated_real_files_never_panic() {
    let dir = fixtures_dir();
    let rows = read_manifest(&dir);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut mutated = 0;
    for row in rows.iter().filter(|r| r.get("expect") == "decode") {
        let original = std::fs::read(dir.join(row.get("path"))).unwrap();
        if original.len() > 100_000 {
            continue;
        }
        for _ in 0..20 {
            let mut bytes = original.clone();
            for _ in 0..(1 + next() % 16) {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = next() as u8;
            }
            if next() % 2 == 0 {
                bytes.truncate((next() % (bytes.len() as u64 + 1)) as usize);
            }
            if let Ok(d) = decode(row.get("path"), &bytes, &DecodeLimits::default()) {
                assert!(matches!(d.buffer.channels, 1 | 2));
                assert!(d.buffer.data.iter().all(|s| (-1.0..=1.0).contains(s)));
            }
            let _ = probe(row.get("path"), &bytes);
            mutated += 1;
        }
    }
    assert!(mutated > 0, "no small fixtures to mutate");
}
