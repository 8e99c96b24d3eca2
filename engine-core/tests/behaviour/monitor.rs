//! Mute and solo in offline renders of the demo, measured in the WAV: soloing VOX
//! silences the UI sounds (FX) and leaves the voice; muting the playing piano silences it
//! and unmuting brings it back sample for sample; the engine decides exactly what it
//! decides without monitoring.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::host::command::parse_script;
use engine_core::host::offline::{RenderOptions, render_with};
use engine_core::runtime::TraceRecord;
use engine_core::runtime::trace::TraceEvent;
use engine_core::toolchain::project::Project;
use std::path::{Path, PathBuf};

fn demo() -> Project {
    let project = Project::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo"));
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    project
}

fn out(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hitbench-monitor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{tag}.wav"))
}

/// Renders `script` for `seconds`: the left and right samples and every record.
fn render(tag: &str, script: &str, seconds: f64) -> (Vec<f32>, Vec<TraceRecord>) {
    let wav = out(tag);
    let (script, problems) = parse_script(script, Path::new("t.txt"));
    assert!(problems.is_empty(), "{problems:#?}");
    let options = RenderOptions {
        duration: Some(seconds),
        ..RenderOptions::default()
    };
    let mut records = Vec::new();
    render_with(demo(), &script, &wav, options, &mut |r| records.push(r)).unwrap();
    let samples = hound::WavReader::open(&wav)
        .unwrap()
        .samples::<i16>()
        .map(|s| f32::from(s.unwrap()) / 32768.0)
        .collect();
    (samples, records)
}

/// RMS of the stereo frames between `from` and `to` seconds (48 kHz).
fn rms(samples: &[f32], from: f64, to: f64) -> f64 {
    let range = (from * 96_000.0) as usize..(to * 96_000.0) as usize;
    let window = &samples[range];
    (window.iter().map(|s| f64::from(*s).powi(2)).sum::<f64>() / window.len() as f64).sqrt()
}

/// The engine's decisions: every voice, pick and note record.
fn decisions(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter(|r| {
            matches!(
                r.what,
                TraceEvent::Started { .. }
                    | TraceEvent::Stole { .. }
                    | TraceEvent::Refused { .. }
                    | TraceEvent::Pick { .. }
                    | TraceEvent::NoteStarted { .. }
            )
        })
        .map(|r| format!("{} {}", r.time.samples(), r.what))
        .collect()
}

const VOICES: &str = "0.0 ui ui click\n0.4 ui ui moneyback\n2.0 sev vox greet @1\n";

#[test]
fn solo_vox_silences_the_ui_sounds_and_keeps_the_voice() {
    let (plain, plain_records) = render("plain", VOICES, 3.0);
    let (solo, solo_records) = render("solo", &format!("0 solo vox\n{VOICES}"), 3.0);
    let ui = (0.02, 1.2);
    let voice = (2.05, 2.6);
    assert!(
        rms(&plain, ui.0, ui.1) > 0.01,
        "the UI sounds play without monitoring"
    );
    assert!(
        rms(&solo, ui.0, ui.1) < 1e-4,
        "soloing VOX silences FX: {}",
        rms(&solo, ui.0, ui.1)
    );
    let (a, b) = (rms(&plain, voice.0, voice.1), rms(&solo, voice.0, voice.1));
    assert!(b > 0.01, "the voice is heard while VOX is soloed: {b}");
    assert!(b <= a + 1e-6, "and no louder than without solo: {b} vs {a}");
    assert_eq!(decisions(&plain_records), decisions(&solo_records));
}

#[test]
fn muting_a_playing_track_silences_it_and_unmuting_brings_it_back_unchanged() {
    let script = "0 sev piano play @1\n";
    let (plain, _) = render("piano", script, 3.0);
    let (muted, _) = render(
        "piano-muted",
        &format!("{script}1.0 mute track 0x2200\n2.0 mute track 0x2200 off\n"),
        3.0,
    );
    assert!(rms(&plain, 1.1, 1.9) > 0.005, "the piano plays");
    // While muted, what is heard is what the demo plays without the piano (its
    // ambience), sample for sample.
    let (without, _) = render("no-piano", "", 3.0);
    let frames = |from: f64, to: f64| (from * 96_000.0) as usize..(to * 96_000.0) as usize;
    let largest_difference = |a: &[f32], b: &[f32], from: f64, to: f64| {
        a[frames(from, to)]
            .iter()
            .zip(&b[frames(from, to)])
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max)
    };
    assert!(
        largest_difference(&muted, &without, 1.1, 1.9) < 1e-4,
        "muted, the piano is not heard at all"
    );
    assert!(rms(&muted, 1.1, 1.9) < rms(&plain, 1.1, 1.9) * 0.5);
    assert_eq!(
        plain[frames(0.0, 0.99)],
        muted[frames(0.0, 0.99)],
        "nothing changes before the mute"
    );
    let worst = largest_difference(&plain, &muted, 2.1, 3.0);
    assert!(worst < 1e-3, "unmuted, the piano is what it was: {worst}");
}
