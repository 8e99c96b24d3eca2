//! The project's code predecoded for the VM: every unit's instructions as one array of
//! small fixed-size [`Op`]s with branch targets already resolved to op indices (across
//! units for late-bound far branches), so the interpreter never decodes bytes.
//!
//! Decoding follows the code from offset 16 and from every branch target and entry
//! point, so a branch into the middle of what a linear sweep saw still finds its
//! instructions. Bytes that do not decode become `Opcode::Invalid` ops that fault when run; the
//! export table is data and is never decoded.

use crate::toolchain::isa::{self, JumpTarget, Opcode, OperandKind};
use crate::toolchain::project::{CodeRef, Project};
use crate::toolchain::registers::Layout;

/// "No op here": an address that is not an instruction, or a missing successor.
pub const NONE: u32 = u32::MAX;

/// `Op::through_var` of a fall-through link: not an instruction of the code but the
/// seam at the end of a run of decoded ops, going on at `target` (the instruction that
/// follows in the code, decoded earlier, or [`NONE`] past the end). With one after every
/// run, the instruction that follows an op is always the next op in the array, so the
/// interpreter's fast path steps with `pc + 1` instead of waiting for a load of `next`.
/// A link runs for free (no fuel, not counted) and never holds a thread.
pub const LINK: u8 = 3;

/// One predecoded instruction, 32 bytes: a power of two, so the op at an index is a
/// shift away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(align(32))]
pub struct Op {
    /// The opcode ([`Opcode::Invalid`] if the bytes did not decode; the byte is then in
    /// `a`).
    pub code: Opcode,
    /// First 1-byte operand (var or byte).
    pub a: u8,
    /// Second 1-byte operand.
    pub b: u8,
    /// Third 1-byte operand.
    pub c: u8,
    /// The unit the op belongs to.
    pub unit: u16,
    /// For `jump`: 1 if it jumps through variable `a`.
    pub through_var: u8,
    /// Byte address of the instruction in its unit.
    pub addr: u32,
    /// 4-byte operand (dword, or the address of a branch).
    pub imm: i32,
    /// Second 4-byte operand (`limit`'s upper bound).
    pub imm2: i32,
    /// For branches: the op index of the target, or [`NONE`] if it is not code.
    pub target: u32,
    /// The op index of the instruction that follows, or [`NONE`] past the end.
    pub next: u32,
    /// 0, or the condition of the conditional branch that directly follows this op, as
    /// the results it is taken on (bit 0 negative, bit 1 zero, bit 2 positive: `ifle` is
    /// 0b011), its target then in `target`: the interpreter's fast path runs both in one
    /// step (a compare and its branch, most often), counting two instructions.
    pub fuse: u8,
    /// How many ops from this one on run straight, one after the other in the array
    /// (at least 1, at most `u16::MAX`): the interpreter's fast path checks the fuel and
    /// the end of the code once for all of them. A branch or an op with a fused branch
    /// ([`fuse`](Self::fuse)) is the last op of its run; a link is a run of its own.
    pub run: u16,
}

impl Op {
    /// True for a fall-through link ([`LINK`]), which is no instruction.
    #[inline(always)]
    pub fn is_link(&self) -> bool {
        self.code == Opcode::Jump && self.through_var == LINK
    }
}

/// Per-unit lookup from byte address to op index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitCode {
    /// `index[addr]` is the op at that address, or [`NONE`].
    pub index: Vec<u32>,
    /// The unit's register layout.
    pub layout: Layout,
}

/// The whole project's code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    /// Every op of every unit.
    pub ops: Vec<Op>,
    /// Address lookup per unit.
    pub units: Vec<UnitCode>,
    /// True if any op reads or writes a global (threads then share them).
    pub uses_globals: bool,
}

impl Program {
    /// Predecodes every unit of the project.
    pub fn build(project: &Project) -> Self {
        let mut program = Program::default();
        for (unit_index, unit) in project.units.iter().enumerate() {
            let mut starts: Vec<u32> = vec![crate::toolchain::formats::hit::HEADER_LEN as u32];
            starts.extend(unit.labels.iter().map(|(_, a)| *a));
            starts.extend(project.tracks.values().filter_map(|t| {
                let entry = t.entry?;
                (entry.unit == unit_index).then_some(entry.address)
            }));
            if let Some(table) = unit.hit.entry_table() {
                starts.extend(table.entries.iter().map(|e| e.address));
            }
            // Lowest address first (the work list pops from the end): one run then
            // covers all the code a linear sweep reaches, in address order.
            starts.sort_unstable_by(|a, b| b.cmp(a));
            starts.dedup();
            program.decode_unit(
                unit_index,
                unit.hit.bytes(),
                unit.hit.entry_table().map(|t| (t.offset, t.end)),
                unit.layout,
                starts,
            );
        }
        program.link(project);
        program.uses_globals = program.ops.iter().any(touches_globals);
        program
    }

