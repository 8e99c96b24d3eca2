//! The Lot view's geometry: how tiles map onto the map's pixels ([`MapFrame`]), the
//! camera's screen rectangles as quads on the lot, and where dragged objects snap to.

use egui::{Pos2, Rect, pos2};
use engine_core::world::view::{Camera, ViewSettings};

/// Objects dragged on the map land on multiples of this many tiles.
pub const SNAP_TILES: f32 = 0.25;

/// How tiles map onto the panel: `origin` (a lot point) is drawn at the canvas centre,
/// `scale` pixels per tile; x right, y down.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct MapFrame {
    /// The lot point at the canvas centre, in tiles.
    pub(super) origin: [f32; 2],
    /// Pixels per tile.
    pub(super) scale: f32,
    /// The canvas it was fitted to.
    pub(super) canvas: Rect,
}

impl MapFrame {
    /// Where tile point `tile` is on the canvas.
    pub(super) fn to_px(self, tile: [f32; 2]) -> Pos2 {
        let c = self.canvas.center();
        pos2(
            c.x + (tile[0] - self.origin[0]) * self.scale,
            c.y + (tile[1] - self.origin[1]) * self.scale,
        )
    }

    /// The tile point under pixel `p`.
    pub(super) fn to_tile(self, p: Pos2) -> [f32; 2] {
        let c = self.canvas.center();
        [
            self.origin[0] + (p.x - c.x) / self.scale,
            self.origin[1] + (p.y - c.y) / self.scale,
        ]
    }

    /// The frame showing every point of `points`, with a margin, on `canvas`.
    pub(super) fn fit(canvas: Rect, points: &[[f32; 2]]) -> Self {
        let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
        for p in points
            .iter()
            .filter(|p| p[0].is_finite() && p[1].is_finite())
        {
            for axis in 0..2 {
                lo[axis] = lo[axis].min(p[axis]);
                hi[axis] = hi[axis].max(p[axis]);
            }
        }
        if lo[0] > hi[0] {
            lo = [-8.0; 2];
            hi = [8.0; 2];
        }
        let margin = 2.0;
        let size = [
            (hi[0] - lo[0] + 2.0 * margin).max(4.0),
            (hi[1] - lo[1] + 2.0 * margin).max(4.0),
        ];
        let scale = (canvas.width() / size[0])
            .min(canvas.height() / size[1])
            .clamp(2.0, 96.0);
        MapFrame {
            origin: [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0],
            scale,
            canvas,
        }
    }

    /// Whether every point shows inside the canvas (less a small border).
    pub(super) fn shows(&self, points: &[[f32; 2]]) -> bool {
        let inner = self.canvas.shrink(6.0);
        points.iter().all(|p| inner.contains(self.to_px(*p)))
    }
}

/// A quad on the lot: four corners in tiles (top left, top right, bottom right, bottom
/// left of the screen rectangle it comes from).
pub(super) type Quad = [[f32; 2]; 4];

/// The camera's view on the ground: its screen, the full-volume area and the silent
/// edge, each a quad on the lot.
pub(super) struct ViewQuads {
    /// What the screen shows.
    pub(super) screen: Quad,
    /// Where sounds play at full volume.
    pub(super) full: Quad,
    /// Past this, sounds are silent.
    pub(super) silent: Quad,
}

impl ViewQuads {
    /// The view of `camera` under `settings`.
    pub(super) fn of(settings: &ViewSettings, camera: &Camera) -> Self {
        Self {
            screen: quad(settings, camera, [[0.0, 0.0], camera.screen]),
            full: quad(settings, camera, settings.full_volume_rect(camera)),
            silent: quad(settings, camera, settings.silent_rect(camera)),
        }
    }
}

/// The screen rectangle `r` (top left, bottom right, in pixels) on the lot.
fn quad(settings: &ViewSettings, camera: &Camera, r: [[f32; 2]; 2]) -> Quad {
    let [[x0, y0], [x1, y1]] = r;
    [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(|p| settings.to_tiles(camera, p))
}

/// `v` on the nearest multiple of [`SNAP_TILES`].
pub(super) fn snap(v: f32) -> f32 {
    (v / SNAP_TILES).round() * SNAP_TILES
}

/// A tile coordinate to the nearest hundredth of a tile: where a drag or a button puts
/// the camera. Commands carry their numbers exactly, so this keeps the console history's
/// `view` lines short.
pub(super) fn hundredths(v: f32) -> f32 {
    (v * 100.0).round() / 100.0
}
