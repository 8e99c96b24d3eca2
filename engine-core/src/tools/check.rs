//! The project linter behind `hitbench check`: problems that load fine but make a
//! project sound wrong — unbound names, missing or undecodable samples, tracks, patches
//! and hit lists nobody uses, events that lead nowhere, tables that refer to nothing,
//! definitions repeated in one directory, and the seed's "common mistake": a sound
//! controlled by the wrong option (control group).
//!
//! [`check`] returns only the linter's own diagnostics, which never repeat one of
//! [`Project::diagnostics`]. [`findings`] returns everything one command shows, sorted by
//! file and line: the load diagnostics (each given the rule it belongs to, see
//! [`classify`]), the linter's, and the world's (`world.ini`, the lot file). Every
//! finding names a [`Lint`], and `docs/check.md` describes each rule.
//!
//! Every sample a patch uses is decoded from end to end with the engine's own decoder
//! (a chunk at a time, up to the decoder's length ceiling): a lint may take a moment, and
//! a damaged file is found before a player hears it.
//!
//! The heuristics are deliberately conservative: a rule that guesses (unused code, wrong
//! group) stays quiet whenever the project gives it a reason to doubt.

use crate::runtime::sink::ControlGroup;
use crate::sound::audio::decode::{DecodeError, DecodeLimits, scan_file};
use crate::toolchain::diag::{Diagnostic, Severity, printable};
use crate::toolchain::formats::hit::HEADER_LEN;
use crate::toolchain::fsrules::{MAX_RESOURCE_BYTES, ReadRules};
use crate::toolchain::isa::{self, JumpTarget, Opcode, OperandKind};
use crate::toolchain::project::refused_sample;
use crate::toolchain::project::{
    CodeRef, EventDef, EventType, IMPLICIT_TRACK_BASE, Origin, Project, TrackDef,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

mod cycles;

pub use cycles::MAX_CYCLE_SEARCHES;

/// Instructions the `play-cycle` rule follows from one track's entry before it gives up
/// (generated code can be large; a cycle further in is not seen).
pub const CYCLE_WALK_LIMIT: usize = 20_000;

/// A rule of the linter. Its [`name`](Lint::name) is what `hitbench check` prints in
/// brackets after each diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lint {
    /// A load problem that belongs to no other rule (a source that does not assemble, a
    /// table line that does not parse, …).
    Load,
    /// A name used but defined nowhere: an `EXTERN`/`.sym` import left unbound, a
    /// `[Track]` subroutine that is no label, a table name that is no value.
    UnboundSymbol,
    /// A `[Patch]` whose sample file is not in the data directories.
    MissingSample,
    /// A sample file that exists but does not decode (or is damaged).
    BadSample,
    /// A track no event maps to and no code plays.
    UnusedTrack,
    /// A patch no track, hit list or code refers to.
    UnusedPatch,
    /// A hit list no track, other hit list or code refers to.
    UnusedHitList,
    /// An event whose track no table, export table or label defines.
    EventWithoutTrack,
    /// A track with no code at its entry and nothing to play without code.
    TrackWithoutCode,
    /// A track whose control group disagrees with what its names or samples say it is.
    WrongGroup,
    /// A hit list entry, or a track's patch or hit list, that is neither a patch nor a
    /// hit list.
    DanglingReference,
    /// An event, track, patch or hit list defined twice in one data directory.
    DuplicateDefinition,
    /// A problem in the world around the sounds: a `world.ini` value, the lot file it
    /// names, a station, music or ambience file.
    World,
    /// Tracks that start one another with `play_trk` without waiting in between (or a
    /// track that allows several copies and starts itself).
    PlayCycle,
    /// A hit list that contains itself, directly or through lists inside it.
    HitListCycle,
}

impl Lint {
    /// Every rule, in the order `docs/check.md` lists them.
    pub const ALL: [Lint; 15] = [
        Lint::Load,
        Lint::UnboundSymbol,
        Lint::MissingSample,
        Lint::BadSample,
        Lint::UnusedTrack,
        Lint::UnusedPatch,
        Lint::UnusedHitList,
        Lint::EventWithoutTrack,
        Lint::TrackWithoutCode,
        Lint::WrongGroup,
        Lint::DanglingReference,
        Lint::DuplicateDefinition,
        Lint::World,
        Lint::PlayCycle,
        Lint::HitListCycle,
    ];

    /// The rule's name as printed: `unbound-symbol`, `wrong-group`, …
    pub fn name(self) -> &'static str {
        match self {
            Lint::Load => "load",
            Lint::UnboundSymbol => "unbound-symbol",
            Lint::MissingSample => "missing-sample",
            Lint::BadSample => "bad-sample",
            Lint::UnusedTrack => "unused-track",
            Lint::UnusedPatch => "unused-patch",
            Lint::UnusedHitList => "unused-hit-list",
            Lint::EventWithoutTrack => "event-without-track",
            Lint::TrackWithoutCode => "track-without-code",
            Lint::WrongGroup => "wrong-group",
            Lint::DanglingReference => "dangling-reference",
            Lint::DuplicateDefinition => "duplicate-definition",
            Lint::World => "world",
            Lint::PlayCycle => "play-cycle",
            Lint::HitListCycle => "hit-list-cycle",
        }
    }

    /// The rule with this name.
    pub fn from_name(name: &str) -> Option<Lint> {
        Lint::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A diagnostic with the rule that found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub lint: Lint,
    /// Where and what.
    pub diagnostic: Diagnostic,
}