    fn decode_unit(
        &mut self,
        unit: usize,
        bytes: &[u8],
        table: Option<(usize, usize)>,
        layout: Layout,
        mut work: Vec<u32>,
    ) {
        let unit_id = u16::try_from(unit).unwrap_or(u16::MAX);
        let mut index = vec![NONE; bytes.len()];
        let in_table = |pc: usize| table.is_some_and(|(start, end)| pc >= start && pc < end);
        while let Some(start) = work.pop() {
            let mut pc = start as usize;
            let first = self.ops.len();
            while pc < bytes.len()
                && index[pc] == NONE
                && !in_table(pc)
                && pc >= crate::toolchain::formats::hit::HEADER_LEN
            {
                let op_index = u32::try_from(self.ops.len()).unwrap_or(NONE);
                index[pc] = op_index;
                let (op, len) = decode_op(bytes, pc, unit_id);
                if op.code != Opcode::Invalid
                    && let Ok(target) = u32::try_from(op.imm)
                    && op.code.is_branch()
                    && op.through_var == 0
                {
                    work.push(target);
                }
                self.ops.push(op);
                pc += len;
            }
            if self.ops.len() > first {
                // The run ends: a link on to where the code goes on.
                let target = index.get(pc).copied().unwrap_or(NONE);
                self.ops.push(link_op(unit_id, target));
            }
        }
        self.units.push(UnitCode { index, layout });
    }

    /// Fills `next` and branch `target`s, including far branches bound at load.
    fn link(&mut self, project: &Project) {
        for op_index in 0..self.ops.len() {
            let op = self.ops[op_index];
            if op.is_link() {
                continue;
            }
            let unit = usize::from(op.unit);
            let len = op_len(&op);
            let next = self.index_of(unit, op.addr as usize + len);
            let mut target = NONE;
            if op.code.is_branch() && op.through_var == 0 {
                let far = project.units.get(unit).and_then(|u| {
                    u.code_imports
                        .iter()
                        .find(|i| i.offset == op.addr + 1)
                        .map(|i| i.target)
                });
                target = match far {
                    Some(at) => self.op_at(at).unwrap_or(NONE),
                    None => u32::try_from(op.imm).map_or(NONE, |a| self.index_of(unit, a as usize)),
                };
            }
            if let Some(op) = self.ops.get_mut(op_index) {
                op.next = next;
                op.target = target;
            }
        }
        self.fuse_branches();
        self.mark_runs();
    }

    /// Sets every op's [`Op::run`], from the end back.
    fn mark_runs(&mut self) {
        let mut after: Option<Op> = None;
        for op in self.ops.iter_mut().rev() {
            let goes_on = !op.code.is_branch()
                && !op.is_link()
                && op.fuse == 0
                && after.is_some_and(|next| !next.is_link());
            op.run = match after {
                Some(next) if goes_on => next.run.saturating_add(1),
                _ => 1,
            };
            after = Some(*op);
        }
    }

    /// Marks every op that a conditional branch directly follows (the op after it in the
    /// code is the next in the array, and the branch goes to code) with that branch.
    fn fuse_branches(&mut self) {
        for index in 0..self.ops.len().saturating_sub(1) {
            let (op, branch) = (self.ops[index], self.ops[index + 1]);
            let kind = match branch.code {
                Opcode::Ifeq => 0b010,
                Opcode::Ifne => 0b101,
                Opcode::Ifgt => 0b100,
                Opcode::Iflt => 0b001,
                Opcode::Ifge => 0b110,
                Opcode::Ifle => 0b011,
                _ => continue,
            };
            let follows = usize::try_from(op.next).is_ok_and(|next| next == index + 1);
            if op.code.is_branch() || op.is_link() || !follows || branch.target == NONE {
                continue;
            }
            if let Some(op) = self.ops.get_mut(index) {
                op.fuse = kind;
                op.target = branch.target;
            }
        }
    }

    fn index_of(&self, unit: usize, address: usize) -> u32 {
        self.units
            .get(unit)
            .and_then(|u| u.index.get(address))
            .copied()
            .unwrap_or(NONE)
    }

    /// The op at a code address, if an instruction starts there.
    pub fn op_at(&self, at: CodeRef) -> Option<u32> {
        let index = self.index_of(at.unit, at.address as usize);
        (index != NONE).then_some(index)
    }

    /// The op at an address of a unit (for jumps through a variable).
    pub fn op_at_address(&self, unit: u16, address: i32) -> Option<u32> {
        let address = usize::try_from(address).ok()?;
        let index = self.index_of(usize::from(unit), address);
        (index != NONE).then_some(index)
    }

