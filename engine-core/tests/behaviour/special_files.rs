//! Named pipes where data files belong — `world.ini`, the lot, an ambience score, a
//! table open in the hit-list editor, a sample streamed or decoded — never block
//! HitBench: each is refused at once with an error naming the file, and the rest of the
//! world still loads.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(unix)]

use engine_core::sound::audio::decode::{DecodeLimits, StreamDecoder, decode_file};
use engine_core::toolchain::project::Project;
use engine_core::tools::hitlist_editor::HitListEditor;
use engine_core::world::director::WorldDirector;
use engine_core::world::lot::Lot;
use engine_core::world::settings::WorldIni;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hitbench-special-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn fifo(&self, name: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success());
        path
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `f` on its own thread; fails instead of hanging when it blocks.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what}: blocked on a named pipe"))
}

fn says_pipe(message: &str, file: &Path) -> bool {
    message.contains("named pipe") && message.contains(&*file.display().to_string())
}

#[test]
fn a_pipe_for_world_ini_is_an_error_and_blocks_nothing() {
    let dir = TempDir::new("ini");
    let pipe = dir.fifo("world.ini");
    let dirs = vec![dir.0.clone()];
    let (_, diagnostics) = within("world.ini", move || WorldIni::load(&dirs));
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let shown = diagnostics[0].to_string();
    assert!(
        shown.contains("named pipe") && shown.starts_with(&*pipe.display().to_string()),
        "{shown}"
    );
}

#[test]
fn a_pipe_for_the_lot_or_the_score_is_an_error_and_the_rest_of_the_world_loads() {
    let dir = TempDir::new("world");
    dir.write(
        "world.ini",
        "[Lot]\nFile = home.lot\n[Ambience]\nScore = birds.fsc\n[View]\nFadeDistance = 3\n",
    );
    let lot = dir.fifo("home.lot");
    let score = dir.fifo("birds.fsc");
    let project = Project::load(&dir.0);
    let director = within("world", move || WorldDirector::load(&project, 48_000, 1));
    let shown: Vec<String> = director
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    let lot_line = lot.display().to_string();
    assert!(
        shown
            .iter()
            .any(|d| d.starts_with(&lot_line) && d.contains("named pipe")),
        "{shown:#?}"
    );
    let score_line = format!("the score file {} is not a regular file", score.display());
    assert!(shown.iter().any(|d| d.contains(&score_line)), "{shown:#?}");
    let (_, diagnostics) = within("lot", move || Lot::load(&lot));
    assert!(says_pipe(
        &diagnostics[0].to_string(),
        &dir.0.join("home.lot")
    ));
}

#[test]
fn a_pipe_for_a_sample_is_refused_by_the_decoder_and_the_streamer() {
    let dir = TempDir::new("sample");
    let pipe = dir.fifo("song.ogg");
    let path = pipe.clone();
    let decoded = within("decode", move || {
        decode_file(&path, &DecodeLimits::default()).map(|_| ())
    });
    assert!(says_pipe(&decoded.unwrap_err().to_string(), &pipe));
    let path = pipe.clone();
    let streamed = within("stream", move || StreamDecoder::open(&path).map(|_| ()));
    assert!(says_pipe(&streamed.unwrap_err().to_string(), &pipe));
}

#[test]
fn a_pipe_opened_in_the_hit_list_editor_is_an_error() {
    let dir = TempDir::new("editor");
    let pipe = dir.fifo("lists.hot");
    let path = pipe.clone();
    let opened = within("editor", move || HitListEditor::open(&path).map(|_| ()));
    assert!(says_pipe(&opened.unwrap_err().to_string(), &pipe));
}
