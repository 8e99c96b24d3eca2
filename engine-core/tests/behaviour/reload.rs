//! Hot reload end to end: a temporary project is watched while a session
//! runs it; a source, a sample, a `.hot`, `world.ini`, a `.fsc` and the lot are edited
//! on disk and each change is seen live (traced, and the event plays the new thing); a broken edit keeps the
//! last good version and reports its error with file and line until it is fixed. A
//! second test runs the same through the `LiveEngine` on the null output.
//!
//! notify's events are asynchronous: every wait polls with a generous deadline, and no
//! assertion is about speed (`hitbench bench reload` measures that).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::host::live::LiveEngine;
use engine_core::host::reload::{Reload, ReloadConfig, ReloadStatus, Reloader, SampleOutcome};
use engine_core::host::session::{SaveLotPolicy, Session, SessionConfig};
use engine_core::runtime::{EventArgs, TraceKind, TraceRecord, TraceSwitches};
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::output::OutputChoice;
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::Project;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How long a test waits for notify and the reload thread before giving up.
const DEADLINE: Duration = Duration::from_secs(10);

/// A temporary data directory, removed when dropped.
struct TempProject(PathBuf);

impl TempProject {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("hitbench-reload-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) {
        std::fs::write(self.path(name), bytes).unwrap();
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A mono 16-bit 48 kHz WAV of `frames` frames at constant `level`, as bytes (written in
/// one call, like an editor's save).
fn wav(frames: usize, level: f32) -> Vec<u8> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 48_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = Vec::new();
    {
        let mut writer = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec).unwrap();
        let value = (level * 32_767.0) as i16;
        for _ in 0..frames {
            writer.write_sample(value).unwrap();
        }
        writer.finalize().unwrap();
    }
    bytes
}

/// The track's code: plays patch `patch` once.
fn source(patch: u32) -> String {
    format!(
        "; tone.src — the track plays one patch\n\
         LAYOUT tso\n\
         BINARY [\n\
         play_tone\n\
         \tloadl patch #{patch}\n\
         \tnote_on v1\n\
         \twait_samp\n\
         \tend\n\
         ]\n"
    )
}

/// The tables: event `ping` plays track 0x100 at `volume`; two patches.
fn tables(volume: u32, extra_event: &str) -> String {
    format!(
        "[EventMapping]\n\
         ping=kSndobPlay,0x100,0,0,0,0\n\
         {extra_event}\
         [Track]\n\
         0x100=0,play_tone,{volume},kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         [Patch]\n\
         1=0,tone_a,\"tone_a.wav\",0,0,0,0,0\n\
         2=0,tone_b,\"tone_b.wav\",0,0,0,0,0\n"
    )
}

/// An ambience score at `tempo` with one bird row.
fn score(tempo: u32) -> String {
    format!(
        "version 7\n\
         mix\t1024\t1\t0\t0\t1\t4\t{tempo}\t4\t0\t0\t-\t-\t0\t0\n\
         birds\t800\t0\t512\t512\t0\t0\t0\t0\t0\t0\t0\t0\t50\t1.0\t1.0\t0\t0\t0\tbird\n"
    )
}

fn project(tag: &str) -> TempProject {
    let p = TempProject::new(tag);
    p.write("tone.src", source(1));
    p.write("tables.hot", tables(1024, ""));
    p.write("tone_a.wav", wav(4_800, 0.25));
    p.write("tone_b.wav", wav(2_400, 0.5));
    p
}

/// A session on a mixer this test renders by hand (blocking sample loads: the first
/// play does not wait for the loader thread).
struct Rig {
    session: Session,
    mixer: Mixer,
    status: ReloadStatus,
    config: ReloadConfig,
    trace: Vec<TraceRecord>,
}

impl Rig {
    fn new(project: Project) -> Self {
        let (handle, mixer) = mixer(MixerConfig::default());
        let config = SessionConfig {
            server: ServerConfig {
                blocking: true,
                ..ServerConfig::default()
            },
            // The test saves the lot as the workbench's console would.
            save_lot: SaveLotPolicy::InsideProject,
            ..SessionConfig::default()
        };
        let mut session = Session::new(project, handle, config);
        session.engine.set_trace_switches(TraceSwitches::ALL);
        Self {
            session,
            mixer,
            status: ReloadStatus::default(),
            config: ReloadConfig::default(),
            trace: Vec::new(),
        }
    }

