//! A track that never yields, divides by zero, jumps out of range or recurses without end
//! is stopped with a message naming event, track, address and `file:line`, while the
//! other tracks keep running.

use super::support::{TempProject, args, engine, records, run_for, started_patches};
use engine_core::runtime::vm::MAX_LOCAL_LIST_IDS;
use engine_core::runtime::{TraceKind, TraceSwitches};

const SOURCE: &str = "\
LAYOUT tso
BINARY [
spinner
\tloadb v1 0
spin
\tinc v1
\tjump @spin

divider
\tloadb v1 5
\tloadb v2 0
\tdiv v1 v2
\tend

wanderer
\tjump #100000

recurser
\tcall @recurser

bystander
\tloadb patch 1
again
\tnote_on v1
\twait_samp
\tjump @again
]
";

#[test]
fn each_fault_stops_only_its_track_and_names_file_and_line() {
    let p = TempProject::new("faults");
    p.file("faults.src", SOURCE)
        .file("t.hot", "[Patch]\n1=0,tick,\"s.wav\",0,0,0,0,0\n")
        .sample("s.wav");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (mut engine, sink) = engine(project, 1, 0.05);
    engine.trigger("bystander", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    for track in ["spinner", "divider", "wanderer", "recurser"] {
        engine.trigger(track, None, args()).unwrap();
    }
    run_for(&mut engine, 1.0);
    let trace = engine.take_trace();
    let errors = records(&trace, TraceKind::Error);
    let file = p.path().join("faults.src").display().to_string();
    let expect = |track: &str, line: u32, what: &str| {
        let record = errors
            .iter()
            .find(|r| r.track.as_deref() == Some(track))
            .unwrap_or_else(|| panic!("no fault for {track}: {errors:#?}"));
        let place = format!("({file}:{line})");
        assert!(
            record.message().contains(&place),
            "{track}: {}",
            record.message()
        );
        assert!(
            record.message().contains(what),
            "{track}: {}",
            record.message()
        );
        assert!(
            record.message().contains(&format!("event `{track}`")),
            "{}",
            record.message()
        );
        assert!(
            record.message().contains("address 0x"),
            "{}",
            record.message()
        );
    };
    expect("spinner", 7, "without yielding");
    expect("divider", 12, "divide by zero");
    expect("wanderer", 16, "outside the code");
    expect("recurser", 19, "call stack overflow");
    assert_eq!(errors.len(), 4, "{errors:#?}");
    // The bystander kept playing all along: one note every 0.05 s for 1.1 s.
    let played = started_patches(&sink.commands()).len();
    assert!(played >= 20, "{played}");
    let active: Vec<String> = engine
        .active_tracks()
        .iter()
        .map(|t| t.track_name.to_string())
        .collect();
    assert_eq!(active, ["bystander"]);
}

/// Tracks that start each other with `play_trk` without waiting: `ping` ↔ `pong`, and
/// `breeder`, which allows several copies and starts itself twice.
const CYCLES: &str = "\
LAYOUT tso
BINARY [
ping
\tloadl v1 #0x301
\tplay_trk v1
\tend

pong
\tloadl v1 #0x300
\tplay_trk v1
\tend

breeder
\tloadb MultipleInstances 1
\tloadl v1 #0x302
\tplay_trk v1
\tplay_trk v1
\tend

selfish
\tloadl v1 #0x303
\tplay_trk v1
\tloadb patch 1
\tnote_on v2
\twait_samp
\tend

bystander
\tloadb patch 1
again
\tnote_on v1
\twait_samp
\tjump @again
]
";

const CYCLE_TRACKS: &str = "\
[Track]
0x300=0,ping,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0
0x301=0,pong,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0
0x302=0,breeder,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0
0x303=0,selfish,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0
[Patch]
1=0,tick,\"s.wav\",0,0,0,0,0
";

/// Runs `f` on its own thread; fails the test (instead of hanging the suite) when it
/// does not finish within `seconds`.
fn within<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(seconds))
        .unwrap_or_else(|_| panic!("did not finish within {seconds} s: the engine hangs"))
}

