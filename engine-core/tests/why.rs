//! "Why": a session's trace grouped into one decision per trigger, and its explanation —
//! for a played request (every gain factor, multiplying to the note's gain), a stolen
//! voice and a refused request (every occupant compared, with its priority and age), and
//! an inaudible one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "runtime/support.rs"]
#[allow(dead_code)]
mod support;

use engine_core::runtime::{
    Engine, EngineConfig, EventArgs, SharedSink, TraceRecord, TraceSwitches,
};
use engine_core::tools::why::{Verdict, decisions};
use support::{TempProject, args, samples_of};

/// Tracks `t0`…, each looping a long note, with these priorities; 4 voices.
fn session(priorities: &[i32]) -> (TempProject, Engine) {
    let mut source = String::from("LAYOUT tso\nBINARY [\n");
    let mut tracks = String::from("[Track]\n");
    let mut events = String::from("[EventMapping]\n");
    for (i, priority) in priorities.iter().enumerate() {
        source.push_str(&format!(
            "t{i}\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n"
        ));
        tracks.push_str(&format!(
            "{}=0,t{i},768,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,{priority}\n",
            100 + i
        ));
        events.push_str(&format!("t{i}=kSndobPlay,{},0,0,0,0\n", 100 + i));
    }
    source.push_str("]\n");
    let p = TempProject::new("why");
    p.file("t.src", &source)
        .file(
            "t.hot",
            &format!("{events}{tracks}[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n"),
        )
        .sample("s.wav");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let config = EngineConfig {
        seed: 1,
        max_voices: 4,
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
    assert_eq!(g.external_volume.get(), 0.5);
    assert_eq!(g.ducking.get(), 1.0);
    assert_eq!(g.total().get(), 0.375);
    assert_eq!(note.pan.get(), 0.5);
    let text = d.explain(48_000).join("\n");
    assert!(
        text.contains(
            "gain 0.375 = track volume 0.750 × external volume 0.500 × ducking 1.000 (-8.5 dB), pan R 0.50"
        ),
        "{text}"
    );
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
        text.contains("inaudible: the external volume is 0"),
        "{text}"
    );
}