impl Finding {
    fn error(lint: Lint, at: &Origin, message: impl Into<String>) -> Self {
        Self {
            lint,
            diagnostic: Diagnostic::error(&at.file, at.line, 0, message),
        }
    }

    fn warning(lint: Lint, at: &Origin, message: impl Into<String>) -> Self {
        Self {
            lint,
            diagnostic: Diagnostic::warning(&at.file, at.line, 0, message),
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.diagnostic.is_error()
    }

    fn position(&self) -> (&Path, u32, u32) {
        (
            self.diagnostic.file.as_path(),
            self.diagnostic.line,
            self.diagnostic.column,
        )
    }
}

impl fmt::Display for Finding {
    /// `file:line:col: error|warning[rule]: message`, like rustc and gcc (so editors can
    /// jump to it), leaving out an unknown line or column.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.diagnostic;
        write!(f, "{}", printable(&d.file.display().to_string()))?;
        if d.line > 0 {
            write!(f, ":{}", d.line)?;
            if d.column > 0 {
                write!(f, ":{}", d.column)?;
            }
        }
        write!(
            f,
            ": {}[{}]: {}",
            d.severity,
            self.lint,
            printable(&d.message)
        )
    }
}

/// The linter's own diagnostics for a loaded project (none of them repeats a load
/// diagnostic), sorted by file and line.
pub fn check(project: &Project) -> Vec<Diagnostic> {
    lints(project).into_iter().map(|f| f.diagnostic).collect()
}

/// The linter's own findings, sorted by file and line.
pub fn lints(project: &Project) -> Vec<Finding> {
    let facts = CodeFacts::gather(project);
    let mut found = own_lints(project, &facts);
    sort(&mut found);
    found
}

fn own_lints(project: &Project, facts: &CodeFacts<'_>) -> Vec<Finding> {
    let mut found = Vec::new();
    bad_samples(project, &mut found);
    unused_tracks(project, facts, &mut found);
    unused_sounds(project, facts, &mut found);
    tracks_without_code(project, facts, &mut found);
    wrong_groups(project, facts, &mut found);
    dangling_references(project, &mut found);
    duplicate_definitions(project, &mut found);
    cycles::play_cycles(project, facts, &mut found);
    cycles::hit_list_cycles(project, &mut found);
    found
}

/// Sorts by file, line and column (stable: findings at one place keep their order) and
/// drops exact repeats.
fn sort(found: &mut Vec<Finding>) {
    found.sort_by(|a, b| a.position().cmp(&b.position()));
    let mut seen = HashSet::new();
    found.retain(|f| seen.insert((f.lint, f.diagnostic.clone())));
}

/// Everything `hitbench check` shows, sorted by file and line: the load diagnostics
/// (each with its rule, see [`classify`], and a suggestion where one is obvious) and the
/// linter's own findings.
///
/// A load warning the linter considers an error is raised to an error here: a missing
/// sample of a patch that is in use, and an event whose track nobody defines.
pub fn findings(project: &Project) -> Vec<Finding> {
    let facts = CodeFacts::gather(project);
    let used = sound_refs(project, &facts);
    // Patches without a sample by where they are defined, for their load warnings.
    let mut sampleless: HashMap<(&Path, u32), Vec<u32>> = HashMap::new();
    for p in project.patches.values().filter(|p| p.file.is_none()) {
        sampleless
            .entry((p.origin.file.as_path(), p.origin.line))
            .or_default()
            .push(p.id);
    }
    let mut all: Vec<Finding> = project
        .diagnostics
        .iter()
        .map(|d| {
            let lint = classify(d);
            let mut diagnostic = d.clone();
            let raise = match lint {
                Lint::EventWithoutTrack => true,
                Lint::MissingSample => {
                    sampleless
                        .get(&(d.file.as_path(), d.line))
                        .is_some_and(|ids| {
                            ids.iter()
                                .any(|id| used.contains(id) || facts.computed_patches.contains(id))
                        })
                }
                _ => false,
            };
            if raise {
                diagnostic.severity = Severity::Error;
            }
            if lint == Lint::EventWithoutTrack
                && let Some(event) = quoted(&d.message).and_then(|name| project.event(name))
            {
                diagnostic.message = format!(
                    "event `{}` plays track {} (0x{:x}), which no [Track] table, export table \
                     or label defines: the event does nothing",
                    event.name, event.track_id, event.track_id
                );
            }
            if lint == Lint::DuplicateDefinition
                && let Some(message) = set_again(project, d)
            {
                diagnostic.message = message;
            }
            if let Some(hint) = suggestion(project, lint, &diagnostic.message) {
                diagnostic.message.push_str(&hint);
            }
            Finding { lint, diagnostic }
        })
        .collect();
    all.extend(own_lints(project, &facts));
    all.extend(world_findings(project));
    sort(&mut all);
    all
}

