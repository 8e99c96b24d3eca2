//! What the Lot view paints on its map: the view on the ground (silent edge, fade band,
//! full-volume area, screen), the tile grid, the stations and their receivers, the
//! listener, and each object's glyph, ring and labels. Painting only: the map decides
//! where things are and takes the input.

use super::cells;
use super::details::signed;
use super::geometry::{MapFrame, Quad, ViewQuads};
use super::{Drag, drawn_position};
use crate::theme;
use egui::{Align2, Color32, FontId, Pos2, Rect, Shape, Stroke, StrokeKind, pos2, vec2};
use engine_core::world::director::WorldView;
use engine_core::world::view::Placement;
use engine_core::world::{ObjectKind, WorldObject};

/// The map's painter for one frame, with the frame, the visuals and the label font.
pub(super) struct MapPainter {
    /// Paints clipped to the map.
    pub(super) painter: egui::Painter,
    /// Where tiles are on the map.
    pub(super) frame: MapFrame,
    /// The colours that follow egui's light or dark style.
    pub(super) visuals: egui::Visuals,
    /// The font of every label on the map.
    pub(super) small: FontId,
}

/// How an object is drawn besides where.
#[derive(Debug, Clone, Copy)]
pub(super) struct Look {
    /// 1 on the camera's floor, fainter on the others.
    pub(super) alpha: f32,
    /// It is saying a track or tuned to a station on air.
    pub(super) sounding: bool,
    /// Selected here or in another panel.
    pub(super) selected: bool,
}

impl MapPainter {
    /// The map's ground: its background and the view on it — the silent edge, the fade
    /// band, the full-volume area, the screen (its top edge thicker: which way is up on
    /// screen). The background and the areas' fills are painted as cells in their
    /// blended colours ([`cells`]), every pixel once, the areas' edges over them.
    pub(super) fn ground(&self, view: &ViewQuads) {
        let painter = &self.painter;
        let poly = |q: &Quad| q.iter().map(|p| self.frame.to_px(*p)).collect::<Vec<_>>();
        let (silent, full) = (poly(&view.silent), poly(&view.full));
        let fills = [theme::FADE_BAND_FILL, theme::FULL_VOLUME_FILL];
        let mut mesh = egui::Mesh::default();
        for cell in cells::cells(self.frame.canvas, &[&silent, &full]) {
            let colour = cells::colour(self.visuals.extreme_bg_color, &fills, cell.inside);
            let first = mesh.vertices.len() as u32;
            for p in &cell.points {
                mesh.colored_vertex(*p, colour);
            }
            for k in 1..cell.points.len() as u32 - 1 {
                mesh.add_triangle(first, first + k, first + k + 1);
            }
        }
        painter.add(Shape::mesh(mesh));
        painter.add(Shape::closed_line(
            silent,
            Stroke::new(1.0, theme::SILENT_EDGE),
        ));
        painter.add(Shape::closed_line(
            full,
            Stroke::new(1.0, theme::FULL_VOLUME_EDGE),
        ));
        let screen_px = poly(&view.screen);
        let strong = self.visuals.strong_text_color();
        painter.add(Shape::closed_line(
            screen_px.clone(),
            Stroke::new(1.5, strong),
        ));
        painter.line_segment([screen_px[0], screen_px[1]], Stroke::new(3.0, strong));
        painter.text(
            screen_px[0].lerp(screen_px[1], 0.5),
            Align2::CENTER_BOTTOM,
            "top of screen",
            self.small.clone(),
            self.visuals.weak_text_color(),
        );
        painter.text(
            self.frame.to_px(view.silent[0]),
            Align2::LEFT_TOP,
            "silent edge",
            self.small.clone(),
            theme::SILENT_EDGE_LABEL,
        );
    }

    /// The tile grid: every tile, every 5 or every 10 as the map zooms out.
    pub(super) fn grid(&self) {
        let frame = self.frame;
        let canvas = frame.canvas;
        let step = if frame.scale >= 10.0 {
            1.0
        } else if frame.scale >= 3.0 {
            5.0
        } else {
            10.0
        };
        let lo = frame.to_tile(canvas.min);
        let hi = frame.to_tile(canvas.max);
        let grid = Stroke::new(1.0, self.visuals.weak_text_color().gamma_multiply(0.25));
        let mut x = (lo[0] / step).floor() * step;
        while x <= hi[0] {
            let px = frame.to_px([x, 0.0]).x;
            self.painter
                .line_segment([pos2(px, canvas.top()), pos2(px, canvas.bottom())], grid);
            x += step;
        }
        let mut y = (lo[1] / step).floor() * step;
        while y <= hi[1] {
            let py = frame.to_px([0.0, y]).y;
            self.painter
                .line_segment([pos2(canvas.left(), py), pos2(canvas.right(), py)], grid);
            y += step;
        }
    }

