//! The engine: events in, timed sound commands out. It owns the threads, the Box-X
//! voices and instance map, hit-list state, the world's objects and the trace, and runs
//! everything on a sample-time clock so the same seed and inputs always give the same
//! commands and the same trace.

use super::clock::{Clock, SampleTime};
use super::hitlists::HitListState;
use super::program::{NONE, Program};
use super::queue::TimedQueue;
use super::rng::Rng;
use super::samples::SampleLibrary;
use super::sink::{ControlGroup, NoteId, SoundCommand, SoundSink};
use super::thread::{AttrRegs, ChainRef, ListRef, Thread, ThreadNote, ThreadState};
use super::trace::{TraceKind, TraceLog, TraceRecord, TraceSwitches};
use super::vm::{self, Exit, FaultKind};
use super::voices::{Allocation, Voices};
use crate::project::{DebugTrace, EventDef, EventType, Project, TrackDef};
use crate::registers::{FIRST_GLOBAL, GLOBAL_COUNT};
use crate::world::{ObjectId, World};
use std::collections::BTreeSet;
use std::sync::Arc;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventArgs {
    /// Volume 0–1024.
    pub volume: i32,
    /// Pan 0 (left) – 512 (centre) – 1024 (right).
    pub pan: i32,
    /// Position for kArgsXYZ tracks.
    pub position: [i32; 3],
    /// arg1–arg4 for kArgsNormal tracks.
    pub normal: [i32; 4],
}

impl Default for EventArgs {
    fn default() -> Self {
        Self {
            volume: crate::project::FULL_VOLUME,
            pan: 512,
            position: [0; 3],
            normal: [0; 4],
        }
    }
}

/// What a trigger did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A new track started on this voice.
    Started {
        /// The voice.
        voice: usize,
    },
    /// The track was already playing; the source joined it as an owner.
    Joined {
        /// The voice it plays on.
        voice: usize,
    },
    /// The track was already playing (no source to join).
    AlreadyPlaying {
        /// The voice it plays on.
        voice: usize,
    },
    /// The new track waits for an interrupted one to finish.
    Interrupting {
        /// The voice it will play on.
        voice: usize,
    },
    /// Box-X refused the track: every voice holds a track of at least its priority.
    Refused,
    /// Tracks were stopped, killed or quieted.
    Stopped(usize),
    /// A trace switch changed.
    TraceSwitched,
    /// Handed to the world (TV, radio, music mode).
    Hook,
    /// Volume and pan updated on this many tracks.
    Updated(usize),
    /// The event type does nothing here.
    Ignored,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Started { voice } => write!(f, "started on voice {voice}"),
            Outcome::Joined { voice } => {
                write!(f, "already playing on voice {voice}; joined as an owner")
            }
            Outcome::AlreadyPlaying { voice } => write!(f, "already playing on voice {voice}"),
            Outcome::Interrupting { voice } => {
                write!(f, "waits on voice {voice} for the interrupted track to end")
            }
            Outcome::Refused => write!(
                f,
                "refused: every voice holds a track of at least its priority"
            ),
            Outcome::Stopped(n) => write!(f, "{n} track(s) stopped"),
            Outcome::TraceSwitched => write!(f, "trace switched"),
            Outcome::Hook => write!(f, "handed to the world"),
            Outcome::Updated(n) => write!(f, "volume and pan updated on {n} track(s)"),
            Outcome::Ignored => write!(f, "nothing to do for this event type"),
        }
    }
}

/// Why a trigger failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TriggerError {
    /// No event has that name.
    #[error("unknown event `{0}`")]
    UnknownEvent(String),
    /// The event's track is not defined.
    #[error("event `{event}` refers to track {track}, which is not defined")]
    NoTrack {
        /// The event.
        event: String,
        /// Its track ID.
        track: u32,
    },
    /// The track's code could not be found.
    #[error("track `{0}` has no code at its entry address")]
    NoCode(String),
}