/// The problems of the project's world: every data directory's `world.ini`, the lot file
/// it names, the stations', music and ambience files — what the workbench and the
/// renderer would report when they load the world.
fn world_findings(project: &Project) -> Vec<Finding> {
    /// Rate and seed only shape playback, not what is read.
    const RATE: u32 = 48_000;
    let director = crate::world::director::WorldDirector::load(project, RATE, 0);
    director
        .diagnostics()
        .iter()
        .map(|d| Finding {
            lint: Lint::World,
            diagnostic: d.clone(),
        })
        .collect()
}

/// How many files the project was read from (sources and the files they include,
/// built sets, tables, event lists and samples).
pub fn files_checked(project: &Project) -> usize {
    let mut files: BTreeSet<&Path> = BTreeSet::new();
    for piece in &project.inputs.pieces {
        files.insert(&piece.path);
        files.extend(piece.stamps.iter().map(|s| s.path.as_path()));
    }
    files.extend(project.inputs.samples.iter().map(|s| s.path.as_path()));
    files.extend(project.samples.iter().map(PathBuf::as_path));
    let mut world: BTreeSet<PathBuf> = project
        .dirs
        .iter()
        .map(|dir| dir.join(crate::world::settings::FILE_NAME))
        .filter(|file| file.is_file())
        .collect();
    let (ini, mut ignored) = crate::world::settings::WorldIni::load(&project.dirs);
    world.extend(crate::world::lot::Lot::file_in_settings(&ini, &mut ignored));
    world.retain(|file| !files.contains(file.as_path()));
    files.len() + world.len()
}

/// The rule a load diagnostic belongs to, read from the loader's and assembler's
/// wording; [`Lint::Load`] for anything else.
pub fn classify(diagnostic: &Diagnostic) -> Lint {
    let m = diagnostic.message.as_str();
    if m.contains("cannot bind `")
        || (m.starts_with("undefined ") && m.contains('`'))
        || m.contains("is not a label in any loaded code")
        || m.contains("is not defined (no equate, constant or name has it)")
        || m.contains(": unknown name(s) ")
    {
        Lint::UnboundSymbol
    } else if (m.contains("sample file `") && m.ends_with("not found"))
        || (m.contains("sample file `") && m.contains("` is refused ("))
        || m.contains("is outside the data directories")
    {
        Lint::MissingSample
    } else if m.contains("which no table, export table or label defines") {
        Lint::EventWithoutTrack
    } else if m.contains("` is set again in [") {
        Lint::DuplicateDefinition
    } else {
        Lint::Load
    }
}

/// The table parser's "`key` is set again in [Section] on line N" names a line of the
/// table document; for `LIST` lines of a source that is not a line of the file, so this
/// says the source line of the definition that won instead.
fn set_again(project: &Project, d: &Diagnostic) -> Option<String> {
    if d.file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("hot"))
    {
        return None;
    }
    let key = quoted(&d.message)?;
    let section = d.message.split("in [").nth(1)?.split(']').next()?;
    let id = || -> Option<u32> {
        let value = crate::toolchain::formats::number::parse_int(key).or_else(|| match project
            .value(key)?
            .value
        {
            crate::toolchain::project::NameValue::Value(v) => Some(v),
            crate::toolchain::project::NameValue::Code(_) => None,
        })?;
        u32::try_from(value).ok()
    };
    let winner = match section.to_ascii_lowercase().as_str() {
        "patch" => &project.patches.get(&id()?)?.origin,
        "track" => &project.tracks.get(&id()?)?.origin,
        "globalhitlist" => &project.hit_lists.get(&id()?)?.origin,
        "eventmapping" => &project.event(key)?.origin,
        _ => return None,
    };
    let later = if winner.file == d.file && winner.line > d.line {
        format!("on line {}", winner.line)
    } else {
        "later".to_string()
    };
    Some(format!(
        "`{key}` is set again in [{section}] {later}; this earlier definition is ignored"
    ))
}

/// The first name in backquotes in a message.
fn quoted(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message.get(start..)?.find('`')?;
    message.get(start..start + len)
}

