//! Events by name, case-insensitive; every event type (docs/vm.md); argument
//! types filling arg1–arg4; the debug toggles 44–49.

use super::support::{TempProject, args, engine, records, run_for};
use engine_core::runtime::{
    EventArgs, HookEvent, Outcome, SoundCommand, TraceKind, TraceSwitches, TriggerError,
};

fn project() -> TempProject {
    let p = TempProject::new("dispatch");
    p.file(
        "sounds.src",
        "LAYOUT tso\nBINARY [\n\
         show_args\n\tprintreg arg1\n\tprintreg arg2\n\tprintreg arg3\n\tprintreg arg4\n\tend\n\
         hum\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
    )
    .file(
        "tables.hot",
        "[EventMappingEquate]\nkMyPlay=1\n\
         [EventMapping]\n\
         UI_MoneyBack=kMyPlay,0x300,0,0,0,0\n\
         args_normal=1,0x301,0,0,0,0\n\
         args_volpan=1,0x302,0,0,0,0\n\
         args_idvolpan=1,0x303,0,0,0,0\n\
         args_xyz=1,0x304,0,0,0,0\n\
         hum_stop=kSndobStop,0x300,0,0,0,0\n\
         hum_kill=kSndobKill,0x300,0,0,0,0\n\
         hum_update=kUpdateSourceVolPan,0x300,0,0,0,0\n\
         everything_off=kKillAll,0,0,0,0,0\n\
         hum_instance=kKillInstance,0x300,0,0,0,0\n\
         tv_on=kTurnOnTV,1000,0,0,0,0\n\
         tv_off=kTurnOffTV,1000,0,0,0,0\n\
         mode_buy=kSetMusicMode,1,0,0,0,0\n\
         piano_play=kPlayPiano,0x300,0,0,0,0\n\
         events_on=44,0,0,0,0,0\n\
         events_off=45,0,0,0,0,0\n\
         samples_on=46,0,0,0,0,0\n\
         samples_off=47,0,0,0,0,0\n\
         tracks_on=48,0,0,0,0,0\n\
         tracks_off=49,0,0,0,0,0\n\
         odd=77,0,0,0,0,0\n\
         [Track]\n\
         0x300=0,hum,1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         0x301=0,show_args,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         0x302=0,show_args,1024,kArgsVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         0x303=0,show_args,1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         0x304=0,show_args,1024,kArgsXYZ,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         [Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n",
    )
    .sample("s.wav");
    p
}

#[test]
fn events_trigger_by_name_ignoring_case() {
    let p = project();
    let loaded = p.load();
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    let (mut engine, sink) = engine(loaded, 1, 1.0);
    assert_eq!(
        engine.trigger("ui_moneyback", None, args()).unwrap(),
        Outcome::Started { voice: 0 }
    );
    engine.tick();
    assert_eq!(
        engine.trigger("UI_MONEYBACK", None, args()).unwrap(),
        Outcome::AlreadyPlaying { voice: 0 }
    );
    assert!(matches!(sink.commands()[0], SoundCommand::Start { .. }));
    assert_eq!(
        engine.trigger("no_such_event", None, args()),
        Err(TriggerError::UnknownEvent("no_such_event".into()))
    );
    let errors = records(engine.trace(), TraceKind::Error);
    assert_eq!(
        errors.last().unwrap().message(),
        "unknown event `no_such_event`"
    );
}

