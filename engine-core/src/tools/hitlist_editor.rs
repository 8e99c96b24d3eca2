//! Hit lists for editors (issue 6): every hit list of a project with its entries resolved
//! to what they play, a simulation of the engine's pick rule, and an editing session
//! that changes only the edited list's line of a `.hot` file (or of a source's
//! `LIST [GlobalHitList]` line) and refuses to overwrite a file changed on disk.
//!
//! No UI here: the workbench's hit-list panel draws these values and calls these
//! operations. See `docs/hitlists.md` for what an audio designer sees.
//!
//! - [`hit_lists`] lists the global lists (with the tracks that use each as their own
//!   list) and one view per track that has a list, each entry resolved the way the
//!   engine resolves a sound: a patch if a patch has that ID, else a nested hit list.
//! - [`simulate`] runs [`crate::runtime::hitlists`]'s no-immediate-repetition rule with
//!   the engine's seeded generator and reports how often and how soon entries repeat.
//! - [`HitListEditor`] is one file's editing session: edits go through
//!   [`HotDocument::set`] (or a one-line splice of a `LIST` line), keep an undo/redo
//!   history, list the pending line changes, and save atomically after checking that
//!   the file on disk is still what was opened.

use crate::runtime::hitlists::HitListState;
use crate::runtime::rng::Rng;
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::hitlist::{HitEntry, HitList, MAX_RANGE_LEN};
use crate::toolchain::formats::hot::{HotDocument, LineEnding, SECTION_GLOBAL_HIT_LIST};
use crate::toolchain::project::{HitListDef, Origin, Project, TrackDef};
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

// ---------------------------------------------------------------------------------------
// Views
// ---------------------------------------------------------------------------------------

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
    fn of(track: &TrackDef) -> Self {
        Self {
            id: track.id,
            name: track.name.clone(),
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
    /// Why the list cannot be edited, or `None` when [`HitListEditor`] can edit it
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
    /// Position in the list as written (what [`HitListEditor::remove_entry`] and
    /// [`HitListEditor::move_entry`] take).
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
    /// [`HitListEditor`] operations take.
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
    /// [`simulate`] takes.
    pub expanded: Vec<u32>,
    /// Where it is defined; `None` for a track whose list is not defined.
    pub definition: Option<ListDefinition>,
    /// Problems worth showing (a missing list, a file changed since loading…).
    pub problems: Vec<String>,
}

impl HitListView {
    /// True when [`HitListEditor`] can change this list.
    pub fn is_editable(&self) -> bool {
        self.definition
            .as_ref()
            .is_some_and(ListDefinition::is_editable)
    }
}

/// Every hit list of `project`: the global lists by ID, then one view per track that has
/// its own list (by track ID). Reads the defining files to show entries as written and
/// to decide whether each list is editable.
pub fn hit_lists(project: &Project) -> Vec<HitListView> {
    let mut docs: HashMap<PathBuf, Result<Doc, String>> = HashMap::new();
    let mut out: Vec<HitListView> = project
        .hit_lists
        .values()
        .map(|def| global_view(project, def, &mut docs))
        .collect();
    for track in project.tracks.values() {
        let Some(id) = track.hit_list else { continue };
        let owner = ListOwner::Track(TrackRef::of(track));
        let view = match out
            .iter()
            .find(|v| v.id == id && v.owner == ListOwner::Global)
        {
            Some(global) => HitListView {
                owner,
                ..global.clone()
            },
            None => undefined_track_list(project, track, id, owner),
        };
        out.push(view);
    }
    out
}

/// The view of a track whose hit-list field names no hit list.
fn undefined_track_list(
    project: &Project,
    track: &TrackDef,
    id: u32,
    owner: ListOwner,
) -> HitListView {
    let plays = plays(project, id);
    let problem = match plays {
        Plays::Patch(_) => format!(
            "{}: track {} ({}) names patch {id} in its hit-list field, not a hit list; \
             `smart_setlist 0` will fault (edit the [Track] line to change it)",
            track.origin, track.id, track.name
        ),
        _ => format!(
            "{}: track {} ({}) uses hit list {id}, which is not defined",
            track.origin, track.id, track.name
        ),
    };
    HitListView {
        id,
        key: id.to_string(),
        name: None,
        owner,
        used_by: Vec::new(),
        text: String::new(),
        entries: Vec::new(),
        expanded: Vec::new(),
        definition: None,
        problems: vec![problem],
    }
}

fn global_view(
    project: &Project,
    def: &HitListDef,
    docs: &mut HashMap<PathBuf, Result<Doc, String>>,
) -> HitListView {
    let origin = &def.origin;
    let kind = Doc::kind_for(&origin.file);
    let doc = docs
        .entry(origin.file.clone())
        .or_insert_with(|| Doc::read(&origin.file));
    let mut problems = Vec::new();
    let located = match doc {
        Err(e) => Err(e.clone()),
        Ok(_) if origin.line == 0 => Err(format!(
            "{}: the line defining hit list {} is not known",
            origin.file.display(),
            def.id
        )),
        Ok(doc) => match doc.list_at_line(origin.line) {
            None => Err(format!(
                "{origin}: this line no longer holds hit list {}; the file changed since \
                 the project was loaded (reload the project)",
                def.id
            )),
            Some(found) => match doc.effective(&found.key) {
                Some(last) if last.line != found.line => Err(format!(
                    "{origin}: hit list `{}` is written again on line {} of the same file; \
                     edit the file by hand",
                    found.key, last.line
                )),
                _ => Ok(found),
            },
        },
    };
    let (key, text, read_only, tokens) = match located {
        Ok(found) => {
            let parsed = parse_value(&found.value, &origin.file, found.line, found.value_column);
            let tokens: Vec<(String, HitEntry)> = parsed.tokens;
            (found.key, found.value, None, tokens)
        }
        Err(reason) => {
            problems.push(reason.clone());
            let tokens = def
                .entries
                .iter()
                .map(|id| (id.to_string(), HitEntry::Id(*id)))
                .collect();
            let text = def
                .entries
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",");
            (def.id.to_string(), text, Some(reason), tokens)
        }
    };
    let entries = resolve_entries(project, &tokens, &def.entries);
    let name = (!key.starts_with(|c: char| c.is_ascii_digit())).then(|| key.clone());
    let used_by = project
        .tracks
        .values()
        .filter(|t| t.hit_list == Some(def.id))
        .map(TrackRef::of)
        .collect();
    HitListView {
        id: def.id,
        key,
        name,
        owner: ListOwner::Global,
        used_by,
        text,
        entries,
        expanded: def.entries.clone(),
        definition: Some(ListDefinition {
            file: origin.file.clone(),
            line: origin.line,
            kind,
            read_only,
        }),
        problems,
    }
}

