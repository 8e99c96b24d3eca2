//! panels — the workbench's panels: egui code only.
//!
//! One panel is one struct in one module (a file, or a folder split by part for the
//! larger ones), with `Default` and UI-local state only (filter text, selection, scroll
//! lock). A panel reads a borrowed, read-only [`PanelContext`] and *emits*
//! [`AppCommand`]s; it never mutates the engine and never does IO. The app applies the
//! commands at the end of the frame. That keeps every panel testable from fixture data
//! with no engine running. Every colour a panel paints comes from [`theme`], named by
//! what it means.

pub mod browser;
pub mod cache;
pub mod capture;
pub mod console;
pub mod hitlist_editor;
pub mod lot;
pub mod mixer;
pub mod monitor;
pub mod problems;
pub mod progress;
pub mod properties;
pub mod qa;
pub mod snapshots;
pub mod source_view;
pub mod sources;
pub mod theme;
pub mod threads;
pub mod traces;
pub mod voices;
pub mod why;

use engine_core::host::command::Command;
use engine_core::host::live::LiveSnapshot;
use engine_core::runtime::TraceRecord;
use engine_core::toolchain::diag::Diagnostic;
use engine_core::toolchain::project::Project;
use std::collections::VecDeque;
use std::path::PathBuf;

pub use browser::BrowserPanel;
pub use cache::CachePanel;
pub use capture::{CapturePanel, CaptureView, DiffState};
pub use console::{ConsoleEntry, ConsolePanel};
pub use hitlist_editor::{HitListData, HitListEdit, HitListsPanel, SaveOutcome};
pub use lot::LotPanel;
pub use mixer::MixerPanel;
pub use problems::ProblemsPanel;
pub use properties::{PropertiesData, PropertiesPanel, SnapshotData, SnapshotDiff};
pub use qa::{QaData, QaPanel, QaScriptState, QaState};
pub use source_view::SourceViewPanel;
pub use sources::SourcesPanel;
pub use threads::ThreadsPanel;
pub use traces::{DEFAULT_INDEX_BUDGET, SOFTWARE_INDEX_BUDGET, TraceFilter, TracesPanel};
pub use voices::VoicesPanel;
pub use why::{WhyPanel, WhyTarget};

/// What a panel asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum AppCommand {
    /// Show a source file, scrolled to a 1-based line (0 = the top).
    OpenSource {
        /// The file.
        path: PathBuf,
        /// The line to show.
        line: u32,
    },
    /// Load the project again from disk.
    ReloadProject,
    /// Run a line of text on the live engine: what the user typed into the console (or
    /// a script's line). Panels that build a command send [`AppCommand::Run`] instead.
    RunLine(String),
    /// Run a command on the live engine. The console history shows it as its line
    /// (`command.to_string()`, which parses back to the same command), so a session can
    /// be replayed as text.
    Run(Command),
    /// Select a voice, object or track (the panels that show it highlight it).
    Select(Selection),
    /// Write the trace records that pass `filter` to `path` as text, one per line (the
    /// format `hitbench render --trace` prints).
    ExportTrace {
        /// The file to write.
        path: PathBuf,
        /// Which records to write.
        filter: TraceFilter,
    },
    /// Start editing the hit lists of a file: the app remembers its content now, so that
    /// a later save can tell whether someone else changed it meanwhile.
    EditHitLists(PathBuf),
    /// Write hit-list edits back into their files (only the edited lists' lines change).
    /// A file changed on disk since [`AppCommand::EditHitLists`] is not written unless
    /// `force`; the outcome comes back in [`PanelContext::hitlists`].
    SaveHitLists {
        /// Each edited list's new entries.
        edits: Vec<HitListEdit>,
        /// Overwrite files changed on disk (the user chose "Save anyway").
        force: bool,
    },
    /// Drop the hit-list edits' editing sessions and load the project again (the user
    /// chose the files on disk over their edits).
    ReloadHitLists,
    /// Preload every resource whose name matches a pattern (`*`, `?`) on the live
    /// engine; progress shows in the live snapshot's `preload`.
    Preload(String),
    /// Cancel the running preload.
    CancelPreload,
    /// Open the Why panel on a target: the decisions about an event, an object, a voice
    /// slot or one trace record's trigger.
    Why(WhyTarget),
    /// Show the open capture at a time (scrub).
    Seek(engine_core::runtime::SampleTime),
    /// Play the open capture on in real time (`true`), or pause it.
    PlayCapture(bool),
    /// Run the open capture's inputs against the project as it is now, in the background,
    /// and list the decisions that differ ([`CaptureView::diff`]).
    DiffCapture,
    /// Close the capture: the panels show the live engine again.
    CloseCapture,
    /// Run QA scripts offline in the background (none given: the project's whole suite);
    /// progress and results come back in [`PanelContext::qa`].
    RunQa(Vec<PathBuf>),
    /// Stop the QA run (the scripts under way finish, no new one starts).
    StopQa,
    /// Show a failed expectation: its script's run in the capture view at the time it
    /// was checked, with the Why panel on the decision behind it.
    ShowQaFailure {
        /// The script.
        file: PathBuf,
        /// The expectation's index among the run's results.
        result: usize,
    },
    /// Write a QA script made from the console history into the project (never over a
    /// file that exists); the outcome comes back in [`QaData::saved`].
    SaveQaScript {
        /// The file to write.
        path: PathBuf,
        /// The script.
        text: String,
    },
    /// Show a track's, patch's or event mapping's fields in the Properties panel.
    ShowProperties(engine_core::tools::properties::PropertyTarget),
    /// Give a field a new value: the running engine takes it at once, the file when the
    /// edits are saved. `merge` continues the edit before it (a drag in progress): one
    /// undo step, not one per frame.
    EditProperty {
        /// Whose field.
        target: engine_core::tools::properties::PropertyTarget,
        /// Which field.
        property: engine_core::tools::properties::Property,
        /// The new value.
        input: engine_core::tools::properties::PropertyInput,
        /// Continue the edit before it.
        merge: bool,
    },
    /// Undo the last property edit (the engine follows).
    UndoProperty,
    /// Redo the last undone property edit.
    RedoProperty,
    /// Write the edited fields into their lines; `force` writes over a file changed on
    /// disk since editing began. The outcome comes back in [`PropertiesData::outcome`].
    SaveProperties {
        /// Save over changes made elsewhere.
        force: bool,
    },
    /// Drop every unsaved property edit; the engine goes back to the files' values.
    RevertProperties,
    /// A/B snapshots of the unsaved property edits (`docs/tuning.md`).
    Snapshot(SnapshotCommand),
}

