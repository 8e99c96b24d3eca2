//! The camera and how it decides every sounding object's volume and pan — what
//! `NotifyViewChange` recomputes when the player scrolls, zooms, rotates or changes floor.
//!
//! The rules (design document, "View changes and Pan Positions" and "Computing volume and pan"):
//! - **pan** follows the object's horizontal position on screen: left edge 0, centre 512,
//!   right edge 1024, clamped beyond the edges;
//! - **zooming out attenuates** (a gain per zoom level);
//! - inside the **full-volume area** (a centred rectangle, a fraction of the screen) an
//!   object is at full volume; it **fades** as it leaves the area and is **silent** a set
//!   distance beyond the screen edge;
//! - **stereos** are exempt from the fade: audible at any distance (still panned and
//!   attenuated by zoom and floor);
//! - an object on **another floor** than the one the camera looks at is quieter: ×½ below
//!   it, ×¼ above it (hit-reference §3.7);
//! - a **station** (radio or TV channel) sounds at the weighted average of its receivers'
//!   volumes and pans, receivers nearer the screen centre weighing more, a silent one not
//!   at all ([`combine`]).
//!
//! Every distance and curve is a `[View]` key of the project's `world.ini`
//! ([`ViewSettings::from_ini`]; the keys and defaults are listed in `docs/lot.md`).
//!
//! Group volume (the FX / Music / VOX option) is applied later by the mixer; a
//! [`Placement`] leaves [`Attenuation::group`] at 1 and [`Placement::with_group`] lets the
//! visualizer multiply it in.
//!
//! Everything here is plain arithmetic on a few floats: no allocation, deterministic.

use super::settings::{Setting, WorldIni, read_section};
use super::{ObjectKind, World, WorldObject};
use crate::runtime::units::{Gain, HIT_PAN_CENTRE, HIT_PAN_LEFT, HIT_PAN_RIGHT, Pan};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::project::FULL_VOLUME;
use std::borrow::Borrow;
use std::f32::consts::FRAC_PI_2;
use std::fmt;

/// Pan of the left edge (HIT scale).
pub const PAN_LEFT: i32 = HIT_PAN_LEFT;
/// Pan of the screen centre (HIT scale).
pub const PAN_CENTRE: i32 = HIT_PAN_CENTRE;
/// Pan of the right edge (HIT scale).
pub const PAN_RIGHT: i32 = HIT_PAN_RIGHT;

/// The `world.ini` section read by [`ViewSettings::from_ini`].
pub const SECTION: &str = "View";

/// Screen size used when neither the lot nor the settings give one, in pixels.
pub const DEFAULT_SCREEN: [f32; 2] = [1024.0, 768.0];

/// The nearest zoom level.
pub const ZOOM_NEAR: u8 = 1;
/// The farthest zoom level.
pub const ZOOM_FAR: u8 = 3;

/// The camera: what part of the lot is on screen.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Camera {
    /// The lot point at the centre of the screen, in tiles (x, y).
    pub centre: [f32; 2],
    /// Zoom level: 1 near, 2 middle, 3 far (other values count as the nearest valid one).
    pub zoom: u8,
    /// Quarter turns of the view, 0–3 (counted modulo 4).
    pub rotation: u8,
    /// The floor the camera shows (0 the ground floor); objects on other floors are
    /// quieter ([`ViewSettings::floor_below_gain`], [`ViewSettings::floor_above_gain`]).
    pub level: i32,
    /// The screen size in pixels (width, height).
    pub screen: [f32; 2],
}

impl Default for Camera {
    /// At tile (0, 0), near, unrotated, on the ground floor, on a [`DEFAULT_SCREEN`].
    fn default() -> Self {
        Self {
            centre: [0.0; 2],
            zoom: ZOOM_NEAR,
            rotation: 0,
            level: 0,
            screen: DEFAULT_SCREEN,
        }
    }
}

