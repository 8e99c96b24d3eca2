//! WAV: our own tolerant RIFF chunk walker and sample decoder, for whole files in memory and
//! for streaming the `data` chunk from disk.
//!
//! Real files break the rules in ways a strict reader rejects, so the walker:
//! * ignores the RIFF size (it is often the file size, 8 too large, or too small) and walks
//!   chunks to the end of the file, stopping quietly at stray bytes that are not a chunk;
//! * accepts odd-sized chunks with or without their pad byte (it looks for the next chunk id
//!   at both places);
//! * takes `fmt ` and `data` wherever they are, skipping `LIST`, `fact`, `cue `, `id3 ` …;
//! * reads `fmt ` chunks of 16, 18 or 40 bytes, with `WAVE_FORMAT_EXTENSIBLE` resolved through
//!   the sub-format GUID (whose first two bytes are the real format tag);
//! * clamps a `data` chunk that claims more bytes than the file has to what is there, and marks
//!   the result partial; a trailing partial frame is dropped.

use super::detect::{io_err, printable};
use super::mix::{Mix, output_channels};
use super::output::Output;
use super::source::{ByteSource, FileSource, SliceSource};
use super::{AudioFormat, AudioInfo, DecodeError, DecodeLimits, Decoded, WavEncoding, check_rate};
use crate::sound::audio::{MemoryBudget, SampleBuffer};

/// Format tag of `WAVE_FORMAT_EXTENSIBLE`.
const TAG_EXTENSIBLE: u16 = 0xFFFE;
/// Chunks walked before giving up (a real file has a handful; this bounds hostile input).
const MAX_CHUNKS: u32 = 10_000;
/// Bytes converted per step, so that scratch buffers stay small.
const BLOCK_BYTES: usize = 256 * 1024;

/// The `fmt ` chunk, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WavFmt {
    encoding: WavEncoding,
    channels: u16,
    sample_rate: u32,
    /// Significant bits per sample (the valid bits of an extensible header, if it gives them).
    bits: u16,
    /// Speaker positions from an extensible header, 0 if none.
    channel_mask: u32,
}

impl WavFmt {
    /// Bytes per frame: whole samples, ignoring the header's (often wrong) block align.
    fn frame_bytes(&self) -> u64 {
        u64::from(self.channels) * u64::from(self.encoding.bytes_per_sample())
    }

    /// Whole frames per conversion step (at least one).
    fn block_frames(&self) -> usize {
        let frame_bytes =
            usize::from(self.channels) * usize::from(self.encoding.bytes_per_sample());
        (BLOCK_BYTES / frame_bytes.max(1)).max(1)
    }
}

/// Where the audio is in a WAV file, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WavLayout {
    fmt: WavFmt,
    /// Offset of the first sample byte.
    data_start: u64,
    /// Length the `data` chunk header claims.
    declared: u64,
    /// Bytes of it actually in the file.
    present: u64,
    /// The header said 0 bytes but audio follows (a recording that was never finalised).
    unfinalised: bool,
    /// Whole frames present.
    frames: u64,
}

impl WavLayout {
    pub(crate) fn info(&self) -> AudioInfo {
        AudioInfo {
            format: AudioFormat::Wav {
                encoding: self.fmt.encoding,
            },
            sample_rate: self.fmt.sample_rate,
            channels: output_channels(self.fmt.channels),
            source_channels: self.fmt.channels,
            bits: Some(self.fmt.bits),
            frames: Some(self.frames),
        }
    }

    /// Why the audio is shorter than the header says, if it is.
    fn partial_message(&self) -> Option<String> {
        if self.unfinalised {
            return Some(format!(
                "data chunk says 0 bytes but {} follow it (a recording that was never \
                 finalised?); they were decoded",
                self.present
            ));
        }
        (self.present < self.declared).then(|| {
            format!(
                "data chunk says {} bytes but only {} are in the file",
                self.declared, self.present
            )
        })
    }

    fn mix(&self) -> Mix {
        Mix::new(
            usize::from(self.fmt.channels),
            usize::from(output_channels(self.fmt.channels)),
            u64::from(self.fmt.channel_mask),
        )
    }

    /// Error for a file whose data chunk is cut off before its first whole frame.
    fn no_audio(&self) -> DecodeError {
        DecodeError::NoAudio {
            format: "WAV",
            detail: self.partial_message().unwrap_or_default(),
        }
    }
}

fn invalid(detail: impl Into<String>) -> DecodeError {
    DecodeError::Invalid {
        format: "WAV",
        detail: detail.into(),
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(&[x, y]) => u16::from_le_bytes([x, y]),
        _ => 0,
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(&[a, b2, c, d]) => u32::from_le_bytes([a, b2, c, d]),
        _ => 0,
    }
}

/// Chunk ids are four printable ASCII characters; anything else is stray bytes.
fn plausible_id(id: &[u8]) -> bool {
    id.len() == 4 && id.iter().all(|b| (0x20..0x7F).contains(b))
}

