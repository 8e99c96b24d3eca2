//! MP3, Ogg Vorbis and FLAC through symphonia 0.6, from memory or from a file, with gapless
//! trimming on.
//!
//! Symphonia is not trusted with hostile bytes: every call into it runs inside
//! `catch_unwind`, and a panic ends the stream like any other error (the panic hook still
//! prints its message to stderr). A stream that breaks midway yields the audio decoded so
//! far, with a message saying why it stopped; a packet the codec rejects is skipped (and
//! reported) rather than ending the stream, but too many in a row end it. Every loop ends at
//! the end of the stream, on an error, or at a step limit, so nothing can spin forever.
//!
//! The parts: [`readers`] gives each format its own symphonia reader and codec and puts
//! symphonia's errors and panics into words; [`packets`] decodes packet by packet and
//! keeps account of the damage; [`whole`] decodes a whole file within the limits and the
//! memory budget. Here: opening a stream and handing out its frames.

mod packets;
mod readers;
mod whole;

use std::panic::{AssertUnwindSafe, catch_unwind};

use symphonia::core::audio::Channels;
use symphonia::core::codecs::audio::{AudioDecoder, AudioDecoderOptions};
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, FormatReader, TrackType};
use symphonia::core::io::{MediaSource, MediaSourceStream, MediaSourceStreamOptions};
use symphonia::core::meta::MetadataOptions;
use symphonia::core::units::TimeBase;

use super::detect::CompressedKind;
use super::mix::{Mix, output_channels};
use super::{AudioInfo, DecodeError, check_rate};
use readers::{codec_for, extension_for, open_error, panic_message, probe_for};

pub(crate) use whole::{decode_slice, probe_slice};

/// Where the stream is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Running,
    Ended,
    Failed(String),
    Crashed(String),
}

/// An open symphonia stream that hands out interleaved output frames.
pub(crate) struct Compressed<'s> {
    kind: CompressedKind,
    reader: Box<dyn FormatReader + 's>,
    decoder: Box<dyn AudioDecoder>,
    track_id: u32,
    info: AudioInfo,
    /// Samples of the last packet as symphonia laid them out.
    scratch: Vec<f32>,
    /// Output samples of the last packet, and how many of them were handed out.
    pending: Vec<f32>,
    pending_pos: usize,
    /// Channel mapping, and the (channels, positions) it was built for: MP3 may switch
    /// between mono and stereo from frame to frame.
    mix: Mix,
    mix_key: (usize, u64),
    /// Frames handed out since opening.
    frames_out: u64,
    state: State,
    bad_packets: u32,
    bad_in_a_row: u32,
    first_bad: Option<String>,
    idle_steps: u32,
    /// Timestamp the next packet should have, when timestamps count frames (a jump past it
    /// means the demuxer dropped damaged data, e.g. an Ogg page with a bad checksum).
    expected_ts: Option<i64>,
    track_ts_in_frames: bool,
    gaps: u32,
    gap_frames: u64,
    first_gap_at: i64,
    /// Frames the stream header promises, when that is exact (FLAC's STREAMINFO).
    promised_frames: Option<u64>,
    partial: Option<String>,
}

fn positions(channels: &Channels) -> u64 {
    match channels {
        Channels::Positioned(p) => p.bits(),
        _ => 0,
    }
}

impl<'s> Compressed<'s> {
    /// Opens a stream of `kind` on `source`; a panic inside symphonia becomes an error.
    pub(crate) fn open(
        source: Box<dyn MediaSource + 's>,
        kind: CompressedKind,
    ) -> Result<Self, DecodeError> {
        catch_unwind(AssertUnwindSafe(move || Self::open_unguarded(source, kind))).unwrap_or_else(
            |payload| {
                Err(DecodeError::DecoderCrashed {
                    format: kind.name(),
                    message: panic_message(payload.as_ref()),
                })
            },
        )
    }

