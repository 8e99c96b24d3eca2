//! Box-X: at most 16 tracks, priority stealing and refusal with reasons; one copy of a
//! track with the instance map's owners; quieting; multiple instances; interrupt
//! handoff; ducking.

use super::support::{TempProject, args, engine, looping_tracks, records, run_for};
use engine_core::runtime::{Outcome, SoundCommand, TraceKind};

/// Tracks `t0`…`t19`, each looping a long note; [Track] entries give priorities.
fn project(priorities: &[i32]) -> TempProject {
    looping_tracks("voices", priorities, 1024, "")
}

/// Starts `t0`…`t15`, one tick apart, each in the voice of its number.
fn fill_voices(engine: &mut engine_core::runtime::Engine) {
    for i in 0..16 {
        let outcome = engine
            .trigger(&format!("t{i}"), Some(i as i32), args())
            .unwrap();
        assert_eq!(outcome, Outcome::Started { voice: i }, "t{i}");
        engine.tick();
    }
}

#[test]
fn seventeen_object_sounds_steal_or_are_refused_as_specified() {
    // 16 voices fill with mixed priorities; the oldest of the two lowest (10) is t1.
    let priorities = [
        40, 10, 50, 30, 10, 60, 20, 70, 25, 35, 45, 55, 65, 75, 80, 90, 15, 10, 11,
    ];
    let p = project(&priorities);
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (mut engine, _) = engine(project, 1, 10.0);
    fill_voices(&mut engine);
    assert_eq!(engine.voices_in_use(), 16);
    engine.take_trace();

    // 17th: priority 15 > 10 → steals voice 1 from t1 (oldest of the priority-10 pair).
    assert_eq!(
        engine.trigger("t16", Some(16), args()).unwrap(),
        Outcome::Started { voice: 1 }
    );
    let trace = engine.take_trace();
    let voice = records(&trace, TraceKind::Voice);
    assert!(
        voice[0]
            .message()
            .starts_with("stole voice 1 from `t1` (priority 10) for `t16` (priority 15): 15 > 10"),
        "{}",
        voice[0].message()
    );
    engine.tick();

    // Next: priority 10 is not higher than the lowest now playing (t4, 10) → refused.
    assert_eq!(
        engine.trigger("t17", Some(17), args()).unwrap(),
        Outcome::Refused
    );
    let trace = engine.take_trace();
    let refused = records(&trace, TraceKind::Voice);
    assert!(
        refused[0].message().contains("refused `t17` (priority 10): all 16 voices busy and the lowest priority playing is `t4` on voice 4 with priority 10 (10 <= 10)"),
        "{}",
        refused[0].message()
    );
    // Priority 11 beats t4's 10.
    assert_eq!(
        engine.trigger("t18", Some(18), args()).unwrap(),
        Outcome::Started { voice: 4 }
    );
    let names: Vec<String> = engine
        .active_tracks()
        .iter()
        .map(|t| t.track_name.to_string())
        .collect();
    assert!(
        !names.contains(&"t1".to_string()) && !names.contains(&"t4".to_string()),
        "{names:?}"
    );
    assert_eq!(names.len(), 16);
}

#[test]
fn two_objects_share_one_voice_until_both_are_quieted() {
    let p = project(&[32]);
    let (mut engine, sink) = engine(p.load(), 1, 10.0);
    assert_eq!(
        engine.trigger("t0", Some(1), args()).unwrap(),
        Outcome::Started { voice: 0 }
    );
    engine.tick();
    assert_eq!(
        engine.trigger("t0", Some(2), args()).unwrap(),
        Outcome::Joined { voice: 0 }
    );
    let tracks = engine.active_tracks();
    assert_eq!(tracks.len(), 1);
    assert_eq!(tracks[0].owners, [1, 2]);
    assert_eq!(engine.voices_in_use(), 1);
    let starts = |sink: &engine_core::runtime::SharedSink| {
        sink.commands()
            .iter()
            .filter(|c| matches!(c, SoundCommand::Start { .. }))
            .count()
    };
    assert_eq!(starts(&sink), 1, "one copy plays");

    engine.quiet(1);
    run_for(&mut engine, 0.1);
    assert_eq!(
        engine.active_tracks()[0].owners,
        [2],
        "still playing for object 2"
    );
    assert!(
        !sink
            .commands()
            .iter()
            .any(|c| matches!(c, SoundCommand::Stop { .. }))
    );

    engine.quiet(2);
    assert!(engine.active_tracks().is_empty());
    assert!(
        sink.commands()
            .iter()
            .any(|c| matches!(c, SoundCommand::Stop { .. }))
    );
    let trace = engine.take_trace();
    let messages: Vec<String> = records(&trace, TraceKind::Voice)
        .iter()
        .map(|r| r.message())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("joined: object 2 now also says `t0`")),
        "{messages:#?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("object 1 stops saying `t0`; it plays on for [2]"))
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("object 2 was the last owner of `t0`: it stops"))
    );
}

