//! MP3, Ogg Vorbis and FLAC through symphonia 0.6, from memory or from a file, with gapless
//! trimming on.
//!
//! Symphonia is not trusted with hostile bytes: every call into it runs inside
//! `catch_unwind`, and a panic ends the stream like any other error (the panic hook still
//! prints its message to stderr). A stream that breaks midway yields the audio decoded so
//! far, with a message saying why it stopped; a packet the codec rejects is skipped (and
//! reported) rather than ending the stream, but too many in a row end it. Every loop ends at
//! the end of the stream, on an error, or at a step limit, so nothing can spin forever.

use std::any::Any;
use std::io::{self, Cursor};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::LazyLock;

use symphonia::core::audio::Channels;
use symphonia::core::codecs::audio::well_known::{CODEC_ID_FLAC, CODEC_ID_MP3, CODEC_ID_VORBIS};
use symphonia::core::codecs::audio::{AudioCodecId, AudioDecoder, AudioDecoderOptions};
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::{Hint, Probe};
use symphonia::core::formats::{FormatOptions, FormatReader, TrackType};
use symphonia::core::io::{MediaSource, MediaSourceStream, MediaSourceStreamOptions};
use symphonia::core::meta::MetadataOptions;
use symphonia::core::units::TimeBase;
use symphonia::default::formats::{FlacReader, MpaReader, OggReader};
use symphonia::default::meta::{ApeReader, Id3v1Reader, Id3v2Reader};

use super::detect::CompressedKind;
use super::mix::{Mix, output_channels};
use super::output::Output;
use super::{AudioInfo, DecodeError, DecodeLimits, Decoded, check_rate};
use crate::sound::audio::{MemoryBudget, SampleBuffer};

/// Undecodable packets in a row after which a stream is given up.
const MAX_BAD_PACKETS_IN_A_ROW: u32 = 64;
/// Packets in a row that yield no audio after which a stream is given up (a real stream has
/// a few header packets; this stops a reader that never ends from spinning).
const MAX_IDLE_STEPS: u32 = 10_000;
/// Frames moved per step of a whole-file decode.
const DECODE_CHUNK_FRAMES: u64 = 1 << 16;

/// Readers for one format only, so that symphonia cannot pick a different container than the
/// one the content was detected as.
static MP3_PROBE: LazyLock<Probe> = LazyLock::new(|| {
    let mut p = Probe::default();
    p.register_format::<MpaReader<'_>>();
    p.register_metadata::<Id3v2Reader<'_>>();
    p.register_metadata::<Id3v1Reader<'_>>();
    p.register_metadata::<ApeReader<'_>>();
    p
});
static OGG_PROBE: LazyLock<Probe> = LazyLock::new(|| {
    let mut p = Probe::default();
    p.register_format::<OggReader<'_>>();
    p
});
static FLAC_PROBE: LazyLock<Probe> = LazyLock::new(|| {
    let mut p = Probe::default();
    p.register_format::<FlacReader<'_>>();
    p.register_metadata::<Id3v2Reader<'_>>();
    p
});

fn probe_for(kind: CompressedKind) -> &'static Probe {
    match kind {
        CompressedKind::Mp3 => &MP3_PROBE,
        CompressedKind::OggVorbis => &OGG_PROBE,
        CompressedKind::Flac => &FLAC_PROBE,
    }
}

fn codec_for(kind: CompressedKind) -> AudioCodecId {
    match kind {
        CompressedKind::Mp3 => CODEC_ID_MP3,
        CompressedKind::OggVorbis => CODEC_ID_VORBIS,
        CompressedKind::Flac => CODEC_ID_FLAC,
    }
}

fn extension_for(kind: CompressedKind) -> &'static str {
    match kind {
        CompressedKind::Mp3 => "mp3",
        CompressedKind::OggVorbis => "ogg",
        CompressedKind::Flac => "flac",
    }
}

/// A panic payload as text.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with no message".to_owned()
    }
}