/// How many IDs an entry stands for (a name, one; a range, its length).
fn entry_len(entry: &HitEntry) -> usize {
    match entry {
        HitEntry::Id(_) | HitEntry::Name(_) => 1,
        HitEntry::Range { first, last } => {
            let len = u64::from(*last)
                .saturating_sub(u64::from(*first))
                .saturating_add(1)
                .min(MAX_RANGE_LEN);
            usize::try_from(len).unwrap_or(0)
        }
    }
}

/// Resolves written entries. When they expand to as many IDs as the loader found, the
/// loader's IDs are used (names resolved exactly as at load); otherwise each entry is
/// resolved here.
fn resolve_entries(
    project: &Project,
    tokens: &[(String, HitEntry)],
    loaded: &[u32],
) -> Vec<HitListEntryView> {
    let total: usize = tokens.iter().map(|(_, e)| entry_len(e)).sum();
    let mut loaded_ids = (total == loaded.len()).then(|| loaded.iter().copied());
    let mut out = Vec::with_capacity(tokens.len());
    for (index, (text, entry)) in tokens.iter().enumerate() {
        let mut problem = None;
        let ids: Vec<u32> = match loaded_ids.as_mut() {
            Some(iter) => iter.by_ref().take(entry_len(entry)).collect(),
            None => match entry {
                HitEntry::Id(id) => vec![*id],
                HitEntry::Range { first, last } => {
                    (*first..=*last).take(entry_len(entry)).collect()
                }
                HitEntry::Name(name) => match name_value(project, name) {
                    Some(id) => vec![id],
                    None => {
                        problem = Some(format!("`{name}` is not a known name"));
                        Vec::new()
                    }
                },
            },
        };
        out.push(HitListEntryView {
            index,
            text: text.clone(),
            entry: entry.clone(),
            targets: ids
                .into_iter()
                .map(|id| EntryTarget {
                    id,
                    plays: plays(project, id),
                })
                .collect(),
            problem,
        });
    }
    out
}

/// A name's number: the project's named values, then the built-in constants.
fn name_value(project: &Project, name: &str) -> Option<u32> {
    let value = match project.value(name).map(|n| n.value) {
        Some(crate::toolchain::project::NameValue::Value(v)) => Some(v),
        _ => crate::toolchain::symbols::constant(name),
    }?;
    u32::try_from(value).ok()
}

/// What `id` plays: a patch first, then a hit list (the engine's order).
fn plays(project: &Project, id: u32) -> Plays {
    if let Some(patch) = project.patches.get(&id) {
        return Plays::Patch(SampleView {
            patch: id,
            name: patch.name.clone(),
            path_text: patch.path_text.clone(),
            file: patch.file.clone(),
            resource: patch.resource.as_deref().map(str::to_owned),
            exists: patch.file.as_ref().is_some_and(|f| f.is_file()),
            origin: patch.origin.clone(),
        });
    }
    match project.hit_lists.get(&id) {
        Some(list) => Plays::List {
            id,
            len: list.entries.len(),
        },
        None => Plays::Missing,
    }
}

// ---------------------------------------------------------------------------------------
// Simulation
// ---------------------------------------------------------------------------------------

/// How one distinct ID of a list fared in a [`simulate`] run.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryPickStats {
    /// The ID.
    pub value: u32,
    /// Its positions in the expanded list (more than one if it is written twice).
    pub positions: Vec<usize>,
    /// How many picks chose it.
    pub count: usize,
    /// `count` as a share of all picks (0–1).
    pub share: f64,
    /// The pick number (0-based) it was first chosen at.
    pub first_pick: Option<usize>,
    /// Mean distance, in picks, between two picks of it (1 would be back to back);
    /// `None` when it was picked fewer than twice.
    pub mean_gap: Option<f64>,
    /// Smallest distance, in picks, between two picks of it.
    pub min_gap: Option<usize>,
    /// The longest run of consecutive picks without it (the whole run if never picked).
    pub longest_absence: usize,
}

