//! The `hitbench-engine` thread's loop: take the UI's commands and finished reloads,
//! tick the session until it is two ticks ahead of what the mixer has rendered, then
//! publish a snapshot (inspection views, meters, cache, trace, replies, reload state).

use super::capturing::{CaptureStatus, Capturing};
use super::preload::Preloading;
use super::{LiveCommand, LiveSnapshot, Message, Reply, SharedWaker};
use crate::host::command::{self, Command};
use crate::host::reload::{ReloadConfig, ReloadStatus, Reloader};
use crate::host::session::Session;
use crate::runtime::{SampleTime, TraceRecord};
use crate::sound::cache::CacheStats;
use crate::toolchain::project::Project;
use crate::tools::inspect::{self, VoiceHistory, VoiceOccupant, VoiceView, WorldOccupant};
use std::ops::ControlFlow;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Trace records the snapshot keeps if the UI does not take them (oldest dropped).
const TRACE_BACKLOG: usize = 200_000;

/// True if a slot changed hands, priority, gain or pan: what a window shows of the
/// slots besides the time they have been held (which moves every tick).
fn slots_changed(old: &[VoiceView], new: &[VoiceView]) -> bool {
    let timeless = |v: &VoiceView| VoiceView {
        occupant: v.occupant.as_ref().map(|o| VoiceOccupant {
            elapsed: 0,
            ..o.clone()
        }),
        world: v.world.as_ref().map(|w| WorldOccupant {
            elapsed: 0,
            ..w.clone()
        }),
        ..v.clone()
    };
    old.len() != new.len() || old.iter().zip(new).any(|(a, b)| timeless(a) != timeless(b))
}

/// How often the engine publishes a snapshot when no command asks for one sooner.
const PUBLISH_INTERVAL: Duration = Duration::from_millis(100);

/// The shortest time between two wakes of the window for news someone is waiting for
/// (a reply, a voice taken or freed, a pause): four times a second, what a person
/// follows — a frame painted without a GPU is not free.
const WAKE_INTERVAL: Duration = Duration::from_millis(250);

/// The shortest time between two wakes for the world going on by itself (the
/// ambience's picks and their trace records): a window at rest stays at rest.
const BACKGROUND_WAKE_INTERVAL: Duration = Duration::from_secs(5);

/// Ticks the engine may run at once to catch up with the audio before it publishes.
const MAX_CATCH_UP_TICKS: u32 = 64;

/// How far ahead of the audio the session runs and how long the thread waits between two
/// looks at the audio's position: two ticks ahead and a look every tick, or, when the
/// output takes larger blocks (the null output's 40 ms), a tick more than a block ahead
/// and a look every block. Each wake of a thread costs more than the tick it runs when
/// little plays, and the lead covers the audio moving on between two looks.
fn pacing(rate: u64, tick_rate: u64, block: Option<u64>) -> (u64, Duration) {
    let tick = (rate / tick_rate.max(1)).max(1);
    let lead = (2 * tick).max(block.unwrap_or(0) + tick);
    let period_frames = lead - tick;
    let period = Duration::from_secs_f64(period_frames as f64 / rate.max(1) as f64);
    (lead, period.max(Duration::from_millis(1)))
}

/// What the engine thread owns.
pub(super) struct EngineThread {
    session: Session,
    /// Stopped (with its thread) when the engine thread ends.
    reloader: Option<Reloader>,
    status: ReloadStatus,
    reload_config: ReloadConfig,
    /// How far ahead of the mixer's position the session runs (two ticks, or a tick more
    /// than the output's block).
    lead: u64,
    /// How long to wait for a message between two looks at the audio's position.
    period: Duration,
    /// Replies not yet published.
    replies: Vec<Reply>,
    history: VoiceHistory,
    preloading: Option<Preloading>,
    /// The capture being written, and where the last one stands.
    capturing: Option<Capturing>,
    capture: CaptureStatus,
    /// Called when a snapshot has news for the window.
    waker: SharedWaker,
    /// When the window was last woken.
    last_wake: Option<Instant>,
    /// News not yet told (the last wake was too recent).
    wake_pending: bool,
    /// Background news not yet told.
    background_pending: bool,
}

