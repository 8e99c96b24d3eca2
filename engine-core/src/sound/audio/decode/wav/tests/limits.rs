//! The limits of a whole-file decode (decoded size, length), and streaming from disk.

use super::*;
use crate::sound::audio::decode::DecodeError;

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
