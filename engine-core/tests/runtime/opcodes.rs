//! One test per opcode with a defined meaning (docs/vm.md), including the FreeSO bugs
//! HitBench does not copy: `rand` uses the variables' values, `waiteq` compares two
//! variables, `setlg` stores the value, and a jump through a variable reads the right
//! byte. Tracks report values with `printreg`, which the trace records.

use super::support::{TempProject, args, engine, records, run_for};
use engine_core::runtime::trace::TraceEvent;
use engine_core::runtime::{Engine, SoundCommand, TraceKind, TraceRecord};
use engine_core::world::{ObjectKind, WorldObject};

const TABLES: &str = "\
[Patch]
1=0,beep,\"s.wav\",0,0,0,0,0
2=0,loop,\"s.wav\",1,0,0,0,0
[GlobalHitList]
50=1
60=10,20,30,40
";

/// A project with one track `t` (the body is indented code) plus tables and a sample.
fn project(body: &str) -> TempProject {
    let p = TempProject::new("op");
    p.file(
        "t.src",
        &format!("LAYOUT tso\nBINARY [\nt\n{body}\n\tend\n]\n"),
    )
    .file("tables.hot", TABLES)
    .sample("s.wav");
    p
}

/// Runs `t` as an object sound of object 7 for `seconds`; returns the engine.
fn run(body: &str, seconds: f64) -> (Engine, Vec<TraceRecord>, Vec<SoundCommand>) {
    let p = project(body);
    let loaded = p.load();
    assert!(!loaded.has_errors(), "{:#?}", loaded.diagnostics);
    let (mut engine, sink) = engine(loaded, 5, 0.1);
    engine
        .world_mut()
        .insert(WorldObject::new(7, "obj", ObjectKind::Person).with_field(3, 42));
    engine.trigger("t", Some(7), args()).unwrap();
    run_for(&mut engine, seconds);
    let trace = engine.take_trace();
    (engine, trace, sink.commands())
}

/// The `printreg` values, in order.
fn prints(body: &str) -> Vec<i32> {
    let (_, trace, _) = run(body, 0.5);
    let errors = records(&trace, TraceKind::Error);
    assert!(errors.is_empty(), "{errors:#?}");
    records(&trace, TraceKind::Print)
        .iter()
        .map(|r| match r.what {
            TraceEvent::Print { value, .. } => value,
            ref other => panic!("not a print: {other:?}"),
        })
        .collect()
}

/// The fault message of a run.
fn fault(body: &str) -> String {
    let (_, trace, _) = run(body, 0.5);
    let errors = records(&trace, TraceKind::Error);
    assert_eq!(errors.len(), 1, "{trace:#?}");
    errors[0].message().clone()
}

#[test]
fn loads_and_sets() {
    assert_eq!(
        prints("\tloadb v1 -1\n\tprintreg v1\n\tloadb v1 127\n\tprintreg v1"),
        [-1, 127]
    );
    assert_eq!(prints("\tloadl v1 #-70000\n\tprintreg v1"), [-70000]);
    let body = "\tloadl v1 #9\n\tset v2 v1\n\tsetll v3 v1\n\tsetlt v4 v1\n\tsettl v5 v1\n\
                \tprintreg v2\n\tprintreg v3\n\tprintreg v4\n\tprintreg v5";
    assert_eq!(prints(body), [9, 9, 9, 9]);
}

#[test]
fn arithmetic() {
    let body = "\tloadl v1 #7\n\tloadl v2 #-2\n\tset v3 v1\n\tadd v3 v2\n\tprintreg v3\n\
                \tset v3 v1\n\tsub v3 v2\n\tprintreg v3\n\tset v3 v1\n\tmul v3 v2\n\tprintreg v3\n\
                \tset v3 v1\n\tdiv v3 v2\n\tprintreg v3\n\tinc v3\n\tprintreg v3\n\tdec v3\n\tdec v3\n\tprintreg v3\n\
                \tabs v3\n\tprintreg v3";
    assert_eq!(prints(body), [5, 9, -14, -3, -2, -4, 4]);
    let body = "\tloadl v1 #5\n\tmax v1 #9\n\tprintreg v1\n\tmin v1 #-3\n\tprintreg v1\n\
                \tloadl v1 #50\n\tlimit v1 #0 #10\n\tprintreg v1\n\tlimit v1 #20 #30\n\tprintreg v1";
    assert_eq!(prints(body), [9, -3, 10, 20]);
}

