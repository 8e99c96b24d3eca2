//! `hitbench test`: the demo's QA suite passes; a broken copy of the demo fails with
//! the place, what actually was and why; JUnit XML parses.

use hitbench_tests::{TempDir, copy_dir, hitbench, workspace};
use std::process::ExitCode;

#[test]
fn the_demo_suite_passes_and_writes_junit() {
    let dir = TempDir::new("qa-demo");
    let demo = workspace().join("projects/demo");
    let junit = dir.join("qa.xml");
    let run = hitbench(&[
        "test",
        &demo.display().to_string(),
        "--junit",
        &junit.display().to_string(),
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    let scripts = std::fs::read_dir(demo.join("qa")).unwrap().count();
    assert!(
        run.out.contains(&format!("{scripts} passed, 0 failed")),
        "{}",
        run.out
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("failures"), Some("0"));
    let cases = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert_eq!(suite.attribute("tests"), Some(cases.to_string().as_str()));
    assert!(cases >= scripts);
}

#[test]
fn a_broken_copy_fails_with_the_place_the_actual_and_the_why() {
    let dir = TempDir::new("qa-broken");
    let copy = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &copy);
    // A script whose second expectation cannot hold: the piano starts, it is not
    // refused.
    std::fs::write(
        copy.join("qa/extra.qa"),
        "0.0 sev piano play @2\n0.5 expect started piano_play\n0.5 expect refused piano_play\n",
    )
    .unwrap();
    let junit = dir.join("qa.xml");
    let run = hitbench(&[
        "test",
        &copy.display().to_string(),
        "--junit",
        &junit.display().to_string(),
    ]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    let extra = copy.join("qa/extra.qa").display().to_string();
    assert!(
        run.out
            .contains(&format!("{extra}:3: expect refused piano_play")),
        "{}",
        run.out
    );
    assert!(
        run.out.contains("actually: started on free voice"),
        "{}",
        run.out
    );
    assert!(run.out.contains("why: "), "{}", run.out);
    assert!(run.out.contains("passed, 1 failed"), "{}", run.out);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len(), 1, "{xml}");

    // A misspelt expectation: the script cannot run, with file:line:column.
    std::fs::write(copy.join("qa/extra.qa"), "0.0 expect strated ui_click\n").unwrap();
    let run = hitbench(&["test", &copy.display().to_string()]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    assert!(
        run.out.contains(&format!("{extra}:1:12:")) && run.out.contains("did you mean `started`?"),
        "{}",
        run.out
    );
}

/// The laugh's priority lowered below the door's in a copy of the demo: with four
/// voices it no longer steals the door's, and the voice-limit script says so.
#[test]
fn a_lowered_priority_fails_the_voice_limit_script() {
    let dir = TempDir::new("qa-priority");
    let copy = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &copy);
    let people = copy.join("people.src");
    let text = std::fs::read_to_string(&people).unwrap();
    let lowered = text.replace(
        "0x2102=0,vox_laugh,1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,@0,0,50",
        "0x2102=0,vox_laugh,1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,@0,0,10",
    );
    assert_ne!(lowered, text, "the laugh's track line is in people.src");
    std::fs::write(&people, lowered).unwrap();
    let run = hitbench(&["test", &copy.display().to_string()]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    let script = copy.join("qa/voice_limit.qa").display().to_string();
    assert!(
        run.out
            .contains(&format!("{script}:12: expect started vox_laugh @3")),
        "{}",
        run.out
    );
    assert!(
        run.out.contains("actually: refused: all 4 voices busy"),
        "{}",
        run.out
    );
    assert!(run.out.contains("why: "), "{}", run.out);
    assert!(run.out.contains("passed, 1 failed"), "{}", run.out);
}

/// A sample deleted from a copy of the demo (the door's): the door's track still gets its
/// voice but plays no note, and the object-sounds script says so at its line; the
/// voice-limit script, whose crowd counted on the door, fails too.
#[test]
fn a_deleted_sample_fails_the_scripts_that_hear_it() {
    let dir = TempDir::new("qa-sample");
    let copy = dir.join("demo");
    copy_dir(&workspace().join("projects/demo"), &copy);
    std::fs::remove_file(copy.join("sounds/objects/door_open.ogg")).unwrap();
    let run = hitbench(&["test", &copy.display().to_string()]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    let script = copy.join("qa/object_sounds.qa").display().to_string();
    assert!(
        run.out.contains(&format!(
            "{script}:11: expect started door_open @1 within 100ms"
        )),
        "{}",
        run.out
    );
    assert!(run.out.contains("but no note of it started"), "{}", run.out);
    assert!(run.out.contains("why: "), "{}", run.out);
    assert!(run.out.contains("15 passed, 2 failed"), "{}", run.out);
    // The missing file is named as a warning of the project.
    assert!(run.err.contains("door_open.ogg"), "{}", run.err);
}

/// Every folder of the demo that holds samples, deleted from a copy in turn: the suite
/// fails, and says in which script, at which line, and which sample (or folder) is gone —
/// a missing sample is an error record, a sample found by its file name in another
/// folder a stand-in, a station's list an expectation naming a sample there is none of,
/// a folder `world.ini` names a problem of the project as loaded.
#[test]
fn the_suite_fails_with_any_one_sample_folder_deleted() {
    let demo = workspace().join("projects/demo");
    let mut folders = Vec::new();
    sample_folders(&demo, &demo.join("sounds"), &mut folders);
    assert!(folders.len() >= 19, "{folders:?}");
    for folder in folders {
        let dir = TempDir::new("qa-folder");
        let copy = dir.join("demo");
        copy_dir(&demo, &copy);
        std::fs::remove_dir_all(copy.join(&folder)).unwrap();
        let run = hitbench(&["test", &copy.display().to_string()]);
        let said = format!("{}\n{}", run.out, run.err);
        assert_eq!(run.code, ExitCode::from(1), "{folder} deleted:\n{said}");
        // A failure at a line of a script …
        let qa = copy.join("qa").display().to_string();
        let at_a_line = run.out.lines().any(|line| {
            line.trim_start()
                .strip_prefix(&qa)
                .and_then(|rest| rest.split(':').nth(1))
                .is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n > 0))
        });
        assert!(at_a_line, "{folder} deleted: no script line named:\n{said}");
        // … and the sample or the folder named in what the suite printed.
        let printed = run.out.replace('\\', "/");
        assert!(
            printed.contains(&format!("{folder}/")) || printed.contains(&format!("{folder} ")),
            "{folder} deleted: not named:\n{said}"
        );
    }
}

/// The folders under `dir` that hold a sound file themselves, relative to `root`.
fn sample_folders(root: &std::path::Path, dir: &std::path::Path, found: &mut Vec<String>) {
    let mut holds = false;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sample_folders(root, &path, found);
        } else if path
            .extension()
            .is_some_and(|x| ["wav", "ogg", "mp3", "flac"].contains(&x.to_str().unwrap_or("")))
        {
            holds = true;
        }
    }
    if holds {
        let relative = dir.strip_prefix(root).unwrap();
        found.push(relative.display().to_string());
    }
}