/// A request the runtime hands to the world (stations, music, ambience).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookEvent {
    /// kTurnOnTV: an object tuned to a station.
    TurnOn {
        /// The event name.
        event: String,
        /// Station code (the event's track ID).
        station: u32,
        /// The receiver.
        object: Option<ObjectId>,
    },
    /// kTurnOffTV.
    TurnOff {
        /// The event name.
        event: String,
        /// Station code.
        station: u32,
        /// The receiver.
        object: Option<ObjectId>,
    },
    /// kSetMusicMode.
    MusicMode {
        /// The event name.
        event: String,
        /// The mode number.
        mode: u32,
    },
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
#[derive(Debug, Clone, PartialEq)]
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
    pub(super) config: EngineConfig,
    pub(super) project: Arc<Project>,
    pub(super) program: Arc<Program>,
    pub(super) clock: Clock,
    pub(super) rng: Rng,
    pub(super) threads: Vec<Option<Box<Thread>>>,
    generations: Vec<u32>,
    free: Vec<usize>,
    queue: TimedQueue<Wake>,
    pub(super) seq: u64,
    pub(super) voices: Voices,
    pub(super) hitlists: HitListState,
    pub(super) next_note: NoteId,
    pub(super) globals: [i32; GLOBAL_COUNT],
    pub(super) world: World,
    pub(super) trace: TraceLog,
    pub(super) sink: Box<dyn SoundSink>,
    pub(super) samples: Box<dyn SampleLibrary>,
    pub(super) hooks: Vec<HookEvent>,
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
            hitlists: HitListState::default(),
            next_note: 1,
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
            project: Arc::new(project),
            program: Arc::new(program),
        }
    }

    /// Starts `sample` once as a UI sound at the engine's time — no voice, no source:
    /// full volume, centred, in the FX group — for auditioning a patch or a sample file.
    /// Returns its note.
    pub fn play_sample(&mut self, sample: super::sink::SampleRef) -> NoteId {
        let note = self.next_note;
        self.next_note += 1;
        let at = self.now();
        self.sink.send(SoundCommand::Start {
            note,
            voice: usize::MAX,
            at,
            sample,
            gain: 1.0,
            pan: 0.0,
            pitch: 1.0,
            looping: false,
            group: ControlGroup::Fx,
            reverb: false,
        });
        note
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

    /// Adds a data directory after start-up (the seed's `AddDownloadDirectory` once the
    /// engine runs): the project is loaded again with it last, so it overrides the
    /// others, and replaces the current one at once. Returns the new load's diagnostics.
    pub fn add_directory(
        &mut self,
        dir: impl Into<std::path::PathBuf>,
    ) -> Vec<crate::diag::Diagnostic> {
        let mut dirs = self.project.dirs.clone();
        dirs.push(dir.into());
        let project = Project::load_dirs(&dirs);
        let diagnostics = project.diagnostics.clone();
        self.record(
            TraceKind::Track,
            format!(
                "data directory added: {} ({} problem(s))",
                dirs.last()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default(),
                diagnostics.len()
            ),
        );
        self.replace_project(project);
        diagnostics
    }

    /// Replaces the project (a data directory was added or reloaded). Tracks already
    /// playing keep running the code they started with; new triggers use the new one.
    pub fn replace_project(&mut self, project: Project) {
        self.program = Arc::new(Program::build(&project));
        self.project = Arc::new(project);
        // Threads keep op indices into the old program: stop the ones whose code may no
        // longer be where they are, keeping their notes' natural end.
        let running: Vec<usize> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.state != ThreadState::Finished)
                    .map(|_| i)
            })
            .collect();
        for index in running {
            if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                th.state = ThreadState::Finished;
            }
            let message =
                "code replaced by a reload: the track ends after its current notes".to_string();
            self.record_thread(TraceKind::Track, index, message);
            self.finish_if_silent(index);
        }
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
    /// [`crate::inspect`]).
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

    /// True if records of `kind` are kept (so callers can skip building messages).
    pub(super) fn tracing(&self, kind: TraceKind) -> bool {
        self.trace.switches.allows(kind)
    }

    pub(super) fn record(&mut self, kind: TraceKind, message: String) {
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: None,
            track: None,
            object: None,
            voice: None,
            note: None,
            message,
        };
        self.trace.push(record);
    }

    pub(super) fn record_for(
        &mut self,
        kind: TraceKind,
        th: &Thread,
        note: Option<NoteId>,
        message: String,
    ) {
        if !self.trace.switches.allows(kind) {
            return;
        }
        let record = TraceRecord {
            time: th.time.max(self.clock.now()),
            kind,
            event: Some(th.event.clone()),
            track: Some(th.track_name.clone()),
            object: th.source,
            voice: Some(th.voice),
            note,
            message,
        };
        self.trace.push(record);
    }

    fn record_thread(&mut self, kind: TraceKind, index: usize, message: String) {
        let Some(th) = self.threads.get(index).and_then(Option::as_ref) else {
            return;
        };
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: Some(th.event.clone()),
            track: Some(th.track_name.clone()),
            object: th.source,
            voice: Some(th.voice),
            note: None,
            message,
        };
        self.trace.push(record);
    }

    fn record_event(
        &mut self,
        kind: TraceKind,
        event: &EventDef,
        track: Option<&TrackDef>,
        object: Option<ObjectId>,
        voice: Option<usize>,
        message: String,
    ) {
        let record = TraceRecord {
            time: self.clock.now(),
            kind,
            event: Some(Arc::from(event.name.as_str())),
            track: track.map(|t| Arc::from(t.name.as_str())),
            object,
            voice,
            note: None,
            message,
        };
        self.trace.push(record);
    }

    /// "file:line" of an op, or its unit and address.
    pub(super) fn where_is(&self, op: u32) -> String {
        let Some(op) = self.program.ops.get(op as usize) else {
            return "an address outside the code".to_string();
        };
        let unit = usize::from(op.unit);
        let at = crate::project::CodeRef {
            unit,
            address: op.addr,
        };
        let place = match self.project.locate(at) {
            Some(origin) => origin.to_string(),
            None => self
                .project
                .units
                .get(unit)
                .map_or_else(String::new, |u| u.path().display().to_string()),
        };
        format!("address 0x{:04x} ({place})", op.addr)
    }

    // ---------------------------------------------------------------------------
    // Events
    // ---------------------------------------------------------------------------

    /// Triggers an event by name (case-insensitive): a UI sound when `source` is `None`
    /// (PlayUISnd), an object sound otherwise (PlayObjectSnd).
    pub fn trigger(
        &mut self,
        name: &str,
        source: Option<ObjectId>,
        args: EventArgs,
    ) -> Result<Outcome, TriggerError> {
        let project = Arc::clone(&self.project);
        let Some(event) = project.event(name) else {
            let message = format!("unknown event `{name}`");
            let record = TraceRecord {
                time: self.clock.now(),
                kind: TraceKind::Error,
                event: Some(Arc::from(name)),
                track: None,
                object: source,
                voice: None,
                note: None,
                message,
            };
            self.trace.push(record);
            return Err(TriggerError::UnknownEvent(name.to_string()));
        };
        let from = match source {
            Some(object) => format!("from object {object}"),
            None => "as a UI sound".to_string(),
        };
        let from = from.as_str();
        if self.tracing(TraceKind::Event) {
            let message = format!(
                "`{}` (type {}, track {}) {from}",
                event.name, event.type_number, event.track_id
            );
            self.record_event(TraceKind::Event, event, None, source, None, message);
        }
        match event.event_type {
            EventType::Play => self.play(event, source, args, false, None),
            EventType::PlayPiano => self.play(event, source, args, true, None),
            EventType::Stop => Ok(Outcome::Stopped(self.stop_track_id(event.track_id, false))),
            EventType::Kill => Ok(Outcome::Stopped(self.stop_track_id(event.track_id, true))),
            EventType::KillAll => Ok(Outcome::Stopped(self.quiet_all())),
            EventType::KillInstance => Ok(Outcome::Stopped(match source {
                Some(object) => self.quiet_track(object, event.track_id),
                None => self.stop_track_id(event.track_id, true),
            })),
            EventType::UpdateVolPan => Ok(Outcome::Updated(match source {
                Some(object) => self.update_source(object, args.volume, args.pan),
                None => 0,
            })),
            EventType::TurnOnTv | EventType::TurnOffTv | EventType::SetMusicMode => {
                let hook = match event.event_type {
                    EventType::TurnOnTv => HookEvent::TurnOn {
                        event: event.name.clone(),
                        station: event.track_id,
                        object: source,
                    },
                    EventType::TurnOffTv => HookEvent::TurnOff {
                        event: event.name.clone(),
                        station: event.track_id,
                        object: source,
                    },
                    _ => HookEvent::MusicMode {
                        event: event.name.clone(),
                        mode: event.track_id,
                    },
                };
                self.record_event(
                    TraceKind::Hook,
                    event,
                    None,
                    source,
                    None,
                    format!("handed to the world: {hook:?}"),
                );
                self.hooks.push(hook);
                Ok(Outcome::Hook)
            }
            EventType::Debug { trace, on } => {
                match trace {
                    DebugTrace::Events => self.trace.switches.events = on,
                    DebugTrace::Samples => self.trace.switches.samples = on,
                    DebugTrace::Tracks => self.trace.switches.tracks = on,
                }
                let what = match trace {
                    DebugTrace::Events => "event",
                    DebugTrace::Samples => "sample",
                    DebugTrace::Tracks => "track",
                };
                self.record_event(
                    TraceKind::Hook,
                    event,
                    None,
                    source,
                    None,
                    format!("{what} trace {}", if on { "on" } else { "off" }),
                );
                Ok(Outcome::TraceSwitched)
            }
            EventType::Other(n) => {
                self.record_event(
                    TraceKind::Hook,
                    event,
                    None,
                    source,
                    None,
                    format!("event type {n} has no handler here; ignored"),
                );
                Ok(Outcome::Ignored)
            }
        }
    }

    /// Starts the track with this ID directly (as `play_trk` does).
    pub fn play_track(
        &mut self,
        track_id: u32,
        source: Option<ObjectId>,
        args: EventArgs,
    ) -> Result<Outcome, TriggerError> {
        let event = EventDef {
            name: format!("play_trk {track_id}"),
            type_number: 1,
            event_type: EventType::Play,
            track_id,
            implicit: true,
            origin: crate::project::Origin::default(),
        };
        self.play(&event, source, args, false, None)
    }

    /// `play_trk` from the running thread `caller` (out of the thread table while it
    /// runs): its own track is already playing — it is the running copy — unless the
    /// track allows several copies.
    pub(super) fn play_track_from(
        &mut self,
        track_id: u32,
        caller: &Thread,
        args: EventArgs,
    ) -> Result<Outcome, TriggerError> {
        let event = EventDef {
            name: format!("play_trk {track_id}"),
            type_number: 1,
            event_type: EventType::Play,
            track_id,
            implicit: true,
            origin: crate::project::Origin::default(),
        };
        self.play(&event, caller.source, args, false, Some(caller))
    }

    /// Charges a `play_trk` start to the running thread's chain (creating the chain on
    /// its first start), or fails when the chain has used up its fuel for the tick.
    pub(super) fn charge_start(&mut self) -> Result<(), FaultKind> {
        let Some(mut running) = self.running else {
            return Ok(());
        };
        let index = match running.chain {
            Some(index) => index,
            None => {
                let index = u32::try_from(self.chains.len()).unwrap_or(u32::MAX);
                self.chains.push(ChainFuel::default());
                running.chain = Some(index);
                self.running = Some(running);
                index
            }
        };
        let budget = self.config.chain_fuel_per_tick;
        let Some(chain) = self.chains.get_mut(index as usize) else {
            return Ok(());
        };
        if chain.used.saturating_add(START_FUEL) > budget {
            return Err(FaultKind::ChainOutOfFuel {
                used: chain.used,
                starts: chain.starts,
            });
        }
        chain.used += START_FUEL;
        chain.starts += 1;
        Ok(())
    }

    fn play(
        &mut self,
        event: &EventDef,
        source: Option<ObjectId>,
        args: EventArgs,
        piano: bool,
        caller: Option<&Thread>,
    ) -> Result<Outcome, TriggerError> {
        let project = Arc::clone(&self.project);
        let Some(track) = project.track(event.track_id) else {
            let message = format!(
                "event `{}` refers to track {}, which is not defined",
                event.name, event.track_id
            );
            self.record_event(TraceKind::Error, event, None, source, None, message);
            return Err(TriggerError::NoTrack {
                event: event.name.clone(),
                track: event.track_id,
            });
        };
        // A track starting its own track: the running copy is the one copy.
        if let Some(caller) = caller
            && caller.track == track.id
            && !caller.allows_multiple()
        {
            let voice = caller.voice;
            let message = format!(
                "`{}` starts its own track with play_trk: it is already playing on voice {voice} (one copy of a track at a time)",
                track.name
            );
            self.record_event(
                TraceKind::Voice,
                event,
                Some(track),
                source,
                Some(voice),
                message,
            );
            return Ok(Outcome::AlreadyPlaying { voice });
        }
        // One copy of a track at a time (unless it allows more), owners join it.
        let mut handoff_from = None;
        if let Some(&existing) = self.voices.instances(track.id).first()
            && let Some(th) = self.threads.get(existing).and_then(Option::as_ref)
            && !th.interrupted
            && !th.allows_multiple()
        {
            let voice = th.voice;
            if th.interruptible() {
                handoff_from = Some(existing);
            } else {
                let message;
                let outcome;
                match source {
                    Some(object) => {
                        let joined = self
                            .threads
                            .get_mut(existing)
                            .and_then(Option::as_mut)
                            .is_some_and(|th| th.owners.insert(object));
                        let owners: Vec<String> = self
                            .threads
                            .get(existing)
                            .and_then(Option::as_ref)
                            .map(|th| th.owners.iter().map(ToString::to_string).collect())
                            .unwrap_or_default();
                        message = if joined {
                            format!(
                                "join instance: object {object} now also says `{}` (already on voice {voice}); owners [{}]",
                                track.name,
                                owners.join(", ")
                            )
                        } else {
                            format!(
                                "object {object} already says `{}` (voice {voice})",
                                track.name
                            )
                        };
                        outcome = Outcome::Joined { voice };
                    }
                    None => {
                        message = format!(
                            "`{}` is already playing on voice {voice}: one copy of a track at a time",
                            track.name
                        );
                        outcome = Outcome::AlreadyPlaying { voice };
                    }
                }
                self.record_event(
                    TraceKind::Voice,
                    event,
                    Some(track),
                    source,
                    Some(voice),
                    message,
                );
                return Ok(outcome);
            }
        }
        let entry = match track.entry {
            Some(at) => match self.program.op_at(at) {
                Some(op) => Some(op),
                None => {
                    let message = format!(
                        "track `{}` has no instruction at its entry address 0x{:x}",
                        track.name, at.address
                    );
                    self.record_event(TraceKind::Error, event, Some(track), source, None, message);
                    return Err(TriggerError::NoCode(track.name.clone()));
                }
            },
            None => None,
        };

        if let Some(old) = handoff_from {
            return Ok(self.interrupt(old, event, track, entry, source, args, piano));
        }

        // Box-X: a free voice, or steal the lowest priority, or refuse.
        let voice = match self.voices.allocate(track.priority, &self.threads) {
            Allocation::Free(voice) => voice,
            Allocation::Steal {
                voice,
                thread,
                priority,
            } => {
                let victim = self
                    .threads
                    .get(thread)
                    .and_then(Option::as_ref)
                    .map(|t| t.track_name.clone());
                let message = format!(
                    "steal voice {voice} from `{}` (priority {priority}) for `{}` (priority {}): {} > {priority}, all {} voices busy, lowest priority and oldest loses",
                    victim.as_deref().unwrap_or("?"),
                    track.name,
                    track.priority,
                    track.priority,
                    self.voices.capacity()
                );
                self.record_event(
                    TraceKind::Voice,
                    event,
                    Some(track),
                    source,
                    Some(voice),
                    message,
                );
                self.kill(thread, "its voice was stolen");
                voice
            }
            Allocation::Refuse {
                voice,
                thread,
                priority,
            } => {
                let lowest = self
                    .threads
                    .get(thread)
                    .and_then(Option::as_ref)
                    .map(|t| t.track_name.clone());
                let message = format!(
                    "refuse `{}` (priority {}): all {} voices busy and the lowest priority playing is `{}` on voice {voice} with priority {priority} ({} <= {priority})",
                    track.name,
                    track.priority,
                    self.voices.capacity(),
                    lowest.as_deref().unwrap_or("?"),
                    track.priority
                );
                self.record_event(TraceKind::Voice, event, Some(track), source, None, message);
                return Ok(Outcome::Refused);
            }
        };
        let index = self.spawn(event, track, entry, source, args, piano, voice);
        let in_use = self.voices.in_use();
        let message = format!(
            "start `{}` on voice {voice} (priority {}; {in_use} of {} voices in use)",
            track.name,
            track.priority,
            self.voices.capacity()
        );
        self.record_event(
            TraceKind::Voice,
            event,
            Some(track),
            source,
            Some(voice),
            message,
        );
        self.record_thread(TraceKind::Track, index, "track started".to_string());
        Ok(Outcome::Started { voice })
    }

    /// Interrupt handoff (hit-reference §3.4): the old thread is flagged interrupted, its
    /// notes stop (those of `nc_` events finish their current loop), and the new thread
    /// starts in its voice once it is gone.
    #[allow(clippy::too_many_arguments)]
    fn interrupt(
        &mut self,
        old: usize,
        event: &EventDef,
        track: &TrackDef,
        entry: Option<u32>,
        source: Option<ObjectId>,
        args: EventArgs,
        piano: bool,
    ) -> Outcome {
        let now = self.clock.now();
        let (voice, old_event) = match self.threads.get_mut(old).and_then(Option::as_mut) {
            Some(th) => {
                th.interrupted = true;
                (th.voice, th.event.clone())
            }
            None => (0, Arc::from("")),
        };
        let nightclub = old_event.to_ascii_lowercase().starts_with("nc_");
        let message = format!(
            "interrupt: `{}` on voice {voice} has its interrupt register set; the new trigger takes over{}",
            track.name,
            if nightclub {
                " after its loops finish their cycle"
            } else {
                ""
            }
        );
        self.record_event(
            TraceKind::Voice,
            event,
            Some(track),
            source,
            Some(voice),
            message,
        );
        let index = self.spawn(event, track, entry, source, args, piano, voice);
        if nightclub {
            if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                th.state = ThreadState::Blocked(old);
            }
            self.finish_loops_at_cycle_end(old, now);
        } else {
            self.kill(old, "interrupted by a new trigger");
            self.voices.occupy(voice, index);
        }
        Outcome::Interrupting { voice }
    }

    #[allow(clippy::too_many_arguments)]
    fn spawn(
        &mut self,
        event: &EventDef,
        track: &TrackDef,
        entry: Option<u32>,
        source: Option<ObjectId>,
        args: EventArgs,
        piano: bool,
        voice: usize,
    ) -> usize {
        let now = self.clock.now();
        let unit = entry
            .and_then(|e| self.program.ops.get(e as usize))
            .map_or(0, |op| op.unit);
        let layout = self.program.layout(unit);
        let attrs = AttrRegs::of(layout);
        let mut regs = Box::new([0i32; 256]);
        let object = source.unwrap_or(0);
        match track.args_type {
            1 => {
                regs[1] = args.volume;
                regs[2] = args.pan;
            }
            2 => {
                regs[1] = object;
                regs[2] = args.volume;
                regs[3] = args.pan;
            }
            3 => regs[1..4].copy_from_slice(&args.position),
            _ => regs[1..5].copy_from_slice(&args.normal),
        }
        let patch_value = track.patch.or(track.hit_list).unwrap_or(0);
        let looped = piano
            || track
                .patch
                .and_then(|p| self.project.patches.get(&p))
                .is_some_and(|p| p.looped && entry.is_none());
        let mut set = |var: u8, value: i32| {
            if var != 0xFF {
                regs[usize::from(var)] = value;
            }
        };
        set(attrs.patch, patch_value as i32);
        set(attrs.priority, track.priority);
        set(attrs.vol, track.volume);
        set(attrs.extvol, args.volume);
        set(attrs.pan, args.pan);
        set(attrs.duckpri, track.duck_priority);
        set(attrs.group, track.control_group.number());
        set(attrs.looped, i32::from(looped));
        set(attrs.source, object);
        if layout == crate::registers::Layout::Tso {
            set(0x10, track.args_type);
            set(0x3F, track.hit_list.map_or(0, |h| h as i32));
            set(0x38, track.spl);
        }
        self.seq += 1;
        let entry_op = entry.unwrap_or(NONE);
        let thread = Thread {
            generation: 0,
            track: track.id,
            track_name: Arc::from(track.name.as_str()),
            event: Arc::from(event.name.as_str()),
            source,
            owners: source.into_iter().collect::<BTreeSet<_>>(),
            by_object: source.is_some(),
            voice,
            attrs,
            pc: entry_op,
            entry: entry_op,
            loop_point: entry_op,
            calls: Vec::new(),
            stack: Vec::new(),
            regs,
            zero: false,
            sign: false,
            time: now,
            state: ThreadState::Running,
            notes: Vec::new(),
            list: None,
            own_list: track.hit_list,
            own_patch: track.patch,
            simple: entry.is_none(),
            ducking: false,
            duck_gain: 1.0,
            groups: BTreeSet::new(),
            group: track.control_group,
            fuel_tick: u64::MAX,
            fuel_used: 0,
            interrupted: false,
            started_seq: self.seq,
            started_at: now,
            // Started by a running thread (play_trk): it joins that thread's chain.
            chain: self.running.and_then(|r| r.chain).map(|index| ChainRef {
                tick: self.clock.tick(),
                index,
            }),
        };
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.threads.push(None);
                self.generations.push(0);
                self.threads.len() - 1
            }
        };
        let generation = self.generations.get(index).copied().unwrap_or(0);
        let mut thread = thread;
        thread.generation = generation;
        if let Some(slot) = self.threads.get_mut(index) {
            *slot = Some(Box::new(thread));
        }
        self.voices.occupy(voice, index);
        self.voices.add_instance(track.id, index);
        self.schedule(
            now,
            Wake::Run {
                thread: index,
                generation,
            },
        );
        if self.duckers > 0 {
            self.update_ducking();
        }
        index
    }

    fn schedule(&mut self, at: SampleTime, wake: Wake) {
        self.queue.push(at, wake, &self.clock);
    }

    /// Quiets everything `object` is playing (QuietBySourceID): it stops owning each
    /// track; a track started by objects ends when its last owner goes.
    pub fn quiet(&mut self, object: ObjectId) -> usize {
        let owned: Vec<(usize, u32)> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.owners.contains(&object))
                    .map(|t| (i, t.track))
            })
            .collect();
        owned
            .into_iter()
            .map(|(_, track)| self.quiet_track(object, track))
            .sum()
    }

    /// `object` stops saying `track`; returns the number of tracks that ended.
    pub fn quiet_track(&mut self, object: ObjectId, track: u32) -> usize {
        let threads: Vec<usize> = self.voices.instances(track).to_vec();
        let mut ended = 0;
        for index in threads {
            let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
                continue;
            };
            if !th.owners.remove(&object) {
                continue;
            }
            let left: Vec<String> = th.owners.iter().map(ToString::to_string).collect();
            if left.is_empty() && th.by_object {
                let message = format!(
                    "quiet: object {object} was the last owner of `{}`: it stops",
                    th.track_name
                );
                self.record_thread(TraceKind::Voice, index, message);
                self.kill(index, "its last owner was quieted");
                ended += 1;
            } else {
                let message = format!(
                    "quiet: object {object} stops saying `{}`; it plays on for [{}]",
                    th.track_name,
                    left.join(", ")
                );
                self.record_thread(TraceKind::Voice, index, message);
            }
        }
        ended
    }

    /// Quiets everything (QuietAll); returns how many tracks ended.
    pub fn quiet_all(&mut self) -> usize {
        let all: Vec<usize> = (0..self.threads.len())
            .filter(|i| self.threads.get(*i).is_some_and(Option::is_some))
            .collect();
        if !all.is_empty() {
            self.record(
                TraceKind::Voice,
                format!("quiet all: {} track(s) stop", all.len()),
            );
        }
        for index in &all {
            self.kill(*index, "quiet all");
        }
        all.len()
    }

    /// Stops (`kill` false: lets the current notes end) or kills every copy of a track.
    pub fn stop_track_id(&mut self, track: u32, kill: bool) -> usize {
        let threads: Vec<usize> = self.voices.instances(track).to_vec();
        for index in &threads {
            if kill {
                self.kill(*index, "killed by an event");
            } else {
                self.stop_gracefully(*index);
            }
        }
        threads.len()
    }

    /// New volume and pan (0–1024 each) for everything `object` is playing.
    pub fn update_source(&mut self, object: ObjectId, volume: i32, pan: i32) -> usize {
        let mut updated = 0;
        for index in 0..self.threads.len() {
            let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
                continue;
            };
            if th.source != Some(object) {
                continue;
            }
            let (extvol, pan_reg) = (th.attrs.extvol, th.attrs.pan);
            th.set_reg(extvol, volume);
            th.set_reg(pan_reg, pan);
            updated += 1;
            let now = self.clock.now();
            self.send_levels(index, now);
        }
        updated
    }

    // ---------------------------------------------------------------------------
    // Ticking
    // ---------------------------------------------------------------------------

    /// Runs one tick: every thread and note end due before the next tick, in time order.
    pub fn tick(&mut self) {
        let end = self.clock.tick_end();
        self.queue.begin_tick(self.clock.tick(), &self.clock);
        self.chains.clear();
        self.tick_used = 0;
        let mut deferred = 0usize;
        while let Some((at, wake)) = self.queue.pop_before(end) {
            match wake {
                Wake::Run { thread, generation } if self.tick_used >= self.config.tick_fuel => {
                    // The tick's fuel is used up: the thread runs at the next tick.
                    deferred += 1;
                    self.schedule(end, Wake::Run { thread, generation });
                }
                Wake::Run { thread, generation } => self.run_thread(thread, generation, at, end),
                Wake::NoteEnd {
                    thread,
                    generation,
                    note,
                } => self.note_ended(thread, generation, note),
            }
        }
        if deferred > 0 {
            let message = format!(
                "overloaded: all tracks together ran {} instructions in one tick (the limit); {deferred} track run(s) wait for the next tick",
                self.tick_used
            );
            self.record(TraceKind::Error, message);
        }
        self.queue.end_tick(&self.clock);
        self.clock.advance();
    }

    /// Ticks until the clock reaches `time`.
    pub fn run_until(&mut self, time: SampleTime) {
        while self.clock.now() < time {
            self.tick();
        }
    }

    fn current(&self, index: usize, generation: u32) -> bool {
        self.threads
            .get(index)
            .and_then(Option::as_ref)
            .is_some_and(|t| t.generation == generation)
    }

    fn run_thread(&mut self, index: usize, generation: u32, at: SampleTime, tick_end: SampleTime) {
        if !self.current(index, generation) {
            return;
        }
        let Some(mut th) = self.threads.get_mut(index).and_then(Option::take) else {
            return;
        };
        if th.state != ThreadState::Running {
            self.put_back(index, th);
            return;
        }
        th.time = th.time.max(at);
        let ran_at = th.time;
        let tick = self.clock.tick();
        if th.fuel_tick != tick {
            th.fuel_tick = tick;
            th.fuel_used = 0;
        }
        let own_left = self.config.fuel_per_tick.saturating_sub(th.fuel_used);
        let chain = th.chain.filter(|c| c.tick == tick).map(|c| c.index);
        let chain_left = chain
            .and_then(|c| self.chains.get(c as usize))
            .map_or(u32::MAX, |c| {
                self.config.chain_fuel_per_tick.saturating_sub(c.used)
            });
        let tick_left =
            u32::try_from(self.config.tick_fuel.saturating_sub(self.tick_used)).unwrap_or(u32::MAX);
        let budget = own_left.min(chain_left).min(tick_left);
        let levels_before = levels(&th);
        let first = usize::from(FIRST_GLOBAL);
        let globals = self.program.uses_globals;
        if globals {
            th.regs[first..first + GLOBAL_COUNT].copy_from_slice(&self.globals);
        }
        let (exit, used, after) = if th.simple {
            (
                self.run_simple(index, &mut th),
                1,
                super::host::AfterRun::default(),
            )
        } else {
            let program = Arc::clone(&self.program);
            self.running = Some(Running { chain });
            let mut host = super::host::HostCtx::new(self, index);
            let (exit, used) = vm::run(&mut th, &program, &mut host, budget);
            (exit, used, host.finish())
        };
        // The chain (if the run made or joined one) pays for the run too.
        let chain = self.running.take().and_then(|r| r.chain);
        if let Some(c) = chain {
            th.chain = Some(ChainRef { tick, index: c });
            if let Some(fuel) = self.chains.get_mut(c as usize) {
                fuel.used = fuel.used.saturating_add(used);
            }
        }
        self.tick_used = self.tick_used.saturating_add(u64::from(used));
        // Out of fuel because of a shared budget, not the thread's own: the chain's
        // budget stops the chain; the tick's makes the thread go on at the next tick.
        let exit = match exit {
            Exit::Fault {
                kind: FaultKind::OutOfFuel(_),
                op,
            } if used < own_left => match chain.and_then(|c| self.chains.get(c as usize)) {
                Some(fuel) if used >= chain_left => Exit::Fault {
                    kind: FaultKind::ChainOutOfFuel {
                        used: fuel.used,
                        starts: fuel.starts,
                    },
                    op,
                },
                _ => Exit::NextTick,
            },
            other => other,
        };
        self.globals
            .copy_from_slice(&th.regs[first..first + GLOBAL_COUNT]);
        th.fuel_used = th.fuel_used.saturating_add(used);
        self.instructions += u64::from(used);
        let levels_changed = levels(&th) != levels_before;
        self.put_back(index, th);
        if after.ducking_changed {
            self.update_ducking();
        }
        if levels_changed {
            // The new levels apply from when the thread ran, not from when it wakes next.
            self.send_levels(index, ran_at);
        }
        if after.kill_self {
            self.kill(index, "its own track killed it");
            return;
        }
        if after.stop_self && matches!(exit, Exit::Sleep(_) | Exit::NextTick) {
            self.stop_gracefully(index);
            return;
        }
        match exit {
            Exit::Sleep(SampleTime::MAX) => {}
            Exit::Sleep(wake) => self.schedule(
                wake,
                Wake::Run {
                    thread: index,
                    generation,
                },
            ),
            Exit::NextTick => {
                if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                    th.time = th.time.max(tick_end);
                }
                self.schedule(
                    tick_end,
                    Wake::Run {
                        thread: index,
                        generation,
                    },
                );
            }
            Exit::Finished => {
                if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                    th.state = ThreadState::Finished;
                }
                if self.tracing(TraceKind::Track) {
                    self.record_thread(TraceKind::Track, index, "code ended".to_string());
                }
                self.finish_if_silent(index);
            }
            Exit::Fault { kind, op } => self.fault(index, &kind, op),
        }
    }

    fn put_back(&mut self, index: usize, th: Box<Thread>) {
        if let Some(slot) = self.threads.get_mut(index) {
            *slot = Some(th);
        }
    }

    /// Simple mode: play the track's sound once.
    fn run_simple(&mut self, index: usize, th: &mut Thread) -> Exit {
        let mut host = super::host::HostCtx::new(self, index);
        let result = vm::Host::note_on(&mut host, th, false);
        host.finish();
        match result {
            Ok(_) => Exit::Finished,
            Err(kind) => Exit::Fault { kind, op: NONE },
        }
    }

    fn fault(&mut self, index: usize, kind: &FaultKind, op: u32) {
        let (event, track) = self
            .threads
            .get(index)
            .and_then(Option::as_ref)
            .map(|t| (t.event.clone(), t.track_name.clone()))
            .unwrap_or_else(|| (Arc::from("?"), Arc::from("?")));
        let place = if op == NONE {
            "its sound".to_string()
        } else {
            self.where_is(op)
        };
        let stopped = if matches!(kind, FaultKind::ChainOutOfFuel { .. }) {
            "the chain is stopped"
        } else {
            "the track is stopped"
        };
        let message = format!("event `{event}`, track `{track}`, {place}: {kind}; {stopped}");
        self.record_thread(TraceKind::Error, index, message);
        let chain = self
            .threads
            .get(index)
            .and_then(Option::as_ref)
            .and_then(|t| t.chain)
            .filter(|c| c.tick == self.clock.tick());
        self.kill(index, "fault");
        if let (FaultKind::ChainOutOfFuel { .. }, Some(chain)) = (kind, chain) {
            let members = self.threads_where(index, |t| t.chain == Some(chain));
            for member in members {
                self.kill(member, "its play_trk chain was stopped");
            }
        }
    }

    fn note_ended(&mut self, index: usize, generation: u32, note: usize) {
        if !self.current(index, generation) {
            return;
        }
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        if let Some(n) = th.notes.get_mut(note) {
            n.live = false;
        }
        let playing = th.attrs.isplaying;
        let any_live = th.has_live_notes();
        th.set_reg(playing, i32::from(any_live));
        self.finish_if_silent(index);
    }

    /// Disposes of a finished thread once its last note has ended.
    fn finish_if_silent(&mut self, index: usize) {
        let done = self
            .threads
            .get(index)
            .and_then(Option::as_ref)
            .is_some_and(|t| t.state == ThreadState::Finished && !t.has_live_notes());
        if done {
            self.dispose(index, "ended");
        }
    }

    /// Stops a thread's code; its looping notes stop now, the others play out.
    fn stop_gracefully(&mut self, index: usize) {
        let now = self.clock.now();
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        th.state = ThreadState::Finished;
        let mut stops = Vec::new();
        for note in th.notes.iter_mut().filter(|n| n.live && n.end.is_none()) {
            note.live = false;
            stops.push(note.id);
        }
        for note in stops {
            self.sink.send(SoundCommand::Stop { note, at: now });
        }
        self.record_thread(
            TraceKind::Track,
            index,
            "stopped: its current notes play out".to_string(),
        );
        self.finish_if_silent(index);
    }

    /// Lets an interrupted `nc_` thread's looping notes end with their current cycle.
    fn finish_loops_at_cycle_end(&mut self, index: usize, now: SampleTime) {
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        th.state = ThreadState::Finished;
        let generation = th.generation;
        let mut ends = Vec::new();
        for (i, note) in th.notes.iter().enumerate() {
            if note.live && note.end.is_none() {
                ends.push((i, note.id));
            }
        }
        for (i, id) in ends {
            // Without a known cycle length the loop stops at the next tick.
            let at = now + (self.clock.tick_end() - now).max(1);
            self.sink.send(SoundCommand::Stop { note: id, at });
            self.schedule(
                at,
                Wake::NoteEnd {
                    thread: index,
                    generation,
                    note: i,
                },
            );
        }
        self.finish_if_silent(index);
    }

    /// Stops a thread now: its notes stop (short fade) and its voice is freed.
    pub(super) fn kill(&mut self, index: usize, why: &str) {
        let now = self.clock.now();
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        // A running thread stops at its own time; a sleeping one (whose time is its
        // future wake) stops now.
        let at = if th.time <= self.clock.tick_end() {
            th.time.max(now)
        } else {
            now
        };
        let mut stops = Vec::new();
        for note in th.notes.iter_mut().filter(|n| n.live) {
            note.live = false;
            stops.push(note.id);
        }
        for note in stops {
            self.sink.send(SoundCommand::Stop { note, at });
        }
        self.dispose(index, why);
    }

    /// Removes a thread: frees its voice (or hands it to a thread waiting on it) and its
    /// instance-map entry.
    fn dispose(&mut self, index: usize, why: &str) {
        if self.tracing(TraceKind::Track) {
            self.record_thread(TraceKind::Track, index, format!("track ends ({why})"));
        }
        let Some(th) = self.threads.get_mut(index).and_then(Option::take) else {
            return;
        };
        if let Some(generation) = self.generations.get_mut(index) {
            *generation = generation.wrapping_add(1);
        }
        self.free.push(index);
        self.voices.remove_instance(th.track, index);
        self.voices.release(th.voice, index);
        // A thread waiting for this one (interrupt handoff) takes its voice and starts.
        let now = self.clock.now();
        let waiting: Vec<usize> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.state == ThreadState::Blocked(index))
                    .map(|_| i)
            })
            .collect();
        for waiter in waiting {
            let generation = match self.threads.get_mut(waiter).and_then(Option::as_mut) {
                Some(w) => {
                    w.state = ThreadState::Running;
                    w.time = w.time.max(now);
                    w.generation
                }
                None => continue,
            };
            self.voices.occupy(th.voice, waiter);
            self.schedule(
                now,
                Wake::Run {
                    thread: waiter,
                    generation,
                },
            );
        }
        if th.ducking {
            self.update_ducking();
        }
    }

    /// Recomputes every thread's duck gain: a ducking thread lowers the threads of lower
    /// ducking priority to a fixed level by their own priority.
    pub(super) fn update_ducking(&mut self) {
        let duckers: Vec<(usize, i32)> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.ducking)
                    .map(|t| (i, t.reg(t.attrs.duckpri)))
            })
            .collect();
        let was_ducking = self.duckers > 0;
        self.duckers = duckers.len();
        if duckers.is_empty() && !was_ducking {
            return;
        }
        for index in 0..self.threads.len() {
            let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
                continue;
            };
            let own = th.reg(th.attrs.duckpri);
            let ducked = duckers.iter().any(|(d, pri)| *d != index && *pri > own);
            let gain = if ducked { duck_level(own) } else { 1.0 };
            if (gain - th.duck_gain).abs() > f32::EPSILON {
                th.duck_gain = gain;
                let message = if ducked {
                    format!(
                        "ducked to {gain:.2} (its ducking priority {own} is below a ducking track's)"
                    )
                } else {
                    "unducked".to_string()
                };
                self.record_thread(TraceKind::Voice, index, message);
                let now = self.clock.now();
                self.send_levels(index, now);
            }
        }
    }

    /// Sends the current gain and pan of a thread's live notes.
    ///
    /// `at` is when the change happens: a waiting thread's own time is when it wakes.
    pub(super) fn send_levels(&mut self, index: usize, at: SampleTime) {
        let Some(th) = self.threads.get(index).and_then(Option::as_ref) else {
            return;
        };
        if !th.has_live_notes() {
            return;
        }
        let (gain, pan) = (note_gain(th), note_pan(th));
        let at = at.max(self.clock.now());
        let ramp = u32::try_from(self.clock.ms_to_samples(RAMP_MS)).unwrap_or(u32::MAX);
        let notes: Vec<NoteId> = th.live_notes().map(|n| n.id).collect();
        for note in notes {
            self.sink.send(SoundCommand::SetGain {
                note,
                at,
                gain,
                ramp,
            });
            self.sink.send(SoundCommand::SetPan {
                note,
                at,
                pan,
                ramp,
            });
        }
    }

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
        th.notes.push(ThreadNote {
            id,
            end,
            live: true,
        });
        let handle = th.notes.len() - 1;
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

    /// Threads other than `except` matching a predicate.
    pub(super) fn threads_where(
        &self,
        except: usize,
        keep: impl Fn(&Thread) -> bool,
    ) -> Vec<usize> {
        self.threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.as_ref().filter(|t| i != except && keep(t)).map(|_| i))
            .collect()
    }
}

