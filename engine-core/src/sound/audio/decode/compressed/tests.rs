//! Tests of the compressed decoders: a synthetic MP3, endless and booby-trapped sources
//! (limits, panics caught), cut files and headers alone.

use super::*;
use crate::sound::audio::Unmetered;
use crate::sound::audio::decode::DecodeLimits;
use crate::sound::audio::decode::decode;
use crate::sound::audio::decode::detect::CompressedKind;
use std::io::{self, Cursor};
use std::io::{Read, Seek, SeekFrom};
use symphonia::core::io::MediaSource;

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
