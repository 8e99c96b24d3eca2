//! End-to-end test support for HitBench (the tests themselves live in `e2e/`): running
//! the command line in-process (with a time limit, for what must not hang), temporary
//! folders and named pipes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// What a command-line run produced.
pub struct Run {
    /// Exit status.
    pub code: ExitCode,
    /// Standard output.
    pub out: String,
    /// Standard error.
    pub err: String,
}

/// Runs `hitbench <args>` in-process.
pub fn hitbench(args: &[&str]) -> Run {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = hitbench::cli::run(
        &args,
        &mut hitbench::cli::Io {
            out: &mut out,
            err: &mut err,
            progress: false,
        },
    );
    Run {
        code,
        out: String::from_utf8_lossy(&out).into_owned(),
        err: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// Runs `hitbench <args>` in-process on a thread of its own; `None` if it has not ended
/// within `limit` (a hang: the thread is left to the end of the test process).
pub fn hitbench_within<S: AsRef<str>>(args: &[S], limit: std::time::Duration) -> Option<Run> {
    let args: Vec<String> = args.iter().map(|s| s.as_ref().to_string()).collect();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let _ = send.send(hitbench(&args));
    });
    receive.recv_timeout(limit).ok()
}

/// Makes a named pipe at `path` (with `mkfifo`).
#[cfg(unix)]
pub fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A temporary folder, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates a new empty folder.
    pub fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("hitbench-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies the folder `from` into `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("copy a test folder");
    for entry in std::fs::read_dir(from).expect("copy a test folder") {
        let entry = entry.expect("copy a test folder");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("copy a test folder").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a test folder");
        }
    }
}
