//! The Resource-cache heatmap panel: every resource the cache holds as a cell sized by
//! its bytes and coloured by how recently it was used (a squarified treemap; hover a
//! cell for its numbers); the budget and what is used of it; hits and the three kinds of
//! miss, and evictions, over a time window the user chooses (10 s, 1 min, 5 min or all
//! of it); a thrashing warning; preloading a pattern with a
//! progress bar and a cancel button.
//!
//! Reads `ctx.live.cache` (the totals) and `ctx.live.cache_resources` (one row per
//! resource); the history of the totals is kept here, one point per new snapshot.
//! Preloading is asked of the engine with [`AppCommand::Preload`] and
//! [`AppCommand::CancelPreload`]; its progress comes back in `ctx.live.preload`.

use crate::{AppCommand, Panel, PanelContext, theme};
use engine_core::sound::cache::{CacheStats, MissKind, Residency, ResourceStats};
use std::collections::VecDeque;

/// Points of history kept: an hour at ten snapshots a second.
const HISTORY_LEN: usize = 36_000;

/// At most this many intervals are plotted; a longer window adds up neighbouring ones.
const PLOTTED_INTERVALS: usize = 600;

/// How much of the history the chart shows, counted back from the newest point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HistoryWindow {
    /// The last 10 seconds.
    TenSeconds,
    /// The last minute.
    #[default]
    OneMinute,
    /// The last 5 minutes.
    FiveMinutes,
    /// Everything kept.
    All,
}

impl HistoryWindow {
    /// Every window, in the order the panel offers them.
    pub const ALL: [HistoryWindow; 4] = [
        HistoryWindow::TenSeconds,
        HistoryWindow::OneMinute,
        HistoryWindow::FiveMinutes,
        HistoryWindow::All,
    ];

    /// Its length in seconds (`None`: all of the history).
    pub fn seconds(self) -> Option<u64> {
        match self {
            HistoryWindow::TenSeconds => Some(10),
            HistoryWindow::OneMinute => Some(60),
            HistoryWindow::FiveMinutes => Some(300),
            HistoryWindow::All => None,
        }
    }

    /// Its button's label.
    pub fn label(self) -> &'static str {
        match self {
            HistoryWindow::TenSeconds => "10 s",
            HistoryWindow::OneMinute => "1 min",
            HistoryWindow::FiveMinutes => "5 min",
            HistoryWindow::All => "all",
        }
    }
}

/// The cache's counters at one snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryPoint {
    /// Ticks completed at the snapshot.
    pub tick: u64,
    /// The engine's time at the snapshot, in milliseconds.
    pub millis: u64,
    /// Hits so far.
    pub hits: u64,
    /// Compulsory misses so far.
    pub compulsory: u64,
    /// Capacity misses so far.
    pub capacity: u64,
    /// Conflict misses so far.
    pub conflict: u64,
    /// Evictions so far.
    pub evictions: u64,
}

impl HistoryPoint {
    fn of(stats: &CacheStats, millis: u64) -> Self {
        Self {
            tick: stats.ticks,
            millis,
            hits: stats.hits,
            compulsory: stats.compulsory_misses,
            capacity: stats.capacity_misses,
            conflict: stats.conflict_misses,
            evictions: stats.evictions,
        }
    }

    /// The same counters, ignoring the tick.
    fn counters(&self) -> [u64; 5] {
        [
            self.hits,
            self.compulsory,
            self.capacity,
            self.conflict,
            self.evictions,
        ]
    }
}

/// UI state of the Resource-cache panel.
#[derive(Debug, Clone)]
pub struct CachePanel {
    /// The pattern to preload (`*` and `?` wildcards).
    pub pattern: String,
    /// The cache's counters at each snapshot that changed them (oldest first).
    pub history: VecDeque<HistoryPoint>,
    /// The engine's sample rate (frames per second): turns engine time into seconds.
    pub sample_rate: u32,
    /// How much of the history the chart shows.
    pub window: HistoryWindow,
}

impl Default for CachePanel {
    fn default() -> Self {
        Self {
            pattern: String::new(),
            history: VecDeque::new(),
            sample_rate: crate::mixer::DEFAULT_RATE,
            window: HistoryWindow::default(),
        }
    }
}