/// A " (did you mean …?)" for a load diagnostic, when the project has an obvious
/// candidate and the message does not already suggest one.
fn suggestion(project: &Project, lint: Lint, message: &str) -> Option<String> {
    if message.contains("did you mean") {
        return None;
    }
    match lint {
        Lint::UnboundSymbol => {
            let name = quoted(message)?;
            let labels_only = message.contains("is not a label");
            let mut names: Vec<&str> = project.labels.values().map(|n| n.name.as_str()).collect();
            if !labels_only {
                names.extend(project.values.values().map(|n| n.name.as_str()));
                names.extend(crate::toolchain::symbols::CONSTANTS.iter().map(|(n, _)| *n));
            }
            names.retain(|n| !n.eq_ignore_ascii_case(name));
            let best = crate::toolchain::suggest::closest(name, names.iter().copied())?;
            Some(format!(" (did you mean `{best}`?)"))
        }
        Lint::MissingSample if message.contains("sample file `") => {
            let text = message
                .split("sample file `")
                .nth(1)
                .and_then(|rest| rest.split('`').next())?;
            similar_sample(project, text).map(|s| format!(" (did you mean `{s}`?)"))
        }
        Lint::EventWithoutTrack => {
            let event = project.event(quoted(message)?)?;
            let track = project
                .track_by_name(&event.name)
                .filter(|t| t.id != event.track_id)
                .or_else(|| {
                    let names = project.tracks.values().map(|t| t.name.as_str());
                    let best = crate::toolchain::suggest::closest(&event.name, names)?;
                    project.track_by_name(best)
                })?;
            Some(format!(
                " (did you mean track 0x{:x} `{}`, defined at {}?)",
                track.id, track.name, track.origin
            ))
        }
        _ => None,
    }
}

/// A sample file of the project like the missing `text` (as a patch wrote it): the same
/// name with another extension, else a close name; written the way the patch writes
/// paths.
fn similar_sample(project: &Project, text: &str) -> Option<String> {
    let wanted = crate::toolchain::formats::hot::hot_path_to_relative(text);
    let wanted_name = wanted.file_name()?.to_string_lossy().to_string();
    let wanted_stem = wanted.file_stem()?.to_string_lossy().to_ascii_lowercase();
    let names: Vec<String> = project
        .samples
        .iter()
        .filter_map(|f| crate::toolchain::project::resource_name(f, &project.dirs))
        .collect();
    let file_name = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
    let same_stem = names.iter().find(|n| {
        let name = file_name(n);
        let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
        stem.eq_ignore_ascii_case(&wanted_stem)
    });
    let found = match same_stem {
        Some(n) => n.clone(),
        None => {
            let by_name: Vec<(String, &String)> = names.iter().map(|n| (file_name(n), n)).collect();
            let best = crate::toolchain::suggest::closest(
                &wanted_name,
                by_name.iter().map(|(name, _)| name.as_str()),
            )?;
            by_name
                .iter()
                .find(|(name, _)| name == best)
                .map(|(_, n)| (*n).clone())?
        }
    };
    Some(if text.contains('\\') {
        found.replace('/', "\\")
    } else {
        found
    })
}

// ---------------------------------------------------------------------------
// What the code refers to
// ---------------------------------------------------------------------------

/// Facts from a linear sweep of every unit's code, and lookups built once so that no
/// rule searches the whole project for each item (a project may have tens of thousands
/// of patches).
#[derive(Debug, Default)]
struct CodeFacts<'a> {
    /// The events that name each track (by track ID), in name order.
    events_by_track: HashMap<u32, Vec<&'a EventDef>>,
    /// Patches in a run of consecutive IDs that starts at or passes a computed base
    /// (see [`computed_runs`]).
    computed_patches: HashSet<u32>,
    /// Hit lists likewise.
    computed_lists: HashSet<u32>,
    /// Every constant loaded into a variable (`loadl`, `loadb`).
    constants: HashSet<u32>,
    /// Constants that then take part in arithmetic (`add`, `sub`, …): bases of computed
    /// IDs, like the piano's `1210 + skill level`.
    computed: HashSet<u32>,
    /// True if any code starts, stops or kills a track by ID.
    track_ops: bool,
    /// Far branches: (unit, operand offset) → target.
    far: HashMap<(usize, u32), CodeRef>,
}

impl<'a> CodeFacts<'a> {
    fn gather(project: &'a Project) -> Self {
        let mut facts = CodeFacts::default();
        for event in project.events.values() {
            facts
                .events_by_track
                .entry(event.track_id)
                .or_default()
                .push(event);
        }
        for (index, unit) in project.units.iter().enumerate() {
            for import in &unit.code_imports {
                facts.far.insert((index, import.offset), import.target);
            }
            let bytes = unit.hit.bytes();
            let table = unit.hit.entry_table().map(|t| (t.offset, t.end));
            let mut regs: HashMap<u32, u32> = HashMap::new();
            let mut pc = HEADER_LEN;
            while pc < bytes.len() {
                if let Some((start, end)) = table
                    && pc == start
                {
                    pc = end;
                    continue;
                }
                let Ok(instr) = isa::decode(bytes, pc) else {
                    pc += 1;
                    continue;
                };
                let [a, b, _] = instr.operands;
                match instr.info.op {
                    Opcode::Loadl | Opcode::Loadb => {
                        facts.constants.insert(b);
                        regs.insert(a, b);
                    }
                    Opcode::Set => match regs.get(&b).copied() {
                        Some(value) => {
                            regs.insert(a, value);
                        }
                        None => {
                            regs.remove(&a);
                        }
                    },
                    Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Div => {
                        for var in [a, b] {
                            if let Some(value) = regs.get(&var) {
                                facts.computed.insert(*value);
                            }
                        }
                        regs.remove(&a);
                    }
                    Opcode::Inc | Opcode::Dec => {
                        if let Some(value) = regs.remove(&a) {
                            facts.computed.insert(value);
                        }
                    }
                    Opcode::PlayTrk | Opcode::KillTrk | Opcode::StopTrk => facts.track_ops = true,
                    _ => {}
                }
                pc += instr.len;
            }
        }
        facts.computed_patches = computed_runs(&project.patches, &facts.computed);
        facts.computed_lists = computed_runs(&project.hit_lists, &facts.computed);
        facts
    }