/// What [`simulate`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct PickStats {
    /// Number of picks made (`n`, or 0 for an empty list).
    pub picks: usize,
    /// The seed used.
    pub seed: u64,
    /// One row per distinct ID, in list order; the counts sum to `picks`.
    pub entries: Vec<EntryPickStats>,
    /// Picks that repeated the previous pick (0 whenever the list holds two or more
    /// distinct IDs: the engine never repeats then).
    pub back_to_back: usize,
    /// The smallest distance between two picks of the same ID, over all IDs.
    pub min_gap: Option<usize>,
    /// The mean distance between two picks of the same ID, over all repeats.
    pub mean_gap: Option<f64>,
    /// The first picks (at most 32), to show the order entries come in.
    pub preview: Vec<u32>,
}

/// How many picks [`PickStats::preview`] keeps.
const PREVIEW_LEN: usize = 32;

/// Picks `n` times from `entries` with the engine's rule (a random entry, never the
/// previous pick unless it is the only choice: [`crate::runtime::hitlists`]) and the
/// engine's generator seeded with `seed`, and reports how often and how soon each ID
/// repeats. The same entries, `n` and seed always give the same result.
pub fn simulate(entries: &[u32], n: usize, seed: u64) -> PickStats {
    let mut rng = Rng::new(seed);
    let mut state = HitListState::default();
    let mut rows: Vec<EntryPickStats> = Vec::new();
    let mut row_of: HashMap<u32, usize> = HashMap::new();
    for (position, &value) in entries.iter().enumerate() {
        let row = *row_of.entry(value).or_insert_with(|| {
            rows.push(EntryPickStats {
                value,
                positions: Vec::new(),
                count: 0,
                share: 0.0,
                first_pick: None,
                mean_gap: None,
                min_gap: None,
                longest_absence: 0,
            });
            rows.len() - 1
        });
        if let Some(r) = rows.get_mut(row) {
            r.positions.push(position);
        }
    }
    let mut last_pick: Vec<Option<usize>> = vec![None; rows.len()];
    let mut gap_sums: Vec<usize> = vec![0; rows.len()];
    let mut picks = 0;
    let mut back_to_back = 0;
    let mut previous = None;
    let mut preview = Vec::new();
    for pick_number in 0..n {
        // The list ID only keys the state's memory of the last pick.
        let Some(pick) = state.pick(0, entries, &mut rng) else {
            break;
        };
        picks += 1;
        if previous == Some(pick.value) {
            back_to_back += 1;
        }
        previous = Some(pick.value);
        if preview.len() < PREVIEW_LEN {
            preview.push(pick.value);
        }
        let Some(&row) = row_of.get(&pick.value) else {
            continue;
        };
        let (Some(stats), Some(last), Some(sum)) = (
            rows.get_mut(row),
            last_pick.get_mut(row),
            gap_sums.get_mut(row),
        ) else {
            continue;
        };
        stats.count += 1;
        match *last {
            None => {
                stats.first_pick = Some(pick_number);
                stats.longest_absence = pick_number;
            }
            Some(before) => {
                let gap = pick_number - before;
                *sum += gap;
                stats.min_gap = Some(stats.min_gap.map_or(gap, |m| m.min(gap)));
                stats.longest_absence = stats.longest_absence.max(gap - 1);
            }
        }
        *last = Some(pick_number);
    }
    let mut all_gaps = 0usize;
    let mut all_repeats = 0usize;
    for ((stats, last), sum) in rows.iter_mut().zip(&last_pick).zip(&gap_sums) {
        stats.longest_absence = match last {
            Some(at) => stats.longest_absence.max(picks - 1 - at),
            None => picks,
        };
        if picks > 0 {
            stats.share = stats.count as f64 / picks as f64;
        }
        if stats.count >= 2 {
            let repeats = stats.count - 1;
            stats.mean_gap = Some(*sum as f64 / repeats as f64);
            all_gaps += sum;
            all_repeats += repeats;
        }
    }
    PickStats {
        picks,
        seed,
        min_gap: rows.iter().filter_map(|r| r.min_gap).min(),
        mean_gap: (all_repeats > 0).then(|| all_gaps as f64 / all_repeats as f64),
        entries: rows,
        back_to_back,
        preview,
    }
}

// ---------------------------------------------------------------------------------------
// Documents: a `.hot` file or a source with `LIST` lines
// ---------------------------------------------------------------------------------------

/// One hit-list line of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ListLine {
    key: String,
    value: String,
    line: u32,
    value_column: u32,
}

/// A file holding hit lists, kept byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Doc {
    Hot(HotDocument),
    Source(SourceDoc),
}

