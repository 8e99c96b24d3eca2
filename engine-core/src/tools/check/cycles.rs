//! `check`'s cycle rules: tracks that start one another with `play_trk` without waiting
//! (the engine stops such a chain with a fault), and hit lists that contain themselves.

use super::facts::CodeFacts;
use super::lint::{Finding, track_title};
use crate::runtime::thread::AttrRegs;
use crate::toolchain::diag::DiagCode;
use crate::toolchain::isa::{self, Instruction, JumpTarget, Opcode, OperandKind};
use crate::toolchain::project::{CodeRef, Origin, Project};
use crate::toolchain::registers::Layout;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The most searches for a shortest cycle started in one group of tracks or hit lists
/// that all reach one another (a strongly connected component). A search costs the
/// size of the group, so searching from each member of a tangle of thousands was
/// quadratic; the first few members' cycles are reported instead (a group that is one
/// plain cycle needs a single search anyway).
pub const MAX_CYCLE_SEARCHES: usize = 8;

/// What the code reachable from a track's entry *without yielding* does.
#[derive(Debug, Default)]
struct Reach {
    /// Tracks started with `play_trk` of a known constant, with the instruction's place.
    starts: BTreeMap<u32, Option<Origin>>,
    /// True if the thread can end (`end`/`return` with nothing to return to) before it
    /// first yields, so a copy started by a later `play_trk` is not refused as already
    /// playing.
    ends: bool,
    /// True if the track lets more than one copy play (sets `MultipleInstances`).
    multiple: bool,
}

/// One path of the walk: where it is, and the constants known to be in registers.
#[derive(Debug, Clone)]
struct Path {
    at: CodeRef,
    regs: HashMap<u32, i64>,
    depth: usize,
}

impl Path {
    /// Follows what an instruction that neither branches nor starts a track does to the
    /// registers: a constant loaded or copied is known, any other write makes a
    /// variable's value unknown.
    fn track_registers(&mut self, instr: &Instruction) {
        let [a, b, _] = instr.operands;
        match instr.info.op {
            Opcode::Loadl => {
                self.regs.insert(a, i64::from(b as i32));
            }
            Opcode::Loadb => {
                self.regs.insert(a, i64::from(b as u8 as i8));
            }
            Opcode::Set | Opcode::Setll => match self.regs.get(&b).copied() {
                Some(value) => {
                    self.regs.insert(a, value);
                }
                None => {
                    self.regs.remove(&a);
                }
            },
            Opcode::Test | Opcode::Cmp | Opcode::NoteOff | Opcode::KillTrk => {}
            _ => {
                if let Some(OperandKind::Var) = instr.info.operands.first() {
                    self.regs.remove(&a);
                }
            }
        }
    }
}

