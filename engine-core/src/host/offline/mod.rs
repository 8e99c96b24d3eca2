//! Offline rendering: a project, a timed script of console commands, and the mixer run
//! in lock-step as fast as the machine allows, written to a WAV file. Loads are
//! synchronous and everything runs on sample time, so the same project, script and seed
//! give a bit-identical file.
//!
//! A render longer than a WAV file can hold ([`WAV_MAX_FRAMES`]) is refused before it
//! starts, with the size it would have had; a write that fails (a full disk) ends it with
//! an error naming the file, and the unfinished file is deleted.
//!
//! With [`RenderOptions::loudness`] every block written also goes through a
//! [`LoudnessMeter`], whose figures come back in the report.
//!
//! A render can be watched and cancelled: [`Taps::progress`] is called as it goes with
//! the frames done and the frames to do, and a render it answers [`Flow::Cancel`] stops
//! there with [`RenderError::Cancelled`] (the unfinished file deleted; a file that was
//! at the output stays as it was: the WAV follows the output rule, `fsrules::output`).
//!
//! A script's `why` lines are answered here, not by the session (the engine keeps no
//! history): the records about their subjects are kept as the render goes
//! ([`WhyLog`](crate::tools::why::WhyLog)), and a `why` line's log entry is the explanation of its subject's latest
//! decisions so far.

use crate::host::command::TimedCommand;
use crate::host::keyframe::{Keyframe, Keyframer};
use crate::host::session::{SaveLotPolicy, Session, SessionConfig};
use crate::runtime::{EngineConfig, SampleTime, TraceRecord, TraceSwitches};
use crate::sound::mixer::{Mixer, MixerConfig, MixerControls, mixer};
use crate::sound::output::{
    Loudness, LoudnessError, LoudnessMeter, WAV_MAX_FRAMES, WavError, WavWriter, wav_file_bytes,
};
use crate::sound::server::ServerConfig;
use crate::toolchain::project::Project;
use std::path::{Path, PathBuf};

/// The Box-X voice limits a session takes (`--voices`, `set voices`, a capture's
/// header).
pub const VOICE_LIMITS: std::ops::RangeInclusive<usize> = 1..=crate::runtime::engine::MAX_VOICES;

/// The sample rates a render takes, in Hz (`--rate`, a capture's header).
pub const SAMPLE_RATES: std::ops::RangeInclusive<u32> = 8_000..=192_000;

/// How to render.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    /// Output frames per second.
    pub sample_rate: u32,
    /// Random seed.
    pub seed: u64,
    /// Seconds rendered after the last command (for the sounds to play out).
    pub tail_seconds: f64,
    /// Total length in seconds (overrides the tail when given).
    pub duration: Option<f64>,
    /// Whether, and where, the script's `savelot` may write (by default nowhere).
    pub save_lot: SaveLotPolicy,
    /// Whether to measure the output's loudness and true peak ([`RenderReport::loudness`]).
    pub loudness: bool,
    /// Box-X voice limit.
    pub voices: usize,
    /// The resource cache's budget in bytes (`--cache-mb`); `None`: `world.ini [Cache]
    /// BudgetMB`, else the default.
    pub cache_budget: Option<usize>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            sample_rate: 48_000,
            seed: 0,
            tail_seconds: 3.0,
            duration: None,
            save_lot: SaveLotPolicy::Denied,
            loudness: false,
            voices: EngineConfig::default().max_voices,
            cache_budget: None,
        }
    }
}

/// What a render did.
#[derive(Debug, Clone)]
pub struct RenderReport {
    /// Frames written.
    pub frames: u64,
    /// Seconds written.
    pub seconds: f64,
    /// One line per command: its time, the command line and what happened.
    pub log: Vec<String>,
    /// Everything the engine and the server traced ([`render`]; empty from
    /// [`render_with`], which hands the records over as they come).
    pub trace: Vec<TraceRecord>,
    /// Notes started, cache misses, notes dropped.
    pub started: u64,
    /// Notes dropped.
    pub dropped: u64,
    /// Largest absolute sample value.
    pub peak: f32,
    /// The output's loudness and peaks (EBU R 128), when [`RenderOptions::loudness`] asked.
    pub loudness: Option<Loudness>,
    /// The script's `savelot` lines that could not save, each `line N: why`: what the
    /// user asked to keep was not kept.
    pub failed_saves: Vec<String>,
}

