//! The engine: events in, timed sound commands out. It owns the threads, the Box-X
//! voices and instance map, hit-list state, the world's objects and the trace, and runs
//! everything on a sample-time clock so the same seed and inputs always give the same
//! commands and the same trace.

use crate::runtime::clock::{Clock, SampleTime};
use crate::runtime::objects::{ObjectId, World};
use crate::runtime::picks::HitListState;
use crate::runtime::program::{NONE, Program};
use crate::runtime::queue::TimedQueue;
use crate::runtime::rng::Rng;
use crate::runtime::samples::SampleLibrary;
use crate::runtime::sink::{ControlGroup, NoteId, SoundCommand, SoundSink};
use crate::runtime::thread::{AttrRegs, ChainRef, ListRef, Thread, ThreadState};
use crate::runtime::trace::{
    BusVolumes, CodePlace, EndReason, GivenLevels, Occupant, Seat, TraceEvent, TraceKind, TraceLog,
    TraceRecord, TraceSwitches, ViewLevels, VoiceTable,
};
use crate::runtime::vm::{self, Exit, FaultKind};
use crate::runtime::voices::{Allocation, Holder, Voices, WorldSeat, WorldVoice};
use crate::toolchain::project::{DebugTrace, EventDef, EventType, Project, TrackDef};
use crate::toolchain::registers::{FIRST_GLOBAL, GLOBAL_COUNT};
use std::collections::BTreeSet;
use std::sync::Arc;

mod auditions;
mod boxx;
mod debugging;
mod dispatch;
mod event_cache;
mod host;
mod levels;
mod lifecycle;
pub use auditions::Stopped;
pub use lifecycle::Quieted;
mod records;
mod tick;
mod tuning;
mod voice_limit;
mod world_voices;
pub use voice_limit::{MAX_VOICES, VoiceLimitChange};

pub use crate::runtime::hooks::HookEvent;
pub use crate::runtime::outcome::{Outcome, TriggerError};
pub use debugging::GoOn;
pub use host::MAX_LIST_DEPTH;
pub use levels::{duck_level, note_gain, note_gain_parts, note_pan, note_pan_parts};

/// How the engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineConfig {
    /// Samples per second of the engine clock (and of the commands' times).
    pub sample_rate: u32,
    /// Engine ticks per second.
    pub tick_rate: u32,
    /// Box-X voices: how many tracks may play at once.
    pub max_voices: usize,
    /// Instructions a thread may run per tick without yielding.
    pub fuel_per_tick: u32,
    /// Instructions a chain of tracks that start one another with `play_trk` may run
    /// together in one tick (each start costs [`START_FUEL`] of it). A chain that uses
    /// it up (tracks starting each other without waiting) is stopped with a fault.
    pub chain_fuel_per_tick: u32,
    /// Instructions all threads together may run in one tick. Threads still due when it
    /// is used up run at the next tick instead, so no tick takes unbounded time.
    pub tick_fuel: u64,
    /// Seed of the random generator.
    pub seed: u64,
    /// Trace records kept between two takes.
    pub trace_capacity: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            sample_rate: 48_000,
            tick_rate: 60,
            max_voices: 16,
            fuel_per_tick: 100_000,
            chain_fuel_per_tick: 400_000,
            tick_fuel: 4_000_000,
            seed: 0,
            trace_capacity: 1 << 20,
        }
    }
}

/// Chain fuel a `play_trk` start costs (on top of the instructions the started track
/// runs), so a cycle of tracks that run almost no code is stopped after a bounded
/// number of starts.
pub const START_FUEL: u32 = 64;

/// Arguments of an event (how they fill arg1–arg4 depends on the track's kArgs type).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventArgs {
    /// Volume 0–1024.
    pub volume: i32,
    /// Pan 0 (left) – 512 (centre) – 1024 (right).
    pub pan: i32,
    /// Position for kArgsXYZ tracks.
    pub position: [i32; 3],
    /// arg1–arg4 for kArgsNormal tracks.
    pub normal: [i32; 4],
    /// Why `volume` and `pan` are what they are, when the source's place in the view
    /// decided them (`None`: the trigger's own).
    pub view: Option<ViewLevels>,
}

