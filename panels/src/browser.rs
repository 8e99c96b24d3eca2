//! The Project browser: the project's events, tracks, patches, hit lists, sample files
//! and the world's stations in one searchable list, with a button to audition each and a
//! link to the line that defines it.
//!
//! Everything shown comes from what the project learnt when it loaded (a patch's sample
//! file was found or not then) and from the live world view (stations, the lot's
//! objects); the panel never looks at the disk. Auditioning is a console line:
//! `ui <event>` (or `sev <event> @<receiver>` for a TV or radio event), `play <patch>`,
//! `play <sample>`, `turnon <receiver> <station>`.

use crate::{Command, Panel, PanelContext, Selection, display_path};
use engine_core::toolchain::project::{
    EventDef, EventType, HitListDef, Origin, PatchDef, TrackDef,
};
use engine_core::world::director::StationView;
use engine_core::world::music::MusicMode;
use engine_core::world::{ObjectId, ObjectKind, WorldObject};
use std::collections::{BTreeMap, HashMap};

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

/// One sample file and the patches naming it.
#[derive(Debug)]
struct SampleRow<'a> {
    /// The name `play` takes: the resource-cache name when the file was found, else the
    /// path as written (with `/`).
    name: String,
    /// The patches naming it, by ID.
    patches: Vec<&'a PatchDef>,
    /// The file was found when the project loaded.
    found: bool,
}

/// The distinct sample files the project's patches name, by name.
fn sample_rows(patches: &BTreeMap<u32, PatchDef>) -> Vec<SampleRow<'_>> {
    let mut by_name: BTreeMap<String, SampleRow<'_>> = BTreeMap::new();
    for patch in patches.values() {
        let name = patch
            .resource
            .as_deref()
            .map_or_else(|| patch.path_text.replace('\\', "/"), str::to_owned);
        if name.is_empty() {
            continue;
        }
        let row = by_name.entry(name.to_lowercase()).or_insert(SampleRow {
            name,
            patches: Vec::new(),
            found: false,
        });
        row.found |= patch.file.is_some();
        row.patches.push(patch);
    }
    by_name.into_values().collect()
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

fn event_type_name(t: EventType) -> String {
    match t {
        EventType::Play => "Play".into(),
        EventType::Stop => "Stop".into(),
        EventType::Kill => "Kill".into(),
        EventType::UpdateVolPan => "UpdateVolPan".into(),
        EventType::KillAll => "KillAll".into(),
        EventType::KillInstance => "KillInstance".into(),
        EventType::TurnOnTv => "TurnOnTV".into(),
        EventType::TurnOffTv => "TurnOffTV".into(),
        EventType::SetMusicMode => "SetMusicMode".into(),
        EventType::PlayPiano => "PlayPiano".into(),
        EventType::Debug { trace, on } => {
            format!("Debug{trace:?}{}", if on { "On" } else { "Off" })
        }
        EventType::Other(n) => format!("type {n}"),
    }
}

/// What an event refers to: its track, station or music mode.
fn event_target(ctx: &PanelContext<'_>, event: &EventDef) -> String {
    match event.event_type {
        EventType::TurnOnTv | EventType::TurnOffTv => {
            let name = ctx
                .live
                .world
                .stations
                .iter()
                .find(|s| s.code == event.track_id)
                .map(|s| format!(" ({})", s.name))
                .unwrap_or_default();
            format!("station {}{name}", event.track_id)
        }
        EventType::SetMusicMode => match MusicMode::from_number(event.track_id) {
            Some(mode) => format!("mode {} ({})", event.track_id, mode.name()),
            None => format!("mode {}", event.track_id),
        },
        EventType::KillAll | EventType::Debug { .. } => String::new(),
        _ => match ctx.project.track(event.track_id) {
            Some(track) => format!("track 0x{:x} {}", track.id, track.name),
            None => format!("track 0x{:x} (not defined)", event.track_id),
        },
    }
}

fn event_hay(ctx: &PanelContext<'_>, event: &EventDef) -> String {
    format!(
        "{} {} {}",
        event.name,
        event_type_name(event.event_type),
        event_target(ctx, event)
    )
    .to_lowercase()
}