impl Camera {
    /// The zoom level as an index 0–2 into the per-zoom settings.
    pub fn zoom_index(&self) -> usize {
        usize::from(self.zoom.clamp(ZOOM_NEAR, ZOOM_FAR) - ZOOM_NEAR)
    }

    /// The screen size, each side at least one pixel.
    pub fn screen_size(&self) -> [f32; 2] {
        [self.screen[0].max(1.0), self.screen[1].max(1.0)]
    }

    /// The camera moved so that the screen point `offset` pixels from the centre (x right,
    /// y down) becomes the centre: scrolling by `[100, 0]` moves the view 100 pixels to the
    /// right, so every object moves 100 pixels left on screen.
    pub fn scrolled(&self, settings: &ViewSettings, offset: [f32; 2]) -> Camera {
        let [w, h] = self.screen_size();
        let centre = settings.to_tiles(self, [w / 2.0 + offset[0], h / 2.0 + offset[1]]);
        Camera { centre, ..*self }
    }
}

/// How the fade falls from 1 (at the edge of the full-volume area) to 0 (at the fade
/// distance beyond the screen edge), as a function of `t`, how far through that band the
/// object is (0–1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum FadeCurve {
    /// `1 − t`.
    Linear,
    /// `cos(t·π/2)`: equal power, −3 dB half way.
    EqualPower,
    /// `1 − (3t² − 2t³)` (smoothstep): no corner where the fade starts or ends.
    #[default]
    Smooth,
}

impl FadeCurve {
    /// Every curve.
    pub const ALL: [FadeCurve; 3] = [FadeCurve::Linear, FadeCurve::EqualPower, FadeCurve::Smooth];

    /// The name used in `world.ini`.
    pub fn name(self) -> &'static str {
        match self {
            FadeCurve::Linear => "linear",
            FadeCurve::EqualPower => "equal-power",
            FadeCurve::Smooth => "smooth",
        }
    }

    /// The curve with this name (case-insensitive).
    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The fade at `t` (clamped to 0–1): 1 at 0, 0 at 1, never rising.
    pub fn gain(self, t: f32) -> f32 {
        let t = if t.is_nan() { 1.0 } else { t.clamp(0.0, 1.0) };
        if t >= 1.0 {
            return 0.0;
        }
        let g = match self {
            FadeCurve::Linear => 1.0 - t,
            FadeCurve::EqualPower => (t * FRAC_PI_2).cos(),
            FadeCurve::Smooth => 1.0 - t * t * (3.0 - 2.0 * t),
        };
        g.clamp(0.0, 1.0)
    }
}

impl fmt::Display for FadeCurve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The `[View]` settings: how positions become pixels and pixels become volume and pan.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ViewSettings {
    /// `TileSize`: the width of a floor tile on screen, in pixels, per zoom level (near,
    /// middle, far). Default 128, 64, 32.
    pub tile_size: [f32; 3],
    /// `Screen`: the screen size when the lot gives none, in pixels. Default 1024, 768.
    pub screen: [f32; 2],
    /// `FullVolumeArea`: the full-volume rectangle, centred, as fractions (0–1) of the
    /// screen's width and height. One number sets both. Default 0.6, 0.6.
    pub full_volume_area: [f32; 2],
    /// `FadeDistance`: how far beyond the screen edge, in pixels, an object becomes silent.
    /// Default 256.
    pub fade_distance: f32,
    /// `FadeCurve`: `linear`, `equal-power` or `smooth`. Default `smooth`.
    pub fade_curve: FadeCurve,
    /// `ZoomGain`: the gain (0–1) at each zoom level (near, middle, far). Default 1, 0.7,
    /// 0.5.
    pub zoom_gain: [f32; 3],
    /// `FloorBelowGain`: the gain (0–1) of an object on a floor below the camera's floor.
    /// Default 0.5.
    pub floor_below_gain: f32,
    /// `FloorAboveGain`: the gain (0–1) of an object on a floor above the camera's floor.
    /// Default 0.25.
    pub floor_above_gain: f32,
    /// `PanRange`: how much of the pan range the screen's width spans (0–1): 1 puts the
    /// edges hard left and right, 0.5 at a quarter and three quarters. Default 1.
    pub pan_range: f32,
    /// `StationWeightPower`: a receiver's weight in its station falls as
    /// `(near / distance)^power` with its distance from the screen centre. Above 1, the
    /// receiver nearer the centre takes over as the view scrolls. Default 2.
    pub station_weight_power: f32,
    /// `StationWeightNear`: receivers closer than this to the screen centre, in pixels,
    /// all weigh the same (the most). Default 32.
    pub station_weight_near: f32,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            tile_size: [128.0, 64.0, 32.0],
            screen: DEFAULT_SCREEN,
            full_volume_area: [0.6, 0.6],
            fade_distance: 256.0,
            fade_curve: FadeCurve::Smooth,
            zoom_gain: [1.0, 0.7, 0.5],
            floor_below_gain: 0.5,
            floor_above_gain: 0.25,
            pan_range: 1.0,
            station_weight_power: 2.0,
            station_weight_near: 32.0,
        }
    }
}

