//! WAV format tags: which sample encoding a `fmt ` chunk's tag and container size mean,
//! and the names of the tags HitBench cannot play, for the message.

use super::super::{DecodeError, WavEncoding};
use super::invalid;

/// The sample encoding for a format tag and container size.
pub(super) fn encoding_for(tag: u16, bits: u16) -> Result<WavEncoding, DecodeError> {
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
