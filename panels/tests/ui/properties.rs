//! The Properties panel under egui_kittest on a sheet filled by hand: a number set sends
//! one edit, a path typed and entered sends the text (Escape drops it), the toolbar and
//! the A/B bar send their commands, and the diff of A and B lists the fields that differ.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::tools::properties::{
    FieldValue, Property, PropertyInput, PropertySheet, PropertyTarget,
};
use panels::{
    AppCommand, ContextData, PropertiesData, PropertiesPanel, SnapshotCommand, SnapshotData,
    SnapshotDiff,
};
use std::path::PathBuf;

use crate::common;
type State = common::State<PropertiesPanel>;

fn field(property: Property, text: &str, value: Option<i64>, saved: &str) -> FieldValue {
    FieldValue {
        property,
        text: text.into(),
        value,
        saved_text: saved.into(),
    }
}

pub(crate) fn track_sheet() -> PropertySheet {
    PropertySheet {
        target: PropertyTarget::Track(0x2200),
        file: PathBuf::from("piano.src"),
        line: 30,
        key: "0x2200".into(),
        values: vec![
            field(Property::Volume, "512", Some(512), "1024"),
            field(Property::Priority, "40", Some(40), "40"),
            field(
                Property::DuckPriority,
                "duckpri_normal",
                Some(20),
                "duckpri_normal",
            ),
            field(Property::Group, "kGroupSfx", Some(1), "kGroupSfx"),
            field(
                Property::Arguments,
                "kArgsIdVolPan",
                Some(2),
                "kArgsIdVolPan",
            ),
            field(Property::Loudness, "spl_normal", Some(20), "spl_normal"),
            field(Property::HitList, "@0", Some(0), "@0"),
            field(Property::Patch, "0", Some(0), "0"),
        ],
    }
}

fn patch_sheet() -> PropertySheet {
    PropertySheet {
        target: PropertyTarget::Patch(2301),
        file: PathBuf::from("objects.src"),
        line: 42,
        key: "2301".into(),
        values: vec![
            field(Property::PatchName, "obj_door_open", None, "obj_door_open"),
            field(
                Property::PatchFile,
                "\"sounds\\objects\\door_open.ogg\"",
                None,
                "\"sounds\\objects\\door_open.ogg\"",
            ),
            field(Property::Looped, "0", Some(0), "0"),
            field(Property::Piano, "0", Some(0), "0"),
        ],
    }
}

pub(crate) fn harness(sheet: PropertySheet, snapshots: SnapshotData) -> Harness<'static, State> {
    let cx = ContextData {
        properties: PropertiesData {
            target: Some(sheet.target.clone()),
            sheet: Some(Ok(sheet)),
            can_undo: true,
            snapshots,
            ..PropertiesData::default()
        },
        ..ContextData::default()
    };
    common::harness(PropertiesPanel::default(), cx, egui::vec2(640.0, 520.0))
}

fn edits(harness: &Harness<'_, State>) -> Vec<(Property, PropertyInput)> {
    harness
        .state()
        .commands
        .iter()
        .filter_map(|c| match c {
            AppCommand::EditProperty {
                property, input, ..
            } => Some((*property, input.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_number_set_sends_one_edit_and_edited_fields_show_the_saved_value() {
    let mut harness = harness(track_sheet(), SnapshotData::default());
    harness.run();
    harness.get_by_label("track 0x2200");
    harness.get_by_role_and_label(Role::Button, "Mute track 0x2200");
    harness.get_by_label("edited · saved 1024 (+0.0 dB)");
    harness
        .get_by_role_and_label(Role::SpinButton, "priority")
        .set_value_accesskit(90.0);
    harness.run();
    assert_eq!(
        edits(&harness),
        [(Property::Priority, PropertyInput::Number(90))]
    );
    harness.get_by_label("Undo").click();
    harness.run();
    assert!(harness.state().commands.contains(&AppCommand::UndoProperty));
}

#[test]
fn a_path_typed_is_sent_on_enter_and_dropped_on_escape() {
    let mut harness = harness(patch_sheet(), SnapshotData::default());
    harness.run();
    let file = harness.get_by_role_and_label(Role::TextInput, "file");
    file.focus();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run();
    harness.event(egui::Event::Text("sounds\\objects\\door_2.ogg".into()));
    harness.run();
    assert!(edits(&harness).is_empty(), "nothing is sent while typing");
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert_eq!(
        edits(&harness),
        [(
            Property::PatchFile,
            PropertyInput::Text("sounds\\objects\\door_2.ogg".into())
        )]
    );
    // Typing again and pressing Escape sends nothing.
    harness.state_mut().commands.clear();
    let name = harness.get_by_role_and_label(Role::TextInput, "name");
    name.focus();
    harness.run();
    harness.event(egui::Event::Text("_x".into()));
    harness.run();
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(edits(&harness).is_empty(), "{:?}", harness.state().commands);
}

#[test]
fn the_ab_bar_sends_its_commands_and_the_diff_lists_what_differs() {
    let snapshots = SnapshotData {
        stored: [Some(1), Some(2)],
        active: Some(1),
        diff: vec![
            SnapshotDiff {
                target: "track 0x2200 piano_play".into(),
                property: Property::Volume,
                values: ["512".into(), "800".into()],
            },
            SnapshotDiff {
                target: "track 0x2200 piano_play".into(),
                property: Property::Priority,
                values: ["40".into(), "90".into()],
            },
        ],
    };
    let mut harness = harness(track_sheet(), snapshots);
    harness.run();
    harness.get_by_label("A and B differ in 2 field(s)");
    harness.get_by_label("hearing B");
    harness.get_by_label("800 (-2.1 dB)");
    harness.get_by_label("90");
    harness.get_by_role_and_label(Role::Button, "A").click();
    harness.run();
    harness.get_by_label("Store B").click();
    harness.run();
    harness.get_by_label("Keep A").click();
    harness.run();
    let snapshot_commands: Vec<SnapshotCommand> = harness
        .state()
        .commands
        .iter()
        .filter_map(|c| match c {
            AppCommand::Snapshot(s) => Some(*s),
            _ => None,
        })
        .collect();
    assert_eq!(
        snapshot_commands,
        [
            SnapshotCommand::Recall(0),
            SnapshotCommand::Store(1),
            SnapshotCommand::Keep(0)
        ]
    );
    harness.remove_cursor();
    harness.run();
    harness.snapshot("properties");
}
