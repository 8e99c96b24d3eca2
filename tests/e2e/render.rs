//! `hitbench render` and `play` on bad scripts and faulty projects: lengths a WAV file
//! cannot hold, a device as the output, whole-number seeds, faults and lot errors on stderr without
//! `--trace`, and `savelot` only where it was allowed, never over what is not a file.

use hitbench_tests::{Run, TempDir, hitbench, hitbench_within, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// A track that divides by zero on line 6, a lot with a bad object on line 5 and a
/// `world.ini` with a bad value on line 5.
struct Faulty(TempDir);

const FAULTY_SOURCE: &str =
    "LAYOUT tso\nBINARY [\ndivider\n\tloadb v1 5\n\tloadb v2 0\n\tdiv v1 v2\n\tend\n]\n";
const FAULTY_LOT: &str = "# home\nhour 14\n\n# the family\nobject 2 spaceship at 3 3\nobject 1 person \"Bob\" at 16777217 1 # far away\ncontrolled 1\n";
const FAULTY_INI: &str = "[Lot]\nFile = home.lot\n\n[View]\nFadeCurve = wobbly\n";

impl Faulty {
    fn new(tag: &str) -> Self {
        let dir = TempDir::new(tag);
        std::fs::write(dir.join("faults.src"), FAULTY_SOURCE).unwrap();
        std::fs::write(dir.join("home.lot"), FAULTY_LOT).unwrap();
        std::fs::write(dir.join("world.ini"), FAULTY_INI).unwrap();
        Self(dir)
    }

    fn script(&self, lines: &str) -> PathBuf {
        let path = self.0.join("script.txt");
        std::fs::write(&path, lines).unwrap();
        path
    }

    fn render(&self, script: &str, extra: &[&str]) -> Run {
        let script = self.script(script);
        let out = self.0.join("out.wav");
        let (project, script, out) = (text(self.0.path()), text(&script), text(&out));
        let mut args = vec!["render", &project, "--script", &script, "-o", &out];
        args.extend_from_slice(extra);
        hitbench(&args)
    }
}

#[test]
fn render_refuses_a_length_a_wav_cannot_hold() {
    let p = Faulty::new("render-too-long");
    let script = text(&p.script("0 quietall\n"));
    let project = text(p.0.path());
    // 30,000 s at 48 kHz is 5.8 GB of 16-bit stereo: the sizes of a WAV file wrap at 4 GiB.
    let out = p.0.path().join("long.wav");
    let run = hitbench_within(
        &[
            "render",
            &project,
            "--script",
            &script,
            "-o",
            &text(&out),
            "--duration",
            "30000",
        ],
        Duration::from_secs(60),
    )
    .expect("refused at once, not rendered");
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    assert!(run.err.contains("4 GiB"), "{}", run.err);
    assert!(!out.exists());
}

#[test]
fn render_refuses_a_script_time_beyond_the_maximum() {
    let p = Faulty::new("render-1e308");
    let script = text(&p.script("0 quietall\n1e308 quietall\n"));
    let project = text(p.0.path());
    let out = p.0.path().join("far.wav");
    let run = hitbench_within(
        &["render", &project, "--script", &script, "-o", &text(&out)],
        Duration::from_secs(60),
    )
    .expect("refused at once, not rendered");
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    assert!(
        run.err
            .lines()
            .any(|l| l.starts_with(&format!("{script}:2:1: error:"))
                && l.ends_with(" [number-out-of-range]")),
        "{}",
        run.err
    );
}

/// A device is never an output (writing to one used to stand in for a full disk here; a
/// failed write is tested on the output rule itself, `fsrules::output`, and the WAV
/// writer's errors in `sound::output::wav`).
#[test]
fn render_refuses_a_device_as_its_output() {
    let p = Faulty::new("render-full");
    let script = text(&p.script("0 quietall\n"));
    let project = text(p.0.path());
    let run = hitbench(&["render", &project, "--script", &script, "-o", "/dev/full"]);
    assert_eq!(run.code, ExitCode::from(2), "{}\n{}", run.out, run.err);
    assert!(
        run.err
            .contains("/dev/full is a device, not a regular file"),
        "{}",
        run.err
    );
}

/// A capture file that cannot be created is an error naming it, its reason said once
/// (the error's own words hold its cause), before anything renders.
#[test]
fn render_says_once_why_a_capture_cannot_be_created() {
    let p = Faulty::new("render-capture-dir");
    let script = text(&p.script("0 quietall\n"));
    let project = text(p.0.path());
    let wav = p.0.path().join("out.wav");
    let cap = p.0.path().join("no such folder/t.hbcap");
    let run = hitbench(&[
        "render",
        &project,
        "--script",
        &script,
        "-o",
        &text(&wav),
        "--capture",
        &text(&cap),
    ]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    assert!(
        run.err.contains(&format!(
            "hitbench: error: {}: No such file or directory",
            cap.display()
        )),
        "{}",
        run.err
    );
    assert_eq!(run.err.matches("No such file").count(), 1, "{}", run.err);
    assert!(!wav.exists());
}

#[test]
fn seeds_are_whole_numbers_read_exactly() {
    let demo = text(&workspace().join("projects/demo"));
    let temp = TempDir::new("render-seeds");
    let script = temp.join("voices.txt");
    let lines: String = (0..12)
        .map(|i| format!("{:.1} sev vox greet @{}\n", f64::from(i) * 0.3, i % 3 + 1))
        .collect();
    std::fs::write(&script, lines).unwrap();
    let script = text(&script);
    let render = |seed: &str, out: &str| {
        let out = text(&temp.join(out));
        let run = hitbench(&[
            "render",
            &demo,
            "--script",
            &script,
            "-o",
            &out,
            "--seed",
            seed,
            "--duration",
            "4",
        ]);
        (run, std::fs::read(&out).unwrap_or_default())
    };
    let (run, _) = render("1.5", "half.wav");
    assert_eq!(run.code, ExitCode::from(2), "{}", run.err);
    assert!(run.err.contains("--seed"), "{}", run.err);
    // 2^53 and 2^53 + 1 are the same f64; as u64 they are different seeds.
    let (a, a_bytes) = render("9007199254740992", "a.wav");
    let (b, b_bytes) = render("9007199254740993", "b.wav");
    assert_eq!(a.code, ExitCode::SUCCESS, "{}", a.err);
    assert_eq!(b.code, ExitCode::SUCCESS, "{}", b.err);
    assert!(a_bytes.len() > 44 && a_bytes.len() == b_bytes.len());
    assert!(a_bytes != b_bytes, "different seeds pick differently");
    let (max, _) = render("18446744073709551615", "max.wav");
    assert_eq!(max.code, ExitCode::SUCCESS, "{}", max.err);
}

#[test]
fn render_prints_faults_and_world_errors_without_trace() {
    let p = Faulty::new("render-faults");
    let run = p.render("0 ui divider\n", &["--duration", "0.5"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let dir = p.0.path();
    let source = text(&dir.join("faults.src"));
    assert!(run.err.contains(&format!("{source}:6")), "{}", run.err);
    assert!(run.err.contains("divide by zero"), "{}", run.err);
    let lot = text(&dir.join("home.lot"));
    assert!(run.err.contains(&format!("{lot}:5:")), "{}", run.err);
    let ini = text(&dir.join("world.ini"));
    assert!(run.err.contains(&format!("{ini}:5")), "{}", run.err);
    assert!(
        !run.out.contains("divide by zero"),
        "not printed twice: {}",
        run.out
    );
}

#[test]
fn play_prints_faults_and_takes_trace() {
    let p = Faulty::new("play-faults");
    let script = text(&p.script("0 ui divider\n"));
    let project = text(p.0.path());
    let args = [
        "play",
        &project,
        "--script",
        &script,
        "--tail",
        "0.3",
        "--null-audio",
    ];
    let run = hitbench(&args);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let source = text(&p.0.join("faults.src"));
    assert!(run.err.contains(&format!("{source}:6")), "{}", run.err);
    let lot = text(&p.0.join("home.lot"));
    assert!(run.err.contains(&format!("{lot}:5:")), "{}", run.err);
    let mut traced = args.to_vec();
    traced.push("--trace");
    let run = hitbench(&traced);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    assert!(
        run.out
            .lines()
            .any(|l| l.contains(" event ") && l.contains("divider")),
        "{}",
        run.out
    );
}

#[test]
fn render_refuses_savelot_unless_allowed() {
    let p = Faulty::new("render-savelot");
    let lot = p.0.join("home.lot");
    let run = p.render("0 move 1 2 2\n0.1 savelot\n", &["--duration", "0.2"]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    let script = text(&p.0.join("script.txt"));
    assert!(run.err.contains(&format!("{script}:2:")), "{}", run.err);
    assert!(run.err.contains("--allow-savelot"), "{}", run.err);
    assert_eq!(std::fs::read_to_string(&lot).unwrap(), FAULTY_LOT);
    assert!(!p.0.join("out.wav").exists(), "nothing rendered");
}

#[test]
fn allowed_savelot_keeps_the_lot_file_whole_and_stays_inside_the_project() {
    let p = Faulty::new("render-savelot-allowed");
    let lot = p.0.join("home.lot");
    let outside = TempDir::new("render-savelot-outside");
    let escape = text(&outside.join("stolen.lot"));
    let script = format!(
        "0 move 2 9 9\n0 move 1 2 2\n0.1 savelot\n0.1 savelot {escape}\n0.1 savelot ../x.lot\n"
    );
    let run = p.render(&script, &["--duration", "0.2", "--allow-savelot"]);
    // The sound is rendered and the lot saved, but two saves asked for were refused: the
    // render says which lines and fails (it used to exit 0).
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    assert!(p.0.join("out.wav").is_file());
    let script_file = text(&p.0.join("script.txt"));
    for line in [4, 5] {
        assert!(
            run.err
                .contains(&format!("{script_file}: savelot: line {line}: ")),
            "{}",
            run.err
        );
    }
    // Only object 1's line changed: comments, the broken line, 16777217 are as they were.
    let expected = FAULTY_LOT.replace("at 16777217 1", "at 2 2");
    assert_eq!(std::fs::read_to_string(&lot).unwrap(), expected);
    assert!(!outside.join("stolen.lot").exists());
    assert!(!p.0.path().parent().unwrap().join("x.lot").exists());
    let refusals = run
        .out
        .lines()
        .filter(|l| l.contains("outside the project"))
        .count();
    assert_eq!(refusals, 2, "{}", run.out);
    // `play` of the same script fails likewise.
    let run = hitbench(&[
        "play",
        &text(p.0.path()),
        "--script",
        &script_file,
        "--allow-savelot",
        "--tail",
        "0.2",
        "--null-audio",
    ]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    assert!(
        run.err.contains("2 savelot line(s) could not save"),
        "{}",
        run.err
    );
}
