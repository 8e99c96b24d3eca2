//! The sound server (seed 000): turns what the runtime decides into mixer commands, and
//! offers the server's own features — sound groups, "two groups" selection sounds,
//! noise reduction by origin, and volume from distance.

pub mod bank;
