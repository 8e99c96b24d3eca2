//! The toolchain: files into checked values, with every problem as a diagnostic that
//! names `file:line:col`.
//!
//! - [`diag`] — the diagnostic type every reader reports through; [`fsrules`] — which
//!   files a data folder may give and how they are read (walks, links, sizes).
//! - [`isa`] — the 96 opcodes (one table: the [`isa::Opcode`] enum, mnemonics, operand
//!   kinds); [`registers`] and [`symbols`] — variable numbering of both register layouts
//!   and the built-in names standing in for Maxis' `defaultsyms.txt`.
//! - [`formats`] — every HIT file format (`.hit`, `.hot`, `.hsm`, `.evt`, hit lists,
//!   `.fsc`) and HitBench's `.sym` and `.hdb`.
//! - [`asm`] — the MakeTrax assembler; [`disasm`] — `.hit` back to source that
//!   reassembles byte for byte.
//! - [`project`] — a project: its data folders read, sources assembled, tables resolved
//!   into events, tracks, patches and hit lists, late symbols bound.

pub mod asm;
pub mod diag;
pub mod disasm;
pub mod formats;
pub mod fsrules;
pub mod isa;
pub mod par;
pub mod project;
pub mod registers;
pub mod suggest;
pub mod symbols;