impl Default for EventArgs {
    fn default() -> Self {
        Self {
            volume: crate::toolchain::project::FULL_VOLUME,
            pan: 512,
            position: [0; 3],
            normal: [0; 4],
            view: None,
        }
    }
}

/// Work waiting in the time queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Wake {
    /// Run a thread.
    Run { thread: usize, generation: u32 },
    /// A note ends by itself.
    NoteEnd {
        thread: usize,
        generation: u32,
        note: usize,
    },
}

/// A track playing now, for inspectors and tests.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ActiveTrack {
    /// Its voice.
    pub voice: usize,
    /// Track ID.
    pub track: u32,
    /// Track name.
    pub track_name: Arc<str>,
    /// The event that started it.
    pub event: Arc<str>,
    /// Objects saying it.
    pub owners: Vec<ObjectId>,
    /// Current priority.
    pub priority: i32,
    /// Option group.
    pub group: ControlGroup,
    /// Notes sounding.
    pub live_notes: usize,
    /// When it started.
    pub started_at: SampleTime,
    /// True once its code has ended (its notes still sound).
    pub finished: bool,
}

/// The HIT runtime.
pub struct Engine {
    config: EngineConfig,
    project: Arc<Project>,
    program: Arc<Program>,
    clock: Clock,
    rng: Rng,
    threads: Vec<Option<Box<Thread>>>,
    generations: Vec<u32>,
    free: Vec<usize>,
    queue: TimedQueue<Wake>,
    seq: u64,
    voices: Voices,
    /// The voice table as the last verdict saw it, and the slot changes it was built at.
    seats: Option<(u64, VoiceTable)>,
    /// The events triggered so far, by name.
    events: event_cache::EventCache,
    hitlists: HitListState,
    next_note: NoteId,
    /// The samples `play` started that may still sound.
    auditions: auditions::Auditions,
    globals: [i32; GLOBAL_COUNT],
    world: World,
    trace: TraceLog,
    sink: Box<dyn SoundSink>,
    samples: Box<dyn SampleLibrary>,
    hooks: Vec<HookEvent>,
    instructions: u64,
    /// Fuel used by each `play_trk` chain in the current tick (index: `ChainRef::index`).
    chains: Vec<ChainFuel>,
    /// Instructions run in the current tick by all threads together.
    tick_used: u64,
    /// While a thread runs: its chain in this tick (a `play_trk` puts the
    /// track it starts into the same chain, creating the chain on the first start).
    running: Option<Running>,
    /// Threads ducking right now (ducking is recomputed only when there are any).
    duckers: usize,
    /// The option group and master volumes the mixer applies, as the host last set them
    /// (recorded with each note's gain).
    buses: BusVolumes,
    /// Breakpoints, the step under way, where the engine is paused.
    debug: crate::runtime::debug::Debugger,
    /// The end of a tick the debugger paused, which goes on from where it stopped.
    mid_tick: Option<SampleTime>,
    /// Threads the current tick deferred to the next (its fuel used up).
    deferred: usize,
    /// The volume and pan each object was last given by its place in the view
    /// ([`Engine::update_source`]): a shared track follows the loudest of its owners.
    object_levels: crate::runtime::hash::FastMap<ObjectId, GivenLevels>,
    /// World players that lost their voice slot, for the director.
    lost_world: Vec<(WorldVoice, EndReason)>,
}

/// The thread running right now, as the engine sees it while the thread is out of the
/// thread table.
#[derive(Debug, Clone, Copy)]
struct Running {
    /// Its chain in this tick, if it started a track or was started by one.
    chain: Option<u32>,
}

/// What one `play_trk` chain used in the current tick.
#[derive(Debug, Clone, Copy, Default)]
struct ChainFuel {
    /// Instructions, starts counted at [`START_FUEL`] each.
    used: u32,
    /// `play_trk` starts.
    starts: u32,
}

