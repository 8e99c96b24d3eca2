//! The workbench's file writers follow the output rule (`fsrules::output`): an exported
//! render, a capture and the settings are never written over a named pipe (which would
//! block the window), a device or the file a render reads, and what was there stays.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{self, open_demo};
use std::path::PathBuf;

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn the_workbench_writes_no_file_over_a_pipe_a_device_or_its_input() {
    use std::os::unix::fs::FileTypeExt as _;
    let (mut harness, config) = open_demo("outputs");
    harness.run();
    let dir = common::temp("outputs-targets");
    let script = dir.join("click.txt");
    std::fs::write(&script, "0.0  ui ui click\n").unwrap();
    let pipe = dir.join("pipe.wav");
    mkfifo(&pipe);
    let device = dir.join("null.wav");
    std::os::unix::fs::symlink("/dev/null", &device).unwrap();
    let targets: [(PathBuf, &str); 3] = [
        (pipe.clone(), "is a named pipe (FIFO), not a regular file"),
        (device.clone(), "is a device, not a regular file"),
        (script.clone(), "is the same file as the input"),
    ];
    for (target, says) in &targets {
        let shown = format!("{} {says}", target.display());
        harness.state_mut().export_render(&script, target);
        let status = harness.state().status().to_string();
        assert!(!harness.state().rendering(), "{status}");
        assert!(status.contains(&shown), "export render: {status}");
        if target != &script {
            harness.state_mut().start_capture(target);
            let status = harness.state().status().to_string();
            assert!(!harness.state().capturing(), "{status}");
            assert!(status.contains(&shown), "start capture: {status}");
        }
    }
    assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo());
    assert!(
        std::fs::symlink_metadata(&device)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "0.0  ui ui click\n"
    );

    // The settings, where a pipe took the place of their file.
    std::fs::create_dir_all(&config).unwrap();
    let settings = config.join("workbench.json");
    let _ = std::fs::remove_file(&settings);
    mkfifo(&settings);
    let error = harness.state_mut().save_settings().unwrap_err().to_string();
    assert!(error.contains("is a named pipe (FIFO)"), "{error}");
    assert!(std::fs::metadata(&settings).unwrap().file_type().is_fifo());
    std::fs::remove_file(&settings).unwrap();
}
