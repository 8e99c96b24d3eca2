//! `world.ini` `[Voices]`: the Box-X priority of each kind of world player. Box-X's
//! voice limit covers everything playing: every station on air, the music, the load
//! loop, the river and the ambience hold a voice slot like a track, at these
//! priorities (0–127, as a track's), so they steal and are stolen like tracks.

use crate::runtime::voices::WorldVoice;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::world::settings::{WorldIni, read_section};

const KEYS: [&str; 5] = ["Station", "Music", "LoadLoop", "River", "Ambience"];

/// `world.ini` `[Voices]`: each kind's priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VoiceSettings {
    /// `Station`: a station on air (default 32, a track's default: neither steals the
    /// other).
    pub station: i32,
    /// `Music`: the mode's songs (default 48).
    pub music: i32,
    /// `LoadLoop`: the load loop (default 64).
    pub load_loop: i32,
    /// `River`: the neighbourhood's river loop (default 24).
    pub river: i32,
    /// `Ambience`: the lot ambience (default 16: the first to go).
    pub ambience: i32,
}

impl Default for VoiceSettings {
    fn default() -> Self {
        Self {
            station: 32,
            music: 48,
            load_loop: 64,
            river: 24,
            ambience: 16,
        }
    }
}

impl VoiceSettings {
    /// Reads `[Voices]` of `ini`; each bad value is a diagnostic naming its file and
    /// line (and the default stays).
    pub fn from_ini(ini: &WorldIni) -> (Self, Vec<Diagnostic>) {
        let mut settings = Self::default();
        let mut diagnostics = Vec::new();
        read_section(ini, "Voices", &KEYS, &mut diagnostics, |s, d| {
            let key = s.key.to_ascii_lowercase();
            let slot = match key.as_str() {
                "station" => &mut settings.station,
                "music" => &mut settings.music,
                "loadloop" => &mut settings.load_loop,
                "river" => &mut settings.river,
                "ambience" => &mut settings.ambience,
                _ => return false,
            };
            match s.number() {
                Ok(v) if (0.0..=127.0).contains(&v) && v.fract() == 0.0 => *slot = v as i32,
                Ok(v) => d.push(s.error(
                    DiagCode::NumberOutOfRange,
                    format!(
                        "`{}` = {v} is not a priority: a whole number from 0 to 127",
                        s.key
                    ),
                )),
                Err(e) => d.push(e),
            }
            true
        });
        (settings, diagnostics)
    }

    /// The priority of `who`.
    pub fn priority(&self, who: WorldVoice) -> i32 {
        match who {
            WorldVoice::Station(_) => self.station,
            WorldVoice::Music => self.music,
            WorldVoice::LoadLoop => self.load_loop,
            WorldVoice::River => self.river,
            WorldVoice::Ambience => self.ambience,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn read(text: &str) -> (VoiceSettings, Vec<String>) {
        let mut ini = WorldIni::default();
        ini.add(Path::new("p/world.ini"), Path::new("p"), text.as_bytes());
        let (settings, diagnostics) = VoiceSettings::from_ini(&ini);
        (
            settings,
            diagnostics.iter().map(ToString::to_string).collect(),
        )
    }

    #[test]
    fn priorities_are_read_per_kind() {
        let (s, d) = read("[Voices]\nStation = 10\nloadloop = 127\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s.priority(WorldVoice::Station(28)), 10);
        assert_eq!(s.priority(WorldVoice::LoadLoop), 127);
        assert_eq!(s.priority(WorldVoice::Music), 48, "the default stays");
    }

    #[test]
    fn bad_values_name_the_line_and_keep_the_default() {
        let (s, d) = read("[Voices]\nMusic = 200\nRiver = 2.5\nAmbience = low\nTV = 3\n");
        assert_eq!(s, VoiceSettings::default());
        assert_eq!(d.len(), 4, "{d:#?}");
        assert!(d[0].starts_with("p/world.ini:2:"), "{}", d[0]);
        assert!(d[0].contains("not a priority"), "{}", d[0]);
        assert!(d[1].contains("not a priority"), "{}", d[1]);
        assert!(d[3].contains("unknown key `TV` in [Voices]"), "{}", d[3]);
    }
}
