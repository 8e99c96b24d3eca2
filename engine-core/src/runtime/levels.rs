//! Levels handed to the runtime from outside it: what the world's view decided about an
//! object's volume and pan ([`ViewLevels`]), what a thread's external volume and pan
//! registers were given and by whom ([`GivenLevels`]), and the option group and master
//! volumes the mixer applies after a note's own gain ([`BusVolumes`]). Plain data: the
//! runtime uses no `world` or `sound` type; those layers fill these in.

use crate::runtime::sink::ControlGroup;
use crate::runtime::units::Gain;
use serde::{Deserialize, Serialize};

/// Where an object stands relative to the view's full-volume area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScreenArea {
    /// Inside the full-volume area: no fade.
    Inside,
    /// Between the area and the silent edge: fading.
    Fading,
    /// At or past the silent edge.
    Silent,
    /// A stereo: never faded, wherever it is.
    Exempt,
}

impl ScreenArea {
    /// Lower-case name for displays.
    pub fn name(self) -> &'static str {
        match self {
            ScreenArea::Inside => "inside",
            ScreenArea::Fading => "fading",
            ScreenArea::Silent => "silent",
            ScreenArea::Exempt => "exempt (stereo)",
        }
    }
}

/// What the world's view gave an object's tracks: the factors of their external volume
/// (its volume register is `1024 × fade × zoom × floor`, rounded) and the screen
/// position their pan comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ViewLevels {
    /// Where the object is relative to the full-volume area.
    pub area: ScreenArea,
    /// The fade factor of that area (1 inside and for stereos, 0 when silent).
    pub fade: Gain,
    /// The zoom factor.
    pub zoom: Gain,
    /// The floor factor (1 on the camera's floor).
    pub floor: Gain,
    /// The object's x on screen, in pixels from the left (may be off screen).
    pub screen_x: f32,
    /// The screen's width in pixels.
    pub screen_width: f32,
    /// How much of the full left–right swing the screen's width spans (0–1).
    pub pan_range: f32,
}

/// The external volume and pan registers a track was given (0–1024 each), and whether
/// they came from its object's place in the view (`view`) or from the trigger's
/// arguments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GivenLevels {
    /// The external volume register given.
    pub volume: i32,
    /// The pan register given.
    pub pan: i32,
    /// The view's reasons, when the object's place decided them.
    pub view: Option<ViewLevels>,
}

/// The volumes the mixer applies after a note's own gain: each option group's and the
/// master volume, as last set. The host keeps the runtime's copy equal to the mixer's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BusVolumes {
    /// FX, Music and VOX.
    pub groups: [Gain; 3],
    /// The master volume.
    pub master: Gain,
}

impl Default for BusVolumes {
    /// Everything at 1.
    fn default() -> Self {
        Self {
            groups: [Gain::UNITY; 3],
            master: Gain::UNITY,
        }
    }
}

impl BusVolumes {
    /// A group's volume.
    pub fn group(&self, group: ControlGroup) -> Gain {
        let index = match group {
            ControlGroup::Fx => 0,
            ControlGroup::Music => 1,
            ControlGroup::Vox => 2,
        };
        self.groups.get(index).copied().unwrap_or(Gain::UNITY)
    }
}
