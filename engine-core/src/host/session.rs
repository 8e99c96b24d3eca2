//! A session: a loaded project's engine, its sound server, its world director (lot,
//! view, stations, music, ambience) and the controlled character, driven together —
//! one tick of the world and the runtime, then the server turns the tick's commands
//! into mixer commands. The offline renderer and the live engine
//! thread both run one.
//!
//! A live session also applies hot reloads ([`Session::apply_reload`], see
//! [`crate::host::reload`]); its own trace records (what a reload did) are merged with the
//! engine's and the server's.

use crate::host::command::{self, Command};
use crate::host::reload::{Reload, ReloadConfig, ReloadSummary};
use crate::runtime::clock::SampleTime;
use crate::runtime::samples::{SampleInfo, SampleLibrary};
use crate::runtime::sink::SampleRef;
use crate::runtime::trace::{ReloadEvent, SampleEvent, TraceEvent};
use crate::runtime::{Engine, EngineConfig, SharedSink, SoundSink, TraceRecord, TraceSwitches};
use crate::sound::mixer::MixerHandle;
use crate::sound::server::{CacheSamples, ServerConfig, SoundServer, project_cache};
use crate::sound::server::{MonitorState, SlotOwner};
use crate::toolchain::project::Project;
use crate::tools::why::Subject;
use crate::world::ObjectId;
use crate::world::commands::WorldCommand;
use crate::world::director::WorldDirector;
pub use crate::world::lot::save::SaveLotPolicy;
pub use apply_reload::swap_project;
pub use dirs::replace_project;

mod apply_reload;
mod dirs;
mod repeats;
mod server_sounds;
use server_sounds::install_server_sounds;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SessionConfig {
    /// The runtime (its sample rate must be the mixer's).
    pub engine: EngineConfig,
    /// The sound server.
    pub server: ServerConfig,
    /// The resource cache's byte budget (`--cache-mb`); `None`: `world.ini [Cache]
    /// BudgetMB`, else [`crate::world::cache_settings::DEFAULT_CACHE_BUDGET`].
    pub cache_budget: Option<usize>,
    /// Whether, and where, `savelot` may write (by default nowhere).
    pub save_lot: SaveLotPolicy,
    /// The optional traces the engine starts with (errors are always traced).
    pub trace: TraceSwitches,
}

/// Sample lengths for the runtime, measured through the cache and remembered; a reload
/// that changes sample data bumps the shared generation, and the memo starts afresh.
struct SampleLengths {
    cache: Arc<crate::sound::cache::ResourceCache>,
    inner: CacheSamples,
    seen: u64,
    generation: Arc<AtomicU64>,
}

impl SampleLibrary for SampleLengths {
    fn info(&mut self, sample: &SampleRef) -> Result<SampleInfo, String> {
        let generation = self.generation.load(Ordering::Acquire);
        if generation != self.seen {
            self.inner = CacheSamples::new(Arc::clone(&self.cache));
            self.seen = generation;
        }
        self.inner.info(sample)
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
    /// Bumped when sample data changed, so remembered lengths are measured again.
    lengths: Arc<AtomicU64>,
    /// The session's own trace records (reloads), not yet taken.
    notes: Vec<TraceRecord>,
    /// The lot, the view, stations, music and ambience.
    pub world: WorldDirector,
    /// `--cache-mb`, which `world.ini` does not override when the world is read again.
    cache_override: Option<usize>,
    /// The server's wait priority before `world.ini` set one.
    base_wait_priority: i32,
    /// `repeat`s with runs still to come.
    repeats: Vec<repeats::Repeating>,
}

impl Session {
    /// A session for `project`, sending to the mixer behind `mixer`.
    pub fn new(project: Project, mixer: MixerHandle, mut config: SessionConfig) -> Self {
        config.engine.sample_rate = mixer.sample_rate();
        let base_wait_priority = config.server.wait_priority;
        let mut world =
            WorldDirector::load(&project, config.engine.sample_rate, config.engine.seed);
        let budget = world.cache.budget_or(config.cache_budget);
        if let Some(priority) = world.cache.wait_priority {
            config.server.wait_priority = priority;
        }
        let (cache, problems) = project_cache(&project.dirs, budget);
        let outbox = SharedSink::default();
        let lengths = Arc::new(AtomicU64::new(0));
        let samples = SampleLengths {
            cache: Arc::clone(&cache),
            inner: CacheSamples::new(Arc::clone(&cache)),
            seen: 0,
            generation: Arc::clone(&lengths),
        };
        world.set_save_policy(config.save_lot);
        let mut engine = Engine::new(
            project,
            config.engine,
            Box::new(outbox.clone()),
            Box::new(samples),
        );
        // The mixer may have volumes set already (a session on a running output).
        engine.set_bus_volumes(mixer.controls.bus_volumes());
        let mut server = SoundServer::new(mixer, cache, config.server, config.engine.seed);
        install_server_sounds(&world, &mut server);
        engine.set_trace_switches(config.trace);
        let controlled = world.install(&mut engine);
        Self {
            engine,
            server,
            outbox,
            controlled,
            problems,
            lengths,
            notes: Vec::new(),
            world,
            cache_override: config.cache_budget,
            base_wait_priority,
            repeats: Vec::new(),
        }
    }

