//! `hitbench bench reload`: how long a saved file takes to be live. A temporary project
//! is watched while a session runs it; a source, a sample and a `.hot` are rewritten in
//! turn, and each time the clock runs from just before the write to the moment the
//! session has swapped the new version in (targets: median ≤ 15 ms, p90 ≤ 25 ms, the
//! settle after the write included).

use super::super::Io;
use super::Size;
use super::scratch::Scratch;
use anyhow::Context as _;
use engine_core::host::reload::{Reload, ReloadConfig, Reloader};
use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::trace::TraceEvent;
use engine_core::runtime::{EventArgs, TraceKind, TraceRecord, TraceSwitches};
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::Project;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Target: from a file write to the new version live, at the median…
pub const TARGET: Duration = Duration::from_millis(15);
/// …and at the 90th percentile.
pub const P90_TARGET: Duration = Duration::from_millis(25);

/// Edits of each kind in a full run.
const EDITS: usize = 20;

/// How long one edit may take before the benchmark gives up.
const GIVE_UP: Duration = Duration::from_secs(10);

/// What one round of edits rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Source,
    Sample,
    Tables,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Source => "source (.src)",
            Kind::Sample => "sample (.wav)",
            Kind::Tables => "tables (.hot)",
        }
    }

    fn file(self) -> &'static str {
        match self {
            Kind::Source => "tone.src",
            Kind::Sample => "tone.wav",
            Kind::Tables => "tables.hot",
        }
    }

    /// The content of edit `i`.
    fn content(self, i: usize) -> anyhow::Result<Vec<u8>> {
        Ok(match self {
            Kind::Source => source(patch_of(i)).into_bytes(),
            Kind::Sample => wav(frames_of(i))?,
            Kind::Tables => tables(volume_of(i)).into_bytes(),
        })
    }
}

fn patch_of(i: usize) -> u32 {
    if i.is_multiple_of(2) { 2 } else { 1 }
}

fn frames_of(i: usize) -> usize {
    4_800 + 48 * (i + 1)
}

fn volume_of(i: usize) -> i32 {
    1000 - i32::try_from(i % 500).unwrap_or(0)
}

fn source(patch: u32) -> String {
    format!(
        "LAYOUT tso\nBINARY [\nplay_tone\n\tloadl patch #{patch}\n\tnote_on v1\n\twait_samp\n\tend\n]\n"
    )
}

fn tables(volume: i32) -> String {
    format!(
        "[EventMapping]\nping=kSndobPlay,0x100,0,0,0,0\n\
         [Track]\n0x100=0,play_tone,{volume},kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n\
         [Patch]\n1=0,tone,\"tone.wav\",0,0,0,0,0\n2=0,tone_2,\"tone.wav\",0,0,0,0,0\n"
    )
}

/// A 48 kHz mono 16-bit WAV of `frames` frames, as bytes.
fn wav(frames: usize) -> anyhow::Result<Vec<u8>> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: 48_000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = Vec::new();
    let mut writer = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec)?;
    for i in 0..frames {
        writer.write_sample(if i % 100 < 50 { 8_000i16 } else { -8_000 })?;
    }
    writer.finalize()?;
    Ok(bytes)
}

/// The session, its mixer (rendered by hand) and the reloads coming in.
struct Rig {
    session: Session,
    mixer: Mixer,
    reloads: Receiver<Reload>,
    config: ReloadConfig,
    _reloader: Reloader,
}

impl Rig {
    /// One engine tick, the mixer rendered up to it; returns the tick's trace.
    fn tick(&mut self) -> Vec<TraceRecord> {
        self.session.tick();
        let frames = self
            .session
            .now()
            .samples()
            .saturating_sub(self.mixer.position());
        let mut out = vec![0.0; usize::try_from(frames).unwrap_or(0) * 2];
        self.mixer.render(&mut out);
        self.session.take_trace()
    }

    /// Applies reloads until one that began after `start` and names `path` is live;
    /// returns when that was.
    fn until_live(&mut self, path: &Path, start: Instant) -> anyhow::Result<Instant> {
        loop {
            let left = GIVE_UP.saturating_sub(start.elapsed());
            if left.is_zero() {
                anyhow::bail!(
                    "`{}` was written but not reloaded within {} s",
                    path.display(),
                    GIVE_UP.as_secs()
                );
            }
            let Ok(reload) = self.reloads.recv_timeout(left) else {
                continue;
            };
            let ours = reload.first_change >= start && reload.files.iter().any(|f| f == path);
            if let Some(problem) = reload.errors.first() {
                anyhow::bail!(
                    "the benchmark project has errors after a reload: {}",
                    problem
                        .diagnostics
                        .first()
                        .map_or_else(|| problem.path.display().to_string(), ToString::to_string)
                );
            }
            if let Some(summary) = self.session.apply_reload(reload, &self.config)
                && ours
            {
                return Ok(summary.applied_at);
            }
        }
    }