/// (vol, extvol, pan, duck gain) of a thread, to notice changes.
fn levels(th: &Thread) -> (i32, i32, i32, u32) {
    (
        th.reg(th.attrs.vol),
        th.reg(th.attrs.extvol),
        th.reg(th.attrs.pan),
        th.duck_gain.to_bits(),
    )
}

/// Linear gain of a thread's notes: track volume × external volume × ducking.
pub fn note_gain(th: &Thread) -> f32 {
    let scale = |v: i32| (v.clamp(0, 4096) as f32) / crate::project::FULL_VOLUME as f32;
    (scale(th.reg(th.attrs.vol)) * scale(th.reg(th.attrs.extvol)) * th.duck_gain).clamp(0.0, 4.0)
}

/// Pan of a thread's notes, −1 to 1, from the 0–1024 pan register.
pub fn note_pan(th: &Thread) -> f32 {
    ((th.reg(th.attrs.pan) as f32 - 512.0) / 512.0).clamp(-1.0, 1.0)
}

/// The level a ducked thread drops to, by its own ducking priority (the fixed gains of
/// a 2014 FreeSO version: low 0.15, normal 0.25, high 0.45, higher 0.65).
pub fn duck_level(duck_priority: i32) -> f32 {
    match duck_priority {
        i32::MIN..=10 => 0.15,
        11..=20 => 0.25,
        21..=30 => 0.45,
        31..=40 => 0.65,
        _ => 1.0,
    }
}
