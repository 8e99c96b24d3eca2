//! The Lot view's curves: each object's volume and pan over the last
//! [`HISTORY_SECONDS`] of engine time, recorded once per new snapshot, and the two
//! egui_plot plots that show them for the selected or every sounding object.

use super::{LotPanel, Sounding, object_name};
use crate::{PanelContext, theme};
use egui::Color32;
use egui_plot::{Corner, Legend, Line, Plot, PlotPoints};
use engine_core::world::ObjectId;
use engine_core::world::director::WorldView;
use std::collections::BTreeSet;

/// How much volume and pan history the plots keep, in seconds of engine time.
pub const HISTORY_SECONDS: f64 = 10.0;

/// At most this many history points per object (the oldest go first).
const HISTORY_CAP: usize = 4096;

/// One point of an object's volume and pan history.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryPoint {
    /// Engine time in seconds.
    pub time: f64,
    /// Volume 0–1024.
    pub volume: i32,
    /// Pan 0 (left) – 512 – 1024 (right).
    pub pan: i32,
}

/// Which objects the plots show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlotChoice {
    /// The selected object (or every sounding one when none is selected).
    #[default]
    Selected,
    /// Every sounding object.
    Sounding,
}

impl LotPanel {
    /// The volume and pan history of object `id`, oldest first.
    pub fn history(&self, id: ObjectId) -> Vec<HistoryPoint> {
        self.history
            .get(&id)
            .map(|h| h.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Appends a history point per object when the engine's time has moved on, and
    /// forgets points older than [`HISTORY_SECONDS`] and objects no longer on the lot.
    pub(super) fn record(&mut self, now: u64, world: &WorldView) {
        if self.last_now == Some(now) {
            return;
        }
        if self.last_now.is_some_and(|last| now < last) {
            // Time went back: a new engine or project.
            self.history.clear();
        }
        self.last_now = Some(now);
        let t = self.seconds(now);
        let present: BTreeSet<ObjectId> = world.objects.iter().map(|(o, _)| o.id).collect();
        self.history.retain(|id, _| present.contains(id));
        for (object, p) in &world.objects {
            let h = self.history.entry(object.id).or_default();
            h.push_back(HistoryPoint {
                time: t,
                volume: p.volume,
                pan: p.pan,
            });
            while h.len() > HISTORY_CAP || h.front().is_some_and(|f| f.time < t - HISTORY_SECONDS) {
                h.pop_front();
            }
        }
    }

    fn seconds(&self, now: u64) -> f64 {
        now as f64 / f64::from(self.sample_rate.max(1))
    }

    /// The volume and pan curves of the objects chosen.
    pub(super) fn plots(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, sounding: &Sounding) {
        let world = &ctx.live.world;
        ui.horizontal(|ui| {
            ui.label(format!("Volume and pan, last {HISTORY_SECONDS:.0} s:"));
            ui.radio_value(&mut self.plot, PlotChoice::Selected, "Selected object");
            ui.radio_value(&mut self.plot, PlotChoice::Sounding, "All sounding");
        });
        let ids: Vec<ObjectId> = match (self.plot, self.selected) {
            (PlotChoice::Selected, Some(id)) => vec![id],
            _ => sounding.ids().into_iter().collect(),
        };
        let now = self.last_now.map_or(0.0, |n| self.seconds(n));
        let series = |value: fn(&HistoryPoint) -> f64| -> Vec<(String, Color32, Vec<[f64; 2]>)> {
            ids.iter()
                .map(|id| {
                    let points = self
                        .history
                        .get(id)
                        .map(|h| h.iter().map(|p| [p.time - now, value(p)]).collect())
                        .unwrap_or_default();
                    (object_name(world, *id), theme::object(*id), points)
                })
                .collect()
        };
        // Volume 0–1 and pan −1…1, as every panel shows them.
        let volume = series(|p| f64::from(p.volume) / 1024.0);
        let pan = series(|p| f64::from(crate::hit_pan(p.pan)));
        let width = ((ui.available_width() - 8.0) / 2.0).max(80.0);
        let height = ui.available_height().max(80.0);
        ui.horizontal(|ui| {
            for (title, lines, id, range) in [
                ("Volume 0–1", volume, "lot-volume", -0.04..=1.06),
                ("Pan −1 … +1", pan, "lot-pan", -1.08..=1.08),
            ] {
                Plot::new(id)
                    .width(width)
                    .height(height)
                    .legend(Legend::default().position(Corner::LeftTop))
                    .allow_drag(false)
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .allow_boxed_zoom(false)
                    .x_axis_label("seconds")
                    .y_axis_label(title)
                    .show(ui, |plot| {
                        plot.set_plot_bounds_x(-HISTORY_SECONDS..=0.0);
                        plot.set_plot_bounds_y(range.clone());
                        for (name, colour, points) in lines {
                            plot.line(Line::new(name, PlotPoints::from(points)).color(colour));
                        }
                    });
            }
        });
    }
}