    /// Runs the session and the mixer for `seconds`; returns the peak of the output.
    fn run(&mut self, seconds: f64) -> f32 {
        let end = self.session.now() + (seconds * 48_000.0) as u64;
        let mut peak = 0.0f32;
        while self.session.now() < end {
            self.session.tick();
            let frames = self
                .session
                .now()
                .samples()
                .saturating_sub(self.mixer.position()) as usize;
            let mut out = vec![0.0; frames * 2];
            self.mixer.render(&mut out);
            peak = out.iter().fold(peak, |p, s| p.max(s.abs()));
        }
        self.trace.extend(self.session.take_trace());
        peak
    }

    /// Applies every reload that arrives until `done` holds (panics after the deadline).
    fn until(
        &mut self,
        reloads: &Receiver<Reload>,
        what: &str,
        done: impl Fn(&Rig) -> bool,
    ) -> Vec<Reload> {
        let start = Instant::now();
        let mut seen = Vec::new();
        while !done(self) {
            assert!(
                start.elapsed() < DEADLINE,
                "no reload made this true within {DEADLINE:?}: {what}\nreloads: {seen:#?}\nstatus errors: {:#?}",
                self.status.errors
            );
            if let Ok(reload) = reloads.recv_timeout(Duration::from_millis(20)) {
                seen.push(reload.clone());
                self.status.apply(&mut self.session, reload, &self.config);
                self.run(0.01);
            }
        }
        seen
    }

    /// Triggers `event`, runs half a second; returns the sample trace lines of the play
    /// and the output's peak.
    fn play(&mut self, event: &str) -> (Vec<String>, f32) {
        self.trace.clear();
        self.session
            .engine
            .trigger(event, None, EventArgs::default())
            .unwrap();
        let peak = self.run(0.5);
        let lines = self
            .trace
            .iter()
            .filter(|r| r.kind == TraceKind::Sample)
            .map(|r| r.message().clone())
            .collect();
        (lines, peak)
    }