/// Why a render failed. Each names the output file.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The render would be longer than a WAV file can hold; nothing was written.
    #[error(
        "cannot render to {}: {seconds} s at {rate} Hz would be a {bytes}-byte WAV file, more \
         than the format holds (4 GiB: {max_seconds:.0} s at this rate); render less with --duration",
        path.display()
    )]
    TooLong {
        /// The output file.
        path: PathBuf,
        /// The length asked for.
        seconds: f64,
        /// Frames per second.
        rate: u32,
        /// The size the file would have had.
        bytes: u64,
        /// The longest render a WAV file holds at this rate.
        max_seconds: f64,
    },
    /// Creating or writing the WAV file failed (the unfinished file is deleted).
    #[error(transparent)]
    Wav(#[from] WavError),
    /// A run without a file asked for no end.
    #[error("a run of {seconds} s never ends; give a duration")]
    Endless {
        /// The length asked for.
        seconds: f64,
    },
    /// The progress callback cancelled the render; the unfinished file is deleted.
    #[error("the render to {} was cancelled after {seconds:.1} s; nothing was written", path.display())]
    Cancelled {
        /// The output file.
        path: PathBuf,
        /// Seconds rendered when it stopped.
        seconds: f64,
    },
    /// The loudness meter cannot measure this output (a sample rate it does not take).
    #[error("cannot render to {}: {source}", path.display())]
    Loudness {
        /// The output file.
        path: PathBuf,
        /// Why.
        source: LoudnessError,
    },
}

/// Renders `script` against `project` into the WAV file `out`, keeping every trace
/// record in the report.
pub fn render(
    project: Project,
    script: &[TimedCommand],
    out: &Path,
    options: RenderOptions,
) -> Result<RenderReport, RenderError> {
    let mut trace = Vec::new();
    let mut report = render_with(project, script, out, options, &mut |r| trace.push(r))?;
    report.trace = trace;
    Ok(report)
}

/// The frames a render of `options` lasts, or why it cannot be written to `out`.
fn length(
    script: &[TimedCommand],
    out: &Path,
    options: &RenderOptions,
) -> Result<u64, RenderError> {
    let (seconds, frames) = seconds_and_frames(script, options);
    let rate = f64::from(options.sample_rate.max(1));
    if !frames.is_finite() || frames.round() > WAV_MAX_FRAMES as f64 {
        return Err(RenderError::TooLong {
            path: out.to_path_buf(),
            seconds,
            rate: options.sample_rate,
            bytes: wav_file_bytes(frames.round() as u64),
            max_seconds: WAV_MAX_FRAMES as f64 / rate,
        });
    }
    Ok(frames.round() as u64)
}

/// How long a run lasts, in seconds and in frames: the duration asked for, else the last
/// command plus the tail.
fn seconds_and_frames(script: &[TimedCommand], options: &RenderOptions) -> (f64, f64) {
    let rate = f64::from(options.sample_rate.max(1));
    let last = script.last().map_or(0.0, |c| c.time);
    let seconds = options
        .duration
        .unwrap_or(last + options.tail_seconds)
        .max(0.0);
    (seconds, seconds * rate)
}

/// The frames of a run that writes no file (a replay, a QA script): no WAV file's size
/// limits it, only that it ends.
fn length_without_file(
    script: &[TimedCommand],
    options: &RenderOptions,
) -> Result<u64, RenderError> {
    let (seconds, frames) = seconds_and_frames(script, options);
    if !frames.is_finite() || frames.round() >= u64::MAX as f64 {
        return Err(RenderError::Endless { seconds });
    }
    Ok(frames.round() as u64)
}