    /// The events that name `track`, in name order.
    fn events_of(&self, track: u32) -> impl Iterator<Item = &'a EventDef> + '_ {
        self.events_by_track
            .get(&track)
            .into_iter()
            .flatten()
            .copied()
    }

    /// The `loadl` constants of the code reachable from `entry` (following branches,
    /// calls and far branches into other units).
    fn reachable_constants(&self, project: &Project, entry: CodeRef) -> BTreeSet<u32> {
        const LIMIT: usize = 100_000;
        let mut constants = BTreeSet::new();
        let mut seen: HashSet<CodeRef> = HashSet::new();
        let mut todo = vec![entry];
        while let Some(at) = todo.pop() {
            if seen.len() >= LIMIT || !seen.insert(at) {
                continue;
            }
            let Some(unit) = project.units.get(at.unit) else {
                continue;
            };
            let Ok(instr) = isa::decode(unit.hit.bytes(), at.address as usize) else {
                continue;
            };
            let operand_at = at.address.saturating_add(1);
            let target = |address: u32| {
                self.far
                    .get(&(at.unit, operand_at))
                    .copied()
                    .unwrap_or(CodeRef {
                        unit: at.unit,
                        address,
                    })
            };
            let next = CodeRef {
                unit: at.unit,
                address: at.address.saturating_add(instr.len as u32),
            };
            match instr.info.op {
                Opcode::End | Opcode::Return | Opcode::Loop => continue,
                Opcode::Jump => {
                    if let Some(JumpTarget::Address(address)) = instr.jump {
                        todo.push(target(address));
                    }
                    continue;
                }
                Opcode::Loadl => {
                    constants.insert(instr.operands[1]);
                }
                _ => {}
            }
            if instr.info.operands.first() == Some(&OperandKind::Addr) {
                todo.push(target(instr.operands[0]));
            }
            todo.push(next);
        }
        constants
    }
}

/// The keys of `map` in a run of consecutive keys that starts at or passes a computed
/// base (like the piano's patches `1210 + skill level`): a key counts when it, or a key
/// before it in its run, is computed. One pass in key order.
fn computed_runs<V>(map: &BTreeMap<u32, V>, computed: &HashSet<u32>) -> HashSet<u32> {
    let mut out = HashSet::new();
    let mut previous: Option<u32> = None;
    let mut in_run = false;
    for &id in map.keys() {
        if previous.and_then(|p| p.checked_add(1)) != Some(id) {
            in_run = false;
        }
        in_run |= computed.contains(&id);
        if in_run {
            out.insert(id);
        }
        previous = Some(id);
    }
    out
}

/// True for event types that start or stop a track (the others use the track ID as a
/// station code, a music mode or nothing).
fn names_a_track(event_type: EventType) -> bool {
    matches!(
        event_type,
        EventType::Play
            | EventType::PlayPiano
            | EventType::Stop
            | EventType::Kill
            | EventType::KillInstance
    )
}

/// True if a `[Track]` line defined the track (not the loader, from a label or an export
/// table).
fn table_defined(track: &TrackDef, facts: &CodeFacts<'_>) -> bool {
    track.id < IMPLICIT_TRACK_BASE && !facts.events_of(track.id).any(|e| e.origin == track.origin)
}

fn track_title(track: &TrackDef) -> String {
    format!("track {} (0x{:x}) `{}`", track.id, track.id, track.name)
}

fn group_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "FX (kGroupSfx)",
        ControlGroup::Music => "Music (kGroupMusic)",
        ControlGroup::Vox => "VOX (kGroupVox)",
    }
}

// ---------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------

