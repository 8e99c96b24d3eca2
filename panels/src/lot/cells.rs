//! The map's ground cut into cells that are each painted once: the canvas split by the
//! view's areas (the silent edge's quad, the full-volume quad — convex polygons) into
//! convex cells, each knowing which areas it lies in. Painted one over the other, the
//! areas cost a CPU rasteriser every pixel of each layer; painted as cells in their
//! blended colours, every pixel of the ground costs once.

use egui::{Color32, Pos2, Rect};

/// A convex cell of the canvas, and the areas it lies in (bit `i`: area `i`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Cell {
    /// Its corners, in order.
    pub(super) points: Vec<Pos2>,
    /// Bit `i` set: the cell is inside area `i`.
    pub(super) inside: u32,
}

/// `rect` cut by `areas` (convex polygons, either winding) into convex cells that do not
/// overlap and together cover `rect`. An area that is not a finite polygon of three
/// corners or more contains nothing.
pub(super) fn cells(rect: Rect, areas: &[&[Pos2]]) -> Vec<Cell> {
    let mut cells = vec![Cell {
        points: vec![
            rect.left_top(),
            rect.right_top(),
            rect.right_bottom(),
            rect.left_bottom(),
        ],
        inside: 0,
    }];
    for (i, area) in areas.iter().enumerate() {
        let Some(winding) = winding(area) else {
            continue;
        };
        let edges: Vec<(Pos2, Pos2)> = (0..area.len())
            .map(|k| (area[k], area[(k + 1) % area.len()]))
            .collect();
        cells = cells
            .into_iter()
            .flat_map(|cell| split(cell, &edges, winding, 1 << i))
            .collect();
    }
    cells
}

/// The blended colour of a cell: `under`, then the fill of each area it lies in, in
/// order, as the renderer would have blended them painted one over the other.
pub(super) fn colour(under: Color32, fills: &[Color32], inside: u32) -> Color32 {
    fills
        .iter()
        .enumerate()
        .filter(|(i, _)| inside & (1 << i) != 0)
        .fold(under, |under, (_, fill)| under.blend(*fill))
}

/// `cell` cut by one area (its `edges`, wound `winding`): the pieces outside it, one per
/// edge, then the piece inside it, marked with `bit`.
fn split(cell: Cell, edges: &[(Pos2, Pos2)], winding: f32, bit: u32) -> Vec<Cell> {
    let mut pieces = Vec::new();
    let mut rest = cell.points;
    for &(a, b) in edges {
        let outside = clip(&rest, a, b, winding, false);
        if is_polygon(&outside) {
            pieces.push(Cell {
                points: outside,
                inside: cell.inside,
            });
        }
        rest = clip(&rest, a, b, winding, true);
    }
    if is_polygon(&rest) {
        pieces.push(Cell {
            points: rest,
            inside: cell.inside | bit,
        });
    }
    pieces
}

/// The part of the convex polygon `points` on one side of the line through `a` and `b`:
/// the inside of an area wound `winding` (the line included), or the outside. The point
/// where an edge crosses the line depends only on the edge, so the two sides of one cut
/// share their corners exactly and rasterise without a gap or an overlap.
fn clip(points: &[Pos2], a: Pos2, b: Pos2, winding: f32, inside: bool) -> Vec<Pos2> {
    let side = |p: Pos2| winding * ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x));
    let keep = |d: f32| if inside { d >= 0.0 } else { d < 0.0 };
    let mut out = Vec::with_capacity(points.len() + 1);
    for (k, &p) in points.iter().enumerate() {
        let q = points[(k + 1) % points.len()];
        let (dp, dq) = (side(p), side(q));
        if keep(dp) {
            out.push(p);
        }
        if keep(dp) != keep(dq) {
            let t = dp / (dp - dq);
            out.push(p + (q - p) * t);
        }
    }
    out
}

/// The sign of the polygon's signed area (its winding), or None for one that encloses
/// nothing: fewer than three corners, a corner not finite, or no area.
fn winding(points: &[Pos2]) -> Option<f32> {
    if points.len() < 3 || points.iter().any(|p| !p.x.is_finite() || !p.y.is_finite()) {
        return None;
    }
    let area = signed_area(points);
    (area != 0.0 && area.is_finite()).then(|| area.signum())
}

/// Twice the polygon's signed area.
fn signed_area(points: &[Pos2]) -> f32 {
    (0..points.len())
        .map(|k| {
            let (p, q) = (points[k], points[(k + 1) % points.len()]);
            p.x * q.y - q.x * p.y
        })
        .sum()
}

