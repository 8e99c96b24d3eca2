//! Text files an editor saved with a UTF-8 byte-order mark read as they do without one:
//! copies of the bundled projects with one before every source, table, lot, `world.ini`,
//! score, QA script and render script check clean, pass their suite and render.

use hitbench_tests::{TempDir, copy_dir, hitbench, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The text files under `dir` (their extensions: every text format a project holds).
fn text_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            text_files(&path, found);
        } else if path.extension().is_some_and(|x| {
            ["src", "hot", "evt", "lot", "ini", "fsc", "qa", "txt"]
                .contains(&x.to_str().unwrap_or(""))
        }) {
            found.push(path);
        }
    }
}

/// A copy of the project `name` in `dir` with a byte-order mark before every text file.
fn marked_copy(dir: &TempDir, name: &str) -> (String, Vec<String>) {
    let copy = dir.join(name);
    copy_dir(&workspace().join("projects").join(name), &copy);
    let mut files = Vec::new();
    text_files(&copy, &mut files);
    for file in &files {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(std::fs::read(file).unwrap());
        std::fs::write(file, bytes).unwrap();
    }
    let kinds: std::collections::BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.extension().map(|x| x.to_string_lossy().into_owned()))
        .collect();
    (copy.display().to_string(), kinds.into_iter().collect())
}

#[test]
fn every_text_file_may_start_with_a_byte_order_mark() {
    let dir = TempDir::new("bom");
    // The demo: sources, the lot, world.ini, the score, QA and render scripts.
    let (project, kinds) = marked_copy(&dir, "demo");
    assert_eq!(kinds, ["fsc", "ini", "lot", "qa", "src", "txt"]);
    let run = hitbench(&["check", &project]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(
        run.out.contains("0 errors, 0 warnings"),
        "{}\n{}",
        run.out,
        run.err
    );
    let run = hitbench(&["test", &project]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    let out = dir.join("quick.wav").display().to_string();
    let script = format!("{project}/quick.txt");
    let run = hitbench(&["render", &project, "--script", &script, "-o", &out]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(!run.err.contains("error"), "{}", run.err);
    // The seed examples: a `.hot` table beside the sources.
    let (project, kinds) = marked_copy(&dir, "seed-examples");
    assert!(kinds.contains(&"hot".to_string()), "{kinds:?}");
    let run = hitbench(&["check", &project]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(
        run.out.contains("0 errors, 0 warnings"),
        "{}\n{}",
        run.out,
        run.err
    );
}
