//! Sample encodings (PCM of every size, float, G.711), `fmt ` variants, unsupported
//! encodings named, and channel counts.

use super::*;
use crate::sound::audio::decode::{DecodeError, probe};

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
fn every_channel_of_the_file_is_reported() {
    let wav = simple(1, 255, 48000, 8, &[128; 255 * 3]);
    let info = probe("a", &wav).unwrap();
    assert_eq!((info.source_channels, info.channels), (255, 2));
    assert_eq!(info.frames, Some(3));
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
