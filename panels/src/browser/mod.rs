//! The Project browser: the project's events, tracks, patches, hit lists, sample files
//! and the world's stations in one searchable list, with a button to audition each and a
//! link to the line that defines it.
//!
//! Everything shown comes from what the project learnt when it loaded (a patch's sample
//! file was found or not then) and from the live world view (stations, the lot's
//! objects); the panel never looks at the disk. Auditioning is a console line:
//! `ui <event>` (or `sev <event> @<receiver>` for a TV or radio event), `play <patch>`,
//! `play <sample>`, `turnon <receiver> <station>`. **Stop** ends what the Browser
//! started: `stop` (the samples and UI sounds auditioned) and `quiet` of each object it
//! played an event from.
//!
//! This file holds the panel's state, the search and the list; one file per kind of
//! item draws its rows and says what a search matches in it (`events`, `tracks`,
//! `patches` with the sample files, `lists`, `stations`); `widgets` has the parts every
//! row is made of.

mod events;
mod lists;
mod patches;
mod stations;
mod tracks;
mod widgets;

use crate::{AppCommand, Panel, PanelContext};
use engine_core::host::command::Command;
use engine_core::toolchain::project::{EventDef, HitListDef, PatchDef, TrackDef};
use engine_core::world::director::StationView;
use engine_core::world::{ObjectId, ObjectKind, WorldObject};
use patches::SampleRow;
use std::collections::{BTreeSet, HashMap};
use widgets::Columns;

/// A kind of thing the browser lists, one collapsible section each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Named events.
    Events,
    /// Tracks.
    Tracks,
    /// Patches.
    Patches,
    /// Global hit lists.
    HitLists,
    /// The distinct sample files the patches name.
    Samples,
    /// The world's stations.
    Stations,
}

impl Category {
    /// Every category, in the order the browser shows them.
    pub const ALL: [Category; 6] = [
        Category::Events,
        Category::Tracks,
        Category::Patches,
        Category::HitLists,
        Category::Samples,
        Category::Stations,
    ];

    /// The section's title.
    pub fn title(self) -> &'static str {
        match self {
            Category::Events => "Events",
            Category::Tracks => "Tracks",
            Category::Patches => "Patches",
            Category::HitLists => "Hit lists",
            Category::Samples => "Samples",
            Category::Stations => "Stations",
        }
    }

    fn index(self) -> usize {
        match self {
            Category::Events => 0,
            Category::Tracks => 1,
            Category::Patches => 2,
            Category::HitLists => 3,
            Category::Samples => 4,
            Category::Stations => 5,
        }
    }
}

/// UI state of the Project browser.
#[derive(Debug, Clone, Default)]
pub struct BrowserPanel {
    /// Only items whose text contains every word of this (case-insensitive) are shown.
    pub search: String,
    /// Sections folded shut, by [`Category::ALL`] order.
    pub collapsed: [bool; 6],
    /// The objects the Browser played an event from since its last Stop (Stop quiets
    /// them).
    pub played_from: BTreeSet<ObjectId>,
}

impl BrowserPanel {
    /// Whether a section is folded shut.
    pub fn is_collapsed(&self, category: Category) -> bool {
        self.collapsed[category.index()]
    }

    /// Folds a section shut or opens it.
    pub fn set_collapsed(&mut self, category: Category, collapsed: bool) {
        self.collapsed[category.index()] = collapsed;
    }
}

