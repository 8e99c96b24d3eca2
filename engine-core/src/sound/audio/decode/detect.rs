//! Format detection by content: magic numbers, with the file name only used to phrase the
//! error for something unrecognised ("not a WAV file: starts with `<!DO`").

use std::io;
use std::path::PathBuf;

use super::source::ByteSource;
use super::{AudioFormat, DecodeError};

/// What [`detect`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// RIFF WAVE, decoded by our own parser.
    Wav,
    /// The Sims' XA ADPCM, decoded by our own decoder.
    Xa,
    /// A format decoded through symphonia.
    Compressed(CompressedKind),
}

/// The formats that go through symphonia.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompressedKind {
    Mp3,
    OggVorbis,
    Flac,
}

impl CompressedKind {
    pub(crate) fn format(self) -> AudioFormat {
        match self {
            Self::Mp3 => AudioFormat::Mp3,
            Self::OggVorbis => AudioFormat::OggVorbis,
            Self::Flac => AudioFormat::Flac,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        self.format().name()
    }
}

/// How far into a file we look for MPEG frames behind leading junk.
const MP3_SCAN_BYTES: usize = 4096;

/// An IO error without a path yet; the caller that knows the path fills it in.
pub(crate) fn io_err(source: io::Error) -> DecodeError {
    DecodeError::Io {
        path: PathBuf::new(),
        source,
    }
}

fn unsupported(what: &str) -> DecodeError {
    DecodeError::Unsupported {
        what: what.to_owned(),
    }
}

/// Decides what `src` holds from its first bytes. `name` is only used for error messages.
pub(crate) fn detect(src: &mut dyn ByteSource, name: &str) -> Result<Kind, DecodeError> {
    if src.len() == 0 {
        return Err(DecodeError::Empty);
    }
    let mut head_buf = [0u8; 64];
    let n = src.read_at(0, &mut head_buf).map_err(io_err)?;
    let head = head_buf.get(..n).unwrap_or(&[]);
    let tag4 = head.get(..4).unwrap_or(head);
    let at = |range: std::ops::Range<usize>| head.get(range).unwrap_or(&[]);

    match tag4 {
        b"RIFF" => {
            // Shorter than a RIFF header: let the WAV parser say how short it is.
            if head.len() < 12 || at(8..12) == b"WAVE" {
                return Ok(Kind::Wav);
            }
            return Err(DecodeError::Unsupported {
                what: format!(
                    "a RIFF file of type `{}` (not WAVE audio)",
                    printable(at(8..12))
                ),
            });
        }
        b"RIFX" => return Err(unsupported("big-endian WAV (RIFX)")),
        b"RF64" | b"BW64" => return Err(unsupported("64-bit WAV (RF64/BW64)")),
        b"fLaC" => return Ok(Kind::Compressed(CompressedKind::Flac)),
        // `X`, `A`, any byte (seen: `I`, `J`), NUL.
        [b'X', b'A', _, 0] => return Ok(Kind::Xa),
        b"OggS" => return ogg_codec(head).map(Kind::Compressed),
        b"FORM" if matches!(at(8..12), b"AIFF" | b"AIFC") => return Err(unsupported("AIFF audio")),
        b"MThd" => return Err(unsupported("MIDI (note data, not recorded audio)")),
        b".snd" => return Err(unsupported("Sun/NeXT audio (.au)")),
        b"caff" => return Err(unsupported("Core Audio Format (CAF)")),
        b"wvpk" => return Err(unsupported("WavPack audio")),
        b"MAC " => return Err(unsupported("Monkey's Audio (APE)")),
        [0x1A, 0x45, 0xDF, 0xA3] => return Err(unsupported("Matroska/WebM")),
        _ => {}
    }
    if at(4..8) == b"ftyp" {
        return Err(unsupported("MP4/M4A audio"));
    }
    if head.starts_with(b"ID3") {
        // An ID3v2 tag usually precedes MP3, but some taggers put one before FLAC too.
        return id3_then(src, head);
    }
    if let Some(kind) = mpeg_at_start(head)? {
        return Ok(Kind::Compressed(kind));
    }
    if mp3_after_junk(src)? {
        return Ok(Kind::Compressed(CompressedKind::Mp3));
    }
    Err(DecodeError::Unrecognised {
        expected: expected_from_name(name),
        start: printable(head.get(..8).unwrap_or(head)),
    })
}

/// The format a file name's extension suggests.
fn expected_from_name(name: &str) -> Option<&'static str> {
    let ext = std::path::Path::new(name)
        .extension()?
        .to_str()?
        .to_ascii_lowercase();
    match ext.as_str() {
        "wav" | "wave" => Some("WAV"),
        "mp3" => Some("MP3"),
        "ogg" | "oga" => Some("Ogg Vorbis"),
        "flac" => Some("FLAC"),
        "xa" => Some("XA"),
        _ => None,
    }
}