/// Time of a gain or pan ramp, in milliseconds (no zipper noise, still immediate).
pub const RAMP_MS: i64 = 10;

impl Engine {
    /// An engine for `project`, sending commands to `sink` and asking `samples` how long
    /// samples are.
    pub fn new(
        project: Project,
        config: EngineConfig,
        sink: Box<dyn SoundSink>,
        samples: Box<dyn SampleLibrary>,
    ) -> Self {
        let program = Program::build(&project);
        let mut trace = TraceLog::with_capacity(config.trace_capacity);
        trace.switches = TraceSwitches::default();
        Self {
            config,
            clock: Clock::new(config.sample_rate, config.tick_rate),
            rng: Rng::new(config.seed),
            threads: Vec::new(),
            generations: Vec::new(),
            free: Vec::new(),
            queue: TimedQueue::default(),
            seq: 0,
            voices: Voices::new(config.max_voices),
            seats: None,
            events: event_cache::EventCache::default(),
            hitlists: HitListState::default(),
            next_note: 1,
            auditions: auditions::Auditions::default(),
            globals: [0; GLOBAL_COUNT],
            world: World::default(),
            trace,
            sink,
            samples,
            hooks: Vec::new(),
            instructions: 0,
            chains: Vec::new(),
            tick_used: 0,
            running: None,
            duckers: 0,
            buses: BusVolumes::default(),
            debug: crate::runtime::debug::Debugger::default(),
            mid_tick: None,
            deferred: 0,
            object_levels: crate::runtime::hash::FastMap::default(),
            lost_world: Vec::new(),
            project: Arc::new(project),
            program: Arc::new(program),
        }
    }

    /// The loaded project.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The engine clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Current sample time (the start of the next tick).
    pub fn now(&self) -> SampleTime {
        self.clock.now()
    }

    /// The world's objects.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world's objects, to change.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The option group and master volumes the mixer applies, as last set.
    pub fn bus_volumes(&self) -> BusVolumes {
        self.buses
    }

    /// Tells the engine the option group and master volumes the mixer now applies, so
    /// the gain recorded with a note is the one heard. The runtime sends no command for
    /// them: the host sets the mixer's volumes itself.
    pub fn set_bus_volumes(&mut self, buses: BusVolumes) {
        self.buses = buses;
    }

    /// Which optional traces are on.
    pub fn trace_switches(&self) -> TraceSwitches {
        self.trace.switches
    }

    /// Switches optional traces.
    pub fn set_trace_switches(&mut self, switches: TraceSwitches) {
        self.trace.switches = switches;
    }

    /// Takes the trace records kept so far.
    pub fn take_trace(&mut self) -> Vec<TraceRecord> {
        self.trace.take()
    }

    /// Trace records kept so far (not taken).
    pub fn trace(&self) -> &[TraceRecord] {
        self.trace.records()
    }

    /// Takes the requests for the world (TV, radio, music mode).
    pub fn take_hooks(&mut self) -> Vec<HookEvent> {
        std::mem::take(&mut self.hooks)
    }

    /// Instructions run since the engine started.
    pub fn instructions(&self) -> u64 {
        self.instructions
    }

    /// Number of items waiting in the time queue (threads and note ends).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Number of Box-X voices in use.
    pub fn voices_in_use(&self) -> usize {
        self.voices.in_use()
    }

    /// Adds a data directory after start-up (the game's `AddDownloadDirectory`, for plug-in
    /// folders, once the engine runs): the project is loaded again with it last, so it overrides the
    /// others, and replaces the current one at once. Returns the new load's diagnostics.
    pub fn add_directory(
        &mut self,
        dir: impl Into<std::path::PathBuf>,
    ) -> Vec<crate::toolchain::diag::Diagnostic> {
        let mut dirs = self.project.dirs.clone();
        dirs.push(dir.into());
        let project = Project::load_dirs(&dirs);
        let diagnostics = project.diagnostics.clone();
        self.record(
            TraceKind::Track,
            TraceEvent::DirectoryAdded {
                dir: dirs.last().cloned().unwrap_or_default(),
                problems: diagnostics.len(),
            },
        );
        self.replace_project(project);
        diagnostics
    }