#[test]
fn argument_types_fill_the_arg_registers() {
    let p = project();
    let (mut engine, _) = engine(p.load(), 1, 1.0);
    let a = EventArgs {
        volume: 700,
        pan: 300,
        position: [11, 12, 13],
        normal: [21, 22, 23, 24],
        view: None,
    };
    let mut seen = Vec::new();
    for event in ["args_normal", "args_volpan", "args_idvolpan", "args_xyz"] {
        engine.trigger(event, Some(9), a).unwrap();
        run_for(&mut engine, 0.05);
        let values: Vec<i32> = records(&engine.take_trace(), TraceKind::Print)
            .iter()
            .map(|r| {
                r.message()
                    .split(" = ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        seen.push(values);
    }
    assert_eq!(
        seen,
        vec![
            vec![21, 22, 23, 24],
            vec![700, 300, 0, 0],
            vec![9, 700, 300, 0],
            vec![11, 12, 13, 0]
        ]
    );
}

#[test]
fn stop_kill_update_and_kill_instance() {
    let p = project();
    let (mut engine, sink) = engine(p.load(), 1, 5.0);
    engine.trigger("ui_moneyback", Some(3), args()).unwrap();
    engine.tick();
    let update = EventArgs {
        volume: 512,
        pan: 1024,
        ..EventArgs::default()
    };
    assert_eq!(
        engine.trigger("hum_update", Some(3), update).unwrap(),
        Outcome::Updated(1)
    );
    let levels: Vec<(f32, f32)> = sink
        .commands()
        .iter()
        .filter_map(|c| match c {
            SoundCommand::SetGain { gain, .. } => Some((gain.get(), 0.0)),
            SoundCommand::SetPan { pan, .. } => Some((0.0, pan.get())),
            _ => None,
        })
        .collect();
    assert_eq!(levels, [(0.5, 0.0), (0.0, 1.0)]);
    assert_eq!(
        engine.trigger("hum_kill", None, args()).unwrap(),
        Outcome::Stopped(1)
    );
    assert!(engine.active_tracks().is_empty());

    engine.trigger("ui_moneyback", Some(3), args()).unwrap();
    engine.tick();
    assert_eq!(
        engine.trigger("hum_instance", Some(3), args()).unwrap(),
        Outcome::Stopped(1)
    );
    assert!(engine.active_tracks().is_empty());

    engine.trigger("ui_moneyback", None, args()).unwrap();
    engine.tick();
    assert_eq!(
        engine.trigger("hum_stop", None, args()).unwrap(),
        Outcome::Stopped(1)
    );
    // Stop lets the current note play out: the track lives until it ends.
    assert_eq!(engine.active_tracks().len(), 1);
    run_for(&mut engine, 6.0);
    assert!(engine.active_tracks().is_empty());

    engine.trigger("ui_moneyback", None, args()).unwrap();
    assert_eq!(
        engine.trigger("everything_off", None, args()).unwrap(),
        Outcome::Stopped(1)
    );
}

#[test]
fn tv_music_and_other_types_are_dispatched_and_traced() {
    let p = project();
    let (mut engine, _) = engine(p.load(), 1, 1.0);
    assert_eq!(
        engine.trigger("tv_on", Some(4), args()).unwrap(),
        Outcome::Hook
    );
    assert_eq!(
        engine.trigger("tv_off", Some(4), args()).unwrap(),
        Outcome::Hook
    );
    assert_eq!(
        engine.trigger("mode_buy", None, args()).unwrap(),
        Outcome::Hook
    );
    assert_eq!(
        engine.trigger("odd", None, args()).unwrap(),
        Outcome::Ignored
    );
    let hooks = engine.take_hooks();
    assert_eq!(
        hooks,
        vec![
            HookEvent::TurnOn {
                event: "tv_on".into(),
                station: 1000,
                object: Some(4)
            },
            HookEvent::TurnOff {
                event: "tv_off".into(),
                station: 1000,
                object: Some(4)
            },
            HookEvent::MusicMode {
                event: "mode_buy".into(),
                mode: 1
            },
        ]
    );
    let traced = records(engine.trace(), TraceKind::Hook).len();
    assert_eq!(traced, 4);
}

#[test]
fn piano_events_loop_their_track() {
    let p = project();
    let (mut engine, sink) = engine(p.load(), 1, 0.1);
    engine.trigger("piano_play", None, args()).unwrap();
    run_for(&mut engine, 1.0);
    let starts = sink
        .commands()
        .iter()
        .filter(|c| matches!(c, SoundCommand::Start { .. }))
        .count();
    assert!(
        starts >= 9,
        "the hum track loops when played as a piano event: {starts}"
    );
}

#[test]
fn debug_events_switch_the_traces() {
    let p = project();
    let (mut engine, _) = engine(p.load(), 1, 0.01);
    engine.set_trace_switches(TraceSwitches::default());
    let count = |engine: &mut engine_core::runtime::Engine, kind| {
        let trace = engine.take_trace();
        records(&trace, kind).len()
    };
    engine.trigger("ui_moneyback", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    let trace = engine.take_trace();
    assert!(records(&trace, TraceKind::Event).is_empty());
    assert!(records(&trace, TraceKind::Sample).is_empty());
    assert!(records(&trace, TraceKind::Track).is_empty());
    assert!(
        !records(&trace, TraceKind::Voice).is_empty(),
        "voice decisions are always traced"
    );
    for (on, off, kind) in [
        ("events_on", "events_off", TraceKind::Event),
        ("samples_on", "samples_off", TraceKind::Sample),
        ("tracks_on", "tracks_off", TraceKind::Track),
    ] {
        engine.trigger(on, None, args()).unwrap();
        engine.trigger("ui_moneyback", None, args()).unwrap();
        run_for(&mut engine, 0.1);
        assert!(count(&mut engine, kind) > 0, "{on}");
        engine.trigger(off, None, args()).unwrap();
        // The switching event itself is still traced while the switch is on.
        engine.take_trace();
        engine.trigger("ui_moneyback", None, args()).unwrap();
        run_for(&mut engine, 0.1);
        assert_eq!(count(&mut engine, kind), 0, "{off}");
    }
    assert_eq!(engine.trace_switches(), TraceSwitches::default());
}
