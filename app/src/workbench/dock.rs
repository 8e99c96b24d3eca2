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
    /// The open capture: what it was made with, its inputs, the diff against the
    /// project now.
    Capture,
    /// The project's QA scripts: run them, see each expectation, open a failure; save
    /// the console history as a script.
    Qa,
}

impl Pane {
    /// Every pane, in the order the View menu lists them.
    pub const ALL: [Pane; 15] = [
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
            Pane::Capture => &mut self.capture,
            Pane::Qa => &mut self.qa,
        }
    }
}

/// The layout of a first run: sources (with the project browser as a tab beside them) on
/// the left; the source view (with the voices, track threads, lot view and Why as tabs
/// beside it) above the console and problems (and the traces, QA, hit lists, cache, mixer
/// and capture) on the right.
pub fn default_layout() -> egui_tiles::Tree<Pane> {
    let mut tiles = egui_tiles::Tiles::default();
    let sources = tiles.insert_pane(Pane::Sources);
    let browser = tiles.insert_pane(Pane::Browser);
    let sources = tiles.insert_tab_tile(vec![sources, browser]);
    let source = tiles.insert_pane(Pane::Source);
    let voices = tiles.insert_pane(Pane::Voices);
    let threads = tiles.insert_pane(Pane::Threads);
    let lot = tiles.insert_pane(Pane::Lot);
    let why = tiles.insert_pane(Pane::Why);
    let top = tiles.insert_tab_tile(vec![source, voices, threads, lot, why]);
    let console = tiles.insert_pane(Pane::Console);
    let problems = tiles.insert_pane(Pane::Problems);
    let hitlists = tiles.insert_pane(Pane::HitLists);
    let cache = tiles.insert_pane(Pane::Cache);
    let traces = tiles.insert_pane(Pane::Traces);
    let mixer = tiles.insert_pane(Pane::Mixer);
    let capture = tiles.insert_pane(Pane::Capture);
    let qa = tiles.insert_pane(Pane::Qa);
    let bottom = tiles.insert_tab_tile(vec![
        console, traces, problems, qa, hitlists, cache, mixer, capture,
    ]);
    let right = tiles.insert_container(egui_tiles::Linear::new_binary(
        egui_tiles::LinearDir::Vertical,
        [top, bottom],
        0.6,
    ));
    let root = tiles.insert_container(egui_tiles::Linear::new_binary(
        egui_tiles::LinearDir::Horizontal,
        [sources, right],
        0.3,
    ));
    egui_tiles::Tree::new(egui::Id::unique("hitbench-dock"), root, tiles)
}

/// Adds `pane` to the layout if it is not there (as a tab beside the root), or makes it
/// the visible tab if it is.
pub fn show_pane(tree: &mut egui_tiles::Tree<Pane>, pane: Pane) {
    if let Some(id) = tree.tiles.find_pane(&pane) {
        tree.make_active(|tile_id, _| tile_id == id);
        return;
    }
    let new = tree.tiles.insert_pane(pane);
    match tree.root() {
        Some(root) => {
            let tabs = tree.tiles.insert_tab_tile(vec![root, new]);
            tree.root = Some(tabs);
        }
        None => tree.root = Some(new),
    }
}

/// Draws the panes: each panel gets the context and pushes its commands.
pub struct Behavior<'a> {
    /// The panels.
    pub panels: &'a mut Panels,
    /// What they read.
    pub context: &'a PanelContext<'a>,
    /// What they ask for.
    pub commands: &'a mut Vec<AppCommand>,
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
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_layout_has_every_pane_once() {
        let tree = default_layout();
        for pane in Pane::ALL {
            assert!(tree.tiles.find_pane(&pane).is_some(), "{pane:?}");
        }
    }

    #[test]
    fn showing_a_closed_pane_brings_it_back() {
        let mut tree = default_layout();
        let id = tree.tiles.find_pane(&Pane::Problems).unwrap();
        tree.remove_recursively(id);
        assert!(tree.tiles.find_pane(&Pane::Problems).is_none());
        show_pane(&mut tree, Pane::Problems);
        assert!(tree.tiles.find_pane(&Pane::Problems).is_some());
        // Showing it again does not duplicate it.
        show_pane(&mut tree, Pane::Problems);
        let count = tree
            .tiles
            .tiles()
            .filter(|t| matches!(t, egui_tiles::Tile::Pane(Pane::Problems)))
            .count();
        assert_eq!(count, 1);
    }
}