#[test]
fn quiet_all_and_ui_sounds() {
    let p = project(&[32, 32]);
    let (mut engine, _) = engine(p.load(), 1, 10.0);
    engine.trigger("t0", None, args()).unwrap();
    engine.tick();
    assert_eq!(
        engine.trigger("t0", None, args()).unwrap(),
        Outcome::AlreadyPlaying { voice: 0 }
    );
    engine.trigger("t1", Some(5), args()).unwrap();
    engine.tick();
    // Quieting an object leaves UI sounds alone.
    engine.quiet(5);
    assert_eq!(engine.active_tracks().len(), 1);
    assert_eq!(engine.quiet_all(), 1);
    assert!(engine.active_tracks().is_empty());
    assert_eq!(engine.voices_in_use(), 0);
}

#[test]
fn multiple_instances_register_lifts_the_one_copy_rule() {
    let p = TempProject::new("multi");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nchorus\n\tloadb MultipleInstances 1\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
    )
    .file("t.hot", "[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n")
    .sample("s.wav");
    let (mut engine, _) = engine(p.load(), 1, 10.0);
    engine.trigger("chorus", Some(1), args()).unwrap();
    engine.tick();
    assert_eq!(
        engine.trigger("chorus", Some(2), args()).unwrap(),
        Outcome::Started { voice: 1 }
    );
    assert_eq!(engine.active_tracks().len(), 2);
}

#[test]
fn interrupt_hands_over_to_the_new_trigger() {
    let p = TempProject::new("interrupt");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\ntalk\n\tloadb interrupt 1\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
    )
    .file("t.hot", "[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n")
    .sample("s.wav");
    let (mut engine, sink) = engine(p.load(), 1, 10.0);
    engine.trigger("talk", Some(1), args()).unwrap();
    engine.tick();
    assert_eq!(
        engine.trigger("talk", Some(2), args()).unwrap(),
        Outcome::Interrupting { voice: 0 }
    );
    engine.tick();
    let commands = sink.commands();
    let kinds: Vec<&str> = commands
        .iter()
        .map(|c| match c {
            SoundCommand::Start { .. } => "start",
            SoundCommand::Stop { .. } => "stop",
            _ => "level",
        })
        .collect();
    assert_eq!(kinds, ["start", "stop", "start"], "{commands:#?}");
    let tracks = engine.active_tracks();
    assert_eq!(tracks.len(), 1);
    assert_eq!(tracks[0].owners, [2]);
    let trace = engine.take_trace();
    assert!(
        records(&trace, TraceKind::Voice)
            .iter()
            .any(|r| r.message().starts_with("took over: `talk` on voice 0"))
    );
}

#[test]
fn ducking_lowers_lower_priority_tracks_and_unducking_restores_them() {
    let p = TempProject::new("duck");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nmusic\n\tloadb duckpri 20\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n\
         announcer\n\tloadb duckpri 50\n\tduck\n\tloadl v1 #500\n\twait v1\n\tunduck\n\tend\n]\n",
    )
    .file("t.hot", "[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n")
    .sample("s.wav");
    let (mut engine, sink) = engine(p.load(), 1, 10.0);
    engine.trigger("music", None, args()).unwrap();
    engine.tick();
    engine.trigger("announcer", None, args()).unwrap();
    run_for(&mut engine, 1.0);
    let gains: Vec<f32> = sink
        .commands()
        .iter()
        .filter_map(|c| match c {
            SoundCommand::SetGain { gain, .. } => Some(gain.get()),
            _ => None,
        })
        .collect();
    assert_eq!(gains, [0.25, 1.0], "ducked to the normal level, then back");
}

