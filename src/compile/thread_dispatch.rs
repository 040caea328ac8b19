//! An interpreter's dispatch block is copied into each block that jumps to
//! it, so that every opcode handler ends in an indirect jump of its own.
//!
//! C interpreters (Lua's `luaV_execute`, CPython's ceval) end each handler
//! with `goto *table[next_opcode]`. Natively, that is one indirect jump per
//! handler, and the CPU's predictor learns which handler tends to follow
//! which. WebAssembly has no computed goto: clang turns every such jump
//! into a jump to one shared block that loads the next opcode and ends in
//! a `br_table`, and all handlers then share that one indirect jump, whose
//! target the predictor can only guess from global history. In Lua's loop
//! it is 9 instructions (load the instruction, mask the opcode, load the
//! handler's number from the table, `br_table`) with 78 predecessors.
//!
//! For a block that ends in a `br_table` of at least [`MIN_TARGETS`]
//! targets, holds at most [`MAX_BODY`] other instructions and is reached by
//! at least two `jump`s, each such jump is replaced by a copy of the block
//! (its parameters replaced by the jump's arguments). Every path then runs
//! exactly one copy, so nothing about the instructions themselves needs
//! proof. What changes is SSA form: a value the block defined, used in the
//! handlers, now has one definition per copy. Its uses are rewritten to
//! the definition that reaches them, with block parameters added where
//! copies meet (the on-demand construction of Braun et al., "Simple and
//! Efficient Construction of Static Single Assignment Form", 2013), and the
//! parameters that turn out to pass one value are removed again.
//!
//! Runs last among the late passes (`Config::thread_dispatch`): the loop
//! passes look for loop headers, which the dispatch block was.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{
    Block, BlockArg, BlockCall, Function, Inst, InstBuilder, InstructionData, JumpTableData, Value, ValueDef,
};

/// Fewer targets than this is a `switch`, not a dispatch: a copy per
/// predecessor would buy little prediction for its code size.
pub const MIN_TARGETS: usize = 8;

/// Instructions (besides the `br_table`) a dispatch block may hold to be
/// copied. Lua's has 9; a bigger block is more than a dispatch.
pub const MAX_BODY: usize = 16;

/// Copies of instructions a function may gain in all.
const MAX_GROWTH: usize = 4096;

/// Copies each dispatch block of `func` into the blocks that jump to it
/// (see the module comment). Returns whether the function changed, in
/// which case its control-flow graph and dominator tree are stale.
pub fn thread_dispatch(func: &mut Function, cfg: &ControlFlowGraph) -> bool {
    let mut growth = 0;
    let mut changed = false;
    let candidates: Vec<Block> = func.layout.blocks().filter(|&b| is_dispatch(func, b)).collect();
    for block in candidates {
        let jumps: Vec<Inst> = cfg
            .pred_iter(block)
            .map(|p| p.inst)
            .filter(|&i| matches!(func.dfg.insts[i], InstructionData::Jump { .. }))
            .collect();
        let body = func.layout.block_insts(block).count() - 1;
        if jumps.len() < 2 || growth + jumps.len() * body > MAX_GROWTH {
            continue;
        }
        growth += jumps.len() * body;
        copy_into_predecessors(func, block, &jumps);
        changed = true;
    }
    if changed {
        // The phis of the repair may pass through aliases.
        func.dfg.resolve_all_aliases();
    }
    changed
}

/// Whether `block` is small and ends in a wide `br_table`.
fn is_dispatch(func: &Function, block: Block) -> bool {
    if func.layout.entry_block() == Some(block) {
        return false;
    }
    let Some(last) = func.layout.last_inst(block) else { return false };
    let InstructionData::BranchTable { table, .. } = func.dfg.insts[last] else { return false };
    func.dfg.jump_tables[table].as_slice().len() >= MIN_TARGETS
        && func.layout.block_insts(block).nth(MAX_BODY + 1).is_none()
}