/// The `[View]` keys, as written in `world.ini`.
pub const KEYS: &[&str] = &[
    "TileSize",
    "Screen",
    "FullVolumeArea",
    "FadeDistance",
    "FadeCurve",
    "ZoomGain",
    "FloorBelowGain",
    "FloorAboveGain",
    "PanRange",
    "StationWeightPower",
    "StationWeightNear",
];

impl ViewSettings {
    /// Reads the `[View]` section. Every bad value is a diagnostic naming the file and
    /// line, and that key keeps its default; an unknown key is a warning.
    pub fn from_ini(ini: &WorldIni, diagnostics: &mut Vec<Diagnostic>) -> Self {
        let mut s = ViewSettings::default();
        read_section(ini, SECTION, KEYS, diagnostics, |setting, diags| {
            let key = setting.key.to_ascii_lowercase();
            match key.as_str() {
                "tilesize" => {
                    if let Some(v) = fixed::<3>(setting, "near, middle, far", 1.0, 4096.0, diags) {
                        s.tile_size = v;
                    }
                }
                "screen" => {
                    if let Some(v) = fixed::<2>(setting, "width, height", 1.0, 65536.0, diags) {
                        s.screen = v;
                    }
                }
                "fullvolumearea" => match numbers(setting, 0.0, 1.0, diags) {
                    Some(v) if v.len() == 1 => {
                        s.full_volume_area = [v[0], v[0]];
                    }
                    Some(v) if v.len() == 2 => {
                        s.full_volume_area = [v[0], v[1]];
                    }
                    Some(v) => diags.push(setting.error(
                        DiagCode::ExtraField,
                        format!(
                            "`{}` takes one fraction or two (width, height), not {}",
                            setting.key,
                            v.len()
                        ),
                    )),
                    None => {}
                },
                "fadedistance" => {
                    if let Some(v) = single(setting, 0.0, 1.0e6, diags) {
                        s.fade_distance = v;
                    }
                }
                "fadecurve" => match FadeCurve::by_name(&setting.value) {
                    Some(curve) => s.fade_curve = curve,
                    None => diags.push(setting.error(
                        DiagCode::UnknownValue,
                        format!(
                            "`{}` must be linear, equal-power or smooth, not `{}`",
                            setting.key, setting.value
                        ),
                    )),
                },
                "zoomgain" => {
                    if let Some(v) = fixed::<3>(setting, "near, middle, far", 0.0, 1.0, diags) {
                        s.zoom_gain = v;
                    }
                }
                "floorbelowgain" => {
                    if let Some(v) = single(setting, 0.0, 1.0, diags) {
                        s.floor_below_gain = v;
                    }
                }
                "floorabovegain" => {
                    if let Some(v) = single(setting, 0.0, 1.0, diags) {
                        s.floor_above_gain = v;
                    }
                }
                "panrange" => {
                    if let Some(v) = single(setting, 0.0, 1.0, diags) {
                        s.pan_range = v;
                    }
                }
                "stationweightpower" => {
                    if let Some(v) = single(setting, 0.0, 16.0, diags) {
                        s.station_weight_power = v;
                    }
                }
                "stationweightnear" => {
                    if let Some(v) = single(setting, 1.0, 1.0e6, diags) {
                        s.station_weight_near = v;
                    }
                }
                _ => return false,
            }
            true
        });
        s
    }

