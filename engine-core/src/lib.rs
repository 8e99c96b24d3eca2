//! engine-core — the HitBench sound engine, a library a game could embed.
//!
//! The crate is layered; each layer uses only the layers above it in this list, and no
//! two modules depend on each other (a tidy test checks both):
//!
//! 1. [`toolchain`] — files into checked values: diagnostics, the file rule for data
//!    folders, the 96-opcode instruction set and register layouts, every HIT file format,
//!    the MakeTrax assembler and the disassembler, and loading a project (data folders,
//!    tables, late binding).
//! 2. [`runtime`] — the engine: events in, timed sound commands out; the VM, Box-X voices
//!    and the instance map, hit-list picks, the objects tracks read, traces. It makes no
//!    sound and reads no clock but its own.
//! 3. [`sound`] — making the sound: decoding audio, the resource cache, the mixer on the
//!    audio thread, the sound server that turns runtime commands into mixer commands, and
//!    the outputs (sound card, null, WAV).
//! 4. [`world`] — the world around the sounds: the lot, the view's volume and pan,
//!    stations, music modes, ambience, and the director that runs them.
//! 5. [`tools`] — what the workbench and `hitbench check` look at: the linter, live
//!    inspection views, and the hit-list editor's model.
//! 6. [`host`] — running it all: the command language, a session (engine + server +
//!    world), the live engine thread, the offline renderer and hot reload.
//!
//! This crate never depends on a UI toolkit.

pub mod host;
pub mod runtime;
pub mod sound;
pub mod toolchain;
pub mod tools;
pub mod world;
