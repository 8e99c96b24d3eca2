//! The dock: every panel is a tab in an egui_tiles tree that the user rearranges by
//! dragging; the tree is saved with the settings so the layout survives a restart.

use panels::{
    AppCommand, BrowserPanel, CachePanel, CapturePanel, ConsolePanel, HitListsPanel, LotPanel,
    MixerPanel, Panel, PanelContext, ProblemsPanel, QaPanel, SourceViewPanel, SourcesPanel,
    ThreadsPanel, TracesPanel, VoicesPanel, WhyPanel,
};
use serde::{Deserialize, Serialize};

/// One kind of panel (a pane of the tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Pane {
    /// The project's sources and labels.
    Sources,
    /// A source file, scrolled to a line.
    Source,
    /// The cheat console.
    Console,
    /// Every load, assemble, decode and runtime problem.
    Problems,
    /// The trace records: events, samples, tracks, voice decisions, errors.
    Traces,
    /// The voice slots as rows and lanes over time, steals, refusals, the instance map.
    Voices,
    /// The live VM threads: PC, source line, registers; faults.
    Threads,
    /// Every hit list: entries, what they play, edits, the pick simulation.
    HitLists,
    /// The resource cache as a heatmap: budget, hits and misses, evictions, preload.
    Cache,
    /// The lot from above: objects, the screen, the full-volume area and the fade band;
    /// volume and pan with their reasons and curves.
    Lot,
    /// FX / Music / VOX and master volumes, peak meters, the output.
    Mixer,
    /// The project browser: events, tracks, patches, hit lists, samples, stations;
    /// search, audition, jump to source.
    Browser,
    /// "Why can't I hear it?": the decisions about an event, object, voice or record —
    /// verdicts with the voices compared, picks, each note's gain factor by factor.
    Why,
    /// The fields of a track, patch or event mapping, edited live and saved into their
    /// line.
    Properties,
    /// The open capture: what it was made with, its inputs, the diff against the
    /// project now.
    Capture,
    /// The project's QA scripts: run them, see each expectation, open a failure; save
    /// the console history as a script.
    Qa,
}

impl Pane {
    /// Every pane, in the order the View menu lists them.
    pub const ALL: [Pane; 16] = [
        Pane::Sources,
        Pane::Source,
        Pane::Console,
        Pane::Problems,
        Pane::Traces,
        Pane::Voices,
        Pane::Threads,
        Pane::HitLists,
        Pane::Cache,
        Pane::Lot,
        Pane::Mixer,
        Pane::Browser,
        Pane::Why,
        Pane::Properties,
        Pane::Capture,
        Pane::Qa,
    ];
}

/// The panels' UI state, one of each.
#[derive(Default)]
pub struct Panels {
    /// Sources.
    pub sources: SourcesPanel,
    /// Source view.
    pub source: SourceViewPanel,
    /// Console.
    pub console: ConsolePanel,
    /// Problems.
    pub problems: ProblemsPanel,
    /// Traces.
    pub traces: TracesPanel,
    /// Voices and instance map.
    pub voices: VoicesPanel,
    /// Track threads.
    pub threads: ThreadsPanel,
    /// Hit-list editor.
    pub hitlists: HitListsPanel,
    /// Resource-cache heatmap.
    pub cache: CachePanel,
    /// Lot view.
    pub lot: LotPanel,
    /// Mixer.
    pub mixer: MixerPanel,
    /// Project browser.
    pub browser: BrowserPanel,
    /// Why.
    pub why: WhyPanel,
    /// Properties.
    pub properties: panels::PropertiesPanel,
    /// The open capture.
    pub capture: CapturePanel,
    /// QA scripts.
    pub qa: QaPanel,
}

impl Panels {
    /// The panel behind a pane.
    pub fn get(&mut self, pane: Pane) -> &mut dyn Panel {
        match pane {
            Pane::Sources => &mut self.sources,
            Pane::Source => &mut self.source,
            Pane::Console => &mut self.console,
            Pane::Problems => &mut self.problems,
            Pane::Traces => &mut self.traces,
            Pane::Voices => &mut self.voices,
            Pane::Threads => &mut self.threads,
            Pane::HitLists => &mut self.hitlists,
            Pane::Cache => &mut self.cache,
            Pane::Lot => &mut self.lot,
            Pane::Mixer => &mut self.mixer,
            Pane::Browser => &mut self.browser,
            Pane::Why => &mut self.why,
            Pane::Properties => &mut self.properties,
            Pane::Capture => &mut self.capture,
            Pane::Qa => &mut self.qa,
        }
    }
}