    /// The layout of a unit.
    pub fn layout(&self, unit: u16) -> Layout {
        self.units
            .get(usize::from(unit))
            .map_or(Layout::Tso, |u| u.layout)
    }
}

/// True if an op may read or write a global variable.
fn touches_globals(op: &Op) -> bool {
    if matches!(op.code, Opcode::Setlg | Opcode::Setgl) {
        return true;
    }
    let Some(info) = op.code.info() else {
        return false;
    };
    let vars = [op.a, op.b, op.c];
    let mut small = 0;
    for kind in info.operands {
        match kind {
            OperandKind::Var | OperandKind::Byte => {
                if *kind == OperandKind::Var
                    && vars
                        .get(small)
                        .is_some_and(|v| crate::toolchain::registers::is_global(*v))
                {
                    return true;
                }
                small += 1;
            }
            OperandKind::Jump
                if op.through_var != 0 && crate::toolchain::registers::is_global(op.a) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// The encoded length of an op (1 for an invalid byte).
pub fn op_len(op: &Op) -> usize {
    if op.code == Opcode::Invalid {
        return 1;
    }
    if op.code == Opcode::Jump && op.through_var == 2 {
        return 2;
    }
    op.code.info().map_or(1, |i| i.size())
}

/// A fall-through link to `target` ([`LINK`]). Its address is outside any code, so
/// no source line, breakpoint or disassembly ever shows it.
fn link_op(unit: u16, target: u32) -> Op {
    Op {
        code: Opcode::Jump,
        a: 0,
        b: 0,
        c: 0,
        unit,
        through_var: LINK,
        addr: NONE,
        imm: 0,
        imm2: 0,
        target,
        next: NONE,
        fuse: 0,
        run: 1,
    }
}

fn decode_op(bytes: &[u8], pc: usize, unit: u16) -> (Op, usize) {
    let mut op = Op {
        code: Opcode::Invalid,
        a: 0,
        b: 0,
        c: 0,
        unit,
        through_var: 0,
        addr: u32::try_from(pc).unwrap_or(u32::MAX),
        imm: 0,
        imm2: 0,
        target: NONE,
        next: NONE,
        fuse: 0,
        run: 1,
    };
    let Ok(instr) = isa::decode(bytes, pc) else {
        op.a = bytes.get(pc).copied().unwrap_or(0);
        return (op, 1);
    };
    op.code = instr.info.op;
    let mut small = 0;
    let mut large = 0;
    for (slot, kind) in instr.info.operands.iter().enumerate() {
        let value = instr.operands.get(slot).copied().unwrap_or(0);
        match kind {
            OperandKind::Var | OperandKind::Byte => {
                let byte = value as u8;
                match small {
                    0 => op.a = byte,
                    1 => op.b = byte,
                    _ => op.c = byte,
                }
                small += 1;
            }
            OperandKind::Dword | OperandKind::Addr => {
                if large == 0 {
                    op.imm = value as i32;
                } else {
                    op.imm2 = value as i32;
                }
                large += 1;
            }
            OperandKind::Jump => match instr.jump {
                Some(JumpTarget::Var { var, len }) => {
                    op.a = var;
                    op.through_var = if len == 1 { 2 } else { 1 };
                }
                _ => op.imm = value as i32,
            },
        }
    }
    (op, instr.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_stay_small() {
        assert_eq!(size_of::<Op>(), 32);
    }

    #[test]
    fn runs_end_at_branches_links_fused_ops_and_the_end() {
        let op = |code, fuse| Op {
            code,
            through_var: 0,
            fuse,
            ..link_op(0, NONE)
        };
        let mut program = Program {
            ops: vec![
                op(Opcode::Loadb, 0),
                op(Opcode::Add, 0),
                op(Opcode::Cmp, 0b001),
                op(Opcode::Iflt, 0),
                op(Opcode::Inc, 0),
                link_op(0, 0),
                op(Opcode::Xor, 0),
                op(Opcode::Jump, 0),
                op(Opcode::Inc, 0),
            ],
            ..Program::default()
        };
        program.mark_runs();
        let runs: Vec<u16> = program.ops.iter().map(|op| op.run).collect();
        assert_eq!(runs, [3, 2, 1, 1, 1, 1, 2, 1, 1]);
    }

    #[test]
    fn a_run_counts_at_most_u16_max_ops() {
        let mut program = Program {
            ops: vec![
                Op {
                    code: Opcode::Inc,
                    through_var: 0,
                    ..link_op(0, NONE)
                };
                70_000
            ],
            ..Program::default()
        };
        program.mark_runs();
        assert_eq!(program.ops[0].run, u16::MAX);
        assert_eq!(program.ops[69_999].run, 1);
        assert_eq!(program.ops[70_000 - 1000].run, 1000);
    }
}
