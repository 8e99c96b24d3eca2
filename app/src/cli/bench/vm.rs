//! `hitbench bench vm`: the runtime's figures — HIT instructions per second in a
//! compute-heavy track, the share of one core 10,000 live tracks take at 60 Hz, events
//! dispatched per second, and what capturing adds to dispatch.

use super::super::Io;
use super::Size;
use super::cores;
use super::scratch::Scratch;
use engine_core::host::capture::{self, CaptureError, CaptureWriter, Header};
use engine_core::runtime::{
    Engine, EngineConfig, EventArgs, NullSink, SampleInfo, TraceRecord, UniformSamples,
};
use engine_core::toolchain::project::Project;
use std::time::{Duration, Instant};

/// Target: HIT instructions per second in a compute-heavy track.
pub const INSTRUCTIONS_TARGET: f64 = 800e6;
/// Target: share of one core used by 10,000 live tracks ticking at 60 Hz.
pub const LIVE_TRACKS_TARGET: f64 = 0.01;
/// Target: events dispatched per second, the typed record of each included.
pub const EVENTS_TARGET: f64 = 5e6;
/// Target: what capturing may add to dispatch on the session's thread.
pub const CAPTURE_COST_TARGET: f64 = 0.05;
/// Live tracks in the second figure.
pub const LIVE_TRACKS: usize = 10_000;
/// Passes of 10 s of sound the live-tracks figure is the best of.
const LIVE_PASSES: usize = 5;

fn engine(project: Project, config: EngineConfig, seconds: f64) -> Engine {
    let samples = UniformSamples(SampleInfo {
        frames: (48_000.0 * seconds) as u64,
        sample_rate: 48_000,
    });
    Engine::new(project, config, Box::new(NullSink), Box::new(samples))
}

fn load(scratch: &Scratch) -> anyhow::Result<Project> {
    let project = Project::load(scratch.path());
    if let Some(problem) = project.diagnostics.iter().find(|d| d.is_error()) {
        anyhow::bail!("benchmark project does not load: {problem}");
    }
    Ok(project)
}

/// Runs the measurements.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    compute(io, size)?;
    live_tracks(io, size)?;
    events(io, size)?;
    Ok(())
}

fn compute(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let iterations = size.scale(25_000_000);
    let source = format!(
        "LAYOUT tso\nBINARY [\ncompute\n\tloadl v1 #0\n\tloadl v2 #1\n\tloadl v3 #{iterations}\n\
         again\n\tadd v1 v2\n\txor v4 v1\n\tcmp v1 v3\n\tiflt @again\n\tend\n]\n"
    );
    let scratch = Scratch::with_files("vm", &[("compute.src", source.as_bytes())])?;
    // No fuel limit: the whole loop runs in one tick.
    let config = EngineConfig {
        fuel_per_tick: u32::MAX,
        tick_fuel: u64::MAX,
        ..EngineConfig::default()
    };
    let mut best = Duration::MAX;
    let mut instructions = 0;
    for _ in 0..3 {
        let mut engine = engine(load(&scratch)?, config, 1.0);
        engine.trigger("compute", None, EventArgs::default())?;
        let start = Instant::now();
        engine.tick();
        best = best.min(start.elapsed());
        instructions = engine.instructions();
    }
    let per_sec = instructions as f64 / best.as_secs_f64();
    writeln!(
        io.out,
        "vm: compute-heavy track: {:.0} M instructions in {:.3} s = {:.0} M instructions/s; \
         target >= {:.0} M/s ({:.2}x the target)",
        instructions as f64 / 1e6,
        best.as_secs_f64(),
        per_sec / 1e6,
        INSTRUCTIONS_TARGET / 1e6,
        per_sec / INSTRUCTIONS_TARGET
    )?;
    Ok(())
}