/// Printable ASCII as-is, everything else as `\xNN`.
pub(crate) fn printable(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        if (0x20..0x7F).contains(&b) && b != b'`' {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("\\x{b:02X}"));
        }
    }
    s
}

/// Which codec the first packet of an Ogg stream announces.
fn ogg_codec(head: &[u8]) -> Result<CompressedKind, DecodeError> {
    // The first page: 27-byte header, then one lacing byte per segment, then the packet.
    let Some(&segments) = head.get(26) else {
        // Too short to tell; symphonia will report what is wrong.
        return Ok(CompressedKind::OggVorbis);
    };
    let packet = head.get(27 + usize::from(segments)..).unwrap_or(&[]);
    if packet.len() < 8 || packet.starts_with(b"\x01vorbis") {
        Ok(CompressedKind::OggVorbis)
    } else if packet.starts_with(b"OpusHead") {
        Err(unsupported("Ogg Opus audio"))
    } else if packet.starts_with(b"\x7FFLAC") {
        Err(unsupported("FLAC in an Ogg container"))
    } else if packet.starts_with(b"Speex   ") {
        Err(unsupported("Ogg Speex audio"))
    } else if packet.starts_with(b"\x80theora") {
        Err(unsupported("Ogg Theora video"))
    } else {
        Err(DecodeError::Unsupported {
            what: format!(
                "an Ogg stream of an unknown codec (first packet starts with `{}`)",
                printable(packet.get(..8).unwrap_or(packet))
            ),
        })
    }
}

/// Looks past an ID3v2 tag: FLAC if `fLaC` follows it, MP3 otherwise.
fn id3_then(src: &mut dyn ByteSource, head: &[u8]) -> Result<Kind, DecodeError> {
    let mp3 = Ok(Kind::Compressed(CompressedKind::Mp3));
    let (Some(&flags), Some(size)) = (head.get(5), head.get(6..10)) else {
        return mp3;
    };
    // The size is "syncsafe": 4 × 7 bits.
    let size = size
        .iter()
        .fold(0u64, |acc, &b| (acc << 7) | u64::from(b & 0x7F));
    let footer = if flags & 0x10 != 0 { 10 } else { 0 };
    let end = 10 + size + footer;
    match src.array_at::<4>(end).map_err(io_err)? {
        Some(magic) if &magic == b"fLaC" => Ok(Kind::Compressed(CompressedKind::Flac)),
        _ => mp3,
    }
}

/// MPEG audio version, as far as the frame size formula cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MpegVersion {
    V1,
    V2,
    V25,
}

/// The fields of an MPEG audio frame header that detection needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MpegHeader {
    version: MpegVersion,
    layer: u8,
    sample_rate: u32,
    /// Bytes in the frame (Layer III only; `None` for free-format bitrate).
    frame_len: Option<usize>,
}