/// Replaces each of `jumps` (to `block`) by a copy of `block`, then repairs
/// SSA form for the values `block` defines. `block` is removed if no
/// branch reaches it any more.
fn copy_into_predecessors(func: &mut Function, block: Block, jumps: &[Inst]) {
    let params: Vec<Value> = func.dfg.block_params(block).to_vec();
    let body: Vec<Inst> = func.layout.block_insts(block).collect();
    let (terminator, body) = body.split_last().expect("a dispatch block ends in its br_table");
    let mut defined: Vec<Value> = params.clone();
    for &inst in body {
        defined.extend_from_slice(func.dfg.inst_results(inst));
    }

    // Each copy's definitions, by the block that now holds the copy.
    let mut copies: HashMap<Block, HashMap<Value, Value>> = HashMap::new();
    for &jump in jumps {
        let pred = func.layout.inst_block(jump).expect("a predecessor is in the layout");
        let InstructionData::Jump { destination, .. } = func.dfg.insts[jump] else { unreachable!() };
        let mut map: HashMap<Value, Value> = HashMap::new();
        for (&p, arg) in params.iter().zip(destination.args(&func.dfg.value_lists)) {
            let BlockArg::Value(arg) = arg else { unreachable!("a jump passes plain values") };
            map.insert(p, arg);
        }
        func.layout.remove_inst(jump);
        let mut cursor = FuncCursor::new(func).at_bottom(pred);
        for &inst in body {
            let copy = cursor.func.dfg.clone_inst(inst);
            cursor.func.dfg.map_inst_values(copy, |v| *map.get(&v).unwrap_or(&v));
            let loc = cursor.func.srcloc(inst);
            cursor.func.set_srcloc(copy, loc);
            cursor.insert_inst(copy);
            for (&old, &new) in cursor.func.dfg.inst_results(inst).iter().zip(cursor.func.dfg.inst_results(copy)) {
                map.insert(old, new);
            }
        }
        let InstructionData::BranchTable { arg, table, .. } = cursor.func.dfg.insts[*terminator] else {
            unreachable!("is_dispatch checked the terminator")
        };
        let index = *map.get(&arg).unwrap_or(&arg);
        let calls: Vec<BlockCall> = cursor.func.dfg.jump_tables[table].all_branches().to_vec();
        let calls: Vec<BlockCall> = calls
            .iter()
            .map(|call| {
                let target = call.block(&cursor.func.dfg.value_lists);
                let args: Vec<BlockArg> = call
                    .args(&cursor.func.dfg.value_lists)
                    .map(|a| match a {
                        BlockArg::Value(v) => BlockArg::Value(*map.get(&v).unwrap_or(&v)),
                        other => other,
                    })
                    .collect();
                cursor.func.dfg.block_call(target, &args)
            })
            .collect();
        let (default, entries) = calls.split_first().expect("a jump table has a default");
        let copied = cursor.func.dfg.jump_tables.push(JumpTableData::new(*default, entries));
        cursor.set_srcloc(cursor.func.srcloc(*terminator));
        cursor.ins().br_table(index, copied);
        copies.insert(pred, map);
    }

    let mut cfg = ControlFlowGraph::with_function(func);
    let keep = cfg.pred_iter(block).next().is_some();
    if !keep {
        for inst in func.layout.block_insts(block).collect::<Vec<_>>() {
            func.layout.remove_inst(inst);
        }
        func.layout.remove_block(block);
        cfg.compute(func);
    }
    let defined: HashSet<Value> = defined.into_iter().collect();
    let mut repair = Repair {
        func,
        cfg: &cfg,
        block: keep.then_some(block),
        defined: &defined,
        copies: &copies,
        at_entry: HashMap::new(),
        pending: Vec::new(),
        added: Vec::new(),
    };
    repair.rewrite_uses();
    repair.remove_redundant_params();
}

/// The state of the SSA repair of one copied block.
struct Repair<'a> {
    func: &'a mut Function,
    cfg: &'a ControlFlowGraph,
    /// The copied block, if it is still reached.
    block: Option<Block>,
    /// The values the block defined (its parameters and results).
    defined: &'a HashSet<Value>,
    /// Each copy's value for each value the block defined, by the block
    /// holding the copy. A parameter's value may be one the block defined
    /// (a jump that passed a parameter on unchanged): that one's value on
    /// entry to the copy's block.
    copies: &'a HashMap<Block, HashMap<Value, Value>>,
    /// The definition of a value reaching the start of a block.
    at_entry: HashMap<(Value, Block), Value>,
    /// Parameters added whose edges pass no value yet: (value, block,
    /// parameter).
    pending: Vec<(Value, Block, Value)>,
    /// The block parameters added, as (block, parameter).
    added: Vec<(Block, Value)>,
}