/// The left group of the first layout (the Source pane joins it when a file is opened).
const LEFT_GROUP: [Pane; 5] = [
    Pane::Lot,
    Pane::Browser,
    Pane::Sources,
    Pane::HitLists,
    Pane::Source,
];

/// The top right group of the first layout.
const TOP_GROUP: [Pane; 7] = [
    Pane::Voices,
    Pane::Threads,
    Pane::Why,
    Pane::Properties,
    Pane::Mixer,
    Pane::Cache,
    Pane::Capture,
];

/// The bottom right panes of the first layout: the console's group, then the traces.
const BOTTOM_GROUP: [Pane; 4] = [Pane::Console, Pane::Problems, Pane::Qa, Pane::Traces];

/// The layout of a first run, showing the work: the lot view (with the browser, the
/// sources and the hit lists as tabs beside it) on the left; on the right the voices
/// (with the track threads, Why, the properties, the mixer, the cache and the capture) above the console
/// (with problems and QA) and the traces side by side. The Source pane is not there: it
/// appears, beside the lot view, when there is a file to show.
pub fn default_layout() -> egui_tiles::Tree<Pane> {
    let mut tiles = egui_tiles::Tiles::default();
    let tabs = |tiles: &mut egui_tiles::Tiles<Pane>, panes: &[Pane]| {
        let children = panes.iter().map(|p| tiles.insert_pane(*p)).collect();
        tiles.insert_tab_tile(children)
    };
    let left = tabs(&mut tiles, &LEFT_GROUP[..4]);
    let top = tabs(&mut tiles, &TOP_GROUP);
    let console = tabs(&mut tiles, &BOTTOM_GROUP[..3]);
    let traces = tabs(&mut tiles, &[Pane::Traces]);
    let bottom = tiles.insert_container(egui_tiles::Linear::new_binary(
        egui_tiles::LinearDir::Horizontal,
        [console, traces],
        0.5,
    ));
    let right = tiles.insert_container(egui_tiles::Linear::new_binary(
        egui_tiles::LinearDir::Vertical,
        [top, bottom],
        0.5,
    ));
    let root = tiles.insert_container(egui_tiles::Linear::new_binary(
        egui_tiles::LinearDir::Horizontal,
        [left, right],
        0.42,
    ));
    egui_tiles::Tree::new(egui::Id::unique("hitbench-dock"), root, tiles)
}

/// Where a pane goes back to when it is shown again and nothing is remembered of where
/// it was: a tab beside the first of these panes that is in the layout.
fn neighbours(pane: Pane) -> &'static [Pane] {
    [&LEFT_GROUP[..], &TOP_GROUP, &BOTTOM_GROUP]
        .into_iter()
        .find(|group| group.contains(&pane))
        .unwrap_or(&TOP_GROUP)
}

/// Where closed panes were: the pane each was a tab beside when it was closed.
#[derive(Debug, Clone, Default)]
pub struct ClosedPanes {
    beside: std::collections::BTreeMap<Pane, Pane>,
}

impl ClosedPanes {
    /// Remembers where the pane of tile `closed` is in `tiles`, as it closes.
    pub(super) fn closing(&mut self, tiles: &egui_tiles::Tiles<Pane>, closed: egui_tiles::TileId) {
        let Some(egui_tiles::Tile::Pane(pane)) = tiles.get(closed) else {
            return;
        };
        let sibling = tiles
            .parent_of(closed)
            .and_then(|parent| match tiles.get(parent) {
                Some(egui_tiles::Tile::Container(c)) => Some(c.children_vec()),
                _ => None,
            })
            .unwrap_or_default()
            .into_iter()
            .filter(|id| *id != closed)
            .find_map(|id| match tiles.get(id) {
                Some(egui_tiles::Tile::Pane(p)) => Some(*p),
                _ => None,
            });
        match sibling {
            Some(sibling) => {
                self.beside.insert(*pane, sibling);
            }
            None => {
                self.beside.remove(pane);
            }
        }
    }
}