    fn reload_lines(&self) -> Vec<String> {
        self.trace
            .iter()
            .filter(|r| matches!(r.kind, TraceKind::Reload | TraceKind::Error))
            .map(|r| r.message().clone())
            .collect()
    }
}

fn track_volume(session: &Session) -> i32 {
    session.engine.project().track(0x100).unwrap().volume
}

/// True if an output peak is what a full-volume sample at `level` gives, centred (the
/// mixer's equal-power pan puts 1/√2 of it in each channel).
fn near(peak: f32, level: f32) -> bool {
    let want = level * std::f32::consts::FRAC_1_SQRT_2;
    (peak - want).abs() < want * 0.1
}

fn plays_patch(lines: &[String], patch: u32) -> bool {
    lines.iter().any(|l| l.contains(&format!("patch {patch} ")))
}

#[test]
fn edits_to_a_source_a_sample_and_a_hot_go_live_and_a_broken_edit_keeps_the_old_version() {
    let p = project("session");
    let project = Project::load(&p.0);
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let mut rig = Rig::new(project);
    let (reloader, reloads) = Reloader::with_channel(
        rig.session.engine.project(),
        std::sync::Arc::clone(rig.session.server.cache()),
        rig.config,
    )
    .unwrap();
    assert_eq!(reloader.watch_status().watching, vec![p.0.clone()]);
    assert!(reloader.watch_status().problems.is_empty());

    // Before: `ping` plays patch 1 (tone_a, 0.25).
    let (lines, peak) = rig.play("ping");
    assert!(plays_patch(&lines, 1), "{lines:#?}");
    assert!(near(peak, 0.25), "peak {peak}");

    // (a) The source now plays patch 2.
    p.write("tone.src", source(2));
    rig.until(&reloads, "the source edit is live", |rig| {
        rig.session
            .engine
            .project()
            .units
            .iter()
            .any(|u| u.path().ends_with("tone.src") && rig.status.last.is_some())
            && rig.status.applied >= 1
    });
    let reloaded = rig.reload_lines();
    assert!(
        reloaded
            .iter()
            .any(|l| l.contains("tone.src") && l.contains("changed")),
        "the reload is traced: {reloaded:#?}"
    );
    let (lines, peak) = rig.play("ping");
    assert!(
        plays_patch(&lines, 2),
        "the new code plays patch 2: {lines:#?}"
    );
    assert!(near(peak, 0.5), "tone_b's level, got {peak}");
    let last = rig.status.last.clone().unwrap();
    assert!(
        last.files.iter().any(|f| f.ends_with("tone.src")),
        "{last:#?}"
    );

    // (b) tone_b is rewritten longer and quieter: the cache serves the new data, the
    // runtime measures it again, the next play sounds it.
    let cache = std::sync::Arc::clone(rig.session.server.cache());
    assert_eq!(
        cache.get("tone_b.wav").unwrap().samples().unwrap().frames(),
        2_400
    );
    let applied = rig.status.applied;
    p.write("tone_b.wav", wav(12_000, 0.125));
    let reloads_seen = rig.until(&reloads, "the sample edit is live", |rig| {
        rig.status.applied > applied
            && cache
                .get("tone_b.wav")
                .is_ok_and(|h| h.samples().is_some_and(|s| s.frames() == 12_000))
    });
    assert!(
        reloads_seen.iter().any(|r| r.project.is_none()
            && r.samples
                .iter()
                .any(|s| s.outcome == SampleOutcome::Reloaded)),
        "a sample alone is reloaded into the cache without swapping the project: {reloads_seen:#?}"
    );
    assert!(
        rig.reload_lines()
            .iter()
            .any(|l| l.contains("sample `tone_b.wav` reloaded")),
        "{:#?}",
        rig.reload_lines()
    );
    let (lines, peak) = rig.play("ping");
    assert!(plays_patch(&lines, 2), "{lines:#?}");
    assert!(near(peak, 0.125), "the new data plays: peak {peak}");
    // 12,000 frames at 48 kHz: the track now lasts 0.25 s, no longer 0.05 s.
    rig.session
        .engine
        .trigger("ping", None, EventArgs::default())
        .unwrap();
    rig.run(0.1);
    assert_eq!(
        rig.session.engine.active_tracks().len(),
        1,
        "the runtime measured the new length"
    );
    rig.run(0.3);
    assert!(rig.session.engine.active_tracks().is_empty());

    // (c) The .hot: the track's volume halves and a new event appears.
    let applied = rig.status.applied;
    p.write("tables.hot", tables(512, "pong=kSndobPlay,0x100,0,0,0,0\n"));
    rig.until(&reloads, "the .hot edit is live", |rig| {
        rig.status.applied > applied && track_volume(&rig.session) == 512
    });
    assert!(
        rig.reload_lines()
            .iter()
            .any(|l| l.contains("tables.hot") && l.contains("changed")),
        "{:#?}",
        rig.reload_lines()
    );
    let (lines, quiet_peak) = rig.play("pong");
    assert!(plays_patch(&lines, 2), "the new event plays: {lines:#?}");
    assert!(
        quiet_peak < peak * 0.75,
        "half the track volume is quieter: {quiet_peak} against {peak}"
    );

    // A reload while the track plays restarts it with the new version (traced).
    rig.session
        .engine
        .trigger("ping", None, EventArgs::default())
        .unwrap();
    rig.run(0.05);
    assert_eq!(rig.session.engine.active_tracks().len(), 1);
    rig.trace.clear();
    let applied = rig.status.applied;
    p.write("tables.hot", tables(700, "pong=kSndobPlay,0x100,0,0,0,0\n"));
    rig.until(&reloads, "the second .hot edit is live", |rig| {
        rig.status.applied > applied && track_volume(&rig.session) == 700
    });
    let lines = rig.reload_lines();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("track `play_tone`") && l.contains("restarted")),
        "the playing track is restarted, and that is traced: {lines:#?}"
    );

    // (d) A broken source: the old version keeps working, the error names file:line and
    // is in the status; running tracks are not disturbed by it.
    rig.run(0.5);
    rig.session
        .engine
        .trigger("ping", None, EventArgs::default())
        .unwrap();
    rig.run(0.05);
    rig.trace.clear();
    let applied = rig.status.applied;
    p.write(
        "tone.src",
        "LAYOUT tso\nBINARY [\nplay_tone\n\tloadl patch #1\n\tplya v1\n\tend\n]\n",
    );
    let seen = rig.until(&reloads, "the broken edit is reported", |rig| {
        rig.status.applied > applied && !rig.status.errors.is_empty()
    });
    let errors = rig.status.errors.clone();
    let broken = errors
        .iter()
        .find(|e| e.path.ends_with("tone.src"))
        .unwrap_or_else(|| panic!("tone.src has errors: {errors:#?}"));
    assert!(
        broken.kept,
        "its last good version stays in use: {broken:#?}"
    );
    let d = &broken.diagnostics[0];
    assert_eq!(d.line, 5, "{d}");
    assert!(d.message.contains("plya"), "{d}");
    let lines = rig.reload_lines();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("tone.src:5") && l.contains("plya")),
        "the error is traced with file:line: {lines:#?}"
    );
    assert!(
        seen.iter().all(|r| r.project.is_none()),
        "a broken edit swaps nothing in: {seen:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("restarted")),
        "a broken edit does not restart the track playing: {lines:#?}"
    );
    assert_eq!(rig.session.engine.active_tracks().len(), 1);
    rig.run(0.5);
    let (lines, _) = rig.play("ping");
    assert!(
        plays_patch(&lines, 2),
        "the last good version (patch 2) still plays: {lines:#?}"
    );

    // …and fixing the file clears the errors and makes the fix live.
    p.write("tone.src", source(1));
    rig.until(&reloads, "the fix clears the errors", |rig| {
        rig.status.errors.is_empty() && rig.status.applied > applied + 1
    });
    let (lines, _) = rig.play("ping");
    assert!(plays_patch(&lines, 1), "the fix plays patch 1: {lines:#?}");

    // A sample that no longer decodes keeps its last good version too.
    let applied = rig.status.applied;
    p.write("tone_a.wav", b"RIFF but not really a wave file");
    rig.until(&reloads, "the broken sample is reported", |rig| {
        rig.status.applied > applied
            && rig
                .status
                .errors
                .iter()
                .any(|e| e.path.ends_with("tone_a.wav") && e.kept)
    });
    let (lines, peak) = rig.play("ping");
    assert!(plays_patch(&lines, 1), "{lines:#?}");
    // The track's volume is 700 of 1024 since the last .hot edit.
    assert!(
        near(peak, 0.25 * 700.0 / 1024.0),
        "the old tone_a plays: {peak}"
    );
    p.write("tone_a.wav", wav(4_800, 0.25));
    rig.until(&reloads, "the repaired sample clears the error", |rig| {
        rig.status.errors.is_empty()
    });

    // (e) World files: world.ini, the ambience score and the lot are read again by the
    // world director; the stations, music and ambience restart from them, the tracks
    // playing are not touched.
    std::fs::create_dir_all(p.path("radio")).unwrap();
    p.write("radio/song.wav", wav(48_000, 0.1));
    p.write("bird_1.wav", wav(2_400, 0.1));
    p.write("mix.fsc", score(120));
    p.write("home.lot", "object 1 person \"Bob\" at 1 1\n");
    p.write(
        "world.ini",
        "[Lot]\nFile = home.lot\n\n[Ambience]\nScore = mix.fsc\n",
    );
    rig.until(
        &reloads,
        "world.ini, the score and the lot are read",
        |rig| {
            rig.session.world.ambience().score.map(|s| s.tempo_bpm) == Some(120)
                && rig.session.engine.world().len() == 1
        },
    );
    rig.session
        .engine
        .trigger("ping", None, EventArgs::default())
        .unwrap();
    rig.run(0.02);
    rig.trace.clear();
    p.write(
        "world.ini",
        "[Lot]\nFile = home.lot\n\n[Ambience]\nScore = mix.fsc\n\n[Stations]\n260 = radio, music\n",
    );
    rig.until(&reloads, "the new station is there", |rig| {
        rig.session.world.stations().get(260).is_some()
    });
    p.write("mix.fsc", score(90));
    rig.until(&reloads, "the score's new tempo is used", |rig| {
        rig.session.world.ambience().score.map(|s| s.tempo_bpm) == Some(90)
    });
    p.write("home.lot", "object 1 person \"Bob\" at 5 5\n");
    rig.until(&reloads, "the lot's object moved", |rig| {
        rig.session.engine.world().get(1).map(|o| o.position) == Some([5.0, 5.0])
    });
    rig.run(0.05);
    let lines = rig.reload_lines();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("world.ini and the ambience score read again")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("the lot was read again")),
        "{lines:#?}"
    );
    assert!(rig.status.errors.is_empty(), "{:#?}", rig.status.errors);
    // Saving the lot here is not a change to read back: the objects stay as they are.
    rig.trace.clear();
    let applied = rig.status.applied;
    rig.session.run_line("move 1 7 7").unwrap();
    rig.session.run_line("savelot").unwrap();
    rig.until(&reloads, "the save is noticed", |rig| {
        rig.status.applied > applied
    });
    rig.run(0.02);
    let lines = rig.reload_lines();
    assert!(lines.iter().any(|l| l.contains("saved here")), "{lines:#?}");
    assert_eq!(
        rig.session.engine.world().get(1).map(|o| o.position),
        Some([7.0, 7.0])
    );
    // A broken world.ini line is reported with its file and line; the rest still works.
    p.write(
        "world.ini",
        "[Lot]\nFile = home.lot\n\n[Ambience]\nScore = mix.fsc\n\n[Stations]\n260 = radio, music\n261 = nowhere\n",
    );
    rig.until(&reloads, "the broken line is reported", |rig| {
        rig.reload_lines()
            .iter()
            .any(|l| l.contains("world.ini:9") && l.contains("does not exist"))
    });
    assert!(rig.session.world.stations().get(260).is_some());
    drop(reloader);
}

