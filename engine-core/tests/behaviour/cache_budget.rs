//! Cache settings that matter: the budget comes from `world.ini [Cache] BudgetMB`
//! unless `--cache-mb` says otherwise (and follows a reload of `world.ini`); a track's
//! priority becomes its samples' priority in the cache; a note of a priority at or
//! above `WaitPriority` whose sample misses waits for it, traced, where an ordinary
//! one-shot that late is dropped ("important sounds take the miss").

use crate::support::{self, TempProject};
use engine_core::host::capture::Header;
use engine_core::host::offline::RenderOptions;
use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::sink::{ControlGroup, SampleRef, SoundCommand, SoundSink};
use engine_core::runtime::trace::{SampleEvent, TraceEvent};
use engine_core::runtime::{Gain, Pan, SampleTime};
use engine_core::sound::mixer::{MixerConfig, mixer};
use engine_core::sound::server::{ServerConfig, SoundServer, project_cache};
use engine_core::toolchain::project::Project;
use engine_core::world::cache_settings::DEFAULT_CACHE_BUDGET;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const MIB: usize = 1024 * 1024;

/// A project folder with `world.ini` text and two one-second WAVs.
fn project_with(tag: &str, world_ini: &str) -> TempProject {
    let p = TempProject::new(tag);
    p.file("world.ini", world_ini);
    for name in ["important.wav", "ordinary.wav"] {
        support::constant_wav(&p.path().join(name), 1.0, 0.25);
    }
    p
}

fn session(project: Project, budget: Option<usize>) -> Session {
    let (handle, _mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        cache_budget: budget,
        ..SessionConfig::default()
    };
    Session::new(project, handle, config)
}

#[test]
fn the_budget_comes_from_world_ini_and_the_command_line_wins() {
    let folder = project_with("cache-budget", "[Cache]\nBudgetMB = 3\n");
    let project = Project::load(folder.path());
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);

    let s = session(project.clone(), None);
    assert_eq!(s.server.cache().budget(), 3 * MIB);
    let s = session(project.clone(), Some(MIB));
    assert_eq!(s.server.cache().budget(), MIB, "--cache-mb wins");

    // A capture says the budget the render used.
    let header = Header::for_render(&project, &RenderOptions::default());
    assert_eq!(header.cache_budget, 3 * MIB);
    let options = RenderOptions {
        cache_budget: Some(2 * MIB),
        ..RenderOptions::default()
    };
    assert_eq!(Header::for_render(&project, &options).cache_budget, 2 * MIB);

    // Without [Cache], the default.
    let plain = project_with("cache-plain", "");
    let s = session(Project::load(plain.path()), None);
    assert_eq!(s.server.cache().budget(), DEFAULT_CACHE_BUDGET);
}

#[test]
fn a_reload_of_world_ini_moves_the_budget_unless_the_command_line_set_it() {
    let folder = project_with("cache-reload", "[Cache]\nBudgetMB = 3\n");
    let mut s = session(Project::load(folder.path()), None);
    std::fs::write(folder.path().join("world.ini"), "[Cache]\nBudgetMB = 5\n").unwrap();
    s.reload_world(false);
    assert_eq!(s.server.cache().budget(), 5 * MIB);

    let mut pinned = session(Project::load(folder.path()), Some(MIB));
    std::fs::write(folder.path().join("world.ini"), "[Cache]\nBudgetMB = 7\n").unwrap();
    pinned.reload_world(false);
    assert_eq!(pinned.server.cache().budget(), MIB);
}

#[test]
fn bad_cache_settings_are_problems_with_file_and_line() {
    let folder = project_with("cache-bad", "[Cache]\nBudgetMB = -2\nWaitPriority = high\n");
    let s = session(Project::load(folder.path()), None);
    let problems: Vec<String> = s
        .world
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    let ini = folder.path().join("world.ini").display().to_string();
    assert!(
        problems.iter().any(|p| p.starts_with(&format!("{ini}:2:"))),
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with(&format!("{ini}:3:"))),
        "{problems:#?}"
    );
    assert_eq!(s.server.cache().budget(), DEFAULT_CACHE_BUDGET);
}

