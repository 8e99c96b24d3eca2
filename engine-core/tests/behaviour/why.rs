//! "Why": a session's trace grouped into one decision per trigger, and its explanation —
//! for a played request (every gain contribution, multiplying to the note's gain; for an
//! object on the lot the view's fade, zoom and floor, the option group and the master
//! volume, together what the mixer really plays), a stolen voice and a refused request
//! (every occupant compared, with its priority and age), and an inaudible one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::trace::{GainFactor, PanSource, ScreenArea, TraceEvent};
use engine_core::runtime::{
    ControlGroup, Engine, EngineConfig, EventArgs, Gain, SharedSink, TraceRecord, TraceSwitches,
};
use engine_core::sound::mixer::voice::pan_gains;
use engine_core::sound::mixer::{MixerConfig, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::tools::diff::{Change, GAIN_THRESHOLD_DB, diff, summary};
use engine_core::tools::why::{Decision, Verdict, decisions};
use support::{TempProject, args, looping_tracks, samples_of};

/// Tracks `t0`…, each looping a long note, with these priorities; 4 voices.
fn session(priorities: &[i32]) -> (TempProject, Engine) {
    session_with(priorities, 4, 768)
}

/// The same, with `voices` voices and every track at `volume`.
fn session_with(priorities: &[i32], voices: usize, volume: i32) -> (TempProject, Engine) {
    let p = looping_tracks("why", priorities, volume, "");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let config = EngineConfig {
        seed: 1,
        max_voices: voices,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(
        project,
        config,
        Box::new(SharedSink::default()),
        samples_of(10.0),
    );
    engine.set_trace_switches(TraceSwitches::ALL);
    (p, engine)
}

fn trigger(engine: &mut Engine, records: &mut Vec<TraceRecord>, i: i32, args: EventArgs) {
    engine.trigger(&format!("t{i}"), Some(i), args).unwrap();
    engine.tick();
    records.extend(engine.take_trace());
}

#[test]
fn a_played_request_shows_every_gain_factor_multiplying_to_its_gain() {
    let (_p, mut engine) = session(&[10]);
    let mut records = Vec::new();
    let half = EventArgs {
        volume: 512,
        pan: 768,
        ..args()
    };
    trigger(&mut engine, &mut records, 0, half);
    let all = decisions(&records);
    assert_eq!(all.len(), 1, "{all:#?}");
    let d = &all[0];
    assert!(
        matches!(d.verdict, Verdict::Started { voice: 0, .. }),
        "{d:#?}"
    );
    assert!(d.audible());
    let note = &d.notes[0];
    let g = note.gain;
    assert_eq!(g.track_volume.get(), 0.75);
    assert_eq!(g.external_volume().get(), 0.5);
    assert_eq!(g.ducking.get(), 1.0);
    assert_eq!(
        (g.group, g.group_volume, g.master),
        (ControlGroup::Fx, Gain::UNITY, Gain::UNITY)
    );
    assert_eq!(g.total().get(), 0.375);
    assert_eq!(note.pan.value.get(), 0.5);
    assert_eq!(note.pan.source, PanSource::Trigger);
    let text = d.explain(48_000).join("\n");
    assert!(
        text.contains(
            "gain 0.375 = track volume 0.750 × trigger volume 0.500 × ducking 1.000 × group FX 1.000 × master 1.000 (-8.5 dB)"
        ),
        "{text}"
    );
    assert!(text.contains("    pan R 0.50 as triggered"), "{text}");
}

#[test]
fn a_refused_and_a_stolen_request_show_every_occupant_compared() {
    let (_p, mut engine) = session(&[10, 20, 30, 40, 5, 15]);
    let mut records = Vec::new();
    for i in 0..6 {
        trigger(&mut engine, &mut records, i, args());
    }
    let all = decisions(&records);
    assert_eq!(all.len(), 6, "{all:#?}");
    match &all[4].verdict {
        Verdict::Refused {
            priority,
            lowest,
            occupants,
            capacity,
        } => {
            assert_eq!((*priority, &*lowest.track, *capacity), (5, "t0", 4));
            let compared: Vec<(&str, i32)> =
                occupants.iter().map(|o| (&*o.track, o.priority)).collect();
            assert_eq!(compared, [("t0", 10), ("t1", 20), ("t2", 30), ("t3", 40)]);
            assert!(occupants[0].age > occupants[3].age, "{occupants:#?}");
        }
        other => panic!("{other:#?}"),
    }
    assert!(!all[4].audible());
    let refused = all[4].explain(48_000).join("\n");
    assert!(refused.contains("refused: all 4 voices busy and its priority 5 is not above the lowest playing, `t0` on voice 0 with priority 10"), "{refused}");
    assert!(
        refused.contains("voice  3: `t3` priority 40, playing"),
        "{refused}"
    );
    match &all[5].verdict {
        Verdict::Stole { voice, victim, .. } => {
            assert_eq!((*voice, &*victim.track, victim.priority), (0, "t0", 10));
        }
        other => panic!("{other:#?}"),
    }
    assert_eq!(all[5].notes.len(), 1, "the thief's own note: {:#?}", all[5]);
    let stolen = &all[0];
    assert!(
        matches!(
            stolen.ended,
            Some((_, engine_core::runtime::trace::EndReason::Stolen))
        ),
        "{stolen:#?}"
    );
}

#[test]
fn an_inaudible_request_says_which_factor_silenced_it() {
    let (_p, mut engine) = session(&[10]);
    let mut records = Vec::new();
    let silent = EventArgs {
        volume: 0,
        ..args()
    };
    trigger(&mut engine, &mut records, 0, silent);
    let d = &decisions(&records)[0];
    assert!(!d.audible(), "{d:#?}");
    let text = d.explain(48_000).join("\n");
    assert!(
        text.contains("inaudible: trigger volume is 0: it was triggered at volume 0"),
        "{text}"
    );
}

/// The decisions of triggering `t0`… in order, one tick apart.
fn run(priorities: &[i32], voices: usize, volume: i32) -> Vec<Decision> {
    let (_p, mut engine) = session_with(priorities, voices, volume);
    let mut records = Vec::new();
    for i in 0..priorities.len() as i32 {
        trigger(&mut engine, &mut records, i, args());
    }
    decisions(&records)
}

#[test]
fn the_same_run_does_not_differ() {
    let a = run(&[10, 20, 30, 40, 5, 15], 4, 768);
    let b = run(&[10, 20, 30, 40, 5, 15], 4, 768);
    assert_eq!(diff(&a, &b, GAIN_THRESHOLD_DB), []);
}

#[test]
fn fewer_voices_show_the_steals_and_refusals_that_did_not_happen_before() {
    let before = run(&[10, 20, 30, 40, 50], 8, 768);
    let after = run(&[10, 20, 30, 40, 50], 3, 768);
    let changes = diff(&before, &after, GAIN_THRESHOLD_DB);
    let lines: Vec<String> = changes.iter().map(|d| d.line(48_000)).collect();
    assert_eq!(changes.len(), 2, "{lines:#?}");
    assert_eq!(summary(&changes), "2 difference(s) in 2 trigger(s)");
    assert_eq!(&*changes[0].event, "t3");
    assert!(
        lines[0].ends_with("stole voice 0 from `t0` now, started on voice 3 before"),
        "{lines:#?}"
    );
    assert!(
        matches!(&changes[1].change, Change::Verdict { after, .. } if after.starts_with("stole voice 1 from `t1`")),
        "{lines:#?}"
    );
}

#[test]
fn a_gain_that_moved_more_than_the_threshold_is_a_difference() {
    let before = run(&[10], 4, 768);
    let quieter = run(&[10], 4, 384);
    let changes = diff(&before, &quieter, GAIN_THRESHOLD_DB);
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let line = changes[0].line(48_000);
    assert!(
        line.contains(": note 1 at ")
            && line.ends_with("(`s.wav`) gain 0.375 (-8.5 dB) now, 0.750 (-2.5 dB) before"),
        "{line}"
    );
    assert_eq!(summary(&changes), "1 difference(s) in 1 trigger(s)");
    let nearly = run(&[10], 4, 700);
    assert_eq!(
        diff(&before, &nearly, GAIN_THRESHOLD_DB),
        [],
        "0.8 dB is below 1 dB"
    );
}

#[test]
fn triggers_only_in_one_run_are_missing_or_extra() {
    let two = run(&[10, 20], 4, 768);
    let one = run(&[10], 4, 768);
    let changes = diff(&two, &one, GAIN_THRESHOLD_DB);
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0].change, Change::Missing);
    let changes = diff(&one, &two, GAIN_THRESHOLD_DB);
    assert_eq!(changes[0].change, Change::Extra);
}

