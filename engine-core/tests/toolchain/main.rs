//! Integration tests of the HIT toolchain: assembler, disassembler and formats together.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod diagnostics;
mod files;
mod late_bound;
mod opcodes;
mod roundtrip;
mod seed_examples;
mod support;