/// Walks the chunks of a RIFF WAVE file and finds its format and audio.
pub(crate) fn parse(src: &mut dyn ByteSource) -> Result<WavLayout, DecodeError> {
    let len = src.len();
    if len < 12 {
        return Err(invalid(format!(
            "the file is only {len} bytes; a WAV header needs 12"
        )));
    }
    let mut fmt: Option<WavFmt> = None;
    let mut data: Option<(u64, u64)> = None;
    // Why the walk ended before finding both chunks, for the error message.
    let mut stop_reason = format!("the file ends after {len} bytes");
    let mut pos: u64 = 12;
    for _ in 0..MAX_CHUNKS {
        if fmt.is_some() && data.is_some() {
            break;
        }
        let Some(header) = src.array_at::<8>(pos).map_err(io_err)? else {
            break;
        };
        let [i0, i1, i2, i3, s0, s1, s2, s3] = header;
        let id = [i0, i1, i2, i3];
        if !plausible_id(&id) {
            stop_reason = format!(
                "the bytes at offset {pos} are not a chunk (`{}`)",
                printable(&id)
            );
            break;
        }
        let size = u64::from(u32::from_le_bytes([s0, s1, s2, s3]));
        let body = pos + 8;
        let available = len.saturating_sub(body);
        match &id {
            b"fmt " if fmt.is_none() => fmt = Some(parse_fmt(src, body, size, available)?),
            b"data" if data.is_none() => data = Some((body, size)),
            _ => {}
        }
        if body + size > len {
            stop_reason = format!(
                "the `{}` chunk at offset {pos} runs past the end of the file",
                printable(&id)
            );
        }
        pos = next_chunk(src, body, size)?;
    }
    let fmt = match (fmt, data) {
        (Some(fmt), _) => fmt,
        (None, Some(_)) => {
            return Err(invalid(
                "it has a data chunk but no fmt chunk to describe it",
            ));
        }
        (None, None) => return Err(invalid(format!("no fmt chunk ({stop_reason})"))),
    };
    let Some((data_start, declared)) = data else {
        return Err(invalid(format!("no data chunk ({stop_reason})")));
    };
    let after = len.saturating_sub(data_start);
    let mut present = declared.min(after);
    // A size of 0 with bytes after it that are not another chunk: the writer never came back
    // to fill in the size, so the rest of the file is the audio.
    let unfinalised = declared == 0
        && after >= fmt.frame_bytes()
        && !src
            .array_at::<4>(data_start)
            .map_err(io_err)?
            .is_some_and(|id| plausible_id(&id));
    if unfinalised {
        present = after;
    }
    let frames = present / fmt.frame_bytes().max(1);
    Ok(WavLayout {
        fmt,
        data_start,
        declared,
        present,
        unfinalised,
        frames,
    })
}

/// Where the chunk after one at `body` of `size` bytes starts: after the pad byte of an
/// odd-sized chunk, unless the next id is only found where it would be without one.
fn next_chunk(src: &mut dyn ByteSource, body: u64, size: u64) -> Result<u64, DecodeError> {
    let end = body + size;
    if size.is_multiple_of(2) {
        return Ok(end);
    }
    let padded = end + 1;
    let id_at = |src: &mut dyn ByteSource, at: u64| -> Result<bool, DecodeError> {
        Ok(src
            .array_at::<4>(at)
            .map_err(io_err)?
            .is_some_and(|id| plausible_id(&id)))
    };
    if !id_at(src, padded)? && id_at(src, end)? {
        return Ok(end);
    }
    Ok(padded)
}

/// Reads and resolves a `fmt ` chunk.
fn parse_fmt(
    src: &mut dyn ByteSource,
    body: u64,
    size: u64,
    available: u64,
) -> Result<WavFmt, DecodeError> {
    if size < 16 {
        return Err(invalid(format!(
            "the fmt chunk is only {size} bytes; it needs at least 16"
        )));
    }
    let mut raw = [0u8; 40];
    let want = size.min(40);
    let got = src
        .read_at(body, raw.get_mut(..want as usize).unwrap_or(&mut []))
        .map_err(io_err)?;
    let tag = u16_at(&raw, 0);
    let needed = if tag == TAG_EXTENSIBLE { 40 } else { 16 };
    if (got as u64) < needed.min(want) {
        return Err(invalid(format!(
            "the fmt chunk is cut short: it says {size} bytes but only {} are in the file",
            available.min(size)
        )));
    }
    let channels = u16_at(&raw, 2);
    let sample_rate = u32_at(&raw, 4);
    let container_bits = u16_at(&raw, 14);
    let (tag, bits, channel_mask) = if tag == TAG_EXTENSIBLE {
        if size < 40 {
            return Err(invalid(format!(
                "a WAVE_FORMAT_EXTENSIBLE fmt chunk needs 40 bytes but this one has {size}"
            )));
        }
        let valid_bits = u16_at(&raw, 18);
        let bits = if (1..=container_bits).contains(&valid_bits) {
            valid_bits
        } else {
            container_bits
        };
        // The sub-format GUID starts with the real format tag.
        (u16_at(&raw, 24), bits, u32_at(&raw, 20))
    } else {
        (tag, container_bits, 0)
    };
    if channels == 0 {
        return Err(invalid("the fmt chunk says the file has 0 channels"));
    }
    check_rate("WAV", "the fmt chunk", sample_rate)?;
    let encoding = encoding_for(tag, container_bits)?;
    Ok(WavFmt {
        encoding,
        channels,
        sample_rate,
        bits,
        channel_mask,
    })
}

