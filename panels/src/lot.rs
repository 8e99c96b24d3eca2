//! The Lot view, the pan and fade visualizer: the lot from above in tile coordinates,
//! each object a glyph by kind with its name, the camera's screen, the full-volume area
//! and the silent edge projected back onto the ground (the screen's rectangles become
//! quads on the lot), the listener, and the stations with their receivers.
//!
//! Each sounding object shows its volume and pan and, on hover or when selected, where
//! they came from (area, fade, zoom, floor, group). Two egui_plot curves show volume and
//! pan over the last [`HISTORY_SECONDS`], so a view change can be seen as well as heard.
//!
//! Everything it changes goes out as console lines: dragging an object sends
//! `move <id> <x> <y>` when it is let go, dragging the background moves the camera
//! (`view <x> <y>`), the buttons and keys zoom (`zoom in|out`), rotate
//! (`rotate left|right`) and change floor (`floor <n>`); the hour slider sends
//! `hour <h>` and the music-mode box `mode <name>`.

use crate::{Command, Panel, PanelContext, Selection};
use egui::{
    Align2, Color32, FontId, Pos2, Rect, Response, Sense, Shape, Stroke, StrokeKind, Vec2, pos2,
    vec2,
};
use egui_plot::{Corner, Legend, Line, Plot, PlotPoints};
use engine_core::runtime::sink::ControlGroup;
use engine_core::sound::mixer::MixerSnapshot;
use engine_core::sound::mixer::controls::group_index;
use engine_core::world::director::WorldView;
use engine_core::world::music::MusicMode;
use engine_core::world::view::{Area, Camera, Placement, ViewSettings, ZOOM_FAR, ZOOM_NEAR, place};
use engine_core::world::{ObjectId, ObjectKind, WorldObject};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The sample rate assumed until the app says which one the engine runs at.
pub const DEFAULT_RATE: u32 = 48_000;

/// How much volume and pan history the plots keep, in seconds of engine time.
pub const HISTORY_SECONDS: f64 = 10.0;

/// At most this many history points per object (the oldest go first).
const HISTORY_CAP: usize = 4096;

/// Objects dragged on the map land on multiples of this many tiles.
pub const SNAP_TILES: f32 = 0.25;

/// How wide the details column beside the map is, at most.
const DETAILS_WIDTH: f32 = 270.0;

/// One point of an object's volume and pan history.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryPoint {
    /// Engine time in seconds.
    pub time: f64,
    /// Volume 0–1024.
    pub volume: i32,
    /// Pan 0 (left) – 512 – 1024 (right).
    pub pan: i32,
}

/// Which objects the plots show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlotChoice {
    /// The selected object (or every sounding one when none is selected).
    #[default]
    Selected,
    /// Every sounding object.
    Sounding,
}

/// A drag in progress on the map.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Drag {
    /// An object is being moved.
    Object {
        /// Which.
        id: ObjectId,
        /// Pointer position minus object position when grabbed, in tiles.
        grab: [f32; 2],
        /// Where it would land now (snapped), in tiles.
        to: [f32; 2],
    },
    /// The camera is being moved (its screen follows the pointer).
    View {
        /// The camera centre when the drag began.
        from: [f32; 2],
        /// The tile under the pointer when the drag began.
        grab: [f32; 2],
        /// Where the camera centre would be now.
        to: [f32; 2],
    },
}

/// How tiles map onto the panel: `origin` (a lot point) is drawn at the canvas centre,
/// `scale` pixels per tile; x right, y down.
#[derive(Debug, Clone, Copy, PartialEq)]
struct MapFrame {
    origin: [f32; 2],
    scale: f32,
    /// The canvas it was fitted to.
    canvas: Rect,
}

impl MapFrame {
    fn to_px(self, tile: [f32; 2]) -> Pos2 {
        let c = self.canvas.center();
        pos2(
            c.x + (tile[0] - self.origin[0]) * self.scale,
            c.y + (tile[1] - self.origin[1]) * self.scale,
        )
    }

    fn to_tile(self, p: Pos2) -> [f32; 2] {
        let c = self.canvas.center();
        [
            self.origin[0] + (p.x - c.x) / self.scale,
            self.origin[1] + (p.y - c.y) / self.scale,
        ]
    }