/// Decodes a sample file from end to end (through the engine's own decoder, one chunk at
/// a time, up to the decoder's length ceiling): `Err(why)` if it cannot be opened, if
/// not a frame decodes, or if it is damaged somewhere along the way.
fn decode_whole(file: &Path) -> Result<(), String> {
    match scan_file(file, DecodeLimits::default().max_frames) {
        Ok(scanned) => match scanned.partial {
            Some(why) => Err(format!("it is damaged ({why})")),
            None if scanned.frames == 0 => Err("it holds no audio".to_string()),
            None => Ok(()),
        },
        // Longer than a sample may be held: it streams, and what was read decoded.
        Err(DecodeError::TooLong { .. }) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

fn bad_samples(project: &Project, found: &mut Vec<Finding>) {
    // The cache's rule: a sample is only opened if the cache would serve it.
    let rules = ReadRules::within(&project.dirs).with_max_bytes(MAX_RESOURCE_BYTES);
    let mut by_file: BTreeMap<&Path, Vec<&crate::toolchain::project::PatchDef>> = BTreeMap::new();
    for patch in project.patches.values() {
        if let Some(file) = &patch.file {
            by_file.entry(file.as_path()).or_default().push(patch);
        }
    }
    for (file, mut patches) in by_file {
        patches
            .sort_by(|a, b| (&a.origin.file, a.origin.line).cmp(&(&b.origin.file, b.origin.line)));
        let Some(first) = patches.first() else {
            continue;
        };
        if let Err(refusal) = rules.check(file) {
            found.push(Finding::error(
                Lint::MissingSample,
                &first.origin,
                refused_sample(first.id, &first.name, &first.path_text, &refusal),
            ));
            continue;
        }
        let Err(why) = decode_whole(file) else {
            continue;
        };
        let others = match patches.len() - 1 {
            0 => String::new(),
            1 => " (1 other patch uses it too)".to_string(),
            n => format!(" ({n} other patches use it too)"),
        };
        found.push(Finding::error(
            Lint::BadSample,
            &first.origin,
            format!(
                "patch {} ({}): sample `{}` does not decode: {why}{others}; \
                 re-export it, or point the patch at a good file",
                first.id,
                first.name,
                first
                    .resource
                    .as_deref()
                    .map_or_else(|| file.display().to_string(), str::to_string),
            ),
        ));
    }
}

fn unused_tracks(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    for track in project.tracks.values() {
        // A label-made track is there because of its implicit event; a table-defined
        // track needs a real one (the event the loader makes from its label is only a
        // name nobody may ever send).
        let table = table_defined(track, facts);
        let evented = facts.events_of(track.id).any(|e| !table || !e.implicit);
        if evented || (facts.track_ops && facts.constants.contains(&track.id)) {
            continue;
        }
        found.push(Finding::warning(
            Lint::UnusedTrack,
            &track.origin,
            format!(
                "{} is never used: no [EventMapping] or .evt event maps to it and no code \
                 plays it (play_trk/stop_trk/kill_trk); map an event to it, or delete it",
                track_title(track)
            ),
        ));
    }
}

/// Every sound ID something refers to: tracks' patches and hit lists, hit-list entries,
/// `[TrackData]` keys and constants the code loads.
fn sound_refs(project: &Project, facts: &CodeFacts<'_>) -> HashSet<u32> {
    let mut refs: HashSet<u32> = facts.constants.clone();
    for track in project.tracks.values() {
        refs.extend(track.patch);
        refs.extend(track.hit_list);
    }
    for list in project.hit_lists.values() {
        refs.extend(list.entries.iter().copied());
    }
    for unit in &project.units {
        refs.extend(unit.track_data.iter().map(|(id, _)| *id));
    }
    refs
}

fn unused_sounds(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    let refs = sound_refs(project, facts);
    for patch in project.patches.values() {
        if !refs.contains(&patch.id) && !facts.computed_patches.contains(&patch.id) {
            found.push(Finding::warning(
                Lint::UnusedPatch,
                &patch.origin,
                format!(
                    "patch {} ({}) is never used: no track, hit list or code refers to it",
                    patch.id, patch.name
                ),
            ));
        }
    }
    for list in project.hit_lists.values() {
        if !refs.contains(&list.id) && !facts.computed_lists.contains(&list.id) {
            found.push(Finding::warning(
                Lint::UnusedHitList,
                &list.origin,
                format!(
                    "hit list {} is never used: no track, other hit list or code refers to it",
                    list.id
                ),
            ));
        }
    }
}

fn events_of(facts: &CodeFacts<'_>, track: u32) -> Vec<String> {
    facts
        .events_of(track)
        .filter(|e| names_a_track(e.event_type))
        .map(|e| format!("`{}`", e.name))
        .collect()
}

fn tracks_without_code(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    for track in project.tracks.values() {
        let problem = match track.entry {
            Some(at) => match project.units.get(at.unit) {
                None => Some("its code is in no loaded unit".to_string()),
                Some(unit) => {
                    let in_table = unit
                        .hit
                        .entry_table()
                        .is_some_and(|t| (t.offset..t.end).contains(&(at.address as usize)));
                    let decoded = isa::decode(unit.hit.bytes(), at.address as usize);
                    if (at.address as usize) < HEADER_LEN || in_table {
                        Some(format!(
                            "its entry, address {} of {}, is not code",
                            at.address,
                            unit.path().display()
                        ))
                    } else if let Err(e) = decoded {
                        Some(format!(
                            "there is no instruction at its entry, address {} of {} ({e})",
                            at.address,
                            unit.path().display()
                        ))
                    } else {
                        None
                    }
                }
            },
            None if track.patch.is_none() && track.hit_list.is_none() => Some(
                "it has no subroutine, and no patch or hit list to play without one".to_string(),
            ),
            None => None,
        };
        let Some(problem) = problem else {
            continue;
        };
        let events = events_of(facts, track.id);
        let consequence = if events.is_empty() {
            "it plays nothing".to_string()
        } else {
            format!("event(s) {} do nothing", events.join(", "))
        };
        found.push(Finding::error(
            Lint::TrackWithoutCode,
            &track.origin,
            format!("{}: {problem}; {consequence}", track_title(track)),
        ));
    }
}

/// Name words that say which option controls a sound.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The group a name says its sound belongs to, if it says exactly one.
pub fn group_from_name(name: &str) -> Option<ControlGroup> {
    let words = words(name);
    let first = words.first().map(String::as_str).unwrap_or("");
    let has = |w: &str| words.iter().any(|x| x == w);
    let vox = has("vox") || has("voice") || has("voices");
    // The seed: Music controls all music *except the load loop*.
    let music = (["music", "mus", "sting", "stings", "bkground"].contains(&first)
        || first.starts_with("radio")
        || has("music"))
        && !has("load");
    let fx = ["tv", "ui", "sfx", "fx"].contains(&first);
    match (fx, music, vox) {
        (true, false, false) => Some(ControlGroup::Fx),
        (false, true, false) => Some(ControlGroup::Music),
        (false, false, true) => Some(ControlGroup::Vox),
        _ => None,
    }
}

/// True if a sample path lies in a folder for voices.
fn in_voice_folder(path: &str) -> bool {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    let folders = parts.len().saturating_sub(1);
    parts.iter().take(folders).any(|part| {
        let part = part.to_ascii_lowercase();
        ["vox", "voice", "voices"].contains(&part.as_str())
            || part.starts_with("vox_")
            || part.starts_with("voice_")
    })
}

/// Every patch a sound ID means (a patch, or the patches of a hit list and the lists in
/// it).
fn patches_of(project: &Project, id: u32, out: &mut BTreeSet<u32>, seen: &mut HashSet<u32>) {
    if !seen.insert(id) {
        return;
    }
    if project.patches.contains_key(&id) {
        out.insert(id);
    } else if let Some(list) = project.hit_lists.get(&id) {
        for entry in &list.entries {
            patches_of(project, *entry, out, seen);
        }
    }
}

fn wrong_groups(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    for track in project.tracks.values() {
        if !table_defined(track, facts) {
            continue;
        }
        // What the names say: the track's and those of the events that play it.
        let mut names: Vec<(String, ControlGroup)> = Vec::new();
        let mut said = |what: String, name: &str| {
            if let Some(group) = group_from_name(name) {
                names.push((what, group));
            }
        };
        said(format!("track name `{}`", track.name), &track.name);
        for event in facts.events_of(track.id) {
            if !event.implicit && names_a_track(event.event_type) {
                said(format!("event `{}`", event.name), &event.name);
            }
        }
        let groups: BTreeSet<i32> = names.iter().map(|(_, g)| g.number()).collect();
        if groups.len() > 1 {
            continue; // the names disagree among themselves: no guess
        }
        if let Some((what, group)) = names.first() {
            if *group != track.control_group {
                found.push(Finding::warning(
                    Lint::WrongGroup,
                    &track.origin,
                    format!(
                        "{} is in the {} group, but its {what} says {}: the {} option \
                         would not control it; put it in {}",
                        track_title(track),
                        group_name(track.control_group),
                        group_name(*group),
                        option_name(*group),
                        constant_name(*group),
                    ),
                ));
            }
            continue;
        }
        // Names say nothing: what the samples' folders say about voices.
        if track.control_group == ControlGroup::Vox {
            continue;
        }
        let mut sounds: BTreeSet<u32> = track.patch.into_iter().chain(track.hit_list).collect();
        if let Some(entry) = track.entry {
            sounds.extend(facts.reachable_constants(project, entry));
        }
        let mut patches = BTreeSet::new();
        let mut seen = HashSet::new();
        for id in sounds {
            patches_of(project, id, &mut patches, &mut seen);
        }
        let voices: Vec<&crate::toolchain::project::PatchDef> = patches
            .iter()
            .filter_map(|id| project.patches.get(id))
            .filter(|p| in_voice_folder(&voice_path(p)))
            .collect();
        if let Some(first) = voices.first() {
            let more = match voices.len() - 1 {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            found.push(Finding::warning(
                Lint::WrongGroup,
                &track.origin,
                format!(
                    "{} is in the {} group, but it plays voice samples (patch {} `{}` at {}{more}): \
                     the VOX option would not control them; put it in kGroupVox",
                    track_title(track),
                    group_name(track.control_group),
                    first.id,
                    first.path_text,
                    first.origin,
                ),
            ));
        }
    }
}

fn constant_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "kGroupSfx",
        ControlGroup::Music => "kGroupMusic",
        ControlGroup::Vox => "kGroupVox",
    }
}

fn option_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "FX",
        ControlGroup::Music => "Music",
        ControlGroup::Vox => "VOX",
    }
}