/// A symphonia error in words.
fn describe(e: &SymphoniaError) -> String {
    match e {
        SymphoniaError::IoError(io) if io.kind() == io::ErrorKind::UnexpectedEof => {
            "the file ends in the middle of the stream (cut short?)".to_owned()
        }
        SymphoniaError::IoError(io) => format!("read error: {io}"),
        SymphoniaError::DecodeError(m) => format!("malformed data ({m})"),
        SymphoniaError::Unsupported(m) => format!("unsupported feature ({m})"),
        SymphoniaError::LimitError(m) => format!("a safety limit was reached ({m})"),
        SymphoniaError::ResetRequired => {
            "the stream changes its format partway (chained streams); only the first part was \
             decoded"
                .to_owned()
        }
        other => other.to_string(),
    }
}

/// The error for a stream that could not even be opened.
fn open_error(kind: CompressedKind, e: &SymphoniaError) -> DecodeError {
    let format = kind.name();
    match e {
        SymphoniaError::Unsupported(m) if m.contains("no suitable") => DecodeError::Invalid {
            format,
            detail: format!("no readable {format} stream was found in it"),
        },
        SymphoniaError::Unsupported(m) => DecodeError::Unsupported {
            what: format!("this {format} stream ({m})"),
        },
        other => DecodeError::Invalid {
            format,
            detail: describe(other),
        },
    }
}

