//! WebAssembly function bodies to Cranelift IR.
//!
//! One pass over the operators, each validated by wasmparser just before it
//! is translated. The wasm operand stack becomes a stack of SSA values,
//! locals become frontend variables, and structured control flow becomes
//! blocks with parameters. This file holds the driver and control flow;
//! operators by family live in the sibling files, and everything about the
//! VMContext layout in [`FuncEnv`].

mod memory;
mod numeric;
mod simd;
mod table;

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, Block, BlockArg, InstBuilder, JumpTableData, SourceLoc, UserFuncName, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use wasmparser::{BlockType, FuncValidator, FunctionBody, Operator, ValidatorResources};

use super::func_env::{ir_type, wasm_signature, Callee, FuncEnv};
use crate::error::{Error, Result};
use crate::index::*;
use crate::trap::TrapCode;
use crate::types::{FuncType, ValType};

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

struct Frame {
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

pub struct Translator<'a, 'f> {
    pub env: FuncEnv<'a>,
    pub b: FunctionBuilder<'f>,
    pub stack: Vec<Value>,
    control: Vec<Frame>,
    locals: Vec<Variable>,
    /// False after an unconditional branch, until the next join point.
    reachable: bool,
}

fn unsupported(what: &str, offset: usize) -> Error {
    Error::Invalid { message: format!("unsupported: {what}"), offset }
}

pub(crate) fn block_args(values: &[Value]) -> Vec<BlockArg> {
    values.iter().map(|v| BlockArg::Value(*v)).collect()
}

/// Translates the body of defined function `index` into `func`.
pub fn translate_function(
    env: FuncEnv<'_>,
    index: FuncIndex,
    body: &FunctionBody<'_>,
    validator: &mut FuncValidator<ValidatorResources>,
    func: &mut ir::Function,
    fctx: &mut FunctionBuilderContext,
) -> Result<()> {
    let mut env = env;
    let ty = env.info().func_type(index);
    func.signature = wasm_signature(&ty);
    func.name = UserFuncName::user(0, index.index() as u32);
    func.stack_limit = Some(env.stack_limit(func));

    let b = FunctionBuilder::new(func, fctx);
    let mut t = Translator { env, b, stack: Vec::new(), control: Vec::new(), locals: Vec::new(), reachable: true };
    t.translate_body(ty, body, validator)?;
    let config = t.env.module.frontend_config;
    t.b.finalize(config);
    Ok(())
}

impl<'a, 'f> Translator<'a, 'f> {
    fn translate_body(
        &mut self,
        ty: FuncType,
        body: &FunctionBody<'_>,
        validator: &mut FuncValidator<ValidatorResources>,
    ) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        self.b.seal_block(entry);

        let vmctx = self.b.block_params(entry)[0];
        self.env.set_vmctx(vmctx);
        // Parameters come after the callee and caller VMContexts.
        for (i, p) in ty.params().iter().enumerate() {
            let var = self.b.declare_var(ir_type(*p));
            let v = self.b.block_params(entry)[i + 2];
            self.b.def_var(var, v);
            self.locals.push(var);
        }
        let mut locals = body.get_locals_reader()?;
        for _ in 0..locals.get_count() {
            let offset = locals.original_position();
            let (count, wty) = locals.read()?;
            validator.define_locals(offset, count, wty)?;
            let vt = ValType::from_wasmparser(wty).ok_or_else(|| unsupported("typed references", offset as usize))?;
            for _ in 0..count {
                let var = self.b.declare_var(ir_type(vt));
                let zero = self.zero(vt);
                self.b.def_var(var, zero);
                self.locals.push(var);
            }
        }

        let ret = self.new_block(ty.results());
        self.control.push(Frame {
            kind: FrameKind::Block,
            next: ret,
            num_params: 0,
            num_results: ty.results().len(),
            stack_base: 0,
            exit_reached: false,
        });

        let mut reader = body.get_operators_reader()?;
        while !reader.eof() {
            let offset = reader.original_position();
            let op = reader.read()?;
            validator.op(offset, &op)?;
            self.b.set_srcloc(SourceLoc::new(offset as u32));
            self.translate(op, offset as usize)?;
        }
        reader.finish()?;
        Ok(())
    }

    /// A new block whose parameters have the given wasm types.
    fn new_block(&mut self, tys: &[ValType]) -> Block {
        let block = self.b.create_block();
        for t in tys {
            self.b.append_block_param(block, ir_type(*t));
        }
        block
    }

    /// The zero value of a type: initial locals, null references.
    pub fn zero(&mut self, ty: ValType) -> Value {
        match ty {
            ValType::I32 => self.b.ins().iconst(types::I32, 0),
            ValType::I64 | ValType::FuncRef | ValType::ExternRef => self.b.ins().iconst(types::I64, 0),
            ValType::F32 => self.b.ins().f32const(0.0),
            ValType::F64 => self.b.ins().f64const(0.0),
            ValType::V128 => {
                let c = self.b.func.dfg.constants.insert(vec![0u8; 16].into());
                self.b.ins().vconst(types::I8X16, c)
            }
        }
    }