impl Doc {
    fn kind_for(path: &Path) -> DefinitionKind {
        let hot = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("hot"));
        if hot {
            DefinitionKind::HotFile
        } else {
            DefinitionKind::SourceList
        }
    }

    fn parse(path: &Path, bytes: &[u8]) -> Self {
        match Self::kind_for(path) {
            DefinitionKind::HotFile => Doc::Hot(HotDocument::parse(bytes)),
            DefinitionKind::SourceList => Doc::Source(SourceDoc::parse(bytes)),
        }
    }

    fn read(path: &Path) -> Result<Self, String> {
        read_file(path)
            .map(|bytes| Self::parse(path, &bytes))
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))
    }

    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Doc::Hot(doc) => doc.to_bytes(),
            Doc::Source(doc) => doc.to_bytes(),
        }
    }

    /// Every hit-list line, in file order (a key may appear more than once).
    fn list_lines(&self) -> Vec<ListLine> {
        match self {
            Doc::Hot(doc) => doc
                .entries(SECTION_GLOBAL_HIT_LIST)
                .into_iter()
                .map(|e| ListLine {
                    key: e.key,
                    value: e.value,
                    line: e.line,
                    value_column: e.value_column,
                })
                .collect(),
            Doc::Source(doc) => doc.list_lines(),
        }
    }

    fn list_at_line(&self, line: u32) -> Option<ListLine> {
        self.list_lines().into_iter().find(|l| l.line == line)
    }

    /// The effective (last) line of `key`.
    fn effective(&self, key: &str) -> Option<ListLine> {
        self.list_lines()
            .into_iter()
            .rev()
            .find(|l| l.key.eq_ignore_ascii_case(key))
    }

    /// Sets the effective line of `key` (which must exist) to `value`.
    fn set_value(&mut self, key: &str, value: &str) -> Result<(), String> {
        match self {
            Doc::Hot(doc) => doc
                .set(SECTION_GLOBAL_HIT_LIST, key, value)
                .map_err(|e| e.to_string()),
            Doc::Source(doc) => doc.set_value(key, value),
        }
    }

    /// Each line's bytes without its ending.
    fn line_contents(&self) -> Vec<Vec<u8>> {
        match self {
            Doc::Hot(doc) => doc
                .lines()
                .into_iter()
                .map(|l| l.content.to_vec())
                .collect(),
            Doc::Source(doc) => doc.lines.iter().map(|(c, _)| c.clone()).collect(),
        }
    }
}

/// A source file as lines with their endings, for splicing one `LIST` line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SourceDoc {
    bom: bool,
    lines: Vec<(Vec<u8>, LineEnding)>,
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where the parts of a `LIST [Section] key=value` line are.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ListSpan {
    section: String,
    key: String,
    value: String,
    value_start: usize,
    value_end: usize,
}

fn trim_range(content: &[u8], start: usize, end: usize) -> (usize, usize) {
    let inner = content.get(start..end).unwrap_or_default();
    match inner.iter().position(|b| !b.is_ascii_whitespace()) {
        None => (end, end),
        Some(first) => {
            let last = inner
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .unwrap_or(first);
            (start + first, start + last + 1)
        }
    }
}

fn lossy(content: &[u8], start: usize, end: usize) -> String {
    String::from_utf8_lossy(content.get(start..end).unwrap_or_default()).into_owned()
}

/// Reads a source line as the assembler reads a `LIST` directive: `LIST` first (any
/// case), a `;` outside double quotes starts a comment, then `[Section] key=value`.
fn parse_list_line(content: &[u8]) -> Option<ListSpan> {
    let start = content.iter().position(|b| !b.is_ascii_whitespace())?;
    let word_end = start + 4;
    if !content.get(start..word_end)?.eq_ignore_ascii_case(b"LIST")
        || !content.get(word_end)?.is_ascii_whitespace()
    {
        return None;
    }
    let mut quoted = false;
    let mut region_end = content.len();
    for (i, &b) in content.iter().enumerate().skip(word_end) {
        match b {
            b'"' => quoted = !quoted,
            b';' if !quoted => {
                region_end = i;
                break;
            }
            _ => {}
        }
    }
    let (body_start, body_end) = trim_range(content, word_end, region_end);
    if content.get(body_start) != Some(&b'[') {
        return None;
    }
    let close = body_start
        + content
            .get(body_start..body_end)?
            .iter()
            .position(|&b| b == b']')?;
    let (section_start, section_end) = trim_range(content, body_start + 1, close);
    let eq = close
        + content
            .get(close..body_end)?
            .iter()
            .position(|&b| b == b'=')?;
    let (key_start, key_end) = trim_range(content, close + 1, eq);
    let (mut value_start, mut value_end) = trim_range(content, eq + 1, body_end);
    if value_start == value_end {
        value_start = eq + 1;
        value_end = eq + 1;
    }
    if section_start == section_end || key_start == key_end {
        return None;
    }
    Some(ListSpan {
        section: lossy(content, section_start, section_end),
        key: lossy(content, key_start, key_end),
        value: lossy(content, value_start, value_end),
        value_start,
        value_end,
    })
}

