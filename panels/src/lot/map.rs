//! The Lot view's map: lays the lot out on the canvas, paints it (through `paint`), and
//! turns clicks and drags into a selection, `move` and `view` lines.

use super::controls::run;
use super::details::details;
use super::geometry::{MapFrame, ViewQuads, hundredths, snap};
use super::paint::{Look, MapPainter};
use super::{Drag, LotPanel, Sounding, drawn_position};
use crate::{AppCommand, PanelContext, Selection};
use egui::{FontId, Pos2, Rect, Response, Sense, Vec2, vec2};
use engine_core::host::command::WorldCommand;
use engine_core::world::director::WorldView;
use engine_core::world::view::{Camera, Placement, ViewSettings, place};
use engine_core::world::{ObjectId, WorldObject};

impl LotPanel {
    /// The map: grid, view quads, stations, objects, listener; drags and selection.
    pub(super) fn map(
        &mut self,
        ui: &mut egui::Ui,
        size: Vec2,
        ctx: &PanelContext<'_>,
        sounding: &Sounding,
        commands: &mut Vec<AppCommand>,
    ) {
        let world = &ctx.live.world;
        let (canvas, background) = ui.allocate_exact_size(size, Sense::click_and_drag());
        let background = background.accessible_name("Lot map");
        let camera = self.shown_camera(&world.camera);
        let view = ViewQuads::of(&world.settings, &camera);
        let map = MapPainter {
            painter: ui.painter_at(canvas),
            frame: self.fit_frame(canvas, world),
            visuals: ui.visuals().clone(),
            small: FontId::proportional(11.0),
        };
        map.ground(&view);
        map.grid();
        map.rooms(world);
        map.stations(world, self.drag);
        map.listener(world.ambience.listener);
        let hovered_object = self.objects(ui, &map, ctx, &camera, sounding, commands);

        self.background_input(&background, &world.camera, &map.frame, commands);
        self.wheel_zoom(ui, &background);
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

    /// How the lot lies on `canvas`: the lot — its objects, rooms and the listener — is
    /// fitted to the map when it has no layout yet, the canvas changed, or something on
    /// the lot left it (not while dragging: the map stays still under the pointer; not
    /// after the wheel zoomed the drawing, until Fit). The game camera's zoom changes
    /// what is heard, not the size of the drawing: its screen and fade band may reach
    /// beyond.
    fn fit_frame(&mut self, canvas: Rect, world: &WorldView) -> MapFrame {
        let mut needed: Vec<[f32; 2]> = world.objects.iter().map(|(o, _)| o.position).collect();
        needed.extend(world.rooms.iter().flat_map(|r| [r.from, r.to]));
        needed.push(world.ambience.listener);
        let frame = match self.frame {
            Some(f) if self.drag.is_some() || self.zoomed => MapFrame { canvas, ..f },
            Some(f) if f.canvas == canvas && f.shows(&needed) => f,
            _ => MapFrame::fit(canvas, &needed),
        };
        self.frame = Some(frame);
        frame
    }

    /// The mouse wheel over the map zooms the drawing about the pointer (not the game
    /// camera: Zoom in/out do that); Fit fits the lot again.
    fn wheel_zoom(&mut self, ui: &egui::Ui, background: &Response) {
        let Some(pointer) = background.hover_pos() else {
            return;
        };
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll == 0.0 {
            return;
        }
        let Some(frame) = self.frame else { return };
        let factor = (scroll / 200.0).exp();
        let scale = (frame.scale * factor).clamp(2.0, 400.0);
        // Keep the tile under the pointer where it is.
        let at = frame.to_tile(pointer);
        let c = frame.canvas.center();
        let origin = [
            at[0] - (pointer.x - c.x) / scale,
            at[1] - (pointer.y - c.y) / scale,
        ];
        self.frame = Some(MapFrame {
            origin,
            scale,
            canvas: frame.canvas,
        });
        self.zoomed = true;
    }

    /// Paints every object and makes it hoverable, clickable and draggable. Returns the
    /// object hovered (when nothing is being dragged).
    fn objects(
        &mut self,
        ui: &egui::Ui,
        map: &MapPainter,
        ctx: &PanelContext<'_>,
        camera: &Camera,
        sounding: &Sounding,
        commands: &mut Vec<AppCommand>,
    ) -> Option<ObjectId> {
        let world = &ctx.live.world;
        let highlighted = match ctx.selection {
            Some(Selection::Object(id)) => Some(*id),
            _ => None,
        };
        // Where each object is drawn follows the drag as it was when the frame began.
        let drag = self.drag;
        let mut hovered_object = None;
        // Labels never overlap: the selected object's first, then each where it finds
        // room (the others are named on hover).
        // (Nor cover another object's glyph.)
        let mut labels: Vec<Rect> = world
            .objects
            .iter()
            .map(|(o, _)| {
                Rect::from_center_size(map.frame.to_px(drawn_position(drag, o)), vec2(18.0, 16.0))
            })
            .collect();
        let mut hidden = 0;
        let mut order: Vec<&(WorldObject, Placement)> = world.objects.iter().collect();
        order.sort_by_key(|(o, _)| !(self.selected == Some(o.id) || highlighted == Some(o.id)));
        for (object, placement) in order {
            let at = drawn_position(drag, object);
            let c = map.frame.to_px(at);
            let p = self.shown_placement(object, at, camera, &world.settings, placement);
            let look = Look {
                alpha: if object.level != camera.level {
                    0.4
                } else {
                    1.0
                },
                sounding: sounding.contains(object.id),
                selected: self.selected == Some(object.id) || highlighted == Some(object.id),
            };
            if !map.object(c, object, &p, look, &mut labels) {
                hidden += 1;
            }
            if self.object_widget(ui, c, object, &map.frame, commands) {
                hovered_object = Some(object.id);
            }
        }
        self.hidden_labels = hidden;
        hovered_object
    }

    /// Where `object` would sound from: drawn at `at` while it is dragged or the camera
    /// is, else as the engine placed it.
    fn shown_placement(
        &self,
        object: &WorldObject,
        at: [f32; 2],
        camera: &Camera,
        settings: &ViewSettings,
        placement: &Placement,
    ) -> Placement {
        let dragged = matches!(self.drag, Some(Drag::Object { id, .. }) if id == object.id);
        if dragged || matches!(self.drag, Some(Drag::View { .. })) {
            let moved = WorldObject {
                position: at,
                ..object.clone()
            };
            place(&moved, camera, settings)
        } else {
            *placement
        }
    }

    /// The object's hit area at `c`, named by the object: hover for details, click to
    /// select, drag to move. True if it is hovered while nothing is dragged.
    fn object_widget(
        &mut self,
        ui: &egui::Ui,
        c: Pos2,
        object: &WorldObject,
        frame: &MapFrame,
        commands: &mut Vec<AppCommand>,
    ) -> bool {
        let hit = Rect::from_center_size(c, vec2(22.0, 22.0));
        let id = ui.scope_id().with(("lot-object", object.id));
        let response = ui
            .interact(hit.intersect(frame.canvas), id, Sense::click_and_drag())
            .on_hover_cursor(egui::CursorIcon::Grab);
        let name = object.name.clone();
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name.clone()));
        let hovered = response.hovered() && self.drag.is_none();
        self.object_input(&response, object, frame, commands);
        hovered
    }

    /// An object's click selects it; its drag moves it on the map, snapped, and sends
    /// `move` when it is let go somewhere else.
    fn object_input(
        &mut self,
        response: &Response,
        object: &WorldObject,
        frame: &MapFrame,
        commands: &mut Vec<AppCommand>,
    ) {
        if response.clicked() {
            self.selected = Some(object.id);
            commands.push(AppCommand::Select(Selection::Object(object.id)));
        }
        if response.drag_started()
            && let Some(p) = press_origin(response)
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
                let [x, y] = to.map(hundredths);
                if [x, y] != object.position {
                    run(
                        commands,
                        WorldCommand::Move {
                            object: object.id,
                            x,
                            y,
                            floor: None,
                        },
                    );
                }
                self.drag = None;
            }
        }
    }

    /// A click on the ground clears the selection; a drag moves the camera and sends
    /// `view` when it is let go somewhere else.
    fn background_input(
        &mut self,
        response: &Response,
        camera: &Camera,
        frame: &MapFrame,
        commands: &mut Vec<AppCommand>,
    ) {
        if response.clicked() {
            self.selected = None;
        }
        if response.drag_started()
            && let Some(p) = press_origin(response)
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
                let [x, y] = to.map(hundredths);
                if *to != *from {
                    run(commands, WorldCommand::View { x, y });
                }
                self.drag = None;
            }
        }
    }
}

/// Where the pointer went down for the drag that `response` started.
fn press_origin(response: &Response) -> Option<Pos2> {
    response
        .ctx
        .input(|i| i.pointer.press_origin())
        .or_else(|| response.interact_pointer_pos())
}