/// One line of the list.
enum Row<'a> {
    Header {
        category: Category,
        shown: usize,
        total: usize,
    },
    Event(&'a EventDef),
    Track(&'a TrackDef),
    Patch(&'a PatchDef),
    HitList(&'a HitListDef),
    Sample(&'a SampleRow<'a>),
    Station(&'a StationView),
}

/// What the rows read besides the project.
struct Lookup<'a> {
    /// Hit-list names by ID (from the hit-list views).
    list_names: HashMap<u32, &'a str>,
    /// The lot's objects.
    objects: Vec<&'a WorldObject>,
}

impl Lookup<'_> {
    fn object(&self, id: ObjectId) -> Option<&WorldObject> {
        self.objects.iter().copied().find(|o| o.id == id)
    }

    /// The lot's TVs, radios and stereos.
    fn receivers(&self) -> impl Iterator<Item = &WorldObject> {
        self.objects.iter().copied().filter(|o| {
            matches!(
                o.kind,
                ObjectKind::Tv | ObjectKind::Radio | ObjectKind::Stereo
            )
        })
    }

    /// A TV, radio or stereo of the lot tuned to `code` (switched on or off).
    fn receiver_for(&self, code: u32) -> Option<&WorldObject> {
        self.receivers().find(|o| o.station == Some(code))
    }

    /// A receiver to use for a kTurnOnTV / kTurnOffTV event: one tuned to its station,
    /// else any TV, radio or stereo.
    fn receiver_for_event(&self, code: u32) -> Option<&WorldObject> {
        self.receiver_for(code).or_else(|| self.receivers().next())
    }
}

/// True if `hay` (lower-case) contains every term.
fn matches_all(terms: &[String], hay: &str) -> bool {
    terms.iter().all(|t| hay.contains(t.as_str()))
}

impl BrowserPanel {
    /// Stop, the search box and the fold buttons. Stop comes first and is always there,
    /// so it never moves.
    fn search_bar(&mut self, ui: &mut egui::Ui, commands: &mut Vec<AppCommand>) {
        ui.horizontal_wrapped(|ui| {
            let quiets: Vec<String> = self.played_from.iter().map(|o| format!("@{o}")).collect();
            let tip = if quiets.is_empty() {
                "Stop what the Browser played: `stop` ends the samples and UI sounds \
                 auditioned"
                    .to_string()
            } else {
                format!(
                    "Stop what the Browser played: `stop` ends the samples and UI sounds \
                     auditioned, and `quiet` the objects events were played from ({})",
                    quiets.join(" ")
                )
            };
            if ui.button("Stop").on_hover_text(tip).clicked() {
                commands.push(AppCommand::Run(Command::Stop));
                let played_from = std::mem::take(&mut self.played_from);
                commands.extend(
                    played_from
                        .into_iter()
                        .map(|object| AppCommand::Run(Command::Quiet(object))),
                );
            }
            ui.separator();
            let label = ui.label("Search");
            ui.add(
                egui::TextEdit::singleline(&mut self.search)
                    .hint_text("name, ID, type, file…")
                    .desired_width((ui.available_width() - 50.0).clamp(80.0, 220.0)),
            )
            .labelled_by(label.id)
            .on_hover_text(
                "Shows the items whose name, ID, type or file contains every word typed \
                 (case-insensitive)",
            );
            // Always there (greyed with nothing typed): the buttons after it stay put.
            let clear = egui::Button::new("Clear").small();
            if ui.add_enabled(!self.search.is_empty(), clear).clicked() {
                self.search.clear();
            }
            ui.separator();
            if ui.small_button("Expand all").clicked() {
                self.collapsed = [false; 6];
            }
            if ui.small_button("Collapse all").clicked() {
                self.collapsed = [true; 6];
            }
        });
    }

    /// The lines of the list: a header per category, then, unless it is folded, its
    /// items that match every term.
    fn rows<'a>(
        &self,
        ctx: &PanelContext<'a>,
        lookup: &Lookup<'a>,
        samples: &'a [SampleRow<'a>],
        terms: &[String],
    ) -> Vec<Row<'a>> {
        let project = ctx.project;
        let world_stations = &ctx.live.world.stations;
        let mut rows: Vec<Row<'a>> = Vec::new();
        for category in Category::ALL {
            let items: Vec<Row<'a>> = match category {
                Category::Events => project
                    .events
                    .values()
                    .filter(|e| matches_all(terms, &events::event_hay(ctx, e)))
                    .map(Row::Event)
                    .collect(),
                Category::Tracks => project
                    .tracks
                    .values()
                    .filter(|t| matches_all(terms, &tracks::track_hay(t)))
                    .map(Row::Track)
                    .collect(),
                Category::Patches => project
                    .patches
                    .values()
                    .filter(|p| matches_all(terms, &patches::patch_hay(p)))
                    .map(|p| Row::Patch(p))
                    .collect(),
                Category::HitLists => project
                    .hit_lists
                    .values()
                    .filter(|l| matches_all(terms, &lists::list_hay(l, lookup)))
                    .map(Row::HitList)
                    .collect(),
                Category::Samples => samples
                    .iter()
                    .filter(|s| matches_all(terms, &patches::sample_hay(s)))
                    .map(Row::Sample)
                    .collect(),
                Category::Stations => world_stations
                    .iter()
                    .filter(|s| matches_all(terms, &stations::station_hay(s, lookup)))
                    .map(Row::Station)
                    .collect(),
            };
            let total = match category {
                Category::Events => project.events.len(),
                Category::Tracks => project.tracks.len(),
                Category::Patches => project.patches.len(),
                Category::HitLists => project.hit_lists.len(),
                Category::Samples => samples.len(),
                Category::Stations => world_stations.len(),
            };
            rows.push(Row::Header {
                category,
                shown: items.len(),
                total,
            });
            if !self.is_collapsed(category) {
                rows.extend(items);
            }
        }
        rows
    }

    /// A category's header: a fold icon and its title with how many items it shows.
    /// Returns the category and whether it was open when it is clicked.
    fn header(
        &self,
        ui: &mut egui::Ui,
        category: Category,
        count: String,
        total: usize,
    ) -> Option<(Category, bool)> {
        let open = !self.is_collapsed(category);
        let size = egui::Vec2::splat(ui.spacing().icon_width);
        let (_, icon) = ui.allocate_exact_size(size, egui::Sense::click());
        egui::collapsing_header::paint_default_icon(ui, if open { 1.0 } else { 0.0 }, &icon);
        let text = format!("{} ({count})", category.title());
        let header = ui
            .add(egui::Button::new(egui::RichText::new(text).strong()).frame(false))
            .on_hover_text(match (category, total) {
                (Category::Stations, 0) => {
                    "The stations come from the running world \
                     (world.ini): none while no engine runs"
                }
                _ if open => "Fold",
                _ => "Unfold",
            });
        (header.clicked() || icon.clicked()).then_some((category, open))
    }
}

