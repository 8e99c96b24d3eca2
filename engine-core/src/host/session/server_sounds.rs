//! The sound server's own sounds in a session: `world.ini [ServerSounds]` registered in
//! the server's bank, and the console's `select <object…>` (the selection sound by the
//! two-groups rule, for that selection) and `sound <name> [@object]` (volume from the
//! object's distance to the view point, pan from its place on screen, noise reduction
//! by object).

use super::Session;
use crate::runtime::sink::ControlGroup;
use crate::runtime::units::Pan;
use crate::sound::server::SoundServer;
use crate::sound::server::{Power, Request};
use crate::world::ObjectId;
use crate::world::director::WorldDirector;
use crate::world::server_sounds::selection_origin;

/// Registers the world's `[ServerSounds]` in the server (replacing what it held) and
/// sets the server's maximum range.
pub(super) fn install_server_sounds(world: &WorldDirector, server: &mut SoundServer) {
    let sounds = &world.server_sounds;
    server.bank().clear();
    sounds.install(server.bank());
    server.set_max_range(sounds.max_range.unwrap_or(DEFAULT_MAX_RANGE));
}

/// The maximum range, in tiles, when `[ServerSounds] MaxRange` does not set one.
pub const DEFAULT_MAX_RANGE: f32 = 1000.0;

impl Session {
    /// Plays server sound `name` (`None`: the project's selection sound) from `objects`:
    /// the first one's distance and pan; all of them are the origin. The reply says what
    /// played; a refusal (unknown sound or object, noise reduction, out of range) is the
    /// error.
    pub(super) fn server_sound(
        &mut self,
        name: Option<&str>,
        objects: &[ObjectId],
        selection: bool,
    ) -> Result<String, String> {
        let sounds = &self.world.server_sounds;
        let name = match name {
            Some(name) => name.to_string(),
            None => sounds.select.clone().ok_or_else(|| {
                "this project names no selection sound: `Select = <sound>` in \
                 world.ini [ServerSounds]"
                    .to_string()
            })?,
        };
        let Some(id) = self.server.bank().id(&name) else {
            let known: Vec<&str> = sounds.names().collect();
            return Err(if known.is_empty() {
                format!("no server sound `{name}`: this project's world.ini has no [ServerSounds]")
            } else {
                format!("no server sound `{name}` (defined: {})", known.join(", "))
            });
        };
        for object in objects {
            if self.engine.world().get(*object).is_none() {
                return Err(format!("there is no object {object} on the lot"));
            }
        }
        let camera = self.world.camera();
        let (power, pan) = match objects.first().and_then(|o| self.engine.world().get(*o)) {
            Some(o) => {
                let [cx, cy] = camera.centre;
                let distance = (o.position[0] - cx).hypot(o.position[1] - cy);
                let pan = self
                    .world
                    .placement(&self.engine, o.id)
                    .map_or(Pan::CENTRE, |p| Pan::new(p.pan as f32 / 512.0 - 1.0));
                (Power::Distance(distance), pan)
            }
            None => (Power::Volume(1.0), Pan::CENTRE),
        };
        let request = Request {
            sound: id,
            origin: (!objects.is_empty()).then(|| selection_origin(objects)),
            power,
            selection,
            pan,
            at: self.engine.now(),
        };
        match self.server.play(request, ControlGroup::Fx) {
            Ok(note) => Ok(format!("server sound `{name}` plays (note {note})")),
            Err(refusal) => Err(format!("server sound `{name}`: {refusal}")),
        }
    }
}
