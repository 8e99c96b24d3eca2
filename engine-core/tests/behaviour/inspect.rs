//! The inspectors' views of a running engine: threads with their PC, source line and
//! registers; the voice slots with priorities, gain and pan; the instance map; and the
//! voice history with its steals, refusals, interrupts, quiets and faults.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use engine_core::runtime::vm::FaultKind;
use engine_core::runtime::{Engine, EngineConfig, EventArgs, SharedSink, TraceSwitches};
use engine_core::runtime::{Gain, Pan, SampleTime};
use engine_core::toolchain::project::Project;
use engine_core::toolchain::registers::Layout;
use engine_core::tools::inspect::{self, LaneEnd, ThreadStatus, VoiceHistory};
use support::{TempProject, args, looping_tracks, run_for, samples_of};

/// An engine with `voices` voice slots; every trace on if `traced`.
fn engine_with(project: Project, voices: usize, sample_seconds: f64, traced: bool) -> Engine {
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
        samples_of(sample_seconds),
    );
    if traced {
        engine.set_trace_switches(TraceSwitches::ALL);
    }
    engine
}

/// Feeds the engine's trace and slots to the history, as the live engine does.
fn feed(history: &mut VoiceHistory, engine: &mut Engine) {
    let trace = engine.take_trace();
    let now = engine.now();
    history.push(&trace, now);
    history.observe(&inspect::voices(engine), now);
}

const THREADS: &str = "\
LAYOUT tso
BINARY [
worker
\tloadb v1 5
\tloadl v2 #1000
\tloadb patch 1
\tnote_on v3
\twait v2
\tend

looper
\tloadb patch 1
\tnote_on_loop v1
\twait_samp
\tend

sleeper
\tloadl v1 #500
\twait v1
after
\tloadl v1 #500
\twait v1
\tend

divider
\tloadb v1 5
\tloadb v2 0
\tdiv v1 v2
\tend
]
";

fn threads_project() -> TempProject {
    let p = TempProject::new("inspect-threads");
    p.file("t.src", THREADS)
        .file("t.hot", "[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n")
        .sample("s.wav");
    p
}

#[test]
fn threads_show_event_track_pc_source_line_and_registers() {
    let p = threads_project();
    let mut engine = engine_with(p.load(), 16, 10.0, false);
    let file = p.path().join("t.src");
    engine.trigger("worker", Some(7), args()).unwrap();
    engine.tick();
    let start = 0;

    let threads = inspect::threads(&engine);
    assert_eq!(threads.len(), 1, "{threads:#?}");
    let worker = &threads[0];
    assert_eq!(&*worker.event, "worker");
    assert_eq!(&*worker.track_name, "worker");
    assert_eq!(worker.source, Some(7));
    assert_eq!(worker.owners, [7]);
    assert_eq!(worker.voice, 0);
    assert_eq!(worker.layout, Layout::Tso);
    // It sleeps in `wait v2` (line 8) for 1000 ms; it resumes at `end` (line 9).
    assert_eq!(
        worker.state,
        ThreadStatus::WaitingUntil(SampleTime::from_samples(start + 48_000))
    );
    assert_eq!(worker.instruction, Some("wait"));
    assert_eq!(worker.file.as_deref(), Some(file.as_path()));
    assert_eq!(worker.line, Some(8));
    let (pc, next) = (worker.pc.unwrap(), worker.next_pc.unwrap());
    assert!(next > pc, "{pc:#x} {next:#x}");
    let reg = |name: &str| {
        worker
            .registers
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no register {name}: {:?}", worker.registers))
            .1
    };
    assert_eq!(reg("v1"), 5);
    assert_eq!(reg("v2"), 1000);
    assert_eq!(reg("patch"), 1);
    assert_eq!(reg("isplaying"), 1);
    assert_eq!(reg("source"), 7);
    assert_eq!(worker.registers[0].0, "arg0");
    assert!(worker.registers.iter().all(|(n, _)| n != "SimSpeed"));
    assert_eq!(worker.live_notes, 1);
    assert_eq!(worker.fuel_used, 5, "five instructions ran in the tick");
    assert_eq!(worker.started_at, SampleTime::from_samples(0));

    // A looping note: wait_samp waits until it is stopped.
    engine.trigger("looper", None, args()).unwrap();
    engine.tick();
    engine.tick();
    // A wait followed by a label (its successor is decoded first).
    engine.trigger("sleeper", None, args()).unwrap();
    engine.tick();
    let threads = inspect::threads(&engine);
    let find = |track: &str| threads.iter().find(|t| &*t.track_name == track).unwrap();
    let looper = find("looper");
    assert_eq!(looper.state, ThreadStatus::WaitingForNote { until: None });
    assert_eq!(looper.instruction, Some("wait_samp"));
    assert_eq!(looper.line, Some(14));
    let sleeper = find("sleeper");
    assert!(
        matches!(sleeper.state, ThreadStatus::WaitingUntil(t) if t > engine.now()),
        "{sleeper:#?}"
    );
    assert_eq!(sleeper.line, Some(19));
    // Code is decoded in address order, so the wait is the op before its successor in
    // the program (a wait that ends a run of ops, before a link, is found through the
    // successor map: `tools::inspect::threads` tests it).
    let program = engine.program();
    let next = program
        .op_at(engine_core::toolchain::project::CodeRef {
            unit: sleeper.unit.unwrap(),
            address: sleeper.next_pc.unwrap(),
        })
        .unwrap();
    assert_eq!(program.ops[next as usize - 1].next, next);
    run_for(&mut engine, 0.6);
    let threads = inspect::threads(&engine);
    let sleeper = threads
        .iter()
        .find(|t| &*t.track_name == "sleeper")
        .unwrap();
    assert_eq!(sleeper.line, Some(22), "the second wait");
}

