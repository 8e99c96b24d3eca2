//! The panels under egui_kittest, one module per panel, linked as one test binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod banners;
mod browser;
mod cache;
mod common;
mod console;
mod decisions;
mod hitlists;
mod lot;
mod mixer;
mod problems;
mod properties;
mod threads;
mod tooltips;
mod traces;
mod voices;
mod volumes;
mod why;
