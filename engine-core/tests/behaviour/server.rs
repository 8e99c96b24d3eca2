//! The sound server end to end: requests through the resource cache into the
//! mixer, with noise reduction (an origin that is playing is refused until its sound
//! ends) and volume from distance, measured in the rendered output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::runtime::Pan;
use engine_core::runtime::SampleTime;
use engine_core::runtime::sink::ControlGroup;
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::server::bank::{SoundDef, distance_volume};
use engine_core::sound::server::{
    Power, Refusal, Request, ServerConfig, SoundServer, project_cache,
};
use std::path::{Path, PathBuf};

/// A folder holding `beep.wav`: 0.1 s of a constant 0.5 at 48 kHz, mono 16-bit.
struct Sounds(PathBuf);

impl Sounds {
    fn new(tag: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("hitbench-server-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 48_000,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::create(dir.join("beep.wav"), spec).unwrap();
        for _ in 0..4800 {
            writer.write_sample(16_384i16).unwrap();
        }
        writer.finalize().unwrap();
        Self(dir)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Sounds {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn server(sounds: &Sounds) -> (SoundServer, Mixer) {
    let (handle, mixer) = mixer(MixerConfig::default());
    let (cache, problems) = project_cache(&[sounds.path().to_path_buf()], 1 << 20);
    assert!(problems.is_empty(), "{problems:?}");
    let config = ServerConfig {
        blocking: true,
        max_range: 1000.0,
        ..ServerConfig::default()
    };
    (SoundServer::new(handle, cache, config, 1), mixer)
}

fn request(sound: u32, origin: Option<i64>, power: Power, at: u64) -> Request {
    Request {
        sound,
        origin,
        power,
        selection: false,
        pan: Pan::CENTRE,
        at: SampleTime::from_samples(at),
    }
}

/// Renders `frames` frames; returns the left channel.
fn render(mixer: &mut Mixer, frames: usize) -> Vec<f32> {
    let mut out = vec![0.0; frames * 2];
    mixer.render(&mut out);
    out.iter().step_by(2).copied().collect()
}

#[test]
fn noise_reduction_refuses_a_busy_origin_until_its_sound_ends() {
    let sounds = Sounds::new("busy");
    let (mut server, mut mixer) = server(&sounds);
    let beep = server
        .bank()
        .register("beep", SoundDef::Simple("beep.wav".into()), None);

    let first = server.play(
        request(beep, Some(7), Power::Volume(1.0), 0),
        ControlGroup::Fx,
    );
    assert!(first.is_ok(), "{first:?}");
    assert!(server.origin_busy(7));
    assert_eq!(
        server.play(
            request(beep, Some(7), Power::Volume(1.0), 0),
            ControlGroup::Fx
        ),
        Err(Refusal::Busy(7)),
        "the same origin is refused while its sound plays"
    );
    assert!(
        server
            .play(
                request(beep, Some(8), Power::Volume(1.0), 0),
                ControlGroup::Fx
            )
            .is_ok(),
        "another origin plays"
    );
    assert!(
        server
            .play(request(beep, None, Power::Volume(1.0), 0), ControlGroup::Fx)
            .is_ok(),
        "a request without an origin is never held back"
    );
    let trace = server.take_trace();
    assert!(
        trace.iter().any(|r| r.message().contains("origin 7")),
        "the refusal is traced: {trace:?}"
    );

    // Half-way through the beep the origin is still busy.
    render(&mut mixer, 2400);
    server.update(SampleTime::from_samples(2400));
    assert!(server.origin_busy(7));
    // After the beep (4,800 frames) and its end, the origin is free again.
    render(&mut mixer, 4800);
    server.update(SampleTime::from_samples(7200));
    assert!(!server.origin_busy(7));
    assert!(
        server
            .play(
                request(beep, Some(7), Power::Volume(1.0), 7200),
                ControlGroup::Fx
            )
            .is_ok()
    );
}

#[test]
fn distance_sets_the_volume_and_out_of_range_is_silent() {
    let sounds = Sounds::new("distance");
    let (mut server, mut mixer) = server(&sounds);
    let near = server
        .bank()
        .register("near", SoundDef::Simple("beep.wav".into()), Some(100.0));

    assert_eq!(
        server.play(
            request(near, None, Power::Distance(150.0), 0),
            ControlGroup::Fx
        ),
        Err(Refusal::Silent),
        "beyond the sound's own range nothing plays"
    );

    // Full volume at distance 0, then the range's middle at frame 9,600.
    server
        .play(
            request(near, None, Power::Distance(0.0), 0),
            ControlGroup::Fx,
        )
        .unwrap();
    server
        .play(
            request(near, None, Power::Distance(50.0), 9600),
            ControlGroup::Fx,
        )
        .unwrap();
    let left = render(&mut mixer, 14_400);
    let close = left[2400];
    let middle = left[9600 + 2400];
    assert!(close > 0.0, "the close sound is heard");
    let expected = distance_volume(50.0, Some(100.0), 1000.0);
    assert!(expected > 0.0 && expected < 1.0);
    assert!(
        (middle / close - expected).abs() < 1e-3,
        "half-way out the level is {} of full, expected {expected}",
        middle / close
    );

    // A sound without its own range uses the global maximum range.
    let far = server
        .bank()
        .register("far", SoundDef::Simple("beep.wav".into()), None);
    assert!(
        server
            .play(
                request(far, None, Power::Distance(500.0), 14_400),
                ControlGroup::Fx
            )
            .is_ok()
    );
    assert_eq!(
        server.play(
            request(far, None, Power::Distance(1500.0), 14_400),
            ControlGroup::Fx
        ),
        Err(Refusal::Silent)
    );
}

#[test]
fn warm_up_loads_the_project_samples_in_the_background() {
    let sounds = Sounds::new("warm");
    std::fs::write(
        sounds.path().join("beep.src"),
        "LIST [Patch] 1=0,beep,\"beep.wav\",0,0,0,0,0\n\
         LIST [Patch] 2=0,gone,\"missing.wav\",0,0,0,0,0\n",
    )
    .unwrap();
    let project = engine_core::toolchain::project::Project::load(sounds.path());
    let (server, _mixer) = server(&sounds);
    assert!(!server.cache().is_cached("beep.wav"));
    assert_eq!(
        server.warm_up(&project),
        1,
        "the sample that exists is queued; the missing one is left to report when played"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !server.cache().is_cached("beep.wav") && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert!(server.cache().is_cached("beep.wav"));
    assert_eq!(
        server.cache().stats().misses(),
        0,
        "loading ahead is not a miss"
    );
}
