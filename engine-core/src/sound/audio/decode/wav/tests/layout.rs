//! Walking the chunks of real-world files: pad bytes, wrong sizes, stray bytes, chunks in
//! any order, files cut short and nonsense headers.

use super::*;
use crate::sound::audio::decode::probe;

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
