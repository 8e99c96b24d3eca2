//! Where the mixer's output goes: the sound card (cpal), a null output that runs the
//! mixer in real time on a timer thread when there is no sound card, or a WAV file
//! (offline, as fast as the machine allows). [`LoudnessMeter`] measures what is played
//! (EBU R 128 loudness, true peak) as it is made.
//!
//! With no device, ALSA still reports a default device; opening it fails later. Any
//! failure falls back to the null output — never to ALSA's `null` device, which nothing
//! paces — and the reason is kept so the caller can say so once. `HITBENCH_AUDIO=null`
//! forces the null output.

mod loudness;
mod wav;

pub use loudness::{Level, Loudness, LoudnessError, LoudnessMeter};
pub use wav::{
    Quantize, WAV_HEADER_BYTES, WAV_MAX_DATA_BYTES, WAV_MAX_FRAMES, WavError, WavSpec, WavWriter,
    wav_file_bytes,
};

use crate::sound::mixer::{Mixer, MixerConfig, MixerHandle, mixer};
#[cfg(all(feature = "cpal", target_os = "linux"))]
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Environment variable that forces the null output when set to `null`.
pub const AUDIO_ENV: &str = "HITBENCH_AUDIO";

/// Which output to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputChoice {
    /// The sound card, falling back to the null output.
    #[default]
    Auto,
    /// The null output.
    Null,
}

impl OutputChoice {
    /// `Null` if `HITBENCH_AUDIO=null`, else `Auto`.
    pub fn from_env() -> Self {
        match std::env::var(AUDIO_ENV) {
            Ok(v) if v.eq_ignore_ascii_case("null") => OutputChoice::Null,
            _ => OutputChoice::Auto,
        }
    }
}

/// What kind of output is running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputKind {
    /// A sound card.
    Device {
        /// Its name.
        name: String,
    },
    /// The null output, and why.
    Null {
        /// Why there is no sound card output.
        reason: String,
    },
}

impl OutputKind {
    /// A few words for a status bar: "sound card: …" or "null output".
    pub fn short(&self) -> String {
        match self {
            OutputKind::Device { name } => format!("sound card: {name}"),
            OutputKind::Null { .. } => "null output (nothing is heard)".to_string(),
        }
    }

    /// A line for people: "sound card: …", or why there is none and that the null
    /// output plays instead.
    pub fn describe(&self) -> String {
        match self {
            OutputKind::Device { name } => format!("sound card: {name}"),
            OutputKind::Null { reason } => {
                format!("{reason}; playing to the null output in real time (nothing is heard)")
            }
        }
    }
}

/// A running output. Dropping it stops the audio.
pub struct Output {
    /// What it is.
    pub kind: OutputKind,
    /// Output frames per second.
    pub sample_rate: u32,
    /// Frames the output takes from the mixer at once, when known (the null output's
    /// block); the engine stays further ahead of the audio than that.
    pub block_frames: Option<u32>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    #[cfg(feature = "cpal")]
    _stream: Option<cpal::Stream>,
}

impl Drop for Output {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Opens an output and a mixer feeding it; returns the control handle. `config`'s
/// sample rate is a preference: a sound card may choose another (read
/// [`Output::sample_rate`] and make the engine run at it).
pub fn open(choice: OutputChoice, config: MixerConfig) -> (MixerHandle, Output) {
    let reason = match choice {
        OutputChoice::Null => format!("null output requested ({AUDIO_ENV}=null or --null-audio)"),
        OutputChoice::Auto => match open_device(config) {
            Ok(opened) => return opened,
            Err(reason) => reason.to_string(),
        },
    };
    let (handle, mixer) = mixer(config);
    let output = start_null(mixer, config, reason);
    (handle, output)
}

/// Why the sound card output could not be opened (the null output plays instead).
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// Neither a playback device nor an ALSA configuration that routes sound elsewhere.
    #[error(
        "no sound card found: no playback device in /dev/snd and no ALSA configuration \
         that routes sound elsewhere"
    )]
    NoSoundCard,
    /// The sound system has no default output device.
    #[error("no default output device")]
    NoDefaultDevice,
    /// The default device's configuration cannot be read.
    #[error("the default device cannot be used: {0}")]
    Unusable(String),
    /// A stream could not be opened on the device.
    #[error("cannot open a stream on `{device}`: {message}")]
    Stream {
        /// The device's name.
        device: String,
        /// What the sound system said.
        message: String,
    },
    /// The stream was opened but could not be started.
    #[error("cannot start `{device}`: {message}")]
    Start {
        /// The device's name.
        device: String,
        /// What the sound system said.
        message: String,
    },
    /// This build has no sound card output.
    #[error("this build has no sound card output (built without the `cpal` feature)")]
    NotBuilt,
}

/// The null output's block: 40 ms.
const NULL_BLOCKS_PER_SECOND: u32 = 25;

/// Runs the mixer in real time on a timer thread, in 40 ms blocks paced by absolute
/// deadlines (so it never drifts), discarding the sound. (Nothing is heard, so the
/// block's latency does not matter; fewer wakes keep a machine without a sound card
/// quiet.)
pub fn start_null(mut mixer: Mixer, config: MixerConfig, reason: String) -> Output {
    let stop = Arc::new(AtomicBool::new(false));
    let block = (config.sample_rate / NULL_BLOCKS_PER_SECOND).max(1) as usize;
    let period = Duration::from_secs_f64(block as f64 / f64::from(config.sample_rate.max(1)));
    let controls = Arc::clone(mixer_controls(&mixer));
    let thread_stop = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("hitbench-null-output".into())
        .spawn(move || {
            let mut buffer = vec![0.0f32; block * 2];
            let mut deadline = Instant::now();
            while !thread_stop.load(Ordering::Acquire) {
                mixer.render(&mut buffer);
                deadline += period;
                let now = Instant::now();
                if deadline > now {
                    std::thread::sleep(deadline - now);
                } else if now - deadline > period * 4 {
                    // Far behind (the machine stalled): count it and catch up.
                    controls.underruns.fetch_add(1, Ordering::Relaxed);
                    deadline = now;
                }
            }
        })
        .ok();
    Output {
        kind: OutputKind::Null { reason },
        sample_rate: config.sample_rate,
        block_frames: Some(block as u32),
        stop,
        thread,
        #[cfg(feature = "cpal")]
        _stream: None,
    }
}