fn mpeg_header(h: [u8; 4]) -> Option<MpegHeader> {
    let [b0, b1, b2, b3] = h;
    if b0 != 0xFF || b1 & 0xE0 != 0xE0 {
        return None;
    }
    let version = match (b1 >> 3) & 3 {
        0 => MpegVersion::V25,
        2 => MpegVersion::V2,
        3 => MpegVersion::V1,
        _ => return None,
    };
    let layer = match (b1 >> 1) & 3 {
        1 => 3,
        2 => 2,
        3 => 1,
        _ => return None,
    };
    let bitrate_index = usize::from(b2 >> 4);
    let rate_index = usize::from((b2 >> 2) & 3);
    if bitrate_index == 15 || b3 & 3 == 2 {
        return None;
    }
    let rates: [u32; 3] = match version {
        MpegVersion::V1 => [44100, 48000, 32000],
        MpegVersion::V2 => [22050, 24000, 16000],
        MpegVersion::V25 => [11025, 12000, 8000],
    };
    let sample_rate = *rates.get(rate_index)?;
    let padding = usize::from((b2 >> 1) & 1);
    let frame_len = if layer == 3 && bitrate_index != 0 {
        const V1: [usize; 15] = [
            0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
        ];
        const V2: [usize; 15] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
        let (kbps, factor) = match version {
            MpegVersion::V1 => (*V1.get(bitrate_index)?, 144_000),
            _ => (*V2.get(bitrate_index)?, 72_000),
        };
        let rate = usize::try_from(sample_rate).ok()?;
        Some(factor * kbps / rate + padding)
    } else {
        None
    };
    Some(MpegHeader {
        version,
        layer,
        sample_rate,
        frame_len,
    })
}

/// Classifies a file that starts with an MPEG-style sync word.
fn mpeg_at_start(head: &[u8]) -> Result<Option<CompressedKind>, DecodeError> {
    let Some(&[b0, b1, b2, b3]) = head.get(..4) else {
        return Ok(None);
    };
    // ADTS AAC shares the 12-bit sync but has layer bits 00.
    if b0 == 0xFF && b1 & 0xF6 == 0xF0 {
        return Err(unsupported("AAC audio (ADTS)"));
    }
    match mpeg_header([b0, b1, b2, b3]) {
        Some(h) if h.layer == 3 => Ok(Some(CompressedKind::Mp3)),
        Some(h) => Err(DecodeError::Unsupported {
            what: format!("MPEG audio layer {} (MP{})", roman(h.layer), h.layer),
        }),
        None => Ok(None),
    }
}

fn roman(layer: u8) -> &'static str {
    match layer {
        1 => "I",
        2 => "II",
        _ => "III",
    }
}