#[test]
fn logic_and_comparison_values() {
    let body = "\tloadl v1 #12\n\tloadl v2 #10\n\tset v3 v1\n\tand v3 v2\n\tprintreg v3\n\
                \tset v3 v1\n\tor v3 v2\n\tprintreg v3\n\tset v3 v1\n\txor v3 v2\n\tprintreg v3\n\
                \tset v3 v1\n\tnand v3 v2\n\tprintreg v3\n\tset v3 v1\n\tnor v3 v2\n\tprintreg v3\n\
                \tset v3 v1\n\tless v3 v2\n\tprintreg v3\n\tset v3 v1\n\tgreater v3 v2\n\tprintreg v3\n\
                \tnot v3\n\tprintreg v3\n\tnot v3\n\tprintreg v3";
    assert_eq!(prints(body), [8, 14, 6, !8, !14, 0, 1, 0, 1]);
}

#[test]
fn branches_follow_the_flags() {
    // For each (a, b): which of ifeq ifne ifgt iflt ifge ifle branch after `cmp a b`.
    for (a, b) in [(3, 3), (5, 3), (1, 3), (-5, 3)] {
        let mut body = format!("\tloadl v1 #{a}\n\tloadl v2 #{b}\n");
        for (i, branch) in ["ifeq", "ifne", "ifgt", "iflt", "ifge", "ifle"]
            .iter()
            .enumerate()
        {
            body.push_str(&format!(
                "\tcmp v1 v2\n\t{branch} @yes{i}\n\tloadb v3 0\n\tjump @done{i}\nyes{i}\n\tloadb v3 1\ndone{i}\n\tprintreg v3\n"
            ));
        }
        let expected: Vec<i32> = [a == b, a != b, a > b, a < b, a >= b, a <= b]
            .iter()
            .map(|x| i32::from(*x))
            .collect();
        assert_eq!(prints(&body), expected, "cmp {a} {b}");
    }
    // test sets flags from one variable.
    let body = "\tloadb v1 0\n\ttest v1\n\tifeq @zero_case\n\tloadb v2 5\nzero_case\n\tprintreg v2";
    assert_eq!(prints(body), [0]);
}

#[test]
fn rand_uses_the_variables_values() {
    // FreeSO used the operand bytes (variable numbers) as bounds; HitBench the values.
    let body = "\tloadl v2 #1000\n\tloadl v3 #1002\n\trand v1 v2 v3\n\tprintreg v1\n\
                \trand v1 v2 v3\n\tprintreg v1\n\trand v1 v3 v3\n\tprintreg v1";
    let values = prints(body);
    assert!(
        (1000..=1002).contains(&values[0]) && (1000..=1002).contains(&values[1]),
        "{values:?}"
    );
    assert_eq!(values[2], 1002);
}

#[test]
fn setlg_stores_the_value_and_setgl_reads_it() {
    // FreeSO stored the register number; HitBench stores the value.
    let body = "\tloadl v1 #77\n\tsetlg v1 #0x6E\n\tsetgl v2 #0x6E\n\tprintreg v2\n\
                \tsetgl v3 #10\n\tprintreg v3\n\tprintreg main_songnum";
    assert_eq!(prints(body), [77, 77, 77]);
    assert!(fault("\tsetlg v1 #99").contains("global 99 does not exist"));
}

#[test]
fn jump_through_a_variable_reads_the_right_byte() {
    let body = "\tloadl v1 @there\n\tjump v1\n\tloadb v2 1\n\tprintreg v2\nthere\n\tloadb v2 2\n\tprintreg v2";
    assert_eq!(prints(body), [2]);
}

#[test]
fn calls_return_and_the_stack() {
    let body = "\tloadb v1 1\n\tcall @subr\n\tprintreg v1\n\tloadb v2 4\n\tpush v2\n\tloadb v2 0\n\tpop v2\n\
                \tprintreg v2\n\tjump @out\nsubr\n\tinc v1\n\treturn\nout";
    assert_eq!(prints(body), [2, 4]);
    assert!(fault("\tpop v1").contains("pop on an empty stack"));
}