/// Renders `script` against `project` into the WAV file `out`, handing every trace record
/// to `on_record` as it happens (so a long render keeps none in memory). The log and
/// counts come back in the report. On an error the unfinished file is deleted.
pub fn render_with(
    project: Project,
    script: &[TimedCommand],
    out: &Path,
    options: RenderOptions,
    on_record: &mut dyn FnMut(TraceRecord),
) -> Result<RenderReport, RenderError> {
    render_tapped(project, script, out, options, Taps::records(on_record))
}

/// Renders as [`render_with`] does, and also hands a [`Keyframe`] of the session to
/// `on_keyframe` every [`KEYFRAME_SECONDS`](crate::host::keyframe::KEYFRAME_SECONDS) of
/// sample time and at the end (for a capture).
pub fn render_with_keyframes(
    project: Project,
    script: &[TimedCommand],
    out: &Path,
    options: RenderOptions,
    on_record: &mut dyn FnMut(TraceRecord),
    on_keyframe: &mut dyn FnMut(Keyframe),
) -> Result<RenderReport, RenderError> {
    let taps = Taps {
        record: on_record,
        keyframe: Some(on_keyframe),
        progress: None,
    };
    render_tapped(project, script, out, options, taps)
}

/// How far a render has got: what a progress callback is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderProgress {
    /// Frames rendered so far.
    pub frames: u64,
    /// Frames the render will have when it is done.
    pub total_frames: u64,
}

impl RenderProgress {
    /// The share done, 0–1 (1 for an empty render).
    pub fn fraction(&self) -> f64 {
        if self.total_frames == 0 {
            1.0
        } else {
            (self.frames as f64 / self.total_frames as f64).min(1.0)
        }
    }
}

/// What a progress callback answers: go on, or stop the render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on rendering.
    Continue,
    /// Stop: the render ends with [`RenderError::Cancelled`].
    Cancel,
}

/// Where a run's trace records go, its keyframes when they are wanted, and who watches
/// its progress.
pub struct Taps<'a> {
    /// Every trace record, as it comes.
    pub record: &'a mut dyn FnMut(TraceRecord),
    /// A [`Keyframe`] of the session every
    /// [`KEYFRAME_SECONDS`](crate::host::keyframe::KEYFRAME_SECONDS) and at the end.
    pub keyframe: Option<&'a mut dyn FnMut(Keyframe)>,
    /// Called after every engine tick's frames with how far the render has got (about
    /// 60 times per rendered second; cheap callbacks rate-limit themselves); answering
    /// [`Flow::Cancel`] stops the render.
    pub progress: Option<&'a mut dyn FnMut(RenderProgress) -> Flow>,
}

impl<'a> Taps<'a> {
    /// Records to `record`; no keyframes, no progress.
    pub fn records(record: &'a mut dyn FnMut(TraceRecord)) -> Self {
        Self {
            record,
            keyframe: None,
            progress: None,
        }
    }
}

/// Renders as [`render_with`] does, with every tap: records, keyframes when asked for,
/// and a progress callback that may cancel the render.
pub fn render_tapped(
    project: Project,
    script: &[TimedCommand],
    out: &Path,
    options: RenderOptions,
    taps: Taps<'_>,
) -> Result<RenderReport, RenderError> {
    let total_frames = length(script, out, &options)?;
    let meter = options
        .loudness
        .then(|| LoudnessMeter::new(2, options.sample_rate))
        .transpose()
        .map_err(|source| RenderError::Loudness {
            path: out.to_path_buf(),
            source,
        })?;
    let writer = WavWriter::create(out, options.sample_rate)?;
    let mut output = Output {
        path: out.to_path_buf(),
        writer: Some(writer),
        meter,
        frames: 0,
    };
    let result = run(
        project,
        options,
        total_frames,
        &mut output,
        Commands::new(script, taps.record),
        Watch {
            keyframe: taps.keyframe,
            progress: taps.progress,
        },
    )
    .and_then(|report| match output.writer.take() {
        Some(writer) => Ok(writer.finish().map(|_| report)?),
        None => Ok(report),
    });
    // A failed render drops its writer: the temporary file goes, the old file stays.
    result
}

