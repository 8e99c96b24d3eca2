//! The resource-cache heatmap under egui_kittest, from hand-made cache statistics: one
//! cell per resource in memory with its numbers on hover, the budget bar, the thrashing
//! warning, the history of hits and misses, and preloading with progress and cancel.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::host::live::{LiveSnapshot, PreloadStatus};
use engine_core::sound::cache::{CacheStats, MissKind, Residency, ResourceStats};
use panels::{AppCommand, CachePanel, ContextData};

use crate::common;
type State = common::State<CachePanel>;

fn resource(name: &str, size: usize, last_use: u64, residency: Residency) -> ResourceStats {
    ResourceStats {
        name: name.into(),
        size,
        hits: last_use * 3,
        misses: 2,
        last_miss: Some(MissKind::Capacity),
        loads: 2,
        evictions: 1,
        last_use,
        last_used_at: None,
        priority: 0,
        residency,
        over_budget: false,
        loading: false,
        failure: None,
    }
}

/// A cache of a demo-like lot: music, ambience, voices and footsteps.
fn resources() -> Vec<ResourceStats> {
    vec![
        resource("music/buy_mode_1.ogg", 2_900_000, 40, Residency::Cached),
        resource("ambience/day_birds.wav", 1_300_000, 38, Residency::Cached),
        resource(
            "ambience/night_crickets.wav",
            1_100_000,
            12,
            Residency::Cached,
        ),
        resource("vox/greet_a.wav", 420_000, 36, Residency::Cached),
        resource("vox/greet_b.wav", 380_000, 30, Residency::Pinned),
        resource("vox/laugh.wav", 300_000, 20, Residency::Cached),
        resource("ui/click.wav", 24_000, 39, Residency::Cached),
        resource("ui/moneyback.wav", 90_000, 25, Residency::Cached),
        resource("steps/wood_1.wav", 60_000, 33, Residency::Cached),
        resource("steps/wood_2.wav", 58_000, 34, Residency::Cached),
        resource("steps/wood_3.wav", 61_000, 8, Residency::Cached),
        resource("tv/news_loop.wav", 800_000, 3, Residency::Cached),
        resource("gone/old.wav", 500_000, 1, Residency::Absent),
    ]
}

pub(crate) fn stats(ticks: u64, hits: u64, thrashed: bool) -> CacheStats {
    CacheStats {
        hits,
        compulsory_misses: 13,
        capacity_misses: ticks / 20,
        conflict_misses: ticks / 60,
        loads: 20,
        evictions: ticks / 15,
        capacity_evictions: ticks / 20,
        conflict_evictions: ticks / 60,
        bytes_held: 7_493_000,
        budget: 8 << 20,
        pinned_bytes: 380_000,
        resident: 11,
        pinned: 1,
        ticks,
        thrashing_ticks: if thrashed { 4 } else { 0 },
        // Thrashing a moment ago, not in the very last tick: the warning stays up.
        last_tick_thrashed: false,
        thrashing_now: thrashed,
        last_working_set_bytes: if thrashed { 9_100_000 } else { 3_000_000 },
        ..CacheStats::default()
    }
}

pub(crate) fn harness(thrashed: bool) -> Harness<'static, State> {
    let live = LiveSnapshot {
        cache: Some(stats(60, 100, thrashed)),
        cache_resources: resources(),
        ..LiveSnapshot::default()
    };
    let cx = ContextData {
        live,
        ..ContextData::default()
    };
    let mut harness = common::harness(CachePanel::default(), cx, egui::vec2(900.0, 640.0));
    harness.run();
    harness
}

#[test]
fn cells_for_resources_in_memory_with_their_numbers_on_hover() {
    let mut harness = harness(false);
    // One cell per resource in memory (the absent one has none).
    for r in resources() {
        let found = harness.query_by_label(&r.name).is_some();
        assert_eq!(found, r.residency != Residency::Absent, "{}", r.name);
    }
    harness.get_by_label("vox/greet_b.wav").hover();
    harness.run();
    harness.get_by_label_contains("evicted, still held (pinned)");
    harness.get_by_label_contains("hits 90 · misses 2 (last capacity) · loads 2 · evictions 1");
    harness.get_by_label_contains("last use #30");
}

#[test]
fn the_budget_bar_and_the_totals() {
    let harness = harness(false);
    harness.get_by_label_contains("7.1 MiB of 8 MiB (89 %)");
    harness.get_by_label_contains("11 resident · 1 pinned (371.1 KiB)");
    assert!(
        harness
            .query_by_label_contains("Warning: thrashing")
            .is_none()
    );
    harness.get_by_label_contains("No thrashing");
}

/// Every size the panel shows is in binary units, from the one formatter: the default
/// budget of 256 MiB reads "256 MiB" (not "268.4 MB"), a cell's size on hover too.
#[test]
fn sizes_are_in_mib_like_the_budget_they_are_set_in() {
    let mut harness = harness(true);
    harness.state_mut().cx.live.cache.as_mut().unwrap().budget =
        engine_core::world::cache_settings::DEFAULT_CACHE_BUDGET;
    harness.run();
    harness.get_by_label_contains("7.1 MiB of 256 MiB (3 %)");
    harness.get_by_label_contains("more than the budget of 256 MiB");
    harness.get_by_label("music/buy_mode_1.ogg").hover();
    harness.run();
    harness.get_by_label_contains("2.8 MiB · in the cache");
    let decimal = harness.query_all_by(|node| {
        node.label().is_some_and(|l| {
            [" MB", " KB", " GB"]
                .iter()
                .any(|unit| l.contains(&format!("{unit} ")) || l.ends_with(unit))
        })
    });
    assert_eq!(decimal.count(), 0, "a size in decimal units");
}

