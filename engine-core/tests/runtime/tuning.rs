//! Tuning: the properties editor changes one field of a `[Track]` line (in a `.hot` with
//! CRLF endings and comments, or a source's `LIST` line) and nothing else, the running
//! engine takes the new value at once (a playing track's gain and Box-X priority move),
//! undo and redo, and a file changed on disk is not overwritten.

use super::support::{TempProject, args, engine, run_for};
use engine_core::runtime::SoundCommand;
use engine_core::tools::hitlist_editor::SaveError;
use engine_core::tools::properties::{
    Property, PropertyEditor, PropertyError, PropertyInput, PropertyTarget, file_of,
};

const SOURCE: &str =
    "LAYOUT tso\nBINARY [\nhum\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n]\n";

/// The `.hot`: CRLF, comments, spacing after commas, a trailing comment.
const HOT: &str = "; the tuning lot\r\n[EventMapping]\r\nhum=kSndobPlay,100,0,0,0,0\r\nbuzz=kSndobPlay,101,0,0,0,0\r\n\r\n[Track]\r\n; the hum\r\n100=0,hum, 1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,40 ; loud\r\n101=0,hum,1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0\r\n[Patch]\r\n1=0,hum,\"s.wav\",0,0,0,0,0\r\n";

fn project(tag: &str) -> TempProject {
    let p = TempProject::new(tag);
    p.file("t.src", SOURCE).file("t.hot", HOT).sample("s.wav");
    p
}

fn last_gain(commands: &[SoundCommand]) -> Option<f32> {
    commands.iter().rev().find_map(|c| match c {
        SoundCommand::SetGain { gain, .. } => Some(gain.get()),
        _ => None,
    })
}

#[test]
fn a_tuned_track_plays_at_its_new_volume_and_priority_at_once_and_saves_only_those_fields() {
    let p = project("tune");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (mut engine, sink) = engine(project.clone(), 1, 30.0);
    engine.trigger("hum", None, args()).unwrap();
    run_for(&mut engine, 0.1);
    let hum = PropertyTarget::Track(100);

    let file = file_of(&hum, &project).unwrap();
    assert_eq!(file, p.path().join("t.hot"));
    let mut editor = PropertyEditor::open(&file).unwrap();
    let sheet = editor.sheet(&project, &hum).unwrap();
    assert_eq!(sheet.line, 8);
    assert_eq!(sheet.get(Property::Volume).unwrap().value, Some(1024));
    assert_eq!(sheet.get(Property::Priority).unwrap().value, Some(40));
    assert_eq!(
        sheet.get(Property::DuckPriority).unwrap().text,
        "duckpri_normal"
    );

    editor
        .set(
            &project,
            &hum,
            Property::Volume,
            &PropertyInput::Number(512),
        )
        .unwrap();
    editor
        .set(
            &project,
            &hum,
            Property::Priority,
            &PropertyInput::Number(90),
        )
        .unwrap();
    let pending = editor.pending(&project);
    assert_eq!(pending.len(), 2, "{pending:#?}");

    // The engine takes the pending values at once: the playing note's gain halves and
    // the thread's priority is the new one.
    sink.take();
    for value in &pending {
        let followed = engine
            .tune(&value.target, value.property, value.value.unwrap())
            .unwrap();
        assert_eq!(
            followed, 1,
            "the playing hum follows its {:?}",
            value.property
        );
    }
    assert_eq!(last_gain(&sink.take()), Some(0.5));
    let (_, thread) = engine.live_threads().next().unwrap();
    assert_eq!(thread.priority(), 90);
    assert_eq!(engine.project().tracks[&100].volume, 512);

    // Undo and redo walk the edits; the sheet says what is edited.
    assert!(editor.undo());
    assert_eq!(editor.pending(&project).len(), 1);
    assert!(editor.redo());
    let sheet = editor.sheet(&project, &hum).unwrap();
    assert!(sheet.get(Property::Volume).unwrap().is_edited());
    assert!(!sheet.get(Property::Arguments).unwrap().is_edited());

    // Saving changes exactly those two fields: the spacing, the comment, the CRLF stay.
    let report = editor.save().unwrap();
    assert_eq!(report.changed.len(), 1);
    let expected = HOT.replace(
        "100=0,hum, 1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,40 ; loud",
        "100=0,hum, 512,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,90 ; loud",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), expected);
    let reloaded = p.load();
    assert_eq!(reloaded.tracks[&100].volume, 512);
    assert_eq!(reloaded.tracks[&100].priority, 90);
}

