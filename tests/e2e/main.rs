//! End-to-end tests: the command line on real project files, and the tidy rules the
//! whole workspace follows.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod audio;
mod bom;
mod capture;
mod capture_trust;
mod capture_view;
mod cli;
mod decode;
mod disasm_inputs;
mod loudness;
mod outputs;
mod plugins;
mod qa;
mod render;
mod script_inputs;
mod tidy;
mod tour;
mod why;
mod xa;