fn global_list_span(content: &[u8]) -> Option<ListSpan> {
    parse_list_line(content).filter(|s| s.section.eq_ignore_ascii_case(SECTION_GLOBAL_HIT_LIST))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl SourceDoc {
    fn parse(input: &[u8]) -> Self {
        let (bom, mut rest) = match input.strip_prefix(BOM) {
            Some(body) => (true, body),
            None => (false, input),
        };
        let mut lines = Vec::new();
        while !rest.is_empty() {
            match rest.iter().position(|&b| b == b'\n') {
                Some(nl) => {
                    let line = rest.get(..nl).unwrap_or_default();
                    let (content, ending) = match line.strip_suffix(b"\r") {
                        Some(c) => (c, LineEnding::CrLf),
                        None => (line, LineEnding::Lf),
                    };
                    lines.push((content.to_vec(), ending));
                    rest = rest.get(nl + 1..).unwrap_or_default();
                }
                None => {
                    lines.push((rest.to_vec(), LineEnding::Missing));
                    rest = &[];
                }
            }
        }
        Self { bom, lines }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice(BOM);
        }
        for (content, ending) in &self.lines {
            out.extend_from_slice(content);
            out.extend_from_slice(ending.as_bytes());
        }
        out
    }

    fn list_lines(&self) -> Vec<ListLine> {
        self.lines
            .iter()
            .enumerate()
            .filter_map(|(index, (content, _))| {
                let span = global_list_span(content)?;
                let prefix = String::from_utf8_lossy(content.get(..span.value_start)?);
                Some(ListLine {
                    key: span.key,
                    value: span.value,
                    line: to_u32(index).saturating_add(1),
                    value_column: to_u32(prefix.chars().count()).saturating_add(1),
                })
            })
            .collect()
    }

    fn set_value(&mut self, key: &str, value: &str) -> Result<(), String> {
        let found = self.lines.iter().enumerate().rev().find_map(|(i, (c, _))| {
            global_list_span(c)
                .filter(|s| s.key.eq_ignore_ascii_case(key))
                .map(|s| (i, s))
        });
        let Some((index, span)) = found else {
            return Err(format!("no `LIST [GlobalHitList] {key}=…` line"));
        };
        let Some((content, _)) = self.lines.get_mut(index) else {
            return Err(format!("no `LIST [GlobalHitList] {key}=…` line"));
        };
        let mut new = content.get(..span.value_start).unwrap_or_default().to_vec();
        new.extend_from_slice(value.as_bytes());
        new.extend_from_slice(content.get(span.value_end..).unwrap_or_default());
        let reads_back =
            global_list_span(&new).is_some_and(|s| s.key == span.key && s.value == value);
        if !reads_back || value.contains(['\n', '\r']) {
            return Err(format!(
                "the list `{value}` would not read back unchanged from a LIST line"
            ));
        }
        *content = new;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// List text: entries with the text they were written as
// ---------------------------------------------------------------------------------------

struct ParsedValue {
    tokens: Vec<(String, HitEntry)>,
    diagnostics: Vec<Diagnostic>,
}

/// Reads a list value keeping each entry's text, so an edit can write untouched entries
/// back exactly as they were (`0x10` stays `0x10`).
fn parse_value(text: &str, file: &Path, line: u32, value_column: u32) -> ParsedValue {
    let (_, diagnostics) = HitList::parse_text(text, file, line, value_column.saturating_sub(1));
    let mut tokens = Vec::new();
    for field in text.split(',') {
        let field = field.trim();
        if field.is_empty() {
            continue;
        }
        if let Ok(entry) = parse_entry_text(field) {
            tokens.push((field.to_owned(), entry));
        }
    }
    ParsedValue {
        tokens,
        diagnostics,
    }
}

/// Reads one hit-list entry typed by a user (`7`, `0x10`, `5-9`, `name`).
///
/// # Errors
/// A sentence saying why the text is not exactly one entry.
pub fn parse_entry_text(text: &str) -> Result<HitEntry, String> {
    let (list, diagnostics) = HitList::parse_text(text, Path::new(""), 1, 0);
    if let Some(d) = diagnostics.iter().find(|d| d.is_error()) {
        return Err(d.message.clone());
    }
    match list.entries.as_slice() {
        [one] if !text.contains(',') => Ok(one.clone()),
        [] => Err("the entry is empty".to_owned()),
        _ => Err(format!("`{text}` is more than one entry")),
    }
}

/// The separator to write between entries: `, ` if the list already spaces its commas.
fn separator(original: &str) -> &'static str {
    let mut commas = original.match_indices(',').peekable();
    if commas.peek().is_none() {
        return ",";
    }
    let spaced = commas.all(|(i, _)| original.get(i + 1..).is_some_and(|r| r.starts_with(' ')));
    if spaced { ", " } else { "," }
}

/// The text of `entries`, reusing the original spelling of entries that were there.
fn list_text(entries: &[HitEntry], original: &[(String, HitEntry)], sep: &str) -> String {
    let mut used = vec![false; original.len()];
    let mut parts = Vec::with_capacity(entries.len());
    for entry in entries {
        let reuse = original
            .iter()
            .zip(used.iter_mut())
            .find(|((_, e), used)| e == entry && !**used);
        match reuse {
            Some(((text, _), used)) => {
                *used = true;
                parts.push(text.clone());
            }
            None => parts.push(entry.to_string()),
        }
    }
    parts.join(sep)
}

// ---------------------------------------------------------------------------------------
// Editing session
// ---------------------------------------------------------------------------------------

/// A hit list as the editor holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditableList {
    /// The key as written.
    pub key: String,
    /// 1-based line of its (effective) definition in the editor's file.
    pub line: u32,
    /// The list's text as it is now.
    pub text: String,
    /// The entries, in order.
    pub entries: Vec<HitEntry>,
    /// The text of each entry, parallel to `entries`.
    pub texts: Vec<String>,
    /// Problems reading the text (bad entries are not in `entries`).
    pub diagnostics: Vec<Diagnostic>,
}