#[test]
fn a_fault_is_in_the_history_with_file_and_line() {
    let p = threads_project();
    let mut engine = engine_with(p.load(), 16, 10.0, false);
    let mut history = VoiceHistory::default();
    engine.trigger("divider", None, args()).unwrap();
    engine.tick();
    feed(&mut history, &mut engine);
    assert!(inspect::threads(&engine).is_empty());
    let faults = history.faults();
    assert_eq!(faults.len(), 1, "{faults:#?}");
    assert_eq!(faults[0].file, Some(p.path().join("t.src")));
    assert_eq!(faults[0].line, Some(28));
    assert!(faults[0].address.is_some());
    assert_eq!(faults[0].track_name.as_deref(), Some("divider"));
    assert!(faults[0].message.contains("divide by zero"));
    let lane = &history.lanes()[0];
    assert!(
        matches!(&lane.end, Some(LaneEnd::Faulted { message }) if message.contains("divide by zero")),
        "{lane:#?}"
    );
}

/// Tracks `t0`…, each looping a long note, with these priorities, and `multi`, which
/// allows several copies.
fn voices_project(priorities: &[i32]) -> TempProject {
    looping_tracks(
        "inspect-voices",
        priorities,
        1024,
        "multi\n\tloadb MultipleInstances 1\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n",
    )
}

#[test]
fn voices_fill_slots_with_priorities_gain_and_pan() {
    let p = voices_project(&[10, 20, 30, 40]);
    let mut engine = engine_with(p.load(), 16, 10.0, false);
    assert_eq!(
        inspect::voices(&engine).len(),
        16,
        "the default voice count"
    );
    assert!(
        inspect::voices(&engine)
            .iter()
            .all(|v| v.occupant.is_none())
    );
    for i in 0..4 {
        let half = EventArgs {
            volume: 512,
            pan: 1024,
            ..EventArgs::default()
        };
        let a = if i == 3 { half } else { args() };
        engine.trigger(&format!("t{i}"), Some(i), a).unwrap();
        engine.tick();
    }
    let voices = inspect::voices(&engine);
    assert_eq!(voices.len(), 16);
    for (i, view) in voices.iter().enumerate() {
        assert_eq!(view.slot, i);
        match &view.occupant {
            Some(o) if i < 4 => {
                assert_eq!(&*o.track_name, format!("t{i}"));
                assert_eq!(&*o.event, format!("t{i}"));
                assert_eq!(o.priority, 10 * (i as i32 + 1));
                assert_eq!(o.owners, [i as i32]);
                assert_eq!(o.live_notes, 1);
                assert_eq!(o.elapsed, engine.now() - o.started_at);
                assert!(!o.finished);
            }
            None if i >= 4 => {}
            other => panic!("slot {i}: {other:#?}"),
        }
    }
    let (full, half) = (
        voices[0].occupant.as_ref().unwrap(),
        voices[3].occupant.as_ref().unwrap(),
    );
    assert_eq!((full.gain, full.pan), (Gain::UNITY, Pan::CENTRE));
    assert_eq!((half.gain, half.pan), (Gain::new(0.5), Pan::RIGHT));
}

