//! What the hit-list panel reads: a list's owner, where it is defined and whether it can
//! be edited there, its entries as written and what each ID plays.

use crate::toolchain::formats::hitlist::HitEntry;
use crate::toolchain::project::{Origin, TrackDef};
use std::path::PathBuf;

/// A track, as named in a hit-list view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackRef {
    /// Track ID.
    pub id: u32,
    /// The track's name (its subroutine label, else `track_<id>`).
    pub name: String,
    /// Where the track is defined.
    pub origin: Origin,
}

impl TrackRef {
    pub(super) fn of(track: &TrackDef) -> Self {
        Self {
            id: track.id,
            name: track.name.to_string(),
            origin: track.origin.clone(),
        }
    }
}

/// Whose list a view shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListOwner {
    /// A global hit list (`[GlobalHitList]`).
    Global,
    /// The track's own list (its `[Track]` hit-list field, what `smart_setlist 0`
    /// chooses from). Editing it edits the global list it names.
    Track(TrackRef),
}

/// What kind of file defines a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefinitionKind {
    /// A `[GlobalHitList]` entry of a `.hot` file.
    HotFile,
    /// A `LIST [GlobalHitList] key=value` line of a MakeTrax source (or a file it
    /// includes).
    SourceList,
}

/// Where a list is defined and whether the editor can change it there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListDefinition {
    /// The file.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// A `.hot` entry or a source `LIST` line.
    pub kind: DefinitionKind,
    /// Why the list cannot be edited, or `None` when [`HitListEditor`](super::HitListEditor) can edit it
    /// (open [`ListDefinition::file`] and use [`HitListView::key`]).
    pub read_only: Option<String>,
}

impl ListDefinition {
    /// True when the editor can change the list in its file.
    pub fn is_editable(&self) -> bool {
        self.read_only.is_none()
    }
}

/// A sample a patch plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleView {
    /// Patch ID.
    pub patch: u32,
    /// Patch name.
    pub name: String,
    /// The path as written in the patch table.
    pub path_text: String,
    /// The file the loader found for it.
    pub file: Option<PathBuf>,
    /// Its name in the resource cache (what the server plays), when found.
    pub resource: Option<String>,
    /// True if the file exists on disk now.
    pub exists: bool,
    /// Where the patch is defined.
    pub origin: Origin,
}

/// What one ID of a list plays, resolved the way the engine does: a patch if a patch
/// has the ID, else a hit list (a pick from it, recursively), else nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plays {
    /// A patch and its sample.
    Patch(SampleView),
    /// Another hit list (a list of lists): the engine picks from it in turn.
    List {
        /// Its ID.
        id: u32,
        /// How many IDs it holds (ranges expanded).
        len: usize,
    },
    /// Neither a patch nor a hit list has this ID: playing it faults the track.
    Missing,
}

/// One ID an entry stands for, and what it plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryTarget {
    /// The ID.
    pub id: u32,
    /// What it plays.
    pub plays: Plays,
}

/// One entry of a list, as written, with what it plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitListEntryView {
    /// Position in the list as written (what [`HitListEditor::remove_entry`](super::HitListEditor::remove_entry) and
    /// [`HitListEditor::move_entry`](super::HitListEditor::move_entry) take).
    pub index: usize,
    /// The entry's text as written (`7`, `5-9`, `0x10`, `name`).
    pub text: String,
    /// The entry.
    pub entry: HitEntry,
    /// The IDs it stands for (one, or a range's), each resolved.
    pub targets: Vec<EntryTarget>,
    /// Why it could not be resolved (an unknown name), if so.
    pub problem: Option<String>,
}

/// A hit list of a project, for the editor panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitListView {
    /// Hit list ID.
    pub id: u32,
    /// The key as written in its definition (`92`, `hl_baby_cry`): what
    /// [`HitListEditor`](super::HitListEditor) operations take.
    pub key: String,
    /// The list's name, when its key is a name.
    pub name: Option<String>,
    /// A global list, or a track's own list.
    pub owner: ListOwner,
    /// Tracks whose own list this is.
    pub used_by: Vec<TrackRef>,
    /// The list's text as written.
    pub text: String,
    /// The entries as written, resolved.
    pub entries: Vec<HitListEntryView>,
    /// The IDs the engine picks from (ranges expanded, names resolved): what
    /// [`simulate`](super::simulate()) takes.
    pub expanded: Vec<u32>,
    /// Where it is defined; `None` for a track whose list is not defined.
    pub definition: Option<ListDefinition>,
    /// Problems worth showing (a missing list, a file changed since loading…).
    pub problems: Vec<String>,
}

impl HitListView {
    /// True when [`HitListEditor`](super::HitListEditor) can change this list.
    pub fn is_editable(&self) -> bool {
        self.definition
            .as_ref()
            .is_some_and(ListDefinition::is_editable)
    }
}
