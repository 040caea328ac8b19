//! Structured control flow: `block`, `loop`, `if`/`else`, `end`, the
//! branches and `return`, and the tracking of code after an unconditional
//! branch.
//!
//! Every construct is a frame on the control stack whose `next` block is
//! where execution continues after its `end`, with the construct's results
//! as block parameters; a loop's branches go to its header instead. Code
//! after an unconditional branch is unreachable until the next `else` or
//! `end` that some branch reaches: its operators are not translated, only
//! the nesting of the constructs it opens is followed.

use std::borrow::Cow;

use cranelift_codegen::ir::{self, Block, BlockArg, InstBuilder, JumpTableData, Value};
use wasmparser::{BlockType, BrTable, Operator};

use super::Translator;
use crate::compile::func_env::ir_type;
use crate::environ::error::Result;
use crate::environ::index::TypeIndex;
use crate::environ::types::ValType;

/// What kind of construct a control frame is.
enum FrameKind {
    Block,
    Loop {
        header: Block,
    },
    If {
        else_block: Block,
        else_params: Vec<Value>,
        has_else: bool,
    },
    /// A construct entered in unreachable code: only its nesting matters.
    Dead,
}

pub(super) struct Frame {
    kind: FrameKind,
    /// Where execution continues after `end`; its parameters are the results.
    next: Block,
    num_params: usize,
    num_results: usize,
    /// Height of the operand stack below this frame's parameters.
    stack_base: usize,
    /// Whether some branch (or fall-through) reaches `next`.
    exit_reached: bool,
}

fn block_args(values: &[Value]) -> Vec<BlockArg> {
    values.iter().map(|v| BlockArg::Value(*v)).collect()
}