    /// Adds a record of the session's own (a reload step) to the trace, at the engine's
    /// time; its kind is the event's ([`ReloadEvent::kind`]).
    pub fn record(&mut self, what: ReloadEvent) {
        let kind = what.kind();
        self.notes.push(TraceRecord::new(
            self.engine.now(),
            kind,
            TraceEvent::Reload(what),
        ));
    }

    /// Forgets every sample length the runtime remembered (sample files changed).
    pub fn forget_sample_lengths(&self) {
        self.lengths.fetch_add(1, Ordering::AcqRel);
    }

    /// Applies a hot reload loaded by a [`crate::host::reload::Reloader`]: swaps its project in
    /// (restarting or dropping the tracks whose code was running, as `config` says),
    /// lets changed samples be measured again, and traces what it did. `None` if the
    /// reload only carried the watcher's state.
    pub fn apply_reload(&mut self, reload: Reload, config: &ReloadConfig) -> Option<ReloadSummary> {
        apply_reload::apply(self, reload, config)
    }

    /// Reads the world again (`world.ini`, ambience scores; the lot file too when
    /// `lot_changed` or when `world.ini` now names another one): what the old world
    /// played fades out, the new one starts at the next tick where the old left off —
    /// same camera, hour and music mode, receivers that were on tune in again — or from
    /// the new lot. Returns what happened, one event each (problems of the new files
    /// included).
    pub fn reload_world(&mut self, lot_changed: bool) -> Vec<ReloadEvent> {
        let now = self.engine.now();
        self.world.shutdown(&mut self.engine, now, &mut self.server);
        self.take_world_news();
        let rate = self.engine.clock().sample_rate();
        let seed = self.engine.config().seed;
        let mut world = WorldDirector::load(self.engine.project(), rate, seed);
        // `[Cache]` may have changed: the budget (unless `--cache-mb` set it) and the
        // wait priority follow.
        self.server
            .cache()
            .set_budget(world.cache.budget_or(self.cache_override));
        self.server
            .set_wait_priority(world.cache.wait_priority.unwrap_or(self.base_wait_priority));
        let mut events = Vec::new();
        let lot_changed = lot_changed || world.lot_file() != self.world.lot_file();
        if lot_changed {
            // The lot on disk replaces the objects; the old objects' sounds stop.
            self.engine.quiet_all();
            self.controlled = world.install(&mut self.engine);
            events.push(ReloadEvent::LotReadAgain {
                objects: self.engine.world().len(),
            });
        }
        install_server_sounds(&world, &mut self.server);
        let old = std::mem::replace(&mut self.world, world);
        self.world.take_over(old, !lot_changed);
        for d in self.world.diagnostics() {
            events.push(ReloadEvent::WorldProblem(d.into()));
        }
        events.push(ReloadEvent::WorldReadAgain);
        self.pump();
        events
    }

    /// Hands the engine's commands to the server.
    fn pump(&mut self) {
        for command in self.outbox.take() {
            self.server.send(command);
        }
    }

    /// Runs a command of the shared command language.
    ///
    /// The result is a console reply — the sentence the console, `hitbench play` and a
    /// render's log print — from the command language ([`command::CommandError`]) and
    /// from the world director alike, so both kinds of failure are the text they say.
    pub fn execute(&mut self, command: &Command) -> Result<String, String> {
        if let Command::Repeat {
            count,
            every_ms,
            command,
        } = command
        {
            return self.start_repeat(*count, *every_ms, command);
        }
        if let Command::Monitor(monitor) = command {
            return Ok(self.monitor(*monitor));
        }
        if matches!(command, Command::Reload) {
            let reply = apply_reload::reload_from_disk(self);
            self.pump();
            return Ok(reply);
        }
        if let Command::Plugin { add, dir } = command {
            let (project, said) = self.plugin_project(*add, dir)?;
            replace_project(self, project, true);
            self.pump();
            return Ok(said);
        }
        if let Command::World(WorldCommand::Select(objects)) = command {
            let result = self.server_sound(None, objects, true);
            self.pump();
            return result;
        }
        if let Command::World(WorldCommand::Sound { name, object }) = command {
            let objects: Vec<ObjectId> = object.iter().copied().collect();
            let result = self.server_sound(Some(name), &objects, false);
            self.pump();
            return result;
        }
        if let Command::World(world) = command {
            let result =
                self.world
                    .execute(world, &mut self.engine, self.controlled, &mut self.server);
            self.pump();
            self.take_world_news();
            return result.map_err(|e| e.to_string());
        }
        let controls = Arc::clone(&self.server.mixer().controls);
        let source = match command {
            Command::SoundEvent { object, .. } => object.or(self.controlled),
            _ => None,
        };
        let args = self.world.event_args(&self.engine, source);
        let result = command::execute(
            command,
            &mut command::Context {
                engine: &mut self.engine,
                controls: Some(&controls),
                controlled: &mut self.controlled,
                args,
            },
        )
        .map_err(|e| match command {
            // An event the project does not have: the reply says the closest name.
            Command::SoundEvent { name, .. } | Command::UiSound { name } => {
                match Subject::Event(name.clone()).check(self.engine.project(), &[]) {
                    Err(unknown) => unknown.to_string(),
                    Ok(()) => e.to_string(),
                }
            }
            _ => e.to_string(),
        });
        // Stations, music and ambience hold voices too: `quietall` silences them, and
        // `quiet` of a receiver turns it off.
        let result = match (command, result) {
            (Command::QuietAll, result) => {
                self.world
                    .after_quiet_all(&mut self.engine, &mut self.server);
                result
            }
            (Command::Quiet(object), Ok(reply)) => {
                match self
                    .world
                    .quiet_receiver(&mut self.engine, *object, &mut self.server)
                {
                    Some(station) => {
                        Ok(format!("{reply}; receiver turned off (station {station})"))
                    }
                    None => Ok(reply),
                }
            }
            (_, result) => result,
        };
        self.pump();
        self.take_world_news();
        result
    }

