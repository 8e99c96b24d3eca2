//! What the workbench and the command line look at, beside playing:
//!
//! - [`compare`] — `hitbench compare`: two renders' loudness and peaks, and the first
//!   time they differ beyond a threshold.
//! - [`export`] — `hitbench decode`: an audio file decoded as the engine decodes it,
//!   written as 16-bit PCM WAV at its own rate and channels.
//! - [`check`] — `hitbench check`'s linter: rules over a loaded project.
//! - [`inspect`] — plain-data views of a live engine (threads, voice slots, the instance
//!   map, voice history) for the workbench's inspectors.
//! - [`why`] — one decision per trigger from the trace: verdict, occupants compared,
//!   picks, notes with their gain factors, end; and its explanation.
//! - [`diff`] — two runs of the same inputs compared decision by decision: other
//!   verdicts, picks, notes and gains.
//! - [`hitlist_editor`] — the hit-list editor's model: lists resolved to what they play,
//!   pick simulation, lossless edits of a `.hot` or `LIST` line.
//! - [`properties`] — the properties editor's model: a track's, patch's or event
//!   mapping's fields edited one at a time, saved losslessly into their line.

pub mod check;
pub mod compare;
pub mod diff;
pub mod export;
pub mod hitlist_editor;
pub mod inspect;
pub mod properties;
pub mod why;
