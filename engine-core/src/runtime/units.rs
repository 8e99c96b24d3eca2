//! Units that are easy to confuse, as types: a [`Pan`] is a stereo position from −1 to 1
//! and a [`Gain`] a linear factor. Track code, the view and the lot speak the HIT scale
//! instead (pan 0 left – 512 centre – 1024 right, volume 0 – 1024 full, kept in `i32`
//! registers); [`Pan::from_hit`] and [`Gain::from_hit_volume`] are the only ways across.
//! Sample times are [`super::clock::SampleTime`]. Sizes in bytes are written for people by
//! [`format_bytes`] alone, in binary units (MiB), wherever HitBench shows one.

use crate::toolchain::project::FULL_VOLUME;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The HIT pan of the far left.
pub const HIT_PAN_LEFT: i32 = 0;
/// The HIT pan of the centre.
pub const HIT_PAN_CENTRE: i32 = 512;
/// The HIT pan of the far right.
pub const HIT_PAN_RIGHT: i32 = 1024;

/// A stereo position: −1 far left, 0 centre, 1 far right. Always finite and in range.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
#[repr(transparent)]
pub struct Pan(f32);

impl Pan {
    /// The middle.
    pub const CENTRE: Pan = Pan(0.0);
    /// Far left.
    pub const LEFT: Pan = Pan(-1.0);
    /// Far right.
    pub const RIGHT: Pan = Pan(1.0);

    /// `value` clamped to −1…1 (not-a-number is the centre).
    pub fn new(value: f32) -> Self {
        if value.is_nan() {
            Self::CENTRE
        } else {
            Self(value.clamp(-1.0, 1.0))
        }
    }

    /// A pan on the HIT scale (0 left – 512 centre – 1024 right), clamped.
    pub fn from_hit(hit: i32) -> Self {
        let swing = (HIT_PAN_RIGHT - HIT_PAN_CENTRE) as f32;
        Self::new((hit.saturating_sub(HIT_PAN_CENTRE)) as f32 / swing)
    }

    /// The position, −1…1.
    pub fn get(self) -> f32 {
        self.0
    }

    /// The position on the HIT scale, 0…1024.
    pub fn to_hit(self) -> i32 {
        let swing = (HIT_PAN_RIGHT - HIT_PAN_CENTRE) as f32;
        (HIT_PAN_CENTRE as f32 + self.0 * swing).round() as i32
    }
}

impl fmt::Display for Pan {
    /// `centre`, `L 0.50` or `R 0.25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.abs() < 0.005 {
            f.write_str("centre")
        } else if self.0 < 0.0 {
            write!(f, "L {:.2}", -self.0)
        } else {
            write!(f, "R {:.2}", self.0)
        }
    }
}

/// A linear gain: 0 silent, 1 as recorded. Never negative or not-a-number; may exceed 1.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
#[repr(transparent)]
pub struct Gain(f32);

impl Gain {
    /// Silence.
    pub const SILENT: Gain = Gain(0.0);
    /// Unchanged.
    pub const UNITY: Gain = Gain(1.0);

    /// `value`, with negatives and not-a-number as silence and infinity as the largest
    /// finite gain.
    pub fn new(value: f32) -> Self {
        if value.is_nan() || value <= 0.0 {
            Self::SILENT
        } else {
            Self(value.min(f32::MAX))
        }
    }

    /// A volume on the HIT scale (0 silent – 1024 full); above full is louder.
    pub fn from_hit_volume(volume: i32) -> Self {
        Self::new(volume as f32 / FULL_VOLUME as f32)
    }

    /// The factor.
    pub fn get(self) -> f32 {
        self.0
    }

    /// The gain in decibels (−∞ for silence).
    pub fn db(self) -> f32 {
        20.0 * self.0.log10()
    }

    /// The gain in decibels for people: `+0.0 dB`, `-8.5 dB`, or `silent`.
    pub fn db_text(self) -> String {
        if self == Self::SILENT {
            "silent".to_string()
        } else {
            format!("{:+.1} dB", self.db())
        }
    }

    /// The volume on the HIT scale, 0 for silence, 1024 for unity.
    pub fn to_hit_volume(self) -> i32 {
        (self.0 * FULL_VOLUME as f32).round().min(i32::MAX as f32) as i32
    }
}