fn mixer_controls(mixer: &Mixer) -> &Arc<crate::sound::mixer::MixerControls> {
    mixer.controls()
}

/// On Linux, whether ALSA's default device can exist at all: a card with a playback
/// device under `/dev/snd`, or an ALSA configuration that may route sound elsewhere
/// (PulseAudio, PipeWire, JACK). Without either, opening the device can only fail, and
/// trying makes libasound print several lines of errors; so we do not try.
#[cfg(all(feature = "cpal", target_os = "linux"))]
fn alsa_preflight() -> Result<(), DeviceError> {
    let has_playback = std::fs::read_dir("/dev/snd").is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("pcmC") && name.ends_with('p')
        })
    });
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let configured = std::env::var_os("ALSA_CONFIG_PATH").is_some()
        || Path::new("/etc/asound.conf").exists()
        || home.is_some_and(|h| h.join(".asoundrc").exists())
        || ["/etc/alsa/conf.d", "/usr/share/alsa/alsa.conf.d"]
            .iter()
            .any(|dir| std::fs::read_dir(dir).is_ok_and(|mut e| e.next().is_some()));
    if has_playback || configured {
        Ok(())
    } else {
        Err(DeviceError::NoSoundCard)
    }
}

#[cfg(all(feature = "cpal", not(target_os = "linux")))]
fn alsa_preflight() -> Result<(), DeviceError> {
    Ok(())
}

#[cfg(feature = "cpal")]
fn open_device(config: MixerConfig) -> Result<(MixerHandle, Output), DeviceError> {
    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
    alsa_preflight()?;
    let host = cpal::default_host();
    let device = host
        .default_output_device()
        .ok_or(DeviceError::NoDefaultDevice)?;
    let name = device
        .description()
        .map(|d| d.name().to_string())
        .unwrap_or_else(|_| "default device".to_string());
    let supported = device
        .default_output_config()
        .map_err(|e| DeviceError::Unusable(e.to_string()))?;
    let channels = usize::from(supported.channels().max(1));
    let sample_rate = supported.sample_rate();
    let stream_config = cpal::StreamConfig {
        channels: supported.channels(),
        sample_rate,
        buffer_size: cpal::BufferSize::Default,
    };
    let config = MixerConfig {
        sample_rate,
        ..config
    };
    let (handle, mut mixer) = mixer(config);
    let error_controls = Arc::clone(mixer.controls());
    // Stereo scratch for devices with other channel counts, sized up front.
    let mut scratch = vec![0.0f32; config.max_block * 2];
    let stream = device
        .build_output_stream(
            stream_config,
            move |data: &mut [f32], _info: &cpal::OutputCallbackInfo| {
                if channels == 2 {
                    mixer.render(data);
                    return;
                }
                let frames = data.len() / channels;
                let mut done = 0;
                while done < frames {
                    let n = (frames - done).min(scratch.len() / 2);
                    let Some(stereo) = scratch.get_mut(..n * 2) else {
                        return;
                    };
                    mixer.render(stereo);
                    for (i, frame) in stereo.chunks_exact(2).enumerate() {
                        let base = (done + i) * channels;
                        if let Some(out) = data.get_mut(base..base + channels) {
                            for (c, sample) in out.iter_mut().enumerate() {
                                *sample = if c % 2 == 0 { frame[0] } else { frame[1] };
                            }
                        }
                    }
                    done += n;
                }
            },
            move |error: cpal::Error| {
                if error.kind() == cpal::ErrorKind::Xrun {
                    error_controls.underruns.fetch_add(1, Ordering::Relaxed);
                }
            },
            None,
        )
        .map_err(|e| DeviceError::Stream {
            device: name.clone(),
            message: e.to_string(),
        })?;
    stream.play().map_err(|e| DeviceError::Start {
        device: name.clone(),
        message: e.to_string(),
    })?;
    Ok((
        handle,
        Output {
            kind: OutputKind::Device { name },
            sample_rate,
            // The device asks for what it needs in its callback; the sound system's
            // buffer size is not known here.
            block_frames: None,
            stop: Arc::new(AtomicBool::new(false)),
            thread: None,
            _stream: Some(stream),
        },
    ))
}

#[cfg(not(feature = "cpal"))]
fn open_device(_config: MixerConfig) -> Result<(MixerHandle, Output), DeviceError> {
    Err(DeviceError::NotBuilt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_output_runs_in_real_time() {
        let (handle, output) = open(OutputChoice::Null, MixerConfig::default());
        assert!(matches!(output.kind, OutputKind::Null { .. }));
        assert!(output.kind.describe().starts_with("null output"));
        std::thread::sleep(Duration::from_millis(300));
        let position = handle.position();
        // 0.3 s at 48 kHz = 14,400 frames; allow for scheduling slack.
        assert!((9_600..=19_200).contains(&position), "{position}");
        drop(output);
        let after = handle.position();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(handle.position(), after, "stopped");
    }
}
