//! What the workbench's capture view reads: a capture's keyframes and records rebuilt
//! into the live snapshot of any moment (threads, voices and their history, the lot,
//! the cache), from `render --capture` and from `play --capture` on the null output;
//! a capture that cannot be written is an error naming the file.

use engine_core::host::capture;
use engine_core::host::live::LiveSnapshot;
use engine_core::host::timeline::{MarkerKind, Timeline};
use engine_core::runtime::SampleTime;
use engine_core::tools::inspect::VoiceOccupant;
use hitbench_tests::{TempDir, hitbench, workspace};
use std::process::ExitCode;

fn text(path: &std::path::Path) -> String {
    path.display().to_string()
}

/// The voice slot's occupant started by `event` in `snapshot`, if one is.
fn playing<'a>(snapshot: &'a LiveSnapshot, event: &str) -> Option<&'a VoiceOccupant> {
    snapshot
        .voice_slots
        .iter()
        .find_map(|v| v.occupant.as_ref().filter(|o| o.event.as_ref() == event))
}

#[test]
fn a_rendered_capture_shows_every_panels_facts_at_any_time() {
    let dir = TempDir::new("capture-view");
    let demo = workspace().join("projects/demo");
    let (wav, cap) = (dir.join("t.wav"), dir.join("t.hbcap"));
    let render = hitbench(&[
        "render",
        &text(&demo),
        "--script",
        &text(&demo.join("tour.txt")),
        "-o",
        &text(&wav),
        "--capture",
        &text(&cap),
        "--duration",
        "32",
    ]);
    assert_eq!(render.code, ExitCode::SUCCESS, "{}", render.err);
    // The keyframes read back from the compact file as from its JSON lines.
    let compact = capture::read(&cap).unwrap();
    let mut text = Vec::new();
    capture::write_text(&compact, &mut text).unwrap();
    let json = dir.join("t.jsonl");
    std::fs::write(&json, text).unwrap();
    assert_eq!(capture::read(&json).unwrap().keyframes, compact.keyframes);
    let timeline = Timeline::new(compact);
    let rate = u64::from(timeline.sample_rate());
    assert_eq!(timeline.start(), SampleTime::ZERO);
    assert_eq!(timeline.end(), SampleTime::from_samples(32 * rate));
    // A keyframe every quarter second, and one at the end.
    assert!(
        timeline.keyframes().len() >= 128,
        "{}",
        timeline.keyframes().len()
    );

    // 9 s: Bob plays the piano (tour.txt, 8.0).
    let at = SampleTime::from_samples(9 * rate);
    let s = timeline.snapshot_at(at);
    assert_eq!(s.now, at);
    let piano = s
        .threads
        .iter()
        .find(|t| t.event.as_ref() == "piano_play")
        .expect("the piano's thread");
    assert!(
        piano.pc.is_some() && !piano.registers.is_empty(),
        "{piano:?}"
    );
    let slot = playing(&s, "piano_play").expect("the piano holds a voice");
    assert_eq!(slot.elapsed, at - slot.started_at);
    assert!(!s.instances.is_empty(), "the instance map");
    assert!(
        s.history
            .lanes()
            .iter()
            .any(|l| l.event.as_ref() == "vox_greet"),
        "the greetings' lanes are in the history"
    );
    assert_eq!(s.world.objects.len(), 9, "the lot's objects");
    assert!(s.cache.as_ref().is_some_and(|c| c.loads > 0));
    assert!(!s.cache_resources.is_empty());
    // The trace up to then, and nothing later.
    let records = timeline.records_until(at);
    assert!(records.iter().all(|r| r.time <= at));
    assert!(
        records
            .iter()
            .any(|r| r.event.as_deref() == Some("piano_play"))
    );
    assert!(records.len() < timeline.capture.records.len());

    // At 8.0 s itself, where Next decision stops, the panels show the piano's start
    // with its records: from the keyframe taken right after that tick.
    let started = SampleTime::from_samples(8 * rate);
    assert_eq!(
        timeline.decision_after(SampleTime::from_samples(8 * rate - 1)),
        Some(started)
    );
    let s = timeline.snapshot_at(started);
    let slot =
        playing(&s, "piano_play").expect("the piano holds a voice at the moment of its decision");
    assert_eq!(slot.started_at, started);
    assert_eq!(slot.elapsed, 0);
    assert!(s.threads.iter().any(|t| t.event.as_ref() == "piano_play"));
    // Just before it, nothing of the piano yet.
    let before = timeline.snapshot_at(SampleTime::from_samples(8 * rate - 1));
    assert!(playing(&before, "piano_play").is_none());

    // Each command run gets a keyframe after its tick (within 50 ms; the next tick's).
    for (seconds, command) in &timeline.capture.inputs {
        let at = (seconds * rate as f64).round() as u64;
        if at >= timeline.end().samples() {
            continue;
        }
        assert!(
            timeline
                .keyframes()
                .iter()
                .any(|k| (at + 1..=at + rate / 20).contains(&k.at.samples())),
            "no keyframe right after `{command}` at {seconds} s"
        );
    }

    // 27 s: the view scrolled right (26.5); 29 s: back (28.5).
    let moved = timeline.snapshot_at(SampleTime::from_samples(27 * rate));
    let back = timeline.snapshot_at(SampleTime::from_samples(29 * rate));
    assert_ne!(moved.world.camera, back.world.camera);
    // The decisions can be stepped: the click at 0, the lot's ambience taking its voice
    // at the first tick (a Box-X decision like a track's), the click at 0.4 s, the money
    // at 0.8 s.
    let ambience = timeline.decision_after(SampleTime::ZERO).unwrap();
    assert_eq!(ambience, SampleTime::from_samples(rate / 60));
    let second = timeline.decision_after(ambience).unwrap();
    assert_eq!(second, SampleTime::from_samples(rate * 4 / 10));
    assert_eq!(timeline.decision_before(second), Some(ambience));
    assert_eq!(timeline.decision_before(ambience), Some(SampleTime::ZERO));
    assert!(timeline.decision_before(SampleTime::ZERO).is_none());
    let third = timeline.decision_after(second).unwrap();
    assert_eq!(third, SampleTime::from_samples(rate * 8 / 10));
    assert!(
        timeline
            .markers()
            .iter()
            .all(|m| m.kind != MarkerKind::Fault),
        "the tour has no faults"
    );
}