impl<'a> Translator<'a, '_> {
    /// Opens the frame of the function body, whose `end` returns `results`.
    pub(super) fn enter_function(&mut self, results: &[ValType]) {
        let ret = self.new_block(results);
        self.push_frame(FrameKind::Block, ret, 0, results.len());
    }

    /// A new block whose parameters have the given wasm types.
    fn new_block(&mut self, tys: &[ValType]) -> Block {
        let block = self.b.create_block();
        for t in tys {
            self.b.append_block_param(block, ir_type(*t));
        }
        block
    }

    /// A block's parameters and results (the type section's, or one
    /// result; both borrowed where they can be, so blocks allocate nothing).
    fn block_type(&self, bt: BlockType) -> (Cow<'a, [ValType]>, Cow<'a, [ValType]>) {
        match bt {
            BlockType::Empty => (Cow::Borrowed(&[]), Cow::Borrowed(&[])),
            BlockType::Type(t) => (Cow::Borrowed(&[]), Cow::Owned(vec![ValType::from_wasmparser(t)])),
            BlockType::FuncType(i) => {
                let ty = self.env.info().func_sig(TypeIndex::from_u32(i));
                (Cow::Borrowed(ty.params()), Cow::Borrowed(ty.results()))
            }
        }
    }

    pub(super) fn block(&mut self, bt: BlockType) {
        let (params, results) = self.block_type(bt);
        let next = self.new_block(&results);
        self.push_frame(FrameKind::Block, next, params.len(), results.len());
    }

    pub(super) fn loop_(&mut self, bt: BlockType) {
        let (params, results) = self.block_type(bt);
        let header = self.new_block(&params);
        let args = block_args(self.top(params.len()));
        self.b.ins().jump(header, &args);
        self.stack.truncate(self.stack.len() - params.len());
        self.b.switch_to_block(header);
        self.stack.extend_from_slice(self.b.block_params(header));
        self.env.fuel_check(&mut self.b);
        let next = self.new_block(&results);
        self.push_frame(FrameKind::Loop { header }, next, params.len(), results.len());
    }

    pub(super) fn if_(&mut self, bt: BlockType) {
        let (params, results) = self.block_type(bt);
        let cond = self.pop1();
        let then_block = self.b.create_block();
        let else_block = self.b.create_block();
        self.b.ins().brif(cond, then_block, &[], else_block, &[]);
        self.b.seal_block(then_block);
        self.b.seal_block(else_block);
        self.b.switch_to_block(then_block);
        let else_params = self.top(params.len()).to_vec();
        let next = self.new_block(&results);
        self.push_frame(FrameKind::If { else_block, else_params, has_else: false }, next, params.len(), results.len());
    }

    /// `else` reached from the then-branch.
    pub(super) fn else_(&mut self) {
        let frame = self.control.last_mut().expect("validated: inside if");
        let args = block_args(&self.stack[self.stack.len() - frame.num_results..]);
        self.b.ins().jump(frame.next, &args);
        frame.exit_reached = true;
        self.enter_else();
    }

    /// Operators in unreachable code: only nesting is tracked, until an
    /// `else` or `end` makes code reachable again.
    pub(super) fn skip_unreachable(&mut self, op: &Operator<'_>) -> Result<()> {
        match op {
            Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => {
                let dummy = self.b.create_block();
                self.control.push(Frame {
                    kind: FrameKind::Dead,
                    next: dummy,
                    num_params: 0,
                    num_results: 0,
                    stack_base: self.stack.len(),
                    exit_reached: false,
                });
            }
            Operator::Else => {
                if matches!(self.control.last().map(|f| &f.kind), Some(FrameKind::If { .. })) {
                    self.enter_else();
                }
            }
            Operator::End => self.end(),
            Operator::TryTable { .. } | Operator::Try { .. } => {
                let dummy = self.b.create_block();
                self.control.push(Frame {
                    kind: FrameKind::Dead,
                    next: dummy,
                    num_params: 0,
                    num_results: 0,
                    stack_base: self.stack.len(),
                    exit_reached: false,
                });
            }
            // A catch of a live `try` makes code reachable again.
            Operator::Catch { tag_index } if self.in_legacy_try() => {
                self.catch(Some(crate::environ::index::TagIndex::from_u32(*tag_index)))
            }
            Operator::CatchAll if self.in_legacy_try() => self.catch(None),
            Operator::Delegate { relative_depth } => match self.control.last().map(|f| &f.kind) {
                Some(FrameKind::Dead) => self.end(),
                _ => self.delegate(*relative_depth),
            },
            _ => {}
        }
        Ok(())
    }

    fn push_frame(&mut self, kind: FrameKind, next: Block, num_params: usize, num_results: usize) {
        self.control.push(Frame {
            kind,
            next,
            num_params,
            num_results,
            stack_base: self.stack.len() - num_params,
            exit_reached: false,
        });
    }

    /// Switches from the then-branch of the innermost `if` to its else-branch.
    fn enter_else(&mut self) {
        let frame = self.control.last_mut().expect("validated: inside if");
        let base = frame.stack_base;
        if let FrameKind::If { else_block, else_params, has_else } = &mut frame.kind {
            *has_else = true;
            let (block, params) = (*else_block, else_params.clone());
            self.stack.truncate(base);
            self.stack.extend(params);
            self.b.switch_to_block(block);
            self.reachable = true;
        }
    }

    /// `end`, reachable or not: closes the innermost frame, and the
    /// function with the last one.
    pub(super) fn end(&mut self) {
        if let Some(FrameKind::Dead) = self.control.last().map(|f| &f.kind) {
            let frame = self.control.pop().expect("checked");
            self.stack.truncate(frame.stack_base);
            return;
        }
        let handler = self.end_handler();
        self.end_frame();
        if let Some(h) = handler {
            self.seal_handler(&h);
        }
    }

    /// Leaves the current section of the innermost construct (a legacy
    /// `try`'s body or catch): to its end with its results, if reachable.
    pub(super) fn leave_section(&mut self) {
        let frame = self.control.last_mut().expect("validated: inside a construct");
        if self.reachable {
            let args = block_args(&self.stack[self.stack.len() - frame.num_results..]);
            self.b.ins().jump(frame.next, &args);
            frame.exit_reached = true;
        }
        self.stack.truncate(frame.stack_base);
        self.reachable = false;
    }

    /// Jumps to the label `depth` out with `args`.
    pub(super) fn jump_to_label(&mut self, depth: u32, args: &[Value]) {
        let i = self.control.len() - 1 - depth as usize;
        let dest = match self.control[i].kind {
            FrameKind::Loop { header } => header,
            _ => {
                self.control[i].exit_reached = true;
                self.control[i].next
            }
        };
        self.b.ins().jump(dest, &block_args(args));
    }

    /// `end` of a construct that is not dead.
    fn end_frame(&mut self) {
        let mut frame = self.control.pop().expect("validated: frame to end");
        if self.reachable {
            let args = block_args(self.top(frame.num_results));
            self.b.ins().jump(frame.next, &args);
            frame.exit_reached = true;
        }
        match &frame.kind {
            FrameKind::If { else_block, else_params, has_else: false } => {
                // No else: the false path carries the parameters straight out.
                self.b.switch_to_block(*else_block);
                let args = block_args(else_params);
                self.b.ins().jump(frame.next, &args);
                frame.exit_reached = true;
            }
            FrameKind::Loop { header } => self.b.seal_block(*header),
            _ => {}
        }
        self.b.seal_block(frame.next);
        self.stack.truncate(frame.stack_base);
        if frame.exit_reached {
            self.b.switch_to_block(frame.next);
            self.stack.extend_from_slice(self.b.block_params(frame.next));
            self.reachable = true;
            if self.control.is_empty() {
                let results = self.stack.clone();
                self.emit_return(&results);
            }
        } else {
            self.reachable = false;
        }
    }

    /// The block a branch to `depth` jumps to, with its arguments.
    fn branch_target(&mut self, depth: u32) -> ir::BlockCall {
        let i = self.control.len() - 1 - depth as usize;
        let (dest, n) = match self.control[i].kind {
            FrameKind::Loop { header } => (header, self.control[i].num_params),
            _ => {
                self.control[i].exit_reached = true;
                (self.control[i].next, self.control[i].num_results)
            }
        };
        let args = block_args(self.top(n));
        self.b.func.dfg.block_call(dest, &args)
    }

    pub(super) fn br(&mut self, depth: u32) {
        self.branch(depth, None);
    }

    pub(super) fn br_if(&mut self, depth: u32) {
        let cond = self.pop1();
        self.branch(depth, Some(cond));
    }

    /// `br` (cond = None) or `br_if`.
    pub(super) fn branch(&mut self, depth: u32, cond: Option<Value>) {
        let call = self.branch_target(depth);
        let dest = call.block(&self.b.func.dfg.value_lists);
        let args: Vec<BlockArg> = call.args(&self.b.func.dfg.value_lists).collect();
        match cond {
            None => {
                self.b.ins().jump(dest, &args);
                self.reachable = false;
            }
            Some(c) => {
                let fallthrough = self.b.create_block();
                self.b.ins().brif(c, dest, &args, fallthrough, &[]);
                self.b.seal_block(fallthrough);
                self.b.switch_to_block(fallthrough);
            }
        }
    }

    /// `br_on_null`: branches (without the reference) when it is null,
    /// else goes on with it.
    pub(super) fn br_on_null(&mut self, depth: u32) {
        let r = self.pop1();
        let is_null = self.b.ins().icmp_imm_u(ir::condcodes::IntCC::Equal, r, 0);
        self.branch(depth, Some(is_null));
        self.push1(r);
    }

    /// `br_on_non_null`: branches with the reference when it is not null,
    /// else drops it and goes on.
    pub(super) fn br_on_non_null(&mut self, depth: u32) {
        let r = *self.top(1).last().expect("validated: operand present");
        self.branch(depth, Some(r));
        self.pop1();
    }

    pub(super) fn br_table(&mut self, targets: BrTable<'_>) -> Result<()> {
        let index = self.pop1();
        let mut calls = Vec::with_capacity(targets.len() as usize + 1);
        for depth in targets.targets() {
            calls.push(self.branch_target(depth?));
        }
        let default = self.branch_target(targets.default());
        let jt = self.b.create_jump_table(JumpTableData::new(default, &calls));
        self.b.ins().br_table(index, jt);
        self.reachable = false;
        Ok(())
    }

    pub(super) fn return_(&mut self) {
        let n = self.control[0].num_results;
        let results = self.top(n).to_vec();
        self.emit_return(&results);
    }

    /// Returns from the function with `results`.
    fn emit_return(&mut self, results: &[Value]) {
        self.env.fuel_before_return(&mut self.b);
        self.b.ins().return_(results);
        self.reachable = false;
    }
}