/// How one step of decoding went.
enum Step {
    /// A packet was decoded (its audio, possibly none, is pending).
    Audio,
    /// A packet was passed over (another track, or damaged).
    Skipped,
    /// The stream ended normally.
    End,
    /// The stream cannot go on; why.
    Fail(String),
    /// Symphonia panicked; the message.
    Crash(String),
}

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

    /// Reads and decodes one packet.
    fn step(&mut self) -> Step {
        let packet = match self.reader.next_packet() {
            Ok(Some(p)) => p,
            Ok(None) => return Step::End,
            Err(e) => return Step::Fail(describe(&e)),
        };
        if packet.track_id != self.track_id {
            return Step::Skipped;
        }
        if self.track_ts_in_frames {
            let start = packet.pts.get();
            if let Some(expected) = self.expected_ts.filter(|&e| start > e) {
                self.gaps = self.gaps.saturating_add(1);
                let missing = u64::try_from(start.saturating_sub(expected)).unwrap_or(0);
                self.gap_frames = self.gap_frames.saturating_add(missing);
                if self.gaps == 1 {
                    self.first_gap_at = expected;
                }
            }
            let span = packet
                .trim_start
                .get()
                .saturating_add(packet.dur.get())
                .saturating_add(packet.trim_end.get());
            self.expected_ts = Some(start.saturating_add(i64::try_from(span).unwrap_or(i64::MAX)));
        }
        match self.decoder.decode(&packet) {
            Ok(buf) => {
                let spec = buf.spec();
                if spec.rate() != self.info.sample_rate {
                    return Step::Fail(format!(
                        "the sample rate changes partway, from {} to {} Hz",
                        self.info.sample_rate,
                        spec.rate()
                    ));
                }
                let key = (spec.channels().count(), positions(spec.channels()));
                buf.copy_to_vec_interleaved(&mut self.scratch);
                if key != self.mix_key {
                    self.mix = Mix::new(key.0, usize::from(self.info.channels), key.1);
                    self.mix_key = key;
                }
                self.pending.clear();
                self.pending_pos = 0;
                if key.0 > 0 {
                    self.mix.apply(&self.scratch, &mut self.pending);
                }
                self.bad_in_a_row = 0;
                Step::Audio
            }
            // A damaged packet: skip it, the next one may be fine.
            Err(e @ (SymphoniaError::DecodeError(_) | SymphoniaError::IoError(_))) => {
                self.bad_packets = self.bad_packets.saturating_add(1);
                self.bad_in_a_row = self.bad_in_a_row.saturating_add(1);
                let text = describe(&e);
                if self.bad_in_a_row >= MAX_BAD_PACKETS_IN_A_ROW {
                    return Step::Fail(format!(
                        "{} packets in a row could not be decoded (the last: {text})",
                        self.bad_in_a_row
                    ));
                }
                self.first_bad.get_or_insert(text);
                Step::Skipped
            }
            Err(e) => Step::Fail(describe(&e)),
        }
    }

    /// Makes sure output is pending; false once the stream is over.
    fn fill(&mut self) -> bool {
        while self.pending_pos >= self.pending.len() {
            if self.state != State::Running {
                return false;
            }
            let step = catch_unwind(AssertUnwindSafe(|| self.step()))
                .unwrap_or_else(|payload| Step::Crash(panic_message(payload.as_ref())));
            match step {
                Step::Audio if self.pending.is_empty() => self.idle(),
                Step::Audio => self.idle_steps = 0,
                Step::Skipped => self.idle(),
                Step::End => self.end(),
                Step::Fail(m) => self.state = State::Failed(m),
                Step::Crash(m) => self.state = State::Crashed(m),
            }
            self.update_partial();
        }
        true
    }

    /// The stream ended normally; a FLAC stream that ends short of what its header promised
    /// was cut off at a frame boundary.
    fn end(&mut self) {
        self.state = match self.promised_frames {
            Some(promised) if self.frames_out + self.pending_frames() < promised => {
                State::Failed(format!(
                    "the stream header says {promised} frames but the stream ends after {} (cut \
                     short?)",
                    self.frames_out + self.pending_frames()
                ))
            }
            _ => State::Ended,
        };
    }

    fn pending_frames(&self) -> u64 {
        let rest = self.pending.len().saturating_sub(self.pending_pos);
        (rest / usize::from(self.info.channels).max(1)) as u64
    }

    fn idle(&mut self) {
        self.idle_steps += 1;
        if self.idle_steps >= MAX_IDLE_STEPS {
            self.state = State::Failed(format!("no audio in {MAX_IDLE_STEPS} packets in a row"));
        }
    }

    fn update_partial(&mut self) {
        let skipped = self.first_bad.as_ref().map(|first| {
            format!(
                "{} damaged packet(s) were skipped (the first: {first})",
                self.bad_packets
            )
        });
        let gaps = (self.gaps > 0).then(|| {
            format!(
                "{} frames are missing in {} place(s), the first at {:.2} s (damaged data was \
                 dropped)",
                self.gap_frames,
                self.gaps,
                self.first_gap_at as f64 / f64::from(self.info.sample_rate.max(1))
            )
        });
        let skipped = match (skipped, gaps) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
        let stopped = match &self.state {
            State::Running | State::Ended => None,
            State::Failed(m) => Some(format!("decoding stopped early: {m}")),
            State::Crashed(m) => Some(format!("the decoder crashed partway ({m})")),
        };
        self.partial = match (stopped, skipped) {
            (Some(a), Some(b)) => Some(format!("{a}; also {b}")),
            (a, b) => a.or(b),
        };
    }

    /// The error for a stream that ended without a single frame.
    fn nothing_decoded(&self) -> Option<DecodeError> {
        let format = self.kind.name();
        match &self.state {
            State::Failed(m) => Some(DecodeError::NoAudio {
                format,
                detail: m.clone(),
            }),
            State::Crashed(m) => Some(DecodeError::DecoderCrashed {
                format,
                message: m.clone(),
            }),
            State::Running | State::Ended => None,
        }
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

    /// Decodes everything that is left, up to `limits.max_frames` and `limits.max_bytes`,
    /// reserving the samples from `budget` before each allocation.
    fn decode_all(
        mut self,
        limits: &DecodeLimits,
        budget: &mut dyn MemoryBudget,
    ) -> Result<Decoded, DecodeError> {
        let channels = usize::from(self.info.channels).max(1);
        let too_long = DecodeError::TooLong {
            max_frames: limits.max_frames,
            sample_rate: self.info.sample_rate,
        };
        let mut output = Output::new(budget, limits);
        // FLAC says how long it is: a size over the limit is refused before decoding, and
        // the samples are allocated once.
        let mut promised = self.promised_frames;
        if let Some(frames) = promised {
            if frames > limits.max_frames {
                return Err(too_long);
            }
            output.expect(frames.saturating_mul(channels as u64))?;
        }
        loop {
            let frames_left = limits.max_frames.saturating_sub(self.frames_out);
            let mut want = DECODE_CHUNK_FRAMES
                .min(frames_left)
                .min((output.room() / channels) as u64);
            // Up to the promised length, the room made for it is enough.
            let promised_left = promised.map(|p| p.saturating_sub(self.frames_out));
            if let Some(left) = promised_left.filter(|&left| left > 0) {
                want = want.min(left);
            }
            let want = usize::try_from(want).unwrap_or(0);
            if want == 0 || promised_left == Some(0) {
                // At a limit or at the promised end: is there more?
                let mut one = Vec::with_capacity(channels);
                if self.read(&mut one, 1)? == 0 {
                    break;
                }
                if want == 0 {
                    return Err(if frames_left == 0 {
                        too_long
                    } else {
                        output.too_large()
                    });
                }
                // Longer than the header said: grow step by step from here.
                promised = None;
                output.room_for(one.len())?;
                output.samples().extend_from_slice(&one);
                continue;
            }
            output.room_for(want * channels)?;
            if self.read(output.samples(), want)? == 0 {
                break;
            }
        }
        let data = output.finish();
        let info = self.info.clone();
        Ok(Decoded {
            buffer: SampleBuffer {
                sample_rate: info.sample_rate,
                channels: info.channels,
                data,
            },
            info,
            partial: self.partial,
        })
    }
}

