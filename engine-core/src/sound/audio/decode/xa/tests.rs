//! XA against the reference decodings of `tests/fixtures/audio/xa/` (every sample), the
//! streaming reader against the whole-file decode, and the damaged and hostile headers.

use super::super::{DecodeError, DecodeLimits, StreamDecoder, decode, probe};
use super::*;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/audio/xa")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

/// The samples of a reference WAV: canonical 16-bit PCM, data at byte 44.
fn reference(name: &str) -> (u16, u32, Vec<i16>) {
    let wav = read(name);
    assert_eq!(&wav[36..40], b"data", "{name} is a canonical WAV");
    let channels = u16::from_le_bytes([wav[22], wav[23]]);
    let rate = u32::from_le_bytes(wav[24..28].try_into().unwrap());
    let samples = wav[44..]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    (channels, rate, samples)
}

/// Decoded `f32` samples back to the 16-bit values they were made from.
fn as_i16(samples: &[f32]) -> Vec<i16> {
    samples
        .iter()
        .map(|&s| {
            let v = s * 32_768.0;
            assert_eq!(v.fract(), 0.0, "{s} is not a 16-bit sample");
            v as i16
        })
        .collect()
}

/// An XA header: `channels` at `rate`, `frames` frames, block align `channels × 2`.
fn header(channels: u16, rate: u32, frames: u32) -> Vec<u8> {
    let align = channels.wrapping_mul(2);
    let mut h = b"XAI\0".to_vec();
    h.extend(frames.wrapping_mul(u32::from(align)).to_le_bytes());
    h.extend(1u16.to_le_bytes());
    h.extend(channels.to_le_bytes());
    h.extend(rate.to_le_bytes());
    h.extend(rate.wrapping_mul(u32::from(align)).to_le_bytes());
    h.extend(align.to_le_bytes());
    h.extend(16u16.to_le_bytes());
    h
}

/// A whole XA file of `frames` frames whose data is `fill(i)` for the i-th data byte, with
/// control bytes kept to filters 0–3.
fn file(channels: u16, frames: u32, fill: impl Fn(usize) -> u8) -> Vec<u8> {
    let mut bytes = header(channels, 22_050, frames);
    let (frames, ch) = (u64::from(frames), u64::from(channels));
    let mut left = frames;
    let mut i = 0;
    while left > 0 {
        let n = left.min(28);
        for _ in 0..ch {
            bytes.push(fill(i) & 0x3F);
            i += 1;
        }
        for _ in 0..n.div_ceil(2) * ch {
            bytes.push(fill(i));
            i += 1;
        }
        left -= n;
    }
    assert_eq!(bytes.len() as u64, 24 + adpcm::data_bytes(frames, ch));
    bytes
}

fn noise(i: usize) -> u8 {
    (i.wrapping_mul(2_654_435_761) >> 7) as u8
}

#[test]
fn the_fixtures_decode_to_their_reference_bit_for_bit() {
    for (name, channels, frames) in [
        ("lbreakout2_excellent_voice", 1u16, 12_375u64),
        ("freedink_secret", 2, 31_041),
    ] {
        let (ref_channels, ref_rate, want) = reference(&format!("{name}.ref.wav"));
        let bytes = read(&format!("{name}.xa"));
        let decoded = decode(&format!("{name}.xa"), &bytes, &DecodeLimits::default()).unwrap();
        assert_eq!(decoded.info.format, AudioFormat::Xa);
        assert_eq!(decoded.info.sample_rate, 22_050);
        assert_eq!(ref_rate, 22_050);
        assert_eq!(
            (decoded.info.channels, decoded.info.source_channels),
            (channels, channels)
        );
        assert_eq!(ref_channels, channels);
        assert_eq!(decoded.info.frames, Some(frames));
        assert_eq!(decoded.buffer.frames() as u64, frames);
        assert_eq!(decoded.partial, None);
        let got = as_i16(&decoded.buffer.data);
        assert_eq!(got.len(), want.len(), "{name}");
        let first = got.iter().zip(&want).position(|(a, b)| a != b);
        assert_eq!(first, None, "{name}: first different sample");
        assert_eq!(probe(name, &bytes).unwrap(), decoded.info);
    }
}

#[test]
fn streaming_gives_the_same_samples_in_any_pieces_and_again_after_a_rewind() {
    let path = fixture("freedink_secret.xa");
    let whole = decode(
        "x.xa",
        &read("freedink_secret.xa"),
        &DecodeLimits::default(),
    )
    .unwrap();
    let mut stream = StreamDecoder::open(&path).unwrap();
    assert_eq!(stream.info(), &whole.info);
    for _ in 0..2 {
        let mut out = Vec::new();
        // Pieces that end inside blocks, on their edges and across runs of blocks.
        for size in [1usize, 27, 28, 29, 1000, 20_000].into_iter().cycle() {
            if stream.read(&mut out, size).unwrap() == 0 {
                break;
            }
        }
        assert_eq!(out, whole.buffer.data);
        assert_eq!(stream.partial(), None);
        stream.rewind().unwrap();
    }
}

#[test]
fn a_cut_off_file_is_refused_saying_so() {
    let bytes = read("damaged_truncated.xa");
    let message = decode("damaged_truncated.xa", &bytes, &DecodeLimits::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "invalid XA file: the data ends before the frames the header promises: 31041 frames of \
         2 channel(s) take 33260 bytes after the 24-byte header, but the file holds only 2976 \
         (cut short?)"
    );
    let streamed = StreamDecoder::open(&fixture("damaged_truncated.xa")).unwrap_err();
    assert_eq!(streamed.to_string(), message);
    // The header alone is sound: probing it says what it promises.
    assert_eq!(probe("x.xa", &bytes).unwrap().frames, Some(31_041));
}

