//! The mixer on its own: sample-accurate starts, resampling, ramps, fades, group
//! volumes, soft clipping, determinism — and the real-time rule that rendering never
//! allocates (checked with an allocation guard over many blocks).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_no_alloc::{AllocDisabler, assert_no_alloc};
use engine_core::runtime::sink::ControlGroup;
use engine_core::runtime::{Gain, Pan};
use engine_core::sound::audio::SampleBuffer;
use engine_core::sound::cache::{Handle, Resource};
use engine_core::sound::mixer::{
    Interpolation, MixCommand, MixEvent, MixerConfig, VoiceSource, mixer,
};
use std::sync::Arc;

#[global_allocator]
static ALLOCATOR: AllocDisabler = AllocDisabler;

fn tone(rate: u32, frames: usize, value: f32) -> Handle {
    Arc::new(Resource::from_samples(
        "tone",
        SampleBuffer {
            sample_rate: rate,
            channels: 1,
            data: vec![value; frames],
        },
    ))
}

fn start(
    note: u64,
    at: u64,
    sample: &Handle,
    gain: f32,
    pan: f32,
    group: ControlGroup,
) -> MixCommand {
    MixCommand::Start {
        note,
        at,
        source: VoiceSource::Sample(Arc::clone(sample)),
        gain: Gain::new(gain),
        pan: Pan::new(pan),
        pitch: 1.0,
        looping: false,
        group,
        reverb: false,
    }
}

#[test]
fn a_voice_starts_on_its_exact_frame_within_a_block() {
    let (mut handle, mut mixer) = mixer(MixerConfig::default());
    let sample = tone(48_000, 1000, 0.5);
    handle
        .send(start(1, 1000, &sample, 1.0, -1.0, ControlGroup::Fx))
        .unwrap();
    let mut out = vec![0.0; 512 * 2 * 4];
    mixer.render(&mut out);
    let first = out.iter().step_by(2).position(|s| *s != 0.0).unwrap();
    assert_eq!(
        first, 1000,
        "starts exactly at frame 1000, not at a block edge"
    );
    let events = handle.events();
    assert_eq!(
        events[0],
        MixEvent::Started {
            note: 1,
            at: 1000,
            late: 0
        }
    );
}

#[test]
fn resampling_keeps_duration_and_voices_end() {
    let (mut handle, mut mixer) = mixer(MixerConfig::default());
    // 22,050 frames at 22,050 Hz last one second: 48,000 output frames.
    let sample = tone(22_050, 22_050, 0.25);
    handle
        .send(start(7, 0, &sample, 1.0, 0.0, ControlGroup::Fx))
        .unwrap();
    let mut out = vec![0.0; 50_000 * 2];
    mixer.render(&mut out);
    let sounding = out.iter().step_by(2).filter(|s| s.abs() > 1e-6).count();
    assert!((47_990..=48_001).contains(&sounding), "{sounding}");
    let ended = handle.events().into_iter().find_map(|e| match e {
        MixEvent::Ended { note: 7, at } => Some(at),
        _ => None,
    });
    assert!(
        matches!(ended, Some(at) if (47_995..=48_001).contains(&at)),
        "{ended:?}"
    );
    assert_eq!(
        handle.collect_retired(),
        1,
        "the buffer came back to be freed"
    );
}

#[test]
fn stop_fades_out_over_five_milliseconds() {
    let (mut handle, mut mixer) = mixer(MixerConfig::default());
    let sample = tone(48_000, 48_000, 1.0);
    handle
        .send(start(1, 0, &sample, 0.5, 0.0, ControlGroup::Fx))
        .unwrap();
    handle.send(MixCommand::Stop { note: 1, at: 1000 }).unwrap();
    let mut out = vec![0.0; 2000 * 2];
    mixer.render(&mut out);
    let left: Vec<f32> = out.iter().step_by(2).copied().collect();
    let full = left[999];
    assert!(full > 0.3);
    assert!(left[1100] < full && left[1100] > 0.0, "fading");
    assert_eq!(left[1000 + 240], 0.0, "silent after 240 frames (5 ms)");
    assert!(
        left.windows(2)
            .skip(1000)
            .take(240)
            .all(|w| w[1] <= w[0] + 1e-6),
        "monotone fade"
    );
}

#[test]
fn gain_ramps_have_no_steps() {
    let (mut handle, mut mixer) = mixer(MixerConfig::default());
    let sample = tone(48_000, 48_000, 1.0);
    handle
        .send(start(1, 0, &sample, 0.0, -1.0, ControlGroup::Fx))
        .unwrap();
    handle
        .send(MixCommand::SetGain {
            note: 1,
            at: 100,
            gain: Gain::new(0.8),
            ramp: 480,
        })
        .unwrap();
    let mut out = vec![0.0; 1000 * 2];
    mixer.render(&mut out);
    let left: Vec<f32> = out.iter().step_by(2).copied().collect();
    assert_eq!(left[99], 0.0);
    let biggest_step = left
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0f32, f32::max);
    assert!(biggest_step < 0.8 / 480.0 * 1.01 + 1e-6, "{biggest_step}");
    assert!((left[700] - 0.8).abs() < 1e-3);
}

