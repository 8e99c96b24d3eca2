//! HitBench, the application: the command line ([`cli`]) and the workbench window.
//!
//! Everything that touches files, processes and the window lives here; the engine is
//! `engine-core` and the panels are `panels`.

pub mod cli;
pub mod workbench;