impl EditableList {
    /// True if a part of the text could not be read as an entry: such a list can only be
    /// replaced as a whole ([`HitListEditor::set_entries`]).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// One line the editor changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineChange {
    /// 1-based line number.
    pub line: u32,
    /// The line before (without its ending).
    pub before: String,
    /// The line after (without its ending).
    pub after: String,
}

/// What [`HitListEditor::save`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveReport {
    /// The file written.
    pub path: PathBuf,
    /// The lines that changed (empty, and nothing written, when there was nothing to
    /// save).
    pub changed: Vec<LineChange>,
    /// True if the file was written.
    pub written: bool,
}

/// The file on disk compared with what the editor opened (or last saved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiskStatus {
    /// Same content.
    Unchanged,
    /// Same content, but the modification time moved (touched, or rewritten as it was).
    Touched,
    /// Someone else changed the file; `detail` says how.
    Changed {
        /// A sentence for the warning.
        detail: String,
    },
    /// The file is gone.
    Missing,
    /// The file cannot be read.
    Unreadable {
        /// The error.
        message: String,
    },
}

/// Why an edit or opening failed. The editor is unchanged after a failed edit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The file could not be read.
    #[error("{}: cannot read: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        message: String,
    },
    /// No hit list has this key in the file.
    #[error("{}: no hit list `{key}` in this file", path.display())]
    UnknownList {
        /// The file.
        path: PathBuf,
        /// The key asked for.
        key: String,
    },
    /// An entry index past the end of the list.
    #[error("{}:{line}: hit list `{key}` has {len} entries; there is no entry {index}", path.display())]
    NoSuchEntry {
        /// The file.
        path: PathBuf,
        /// The list's line.
        line: u32,
        /// The list.
        key: String,
        /// The index asked for.
        index: usize,
        /// How many entries the list has.
        len: usize,
    },
    /// The list's text has entries that do not read; only `set_entries` may replace it.
    #[error("{}:{line}: hit list `{key}` has unreadable entries ({message}); replace the whole list", path.display())]
    ListHasErrors {
        /// The file.
        path: PathBuf,
        /// The list's line.
        line: u32,
        /// The list.
        key: String,
        /// The first problem.
        message: String,
    },
    /// The new list cannot be written so that it reads back the same.
    #[error("{}:{line}: hit list `{key}`: {message}", path.display())]
    NotRepresentable {
        /// The file.
        path: PathBuf,
        /// The list's line.
        line: u32,
        /// The list.
        key: String,
        /// Why.
        message: String,
    },
}

/// Why saving failed. The file on disk is untouched then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// The file changed on disk since it was opened (or last saved); saving would throw
    /// those changes away. [`HitListEditor::save_anyway`] overwrites them.
    #[error("{}: the file changed on disk since it was opened ({detail}); not saved", path.display())]
    ChangedOnDisk {
        /// The file.
        path: PathBuf,
        /// How it changed.
        detail: String,
        /// Hash of the content at open (or last save).
        opened_hash: u64,
        /// Hash of the content on disk now, if it could be read.
        disk_hash: Option<u64>,
    },
    /// Reading or writing failed.
    #[error("{}: cannot save: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        message: String,
    },
}

/// FNV-1a, 64 bits: a stable content fingerprint.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// An editing session on one file's hit lists: a `.hot` file (its `[GlobalHitList]`
/// entries, edited through [`HotDocument::set`]) or a MakeTrax source (its
/// `LIST [GlobalHitList] key=value` lines, each edited as a one-line splice).
///
/// Every edit rewrites only the edited list's line; every other byte, line endings
/// included, stays as it was.
#[derive(Debug, Clone)]
pub struct HitListEditor {
    path: PathBuf,
    /// The file's content as last seen on disk (open or save).
    base: Doc,
    base_bytes: Vec<u8>,
    base_hash: u64,
    base_mtime: Option<SystemTime>,
    current: Doc,
    undo: Vec<Doc>,
    redo: Vec<Doc>,
}

/// Reads a table or source file the editor works on: a regular file of a sane size
/// (never a pipe or device swapped in for it), under the data folders' rule.
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    crate::toolchain::fsrules::ReadRules::for_file(path)
        .read(path)
        .map_err(crate::toolchain::fsrules::Refusal::into_io)
}

impl HitListEditor {
    /// Opens `path` for editing and remembers its content, hash and modification time.
    ///
    /// # Errors
    /// [`EditError::Read`] when the file cannot be read.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, EditError> {
        let path = path.as_ref().to_path_buf();
        let bytes = read_file(&path).map_err(|e| EditError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let doc = Doc::parse(&path, &bytes);
        Ok(Self {
            base_hash: fnv1a(&bytes),
            base_mtime: modified(&path),
            base: doc.clone(),
            base_bytes: bytes,
            current: doc,
            path,
            undo: Vec::new(),
            redo: Vec::new(),
        })
    }

    /// The file being edited.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A `.hot` file or a source.
    pub fn kind(&self) -> DefinitionKind {
        Doc::kind_for(&self.path)
    }

    /// Hash of the content at open (or last save).
    pub fn opened_hash(&self) -> u64 {
        self.base_hash
    }

    /// Modification time at open (or last save), if the file system gives one.
    pub fn opened_mtime(&self) -> Option<SystemTime> {
        self.base_mtime
    }