fn reach(project: &Project, facts: &CodeFacts<'_>, entry: CodeRef) -> Reach {
    let mut reach = Reach::default();
    let layout = project
        .units
        .get(entry.unit)
        .map_or(Layout::Ts1, |u| u.layout);
    let multiple = u32::from(AttrRegs::of(layout).multiple);
    let mut seen: HashSet<CodeRef> = HashSet::new();
    let mut todo = vec![Path {
        at: entry,
        regs: HashMap::new(),
        depth: 0,
    }];
    while let Some(mut path) = todo.pop() {
        loop {
            if seen.len() >= super::CYCLE_WALK_LIMIT || !seen.insert(path.at) {
                break;
            }
            let Some(unit) = project.units.get(path.at.unit) else {
                break;
            };
            let Ok(instr) = isa::decode(unit.hit.bytes(), path.at.address as usize) else {
                break;
            };
            let (here, operand_at) = (path.at.unit, path.at.address.saturating_add(1));
            let target = |address: u32| {
                facts
                    .far
                    .get(&(here, operand_at))
                    .copied()
                    .unwrap_or(CodeRef {
                        unit: here,
                        address,
                    })
            };
            let next = CodeRef {
                unit: path.at.unit,
                address: path.at.address.saturating_add(instr.len as u32),
            };
            let [a, _, _] = instr.operands;
            let opcode = instr.info.op;
            if opcode.may_yield() {
                break;
            }
            match opcode {
                Opcode::PlayTrk => {
                    if let Some(track) = path.regs.get(&a).and_then(|v| u32::try_from(*v).ok()) {
                        reach
                            .starts
                            .entry(track)
                            .or_insert_with(|| project.locate(path.at));
                    }
                }
                Opcode::End | Opcode::Return => {
                    // Returning from a call: the walk of the caller goes on after it.
                    reach.ends |= path.depth == 0;
                    break;
                }
                Opcode::Loop => break,
                Opcode::Jump => {
                    match instr.jump {
                        Some(JumpTarget::Address(address)) => path.at = target(address),
                        _ => break,
                    }
                    continue;
                }
                Opcode::Call => {
                    todo.push(Path {
                        at: next,
                        regs: path.regs.clone(),
                        depth: path.depth,
                    });
                    path.at = target(a);
                    path.depth += 1;
                    continue;
                }
                _ => path.track_registers(&instr),
            }
            if path.regs.get(&multiple).is_some_and(|v| *v != 0) {
                reach.multiple = true;
            }
            if instr.info.operands.first() == Some(&OperandKind::Addr) {
                todo.push(Path {
                    at: target(a),
                    regs: path.regs.clone(),
                    depth: path.depth,
                });
            }
            path.at = next;
        }
    }
    reach
}

/// `play-cycle`: tracks that start one another (or a track that allows several copies
/// and starts itself) with `play_trk`, none of them waiting before the next start.
pub(super) fn play_cycles(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    if !facts.track_ops {
        return;
    }
    let reaches: BTreeMap<u32, Reach> = project
        .tracks
        .values()
        .filter_map(|t| Some((t.id, reach(project, facts, t.entry?))))
        .collect();
    // A start leads on when the started track can start its next track in the same
    // tick: it reaches a play_trk without waiting, and the copy that would be started
    // again is gone by then (it ended) or may run twice.
    let edges = |from: u32| -> Vec<u32> {
        reaches.get(&from).map_or_else(Vec::new, |r| {
            r.starts
                .keys()
                .copied()
                .filter(|to| {
                    reaches
                        .get(to)
                        .is_some_and(|t| !t.starts.is_empty() && (t.ends || t.multiple))
                })
                .collect()
        })
    };
    let components = Components::new(reaches.keys().copied(), &edges);
    let mut reported: BTreeSet<Vec<u32>> = BTreeSet::new();
    let mut searches = Searches::default();
    for &start in reaches.keys() {
        if !searches.allowed(&components, start) {
            continue;
        }
        let Some(cycle) = shortest_cycle(start, &edges, &components) else {
            continue;
        };
        if cycle.len() == 1 && !reaches.get(&start).is_some_and(|r| r.multiple) {
            // A single-copy track starting itself only finds itself already playing.
            continue;
        }
        if !cycle.iter().all(|t| {
            reaches
                .get(t)
                .is_some_and(|r| r.ends || r.multiple || cycle.len() == 1)
        }) {
            continue;
        }
        let mut key = cycle.clone();
        key.sort_unstable();
        if !reported.insert(key) {
            continue;
        }
        let name = |id: u32| {
            project
                .tracks
                .get(&id)
                .map_or_else(|| format!("track {id}"), track_title)
        };
        let Some(track) = project.tracks.get(&start) else {
            continue;
        };
        let next = cycle.get(1).copied().unwrap_or(start);
        let at = reaches
            .get(&start)
            .and_then(|r| r.starts.get(&next).cloned().flatten())
            .unwrap_or_else(|| track.origin.clone());
        let path: Vec<String> = cycle
            .iter()
            .chain(std::iter::once(&start))
            .map(|id| name(*id))
            .collect();
        let message = if cycle.len() == 1 {
            format!(
                "{} allows several copies (MultipleInstances) and starts itself with play_trk \
                 without waiting: each copy starts more in the same tick; the engine stops the \
                 chain with a fault after {} instructions or starts; wait before play_trk",
                name(start),
                crate::runtime::EngineConfig::default().chain_fuel_per_tick
            )
        } else {
            format!(
                "play_trk cycle without a wait: {}; the tracks start one another in the same \
                 tick until the engine stops the chain with a fault; wait before play_trk, or \
                 break the cycle",
                path.join(" → ")
            )
        };
        found.push(Finding::warning(DiagCode::PlayCycle, &at, message));
    }
}

