//! Readers and writers for the HIT file formats (hit-reference §2) and HitBench's own
//! `.sym` and `.hdb`.
//!
//! Binary formats return a `Result` with their own error type (`HitError`, `HitListError`,
//! …); text formats return the parsed value
//! together with every diagnostic found, and keep going after an error.

pub mod evt;
pub mod fsc;
pub mod hdb;
pub mod hit;
pub mod hitlist;
pub mod hot;
pub mod hsm;
pub mod number;
pub mod records;
pub mod sym;
pub mod text;
