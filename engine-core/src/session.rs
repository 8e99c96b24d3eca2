//! A session: a loaded project's engine, its sound server and the controlled
//! character, driven together — one tick of the runtime, then the server turns the
//! tick's commands into mixer commands. The offline renderer and the live engine
//! thread both run one.

use crate::command::{self, Command};
use crate::mixer::MixerHandle;
use crate::project::Project;
use crate::runtime::clock::SampleTime;
use crate::runtime::{Engine, EngineConfig, SharedSink, SoundSink, TraceRecord};
use crate::server::{CacheSamples, ServerConfig, SoundServer, project_cache};
use crate::world::ObjectId;

/// How a session runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionConfig {
    /// The runtime (its sample rate must be the mixer's).
    pub engine: EngineConfig,
    /// The sound server.
    pub server: ServerConfig,
    /// The resource cache's byte budget.
    pub cache_budget: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            engine: EngineConfig::default(),
            server: ServerConfig::default(),
            cache_budget: 256 * 1024 * 1024,
        }
    }
}

/// An engine and its sound server.
pub struct Session {
    /// The runtime.
    pub engine: Engine,
    /// The sound server.
    pub server: SoundServer,
    outbox: SharedSink,
    /// The character `sev` plays from.
    pub controlled: Option<ObjectId>,
    /// Problems found setting the session up (resource directories).
    pub problems: Vec<String>,
}

impl Session {
    /// A session for `project`, sending to the mixer behind `mixer`.
    pub fn new(project: Project, mixer: MixerHandle, mut config: SessionConfig) -> Self {
        config.engine.sample_rate = mixer.sample_rate();
        let (cache, problems) = project_cache(&project.dirs, config.cache_budget);
        let outbox = SharedSink::default();
        let samples = CacheSamples::new(cache.clone());
        let engine = Engine::new(
            project,
            config.engine,
            Box::new(outbox.clone()),
            Box::new(samples),
        );
        let server = SoundServer::new(mixer, cache, config.server, config.engine.seed);
        Self {
            engine,
            server,
            outbox,
            controlled: None,
            problems,
        }
    }

    /// Hands the engine's commands to the server.
    fn pump(&mut self) {
        for command in self.outbox.take() {
            self.server.send(command);
        }
    }

    /// Runs a command of the shared command language.
    pub fn execute(&mut self, command: &Command) -> Result<String, String> {
        let controls = std::sync::Arc::clone(&self.server.mixer().controls);
        let result = command::execute(
            command,
            &mut command::Context {
                engine: &mut self.engine,
                controls: Some(&controls),
                controlled: &mut self.controlled,
            },
        );
        self.pump();
        result
    }

    /// Parses and runs one console line.
    pub fn run_line(&mut self, line: &str) -> Result<String, String> {
        match command::parse(line) {
            Ok(Some(command)) => self.execute(&command),
            Ok(None) => Ok(String::new()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// One engine tick, then the server catches up.
    pub fn tick(&mut self) {
        let cache = std::sync::Arc::clone(self.server.cache());
        cache.begin_tick();
        self.engine.tick();
        self.pump();
        self.server.update(self.engine.now());
        cache.end_tick();
    }

    /// The engine's time (the start of the next tick).
    pub fn now(&self) -> SampleTime {
        self.engine.now()
    }

    /// Takes the trace records of the engine and the server, in time order.
    pub fn take_trace(&mut self) -> Vec<TraceRecord> {
        let mut records = self.engine.take_trace();
        records.extend(self.server.take_trace());
        records.sort_by_key(|r| r.time);
        records
    }
}
