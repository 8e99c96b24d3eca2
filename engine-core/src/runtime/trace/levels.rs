//! Where a note's gain and pan come from, contribution by contribution: [`GainParts`]
//! (track volume, the external volume — the trigger's, the object's place in the view,
//! or the track's own code —, ducking, the option group's volume and the master volume)
//! and [`PanParts`]. What the world's view decided comes as [`ViewLevels`]
//! (`runtime::levels`).

use crate::runtime::levels::{ScreenArea, ViewLevels};
use crate::runtime::sink::ControlGroup;
use crate::runtime::units::{Gain, Pan};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a note's external volume came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum ExternalVolume {
    /// The volume the track was started with: full for a UI sound or a source that is not
    /// on the lot, else the event's argument or the volume of the track that started it
    /// with `play_trk`.
    Trigger(Gain),
    /// The object's place in the view.
    View {
        /// The view's factors.
        factors: ViewLevels,
        /// The external volume register they gave (their product on the 0–1024 scale).
        volume: Gain,
    },
    /// The track's own code set its external volume register.
    Code(Gain),
}

impl ExternalVolume {
    /// The external volume the note plays with.
    pub fn gain(&self) -> Gain {
        match self {
            ExternalVolume::Trigger(g) | ExternalVolume::Code(g) => *g,
            ExternalVolume::View { volume, .. } => *volume,
        }
    }
}

/// One named contribution to a note's gain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GainFactor {
    /// The track's volume register.
    TrackVolume,
    /// The volume the track was started with ([`ExternalVolume::Trigger`]).
    TriggerVolume,
    /// The external volume register as the track's code set it.
    CodeVolume,
    /// The view's fade for the object's screen area.
    Fade(ScreenArea),
    /// The view's zoom factor.
    Zoom,
    /// The view's floor factor.
    Floor,
    /// The view's product rounded to the 0–1024 volume scale of the register.
    Rounding,
    /// Ducking by a track of higher ducking priority.
    Ducking,
    /// A note's own gain is limited to 4 (the product of the factors before it was more).
    Limit,
    /// The option group's volume.
    Group(ControlGroup),
    /// The master volume.
    Master,
}

impl fmt::Display for GainFactor {
    /// `track volume`, `fade (fading)`, `group FX`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GainFactor::TrackVolume => f.write_str("track volume"),
            GainFactor::TriggerVolume => f.write_str("trigger volume"),
            GainFactor::CodeVolume => f.write_str("external volume set by the track"),
            GainFactor::Fade(area) => write!(f, "fade ({})", area.name()),
            GainFactor::Zoom => f.write_str("zoom"),
            GainFactor::Floor => f.write_str("floor"),
            GainFactor::Rounding => f.write_str("rounding to the 0–1024 scale"),
            GainFactor::Ducking => f.write_str("ducking"),
            GainFactor::Limit => f.write_str("limit 4"),
            GainFactor::Group(group) => write!(f, "group {}", group.name()),
            GainFactor::Master => f.write_str("master"),
        }
    }
}

impl GainFactor {
    /// Why a note is silent when this factor is 0, in words.
    pub fn silence(self) -> &'static str {
        match self {
            GainFactor::TrackVolume => "the track's volume register is 0",
            GainFactor::TriggerVolume => "it was triggered at volume 0",
            GainFactor::CodeVolume => "the track's code set its external volume to 0",
            GainFactor::Fade(_) => "the object is outside the view's fade",
            GainFactor::Zoom => "the zoom level's volume is 0",
            GainFactor::Floor => "the floor's volume is 0",
            GainFactor::Rounding => "the view's volume rounds to 0 on the 0–1024 scale",
            GainFactor::Ducking => "ducked to nothing",
            GainFactor::Limit => "limited to nothing",
            GainFactor::Group(_) => "its option group's volume is 0",
            GainFactor::Master => "the master volume is 0",
        }
    }
}

/// Where a note's gain comes from, factor by factor. The note starts with
/// [`GainParts::note_gain`]; the mixer multiplies in its option group's volume and the
/// master volume, giving [`GainParts::total`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GainParts {
    /// The track's volume register.
    pub track_volume: Gain,
    /// The external volume and where it came from.
    pub external: ExternalVolume,
    /// Ducking by a higher ducking priority (1 when not ducked).
    pub ducking: Gain,
    /// The note's option group.
    pub group: ControlGroup,
    /// That group's volume as last set (the mixer's bus volume).
    pub group_volume: Gain,
    /// The master volume as last set.
    pub master: Gain,
}