#[test]
fn play_kill_and_stop_other_tracks() {
    let p = TempProject::new("trk");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nloop_a\n\tloadb patch 1\n\tnote_on_loop v1\n\tloadl v1 #100000\n\twait v1\n\tend\n\
         starter\n\tloadl v1 #0x200\n\tplay_trk v1\n\tend\n\
         killer\n\tloadl v1 #0x200\n\tkill_trk v1\n\tend\n\
         stopper\n\tloadl v1 #0x200\n\tstop_trk v1\n\tend\n]\n",
    )
    .file(
        "t.hot",
        "[Track]\n0x200=0,loop_a,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         [Patch]\n1=0,hum,\"s.wav\",1,0,0,0,0\n",
    )
    .sample("s.wav");
    let (mut engine, _) = engine(p.load(), 1, 1.0);
    engine.trigger("starter", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    assert_eq!(
        engine
            .active_tracks()
            .iter()
            .filter(|t| &*t.track_name == "loop_a")
            .count(),
        1
    );
    engine.trigger("killer", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    assert!(engine.active_tracks().is_empty());
    engine.trigger("starter", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    engine.trigger("stopper", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    assert!(
        engine.active_tracks().is_empty(),
        "stopping a looping track ends it"
    );
}

#[test]
fn a_track_that_raises_its_own_priority_is_compared_at_its_new_priority() {
    // t0…t15 at priority 20 fill the voices; t0 then raises its own to 90, so the
    // newcomer (50) steals from t1, the oldest still at 20, not from t0.
    let mut source = String::from("LAYOUT tso\nBINARY [\n");
    let mut tracks = String::from("[Track]\n");
    let mut events = String::from("[EventMapping]\n");
    for i in 0..17 {
        let raise = if i == 0 { "\tloadb priority 90\n" } else { "" };
        source.push_str(&format!(
            "t{i}\n{raise}\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n"
        ));
        let priority = if i == 16 { 50 } else { 20 };
        tracks.push_str(&format!(
            "{}=0,t{i},1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,{priority}\n",
            100 + i
        ));
        events.push_str(&format!("t{i}=kSndobPlay,{},0,0,0,0\n", 100 + i));
    }
    source.push_str("]\n");
    let p = TempProject::new("raise-priority");
    p.file("t.src", &source)
        .file(
            "t.hot",
            &format!("{events}{tracks}[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n"),
        )
        .sample("s.wav");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (mut engine, _) = engine(project, 1, 10.0);
    fill_voices(&mut engine);
    engine.take_trace();
    assert_eq!(
        engine.trigger("t16", Some(16), args()).unwrap(),
        Outcome::Started { voice: 1 }
    );
    let trace = engine.take_trace();
    let voice = records(&trace, TraceKind::Voice);
    let stole = voice
        .iter()
        .find_map(|r| match &r.what {
            engine_core::runtime::trace::TraceEvent::Stole {
                victim, occupants, ..
            } => Some((victim.clone(), occupants.clone())),
            _ => None,
        })
        .expect("a steal");
    assert_eq!(&*stole.0.track, "t1");
    // The table the verdict saw shows t0 at its new priority.
    let t0 = stole.1.seats().iter().find(|s| &*s.track == "t0").unwrap();
    assert_eq!(t0.priority, 90);
}

/// `stop` — the Project browser's Stop — ends what auditions
/// started: the samples `play` started and every UI sound (`ui …`, no source object),
/// and nothing an object says. `quietall` ends a `play`ed sample too.
#[test]
fn stop_ends_the_auditions_and_quietall_a_played_sample_too() {
    use engine_core::host::command::{Context, execute, parse};
    let p = project(&[32, 32]);
    let (mut engine, sink) = engine(p.load(), 1, 10.0);
    let mut controlled = None;
    let mut run = |engine: &mut engine_core::runtime::Engine, line: &str| {
        let command = parse(line).unwrap().unwrap();
        let mut cx = Context {
            engine,
            controls: None,
            controlled: &mut controlled,
            args: args(),
        };
        execute(&command, &mut cx).unwrap()
    };
    // The audition's note: the one started on no voice.
    let audition = |commands: &[SoundCommand]| {
        commands
            .iter()
            .find_map(|c| match c {
                SoundCommand::Start { note, voice, .. } if *voice == usize::MAX => Some(*note),
                _ => None,
            })
            .unwrap()
    };
    let stopped = |commands: &[SoundCommand]| -> Vec<u64> {
        commands
            .iter()
            .filter_map(|c| match c {
                SoundCommand::Stop { note, .. } => Some(*note),
                _ => None,
            })
            .collect()
    };
    run(&mut engine, "ui t0");
    engine.trigger("t1", Some(5), args()).unwrap();
    run(&mut engine, "play 1");
    engine.tick();
    let sample = audition(&sink.take());
    let reply = run(&mut engine, "stop");
    engine.tick();
    assert!(
        reply.contains("1 sample(s)") && reply.contains("1 UI sound(s)"),
        "{reply}"
    );
    assert!(stopped(&sink.take()).contains(&sample), "the sample stops");
    let playing: Vec<String> = engine
        .active_tracks()
        .iter()
        .map(|t| t.track_name.to_string())
        .collect();
    assert_eq!(playing, ["t1"], "the object's track plays on");
    // Nothing left to stop.
    assert!(run(&mut engine, "stop").contains("nothing"));

    run(&mut engine, "play 1");
    engine.tick();
    let sample = audition(&sink.take());
    engine.quiet_all();
    engine.tick();
    assert!(stopped(&sink.take()).contains(&sample), "quietall stops it");
}
