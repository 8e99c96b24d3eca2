//! `hitbench bench mix`: HitBench's mixer against kira and rodio on one scene rendered
//! offline — 16, 256 and 1,024 voices of one 22,050 Hz mono 16-bit sample resampled to
//! 48 kHz stereo, each voice with its own gain and pan — in ns per voice-frame and
//! HitBench's speed ratio against each, HitBench with linear and with cubic interpolation
//! (kira's is always cubic, rodio's linear), beside the scene's memory-bandwidth bound;
//! then decode throughput (MB/s of WAV, × real time for Ogg Vorbis and MP3) and the
//! resource cache's hit latency.
//!
//! kira and rodio are only compiled in with the `bench-peers` feature (off by default, so
//! the shipped binary does not carry them); without it HitBench's own figures are still
//! printed.

use super::super::Io;
use super::Size;
use super::bandwidth::read_bandwidth;
use super::scratch::Scratch;
use anyhow::{Context as _, anyhow};
use engine_core::runtime::sink::ControlGroup;
use engine_core::runtime::units::format_bytes;
use engine_core::runtime::{Gain, Pan};
use engine_core::sound::audio::SampleBuffer;
use engine_core::sound::audio::decode::{DecodeLimits, Decoded, decode};
use engine_core::sound::cache::{Handle, Lookup, Resource, ResourceCache};
use engine_core::sound::mixer::kernel::Lanes;
use engine_core::sound::mixer::voice::pan_gains;
use engine_core::sound::mixer::{Interpolation, MixCommand, MixerConfig, VoiceSource, mixer};
use engine_core::sound::server::SampleLoader;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Output frames per second.
pub const OUTPUT_RATE: u32 = 48_000;
/// Frames per second of the voices' sample.
pub const SOURCE_RATE: u32 = 22_050;
/// Frames rendered per call, for every engine.
pub const BLOCK: usize = 512;
/// The voice counts measured.
pub const VOICES: [usize; 3] = [16, 256, 1024];
/// Target: HitBench's ns per voice-frame at 256 voices (linear interpolation).
pub const NS_PER_VOICE_FRAME_TARGET: f64 = 0.45;
/// Target: how many times faster than kira at 256 voices, HitBench linear against kira
/// (whose only interpolation is cubic).
pub const SPEEDUP_TARGET: f64 = 25.0;
/// Target: how many times faster than kira at 256 voices at equal quality: HitBench's
/// cubic interpolation against kira's (both 4-point Catmull-Rom).
pub const CUBIC_SPEEDUP_TARGET: f64 = 10.0;
/// Target: ns per cache hit.
pub const CACHE_HIT_TARGET_NS: f64 = 100.0;
/// Voice-frames rendered per engine and voice count (timed part, full size).
const VOICE_FRAMES: usize = 25_000_000;
/// Renders per engine and voice count; the fastest counts.
const REPEATS: usize = 3;
/// Peak of the synthetic sample (its envelope fades in over the first 200 ms).
const SAMPLE_PEAK: f32 = 0.3;
/// The first block's per-channel RMS must be within this factor of the expected mix.
const CHECK_TOLERANCE: f64 = 0.1;

/// Runs the mixer comparison, then the decode and cache figures.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    mix(io, size)?;
    decoding(io, size)?;
    cache(io, size)?;
    Ok(())
}

/// A small deterministic generator (Knuth's MMIX LCG).
struct Lcg(u64);