#[test]
fn the_history_shows_a_steal_and_a_refusal_with_their_reasons() {
    let p = voices_project(&[10, 20, 30, 40, 15, 5]);
    let mut engine = engine_with(p.load(), 4, 10.0, false);
    let mut history = VoiceHistory::default();
    for i in 0..4 {
        engine.trigger(&format!("t{i}"), Some(i), args()).unwrap();
        engine.tick();
        feed(&mut history, &mut engine);
    }
    assert_eq!(history.lanes().len(), 4);
    assert!(history.lanes().iter().all(|l| l.end.is_none()));
    let before = history.version();

    // Priority 15 steals voice 0 from t0 (priority 10); priority 5 is then refused.
    let stolen_at = engine.now();
    engine.trigger("t4", Some(4), args()).unwrap();
    engine.trigger("t5", Some(5), args()).unwrap();
    engine.tick();
    feed(&mut history, &mut engine);
    assert_ne!(history.version(), before);

    let lanes = history.lanes();
    assert_eq!(lanes.len(), 5, "{lanes:#?}");
    let t0 = &lanes[0];
    assert_eq!((t0.slot, &*t0.track_name), (0, "t0"));
    assert_eq!(t0.ended_at, Some(stolen_at));
    match &t0.end {
        Some(LaneEnd::Stolen {
            by_track,
            by_event,
            reason,
        }) => {
            assert_eq!((&**by_track, &**by_event), ("t4", "t4"));
            assert!(reason.starts_with("15 > 10, all 4 voices busy"), "{reason}");
        }
        other => panic!("{other:#?}"),
    }
    let t4 = history.current(0).unwrap();
    assert_eq!(
        (&*t4.track_name, t4.started_at, t4.object),
        ("t4", stolen_at, Some(4))
    );
    let refusals = history.refusals();
    assert_eq!(refusals.len(), 1, "{refusals:#?}");
    assert_eq!(&*refusals[0].event, "t5");
    assert_eq!(refusals[0].track_name.as_deref(), Some("t5"));
    assert_eq!(refusals[0].object, Some(5));
    assert!(
        refusals[0]
            .reason()
            .contains("lowest priority playing is `t4` on voice 0 with priority 15 (5 <= 15)"),
        "{}",
        refusals[0].reason()
    );
    assert_eq!((refusals[0].priority, refusals[0].lowest.priority), (5, 15));
    assert_eq!(&*refusals[0].lowest.track, "t4");

    // Quieting the last owner closes a lane as quieted.
    engine.quiet(2);
    engine.tick();
    feed(&mut history, &mut engine);
    let t2 = history
        .lanes()
        .iter()
        .find(|l| &*l.track_name == "t2")
        .unwrap();
    assert!(
        matches!(&t2.end, Some(LaneEnd::Quieted { reason }) if reason.contains("last owner")),
        "{t2:#?}"
    );
    assert!(history.current(2).is_none());
}

#[test]
fn natural_ends_are_exact_with_the_track_trace_and_observed_without() {
    for traced in [true, false] {
        let p = voices_project(&[10]);
        let mut engine = engine_with(p.load(), 4, 0.1, traced);
        let mut history = VoiceHistory::default();
        engine.trigger("t0", None, args()).unwrap();
        engine.tick();
        feed(&mut history, &mut engine);
        run_for(&mut engine, 0.5);
        feed(&mut history, &mut engine);
        let lane = &history.lanes()[0];
        if traced {
            assert_eq!(lane.end, Some(LaneEnd::Finished), "{lane:#?}");
            assert_eq!(
                lane.ended_at,
                Some(SampleTime::from_samples(4_800)),
                "when its note ended"
            );
        } else {
            assert_eq!(lane.end, Some(LaneEnd::Ended), "{lane:#?}");
            assert_eq!(lane.ended_at, Some(engine.now()), "seen at the snapshot");
        }
    }
}

#[test]
fn an_interrupt_hands_the_lane_over() {
    let p = TempProject::new("inspect-interrupt");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\ntalk\n\tloadb interrupt 1\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
    )
    .file("t.hot", "[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n")
    .sample("s.wav");
    let mut engine = engine_with(p.load(), 4, 10.0, true);
    let mut history = VoiceHistory::default();
    engine.trigger("talk", Some(1), args()).unwrap();
    engine.tick();
    feed(&mut history, &mut engine);
    engine.trigger("talk", Some(2), args()).unwrap();
    engine.tick();
    feed(&mut history, &mut engine);
    let lanes = history.lanes();
    assert_eq!(lanes.len(), 2, "{lanes:#?}");
    assert!(
        matches!(&lanes[0].end, Some(LaneEnd::Interrupted { by_event }) if &**by_event == "talk")
    );
    assert_eq!(lanes[1].end, None);
    assert_eq!(lanes[1].object, Some(2));
}