#[test]
fn loop_and_set_loop() {
    // loop goes back to the set_loop point; the counter stops it with `end`.
    let body = "\tloadb v1 0\n\tset_loop\n\tinc v1\n\tprintreg v1\n\tloadb v2 3\n\tcmp v1 v2\n\tifeq @stop\n\tloop\nstop";
    assert_eq!(prints(body), [1, 2, 3]);
}

#[test]
fn data_fields_read_and_write() {
    // getsrcdatafield dst src field; setsrcdatafield value src field.
    let body = "\tloadb v2 3\n\tgetsrcdatafield v1 arg1 v2\n\tprintreg v1\n\tloadl v3 #99\n\
                \tsetsrcdatafield v3 arg1 v2\n\tgetsrcdatafield v1 arg1 v2\n\tprintreg v1";
    let (engine, trace, _) = run(body, 0.2);
    let values: Vec<String> = records(&trace, TraceKind::Print)
        .iter()
        .map(|r| r.message())
        .collect();
    assert!(values[0].starts_with("v1 = 42 "), "{values:?}");
    assert!(values[1].starts_with("v1 = 99 "), "{values:?}");
    assert_eq!(engine.world().field(7, 3), Some(99));
}

#[test]
fn error_assert_and_throw_stop_the_track() {
    assert!(fault("\terror #42").contains("raised error 42"));
    assert!(fault("\tloadb v1 0\n\tassert v1").contains("assertion failed"));
    assert_eq!(prints("\tloadb v1 1\n\tassert v1\n\tprintreg v1"), [1]);
    assert!(fault("\tthrow").contains("throw"));
}

#[test]
fn smart_lists() {
    // smart_setlist + smart_choose; smart_index; smart_add/remove/removeall on a copy.
    let body = "\tloadl v1 #60\n\tsmart_setlist v1\n\tloadb v2 2\n\tsmart_index v3 v2\n\tprintreg v3\n\
                \tprintreg patch\n\tloadl v4 #99\n\tsmart_add v4\n\tloadb v2 4\n\tsmart_index v3 v2\n\tprintreg v3\n\
                \tloadl v4 #10\n\tsmart_remove v4\n\tloadb v2 0\n\tsmart_index v3 v2\n\tprintreg v3\n\
                \tsmart_removeall\n\tsmart_choose v3\n\tprintreg v3";
    assert_eq!(prints(body), [30, 30, 99, 20, 0]);
    let chosen = prints(
        "\tloadl v1 #60\n\tsmart_setlist v1\n\tsmart_choose v2\n\tprintreg v2\n\tsmart_choose v2\n\tprintreg v2",
    );
    assert!(chosen.iter().all(|v| [10, 20, 30, 40].contains(v)));
    assert_ne!(chosen[0], chosen[1], "no immediate repetition");
    assert!(fault("\tloadl v1 #61\n\tsmart_setlist v1").contains("hit list 61 does not exist"));
    assert!(fault("\tloadb v1 0\n\tsmart_setlist v1").contains("no hit list"));
}

#[test]
fn notes_waits_and_handles() {
    // note_on returns a handle; wait_samp waits for the note (0.1 s = 4800 samples).
    let body = "\tloadb patch 1\n\tnote_on v1\n\tprintreg v1\n\twait_samp\n\tnote_on v1\n\tprintreg v1\n\
                \tloadl v2 #250\n\twait v2\n\tprintreg v2";
    let (_, trace, commands) = run(body, 1.0);
    let prints: Vec<(u64, String)> = records(&trace, TraceKind::Print)
        .iter()
        .map(|r| (r.time.samples(), r.message()))
        .collect();
    assert!(prints[0].1.starts_with("v1 = 0 "), "{prints:?}");
    assert!(prints[1].1.starts_with("v1 = 1 "), "{prints:?}");
    assert_eq!(prints[1].0, 4800);
    assert_eq!(prints[2].0, 4800 + 12_000);
    let starts: Vec<u64> = commands
        .iter()
        .filter(|c| matches!(c, SoundCommand::Start { .. }))
        .map(|c| c.at().samples())
        .collect();
    assert_eq!(starts, [0, 4800]);
}

