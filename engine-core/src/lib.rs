//! engine-core — the HitBench sound engine, a library a game could embed.
//!
//! How the parts fit:
//! - [`formats`] reads and writes every HIT file format (`.hit`, `.hot`, `.hsm`, `.evt`,
//!   hit lists, `.fsc`) and HitBench's own `.sym` (late-bound symbols) and `.hdb` (debug
//!   line info).
//! - [`isa`] is the 96-opcode instruction set: numbering, operand kinds, decoding.
//! - [`registers`] and [`symbols`] name the variables of both register layouts and the
//!   built-in constants that stand in for Maxis' `defaultsyms.txt`.
//! - [`asm`] assembles Maxis MakeTrax source; [`disasm`] turns a `.hit` back into source
//!   that reassembles byte for byte.
//! - [`project`] loads a data directory: finds its sources and assembles them.
//! - [`diag`] is the diagnostic type every parser reports through.
//! - [`fsrules`] decides which files may be read from a data folder, and how (links,
//!   depth, regular files only, size limits), for every part that reads one.
//!
//! This crate never depends on a UI toolkit.

pub mod asm;
pub mod audio;
pub mod cache;
pub mod check;
pub mod command;
pub mod diag;
pub mod disasm;
pub mod formats;
pub mod fsrules;
pub mod hitlists;
pub mod inspect;
pub mod isa;
pub mod live;
pub mod mixer;
pub mod offline;
pub mod output;
pub mod project;
pub mod registers;
pub mod reload;
pub mod runtime;
pub mod server;
pub mod session;
mod suggest;
pub mod symbols;
pub mod world;