impl Repair<'_> {
    /// Rewrites every use, outside the copied block, of a value it defined
    /// to the definition reaching it.
    fn rewrite_uses(&mut self) {
        let mut users: Vec<(Block, Inst)> = Vec::new();
        for b in self.func.layout.blocks() {
            if Some(b) == self.block {
                continue;
            }
            for inst in self.func.layout.block_insts(b) {
                if self.func.dfg.inst_values(inst).any(|x| self.defined.contains(&x)) {
                    users.push((b, inst));
                }
            }
        }
        for (b, inst) in users {
            let used: Vec<Value> = self.func.dfg.inst_values(inst).filter(|x| self.defined.contains(x)).collect();
            let reaching: HashMap<Value, Value> = used.into_iter().map(|v| (v, self.entry(v, b))).collect();
            self.func.dfg.map_inst_values(inst, |x| *reaching.get(&x).unwrap_or(&x));
        }
        // Each added parameter gets, on every edge into its block, the
        // value reaching the end of the edge's source; that may add more.
        while let Some((v, b, param)) = self.pending.pop() {
            let ValueDef::Param(_, index) = self.func.dfg.value_def(param) else { unreachable!() };
            let preds: Vec<(Block, Inst)> = self.cfg.pred_iter(b).map(|p| (p.block, p.inst)).collect();
            for (pred, inst) in preds {
                let value = self.end(v, pred);
                set_edge_arg(self.func, inst, b, index, value);
            }
        }
    }

    /// The definition of `v` reaching the end of `b`.
    fn end(&mut self, v: Value, b: Block) -> Value {
        if Some(b) == self.block {
            return v;
        }
        match self.copies.get(&b).map(|copy| copy[&v]) {
            Some(w) if self.defined.contains(&w) => self.entry(w, b),
            Some(w) => w,
            None => self.entry(v, b),
        }
    }

    /// The definition of `v` reaching the start of `b`: through a chain of
    /// single predecessors, up to a block that defines it or one where
    /// several edges meet, which gets a new parameter (its edges' values
    /// are filled in from `pending`).
    fn entry(&mut self, v: Value, b: Block) -> Value {
        let mut chain = Vec::new();
        let mut here = b;
        let value = loop {
            if let Some(&known) = self.at_entry.get(&(v, here)) {
                break known;
            }
            let mut preds = self.cfg.pred_iter(here);
            let (Some(only), None) = (preds.next(), preds.next()) else {
                // Several edges meet here (none is impossible: every path
                // to a use of `v` ran the block or one of its copies).
                chain.push(here);
                // The edges pass the parameter itself until `pending` is
                // done, so that parameters added later line up.
                let ty = self.func.dfg.value_type(v);
                let param = self.func.dfg.append_block_param(here, ty);
                for pred in self.cfg.pred_iter(here) {
                    append_edge_arg(self.func, pred.inst, here, param);
                }
                self.added.push((here, param));
                self.pending.push((v, here, param));
                break param;
            };
            chain.push(here);
            if Some(only.block) == self.block || self.copies.contains_key(&only.block) {
                // A cycle of single predecessors is unreachable, so this
                // recursion (a copy passing a parameter on) ends.
                break self.end(v, only.block);
            }
            here = only.block;
        };
        for b in chain {
            self.at_entry.insert((v, b), value);
        }
        value
    }

    /// Removes the added parameters that, with the other added ones they
    /// receive, only ever pass on one value from outside: a parameter
    /// receiving one value (besides itself), and, as copies usually make
    /// them, a cycle of parameters feeding each other that receives one
    /// value from outside (a handler's state that no handler changes).
    /// Such a group is a strongly connected component of the graph "takes
    /// as argument" among the added parameters (section 3.2 of the paper).
    /// Repeated until nothing changes, since a removal can make another
    /// group redundant.
    fn remove_redundant_params(&mut self) {
        let mut removed: HashSet<Value> = HashSet::new();
        loop {
            let live: Vec<(Block, Value)> = self.added.iter().copied().filter(|(_, p)| !removed.contains(p)).collect();
            let position: HashMap<Value, usize> = live.iter().enumerate().map(|(i, &(_, p))| (p, i)).collect();
            let incoming: Vec<Vec<Value>> = live.iter().map(|&(b, p)| self.incoming(b, p)).collect();
            let uses: Vec<Vec<usize>> =
                incoming.iter().map(|args| args.iter().filter_map(|a| position.get(a).copied()).collect()).collect();
            let mut progress = false;
            for component in strongly_connected_components(&uses) {
                let members: HashSet<Value> = component.iter().map(|&i| live[i].1).collect();
                let mut outside = None;
                let mut redundant = true;
                for &i in &component {
                    let (b, p) = live[i];
                    // Earlier components may have been removed meanwhile.
                    for arg in self.incoming(b, p) {
                        if members.contains(&arg) || outside == Some(arg) {
                            continue;
                        }
                        redundant &= outside.is_none();
                        outside = Some(arg);
                    }
                }
                let (true, Some(outside)) = (redundant, outside) else { continue };
                for &i in &component {
                    let (block, param) = live[i];
                    let ValueDef::Param(_, index) = self.func.dfg.value_def(param) else { unreachable!() };
                    for pred in self.cfg.pred_iter(block) {
                        remove_edge_arg(self.func, pred.inst, block, index);
                    }
                    self.func.dfg.remove_block_param(param);
                    self.func.dfg.change_to_alias(param, outside);
                    removed.insert(param);
                }
                progress = true;
            }
            if !progress {
                return;
            }
        }
    }

    /// The distinct values (aliases resolved) that the edges into `block`
    /// pass to its parameter `param`, `param` itself left out.
    fn incoming(&self, block: Block, param: Value) -> Vec<Value> {
        let ValueDef::Param(_, index) = self.func.dfg.value_def(param) else { unreachable!() };
        let mut values = Vec::new();
        for pred in self.cfg.pred_iter(block) {
            for arg in edge_args(self.func, pred.inst, block, index) {
                let arg = self.func.dfg.resolve_aliases(arg);
                if arg != param && !values.contains(&arg) {
                    values.push(arg);
                }
            }
        }
        values
    }
}

