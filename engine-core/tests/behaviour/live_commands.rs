//! Commands a tester gives a running session at any time: `voices <n>` changes the Box-X
//! voice limit from then on — fewer voices than are in use stop the lowest priorities
//! (tracks and world players alike, the oldest on a tie), each traced — and `repeat <n>
//! every <ms>ms <command>` runs the command at once and then at its times, as a script's
//! `repeat` line does.

use crate::world_voices::{project, session};
use engine_core::host::session::Session;
use engine_core::runtime::trace::{EndReason, TraceEvent};
use engine_core::runtime::voices::WorldVoice;
use engine_core::runtime::{SampleTime, TraceKind, TraceRecord};

/// The tracks playing now, by name.
fn playing(session: &Session) -> Vec<String> {
    let mut names: Vec<String> = session
        .engine
        .active_tracks()
        .iter()
        .filter(|t| !t.finished)
        .map(|t| t.track_name.to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn a_lower_voice_limit_stops_the_lowest_priorities_and_a_higher_one_frees_slots() {
    let p = project("live-voices", &[10, 50, 30, 40, 20, 60], "");
    let mut s = session(&p);
    // The TV holds a slot at the stations' priority (32).
    s.run_line("turnon 1 28").unwrap();
    s.tick();
    for i in 0..6 {
        s.run_line(&format!("sev t{i} @3")).unwrap();
        s.tick();
    }
    assert_eq!(s.engine.voices_in_use(), 7);
    s.take_trace();

    // Three voices: t5 (60), t1 (50) and t3 (40) stay; t0 (10), t4 (20), t2 (30) and the
    // TV (32) go, lowest first.
    let reply = s.run_line("voices 3").unwrap();
    assert!(reply.contains("voice limit 3 (was 16)"), "{reply}");
    assert!(
        reply.contains("stopped 4 to fit, lowest priority first: t0, t4, t2, [station 28]"),
        "{reply}"
    );
    assert_eq!(s.engine.voice_table().capacity(), 3);
    assert_eq!(s.engine.config().max_voices, 3);
    assert_eq!(s.engine.voices_in_use(), 3);
    assert_eq!(playing(&s), ["t1", "t3", "t5"]);
    // Every track still playing holds a slot of the three.
    for (_, thread) in s.engine.live_threads() {
        assert!(
            thread.voice < 3,
            "{} in slot {}",
            thread.track_name,
            thread.voice
        );
        assert!(
            s.engine.voice_table().slots()[thread.voice].is_some(),
            "{}",
            thread.track_name
        );
    }
    s.tick();
    let trace = s.take_trace();
    let stopped: Vec<(&str, i32, usize)> = trace
        .iter()
        .filter(|r| r.kind == TraceKind::Voice)
        .filter_map(|r| match &r.what {
            TraceEvent::LimitStopped { victim, capacity } => {
                Some((r.track.as_deref()?, victim.priority, *capacity))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        stopped,
        [("t0", 10, 3), ("t4", 20, 3), ("t2", 30, 3)],
        "{trace:#?}"
    );
    let sentence = trace
        .iter()
        .find(|r| matches!(r.what, TraceEvent::LimitStopped { .. }))
        .unwrap()
        .what
        .to_string();
    assert!(
        sentence.starts_with("the voice limit is now 3: `t0` on voice"),
        "{sentence}"
    );
    assert!(
        trace.iter().any(|r| matches!(
            &r.what,
            TraceEvent::WorldVoiceLeft {
                who: WorldVoice::Station(28),
                why: EndReason::VoiceLimit,
                ..
            }
        )),
        "the TV's slot is taken back: {trace:#?}"
    );
    // A newcomer is judged against three voices now: t0 (10) is refused.
    s.run_line("sev t0 @3").unwrap_or_default();
    s.tick();
    let refused = s
        .take_trace()
        .into_iter()
        .any(|r| matches!(&r.what, TraceEvent::Refused { capacity: 3, .. }));
    assert!(refused, "t0 is refused with 3 voices busy");

    // Eight voices: five free slots; t0 starts on one.
    let reply = s.run_line("voices 8").unwrap();
    assert_eq!(reply, "voice limit 8 (was 3)");
    assert_eq!(s.engine.voice_table().capacity(), 8);
    s.run_line("sev t0 @3").unwrap();
    s.tick();
    assert_eq!(playing(&s), ["t0", "t1", "t3", "t5"]);
    assert_eq!(s.engine.voices_in_use(), 4);
}

/// The times of the event records of `event`.
fn triggers(trace: &[TraceRecord], event: &str) -> Vec<SampleTime> {
    trace
        .iter()
        .filter(|r| r.kind == TraceKind::Event && r.event.as_deref() == Some(event))
        .map(|r| r.time)
        .collect()
}

#[test]
fn repeat_at_the_console_runs_the_command_now_and_at_its_times() {
    let p = project("live-repeat", &[40], "");
    let mut s = session(&p);
    s.run_line("trace events on").unwrap();
    s.take_trace();
    let start = s.now();
    let reply = s.run_line("repeat 4 every 100ms sev t0 @3").unwrap();
    assert!(reply.contains("(run 1 of 4, then every 100 ms)"), "{reply}");
    let mut trace = Vec::new();
    while s.now() < SampleTime::from_samples(start.samples() + 48_000) {
        s.tick();
        trace.extend(s.take_trace());
    }
    // The first at once, then at the first tick at or after 100, 200 and 300 ms (ticks
    // are 800 samples).
    let tick = 800;
    let times: Vec<u64> = triggers(&trace, "t0")
        .into_iter()
        .map(|t| t.samples() - start.samples())
        .collect();
    assert_eq!(times.len(), 4, "{times:?}");
    for (k, at) in times.iter().enumerate() {
        let due = k as u64 * 4_800;
        assert!(*at >= due && *at < due + tick, "run {k} at {at}, due {due}");
    }
    // A first run that fails is the reply, and nothing is scheduled.
    let error = s
        .run_line("repeat 3 every 10ms sev no_such_event")
        .unwrap_err();
    assert!(error.contains("no_such_event"), "{error}");
    for _ in 0..10 {
        s.tick();
    }
    assert!(triggers(&s.take_trace(), "no_such_event").is_empty());
}