/// Runs `script` against `project` as [`render_with`] does — the mixer too, whose voices
/// ending feed back into the server — but writes no file: for replays, which want the
/// decisions, not the sound.
pub fn run_without_file(
    project: Project,
    script: &[TimedCommand],
    options: RenderOptions,
    on_record: &mut dyn FnMut(TraceRecord),
) -> Result<RenderReport, RenderError> {
    let total_frames = length_without_file(script, &options)?;
    let mut output = Output {
        path: PathBuf::from("(no file)"),
        writer: None,
        meter: None,
        frames: 0,
    };
    run(
        project,
        options,
        total_frames,
        &mut output,
        Commands::new(script, on_record),
        Watch::default(),
    )
}

/// Something that watches a render as it goes (a QA script's expectations): every trace
/// record as it comes, and the session and output at the times it asks for.
pub trait Probe {
    /// The next time it wants to look, if any.
    fn next_look(&self) -> Option<SampleTime>;
    /// A trace record, as it comes (before the caller's `on_record` gets it).
    fn record(&mut self, record: &TraceRecord);
    /// Looks at the session and the output so far, at (or just after) the time asked,
    /// and moves [`next_look`](Self::next_look) on; false when it had nothing to look
    /// at (then it is not asked again at this time).
    fn look(&mut self, session: &Session, output: &OutputSoFar) -> bool;
    /// A script line ran, with the engine's answer (an error: the engine refused it).
    fn ran(&mut self, _line: &TimedCommand, _result: Result<&str, &str>) {}
    /// The mixer rendered a block that starts at `at`; its per-voice levels are in
    /// `controls`. The records of the tick it renders were handed over before.
    fn rendered(&mut self, _at: SampleTime, _controls: &MixerControls) {}
}

/// The output of a render so far, as a [`Probe`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct OutputSoFar {
    /// Largest absolute sample value so far.
    pub peak: f32,
    /// Loudness so far, when the render measures it.
    pub loudness: Option<Loudness>,
}

/// Runs `script` against `project` as [`run_without_file`] does, measuring loudness,
/// with `probe` watching, and keyframes to `on_keyframe` when given (as
/// [`render_with_keyframes`] makes them): what a QA script runs.
pub fn run_probed(
    project: Project,
    script: &[TimedCommand],
    options: RenderOptions,
    probe: &mut dyn Probe,
    on_keyframe: Option<&mut dyn FnMut(Keyframe)>,
) -> Result<RenderReport, RenderError> {
    let total_frames = length_without_file(script, &options)?;
    let meter =
        LoudnessMeter::new(2, options.sample_rate).map_err(|source| RenderError::Loudness {
            path: PathBuf::from("(no file)"),
            source,
        })?;
    let mut output = Output {
        path: PathBuf::from("(no file)"),
        writer: None,
        meter: Some(meter),
        frames: 0,
    };
    let mut ignore = |_| {};
    let mut commands = Commands::new(script, &mut ignore);
    commands.probe = Some(probe);
    run(
        project,
        options,
        total_frames,
        &mut output,
        commands,
        Watch {
            keyframe: on_keyframe,
            progress: None,
        },
    )
}

/// Where the rendered frames go: the file, and the loudness meter when asked for.
struct Output {
    /// The file written, or what stands for it in messages.
    path: PathBuf,
    writer: Option<WavWriter>,
    meter: Option<LoudnessMeter>,
    frames: u64,
}

/// Who watches the render loop besides the trace's reader.
#[derive(Default)]
struct Watch<'a> {
    keyframe: Option<&'a mut dyn FnMut(Keyframe)>,
    progress: Option<&'a mut dyn FnMut(RenderProgress) -> Flow>,
}