fn track_hay(track: &TrackDef) -> String {
    format!(
        "0x{:x} {} {} {}",
        track.id,
        track.id,
        track.name,
        track.control_group.name()
    )
    .to_lowercase()
}

fn patch_hay(patch: &PatchDef) -> String {
    format!(
        "{} 0x{:x} {} {}",
        patch.id, patch.id, patch.name, patch.path_text
    )
    .to_lowercase()
}

fn list_hay(list: &HitListDef, lookup: &Lookup<'_>) -> String {
    format!(
        "{} 0x{:x} {}",
        list.id,
        list.id,
        lookup.list_names.get(&list.id).copied().unwrap_or_default()
    )
    .to_lowercase()
}

fn sample_hay(sample: &SampleRow<'_>) -> String {
    let mut hay = sample.name.to_lowercase();
    for patch in &sample.patches {
        hay.push(' ');
        hay.push_str(&patch.name.to_lowercase());
    }
    hay
}

fn station_hay(station: &StationView, lookup: &Lookup<'_>) -> String {
    let mut hay = format!("{} {}", station.code, station.name);
    for id in &station.receivers {
        if let Some(o) = lookup.object(*id) {
            hay.push(' ');
            hay.push_str(&o.name);
        }
    }
    if let Some((file, list)) = &station.on_air {
        hay.push_str(&format!(" {} {list}", file.display()));
    }
    hay.to_lowercase()
}

/// The place to show for a definition: `file:line` relative to the project.
fn place(ctx: &PanelContext<'_>, origin: &Origin) -> String {
    let file = display_path(ctx.project, &origin.file);
    if origin.line > 0 {
        format!("{file}:{}", origin.line)
    } else {
        file
    }
}

/// Width of the action buttons.
const COLUMN_ACTION: f32 = 30.0;

/// Column widths of the list.
struct Columns {
    name: f32,
    place: f32,
    height: f32,
}

/// A fixed-width cell, left-aligned.
fn cell<R>(ui: &mut egui::Ui, width: f32, height: f32, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    ui.allocate_ui_with_layout(
        egui::vec2(width, height),
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.set_min_size(egui::vec2(width, height));
            ui.set_max_width(width);
            add(ui)
        },
    )
    .inner
}

/// A row's name: clickable when it selects something, highlighted when selected.
fn name_label(ui: &mut egui::Ui, text: &str, selected: bool, clickable: bool) -> egui::Response {
    let mut rich = egui::RichText::new(text);
    if selected {
        rich = rich.strong().color(ui.visuals().selection.stroke.color);
    }
    let label = egui::Label::new(rich).truncate();
    if clickable {
        ui.add(label.sense(egui::Sense::click()))
    } else {
        ui.add(label)
    }
}

/// Gives a widget the name assistive technology and tests know it by.
fn name_widget(response: &egui::Response, kind: egui::Role, name: &str) {
    response.widget_info(|| egui::WidgetInfo::labeled(kind, response.enabled(), name));
}

/// What the action button of a row does.
struct Action {
    /// The glyph on it.
    glyph: &'static str,
    /// Its accessible name.
    name: String,
    /// What it explains on hover.
    tip: String,
    /// The lines it runs (none: the button is disabled).
    lines: Vec<String>,
    /// Other choices in its context menu: (label, line).
    more: Vec<(String, String)>,
}

impl Action {
    fn new(name: String, tip: String, lines: Vec<String>) -> Self {
        Self {
            glyph: "Play",
            name,
            tip,
            lines,
            more: Vec::new(),
        }
    }
}

fn action_button(ui: &mut egui::Ui, action: Action, commands: &mut Vec<Command>) {
    let enabled = !action.lines.is_empty();
    let button = ui.add_enabled(
        enabled,
        egui::Button::new(action.glyph)
            .small()
            .min_size(egui::vec2(COLUMN_ACTION, 0.0)),
    );
    name_widget(&button, egui::Role::Button, &action.name);
    let button = if enabled {
        button.on_hover_text(&action.tip)
    } else {
        button.on_disabled_hover_text(&action.tip)
    };
    if button.clicked() {
        commands.extend(action.lines.iter().cloned().map(Command::RunLine));
    }
    if !action.more.is_empty() {
        button.context_menu(|ui| {
            for (label, line) in &action.more {
                if ui.button(label).clicked() {
                    commands.push(Command::RunLine(line.clone()));
                    ui.close();
                }
            }
        });
    }
}