#[test]
fn group_and_master_volumes_apply_and_meters_report() {
    let (mut handle, mut mixer) = mixer(MixerConfig::default());
    let sample = tone(48_000, 48_000, 0.5);
    handle
        .send(start(1, 0, &sample, 1.0, -1.0, ControlGroup::Music))
        .unwrap();
    handle.controls.set_group_volume(ControlGroup::Music, 0.5);
    handle.controls.set_master(0.5);
    let mut out = vec![0.0; 1024 * 2];
    mixer.render(&mut out); // the volumes ramp in over this block
    mixer.render(&mut out);
    assert!((out[0] - 0.125).abs() < 1e-5, "{}", out[0]);
    let snapshot = handle.controls.snapshot();
    assert!(
        (snapshot.peaks[1] - 0.125).abs() < 1e-5,
        "{:?}",
        snapshot.peaks
    );
    assert_eq!(snapshot.peaks[0], 0.0);
    assert_eq!(snapshot.voices, 1);
    assert_eq!(snapshot.position, 2048);
}

#[test]
fn loud_sums_are_soft_clipped_below_full_scale() {
    let (mut handle, mut mixer) = mixer(MixerConfig::default());
    let sample = tone(48_000, 4800, 1.0);
    for note in 0..8 {
        handle
            .send(start(note, 0, &sample, 1.0, 0.0, ControlGroup::Fx))
            .unwrap();
    }
    let mut out = vec![0.0; 1000 * 2];
    mixer.render(&mut out);
    assert!(out.iter().all(|s| s.abs() <= 1.0));
    assert!(handle.controls.snapshot().clipped > 0);
}

#[test]
fn looping_voices_play_until_stopped() {
    let (mut handle, mut mixer) = mixer(MixerConfig::default());
    let sample = tone(48_000, 100, 0.5);
    handle
        .send(MixCommand::Start {
            note: 3,
            at: 0,
            source: VoiceSource::Sample(Arc::clone(&sample)),
            gain: Gain::UNITY,
            pan: Pan::CENTRE,
            pitch: 1.0,
            looping: true,
            group: ControlGroup::Fx,
            reverb: false,
        })
        .unwrap();
    let mut out = vec![0.0; 10_000 * 2];
    mixer.render(&mut out);
    assert!(out.iter().step_by(2).all(|s| s.abs() > 0.1));
    assert!(
        !handle
            .events()
            .iter()
            .any(|e| matches!(e, MixEvent::Ended { .. }))
    );
}

#[test]
fn same_commands_same_output() {
    for interpolation in [Interpolation::Linear, Interpolation::Cubic] {
        same_output(interpolation);
    }
}

fn same_output(interpolation: Interpolation) {
    let render = || {
        let (mut handle, mut mixer) = mixer(MixerConfig {
            interpolation,
            ..MixerConfig::default()
        });
        let a = tone(22_050, 9000, 0.3);
        let b = tone(11_025, 3000, -0.2);
        handle
            .send(start(1, 17, &a, 0.9, -0.3, ControlGroup::Fx))
            .unwrap();
        handle
            .send(start(2, 1234, &b, 0.7, 0.6, ControlGroup::Vox))
            .unwrap();
        handle
            .send(MixCommand::SetPan {
                note: 1,
                at: 3000,
                pan: Pan::new(0.9),
                ramp: 200,
            })
            .unwrap();
        let mut out = vec![0.0; 20_000 * 2];
        mixer.render(&mut out);
        out
    };
    assert_eq!(render(), render());
}

#[test]
fn rendering_never_allocates() {
    for interpolation in [Interpolation::Linear, Interpolation::Cubic] {
        never_allocates(interpolation);
    }
}

