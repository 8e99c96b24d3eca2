//! Helpers: temporary projects written from text, engines on a shared recording sink.

use engine_core::runtime::{
    Engine, EngineConfig, EventArgs, SampleInfo, SharedSink, SoundCommand, TraceKind, TraceRecord,
    TraceSwitches, UniformSamples,
};
use engine_core::toolchain::project::Project;
use engine_core::world::{ObjectKind, WorldObject};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A temporary data directory, removed when dropped.
pub struct TempProject {
    pub dir: PathBuf,
}

impl TempProject {
    pub fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("hitbench-rt-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self { dir }
    }

    /// Writes a file (folders created as needed).
    pub fn file(&self, name: &str, text: &str) -> &Self {
        let path = self.dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// An (empty) sample file.
    pub fn sample(&self, name: &str) -> &Self {
        self.file(name, "")
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    pub fn load(&self) -> Project {
        Project::load(&self.dir)
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The seed examples project shipped in `projects/`.
pub fn seed_project() -> Project {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/seed-examples");
    let project = Project::load(&root);
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    project
}

/// Every sample lasts `seconds` at 48 kHz.
pub fn samples_of(seconds: f64) -> Box<UniformSamples> {
    Box::new(UniformSamples(SampleInfo {
        frames: (48_000.0 * seconds) as u64,
        sample_rate: 48_000,
    }))
}

/// An engine with a shared recording sink, every trace on.
pub fn engine(project: Project, seed: u64, sample_seconds: f64) -> (Engine, SharedSink) {
    let sink = SharedSink::default();
    let config = EngineConfig {
        seed,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(
        project,
        config,
        Box::new(sink.clone()),
        samples_of(sample_seconds),
    );
    engine.set_trace_switches(TraceSwitches::ALL);
    (engine, sink)
}

/// Adds a person with fields.
pub fn person(engine: &mut Engine, id: i32, fields: &[(u8, i32)]) {
    let mut object = WorldObject::new(id, format!("person {id}"), ObjectKind::Person);
    for (field, value) in fields {
        object = object.with_field(*field, *value);
    }
    engine.world_mut().insert(object);
}

/// Ticks for `seconds` of engine time.
pub fn run_for(engine: &mut Engine, seconds: f64) {
    let until = engine.now() + (seconds * f64::from(engine.clock().sample_rate())) as u64;
    engine.run_until(until);
}

/// Patches of the Start commands, in order.
pub fn started_patches(commands: &[SoundCommand]) -> Vec<u32> {
    commands
        .iter()
        .filter_map(|c| match c {
            SoundCommand::Start { sample, .. } => Some(sample.patch),
            _ => None,
        })
        .collect()
}

/// Trace records of a kind.
pub fn records(trace: &[TraceRecord], kind: TraceKind) -> Vec<&TraceRecord> {
    trace.iter().filter(|r| r.kind == kind).collect()
}

/// Default args.
pub fn args() -> EventArgs {
    EventArgs::default()
}

/// A project of tracks `t0`…, each looping a long note at `volume` (HIT scale) with
/// these priorities (events of the same names), plus `more` tracks' source inside the
/// same `BINARY` block.
pub fn looping_tracks(tag: &str, priorities: &[i32], volume: i32, more: &str) -> TempProject {
    let mut source = String::from("LAYOUT tso\nBINARY [\n");
    let mut tracks = String::from("[Track]\n");
    let mut events = String::from("[EventMapping]\n");
    for (i, priority) in priorities.iter().enumerate() {
        source.push_str(&format!(
            "t{i}\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n"
        ));
        tracks.push_str(&format!(
            "{}=0,t{i},{volume},kArgsIdVolPan,duckpri_normal,kGroupSfx,spl_normal,@0,0,{priority}\n",
            100 + i
        ));
        events.push_str(&format!("t{i}=kSndobPlay,{},0,0,0,0\n", 100 + i));
    }
    source.push_str(more);
    source.push_str("]\n");
    let p = TempProject::new(tag);
    p.file("t.src", &source)
        .file(
            "t.hot",
            &format!("{events}{tracks}[Patch]\n1=0,hum,\"s.wav\",0,0,0,0,0\n"),
        )
        .sample("s.wav");
    p
}

/// A mono 16-bit 48 kHz WAV at `path`: `seconds` long, every sample at `level` (0–1).
#[allow(dead_code)] // not every test that includes this file writes samples
pub fn constant_wav(path: &Path, seconds: f64, level: f32) {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 48_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).unwrap();
    for _ in 0..(seconds * 48_000.0) as usize {
        w.write_sample((level * 32_768.0) as i16).unwrap();
    }
    w.finalize().unwrap();
}