    /// The frame showing every point of `points`, with a margin, on `canvas`.
    fn fit(canvas: Rect, points: &[[f32; 2]]) -> Self {
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
    fn shows(&self, points: &[[f32; 2]]) -> bool {
        let inner = self.canvas.shrink(6.0);
        points.iter().all(|p| inner.contains(self.to_px(*p)))
    }
}

/// UI state of the Lot view.
#[derive(Debug, Clone)]
pub struct LotPanel {
    /// The engine's sample rate (frames per second): turns engine time into seconds.
    pub sample_rate: u32,
    /// The object whose details and curves are shown.
    selected: Option<ObjectId>,
    /// The app-wide selection last seen (to follow a selection made in another panel).
    seen_selection: Option<ObjectId>,
    /// Which objects the plots show.
    plot: PlotChoice,
    /// Volume and pan over the last [`HISTORY_SECONDS`], per object.
    history: BTreeMap<ObjectId, VecDeque<HistoryPoint>>,
    /// Engine time of the last history point.
    last_now: Option<u64>,
    /// A drag in progress.
    drag: Option<Drag>,
    /// How the lot is laid out on the canvas (kept until it no longer fits).
    frame: Option<MapFrame>,
    /// The hour being dragged on the slider, not yet sent.
    hour: Option<f32>,
}

impl Default for LotPanel {
    fn default() -> Self {
        Self {
            sample_rate: DEFAULT_RATE,
            selected: None,
            seen_selection: None,
            plot: PlotChoice::default(),
            history: BTreeMap::new(),
            last_now: None,
            drag: None,
            frame: None,
            hour: None,
        }
    }
}

/// What is sounding: objects saying a track (with the track's option group) and
/// receivers tuned to a station that is on air.
#[derive(Debug, Default)]
struct Sounding {
    /// Object → (track names, the first track's group).
    tracks: BTreeMap<ObjectId, (Vec<String>, ControlGroup)>,
    /// Receiver → station code.
    stations: BTreeMap<ObjectId, u32>,
}

impl Sounding {
    fn of(ctx: &PanelContext<'_>) -> Self {
        let mut s = Sounding::default();
        for track in &ctx.live.tracks {
            for owner in &track.owners {
                let entry = s
                    .tracks
                    .entry(*owner)
                    .or_insert_with(|| (Vec::new(), track.group));
                let name = track.track_name.to_string();
                if !entry.0.contains(&name) {
                    entry.0.push(name);
                }
            }
        }
        for station in &ctx.live.world.stations {
            for r in &station.receivers {
                s.stations.insert(*r, station.code);
            }
        }
        s
    }

    fn contains(&self, id: ObjectId) -> bool {
        self.tracks.contains_key(&id) || self.stations.contains_key(&id)
    }

    fn ids(&self) -> BTreeSet<ObjectId> {
        self.tracks
            .keys()
            .chain(self.stations.keys())
            .copied()
            .collect()
    }
}

/// A stable colour for an object's curves and highlights.
fn object_colour(id: ObjectId) -> Color32 {
    const PALETTE: [Color32; 8] = [
        Color32::from_rgb(90, 170, 255),
        Color32::from_rgb(255, 150, 80),
        Color32::from_rgb(120, 220, 120),
        Color32::from_rgb(240, 110, 160),
        Color32::from_rgb(200, 170, 255),
        Color32::from_rgb(240, 220, 90),
        Color32::from_rgb(100, 220, 220),
        Color32::from_rgb(220, 130, 110),
    ];
    PALETTE[id.unsigned_abs() as usize % PALETTE.len()]
}

fn kind_colour(kind: ObjectKind) -> Color32 {
    match kind {
        ObjectKind::Person => Color32::from_rgb(90, 160, 230),
        ObjectKind::Baby => Color32::from_rgb(235, 170, 205),
        ObjectKind::Tv => Color32::from_rgb(215, 210, 110),
        ObjectKind::Radio => Color32::from_rgb(235, 150, 70),
        ObjectKind::Stereo => Color32::from_rgb(185, 120, 235),
        ObjectKind::Piano => Color32::from_rgb(175, 130, 95),
        ObjectKind::Generic => Color32::from_rgb(160, 160, 160),
    }
}

fn area_colour(area: Area) -> Color32 {
    match area {
        Area::Inside => Color32::from_rgb(90, 200, 110),
        Area::Fading => Color32::from_rgb(235, 170, 60),
        Area::Silent => Color32::from_rgb(150, 150, 150),
        Area::Exempt => Color32::from_rgb(185, 120, 235),
    }
}

fn group_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "FX",
        ControlGroup::Music => "Music",
        ControlGroup::Vox => "VOX",
    }
}