#[test]
fn a_long_running_track_keeps_no_list_of_every_note_it_played() {
    // 60 notes one after another (0.1 s each). Handles count every note from 0 while the
    // thread drops the notes that ended; note_off of an early handle does nothing, and
    // wait_samp still waits for the last note.
    let body = "\tloadb patch 1\n\tloadl v3 #0\n\tloadl v4 #60\nagain\n\tnote_on v1\n\twait_samp\n\
                \tinc v3\n\tcmp v3 v4\n\tiflt @again\n\tprintreg v1\n\tloadb v5 0\n\tnote_off v5\n\
                \tnote_on v1\n\tprintreg v1\n\twait_samp\n\tprintreg v3\n\tloadl v2 #5000\n\twait v2";
    let (engine, trace, commands) = run(body, 9.0);
    let errors = records(&trace, TraceKind::Error);
    assert!(errors.is_empty(), "{errors:#?}");
    let prints: Vec<String> = records(&trace, TraceKind::Print)
        .iter()
        .map(|r| r.message())
        .collect();
    assert_eq!(prints.len(), 3, "{prints:?}");
    assert!(prints[0].starts_with("v1 = 59 "), "{prints:?}");
    assert!(prints[1].starts_with("v1 = 60 "), "{prints:?}");
    assert!(prints[2].starts_with("v3 = 60 "), "{prints:?}");
    let count = |kind: fn(&SoundCommand) -> bool| commands.iter().filter(|c| kind(c)).count();
    assert_eq!(count(|c| matches!(c, SoundCommand::Start { .. })), 61);
    assert_eq!(
        count(|c| matches!(c, SoundCommand::Stop { .. })),
        0,
        "note_off of a note long ended stops nothing"
    );
    let (_, th) = engine.live_threads().next().expect("the track still runs");
    assert_eq!(
        th.notes_from + th.notes.len(),
        61,
        "handles count every note"
    );
    assert!(
        th.notes_from >= 32,
        "ended notes were dropped: {}",
        th.notes_from
    );
    assert!(th.notes.len() < 32, "{} notes kept", th.notes.len());
    assert!(!th.has_live_notes());
}

#[test]
fn note_off_and_note_on_loop() {
    let body = "\tloadb patch 2\n\tnote_on_loop v1\n\tloadl v2 #100\n\twait v2\n\tnote_off v1\n\tprintreg v1";
    let (_, _, commands) = run(body, 0.5);
    let kinds: Vec<(&str, bool, u64)> = commands
        .iter()
        .map(|c| match c {
            SoundCommand::Start { looping, at, .. } => ("start", *looping, at.samples()),
            SoundCommand::Stop { at, .. } => ("stop", false, at.samples()),
            _ => ("other", false, c.at().samples()),
        })
        .filter(|k| k.0 != "other")
        .collect();
    // note_on_loop always yields (docs/vm.md), so the wait starts at the next
    // tick (800 samples at 48 kHz / 60 Hz) and the stop comes 100 ms after that.
    assert_eq!(kinds, [("start", true, 0), ("stop", false, 800 + 4800)]);
}

#[test]
fn waits_compare_two_variables() {
    // waiteq waits until its two variables are equal (FreeSO compared one with itself and
    // never waited). Another track sets the global this one waits on.
    let p = TempProject::new("waiteq");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nwaiter\n\tloadb v2 1\n\twaiteq test_g1 v2\n\tprintreg test_g1\n\tend\n\
         setter\n\tloadb v1 1\n\tset test_g1 v1\n\tend\n]\n",
    );
    let (mut engine, _) = engine(p.load(), 1, 0.1);
    engine.trigger("waiter", None, args()).unwrap();
    run_for(&mut engine, 0.2);
    assert!(
        records(engine.trace(), TraceKind::Print).is_empty(),
        "waits while unequal"
    );
    engine.trigger("setter", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    let printed = records(engine.trace(), TraceKind::Print);
    assert_eq!(printed.len(), 1);
    assert!(
        printed[0].message().starts_with("test_g1 = 1 "),
        "{}",
        printed[0].message()
    );
    // The other wait variants go on at once when their condition holds.
    for (op, a, b) in [
        ("waitne", 1, 2),
        ("waitgt", 3, 2),
        ("waitlt", 1, 2),
        ("waitge", 2, 2),
        ("waitle", 2, 2),
    ] {
        let body = format!("\tloadb v1 {a}\n\tloadb v2 {b}\n\t{op} v1 v2\n\tprintreg v1");
        assert_eq!(prints(&body), [a], "{op}");
    }
    // …and wait while it does not.
    let (_, trace, _) = run(
        "\tloadb v1 1\n\tloadb v2 2\n\twaitgt v1 v2\n\tprintreg v1",
        0.3,
    );
    assert!(records(&trace, TraceKind::Print).is_empty());
}