#[test]
fn the_instance_map_lists_owners_of_shared_and_multiple_tracks() {
    let p = voices_project(&[32]);
    let mut engine = engine_with(p.load(), 16, 10.0, false);
    engine.trigger("t0", Some(1), args()).unwrap();
    engine.tick();
    engine.trigger("t0", Some(2), args()).unwrap();
    engine.trigger("multi", Some(3), args()).unwrap();
    engine.tick();
    engine.trigger("multi", Some(4), args()).unwrap();
    engine.tick();
    let map = inspect::instances(&engine);
    assert_eq!(map.len(), 2, "{map:#?}");
    let t0 = map.iter().find(|m| &*m.track_name == "t0").unwrap();
    assert_eq!(t0.track, 100);
    assert_eq!(t0.copies.len(), 1, "one copy, two owners");
    assert_eq!(t0.copies[0].owners, [1, 2]);
    assert_eq!(t0.owners, [1, 2]);
    let multi = map.iter().find(|m| &*m.track_name == "multi").unwrap();
    assert_eq!(multi.copies.len(), 2, "one copy per trigger");
    assert_eq!(multi.copies[0].owners, [3]);
    assert_eq!(multi.copies[1].owners, [4]);
    assert_ne!(multi.copies[0].voice, multi.copies[1].voice);
    assert_eq!(multi.owners, [3, 4]);
    // Quieting one owner of the shared track leaves the other.
    engine.quiet(1);
    let map = inspect::instances(&engine);
    let t0 = map.iter().find(|m| &*m.track_name == "t0").unwrap();
    assert_eq!(t0.owners, [2]);
}

#[test]
fn the_live_snapshot_carries_threads_voices_instances_and_history() {
    use engine_core::host::live::LiveEngine;
    use engine_core::host::session::SessionConfig;
    use engine_core::sound::output::OutputChoice;
    use std::time::{Duration, Instant};

    let p = TempProject::new("inspect-live");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nhold\n\tloadb v1 5\n\tloadl v2 #100000\n\twait v2\n\tend\n]\n",
    );
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let live = LiveEngine::start_with(project, OutputChoice::Null, SessionConfig::default(), None)
        .unwrap();
    assert!(live.line("ui hold"));
    let start = Instant::now();
    let snapshot = loop {
        let snapshot = live.take_snapshot();
        if !snapshot.threads.is_empty() && !snapshot.history.lanes().is_empty() {
            break snapshot;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no thread seen: {:#?}",
            snapshot.replies
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let thread = &snapshot.threads[0];
    assert_eq!(&*thread.track_name, "hold");
    assert_eq!(thread.line, Some(6));
    assert!(thread.registers.iter().any(|(n, v)| n == "v1" && *v == 5));
    assert_eq!(
        snapshot.voice_slots.len(),
        EngineConfig::default().max_voices
    );
    assert!(snapshot.voice_slots[0].occupant.is_some());
    assert_eq!(snapshot.instances.len(), 1);
    assert_eq!(&*snapshot.history.lanes()[0].track_name, "hold");
}

/// The voice history reads only the typed facts of the records (every one of which is
/// a typed decision: there is no free-text variant): lanes, steals, refusals and faults.
#[test]
fn the_history_reads_typed_facts_not_sentences() {
    let p = voices_project(&[10, 20, 30, 40, 5, 15]);
    let mut engine = engine_with(p.load(), 4, 10.0, true);
    let mut records = Vec::new();
    for i in 0..6 {
        engine.trigger(&format!("t{i}"), Some(i), args()).unwrap();
        engine.tick();
        records.extend(engine.take_trace());
    }
    engine.quiet(5);
    engine.tick();
    records.extend(engine.take_trace());
    let d = threads_project();
    let mut faulty = engine_with(d.load(), 16, 10.0, true);
    faulty.trigger("divider", None, args()).unwrap();
    faulty.tick();
    records.extend(faulty.take_trace());
    let now = engine.now().max(faulty.now());
    let mut typed = VoiceHistory::default();
    typed.push(&records, now);
    // The facts themselves: t4 (5) refused against the lowest playing (t0, 10) with
    // every occupant compared; t5 (15) stole voice 0 from t0; the fault's line.
    let refusal = &typed.refusals()[0];
    assert_eq!((refusal.priority, &*refusal.lowest.track), (5, "t0"));
    assert_eq!(refusal.occupants.len(), 4);
    assert!(
        typed.lanes().iter().any(
            |l| matches!(&l.end, Some(LaneEnd::Stolen { by_track, .. }) if &**by_track == "t5")
        ),
        "{:#?}",
        typed.lanes()
    );
    assert_eq!(typed.faults()[0].line, Some(28));
    assert_eq!(typed.faults()[0].kind, FaultKind::DivideByZero);
}