impl Lcg {
    /// A number in 0…1.
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The sample every voice plays: two sines and a little noise, faded in over 200 ms,
/// quantised to 16 bits and converted back to `f32` as a decoder would.
fn synth_sample(frames: usize) -> Vec<f32> {
    let mut noise = Lcg(0x5eed);
    let rate = SOURCE_RATE as f32;
    let fade = rate * 0.2;
    (0..frames)
        .map(|i| {
            let t = i as f32 / rate;
            let tone = 0.6 * (std::f32::consts::TAU * 220.0 * t).sin()
                + 0.35 * (std::f32::consts::TAU * 331.7 * t).sin()
                + 0.05 * (noise.next() * 2.0 - 1.0);
            let envelope = (i as f32 / fade).min(1.0);
            let value = (tone * envelope * SAMPLE_PEAK * 32_767.0).round();
            let quantised = value.clamp(-32_768.0, 32_767.0) as i16;
            f32::from(quantised) / 32_768.0
        })
        .collect()
}

/// One voice count's scene, identical for every engine.
struct Scene {
    /// Voices, all started at frame 0.
    voices: usize,
    /// The mono sample at [`SOURCE_RATE`].
    sample: Arc<[f32]>,
    /// Per voice: linear gain, pan −1…1, and the left and right gains they make with
    /// HitBench's constant-power pan law (gain included).
    gains: Vec<f32>,
    pans: Vec<f32>,
    left_right: Vec<(f32, f32)>,
    /// Output frames timed (after one untimed warm-up block), a multiple of [`BLOCK`].
    frames: usize,
}

impl Scene {
    fn new(voices: usize, frames: usize, sample: Arc<[f32]>) -> Self {
        let mut lcg = Lcg(0xb1e5_5ed0 ^ voices as u64);
        let scale = 0.5 / (voices as f32).sqrt();
        let mut gains = Vec::with_capacity(voices);
        let mut pans = Vec::with_capacity(voices);
        let mut left_right = Vec::with_capacity(voices);
        for _ in 0..voices {
            let gain = scale * (0.5 + lcg.next());
            let pan = lcg.next() * 2.0 - 1.0;
            let (l, r) = pan_gains(pan, false);
            gains.push(gain);
            pans.push(pan);
            left_right.push((gain * l, gain * r));
        }
        Self {
            voices,
            sample,
            gains,
            pans,
            left_right,
            frames,
        }
    }

    fn blocks(&self) -> usize {
        self.frames / BLOCK
    }

