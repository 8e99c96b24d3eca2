//! The live engine: a session on its own thread ("hitbench-engine"), ticking ahead of
//! the audio output's position so commands always reach the mixer before their frame.
//! The UI sends console lines and reads snapshots; a stalled UI never stalls sound, and
//! the audio thread never waits for anything.
//!
//! The project's data directories are watched ([`crate::host::reload`]): the reload thread
//! loads what changed and hands it to the engine thread, which swaps it in between two
//! ticks; the snapshot's [`ReloadStatus`] says what was reloaded and which files have
//! errors.

use crate::host::command::Command;
use crate::host::reload::{Reload, ReloadConfig, ReloadStatus, Reloader};
use crate::host::session::{Session, SessionConfig};
use crate::runtime::{ActiveTrack, TraceKind, TraceRecord, TraceSwitches};
use crate::sound::cache::{CacheStats, PreloadJob, PreloadProgress, ResourceStats};
use crate::sound::mixer::{MixerConfig, MixerSnapshot};
use crate::sound::output::{self, Output, OutputChoice};
use crate::toolchain::project::Project;
use crate::tools::inspect::{InstanceView, ThreadView, VoiceHistory, VoiceView};
use crate::world::director::WorldView;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the UI can ask of the engine thread.
#[derive(Debug)]
pub enum LiveCommand {
    /// A console line; the reply goes into the snapshot's console output.
    Line(String),
    /// A parsed command (a script's line); the reply is filed under `label`.
    Execute {
        /// How the reply is labelled (e.g. `tour.txt:3`).
        label: String,
        /// The command.
        command: Command,
    },
    /// Replace the project (reload, added directory). Its directories are watched from
    /// then on.
    Project(Box<Project>),
    /// Preload every resource whose name matches a pattern (`*` and `?` wildcards) on
    /// the cache's loader thread; progress shows in [`LiveSnapshot::preload`]. A new
    /// preload cancels the one running.
    Preload(String),
    /// Cancel the running preload.
    CancelPreload,
    /// Stop the thread.
    Stop,
}

/// What the engine thread publishes for the UI.
#[derive(Debug, Clone, Default)]
pub struct LiveSnapshot {
    /// Engine time (samples).
    pub now: u64,
    /// Tracks playing.
    pub tracks: Vec<ActiveTrack>,
    /// Voices in use / limit.
    pub voices: (usize, usize),
    /// Mixer meters and load.
    pub mixer: MixerSnapshot,
    /// Resource-cache statistics.
    pub cache: Option<CacheStats>,
    /// Notes the sound server started, found not yet loaded (cache misses), and dropped.
    pub notes: (u64, u64, u64),
    /// Trace records not yet taken by the UI.
    pub trace: Vec<TraceRecord>,
    /// Console replies not yet taken by the UI: (the line, Ok(reply) or Err(problem)).
    pub replies: Vec<(String, Result<String, String>)>,
    /// Hot reload: what is watched, the last reload, files with errors.
    pub reload: ReloadStatus,
    /// The live VM threads (event, track, PC and source line, registers).
    pub threads: Vec<ThreadView>,
    /// Every Box-X voice slot (exactly the engine's voice count).
    pub voice_slots: Vec<VoiceView>,
    /// The instance map: track → objects saying it.
    pub instances: Vec<InstanceView>,
    /// Who held each voice over the last 30 seconds, refusals and faults (shared: a new
    /// copy only when it changed).
    pub history: Arc<VoiceHistory>,
    /// The world: camera, objects with their volume and pan, stations, music, ambience.
    pub world: WorldView,
    /// Which optional traces (events, samples, tracks) the engine records now.
    pub trace_switches: TraceSwitches,
    /// Every resource the cache knows of (size, hits, loads, evictions, last use),
    /// sorted by name; refreshed when the cache statistics change.
    pub cache_resources: Vec<ResourceStats>,
    /// The last preload asked for: its progress, or how it ended.
    pub preload: Option<PreloadStatus>,
}

/// A preload's progress, for the cache panel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreloadStatus {
    /// The pattern.
    pub pattern: String,
    /// Names dealt with so far.
    pub done: usize,
    /// Names the pattern matched (0 until the loader thread starts on it).
    pub total: usize,
    /// The name dealt with last.
    pub current: String,
    /// Names that failed to load.
    pub errors: usize,
    /// It has ended (all done, cancelled or failed).
    pub finished: bool,
    /// It was cancelled before the end.
    pub cancelled: bool,
}

/// The preload the engine thread is following.
struct Preloading {
    job: PreloadJob,
    status: Arc<Mutex<PreloadStatus>>,
}