#[test]
fn names_stay_names_a_missing_last_field_is_added_and_bad_values_are_refused() {
    let p = project("tune-names");
    let project = p.load();
    let buzz = PropertyTarget::Track(101);
    let mut editor = PropertyEditor::open(p.path().join("t.hot")).unwrap();
    editor
        .set(
            &project,
            &buzz,
            Property::DuckPriority,
            &PropertyInput::Number(30),
        )
        .unwrap();
    editor
        .set(&project, &buzz, Property::Group, &PropertyInput::Number(2))
        .unwrap();
    // Track 101 has no priority field: it is appended.
    editor
        .set(
            &project,
            &buzz,
            Property::Priority,
            &PropertyInput::Number(70),
        )
        .unwrap();
    let text = String::from_utf8(editor.to_bytes()).unwrap();
    assert!(
        text.contains(
            "101=0,hum,1024,kArgsIdVolPan,duckpri_high,kGroupMusic,spl_normal,@0,0,70\r\n"
        ),
        "{text}"
    );
    // The same value again changes nothing and adds no undo step; a drag continues the
    // edit before it.
    let volume = PropertyInput::Number;
    assert!(
        !editor
            .set(&project, &buzz, Property::Volume, &volume(1024))
            .unwrap()
    );
    assert!(
        editor
            .set(&project, &buzz, Property::Volume, &volume(1000))
            .unwrap()
    );
    assert!(
        !editor
            .amend(&project, &buzz, Property::Volume, &volume(990))
            .unwrap()
    );
    assert!(editor.undo());
    let sheet = editor.sheet(&project, &buzz).unwrap();
    assert_eq!(
        sheet.get(Property::Volume).unwrap().text,
        "1024",
        "one undo goes back to before the drag"
    );
    assert!(editor.redo());
    let refused = editor.set(
        &project,
        &buzz,
        Property::Volume,
        &PropertyInput::Number(9000),
    );
    assert!(
        matches!(&refused, Err(PropertyError::BadValue { line: 9, .. })),
        "{refused:?}"
    );
    assert!(refused.unwrap_err().to_string().contains("t.hot:9: volume"));
    let wrong_kind = editor.set(
        &project,
        &buzz,
        Property::Looped,
        &PropertyInput::Flag(true),
    );
    assert!(wrong_kind.is_err());
    // The running engine refuses what a target does not have.
    let (mut engine, _) = engine(project, 1, 1.0);
    assert!(engine.tune(&buzz, Property::Looped, 1).is_err());
    assert!(
        engine
            .tune(&PropertyTarget::Track(7), Property::Volume, 1)
            .is_err()
    );
}

#[test]
fn a_list_line_in_a_source_is_edited_in_place_and_a_file_changed_on_disk_is_not_overwritten() {
    let p = TempProject::new("tune-list");
    let source = format!(
        "{SOURCE}LIST [EventMapping] hum=kSndobPlay,100,0,0,0,0\nLIST [Track] 100=0,hum,1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,40 ; the hum\nLIST [Patch] 1=0,hum,\"s.wav\",0,0,0,0,0\n"
    );
    p.file("t.src", &source).sample("s.wav");
    let project = p.load();
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let hum = PropertyTarget::Track(100);
    let file = file_of(&hum, &project).unwrap();
    assert_eq!(file, p.path().join("t.src"));
    let mut editor = PropertyEditor::open(&file).unwrap();
    editor
        .set(
            &project,
            &hum,
            Property::Volume,
            &PropertyInput::Number(700),
        )
        .unwrap();
    editor
        .set(
            &project,
            &PropertyTarget::Patch(1),
            Property::Looped,
            &PropertyInput::Flag(true),
        )
        .unwrap();
    let expected = source
        .replace("100=0,hum,1024,", "100=0,hum,700,")
        .replace("\"s.wav\",0,0", "\"s.wav\",1,0");
    assert_eq!(String::from_utf8(editor.to_bytes()).unwrap(), expected);

    // Someone else changes the file: saving is refused and the file keeps their change.
    let theirs = format!("; edited elsewhere\n{source}");
    std::fs::write(&file, &theirs).unwrap();
    assert!(matches!(
        editor.save(),
        Err(SaveError::ChangedOnDisk { .. })
    ));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), theirs);
    editor.revert();
    assert!(!editor.is_modified());
}

/// The `[Track]` fields of the hum edited below, each with a value other than the file's
/// (mine) and another one (someone else's).
const FIELDS: [(Property, i64, i64); 6] = [
    (Property::Volume, 512, 300),
    (Property::Priority, 45, 46),
    (Property::DuckPriority, 30, 40),
    (Property::Group, 2, 3),
    (Property::Arguments, 1, 3),
    (Property::Loudness, 10, 100),
];

/// What the file on disk says of each of the hum's `FIELDS`.
fn on_disk(p: &TempProject) -> Vec<i64> {
    let project = p.load();
    let hum = PropertyTarget::Track(100);
    let editor = PropertyEditor::open(file_of(&hum, &project).unwrap()).unwrap();
    let sheet = editor.sheet(&project, &hum).unwrap();
    FIELDS
        .iter()
        .map(|(property, _, _)| sheet.get(*property).unwrap().value.unwrap())
        .collect()
}