/// Adds `pane` to the layout if it is not there, or makes it the visible tab if it is.
/// A pane coming back goes where it was (beside a pane it was a tab with), else beside
/// its usual neighbours, else into the largest group of tabs — never around the layout.
pub fn show_pane(tree: &mut egui_tiles::Tree<Pane>, pane: Pane) {
    show_pane_remembered(tree, pane, &ClosedPanes::default());
}

/// [`show_pane`], putting a closed pane back where `closed` remembers it.
pub fn show_pane_remembered(tree: &mut egui_tiles::Tree<Pane>, pane: Pane, closed: &ClosedPanes) {
    if let Some(id) = tree.tiles.find_pane(&pane) {
        tree.make_active(|tile_id, _| tile_id == id);
        return;
    }
    let new = tree.tiles.insert_pane(pane);
    let wanted = closed.beside.get(&pane).into_iter().chain(neighbours(pane));
    let group = wanted
        .filter_map(|beside| tree.tiles.find_pane(beside))
        .find_map(|id| tabs_of(tree, id))
        .or_else(|| largest_tabs(tree));
    match (group, tree.root()) {
        (Some(group), _) => {
            if let Some(egui_tiles::Tile::Container(c)) = tree.tiles.get_mut(group) {
                c.add_child(new);
            }
        }
        (None, Some(root)) => {
            // No group of tabs at all: the pane goes beside the layout, not around it.
            match tree.tiles.get_mut(root) {
                Some(egui_tiles::Tile::Container(c))
                    if c.kind() != egui_tiles::ContainerKind::Tabs =>
                {
                    let tabs = tree.tiles.insert_tab_tile(vec![new]);
                    if let Some(egui_tiles::Tile::Container(c)) = tree.tiles.get_mut(root) {
                        c.add_child(tabs);
                    }
                }
                _ => {
                    let tabs = tree.tiles.insert_tab_tile(vec![new]);
                    let split = tree.tiles.insert_container(egui_tiles::Linear::new_binary(
                        egui_tiles::LinearDir::Horizontal,
                        [root, tabs],
                        0.5,
                    ));
                    tree.root = Some(split);
                }
            }
        }
        (None, None) => {
            let tabs = tree.tiles.insert_tab_tile(vec![new]);
            tree.root = Some(tabs);
        }
    }
    tree.make_active(|tile_id, _| tile_id == new);
}

/// The group of tabs holding tile `id`, if its parent is one.
fn tabs_of(tree: &egui_tiles::Tree<Pane>, id: egui_tiles::TileId) -> Option<egui_tiles::TileId> {
    let parent = tree.tiles.parent_of(id)?;
    match tree.tiles.get(parent) {
        Some(egui_tiles::Tile::Container(c)) if c.kind() == egui_tiles::ContainerKind::Tabs => {
            Some(parent)
        }
        _ => None,
    }
}

/// The visible group of tabs with the most room on screen last frame (the first one,
/// before anything was drawn).
fn largest_tabs(tree: &egui_tiles::Tree<Pane>) -> Option<egui_tiles::TileId> {
    let mut best: Option<(f32, egui_tiles::TileId)> = None;
    for (id, tile) in tree.tiles.iter() {
        if let egui_tiles::Tile::Container(c) = tile
            && c.kind() == egui_tiles::ContainerKind::Tabs
            && tree.tiles.is_visible(*id)
        {
            let area = tree.tiles.rect(*id).map_or(0.0, |r| r.area());
            if best.is_none_or(|(a, _)| area > a) {
                best = Some((area, *id));
            }
        }
    }
    best.map(|(_, id)| id)
}