    pub fn pop1(&mut self) -> Value {
        self.stack.pop().expect("validated: operand present")
    }

    pub fn pop2(&mut self) -> (Value, Value) {
        let b = self.pop1();
        let a = self.pop1();
        (a, b)
    }

    pub fn pop3(&mut self) -> (Value, Value, Value) {
        let c = self.pop1();
        let (a, b) = self.pop2();
        (a, b, c)
    }

    pub fn popn(&mut self, n: usize) -> Vec<Value> {
        let at = self.stack.len() - n;
        self.stack.split_off(at)
    }

    pub fn push1(&mut self, v: Value) {
        self.stack.push(v);
    }

    fn top(&self, n: usize) -> &[Value] {
        &self.stack[self.stack.len() - n..]
    }

    /// Emits an unconditional trap; the code after it is unreachable.
    pub fn trap(&mut self, code: TrapCode) {
        self.b.ins().trap(code.to_clif());
        self.reachable = false;
    }

    /// Traps with `code` when `cond` is non-zero.
    pub fn trap_if(&mut self, cond: Value, code: TrapCode) {
        self.b.ins().trapnz(cond, code.to_clif());
    }

    fn block_type(&self, bt: BlockType) -> (&'static [ValType], &'static [ValType]) {
        fn one(t: ValType) -> &'static [ValType] {
            match t {
                ValType::I32 => &[ValType::I32],
                ValType::I64 => &[ValType::I64],
                ValType::F32 => &[ValType::F32],
                ValType::F64 => &[ValType::F64],
                ValType::V128 => &[ValType::V128],
                ValType::FuncRef => &[ValType::FuncRef],
                ValType::ExternRef => &[ValType::ExternRef],
            }
        }
        match bt {
            BlockType::Empty => (&[], &[]),
            BlockType::Type(t) => (&[], one(ValType::from_wasmparser(t).expect("validated block type"))),
            BlockType::FuncType(i) => {
                let ty = self.env.info().types[TypeIndex::from_u32(i)];
                (ty.params(), ty.results())
            }
        }
    }

    fn translate(&mut self, op: Operator<'_>, offset: usize) -> Result<()> {
        if !self.reachable {
            return self.translate_unreachable(op);
        }
        match op {
            Operator::Nop => {}
            Operator::Unreachable => self.trap(TrapCode::Unreachable),
            Operator::Block { blockty } => {
                let (params, results) = self.block_type(blockty);
                let next = self.new_block(results);
                self.push_frame(FrameKind::Block, next, params.len(), results.len());
            }
            Operator::Loop { blockty } => {
                let (params, results) = self.block_type(blockty);
                let header = self.new_block(params);
                let args = block_args(self.top(params.len()));
                self.b.ins().jump(header, &args);
                self.stack.truncate(self.stack.len() - params.len());
                self.b.switch_to_block(header);
                self.stack.extend_from_slice(self.b.block_params(header));
                let next = self.new_block(results);
                self.push_frame(FrameKind::Loop { header }, next, params.len(), results.len());
            }
            Operator::If { blockty } => {
                let (params, results) = self.block_type(blockty);
                let cond = self.pop1();
                let then_block = self.b.create_block();
                let else_block = self.b.create_block();
                self.b.ins().brif(cond, then_block, &[], else_block, &[]);
                self.b.seal_block(then_block);
                self.b.seal_block(else_block);
                self.b.switch_to_block(then_block);
                let else_params = self.top(params.len()).to_vec();
                let next = self.new_block(results);
                self.push_frame(
                    FrameKind::If { else_block, else_params, has_else: false },
                    next,
                    params.len(),
                    results.len(),
                );
            }
            Operator::Else => {
                let frame = self.control.last_mut().expect("validated: inside if");
                let args = block_args(&self.stack[self.stack.len() - frame.num_results..]);
                self.b.ins().jump(frame.next, &args);
                frame.exit_reached = true;
                self.enter_else();
            }
            Operator::End => self.end_frame(),
            Operator::Br { relative_depth } => {
                self.branch(relative_depth, None);
                self.reachable = false;
            }
            Operator::BrIf { relative_depth } => {
                let cond = self.pop1();
                self.branch(relative_depth, Some(cond));
            }
            Operator::BrTable { targets } => {
                let index = self.pop1();
                let mut calls = Vec::with_capacity(targets.len() as usize + 1);
                for depth in targets.targets() {
                    calls.push(self.branch_target(depth?));
                }
                let default = self.branch_target(targets.default());
                let jt = self.b.create_jump_table(JumpTableData::new(default, &calls));
                self.b.ins().br_table(index, jt);
                self.reachable = false;
            }
            Operator::Return => self.return_(),
            Operator::Call { function_index } => self.call(FuncIndex::from_u32(function_index), false),
            Operator::ReturnCall { function_index } => self.call(FuncIndex::from_u32(function_index), true),
            Operator::CallIndirect { type_index, table_index } => {
                self.call_indirect(TypeIndex::from_u32(type_index), TableIndex::from_u32(table_index), false)
            }
            Operator::ReturnCallIndirect { type_index, table_index } => {
                self.call_indirect(TypeIndex::from_u32(type_index), TableIndex::from_u32(table_index), true)
            }
            Operator::Drop => {
                self.pop1();
            }
            Operator::Select | Operator::TypedSelect { .. } => {
                let (a, b, c) = self.pop3();
                let v = self.b.ins().select(c, a, b);
                self.push1(v);
            }
            Operator::LocalGet { local_index } => {
                let v = self.b.use_var(self.locals[local_index as usize]);
                self.push1(v);
            }
            Operator::LocalSet { local_index } => {
                let v = self.pop1();
                self.b.def_var(self.locals[local_index as usize], v);
            }
            Operator::LocalTee { local_index } => {
                let v = *self.stack.last().expect("validated");
                self.b.def_var(self.locals[local_index as usize], v);
            }
            op => {
                if self.translate_numeric(&op)
                    || self.translate_memory(&op)?
                    || self.translate_table(&op)
                    || self.translate_simd(&op)
                {
                    return Ok(());
                }
                return Err(unsupported(&format!("operator {op:?}"), offset));
            }
        }
        Ok(())
    }

    /// Operators after an unconditional branch: only nesting is tracked,
    /// until an `else` or `end` makes code reachable again.
    fn translate_unreachable(&mut self, op: Operator<'_>) -> Result<()> {
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
            Operator::End => self.end_frame(),
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

    fn end_frame(&mut self) {
        let mut frame = self.control.pop().expect("validated: frame to end");
        if let FrameKind::Dead = frame.kind {
            self.stack.truncate(frame.stack_base);
            return;
        }
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
                self.b.ins().return_(&results);
                self.reachable = false;
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

    /// `br` (cond = None) or `br_if`.
    fn branch(&mut self, depth: u32, cond: Option<Value>) {
        let call = self.branch_target(depth);
        let dest = call.block(&self.b.func.dfg.value_lists);
        let args: Vec<BlockArg> = call.args(&self.b.func.dfg.value_lists).collect();
        match cond {
            None => {
                self.b.ins().jump(dest, &args);
            }
            Some(c) => {
                let fallthrough = self.b.create_block();
                self.b.ins().brif(c, dest, &args, fallthrough, &[]);
                self.b.seal_block(fallthrough);
                self.b.switch_to_block(fallthrough);
            }
        }
    }

    fn return_(&mut self) {
        let n = self.control[0].num_results;
        let results = self.top(n).to_vec();
        self.b.ins().return_(&results);
        self.reachable = false;
    }

    fn call(&mut self, f: FuncIndex, tail: bool) {
        let ty = self.env.info().func_type(f);
        let args = self.popn(ty.params().len());
        let caller = self.env.vmctx(&mut self.b);
        match self.env.callee(&mut self.b, f) {
            Callee::Direct(r) => {
                let mut all = vec![caller, caller];
                all.extend(args);
                if tail {
                    self.b.ins().return_call(r, &all);
                    self.reachable = false;
                } else {
                    let call = self.b.ins().call(r, &all);
                    self.stack.extend_from_slice(self.b.inst_results(call));
                }
            }
            Callee::Indirect { code, vmctx } => self.call_code(ty, code, vmctx, caller, args, tail),
        }
    }

    fn call_code(
        &mut self,
        ty: FuncType,
        code: Value,
        callee_vmctx: Value,
        caller: Value,
        args: Vec<Value>,
        tail: bool,
    ) {
        let sig = self.env.wasm_sig_ref(self.b.func, ty);
        let mut all = vec![callee_vmctx, caller];
        all.extend(args);
        if tail {
            self.b.ins().return_call_indirect(sig, code, &all);
            self.reachable = false;
        } else {
            let call = self.b.ins().call_indirect(sig, code, &all);
            self.stack.extend_from_slice(self.b.inst_results(call));
        }
    }

    fn call_indirect(&mut self, ty_index: TypeIndex, table: TableIndex, tail: bool) {
        let ty = self.env.info().types[ty_index];
        let index = self.pop1();
        let args = self.popn(ty.params().len());
        let func_ref = self.table_element_addr(table, index, TrapCode::UndefinedElement);
        let func_ref = self.b.ins().load(types::I64, super::func_env::trusted(), func_ref, 0);
        self.b.ins().trapz(func_ref, TrapCode::UninitializedElement.to_clif());
        let sig = self.b.ins().load(types::I64, super::func_env::readonly(), func_ref, crate::vmctx::VMFuncRef::SIG);
        let expected = self.env.sig_id(ty_index);
        let mismatch = self.b.ins().icmp_imm_s(IntCC::NotEqual, sig, expected);
        self.trap_if(mismatch, TrapCode::BadSignature);
        let caller = self.env.vmctx(&mut self.b);
        let Callee::Indirect { code, vmctx } = self.env.load_funcref_target(&mut self.b, func_ref) else {
            unreachable!("funcref targets are always indirect")
        };
        self.call_code(ty, code, vmctx, caller, args, tail);
    }
}