/// Someone else sets the hum's `property` to `value` in the file and adds a comment line
/// at the top (every line moves down one).
fn someone_else_sets(p: &TempProject, property: Property, value: i64) {
    let project = p.load();
    let hum = PropertyTarget::Track(100);
    let file = file_of(&hum, &project).unwrap();
    let mut theirs = PropertyEditor::open(&file).unwrap();
    theirs
        .set(&project, &hum, property, &PropertyInput::Number(value))
        .unwrap();
    assert!(theirs.save().unwrap().written);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("; edited elsewhere\r\n{text}")).unwrap();
}

/// A fresh project whose hum's `mine` field is edited (to its value) while someone else
/// sets `theirs` in the file: the project and the editor.
fn edited_then_changed(
    tag: &str,
    (mine, my_value): (Property, i64),
    (theirs, their_value): (Property, i64),
) -> (TempProject, PropertyEditor) {
    let p = project(tag);
    let project = p.load();
    let hum = PropertyTarget::Track(100);
    let mut editor = PropertyEditor::open(file_of(&hum, &project).unwrap()).unwrap();
    editor
        .set(&project, &hum, mine, &PropertyInput::Number(my_value))
        .unwrap();
    someone_else_sets(&p, theirs, their_value);
    (p, editor)
}

#[test]
fn save_anyway_writes_only_the_edited_fields_over_the_file_as_it_is_now() {
    let original = on_disk(&project("tune-merge-original"));
    for (mine_index, &(mine, my_value, _)) in FIELDS.iter().enumerate() {
        for (their_index, &(theirs, _, their_value)) in FIELDS.iter().enumerate() {
            let (p, mut editor) =
                edited_then_changed("tune-merge", (mine, my_value), (theirs, their_value));
            let hum = PropertyTarget::Track(100);
            let file = file_of(&hum, &p.load()).unwrap();

            // Save refuses; Save anyway writes my field over theirs.
            assert!(
                matches!(editor.save(), Err(SaveError::ChangedOnDisk { .. })),
                "{mine:?} over {theirs:?}"
            );
            let report = editor.save_anyway().unwrap();
            assert!(report.written);
            assert_eq!(
                report.changed.len(),
                1,
                "{mine:?} over {theirs:?}: one line"
            );
            let mut expected = original.clone();
            expected[their_index] = their_value;
            expected[mine_index] = my_value;
            assert_eq!(on_disk(&p), expected, "{mine:?} over {theirs:?}");
            // Their comment and the rest of the file stay as they wrote them.
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(
                text.starts_with("; edited elsewhere\r\n; the tuning lot\r\n"),
                "{text}"
            );
            assert!(text.contains(
                "101=0,hum,1024,kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0\r\n"
            ));
            assert!(text.contains(" ; loud\r\n"), "{text}");
        }
    }
}

#[test]
fn an_edited_file_changed_on_disk_shows_the_outside_values_of_the_fields_not_edited() {
    let original = on_disk(&project("tune-follow-original"));
    for (mine_index, &(mine, my_value, _)) in FIELDS.iter().enumerate() {
        for (their_index, &(theirs, _, their_value)) in FIELDS.iter().enumerate() {
            if mine_index == their_index {
                continue;
            }
            let (p, mut editor) =
                edited_then_changed("tune-follow", (mine, my_value), (theirs, their_value));
            let hum = PropertyTarget::Track(100);
            // The project is read again (a hot reload) and the editor looks at the file.
            let project = p.load();
            assert!(editor.follow_disk());
            assert!(!editor.follow_disk(), "nothing new the second time");
            let sheet = editor.sheet(&project, &hum).unwrap();
            assert_eq!(sheet.line, 9, "the line where it is now");
            let field = |p: Property| sheet.get(p).unwrap().clone();
            assert_eq!(field(mine).value, Some(my_value));
            assert!(field(mine).is_edited());
            assert_eq!(field(theirs).value, Some(their_value), "{theirs:?}");
            assert!(!field(theirs).is_edited(), "{theirs:?}");
            // The engine is to be told my value only, and theirs is the file's.
            let pending = editor.pending(&project);
            assert_eq!(pending.len(), 1, "{pending:#?}");
            assert_eq!(pending[0].property, mine);
            assert_eq!(pending[0].value, Some(my_value));
            // Editing goes on on the line where it is now.
            editor
                .set(
                    &project,
                    &hum,
                    theirs,
                    &PropertyInput::Number(their_value + 1),
                )
                .unwrap();
            assert_eq!(editor.pending(&project).len(), 2);
            editor.save_anyway().unwrap();
            let mut expected = original.clone();
            expected[mine_index] = my_value;
            expected[their_index] = their_value + 1;
            assert_eq!(on_disk(&p), expected);
        }
    }
}
