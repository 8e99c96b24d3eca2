//! The Resource cache panel under a small budget: the demo's sounds do not all fit, so
//! samples are evicted for room and asked for again — capacity misses, counted in the
//! summary and coloured in the heatmap. With `HITBENCH_SCREENSHOTS=1` it also writes
//! `screenshots/cache-budget.png`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{SIZE, harness_for, screenshot, type_line, until_within, workspace};
use egui_kittest::kittest::Queryable;
use engine_core::sound::output::OutputChoice;
use hitbench::workbench::dock::Pane;
use hitbench::workbench::{EngineOptions, Workbench};
use std::time::Duration;

#[test]
fn a_small_budget_shows_capacity_misses_in_the_heatmap() {
    let config = std::env::temp_dir().join(format!("hitbench-app-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&config);
    let workbench = Workbench::with_options(
        Some(&workspace().join("projects/demo")),
        OutputChoice::Null,
        Some(config.clone()),
        EngineOptions {
            cache_budget: Some(400_000),
            ..EngineOptions::default()
        },
    );
    let mut harness = harness_for(workbench, SIZE);
    harness.run();
    harness.state_mut().show(Pane::Cache);
    harness.run();
    // Each sound once, then again: the first ones were evicted for the later ones.
    let lines = [
        "sev vox greet @1",
        "sev vox laugh @2",
        "sev vox hungry @3",
        "sev piano play @2",
        "sev baby cry @9",
        "ui ui moneyback",
        "sev door open @1",
    ];
    for _ in 0..3 {
        for line in lines {
            type_line(&mut harness, line);
        }
        std::thread::sleep(Duration::from_millis(300));
        harness.run();
    }
    until_within(
        &mut harness,
        "capacity misses",
        Duration::from_secs(30),
        |wb| {
            wb.live()
                .cache
                .as_ref()
                .is_some_and(|c| c.capacity_misses > 0)
        },
    );
    harness.state_mut().show(Pane::Cache);
    harness.run();
    harness.run();
    let stats = harness.state().live().cache.clone().unwrap();
    assert!(stats.budget <= 400_000, "{stats:?}");
    assert!(
        stats.evictions > 0 && stats.capacity_misses > 0,
        "{stats:?}"
    );
    // The summary says so, the heatmap's legend names the colour, and the cache says
    // it is thrashing: what was evicted for room is needed again a moment later.
    harness.get_by_label_contains(&format!("{} capacity, ", stats.capacity_misses));
    assert!(stats.thrashing_now, "{stats:?}");
    harness.get_by_label_contains("Warning: thrashing");
    screenshot(&mut harness, "cache-budget.png");
    drop(harness);
    let _ = std::fs::remove_dir_all(&config);
}