    /// Checks that edit `i` of `kind` is what the session now plays.
    fn check(&mut self, kind: Kind, i: usize) -> anyhow::Result<()> {
        match kind {
            Kind::Source => {
                self.session
                    .engine
                    .trigger("ping", None, EventArgs::default())?;
                let trace = self.tick();
                self.session.engine.quiet_all();
                self.tick();
                let want = patch_of(i);
                let played: Vec<String> = trace
                    .iter()
                    .filter(|r| r.kind == TraceKind::Sample)
                    .map(TraceRecord::message)
                    .collect();
                let played_it = trace.iter().any(
                    |r| matches!(r.what, TraceEvent::NoteStarted { patch, .. } if patch == want),
                );
                if !played_it {
                    anyhow::bail!("after edit {i} of the source, `ping` played: {played:?}");
                }
            }
            Kind::Sample => {
                let frames = self
                    .session
                    .server
                    .cache()
                    .get("tone.wav")
                    .ok()
                    .and_then(|h| h.samples().map(|s| s.frames()));
                if frames != Some(frames_of(i)) {
                    anyhow::bail!(
                        "after edit {i} of the sample, the cache holds {frames:?} frames, not {}",
                        frames_of(i)
                    );
                }
            }
            Kind::Tables => {
                let volume = self.session.engine.project().track(0x100).map(|t| t.volume);
                if volume != Some(volume_of(i)) {
                    anyhow::bail!(
                        "after edit {i} of the tables, the track's volume is {volume:?}, not {}",
                        volume_of(i)
                    );
                }
            }
        }
        Ok(())
    }
}

/// Median, 90th percentile and maximum of `times` (sorted in place).
fn spread(times: &mut [Duration]) -> (Duration, Duration, Duration) {
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).copied().unwrap_or_default()
    };
    (at(0.5), at(0.9), times.last().copied().unwrap_or_default())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs the benchmark.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let edits = match size {
        Size::Full => EDITS,
        Size::Quick => 3,
    };
    let scratch = Scratch::new("reload")?;
    for kind in [Kind::Source, Kind::Sample, Kind::Tables] {
        let path = scratch.file(kind.file());
        std::fs::write(&path, kind.content(1)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let project = Project::load(scratch.path());
    if let Some(problem) = project.diagnostics.iter().find(|d| d.is_error()) {
        anyhow::bail!("benchmark project does not load: {problem}");
    }
    let (handle, mixer) = mixer(MixerConfig::default());
    let session_config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut session = Session::new(project, handle, session_config);
    session.engine.set_trace_switches(TraceSwitches {
        samples: true,
        ..TraceSwitches::default()
    });
    let config = ReloadConfig::default();
    let (reloader, reloads) = Reloader::with_channel(
        session.engine.project(),
        Arc::clone(session.server.cache()),
        config,
    )?;
    if let Some(problem) = reloader.watch_status().problems.first() {
        anyhow::bail!("cannot watch the benchmark project: {problem}");
    }
    let mut rig = Rig {
        session,
        mixer,
        reloads,
        config,
        _reloader: reloader,
    };
    writeln!(
        io.out,
        "reload: {edits} edits of each kind in a watched temporary project; write -> new version \
         live in the session ({} ms settle after a finished write included; {} ms quiet after \
         one in progress)",
        config.settle.as_millis(),
        config.debounce.as_millis()
    )?;
    let (mut worst_median, mut worst) = (Duration::ZERO, Duration::ZERO);
    for kind in [Kind::Source, Kind::Sample, Kind::Tables] {
        let path = scratch.file(kind.file());
        let mut times = Vec::with_capacity(edits);
        for i in 0..edits {
            let bytes = kind.content(i)?;
            // Let the file's modification time move on, and stray events settle.
            std::thread::sleep(Duration::from_millis(15));
            while rig.reloads.try_recv().is_ok() {}
            let start = Instant::now();
            std::fs::write(&path, &bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
            let live = rig.until_live(&path, start)?;
            times.push(live.saturating_duration_since(start));
            rig.check(kind, i)?;
        }
        let (median, p90, max) = spread(&mut times);
        worst = worst.max(p90);
        worst_median = worst_median.max(median);
        writeln!(
            io.out,
            "reload: {:<13} median {:>6.1} ms ({:.2}x the {} ms target), p90 {:>6.1} ms ({:.2}x \
             the {} ms target), max {:>6.1} ms",
            kind.name(),
            ms(median),
            median.as_secs_f64() / TARGET.as_secs_f64(),
            TARGET.as_millis(),
            ms(p90),
            p90.as_secs_f64() / P90_TARGET.as_secs_f64(),
            P90_TARGET.as_millis(),
            ms(max),
        )?;
    }
    let met = |value: Duration, target: Duration| if value <= target { "met" } else { "missed" };
    writeln!(
        io.out,
        "reload: worst median {:.1} ms = {:.2}x the {} ms target ({}); worst p90 {:.1} ms = \
         {:.2}x the {} ms target ({})",
        ms(worst_median),
        worst_median.as_secs_f64() / TARGET.as_secs_f64(),
        TARGET.as_millis(),
        met(worst_median, TARGET),
        ms(worst),
        worst.as_secs_f64() / P90_TARGET.as_secs_f64(),
        P90_TARGET.as_millis(),
        met(worst, P90_TARGET),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn spread_picks_median_p90_and_max() {
        let mut times: Vec<Duration> = (1..=10).rev().map(Duration::from_millis).collect();
        let (median, p90, max) = spread(&mut times);
        assert_eq!(median, Duration::from_millis(6));
        assert_eq!(p90, Duration::from_millis(9));
        assert_eq!(max, Duration::from_millis(10));
    }

    #[test]
    fn edits_differ_from_one_to_the_next() {
        for kind in [Kind::Source, Kind::Sample, Kind::Tables] {
            assert_ne!(kind.content(0).unwrap(), kind.content(1).unwrap());
        }
    }
}
