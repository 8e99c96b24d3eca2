//! Tidy rules for the whole workspace (rust-analyzer style): checked by plain tests so
//! they hold on every run.

use hitbench_tests::workspace;
use std::path::{Path, PathBuf};
use std::process::Command;

mod diagnostics;
mod limits;
mod modules;
mod scan;

use scan::{code_only, function_spans};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_source_file_starts_with_a_doc_line() {
    let mut files = Vec::new();
    rust_files(&workspace(), &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            !text.starts_with("//! ")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "these files must start with a `//! ` line saying what they are:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn engine_core_does_not_depend_on_a_ui_toolkit() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "engine-core",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--locked",
            "--offline",
        ])
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    for ui_crate in ["egui", "eframe", "epaint", "winit", "wgpu", "rfd"] {
        let found = tree
            .lines()
            .any(|l| l.split_whitespace().next() == Some(ui_crate));
        assert!(!found, "engine-core depends on {ui_crate}:\n{tree}");
    }
}

#[test]
fn readme_quick_start_is_the_two_commands() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let start = readme
        .find("## Quick start")
        .expect("README has a Quick start section");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let commands: Vec<&str> = section[..end]
        .lines()
        .filter(|l| l.starts_with("./"))
        .collect();
    assert_eq!(commands, ["./run.sh", "./test.sh"]);
    let ci = std::fs::read_to_string(workspace().join(".ci/run")).unwrap();
    assert!(ci.contains("./test.sh"));
}

// ---- Size and style rules, by folder. Each scanner takes a source folder and returns
// its offenders as `path:line …` lines, so a rule can be turned on for another crate by
// calling it with that crate's folder.

/// The largest a source file may be, in lines.
const MAX_FILE_LINES: usize = 800;
/// The longest a function may be, in lines from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 120;

/// The source folders the size and style rules hold for.
fn ruled_folders() -> Vec<PathBuf> {
    ["engine-core/src", "panels/src", "app/src"]
        .iter()
        .map(|dir| workspace().join(dir))
        .collect()
}

/// The `.rs` files under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    files
}

/// `path` relative to the workspace, for messages.
fn shown(path: &Path) -> String {
    let root = workspace();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The files under `dir` longer than `max` lines: `path: N lines`.
fn long_files(dir: &Path, max: usize) -> Vec<String> {
    sources(dir)
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            (lines > max).then(|| format!("{}: {lines} lines", shown(path)))
        })
        .collect()
}

/// The functions under `dir` longer than `max` lines: `path:line fn name: N lines`.
fn long_functions(dir: &Path, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for path in sources(dir) {
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for (name, line, lines) in function_spans(&code) {
            if lines > max {
                out.push(format!("{}:{line} fn {name}: {lines} lines", shown(&path)));
            }
        }
    }
    out
}

/// Where code under `dir` (comments and strings aside) contains `needle`, except in the
/// files named in `except`: `path:line`.
fn code_mentions(dir: &Path, needle: &str, except: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for path in sources(dir) {
        if path
            .file_name()
            .is_some_and(|name| except.iter().any(|e| name == *e))
        {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for (number, line) in code.lines().enumerate() {
            if line.contains(needle) {
                out.push(format!("{}:{}", shown(&path), number + 1));
            }
        }
    }
    out
}

/// Where code under `dir` makes a colour (`Color32::…`, `Hsva::…`, `Rgba::…`) outside
/// a file called `theme` (`theme.rs`): `path:line`.
fn colours_outside_theme(dir: &Path, theme: &str) -> Vec<String> {
    let mut out = Vec::new();
    for maker in ["Color32::", "Hsva::", "Rgba::"] {
        out.extend(code_mentions(dir, maker, &[theme]));
    }
    out.sort();
    out.dedup();
    out
}

/// Where code under `dir` silences clippy's `lint` (`allow` or `expect`): `path:line`.
fn silenced_lints(dir: &Path, lint: &str) -> Vec<String> {
    code_mentions(dir, &format!("clippy::{lint}"), &[])
}

fn assert_none(offenders: &[String], rule: &str) {
    assert!(offenders.is_empty(), "{rule}:\n{}", offenders.join("\n"));
}

#[test]
fn no_source_file_is_over_800_lines() {
    for dir in ruled_folders() {
        assert_none(
            &long_files(&dir, MAX_FILE_LINES),
            "split these files by job (at most 800 lines; most under 400)",
        );
    }
}

#[test]
fn no_function_is_over_120_lines() {
    for dir in ruled_folders() {
        assert_none(
            &long_functions(&dir, MAX_FUNCTION_LINES),
            "split these functions into named helpers (at most 120 lines)",
        );
    }
}

#[test]
fn panel_colours_come_from_the_theme() {
    assert_none(
        &colours_outside_theme(&workspace().join("panels/src"), "theme.rs"),
        "name these colours in panels/src/theme.rs and use them from there",
    );
}

#[test]
fn no_code_allows_too_many_arguments() {
    for dir in ruled_folders() {
        assert_none(
            &silenced_lints(&dir, "too_many_arguments"),
            "group these arguments into a struct instead of allowing too_many_arguments",
        );
    }
}

/// Where comments under `dir` say where an idea came from instead of what it is
/// (the word "issue" or "seed" and a number): `path:line`.
fn provenance_notes(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for path in sources(dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let Some(comment) = line.find("//").map(|at| &line[at..]) else {
                continue;
            };
            let words: Vec<&str> = comment.split_whitespace().collect();
            let named = words.windows(2).any(|w| {
                let word = w[0].trim_start_matches(|c: char| !c.is_alphanumeric());
                let number = w[1].trim_end_matches(|c: char| !c.is_alphanumeric());
                matches!(word, "issue" | "Issue" | "seed" | "Seed")
                    && number.len() <= 3
                    && number.starts_with(|c: char| c.is_ascii_digit())
                    && number.chars().all(|c| c.is_ascii_digit())
            });
            if named {
                out.push(format!("{}:{}", shown(&path), number + 1));
            }
        }
    }
    out
}

