//! The live engine's audition and preload commands: `play` starts a patch or a sample
//! file as a UI sound, and a preload reports its progress in the snapshot until done.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::host::live::{LiveCommand, LiveEngine, LiveSnapshot};
use engine_core::host::session::SessionConfig;
use engine_core::sound::output::OutputChoice;
use engine_core::toolchain::project::Project;
use std::path::PathBuf;
use std::time::{Duration, Instant};

struct TempProject(PathBuf);

impl TempProject {
    fn new() -> Self {
        let dir =
            std::env::temp_dir().join(format!("hitbench-live-audition-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sounds")).unwrap();
        Self(dir)
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn wav() -> Vec<u8> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 22_050,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = Vec::new();
    {
        let mut writer = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec).unwrap();
        for _ in 0..64 {
            writer.write_sample(0i16).unwrap();
        }
        writer.finalize().unwrap();
    }
    bytes
}

/// Polls snapshots until `done` says so (a generous deadline guards against a hang).
fn wait_for(live: &LiveEngine, mut done: impl FnMut(&LiveSnapshot) -> bool) -> Vec<LiveSnapshot> {
    let start = Instant::now();
    let mut seen = Vec::new();
    loop {
        let snapshot = live.take_snapshot();
        let finished = done(&snapshot);
        seen.push(snapshot);
        if finished {
            return seen;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "gave up waiting");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn play_auditions_patches_and_files_and_preload_reports_progress() {
    let p = TempProject::new();
    for name in ["a", "b", "c"] {
        std::fs::write(p.0.join(format!("sounds/{name}.wav")), wav()).unwrap();
    }
    std::fs::write(
        p.0.join("lot.hot"),
        "[Patch]\r\n100=0,step_a,\"sounds\\a.wav\",0,0,0,0,0\r\n",
    )
    .unwrap();
    let project = Project::load(&p.0);
    let live = LiveEngine::start_with(project, OutputChoice::Null, SessionConfig::default(), None)
        .unwrap();

    for line in ["play 100", "play step_a", "play sounds/b.wav", "play 7"] {
        assert!(live.line(line));
    }
    let mut replies = Vec::new();
    wait_for(&live, |s| {
        replies.extend(s.replies.clone());
        replies.len() == 4
    });
    assert!(
        replies[0]
            .result
            .as_ref()
            .unwrap()
            .contains("patch 100 (step_a"),
        "{replies:?}"
    );
    assert!(
        replies[1].result.as_ref().unwrap().contains("patch 100"),
        "{replies:?}"
    );
    assert!(
        replies[2]
            .result
            .as_ref()
            .unwrap()
            .contains("sample sounds/b.wav"),
        "{replies:?}"
    );
    assert!(
        replies[3]
            .result
            .as_ref()
            .unwrap_err()
            .contains("no patch 7"),
        "{replies:?}"
    );

    assert!(live.send(LiveCommand::Preload("sounds/*.wav".into())));
    let seen = wait_for(&live, |s| s.preload.as_ref().is_some_and(|p| p.finished));
    let last = seen.last().unwrap().preload.clone().unwrap();
    assert_eq!(
        (last.pattern.as_str(), last.total, last.done),
        ("sounds/*.wav", 3, 3)
    );
    assert!(!last.cancelled && last.errors == 0, "{last:?}");
    // The resources show in the snapshot with their sizes.
    let seen = wait_for(&live, |s| {
        s.cache_resources.iter().filter(|r| r.size > 0).count() >= 3
    });
    let names: Vec<String> = seen
        .last()
        .unwrap()
        .cache_resources
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert!(names.iter().any(|n| n.ends_with("c.wav")), "{names:?}");
    assert!(live.send(LiveCommand::CancelPreload));
}

#[test]
fn the_engine_wakes_the_window_for_news_and_not_while_nothing_happens() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // A folder of its own: the other tests here share theirs.
    let p = TempProject(
        std::env::temp_dir().join(format!("hitbench-live-wake-{}", std::process::id())),
    );
    let _ = std::fs::remove_dir_all(&p.0);
    std::fs::create_dir_all(&p.0).unwrap();
    std::fs::write(
        p.0.join("lot.hot"),
        "[Patch]\r\n100=0,step_a,\"sounds\\a.wav\",0,0,0,0,0\r\n",
    )
    .unwrap();
    let live = LiveEngine::start_with(
        Project::load(&p.0),
        OutputChoice::Null,
        SessionConfig::default(),
        None,
    )
    .unwrap();
    let wakes = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&wakes);
    live.set_waker(Arc::new(move || {
        counted.fetch_add(1, Ordering::SeqCst);
    }));
    // Settle: the start's own news (the first snapshot) goes out.
    std::thread::sleep(Duration::from_millis(400));
    let settled = wakes.load(Ordering::SeqCst);
    let before = live.take_snapshot().now;
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        live.take_snapshot().now > before,
        "the engine publishes its clock while idle"
    );
    assert_eq!(
        wakes.load(Ordering::SeqCst),
        settled,
        "an engine with nothing to say does not wake the window"
    );
    assert!(live.line("play 100"));
    let start = Instant::now();
    while wakes.load(Ordering::SeqCst) == settled {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "a reply wakes the window"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let replies = wait_for(&live, |s| !s.replies.is_empty());
    assert!(replies.iter().any(|s| !s.replies.is_empty()));
}