/// A start of `name` at time 0 with `priority`.
fn start(note: u64, name: &str, dir: &Path, priority: i32) -> SoundCommand {
    SoundCommand::Start {
        note,
        voice: 0,
        at: SampleTime::from_samples(0),
        sample: SampleRef {
            patch: 1,
            name: Arc::from(name),
            path: Arc::from(dir.join(name)),
            linked: false,
        },
        gain: Gain::UNITY,
        pan: Pan::CENTRE,
        pitch: 1.0,
        looping: false,
        group: ControlGroup::Fx,
        reverb: false,
        priority,
    }
}

#[test]
fn an_important_note_takes_the_miss_and_an_ordinary_one_that_late_is_dropped() {
    let folder = project_with("cache-wait", "");
    let (handle, _mixer) = mixer(MixerConfig::default());
    let (cache, problems) = project_cache(&[folder.path().to_path_buf()], 16 * MIB);
    assert!(problems.is_empty(), "{problems:?}");
    let config = ServerConfig {
        blocking: false,
        wait_priority: 64,
        ..ServerConfig::default()
    };
    let mut server = SoundServer::new(handle, Arc::clone(&cache), config, 1);
    server.send(start(1, "important.wav", folder.path(), 100));
    server.send(start(2, "ordinary.wav", folder.path(), 32));
    // Both missed: the loader thread reads them while the notes wait.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(cache.is_cached("important.wav") && cache.is_cached("ordinary.wav")) {
        assert!(Instant::now() < deadline, "the samples never arrived");
        std::thread::sleep(Duration::from_millis(5));
    }
    // They arrive a whole second after their time: far past the late limit.
    server.update(SampleTime::from_samples(48_000));
    let trace = server.take_trace();
    let arrived = |note: u64| {
        trace
            .iter()
            .find_map(|r| match &r.what {
                TraceEvent::Sample(e @ SampleEvent::Arrived { note: n, .. }) if *n == note => {
                    Some(e.clone())
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no arrival of note {note}: {trace:#?}"))
    };
    let important = arrived(1);
    assert!(
        matches!(
            important,
            SampleEvent::Arrived {
                dropped: false,
                waited: Some(100),
                ..
            }
        ),
        "{important:?}"
    );
    assert_eq!(
        important.to_string(),
        "note 1: `important.wav` arrived 1000 ms late; started anyway (priority 100 takes the miss)"
    );
    let ordinary = arrived(2);
    assert!(
        matches!(
            ordinary,
            SampleEvent::Arrived {
                dropped: true,
                waited: None,
                ..
            }
        ),
        "{ordinary:?}"
    );

    // The track's priority became the sample's in the cache.
    let stats = cache.resource_stats();
    let priority = |name: &str| stats.iter().find(|s| s.name == name).map(|s| s.priority);
    assert_eq!(priority("important.wav"), Some(100));
    assert_eq!(priority("ordinary.wav"), Some(32));
}

/// The demo at a 0.4 MiB budget, its sounds played in turn as a tester would: samples
/// are evicted for room and needed again a moment later, and the cache says it is
/// thrashing (it used to count the capacity evictions and warn of nothing, since no one
/// tick asked for more than the budget).
#[test]
fn a_budget_too_small_for_what_plays_is_thrashing() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo");
    let (handle, mut mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        cache_budget: Some(MIB * 2 / 5),
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut s = Session::new(Project::load(&demo), handle, config);
    let lines = [
        "sev vox greet @1",
        "sev baby cry @9",
        "sev piano play @2",
        "ui ui moneyback",
        "sev vox greet @2",
        "sev door open @1",
    ];
    let mut out = vec![0.0f32; 2 * 4096];
    for round in 0..4 {
        for line in lines {
            s.run_line(line).unwrap();
            for _ in 0..20 {
                let start = s.now();
                s.tick();
                let frames = ((s.now() - start) as usize).min(4096);
                mixer.render(&mut out[..frames * 2]);
            }
        }
        let stats = s.server.cache().stats();
        if round == 0 {
            continue;
        }
        assert!(stats.capacity_misses > 0, "{stats:?}");
    }
    let stats = s.server.cache().stats();
    assert!(stats.thrashing_ticks > 0, "{stats:?}");
    assert!(stats.thrashing_now, "{stats:?}");
}
