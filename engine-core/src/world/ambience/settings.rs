//! `world.ini` `[Ambience]`: the score, the night loop and its hours, the small-room
//! reverb, the volume, freshness, distance and fades.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::world::settings::{Setting, WorldIni, read_section};
use std::path::PathBuf;

/// `world.ini` `[Ambience]`.
#[derive(Debug, Clone, PartialEq)]
pub struct AmbienceSettings {
    /// `Score`: the `.fsc` file (relative to the data directory holding `world.ini`).
    pub score: Option<PathBuf>,
    /// `NightLoop`: the audio file looped at night (crickets).
    pub night_loop: Option<PathBuf>,
    /// `NightStart`: the hour night begins, default 18.
    pub night_start: f32,
    /// `NightEnd`: the hour night ends, default 6.
    pub night_end: f32,
    /// `SmallRoom`: a room of at most this many tiles is small and gets reverb; default 12.
    pub small_room: f32,
    /// `Reverb`: the reverb send level (0–1) in a small room; default 0.6.
    pub reverb: f32,
    /// `Volume`: gain (0–1) of the whole ambience; default 0.8.
    pub volume: f32,
    /// `Freshness`: how many recent picks of a kind are avoided; default 3.
    pub freshness: usize,
    /// `Distance`: tiles at which a score sound is silent; default 40.
    pub distance: f32,
    /// `Fade`: seconds of the fades on and off and of the night loop; default 2.
    pub fade: f32,
}

impl Default for AmbienceSettings {
    fn default() -> Self {
        Self {
            score: None,
            night_loop: None,
            night_start: 18.0,
            night_end: 6.0,
            small_room: 12.0,
            reverb: 0.6,
            volume: 0.8,
            freshness: 3,
            distance: 40.0,
            fade: 2.0,
        }
    }
}

/// The `[Ambience]` keys.
const KEYS: [&str; 10] = [
    "Score",
    "NightLoop",
    "NightStart",
    "NightEnd",
    "SmallRoom",
    "Reverb",
    "Volume",
    "Freshness",
    "Distance",
    "Fade",
];

impl AmbienceSettings {
    /// Reads `[Ambience]`; a bad value or a missing file is a diagnostic naming the
    /// `world.ini` line, and the default (no file) is used instead.
    pub fn from_ini(ini: &WorldIni) -> (Self, Vec<Diagnostic>) {
        let mut settings = AmbienceSettings::default();
        let mut diagnostics = Vec::new();
        read_section(ini, "Ambience", &KEYS, &mut diagnostics, |s, d| {
            let key = s.key.to_ascii_lowercase();
            let (lo, hi) = match key.as_str() {
                "score" => {
                    settings.score = existing_file(s, "score", d);
                    return true;
                }
                "nightloop" => {
                    settings.night_loop = existing_file(s, "night loop", d);
                    return true;
                }
                "nightstart" | "nightend" => (0.0, 24.0),
                "smallroom" => (0.0, 1.0e6),
                "reverb" | "volume" => (0.0, 1.0),
                "freshness" => (0.0, 64.0),
                "distance" => (0.001, 1.0e6),
                "fade" => (0.0, 600.0),
                _ => return false,
            };
            match s.number() {
                Ok(v) if (lo..=hi).contains(&v) => {
                    if key == "freshness" && v.fract() != 0.0 {
                        d.push(s.error(
                            DiagCode::BadNumber,
                            format!("`{}` must be a whole number, not {v}", s.key),
                        ));
                        return true;
                    }
                    let f = v as f32;
                    match key.as_str() {
                        "nightstart" => settings.night_start = f,
                        "nightend" => settings.night_end = f,
                        "smallroom" => settings.small_room = f,
                        "reverb" => settings.reverb = f,
                        "volume" => settings.volume = f,
                        "freshness" => settings.freshness = v as usize,
                        "distance" => settings.distance = f,
                        _ => settings.fade = f,
                    }
                }
                Ok(v) => d.push(s.error(
                    DiagCode::NumberOutOfRange,
                    format!(
                        "`{}` = {v} is out of range ({lo}–{hi}); the default is used",
                        s.key
                    ),
                )),
                Err(e) => d.push(e),
            }
            true
        });
        (settings, diagnostics)
    }

    /// True if `hour` (any number; taken modulo 24) is night: in
    /// `[night_start, 24) ∪ [0, night_end)` when night spans midnight, in
    /// `[night_start, night_end)` otherwise, never when the two are equal.
    pub fn is_night(&self, hour: f32) -> bool {
        let h = hour.rem_euclid(24.0);
        let (start, end) = (self.night_start, self.night_end);
        if start > end {
            h >= start || h < end
        } else {
            h >= start && h < end
        }
    }
}

/// A file setting that must name a regular file.
fn existing_file(setting: &Setting, what: &str, d: &mut Vec<Diagnostic>) -> Option<PathBuf> {
    let path = setting.path();
    let (code, problem) = match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => return Some(path),
        Ok(_) => (
            DiagCode::NotARegularFile,
            "is not a regular file (a folder, a named pipe or a device)",
        ),
        Err(_) => (DiagCode::FileNotFound, "does not exist"),
    };
    d.push(setting.error(
        code,
        format!(
            "`{}`: the {what} file {} {problem}; the ambience plays without it",
            setting.key,
            path.display()
        ),
    ));
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn night_spans_midnight() {
        let s = AmbienceSettings::default();
        assert!(!s.is_night(17.99));
        assert!(s.is_night(18.0));
        assert!(s.is_night(23.5));
        assert!(s.is_night(0.0));
        assert!(s.is_night(5.99));
        assert!(!s.is_night(6.0));
        assert!(s.is_night(24.0 + 2.0));
        let day_night = AmbienceSettings {
            night_start: 1.0,
            night_end: 4.0,
            ..AmbienceSettings::default()
        };
        assert!(day_night.is_night(2.0) && !day_night.is_night(4.0) && !day_night.is_night(23.0));
    }
}