/// The largest gain a note starts with.
pub const MAX_NOTE_GAIN: f32 = 4.0;

impl GainParts {
    /// The gain the note starts with (what the sound server is sent): track volume ×
    /// external volume × ducking, at most [`MAX_NOTE_GAIN`].
    pub fn note_gain(&self) -> Gain {
        Gain::new(
            (self.track_volume * self.external.gain() * self.ducking)
                .get()
                .min(MAX_NOTE_GAIN),
        )
    }

    /// The gain the note is heard at: [`GainParts::note_gain`] × the option group's
    /// volume × the master volume, multiplied as the mixer does (a voice's gain, then its
    /// bus's group × master).
    pub fn total(&self) -> Gain {
        Gain::new(self.note_gain().get() * (self.group_volume.get() * self.master.get()))
    }

    /// The external volume, whatever its source.
    pub fn external_volume(&self) -> Gain {
        self.external.gain()
    }

    /// Every contribution that applies to this note, in order, whose product is
    /// [`GainParts::total`] (to rounding in the last bits): the track volume, the
    /// external volume — the trigger's, the track's own, or the view's fade, zoom and
    /// floor (and their rounding to the register's scale when it changes them) —,
    /// ducking, the limit when it applies, the option group and the master volume.
    pub fn factors(&self) -> Vec<(GainFactor, Gain)> {
        let mut out = vec![(GainFactor::TrackVolume, self.track_volume)];
        match self.external {
            ExternalVolume::Trigger(g) => out.push((GainFactor::TriggerVolume, g)),
            ExternalVolume::Code(g) => out.push((GainFactor::CodeVolume, g)),
            ExternalVolume::View { factors, volume } => {
                out.push((GainFactor::Fade(factors.area), factors.fade));
                out.push((GainFactor::Zoom, factors.zoom));
                out.push((GainFactor::Floor, factors.floor));
                let exact = factors.fade.get() * factors.zoom.get() * factors.floor.get();
                if exact > 0.0 {
                    let step = volume.get() / exact;
                    if (step - 1.0).abs() > 1.0e-6 {
                        out.push((GainFactor::Rounding, Gain::new(step)));
                    }
                }
            }
        }
        out.push((GainFactor::Ducking, self.ducking));
        let raw = (self.track_volume * self.external.gain() * self.ducking).get();
        if raw > MAX_NOTE_GAIN {
            out.push((GainFactor::Limit, Gain::new(MAX_NOTE_GAIN / raw)));
        }
        out.push((GainFactor::Group(self.group), self.group_volume));
        out.push((GainFactor::Master, self.master));
        out
    }

    /// The first factor that is 0, when the note is silent.
    pub fn silenced_by(&self) -> Option<GainFactor> {
        if self.total() > Gain::SILENT {
            return None;
        }
        self.factors()
            .into_iter()
            .find(|(_, g)| *g == Gain::SILENT)
            .map(|(factor, _)| factor)
    }
}

/// Where a note's pan came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum PanSource {
    /// The pan the track was started with: the centre for a UI sound or a source that is
    /// not on the lot, else the event's argument or the pan of the track that started it.
    Trigger,
    /// The object's x on screen (the view's factors).
    Screen(ViewLevels),
    /// The track's own code set its pan register.
    Code,
}

/// A note's pan and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PanParts {
    /// The pan the note plays at.
    pub value: Pan,
    /// Where it came from.
    pub source: PanSource,
}

impl fmt::Display for PanSource {
    /// `from the screen (x 640 of 1024 px, pan range 1.00)`, `as triggered`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PanSource::Trigger => f.write_str("as triggered"),
            PanSource::Screen(view) => write!(
                f,
                "from the screen (x {:.0} of {:.0} px, pan range {:.2})",
                view.screen_x, view.screen_width, view.pan_range
            ),
            PanSource::Code => f.write_str("set by the track's code (its pan register)"),
        }
    }
}

impl fmt::Display for PanParts {
    /// `R 0.25 from the screen (x 640 of 1024 px, pan range 1.00)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.value, self.source)
    }
}