    /// Replaces the project (a data directory was added or reloaded); new triggers use
    /// the new one. A thread keeps op indices into the old program, so a running track
    /// stops (its notes keep their natural end) unless nothing it runs by changed: the
    /// same code, the same patches, hit lists and event mappings, and its own track's
    /// fields as the engine has them now (tuned live included) — the reload that follows
    /// saving a value the engine already has. Returns the tracks that play on.
    pub fn replace_project(&mut self, project: Project) -> BTreeSet<u32> {
        let program = Program::build(&project);
        let same_code = *self.program == program
            && self.project.patches == project.patches
            && self.project.hit_lists == project.hit_lists
            && self.project.events == project.events;
        let mut kept = BTreeSet::new();
        let mut stopping = Vec::new();
        for (index, th) in self.threads.iter().enumerate() {
            let Some(th) = th.as_ref().filter(|t| t.state != ThreadState::Finished) else {
                continue;
            };
            if same_code && self.project.tracks.get(&th.track) == project.tracks.get(&th.track) {
                kept.insert(th.track);
            } else {
                stopping.push(index);
            }
        }
        self.program = Arc::new(program);
        // Line breakpoints are found in the new code again.
        self.debug.program_changed();
        self.project = Arc::new(project);
        self.events.clear();
        for index in stopping {
            if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                th.state = ThreadState::Finished;
            }
            self.record_thread(TraceKind::Track, index, TraceEvent::CodeReplaced);
            self.finish_if_silent(index);
        }
        kept
    }

    /// Every track playing now.
    pub fn active_tracks(&self) -> Vec<ActiveTrack> {
        self.threads
            .iter()
            .flatten()
            .map(|th| ActiveTrack {
                voice: th.voice,
                track: th.track,
                track_name: th.track_name.clone(),
                event: th.event.clone(),
                owners: th.owners.iter().copied().collect(),
                priority: th.priority(),
                group: th.group,
                live_notes: th.live_notes().count(),
                started_at: th.started_at,
                finished: th.state == ThreadState::Finished,
            })
            .collect()
    }

    /// Every live thread with its index, in index order (read-only, for inspectors:
    /// the inspector (`inspect`)).
    pub fn live_threads(&self) -> impl Iterator<Item = (usize, &Thread)> {
        self.threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.as_deref().map(|t| (i, t)))
    }

    /// The predecoded code the threads run (read-only, for inspectors).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The Box-X voice slots and the instance map (read-only, for inspectors).
    pub fn voice_table(&self) -> &Voices {
        &self.voices
    }

    // ---------------------------------------------------------------------------
    // Trace helpers
    // ---------------------------------------------------------------------------

    // ---------------------------------------------------------------------------
    // Events
    // ---------------------------------------------------------------------------

    // ---------------------------------------------------------------------------
    // Ticking
    // ---------------------------------------------------------------------------

    /// A thread's current list, as a global ID or a local copy (for the host).
    pub(super) fn list_entries(&self, list: &ListRef) -> Option<Vec<u32>> {
        match list {
            ListRef::Global(id) => self.project.hit_lists.get(id).map(|l| l.entries.clone()),
            ListRef::Local { entries, .. } => Some(entries.clone()),
        }
    }

    /// Records a new note for a thread and schedules its natural end.
    pub(super) fn add_note(
        &mut self,
        index: usize,
        th: &mut Thread,
        id: NoteId,
        end: Option<SampleTime>,
    ) -> usize {
        let handle = th.add_note(id, end);
        let playing = th.attrs.isplaying;
        th.set_reg(playing, 1);
        if let Some(end) = end {
            let generation = th.generation;
            self.schedule(
                end,
                Wake::NoteEnd {
                    thread: index,
                    generation,
                    note: handle,
                },
            );
        }
        handle
    }
}