/// Reads the headers of an in-memory file of `kind`.
pub(crate) fn probe_slice(bytes: &[u8], kind: CompressedKind) -> Result<AudioInfo, DecodeError> {
    Compressed::open(Box::new(Cursor::new(bytes)), kind).map(|c| c.info)
}

/// Decodes a whole in-memory file of `kind`, reserving its samples from `budget`.
pub(crate) fn decode_slice(
    bytes: &[u8],
    kind: CompressedKind,
    limits: &DecodeLimits,
    budget: &mut dyn MemoryBudget,
) -> Result<Decoded, DecodeError> {
    Compressed::open(Box::new(Cursor::new(bytes)), kind)?.decode_all(limits, budget)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sound::audio::Unmetered;
    use crate::sound::audio::decode::decode;
    use std::io::{Read, Seek, SeekFrom};

    /// `count` silent MPEG-1 Layer III frames (128 kbps, 44.1 kHz, mono): a header, then
    /// zeroed side info and main data, which decodes to silence.
    pub(crate) fn silent_mp3(count: usize) -> Vec<u8> {
        let mut frame = vec![0xFF, 0xFB, 0x90, 0xC4];
        frame.resize(417, 0);
        frame.repeat(count)
    }

    /// A source that repeats `pattern` forever (not seekable, no length).
    struct Endless {
        pattern: Vec<u8>,
        pos: usize,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            for b in buf.iter_mut() {
                *b = self.pattern[self.pos % self.pattern.len()];
                self.pos += 1;
            }
            Ok(buf.len())
        }
    }

    impl Seek for Endless {
        fn seek(&mut self, _: SeekFrom) -> io::Result<u64> {
            Err(io::Error::other("not seekable"))
        }
    }

    impl MediaSource for Endless {
        fn is_seekable(&self) -> bool {
            false
        }
        fn byte_len(&self) -> Option<u64> {
            None
        }
    }

    /// A source that serves `good` bytes in all and then panics.
    struct Booby {
        bytes: Cursor<Vec<u8>>,
        good: usize,
        served: usize,
    }

    impl Read for Booby {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            assert!(self.served < self.good, "booby trap");
            let n = buf.len().min(self.good - self.served);
            let n = self.bytes.read(&mut buf[..n])?;
            self.served += n;
            Ok(n)
        }
    }

    impl Seek for Booby {
        fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
            self.bytes.seek(to)
        }
    }

    impl MediaSource for Booby {
        fn is_seekable(&self) -> bool {
            true
        }
        fn byte_len(&self) -> Option<u64> {
            Some(self.bytes.get_ref().len() as u64)
        }
    }

    #[test]
    fn synthetic_mp3_decodes_to_silence() {
        let d = decode("x.mp3", &silent_mp3(40), &DecodeLimits::default()).unwrap();
        assert_eq!(d.info.format.name(), "MP3");
        assert_eq!((d.buffer.sample_rate, d.buffer.channels), (44100, 1));
        assert_eq!(d.buffer.frames(), 40 * 1152);
        assert!(d.buffer.data.iter().all(|&s| s == 0.0));
        assert_eq!(d.partial, None);
    }

    #[test]
    fn an_endless_stream_stops_at_the_frame_ceiling() {
        let src = Endless {
            pattern: silent_mp3(1),
            pos: 0,
        };
        let stream = Compressed::open(Box::new(src), CompressedKind::Mp3).unwrap();
        let limits = DecodeLimits {
            max_frames: 100_000,
            ..DecodeLimits::default()
        };
        let e = stream.decode_all(&limits, &mut Unmetered).unwrap_err();
        assert!(matches!(
            e,
            DecodeError::TooLong {
                max_frames: 100_000,
                sample_rate: 44100
            }
        ));
        // And at the byte limit, when that comes first.
        let src = Endless {
            pattern: silent_mp3(1),
            pos: 0,
        };
        let stream = Compressed::open(Box::new(src), CompressedKind::Mp3).unwrap();
        let limits = DecodeLimits {
            max_bytes: 40_000 * 4,
            ..DecodeLimits::default()
        };
        let e = stream.decode_all(&limits, &mut Unmetered).unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::TooLarge {
                    decoded_bytes: None,
                    max_bytes: 160_000
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn endless_junk_ends_in_an_error() {
        let src = Endless {
            pattern: vec![0x00, 0x11, 0x22],
            pos: 0,
        };
        assert!(Compressed::open(Box::new(src), CompressedKind::Mp3).is_err());
    }

    #[test]
    fn a_panic_inside_symphonia_is_caught() {
        let bytes = silent_mp3(1000);
        let at_once = Booby {
            bytes: Cursor::new(bytes.clone()),
            good: 0,
            served: 0,
        };
        let e = Compressed::open(Box::new(at_once), CompressedKind::Mp3)
            .err()
            .unwrap();
        assert!(
            matches!(e, DecodeError::DecoderCrashed { format: "MP3", .. }),
            "{e}"
        );
        assert!(e.to_string().contains("booby trap"));

        // Well past what opening reads: the panic comes while decoding.
        let later = Booby {
            bytes: Cursor::new(bytes),
            good: 200_000,
            served: 0,
        };
        let stream = Compressed::open(Box::new(later), CompressedKind::Mp3).unwrap();
        let d = stream
            .decode_all(&DecodeLimits::default(), &mut Unmetered)
            .unwrap();
        assert!(d.buffer.frames() > 0);
        let why = d.partial.unwrap();
        assert!(
            why.contains("crashed") && why.contains("booby trap"),
            "{why}"
        );
    }

    #[test]
    fn a_cut_mp3_keeps_the_frames_before_the_cut() {
        let mut bytes = silent_mp3(10);
        bytes.truncate(417 * 6 + 100);
        let d = decode("x.mp3", &bytes, &DecodeLimits::default()).unwrap();
        assert!(
            (5 * 1152..=7 * 1152).contains(&d.buffer.frames()),
            "{}",
            d.buffer.frames()
        );
    }

    #[test]
    fn headers_alone_are_an_error_not_empty_audio() {
        // A FLAC signature with a cut STREAMINFO block.
        let e = decode(
            "x.flac",
            b"fLaC\x00\x00\x00\x22\x10\x00",
            &DecodeLimits::default(),
        );
        assert!(
            matches!(e, Err(DecodeError::Invalid { format: "FLAC", .. })),
            "{e:?}"
        );
        let e = decode("x.ogg", b"OggS\x00\x02", &DecodeLimits::default());
        assert!(
            matches!(
                e,
                Err(DecodeError::Invalid {
                    format: "Ogg Vorbis",
                    ..
                })
            ),
            "{e:?}"
        );
        let e = decode(
            "x.mp3",
            b"ID3\x03\x00\x00\x00\x00\x00\x00",
            &DecodeLimits::default(),
        );
        assert!(e.is_err());
    }
}