/// True if two consecutive Layer III frame headers appear within the first few KiB (MP3
/// files with leading junk or padding).
fn mp3_after_junk(src: &mut dyn ByteSource) -> Result<bool, DecodeError> {
    // Room for a scan start near the end of the window plus the largest frame (2881 bytes).
    let mut buf = vec![0u8; MP3_SCAN_BYTES + 2048 + 4];
    let n = src.read_at(0, &mut buf).map_err(io_err)?;
    buf.truncate(n);
    let header_at = |off: usize| -> Option<MpegHeader> {
        let bytes: [u8; 4] = buf.get(off..off.checked_add(4)?)?.try_into().ok()?;
        mpeg_header(bytes)
    };
    for off in 0..MP3_SCAN_BYTES.min(n) {
        if buf.get(off) != Some(&0xFF) {
            continue;
        }
        let Some(first) = header_at(off) else {
            continue;
        };
        let (3, Some(len)) = (first.layer, first.frame_len) else {
            continue;
        };
        let Some(next) = off.checked_add(len).and_then(header_at) else {
            continue;
        };
        if next.layer == 3 && next.version == first.version && next.sample_rate == first.sample_rate
        {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sound::audio::decode::source::SliceSource;

    fn kind(bytes: &[u8]) -> Result<Kind, DecodeError> {
        detect(&mut SliceSource::new(bytes), "x")
    }

    #[test]
    fn magic_numbers_decide() {
        assert_eq!(kind(b"RIFF\0\0\0\0WAVEfmt ").unwrap(), Kind::Wav);
        assert_eq!(
            kind(b"fLaC\0\0\0\x22").unwrap(),
            Kind::Compressed(CompressedKind::Flac)
        );
        assert_eq!(
            kind(b"ID3\x03\0\0\0\0\0\0").unwrap(),
            Kind::Compressed(CompressedKind::Mp3)
        );
        // MPEG-1 Layer III, 128 kbps, 44.1 kHz.
        assert_eq!(
            kind(&[0xFF, 0xFB, 0x90, 0x64]).unwrap(),
            Kind::Compressed(CompressedKind::Mp3)
        );
        // A bare RIFF header too short to say WAVE still goes to the WAV parser (for its error).
        assert_eq!(kind(b"RIFF\0\0").unwrap(), Kind::Wav);
        assert_eq!(kind(b"XAI\0\x04\xe5").unwrap(), Kind::Xa);
        assert_eq!(kind(b"XAJ\0").unwrap(), Kind::Xa);
        assert!(matches!(
            kind(b"XAI!"),
            Err(DecodeError::Unrecognised { .. })
        ));
    }

    #[test]
    fn id3_followed_by_flac_is_flac() {
        let mut bytes = b"ID3\x04\0\0\0\0\0\x05".to_vec();
        bytes.extend_from_slice(&[0; 5]);
        bytes.extend_from_slice(b"fLaC");
        assert_eq!(
            kind(&bytes).unwrap(),
            Kind::Compressed(CompressedKind::Flac)
        );
    }

    #[test]
    fn ogg_codec_is_read_from_the_first_packet() {
        let page = |packet: &[u8]| {
            let mut p = b"OggS\0\x02".to_vec();
            p.extend_from_slice(&[0; 20]);
            p.push(1); // one segment
            p.push(u8::try_from(packet.len()).unwrap());
            p.extend_from_slice(packet);
            p
        };
        assert_eq!(
            kind(&page(b"\x01vorbis\0\0\0\0")).unwrap(),
            Kind::Compressed(CompressedKind::OggVorbis)
        );
        let opus = kind(&page(b"OpusHead\x01\x02")).unwrap_err().to_string();
        assert_eq!(opus, "Ogg Opus audio is not supported");
    }

    #[test]
    fn other_formats_are_named() {
        let aiff = kind(b"FORM\0\0\0\0AIFFCOMM").unwrap_err().to_string();
        assert_eq!(aiff, "AIFF audio is not supported");
        let mp2 = kind(&[0xFF, 0xFD, 0x90, 0x64]).unwrap_err().to_string();
        assert_eq!(mp2, "MPEG audio layer II (MP2) is not supported");
        let avi = kind(b"RIFF\0\0\0\0AVI LIST").unwrap_err().to_string();
        assert_eq!(
            avi,
            "a RIFF file of type `AVI ` (not WAVE audio) is not supported"
        );
    }

    #[test]
    fn unrecognised_names_the_first_bytes_and_the_hinted_format() {
        let e = detect(&mut SliceSource::new(b"<!DOCTYPE html>"), "menu.wav").unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a WAV file (nor any other supported audio format): starts with `<!DOCTYP`"
        );
        let e = kind(&[0, 1, 0x41]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unrecognised audio format (expected WAV, MP3, Ogg Vorbis, FLAC or XA): starts \
             with `\\x00\\x01A`"
        );
        assert!(matches!(kind(b""), Err(DecodeError::Empty)));
    }

    #[test]
    fn mp3_behind_junk_needs_two_frames_in_a_row() {
        // MPEG-1 Layer III 128 kbps 44.1 kHz, no padding: 417 bytes per frame.
        let frame = |n: usize| {
            let mut f = vec![0xFF, 0xFB, 0x90, 0x64];
            f.resize(n, 0);
            f
        };
        let mut bytes = vec![0u8; 100];
        bytes.extend(frame(417));
        bytes.extend(frame(417));
        assert_eq!(kind(&bytes).unwrap(), Kind::Compressed(CompressedKind::Mp3));
        // One lone sync word in junk is not enough.
        let mut lone = vec![0u8; 100];
        lone.extend(frame(417));
        assert!(matches!(kind(&lone), Err(DecodeError::Unrecognised { .. })));
    }
}