    /// Moves the world's news into the trace.
    fn take_world_news(&mut self) {
        let time = self.engine.now();
        for news in self.world.take_news() {
            let kind = news.what.kind();
            let mut record = TraceRecord::new(time, kind, TraceEvent::World(news.what));
            record.object = news.object;
            self.notes.push(record);
        }
    }

    /// Parses and runs one console line.
    pub fn run_line(&mut self, line: &str) -> Result<String, String> {
        let line = &crate::world::names::resolve(line, self.engine.world().objects())
            .map_err(|e| e.to_string())?;
        match command::parse(line) {
            Ok(Some(command)) => self.execute(&command),
            Ok(None) => Ok(String::new()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// One engine tick, then the server catches up.
    pub fn tick(&mut self) {
        self.run_due_repeats();
        let cache = Arc::clone(self.server.cache());
        cache.begin_tick();
        let from = self.engine.now();
        self.engine.tick();
        if self.server.monitor().is_active() {
            // Notes this tick started are judged by who holds their slots now.
            let slots = self.slot_owners();
            self.server.update_monitor(slots, from);
        }
        self.pump();
        if self.engine.paused().is_some() {
            // The debugger holds the engine mid-tick: the world and the server wait for
            // the tick to end (its clock has not moved).
            cache.end_tick();
            return;
        }
        let ended = self.server.take_ended();
        let until = self.engine.now();
        self.world.set_active(self.controlled);
        self.world
            .tick(&mut self.engine, &ended, from, until, &mut self.server);
        self.pump();
        self.take_world_news();
        self.server
            .mixer()
            .controls
            .reverb
            .set(self.world.reverb_level());
        self.server.update(until);
        cache.end_tick();
    }

    /// `mute`, `solo`, `monitor`: changes what is heard from now on (the engine's
    /// decisions stay as they are) and says what is muted and soloed.
    fn monitor(&mut self, command: command::MonitorCommand) -> String {
        let mut state = self.server.monitor().clone();
        match command {
            command::MonitorCommand::Set { solo, target, on } => state.set(solo, target, on),
            command::MonitorCommand::Clear => state = MonitorState::default(),
            command::MonitorCommand::Show => return state.describe(),
        }
        let slots = self.slot_owners();
        let now = self.engine.now();
        self.server.set_monitor(state, slots, now);
        self.server.monitor().describe()
    }

    /// Who holds each Box-X slot: the track and the objects saying it.
    fn slot_owners(&self) -> Vec<Option<SlotOwner>> {
        let mut slots: Vec<Option<SlotOwner>> = Vec::new();
        for (_, th) in self.engine.live_threads() {
            if th.voice >= slots.len() {
                slots.resize(th.voice + 1, None);
            }
            let mut objects: Vec<ObjectId> = th.owners.iter().copied().collect();
            objects.extend(th.source.filter(|s| !th.owners.contains(s)));
            if let Some(slot) = slots.get_mut(th.voice) {
                *slot = Some(SlotOwner {
                    track: th.track,
                    objects,
                });
            }
        }
        slots
    }

    /// The engine's time (the start of the next tick).
    pub fn now(&self) -> SampleTime {
        self.engine.now()
    }

    /// Takes the trace records of the engine and the server, in time order.
    pub fn take_trace(&mut self) -> Vec<TraceRecord> {
        let mut records = self.engine.take_trace();
        // Where each note's sample came from is a sample trace: kept while it is on.
        let samples = self.engine.trace_switches().samples;
        records.extend(self.server.take_trace().into_iter().filter(|r| {
            samples || !matches!(r.what, TraceEvent::Sample(SampleEvent::Fetched { .. }))
        }));
        records.append(&mut self.notes);
        records.sort_by_key(|r| r.time);
        records
    }
}