impl EngineThread {
    /// The thread's state for `session`, following `reloader` when there is one.
    pub(super) fn new(
        session: Session,
        reloader: Option<Reloader>,
        status: ReloadStatus,
        waker: SharedWaker,
        output_block: Option<u32>,
    ) -> Self {
        let reload_config = reloader.as_ref().map(|r| *r.config()).unwrap_or_default();
        let rate = u64::from(session.engine.clock().sample_rate());
        let tick_rate = u64::from(session.engine.clock().tick_rate().max(1));
        let (lead, period) = pacing(rate, tick_rate, output_block.map(u64::from));
        Self {
            session,
            reloader,
            status,
            reload_config,
            lead,
            period,
            replies: Vec::new(),
            history: VoiceHistory::new(30 * rate, 4096),
            preloading: None,
            capturing: None,
            capture: CaptureStatus::Off,
            waker,
            last_wake: None,
            wake_pending: false,
            background_pending: false,
        }
    }

    /// Runs until told to stop, or until the UI side is gone.
    pub(super) fn run(mut self, receive: &Receiver<Message>, shared: &Mutex<LiveSnapshot>) {
        let mut published = Instant::now();
        loop {
            let first = match receive.recv_timeout(self.period) {
                Ok(message) => Some(message),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    self.stop_capture();
                    return;
                }
            };
            let mut handled = false;
            for message in first
                .into_iter()
                .chain(std::iter::from_fn(|| receive.try_recv().ok()))
            {
                handled = true;
                if self.handle(message).is_break() {
                    self.stop_capture();
                    return;
                }
            }
            self.catch_up();
            // A command's reply goes out at once; otherwise a snapshot every
            // PUBLISH_INTERVAL is all a window can show.
            if handled || published.elapsed() >= PUBLISH_INTERVAL {
                published = Instant::now();
                if self.publish(shared).is_break() {
                    return;
                }
            }
        }
    }

    /// Carries out one message; `Break` to stop the thread.
    fn handle(&mut self, message: Message) -> ControlFlow<()> {
        match message {
            Message::Command(LiveCommand::Stop) => return ControlFlow::Break(()),
            Message::Command(LiveCommand::Line(line)) => {
                if matches!(command::parse(&line), Ok(Some(_))) {
                    self.capture_input(line.clone());
                }
                let at = self.session.now();
                let result = self.session.run_line(&line);
                self.replies.push(Reply { line, result, at });
            }
            Message::Command(LiveCommand::Execute { label, command }) => {
                self.capture_input(command.to_string());
                let at = self.session.now();
                let result = match &command {
                    // Swapped in here, so the reload watcher watches the folders too.
                    Command::Plugin { add, dir } => {
                        self.session
                            .plugin_project(*add, dir)
                            .map(|(project, said)| {
                                self.replace_project(project);
                                said
                            })
                    }
                    _ => self.session.execute(&command),
                };
                self.replies.push(Reply {
                    line: label,
                    result,
                    at,
                });
            }
            Message::Command(LiveCommand::StartCapture { writer, path }) => {
                self.stop_capture();
                match Capturing::start(*writer, path, &mut self.session) {
                    Ok((capturing, status)) => {
                        self.capturing = Some(capturing);
                        self.capture = status;
                    }
                    Err(status) => self.capture = status,
                }
            }
            Message::Command(LiveCommand::StopCapture) => self.stop_capture(),
            Message::Command(LiveCommand::Preload(pattern)) => {
                if let Some(old) = &self.preloading {
                    old.job.cancel();
                }
                self.preloading = Some(Preloading::start(self.session.server.cache(), pattern));
            }
            Message::Command(LiveCommand::CancelPreload) => {
                if let Some(running) = &self.preloading {
                    running.job.cancel();
                }
            }
            Message::Command(LiveCommand::Project(project)) => self.replace_project(*project),
            Message::Reload(reload) => {
                self.status
                    .apply(&mut self.session, *reload, &self.reload_config);
            }
        }
        ControlFlow::Continue(())
    }

    /// Writes a command about to run into the capture, if one runs.
    fn capture_input(&mut self, line: String) {
        if let Some(capturing) = &mut self.capturing
            && let Err(status) = capturing.input(&self.session, line)
        {
            self.capture_failed(status);
        }
    }

    /// Ends the capture running, if any, and says how it went.
    fn stop_capture(&mut self) {
        if let Some(capturing) = self.capturing.take() {
            self.capture = capturing.stop(&mut self.session);
        }
    }

    /// A write failed: the capture stops there.
    fn capture_failed(&mut self, status: CaptureStatus) {
        if let Some(capturing) = self.capturing.take() {
            capturing.abandon(&mut self.session);
        }
        self.capture = status;
    }

    /// Ticks the session once, and writes a keyframe into the capture when one is due.
    fn tick(&mut self) {
        self.session.tick();
        if let Some(capturing) = &mut self.capturing
            && let Err(status) = capturing.after_tick(&self.session)
        {
            self.capture_failed(status);
        }
    }

    /// Swaps a new project in (reload, a plug-in folder added or removed) and watches its
    /// directories.
    fn replace_project(&mut self, project: Project) {
        if let Some(reloader) = &self.reloader {
            reloader.set_project(&project);
        }
        crate::host::session::replace_project(
            &mut self.session,
            project,
            self.reload_config.restart_tracks,
        );
    }

    /// Ticks until the session is `lead` ahead of the audio (at most
    /// [`MAX_CATCH_UP_TICKS`] at once); far behind, it jumps to the audio's time.
    fn catch_up(&mut self) {
        // Paused by the debugger: the mixer holds too (silent, standing still); both go
        // on together when the debugger lets the engine go.
        if self.hold_while_paused() {
            return;
        }
        let audio = SampleTime::from_samples(self.session.server.mixer().position());
        let mut ticks = 0;
        while self.session.now() < audio + self.lead && ticks < MAX_CATCH_UP_TICKS {
            self.tick();
            ticks += 1;
            if self.hold_while_paused() {
                return;
            }
        }
        if self.session.now() + self.lead < audio {
            // Far behind (the machine stalled): jump to the audio's time rather than
            // play a burst of old sounds.
            while self.session.now() < audio {
                self.tick();
                if self.hold_while_paused() {
                    return;
                }
            }
        }
    }

    /// Holds the mixer while the debugger holds the engine paused (and lets it go when
    /// not); true while paused.
    fn hold_while_paused(&self) -> bool {
        let paused = self.session.engine.paused().is_some();
        self.session
            .server
            .mixer()
            .controls
            .hold
            .store(paused, std::sync::atomic::Ordering::Release);
        paused
    }

    /// Publishes what happened since the last snapshot; `Break` if the snapshot's lock
    /// is poisoned (the UI side panicked).
    fn publish(&mut self, shared: &Mutex<LiveSnapshot>) -> ControlFlow<()> {
        let trace = self.session.take_trace();
        if let Some(capturing) = &mut self.capturing
            && let Err(status) = capturing.records(&trace)
        {
            self.capture_failed(status);
        }
        let now = self.session.now();
        let engine = &self.session.engine;
        let voice_slots = inspect::voices(engine);
        self.history.push(&trace, now);
        self.history.observe(&voice_slots, now);
        let threads = inspect::threads(engine);
        let instances = inspect::instances(engine);
        let world = self.session.world.view(engine);
        let Ok(mut snapshot) = shared.lock() else {
            return ControlFlow::Break(());
        };
        let debug = engine.debug_view();
        let tracks = engine.active_tracks();
        let voices = (engine.voices_in_use(), engine.config().max_voices);
        // What a window shows changed (the clock and the meters aside: a window that
        // shows those moving asks for its own repaints). What someone did or is
        // waiting for is told at once; the world going on by itself (the ambience's
        // picks, their records) now and then.
        let prompt = !self.replies.is_empty()
            || snapshot.threads != threads
            || slots_changed(&snapshot.voice_slots, &voice_slots)
            || snapshot.instances != instances
            || snapshot.debug != debug
            || snapshot.tracks != tracks
            || snapshot.voices != voices
            || snapshot.trace_switches != engine.trace_switches()
            || snapshot.controlled != self.session.controlled
            || snapshot.monitor != *self.session.server.monitor();
        let mut background = !trace.is_empty()
            || snapshot.world != world
            || snapshot.history.version() != self.history.version();
        snapshot.threads = threads;
        snapshot.voice_slots = voice_slots;
        snapshot.instances = instances;
        snapshot.world = world;
        snapshot.controlled = self.session.controlled;
        snapshot.trace_switches = engine.trace_switches();
        snapshot.monitor.clone_from(self.session.server.monitor());
        if snapshot.history.version() != self.history.version() {
            snapshot.history = Arc::new(self.history.clone());
        }
        snapshot.now = now;
        snapshot.debug = debug;
        snapshot.tracks = tracks;
        snapshot.voices = voices;
        let controls = &self.session.server.mixer().controls;
        snapshot.mixer = controls.snapshot();
        snapshot.voice_levels = inspect::slot_levels(&self.session.engine, &controls.note_levels());
        let (cache, progress) = self.publish_cache(&mut snapshot);
        background |= cache;
        let prompt = self.publish_news(&mut snapshot, trace) || progress || prompt;
        drop(snapshot);
        self.wake(prompt, background);
        ControlFlow::Continue(())
    }

    /// Tells the window there is news: `prompt` news at most every [`WAKE_INTERVAL`],
    /// `background` news at most every [`BACKGROUND_WAKE_INTERVAL`]; news held back goes
    /// out at the first publish after that.
    fn wake(&mut self, prompt: bool, background: bool) {
        self.wake_pending |= prompt;
        self.background_pending |= background;
        let since = self.last_wake.map(|at| at.elapsed());
        let due = |interval| since.is_none_or(|s| s >= interval);
        let wake = (self.wake_pending && due(WAKE_INTERVAL))
            || (self.background_pending && due(BACKGROUND_WAKE_INTERVAL));
        if !wake {
            return;
        }
        let waker = match self.waker.lock() {
            Ok(w) => w.clone(),
            Err(_) => None,
        };
        if let Some(waker) = waker {
            waker();
            self.last_wake = Some(Instant::now());
            self.wake_pending = false;
            self.background_pending = false;
        }
    }

    /// The cache's statistics, the resource list when they changed, the preload and the
    /// capture; says whether the statistics changed (besides the tick count) and
    /// whether the preload or the capture moved on.
    fn publish_cache(&mut self, snapshot: &mut LiveSnapshot) -> (bool, bool) {
        let cache = self.session.server.cache();
        let stats = cache.stats();
        // Every tick counts one more tick; only other changes renew the resource list.
        let changed = snapshot.cache.as_ref().is_none_or(|old| {
            old != &CacheStats {
                ticks: old.ticks,
                ..stats.clone()
            }
        });
        if changed {
            snapshot.cache_resources = cache.resource_stats();
        }
        snapshot.cache = Some(stats);
        let preload = self.preloading.as_mut().map(Preloading::status);
        let mut progress = snapshot.preload != preload;
        snapshot.preload = preload;
        if snapshot.capture != self.capture {
            snapshot.capture = self.capture.clone();
            progress = true;
        }
        let notes = self.session.server.counts();
        let news = changed || snapshot.notes != notes;
        snapshot.notes = notes;
        (news, progress)
    }

    /// The new trace records (at most [`TRACE_BACKLOG`] kept), replies and reload state;
    /// true if the reload state changed.
    fn publish_news(&mut self, snapshot: &mut LiveSnapshot, trace: Vec<TraceRecord>) -> bool {
        snapshot.trace.extend(trace);
        let excess = snapshot.trace.len().saturating_sub(TRACE_BACKLOG);
        if excess > 0 {
            snapshot.trace.drain(..excess);
        }
        snapshot.replies.append(&mut self.replies);
        let reload = &snapshot.reload;
        if reload.applied != self.status.applied
            || reload.noticed != self.status.noticed
            || reload.watch != self.status.watch
            || reload.errors != self.status.errors
        {
            snapshot.reload = self.status.clone();
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_stays_a_tick_ahead_of_the_output_between_two_looks() {
        // A sound card: two ticks ahead, a look every tick.
        let (lead, period) = pacing(48_000, 60, None);
        assert_eq!(lead, 1600);
        assert_eq!(period, Duration::from_secs_f64(800.0 / 48_000.0));
        // The null output's 40 ms blocks: a block and a tick ahead, a look every block.
        let (lead, period) = pacing(48_000, 60, Some(1920));
        assert_eq!(lead, 1920 + 800);
        assert_eq!(period, Duration::from_millis(40));
        // A block smaller than a tick changes nothing.
        assert_eq!(pacing(48_000, 60, Some(256)), pacing(48_000, 60, None));
    }
}