fn never_allocates(interpolation: Interpolation) {
    let config = MixerConfig {
        max_voices: 64,
        interpolation,
        ..MixerConfig::default()
    };
    let (mut handle, mut mixer) = mixer(config);
    let samples: Vec<Handle> = (0..8)
        .map(|i| tone(22_050 + i * 1000, 3000 + i as usize * 500, 0.1))
        .collect();
    let mut out = vec![0.0; 512 * 2];
    let mut note = 0;
    for block in 0..400u64 {
        // The control side allocates; the audio side must not.
        for (i, sample) in samples.iter().enumerate() {
            if block % (i as u64 + 2) == 0 {
                note += 1;
                // Every other note goes through the room reverb (on half the time).
                let mut command = start(
                    note,
                    block * 512 + 100,
                    sample,
                    0.5,
                    0.0,
                    if note % 2 == 0 {
                        ControlGroup::Fx
                    } else {
                        ControlGroup::Vox
                    },
                );
                if let MixCommand::Start { reverb, .. } = &mut command {
                    *reverb = note % 2 == 0;
                }
                let _ = handle.send(command);
                let _ = handle.send(MixCommand::SetGain {
                    note,
                    at: block * 512 + 300,
                    gain: Gain::new(0.2),
                    ramp: 100,
                });
                if note % 3 == 0 {
                    let _ = handle.send(MixCommand::Stop {
                        note: note - 1,
                        at: block * 512 + 50,
                    });
                }
            }
        }
        handle
            .controls
            .reverb
            .set(if (block / 50) % 2 == 0 { 0.6 } else { 0.0 });
        assert_no_alloc(|| mixer.render(&mut out));
        handle.events();
        handle.collect_retired();
    }
    assert!(handle.controls.snapshot().voices > 0);
}

#[test]
fn the_room_reverb_rings_on_only_for_voices_sent_to_it_and_only_when_on() {
    // A 10 ms click; what is heard 50–150 ms later is the room.
    let tail = |send: bool, wet: f32| {
        let (mut handle, mut mixer) = mixer(MixerConfig::default());
        handle.controls.reverb.set(wet);
        let click = tone(48_000, 480, 0.5);
        let mut command = start(1, 0, &click, 1.0, 0.0, ControlGroup::Fx);
        if let MixCommand::Start { reverb, .. } = &mut command {
            *reverb = send;
        }
        handle.send(command).unwrap();
        let mut out = vec![0.0; 48_000 * 2];
        mixer.render(&mut out);
        out[2400 * 2..7200 * 2].iter().map(|s| s * s).sum::<f32>()
    };
    assert!(tail(true, 0.8) > 1e-3, "a sent voice rings in the room");
    assert_eq!(tail(true, 0.0), 0.0, "reverb off: dry only");
    assert_eq!(tail(false, 0.8), 0.0, "a voice not sent stays dry");
}

/// A 220 Hz sine at 22,050 Hz, 16-bit, `frames` long.
fn sine(frames: usize) -> Handle {
    let data = (0..frames)
        .map(|i| {
            let v = (std::f32::consts::TAU * 220.0 * i as f32 / 22_050.0).sin();
            (v * 0.5 * 32_767.0).round() / 32_768.0
        })
        .collect();
    Arc::new(Resource::from_samples(
        "sine",
        SampleBuffer {
            sample_rate: 22_050,
            channels: 1,
            data,
        },
    ))
}

/// Renders `voices` copies of the sine (each its own gain and pan) in blocks of
/// `block` frames.
fn render_sines(interpolation: Interpolation, voices: u64, block: usize) -> Vec<f32> {
    let (mut handle, mut mixer) = mixer(MixerConfig {
        interpolation,
        max_block: 512,
        ..MixerConfig::default()
    });
    let s = sine(30_000);
    for note in 0..voices {
        let pan = note as f32 / voices as f32 * 2.0 - 1.0;
        let gain = 0.1 + 0.02 * note as f32;
        handle
            .send(start(note, note * 37, &s, gain, pan, ControlGroup::Fx))
            .unwrap();
    }
    let mut out = vec![0.0; 9_000 * 2];
    for chunk in out.chunks_mut(block * 2) {
        mixer.render(chunk);
    }
    out
}

#[test]
fn cubic_mixes_the_same_sound_as_linear_however_the_blocks_are_cut() {
    let rms = |x: &[f32]| (x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32).sqrt();
    let linear = render_sines(Interpolation::Linear, 12, 512);
    let cubic = render_sines(Interpolation::Cubic, 12, 512);
    assert_ne!(linear, cubic, "the setting changes the arithmetic");
    // Same level and the same sound, to well within the linear mode's own error.
    assert!((rms(&cubic) / rms(&linear) - 1.0).abs() < 0.01);
    let diff: Vec<f32> = linear.iter().zip(&cubic).map(|(a, b)| a - b).collect();
    assert!(rms(&diff) < rms(&linear) * 0.01, "{}", rms(&diff));
    // Bit for bit the same whatever the block size (the SIMD loops run eight frames at
    // a time; odd blocks cut them anywhere).
    for interpolation in [Interpolation::Linear, Interpolation::Cubic] {
        let whole = render_sines(interpolation, 12, 512);
        for block in [1, 7, 64, 333] {
            let cut = render_sines(interpolation, 12, block);
            assert!(
                whole
                    .iter()
                    .zip(&cut)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{interpolation:?} in blocks of {block}"
            );
        }
    }
}
