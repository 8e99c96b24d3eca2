//! The live engine: a session on its own thread ("hitbench-engine"), ticking ahead of
//! the audio output's position so commands always reach the mixer before their frame.
//! The UI sends console lines and reads snapshots; a stalled UI never stalls sound, and
//! the audio thread never waits for anything.
//!
//! The project's data directories are watched ([`crate::host::reload`]): the reload thread
//! loads what changed and hands it to the engine thread, which swaps it in between two
//! ticks; the snapshot's [`ReloadStatus`] says what was reloaded and which files have
//! errors.

use crate::host::capture::{self, CaptureError, CaptureWriter, Header};
use crate::host::command::Command;
use crate::host::reload::{Reload, ReloadConfig, ReloadStatus, Reloader};
use crate::host::session::{Session, SessionConfig};
use crate::runtime::{ActiveTrack, SampleTime, TraceRecord, TraceSwitches};
use crate::sound::cache::{CacheStats, ResourceStats};
use crate::sound::mixer::{MixerConfig, MixerSnapshot};
use crate::sound::output::{self, Output, OutputChoice};
use crate::toolchain::project::Project;
use crate::tools::inspect::{InstanceView, ThreadView, VoiceHistory, VoiceView};
use crate::world::director::WorldView;
pub use capturing::CaptureStatus;
use engine_thread::EngineThread;
pub use preload::PreloadStatus;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

mod capturing;
mod engine_thread;
mod preload;

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
    /// Start capturing into a capture file whose header is written (a capture running
    /// is ended first); [`LiveEngine::start_capture`] makes one. Where it stands shows
    /// in [`LiveSnapshot::capture`].
    StartCapture {
        /// The file's writer.
        writer: Box<CaptureWriter>,
        /// The file.
        path: PathBuf,
    },
    /// End the capture running, if any.
    StopCapture,
    /// Stop the thread.
    Stop,
}

/// What the engine thread publishes for the UI.
/// A console line the engine ran, and its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The line (or a panel command's label).
    pub line: String,
    /// The reply the console prints, or the problem.
    pub result: Result<String, String>,
    /// The engine's sample time when it ran.
    pub at: SampleTime,
}

#[derive(Debug, Clone, Default)]
pub struct LiveSnapshot {
    /// Engine time (samples).
    pub now: SampleTime,
    /// The track debugger: breakpoints, and where the engine is paused.
    pub debug: crate::runtime::debug::DebugView,
    /// Tracks playing.
    pub tracks: Vec<ActiveTrack>,
    /// Voices in use / limit.
    pub voices: (usize, usize),
    /// Mixer meters and load.
    pub mixer: MixerSnapshot,
    /// What is muted and soloed (`mute`, `solo`).
    pub monitor: crate::sound::server::MonitorState,
    /// How loud each Box-X slot plays now (linear; `tools::inspect::slot_levels`).
    pub voice_levels: Vec<f32>,
    /// Resource-cache statistics.
    pub cache: Option<CacheStats>,
    /// Notes the sound server started, found not yet loaded (cache misses), and dropped.
    pub notes: (u64, u64, u64),
    /// Trace records not yet taken by the UI.
    pub trace: Vec<TraceRecord>,
    /// Console replies not yet taken by the UI, in the order the lines ran.
    pub replies: Vec<Reply>,
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
    /// The controlled character: the source of `sev` without `@object`.
    pub controlled: Option<crate::world::ObjectId>,
    /// Which optional traces (events, samples, tracks) the engine records now.
    pub trace_switches: TraceSwitches,
    /// Every resource the cache knows of (size, hits, loads, evictions, last use),
    /// sorted by name; refreshed when the cache statistics change.
    pub cache_resources: Vec<ResourceStats>,
    /// The last preload asked for: its progress, or how it ended.
    pub preload: Option<PreloadStatus>,
    /// The capture running, or how the last one ended.
    pub capture: CaptureStatus,
}

/// What the engine thread calls when a snapshot has news for the window (a window that
/// repaints only when something changed wakes up here).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// The waker, set by the window once it has one.
type SharedWaker = Arc<Mutex<Option<Waker>>>;

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
    /// What a capture's header says of this engine (the files are hashed when it starts).
    header: Header,
    /// What the engine thread calls when there is news.
    waker: SharedWaker,
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
        let dirs = capture::stored_dirs(&project.dirs);
        let session = Session::new(project, handle, config);
        let header = Header {
            format: capture::FORMAT.to_string(),
            version: capture::VERSION,
            dirs,
            seed: config.engine.seed,
            sample_rate: output.sample_rate,
            voices: config.engine.max_voices,
            cache_budget: session.server.cache().budget(),
            files: Vec::new(),
        };
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
        let waker = SharedWaker::default();
        let thread_waker = Arc::clone(&waker);
        let block = output.block_frames;
        let thread = std::thread::Builder::new()
            .name("hitbench-engine".into())
            .spawn(move || {
                EngineThread::new(session, reloader, status, thread_waker, block)
                    .run(&receive, &shared);
            })?;
        Ok(Self {
            commands,
            snapshot,
            thread: Some(thread),
            output,
            header,
            waker,
        })
    }

    /// Has the engine thread call `waker` whenever a snapshot has news for a window
    /// (trace records, replies, voices, tracks, threads, the world, the cache, reloads —
    /// not the clock or the meters), at most ten times a second.
    pub fn set_waker(&self, waker: Waker) {
        if let Ok(mut slot) = self.waker.lock() {
            *slot = Some(waker);
        }
    }

    /// Starts capturing into the file at `path`: creates it and writes its header (the
    /// settings, and the hash of every project file, computed here), then has the
    /// engine thread write every command, record and keyframe from now on. An error
    /// (the file cannot be created) names the file.
    pub fn start_capture(&self, path: &Path) -> Result<(), CaptureError> {
        let header = Header {
            files: capture::hash_files(&self.header.dirs),
            ..self.header.clone()
        };
        let writer = CaptureWriter::create(path, &header)?;
        self.send(LiveCommand::StartCapture {
            writer: Box::new(writer),
            path: path.to_path_buf(),
        });
        Ok(())
    }

    /// Sends a command to the engine thread (false if it has stopped).
    pub fn send(&self, command: LiveCommand) -> bool {
        self.commands.send(Message::Command(command)).is_ok()
    }

    /// Runs a console line on the engine thread.
    pub fn line(&self, line: &str) -> bool {
        self.send(LiveCommand::Line(line.to_string()))
    }

    /// Runs a command on the engine thread without going through text; its reply is
    /// filed under its console line (`command.to_string()`, which parses back to the
    /// same command), as if it had been typed.
    pub fn run(&self, command: Command) -> bool {
        let label = command.to_string();
        self.send(LiveCommand::Execute { label, command })
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