/// The render loop: commands, ticks and mixer blocks into `output`.
fn run(
    project: Project,
    options: RenderOptions,
    total_frames: u64,
    output: &mut Output,
    mut commands: Commands<'_>,
    watch: Watch<'_>,
) -> Result<RenderReport, RenderError> {
    let Watch {
        keyframe,
        mut progress,
    } = watch;
    let mixer_config = MixerConfig {
        sample_rate: options.sample_rate,
        ..MixerConfig::default()
    };
    let (handle, mut mixer) = mixer(mixer_config);
    let config = SessionConfig {
        engine: EngineConfig {
            sample_rate: options.sample_rate,
            seed: options.seed,
            max_voices: options.voices,
            ..EngineConfig::default()
        },
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        save_lot: options.save_lot,
        trace: TraceSwitches::ALL,
        cache_budget: options.cache_budget,
    };
    let mut session = Session::new(project, handle, config);
    let rate = f64::from(options.sample_rate.max(1));
    let mut buffer = vec![0.0f32; (mixer.max_block() * 2).max(4096)];
    let mut keyframes = keyframe.map(|tap| (Keyframer::new(options.sample_rate), tap));
    let mut peak = 0.0f32;
    let end = SampleTime::from_samples(total_frames);
    while session.now() < end {
        // A keyframe shows the moment before the commands due then run.
        if let Some((keyframer, tap)) = &mut keyframes
            && keyframer.due(session.now())
        {
            tap(keyframer.take(&session));
        }
        let before = commands.next;
        commands.run_due(&mut session, rate);
        // What the commands did shows in a keyframe of its own, after their tick.
        if let Some((keyframer, _)) = &mut keyframes
            && commands.next != before
        {
            keyframer.soon();
        }
        let now = session.now();
        commands.looks_due(&mut session, output, peak, now);
        let start = session.now();
        session.tick();
        commands.ticked = true;
        commands.note_pause(&session, rate);
        // The tick's records go on before its frames are rendered, so a probe knows the
        // notes the mixer is about to play.
        commands.take_trace(&mut session);
        let frames = (session.now() - start).min(end - start) as usize;
        let probe = commands.probe.as_deref_mut();
        peak = peak.max(render_frames(
            &mut mixer,
            &mut buffer,
            start,
            frames,
            output,
            probe,
        )?);
        if let Some(progress) = &mut progress {
            let at = RenderProgress {
                frames: output.frames,
                total_frames,
            };
            if progress(at) == Flow::Cancel {
                return Err(RenderError::Cancelled {
                    path: output.path.clone(),
                    seconds: output.frames as f64 / rate,
                });
            }
        }
    }
    // Looks asked for at the end or later see the end.
    commands.looks_due(
        &mut session,
        output,
        peak,
        SampleTime::from_samples(u64::MAX),
    );
    if let Some((keyframer, tap)) = &mut keyframes {
        tap(keyframer.take(&session));
    }
    let log = commands.log;
    let failed_saves = commands.failed_saves;
    let (started, _missed, dropped) = session.server.counts();
    let frames = output.frames;
    Ok(RenderReport {
        frames,
        seconds: frames as f64 / rate,
        log,
        trace: Vec::new(),
        started,
        dropped,
        peak,
        loudness: output.meter.as_ref().map(LoudnessMeter::loudness),
        failed_saves,
    })
}

/// Renders the `frames` frames of a tick that started at `start` through `buffer` into
/// `output`, telling `probe` after each block; returns their peak.
fn render_frames(
    mixer: &mut Mixer,
    buffer: &mut [f32],
    start: SampleTime,
    frames: usize,
    output: &mut Output,
    mut probe: Option<&mut (dyn Probe + '_)>,
) -> Result<f32, RenderError> {
    let mut peak = 0.0f32;
    let mut done = 0;
    while done < frames {
        let n = (frames - done).min(buffer.len() / 2);
        let Some(block) = buffer.get_mut(..n * 2) else {
            break;
        };
        mixer.render(block);
        if let Some(probe) = probe.as_mut() {
            let at = SampleTime::from_samples(start.samples() + done as u64);
            probe.rendered(at, mixer.controls());
        }
        peak = block.iter().fold(peak, |p, s| p.max(s.abs()));
        if let Some(writer) = &mut output.writer {
            writer.write(block)?;
        }
        output.frames += n as u64;
        if let Some(meter) = &mut output.meter {
            meter.feed(block);
        }
        done += n;
    }
    Ok(peak)
}

mod commands;
#[cfg(test)]
mod tests;

use commands::Commands;