/// Paints an object's glyph (by kind) centred on `c`.
fn glyph(painter: &egui::Painter, c: Pos2, object: &WorldObject, fill: Color32, outline: Stroke) {
    let rect = |w: f32, h: f32| Rect::from_center_size(c, vec2(w, h));
    match object.kind {
        ObjectKind::Person => {
            let fill = match object.fields.first() {
                Some(1) => Color32::from_rgb(235, 120, 170).gamma_multiply(fill.a() as f32 / 255.0),
                Some(2) => Color32::from_rgb(120, 210, 130).gamma_multiply(fill.a() as f32 / 255.0),
                _ => fill,
            };
            painter.circle(c, 6.5, fill, outline);
        }
        ObjectKind::Baby => {
            painter.circle(c, 4.5, fill, outline);
        }
        ObjectKind::Tv => {
            painter.rect(rect(16.0, 12.0), 2.0, fill, outline, StrokeKind::Middle);
            painter.rect_filled(rect(11.0, 7.0), 1.0, Color32::from_black_alpha(140));
        }
        ObjectKind::Radio => {
            painter.rect(rect(14.0, 9.0), 2.0, fill, outline, StrokeKind::Middle);
            painter.line_segment([c + vec2(3.0, -4.5), c + vec2(7.0, -10.0)], outline);
            painter.circle_filled(c + vec2(-3.0, 0.0), 2.5, Color32::from_black_alpha(140));
        }
        ObjectKind::Stereo => {
            painter.rect(rect(20.0, 11.0), 2.0, fill, outline, StrokeKind::Middle);
            for dx in [-5.0, 5.0] {
                painter.circle_filled(c + vec2(dx, 0.0), 3.5, Color32::from_black_alpha(150));
            }
        }
        ObjectKind::Piano => {
            let r = rect(20.0, 10.0);
            painter.rect(r, 1.0, fill, outline, StrokeKind::Middle);
            for i in 1..5 {
                let x = r.left() + r.width() * i as f32 / 5.0;
                painter.line_segment(
                    [pos2(x, r.center().y), pos2(x, r.bottom())],
                    Stroke::new(1.0, Color32::from_black_alpha(160)),
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

/// The screen rectangle `r` (top left, bottom right, in pixels) on the lot: its four
/// corners in tiles (top left, top right, bottom right, bottom left).
fn quad(settings: &ViewSettings, camera: &Camera, r: [[f32; 2]; 2]) -> [[f32; 2]; 4] {
    let [[x0, y0], [x1, y1]] = r;
    [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(|p| settings.to_tiles(camera, p))
}

/// A station pan (−1…1) with its sign, `0.00` in the middle (never `-0.00`).
fn signed(v: f32) -> String {
    if v.abs() < 0.005 {
        "0.00".to_string()
    } else {
        format!("{v:+.2}")
    }
}

fn snap(v: f32) -> f32 {
    (v / SNAP_TILES).round() * SNAP_TILES
}

/// Pan as words: "centre", "left 40 %", "right 12 %".
fn pan_words(pan: i32) -> String {
    let off = pan - 512;
    let share = (f64::from(off.unsigned_abs()) / 512.0 * 100.0).round();
    match off {
        0 => "centre".to_string(),
        o if o < 0 => format!("left {share:.0} %"),
        _ => format!("right {share:.0} %"),
    }
}

impl LotPanel {
    /// The object selected on the map, if any.
    pub fn selected(&self) -> Option<ObjectId> {
        self.selected
    }

    /// Selects an object (its details and curves are shown).
    pub fn select(&mut self, id: Option<ObjectId>) {
        self.selected = id;
    }

    /// Which objects the plots show.
    pub fn plot_choice(&self) -> PlotChoice {
        self.plot
    }

    /// The volume and pan history of object `id`, oldest first.
    pub fn history(&self, id: ObjectId) -> Vec<HistoryPoint> {
        self.history
            .get(&id)
            .map(|h| h.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Appends a history point per object when the engine's time has moved on, and
    /// forgets points older than [`HISTORY_SECONDS`] and objects no longer on the lot.
    fn record(&mut self, now: u64, world: &WorldView) {
        if self.last_now == Some(now) {
            return;
        }
        if self.last_now.is_some_and(|last| now < last) {
            // Time went back: a new engine or project.
            self.history.clear();
        }
        self.last_now = Some(now);
        let t = self.seconds(now);
        let present: BTreeSet<ObjectId> = world.objects.iter().map(|(o, _)| o.id).collect();
        self.history.retain(|id, _| present.contains(id));
        for (object, p) in &world.objects {
            let h = self.history.entry(object.id).or_default();
            h.push_back(HistoryPoint {
                time: t,
                volume: p.volume,
                pan: p.pan,
            });
            while h.len() > HISTORY_CAP || h.front().is_some_and(|f| f.time < t - HISTORY_SECONDS) {
                h.pop_front();
            }
        }
    }

    fn seconds(&self, now: u64) -> f64 {
        now as f64 / f64::from(self.sample_rate.max(1))
    }

    /// The camera as it would be after the drag in progress.
    fn shown_camera(&self, camera: &Camera) -> Camera {
        match self.drag {
            Some(Drag::View { to, .. }) => Camera {
                centre: to,
                ..*camera
            },
            _ => *camera,
        }
    }

    fn toolbar(&mut self, ui: &mut egui::Ui, world: &WorldView, commands: &mut Vec<Command>) {
        let camera = &world.camera;
        let run = |commands: &mut Vec<Command>, line: String| commands.push(Command::RunLine(line));
        ui.horizontal_wrapped(|ui| {
            if ui
                .add_enabled(camera.zoom > ZOOM_NEAR, egui::Button::new("Zoom in"))
                .on_hover_text("zoom in (key +)")
                .clicked()
            {
                run(commands, "zoom in".into());
            }
            if ui
                .add_enabled(camera.zoom < ZOOM_FAR, egui::Button::new("Zoom out"))
                .on_hover_text("zoom out: quieter (key -)")
                .clicked()
            {
                run(commands, "zoom out".into());
            }
            if ui.button("Rotate left").on_hover_text("key Q").clicked() {
                run(commands, "rotate left".into());
            }
            if ui.button("Rotate right").on_hover_text("key E").clicked() {
                run(commands, "rotate right".into());
            }
            ui.separator();
            if ui
                .button("Floor down")
                .on_hover_text("key Page Down")
                .clicked()
            {
                run(commands, format!("floor {}", camera.level - 1));
            }
            ui.label(format!("floor {}", camera.level));
            if ui.button("Floor up").on_hover_text("key Page Up").clicked() {
                run(commands, format!("floor {}", camera.level + 1));
            }
            ui.separator();
            let hour_label = ui.label("Hour");
            let mut hour = self.hour.unwrap_or(world.hour);
            let response = ui
                .add(
                    egui::Slider::new(&mut hour, 0.0..=24.0)
                        .step_by(0.25)
                        .fixed_decimals(2),
                )
                .labelled_by(hour_label.id);
            if response.dragged() || response.changed() {
                self.hour = Some(hour);
            }
            if response.drag_stopped() || (response.changed() && !response.dragged()) {
                run(commands, format!("hour {hour:.2}"));
                self.hour = None;
            }
            let mut mode = world.music.mode;
            egui::ComboBox::from_label("Music mode")
                .selected_text(mode.name())
                .show_ui(ui, |ui| {
                    for m in MusicMode::ALL {
                        ui.selectable_value(&mut mode, m, m.name());
                    }
                });
            if mode != world.music.mode {
                run(commands, format!("mode {}", mode.name()));
            }
        });
        ui.horizontal(|ui| {
            if ui
                .small_button("Fit")
                .on_hover_text("fit the objects and the full-volume area to the map")
                .clicked()
            {
                self.frame = None;
            }
            ui.label(format!(
            "camera ({:.2}, {:.2}) · zoom {} · rotation {} · {:.0}×{:.0} px screen · fade {:.0} px",
            camera.centre[0],
            camera.centre[1],
            camera.zoom,
            camera.rotation % 4,
            camera.screen[0],
            camera.screen[1],
            world.settings.fade_distance,
            ));
        });
    }

    /// The keys that work while the pointer is over the map.
    fn keys(&self, ui: &egui::Ui, camera: &Camera, commands: &mut Vec<Command>) {
        let pressed = |key| ui.input(|i| i.key_pressed(key));
        if pressed(egui::Key::Plus) || pressed(egui::Key::Equals) {
            commands.push(Command::RunLine("zoom in".into()));
        }
        if pressed(egui::Key::Minus) {
            commands.push(Command::RunLine("zoom out".into()));
        }
        if pressed(egui::Key::Q) {
            commands.push(Command::RunLine("rotate left".into()));
        }
        if pressed(egui::Key::E) {
            commands.push(Command::RunLine("rotate right".into()));
        }
        if pressed(egui::Key::PageUp) {
            commands.push(Command::RunLine(format!("floor {}", camera.level + 1)));
        }
        if pressed(egui::Key::PageDown) {
            commands.push(Command::RunLine(format!("floor {}", camera.level - 1)));
        }
    }

    /// The map: grid, view quads, stations, objects, listener; drags and selection.
    fn map(
        &mut self,
        ui: &mut egui::Ui,
        size: Vec2,
        ctx: &PanelContext<'_>,
        sounding: &Sounding,
        commands: &mut Vec<Command>,
    ) {
        let world = &ctx.live.world;
        let settings = &world.settings;
        let (canvas, background) = ui.allocate_exact_size(size, Sense::click_and_drag());
        let background = background.accessible_name("Lot map");
        let camera = self.shown_camera(&world.camera);
        let screen = quad(settings, &camera, [[0.0, 0.0], camera.screen]);
        let full = quad(settings, &camera, settings.full_volume_rect(&camera));
        let silent = quad(settings, &camera, settings.silent_rect(&camera));

        // Fit the objects and the full-volume area to the map when it has no layout yet,
        // the canvas changed, or one of them left it (not while dragging: the map stays
        // still under the pointer). The screen and the silent edge may reach beyond.
        let mut needed: Vec<[f32; 2]> = world.objects.iter().map(|(o, _)| o.position).collect();
        needed.extend(full);
        needed.push(world.ambience.listener);
        let frame = match self.frame {
            Some(f) if self.drag.is_some() => MapFrame { canvas, ..f },
            Some(f) if f.canvas == canvas && f.shows(&needed) => f,
            _ => MapFrame::fit(canvas, &needed),
        };
        self.frame = Some(frame);

        let painter = ui.painter_at(canvas);
        let visuals = ui.visuals().clone();
        painter.rect_filled(canvas, 4.0, visuals.extreme_bg_color);

        // The view on the ground: the silent edge, the fade band, the full-volume area,
        // the screen.
        let poly = |q: &[[f32; 2]; 4]| q.iter().map(|p| frame.to_px(*p)).collect::<Vec<_>>();
        painter.add(Shape::convex_polygon(
            poly(&silent),
            Color32::from_rgba_unmultiplied(235, 170, 60, 22),
            Stroke::new(1.0, Color32::from_rgba_unmultiplied(235, 170, 60, 110)),
        ));
        painter.add(Shape::convex_polygon(
            poly(&full),
            Color32::from_rgba_unmultiplied(90, 200, 110, 40),
            Stroke::new(1.0, Color32::from_rgba_unmultiplied(90, 200, 110, 160)),
        ));
        let screen_px = poly(&screen);
        painter.add(Shape::closed_line(
            screen_px.clone(),
            Stroke::new(1.5, visuals.strong_text_color()),
        ));
        // The screen's top edge, thicker: which way is up on screen.
        painter.line_segment(
            [screen_px[0], screen_px[1]],
            Stroke::new(3.0, visuals.strong_text_color()),
        );
        let weak = visuals.weak_text_color();
        let small = FontId::proportional(11.0);
        painter.text(
            screen_px[0].lerp(screen_px[1], 0.5),
            Align2::CENTER_BOTTOM,
            "top of screen",
            small.clone(),
            weak,
        );
        painter.text(
            frame.to_px(silent[0]),
            Align2::LEFT_TOP,
            "silent edge",
            small.clone(),
            Color32::from_rgb(235, 170, 60),
        );

        // The tile grid.
        let step = if frame.scale >= 10.0 {
            1.0
        } else if frame.scale >= 3.0 {
            5.0
        } else {
            10.0
        };
        let lo = frame.to_tile(canvas.min);
        let hi = frame.to_tile(canvas.max);
        let grid = Stroke::new(1.0, visuals.weak_text_color().gamma_multiply(0.25));
        let mut x = (lo[0] / step).floor() * step;
        while x <= hi[0] {
            let px = frame.to_px([x, 0.0]).x;
            painter.line_segment([pos2(px, canvas.top()), pos2(px, canvas.bottom())], grid);
            x += step;
        }
        let mut y = (lo[1] / step).floor() * step;
        while y <= hi[1] {
            let py = frame.to_px([0.0, y]).y;
            painter.line_segment([pos2(canvas.left(), py), pos2(canvas.right(), py)], grid);
            y += step;
        }

        // Where each object is drawn (a dragged one where it would land).
        let drag = self.drag;
        let position = |o: &WorldObject| match drag {
            Some(Drag::Object { id, to, .. }) if id == o.id => to,
            _ => o.position,
        };

        // Stations: their receivers linked, the mixed level by them.
        for station in &world.stations {
            let points: Vec<Pos2> = station
                .receivers
                .iter()
                .filter_map(|id| world.objects.iter().find(|(o, _)| o.id == *id))
                .map(|(o, _)| frame.to_px(position(o)))
                .collect();
            if points.is_empty() {
                continue;
            }
            let n = points.len() as f32;
            let centre_x = points.iter().map(|p| p.x).sum::<f32>() / n;
            let top = points.iter().map(|p| p.y).fold(f32::MAX, f32::min);
            let hub = pos2(centre_x, top - 30.0);
            let colour = Color32::from_rgb(215, 210, 110);
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
                    signed(pan)
                ),
                small.clone(),
                colour,
            );
            let box_rect = Rect::from_center_size(
                hub + vec2(0.0, -4.0 - galley.size().y / 2.0),
                galley.size() + vec2(8.0, 2.0),
            );
            painter.rect_filled(box_rect, 3.0, Color32::from_black_alpha(170));
            painter.galley(box_rect.min + vec2(4.0, 1.0), galley, colour);
        }

        // The listener.
        let l = frame.to_px(world.ambience.listener);
        let ear = Stroke::new(1.5, Color32::from_rgb(100, 220, 220));
        painter.line_segment([l + vec2(-5.0, -5.0), l + vec2(5.0, 5.0)], ear);
        painter.line_segment([l + vec2(-5.0, 5.0), l + vec2(5.0, -5.0)], ear);

        // Objects.
        let highlighted = match ctx.selection {
            Some(Selection::Object(id)) => Some(*id),
            _ => None,
        };
        let mut hovered_object = None;
        for (object, placement) in &world.objects {
            let at = position(object);
            let c = frame.to_px(at);
            let dragged = matches!(self.drag, Some(Drag::Object { id, .. }) if id == object.id);
            // A dragged object or a moved camera: show where it would sound from.
            let p = if dragged || matches!(self.drag, Some(Drag::View { .. })) {
                let moved = WorldObject {
                    position: at,
                    ..object.clone()
                };
                place(&moved, &camera, settings)
            } else {
                *placement
            };
            let other_floor = object.level != camera.level;
            let alpha = if other_floor { 0.4 } else { 1.0 };
            let is_sounding = sounding.contains(object.id);
            if is_sounding && p.volume > 0 {
                let r = 9.0 + 14.0 * p.volume as f32 / 1024.0;
                let ring = area_colour(p.why.area);
                painter.circle_filled(c, r, ring.gamma_multiply(0.18 * alpha));
                painter.circle_stroke(c, r, Stroke::new(1.5, ring.gamma_multiply(alpha)));
            }
            if self.selected == Some(object.id) || highlighted == Some(object.id) {
                painter.circle_stroke(c, 13.0, Stroke::new(2.0, visuals.selection.stroke.color));
            }
            let outline = Stroke::new(1.0, Color32::from_black_alpha((200.0 * alpha) as u8));
            glyph(
                &painter,
                c,
                object,
                kind_colour(object.kind).gamma_multiply(alpha),
                outline,
            );
            let text = visuals.text_color().gamma_multiply(alpha);
            painter.text(
                c + vec2(0.0, 10.0),
                Align2::CENTER_TOP,
                &object.name,
                small.clone(),
                text,
            );
            if is_sounding {
                painter.text(
                    c + vec2(0.0, 23.0),
                    Align2::CENTER_TOP,
                    format!("vol {} · pan {}", p.volume, p.pan),
                    small.clone(),
                    area_colour(p.why.area).gamma_multiply(alpha),
                );
            }

            // Interaction: hover for details, click to select, drag to move.
            let hit = Rect::from_center_size(c, vec2(22.0, 22.0));
            let id = ui.scope_id().with(("lot-object", object.id));
            let response = ui
                .interact(hit.intersect(canvas), id, Sense::click_and_drag())
                .on_hover_cursor(egui::CursorIcon::Grab);
            let name = object.name.clone();
            response
                .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name.clone()));
            if response.hovered() && self.drag.is_none() {
                hovered_object = Some(object.id);
            }
            self.object_input(&response, object, &frame, commands);
        }

        self.background_input(&background, &world.camera, &frame, commands);
        if background.hovered() || hovered_object.is_some() {
            self.keys(ui, &world.camera, commands);
        }
        if let Some(id) = hovered_object
            && let Some((object, placement)) = world.objects.iter().find(|(o, _)| o.id == id)
        {
            background.show_tooltip_ui(|ui| {
                details(ui, object, placement, sounding, ctx, false);
            });
        }
    }

    fn object_input(
        &mut self,
        response: &Response,
        object: &WorldObject,
        frame: &MapFrame,
        commands: &mut Vec<Command>,
    ) {
        if response.clicked() {
            self.selected = Some(object.id);
            commands.push(Command::Select(Selection::Object(object.id)));
        }
        if response.drag_started()
            && let Some(p) = response
                .ctx
                .input(|i| i.pointer.press_origin())
                .or_else(|| response.interact_pointer_pos())
        {
            let t = frame.to_tile(p);
            self.drag = Some(Drag::Object {
                id: object.id,
                grab: [t[0] - object.position[0], t[1] - object.position[1]],
                to: object.position,
            });
            self.selected = Some(object.id);
        }
        if let Some(Drag::Object { id, grab, to }) = self.drag.as_mut()
            && *id == object.id
        {
            if response.dragged()
                && let Some(p) = response.interact_pointer_pos()
            {
                let t = frame.to_tile(p);
                *to = [snap(t[0] - grab[0]), snap(t[1] - grab[1])];
            }
            if response.drag_stopped() {
                let [x, y] = *to;
                if [x, y] != object.position {
                    commands.push(Command::RunLine(format!(
                        "move {} {x:.2} {y:.2}",
                        object.id
                    )));
                }
                self.drag = None;
            }
        }
    }

    fn background_input(
        &mut self,
        response: &Response,
        camera: &Camera,
        frame: &MapFrame,
        commands: &mut Vec<Command>,
    ) {
        if response.clicked() {
            self.selected = None;
        }
        if response.drag_started()
            && let Some(p) = response
                .ctx
                .input(|i| i.pointer.press_origin())
                .or_else(|| response.interact_pointer_pos())
        {
            self.drag = Some(Drag::View {
                from: camera.centre,
                grab: frame.to_tile(p),
                to: camera.centre,
            });
        }
        if let Some(Drag::View { from, grab, to }) = self.drag.as_mut() {
            if response.dragged()
                && let Some(p) = response.interact_pointer_pos()
            {
                let t = frame.to_tile(p);
                *to = [from[0] + t[0] - grab[0], from[1] + t[1] - grab[1]];
            }
            if response.drag_stopped() {
                let [x, y] = *to;
                if *to != *from {
                    commands.push(Command::RunLine(format!("view {x:.2} {y:.2}")));
                }
                self.drag = None;
            }
        }
    }

    /// The volume and pan curves of the objects chosen.
    fn plots(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, sounding: &Sounding) {
        let world = &ctx.live.world;
        ui.horizontal(|ui| {
            ui.label(format!("Volume and pan, last {HISTORY_SECONDS:.0} s:"));
            ui.radio_value(&mut self.plot, PlotChoice::Selected, "Selected object");
            ui.radio_value(&mut self.plot, PlotChoice::Sounding, "All sounding");
        });
        let ids: Vec<ObjectId> = match (self.plot, self.selected) {
            (PlotChoice::Selected, Some(id)) => vec![id],
            _ => sounding.ids().into_iter().collect(),
        };
        let now = self.last_now.map_or(0.0, |n| self.seconds(n));
        let name_of = |id: ObjectId| {
            world
                .objects
                .iter()
                .find(|(o, _)| o.id == id)
                .map_or_else(|| format!("#{id}"), |(o, _)| o.name.clone())
        };
        let series = |value: fn(&HistoryPoint) -> i32| -> Vec<(String, Color32, Vec<[f64; 2]>)> {
            ids.iter()
                .map(|id| {
                    let points = self
                        .history
                        .get(id)
                        .map(|h| {
                            h.iter()
                                .map(|p| [p.time - now, f64::from(value(p))])
                                .collect()
                        })
                        .unwrap_or_default();
                    (name_of(*id), object_colour(*id), points)
                })
                .collect()
        };
        let volume = series(|p| p.volume);
        let pan = series(|p| p.pan);
        let width = ((ui.available_width() - 8.0) / 2.0).max(80.0);
        let height = ui.available_height().max(80.0);
        ui.horizontal(|ui| {
            for (title, lines, id) in [("Volume", volume, "lot-volume"), ("Pan", pan, "lot-pan")] {
                Plot::new(id)
                    .width(width)
                    .height(height)
                    .legend(Legend::default().position(Corner::LeftTop))
                    .allow_drag(false)
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .allow_boxed_zoom(false)
                    .x_axis_label("seconds")
                    .y_axis_label(title)
                    .show(ui, |plot| {
                        plot.set_plot_bounds_x(-HISTORY_SECONDS..=0.0);
                        plot.set_plot_bounds_y(-40.0..=1080.0);
                        for (name, colour, points) in lines {
                            plot.line(Line::new(name, PlotPoints::from(points)).color(colour));
                        }
                    });
            }
        });
    }
}

/// An object's details: what it is, where, whether it sounds, and its volume and pan
/// with the factors they came from.
fn details(
    ui: &mut egui::Ui,
    object: &WorldObject,
    placement: &Placement,
    sounding: &Sounding,
    ctx: &PanelContext<'_>,
    full: bool,
) {
    let world = &ctx.live.world;
    ui.strong(format!("#{} {} ({})", object.id, object.name, object.kind));
    ui.label(format!(
        "tile ({:.2}, {:.2}) · floor {}",
        object.position[0], object.position[1], object.level
    ));
    if let Some((tracks, _)) = sounding.tracks.get(&object.id) {
        ui.label(format!("saying {}", tracks.join(", ")));
    }
    if let Some(code) = sounding.stations.get(&object.id)
        && let Some(station) = world.stations.iter().find(|s| s.code == *code)
    {
        ui.label(format!(
            "tuned to {} ({}): station at gain {:.2}, pan {}",
            station.name,
            station.code,
            station.level.0,
            signed(station.level.1)
        ));
    } else if let Some(code) = object.station {
        ui.label(format!(
            "station {code}, {}",
            if object.on { "on" } else { "off" }
        ));
    }
    if !sounding.contains(object.id) {
        ui.weak("not sounding now");
    }
    let why = &placement.why;
    ui.separator();
    ui.label(format!("area: {}", why.area.name()))
        .on_hover_text(match why.area {
            Area::Inside => "inside the full-volume area: no fade",
            Area::Fading => "between the full-volume area and the silent edge",
            Area::Silent => "past the silent edge",
            Area::Exempt => "a stereo is never faded",
        });
    ui.label(format!(
        "volume {} · pan {} ({})",
        placement.volume,
        placement.pan,
        pan_words(placement.pan)
    ));
    egui::Grid::new(("lot-factors", object.id, full))
        .num_columns(2)
        .spacing(vec2(12.0, 1.0))
        .show(ui, |ui| {
            ui.label("fade");
            ui.label(format!("× {:.2} (band {:.2})", why.fade, why.band));
            ui.end_row();
            ui.label("zoom");
            ui.label(format!("× {:.2} (zoom {})", why.zoom, world.camera.zoom));
            ui.end_row();
            ui.label("floor");
            ui.label(format!("× {:.2}", why.floor));
            ui.end_row();
            ui.label("group");
            match sounding.tracks.get(&object.id) {
                Some((_, group)) => {
                    let gain = group_gain(&ctx.live.mixer, *group);
                    let heard = placement.with_group(gain);
                    ui.label(format!(
                        "× {gain:.2} ({} option): {} at the mixer",
                        group_name(*group),
                        heard.volume
                    ));
                }
                None => {
                    ui.label("applied by the mixer");
                }
            }
            ui.end_row();
        });
    ui.weak(format!(
        "volume = 1024 × fade × zoom × floor; {:.0} px from the screen centre",
        why.centre_distance
    ));
}

fn group_gain(mixer: &MixerSnapshot, group: ControlGroup) -> f32 {
    mixer.groups.get(group_index(group)).copied().unwrap_or(1.0)
}

impl Panel for LotPanel {
    fn title(&self) -> &'static str {
        "Lot view"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let world = &ctx.live.world;
        self.record(ctx.live.now, world);
        // Follow an object selected in another panel.
        let shared = match ctx.selection {
            Some(Selection::Object(id)) => Some(*id),
            _ => None,
        };
        if shared != self.seen_selection {
            self.seen_selection = shared;
            if shared.is_some() {
                self.selected = shared;
            }
        }
        if self
            .selected
            .is_some_and(|id| !world.objects.iter().any(|(o, _)| o.id == id))
        {
            self.selected = None;
        }
        let sounding = Sounding::of(ctx);

        self.toolbar(ui, world, commands);
        if world.objects.is_empty() {
            ui.weak(
                "The lot is empty: the project's world.ini names no lot file, or no engine \
                 is running.",
            );
        }
        let available = ui.available_size();
        let plot_height = (available.y * 0.25).clamp(100.0, 180.0);
        let map_height = (available.y - plot_height - 36.0).max(160.0);
        let details_width = DETAILS_WIDTH.min(available.x * 0.4);
        let map_width = (available.x - details_width - 12.0).max(160.0);
        ui.horizontal_top(|ui| {
            self.map(ui, vec2(map_width, map_height), ctx, &sounding, commands);
            ui.vertical(|ui| {
                ui.set_width(details_width);
                egui::ScrollArea::vertical()
                    .id_salt("lot-details")
                    .max_height(map_height)
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        self.side(ui, ctx, &sounding, commands);
                    });
            });
        });
        ui.separator();
        self.plots(ui, ctx, &sounding);
    }
}

impl LotPanel {
    /// The column beside the map: the selected object, the stations, music and hour.
    fn side(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        sounding: &Sounding,
        commands: &mut Vec<Command>,
    ) {
        let world = &ctx.live.world;
        match self
            .selected
            .and_then(|id| world.objects.iter().find(|(o, _)| o.id == id))
        {
            Some((object, placement)) => {
                details(ui, object, placement, sounding, ctx, true);
                ui.horizontal_wrapped(|ui| {
                    if ui
                        .button("Control")
                        .on_hover_text("make it the controlled character (the source of sev)")
                        .clicked()
                    {
                        commands.push(Command::RunLine(format!("control {}", object.id)));
                    }
                    if ui
                        .button("Quiet")
                        .on_hover_text("stop its sounds")
                        .clicked()
                    {
                        commands.push(Command::RunLine(format!("quiet {}", object.id)));
                    }
                    if ui
                        .button("Centre view")
                        .on_hover_text("put it in the middle of the screen")
                        .clicked()
                    {
                        let [x, y] = object.position;
                        commands.push(Command::RunLine(format!("view {x:.2} {y:.2}")));
                    }
                });
            }
            None => {
                ui.weak("Click an object to see where its volume and pan come from; drag it to move it, drag the ground to move the camera.");
            }
        }
        ui.separator();
        ui.strong("Stations");
        let mut any = false;
        for station in &world.stations {
            if station.receivers.is_empty() && station.on_air.is_none() {
                continue;
            }
            any = true;
            let receivers: Vec<String> = station
                .receivers
                .iter()
                .map(|id| {
                    world
                        .objects
                        .iter()
                        .find(|(o, _)| o.id == *id)
                        .map_or_else(|| format!("#{id}"), |(o, _)| o.name.clone())
                })
                .collect();
            ui.label(format!(
                "{} ({}): gain {:.2}, pan {}",
                station.name,
                station.code,
                station.level.0,
                signed(station.level.1)
            ));
            ui.weak(format!("  receivers: {}", receivers.join(", ")));
            if let Some((file, list)) = &station.on_air {
                let file = file.file_name().map_or_else(
                    || file.display().to_string(),
                    |f| f.to_string_lossy().into_owned(),
                );
                ui.weak(format!("  on air: {file} ({list})"));
            }
        }
        if !any {
            ui.weak("no station on air");
        }
        ui.separator();
        let music = &world.music;
        ui.label(format!(
            "music: {}{}",
            music.mode.name(),
            if music.waiting {
                " (waiting for the old music to end)"
            } else {
                ""
            }
        ));
        let a = &world.ambience;
        ui.label(format!(
            "hour {:.2}{} · room {:.0} tiles",
            world.hour,
            if a.night { " (night)" } else { "" },
            world.room
        ));
    }
}
