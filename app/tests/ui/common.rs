//! What the workbench's kittest tests share: the workspace, temporary folders, a
//! harness on a project with the live engine on the null output, waiting for the engine,
//! showing a pane and typing a console line.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use engine_core::sound::output::OutputChoice;
use hitbench::workbench::Workbench;
use hitbench::workbench::dock::Pane;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The window size every test draws at (the screenshots' size).
pub const SIZE: egui::Vec2 = egui::vec2(1280.0, 800.0);

/// The workspace folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh, empty temporary folder for `tag`.
pub fn temp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hitbench-app-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies the folder `from` into `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The workbench on `project` at `size`, its settings in `config`, in a harness.
pub fn open_sized(project: &Path, config: &Path, size: egui::Vec2) -> Harness<'static, Workbench> {
    let workbench = Workbench::new(
        Some(project),
        OutputChoice::Null,
        Some(config.to_path_buf()),
    );
    harness_for(workbench, size)
}

/// Frames `Harness::run` may take to settle. The live window asks for a repaint every
/// 100 ms while the engine publishes; on a loaded machine (a debug build on two cores
/// beside other tests) one frame can take longer, so settling needs more than egui's
/// default four steps.
const MAX_STEPS: u64 = 16;

/// A harness drawing `workbench` at `size`.
pub fn harness_for(workbench: Workbench, size: egui::Vec2) -> Harness<'static, Workbench> {
    Harness::builder()
        .with_size(size)
        .with_render_cursor(false)
        .with_max_steps(MAX_STEPS)
        .build_ui_state(|ui, wb: &mut Workbench| wb.frame(ui), workbench)
}

/// The workbench on `project` at [`SIZE`].
pub fn open(project: &Path, config: &Path) -> Harness<'static, Workbench> {
    open_sized(project, config, SIZE)
}

/// The workbench on the demo, its settings in a fresh folder for `tag` (returned).
pub fn open_demo(tag: &str) -> (Harness<'static, Workbench>, PathBuf) {
    let config = std::env::temp_dir().join(format!("hitbench-app-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&config);
    (open(&workspace().join("projects/demo"), &config), config)
}

/// Runs frames until `done` holds (the engine thread and background work answer
/// asynchronously), at most `limit`.
pub fn until_within(
    harness: &mut Harness<'static, Workbench>,
    what: &str,
    limit: Duration,
    done: impl Fn(&Workbench) -> bool,
) {
    let start = Instant::now();
    while !done(harness.state()) {
        assert!(
            start.elapsed() < limit,
            "not within {} s: {what}",
            limit.as_secs()
        );
        std::thread::sleep(Duration::from_millis(10));
        harness.run();
    }
    harness.run();
}

/// [`until_within`] two minutes (a loaded CI machine runs debug builds slowly).
pub fn until(
    harness: &mut Harness<'static, Workbench>,
    what: &str,
    done: impl Fn(&Workbench) -> bool,
) {
    until_within(harness, what, Duration::from_secs(120), done);
}

/// Shows `pane` as its group's visible tab.
pub fn show(harness: &mut Harness<'static, Workbench>, pane: Pane) {
    harness.state_mut().show(pane);
    harness.run();
    harness.run();
}

/// Types `line` into the console (Ctrl+Alt+C gives it the keyboard) and presses Enter.
pub fn type_line(harness: &mut Harness<'static, Workbench>, line: &str) {
    harness.state_mut().focus_console();
    harness.run();
    harness.run();
    harness.event(egui::Event::Text(line.into()));
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
}

/// Saves the window as `screenshots/<name>` when `HITBENCH_SCREENSHOTS` is set.
pub fn screenshot(harness: &mut Harness<'static, Workbench>, name: &str) {
    if std::env::var_os("HITBENCH_SCREENSHOTS").is_none() {
        return;
    }
    let out = workspace().join("screenshots");
    std::fs::create_dir_all(&out).unwrap();
    harness.render().unwrap().save(out.join(name)).unwrap();
}