/// The sample encoding for a format tag and container size.
fn encoding_for(tag: u16, bits: u16) -> Result<WavEncoding, DecodeError> {
    let unsupported = |what: String| Err(DecodeError::Unsupported { what });
    match tag {
        1 => match bits {
            0 => Err(invalid("the fmt chunk says 0 bits per sample")),
            1..=8 => Ok(WavEncoding::PcmU8),
            9..=16 => Ok(WavEncoding::PcmS16),
            17..=24 => Ok(WavEncoding::PcmS24),
            25..=32 => Ok(WavEncoding::PcmS32),
            _ => unsupported(format!("WAV PCM with {bits} bits per sample")),
        },
        3 => match bits {
            32 => Ok(WavEncoding::Float32),
            64 => Ok(WavEncoding::Float64),
            _ => unsupported(format!("WAV IEEE float with {bits} bits per sample")),
        },
        // G.711 is 8 bits by definition; some writers leave the field 0.
        6 | 7 if bits != 0 && bits != 8 => {
            unsupported(format!("WAV G.711 with {bits} bits per sample"))
        }
        6 => Ok(WavEncoding::ALaw),
        7 => Ok(WavEncoding::MuLaw),
        _ => {
            let number = if tag < 10 {
                tag.to_string()
            } else {
                format!("{tag:#x}")
            };
            let what = match tag_name(tag) {
                Some(name) => format!("WAV encoding {number} ({name})"),
                None => format!("WAV encoding {number}"),
            };
            unsupported(what)
        }
    }
}

/// Names of format tags people meet in the wild.
fn tag_name(tag: u16) -> Option<&'static str> {
    Some(match tag {
        0x0000 => "unknown",
        0x0002 => "Microsoft ADPCM",
        0x0010 => "OKI ADPCM",
        0x0011 => "IMA ADPCM",
        0x0014 => "G.723 ADPCM",
        0x0022 => "DSP Group TrueSpeech",
        0x0031 => "GSM 6.10",
        0x0040 => "G.721 ADPCM",
        0x0045 => "G.726 ADPCM",
        0x0050 => "MPEG audio",
        0x0055 => "MP3",
        0x0092 => "AC-3 over S/PDIF",
        0x00FF | 0x1610 => "AAC",
        0x0160..=0x0163 => "Windows Media Audio",
        0x2000 => "AC-3",
        0x2001 => "DTS",
        0x674F..=0x6751 | 0x676F..=0x6771 => "Ogg Vorbis",
        0xF1AC => "FLAC",
        _ => return None,
    })
}

const fn mulaw_to_i16(byte: u8) -> i16 {
    let u = !byte;
    let mantissa = (u & 0x0F) as i32;
    let exponent = ((u >> 4) & 0x07) as i32;
    let magnitude = ((mantissa << 3) + 0x84) << exponent;
    (if u & 0x80 != 0 {
        0x84 - magnitude
    } else {
        magnitude - 0x84
    }) as i16
}

const fn alaw_to_i16(byte: u8) -> i16 {
    let a = byte ^ 0x55;
    let mut t = ((a & 0x0F) as i32) << 4;
    let segment = ((a & 0x70) >> 4) as i32;
    if segment == 0 {
        t += 8;
    } else {
        t += 0x108;
        t <<= segment - 1;
    }
    (if a & 0x80 != 0 { t } else { -t }) as i16
}

/// Which 8-bit code table to build.
#[derive(Clone, Copy)]
enum Table {
    U8,
    MuLaw,
    ALaw,
}

/// Maps each 8-bit code to its sample value (built at compile time).
const fn table(kind: Table) -> [f32; 256] {
    let mut t = [0.0f32; 256];
    let mut i = 0;
    while i < 256 {
        let code = i as u8;
        t[i] = match kind {
            Table::U8 => (code as f32 - 128.0) / 128.0,
            Table::MuLaw => mulaw_to_i16(code) as f32 / 32768.0,
            Table::ALaw => alaw_to_i16(code) as f32 / 32768.0,
        };
        i += 1;
    }
    t
}

const U8_TABLE: [f32; 256] = table(Table::U8);
const MULAW_TABLE: [f32; 256] = table(Table::MuLaw);
const ALAW_TABLE: [f32; 256] = table(Table::ALaw);

fn arr<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes.try_into().unwrap_or([0; N])
}

/// Converts samples (whole samples only; a trailing partial one is ignored) to `f32`.
fn convert(encoding: WavEncoding, bytes: &[u8], out: &mut Vec<f32>) {
    match encoding {
        WavEncoding::PcmU8 => out.extend(bytes.iter().map(|&b| U8_TABLE[usize::from(b)])),
        WavEncoding::MuLaw => out.extend(bytes.iter().map(|&b| MULAW_TABLE[usize::from(b)])),
        WavEncoding::ALaw => out.extend(bytes.iter().map(|&b| ALAW_TABLE[usize::from(b)])),
        WavEncoding::PcmS16 => out.extend(
            bytes
                .chunks_exact(2)
                .map(|c| f32::from(i16::from_le_bytes(arr(c))) / 32_768.0),
        ),
        WavEncoding::PcmS24 => out.extend(bytes.chunks_exact(3).map(|c| {
            let [a, b, d] = arr(c);
            // Into the top of an i32, then an arithmetic shift sign-extends.
            (i32::from_le_bytes([0, a, b, d]) >> 8) as f32 / 8_388_608.0
        })),
        WavEncoding::PcmS32 => out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| (f64::from(i32::from_le_bytes(arr(c))) / 2_147_483_648.0) as f32),
        ),
        WavEncoding::Float32 => {
            out.extend(bytes.chunks_exact(4).map(|c| f32::from_le_bytes(arr(c))))
        }
        WavEncoding::Float64 => {
            out.extend(
                bytes
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(arr(c)) as f32),
            );
        }
    }
}