/// A link to a definition's line (nothing when the place is unknown).
fn source_link(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    what: &str,
    origin: &Origin,
    commands: &mut Vec<Command>,
) {
    if origin.file.as_os_str().is_empty() {
        return;
    }
    let text = place(ctx, origin);
    let link = ui.add(egui::Link::new(&text));
    name_widget(&link, egui::Role::Link, &format!("Open {what} at {text}"));
    if link
        .on_hover_text(format!("Open {what} at {text}"))
        .clicked()
    {
        commands.push(Command::OpenSource {
            path: origin.file.clone(),
            line: origin.line,
        });
    }
}

impl BrowserPanel {
    fn event_row(
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        lookup: &Lookup<'_>,
        cols: &Columns,
        event: &EventDef,
        commands: &mut Vec<Command>,
    ) {
        let name = &event.name;
        let mut action = match event.event_type {
            EventType::TurnOnTv | EventType::TurnOffTv => {
                match lookup.receiver_for_event(event.track_id) {
                    Some(o) => Action::new(
                        format!("Play event {name}"),
                        format!(
                            "sev {name} @{}: a TV or radio event needs a receiver; this \
                             one is sent from {} (object {})",
                            o.id, o.name, o.id
                        ),
                        vec![format!("sev {name} @{}", o.id)],
                    ),
                    None => Action::new(
                        format!("Play event {name}"),
                        "A TV or radio event needs a receiver object, and the lot has none".into(),
                        Vec::new(),
                    ),
                }
            }
            _ => Action::new(
                format!("Play event {name}"),
                format!(
                    "ui {name}: plays it as a UI sound (centred, full volume, no source \
                     object). Right-click to play it from the controlled character \
                     instead (sev {name}), which a person's voice needs"
                ),
                vec![format!("ui {name}")],
            ),
        };
        action.more.push((
            format!("From the controlled character (sev {name})"),
            format!("sev {name}"),
        ));
        action
            .more
            .push((format!("As a UI sound (ui {name})"), format!("ui {name}")));
        action_button(ui, action, commands);
        let track = match event.event_type {
            EventType::Play
            | EventType::Stop
            | EventType::Kill
            | EventType::UpdateVolPan
            | EventType::KillInstance
            | EventType::PlayPiano
            | EventType::Other(_) => ctx.project.track(event.track_id),
            _ => None,
        };
        cell(ui, cols.name, cols.height, |ui| {
            let selected =
                track.is_some_and(|t| ctx.selection == Some(&Selection::Track(t.name.clone())));
            let label = name_label(ui, name, selected, track.is_some());
            if let Some(t) = track
                && label.on_hover_text("Select its track").clicked()
            {
                commands.push(Command::Select(Selection::Track(t.name.clone())));
            }
        });
        cell(ui, cols.place, cols.height, |ui| {
            source_link(ui, ctx, &format!("event {name}"), &event.origin, commands);
        });
        let mut details = event_type_name(event.event_type);
        let target = event_target(ctx, event);
        if !target.is_empty() {
            details.push_str(" — ");
            details.push_str(&target);
        }
        if event.implicit {
            details.push_str("  (made from its label)");
        }
        ui.add(egui::Label::new(details).truncate());
    }

