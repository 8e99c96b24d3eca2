//! The whole workbench window under egui_kittest: the live demo, the capture view, the QA
//! panel and the debugger, linked as one test binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cache;
mod capture;
mod common;
mod debugger;
mod mixing;
mod outputs;
mod progress;
mod properties;
mod qa;
mod status_bar;
mod walkthrough;
mod workbench;