    /// The tile width in pixels at the camera's zoom.
    pub fn tile(&self, camera: &Camera) -> f32 {
        self.tile_size
            .get(camera.zoom_index())
            .copied()
            .unwrap_or(self.tile_size[0])
            .max(1.0e-3)
    }

    /// Where lot point `position` (tiles) is on screen, in pixels from the top left.
    ///
    /// Isometric: the offset from the camera centre is turned by `rotation` quarter turns
    /// (`(x, y) → (−y, x)` each), then screen x = (x − y)·tile/2 and screen y =
    /// (x + y)·tile/4 from the screen centre (a tile is a diamond `tile` wide and half as
    /// high). Floors do not move objects on screen.
    pub fn to_screen(&self, camera: &Camera, position: [f32; 2]) -> [f32; 2] {
        let tile = self.tile(camera);
        let [w, h] = camera.screen_size();
        let d = [
            position[0] - camera.centre[0],
            position[1] - camera.centre[1],
        ];
        let [rx, ry] = rotate(d, camera.rotation);
        [
            w / 2.0 + (rx - ry) * tile / 2.0,
            h / 2.0 + (rx + ry) * tile / 4.0,
        ]
    }

    /// The lot point (tiles) shown at screen point `screen` (pixels): the inverse of
    /// [`ViewSettings::to_screen`], for dragging objects and drawing the screen's outline
    /// on the lot.
    pub fn to_tiles(&self, camera: &Camera, screen: [f32; 2]) -> [f32; 2] {
        let tile = self.tile(camera);
        let [w, h] = camera.screen_size();
        let a = (screen[0] - w / 2.0) * 2.0 / tile; // x − y
        let b = (screen[1] - h / 2.0) * 4.0 / tile; // x + y
        let r = [(a + b) / 2.0, (b - a) / 2.0];
        let d = rotate(r, 4 - camera.rotation % 4);
        [camera.centre[0] + d[0], camera.centre[1] + d[1]]
    }

    /// The full-volume area on screen: (top left, bottom right) in pixels.
    pub fn full_volume_rect(&self, camera: &Camera) -> [[f32; 2]; 2] {
        let [w, h] = camera.screen_size();
        let [ax, ay] = self.area_half(camera);
        [[w / 2.0 - ax, h / 2.0 - ay], [w / 2.0 + ax, h / 2.0 + ay]]
    }

    /// Where objects become silent: the screen grown by the fade distance on every side,
    /// (top left, bottom right) in pixels.
    pub fn silent_rect(&self, camera: &Camera) -> [[f32; 2]; 2] {
        let [w, h] = camera.screen_size();
        let f = self.fade_distance;
        [[-f, -f], [w + f, h + f]]
    }

    fn area_half(&self, camera: &Camera) -> [f32; 2] {
        let [w, h] = camera.screen_size();
        [
            self.full_volume_area[0].clamp(0.0, 1.0) * w / 2.0,
            self.full_volume_area[1].clamp(0.0, 1.0) * h / 2.0,
        ]
    }

    /// The gain for an object on floor `level` seen from the camera's floor.
    pub fn floor_gain(&self, camera: &Camera, level: i32) -> f32 {
        match level.cmp(&camera.level) {
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Less => self.floor_below_gain,
            std::cmp::Ordering::Greater => self.floor_above_gain,
        }
    }