/// Commands in a stream (a camera dragged) do not make a keyframe a tick: a command's
/// keyframe comes at least 50 ms after the one before.
#[test]
fn commands_in_a_stream_make_a_keyframe_every_50_ms_at_most() {
    let dir = TempDir::new("capture-stream");
    let demo = workspace().join("projects/demo");
    let script = dir.join("drag.txt");
    let mut lines = String::from("0.0 sev vox greet @1\n");
    for i in 0..60 {
        lines.push_str(&format!(
            "{:.3} view {} 10\n",
            1.0 + f64::from(i) * 0.01,
            10 + i % 3
        ));
    }
    std::fs::write(&script, lines).unwrap();
    let (wav, cap) = (dir.join("d.wav"), dir.join("d.hbcap"));
    let render = hitbench(&[
        "render",
        &text(&demo),
        "--script",
        &text(&script),
        "-o",
        &text(&wav),
        "--capture",
        &text(&cap),
    ]);
    assert_eq!(render.code, ExitCode::SUCCESS, "{}", render.err);
    let capture = capture::read(&cap).unwrap();
    let rate = u64::from(capture.header.sample_rate);
    let times: Vec<u64> = capture.keyframes.iter().map(|k| k.at.samples()).collect();
    let during: Vec<u64> = times
        .iter()
        .copied()
        .filter(|t| (rate..rate * 16 / 10).contains(t))
        .collect();
    // 0.6 s of commands: a keyframe every 50 ms at most (13), not one a tick (36).
    assert!((8..=13).contains(&during.len()), "{during:?}");
    assert!(
        during.windows(2).all(|w| w[1] - w[0] >= rate / 20),
        "{during:?}"
    );
}

#[test]
fn play_captures_a_live_session_that_reads_back() {
    let dir = TempDir::new("play-capture");
    let demo = workspace().join("projects/demo");
    let script = dir.join("s.txt");
    std::fs::write(&script, "0.0  sev vox greet @1\n0.5  sev piano play @2\n").unwrap();
    let cap = dir.join("live.hbcap");
    let play = hitbench(&[
        "play",
        &text(&demo),
        "--script",
        &text(&script),
        "--null-audio",
        "--tail",
        "1.5",
        "--capture",
        &text(&cap),
    ]);
    assert_eq!(play.code, ExitCode::SUCCESS, "{}\n{}", play.out, play.err);
    assert!(
        play.out.contains(&format!("captured {}", cap.display())),
        "{}",
        play.out
    );
    let capture = capture::read(&cap).unwrap();
    let commands: Vec<&str> = capture.inputs.iter().map(|(_, c)| c.as_str()).collect();
    assert_eq!(commands, ["sev vox_greet @1", "sev piano_play @2"]);
    assert!(
        capture.inputs[1].0 > capture.inputs[0].0,
        "{:?}",
        capture.inputs
    );
    assert!(capture.end.is_some());
    assert!(
        capture
            .records
            .iter()
            .any(|r| r.event.as_deref() == Some("piano_play")),
        "the piano's decision is captured"
    );
    let timeline = Timeline::new(capture);
    assert!(
        timeline.keyframes().len() >= 4,
        "{}",
        timeline.keyframes().len()
    );
    let end = timeline.snapshot_at(timeline.end());
    assert_eq!(end.world.objects.len(), 9);
    // At the piano's command the panels show it playing (a keyframe after its tick).
    let piano = timeline
        .capture
        .records
        .iter()
        .find(|r| r.event.as_deref() == Some("piano_play"))
        .map(|r| r.time)
        .unwrap();
    let s = timeline.snapshot_at(piano);
    assert!(playing(&s, "piano_play").is_some(), "{:?}", s.voice_slots);
    // It replays: the same decisions against the same project.
    let same = hitbench(&["replay", &text(&cap), "--diff"]);
    assert_ne!(same.code, ExitCode::from(2), "{}\n{}", same.out, same.err);

    // A capture file that cannot be created stops play before it starts, naming it.
    let nowhere = dir.join("no/such/folder/x.hbcap");
    let refused = hitbench(&[
        "play",
        &text(&demo),
        "--script",
        &text(&script),
        "--null-audio",
        "--capture",
        &text(&nowhere),
    ]);
    assert_ne!(refused.code, ExitCode::SUCCESS);
    assert!(
        refused.err.contains(&text(&nowhere)),
        "{}\n{}",
        refused.out,
        refused.err
    );
}
