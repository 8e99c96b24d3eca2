//! The peers of `hitbench bench mix`: kira and rodio rendering the same scene (only
//! compiled in with the `bench-peers` feature).

use super::{BLOCK, OUTPUT_RATE, Rendered, SOURCE_RATE, Scene};
use anyhow::anyhow;
use kira::backend::{Backend, Renderer};
use kira::sound::PlaybackState;
use kira::sound::static_sound::{StaticSoundData, StaticSoundSettings};
use kira::track::MainTrackBuilder;
use kira::{AudioManager, AudioManagerSettings, Decibels, Frame, Panning};
use rodio::buffer::SamplesBuffer;
use rodio::source::ChannelVolume;
use std::hint::black_box;
use std::num::NonZero;
use std::sync::Arc;
use std::time::Instant;

/// A kira backend that renders on demand into a caller's buffer: kira's mock
/// backend, but one whose output can be read (to check it).
struct Offline {
    renderer: Option<Renderer>,
}

impl Backend for Offline {
    type Settings = u32;
    type Error = std::convert::Infallible;

    fn setup(sample_rate: u32, _internal_buffer_size: usize) -> Result<(Self, u32), Self::Error> {
        Ok((Self { renderer: None }, sample_rate))
    }

    fn start(&mut self, renderer: Renderer) -> Result<(), Self::Error> {
        self.renderer = Some(renderer);
        Ok(())
    }
}

impl Offline {
    /// One audio callback: interleaved stereo into `out`.
    fn render(&mut self, out: &mut [f32]) {
        if let Some(renderer) = &mut self.renderer {
            renderer.on_start_processing();
            renderer.process(out, 2);
        }
    }
}

/// kira's frames for the scene's sample (kira keeps sounds as stereo frames).
pub fn kira_frames(sample: &[f32]) -> Arc<[Frame]> {
    sample.iter().map(|s| Frame::from_mono(*s)).collect()
}

/// Renders the scene with kira.
pub fn kira_render(scene: &Scene, frames: &Arc<[Frame]>) -> anyhow::Result<Rendered> {
    let mut manager = AudioManager::<Offline>::new(AudioManagerSettings {
        main_track_builder: MainTrackBuilder::new().sound_capacity(scene.voices),
        internal_buffer_size: BLOCK,
        backend_settings: OUTPUT_RATE,
        ..AudioManagerSettings::default()
    })
    .map_err(|e| match e {})?;
    let mut handles = Vec::with_capacity(scene.voices);
    for (left, right) in &scene.left_right {
        // kira's pan law is L = √(1 − p), R = √(1 + p) (times the volume); this
        // panning and volume give exactly HitBench's left and right gains.
        let (l2, r2) = (left * left, right * right);
        let panning = if l2 + r2 > 0.0 {
            (r2 - l2) / (l2 + r2)
        } else {
            0.0
        };
        let amplitude = ((l2 + r2) / 2.0).sqrt();
        let settings = StaticSoundSettings::new()
            .volume(Decibels(20.0 * amplitude.log10()))
            .panning(Panning(panning));
        let data = StaticSoundData {
            sample_rate: SOURCE_RATE,
            frames: Arc::clone(frames),
            settings,
            slice: None,
        };
        handles.push(manager.play(data).map_err(|e| anyhow!("kira: {e}"))?);
    }
    let backend = manager.backend_mut();
    let mut out = vec![0.0f32; BLOCK * 2];
    // The first callback adds the sounds to the mixer and plays them.
    backend.render(&mut out);
    let first = out.clone();
    let start = Instant::now();
    for _ in 0..scene.blocks() {
        backend.render(&mut out);
        black_box(&mut out);
    }
    let elapsed = start.elapsed();
    let playing = handles
        .iter()
        .filter(|h| h.state() == PlaybackState::Playing)
        .count();
    if playing != scene.voices {
        anyhow::bail!(
            "kira plays {playing} of {} sounds after the last block",
            scene.voices
        );
    }
    Ok(Rendered {
        elapsed,
        first,
        last: out,
    })
}

/// rodio's buffer for the scene's sample (clones share the data).
pub fn rodio_buffer(sample: &[f32]) -> anyhow::Result<SamplesBuffer> {
    let mono = NonZero::new(1).ok_or_else(|| anyhow!("zero channels"))?;
    let rate = NonZero::new(SOURCE_RATE).ok_or_else(|| anyhow!("zero sample rate"))?;
    Ok(SamplesBuffer::new(mono, rate, sample.to_vec()))
}

/// Renders the scene with rodio's mixer.
pub fn rodio_render(scene: &Scene, buffer: &SamplesBuffer) -> anyhow::Result<Rendered> {
    let stereo = NonZero::new(2).ok_or_else(|| anyhow!("zero channels"))?;
    let rate = NonZero::new(OUTPUT_RATE).ok_or_else(|| anyhow!("zero sample rate"))?;
    let (mixer, mut source) = rodio::mixer::mixer(stereo, rate);
    for (left, right) in &scene.left_right {
        mixer.add(ChannelVolume::new(buffer.clone(), vec![*left, *right]));
    }
    let mut out = vec![0.0f32; BLOCK * 2];
    // The first sample pulled takes every pending source into the mix.
    for s in out.iter_mut() {
        *s = source.next().unwrap_or(0.0);
    }
    let first = out.clone();
    let start = Instant::now();
    for _ in 0..scene.blocks() {
        for s in out.iter_mut() {
            *s = source.next().unwrap_or(0.0);
        }
        black_box(&mut out);
    }
    let elapsed = start.elapsed();
    Ok(Rendered {
        elapsed,
        first,
        last: out,
    })
}