    /// The RMS of the left and right channels of the first block, computed directly:
    /// the linearly interpolated sample times the summed left and right gains.
    fn expected_first_block(&self) -> (f64, f64) {
        let (sum_l, sum_r) = self
            .left_right
            .iter()
            .fold((0.0f64, 0.0f64), |(l, r), (a, b)| {
                (l + f64::from(*a), r + f64::from(*b))
            });
        let step = f64::from(SOURCE_RATE) / f64::from(OUTPUT_RATE);
        let mut power = 0.0;
        for frame in 0..BLOCK {
            let pos = frame as f64 * step;
            let index = pos as usize;
            let frac = pos - index as f64;
            let a = f64::from(self.sample.get(index).copied().unwrap_or(0.0));
            let b = f64::from(self.sample.get(index + 1).copied().unwrap_or(0.0));
            let s = a + (b - a) * frac;
            power += s * s;
        }
        let rms = (power / BLOCK as f64).sqrt();
        (rms * sum_l.abs(), rms * sum_r.abs())
    }
}

/// Per-channel RMS of an interleaved stereo block.
fn stereo_rms(block: &[f32]) -> (f64, f64) {
    let frames = (block.len() / 2).max(1) as f64;
    let (l, r) = block.chunks_exact(2).fold((0.0f64, 0.0f64), |(l, r), f| {
        (
            l + f64::from(f[0]) * f64::from(f[0]),
            r + f64::from(f[1]) * f64::from(f[1]),
        )
    });
    ((l / frames).sqrt(), (r / frames).sqrt())
}

/// What one timed render gave.
struct Rendered {
    /// Time for the timed blocks.
    elapsed: Duration,
    /// The untimed first block (interleaved stereo).
    first: Vec<f32>,
    /// The last timed block.
    last: Vec<f32>,
}

/// Checks an engine rendered the scene: its first block has the expected loudness in
/// both channels (so every voice sounds, with its gain and pan) and its last is not
/// silent (no voice ran out).
fn check(engine: &str, scene: &Scene, rendered: &Rendered) -> anyhow::Result<()> {
    let (want_l, want_r) = scene.expected_first_block();
    let (got_l, got_r) = stereo_rms(&rendered.first);
    for (channel, want, got) in [("left", want_l, got_l), ("right", want_r, got_r)] {
        if (got / want - 1.0).abs() > CHECK_TOLERANCE {
            anyhow::bail!(
                "{engine} did not render the {}-voice scene: first block {channel} RMS {got:.5}, \
                 expected {want:.5}; the comparison would be meaningless",
                scene.voices
            );
        }
    }
    if rendered.last.iter().all(|s| *s == 0.0) {
        anyhow::bail!(
            "{engine}'s last block of the {}-voice scene is silent: the voices ran out",
            scene.voices
        );
    }
    Ok(())
}

/// Renders the scene with HitBench's mixer.
fn hitbench_render(
    scene: &Scene,
    sample: &Handle,
    interpolation: Interpolation,
) -> anyhow::Result<Rendered> {
    let (mut handle, mut mixer) = mixer(MixerConfig {
        sample_rate: OUTPUT_RATE,
        max_voices: scene.voices,
        command_capacity: scene.voices.max(16),
        max_block: BLOCK,
        interpolation,
        ..MixerConfig::default()
    });
    for (note, (gain, pan)) in scene.gains.iter().zip(&scene.pans).enumerate() {
        handle
            .send(MixCommand::Start {
                note: note as u64,
                at: 0,
                source: VoiceSource::Sample(Arc::clone(sample)),
                gain: Gain::new(*gain),
                pan: Pan::new(*pan),
                pitch: 1.0,
                looping: false,
                group: ControlGroup::Fx,
                reverb: false,
            })
            .map_err(|_| anyhow!("the HitBench mixer's command ring is full"))?;
    }
    let mut out = vec![0.0f32; BLOCK * 2];
    mixer.render(&mut out);
    let first = out.clone();
    let playing = handle.controls.voices.load(Ordering::Relaxed);
    if playing != scene.voices {
        anyhow::bail!(
            "HitBench plays {playing} of {} voices after the first block",
            scene.voices
        );
    }
    handle.events();
    handle.collect_retired();
    let start = Instant::now();
    for _ in 0..scene.blocks() {
        mixer.render(&mut out);
        black_box(&mut out);
    }
    let elapsed = start.elapsed();
    let playing = handle.controls.voices.load(Ordering::Relaxed);
    if playing != scene.voices {
        anyhow::bail!(
            "HitBench plays {playing} of {} voices after the last block",
            scene.voices
        );
    }
    Ok(Rendered {
        elapsed,
        first,
        last: out,
    })
}

/// The peers: kira and rodio rendering the same scene.
#[cfg(feature = "bench-peers")]
mod peers;

/// Best ns per voice-frame of each engine for one voice count.
struct Row {
    voices: usize,
    /// HitBench with linear interpolation.
    hitbench: f64,
    /// HitBench with cubic interpolation.
    cubic: f64,
    /// kira and rodio, when compiled in.
    peers: Option<(f64, f64)>,
}

fn ns_per_voice_frame(scene: &Scene, elapsed: Duration) -> f64 {
    elapsed.as_secs_f64() * 1e9 / (scene.voices * scene.frames) as f64
}

fn measure(scene: &Scene) -> anyhow::Result<Row> {
    let handle: Handle = Arc::new(Resource::from_samples(
        "bench.wav",
        SampleBuffer {
            sample_rate: SOURCE_RATE,
            channels: 1,
            data: scene.sample.to_vec(),
        },
    ));
    #[cfg(feature = "bench-peers")]
    let (kira_frames, rodio_buffer) = (
        peers::kira_frames(&scene.sample),
        peers::rodio_buffer(&scene.sample)?,
    );
    let mut best = [Duration::MAX; 4];
    // The engines take turns, so a change in clock speed hits them alike.
    for _ in 0..REPEATS {
        for (slot, interpolation) in [(0, Interpolation::Linear), (3, Interpolation::Cubic)] {
            let rendered = hitbench_render(scene, &handle, interpolation)?;
            check("HitBench", scene, &rendered)?;
            best[slot] = best[slot].min(rendered.elapsed);
        }
        #[cfg(feature = "bench-peers")]
        {
            let rendered = peers::kira_render(scene, &kira_frames)?;
            check("kira", scene, &rendered)?;
            best[1] = best[1].min(rendered.elapsed);
            let rendered = peers::rodio_render(scene, &rodio_buffer)?;
            check("rodio", scene, &rendered)?;
            best[2] = best[2].min(rendered.elapsed);
        }
    }
    let peers = cfg!(feature = "bench-peers").then(|| {
        (
            ns_per_voice_frame(scene, best[1]),
            ns_per_voice_frame(scene, best[2]),
        )
    });
    Ok(Row {
        voices: scene.voices,
        hitbench: ns_per_voice_frame(scene, best[0]),
        cubic: ns_per_voice_frame(scene, best[3]),
        peers,
    })
}

fn mix(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let frames: Vec<usize> = VOICES
        .iter()
        .map(|voices| (size.scale(VOICE_FRAMES) / voices / BLOCK).max(1) * BLOCK)
        .collect();
    // Long enough that no voice runs out: the warm-up block, the timed ones, a margin.
    let longest = frames.iter().copied().max().unwrap_or(BLOCK) + BLOCK;
    let sample_frames =
        (longest as u64 * u64::from(SOURCE_RATE) / u64::from(OUTPUT_RATE) + 1024) as usize;
    let sample: Arc<[f32]> = synth_sample(sample_frames).into();
    writeln!(
        io.out,
        "mix: 22,050 Hz mono 16-bit voices → 48 kHz stereo, {BLOCK}-frame blocks, gain+pan per voice"
    )?;
    let peers = cfg!(feature = "bench-peers");
    if peers {
        writeln!(
            io.out,
            "voices  hitbench ns/vf  cubic ns/vf   kira ns/vf   rodio ns/vf   vs kira   \
             cubic vs kira   vs rodio"
        )?;
    } else {
        writeln!(io.out, "voices  hitbench ns/vf  cubic ns/vf")?;
    }
    let mut rows = Vec::new();
    for (voices, frames) in VOICES.iter().zip(&frames) {
        let scene = Scene::new(*voices, *frames, Arc::clone(&sample));
        let row = measure(&scene)?;
        match row.peers {
            Some((kira, rodio)) => writeln!(
                io.out,
                "{:>6}  {:>14.2}  {:>11.2}   {:>10.1}   {:>11.1}   {:>6.1}×   {:>12.1}×   {:>7.1}×",
                row.voices,
                row.hitbench,
                row.cubic,
                kira,
                rodio,
                kira / row.hitbench,
                kira / row.cubic,
                rodio / row.hitbench
            )?,
            None => writeln!(
                io.out,
                "{:>6}  {:>14.2}  {:>11.2}",
                row.voices, row.hitbench, row.cubic
            )?,
        }
        rows.push(row);
    }
    let per_voice_count = size.scale(VOICE_FRAMES) as f64 / 1e6;
    writeln!(
        io.out,
        "(ns/vf = ns per voice-frame: render time / (voices × output frames); best of {REPEATS} \
         renders of ≈{per_voice_count:.2} M voice-frames (at least one block) per engine and voice \
         count, timed after one untimed block; a {:.1} s sample, so no voice ends or loops. \
         \"hitbench\" is HitBench's linear interpolation (2 points), \"cubic\" its cubic \
         (4-point Catmull-Rom, the same formula as kira's), both with {} vectors on this CPU; \
         kira always interpolates cubically, rodio linearly; all three get the same per-voice \
         left/right gains: HitBench's constant-power pan law, kira's volume and panning chosen \
         to match it)",
        sample_frames as f64 / f64::from(SOURCE_RATE),
        Lanes::detected().name()
    )?;
    let Some(at_256) = rows.iter().find(|r| r.voices == 256) else {
        return Ok(());
    };
    let bandwidth = read_bandwidth(size);
    let per_output_frame = f64::from(SOURCE_RATE) / f64::from(OUTPUT_RATE);
    let bytes = per_output_frame * size_of::<f32>() as f64;
    let bound = bytes / bandwidth * 1e9;
    writeln!(
        io.out,
        "memory bound: streaming read {}/s (one core); a voice-frame reads {bytes:.2} bytes of \
         sample ({per_output_frame:.3} source frames of 4-byte f32, as the cache keeps them; \
         the bus stays in cache) → at least {bound:.3} ns per voice-frame when every voice's \
         sample comes from memory; HitBench linear at 256 voices is {:.1}× that bound",
        format_bytes(bandwidth as u64),
        at_256.hitbench / bound
    )?;
    targets(io, at_256)
}

/// "ok" or "MISSED" for a target, with the figure's ratio to it.
fn verdict(ok: bool, ratio: f64) -> String {
    format!(
        "{}, {ratio:.2}× the target",
        if ok { "ok" } else { "MISSED" }
    )
}

/// Prints the targets at 256 voices with their ratios.
fn targets(io: &mut Io<'_>, at_256: &Row) -> anyhow::Result<()> {
    writeln!(
        io.out,
        "target: ≤ {NS_PER_VOICE_FRAME_TARGET} ns per voice-frame at 256 voices, HitBench linear \
         ({:.3} → {})",
        at_256.hitbench,
        verdict(
            at_256.hitbench <= NS_PER_VOICE_FRAME_TARGET,
            at_256.hitbench / NS_PER_VOICE_FRAME_TARGET
        )
    )?;
    let Some((kira, rodio)) = at_256.peers else {
        writeln!(
            io.out,
            "kira/rodio: the comparison is not compiled in (build with \
             cargo build --release -p hitbench --features bench-peers)"
        )?;
        return Ok(());
    };
    let (linear, cubic) = (kira / at_256.hitbench, kira / at_256.cubic);
    writeln!(
        io.out,
        "target: ≥ {SPEEDUP_TARGET}× kira at 256 voices, HitBench linear against kira's cubic \
         ({linear:.1}× → {})",
        verdict(linear >= SPEEDUP_TARGET, linear / SPEEDUP_TARGET)
    )?;
    writeln!(
        io.out,
        "target: ≥ {CUBIC_SPEEDUP_TARGET}× kira at 256 voices at equal quality, HitBench cubic \
         against kira's cubic ({cubic:.1}× → {})",
        verdict(cubic >= CUBIC_SPEEDUP_TARGET, cubic / CUBIC_SPEEDUP_TARGET)
    )?;
    writeln!(
        io.out,
        "rodio (linear, no target): HitBench linear is {:.1}× faster at 256 voices",
        rodio / at_256.hitbench
    )?;
    Ok(())
}

/// Best time of `REPEATS` runs of `f`, with its last result.
fn best_of<T>(mut f: impl FnMut() -> anyhow::Result<T>) -> anyhow::Result<(Duration, T)> {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..REPEATS {
        let start = Instant::now();
        let value = black_box(f()?);
        best = best.min(start.elapsed());
        last = Some(value);
    }
    let value = last.ok_or_else(|| anyhow!("nothing was measured"))?;
    Ok((best, value))
}

/// A 16-bit WAV file of a tone with a little noise.
fn wav_bytes(sample_rate: u32, channels: u16, frames: usize) -> anyhow::Result<Vec<u8>> {
    let spec = hound::WavSpec {
        channels,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut cursor = std::io::Cursor::new(Vec::new());
    let mut writer = hound::WavWriter::new(&mut cursor, spec)?;
    let mut noise = Lcg(0x000a_11ce);
    for i in 0..frames {
        let t = i as f32 / sample_rate as f32;
        let tone = (std::f32::consts::TAU * 440.0 * t).sin() * 0.4;
        for _ in 0..channels {
            let value = (tone + (noise.next() - 0.5) * 0.1) * 32_767.0;
            writer.write_sample(value.clamp(-32_768.0, 32_767.0) as i16)?;
        }
    }
    writer.finalize()?;
    Ok(cursor.into_inner())
}

/// Where the audio fixtures are, or why there are none.
fn fixtures() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("HITBENCH_AUDIO_FIXTURES") {
        let dir = PathBuf::from(dir);
        return if dir.is_dir() {
            Ok(dir)
        } else {
            Err(format!(
                "HITBENCH_AUDIO_FIXTURES={} is not a directory",
                dir.display()
            ))
        };
    }
    let here = Path::new("tests/fixtures/audio");
    if here.is_dir() {
        return Ok(here.to_path_buf());
    }
    let built = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/audio"
    ));
    if built.is_dir() {
        return Ok(built.to_path_buf());
    }
    Err(
        "no tests/fixtures/audio here or in the source tree this was built from \
         (set HITBENCH_AUDIO_FIXTURES to the folder)"
            .to_string(),
    )
}