impl Preloading {
    fn start(cache: &crate::sound::cache::ResourceCache, pattern: String) -> Self {
        let status = Arc::new(Mutex::new(PreloadStatus {
            pattern: pattern.clone(),
            ..PreloadStatus::default()
        }));
        let shared = Arc::clone(&status);
        let progress = Box::new(move |step: PreloadProgress| {
            if let Ok(mut s) = shared.lock() {
                s.done = step.done;
                s.total = step.total;
                s.current = step.current;
                s.errors = step.errors;
                s.cancelled = step.cancelled;
            }
        });
        let job = cache.preload(&pattern, progress, Arc::new(AtomicBool::new(false)));
        Self { job, status }
    }

    /// The progress so far; finished once the loader thread is done with it.
    fn status(&mut self) -> PreloadStatus {
        let ended = self.job.try_wait();
        let mut status = self.status.lock().map(|s| s.clone()).unwrap_or_default();
        match ended {
            Some(Ok(summary)) => {
                status.finished = true;
                status.total = summary.total;
                status.done = summary.loaded + summary.failed;
                status.errors = summary.failed;
                status.cancelled = summary.cancelled;
            }
            Some(Err(_)) => status.finished = true,
            None => {}
        }
        status
    }
}

/// What reaches the engine thread: the UI's commands and finished reloads.
enum Message {
    Command(LiveCommand),
    Reload(Box<Reload>),
}

/// A running live engine and its audio output.
pub struct LiveEngine {
    commands: Sender<Message>,
    snapshot: Arc<Mutex<LiveSnapshot>>,
    thread: Option<JoinHandle<()>>,
    /// The output (kept here: a sound-card stream must stay on the thread that made it).
    pub output: Output,
}

impl LiveEngine {
    /// Opens the audio output (falling back to the null output), builds a session for
    /// `project` at the output's rate and starts the engine thread, watching the
    /// project's data directories with the default [`ReloadConfig`].
    pub fn start(
        project: Project,
        choice: OutputChoice,
        config: SessionConfig,
    ) -> std::io::Result<Self> {
        Self::start_with(project, choice, config, Some(ReloadConfig::default()))
    }

    /// Like [`start`](Self::start); `reload` says how to hot-reload, `None` not to watch.
    pub fn start_with(
        project: Project,
        choice: OutputChoice,
        config: SessionConfig,
        reload: Option<ReloadConfig>,
    ) -> std::io::Result<Self> {
        let (handle, output) = output::open(choice, MixerConfig::default());
        let session = Session::new(project, handle, config);
        session.server.warm_up(session.engine.project());
        let (commands, receive) = mpsc::channel();
        let mut status = ReloadStatus::default();
        let reloader = match reload {
            Some(reload_config) => {
                let deliver = commands.clone();
                let reloader = Reloader::start(
                    session.engine.project(),
                    Arc::clone(session.server.cache()),
                    reload_config,
                    move |reload| {
                        let _ = deliver.send(Message::Reload(Box::new(reload)));
                    },
                )?;
                status.watching = true;
                status.watch = reloader.watch_status().clone();
                Some(reloader)
            }
            None => None,
        };
        let snapshot = Arc::new(Mutex::new(LiveSnapshot {
            reload: status.clone(),
            ..LiveSnapshot::default()
        }));
        let shared = Arc::clone(&snapshot);
        let thread = std::thread::Builder::new()
            .name("hitbench-engine".into())
            .spawn(move || {
                run(
                    Live {
                        session,
                        reloader,
                        status,
                    },
                    &receive,
                    &shared,
                );
            })?;
        Ok(Self {
            commands,
            snapshot,
            thread: Some(thread),
            output,
        })
    }

    /// Sends a command to the engine thread (false if it has stopped).
    pub fn send(&self, command: LiveCommand) -> bool {
        self.commands.send(Message::Command(command)).is_ok()
    }

    /// Runs a console line on the engine thread.
    pub fn line(&self, line: &str) -> bool {
        self.send(LiveCommand::Line(line.to_string()))
    }