#[test]
fn play_trk_cycles_are_stopped_with_a_fault_and_the_engine_plays_on() {
    let p = TempProject::new("cycles");
    p.file("cycles.src", CYCLES)
        .file("t.hot", CYCLE_TRACKS)
        .sample("s.wav");
    let file = p.path().join("cycles.src").display().to_string();
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    for (cycle, lines) in [("ping", [5u32, 10]), ("breeder", [16, 17])] {
        let project = project.clone();
        let (trace, played, active, seconds) = within(60, move || {
            let (mut engine, sink) = engine(project, 1, 0.05);
            engine.trigger("bystander", None, args()).unwrap();
            run_for(&mut engine, 0.1);
            engine.trigger(cycle, None, args()).unwrap();
            run_for(&mut engine, 1.0);
            let active: Vec<String> = engine
                .active_tracks()
                .iter()
                .map(|t| t.track_name.to_string())
                .collect();
            let seconds = engine.clock().seconds(engine.now());
            (
                engine.take_trace(),
                started_patches(&sink.commands()).len(),
                active,
                seconds,
            )
        });
        assert!(seconds >= 1.1, "{cycle}: the clock went on ({seconds} s)");
        let errors = records(&trace, TraceKind::Error);
        assert_eq!(
            errors.len(),
            1,
            "{cycle}: one fault for the chain: {errors:#?}"
        );
        let message = &errors[0].message();
        assert!(message.contains("play_trk"), "{cycle}: {message}");
        assert!(
            lines
                .iter()
                .any(|line| message.contains(&format!("({file}:{line})"))),
            "{cycle}: names the play_trk line: {message}"
        );
        assert_eq!(active, ["bystander"], "{cycle}: the whole chain is stopped");
        assert!(
            played >= 20,
            "{cycle}: the bystander kept playing ({played})"
        );
    }
}

#[test]
fn a_track_that_plays_itself_is_already_playing() {
    let p = TempProject::new("selfish");
    p.file("cycles.src", CYCLES)
        .file("t.hot", CYCLE_TRACKS)
        .sample("s.wav");
    let project = p.load();
    let (trace, played) = within(60, move || {
        let (mut engine, sink) = engine(project, 1, 0.05);
        engine.trigger("selfish", None, args()).unwrap();
        run_for(&mut engine, 0.5);
        (engine.take_trace(), started_patches(&sink.commands()).len())
    });
    assert!(records(&trace, TraceKind::Error).is_empty(), "{trace:#?}");
    assert_eq!(played, 1, "one copy of a track at a time, even from itself");
}

