//! Rooms: the lot defines rooms (tile rectangles, per floor), and the ambience's reverb
//! follows the room the active character is in as it moves or as control passes to
//! another character; `room <tiles>` at the console overrides it until the character
//! enters another room.

use crate::support::TempProject;
use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::trace::{TraceEvent, WorldEvent};
use engine_core::sound::mixer::{MixerConfig, mixer};
use engine_core::toolchain::project::Project;
use engine_core::world::lot::Lot;
use std::path::Path;

/// A lot with a small bathroom (6 tiles), a large living room (48 tiles) and an attic
/// upstairs; Bob stands in the bathroom, Betty in the living room.
const LOT: &str = r#"controlled 1
room 30
room "Bathroom" 0 0 2 3
room "Living room" 2 0 10 6   # a comment stays
room "Attic" 0 0 10 6 floor 1
object 1 person "Bob" at 1 1
object 2 person "Betty" at 5 3
"#;

/// A project whose `world.ini` opens [`LOT`].
fn folder(tag: &str) -> TempProject {
    let p = TempProject::new(tag);
    p.file("world.ini", "[Lot]\nFile = home.lot\n")
        .file("home.lot", LOT);
    p
}

/// The rooms the trace says the active character entered, in order.
fn entered(session: &mut Session) -> Vec<(Option<String>, f32, bool)> {
    session
        .take_trace()
        .into_iter()
        .filter_map(|r| match r.what {
            TraceEvent::World(WorldEvent::EnteredRoom {
                room,
                tiles,
                reverb,
                ..
            }) => Some((room, tiles, reverb > 0.0)),
            _ => None,
        })
        .collect()
}

#[test]
fn rooms_are_read_written_and_kept_by_a_save() {
    let (lot, problems) = Lot::parse(LOT, Path::new("home.lot"));
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(lot.rooms.len(), 3);
    assert_eq!(lot.rooms[0].tiles(), 6.0);
    assert_eq!(
        lot.room_at([1.0, 1.0], 0).map(|r| r.name.as_str()),
        Some("Bathroom")
    );
    assert_eq!(
        lot.room_at([2.0, 1.0], 0).map(|r| r.name.as_str()),
        Some("Living room"),
        "a shared wall belongs to one room"
    );
    assert_eq!(
        lot.room_at([1.0, 1.0], 1).map(|r| r.name.as_str()),
        Some("Attic")
    );
    assert!(lot.room_at([20.0, 1.0], 0).is_none());
    // Written from scratch, it reads back the same.
    let (again, problems) = Lot::parse(&lot.to_text(), Path::new("again.lot"));
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(again.rooms, lot.rooms);
    // A save of a moved object keeps every room line as written.
    let (mut moved, document, _) = Lot::parse_document(LOT, Path::new("home.lot"));
    moved.objects.get_mut(1).unwrap().position = [7.0, 2.0];
    let text = document.text_for(&moved);
    assert!(
        text.contains("room \"Living room\" 2 0 10 6   # a comment stays\n"),
        "{text}"
    );
    assert!(text.contains("object 1 person \"Bob\" at 7 2\n"), "{text}");
}

#[test]
fn a_bad_room_line_names_its_column() {
    for (line, column, words) in [
        ("room \"Hall\" 0 0 4\n", 18, "room's second y"),
        ("room \"Hall\" 0 0 0 4\n", 6, "differ in x and in y"),
        ("room \"Hall\" 0 0 4 4 level 2\n", 21, "only `floor <n>`"),
        (
            "room \"Hall\" 0 0 4 4\nroom \"hall\" 5 5 6 6\n",
            6,
            "already on the lot",
        ),
    ] {
        let (lot, problems) = Lot::parse(line, Path::new("bad.lot"));
        assert_eq!(problems.len(), 1, "{line}: {problems:#?}");
        assert_eq!(problems[0].column, column, "{line}: {}", problems[0]);
        assert!(
            problems[0].message.contains(words),
            "{line}: {}",
            problems[0]
        );
        assert!(lot.rooms.len() <= 1);
    }
}

#[test]
fn the_reverb_follows_the_active_characters_room() {
    let folder = folder("rooms-follow");
    let project = Project::load(folder.path());
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (handle, _mixer) = mixer(MixerConfig::default());
    let mut session = Session::new(project, handle, SessionConfig::default());
    session.tick();
    assert_eq!(
        entered(&mut session),
        [(Some("Bathroom".into()), 6.0, true)],
        "small: reverb"
    );
    assert!(session.world.reverb_level() > 0.0);

    // Bob walks into the living room: too large for reverb.
    session.run_line("move 1 6 2").unwrap();
    session.tick();
    assert_eq!(
        entered(&mut session),
        [(Some("Living room".into()), 48.0, false)]
    );
    assert_eq!(session.world.reverb_level(), 0.0);

    // `room` overrides until he enters another room.
    session.run_line("room 4").unwrap();
    session.tick();
    assert!(session.world.reverb_level() > 0.0, "the override holds");
    assert!(entered(&mut session).is_empty());
    // Upstairs, then out of every room: the lot's `room <tiles>`, as the console last
    // set it (4).
    session.run_line("move 1 6 2 1").unwrap();
    session.tick();
    assert_eq!(entered(&mut session), [(Some("Attic".into()), 60.0, false)]);
    session.run_line("move 1 40 40").unwrap();
    session.tick();
    assert_eq!(entered(&mut session), [(None, 4.0, true)]);

    // Control passes to Betty in the living room, then she walks into the bathroom.
    session.run_line("control 2").unwrap();
    session.tick();
    assert_eq!(
        entered(&mut session),
        [(Some("Living room".into()), 48.0, false)]
    );
    session.run_line("move 2 1 2").unwrap();
    session.tick();
    let now = entered(&mut session);
    assert_eq!(now, [(Some("Bathroom".into()), 6.0, true)]);
}
