//! The world the sounds come from. Its objects (people, TVs, radios, pianos… with the
//! data fields tracks read with `getsrcdatafield`) live in the runtime
//! ([`crate::runtime::objects`], re-exported here); around them: the project's world settings (`world.ini`: view curves, station
//! directories, music lists, ambience), read by [`settings`]; the lot file (objects, the
//! camera, the hour, the music mode), read and written by [`lot`]; and how an object's
//! place on screen decides its volume and pan, in [`view`].

pub mod ambience;
pub mod cache_settings;
pub mod commands;
pub mod director;
pub mod lot;
pub mod music;
pub mod names;
pub mod playlist;
pub mod server_sounds;
pub mod settings;
pub mod shortcut;
pub mod sound;
pub mod stations;
pub mod view;
pub mod voice_settings;

pub use crate::runtime::objects::{FIELD_COUNT, ObjectId, ObjectKind, World, WorldObject, field};
