//! A capture is untrusted input: the data folders its header names never decide what is
//! walked (a folder that does not hold the files the capture lists is refused before
//! anything is read), folders are found from wherever the replay runs, and a damaged
//! capture is exit status 2 for `why` as for `replay`.

use hitbench_tests::{TempDir, copy_dir, hitbench, hitbench_within, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// A capture of a short script on `project`, as JSON lines at `dir/name.jsonl`.
fn captured(dir: &TempDir, project: &Path, name: &str) -> PathBuf {
    let script = dir.join("short.txt");
    std::fs::write(&script, "0.0 sev vox_laugh @3\n0.5 quietall\n").unwrap();
    let cap = dir.join(&format!("{name}.hbcap"));
    let run = hitbench(&[
        "render",
        &text(project),
        "--script",
        &text(&script),
        "-o",
        &text(&dir.join(&format!("{name}.wav"))),
        "--capture",
        &text(&cap),
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    let jsonl = dir.join(&format!("{name}.jsonl"));
    let run = hitbench(&["capture-text", &text(&cap), "-o", &text(&jsonl)]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    jsonl
}

/// The capture at `jsonl` with its header's data folder replaced by `dir` (its files
/// listed as in `dir`), at `to`.
fn with_dirs(jsonl: &Path, dirs: &[&str], to: &Path) {
    let text = std::fs::read_to_string(jsonl).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
    header["dirs"] = serde_json::json!(dirs);
    for file in header["files"].as_array_mut().unwrap() {
        file["dir"] = serde_json::json!(dirs[0]);
    }
    std::fs::write(to, format!("{header}\n{rest}")).unwrap();
}

#[test]
fn a_captures_folders_never_decide_what_is_walked() {
    let dir = TempDir::new("capture-dirs");
    let jsonl = captured(&dir, &workspace().join("projects/demo"), "demo");
    let missing = dir.join("no such project");
    for forged in ["/", "/proc", &text(&missing)] {
        let path = dir.join("forged.jsonl");
        with_dirs(&jsonl, &[forged], &path);
        for command in [
            vec!["replay", &text(&path)],
            vec!["replay", &text(&path), "--diff"],
        ] {
            let args: Vec<String> = command.iter().map(|s| s.to_string()).collect();
            let run = hitbench_within(&args, Duration::from_secs(20))
                .unwrap_or_else(|| panic!("replay walked {forged} (still running after 20 s)"));
            assert_eq!(
                run.code,
                ExitCode::from(2),
                "{forged}: {}\n{}",
                run.out,
                run.err
            );
            assert!(
                run.err.contains(&format!("`{forged}`")) && run.err.contains("--project"),
                "{forged}: {}",
                run.err
            );
            assert!(!run.out.contains("gone:"), "{forged}: {}", run.out);
        }
    }
    // Named by the user, the project is used whatever the capture says.
    let path = dir.join("forged.jsonl");
    with_dirs(&jsonl, &["/"], &path);
    let demo = text(&workspace().join("projects/demo"));
    let run = hitbench(&["replay", &text(&path), "--project", &demo, "--diff"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(run.out.contains("no decision differs"), "{}", run.out);
}

#[test]
fn a_captures_folders_are_found_from_any_working_folder() {
    let dir = TempDir::new("capture-moved");
    let project = dir.join("proj");
    copy_dir(&workspace().join("projects/demo"), &project);
    let jsonl = captured(&dir, &project, "proj");
    // Written with the folder as it was found, whatever the working folder was.
    let header = std::fs::read_to_string(&jsonl).unwrap();
    let header: serde_json::Value = serde_json::from_str(header.lines().next().unwrap()).unwrap();
    let stored = PathBuf::from(header["dirs"][0].as_str().unwrap());
    assert!(stored.is_absolute(), "{}", stored.display());
    assert_eq!(stored, project.canonicalize().unwrap());
    // A folder written relative to the capture (an older capture; one moved with its
    // project) is found beside the capture, not in the working folder.
    let moved = dir.join("moved.jsonl");
    with_dirs(&jsonl, &["proj"], &moved);
    let run = hitbench(&["replay", &text(&moved), "--diff"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(!run.out.contains("gone:"), "{}", run.out);
    assert!(run.out.contains("no decision differs"), "{}", run.out);
}

#[test]
fn why_on_a_damaged_capture_is_exit_status_2_as_replay() {
    let dir = TempDir::new("capture-why-damaged");
    let jsonl = captured(&dir, &workspace().join("projects/demo"), "demo");
    let damaged = dir.join("damaged.jsonl");
    let text_form = std::fs::read_to_string(&jsonl).unwrap();
    std::fs::write(&damaged, format!("{text_form}{{\"line\": \"nonsense\"}}\n")).unwrap();
    let bad_header = dir.join("bad_header.jsonl");
    let (first, rest) = text_form.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
    header["voices"] = serde_json::json!(u64::MAX);
    std::fs::write(&bad_header, format!("{header}\n{rest}")).unwrap();
    for path in [&damaged, &bad_header] {
        for command in ["replay", "why"] {
            let shown = text(path);
            let mut args = vec![command, shown.as_str()];
            if command == "why" {
                args.push("vox_laugh");
            }
            let run = hitbench(&args);
            assert_eq!(
                run.code,
                ExitCode::from(2),
                "{command} {}: {}\n{}",
                path.display(),
                run.out,
                run.err
            );
            assert!(run.err.contains(&shown), "{}", run.err);
        }
    }
}