/// The path of a patch's sample within its data directory (as the table wrote it when
/// the file was not found).
fn voice_path(patch: &crate::toolchain::project::PatchDef) -> String {
    patch
        .resource
        .as_deref()
        .map_or_else(|| patch.path_text.replace('\\', "/"), str::to_string)
}

fn dangling_references(project: &Project, found: &mut Vec<Finding>) {
    let is_sound =
        |id: &u32| project.patches.contains_key(id) || project.hit_lists.contains_key(id);
    for list in project.hit_lists.values() {
        let missing: BTreeSet<u32> = list
            .entries
            .iter()
            .copied()
            .filter(|e| !is_sound(e))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let ids: Vec<String> = missing.iter().map(u32::to_string).collect();
        found.push(Finding::error(
            Lint::DanglingReference,
            &list.origin,
            format!(
                "hit list {}: entr{} {} {} neither a patch nor a hit list",
                list.id,
                if ids.len() == 1 { "y" } else { "ies" },
                ids.join(", "),
                if ids.len() == 1 { "is" } else { "are" },
            ),
        ));
    }
    let track_data: HashSet<u32> = project
        .units
        .iter()
        .flat_map(|u| u.track_data.iter().map(|(id, _)| *id))
        .collect();
    for track in project.tracks.values() {
        for (field, id) in [("patch", track.patch), ("hit list", track.hit_list)] {
            let Some(id) = id else {
                continue;
            };
            if is_sound(&id) || track_data.contains(&id) {
                continue;
            }
            let message = format!(
                "{}: its {field} {id} is neither a patch nor a hit list",
                track_title(track)
            );
            // Without code the track plays exactly this; with code it may never use it.
            found.push(if track.entry.is_none() {
                Finding::error(Lint::DanglingReference, &track.origin, message)
            } else {
                Finding::warning(Lint::DanglingReference, &track.origin, message)
            });
        }
    }
}

