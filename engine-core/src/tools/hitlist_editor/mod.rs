//! Hit lists for editors: every hit list of a project with its entries resolved to what
//! they play, a simulation of the engine's pick rule, and an editing session that
//! changes only the edited list's line of a `.hot` file (or of a source's
//! `LIST [GlobalHitList]` line) and refuses to overwrite a file changed on disk.
//!
//! No UI here: the workbench's hit-list panel draws these values and calls these
//! operations. See `docs/hitlists.md` for what an audio designer sees.
//!
//! - [`hit_lists`] (`listing`) lists the global lists (with the tracks that use each as
//!   their own list) and one view per track that has a list, each entry resolved the way
//!   the engine resolves a sound: a patch if a patch has that ID, else a nested hit list.
//!   The view types are in `views`.
//! - [`simulate`](simulate()) runs [`crate::runtime::picks`]'s no-immediate-repetition rule with
//!   the engine's seeded generator and reports how often and how soon entries repeat.
//! - [`HitListEditor`] (`editor`) is one file's editing session: edits go through
//!   [`HotDocument::set`](crate::toolchain::formats::hot::HotDocument::set) (or a one-line
//!   splice of a `LIST` line), keep an undo/redo history and list the pending line
//!   changes; `save` saves after checking that the file on disk is still what was
//!   opened; `errors` says why an edit or a save failed.
//! - `document` is a file holding hit lists, kept byte for byte (`list_line` reads a
//!   source's `LIST` line); `entry_text` reads and writes a list's entries keeping each
//!   one's spelling; `disk` reads, fingerprints and atomically writes the file.

pub(crate) mod disk;
pub(crate) mod document;
mod editor;
mod entry_text;
mod errors;
mod list_line;
mod listing;
mod save;
pub(crate) mod session;
mod simulate;
mod views;

pub use editor::{EditableList, HitListEditor};
pub use entry_text::{EntryTextError, parse_entry_text};
pub use errors::{EditError, SaveError};
pub use listing::hit_lists;
pub use save::{DiskStatus, SaveReport};
pub use session::LineChange;
pub use simulate::{EntryPickStats, PickStats, simulate};
pub use views::{
    DefinitionKind, EntryTarget, HitListEntryView, HitListView, ListDefinition, ListOwner, Plays,
    SampleView, TrackRef,
};
