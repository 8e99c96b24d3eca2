//! Tests of the cache as the engine uses it, by subject: [`budget`] (budget, LRU,
//! priorities, misses, ticks), [`preload`], [`sources`] (sources, escapes, names,
//! reloads), [`loaders`] (choosing loaders, loading in the background, failures) and
//! [`threads`] (sharing the cache, dropping it).

mod budget;
mod loaders;
mod preload;
mod sources;
mod threads;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::sources::tests::{TempDir, write_zip};
use super::*;
use crate::sound::audio::MemoryBudget;

/// A directory holding `files`, each `size` bytes of a byte derived from its name.
fn fixture(tag: &str, files: &[(&str, usize)]) -> TempDir {
    let dir = TempDir::new(tag);
    for (name, size) in files {
        dir.file(name, &content(name, *size));
    }
    dir
}

fn content(name: &str, size: usize) -> Vec<u8> {
    let seed = name
        .bytes()
        .fold(0u8, |a, b| a.wrapping_mul(31).wrapping_add(b));
    vec![seed; size]
}

fn cache(dir: &TempDir, budget: usize) -> ResourceCache {
    let cache = ResourceCache::with_budget(budget);
    cache.add_directory(&dir.0).unwrap();
    cache
}

fn cached(cache: &ResourceCache, names: &[&str]) -> Vec<bool> {
    names.iter().map(|n| cache.is_cached(n)).collect()
}

/// Polls `try_get` until it is no longer `Loading` (or 10 s pass).
fn settle(cache: &ResourceCache, name: &str) -> Lookup {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match cache.try_get(name) {
            Lookup::Loading if Instant::now() < deadline => thread::sleep(Duration::from_millis(1)),
            other => return other,
        }
    }
}