/// What an A/B snapshot button asks for; `slot` is 0 for A, 1 for B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotCommand {
    /// Keep the unsaved edits as they are now in the slot.
    Store(usize),
    /// Make the slot's edits the unsaved edits (the engine follows at once).
    Recall(usize),
    /// Recall the slot and forget both snapshots: its edits stay, to save or revert.
    Keep(usize),
}

/// Something selected in one panel and shown in the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// A Box-X voice slot.
    Voice(usize),
    /// A world object.
    Object(engine_core::world::ObjectId),
    /// A track, by name.
    Track(String),
}

/// A source file the app has read for display.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceText {
    /// The file.
    pub path: PathBuf,
    /// Its text (lossily decoded).
    pub text: String,
    /// The line to show and highlight (1-based, 0 = none).
    pub line: u32,
}

/// What panels may read.
#[derive(Clone, Copy)]
pub struct PanelContext<'a> {
    /// The loaded project.
    pub project: &'a Project,
    /// The source file open for viewing, if any.
    pub source: Option<&'a SourceText>,
    /// Console lines run so far and their replies.
    pub console: &'a [ConsoleEntry],
    /// The live engine's latest state: voices, threads, instance map, world, mixer,
    /// cache, reloads (all empty when no engine runs).
    pub live: &'a LiveSnapshot,
    /// Every trace record received so far (oldest first; the app keeps at most
    /// [`TRACE_LIMIT`]).
    pub trace: &'a VecDeque<TraceRecord>,
    /// How many trace records were dropped from the front of `trace` so far: `trace[0]`
    /// is record number `trace_dropped` of all received.
    pub trace_dropped: u64,
    /// Which trace `trace` is: it changes when another replaces it (a capture opened,
    /// scrubbed back or closed), and a panel that indexes the trace starts again.
    pub trace_epoch: u64,
    /// The voice, object or track selected last, if any.
    pub selection: Option<&'a Selection>,
    /// The project's hit lists as read from their files, and how the last hit-list save
    /// went (for the hit-list editor).
    pub hitlists: &'a HitListData,
    /// The capture open, if any: then `live` and `trace` are the capture's at the time
    /// it shows, and no engine runs commands.
    pub capture: Option<&'a CaptureView>,
    /// The project's QA suite and its runs.
    pub qa: &'a QaData,
    /// What the Properties panel shows (the app's property editors).
    pub properties: &'a PropertiesData,
}

impl<'a> PanelContext<'a> {
    /// Every problem there is now ([`problems::all`]): what the Problems panel lists and
    /// the status bar counts.
    pub fn problems(&self) -> Vec<&'a Diagnostic> {
        problems::all(self.project, self.live)
    }
}