    /// Stations: their receivers (drawn where `drag` puts them) linked to a hub with the
    /// mixed level by it.
    pub(super) fn stations(&self, world: &WorldView, drag: Option<Drag>) {
        let painter = &self.painter;
        for station in &world.stations {
            let points: Vec<Pos2> = station
                .receivers
                .iter()
                .filter_map(|id| world.objects.iter().find(|(o, _)| o.id == *id))
                .map(|(o, _)| self.frame.to_px(drawn_position(drag, o)))
                .collect();
            if points.is_empty() {
                continue;
            }
            let n = points.len() as f32;
            let centre_x = points.iter().map(|p| p.x).sum::<f32>() / n;
            let top = points.iter().map(|p| p.y).fold(f32::MAX, f32::min);
            let hub = pos2(centre_x, top - 30.0);
            let colour = theme::STATION;
            for p in &points {
                painter.add(Shape::dashed_line(
                    &[*p, hub],
                    Stroke::new(1.0, colour.gamma_multiply(0.7)),
                    4.0,
                    3.0,
                ));
            }
            painter.circle_filled(hub, 3.0, colour);
            let (gain, pan) = station.level;
            let galley = painter.layout_no_wrap(
                format!(
                    "{} ({}) · gain {gain:.2} · pan {}",
                    station.name,
                    station.code,
                    signed(pan.get())
                ),
                self.small.clone(),
                colour,
            );
            let box_rect = Rect::from_center_size(
                hub + vec2(0.0, -4.0 - galley.size().y / 2.0),
                galley.size() + vec2(8.0, 2.0),
            );
            painter.rect_filled(box_rect, 3.0, theme::LABEL_BACKGROUND);
            painter.galley(box_rect.min + vec2(4.0, 1.0), galley, colour);
        }
    }

    /// The lot's rooms on the camera's floor: walls, the name in the corner, the room the
    /// active character is in shaded (its size sets the ambience's reverb).
    pub(super) fn rooms(&self, world: &WorldView) {
        let painter = &self.painter;
        for room in world.rooms.iter().filter(|r| r.floor == world.camera.level) {
            let lo = [room.from[0].min(room.to[0]), room.from[1].min(room.to[1])];
            let hi = [room.from[0].max(room.to[0]), room.from[1].max(room.to[1])];
            let rect = Rect::from_two_pos(self.frame.to_px(lo), self.frame.to_px(hi));
            let active = world.active_room.as_deref() == Some(room.name.as_str());
            let fill = if active {
                theme::ACTIVE_ROOM_FILL
            } else {
                theme::ROOM_FILL
            };
            painter.rect(
                rect,
                0.0,
                fill,
                Stroke::new(if active { 2.0 } else { 1.0 }, theme::ROOM_EDGE),
                StrokeKind::Inside,
            );
            // The name and size where they fit inside the walls, else the name alone,
            // else nothing (the details beside the map name the character's room).
            let fits = |g: &std::sync::Arc<egui::Galley>| {
                g.size().x + 6.0 <= rect.width() && g.size().y + 4.0 <= rect.height()
            };
            let font = self.small.clone();
            let full = format!("{} · {} tiles", room.name, room.tiles());
            let galley = Some(painter.layout_no_wrap(full, font.clone(), theme::ROOM_EDGE))
                .filter(fits)
                .or_else(|| {
                    Some(painter.layout_no_wrap(room.name.clone(), font, theme::ROOM_EDGE))
                        .filter(fits)
                });
            if let Some(galley) = galley {
                painter.galley(rect.min + vec2(3.0, 2.0), galley, theme::ROOM_EDGE);
            }
        }
    }

    /// The listener: a cross at tile `at`.
    pub(super) fn listener(&self, at: [f32; 2]) {
        let l = self.frame.to_px(at);
        let ear = Stroke::new(1.5, theme::LISTENER);
        self.painter
            .line_segment([l + vec2(-5.0, -5.0), l + vec2(5.0, 5.0)], ear);
        self.painter
            .line_segment([l + vec2(-5.0, 5.0), l + vec2(5.0, -5.0)], ear);
    }

