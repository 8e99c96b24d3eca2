//! One symphonia reader per format (so symphonia cannot take a file for another container
//! than the one its content was detected as), the codec each format must have, and
//! symphonia's errors and panics in words.

use std::any::Any;
use std::io;
use std::sync::LazyLock;

use symphonia::core::codecs::audio::AudioCodecId;
use symphonia::core::codecs::audio::well_known::{CODEC_ID_FLAC, CODEC_ID_MP3, CODEC_ID_VORBIS};
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::Probe;
use symphonia::default::formats::{FlacReader, MpaReader, OggReader};
use symphonia::default::meta::{ApeReader, Id3v1Reader, Id3v2Reader};

use super::super::DecodeError;
use super::super::detect::CompressedKind;

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

pub(super) fn probe_for(kind: CompressedKind) -> &'static Probe {
    match kind {
        CompressedKind::Mp3 => &MP3_PROBE,
        CompressedKind::OggVorbis => &OGG_PROBE,
        CompressedKind::Flac => &FLAC_PROBE,
    }
}

pub(super) fn codec_for(kind: CompressedKind) -> AudioCodecId {
    match kind {
        CompressedKind::Mp3 => CODEC_ID_MP3,
        CompressedKind::OggVorbis => CODEC_ID_VORBIS,
        CompressedKind::Flac => CODEC_ID_FLAC,
    }
}

pub(super) fn extension_for(kind: CompressedKind) -> &'static str {
    match kind {
        CompressedKind::Mp3 => "mp3",
        CompressedKind::OggVorbis => "ogg",
        CompressedKind::Flac => "flac",
    }
}

/// A panic payload as text.
pub(super) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with no message".to_owned()
    }
}

/// A symphonia error in words.
pub(super) fn describe(e: &SymphoniaError) -> String {
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
pub(super) fn open_error(kind: CompressedKind, e: &SymphoniaError) -> DecodeError {
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