fn describe(decoded: &Decoded) -> String {
    let info = &decoded.info;
    format!(
        "{:.1} s, {:.1} kHz {}",
        decoded.buffer.seconds(),
        f64::from(info.sample_rate) / 1000.0,
        if info.channels == 1 { "mono" } else { "stereo" }
    )
}

fn decoding(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let limits = DecodeLimits::default();
    let seconds = match size {
        Size::Full => 60,
        Size::Quick => 1,
    };
    let wav = wav_bytes(44_100, 2, 44_100 * seconds)?;
    let (elapsed, decoded) = best_of(|| Ok(decode("bench.wav", &wav, &limits)?))?;
    writeln!(
        io.out,
        "decode: WAV 16-bit, {} ({}) in {:.2} ms = {}/s",
        describe(&decoded),
        format_bytes(wav.len() as u64),
        elapsed.as_secs_f64() * 1e3,
        format_bytes((wav.len() as f64 / elapsed.as_secs_f64()) as u64)
    )?;
    let files = match size {
        Size::Full => [
            ("Ogg Vorbis", "music/seahorse_adventures_1.ogg"),
            ("MP3", "music/asc_machine_wars.mp3"),
        ],
        Size::Quick => [
            ("Ogg Vorbis", "loops/minetest_water_stream.ogg"),
            ("MP3", "loops/scratch_drip_drop.mp3"),
        ],
    };
    let dir = match fixtures() {
        Ok(dir) => dir,
        Err(why) => {
            writeln!(io.out, "decode: Ogg Vorbis and MP3 skipped: {why}")?;
            return Ok(());
        }
    };
    for (format, name) in files {
        let path = dir.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            writeln!(
                io.out,
                "decode: {format} skipped: cannot read {}",
                path.display()
            )?;
            continue;
        };
        let (elapsed, decoded) = best_of(|| {
            decode(name, &bytes, &limits).with_context(|| format!("cannot decode {name}"))
        })?;
        writeln!(
            io.out,
            "decode: {format}, {name} ({}) in {:.3} s = {:.0}× real time",
            describe(&decoded),
            elapsed.as_secs_f64(),
            decoded.buffer.seconds() / elapsed.as_secs_f64()
        )?;
    }
    Ok(())
}