/// The strongly connected components of the graph `edges` over `nodes` (Tarjan's
/// algorithm, iterative so that a chain of any length cannot overflow the stack).
struct Components {
    /// The component of every node seen.
    of: HashMap<u32, usize>,
    /// Per component: whether it holds a cycle, and whether it is one simple cycle (each
    /// node has exactly one successor inside), where every node's shortest cycle is the
    /// whole component.
    kind: Vec<(bool, bool)>,
}

/// Tarjan's bookkeeping.
#[derive(Default)]
struct Tarjan {
    index: HashMap<u32, usize>,
    low: HashMap<u32, usize>,
    stack: Vec<u32>,
    on_stack: HashSet<u32>,
    of: HashMap<u32, usize>,
    count: usize,
    /// The walk's own call stack: a node, its successors, the next one to follow.
    calls: Vec<(u32, Vec<u32>, usize)>,
}

impl Tarjan {
    fn enter(&mut self, node: u32, edges: &dyn Fn(u32) -> Vec<u32>) {
        let i = self.index.len();
        self.index.insert(node, i);
        self.low.insert(node, i);
        self.stack.push(node);
        self.on_stack.insert(node);
        self.calls.push((node, edges(node), 0));
    }

    fn lower(&mut self, node: u32, to: usize) {
        if let Some(low) = self.low.get_mut(&node) {
            *low = (*low).min(to);
        }
    }

    fn walk(&mut self, root: u32, edges: &dyn Fn(u32) -> Vec<u32>) {
        self.enter(root, edges);
        while let Some((node, successors, next)) = self.calls.last_mut() {
            let node = *node;
            if let Some(&to) = successors.get(*next) {
                *next += 1;
                match self.index.get(&to).copied() {
                    None => self.enter(to, edges),
                    Some(i) if self.on_stack.contains(&to) => self.lower(node, i),
                    Some(_) => {}
                }
                continue;
            }
            self.calls.pop();
            let low = self.low.get(&node).copied().unwrap_or(0);
            if let Some(&(parent, _, _)) = self.calls.last() {
                self.lower(parent, low);
            }
            if self.index.get(&node) == Some(&low) {
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(&member);
                    self.of.insert(member, self.count);
                    if member == node {
                        break;
                    }
                }
                self.count += 1;
            }
        }
    }
}

impl Components {
    fn new(nodes: impl Iterator<Item = u32>, edges: &dyn Fn(u32) -> Vec<u32>) -> Self {
        let mut tarjan = Tarjan::default();
        for root in nodes {
            if !tarjan.index.contains_key(&root) {
                tarjan.walk(root, edges);
            }
        }
        let Tarjan { of, count, .. } = tarjan;
        let mut sizes = vec![0usize; count];
        let mut inner_edges = vec![0usize; count];
        for (&node, &c) in &of {
            let inside: HashSet<u32> = edges(node)
                .into_iter()
                .filter(|to| of.get(to) == Some(&c))
                .collect();
            if let (Some(size), Some(inner)) = (sizes.get_mut(c), inner_edges.get_mut(c)) {
                *size += 1;
                *inner += inside.len();
            }
        }
        let kind = sizes
            .iter()
            .zip(&inner_edges)
            .map(|(&size, &edges)| (edges > 0, edges == size))
            .collect();
        Components { of, kind }
    }

    /// The component of `node` if a cycle runs through it, with whether the component is
    /// one simple cycle.
    fn cyclic(&self, node: u32) -> Option<(usize, bool)> {
        let c = *self.of.get(&node)?;
        let (cyclic, simple) = *self.kind.get(c)?;
        cyclic.then_some((c, simple))
    }
}