    fn open_unguarded(
        source: Box<dyn MediaSource + 's>,
        kind: CompressedKind,
    ) -> Result<Self, DecodeError> {
        let format = kind.name();
        let invalid = |detail: &str| DecodeError::Invalid {
            format,
            detail: detail.to_owned(),
        };
        let mss = MediaSourceStream::new(source, MediaSourceStreamOptions::default());
        let mut hint = Hint::new();
        hint.with_extension(extension_for(kind));
        let reader = probe_for(kind)
            .probe(
                &hint,
                mss,
                FormatOptions::default(),
                MetadataOptions::default(),
            )
            .map_err(|e| open_error(kind, &e))?;
        let track = reader
            .default_track(TrackType::Audio)
            .ok_or_else(|| invalid("it holds no audio track"))?;
        let params = track
            .codec_params
            .as_ref()
            .and_then(|p| p.audio())
            .ok_or_else(|| invalid("its audio track has no codec parameters"))?
            .clone();
        if params.codec != codec_for(kind) {
            return Err(DecodeError::Unsupported {
                what: format!("this {format} file's codec ({})", params.codec),
            });
        }
        let sample_rate = params
            .sample_rate
            .filter(|&r| r > 0)
            .ok_or_else(|| invalid("its stream header gives no sample rate"))?;
        check_rate(format, "its stream header", sample_rate)?;
        let channels = params.channels.clone().unwrap_or_default();
        let count = channels.count();
        if count == 0 {
            return Err(invalid("its stream header says it has no channels"));
        }
        let source_channels = u16::try_from(count).unwrap_or(u16::MAX);
        let out_channels = output_channels(source_channels);
        let bits = match kind {
            CompressedKind::Flac => params.bits_per_sample.and_then(|b| u16::try_from(b).ok()),
            CompressedKind::Mp3 | CompressedKind::OggVorbis => None,
        };
        let info = AudioInfo {
            format: kind.format(),
            sample_rate,
            channels: out_channels,
            source_channels,
            bits,
            frames: track.num_frames,
        };
        let track_id = track.id;
        let track_ts_in_frames = track.time_base == TimeBase::try_from_recip(sample_rate);
        let promised_frames = match kind {
            CompressedKind::Flac => track.num_frames.filter(|&n| n > 0),
            CompressedKind::Mp3 | CompressedKind::OggVorbis => None,
        };
        let decoder = symphonia::default::get_codecs()
            .make_audio_decoder(&params, &AudioDecoderOptions::default().gapless(true))
            .map_err(|e| open_error(kind, &e))?;
        let mix_key = (count, positions(&channels));
        Ok(Self {
            kind,
            reader,
            decoder,
            track_id,
            info,
            scratch: Vec::new(),
            pending: Vec::new(),
            pending_pos: 0,
            mix: Mix::new(count, usize::from(out_channels), mix_key.1),
            mix_key,
            frames_out: 0,
            state: State::Running,
            bad_packets: 0,
            bad_in_a_row: 0,
            first_bad: None,
            idle_steps: 0,
            expected_ts: None,
            track_ts_in_frames,
            gaps: 0,
            gap_frames: 0,
            first_gap_at: 0,
            promised_frames,
            partial: None,
        })
    }

    pub(crate) fn info(&self) -> &AudioInfo {
        &self.info
    }

    /// Why the stream is (or will be) incomplete, if it is.
    pub(crate) fn partial(&self) -> Option<&str> {
        self.partial.as_deref()
    }

    /// Appends up to `max_frames` output frames to `out`; see `StreamDecoder::read`.
    pub(crate) fn read(
        &mut self,
        out: &mut Vec<f32>,
        max_frames: usize,
    ) -> Result<usize, DecodeError> {
        let channels = usize::from(self.info.channels).max(1);
        let mut done = 0usize;
        while done < max_frames && self.fill() {
            let rest = self.pending.get(self.pending_pos..).unwrap_or(&[]);
            let take = (rest.len() / channels).min(max_frames - done);
            out.extend_from_slice(rest.get(..take * channels).unwrap_or(&[]));
            self.pending_pos += take * channels;
            if take == 0 {
                // Only a fraction of a frame left (cannot happen with whole-frame mixing).
                self.pending_pos = self.pending.len();
            }
            done += take;
            self.frames_out += take as u64;
        }
        if self.frames_out == 0
            && let Some(e) = self.nothing_decoded()
        {
            return Err(e);
        }
        Ok(done)
    }
}

#[cfg(test)]
pub(crate) mod tests;
