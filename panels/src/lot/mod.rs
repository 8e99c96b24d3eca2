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
//!
//! This file holds the panel's state and lays it out; `map` draws the lot and takes
//! its drags and clicks, `paint` paints what is on it, `geometry` maps tiles onto
//! pixels, `controls` is the toolbar and the keys, `details` the column beside the map
//! and `curves` the volume and pan history and its plots.

mod cells;
mod controls;
mod curves;
mod details;
mod geometry;
mod map;
mod paint;

use crate::{AppCommand, Panel, PanelContext, Selection};
use egui::vec2;
use engine_core::runtime::sink::ControlGroup;
use engine_core::world::director::WorldView;
use engine_core::world::view::Camera;
use engine_core::world::{ObjectId, WorldObject};
use geometry::MapFrame;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub use curves::{HISTORY_SECONDS, HistoryPoint, PlotChoice};
pub use geometry::SNAP_TILES;

/// The sample rate assumed until the app says which one the engine runs at.
pub const DEFAULT_RATE: u32 = 48_000;

/// How wide the details column beside the map is, at most.
const DETAILS_WIDTH: f32 = 270.0;

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
    /// The wheel zoomed the drawing: it stays as it is until Fit.
    zoomed: bool,
    /// Objects whose labels found no room on the map last frame.
    hidden_labels: usize,
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
            zoomed: false,
            hidden_labels: 0,
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

/// An object's name, or `#id` when it is not on the lot.
fn object_name(world: &WorldView, id: ObjectId) -> String {
    world
        .objects
        .iter()
        .find(|(o, _)| o.id == id)
        .map_or_else(|| format!("#{id}"), |(o, _)| o.name.clone())
}

/// Where an object is drawn: where the object drag in progress would land it, else
/// where it is.
fn drawn_position(drag: Option<Drag>, object: &WorldObject) -> [f32; 2] {
    match drag {
        Some(Drag::Object { id, to, .. }) if id == object.id => to,
        _ => object.position,
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

    /// The map's scale, pixels per tile, as last drawn.
    pub fn map_scale(&self) -> Option<f32> {
        self.frame.map(|f| f.scale)
    }

    /// Which objects the plots show.
    pub fn plot_choice(&self) -> PlotChoice {
        self.plot
    }

    /// Follows an object selected in another panel, and forgets a selected object that
    /// left the lot.
    fn follow_selection(&mut self, ctx: &PanelContext<'_>) {
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
        let world = &ctx.live.world;
        if self
            .selected
            .is_some_and(|id| !world.objects.iter().any(|(o, _)| o.id == id))
        {
            self.selected = None;
        }
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
}

impl Panel for LotPanel {
    fn title(&self) -> &'static str {
        "Lot view"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let world = &ctx.live.world;
        self.record(ctx.live.now.samples(), world);
        self.follow_selection(ctx);
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