/// `bytes` as every panel and the status bar write a size: in binary units, by the one
/// formatter ([`engine_core::runtime::units::format_bytes`]).
pub fn format_bytes(bytes: usize) -> String {
    engine_core::runtime::units::format_bytes(bytes as u64)
}

/// Lays out `values` (sorted largest first, all positive) in `rect` as a squarified
/// treemap (Bruls, Huizing, van Wijk): rows of cells whose sides stay close to square.
/// Returns one rectangle per value, in the same order.
pub fn squarify(values: &[f64], rect: egui::Rect) -> Vec<egui::Rect> {
    let total: f64 = values.iter().sum();
    let area = f64::from(rect.width()) * f64::from(rect.height());
    if total <= 0.0 || area <= 0.0 {
        return vec![egui::Rect::from_min_size(rect.min, egui::Vec2::ZERO); values.len()];
    }
    let scaled: Vec<f64> = values.iter().map(|v| v / total * area).collect();
    let mut out = Vec::with_capacity(values.len());
    let mut free = rect;
    let mut row: Vec<f64> = Vec::new();
    let worst = |row: &[f64], side: f64| -> f64 {
        let sum: f64 = row.iter().sum();
        row.iter()
            .map(|&r| {
                let a = side * side * r / (sum * sum);
                let b = sum * sum / (side * side * r);
                a.max(b)
            })
            .fold(0.0, f64::max)
    };
    let mut index = 0;
    while index < scaled.len() {
        let value = scaled[index];
        let side = f64::from(free.width().min(free.height()));
        let mut with = row.clone();
        with.push(value);
        if row.is_empty() || worst(&with, side) <= worst(&row, side) {
            row = with;
            index += 1;
        } else {
            free = lay_row(&row, free, &mut out);
            row.clear();
        }
    }
    if !row.is_empty() {
        lay_row(&row, free, &mut out);
    }
    out
}

/// Places one row of cells along the short side of `free`; returns what is left.
fn lay_row(row: &[f64], free: egui::Rect, out: &mut Vec<egui::Rect>) -> egui::Rect {
    let sum: f64 = row.iter().sum();
    if free.width() >= free.height() {
        // A column on the left.
        let width = (sum / f64::from(free.height()).max(1e-9)) as f32;
        let mut y = free.min.y;
        for &v in row {
            let height = (v / f64::from(width).max(1e-9)) as f32;
            out.push(egui::Rect::from_min_size(
                egui::pos2(free.min.x, y),
                egui::vec2(width, height),
            ));
            y += height;
        }
        egui::Rect::from_min_max(egui::pos2(free.min.x + width, free.min.y), free.max)
    } else {
        // A row along the top.
        let height = (sum / f64::from(free.width()).max(1e-9)) as f32;
        let mut x = free.min.x;
        for &v in row {
            let width = (v / f64::from(height).max(1e-9)) as f32;
            out.push(egui::Rect::from_min_size(
                egui::pos2(x, free.min.y),
                egui::vec2(width, height),
            ));
            x += width;
        }
        egui::Rect::from_min_max(egui::pos2(free.min.x, free.min.y + height), free.max)
    }
}

fn miss_kind(kind: MissKind) -> &'static str {
    match kind {
        MissKind::Compulsory => "compulsory",
        MissKind::Capacity => "capacity",
        MissKind::Conflict => "conflict",
    }
}

/// What hovering a resource's cell says.
pub fn describe(resource: &ResourceStats) -> String {
    let residency = match resource.residency {
        Residency::Cached => "in the cache",
        Residency::Pinned => "evicted, still held (pinned)",
        Residency::Absent => "not in memory",
    };
    let mut text = format!(
        "{}\n{} · {residency}\nhits {} · misses {}{} · loads {} · evictions {}\nlast use #{}",
        resource.name,
        format_bytes(resource.size),
        resource.hits,
        resource.misses,
        resource
            .last_miss
            .map(|k| format!(" (last {})", miss_kind(k)))
            .unwrap_or_default(),
        resource.loads,
        resource.evictions,
        resource.last_use,
    );
    if let Some(at) = resource.last_used_at {
        text.push_str(&format!(" ({:.1} s ago)", at.elapsed().as_secs_f64()));
    }
    if resource.priority != 0 {
        text.push_str(&format!("\npriority {}", resource.priority));
    }
    if resource.over_budget {
        text.push_str("\nlarger than the whole budget: kept only while held");
    }
    if resource.loading {
        text.push_str("\nloading…");
    }
    if let Some(failure) = &resource.failure {
        text.push_str(&format!("\nlast load failed: {failure}"));
    }
    text
}

