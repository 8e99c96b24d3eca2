//! Integration tests of the HIT runtime: project loading, the VM, dispatch, hit lists,
//! Box-X voices, faults and determinism, on a recording sink.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod determinism;
mod dispatch;
mod faults;
mod loading;
mod opcodes;
mod seed_examples;
mod shared;
mod support;
mod tuning;
mod voices;