/// Decodes whole frames from `bytes` into output frames appended to `out`.
fn decode_frames(
    fmt: &WavFmt,
    mix: &Mix,
    bytes: &[u8],
    scratch: &mut Vec<f32>,
    out: &mut Vec<f32>,
) {
    let frame_bytes = usize::from(fmt.channels) * usize::from(fmt.encoding.bytes_per_sample());
    for chunk in bytes.chunks(fmt.block_frames() * frame_bytes.max(1)) {
        scratch.clear();
        convert(fmt.encoding, chunk, scratch);
        mix.apply(scratch, out);
    }
}

fn too_long(layout: &WavLayout, limits: &DecodeLimits) -> Option<DecodeError> {
    (layout.frames > limits.max_frames).then_some(DecodeError::TooLong {
        max_frames: limits.max_frames,
        sample_rate: layout.fmt.sample_rate,
    })
}

/// Decodes a whole WAV file held in memory, reserving its samples from `budget`.
pub(crate) fn decode_slice(
    bytes: &[u8],
    limits: &DecodeLimits,
    budget: &mut dyn MemoryBudget,
) -> Result<Decoded, DecodeError> {
    let layout = parse(&mut SliceSource::new(bytes))?;
    if let Some(e) = too_long(&layout, limits) {
        return Err(e);
    }
    let partial = layout.partial_message();
    if layout.frames == 0 && partial.is_some() {
        return Err(layout.no_audio());
    }
    let info = layout.info();
    let audio = usize::try_from(layout.data_start)
        .ok()
        .zip(usize::try_from(layout.frames * layout.fmt.frame_bytes()).ok())
        .and_then(|(start, n)| bytes.get(start..start.checked_add(n)?))
        .ok_or_else(|| invalid("the data chunk lies outside the file"))?;
    // The length is known: the size is checked and reserved before the one allocation.
    let mut output = Output::new(budget, limits);
    output.expect(layout.frames.saturating_mul(u64::from(info.channels)))?;
    let mut scratch = Vec::new();
    decode_frames(
        &layout.fmt,
        &layout.mix(),
        audio,
        &mut scratch,
        output.samples(),
    );
    let data = output.finish();
    Ok(Decoded {
        buffer: SampleBuffer {
            sample_rate: info.sample_rate,
            channels: info.channels,
            data,
        },
        info,
        partial,
    })
}

/// Streams the `data` chunk of a WAV file from disk.
pub(crate) struct WavStream {
    src: FileSource,
    layout: WavLayout,
    mix: Mix,
    /// Next frame to deliver.
    next_frame: u64,
    /// Frames that can be delivered (may shrink if the file does).
    end_frame: u64,
    bytes: Vec<u8>,
    scratch: Vec<f32>,
    partial: Option<String>,
}

impl WavStream {
    pub(crate) fn new(mut src: FileSource) -> Result<Self, DecodeError> {
        let layout = parse(&mut src)?;
        let partial = layout.partial_message();
        if layout.frames == 0 && partial.is_some() {
            return Err(layout.no_audio());
        }
        Ok(Self {
            mix: layout.mix(),
            end_frame: layout.frames,
            src,
            layout,
            next_frame: 0,
            bytes: Vec::new(),
            scratch: Vec::new(),
            partial,
        })
    }

    pub(crate) fn info(&self) -> AudioInfo {
        self.layout.info()
    }

    pub(crate) fn partial(&self) -> Option<&str> {
        self.partial.as_deref()
    }

    pub(crate) fn rewind(&mut self) {
        self.next_frame = 0;
    }