    /// Takes the latest snapshot (trace records and replies move to the caller).
    pub fn take_snapshot(&self) -> LiveSnapshot {
        match self.snapshot.lock() {
            Ok(mut s) => {
                // Take the queues first so they are moved, not copied.
                let trace = std::mem::take(&mut s.trace);
                let replies = std::mem::take(&mut s.replies);
                LiveSnapshot {
                    trace,
                    replies,
                    ..s.clone()
                }
            }
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

impl Drop for LiveEngine {
    fn drop(&mut self) {
        let _ = self.commands.send(Message::Command(LiveCommand::Stop));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Trace records the snapshot keeps if the UI does not take them (oldest dropped).
const TRACE_BACKLOG: usize = 200_000;

/// What the engine thread owns.
struct Live {
    session: Session,
    /// Stopped (with its thread) when the engine thread ends.
    reloader: Option<Reloader>,
    status: ReloadStatus,
}

fn run(live: Live, receive: &Receiver<Message>, shared: &Mutex<LiveSnapshot>) {
    let Live {
        mut session,
        reloader,
        mut status,
    } = live;
    let reload_config = reloader.as_ref().map(|r| *r.config()).unwrap_or_default();
    let rate = u64::from(session.engine.clock().sample_rate());
    let tick_rate = u64::from(session.engine.clock().tick_rate().max(1));
    // Stay two ticks ahead of what the mixer has rendered.
    let lead = 2 * rate / tick_rate;
    let period = Duration::from_millis((1000 / tick_rate / 2).max(1));
    let mut replies = Vec::new();
    let mut history = VoiceHistory::new(30 * rate, 4096);
    let mut preloading: Option<Preloading> = None;
    loop {
        let first = match receive.recv_timeout(period) {
            Ok(command) => Some(command),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        for command in first
            .into_iter()
            .chain(std::iter::from_fn(|| receive.try_recv().ok()))
        {
            match command {
                Message::Command(LiveCommand::Stop) => return,
                Message::Command(LiveCommand::Line(line)) => {
                    let result = session.run_line(&line);
                    replies.push((line, result));
                }
                Message::Command(LiveCommand::Execute { label, command }) => {
                    let result = session.execute(&command);
                    replies.push((label, result));
                }
                Message::Command(LiveCommand::Preload(pattern)) => {
                    if let Some(old) = &preloading {
                        old.job.cancel();
                    }
                    preloading = Some(Preloading::start(session.server.cache(), pattern));
                }
                Message::Command(LiveCommand::CancelPreload) => {
                    if let Some(running) = &preloading {
                        running.job.cancel();
                    }
                }
                Message::Command(LiveCommand::Project(project)) => {
                    if let Some(reloader) = &reloader {
                        reloader.set_project(&project);
                    }
                    session.record(
                        TraceKind::Reload,
                        format!(
                            "project replaced: {} data director(ies), {} problem(s)",
                            project.dirs.len(),
                            project.diagnostics.len()
                        ),
                    );
                    crate::host::session::swap_project(
                        &mut session,
                        *project,
                        reload_config.restart_tracks,
                    );
                }
                Message::Reload(reload) => {
                    status.apply(&mut session, *reload, &reload_config);
                }
            }
        }
        let audio = session.server.mixer().position();
        let mut ticks = 0;
        while session.now() < audio + lead && ticks < 64 {
            session.tick();
            ticks += 1;
        }
        if session.now() + lead < audio {
            // Far behind (the machine stalled): jump to the audio's time rather than
            // play a burst of old sounds.
            while session.now() < audio {
                session.tick();
            }
        }
        let trace = session.take_trace();
        let now = session.now();
        let voice_slots = crate::tools::inspect::voices(&session.engine);
        history.push(&trace, now);
        history.observe(&voice_slots, now);
        let threads = crate::tools::inspect::threads(&session.engine);
        let instances = crate::tools::inspect::instances(&session.engine);
        let world = session.world.view(&session.engine);
        let Ok(mut snapshot) = shared.lock() else {
            return;
        };
        snapshot.threads = threads;
        snapshot.voice_slots = voice_slots;
        snapshot.instances = instances;
        snapshot.world = world;
        snapshot.trace_switches = session.engine.trace_switches();
        if snapshot.history.version() != history.version() {
            snapshot.history = Arc::new(history.clone());
        }
        snapshot.now = session.now();
        snapshot.tracks = session.engine.active_tracks();
        snapshot.voices = (
            session.engine.voices_in_use(),
            session.engine.config().max_voices,
        );
        snapshot.mixer = session.server.mixer().controls.snapshot();
        let stats = session.server.cache().stats();
        // Every tick counts one more tick; only other changes renew the resource list.
        let changed = snapshot.cache.as_ref().is_none_or(|old| {
            old != &CacheStats {
                ticks: old.ticks,
                ..stats.clone()
            }
        });
        if changed {
            snapshot.cache_resources = session.server.cache().resource_stats();
        }
        snapshot.cache = Some(stats);
        snapshot.preload = preloading.as_mut().map(Preloading::status);
        snapshot.notes = session.server.counts();
        snapshot.trace.extend(trace);
        let excess = snapshot.trace.len().saturating_sub(TRACE_BACKLOG);
        if excess > 0 {
            snapshot.trace.drain(..excess);
        }
        snapshot.replies.append(&mut replies);
        if snapshot.reload.applied != status.applied
            || snapshot.reload.watch != status.watch
            || snapshot.reload.errors != status.errors
        {
            snapshot.reload = status.clone();
        }
    }
}