/// The strongly connected components of the graph with edges `i -> j` for
/// each `j` in `edges[i]`, each component after all it reaches (Tarjan's
/// algorithm, without recursion: a function may add thousands of
/// parameters, and compilation runs on threads with small stacks).
fn strongly_connected_components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let (mut index, mut low, mut on_stack) = (vec![UNSEEN; n], vec![0; n], vec![false; n]);
    let (mut stack, mut components, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, how many of its edges are done)
        let mut work = vec![(root, 0)];
        while let Some(&mut (v, ref mut done)) = work.last_mut() {
            if *done == 0 && index[v] == UNSEEN {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*done) {
                *done += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

/// The argument at `index` on each edge of branch `inst` into `block`.
fn edge_args(func: &Function, inst: Inst, block: Block, index: usize) -> Vec<Value> {
    let dfg = &func.dfg;
    dfg.insts[inst]
        .branch_destination(&dfg.jump_tables, &dfg.exception_tables)
        .iter()
        .filter(|call| call.block(&dfg.value_lists) == block)
        .filter_map(|call| call.args(&dfg.value_lists).nth(index).and_then(|a| a.as_value()))
        .collect()
}

/// Appends `value` to the arguments of each edge of branch `inst` into
/// `block`.
fn append_edge_arg(func: &mut Function, inst: Inst, block: Block, value: Value) {
    let dfg = &mut func.dfg;
    for call in dfg.insts[inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables) {
        if call.block(&dfg.value_lists) == block {
            call.append_argument(value, &mut dfg.value_lists);
        }
    }
}

/// Sets the argument at `index` of each edge of branch `inst` into
/// `block` to `value`.
fn set_edge_arg(func: &mut Function, inst: Inst, block: Block, index: usize, value: Value) {
    let dfg = &mut func.dfg;
    for call in dfg.insts[inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables) {
        if call.block(&dfg.value_lists) == block {
            let mut args: Vec<BlockArg> = call.args(&dfg.value_lists).collect();
            args[index] = BlockArg::Value(value);
            call.clear(&mut dfg.value_lists);
            for arg in args {
                call.append_argument(arg, &mut dfg.value_lists);
            }
        }
    }
}

/// Removes the argument at `index` from each edge of branch `inst` into
/// `block`.
fn remove_edge_arg(func: &mut Function, inst: Inst, block: Block, index: usize) {
    let dfg = &mut func.dfg;
    for call in dfg.insts[inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables) {
        if call.block(&dfg.value_lists) == block {
            call.remove(index, &mut dfg.value_lists);
        }
    }
}
