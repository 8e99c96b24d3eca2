//! Tooltips show once. A one-line label cut at the pane's edge shows
//! its whole text on hover by itself; a label that also says something on hover showed
//! both tooltips at once. Each place that cuts a label and says more on hover — a trace
//! row, a problem's message, a name in the Browser — hovered while cut: one tooltip.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// Hovers the widget whose label contains `text` and, past egui's tooltip delay, counts
/// the tooltips up: egui gives each its own area.
fn tooltips_over<S>(harness: &mut Harness<'static, S>, text: &str) -> usize {
    match harness.query_by_label(text) {
        Some(exact) => exact.hover(),
        None => harness.get_by_label_contains(text).hover(),
    }
    for _ in 0..60 {
        harness.step();
    }
    harness.ctx.memory(|m| {
        m.areas()
            .visible_layer_ids()
            .iter()
            .filter(|layer| layer.order == egui::Order::Tooltip)
            .count()
    })
}

#[test]
fn a_cut_label_with_its_own_hover_text_shows_one_tooltip() {
    let mut cases: Vec<(&str, usize)> = Vec::new();
    // A trace row in a narrow pane (its text is cut).
    let mut traces =
        crate::traces::harness_with(crate::traces::demo_trace(), egui::vec2(420.0, 560.0));
    traces.run();
    cases.push(("trace row", tooltips_over(&mut traces, "stole voice 0")));
    // A long name in the Browser, cut in its column.
    let mut browser = crate::browser::harness();
    browser.set_size(egui::vec2(380.0, 640.0));
    crate::browser::search(&mut browser, "demolish");
    cases.push((
        "Browser name",
        tooltips_over(&mut browser, "ui_nhood_bdoze_demolish"),
    ));
    // A problem's message, cut in a narrow pane.
    let mut problems = crate::problems::harness("tooltip");
    problems.set_size(egui::vec2(380.0, 220.0));
    problems.run();
    cases.push(("problem", tooltips_over(&mut problems, "refers to track")));
    let doubled: Vec<String> = cases
        .iter()
        .filter(|(_, n)| *n != 1)
        .map(|(place, n)| format!("{place}: {n} tooltips"))
        .collect();
    assert!(doubled.is_empty(), "{}", doubled.join("\n"));
}