#[test]
fn a_hit_list_that_contains_itself_is_a_cycle_not_a_missing_patch() {
    let p = TempProject::new("listcycle");
    p.file(
        "l.src",
        "LAYOUT tso\nBINARY [\nlooper\n\tloadl patch #900\n\tnote_on v1\n\tend\n]\n",
    )
    .file("t.hot", "[GlobalHitList]\n900=900\n");
    let file = p.path().join("l.src").display().to_string();
    let (mut engine, _) = engine(p.load(), 1, 0.05);
    engine.trigger("looper", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    let trace = engine.take_trace();
    let errors = records(&trace, TraceKind::Error);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let message = &errors[0].message();
    assert!(
        message.contains("hit list 900 contains itself") && !message.contains("does not exist"),
        "{message}"
    );
    assert!(message.contains(&format!("({file}:5)")), "{message}");
}

#[test]
fn a_track_growing_its_hit_list_without_end_is_stopped_in_time() {
    // Found by the fuzzer: `smart_add` copied the thread's whole list for each entry it
    // added, so adding took time quadratic in the list (a dozen tracks looping on it
    // hung the engine), and a track that adds 15 000 entries a tick and waits grew its
    // list without bound. Now adding is cheap and a list past MAX_LOCAL_LIST_IDS
    // faults its track.
    let p = TempProject::new("grower");
    p.file(
        "grower.src",
        "LAYOUT tso\nBINARY [\ngrower\n\tloadl v1 #7\n\tloadl v2 #20\n\tloadl v4 #15000\n\
         round\n\tloadb v3 0\ngrow\n\tsmart_add v1\n\tinc v3\n\tcmp v3 v4\n\tiflt @grow\n\
         \twait v2\n\tjump @round\n\
         looper\n\tloadl v1 #7\nagain\n\tsmart_add v1\n\tsmart_remove v1\n\tjump @again\n]\n",
    );
    let file = p.path().join("grower.src").display().to_string();
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let trace = within(60, move || {
        let (mut engine, _sink) = engine(project, 1, 0.05);
        engine.trigger("grower", None, args()).unwrap();
        engine.trigger("looper", None, args()).unwrap();
        run_for(&mut engine, 1.0);
        engine.take_trace()
    });
    let errors = records(&trace, TraceKind::Error);
    let grower = errors
        .iter()
        .find(|r| r.message().contains("event `grower`"))
        .unwrap_or_else(|| panic!("no fault for grower: {errors:#?}"));
    assert!(
        grower
            .message()
            .contains(&format!("more than {MAX_LOCAL_LIST_IDS} entries")),
        "{}",
        grower.message()
    );
    assert!(
        grower.message().contains(&format!("({file}:10)")),
        "{}",
        grower.message()
    );
    // The looper adds and removes: its list stays small, it only runs out of fuel.
    assert!(
        errors
            .iter()
            .filter(|r| r.message().contains("event `looper`"))
            .all(|r| r.message().contains("without yielding")),
        "{errors:#?}"
    );
}

#[test]
fn work_on_long_hit_lists_is_paid_for_in_fuel() {
    // Found by the fuzzer: `smart_remove`, `smart_choose` and copying a list for
    // `smart_add` go through the whole list, yet cost one instruction each, so a loop
    // of them on a list of 65 000 entries did billions of steps in one tick. List work
    // is charged as fuel now, and the loop runs out of it like any other.
    let p = TempProject::new("listwork");
    p.file(
        "listwork.src",
        "LAYOUT tso\nBINARY [\nremover\n\tloadl v8 #900\n\tsmart_setlist v8\n\tloadl v1 #7\n\
         \tsmart_add v1\nagain\n\tsmart_remove v2\n\tjump @again\n\
         chooser\n\tloadl v8 #900\n\tsmart_setlist v8\npick\n\tsmart_choose v1\n\tjump @pick\n]\n",
    )
    .file("t.hot", "[GlobalHitList]\n900=0-64999\n");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (trace, seconds) = within(60, move || {
        let (mut engine, _sink) = engine(project, 1, 0.05);
        engine.set_trace_switches(TraceSwitches::default());
        engine.trigger("remover", None, args()).unwrap();
        engine.trigger("chooser", None, args()).unwrap();
        run_for(&mut engine, 0.5);
        (engine.take_trace(), engine.clock().seconds(engine.now()))
    });
    assert!(seconds >= 0.5, "the clock went on ({seconds} s)");
    let errors = records(&trace, TraceKind::Error);
    for track in ["remover", "chooser"] {
        assert!(
            errors
                .iter()
                .any(|r| r.message().contains(&format!("event `{track}`"))
                    && r.message().contains("without yielding")),
            "{track} runs out of fuel: {errors:#?}"
        );
    }
}

/// A loop whose compare and branch the interpreter's fast path runs as one step, after
/// a run of straight instructions it checks the fuel for once (`Op::run`), with a
/// `printreg` (left to the slow path) in the middle.
const COUNTER: &str = "\
LAYOUT tso
BINARY [
counter
\tloadb v1 0
\tloadl v2 #1000
\tloadb v3 3
\tadd v3 v3
\tprintreg v3
\txor v4 v3
\tsub v4 v3
\tinc v4
again
\tinc v1
\tadd v3 v1
\tcmp v1 v2
\tiflt @again
\tdec v1
\tifne @done
\tinc v1
done
\tend

idle
\tend
]
";

#[test]
fn straight_runs_and_fused_branches_run_out_of_fuel_exactly_where_single_steps_do() {
    use engine_core::runtime::debug::BreakAt;
    use engine_core::runtime::trace::TraceEvent;
    use engine_core::runtime::{Engine, EngineConfig, NullSink};
    let p = TempProject::new("fused-fuel");
    p.file("c.src", COUNTER);
    // Every fuel from 1 up to past the loop's end: the plain run (fused pairs) and the
    // debugger's run (one instruction at a time, a breakpoint armed that never hits)
    // stop at the same instruction with the same count, or both finish.
    for fuel in (1..=40).chain([4000, 4008, 4009, 4010, 4011, 4012, 6000]) {
        let run = |armed: bool| {
            let config = EngineConfig {
                fuel_per_tick: fuel,
                ..EngineConfig::default()
            };
            let mut engine = Engine::new(
                p.load(),
                config,
                Box::new(NullSink),
                super::support::samples_of(1.0),
            );
            engine.set_trace_switches(TraceSwitches::ALL);
            if armed {
                engine
                    .add_breakpoint(BreakAt::Track("idle".into()), None)
                    .unwrap();
            }
            engine.trigger("counter", None, args()).unwrap();
            engine.tick();
            let faults: Vec<String> = engine
                .take_trace()
                .iter()
                .filter_map(|r| match &r.what {
                    TraceEvent::Fault { place, kind, .. } => Some(format!(
                        "{kind:?} at {:?}",
                        place.as_ref().map(|p| p.address)
                    )),
                    _ => None,
                })
                .collect();
            (faults, engine.instructions(), engine.active_tracks().len())
        };
        let (plain, debugged) = (run(false), run(true));
        assert_eq!(plain, debugged, "fuel {fuel}");
        if fuel <= 4010 {
            assert_eq!(plain.0.len(), 1, "fuel {fuel}: {plain:?}");
        } else {
            assert_eq!(plain, (Vec::new(), 4011, 0), "fuel {fuel}");
        }
    }
}