    fn track_row(
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        cols: &Columns,
        track: &TrackDef,
        commands: &mut Vec<Command>,
    ) {
        let starter = ctx.project.events.values().find(|e| {
            e.track_id == track.id && matches!(e.event_type, EventType::Play | EventType::PlayPiano)
        });
        let action = match (starter, track.patch) {
            (Some(event), _) => Action::new(
                format!("Play track 0x{:x}", track.id),
                format!(
                    "ui {}: plays the event that starts this track as a UI sound",
                    event.name
                ),
                vec![format!("ui {}", event.name)],
            ),
            (None, Some(patch)) => Action::new(
                format!("Play track 0x{:x}", track.id),
                format!("play {patch}: no event starts this track; plays its patch"),
                vec![format!("play {patch}")],
            ),
            (None, None) => Action::new(
                format!("Play track 0x{:x}", track.id),
                "No event starts this track and it has no patch".into(),
                Vec::new(),
            ),
        };
        action_button(ui, action, commands);
        cell(ui, cols.name, cols.height, |ui| {
            let selected = ctx.selection == Some(&Selection::Track(track.name.clone()));
            let text = format!("0x{:x} {}", track.id, track.name);
            if name_label(ui, &text, selected, true)
                .on_hover_text("Select this track (the voices and threads panels show it)")
                .clicked()
            {
                commands.push(Command::Select(Selection::Track(track.name.clone())));
            }
        });
        cell(ui, cols.place, cols.height, |ui| {
            source_link(
                ui,
                ctx,
                &format!("track 0x{:x}", track.id),
                &track.origin,
                commands,
            );
        });
        ui.add(
            egui::Label::new(format!(
                "{} · priority {} · volume {}",
                track.control_group.name(),
                track.priority,
                track.volume
            ))
            .truncate(),
        );
        if let Some(code) = track.entry.and_then(|at| ctx.project.locate(at)) {
            ui.weak("code");
            source_link(
                ui,
                ctx,
                &format!("the code of track 0x{:x}", track.id),
                &code,
                commands,
            );
        } else if track.entry.is_none() {
            ui.weak("(simple: plays its sound once)");
        }
    }

    fn patch_row(
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        cols: &Columns,
        patch: &PatchDef,
        commands: &mut Vec<Command>,
    ) {
        let found = patch.file.is_some();
        let action = Action::new(
            format!("Play patch {}", patch.id),
            if found {
                format!("play {}: auditions the patch once as a UI sound", patch.id)
            } else {
                "Its sample file was not found when the project loaded".into()
            },
            if found {
                vec![format!("play {}", patch.id)]
            } else {
                Vec::new()
            },
        );
        action_button(ui, action, commands);
        cell(ui, cols.name, cols.height, |ui| {
            ui.add(egui::Label::new(format!("{} {}", patch.id, patch.name)).truncate());
        });
        cell(ui, cols.place, cols.height, |ui| {
            source_link(
                ui,
                ctx,
                &format!("patch {}", patch.id),
                &patch.origin,
                commands,
            );
        });
        let file = patch
            .resource
            .as_deref()
            .map_or_else(|| patch.path_text.replace('\\', "/"), str::to_owned);
        let mut text = file;
        if patch.looped {
            text.push_str(" · loops");
        }
        if patch.piano {
            text.push_str(" · piano");
        }
        if found {
            ui.add(egui::Label::new(text).truncate());
        } else {
            ui.add(
                egui::Label::new(
                    egui::RichText::new(format!("{text} (sample file missing)"))
                        .color(ui.visuals().error_fg_color),
                )
                .truncate(),
            );
        }
    }

    fn list_row(
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        lookup: &Lookup<'_>,
        cols: &Columns,
        list: &HitListDef,
        commands: &mut Vec<Command>,
    ) {
        // A list plays one of its patches: audition the first one that is a patch.
        let first = list
            .entries
            .iter()
            .find_map(|id| ctx.project.patches.get(id))
            .filter(|p| p.file.is_some());
        let action = Action::new(
            format!("Play hit list {}", list.id),
            match first {
                Some(p) => format!("play {}: auditions its first patch, {}", p.id, p.name),
                None => "None of its entries is a patch with a sample file".into(),
            },
            first
                .map(|p| vec![format!("play {}", p.id)])
                .unwrap_or_default(),
        );
        action_button(ui, action, commands);
        cell(ui, cols.name, cols.height, |ui| {
            let text = match lookup.list_names.get(&list.id) {
                Some(name) => format!("{} {name}", list.id),
                None => list.id.to_string(),
            };
            ui.add(egui::Label::new(text).truncate());
        });
        cell(ui, cols.place, cols.height, |ui| {
            source_link(
                ui,
                ctx,
                &format!("hit list {}", list.id),
                &list.origin,
                commands,
            );
        });
        let shown: Vec<String> = list.entries.iter().take(8).map(u32::to_string).collect();
        let more = if list.entries.len() > 8 { ", …" } else { "" };
        ui.add(
            egui::Label::new(format!(
                "{} entr{}: {}{more}",
                list.entries.len(),
                if list.entries.len() == 1 { "y" } else { "ies" },
                shown.join(", ")
            ))
            .truncate(),
        );
    }