/// Searches started per component.
#[derive(Default)]
struct Searches(HashMap<usize, usize>);

impl Searches {
    /// Whether to search for a cycle through `node`: only if one runs through it, once
    /// in a component that is one simple cycle (every member's shortest cycle is the
    /// whole component), and at most [`MAX_CYCLE_SEARCHES`] times in any other.
    fn allowed(&mut self, components: &Components, node: u32) -> bool {
        let Some((component, simple)) = components.cyclic(node) else {
            return false;
        };
        let done = self.0.entry(component).or_insert(0);
        let limit = if simple { 1 } else { MAX_CYCLE_SEARCHES };
        if *done >= limit {
            return false;
        }
        *done += 1;
        true
    }
}

/// The shortest cycle through `start` in the graph `edges` (breadth first), as the
/// list of nodes from `start` on. Only nodes of `start`'s component can be on it, so the
/// search stays inside (it would find the same cycle without that, just slower).
fn shortest_cycle(
    start: u32,
    edges: &dyn Fn(u32) -> Vec<u32>,
    components: &Components,
) -> Option<Vec<u32>> {
    let (component, _) = components.cyclic(start)?;
    let mut parent: HashMap<u32, u32> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut visited: HashSet<u32> = HashSet::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in edges(node) {
            if components.of.get(&next) != Some(&component) {
                continue;
            }
            if next == start {
                let mut cycle = vec![node];
                let mut at = node;
                while at != start {
                    at = *parent.get(&at)?;
                    cycle.push(at);
                }
                cycle.reverse();
                return Some(cycle);
            }
            if visited.insert(next) {
                parent.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    None
}

/// `hit-list-cycle`: a hit list that contains itself, directly or through lists inside
/// it. With no other entry to leave by, a pick never reaches a sample (an error: the
/// track that picks it is stopped with a fault); with one, picks may go round the cycle
/// before they reach a sample (a warning).
pub(super) fn hit_list_cycles(project: &Project, found: &mut Vec<Finding>) {
    let lists = &project.hit_lists;
    let is_list = |e: &u32| lists.contains_key(e) && !project.patches.contains_key(e);
    let inner = |id: u32| -> Vec<u32> {
        lists.get(&id).map_or_else(Vec::new, |l| {
            l.entries.iter().copied().filter(|e| is_list(e)).collect()
        })
    };
    let components = Components::new(lists.keys().copied(), &inner);
    let mut reported: BTreeSet<Vec<u32>> = BTreeSet::new();
    let mut searches = Searches::default();
    for list in lists.values() {
        if !searches.allowed(&components, list.id) {
            continue;
        }
        let Some(cycle) = shortest_cycle(list.id, &inner, &components) else {
            continue;
        };
        let mut key = cycle.clone();
        key.sort_unstable();
        if !reported.insert(key.clone()) {
            continue;
        }
        let closed = cycle.iter().all(|id| {
            lists
                .get(id)
                .is_some_and(|l| l.entries.iter().all(|e| key.binary_search(e).is_ok()))
        });
        let what = if cycle.len() == 1 {
            format!("hit list {} contains itself", list.id)
        } else {
            let path: Vec<String> = cycle
                .iter()
                .chain(std::iter::once(&list.id))
                .map(ToString::to_string)
                .collect();
            format!(
                "hit lists contain one another in a cycle: {}",
                path.join(" → ")
            )
        };
        found.push(if closed {
            Finding::error(
                DiagCode::HitListCycle,
                &list.origin,
                format!(
                    "{what}, and nothing else: a pick never reaches a sample (the track that \
                     picks from it is stopped with a fault)"
                ),
            )
        } else {
            Finding::warning(
                DiagCode::HitListCycle,
                &list.origin,
                format!(
                    "{what}: a pick may go round the cycle before it reaches a sample, \
                     and more than {} lists deep it stops the track",
                    crate::runtime::MAX_LIST_DEPTH
                ),
            )
        });
    }
}