/// Everything a [`PanelContext`] borrows, owned in one place: what a panel test, a
/// benchmark or any tool that draws panels without the app fills in. Add a context
/// field here and in [`ContextData::context`], and every such user gets it.
#[derive(Default)]
pub struct ContextData {
    /// The loaded project.
    pub project: Project,
    /// The source file open for viewing.
    pub source: Option<SourceText>,
    /// Console lines and replies.
    pub console: Vec<ConsoleEntry>,
    /// The live engine's state.
    pub live: LiveSnapshot,
    /// The trace log.
    pub trace: VecDeque<TraceRecord>,
    /// Records dropped from the front of `trace`.
    pub trace_dropped: u64,
    /// Which trace `trace` is.
    pub trace_epoch: u64,
    /// The selection.
    pub selection: Option<Selection>,
    /// The hit lists and the last save's outcome.
    pub hitlists: HitListData,
    /// The capture open.
    pub capture: Option<CaptureView>,
    /// The QA suite.
    pub qa: QaData,
    /// See [`PanelContext::properties`].
    pub properties: PropertiesData,
}

impl ContextData {
    /// The context that borrows all of it.
    pub fn context(&self) -> PanelContext<'_> {
        PanelContext {
            project: &self.project,
            source: self.source.as_ref(),
            console: &self.console,
            live: &self.live,
            trace: &self.trace,
            trace_dropped: self.trace_dropped,
            trace_epoch: self.trace_epoch,
            selection: self.selection.as_ref(),
            hitlists: &self.hitlists,
            capture: self.capture.as_ref(),
            qa: &self.qa,
            properties: &self.properties,
        }
    }
}

/// How many trace records the workbench keeps (older ones are dropped).
pub const TRACE_LIMIT: usize = 1_000_000;

/// A dockable panel.
pub trait Panel {
    /// The title on the panel's tab.
    fn title(&self) -> &'static str;
    /// Draws the panel; requests go into `commands`.
    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>);
}

/// A pan as every panel shows it: −1 (left) … +1 (right), `0.00` the centre.
pub fn pan_text(pan: f32) -> String {
    if pan.abs() < 0.005 {
        "0.00".to_string()
    } else {
        format!("{pan:+.2}")
    }
}

/// A pan on the HIT scale (0 left – 512 centre – 1024 right) as −1 … +1.
pub fn hit_pan(pan: i32) -> f32 {
    (pan - 512) as f32 / 512.0
}

/// A volume on the HIT scale (0 silent – 1024 full, more amplifies) as every panel shows
/// a raw volume: the value with its level in dB beside it, `820 (-1.9 dB)`, by the one
/// conversion ([`Gain::from_hit_volume`](engine_core::runtime::Gain::from_hit_volume),
/// [`Gain::db_text`](engine_core::runtime::Gain::db_text)).
pub fn hit_volume_text(volume: i64) -> String {
    let gain = engine_core::runtime::Gain::from_hit_volume(
        i32::try_from(volume).unwrap_or(if volume < 0 { 0 } else { i32::MAX }),
    );
    format!("{volume} ({})", gain.db_text())
}

/// A gain (0 silent, 1 as recorded, more amplifies) as every panel shows it: the factor
/// with its level in dB beside it, `0.80 (-1.9 dB)`.
pub fn gain_text(gain: engine_core::runtime::Gain) -> String {
    format!("{:.2} ({})", gain.get(), gain.db_text())
}

/// A one-line label cut at the pane's edge, for a widget that says its whole text (or
/// more) on hover itself. egui shows a cut label's whole text on hover by itself: with the
/// widget's own hover text, both tooltips came up at once.
pub fn cut_label(text: impl Into<egui::WidgetText>) -> egui::Label {
    egui::Label::new(text)
        .truncate()
        .show_tooltip_when_elided(false)
}

/// Gives the scroll areas `ui` adds from now on scroll bars with room of their own
/// (egui's bars float over the content's edge by default, and a bar grown under the
/// pointer covers the controls there): for panes whose controls reach their edges.
pub(crate) fn solid_scroll_bars(ui: &mut egui::Ui) {
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
}

/// The last part of `path` (the whole path when it has none).
pub(crate) fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

/// `path` shown relative to the project folder when it is inside it.
pub fn display_path(project: &Project, path: &std::path::Path) -> String {
    path.strip_prefix(project.root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Adds what `add` draws (laid out left to right) in a child with an id of its own,
/// `key`: the buttons inside keep their ids when rows before them gain or lose widgets.
/// (An egui button seen for the first time costs a second frame to style it, so a table
/// whose buttons all renew when one row changes paints every change twice.)
pub(crate) fn keyed<R>(
    ui: &mut egui::Ui,
    key: impl std::hash::Hash + std::fmt::Debug,
    add: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    let builder = egui::UiBuilder::new()
        .scope_id(egui::Id::unique(key))
        .layout(egui::Layout::left_to_right(egui::Align::Center));
    ui.scope_builder(builder, add).inner
}
