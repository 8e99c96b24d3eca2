//! The demo project's tour: `hitbench render projects/demo --script projects/demo/tour.txt`
//! renders, and every subsystem of the world is heard in it — checked in the trace (what
//! played, from which list, where) and in the audio (each part of the tour is loud
//! enough to hear, and the stereo image moves as the tour says).

use engine_core::host::command::parse_script;
use engine_core::host::offline::{RenderOptions, RenderReport, render};
use engine_core::runtime::TraceKind;
use engine_core::toolchain::project::Project;
use hitbench_tests::{TempDir, hitbench, workspace};
use std::path::Path;

const RATE: f64 = 48_000.0;

fn render_tour(out: &Path) -> RenderReport {
    let demo = workspace().join("projects/demo");
    let project = Project::load(&demo);
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let text = std::fs::read_to_string(demo.join("tour.txt")).unwrap();
    let (script, problems) = parse_script(&text, &demo.join("tour.txt"));
    assert!(problems.is_empty(), "{problems:#?}");
    render(project, &script, out, RenderOptions::default()).unwrap()
}

/// RMS of the left and right channels between two times.
fn rms(samples: &[i16], from: f64, to: f64) -> (f64, f64) {
    let frames = samples.chunks_exact(2);
    let (a, b) = ((from * RATE) as usize, (to * RATE) as usize);
    let (mut l, mut r, mut n) = (0.0, 0.0, 0.0);
    for frame in frames.skip(a).take(b - a) {
        l += (f64::from(frame[0]) / 32_768.0).powi(2);
        r += (f64::from(frame[1]) / 32_768.0).powi(2);
        n += 1.0;
    }
    ((l / n).sqrt(), (r / n).sqrt())
}

#[test]
fn the_tour_plays_every_part_of_the_world() {
    let dir = TempDir::new("tour");
    let out = dir.join("tour.wav");
    let report = render_tour(&out);
    let errors: Vec<_> = report
        .trace
        .iter()
        .filter(|r| r.kind == TraceKind::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(
        report.log.iter().all(|l| !l.contains("error")),
        "{:#?}",
        report.log
    );
    let said = |kind: TraceKind, text: &str| {
        report
            .trace
            .iter()
            .any(|r| r.kind == kind && r.message().contains(text))
    };
    let heard = |file: &str| said(TraceKind::Sample, file);
    let world = |text: &str| said(TraceKind::World, text);
    // UI sounds.
    assert!(heard("sounds/ui/money.wav"));
    // One voice event, three lists chosen by the speaker's gender.
    for voice in ["vox/male/greet", "vox/female/greet", "vox/child/greet"] {
        assert!(heard(voice), "{voice}");
    }
    // The piano follows skill: clumsy for Bob, good and then ordinary for Betty.
    for level in ["piano/clumsy_", "piano/good_", "piano/ok_"] {
        assert!(heard(level), "{level}");
    }
    assert!(heard("baby/cry_"));
    // Stations: the action channel's lists in turn, its commercials from the parent
    // directory, two receivers on one stream, the cartoon channel, radio and stereo.
    assert!(world("(2 receiver(s))"));
    for list in [
        "(chase)",
        "(dialog)",
        "(commercials)",
        "`cartoon` plays",
        "`pop` plays",
    ] {
        assert!(world(list), "{list}");
    }
    assert!(world("station 280: object 7 tuned"));
    // Music modes and their rules.
    for step in [
        "Buy song:",
        "the song fades down and waits",
        "the song fades back up",
        "Neighborhood song:",
        "river loop starts",
        "load loop starts",
    ] {
        assert!(world(step), "{step}");
    }
    // Ambience: the freshness score, the night loop, the small-room reverb.
    assert!(world("freshness skipped"));
    assert!(world("night loop on (18:00)") && world("night loop off (06:00)"));
    assert!(world("ambience reverb 0.60"));

    // The audio: every part of the tour is heard.
    let mut reader = hound::WavReader::open(&out).unwrap();
    assert_eq!(reader.spec().sample_rate, 48_000);
    let samples: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    let seconds = samples.len() as f64 / 2.0 / RATE;
    assert!(seconds > 100.0, "{seconds} s");
    for (what, from, to) in [
        ("voices", 2.0, 7.0),
        ("piano", 8.0, 12.0),
        ("baby", 24.5, 29.0),
        ("the action channel", 30.0, 44.0),
        ("the cartoon channel", 44.6, 49.0),
        ("the radio", 49.6, 53.0),
        ("the stereo", 58.0, 62.0),
        ("buy music", 63.5, 68.0),
        ("neighbourhood music and river", 86.0, 88.0),
        ("the load loop", 92.0, 94.0),
        ("the night loop", 96.0, 103.0),
    ] {
        let (l, r) = rms(&samples, from, to);
        assert!(l.max(r) > 0.01, "{what} ({from}–{to} s): rms {l:.4} {r:.4}");
    }
    // Betty greets from the right of the screen, Little from the left.
    let (l, r) = rms(&samples, 3.5, 4.8);
    assert!(r > l, "Betty is right of centre: {l:.4} {r:.4}");
    let (l, r) = rms(&samples, 5.0, 6.3);
    assert!(l > r, "Little is left of centre: {l:.4} {r:.4}");
    // The neighbour's stereo is far off to the right: still heard, on the right.
    let (l, r) = rms(&samples, 58.0, 62.0);
    assert!(r > 1.5 * l, "the stereo is on the right: {l:.4} {r:.4}");
    // Zooming out attenuates the radio.
    let (near_l, near_r) = rms(&samples, 50.0, 53.0);
    let (far_l, far_r) = rms(&samples, 53.5, 56.0);
    assert!(
        far_l.max(far_r) < near_l.max(near_r),
        "zoom 3 is quieter: near {near_l:.4}/{near_r:.4}, far {far_l:.4}/{far_r:.4}"
    );
}

#[test]
fn the_readme_command_renders_the_tour() {
    let dir = TempDir::new("tour-cli");
    let out = dir.join("tour.wav");
    let demo = workspace().join("projects/demo");
    let run = hitbench(&[
        "render",
        demo.to_str().unwrap(),
        "--script",
        demo.join("tour.txt").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        run.code,
        std::process::ExitCode::SUCCESS,
        "{}\n{}",
        run.out,
        run.err
    );
    assert!(run.out.contains("wrote"), "{}", run.out);
    let reader = hound::WavReader::open(&out).unwrap();
    assert!(reader.duration() > 100 * 48_000);
}