fn cache(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    let scratch = Scratch::new("cache")?;
    let name = "hit.wav";
    std::fs::write(scratch.file(name), wav_bytes(22_050, 1, 2_205)?)
        .with_context(|| format!("cannot write {name}"))?;
    let cache = ResourceCache::with_budget(8 << 20);
    for loader in SampleLoader::all(DecodeLimits::default()) {
        cache.register_loader(loader);
    }
    cache.add_directory(scratch.path())?;
    if cache.get(name)?.samples().is_none() {
        anyhow::bail!("the cache did not decode {name}");
    }
    let hits = size.scale(1_000_000);
    let (get, _) = best_of(|| {
        for _ in 0..hits {
            black_box(cache.get(black_box(name))?);
        }
        Ok(())
    })?;
    let (try_get, _) = best_of(|| {
        for _ in 0..hits {
            if !matches!(black_box(cache.try_get(black_box(name))), Lookup::Ready(_)) {
                anyhow::bail!("try_get missed a resident resource");
            }
        }
        Ok(())
    })?;
    let stats = cache.stats();
    if stats.loads != 1 {
        anyhow::bail!("the cache loaded {name} {} times", stats.loads);
    }
    let per_hit = |d: Duration| d.as_secs_f64() * 1e9 / hits as f64;
    let (get, try_get) = (per_hit(get), per_hit(try_get));
    let worst = get.max(try_get);
    writeln!(
        io.out,
        "cache: hit latency (best of {REPEATS} × {hits} hits on a resident sample): get {get:.1} ns, \
         try_get {try_get:.1} ns; target < {CACHE_HIT_TARGET_NS:.0} ns ({})",
        if worst < CACHE_HIT_TARGET_NS {
            format!("{:.1}× under the target", CACHE_HIT_TARGET_NS / worst)
        } else {
            format!("MISSED: {:.1}× the target", worst / CACHE_HIT_TARGET_NS)
        }
    )?;
    Ok(())
}