    fn sample_row(
        ui: &mut egui::Ui,
        cols: &Columns,
        sample: &SampleRow<'_>,
        commands: &mut Vec<Command>,
    ) {
        let action = Action::new(
            format!("Play sample {}", sample.name),
            if sample.found {
                format!(
                    "play {}: auditions the file once as a UI sound",
                    sample.name
                )
            } else {
                "The file was not found when the project loaded".into()
            },
            if sample.found {
                vec![format!("play {}", sample.name)]
            } else {
                Vec::new()
            },
        );
        action_button(ui, action, commands);
        let width = cols.name + cols.place + ui.spacing().item_spacing.x;
        cell(ui, width, cols.height, |ui| {
            let text = egui::RichText::new(&sample.name);
            let text = if sample.found {
                text
            } else {
                text.color(ui.visuals().error_fg_color)
            };
            ui.add(egui::Label::new(text).truncate());
        });
        let names: Vec<String> = sample
            .patches
            .iter()
            .take(4)
            .map(|p| format!("{} {}", p.id, p.name))
            .collect();
        let more = if sample.patches.len() > 4 {
            ", …"
        } else {
            ""
        };
        let mut text = format!("patch {}{more}", names.join(", "));
        if !sample.found {
            text.push_str(" · missing");
        }
        ui.add(egui::Label::new(text).truncate());
    }

    fn station_row(
        ui: &mut egui::Ui,
        lookup: &Lookup<'_>,
        cols: &Columns,
        station: &StationView,
        commands: &mut Vec<Command>,
    ) {
        let code = station.code;
        let action = if station.receivers.is_empty() {
            match lookup.receiver_for(code) {
                Some(o) => Action {
                    glyph: "On",
                    ..Action::new(
                        format!("Turn on station {code}"),
                        format!(
                            "turnon {} {code}: switches on {}, which is tuned to it",
                            o.id, o.name
                        ),
                        vec![format!("turnon {} {code}", o.id)],
                    )
                },
                None => Action {
                    glyph: "On",
                    ..Action::new(
                        format!("Turn on station {code}"),
                        "No TV, radio or stereo of the lot is tuned to this station".into(),
                        Vec::new(),
                    )
                },
            }
        } else {
            let lines: Vec<String> = station
                .receivers
                .iter()
                .map(|id| format!("turnoff {id}"))
                .collect();
            Action {
                glyph: "Off",
                name: format!("Turn off station {code}"),
                tip: format!("{}: switches its receivers off", lines.join("; ")),
                lines,
                more: Vec::new(),
            }
        };
        action_button(ui, action, commands);
        cell(ui, cols.name, cols.height, |ui| {
            ui.add(egui::Label::new(format!("{code} {}", station.name)).truncate());
        });
        cell(ui, cols.place, cols.height, |ui| {
            let receivers: Vec<&str> = station
                .receivers
                .iter()
                .filter_map(|id| lookup.object(*id).map(|o| o.name.as_str()))
                .collect();
            if receivers.is_empty() {
                ui.weak("off");
            } else {
                ui.add(egui::Label::new(format!("on: {}", receivers.join(", "))).truncate());
            }
        });
        match &station.on_air {
            Some((file, list)) => {
                let name = file.file_name().map_or_else(
                    || file.display().to_string(),
                    |n| n.to_string_lossy().into(),
                );
                ui.add(egui::Label::new(format!("on air: {name} ({list})")).truncate());
            }
            None => {
                ui.weak("nothing on air");
            }
        }
    }
}

