//! Shared tracks follow their owners: a track several objects own (one started it,
//! others joined the playing copy) takes the volume and pan of its loudest owner on
//! screen, moves to another owner when that one becomes louder, and follows the owners
//! that remain when the one it followed quits.

use crate::support::{args, engine, looping_tracks, person};
use engine_core::runtime::SharedSink;
use engine_core::runtime::SoundCommand;

/// The pan (−1…1) the copy's note was last given.
fn last_pan(sink: &SharedSink) -> f32 {
    sink.commands()
        .iter()
        .rev()
        .find_map(|c| match c {
            SoundCommand::SetPan { pan, .. } | SoundCommand::Start { pan, .. } => Some(pan.get()),
            _ => None,
        })
        .expect("a note was started")
}

/// The gain (0–1) the copy's note was last given.
fn last_gain(sink: &SharedSink) -> f32 {
    sink.commands()
        .iter()
        .rev()
        .find_map(|c| match c {
            SoundCommand::SetGain { gain, .. } | SoundCommand::Start { gain, .. } => {
                Some(gain.get())
            }
            _ => None,
        })
        .expect("a note was started")
}

#[test]
fn a_shared_track_follows_its_loudest_owner_and_the_owners_that_remain() {
    let p = looping_tracks("shared", &[10], 1024, "");
    let (mut engine, sink) = engine(p.load(), 1, 30.0);
    person(&mut engine, 1, &[]);
    person(&mut engine, 2, &[]);
    // Bob (1) is on screen at the left; Betty (2) far off at the right.
    engine.update_source(1, 1000, 100, None);
    engine.update_source(2, 200, 950, None);

    engine.trigger("t0", Some(2), args()).unwrap();
    engine.tick();
    engine.update_source(2, 200, 950, None);
    engine.tick();
    let alone = last_gain(&sink);
    assert!(last_pan(&sink) > 0.5, "Betty started it: heard from her");

    engine.trigger("t0", Some(1), args()).unwrap();
    engine.tick();
    let active = engine.active_tracks();
    assert_eq!(active.len(), 1, "one copy");
    assert_eq!(active[0].owners, [1, 2]);
    assert!(
        last_pan(&sink) < -0.5,
        "Bob joined and is louder: the copy is heard from him"
    );
    assert!(last_gain(&sink) > alone * 2.0, "and at his volume");

    // Betty walks on screen and is now the louder: the sound moves to her.
    engine.update_source(2, 1024, 900, None);
    engine.tick();
    assert!(last_pan(&sink) > 0.5);

    // Betty quits: the sound follows Bob, who remains.
    engine.quiet_track(2, 100);
    engine.tick();
    assert_eq!(engine.active_tracks()[0].owners, [1]);
    assert!(last_pan(&sink) < -0.5, "Betty quit: heard from Bob again");
    // Bob moving still moves it.
    engine.update_source(1, 1000, 512, None);
    engine.tick();
    assert!(last_pan(&sink).abs() < 0.05);
}

#[test]
fn a_track_one_object_owns_follows_that_object_alone() {
    let p = looping_tracks("single", &[10], 1024, "");
    let (mut engine, sink) = engine(p.load(), 1, 30.0);
    person(&mut engine, 1, &[]);
    person(&mut engine, 2, &[]);
    engine.trigger("t0", Some(1), args()).unwrap();
    engine.tick();
    engine.update_source(1, 1000, 100, None);
    engine.tick();
    assert!(last_pan(&sink) < -0.5);
    // Another object's moves do not touch a track it does not own.
    let before = sink.commands().len();
    assert_eq!(engine.update_source(2, 1024, 1000, None), 0);
    engine.tick();
    assert_eq!(sink.commands().len(), before);
}

#[test]
fn quieting_an_owner_of_a_shared_track_says_what_it_did_per_track() {
    let p = looping_tracks("quiet-report", &[10], 1024, "");
    let (mut engine, _sink) = engine(p.load(), 2, 30.0);
    person(&mut engine, 1, &[]);
    person(&mut engine, 2, &[]);
    engine.trigger("t0", Some(1), args()).unwrap();
    engine.trigger("t0", Some(2), args()).unwrap();
    engine.tick();
    let first = engine.quiet_report(2);
    assert_eq!(first.len(), 1);
    assert!(!first[0].ended);
    assert_eq!(first[0].left, [1]);
    let last = engine.quiet_report(1);
    assert_eq!(last.len(), 1);
    assert!(last[0].ended, "Bob was its last owner");
    assert!(engine.quiet_report(1).is_empty(), "nothing left to quiet");
}
