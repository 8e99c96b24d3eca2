//! The five track examples of the design document's appendix behave as the document describes,
//! over many seeded runs.

use super::support::{args, engine, person, run_for, seed_project, started_patches};
use engine_core::runtime::Outcome;
use engine_core::world::field;

#[test]
fn tv_repair_deathwarning_plays_ten_percent_of_the_time() {
    let (mut engine, sink) = engine(seed_project(), 1, 0.01);
    let triggers = 10_000;
    for _ in 0..triggers {
        let outcome = engine
            .trigger("tv_repair_deathwarning", None, args())
            .unwrap();
        assert_eq!(outcome, Outcome::Started { voice: 0 });
        engine.tick();
        engine.tick();
    }
    let played = started_patches(&sink.commands()).len();
    let share = played as f64 / f64::from(triggers);
    assert!(
        (0.09..=0.11).contains(&share),
        "{played} of {triggers} played ({share:.3})"
    );
    assert!(started_patches(&sink.commands()).iter().all(|p| *p == 3731));
}

/// Which vox list a patch came from (patches are list × 10 + k).
fn list_of(patch: u32) -> u32 {
    patch / 10
}

#[test]
fn gender_branch_picks_first_second_or_kid_list() {
    for seed in 0..20 {
        let (mut engine, sink) = engine(seed_project(), seed, 0.2);
        for (object, gender) in [(10, 0), (11, 1), (12, 2)] {
            person(&mut engine, object, &[(field::GENDER, gender)]);
        }
        for object in [10, 11, 12] {
            engine
                .trigger("comeseeme_like_vox", Some(object), args())
                .unwrap();
            run_for(&mut engine, 0.5);
        }
        let lists: Vec<u32> = started_patches(&sink.commands())
            .into_iter()
            .map(list_of)
            .collect();
        assert_eq!(lists, vec![1028, 1029, 1030], "seed {seed}");
    }
}

#[test]
fn piano_follows_a_skill_change_on_its_next_piece() {
    let (mut engine, sink) = engine(seed_project(), 3, 1.0);
    person(&mut engine, 20, &[(field::CREATIVITY, 35)]);
    engine.trigger("playpiano", Some(20), args()).unwrap();
    run_for(&mut engine, 2.5); // pieces 1–3 at skill 3
    engine
        .world_mut()
        .set_field(20, i32::from(field::CREATIVITY), 75);
    run_for(&mut engine, 0.25); // the third piece is still playing
    let before: Vec<u32> = started_patches(&sink.commands());
    assert_eq!(before.len(), 3, "{before:?}");
    assert!(
        before.iter().all(|p| (5030..5033).contains(p)),
        "level 3 pieces: {before:?}"
    );
    run_for(&mut engine, 2.0);
    let after: Vec<u32> = started_patches(&sink.commands())[3..].to_vec();
    assert!(!after.is_empty());
    assert!(
        after.iter().all(|p| (5070..5073).contains(p)),
        "level 7 pieces: {after:?}"
    );
    // Consecutive pieces never repeat (hit list without immediate repetition).
    let all = started_patches(&sink.commands());
    assert!(all.windows(2).all(|w| w[0] != w[1]), "{all:?}");
}

#[test]
fn baby_winds_up_and_loops_about_eighty_percent_of_the_time() {
    let mut windups_followed_by_windup = 0u32;
    let mut windups_followed = 0u32;
    for seed in 0..10 {
        let (mut engine, sink) = engine(seed_project(), seed, 0.05);
        engine
            .world_mut()
            .insert(engine_core::world::WorldObject::new(
                30,
                "baby",
                engine_core::world::ObjectKind::Baby,
            ));
        engine
            .trigger("vox_baby_cry_windup", Some(30), args())
            .unwrap();
        run_for(&mut engine, 60.0);
        let patches = started_patches(&sink.commands());
        assert!(patches.len() > 300, "{}", patches.len());
        assert!(
            patches
                .iter()
                .all(|p| (900..=902).contains(p) || *p == 1235)
        );
        for pair in patches.windows(2) {
            if (900..=902).contains(&pair[0]) {
                windups_followed += 1;
                if (900..=902).contains(&pair[1]) {
                    windups_followed_by_windup += 1;
                }
            }
        }
        // After a scream the track loops back to its loop point and winds up again.
        for pair in patches.windows(2) {
            if pair[0] == 1235 {
                assert!((900..=902).contains(&pair[1]));
            }
        }
    }
    let share = f64::from(windups_followed_by_windup) / f64::from(windups_followed);
    assert!(
        (0.77..=0.83).contains(&share),
        "{share:.3} of {windups_followed}"
    );
}

#[test]
fn brush_teeth_branches_on_neatness_and_playfulness() {
    // (neatness, playfulness) → the list a gender-0 person says.
    let cases = [
        ((20, 90), 678),
        ((50, 70), 681),
        ((50, 40), 684),
        ((33, 61), 681),
        ((32, 99), 678),
    ];
    for seed in 0..5 {
        let (mut engine, sink) = engine(seed_project(), seed, 0.2);
        for (i, ((neat, playful), _)) in cases.iter().enumerate() {
            let id = 40 + i as i32;
            person(
                &mut engine,
                id,
                &[
                    (field::GENDER, 0),
                    (field::NEAT, *neat),
                    (field::PLAYFUL, *playful),
                ],
            );
            engine
                .trigger("med_cab_brush_teeth_vox", Some(id), args())
                .unwrap();
            run_for(&mut engine, 0.5);
        }
        let lists: Vec<u32> = started_patches(&sink.commands())
            .into_iter()
            .map(list_of)
            .collect();
        let expected: Vec<u32> = cases.iter().map(|(_, list)| *list).collect();
        assert_eq!(lists, expected, "seed {seed}");
    }
    // A sloppy child says nothing (the kid list is 0).
    let (mut engine, sink) = engine(seed_project(), 9, 0.2);
    person(&mut engine, 50, &[(field::GENDER, 2), (field::NEAT, 10)]);
    engine
        .trigger("med_cab_brush_teeth_vox", Some(50), args())
        .unwrap();
    run_for(&mut engine, 0.5);
    assert!(started_patches(&sink.commands()).is_empty());
}