#[test]
fn thrashing_is_warned_about() {
    let harness = harness(true);
    harness.get_by_label_contains("Warning: thrashing: samples evicted for room are needed again");
    harness.get_by_label_contains("(3 capacity misses so far)");
    harness.get_by_label_contains("4 of 60 ticks thrashed");
}

#[test]
fn the_history_keeps_a_point_per_change() {
    let mut harness = harness(false);
    for step in 1..=5u64 {
        harness.state_mut().cx.live.cache = Some(stats(60 + step * 60, 100 + step * 40, false));
        harness.run();
    }
    // Unchanged counters add no point.
    harness.run();
    assert_eq!(harness.state().panel.history.len(), 6);
    let last = harness.state().panel.history.back().copied().unwrap();
    assert_eq!((last.tick, last.hits), (360, 300));
}

#[test]
fn preload_emits_its_command_shows_progress_and_cancels() {
    let mut harness = harness(false);
    harness.get_by_label("Preload").click();
    harness.run();
    harness.get_by_label("Preload").type_text("vox/*.wav");
    harness.run();
    harness.get_by_label("Start preload").click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::Preload("vox/*.wav".into())]
    );
    assert!(harness.query_by_label("Cancel").is_none());

    harness.state_mut().cx.live.preload = Some(PreloadStatus {
        pattern: "vox/*.wav".into(),
        done: 3,
        total: 8,
        current: "vox/greet_b.wav".into(),
        errors: 1,
        finished: false,
        cancelled: false,
        elapsed_ms: 1500,
    });
    harness.run();
    // U13: the time left, from the pace so far (3 of 8 in 1.5 s: 2.5 s more).
    harness.get_by_label_contains(
        "preloading `vox/*.wav`: vox/greet_b.wav — 3/8, 1 failed · 37 % · 2.5 s left",
    );
    harness.get_by_label("Cancel").click();
    harness.run();
    assert_eq!(
        harness.state().commands.last(),
        Some(&AppCommand::CancelPreload)
    );

    harness.state_mut().cx.live.preload = Some(PreloadStatus {
        pattern: "vox/*.wav".into(),
        done: 4,
        total: 8,
        current: "vox/laugh.wav".into(),
        errors: 1,
        finished: true,
        cancelled: true,
        elapsed_ms: 2000,
    });
    harness.run();
    harness.get_by_label_contains("preload of `vox/*.wav` cancelled — 4/8");
    assert!(harness.query_by_label_contains("left").is_none());
}

#[test]
fn snapshot() {
    let mut harness = harness(true);
    for step in 1..=40u64 {
        let hits = 100 + step * 9 + step * (step % 4);
        let mut s = stats(60 + step * 6, hits, true);
        s.compulsory_misses = 13 + step / 3;
        harness.state_mut().cx.live.cache = Some(s);
        harness.run();
    }
    harness.state_mut().cx.live.preload = Some(PreloadStatus {
        pattern: "vox/*.wav".into(),
        done: 5,
        total: 8,
        current: "vox/laugh.wav".into(),
        errors: 0,
        finished: false,
        cancelled: false,
        elapsed_ms: 900,
    });
    harness.state_mut().panel.pattern = "vox/*.wav".into();
    harness.run();
    harness.remove_cursor();
    harness.run();
    harness.snapshot("cache");
}

/// U10: a legend says what colours, sizes and edges mean; the history runs on engine
/// seconds; a tile too small for its name shows none (the hover names it).
#[test]
fn the_heatmap_has_a_legend_and_the_history_runs_in_seconds() {
    let mut harness = harness(false);
    harness.get_by_label("used last");
    harness.get_by_label("used longest ago");
    harness.get_by_label("pinned or over budget");
    harness.get_by_label("Size: bytes held");
    // Two seconds later, more hits: the point is filed at 2 s.
    harness.state_mut().cx.live.now = engine_core::runtime::SampleTime::from_samples(96_000);
    harness.state_mut().cx.live.cache = Some(stats(120, 140, false));
    harness.run();
    let last = harness.state().panel.history.back().copied().unwrap();
    assert_eq!(last.millis, 2_000);
}

/// The user chooses the history chart's time window (10 s, 1 min,
/// 5 min or all of it); the choice stays in the panel's state, and the chart plots the
/// points of that window only — even from a history longer than the old 600 points.
#[test]
fn the_history_chart_shows_the_window_the_user_chose() {
    let mut harness = harness(false);
    // Ten minutes of a counter moving ten times a second (6,000 points).
    let rate = u64::from(harness.state().panel.sample_rate);
    for step in 1..=6000u64 {
        harness.state_mut().cx.live.now =
            engine_core::runtime::SampleTime::from_samples(step * rate / 10);
        harness.state_mut().cx.live.cache = Some(stats(60 + step, 100 + step, false));
        harness.run_steps(1);
    }
    harness.run();
    let last = harness.state().panel.history.back().copied().unwrap();
    assert_eq!(last.millis, 600_000);
    for (label, seconds) in [
        ("10 s", Some(10)),
        ("1 min", Some(60)),
        ("5 min", Some(300)),
        ("all", None),
    ] {
        harness.get_by_label(label).click();
        harness.run();
        let panel = &harness.state().panel;
        assert_eq!(panel.window.seconds(), seconds, "{label}");
        let plotted = panel.plotted();
        let first = plotted.first().unwrap().millis;
        match seconds {
            Some(s) => {
                assert!(first >= last.millis - s * 1000, "{label}: from {first} ms");
                assert!(
                    first <= last.millis - s * 1000 + 100,
                    "{label}: from {first} ms"
                );
            }
            None => assert_eq!(first, panel.history.front().unwrap().millis, "all of it"),
        }
        assert_eq!(plotted.last().unwrap().millis, last.millis);
    }
}
