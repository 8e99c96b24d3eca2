//! Same project, seed and timed inputs → identical command stream and identical trace.

use super::support::{args, engine, person, run_for, seed_project};
use engine_core::runtime::{SoundCommand, TraceRecord};
use engine_core::world::field;

fn session(seed: u64) -> (Vec<SoundCommand>, Vec<TraceRecord>) {
    let (mut engine, sink) = engine(seed_project(), seed, 0.3);
    person(
        &mut engine,
        1,
        &[
            (field::GENDER, 1),
            (field::CREATIVITY, 55),
            (field::NEAT, 70),
            (field::PLAYFUL, 20),
        ],
    );
    person(&mut engine, 2, &[(field::GENDER, 0)]);
    engine.trigger("playpiano", Some(1), args()).unwrap();
    run_for(&mut engine, 1.3);
    engine
        .trigger("vox_baby_cry_windup", Some(2), args())
        .unwrap();
    for _ in 0..20 {
        engine
            .trigger("tv_repair_deathwarning", None, args())
            .unwrap();
        engine
            .trigger("comeseeme_like_vox", Some(2), args())
            .unwrap();
        run_for(&mut engine, 0.37);
    }
    engine.quiet(2);
    engine
        .trigger("med_cab_brush_teeth_vox", Some(1), args())
        .unwrap();
    run_for(&mut engine, 3.0);
    let trace = engine.take_trace();
    (sink.commands(), trace)
}

#[test]
fn same_seed_same_inputs_same_commands_and_trace() {
    let (commands_a, trace_a) = session(42);
    let (commands_b, trace_b) = session(42);
    assert!(commands_a.len() > 50, "{}", commands_a.len());
    assert_eq!(commands_a, commands_b);
    assert_eq!(trace_a, trace_b);
    let (commands_c, _) = session(43);
    assert_ne!(commands_a, commands_c, "another seed makes other choices");
}