#[test]
fn a_header_without_channels_is_refused_saying_so() {
    let bytes = read("damaged_zero_channels.xa");
    let expected = "invalid XA file: the header says 0 channels; XA has 1 to 8";
    let e = decode("damaged_zero_channels.xa", &bytes, &DecodeLimits::default()).unwrap_err();
    assert_eq!(e.to_string(), expected);
    assert_eq!(probe("x.xa", &bytes).unwrap_err().to_string(), expected);
    let streamed = StreamDecoder::open(&fixture("damaged_zero_channels.xa")).unwrap_err();
    assert_eq!(streamed.to_string(), expected);
}

#[test]
fn bad_headers_are_refused_with_what_is_wrong() {
    let limits = DecodeLimits::default();
    let error = |bytes: &[u8]| decode("x.xa", bytes, &limits).unwrap_err().to_string();
    assert_eq!(
        error(b"XAI\0\x10\0"),
        "invalid XA file: the file ends inside its 24-byte header (6 bytes)"
    );
    assert_eq!(
        error(&header(9, 22_050, 0)),
        "invalid XA file: the header says 9 channels; XA has 1 to 8"
    );
    assert!(
        error(&header(1, 1, 0)).contains("the header says the sample rate is 1 Hz"),
        "{}",
        error(&header(1, 1, 0))
    );
    let mut odd_align = header(2, 22_050, 0);
    odd_align[20] = 2;
    assert_eq!(
        error(&odd_align),
        "invalid XA file: the header's block align is 2 bytes, but a frame of 2 16-bit \
         channel(s) is 4 bytes"
    );
}

#[test]
fn a_header_promising_gigabytes_costs_nothing_to_refuse() {
    // 24 bytes claiming 4 GiB of samples: refused as cut off, before any allocation.
    let mut bytes = header(1, 22_050, 0);
    bytes[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = decode("x.xa", &bytes, &DecodeLimits::default()).unwrap_err();
    assert!(
        matches!(e, DecodeError::Invalid { format: "XA", .. }),
        "{e}"
    );
}

#[test]
fn length_and_size_limits_hold_before_decoding() {
    let bytes = file(2, 1000, noise);
    let short = DecodeLimits {
        max_frames: 999,
        ..DecodeLimits::default()
    };
    assert!(matches!(
        decode("x.xa", &bytes, &short),
        Err(DecodeError::TooLong {
            max_frames: 999,
            ..
        })
    ));
    let small = DecodeLimits {
        max_bytes: 1000 * 2 * 4 - 1,
        ..DecodeLimits::default()
    };
    assert!(matches!(
        decode("x.xa", &bytes, &small),
        Err(DecodeError::TooLarge {
            decoded_bytes: Some(8000),
            ..
        })
    ));
}

#[test]
fn odd_lengths_trailing_bytes_and_many_channels() {
    // 57 frames: two whole blocks and one of a single frame (one row, half used).
    let bytes = file(1, 57, noise);
    let d = decode("x.xa", &bytes, &DecodeLimits::default()).unwrap();
    assert_eq!(d.buffer.frames(), 57);
    // Bytes after the data are not audio and change nothing.
    let mut longer = bytes.clone();
    longer.extend([0xAB; 100]);
    let e = decode("x.xa", &longer, &DecodeLimits::default()).unwrap();
    assert_eq!(e.buffer, d.buffer);
    // Six channels play downmixed to stereo; the probe shows the file's six.
    let six = decode("x.xa", &file(6, 40, noise), &DecodeLimits::default()).unwrap();
    assert_eq!((six.info.channels, six.info.source_channels), (2, 6));
    assert_eq!(six.buffer.frames(), 40);
    // No frames at all is an empty sound, not damage.
    let empty = decode("x.xa", &header(1, 22_050, 0), &DecodeLimits::default()).unwrap();
    assert_eq!((empty.buffer.frames(), empty.partial), (0, None));
}

#[test]
fn a_filter_xa_does_not_have_ends_the_audio_there() {
    let mut bytes = file(2, 100, noise);
    // The second block's second control byte: filter 9.
    let second = 24 + 30 + 1;
    bytes[second] = 0x93;
    let d = decode("x.xa", &bytes, &DecodeLimits::default()).unwrap();
    assert_eq!(d.buffer.frames(), 28, "the first block is kept");
    assert_eq!(
        d.partial.as_deref(),
        Some(
            "decoding stopped at frame 28 of 100: channel 2 of the block at byte 54 names \
             filter 9; XA has filters 0 to 3"
        )
    );
    // In the first block: nothing to play.
    let mut first = file(1, 100, noise);
    first[24] = 0xF0;
    let e = decode("x.xa", &first, &DecodeLimits::default()).unwrap_err();
    assert!(
        matches!(e, DecodeError::NoAudio { format: "XA", .. }),
        "{e}"
    );
}

#[test]
fn whole_and_streamed_decodes_agree_on_generated_files() {
    let dir = std::env::temp_dir().join(format!("hitbench-xa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (channels, frames) in [(1u16, 1u32), (2, 28), (3, 29), (8, 15_000), (1, 40_000)] {
        let bytes = file(channels, frames, noise);
        let whole = decode("x.xa", &bytes, &DecodeLimits::default()).unwrap();
        let path = dir.join(format!("{channels}-{frames}.xa"));
        std::fs::write(&path, &bytes).unwrap();
        let mut stream = StreamDecoder::open(&path).unwrap();
        let mut out = Vec::new();
        while stream.read(&mut out, 5_000).unwrap() > 0 {}
        assert_eq!(
            out, whole.buffer.data,
            "{channels} channels, {frames} frames"
        );
        assert_eq!(whole.buffer.frames() as u64, u64::from(frames));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
