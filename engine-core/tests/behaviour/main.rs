//! engine-core's behaviour tests, one module per subsystem, linked as one test binary
//! (one link instead of one per file keeps the build short). `mixer` and `sample_memory`
//! stay binaries of their own: each installs a counting global allocator that must see
//! only its own test's allocations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod ambience;
mod audio_fixtures;
mod auditions;
mod cache_budget;
mod check;
mod debugger;
mod hitlists;
mod inspect;
mod live_audition;
mod live_commands;
mod meters;
mod monitor;
mod packs;
mod plugins;
mod qa;
mod qa_notices;
mod qa_trust;
mod reload;
mod reload_live;
mod render_progress;
mod rooms;
mod savelot;
mod server;
mod server_sounds;
mod shortcuts;
mod special_files;
mod stations_music;
#[path = "../runtime/support.rs"]
#[allow(dead_code)]
mod support;
mod typed_trace;
mod view;
mod why;
mod world;
mod world_voices;