/// An item's row, drawn by the file for its kind.
fn item_row(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    lookup: &Lookup<'_>,
    cols: &Columns,
    row: &Row<'_>,
    commands: &mut Vec<AppCommand>,
) {
    match row {
        Row::Header { .. } => {}
        Row::Event(e) => events::event_row(ui, ctx, lookup, cols, e, commands),
        Row::Track(t) => tracks::track_row(ui, ctx, cols, t, commands),
        Row::Patch(p) => patches::patch_row(ui, ctx, cols, p, commands),
        Row::HitList(l) => lists::list_row(ui, ctx, lookup, cols, l, commands),
        Row::Sample(s) => patches::sample_row(ui, cols, s, commands),
        Row::Station(s) => stations::station_row(ui, lookup, cols, s, commands),
    }
}

impl Panel for BrowserPanel {
    fn title(&self) -> &'static str {
        "Browser"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let lookup = Lookup {
            list_names: ctx
                .hitlists
                .views
                .iter()
                .filter_map(|v| v.name.as_deref().map(|n| (v.id, n)))
                .collect(),
            objects: ctx.live.world.objects.iter().map(|(o, _)| o).collect(),
        };
        let samples = patches::sample_rows(&ctx.project.patches);

        self.search_bar(ui, commands);
        ui.separator();
        let sent = commands.len();

        let terms: Vec<String> = self
            .search
            .to_lowercase()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let rows = self.rows(ctx, &lookup, &samples, &terms);
        let height = ui.spacing().interact_size.y + 2.0;
        let width = ui.available_width();
        let cols = Columns {
            name: (width * 0.28).clamp(110.0, 280.0),
            place: (width * 0.18).clamp(80.0, 170.0),
            height,
        };
        let mut toggled = None;
        egui::ScrollArea::vertical()
            .id_salt("browser rows")
            .auto_shrink([false, false])
            .show_rows(ui, height, rows.len(), |ui, range| {
                for row in rows.get(range).unwrap_or_default() {
                    ui.horizontal(|ui| {
                        ui.set_min_height(height);
                        if let Row::Header {
                            category,
                            shown,
                            total,
                        } = row
                        {
                            let count = if terms.is_empty() {
                                format!("{total}")
                            } else {
                                format!("{shown} of {total}")
                            };
                            toggled = self.header(ui, *category, count, *total).or(toggled);
                        } else {
                            ui.add_space(ui.spacing().icon_width);
                            item_row(ui, ctx, &lookup, &cols, row, commands);
                        }
                    });
                }
            });
        if let Some((category, open)) = toggled {
            self.set_collapsed(category, open);
        }
        // The objects events were played from this frame: Stop quiets them.
        for command in commands.get(sent..).unwrap_or_default() {
            if let AppCommand::Run(Command::SoundEvent {
                object: Some(object),
                ..
            }) = command
            {
                self.played_from.insert(*object);
            }
        }
    }
}