    /// The pan of a screen x position.
    pub fn pan(&self, camera: &Camera, x: f32) -> i32 {
        let [w, _] = camera.screen_size();
        let centre = PAN_CENTRE as f32;
        let swing = (PAN_RIGHT - PAN_CENTRE) as f32;
        let offset = ((x - w / 2.0) / (w / 2.0)).clamp(-1.0, 1.0);
        let pan = centre + offset * swing * self.pan_range.clamp(0.0, 1.0);
        (pan.round() as i32).clamp(PAN_LEFT, PAN_RIGHT)
    }
}

/// Turns `d` by `quarters` quarter turns, each `(x, y) → (−y, x)`.
fn rotate(d: [f32; 2], quarters: u8) -> [f32; 2] {
    match quarters % 4 {
        0 => d,
        1 => [-d[1], d[0]],
        2 => [-d[0], -d[1]],
        _ => [d[1], -d[0]],
    }
}

fn range_error(setting: &Setting, value: f64, min: f32, max: f32) -> Diagnostic {
    setting.error(
        DiagCode::NumberOutOfRange,
        format!(
            "`{}` must be between {min} and {max}, not {value}",
            setting.key
        ),
    )
}

fn single(setting: &Setting, min: f32, max: f32, diags: &mut Vec<Diagnostic>) -> Option<f32> {
    match setting.number() {
        Ok(v) if v >= f64::from(min) && v <= f64::from(max) => Some(v as f32),
        Ok(v) => {
            diags.push(range_error(setting, v, min, max));
            None
        }
        Err(e) => {
            diags.push(e);
            None
        }
    }
}

fn numbers(setting: &Setting, min: f32, max: f32, diags: &mut Vec<Diagnostic>) -> Option<Vec<f32>> {
    match setting.numbers() {
        Ok(values) => {
            if let Some(bad) = values
                .iter()
                .find(|v| **v < f64::from(min) || **v > f64::from(max))
            {
                diags.push(range_error(setting, *bad, min, max));
                return None;
            }
            Some(values.into_iter().map(|v| v as f32).collect())
        }
        Err(e) => {
            diags.push(e);
            None
        }
    }
}

fn fixed<const N: usize>(
    setting: &Setting,
    names: &str,
    min: f32,
    max: f32,
    diags: &mut Vec<Diagnostic>,
) -> Option<[f32; N]> {
    let values = numbers(setting, min, max, diags)?;
    match <[f32; N]>::try_from(values.as_slice()) {
        Ok(array) => Some(array),
        Err(_) => {
            diags.push(setting.error(
                DiagCode::MissingField,
                format!(
                    "`{}` takes {N} numbers ({names}), not {}",
                    setting.key,
                    values.len()
                ),
            ));
            None
        }
    }
}

/// Where an object is relative to the full-volume area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Area {
    /// Inside the full-volume area: no fade.
    Inside,
    /// Between the area and the silent edge: fading.
    Fading,
    /// At or past the silent edge.
    Silent,
    /// A stereo: never faded, wherever it is.
    Exempt,
}

impl Area {
    /// Lower-case name for displays.
    pub fn name(self) -> &'static str {
        match self {
            Area::Inside => "inside",
            Area::Fading => "fading",
            Area::Silent => "silent",
            Area::Exempt => "exempt (stereo)",
        }
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an object's volume came from: volume = 1024 × fade × zoom × floor × group.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Attenuation {
    /// Where it is relative to the full-volume area.
    pub area: Area,
    /// How far through the fade band it is: 0 inside the area, 1 at the silent edge (the
    /// larger of the horizontal and vertical fractions). Computed for stereos too.
    pub band: f32,
    /// The fade factor (0–1): the fade curve at `band`; 1 for stereos.
    pub fade: f32,
    /// The zoom factor (0–1).
    pub zoom: f32,
    /// The floor factor: 1 on the camera's floor, less above or below.
    pub floor: f32,
    /// The group volume (FX / Music / VOX option, 0–1). [`place`] leaves it at 1: the
    /// mixer applies it later. [`Placement::with_group`] fills it in for a display.
    pub group: f32,
    /// Distance from the screen centre in pixels.
    pub centre_distance: f32,
}

