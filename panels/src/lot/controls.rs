//! The Lot view's controls: the toolbar (zoom, rotate, floor, hour, music mode, fit) and
//! the keys that work while the pointer is over the map. Each sends a world command.

use super::LotPanel;
use crate::AppCommand;
use engine_core::host::command::{Command, Turn, WorldCommand, ZoomStep};
use engine_core::world::director::WorldView;
use engine_core::world::music::MusicMode;
use engine_core::world::view::{Camera, ZOOM_FAR, ZOOM_NEAR};

/// Sends a world command.
pub(super) fn run(commands: &mut Vec<AppCommand>, command: WorldCommand) {
    commands.push(AppCommand::Run(Command::World(command)));
}

impl LotPanel {
    /// The toolbar above the map: the camera's buttons, the hour, the music mode, and a
    /// line that says where the camera is with a button to fit the map again.
    pub(super) fn toolbar(
        &mut self,
        ui: &mut egui::Ui,
        world: &WorldView,
        commands: &mut Vec<AppCommand>,
    ) {
        let camera = &world.camera;
        ui.horizontal_wrapped(|ui| {
            camera_buttons(ui, camera, commands);
            ui.separator();
            self.hour_slider(ui, world, commands);
            music_mode(ui, world, commands);
        });
        // Wrapped: in a narrow pane the line goes on below rather than widening the panel.
        ui.horizontal_wrapped(|ui| {
            if ui
                .small_button("Fit")
                .on_hover_text(
                    "fit the lot (its objects and rooms) to the map; the mouse wheel zooms \
                     the drawing",
                )
                .clicked()
            {
                self.frame = None;
                self.zoomed = false;
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
            if self.hidden_labels > 0 {
                ui.weak(format!("· {} label(s) hidden", self.hidden_labels))
                    .on_hover_text(
                        "labels that would overlap are not drawn: hover an object to name it, \
                         or zoom the map with the mouse wheel",
                    );
            }
        });
    }

    /// The hour slider: follows the pointer while dragged, sends `hour <h>` when let go
    /// or changed by keys.
    fn hour_slider(
        &mut self,
        ui: &mut egui::Ui,
        world: &WorldView,
        commands: &mut Vec<AppCommand>,
    ) {
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
            run(commands, WorldCommand::Hour(hour));
            self.hour = None;
        }
    }

    /// The keys that work while the pointer is over the map.
    pub(super) fn keys(&self, ui: &egui::Ui, camera: &Camera, commands: &mut Vec<AppCommand>) {
        let pressed = |key| ui.input(|i| i.key_pressed(key));
        if pressed(egui::Key::Plus) || pressed(egui::Key::Equals) {
            run(commands, WorldCommand::Zoom(ZoomStep::In));
        }
        if pressed(egui::Key::Minus) {
            run(commands, WorldCommand::Zoom(ZoomStep::Out));
        }
        if pressed(egui::Key::Q) {
            run(commands, WorldCommand::Rotate(Turn::Left));
        }
        if pressed(egui::Key::E) {
            run(commands, WorldCommand::Rotate(Turn::Right));
        }
        if pressed(egui::Key::PageUp) {
            run(
                commands,
                WorldCommand::Floor(camera.level.saturating_add(1)),
            );
        }
        if pressed(egui::Key::PageDown) {
            run(
                commands,
                WorldCommand::Floor(camera.level.saturating_sub(1)),
            );
        }
    }
}

/// Zoom, rotate and floor buttons, each naming its key.
fn camera_buttons(ui: &mut egui::Ui, camera: &Camera, commands: &mut Vec<AppCommand>) {
    if ui
        .add_enabled(camera.zoom > ZOOM_NEAR, egui::Button::new("Zoom in"))
        .on_hover_text("zoom in (key +)")
        .clicked()
    {
        run(commands, WorldCommand::Zoom(ZoomStep::In));
    }
    if ui
        .add_enabled(camera.zoom < ZOOM_FAR, egui::Button::new("Zoom out"))
        .on_hover_text("zoom out: quieter (key -)")
        .clicked()
    {
        run(commands, WorldCommand::Zoom(ZoomStep::Out));
    }
    if ui.button("Rotate left").on_hover_text("key Q").clicked() {
        run(commands, WorldCommand::Rotate(Turn::Left));
    }
    if ui.button("Rotate right").on_hover_text("key E").clicked() {
        run(commands, WorldCommand::Rotate(Turn::Right));
    }
    ui.separator();
    if ui
        .button("Floor down")
        .on_hover_text("key Page Down")
        .clicked()
    {
        run(
            commands,
            WorldCommand::Floor(camera.level.saturating_sub(1)),
        );
    }
    ui.label(format!("floor {}", camera.level));
    if ui.button("Floor up").on_hover_text("key Page Up").clicked() {
        run(
            commands,
            WorldCommand::Floor(camera.level.saturating_add(1)),
        );
    }
}

/// The music-mode box: sends `mode <name>` when another is chosen.
fn music_mode(ui: &mut egui::Ui, world: &WorldView, commands: &mut Vec<AppCommand>) {
    let mut mode = world.music.mode;
    egui::ComboBox::from_label("Music mode")
        .selected_text(mode.name())
        .show_ui(ui, |ui| {
            for m in MusicMode::ALL {
                ui.selectable_value(&mut mode, m, m.name());
            }
        });
    if mode != world.music.mode {
        run(commands, WorldCommand::Mode(mode));
    }
}