impl std::ops::Mul for Gain {
    type Output = Gain;
    fn mul(self, rhs: Gain) -> Gain {
        Gain::new(self.0 * rhs.0)
    }
}

/// A size in bytes for people, in binary units — the one way HitBench writes a size (the
/// panels, the status bar, the command line, messages, the docs): `812 bytes`,
/// `3.5 KiB`, `201.5 MiB`, `256 MiB`, `1.5 GiB`. A whole number of its unit has no
/// decimals.
pub fn format_bytes(bytes: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    let (unit, name) = match bytes {
        0..KIB => return format!("{bytes} bytes"),
        KIB..MIB => (KIB, "KiB"),
        MIB..GIB => (MIB, "MiB"),
        _ => (GIB, "GiB"),
    };
    if bytes.is_multiple_of(unit) {
        format!("{} {name}", bytes / unit)
    } else {
        format!("{:.1} {name}", bytes as f64 / unit as f64)
    }
}

// Pans and gains serialize as their plain number and are read back through their
// constructors, so a value from a file keeps the types' guarantees.

impl Serialize for Pan {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f32(self.0)
    }
}

impl<'de> Deserialize<'de> for Pan {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        f32::deserialize(deserializer).map(Pan::new)
    }
}

impl Serialize for Gain {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f32(self.0)
    }
}

impl<'de> Deserialize<'de> for Gain {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        f32::deserialize(deserializer).map(Gain::new)
    }
}

impl fmt::Display for Gain {
    /// The factor with two decimals, as the traces have always printed it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pan_crosses_between_scales_and_stays_in_range() {
        assert_eq!(Pan::from_hit(HIT_PAN_LEFT), Pan::LEFT);
        assert_eq!(Pan::from_hit(HIT_PAN_CENTRE), Pan::CENTRE);
        assert_eq!(Pan::from_hit(HIT_PAN_RIGHT), Pan::RIGHT);
        assert_eq!(Pan::from_hit(768).get(), 0.5);
        assert_eq!(Pan::from_hit(-40_000), Pan::LEFT);
        assert_eq!(Pan::from_hit(i32::MAX), Pan::RIGHT);
        assert_eq!(Pan::new(f32::NAN), Pan::CENTRE);
        assert_eq!(Pan::new(7.0), Pan::RIGHT);
        assert_eq!(Pan::new(-0.5).to_hit(), 256);
        assert_eq!(Pan::new(-0.5).to_string(), "L 0.50");
        assert_eq!(Pan::CENTRE.to_string(), "centre");
    }

    #[test]
    fn gain_is_never_negative_and_crosses_to_hit_volume() {
        assert_eq!(Gain::new(-1.0), Gain::SILENT);
        assert_eq!(Gain::new(f32::NAN), Gain::SILENT);
        assert_eq!(Gain::new(f32::INFINITY).get(), f32::MAX);
        assert_eq!(Gain::from_hit_volume(FULL_VOLUME), Gain::UNITY);
        assert_eq!(Gain::from_hit_volume(512).get(), 0.5);
        assert_eq!(Gain::from_hit_volume(-3), Gain::SILENT);
        assert_eq!(Gain::new(0.25).to_hit_volume(), 256);
        assert_eq!((Gain::new(0.5) * Gain::new(0.5)).get(), 0.25);
        assert!((Gain::new(0.5).db() + 6.0206).abs() < 1e-3);
        assert_eq!(Gain::SILENT.db(), f32::NEG_INFINITY);
        assert_eq!(Gain::SILENT.db_text(), "silent");
        assert_eq!(Gain::new(0.5).db_text(), "-6.0 dB");
    }

    #[test]
    fn sizes_are_written_in_binary_units() {
        assert_eq!(format_bytes(812), "812 bytes");
        assert_eq!(format_bytes(3584), "3.5 KiB");
        assert_eq!(format_bytes(64 << 20), "64 MiB");
        assert_eq!(format_bytes(256 << 20), "256 MiB");
        assert_eq!(format_bytes(211_284_840), "201.5 MiB");
        assert_eq!(format_bytes(3 << 29), "1.5 GiB");
        assert_eq!(format_bytes(64 << 30), "64 GiB");
    }
}
