//! Running it all:
//!
//! - [`capture`] — capture files: a session's inputs, settings, project hashes and
//!   decisions, to replay and compare.
//! - [`keyframe`] — what the inspectors showed at a moment, kept in a capture.
//! - [`command`] — the command language of the console, render scripts and `play`.
//! - [`session`] — one engine, one sound server and one world director ticked together;
//!   it applies hot reloads.
//! - [`live`] — the live engine: a session on its own thread ahead of the audio output,
//!   with snapshots for the workbench.
//! - [`qa`] — QA scripts: render scripts with expectations.
//! - [`offline`] — a script rendered into a WAV file, bit for bit the same every time.
//! - [`timeline`] — a capture shown as it was at any moment (the workbench's capture
//!   view).
//! - [`replay`] — a capture's inputs run again against the project as it is now, and
//!   the decisions that differ.
//! - [`reload`] — watching the data folders and loading what changed, on its own thread.

pub mod capture;
pub mod command;
pub mod keyframe;
pub mod live;
pub mod offline;
pub mod qa;
pub mod reload;
pub mod replay;
pub mod session;
pub mod timeline;