/// Undoes a drop that made a group of tabs hold a split. egui_tiles offers "add as a
/// tab" over every tile, the splits and the root included, so a tab dropped near the
/// middle of one would wrap the whole split (or the whole layout) in a new group of tabs.
/// The dropped panel goes instead as a tab into the group under `pointer` (the group
/// whose tab bar or panel the hand was over), else the largest; the wrapper goes. True
/// if the tree changed.
pub fn unwrap_split_tabs(tree: &mut egui_tiles::Tree<Pane>, pointer: Option<egui::Pos2>) -> bool {
    use egui_tiles::{Container, Tile};
    let is_container = |tree: &egui_tiles::Tree<Pane>, id: &egui_tiles::TileId| {
        matches!(tree.tiles.get(*id), Some(Tile::Container(_)))
    };
    let wrappers: Vec<egui_tiles::TileId> = tree
        .tiles
        .iter()
        .filter_map(|(id, tile)| match tile {
            Tile::Container(Container::Tabs(tabs))
                if tabs.children.iter().any(|c| is_container(tree, c)) =>
            {
                Some(*id)
            }
            _ => None,
        })
        .collect();
    for wrapper in &wrappers {
        let Some(Tile::Container(Container::Tabs(tabs))) = tree.tiles.get(*wrapper) else {
            continue;
        };
        let (splits, panes): (Vec<_>, Vec<_>) = tabs
            .children
            .iter()
            .copied()
            .partition(|c| is_container(tree, c));
        // The split takes the wrapper's place.
        let [split] = splits[..] else {
            continue;
        };
        match tree.tiles.parent_of(*wrapper) {
            Some(parent) => {
                if let Some(Tile::Container(container)) = tree.tiles.get_mut(parent) {
                    let _ = container.replace_child(*wrapper, split);
                }
            }
            None => tree.root = Some(split),
        }
        tree.tiles.remove(*wrapper);
        for pane in panes {
            let target = group_at(tree, pointer).or_else(|| largest_tabs(tree));
            if let Some(Tile::Container(container)) = target.and_then(|t| tree.tiles.get_mut(t)) {
                container.add_child(pane);
            }
            tree.make_active(|id, _| id == pane);
        }
    }
    !wrappers.is_empty()
}

/// The group of tabs (holding panels only) whose place on screen last frame holds `pos`.
fn group_at(tree: &egui_tiles::Tree<Pane>, pos: Option<egui::Pos2>) -> Option<egui_tiles::TileId> {
    let pos = pos?;
    tree.tiles.iter().find_map(|(id, tile)| match tile {
        egui_tiles::Tile::Container(egui_tiles::Container::Tabs(tabs))
            if tree.tiles.is_visible(*id)
                && tabs
                    .children
                    .iter()
                    .all(|c| matches!(tree.tiles.get(*c), Some(egui_tiles::Tile::Pane(_))))
                && tree.tiles.rect(*id).is_some_and(|r| r.contains(pos)) =>
        {
            Some(*id)
        }
        _ => None,
    })
}

/// Draws the panes: each panel gets the context and pushes its commands.
pub struct Behavior<'a> {
    /// The panels.
    pub panels: &'a mut Panels,
    /// What they read.
    pub context: &'a PanelContext<'a>,
    /// What they ask for.
    pub commands: &'a mut Vec<AppCommand>,
    /// Where closed panes were.
    pub closed: &'a mut ClosedPanes,
}