fn live_tracks(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let live_tracks = size.scale(LIVE_TRACKS);
    // Half the tracks update every tick (a fade loop), half play notes and pause.
    let source = "LAYOUT tso\nBINARY [\n\
        fader\n\tloadb MultipleInstances 1\n\tloadl v2 #16\n\tloadb v3 0\nfade\n\tinc v3\n\tset vol v3\n\
        \twait v2\n\tjump @fade\n\
        talker\n\tloadb MultipleInstances 1\n\tloadb patch 1\n\tloadl v2 #250\ntalk\n\tnote_on v1\n\
        \twait_samp\n\twait v2\n\tjump @talk\n]\n";
    let tables = "[Patch]\n1=0,hum,\"hum.wav\",0,0,0,0,0\n";
    let scratch = Scratch::with_files(
        "vm",
        &[
            ("live.src", source.as_bytes()),
            ("live.hot", tables.as_bytes()),
            ("hum.wav", b""),
        ],
    )?;
    let config = EngineConfig {
        max_voices: live_tracks,
        ..EngineConfig::default()
    };
    let mut engine = engine(load(&scratch)?, config, 1.0);
    for i in 0..live_tracks {
        let event = if i % 2 == 0 { "fader" } else { "talker" };
        engine.trigger(event, Some(i as i32), EventArgs::default())?;
        if i == 1 {
            // The first copies run once to set MultipleInstances; the rest add copies.
            engine.tick();
        }
    }
    engine.tick();
    let live = engine.active_tracks().len();
    if live != live_tracks {
        anyhow::bail!("only {live} of {live_tracks} tracks are live");
    }
    engine.take_trace();
    let seconds = 10.0;
    let ticks = (seconds * f64::from(config.tick_rate)) as usize;
    // Passes of 10 s of sound one after another, the best one the figure (as the other
    // figures are the best of their runs), the spread of all of them beside it.
    let mut passes = Vec::with_capacity(LIVE_PASSES);
    for _ in 0..LIVE_PASSES {
        let start = Instant::now();
        for _ in 0..ticks {
            engine.tick();
        }
        passes.push(start.elapsed().as_secs_f64());
        // Nothing reads the records: they go, as a session's reader would take them.
        engine.take_trace();
    }
    passes.sort_by(f64::total_cmp);
    let elapsed = passes[0];
    let share = elapsed / seconds;
    writeln!(
        io.out,
        "vm: {live_tracks} live tracks at {} Hz: {:.3} s of CPU for {seconds:.0} s of sound = {:.2} % \
         of one core ({:.1} us per tick; best of {LIVE_PASSES} passes, all from {:.2} to {:.2} %); \
         target < {:.0} % ({})",
        config.tick_rate,
        elapsed,
        share * 100.0,
        elapsed * 1e6 / ticks as f64,
        passes[0] / seconds * 100.0,
        passes[passes.len() - 1] / seconds * 100.0,
        LIVE_TRACKS_TARGET * 100.0,
        under_or_over(LIVE_TRACKS_TARGET / share.max(f64::MIN_POSITIVE))
    )?;
    Ok(())
}

/// A cost's ratio to its ceiling in words: `2.0x under the target` when it is within,
/// `1.5x over the target` when not.
fn under_or_over(ratio: f64) -> String {
    if ratio >= 1.0 {
        format!("{ratio:.1}x under the target")
    } else {
        format!("{:.1}x over the target", 1.0 / ratio.max(f64::MIN_POSITIVE))
    }
}

/// Triggers `events` events round the `names`, ticking once per round and handing the
/// records of each round to `sink`.
fn dispatch(
    engine: &mut Engine,
    names: &[String],
    events: usize,
    sink: &mut dyn FnMut(Vec<TraceRecord>) -> Result<(), CaptureError>,
) -> anyhow::Result<()> {
    let count = names.len().max(1);
    for i in 0..events {
        let name = &names[i % count];
        let _ = engine.trigger(name, Some((i % 500) as i32), EventArgs::default());
        if i % count == count - 1 {
            engine.tick();
            sink(engine.take_trace())?;
        }
    }
    Ok(())
}

/// Pairs of dispatch runs, one plain and one capturing: the dispatch figure is the best
/// plain run, the capture's cost the median of the pairs' differences (a pair runs
/// within a fraction of a second, so a busy moment of the machine hits both of its runs
/// or neither; an odd count has a middle).
const PAIRS: usize = 11;

/// How long a run took: wall clock, and CPU of the calling thread (the wall clock where
/// the system does not count it).
#[derive(Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: f64,
}

