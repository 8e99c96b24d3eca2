//! What the code of a project refers to, gathered once by a linear sweep of every unit
//! (constants loaded, constants computed with, far branches, which events name which
//! track), so that no rule searches the whole project for each item.

use crate::toolchain::formats::hit::HEADER_LEN;
use crate::toolchain::isa::{self, JumpTarget, Opcode, OperandKind};
use crate::toolchain::project::{CodeRef, EventDef, IMPLICIT_TRACK_BASE, Project, TrackDef};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Facts from a linear sweep of every unit's code, and lookups built once so that no
/// rule searches the whole project for each item (a project may have tens of thousands
/// of patches).
#[derive(Debug, Default)]
pub(super) struct CodeFacts<'a> {
    /// The events that name each track (by track ID), in name order.
    pub(super) events_by_track: HashMap<u32, Vec<&'a EventDef>>,
    /// Patches in a run of consecutive IDs that starts at or passes a computed base
    /// (see [`computed_runs`]).
    pub(super) computed_patches: HashSet<u32>,
    /// Hit lists likewise.
    pub(super) computed_lists: HashSet<u32>,
    /// Every constant loaded into a variable (`loadl`, `loadb`).
    pub(super) constants: HashSet<u32>,
    /// Constants that then take part in arithmetic (`add`, `sub`, …): bases of computed
    /// IDs, like the piano's `1210 + skill level`.
    pub(super) computed: HashSet<u32>,
    /// True if any code starts, stops or kills a track by ID.
    pub(super) track_ops: bool,
    /// Far branches: (unit, operand offset) → target.
    pub(super) far: HashMap<(usize, u32), CodeRef>,
}

impl<'a> CodeFacts<'a> {
    pub(super) fn gather(project: &'a Project) -> Self {
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
    pub(super) fn events_of(&self, track: u32) -> impl Iterator<Item = &'a EventDef> + '_ {
        self.events_by_track
            .get(&track)
            .into_iter()
            .flatten()
            .copied()
    }

    /// The `loadl` constants of the code reachable from `entry` (following branches,
    /// calls and far branches into other units).
    pub(super) fn reachable_constants(&self, project: &Project, entry: CodeRef) -> BTreeSet<u32> {
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

/// True if a `[Track]` line defined the track (not the loader, from a label or an export
/// table).
pub(super) fn table_defined(track: &TrackDef, facts: &CodeFacts<'_>) -> bool {
    track.id < IMPLICIT_TRACK_BASE && !facts.events_of(track.id).any(|e| e.origin == track.origin)
}