impl Attenuation {
    /// The product of the factors (0–1).
    pub fn gain(&self) -> f32 {
        self.fade * self.zoom * self.floor * self.group
    }
}

/// One object's place in the view: where on screen, how loud, which side, and why.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Placement {
    /// Screen position in pixels from the top left (may be off screen).
    pub screen: [f32; 2],
    /// Volume on the HIT scale: 0 silent – 1024 ([`FULL_VOLUME`]) full.
    pub volume: i32,
    /// Pan: 0 left – 512 centre – 1024 right.
    pub pan: i32,
    /// Its weight in its station's mix ([`combine`]): its gain × `(near / distance)^power`,
    /// 0–1, 0 when silent.
    pub weight: f32,
    /// Where the volume came from.
    pub why: Attenuation,
}

impl Placement {
    /// The placement with the group volume `gain` (0–1) multiplied into the volume and
    /// recorded in [`Attenuation::group`] — for displays; the mixer applies the group
    /// volume itself.
    pub fn with_group(mut self, gain: f32) -> Self {
        self.why.group = if gain.is_nan() { 0.0 } else { gain.max(0.0) };
        self.volume = to_volume(self.why.gain());
        self
    }
}

fn to_volume(gain: f32) -> i32 {
    let v = (FULL_VOLUME as f32 * gain).round();
    if v.is_nan() {
        0
    } else {
        (v as i32).clamp(0, FULL_VOLUME)
    }
}

/// Where `object` is in the view and how it sounds from there (see the module rules).
pub fn place(object: &WorldObject, camera: &Camera, settings: &ViewSettings) -> Placement {
    let screen = settings.to_screen(camera, object.position);
    let [w, h] = camera.screen_size();
    let dx = (screen[0] - w / 2.0).abs();
    let dy = (screen[1] - h / 2.0).abs();
    let [ax, ay] = settings.area_half(camera);
    let fade_distance = settings.fade_distance.max(0.0);
    let band = band_fraction(dx, ax, w / 2.0 + fade_distance).max(band_fraction(
        dy,
        ay,
        h / 2.0 + fade_distance,
    ));
    let (area, fade) = if object.kind == ObjectKind::Stereo {
        (Area::Exempt, 1.0)
    } else if band <= 0.0 {
        (Area::Inside, 1.0)
    } else if band >= 1.0 {
        (Area::Silent, 0.0)
    } else {
        (Area::Fading, settings.fade_curve.gain(band))
    };
    let zoom = settings
        .zoom_gain
        .get(camera.zoom_index())
        .copied()
        .unwrap_or(1.0);
    let floor = settings.floor_gain(camera, object.level);
    let centre_distance = dx.hypot(dy);
    let why = Attenuation {
        area,
        band,
        fade,
        zoom,
        floor,
        group: 1.0,
        centre_distance,
    };
    let gain = why.gain();
    let volume = to_volume(gain);
    let near = settings.station_weight_near.max(1.0e-3);
    let closeness = (near / centre_distance.max(near)).powf(settings.station_weight_power.max(0.0));
    let weight = if volume > 0 { gain * closeness } else { 0.0 };
    Placement {
        screen,
        volume,
        pan: settings.pan(camera, screen[0]),
        weight,
        why,
    }
}

/// How far `d` is from `start` towards `end` (0–1); a band of no width is a step.
fn band_fraction(d: f32, start: f32, end: f32) -> f32 {
    if end > start {
        ((d - start) / (end - start)).clamp(0.0, 1.0)
    } else if d > start {
        1.0
    } else {
        0.0
    }
}

