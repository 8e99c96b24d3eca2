//! Tidy rules for the whole workspace (rust-analyzer style): checked by plain tests so
//! they hold on every run.

use hitbench_tests::workspace;
use std::path::{Path, PathBuf};
use std::process::Command;

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