#[test]
fn the_live_engine_watches_its_project_and_shows_reloads_and_errors() {
    let p = project("live");
    let project = Project::load(&p.0);
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let engine = LiveEngine::start(project, OutputChoice::Null, SessionConfig::default()).unwrap();
    let start = Instant::now();
    let wait = |what: &str, done: &dyn Fn(&engine_core::host::live::LiveSnapshot) -> bool| {
        let mut trace = Vec::new();
        loop {
            let snapshot = engine.take_snapshot();
            trace.extend(snapshot.trace.iter().map(ToString::to_string));
            if done(&snapshot) {
                return (snapshot, trace);
            }
            assert!(
                start.elapsed() < DEADLINE * 2,
                "{what}: not seen; status {:#?}\ntrace {trace:#?}",
                snapshot.reload
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let (snapshot, _) = wait("watching", &|s| s.reload.watching);
    assert_eq!(snapshot.reload.watch.watching, vec![p.0.clone()]);

    p.write(
        "tables.hot",
        tables(1024, "pong=kSndobPlay,0x100,0,0,0,0\n"),
    );
    let (snapshot, trace) = wait("the .hot edit applied", &|s| s.reload.applied >= 1);
    let project = snapshot.reload.project.clone().expect("the new project");
    assert!(project.event("pong").is_some());
    let last = snapshot.reload.last.clone().unwrap();
    assert!(last.applied_at >= last.first_change);
    assert!(
        trace
            .iter()
            .any(|l| l.contains("reload") && l.contains("tables.hot")),
        "{trace:#?}"
    );
    assert!(engine.line("ui pong"));
    let (snapshot, _) = wait("pong's reply", &|s| !s.replies.is_empty());
    assert!(
        snapshot.replies.iter().all(|r| r.result.is_ok()),
        "the new event plays: {:#?}",
        snapshot.replies
    );

    p.write("tables.hot", "[Track]\n0x100=0,play_tone,loud\n");
    let (snapshot, trace) = wait("the broken .hot reported", &|s| {
        s.reload
            .errors
            .iter()
            .any(|e| e.path.ends_with("tables.hot"))
    });
    let broken = snapshot
        .reload
        .errors
        .iter()
        .find(|e| e.path.ends_with("tables.hot"))
        .unwrap();
    assert!(broken.kept, "{broken:#?}");
    assert!(
        broken.diagnostics.iter().all(|d| d.line == 2),
        "{broken:#?}"
    );
    assert!(
        trace.iter().any(|l| l.contains("tables.hot:2")),
        "{trace:#?}"
    );
    assert!(engine.line("ui pong"));
    let (snapshot, _) = wait("pong's reply", &|s| !s.replies.is_empty());
    assert!(
        snapshot.replies.iter().all(|r| r.result.is_ok()),
        "the last good tables still play: {:#?}",
        snapshot.replies
    );

    p.write("tables.hot", tables(1024, ""));
    let (snapshot, _) = wait("the fix clears the errors", &|s| {
        s.reload.errors.is_empty() && s.reload.applied >= 3
    });
    assert!(snapshot.reload.project.unwrap().event("pong").is_none());
    assert!(Path::new(&p.0).is_dir());
}

/// `to` written relative to the current directory (`../../tmp/…`).
fn relative_to_cwd(to: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
    let to = to.canonicalize().unwrap();
    let common = cwd
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = PathBuf::new();
    for _ in common..cwd.components().count() {
        relative.push("..");
    }
    for part in to.components().skip(common) {
        relative.push(part);
    }
    relative
}

#[test]
fn a_project_opened_by_a_relative_path_is_watched_too() {
    let p = project("relative");
    let relative = relative_to_cwd(&p.0);
    assert!(relative.is_relative(), "{}", relative.display());
    // `proj`, `./proj` and `../x/proj` all name the folder without its full path.
    for spelling in [relative.clone(), Path::new(".").join(&relative)] {
        let project = Project::load(&spelling);
        assert!(!project.has_errors(), "{:#?}", project.diagnostics);
        let (cache, _) = engine_core::sound::server::project_cache(&project.dirs, 1 << 24);
        let (reloader, reloads) =
            Reloader::with_channel(&project, cache, ReloadConfig::default()).unwrap();
        assert!(
            reloader.watch_status().problems.is_empty(),
            "{:?}",
            reloader.watch_status()
        );
        std::thread::sleep(Duration::from_millis(100));
        p.write("tables.hot", tables(700, ""));
        let start = Instant::now();
        let reload = loop {
            assert!(
                start.elapsed() < DEADLINE,
                "{}: no reload within {DEADLINE:?} after editing tables.hot",
                spelling.display()
            );
            if let Ok(reload) = reloads.recv_timeout(Duration::from_millis(20))
                && reload.project.is_some()
            {
                break reload;
            }
        };
        let new = reload.project.unwrap();
        assert_eq!(new.tracks.get(&0x100).map(|t| t.volume), Some(700));
        p.write("tables.hot", tables(1024, ""));
        drop(reloader);
    }
}

#[test]
fn a_zip_pack_dropped_into_the_folder_goes_live() {
    let p = project("pack");
    std::fs::remove_file(p.path("tone_a.wav")).unwrap();
    let project = Project::load(&p.0);
    assert!(
        project
            .patches
            .get(&1)
            .is_some_and(|patch| patch.file.is_none()),
        "tone_a.wav is missing at first"
    );
    let mut rig = Rig::new(project);
    let (_reloader, reloads) = Reloader::with_channel(
        rig.session.engine.project(),
        std::sync::Arc::clone(rig.session.server.cache()),
        rig.config,
    )
    .unwrap();
    let (_, peak) = rig.play("ping");
    assert!(peak < 0.01, "nothing to play yet: peak {peak}");

    // A pack holding tone_a.wav appears: the patch finds it there and it plays.
    let mut bytes = Vec::new();
    {
        use std::io::Write;
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
        writer
            .start_file("tone_a.wav", zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(&wav(4_800, 0.25)).unwrap();
        writer.finish().unwrap();
    }
    p.write("extra.zip", &bytes);
    rig.until(&reloads, "the pack is live", |rig| {
        rig.session
            .engine
            .project()
            .patches
            .get(&1)
            .is_some_and(|patch| patch.pack.is_some())
    });
    let (lines, peak) = rig.play("ping");
    assert!(plays_patch(&lines, 1), "{lines:#?}");
    assert!(near(peak, 0.25), "the packed tone plays: peak {peak}");
}

/// A folder that appears holding nothing the project reads (captures, notes) changes
/// nothing: no reading everything again, no world read again, nothing restarted. A
/// folder renamed into the project brings the files in it, which came without events of
/// their own.
#[test]
fn a_folder_appearing_reloads_only_what_it_brings() {
    let p = project("folders");
    let mut rig = Rig::new(Project::load(&p.0));
    let (_reloader, reloads) = Reloader::with_channel(
        rig.session.engine.project(),
        std::sync::Arc::clone(rig.session.server.cache()),
        rig.config,
    )
    .unwrap();
    rig.run(0.05);

    std::fs::create_dir_all(p.path("captures/old")).unwrap();
    p.write("captures/capture-001.hbcap", b"hbcap\0\r\n");
    p.write("captures/old/notes.txt", "nothing the project reads");
    // Then a real edit: its reload comes after whatever the folder caused.
    p.write("tables.hot", tables(600, ""));
    let seen = rig.until(&reloads, "the .hot edit is live", |rig| {
        track_volume(&rig.session) == 600
    });
    assert!(
        seen.iter().all(|r| !r.rescan),
        "the folder made everything be read again: {seen:#?}"
    );
    rig.run(0.02);
    let lines = rig.reload_lines();
    assert!(
        !lines.iter().any(|l| l.contains("read again")),
        "{lines:#?}"
    );

    // A folder made elsewhere, with tables defining a new event, renamed in.
    let outside = p.0.with_extension("outside");
    std::fs::create_dir_all(outside.join("more")).unwrap();
    std::fs::write(
        outside.join("more/extra.hot"),
        "[EventMapping]\nchime=kSndobPlay,0x100,0,0,0,0\n",
    )
    .unwrap();
    std::fs::rename(&outside, p.path("extras")).unwrap();
    rig.until(&reloads, "the renamed-in folder's tables are live", |rig| {
        rig.session.engine.project().event("chime").is_some()
    });
}