#[test]
fn comments_say_what_a_thing_is_not_where_it_came_from() {
    for dir in [
        "engine-core/src",
        "panels/src",
        "app/src",
        "engine-core/tests",
        "tests",
    ] {
        assert_none(
            &provenance_notes(&workspace().join(dir)),
            "say what the thing is (the sound server, the resource cache…), not \"issue N\" or \"seed 00N\"",
        );
    }
}

/// Words that allocate, lock or format on the audio thread.
const AUDIO_THREAD_FORBIDDEN: [&str; 8] = [
    "Mutex",
    "RwLock",
    "vec!",
    "Box::new",
    "format!",
    "to_string",
    "to_owned",
    "Vec::with_capacity",
];

/// The lines of `code` (a source through [`code_only`]) that run on the audio thread:
/// all but the bodies of constructors (`fn new`, run before the audio thread starts) and
/// the test module at the end.
fn audio_thread_lines(code: &str) -> Vec<(usize, &str)> {
    let constructors: Vec<(usize, usize)> = function_spans(code)
        .into_iter()
        .filter(|(name, _, _)| name == "new")
        .map(|(_, first, lines)| (first, first + lines - 1))
        .collect();
    let tests_from = code
        .lines()
        .position(|l| l.contains("#[cfg(test)]"))
        .map_or(usize::MAX, |i| i + 1);
    code.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .filter(|(number, _)| {
            *number < tests_from
                && !constructors
                    .iter()
                    .any(|(first, last)| (*first..=*last).contains(number))
        })
        .collect()
}

#[test]
fn the_mixer_neither_allocates_nor_locks() {
    // sound/mixer/ is the audio thread's code, but for the constructors that build it
    // before the audio thread starts and `MixerHandle`, the control side's end of the
    // rings (the streamer, which decodes files into rings, is `sound/streamer.rs`, on a
    // thread of its own).
    let dir = workspace().join("engine-core/src/sound/mixer");
    let mut offenders = Vec::new();
    for path in sources(&dir) {
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for (number, line) in audio_thread_lines(&code) {
            for word in AUDIO_THREAD_FORBIDDEN {
                if line.contains(word) {
                    offenders.push(format!("{}:{number} `{word}`", shown(&path)));
                }
            }
        }
    }
    assert_none(
        &offenders,
        "the audio thread must not allocate or lock (build it in a constructor, or move it off the audio thread)",
    );
}

#[test]
fn the_scanners_see_code_not_comments_or_strings() {
    let source = r##"
/// fn in_a_doc() {
fn first(x: [u8; 3]) -> &'static str {
    let c = '{';
    let s = "} fn not_code() {";
    let r = r#"}"# ;
    /* { nested /* } */ still a comment } */
    let f: fn(u32) -> u32 = |v| v;
    "Color32::from_rgb"
}

trait T {
    fn declared(&self);
}

fn second<'a>(a: &'a str) -> &'a str {
    a
}
"##;
    let code = code_only(source);
    assert_eq!(code.lines().count(), source.lines().count());
    assert!(!code.contains("Color32"));
    let spans = function_spans(&code);
    assert_eq!(
        spans,
        [("first".to_string(), 3, 8), ("second".to_string(), 16, 3)]
    );
}