    /// An object at `c` placed as `p`: a ring by area sized by volume when it sounds, a
    /// selection ring, its glyph, and — where they overlap none of `labels`, which they
    /// join — its name, and its volume and pan when it sounds. True if the label was
    /// drawn.
    pub(super) fn object(
        &self,
        c: Pos2,
        object: &WorldObject,
        p: &Placement,
        look: Look,
        labels: &mut Vec<Rect>,
    ) -> bool {
        let painter = &self.painter;
        let alpha = look.alpha;
        if look.sounding && p.volume > 0 {
            let r = 9.0 + 14.0 * p.volume as f32 / 1024.0;
            let ring = theme::area(p.why.area);
            painter.circle_filled(c, r, ring.gamma_multiply(0.18 * alpha));
            painter.circle_stroke(c, r, Stroke::new(1.5, ring.gamma_multiply(alpha)));
        }
        if look.selected {
            painter.circle_stroke(
                c,
                13.0,
                Stroke::new(2.0, self.visuals.selection.stroke.color),
            );
        }
        let outline = Stroke::new(1.0, theme::glyph_outline(alpha));
        let fill = theme::kind(object.kind).gamma_multiply(alpha);
        glyph(painter, c, object, fill, outline);
        let text = self.visuals.text_color().gamma_multiply(alpha);
        let mut lines = vec![(object.name.clone(), text)];
        if look.sounding {
            lines.push((
                format!(
                    "vol {} · pan {}",
                    crate::gain_text(engine_core::runtime::Gain::from_hit_volume(p.volume)),
                    signed(crate::hit_pan(p.pan))
                ),
                theme::area(p.why.area).gamma_multiply(alpha),
            ));
        }
        let galleys: Vec<_> = lines
            .into_iter()
            .map(|(line, colour)| {
                (
                    painter.layout_no_wrap(line, self.small.clone(), colour),
                    colour,
                )
            })
            .collect();
        let width = galleys.iter().map(|(g, _)| g.size().x).fold(0.0, f32::max);
        let height: f32 = galleys.iter().map(|(g, _)| g.size().y).sum();
        let rect = Rect::from_min_size(c + vec2(-width / 2.0, 10.0), vec2(width, height));
        if labels.iter().any(|placed: &Rect| placed.intersects(rect)) {
            // No room: the hover names it.
            return false;
        }
        labels.push(rect);
        let mut top = rect.top();
        for (galley, colour) in galleys {
            let size = galley.size();
            painter.galley(pos2(c.x - size.x / 2.0, top), galley, colour);
            top += size.y;
        }
        true
    }
}

/// Paints an object's glyph (by kind) centred on `c`.
fn glyph(painter: &egui::Painter, c: Pos2, object: &WorldObject, fill: Color32, outline: Stroke) {
    let rect = |w: f32, h: f32| Rect::from_center_size(c, vec2(w, h));
    match object.kind {
        ObjectKind::Person => {
            // Field 0 is the gender: 1 female, 2 child.
            let fill = match object.fields.first() {
                Some(1) => theme::PERSON_FEMALE.gamma_multiply(fill.a() as f32 / 255.0),
                Some(2) => theme::PERSON_CHILD.gamma_multiply(fill.a() as f32 / 255.0),
                _ => fill,
            };
            painter.circle(c, 6.5, fill, outline);
        }
        ObjectKind::Baby => {
            painter.circle(c, 4.5, fill, outline);
        }
        ObjectKind::Tv => {
            painter.rect(rect(16.0, 12.0), 2.0, fill, outline, StrokeKind::Middle);
            painter.rect_filled(rect(11.0, 7.0), 1.0, theme::GLYPH_SHADE);
        }
        ObjectKind::Radio => {
            painter.rect(rect(14.0, 9.0), 2.0, fill, outline, StrokeKind::Middle);
            painter.line_segment([c + vec2(3.0, -4.5), c + vec2(7.0, -10.0)], outline);
            painter.circle_filled(c + vec2(-3.0, 0.0), 2.5, theme::GLYPH_SHADE);
        }
        ObjectKind::Stereo => {
            painter.rect(rect(20.0, 11.0), 2.0, fill, outline, StrokeKind::Middle);
            for dx in [-5.0, 5.0] {
                painter.circle_filled(c + vec2(dx, 0.0), 3.5, theme::GLYPH_SPEAKERS);
            }
        }
        ObjectKind::Piano => {
            let r = rect(20.0, 10.0);
            painter.rect(r, 1.0, fill, outline, StrokeKind::Middle);
            for i in 1..5 {
                let x = r.left() + r.width() * i as f32 / 5.0;
                painter.line_segment(
                    [pos2(x, r.center().y), pos2(x, r.bottom())],
                    Stroke::new(1.0, theme::GLYPH_KEYS),
                );
            }
        }
        ObjectKind::Generic => {
            let points = vec![
                c + vec2(0.0, -7.0),
                c + vec2(7.0, 0.0),
                c + vec2(0.0, 7.0),
                c + vec2(-7.0, 0.0),
            ];
            painter.add(Shape::convex_polygon(points, fill, outline));
        }
    }
}
