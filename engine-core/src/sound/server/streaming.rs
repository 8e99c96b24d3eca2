//! Playing long sounds from disk: which sounds are too long to decode whole, and starting
//! them through the streaming path (`streamer`) — on the streaming thread live, on
//! the server's own thread offline.

use super::lengths::{LengthError, packed_in};
use super::{MUSIC_STREAM_FILE_BYTES, Pending, SoundServer, decode_failure};
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::ControlGroup;
use crate::runtime::trace::SampleEvent;
use crate::sound::audio::decode::{DecodeError, StreamDecoder};
use crate::sound::mixer::{MixCommand, VoiceSource};
use crate::sound::streamer::{FrameSource, Streamer};
use std::path::Path;
use std::sync::Arc;

/// A streamed file as the streaming thread's frame source.
struct StreamSource(StreamDecoder);

impl FrameSource for StreamSource {
    fn sample_rate(&self) -> u32 {
        self.0.info().sample_rate
    }
    fn channels(&self) -> u16 {
        self.0.info().channels
    }
    fn read(&mut self, out: &mut Vec<f32>, max_frames: usize) -> Result<usize, DecodeError> {
        self.0.read(out, max_frames)
    }
    fn rewind(&mut self) -> Result<(), DecodeError> {
        self.0.rewind()
    }
}

impl SoundServer {
    /// The sample of `p`, opened for streaming, when it is too long to be decoded whole:
    /// decoded larger than `stream_bytes` by its headers, or music longer than
    /// `stream_seconds` (music without a length in its headers: a file over 1 MB). A
    /// sample already in the cache plays from there without a look at its file.
    pub(super) fn long_sound(&self, p: &Pending) -> Option<StreamDecoder> {
        if self.cache.is_cached(&p.sample.name) {
            return None;
        }
        let path = Path::new(p.sample.path.as_ref());
        let decoder = StreamDecoder::open(path).ok()?;
        let info = decoder.info();
        let music = p.group == ControlGroup::Music;
        let long = match info.frames {
            Some(frames) => {
                let bytes = frames
                    .saturating_mul(u64::from(info.channels))
                    .saturating_mul(size_of::<f32>() as u64);
                let seconds = frames as f64 / f64::from(info.sample_rate.max(1));
                bytes > self.config.stream_bytes || (music && seconds > self.config.stream_seconds)
            }
            None => {
                music && std::fs::metadata(path).is_ok_and(|m| m.len() > MUSIC_STREAM_FILE_BYTES)
            }
        };
        long.then_some(decoder)
    }

    /// Plays `p` from disk through the streaming path, from `at`. `decoder` is its file
    /// when it is open already.
    pub(super) fn start_stream(
        &mut self,
        p: &Pending,
        at: SampleTime,
        decoder: Option<StreamDecoder>,
    ) {
        if self.streamer.is_none() {
            // Offline (blocking) the server fills the rings itself: deterministic renders.
            let streamer = if self.config.blocking {
                Ok(Streamer::inline())
            } else {
                Streamer::start()
            };
            match streamer {
                Ok(streamer) => self.streamer = Some(streamer),
                Err(e) => {
                    let what = SampleEvent::StreamThreadFailed {
                        note: p.note,
                        reason: e.to_string(),
                    };
                    self.drop_note(p.note, what);
                    return;
                }
            }
        }
        let decoder = match decoder.map_or_else(
            || StreamDecoder::open(Path::new(p.sample.path.as_ref())),
            Ok,
        ) {
            Ok(decoder) => decoder,
            Err(e) => {
                let path = Path::new(p.sample.path.as_ref());
                let reason = match packed_in(path) {
                    Some(pack) => LengthError::PackedTooLong {
                        name: p.sample.name.to_string(),
                        pack: pack.to_path_buf(),
                    }
                    .to_string(),
                    None => e.to_string(),
                };
                let what = SampleEvent::LoadFailed {
                    note: p.note,
                    sample: Arc::clone(&p.sample.name),
                    failure: decode_failure(&e),
                    reason,
                };
                self.drop_note(p.note, what);
                return;
            }
        };
        let Some(streamer) = &mut self.streamer else {
            return;
        };
        match streamer.open(Box::new(StreamSource(decoder)), p.looping) {
            Ok(reader) => {
                self.started += 1;
                self.record(SampleEvent::Streaming {
                    note: p.note,
                    sample: Arc::clone(&p.sample.name),
                });
                self.send_mixer(MixCommand::Start {
                    note: p.note,
                    at: at.samples(),
                    source: VoiceSource::Stream(reader),
                    gain: p.gain,
                    pan: p.pan,
                    pitch: p.pitch,
                    looping: false,
                    group: p.group,
                    reverb: p.reverb,
                });
            }
            Err(e) => {
                let what = SampleEvent::StreamFailed {
                    note: p.note,
                    sample: Arc::clone(&p.sample.name),
                    reason: e.to_string(),
                };
                self.drop_note(p.note, what);
            }
        }
    }
}