    pub(crate) fn read(
        &mut self,
        out: &mut Vec<f32>,
        max_frames: usize,
    ) -> Result<usize, DecodeError> {
        let frame_bytes = self.layout.fmt.frame_bytes();
        let mut done = 0usize;
        while done < max_frames && self.next_frame < self.end_frame {
            let block = self.layout.fmt.block_frames();
            let want = (max_frames - done)
                .min(block)
                .min(usize::try_from(self.end_frame - self.next_frame).unwrap_or(block));
            let nbytes = usize::try_from(frame_bytes).unwrap_or(0) * want;
            self.bytes.resize(nbytes, 0);
            let offset = self.layout.data_start + self.next_frame * frame_bytes;
            let got = self.src.read_at(offset, &mut self.bytes).map_err(io_err)?;
            let whole = got as u64 / frame_bytes.max(1);
            let used = usize::try_from(whole * frame_bytes).unwrap_or(0);
            decode_frames(
                &self.layout.fmt,
                &self.mix,
                self.bytes.get(..used).unwrap_or(&[]),
                &mut self.scratch,
                out,
            );
            self.next_frame += whole;
            done += usize::try_from(whole).unwrap_or(0);
            if got < nbytes {
                // The file got shorter since it was opened: end here.
                self.end_frame = self.next_frame;
                self.partial = Some(format!(
                    "the file got shorter while it was being streamed (ends after frame {})",
                    self.next_frame
                ));
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sound::audio::decode::{decode, probe};

    /// A `fmt ` chunk body of 16 bytes.
    pub(crate) fn fmt16(tag: u16, channels: u16, rate: u32, bits: u16) -> Vec<u8> {
        let block = channels * bits.div_ceil(8);
        let mut f = Vec::new();
        f.extend(tag.to_le_bytes());
        f.extend(channels.to_le_bytes());
        f.extend(rate.to_le_bytes());
        f.extend((rate * u32::from(block)).to_le_bytes());
        f.extend(block.to_le_bytes());
        f.extend(bits.to_le_bytes());
        f
    }

    /// An 18-byte `fmt ` (cbSize = 0).
    fn fmt18(tag: u16, channels: u16, rate: u32, bits: u16) -> Vec<u8> {
        let mut f = fmt16(tag, channels, rate, bits);
        f.extend(0u16.to_le_bytes());
        f
    }

    /// A 40-byte `WAVE_FORMAT_EXTENSIBLE` `fmt `.
    fn fmt40(sub_tag: u16, channels: u16, rate: u32, bits: u16, valid: u16, mask: u32) -> Vec<u8> {
        let mut f = fmt16(TAG_EXTENSIBLE, channels, rate, bits);
        f.extend(22u16.to_le_bytes());
        f.extend(valid.to_le_bytes());
        f.extend(mask.to_le_bytes());
        f.extend(sub_tag.to_le_bytes());
        f.extend([
            0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
        ]);
        f
    }

    /// One chunk: id, size, body, and the pad byte after an odd body if `pad`.
    fn chunk(id: &[u8; 4], body: &[u8], pad: bool) -> Vec<u8> {
        let mut c = id.to_vec();
        c.extend(u32::try_from(body.len()).unwrap().to_le_bytes());
        c.extend(body);
        if pad && body.len() % 2 == 1 {
            c.push(0);
        }
        c
    }

    /// A RIFF WAVE file of `chunks` (already encoded) with a correct RIFF size.
    pub(crate) fn riff(chunks: &[Vec<u8>]) -> Vec<u8> {
        let body: Vec<u8> = chunks.concat();
        let mut f = b"RIFF".to_vec();
        f.extend(u32::try_from(body.len() + 4).unwrap().to_le_bytes());
        f.extend(b"WAVE");
        f.extend(body);
        f
    }

    /// The usual file: `fmt ` (16 bytes) then `data`.
    pub(crate) fn simple(tag: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
        riff(&[
            chunk(b"fmt ", &fmt16(tag, channels, rate, bits), true),
            chunk(b"data", data, true),
        ])
    }

    fn s16(values: &[i16]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn samples(bytes: &[u8]) -> Vec<f32> {
        let d = decode("t.wav", bytes, &DecodeLimits::default()).unwrap();
        assert_eq!(d.partial, None);
        d.buffer.data
    }

    #[test]
    fn u8_pcm_maps_128_to_silence() {
        let wav = simple(1, 1, 11025, 8, &[0, 128, 255, 64]);
        let d = decode("a.wav", &wav, &DecodeLimits::default()).unwrap();
        assert_eq!(d.buffer.data, vec![-1.0, 0.0, 127.0 / 128.0, -0.5]);
        assert_eq!(d.info.format.name(), "WAV PCM u8");
        assert_eq!(d.info.frames, Some(4));
        assert_eq!((d.buffer.sample_rate, d.buffer.channels), (11025, 1));
    }

    #[test]
    fn s16_pcm_full_scale() {
        let wav = simple(1, 1, 22050, 16, &s16(&[-32768, 0, 16384, 32767]));
        assert_eq!(samples(&wav), vec![-1.0, 0.0, 0.5, 32767.0 / 32768.0]);
        assert_eq!(probe("a.wav", &wav).unwrap().format.name(), "WAV PCM s16le");
    }

    #[test]
    fn s24_and_s32_pcm() {
        let s24: Vec<u8> = [-8_388_608i32, 4_194_304, -1]
            .iter()
            .flat_map(|v| v.to_le_bytes().into_iter().take(3))
            .collect();
        let wav = simple(1, 1, 48000, 24, &s24);
        assert_eq!(samples(&wav), vec![-1.0, 0.5, -1.0 / 8_388_608.0]);
        assert_eq!(probe("a", &wav).unwrap().bits, Some(24));
        let s32: Vec<u8> = [i32::MIN, 1 << 30]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(samples(&simple(1, 1, 48000, 32, &s32)), vec![-1.0, 0.5]);
    }

    #[test]
    fn float_pcm_is_clamped_and_nan_silenced() {
        let f32s: Vec<u8> = [0.25f32, -2.0, f32::NAN, 1.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let wav = simple(3, 1, 44100, 32, &f32s);
        assert_eq!(samples(&wav), vec![0.25, -1.0, 0.0, 1.0]);
        assert_eq!(probe("a", &wav).unwrap().format.name(), "WAV IEEE float32");
        let f64s: Vec<u8> = [0.5f64, -0.125]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let wav = simple(3, 1, 44100, 64, &f64s);
        assert_eq!(samples(&wav), vec![0.5, -0.125]);
        assert_eq!(probe("a", &wav).unwrap().format.name(), "WAV IEEE float64");
    }

    #[test]
    fn mu_law_known_values() {
        let wav = simple(7, 1, 8000, 8, &[0x00, 0x80, 0xFF, 0x7F, 0xEF]);
        assert_eq!(
            samples(&wav),
            vec![
                -32124.0 / 32768.0,
                32124.0 / 32768.0,
                0.0,
                0.0,
                132.0 / 32768.0
            ]
        );
        assert_eq!(probe("a", &wav).unwrap().format.name(), "WAV mu-law");
    }

    #[test]
    fn a_law_known_values() {
        let wav = simple(6, 1, 8000, 8, &[0xD5, 0x55, 0xAA, 0x2A]);
        assert_eq!(
            samples(&wav),
            vec![
                8.0 / 32768.0,
                -8.0 / 32768.0,
                32256.0 / 32768.0,
                -32256.0 / 32768.0
            ]
        );
        assert_eq!(probe("a", &wav).unwrap().format.name(), "WAV A-law");
    }

    #[test]
    fn stereo_stays_interleaved_and_odd_rates_pass() {
        let wav = simple(1, 2, 7418, 16, &s16(&[16384, -16384, 0, 8192]));
        let d = decode("a", &wav, &DecodeLimits::default()).unwrap();
        assert_eq!(d.buffer.data, vec![0.5, -0.5, 0.0, 0.25]);
        assert_eq!(
            (d.buffer.sample_rate, d.buffer.channels, d.buffer.frames()),
            (7418, 2, 2)
        );
        let u8_stereo = simple(1, 2, 22050, 8, &[128, 0, 255, 128, 1]);
        let d = decode("a", &u8_stereo, &DecodeLimits::default()).unwrap();
        assert_eq!(d.buffer.frames(), 2, "a trailing partial frame is dropped");
    }

    #[test]
    fn odd_chunks_with_and_without_pad_byte() {
        let f = chunk(b"fmt ", &fmt16(1, 1, 8000, 8), true);
        let data = chunk(b"data", &[128, 0, 255], true);
        // A 3-byte chunk before data, with its pad byte…
        let padded = riff(&[f.clone(), chunk(b"junk", b"abc", true), data.clone()]);
        assert_eq!(samples(&padded).len(), 3);
        // …and without it.
        let unpadded = riff(&[f.clone(), chunk(b"junk", b"abc", false), data]);
        assert_eq!(samples(&unpadded).len(), 3);
        // An odd data chunk at the end without its pad byte.
        let last = riff(&[f, chunk(b"data", &[128, 0, 255, 128, 64], false)]);
        assert_eq!(samples(&last).len(), 5);
    }

    #[test]
    fn wrong_riff_sizes_and_stray_bytes_are_ignored() {
        let mut wav = simple(1, 1, 8000, 8, &[128; 10]);
        let file_len = u32::try_from(wav.len()).unwrap();
        wav[4..8].copy_from_slice(&file_len.to_le_bytes()); // 8 too large
        assert_eq!(samples(&wav).len(), 10);
        wav[4..8].copy_from_slice(&4u32.to_le_bytes()); // far too small
        assert_eq!(samples(&wav).len(), 10);
        let mut stray = simple(1, 1, 8000, 8, &[128; 10]);
        stray.extend([1, 2, 3, 4]);
        assert_eq!(samples(&stray).len(), 10);
        stray.extend([0xFF; 12]);
        assert_eq!(samples(&stray).len(), 10);
    }

    #[test]
    fn other_chunks_before_and_after_data() {
        let list = chunk(b"LIST", b"INFOISFT\x05\0\0\0test\0", true);
        let wav = riff(&[
            chunk(b"fmt ", &fmt16(1, 1, 22050, 16), true),
            chunk(b"fact", &4u32.to_le_bytes(), true),
            list.clone(),
            chunk(b"cue ", &[0; 4], true),
            chunk(b"data", &s16(&[1, 2, 3, 4]), true),
            list,
            chunk(b"id3 ", b"ID3\x03\0\0\0\0\0\0", true),
        ]);
        assert_eq!(samples(&wav).len(), 4);
        // fmt after data is found too.
        let late_fmt = riff(&[
            chunk(b"data", &s16(&[1, 2]), true),
            chunk(b"fmt ", &fmt16(1, 1, 22050, 16), true),
        ]);
        assert_eq!(samples(&late_fmt).len(), 2);
    }

    #[test]
    fn fmt_chunks_of_18_and_40_bytes() {
        let wav18 = riff(&[
            chunk(b"fmt ", &fmt18(1, 1, 22050, 16), true),
            chunk(b"data", &s16(&[16384]), true),
        ]);
        assert_eq!(samples(&wav18), vec![0.5]);
        // Extensible PCM: 24 valid bits in 32-bit containers, stereo.
        let data: Vec<u8> = [1i32 << 30, -(1 << 30)]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let wav40 = riff(&[
            chunk(b"fmt ", &fmt40(1, 2, 96000, 32, 24, 0b11), true),
            chunk(b"data", &data, true),
        ]);
        let info = probe("a", &wav40).unwrap();
        assert_eq!(
            (info.format.name(), info.bits, info.channels),
            ("WAV PCM s32le", Some(24), 2)
        );
        assert_eq!(samples(&wav40), vec![0.5, -0.5]);
        // Extensible float.
        let fl: Vec<u8> = 0.75f32.to_le_bytes().to_vec();
        let wavf = riff(&[
            chunk(b"fmt ", &fmt40(3, 1, 44100, 32, 32, 0b100), true),
            chunk(b"data", &fl, true),
        ]);
        assert_eq!(samples(&wavf), vec![0.75]);
    }

    #[test]
    fn unsupported_encodings_are_named() {
        let adpcm = simple(2, 1, 22050, 4, &[0; 64]);
        assert_eq!(
            decode("a", &adpcm, &DecodeLimits::default())
                .unwrap_err()
                .to_string(),
            "WAV encoding 2 (Microsoft ADPCM) is not supported"
        );
        let ima = simple(0x11, 1, 22050, 4, &[0; 64]);
        assert_eq!(
            probe("a", &ima).unwrap_err().to_string(),
            "WAV encoding 0x11 (IMA ADPCM) is not supported"
        );
        let odd = simple(0x1234, 1, 22050, 4, &[0; 64]);
        assert_eq!(
            probe("a", &odd).unwrap_err().to_string(),
            "WAV encoding 0x1234 is not supported"
        );
        let ext = riff(&[
            chunk(b"fmt ", &fmt40(2, 1, 8000, 4, 4, 0), true),
            chunk(b"data", &[0; 8], true),
        ]);
        assert!(matches!(
            probe("a", &ext),
            Err(DecodeError::Unsupported { .. })
        ));
        let float16 = simple(3, 1, 8000, 16, &[0; 8]);
        assert_eq!(
            probe("a", &float16).unwrap_err().to_string(),
            "WAV IEEE float with 16 bits per sample is not supported"
        );
        let pcm48 = simple(1, 1, 8000, 48, &[0; 12]);
        assert!(matches!(
            probe("a", &pcm48),
            Err(DecodeError::Unsupported { .. })
        ));
    }

    #[test]
    fn data_chunk_longer_than_the_file_gives_partial_audio() {
        let mut wav = simple(1, 1, 22050, 16, &s16(&[100; 10]));
        let data_size_at = wav.len() - 20 - 4;
        wav[data_size_at..data_size_at + 4].copy_from_slice(&82000u32.to_le_bytes());
        let d = decode("a", &wav, &DecodeLimits::default()).unwrap();
        assert_eq!(
            d.partial.as_deref(),
            Some("data chunk says 82000 bytes but only 20 are in the file")
        );
        assert_eq!(d.buffer.frames(), 10);
        assert_eq!(probe("a", &wav).unwrap().frames, Some(10));
        // Cut mid-sample: the partial frame is dropped.
        wav.pop();
        let d = decode("a", &wav, &DecodeLimits::default()).unwrap();
        assert_eq!(d.buffer.frames(), 9);
        // Cut right where the data starts: nothing to decode is an error.
        wav.truncate(data_size_at + 4);
        let e = decode("a", &wav, &DecodeLimits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no audio could be decoded from this WAV file: data chunk says 82000 bytes but only 0 \
             are in the file"
        );
    }

    #[test]
    fn empty_data_chunk_is_valid_silence() {
        let d = decode("a", &simple(1, 1, 8000, 8, &[]), &DecodeLimits::default()).unwrap();
        assert_eq!((d.buffer.frames(), d.partial), (0, None));
        // Even with another chunk after it.
        let wav = riff(&[
            chunk(b"fmt ", &fmt16(1, 1, 8000, 8), true),
            chunk(b"data", &[], true),
            chunk(b"LIST", b"INFO", true),
        ]);
        let d = decode("a", &wav, &DecodeLimits::default()).unwrap();
        assert_eq!((d.buffer.frames(), d.partial), (0, None));
    }

    #[test]
    fn zero_data_size_with_audio_after_it_is_recovered() {
        let mut wav = simple(1, 1, 8000, 16, &s16(&[16384, -16384, 0]));
        let size_at = wav.len() - 6 - 4;
        wav[size_at..size_at + 4].copy_from_slice(&0u32.to_le_bytes());
        wav[4..8].copy_from_slice(&0u32.to_le_bytes());
        let d = decode("a", &wav, &DecodeLimits::default()).unwrap();
        assert_eq!(d.buffer.data, vec![0.5, -0.5, 0.0]);
        assert_eq!(
            d.partial.as_deref(),
            Some(
                "data chunk says 0 bytes but 6 follow it (a recording that was never finalised?); \
                 they were decoded"
            )
        );
    }

    #[test]
    fn truncated_headers_are_clean_errors() {
        let wav = simple(1, 1, 11025, 8, &[128; 100]);
        for len in 1..44 {
            let e = decode("a.wav", &wav[..len], &DecodeLimits::default());
            assert!(e.is_err(), "prefix of {len} bytes decoded");
        }
        let e = decode("a", &wav[..24], &DecodeLimits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid WAV file: the fmt chunk is cut short: it says 16 bytes but only 4 are in the file"
        );
        let e = decode("a", &wav[..12], &DecodeLimits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid WAV file: no fmt chunk (the file ends after 12 bytes)"
        );
        let e = decode("a", &wav[..8], &DecodeLimits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid WAV file: the file is only 8 bytes; a WAV header needs 12"
        );
        let e = decode("a", &wav[..40], &DecodeLimits::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid WAV file: no data chunk (the file ends after 40 bytes)"
        );
    }

    #[test]
    fn nonsense_fmt_values_are_errors() {
        let e = probe("a", &simple(1, 0, 8000, 8, &[1])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid WAV file: the fmt chunk says the file has 0 channels"
        );
        let e = probe("a", &simple(1, 1, 0, 8, &[1])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid WAV file: the fmt chunk says the sample rate is 0 Hz; HitBench plays 1000 \
             to 384000 Hz"
        );
        let garbage = riff(&[chunk(b"fmt ", &fmt16(1, 1, 8000, 8), true), vec![0xFF; 16]]);
        let e = probe("a", &garbage).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid WAV file: no data chunk (the bytes at offset 36 are not a chunk (`\\xFF\\xFF\\xFF\\xFF`))"
        );
    }

    #[test]
    fn sample_rates_outside_the_accepted_range_are_refused() {
        use crate::sound::audio::decode::{MAX_SAMPLE_RATE, MIN_SAMPLE_RATE};
        for rate in [1, MIN_SAMPLE_RATE - 1, MAX_SAMPLE_RATE + 1, 100_000_000] {
            let wav = simple(1, 1, rate, 16, &s16(&[1, 2]));
            let e = probe("a", &wav).unwrap_err();
            assert!(e.to_string().contains(&format!("{rate} Hz")), "{e}");
            assert!(decode("a", &wav, &DecodeLimits::default()).is_err());
        }
        for rate in [MIN_SAMPLE_RATE, 8000, MAX_SAMPLE_RATE] {
            let wav = simple(1, 1, rate, 16, &s16(&[1, 2]));
            assert_eq!(probe("a", &wav).unwrap().sample_rate, rate);
        }
    }

    #[test]
    fn every_channel_of_the_file_is_reported() {
        let wav = simple(1, 255, 48000, 8, &[128; 255 * 3]);
        let info = probe("a", &wav).unwrap();
        assert_eq!((info.source_channels, info.channels), (255, 2));
        assert_eq!(info.frames, Some(3));
    }

    #[test]
    fn a_decoded_size_over_the_limit_is_refused_with_the_size() {
        // 100 frames of u8 stereo decode to 100 × 2 × 4 = 800 bytes.
        let wav = simple(1, 2, 8000, 8, &[128; 200]);
        let limits = |max_bytes| DecodeLimits {
            max_bytes,
            ..DecodeLimits::default()
        };
        let e = decode("a", &wav, &limits(799)).unwrap_err();
        assert!(
            matches!(
                e,
                DecodeError::TooLarge {
                    decoded_bytes: Some(800),
                    max_bytes: 799
                }
            ),
            "{e}"
        );
        assert!(e.to_string().starts_with("it decodes to 800 bytes"), "{e}");
        assert_eq!(
            decode("a", &wav, &limits(800)).unwrap().buffer.frames(),
            100
        );
    }

    #[test]
    fn many_channels_are_downmixed_to_stereo() {
        // 6 channels FL FR FC LFE BL BR, one frame with only FL set.
        let wav = simple(1, 6, 48000, 16, &s16(&[16384, 0, 0, 32767, 0, 0]));
        let d = decode("a", &wav, &DecodeLimits::default()).unwrap();
        assert_eq!(
            (d.info.channels, d.info.source_channels, d.buffer.channels),
            (2, 6, 2)
        );
        let total = 2.0 + std::f32::consts::FRAC_1_SQRT_2;
        assert!((d.buffer.data[0] - 0.5 / total).abs() < 1e-6);
        assert_eq!(d.buffer.data[1], 0.0);
    }

    #[test]
    fn max_frames_is_an_error_not_a_truncation() {
        let wav = simple(1, 1, 8000, 8, &[128; 100]);
        let limits = |max_frames| DecodeLimits {
            max_frames,
            ..DecodeLimits::default()
        };
        let e = decode("a", &wav, &limits(99)).unwrap_err();
        assert!(matches!(
            e,
            DecodeError::TooLong {
                max_frames: 99,
                sample_rate: 8000
            }
        ));
        assert!(decode("a", &wav, &limits(100)).is_ok());
    }

    #[test]
    fn stream_reads_in_pieces_and_rewinds() {
        let values: Vec<i16> = (0..20_000).map(|i| (i % 2000) as i16 * 7).collect();
        let wav = simple(1, 2, 22050, 16, &s16(&values));
        let dir = std::env::temp_dir().join(format!("hitbench-wav-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("stream.wav");
        std::fs::write(&path, &wav).unwrap();
        let whole = decode("a", &wav, &DecodeLimits::default())
            .unwrap()
            .buffer
            .data;
        let mut s = crate::sound::audio::decode::StreamDecoder::open(&path).unwrap();
        assert_eq!(s.info().frames, Some(10_000));
        for _pass in 0..2 {
            let mut out = Vec::new();
            loop {
                let n = s.read(&mut out, 333).unwrap();
                if n == 0 {
                    break;
                }
                assert!(n <= 333);
            }
            assert_eq!(out, whole);
            s.rewind().unwrap();
        }
        let mut big = Vec::new();
        assert_eq!(s.read(&mut big, usize::MAX).unwrap(), 10_000);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