impl Panel for BrowserPanel {
    fn title(&self) -> &'static str {
        "Browser"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
        let project = ctx.project;
        let lookup = Lookup {
            list_names: ctx
                .hitlists
                .views
                .iter()
                .filter_map(|v| v.name.as_deref().map(|n| (v.id, n)))
                .collect(),
            objects: ctx.live.world.objects.iter().map(|(o, _)| o).collect(),
        };
        let samples = sample_rows(&project.patches);
        let stations = &ctx.live.world.stations;

        ui.horizontal_wrapped(|ui| {
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
            if !self.search.is_empty() && ui.small_button("Clear").clicked() {
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
        ui.separator();

        let terms: Vec<String> = self
            .search
            .to_lowercase()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let mut rows: Vec<Row<'_>> = Vec::new();
        for category in Category::ALL {
            let items: Vec<Row<'_>> = match category {
                Category::Events => project
                    .events
                    .values()
                    .filter(|e| matches_all(&terms, &event_hay(ctx, e)))
                    .map(Row::Event)
                    .collect(),
                Category::Tracks => project
                    .tracks
                    .values()
                    .filter(|t| matches_all(&terms, &track_hay(t)))
                    .map(Row::Track)
                    .collect(),
                Category::Patches => project
                    .patches
                    .values()
                    .filter(|p| matches_all(&terms, &patch_hay(p)))
                    .map(Row::Patch)
                    .collect(),
                Category::HitLists => project
                    .hit_lists
                    .values()
                    .filter(|l| matches_all(&terms, &list_hay(l, &lookup)))
                    .map(Row::HitList)
                    .collect(),
                Category::Samples => samples
                    .iter()
                    .filter(|s| matches_all(&terms, &sample_hay(s)))
                    .map(Row::Sample)
                    .collect(),
                Category::Stations => stations
                    .iter()
                    .filter(|s| matches_all(&terms, &station_hay(s, &lookup)))
                    .map(Row::Station)
                    .collect(),
            };
            let total = match category {
                Category::Events => project.events.len(),
                Category::Tracks => project.tracks.len(),
                Category::Patches => project.patches.len(),
                Category::HitLists => project.hit_lists.len(),
                Category::Samples => samples.len(),
                Category::Stations => stations.len(),
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
                        if !matches!(row, Row::Header { .. }) {
                            ui.add_space(ui.spacing().icon_width);
                        }
                        match row {
                            Row::Header {
                                category,
                                shown,
                                total,
                            } => {
                                let open = !self.is_collapsed(*category);
                                let count = if terms.is_empty() {
                                    format!("{total}")
                                } else {
                                    format!("{shown} of {total}")
                                };
                                let size = egui::Vec2::splat(ui.spacing().icon_width);
                                let (_, icon) = ui.allocate_exact_size(size, egui::Sense::click());
                                egui::collapsing_header::paint_default_icon(
                                    ui,
                                    if open { 1.0 } else { 0.0 },
                                    &icon,
                                );
                                let text = format!("{} ({count})", category.title());
                                let header = ui
                                    .add(
                                        egui::Button::new(egui::RichText::new(text).strong())
                                            .frame(false),
                                    )
                                    .on_hover_text(match (category, total) {
                                        (Category::Stations, 0) => {
                                            "The stations come from the running world \
                                             (world.ini): none while no engine runs"
                                        }
                                        _ if open => "Fold",
                                        _ => "Unfold",
                                    });
                                if header.clicked() || icon.clicked() {
                                    toggled = Some((*category, open));
                                }
                            }
                            Row::Event(e) => {
                                Self::event_row(ui, ctx, &lookup, &cols, e, commands);
                            }
                            Row::Track(t) => Self::track_row(ui, ctx, &cols, t, commands),
                            Row::Patch(p) => Self::patch_row(ui, ctx, &cols, p, commands),
                            Row::HitList(l) => {
                                Self::list_row(ui, ctx, &lookup, &cols, l, commands);
                            }
                            Row::Sample(s) => Self::sample_row(ui, &cols, s, commands),
                            Row::Station(s) => Self::station_row(ui, &lookup, &cols, s, commands),
                        }
                    });
                }
            });
        if let Some((category, open)) = toggled {
            self.set_collapsed(category, open);
        }
    }
}