#[test]
fn why_checks_its_subject_and_suggests_the_closest_event() {
    use engine_core::tools::why::{Subject, SubjectError};
    let (p, _engine) = session(&[10, 20]);
    let project = p.load();
    assert_eq!(Subject::Event("T1".into()).check(&project, &[]), Ok(()));
    let e = Subject::Event("tt1".into())
        .check(&project, &[])
        .unwrap_err();
    assert_eq!(
        e,
        SubjectError::UnknownEvent {
            name: "tt1".into(),
            suggestion: Some("t1".into())
        }
    );
    assert_eq!(e.to_string(), "unknown event `tt1` (did you mean `t1`?)");
    // Without a lot any object is taken (as `sev` takes it); with one it must be there.
    assert_eq!(Subject::Object(9).check(&project, &[]), Ok(()));
    assert_eq!(Subject::Object(2).check(&project, &[3, 2]), Ok(()));
    let e = Subject::Object(9).check(&project, &[3, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "there is no object 9 on the lot (on the lot: @2, @3)"
    );
}

#[test]
fn the_why_log_keeps_only_its_subjects_and_explains_the_latest() {
    use engine_core::tools::why::{Subject, WhyLog};
    let (_p, mut engine) = session(&[10, 20, 30, 40, 5]);
    let mut log = WhyLog::new([Subject::Event("t4".into()), Subject::Object(1)]);
    for i in 0..5 {
        engine.trigger(&format!("t{i}"), Some(i), args()).unwrap();
        engine.tick();
        for record in engine.take_trace() {
            log.keep(&record);
        }
    }
    let refused = log.answer(&Subject::Event("T4".into()), 48_000);
    assert!(
        refused.starts_with("why T4: 1 trigger(s) so far; the latest:"),
        "{refused}"
    );
    assert!(refused.contains("refused: all 4 voices busy"), "{refused}");
    assert!(refused.contains("voice  0: `t0` priority 10"), "{refused}");
    let played = log.answer(&Subject::Object(1), 48_000);
    assert!(played.contains("started on free voice 1"), "{played}");
    assert!(played.contains("× trigger volume"), "{played}");
    assert_eq!(
        log.decisions(&Subject::Object(2)),
        [],
        "not asked: not kept"
    );
    assert_eq!(
        log.answer(&Subject::Event("t0".into()), 48_000),
        "why t0: `t0` was not triggered so far"
    );
}

#[test]
fn a_placed_objects_note_names_every_factor_and_they_multiply_to_what_the_mixer_plays() {
    // Track volume 768 (0.75), FX. The object stands in the fade band at zoom 2, a floor
    // above the camera's; FX is at 0.5 and the master at 0.8.
    let p = looping_tracks("placed", &[10], 768, "");
    p.file("world.ini", "[Lot]\nFile = home.lot\n").file(
        "home.lot",
        "camera 10 10 zoom 2\nobject 1 person \"Far\" at 20 9 floor 1\n",
    );
    support::constant_wav(&p.path().join("s.wav"), 2.0, 0.5);
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (handle, mut mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut session = Session::new(project, handle, config);
    session.engine.set_trace_switches(TraceSwitches::ALL);
    for line in ["volume fx 0.5", "volume master 0.8", "sev t0 @1"] {
        session.run_line(line).unwrap();
    }
    let mut out = vec![0.0f32; 2 * 9_600];
    let mut records = Vec::new();
    while session.now().samples() < 9_600 {
        let start = session.now();
        session.tick();
        let frames = (session.now() - start) as usize;
        let end = (start.samples() as usize + frames).min(9_600);
        mixer.render(&mut out[start.samples() as usize * 2..end * 2]);
        records.extend(session.take_trace());
    }
    let (gain, pan) = records
        .iter()
        .find_map(|r| match &r.what {
            TraceEvent::NoteStarted { gain, pan, .. } => Some((**gain, **pan)),
            _ => None,
        })
        .expect("the note started");
    // Every contribution, by name.
    let factors = gain.factors();
    let names: Vec<GainFactor> = factors.iter().map(|(f, _)| *f).collect();
    let view = [
        GainFactor::TrackVolume,
        GainFactor::Fade(ScreenArea::Fading),
        GainFactor::Zoom,
        GainFactor::Floor,
    ];
    let rest = [
        GainFactor::Ducking,
        GainFactor::Group(ControlGroup::Fx),
        GainFactor::Master,
    ];
    assert_eq!(names[..4], view, "{factors:?}");
    assert_eq!(names[names.len() - 3..], rest, "{factors:?}");
    assert!(
        names.len() == 7 || names[4] == GainFactor::Rounding,
        "{factors:?}"
    );
    let value = |name| factors.iter().find(|(f, _)| *f == name).unwrap().1.get();
    assert_eq!(value(GainFactor::TrackVolume), 0.75);
    assert!(value(GainFactor::Fade(ScreenArea::Fading)) < 1.0);
    assert!(value(GainFactor::Fade(ScreenArea::Fading)) > 0.5);
    assert_eq!(value(GainFactor::Zoom), 0.7);
    assert_eq!(value(GainFactor::Floor), 0.25);
    assert_eq!(value(GainFactor::Group(ControlGroup::Fx)), 0.5);
    assert_eq!(value(GainFactor::Master), 0.8);
    // They multiply to the total.
    let product: f32 = factors.iter().map(|(_, g)| g.get()).product();
    let total = gain.total().get();
    assert!(
        (product - total).abs() <= total * 1e-5,
        "{product} vs {total}"
    );
    // And the total is what the mixer plays: a constant 0.5 comes out at 0.5 × total,
    // split between the speakers by the pan (the screen's: the object is right of centre).
    assert!(
        matches!(pan.source, PanSource::Screen(v) if v.screen_x > 512.0),
        "{pan:?}"
    );
    assert!(pan.value.get() > 0.0);
    let (left, right) = pan_gains(pan.value.get(), false);
    let frame = 4_800 * 2;
    let heard = [out[frame], out[frame + 1]];
    let want = [0.5 * total * left, 0.5 * total * right];
    for (h, w) in heard.iter().zip(want) {
        assert!((h - w).abs() <= w * 1e-3, "heard {heard:?}, want {want:?}");
    }
    let text = decisions(&records)[0].explain(48_000).join("\n");
    assert!(
        text.contains(&format!(
            "gain {total:.3} = track volume 0.750 × fade (fading) {:.3} × zoom 0.700 × floor 0.250",
            value(GainFactor::Fade(ScreenArea::Fading))
        )),
        "{text}"
    );
    assert!(text.contains("× group FX 0.500 × master 0.800 ("), "{text}");
}
