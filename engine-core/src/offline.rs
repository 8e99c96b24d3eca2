//! Offline rendering: a project, a timed script of console commands, and the mixer run
//! in lock-step as fast as the machine allows, written to a WAV file. Loads are
//! synchronous and everything runs on sample time, so the same project, script and seed
//! give a bit-identical file.

use crate::command::TimedCommand;
use crate::mixer::{MixerConfig, mixer};
use crate::output::WavWriter;
use crate::project::Project;
use crate::runtime::{EngineConfig, TraceRecord};
use crate::server::ServerConfig;
use crate::session::{Session, SessionConfig};
use std::path::Path;

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
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            sample_rate: 48_000,
            seed: 0,
            tail_seconds: 3.0,
            duration: None,
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
    /// Everything the engine and the server traced.
    pub trace: Vec<TraceRecord>,
    /// Notes started, cache misses, notes dropped.
    pub started: u64,
    /// Notes dropped.
    pub dropped: u64,
    /// Largest absolute sample value.
    pub peak: f32,
}

/// Renders `script` against `project` into the WAV file `out`.
pub fn render(
    project: Project,
    script: &[TimedCommand],
    out: &Path,
    options: RenderOptions,
) -> Result<RenderReport, String> {
    let mixer_config = MixerConfig {
        sample_rate: options.sample_rate,
        ..MixerConfig::default()
    };
    let (handle, mut mixer) = mixer(mixer_config);
    let config = SessionConfig {
        engine: EngineConfig {
            sample_rate: options.sample_rate,
            seed: options.seed,
            ..EngineConfig::default()
        },
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut session = Session::new(project, handle, config);
    session
        .engine
        .set_trace_switches(crate::runtime::TraceSwitches::ALL);
    let rate = f64::from(options.sample_rate.max(1));
    let last = script.last().map_or(0.0, |c| c.time);
    let total_seconds = options
        .duration
        .unwrap_or(last + options.tail_seconds)
        .max(0.0);
    let total_frames = (total_seconds * rate).round() as u64;
    let mut writer = WavWriter::create(out, options.sample_rate)?;
    let mut buffer = vec![0.0f32; (mixer.max_block() * 2).max(4096)];
    let mut next = 0;
    let mut log = Vec::new();
    let mut trace = Vec::new();
    let mut peak = 0.0f32;
    while session.now() < total_frames {
        // Commands due by the start of this tick run before it.
        while let Some(timed) = script.get(next) {
            let at = (timed.time * rate).round() as u64;
            if at > session.now() {
                break;
            }
            let result = session.execute(&timed.command);
            log.push(match result {
                Ok(message) => format!("{:>8.3}  line {}: {message}", timed.time, timed.line),
                Err(message) => {
                    format!("{:>8.3}  line {}: error: {message}", timed.time, timed.line)
                }
            });
            next += 1;
        }
        let start = session.now();
        session.tick();
        let frames = (session.now() - start).min(total_frames - start) as usize;
        let mut done = 0;
        while done < frames {
            let n = (frames - done).min(buffer.len() / 2);
            let Some(block) = buffer.get_mut(..n * 2) else {
                break;
            };
            mixer.render(block);
            peak = block.iter().fold(peak, |p, s| p.max(s.abs()));
            writer.write(block)?;
            done += n;
        }
        trace.extend(session.take_trace());
    }
    let (started, _missed, dropped) = session.server.counts();
    let frames = writer.finish()?;
    Ok(RenderReport {
        frames,
        seconds: frames as f64 / rate,
        log,
        trace,
        started,
        dropped,
        peak,
    })
}