impl egui_tiles::Behavior<Pane> for Behavior<'_> {
    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile_id: egui_tiles::TileId,
        pane: &mut Pane,
    ) -> egui_tiles::UiResponse {
        egui::Frame::NONE
            .inner_margin(egui::Margin::same(6))
            .show(ui, |ui| {
                self.panels.get(*pane).ui(ui, self.context, self.commands);
            });
        egui_tiles::UiResponse::None
    }

    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        self.panels.get(*pane).title().into()
    }

    /// A group inside a group of tabs is named by the panels in it, not by its kind.
    fn tab_title_for_tile(
        &mut self,
        tiles: &egui_tiles::Tiles<Pane>,
        tile_id: egui_tiles::TileId,
    ) -> egui::WidgetText {
        let mut titles = Vec::new();
        let mut stack = vec![tile_id];
        while let Some(id) = stack.pop() {
            match tiles.get(id) {
                Some(egui_tiles::Tile::Pane(pane)) => titles.push(self.panels.get(*pane).title()),
                Some(egui_tiles::Tile::Container(c)) => {
                    stack.extend(c.children_vec().into_iter().rev());
                }
                None => {}
            }
        }
        titles.join(" · ").into()
    }

    fn on_tab_close(
        &mut self,
        tiles: &mut egui_tiles::Tiles<Pane>,
        tile_id: egui_tiles::TileId,
    ) -> bool {
        self.closed.closing(tiles, tile_id);
        true
    }

    fn is_tab_closable(
        &self,
        _tiles: &egui_tiles::Tiles<Pane>,
        _tile_id: egui_tiles::TileId,
    ) -> bool {
        true
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions {
            all_panes_must_have_tabs: true,
            join_nested_linear_containers: true,
            flatten_tabs_in_tabs: true,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(tree: &egui_tiles::Tree<Pane>, pane: Pane) -> usize {
        tree.tiles
            .tiles()
            .filter(|t| matches!(t, egui_tiles::Tile::Pane(p) if *p == pane))
            .count()
    }

    /// The panes in the group of tabs that holds `pane`.
    fn group_of(tree: &egui_tiles::Tree<Pane>, pane: Pane) -> Vec<Pane> {
        let id = tree.tiles.find_pane(&pane).unwrap();
        let group = tabs_of(tree, id).expect("the pane is a tab in a group of tabs");
        let Some(egui_tiles::Tile::Container(c)) = tree.tiles.get(group) else {
            panic!("not a container");
        };
        c.children()
            .filter_map(|id| match tree.tiles.get(*id) {
                Some(egui_tiles::Tile::Pane(p)) => Some(*p),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_default_layout_has_every_pane_once_but_the_source() {
        let tree = default_layout();
        for pane in Pane::ALL {
            let expected = usize::from(pane != Pane::Source);
            assert_eq!(count(&tree, pane), expected, "{pane:?}");
        }
    }

    #[test]
    fn the_first_screen_shows_the_lot_the_voices_the_console_and_the_traces() {
        let tree = default_layout();
        for pane in [Pane::Lot, Pane::Voices, Pane::Console, Pane::Traces] {
            let id = tree.tiles.find_pane(&pane).unwrap();
            assert!(tree.tiles.is_visible(id), "{pane:?}");
            let group = tabs_of(&tree, id).unwrap();
            let Some(egui_tiles::Tile::Container(egui_tiles::Container::Tabs(tabs))) =
                tree.tiles.get(group)
            else {
                panic!("not tabs");
            };
            assert_eq!(tabs.active, Some(id), "{pane:?} is its group's visible tab");
        }
    }

    #[test]
    fn showing_a_closed_pane_brings_it_back_as_a_tab_where_it_was() {
        let mut tree = default_layout();
        let root = tree.root();
        let mut closed = ClosedPanes::default();
        let id = tree.tiles.find_pane(&Pane::Problems).unwrap();
        closed.closing(&tree.tiles, id);
        tree.remove_recursively(id);
        assert_eq!(count(&tree, Pane::Problems), 0);
        show_pane_remembered(&mut tree, Pane::Problems, &closed);
        assert_eq!(
            tree.root(),
            root,
            "the layout is not wrapped in a new group"
        );
        assert!(group_of(&tree, Pane::Problems).contains(&Pane::Console));
        // Showing it again does not duplicate it.
        show_pane_remembered(&mut tree, Pane::Problems, &closed);
        assert_eq!(count(&tree, Pane::Problems), 1);
    }

    #[test]
    fn a_pane_moved_by_hand_comes_back_beside_its_new_neighbours() {
        let mut tree = default_layout();
        let mut closed = ClosedPanes::default();
        // The mixer was dragged into the console's group, then closed.
        let mixer = tree.tiles.find_pane(&Pane::Mixer).unwrap();
        let console = tree.tiles.find_pane(&Pane::Console).unwrap();
        let group = tabs_of(&tree, console).unwrap();
        tree.move_tile_to_container(mixer, group, 1, false);
        closed.closing(&tree.tiles, mixer);
        tree.remove_recursively(mixer);
        show_pane_remembered(&mut tree, Pane::Mixer, &closed);
        assert!(group_of(&tree, Pane::Mixer).contains(&Pane::Console));
    }

    #[test]
    fn the_source_pane_appears_beside_the_lot_view() {
        let mut tree = default_layout();
        let root = tree.root();
        show_pane(&mut tree, Pane::Source);
        assert_eq!(tree.root(), root);
        assert!(group_of(&tree, Pane::Source).contains(&Pane::Lot));
    }

    #[test]
    fn with_every_neighbour_gone_a_pane_joins_a_group_and_never_wraps_the_layout() {
        let mut tree = default_layout();
        for pane in neighbours(Pane::Why) {
            if let Some(id) = tree.tiles.find_pane(pane) {
                tree.remove_recursively(id);
            }
        }
        let root = tree.root();
        show_pane(&mut tree, Pane::Why);
        assert_eq!(tree.root(), root);
        let id = tree.tiles.find_pane(&Pane::Why).unwrap();
        assert!(tabs_of(&tree, id).is_some());
    }
}
