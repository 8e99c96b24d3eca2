//! `hitbench disasm` reads its `.hit`, `--hsm`, `--sym` and `--hdb` under the rules
//! `INCLUDE` follows: a named pipe is refused without waiting for a writer, a device such
//! as /dev/zero without reading it, a file over the size limit without reading it all.

use hitbench_tests::{TempDir, hitbench, hitbench_within, mkfifo, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// A built `seed_tracks.hit` (with its side files) in `dir`.
fn built(dir: &TempDir) -> PathBuf {
    let source = workspace().join("projects/seed-examples/seed_tracks.src");
    let run = hitbench(&["asm", &text(&source), "-o", &text(dir.path())]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
    dir.join("seed_tracks.hit")
}

/// The arguments that make disasm read `bad` as each of its four inputs.
fn each_input(hit: &Path, bad: &Path) -> Vec<(&'static str, Vec<String>)> {
    let (hit, bad) = (text(hit), text(bad));
    let with = |option: &str| vec!["disasm".into(), hit.clone(), option.into(), bad.clone()];
    vec![
        (".hit", vec!["disasm".into(), bad.clone()]),
        ("--hsm", with("--hsm")),
        ("--sym", with("--sym")),
        ("--hdb", with("--hdb")),
    ]
}

fn expect_refused(what: &str, args: Vec<String>, bad: &Path, reason: &str) {
    let run = hitbench_within(&args, Duration::from_secs(30))
        .unwrap_or_else(|| panic!("disasm {what} {} did not end", bad.display()));
    assert_eq!(
        run.code,
        ExitCode::from(1),
        "{what}: {}\n{}",
        run.out,
        run.err
    );
    let said = format!("{} {reason}", bad.display());
    assert!(
        run.err.contains(&said),
        "{what}: wanted `{said}` in\n{}",
        run.err
    );
}

#[cfg(unix)]
#[test]
fn disasm_reads_no_pipe_device_or_huge_file() {
    let dir = TempDir::new("disasm-inputs");
    let hit = built(&dir);
    let pipe = dir.join("pipe.hsm");
    mkfifo(&pipe);
    let huge = dir.join("huge.hdb");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(64 << 20).unwrap();
    let zero = Path::new("/dev/zero");
    let cases: [(&Path, &str); 3] = [
        (&pipe, "is a named pipe (FIFO), not a regular file"),
        (zero, "is a device, not a regular file"),
        (&huge, "is larger than 16777216 bytes"),
    ];
    for (bad, reason) in cases {
        for (what, args) in each_input(&hit, bad) {
            expect_refused(what, args, bad, reason);
        }
    }
    // A side file found beside the `.hit` (not named) follows the same rules.
    let beside = dir.join("beside");
    std::fs::create_dir_all(&beside).unwrap();
    std::fs::copy(&hit, beside.join("seed_tracks.hit")).unwrap();
    let fifo = beside.join("seed_tracks.hsm");
    mkfifo(&fifo);
    let args = vec!["disasm".into(), text(&beside.join("seed_tracks.hit"))];
    expect_refused(
        "(beside)",
        args,
        &fifo,
        "is a named pipe (FIFO), not a regular file",
    );
}
