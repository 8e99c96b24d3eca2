//! Scripts are inputs like any other: `render --script`, `play --script` and the QA
//! scripts `test` is given are read under the rules of a text file — a named pipe is
//! refused without waiting for a writer, a device such as /dev/zero without reading it, a
//! file over the size limit without reading it all — and the command says which file.

use hitbench_tests::{TempDir, hitbench_within, mkfifo, workspace};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

fn text(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(unix)]
#[test]
fn no_script_is_read_from_a_pipe_a_device_or_a_huge_file() {
    let dir = TempDir::new("script-inputs");
    let demo = text(&workspace().join("projects/demo"));
    let pipe = dir.join("pipe.qa");
    mkfifo(&pipe);
    let zero = dir.join("zero.qa");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let huge = dir.join("huge.qa");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let out = text(&dir.join("out.wav"));
    for (bad, reason) in [
        (&pipe, "is a named pipe (FIFO), not a regular file"),
        (&zero, "is a device, not a regular file"),
        (&huge, "is larger than 16777216 bytes"),
    ] {
        let script = text(bad);
        let commands: [Vec<&str>; 3] = [
            vec!["render", &demo, "--script", &script, "-o", &out],
            vec!["play", &demo, "--script", &script, "--null-audio"],
            vec!["test", &demo, &script],
        ];
        for args in commands {
            let run = hitbench_within(&args, Duration::from_secs(30))
                .unwrap_or_else(|| panic!("{args:?} did not end"));
            assert_ne!(run.code, ExitCode::SUCCESS, "{args:?}: {}", run.out);
            let said = format!("{}\n{}", run.out, run.err);
            assert!(
                said.contains(&script) && said.contains(reason),
                "{args:?}: wanted `{script}` and `{reason}` in\n{said}"
            );
        }
    }
}