#[test]
fn sequence_groups() {
    // seqgroup_trkid joins a group, seqgroup_wait waits while another member plays,
    // seqgroup_kill stops the others, seqgroup_return leaves.
    let p = TempProject::new("seq");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nsinger\n\tseqgroup_trkid 5 0\n\tloadl v1 #1000\n\twait v1\n\tend\n\
         polite\n\tseqgroup_wait 5\n\tprintreg v1\n\tend\n\
         rude\n\tseqgroup_kill 5\n\tend\n\
         leaver\n\tseqgroup_trkid 6 0\n\tseqgroup_return 6\n\tloadl v1 #1000\n\twait v1\n\tend\n\
         waiter6\n\tseqgroup_wait 6\n\tprintreg v1\n\tend\n]\n",
    );
    let (mut engine, _) = engine(p.load(), 1, 0.1);
    engine.trigger("singer", None, args()).unwrap();
    engine.trigger("polite", None, args()).unwrap();
    run_for(&mut engine, 0.2);
    assert!(records(engine.trace(), TraceKind::Print).is_empty());
    engine.trigger("rude", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    assert_eq!(
        records(engine.trace(), TraceKind::Print).len(),
        1,
        "polite went on after the kill"
    );
    engine.trigger("leaver", None, args()).unwrap();
    engine.trigger("waiter6", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    assert_eq!(
        records(engine.trace(), TraceKind::Print).len(),
        2,
        "the leaver left group 6"
    );
}

#[test]
fn no_ops_do_nothing() {
    let body = "\tloadb v1 3\n\tnop\n\tnote\n\tcallentrypoint\n\ttest1\n\ttest2\n\ttest3\n\ttest4\n\ttestx\n\
                \tadd_to_group\n\tremove_from_group\n\tget_var\n\tcallback\n\tsmart_setcrit\n\tpush_mask\n\
                \tpush_vars\n\tcall_mask\n\tcall_push\n\tsetchanreg\n\tplay_note\n\tstop_note\n\tkill_note\n\tprintreg v1";
    assert_eq!(prints(body), [3]);
}

#[test]
fn a_missing_patch_stops_the_track() {
    assert!(fault("\tloadl patch #999\n\tnote_on v1").contains("patch 999 does not exist"));
}

#[test]
fn seqgroup_kill_instance_silences_this_actors_other_vocals() {
    // The design document's baby track starts with `seqgroup_kill Instance`: the same object's other
    // VOX tracks stop; other objects and other groups play on.
    let p = TempProject::new("instance");
    p.file(
        "t.src",
        "LAYOUT tso\nBINARY [\nchatter\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n\
         music\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n\
         cry\n\tseqgroup_kill Instance\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n]\n",
    )
    .file(
        "tables.hot",
        "[Track]\n1=0,chatter,1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,@0,0\n\
         2=0,music,1024,kArgsIdVolPan,duckpri_normal,kGroupMusic,spl_normal,@0,0\n\
         3=0,cry,1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,@0,0\n\
         4=0,chatter,1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,@0,0\n\
         [EventMapping]\nchatter=1,1,0,0,0,0\nmusic=1,2,0,0,0,0\ncry=1,3,0,0,0,0\nchatter_b=1,4,0,0,0,0\n\
         [Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n",
    )
    .sample("s.wav");
    let (mut engine, _) = engine(p.load(), 1, 10.0);
    engine.trigger("chatter", Some(1), args()).unwrap();
    engine.trigger("music", Some(1), args()).unwrap();
    engine.trigger("chatter_b", Some(2), args()).unwrap();
    run_for(&mut engine, 0.1);
    engine.trigger("cry", Some(1), args()).unwrap();
    run_for(&mut engine, 0.1);
    let mut playing: Vec<(String, Vec<i32>)> = engine
        .active_tracks()
        .iter()
        .map(|t| (t.track_name.to_string(), t.owners.clone()))
        .collect();
    playing.sort();
    assert_eq!(
        playing,
        vec![
            ("chatter".to_string(), vec![2]),
            ("cry".to_string(), vec![1]),
            ("music".to_string(), vec![1]),
        ]
    );
}