/// What the heatmap's colours, sizes and edges mean: a ramp from the resource used last
/// to the one used longest ago.
fn legend(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Colour: recency —");
        ui.label("used last");
        for step in 0..=8 {
            let (swatch, _) = ui.allocate_exact_size(egui::vec2(12.0, 14.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(swatch, 1.0, theme::heat(step as f32 / 8.0));
        }
        ui.label("used longest ago");
        ui.separator();
        ui.label("Size: bytes held");
        ui.separator();
        let (edge, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
        ui.painter().rect_stroke(
            edge.shrink(1.0),
            2.0,
            egui::Stroke::new(2.0, theme::PINNED_EDGE),
            egui::StrokeKind::Inside,
        );
        ui.label("pinned or over budget");
    });
}

/// A line of the history plot: its name, the counter it shows, its colour.
type Series = (&'static str, fn(&HistoryPoint) -> u64, egui::Color32);

impl CachePanel {
    /// Adds a history point when the counters moved.
    fn record(&mut self, stats: &CacheStats, now: engine_core::runtime::SampleTime) {
        let millis = now.samples() * 1000 / u64::from(self.sample_rate.max(1));
        let point = HistoryPoint::of(stats, millis);
        let changed = self
            .history
            .back()
            .is_none_or(|last| last.counters() != point.counters() || last.tick > point.tick);
        if changed {
            if self
                .history
                .back()
                .is_some_and(|last| last.tick > point.tick)
            {
                // The engine restarted: start a new history.
                self.history.clear();
            }
            self.history.push_back(point);
            while self.history.len() > HISTORY_LEN {
                self.history.pop_front();
            }
        }
    }

    fn budget_bar(ui: &mut egui::Ui, stats: &CacheStats) {
        let share = if stats.budget == 0 {
            0.0
        } else {
            stats.bytes_held as f32 / stats.budget as f32
        };
        ui.horizontal(|ui| {
            ui.label("Budget");
            ui.add(
                egui::ProgressBar::new(share.min(1.0))
                    .desired_width(260.0)
                    .text(format!(
                        "{} of {} ({:.0} %)",
                        format_bytes(stats.bytes_held),
                        format_bytes(stats.budget),
                        share * 100.0
                    )),
            );
        });
        ui.label(format!(
            "{} resident · {} pinned ({}) · {} loading · hit rate {:.1} % · hits {} · misses: {} compulsory, {} capacity, {} conflict · evictions {} ({} capacity, {} conflict)",
            stats.resident,
            stats.pinned,
            format_bytes(stats.pinned_bytes),
            stats.loading,
            stats.hit_rate() * 100.0,
            stats.hits,
            stats.compulsory_misses,
            stats.capacity_misses,
            stats.conflict_misses,
            stats.evictions,
            stats.capacity_evictions,
            stats.conflict_evictions,
        ));
        // One line whether or not it thrashes (the whole warning on hover): what is
        // below stays put when a warning comes. Thrashing now: a tick within the last
        // few seconds needed what it had just evicted for room (or used more than the
        // budget at once).
        let (text, colour) = if stats.thrashing_now {
            (
                format!(
                    "Warning: thrashing: samples evicted for room are needed again within seconds ({} capacity misses so far); what plays needs more than the budget of {}. Raise the budget or play fewer sounds at once. {} of {} ticks thrashed.",
                    stats.capacity_misses,
                    format_bytes(stats.budget),
                    stats.thrashing_ticks,
                    stats.ticks
                ),
                ui.visuals().error_fg_color,
            )
        } else if stats.thrashing_ticks > 0 {
            (
                format!(
                    "{} of {} ticks thrashed (working set over the budget)",
                    stats.thrashing_ticks, stats.ticks
                ),
                ui.visuals().warn_fg_color,
            )
        } else {
            (
                "No thrashing: what plays fits the budget".to_string(),
                ui.visuals().weak_text_color(),
            )
        };
        ui.add(crate::cut_label(egui::RichText::new(&text).color(colour)))
            .on_hover_text(text);
    }

    fn preload_ui(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        let running = ctx.live.preload.as_ref().filter(|p| !p.finished);
        ui.horizontal(|ui| {
            let label = ui.label("Preload");
            let response = ui
                .add(
                    egui::TextEdit::singleline(&mut self.pattern)
                        .hint_text("sounds/*.wav")
                        .desired_width(180.0),
                )
                .labelled_by(label.id);
            let enter = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let pattern = self.pattern.trim().to_owned();
            let start = ui
                .add_enabled(!pattern.is_empty(), egui::Button::new("Start preload"))
                .on_hover_text("Load every resource whose name matches (* and ? wildcards)")
                .clicked();
            if (start || enter) && !pattern.is_empty() {
                commands.push(AppCommand::Preload(pattern));
            }
            if running.is_some() && ui.button("Cancel").clicked() {
                commands.push(AppCommand::CancelPreload);
            }
        });
        let Some(preload) = &ctx.live.preload else {
            return;
        };
        let share = if preload.total == 0 {
            0.0
        } else {
            preload.done as f32 / preload.total as f32
        };
        let state = if !preload.finished {
            format!("preloading `{}`: {}", preload.pattern, preload.current)
        } else if preload.cancelled {
            format!("preload of `{}` cancelled", preload.pattern)
        } else {
            format!("preloaded `{}`", preload.pattern)
        };
        let errors = if preload.errors > 0 {
            format!(", {} failed", preload.errors)
        } else {
            String::new()
        };
        let left = if preload.finished {
            String::new()
        } else {
            let elapsed = std::time::Duration::from_millis(preload.elapsed_ms);
            format!(
                " · {}",
                crate::progress::progress_text(f64::from(share), elapsed)
            )
        };
        ui.add(
            egui::ProgressBar::new(share)
                .desired_width(ui.available_width().min(520.0))
                .text(format!(
                    "{state} — {}/{}{errors}{left}",
                    preload.done, preload.total
                )),
        );
    }

    fn heatmap(ui: &mut egui::Ui, resources: &[ResourceStats]) {
        let mut shown: Vec<&ResourceStats> = resources
            .iter()
            .filter(|r| r.size > 0 && r.residency != Residency::Absent)
            .collect();
        if shown.is_empty() {
            ui.label("Nothing in the cache yet.");
            return;
        }
        // Recency rank: 0 for the resource used last.
        let mut by_use: Vec<usize> = (0..shown.len()).collect();
        by_use.sort_by_key(|&i| std::cmp::Reverse(shown[i].last_use));
        let mut rank = vec![0usize; shown.len()];
        for (r, &i) in by_use.iter().enumerate() {
            rank[i] = r;
        }
        let mut order: Vec<usize> = (0..shown.len()).collect();
        order.sort_by(|&a, &b| shown[b].size.cmp(&shown[a].size).then(a.cmp(&b)));
        let ranks: Vec<usize> = order.iter().map(|&i| rank[i]).collect();
        shown = order.iter().map(|&i| shown[i]).collect();
        let height = ui.available_height().clamp(120.0, 320.0);
        let (rect, _) = ui.allocate_exact_size(
            egui::vec2(ui.available_width(), height),
            egui::Sense::hover(),
        );
        let values: Vec<f64> = shown.iter().map(|r| r.size as f64).collect();
        let cells = squarify(&values, rect);
        let last = (shown.len().max(2) - 1) as f32;
        let painter = ui.painter_at(rect);
        for ((resource, cell), r) in shown.iter().zip(&cells).zip(&ranks) {
            let heat = *r as f32 / last;
            let fill = theme::heat(heat);
            let inner = cell.shrink(1.0);
            painter.rect_filled(inner, 2.0, fill);
            if resource.residency == Residency::Pinned || resource.over_budget {
                painter.rect_stroke(
                    inner,
                    2.0,
                    egui::Stroke::new(2.0, theme::PINNED_EDGE),
                    egui::StrokeKind::Inside,
                );
            }
            // The name where the tile holds it on one line (else the name without its
            // folders and extension, else nothing: the hover names every tile).
            let text_color = theme::heat_label(heat);
            let font = egui::FontId::proportional(11.0);
            let fits = |g: &std::sync::Arc<egui::Galley>| {
                g.size().x + 6.0 <= inner.width() && g.size().y + 4.0 <= inner.height()
            };
            let file = resource.name.rsplit('/').next().unwrap_or(&resource.name);
            let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
            let label = [file, stem].into_iter().find_map(|name| {
                Some(painter.layout_no_wrap(name.to_owned(), font.clone(), text_color)).filter(fits)
            });
            if let Some(galley) = label {
                painter.galley(inner.min + egui::vec2(3.0, 2.0), galley, text_color);
            }
            let id = ui.make_persistent_id(("cache-cell", &resource.name));
            let response = ui.interact(*cell, id, egui::Sense::hover());
            let name = resource.name.clone();
            response
                .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Cell, true, name.clone()));
            response.on_hover_text(describe(resource));
        }
    }

    /// The history points in the chosen window, oldest first: those at most its length
    /// before the newest.
    pub fn plotted(&self) -> Vec<&HistoryPoint> {
        let newest = self.history.back().map_or(0, |p| p.millis);
        let from = self
            .window
            .seconds()
            .map_or(0, |s| newest.saturating_sub(s * 1000));
        let first = self.history.partition_point(|p| p.millis < from);
        self.history.range(first..).collect()
    }

    /// The window buttons and the chart of what happened in each interval of it.
    fn history_plot(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label("History of the last");
            for window in HistoryWindow::ALL {
                ui.selectable_value(&mut self.window, window, window.label());
            }
        });
        let points = self.plotted();
        if points.len() < 2 {
            return;
        }
        // Neighbouring intervals add up when the window holds more than can be drawn.
        let per_bar = (points.len() - 1).div_ceil(PLOTTED_INTERVALS).max(1);
        let series = |pick: fn(&HistoryPoint) -> u64| -> Vec<[f64; 2]> {
            let ends: Vec<&HistoryPoint> = points
                .iter()
                .copied()
                .step_by(per_bar)
                .chain(points.last().copied())
                .collect();
            ends.windows(2)
                .filter(|w| w[1].millis > w[0].millis || w[1].tick > w[0].tick)
                .map(|w| {
                    let (a, b) = (w[0], w[1]);
                    [
                        b.millis as f64 / 1000.0,
                        pick(b).saturating_sub(pick(a)) as f64,
                    ]
                })
                .collect()
        };
        let lines: [Series; 5] = [
            ("hits", |p| p.hits, theme::CACHE_HITS),
            (
                "compulsory misses",
                |p| p.compulsory,
                theme::CACHE_COMPULSORY,
            ),
            ("capacity misses", |p| p.capacity, theme::CACHE_CAPACITY),
            ("conflict misses", |p| p.conflict, theme::CACHE_CONFLICT),
            ("evictions", |p| p.evictions, theme::CACHE_EVICTIONS),
        ];
        let newest = points.last().map_or(0.0, |p| p.millis as f64 / 1000.0);
        let mut plot = egui_plot::Plot::new("cache-history")
            .height(140.0)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .include_y(0.0)
            .include_x(newest)
            .x_axis_label("engine time, s")
            .y_axis_label("count")
            .legend(egui_plot::Legend::default());
        if let Some(seconds) = self.window.seconds() {
            plot = plot.include_x((newest - seconds as f64).max(0.0));
        }
        plot.show(ui, |plot| {
            for (name, pick, color) in lines {
                plot.line(
                    egui_plot::Line::new(name, egui_plot::PlotPoints::from(series(pick)))
                        .color(color),
                );
            }
        });
    }
}

impl Panel for CachePanel {
    fn title(&self) -> &'static str {
        "Resource cache"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let Some(stats) = &ctx.live.cache else {
            ui.label("No cache statistics: the engine is not running.");
            self.preload_ui(ui, ctx, commands);
            return;
        };
        self.record(stats, ctx.live.now);
        Self::budget_bar(ui, stats);
        self.preload_ui(ui, ctx, commands);
        ui.separator();
        self.history_plot(ui);
        legend(ui);
        Self::heatmap(ui, &ctx.live.cache_resources);
    }
}