/// Whether the clipped points still enclose some area.
fn is_polygon(points: &[Pos2]) -> bool {
    points.len() >= 3 && signed_area(points).abs() > 1e-3
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::pos2;

    fn area(cells: &[Cell], inside: u32) -> f32 {
        cells
            .iter()
            .filter(|c| c.inside == inside)
            .map(|c| signed_area(&c.points).abs() / 2.0)
            .sum()
    }

    fn total(cells: &[Cell]) -> f32 {
        cells
            .iter()
            .map(|c| signed_area(&c.points).abs() / 2.0)
            .sum()
    }

    /// A diamond over the middle of the canvas: a quarter of it inside, the rest in the
    /// four corner cells around it; nothing overlaps, nothing is missing.
    #[test]
    fn a_diamond_cuts_the_canvas_into_inside_and_four_corners() {
        let rect = Rect::from_min_max(pos2(0.0, 0.0), pos2(100.0, 100.0));
        let diamond = [
            pos2(50.0, 0.0),
            pos2(100.0, 50.0),
            pos2(50.0, 100.0),
            pos2(0.0, 50.0),
        ];
        let cells = cells(rect, &[&diamond]);
        assert_eq!(cells.len(), 5);
        assert!((area(&cells, 1) - 5000.0).abs() < 0.01);
        assert!((area(&cells, 0) - 5000.0).abs() < 0.01);
        assert!((total(&cells) - 10_000.0).abs() < 0.01);
        // Wound the other way round, the same cells.
        let mut reversed = diamond;
        reversed.reverse();
        let again = super::cells(rect, &[&reversed]);
        assert!((area(&again, 1) - 5000.0).abs() < 0.01);
    }

    /// Two nested areas, the outer covering the canvas: every pixel is in the outer one,
    /// the inner's part of the canvas in both.
    #[test]
    fn nested_areas_mark_cells_with_both() {
        let rect = Rect::from_min_max(pos2(0.0, 0.0), pos2(100.0, 50.0));
        let outer = [
            pos2(-10.0, -10.0),
            pos2(110.0, -10.0),
            pos2(110.0, 60.0),
            pos2(-10.0, 60.0),
        ];
        let inner = [
            pos2(20.0, 10.0),
            pos2(60.0, 10.0),
            pos2(60.0, 40.0),
            pos2(20.0, 40.0),
        ];
        let cells = cells(rect, &[&outer, &inner]);
        assert_eq!(area(&cells, 0), 0.0);
        assert!((area(&cells, 0b11) - 1200.0).abs() < 0.01);
        assert!((area(&cells, 0b01) - 3800.0).abs() < 0.01);
        assert!((total(&cells) - 5000.0).abs() < 0.01);
    }

    /// An area off the canvas, or one with no area or corners that are not numbers,
    /// leaves the canvas one cell outside it.
    #[test]
    fn areas_off_the_canvas_or_broken_contain_nothing() {
        let rect = Rect::from_min_max(pos2(0.0, 0.0), pos2(10.0, 10.0));
        let away = [pos2(20.0, 20.0), pos2(30.0, 20.0), pos2(30.0, 30.0)];
        let flat = [pos2(0.0, 0.0), pos2(5.0, 5.0), pos2(10.0, 10.0)];
        let nan = [pos2(f32::NAN, 0.0), pos2(5.0, 5.0), pos2(10.0, 0.0)];
        for area in [&away[..], &flat, &nan, &[]] {
            let cells = cells(rect, &[area]);
            assert_eq!(cells.len(), 1, "{area:?}");
            assert_eq!(cells[0].inside, 0);
            assert!((total(&cells) - 100.0).abs() < 0.01);
        }
    }

    /// The blended colour is the fills stacked in order over the ground.
    #[test]
    fn a_cells_colour_stacks_its_areas_fills_in_order() {
        let ground = egui::Visuals::dark().extreme_bg_color;
        let fills = [crate::theme::FADE_BAND_FILL, crate::theme::FULL_VOLUME_FILL];
        assert_eq!(colour(ground, &fills, 0), ground);
        assert_eq!(colour(ground, &fills, 0b01), ground.blend(fills[0]));
        assert_eq!(
            colour(ground, &fills, 0b11),
            ground.blend(fills[0]).blend(fills[1])
        );
        assert_eq!(colour(ground, &fills, 0b10), ground.blend(fills[1]));
    }
}
