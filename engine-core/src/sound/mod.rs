//! Making the sound: everything between the runtime's timed commands and the speaker.
//!
//! - [`audio`] — sample buffers and the decoders (WAV, MP3, Ogg Vorbis, FLAC), with
//!   limits on decoded size and a memory budget asked before allocating.
//! - [`cache`] — the resource cache: samples by name from folders and zip packs, within a
//!   byte budget, with LRU eviction, preloading and statistics.
//! - [`mixer`] — the audio thread: timed commands in through a ring, voices resampled and
//!   mixed into the option groups, nothing locked or allocated.
//! - [`server`] — the sound server: runtime commands into mixer commands, samples through
//!   the cache (or streamed), sound groups and the other features of a threaded sound
//!   server.
//! - [`streamer`] — decodes long sounds into rings the mixer's voices read, on its own
//!   thread live and on the caller's thread offline.
//! - [`output`] — where the mixer plays: the sound card, a null output on a timer, a WAV
//!   file.

pub mod audio;
pub mod cache;
pub mod mixer;
pub mod output;
pub mod server;
pub mod streamer;
