//! A reload that brings nothing the engine does not already have restarts nothing: a
//! designer tunes the playing piano's field live, saves it (the reload follows), and the
//! piano plays on — the same copy, no restart record — for every field tuned live. A
//! reload that brings something the engine does not have (another value on disk, other
//! code) restarts the track as before.

use crate::support::TempProject;
use engine_core::host::command::Command;
use engine_core::host::session::{Session, SessionConfig, swap_project};
use engine_core::runtime::trace::{ReloadEvent, TraceEvent};
use engine_core::runtime::{EventArgs, TraceSwitches};
use engine_core::sound::mixer::{MixerConfig, mixer};
use engine_core::toolchain::project::Project;
use engine_core::tools::properties::{
    FieldKind, Property, PropertyEditor, PropertyInput, PropertyTarget, file_of,
};
use std::path::Path;

const PIANO: u32 = 0x2200;

/// A copy of the demo in a temporary folder.
fn demo_copy(tag: &str) -> TempProject {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
    let p = TempProject::new(tag);
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo"),
        p.path(),
    );
    p
}

/// A session on `dir` with the piano playing for object 1.
fn piano_playing(dir: &Path) -> Session {
    let (handle, _mixer) = mixer(MixerConfig::default());
    let mut session = Session::new(Project::load(dir), handle, SessionConfig::default());
    session.engine.set_trace_switches(TraceSwitches::ALL);
    session
        .engine
        .trigger("piano_play", Some(1), EventArgs::default())
        .unwrap();
    for _ in 0..6 {
        session.tick();
    }
    session.take_trace();
    session
}

/// The piano's copy playing now: its thread and start sequence.
fn piano_copy(session: &Session) -> Option<(usize, u64)> {
    session
        .engine
        .live_threads()
        .find(|(_, th)| th.track == PIANO)
        .map(|(index, th)| (index, th.started_seq))
}

/// A value for `property` other than `now`: a number moved, another named constant,
/// another of the project's patches or hit lists.
fn another_value(project: &Project, property: Property, now: i64) -> i64 {
    let other = |ids: Vec<u32>| {
        ids.into_iter()
            .map(i64::from)
            .find(|id| *id != now)
            .unwrap()
    };
    match property.kind() {
        FieldKind::PatchRef => other(project.patches.keys().copied().collect()),
        FieldKind::ListRef => other(project.hit_lists.keys().copied().collect()),
        FieldKind::Number { min, max } => {
            if now + 7 <= max {
                now + 7
            } else {
                (now - 7).max(min)
            }
        }
        _ => property
            .choices()
            .into_iter()
            .map(|(_, value)| value)
            .find(|value| *value != now)
            .unwrap(),
    }
}

/// Writes `value` into the piano's `property` on disk, as the Properties panel saves.
fn save_field(dir: &Path, property: Property, value: i64) {
    let project = Project::load(dir);
    let target = PropertyTarget::Track(PIANO);
    let file = file_of(&target, &project).unwrap();
    let mut editor = PropertyEditor::open(&file).unwrap();
    editor
        .set(&project, &target, property, &PropertyInput::Number(value))
        .unwrap();
    assert!(editor.save().unwrap().written);
}

/// The restarts, stops and replaced code of a swap: its events and its records.
fn restarts(events: &[ReloadEvent], session: &mut Session) -> Vec<String> {
    let traced = session.take_trace().into_iter().filter(|r| {
        matches!(
            &r.what,
            TraceEvent::CodeReplaced
                | TraceEvent::Reload(
                    ReloadEvent::TrackRestarted { .. }
                        | ReloadEvent::TrackStopped { .. }
                        | ReloadEvent::RestartFailed { .. }
                )
        )
    });
    events
        .iter()
        .map(ToString::to_string)
        .chain(traced.map(|r| r.what.to_string()))
        .collect()
}

#[test]
fn a_saved_value_the_engine_already_has_live_restarts_nothing_for_every_live_field() {
    let target = PropertyTarget::Track(PIANO);
    let fields: Vec<Property> = target
        .properties()
        .iter()
        .copied()
        .filter(|p| p.is_live())
        .collect();
    assert_eq!(fields.len(), 8, "{fields:?}");
    for property in fields {
        let demo = demo_copy("reload-live");
        let mut session = piano_playing(demo.path());
        let before = piano_copy(&session).expect("the piano plays");
        let project = Project::load(demo.path());
        let now = project
            .resolve_field(property, &current_text(demo.path(), property))
            .unwrap();
        let value = another_value(&project, property, now);

        // Tuned live, then saved: the reload brings what the engine has.
        let tune = Command::Tune {
            target: target.clone(),
            property,
            value,
        };
        session.execute(&tune).unwrap();
        save_field(demo.path(), property, value);
        let events = swap_project(&mut session, Project::load(demo.path()), true);
        assert_eq!(
            restarts(&events, &mut session),
            Vec::<String>::new(),
            "{property:?} = {value}"
        );
        assert_eq!(
            piano_copy(&session),
            Some(before),
            "{property:?}: the same copy plays on"
        );
        for _ in 0..6 {
            session.tick();
        }
        assert_eq!(piano_copy(&session), Some(before), "{property:?}: and on");
    }
}

/// The piano's `property` as its line on disk writes it.
fn current_text(dir: &Path, property: Property) -> String {
    let project = Project::load(dir);
    let target = PropertyTarget::Track(PIANO);
    let file = file_of(&target, &project).unwrap();
    let editor = PropertyEditor::open(&file).unwrap();
    let sheet = editor.sheet(&project, &target).unwrap();
    sheet.get(property).unwrap().text.clone()
}

#[test]
fn a_reload_bringing_what_the_engine_does_not_have_restarts_the_track() {
    // Tuned live to 512, saved as 300 (someone else's value): restarted.
    let demo = demo_copy("reload-other");
    let mut session = piano_playing(demo.path());
    session.run_line("tune track 0x2200 volume 512").unwrap();
    save_field(demo.path(), Property::Volume, 300);
    let events = swap_project(&mut session, Project::load(demo.path()), true);
    assert!(
        matches!(events.as_slice(), [ReloadEvent::TrackRestarted { .. }]),
        "{events:#?}"
    );

    // The value it has, but other code: restarted too.
    let demo = demo_copy("reload-code");
    let mut session = piano_playing(demo.path());
    let source = demo.path().join("piano.src");
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, format!("{text}\n; a comment changes nothing\n")).unwrap();
    let events = swap_project(&mut session, Project::load(demo.path()), true);
    assert_eq!(
        restarts(&events, &mut session),
        Vec::<String>::new(),
        "a comment"
    );
    let changed = text.replacen("\tloadb v6 10\n", "\tloadb v6 10\n\tloadb v6 10\n", 1);
    assert_ne!(changed, text);
    std::fs::write(&source, changed).unwrap();
    let events = swap_project(&mut session, Project::load(demo.path()), true);
    assert!(
        matches!(events.as_slice(), [ReloadEvent::TrackRestarted { .. }]),
        "{events:#?}"
    );
}
