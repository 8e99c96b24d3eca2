//! The Hit-list editor's simulation: N picks from the selected list with a seed, as the
//! engine would pick them, and how often and how soon each entry came back (a table and
//! a bar chart).

use super::entries::resolve;
use super::{HitListsPanel, list_key};
use crate::{PanelContext, theme};
use engine_core::tools::hitlist_editor::{HitListView, PickStats, simulate};
use std::path::PathBuf;

impl HitListsPanel {
    /// The simulation of the selected list: picks and seed, and what the last run
    /// found (when it was of this list).
    pub(super) fn simulation_ui(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        view: &HitListView,
    ) {
        let key = list_key(view).unwrap_or_else(|| (PathBuf::new(), view.key.clone()));
        let ids: Vec<u32> = self
            .entries_of(view)
            .iter()
            .flat_map(|text| resolve(ctx.project, view, text).1)
            .map(|t| t.id)
            .collect();
        ui.horizontal(|ui| {
            let label = ui.label("Picks");
            ui.add(egui::TextEdit::singleline(&mut self.picks).desired_width(60.0))
                .labelled_by(label.id);
            let label = ui.label("Seed");
            ui.add(egui::TextEdit::singleline(&mut self.seed).desired_width(60.0))
                .labelled_by(label.id);
            if ui.button("Simulate").clicked() {
                match (
                    self.picks.trim().parse::<usize>(),
                    self.seed.trim().parse::<u64>(),
                ) {
                    (Ok(n), Ok(seed)) if n <= 10_000_000 => {
                        self.simulation = Some((key.clone(), ids.clone(), simulate(&ids, n, seed)));
                        self.simulation_error = None;
                    }
                    _ => {
                        self.simulation_error = Some(
                            "picks: a number up to 10,000,000; seed: a whole number".to_owned(),
                        );
                    }
                }
            }
        });
        if let Some(e) = &self.simulation_error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        let Some((sim_key, sim_ids, stats)) = &self.simulation else {
            return;
        };
        if sim_key != &key {
            return;
        }
        if sim_ids != &ids {
            ui.label("the list changed since this simulation: simulate again");
        }
        ui.label(format!(
            "{} picks, seed {}: back-to-back repeats {}, smallest gap {}, mean gap {}",
            stats.picks,
            stats.seed,
            stats.back_to_back,
            gap(stats.min_gap),
            mean_gap(stats.mean_gap)
        ));
        simulation_table(ui, stats);
        simulation_plot(ui, stats);
        let order: Vec<String> = stats.preview.iter().map(u32::to_string).collect();
        ui.label(format!("first picks: {}", order.join(" ")));
    }
}

/// A gap between picks, `–` when there was none.
fn gap(g: Option<usize>) -> String {
    g.map_or_else(|| "–".to_owned(), |g| g.to_string())
}

/// A mean gap between picks, `–` when there was none.
fn mean_gap(g: Option<f64>) -> String {
    g.map_or_else(|| "–".to_owned(), |g| format!("{g:.2}"))
}

/// How a simulation's picks fell, one row per ID.
fn simulation_table(ui: &mut egui::Ui, stats: &PickStats) {
    egui::Grid::new("hitlist-simulation")
        .striped(true)
        .num_columns(7)
        .show(ui, |ui| {
            for head in [
                "ID",
                "count",
                "share",
                "first pick",
                "mean gap",
                "min gap",
                "longest absence",
            ] {
                ui.strong(head);
            }
            ui.end_row();
            for row in &stats.entries {
                ui.label(row.value.to_string());
                ui.label(row.count.to_string());
                ui.label(format!("{:.1} %", row.share * 100.0));
                ui.label(gap(row.first_pick));
                ui.label(mean_gap(row.mean_gap));
                ui.label(gap(row.min_gap));
                ui.label(row.longest_absence.to_string());
                ui.end_row();
            }
        });
}

/// The simulation's counts as bars labelled with their IDs.
fn simulation_plot(ui: &mut egui::Ui, stats: &PickStats) {
    let bars: Vec<egui_plot::Bar> = stats
        .entries
        .iter()
        .enumerate()
        .map(|(i, row)| {
            egui_plot::Bar::new(i as f64, row.count as f64)
                .name(row.value.to_string())
                .width(0.7)
                .fill(theme::SIMULATION_BARS)
        })
        .collect();
    let ids_of_bars: Vec<u32> = stats.entries.iter().map(|r| r.value).collect();
    egui_plot::Plot::new("hitlist-simulation-plot")
        .height(110.0)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .include_y(0.0)
        .y_axis_label("count")
        .x_axis_formatter(move |mark, _| {
            // Bars stand at 0, 1, 2…: label them with their IDs.
            let index = mark.value.round();
            if (mark.value - index).abs() > 1e-6 || index < 0.0 {
                return String::new();
            }
            ids_of_bars
                .get(index as usize)
                .map(u32::to_string)
                .unwrap_or_default()
        })
        .show(ui, |plot| {
            plot.bar_chart(egui_plot::BarChart::new("picks", bars));
        });
}
