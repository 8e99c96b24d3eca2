//! Sound through the command line: `hitbench probe` against the fixture manifest,
//! `hitbench render` determinism and start accuracy, `hitbench play` on the null output.

use hitbench_tests::{Run, TempDir, hitbench, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// MP3 frame counts differ between decoders by up to one MPEG frame.
const MP3_FRAME_TOLERANCE: u64 = 1152;

fn fixtures() -> PathBuf {
    std::env::var_os("HITBENCH_AUDIO_FIXTURES")
        .map_or_else(|| workspace().join("tests/fixtures/audio"), PathBuf::from)
}

#[test]
fn probe_prints_the_manifest_frame_counts() {
    let dir = fixtures();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut lines = manifest.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (path_col, format_col, frames_col, expect_col) = (
        column("path"),
        column("format"),
        column("frames"),
        column("expect"),
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    let paths: Vec<String> = rows
        .iter()
        .map(|r| dir.join(r[path_col]).display().to_string())
        .collect();
    let mut args = vec!["probe"];
    args.extend(paths.iter().map(String::as_str));
    let run = hitbench(&args);
    let out: Vec<&str> = run.out.lines().collect();
    assert_eq!(out.len(), rows.len(), "one line per file:\n{}", run.out);
    let mut failures = Vec::new();
    for ((row, path), line) in rows.iter().zip(&paths).zip(&out) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields[0], path, "lines come in argument order");
        let decoded = fields.len() == 7;
        let errored = fields.get(1) == Some(&"error") && fields.len() == 3;
        assert!(decoded || errored, "malformed probe line: {line}");
        let expect = row[expect_col];
        let problem = match (expect, decoded) {
            ("decode", true) | ("decode_or_error", true) => {
                let want: u64 = row[frames_col].parse().unwrap();
                let got: u64 = fields[5].parse().unwrap();
                let seconds: f64 = fields[6].parse().unwrap();
                let rate: f64 = fields[2].parse().unwrap();
                let tolerance = if row[format_col].starts_with("MP3") {
                    MP3_FRAME_TOLERANCE
                } else {
                    0
                };
                assert!((seconds - got as f64 / rate).abs() < 1e-5, "{line}");
                (got.abs_diff(want) > tolerance)
                    .then(|| format!("{got} frames, manifest says {want}"))
            }
            ("decode", false) => Some(format!("should decode: {}", fields[2])),
            ("decode_or_error", false) => (!fields[2].to_lowercase().contains("unsupported")
                && !fields[2].to_lowercase().contains("not supported"))
            .then(|| format!("error does not say unsupported: {}", fields[2])),
            ("error", true) => Some("should be an error".into()),
            ("error", false) | ("partial", _) => None,
            (other, _) => Some(format!("unknown expect `{other}`")),
        };
        if let Some(problem) = problem {
            failures.push(format!("{}: {problem}", row[path_col]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        run.code,
        ExitCode::from(1),
        "some fixtures are damaged on purpose: exit status 1"
    );
}

#[test]
fn probe_of_a_missing_file_names_it() {
    let run = hitbench(&["probe", "no/such/sample.wav"]);
    assert_eq!(run.code, ExitCode::from(1));
    assert!(
        run.out.starts_with("no/such/sample.wav\terror\t"),
        "{}",
        run.out
    );
}

/// A 16-bit PCM WAV of `channels` channels at `rate` Hz holding `frames` silent frames.
fn silent_wav(channels: u16, rate: u32, frames: u32) -> Vec<u8> {
    let block = u32::from(channels) * 2;
    let data = frames * block;
    let mut wav = b"RIFF".to_vec();
    wav.extend((36 + data).to_le_bytes());
    wav.extend(b"WAVEfmt ");
    wav.extend(16u32.to_le_bytes());
    wav.extend(1u16.to_le_bytes());
    wav.extend(channels.to_le_bytes());
    wav.extend(rate.to_le_bytes());
    wav.extend(rate.saturating_mul(block).to_le_bytes());
    wav.extend((block as u16).to_le_bytes());
    wav.extend(16u16.to_le_bytes());
    wav.extend(b"data");
    wav.extend(data.to_le_bytes());
    wav.resize(wav.len() + data as usize, 0);
    wav
}

#[test]
fn probe_shows_the_channels_a_file_has_and_refuses_absurd_rates() {
    let dir = TempDir::new("probe-odd");
    let many = dir.join("many.wav");
    std::fs::write(&many, silent_wav(255, 48_000, 10)).unwrap();
    let slow = dir.join("one-hertz.wav");
    std::fs::write(&slow, silent_wav(1, 1, 10)).unwrap();
    let fast = dir.join("fast.wav");
    std::fs::write(&fast, silent_wav(2, 384_001, 10)).unwrap();
    let paths = [&many, &slow, &fast].map(|p| p.display().to_string());
    let run = hitbench(&["probe", &paths[0], &paths[1], &paths[2]]);
    let lines: Vec<Vec<&str>> = run.out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 3, "{}", run.out);
    assert_eq!(lines[0][3], "255", "the file's own channels: {}", run.out);
    assert!(
        run.err.contains("255 channels") && run.err.contains("stereo"),
        "says how they play: {}",
        run.err
    );
    for (line, rate) in [(&lines[1], "1 Hz"), (&lines[2], "384001 Hz")] {
        assert_eq!(line[1], "error", "{}", run.out);
        assert!(
            line[2].contains(rate) && line[2].contains("1000") && line[2].contains("384000"),
            "names the rate and the accepted range: {}",
            run.out
        );
    }
    assert_eq!(run.code, ExitCode::from(1));
}

fn render(project: &Path, script: &Path, out: &Path, seed: &str) -> String {
    let run = hitbench(&[
        "render",
        &project.display().to_string(),
        "--script",
        &script.display().to_string(),
        "-o",
        &out.display().to_string(),
        "--seed",
        seed,
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    run.out
}

#[test]
fn the_same_scene_renders_to_the_same_bytes() {
    let temp = TempDir::new("render-twice");
    let demo = workspace().join("projects/demo");
    let script = demo.join("tour.txt");
    let (a, b, c) = (temp.join("a.wav"), temp.join("b.wav"), temp.join("c.wav"));
    let log_a = render(&demo, &script, &a, "7");
    let log_b = render(&demo, &script, &b, "7");
    assert_eq!(log_a.replace("a.wav", "x"), log_b.replace("b.wav", "x"));
    let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(a.len() > 48_000 * 4, "several seconds of audio");
    assert!(a.iter().skip(44).any(|&byte| byte != 0), "not silence");
    assert!(a == b, "same project, script and seed: identical bytes");
    // Another seed is a valid render too (the hit list may choose other clicks).
    render(&demo, &script, &c, "8");
    assert_eq!(std::fs::read(&c).unwrap().len(), a.len());
}

/// A project with one event, `beep`, that plays a WAV starting at full level.
fn beep_project(temp: &TempDir) -> PathBuf {
    let dir = temp.join("beep");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 22_050,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(dir.join("beep.wav"), spec).unwrap();
    for i in 0..2205 {
        writer
            .write_sample(if i % 20 < 10 { 16_000i16 } else { -16_000 })
            .unwrap();
    }
    writer.finalize().unwrap();
    std::fs::write(
        dir.join("beep.src"),
        "LAYOUT ts1\n\
         LIST [Patch] 1=0,beep,\"beep.wav\",0,0,0,0,0\n\
         LIST [EventMapping] beep=kSndobPlay,0x100,0,0,0,0\n\
         LIST [Track] 0x100=0,beep,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,1,60\n\
         BINARY [\n\
         beep\n\
         \tloadl patch #1\n\
         \tnote_on v1\n\
         \twait_samp\n\
         \tend\n\
         ]\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_voice_starts_within_one_block_of_its_time() {
    let temp = TempDir::new("onset");
    let project = beep_project(&temp);
    let script = temp.join("script.txt");
    // 0.5133 s = frame 24,638.4 → 24,638 at 48 kHz: not on a tick edge (800 frames).
    std::fs::write(&script, "0.5133 ui beep\n").unwrap();
    let out = temp.join("onset.wav");
    let log = render(&project, &script, &out, "0");
    assert!(log.contains("beep: started on voice"), "{log}");
    let mut reader = hound::WavReader::open(&out).unwrap();
    assert_eq!(reader.spec().sample_rate, 48_000);
    let samples: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    let onset = samples.iter().position(|&s| s != 0).unwrap() as u64 / 2;
    let scheduled = (0.5133f64 * 48_000.0).round() as u64;
    // The engine ticks at 60 Hz: one block is 800 frames at 48 kHz.
    let block = 48_000 / 60;
    assert!(
        onset >= scheduled && onset < scheduled + block,
        "scheduled at frame {scheduled}, heard at frame {onset} (one block = {block} frames)"
    );
}

/// `hitbench play` of `script` (written in `temp`) on `project`, 0.3 s of tail, on the
/// null output.
fn play_script(temp: &TempDir, project: &Path, script: &str) -> Run {
    let path = temp.join("script.txt");
    std::fs::write(&path, script).unwrap();
    hitbench(&[
        "play",
        &project.display().to_string(),
        "--script",
        &path.display().to_string(),
        "--tail",
        "0.3",
        "--null-audio",
    ])
}

#[test]
fn play_runs_live_on_the_null_output_and_says_so() {
    let temp = TempDir::new("play");
    let project = beep_project(&temp);
    let run = play_script(&temp, &project, "0.0 ui beep\n0.1 ui beep\n");
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    let audio: Vec<&str> = run
        .out
        .lines()
        .filter(|l| l.starts_with("audio:"))
        .collect();
    assert_eq!(audio.len(), 1, "one line about the output:\n{}", run.out);
    assert!(audio[0].contains("null output"), "{}", audio[0]);
    assert!(
        run.out.contains("2 note(s) started"),
        "both beeps played:\n{}",
        run.out
    );
}

/// `play` finds samples inside a zip pack as the cache does: a patch's (`ui beep`) and
/// one asked for by its name (`play beep.wav`), which is no file on disk.
#[test]
fn play_finds_samples_inside_packs() {
    use std::io::Write as _;
    let temp = TempDir::new("play-pack");
    let project = beep_project(&temp);
    let wav = std::fs::read(project.join("beep.wav")).unwrap();
    std::fs::remove_file(project.join("beep.wav")).unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(project.join("extra.zip")).unwrap());
    zip.start_file("beep.wav", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(&wav).unwrap();
    zip.finish().unwrap();
    let run = play_script(
        &temp,
        &project,
        "0.0 ui beep\n0.1 play beep.wav\n0.2 play 1\n",
    );
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(
        run.out.contains("playing sample beep.wav"),
        "{}\n{}",
        run.out,
        run.err
    );
    assert!(
        run.out.contains("3 note(s) started"),
        "{}\n{}",
        run.out,
        run.err
    );
    assert!(!run.err.contains("error"), "{}", run.err);
}

#[test]
fn play_starts_with_the_voice_limit_given_and_a_script_may_change_it() {
    let temp = TempDir::new("play-voices");
    let project = beep_project(&temp);
    let script = temp.join("script.txt");
    std::fs::write(&script, "0.0 ui beep\n0.1 voices 5\n").unwrap();
    let play = |voices: &str| {
        hitbench(&[
            "play",
            &project.display().to_string(),
            "--script",
            &script.display().to_string(),
            "--tail",
            "0.1",
            "--null-audio",
            "--voices",
            voices,
        ])
    };
    let run = play("3");
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(
        run.out.contains("voice limit 5 (was 3)"),
        "the engine started with 3 voices:\n{}",
        run.out
    );
    for bad in ["0", "1025", "many"] {
        let run = play(bad);
        assert_eq!(run.code, ExitCode::from(2), "{bad}: {}", run.err);
        assert!(
            run.err
                .contains(&format!("--voices must be from 1 to 1024, not `{bad}`")),
            "{bad}: {}",
            run.err
        );
    }
}