impl Timing {
    fn worst() -> Self {
        Self {
            wall: f64::MAX,
            cpu: f64::MAX,
        }
    }

    fn of(run: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<Self> {
        let cpu_start = super::thread_cpu_seconds();
        let start = Instant::now();
        run()?;
        let wall = start.elapsed().as_secs_f64();
        let cpu = match (cpu_start, super::thread_cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => wall,
        };
        Ok(Self { wall, cpu })
    }

    fn best(self, other: Self) -> Self {
        Self {
            wall: self.wall.min(other.wall),
            cpu: self.cpu.min(other.cpu),
        }
    }
}

/// A project of `count` UI tracks, `ui0`…, each playing one note: the tracks' names.
fn ui_tracks(count: usize) -> anyhow::Result<(Scratch, Vec<String>)> {
    let mut source = String::from("LAYOUT tso\nBINARY [\n");
    for i in 0..count {
        source.push_str(&format!(
            "ui{i}\n\tloadb patch 1\n\tnote_on v1\n\twait_samp\n\tend\n"
        ));
    }
    source.push_str("]\n");
    let tables = "[Patch]\n1=0,click,\"click.wav\",0,0,0,0,0\n";
    let scratch = Scratch::with_files(
        "vm",
        &[
            ("ui.src", source.as_bytes()),
            ("ui.hot", tables.as_bytes()),
            ("click.wav", b""),
        ],
    )?;
    Ok((scratch, (0..count).map(|i| format!("ui{i}")).collect()))
}

fn events(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let count = 64;
    let (scratch, names) = ui_tracks(count)?;
    // A million a run (a fifth of a second): shorter runs let a moment's noise of the
    // machine decide the pairs' differences.
    let events = size.scale(1_000_000);
    let header = Header {
        format: capture::FORMAT.to_string(),
        version: capture::VERSION,
        dirs: vec![scratch.path().to_path_buf()],
        seed: 0,
        sample_rate: 48_000,
        voices: EngineConfig::default().max_voices,
        cache_budget: 0,
        files: Vec::new(),
    };
    let path = scratch.path().join("bench.hbcap");
    // Each run on a fresh engine; which run of a pair goes first alternates, so a machine
    // speeding up or slowing down favours neither.
    let mut plain = Timing::worst();
    let mut captured = Timing::worst();
    let mut costs = Vec::with_capacity(PAIRS);
    // How far apart the cores are, before each pair and after the last.
    let mut apart = Vec::with_capacity(PAIRS + 1);
    let probe = match size {
        Size::Full => Duration::from_millis(10),
        Size::Quick => Duration::from_millis(1),
    };
    let mut records = 0;
    let mut busy = Vec::with_capacity(PAIRS);
    for pair in 0..PAIRS {
        let run_plain = || -> anyhow::Result<Timing> {
            let mut engine = engine(load(&scratch)?, EngineConfig::default(), 0.05);
            Timing::of(|| dispatch(&mut engine, &names, events, &mut |_| Ok(())))
        };
        let mut run_capturing = || -> anyhow::Result<Timing> {
            let mut engine = engine(load(&scratch)?, EngineConfig::default(), 0.05);
            let mut writer = CaptureWriter::create(&path, &header)?;
            records = 0;
            // Until the last record is on disk: the session hands records over, the
            // capture's thread encodes and writes them, `finish` waits for it.
            Timing::of(|| {
                dispatch(&mut engine, &names, events, &mut |batch| {
                    records += batch.len();
                    writer.records(batch)
                })?;
                busy.push(writer.finish(engine.now())?.busy.as_secs_f64());
                Ok(())
            })
        };
        apart.push(cores::round_trip(probe));
        let (one, other) = if pair % 2 == 0 {
            let one = run_plain()?;
            (one, run_capturing()?)
        } else {
            let other = run_capturing()?;
            (run_plain()?, other)
        };
        plain = plain.best(one);
        captured = captured.best(other);
        costs.push((other.cpu - one.cpu) / one.cpu);
    }
    apart.push(cores::round_trip(probe));
    let by_distance = by_distance(&costs, &apart);
    costs.sort_by(f64::total_cmp);
    let cost = costs[costs.len() / 2];
    busy.sort_by(f64::total_cmp);
    writeln!(
        io.out,
        "vm: {events} events dispatched in {:.3} s = {:.0} k events/s ({:.2} us per event; lookup, \
         Box-X decision, start/join/steal/refuse, typed record; one tick per {count} events; best \
         of {PAIRS}); target >= {:.0} k/s ({:.2}x the target)",
        plain.wall,
        events as f64 / plain.wall / 1e3,
        plain.wall * 1e6 / events as f64,
        EVENTS_TARGET / 1e3,
        events as f64 / plain.wall / EVENTS_TARGET
    )?;
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    // The cost is what the session's own thread spends more; the writer thread works on
    // another core (its share shows in the wall-clock figure when cores are scarce).
    writeln!(
        io.out,
        "vm: the same while capturing: capture costs {:.1} % of dispatch on the session's thread \
         (median of {PAIRS} pairs of runs side by side, from {:.1} to {:.1} %; target < {:.0} %: \
         {}); the capture's own thread works {:.1} % as long as the session's (median); {:.0} k \
         events/s until the last record is on disk ({:+.1} % wall clock); {:.1} records and \
         {:.0} bytes per event",
        cost * 100.0,
        costs[0] * 100.0,
        costs[costs.len() - 1] * 100.0,
        CAPTURE_COST_TARGET * 100.0,
        if cost <= 0.0 {
            "met, no measurable cost".to_string()
        } else {
            format!("{:.2}x", CAPTURE_COST_TARGET / cost)
        },
        busy.get(busy.len() / 2).copied().unwrap_or_default() / plain.cpu * 100.0,
        events as f64 / captured.wall / 1e3,
        (captured.wall - plain.wall) / plain.wall * 100.0,
        records as f64 / events as f64,
        bytes as f64 / events as f64
    )?;
    writeln!(io.out, "vm: {by_distance}")?;
    Ok(())
}

/// A cache line's round trip, in nanoseconds, past which two cores are far apart: cores
/// that share a cache take well under it (43–130 ns measured), cores on other dies or
/// sockets longer (350–550 ns on a 2-core virtual machine whose host moves its cores).
const FAR_NS: f64 = 200.0;

/// The capture's cost in the pairs run while the cores were near and in those run
/// while they were far apart (the round trip of a cache line before and after each
/// pair, [`cores::round_trip`]; a pair they moved during, or with a round trip not
/// measured, counts as neither): records cross from the session's core to the
/// capture's, and what that costs follows the distance.
fn by_distance(costs: &[f64], apart: &[Option<f64>]) -> String {
    let known = || apart.iter().flatten().copied();
    let (Some(nearest), Some(farthest)) = (known().reduce(f64::min), known().reduce(f64::max))
    else {
        return "how far apart the cores were could not be measured (two threads passing a \
                cache line never ran side by side)"
            .to_string();
    };
    let (mut near, mut far, mut moved) = (Vec::new(), Vec::new(), 0);
    for (&cost, around) in costs.iter().zip(apart.windows(2)) {
        match (around[0], around[1]) {
            (Some(before), Some(after)) if before <= FAR_NS && after <= FAR_NS => near.push(cost),
            (Some(before), Some(after)) if before > FAR_NS && after > FAR_NS => far.push(cost),
            _ => moved += 1,
        }
    }
    let median = |costs: &mut Vec<f64>| {
        costs.sort_by(f64::total_cmp);
        match costs.len() {
            0 => "-".to_string(),
            n => format!("{:.1} %", costs[n / 2] * 100.0),
        }
    };
    format!(
        "the cores were {nearest:.0} to {farthest:.0} ns apart (a cache line's round trip \
         between two threads, before and after each pair); capture costs {} in the pairs run \
         with them near throughout ({} of {total}, under {FAR_NS:.0} ns), {} in those run with \
         them far apart throughout ({} of {total}); {moved} of {total} neither (the cores moved, \
         or a round trip could not be measured)",
        median(&mut near),
        near.len(),
        median(&mut far),
        far.len(),
        total = costs.len()
    )
}