    /// The document as it would be saved now.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.current.to_bytes()
    }

    /// Every hit list of the file (the effective line of each key), in file order.
    pub fn lists(&self) -> Vec<EditableList> {
        let all = self.current.list_lines();
        all.iter()
            .enumerate()
            .filter(|(i, l)| {
                !all.iter()
                    .skip(i + 1)
                    .any(|later| later.key.eq_ignore_ascii_case(&l.key))
            })
            .map(|(_, l)| self.editable(l))
            .collect()
    }

    /// The list `key` (case-insensitive) as it is now.
    ///
    /// # Errors
    /// [`EditError::UnknownList`] when the file has no such list.
    pub fn list(&self, key: &str) -> Result<EditableList, EditError> {
        self.current
            .effective(key)
            .map(|l| self.editable(&l))
            .ok_or_else(|| EditError::UnknownList {
                path: self.path.clone(),
                key: key.to_owned(),
            })
    }

    fn editable(&self, l: &ListLine) -> EditableList {
        let parsed = parse_value(&l.value, &self.path, l.line, l.value_column);
        let (texts, entries) = parsed.tokens.into_iter().unzip();
        EditableList {
            key: l.key.clone(),
            line: l.line,
            text: l.value.clone(),
            entries,
            texts,
            diagnostics: parsed.diagnostics,
        }
    }

    /// Replaces the entries of list `key`. Entries that were already there keep their
    /// spelling; new ones are written in canonical form.
    ///
    /// # Errors
    /// [`EditError`] when there is no such list or the entries cannot be written so that
    /// they read back the same (a backward range, a name that is not an identifier).
    pub fn set_entries(&mut self, key: &str, entries: &[HitEntry]) -> Result<(), EditError> {
        let list = self.list(key)?;
        let original: Vec<(String, HitEntry)> = list
            .texts
            .iter()
            .cloned()
            .zip(list.entries.iter().cloned())
            .collect();
        let text = list_text(entries, &original, separator(&list.text));
        let not_representable = |message: String| EditError::NotRepresentable {
            path: self.path.clone(),
            line: list.line,
            key: list.key.clone(),
            message,
        };
        let (reread, found) = HitList::parse_text(&text, &self.path, list.line, 0);
        if !found.is_empty() || reread.entries != entries {
            let why = found.first().map_or_else(
                || "it reads back differently".to_owned(),
                |d| d.message.clone(),
            );
            return Err(not_representable(format!("cannot write `{text}`: {why}")));
        }
        if text == list.text {
            return Ok(());
        }
        let mut next = self.current.clone();
        next.set_value(&list.key, &text)
            .map_err(not_representable)?;
        self.undo.push(std::mem::replace(&mut self.current, next));
        self.redo.clear();
        Ok(())
    }

    /// The list's entries for an entry-wise edit; refused when part of the text does not
    /// read (the edit would silently drop it).
    fn clean_entries(&self, key: &str) -> Result<(EditableList, Vec<HitEntry>), EditError> {
        let list = self.list(key)?;
        if let Some(d) = list.diagnostics.iter().find(|d| d.is_error()) {
            return Err(EditError::ListHasErrors {
                path: self.path.clone(),
                line: list.line,
                key: list.key.clone(),
                message: d.message.clone(),
            });
        }
        let entries = list.entries.clone();
        Ok((list, entries))
    }

    fn no_such_entry(&self, list: &EditableList, index: usize) -> EditError {
        EditError::NoSuchEntry {
            path: self.path.clone(),
            line: list.line,
            key: list.key.clone(),
            index,
            len: list.entries.len(),
        }
    }

    /// Appends `entry` to list `key`.
    ///
    /// # Errors
    /// As [`HitListEditor::set_entries`], and [`EditError::ListHasErrors`].
    pub fn add_entry(&mut self, key: &str, entry: HitEntry) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        entries.push(entry);
        self.set_entries(&list.key, &entries)
    }

    /// Inserts `entry` at position `index` (0 to the list's length) of list `key`.
    ///
    /// # Errors
    /// As [`HitListEditor::add_entry`], and [`EditError::NoSuchEntry`] past the end.
    pub fn insert_entry(
        &mut self,
        key: &str,
        index: usize,
        entry: HitEntry,
    ) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        if index > entries.len() {
            return Err(self.no_such_entry(&list, index));
        }
        entries.insert(index, entry);
        self.set_entries(&list.key, &entries)
    }

    /// Removes entry `index` of list `key`.
    ///
    /// # Errors
    /// As [`HitListEditor::add_entry`], and [`EditError::NoSuchEntry`].
    pub fn remove_entry(&mut self, key: &str, index: usize) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        if index >= entries.len() {
            return Err(self.no_such_entry(&list, index));
        }
        entries.remove(index);
        self.set_entries(&list.key, &entries)
    }

    /// Moves entry `from` of list `key` so that it ends up at position `to`.
    ///
    /// # Errors
    /// As [`HitListEditor::add_entry`], and [`EditError::NoSuchEntry`].
    pub fn move_entry(&mut self, key: &str, from: usize, to: usize) -> Result<(), EditError> {
        let (list, mut entries) = self.clean_entries(key)?;
        for index in [from, to] {
            if index >= entries.len() {
                return Err(self.no_such_entry(&list, index));
            }
        }
        let entry = entries.remove(from);
        entries.insert(to, entry);
        self.set_entries(&list.key, &entries)
    }

    /// True if there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// True if there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Undoes the last edit; false if there was none.
    pub fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(previous) => {
                self.redo
                    .push(std::mem::replace(&mut self.current, previous));
                true
            }
            None => false,
        }
    }

    /// Redoes the last undone edit; false if there was none.
    pub fn redo(&mut self) -> bool {
        match self.redo.pop() {
            Some(next) => {
                self.undo.push(std::mem::replace(&mut self.current, next));
                true
            }
            None => false,
        }
    }

    /// True if the document differs from the file as opened (or last saved).
    pub fn is_modified(&self) -> bool {
        self.current != self.base
    }

    /// The lines that differ from the file as opened (or last saved), for a diff view.
    pub fn pending_changes(&self) -> Vec<LineChange> {
        let before = self.base.line_contents();
        let after = self.current.line_contents();
        let count = before.len().max(after.len());
        (0..count)
            .filter_map(|i| {
                let (b, a) = (before.get(i), after.get(i));
                (b != a).then(|| LineChange {
                    line: to_u32(i).saturating_add(1),
                    before: b
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default(),
                    after: a
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .unwrap_or_default(),
                })
            })
            .collect()
    }

    /// Compares the file on disk with what was opened (or last saved), so a panel can
    /// warn before saving.
    pub fn disk_status(&self) -> DiskStatus {
        match read_file(&self.path) {
            Ok(bytes) if bytes == self.base_bytes => {
                if modified(&self.path) == self.base_mtime {
                    DiskStatus::Unchanged
                } else {
                    DiskStatus::Touched
                }
            }
            Ok(bytes) => DiskStatus::Changed {
                detail: self.change_detail(&bytes),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => DiskStatus::Missing,
            Err(e) => DiskStatus::Unreadable {
                message: e.to_string(),
            },
        }
    }

    fn change_detail(&self, now: &[u8]) -> String {
        let now_doc = Doc::parse(&self.path, now);
        let before = self.base.line_contents();
        let after = now_doc.line_contents();
        let first = (0..before.len().max(after.len())).find(|&i| before.get(i) != after.get(i));
        match first {
            Some(i) => format!(
                "{} bytes when opened, {} now; first difference on line {}",
                self.base_bytes.len(),
                now.len(),
                i + 1
            ),
            None => format!(
                "{} bytes when opened, {} now",
                self.base_bytes.len(),
                now.len()
            ),
        }
    }

    /// Saves the edits: refuses with [`SaveError::ChangedOnDisk`] when the file's content
    /// is no longer what was opened (or last saved), else writes it atomically (a
    /// temporary file beside it, then a rename). Nothing is written when nothing changed.
    ///
    /// # Errors
    /// [`SaveError`]; the file is untouched then.
    pub fn save(&mut self) -> Result<SaveReport, SaveError> {
        match self.disk_status() {
            DiskStatus::Unchanged | DiskStatus::Touched => {}
            DiskStatus::Changed { detail } => {
                let disk_hash = read_file(&self.path).ok().map(|b| fnv1a(&b));
                return Err(self.changed_on_disk(detail, disk_hash));
            }
            DiskStatus::Missing => {
                return Err(self.changed_on_disk("it was deleted".to_owned(), None));
            }
            DiskStatus::Unreadable { message } => {
                return Err(SaveError::Io {
                    path: self.path.clone(),
                    message,
                });
            }
        }
        self.write()
    }

    fn changed_on_disk(&self, detail: String, disk_hash: Option<u64>) -> SaveError {
        SaveError::ChangedOnDisk {
            path: self.path.clone(),
            detail,
            opened_hash: self.base_hash,
            disk_hash,
        }
    }

    /// Saves the edits whatever happened to the file on disk meanwhile (after the user
    /// saw the [`SaveError::ChangedOnDisk`] warning): the other changes are lost.
    ///
    /// # Errors
    /// [`SaveError::Io`] when writing fails; the file is untouched then.
    pub fn save_anyway(&mut self) -> Result<SaveReport, SaveError> {
        let on_disk = read_file(&self.path).ok();
        if on_disk.as_deref() != Some(self.base_bytes.as_slice()) {
            // Write even an unedited document: the user chose this version.
            return self.write_bytes(self.pending_changes());
        }
        self.write()
    }

    fn write(&mut self) -> Result<SaveReport, SaveError> {
        let changed = self.pending_changes();
        if !self.is_modified() {
            return Ok(SaveReport {
                path: self.path.clone(),
                changed,
                written: false,
            });
        }
        self.write_bytes(changed)
    }

    fn write_bytes(&mut self, changed: Vec<LineChange>) -> Result<SaveReport, SaveError> {
        let bytes = self.current.to_bytes();
        write_atomically(&self.path, &bytes).map_err(|message| SaveError::Io {
            path: self.path.clone(),
            message,
        })?;
        self.base = self.current.clone();
        self.base_hash = fnv1a(&bytes);
        self.base_bytes = bytes;
        self.base_mtime = modified(&self.path);
        Ok(SaveReport {
            path: self.path.clone(),
            changed,
            written: true,
        })
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`, so a
/// reader sees the old file or the new one, never half of one.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.hitbench-{}.tmp", std::process::id()));
    write_then_rename(&temp, path, bytes).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        e.to_string()
    })
}

fn write_then_rename(temp: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::File::create(temp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(temp, meta.permissions())?;
    }
    std::fs::rename(temp, path)
}