/// Index of the data directory a file belongs to (the last one containing it).
fn dir_of(file: &Path, dirs: &[PathBuf]) -> Option<usize> {
    dirs.iter().rposition(|dir| file.starts_with(dir))
}

fn duplicate_definitions(project: &Project, found: &mut Vec<Finding>) {
    for o in &project.overrides {
        let kinds = ["event ", "track ", "patch ", "hit list "];
        if !kinds.iter().any(|k| o.what.starts_with(k)) {
            continue;
        }
        let (Some(old_dir), Some(new_dir)) = (
            dir_of(&o.old.file, &project.dirs),
            dir_of(&o.new.file, &project.dirs),
        ) else {
            continue;
        };
        if old_dir != new_dir {
            continue; // a later directory overriding an earlier one: on purpose
        }
        found.push(Finding::warning(
            Lint::DuplicateDefinition,
            &o.new,
            format!(
                "{} is defined twice in one data directory: this definition replaces the \
                 one at {}",
                o.what, o.old
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_groups() {
        assert_eq!(group_from_name("vox_baby_cry"), Some(ControlGroup::Vox));
        assert_eq!(
            group_from_name("med_cab_brush_teeth_vox"),
            Some(ControlGroup::Vox)
        );
        assert_eq!(group_from_name("VoxBabyCry"), Some(ControlGroup::Vox));
        assert_eq!(group_from_name("music_buy1"), Some(ControlGroup::Music));
        assert_eq!(group_from_name("radio_rock"), Some(ControlGroup::Music));
        assert_eq!(group_from_name("lot_music_loop"), Some(ControlGroup::Music));
        assert_eq!(group_from_name("music_load_loop"), None);
        assert_eq!(
            group_from_name("tv_repair_deathwarning"),
            Some(ControlGroup::Fx)
        );
        assert_eq!(group_from_name("ui_click"), Some(ControlGroup::Fx));
        assert_eq!(group_from_name("tv_vox_announcer"), None);
        assert_eq!(group_from_name("PlayPiano"), None);
        assert_eq!(group_from_name("track_4096"), None);
        assert_eq!(group_from_name("voxel_hum"), None);
    }

    #[test]
    fn voice_folders() {
        assert!(in_voice_folder("sounds/vox/hello.wav"));
        assert!(in_voice_folder("sounds\\Voices\\hello.wav"));
        assert!(in_voice_folder("vox_adult/hi.wav"));
        assert!(!in_voice_folder("sounds/vox_ouch.wav"));
        assert!(!in_voice_folder("sounds/voxel/x.wav"));
    }

    #[test]
    fn rules_have_unique_names() {
        for lint in Lint::ALL {
            assert_eq!(Lint::from_name(lint.name()), Some(lint));
        }
    }

    #[test]
    fn load_diagnostics_are_classified() {
        let d = |m: &str| Diagnostic::error(Path::new("a"), 1, 0, m);
        assert_eq!(
            classify(&d(
                "cannot bind `x` (used by a.src at offset 3): no data directory defines it"
            )),
            Lint::UnboundSymbol
        );
        assert_eq!(classify(&d("undefined label `x`")), Lint::UnboundSymbol);
        assert_eq!(
            classify(&d("patch 5 (x): sample file `gone.wav` not found")),
            Lint::MissingSample
        );
        assert_eq!(
            classify(&d(
                "event `e` refers to track 7, which no table, export table or label defines"
            )),
            Lint::EventWithoutTrack
        );
        assert_eq!(classify(&d("unknown mnemonic `foo`")), Lint::Load);
    }
}