/// Every object of `world` with its placement, by ID.
pub fn place_all<'w>(
    world: &'w World,
    camera: &Camera,
    settings: &ViewSettings,
) -> impl Iterator<Item = (&'w WorldObject, Placement)> {
    let camera = *camera;
    let settings = *settings;
    world
        .objects()
        .map(move |object| (object, place(object, &camera, &settings)))
}

/// A station's volume and pan, from its receivers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mix {
    /// Volume 0–1024.
    pub volume: i32,
    /// Pan 0–1024 (512 when every receiver is silent).
    pub pan: i32,
    /// The receivers' total weight (0 when all are silent or there are none).
    pub weight: f32,
}

impl Mix {
    /// The volume as a linear gain (0–1).
    pub fn gain(&self) -> Gain {
        Gain::from_hit_volume(self.volume)
    }

    /// The pan as a stereo position.
    pub fn stereo_pan(&self) -> Pan {
        Pan::from_hit(self.pan)
    }
}

impl Default for Mix {
    /// Silent, centred.
    fn default() -> Self {
        Self {
            volume: 0,
            pan: PAN_CENTRE,
            weight: 0.0,
        }
    }
}

/// A station's volume and pan: the average of its receivers' volumes and pans weighted by
/// [`Placement::weight`] (receivers nearer the screen centre weigh more, silent ones
/// nothing). Two receivers mirrored left and right give the centre; when one scrolls off
/// screen the other takes over.
pub fn combine<I>(placements: I) -> Mix
where
    I: IntoIterator,
    I::Item: Borrow<Placement>,
{
    let mut total = 0.0f64;
    let mut volume = 0.0f64;
    let mut pan = 0.0f64;
    for p in placements {
        let p = p.borrow();
        let w = f64::from(p.weight.max(0.0));
        if !w.is_finite() || w <= 0.0 {
            continue;
        }
        total += w;
        volume += w * f64::from(p.volume);
        pan += w * f64::from(p.pan);
    }
    if total <= 0.0 {
        return Mix::default();
    }
    Mix {
        volume: ((volume / total).round() as i32).clamp(0, FULL_VOLUME),
        pan: ((pan / total).round() as i32).clamp(PAN_LEFT, PAN_RIGHT),
        weight: total as f32,
    }
}

/// The mix of `station` over the objects of `world` switched on and tuned to it.
pub fn station_mix(world: &World, station: u32, camera: &Camera, settings: &ViewSettings) -> Mix {
    combine(
        world
            .receivers(station)
            .map(|object| place(object, camera, settings)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_inverts_at_every_rotation_and_zoom() {
        let settings = ViewSettings::default();
        for rotation in 0..4 {
            for zoom in 1..=3 {
                let camera = Camera {
                    centre: [10.0, 8.0],
                    zoom,
                    rotation,
                    ..Camera::default()
                };
                let p = [13.5, 4.25];
                let s = settings.to_screen(&camera, p);
                let back = settings.to_tiles(&camera, s);
                assert!((back[0] - p[0]).abs() < 1e-3 && (back[1] - p[1]).abs() < 1e-3);
            }
        }
        let camera = Camera::default();
        assert_eq!(
            settings.to_screen(&camera, [1.0, 0.0]),
            [512.0 + 64.0, 384.0 + 32.0]
        );
    }

    #[test]
    fn curves_fall_from_one_to_zero() {
        for curve in FadeCurve::ALL {
            assert_eq!(curve.gain(0.0), 1.0);
            assert_eq!(curve.gain(1.0), 0.0);
            let mut last = 1.0;
            for i in 0..=20 {
                let g = curve.gain(i as f32 / 20.0);
                assert!(g <= last, "{curve} rises at {i}");
                last = g;
            }
            assert_eq!(FadeCurve::by_name(curve.name()), Some(curve));
        }
    }
}
