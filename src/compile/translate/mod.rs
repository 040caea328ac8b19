//! WebAssembly function bodies to Cranelift IR.
//!
//! One pass over the operators, each validated by wasmparser just before it
//! is translated. The wasm operand stack becomes a stack of SSA values,
//! locals become frontend variables, and structured control flow becomes
//! blocks with parameters.
//!
//! Dispatch is wasmparser's `VisitOperator` (and `VisitSimdOperator`)
//! trait, implemented for [`Translator`] in `visit.rs` (and `simd/visit.rs`)
//! with one method per operator, each written out by us: the traits have no
//! default methods, so a wasmparser that adds an operator does not compile
//! until it is translated or listed as unsupported there. The translations
//! live in the files of their family (`control`, `call`, `variables`,
//! `reference`, `memory`, `atomics`, `table`, `numeric`, `exceptions`, `simd/`); whatever depends on
//! the VMContext layout is asked of [`FuncEnv`]. This file holds the driver
//! and the operand stack.

/// Defines `VisitOperator` methods from an explicit table. An entry names
/// the wasmparser methods it implements, with their immediates (several
/// names when they translate alike, as the `i32` and `i64` forms of an
/// operator), and the translation: a `()` expression (so that a value or a
/// `Result` cannot be dropped by mistake) in which `$t` is the translator
/// and `?` returns an error.
macro_rules! operators {
    ($t:ident => $( $($visit:ident $(($($arg:ident: $ty:ty),*))?),+ => $body:expr; )*) => {
        $($(
            fn $visit(&mut self $($(, $arg: $ty)*)?) -> Result<()> {
                #[allow(unused_variables)] // `nop` needs no translator.
                let $t = self;
                let () = $body;
                Ok(())
            }
        )+)*
    };
}

/// Defines `VisitOperator` methods, from an explicit list of names with
/// their immediates' types, for the operators of a proposal we do not
/// compile: each refuses the function with [`Error::Unsupported`].
macro_rules! unsupported {
    ($proposal:literal: $($visit:ident($($ty:ty),*)),* $(,)?) => {
        $(
            fn $visit(&mut self $(, _: $ty)*) -> Result<()> {
                Err(self.unsupported_operator($proposal, stringify!($visit)))
            }
        )*
    };
}

mod atomics;
mod call;
mod control;
mod exceptions;
pub(crate) mod gc;
mod gc_objects;
mod memory;
mod numeric;
mod reference;
mod simd;
mod stack_maps;
mod table;
mod variables;
mod visit;
mod wide;

use crate::compile::trap_codes::ToClif;
use cranelift_codegen::ir::{self, types, InstBuilder, SourceLoc, UserFuncName, Value};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use wasmparser::{FuncValidator, FunctionBody, ValidatorResources, VisitOperator};

use super::func_env::{ir_type, wasm_signature, FuncEnv};
use crate::environ::error::{Error, Result};
use crate::environ::index::FuncIndex;
use crate::environ::trap::TrapCode;
use crate::environ::types::{FuncType, ValType};
use control::Frame;

pub struct Translator<'a, 'f> {
    env: FuncEnv<'a>,
    b: FunctionBuilder<'f>,
    stack: Vec<Value>,
    control: Vec<Frame>,
    locals: Vec<Variable>,
    /// False after an unconditional branch, until the next join point.
    reachable: bool,
    /// Byte offset of the operator being translated, for errors.
    offset: usize,
    /// The `try_table`s and `try`s around the code being translated.
    handlers: Vec<exceptions::Handler>,
    /// Whether values that may be GC heap objects get stack maps (see
    /// `stack_maps`): when GC is on, and so heap objects can exist.
    gc_roots: bool,
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
    func.signature = wasm_signature(ty);
    func.name = UserFuncName::user(0, index.as_u32());
    crate::compile::func_env::declare_alias_regions(func);
    func.stack_limit = Some(env.stack_limit(func));

    let b = FunctionBuilder::new(func, fctx);
    let mut t = Translator {
        env,
        b,
        stack: Vec::new(),
        control: Vec::new(),
        locals: Vec::new(),
        reachable: true,
        offset: 0,
        handlers: Vec::new(),
        gc_roots: validator.features().gc(),
    };
    t.translate_body(ty, body, validator)?;
    let config = t.env.module.frontend_config;
    t.b.finalize(config);
    Ok(())
}

impl Translator<'_, '_> {
    fn translate_body(
        &mut self,
        ty: &FuncType,
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
            if let Some(wty) = validator.get_local_type(i as u32) {
                self.declare_local_root(validator.resources(), var, wty);
            }
            let v = self.b.block_params(entry)[i + 2];
            self.b.def_var(var, v);
            self.locals.push(var);
        }
        let mut locals = body.get_locals_reader()?;
        for _ in 0..locals.get_count() {
            let offset = locals.original_position();
            let (count, wty) = locals.read()?;
            validator.define_locals(offset, count, wty)?;
            let vt = ValType::from_wasmparser(wty);
            for _ in 0..count {
                let var = self.b.declare_var(ir_type(vt));
                self.declare_local_root(validator.resources(), var, wty);
                let zero = self.zero(vt);
                self.b.def_var(var, zero);
                self.locals.push(var);
            }
        }

        self.env.fuel_function_entry(&mut self.b);
        self.enter_function(ty.results());
        let mut reader = body.get_operators_reader()?;
        while !reader.eof() {
            let offset = reader.original_position();
            let op = reader.read()?;
            // Before `op` is validated: the arity of an `end` or a branch
            // depends on the control frames it leaves.
            let arity = if self.gc_roots { op.operator_arity(&*validator) } else { None };
            validator.op(offset, &op)?;
            self.offset = offset as usize;
            self.b.set_srcloc(SourceLoc::new(offset as u32));
            if self.reachable {
                self.env.fuel_before_op(&mut self.b, &op);
                self.visit_operator(&op)?;
            } else {
                self.skip_unreachable(&op)?;
            }
            if let (Some((_, results)), true) = (arity, self.reachable) {
                self.declare_result_roots(validator, results);
            }
        }
        reader.finish()?;
        Ok(())
    }

    /// The error for an operator of `proposal` that we do not compile,
    /// named as its `visit_` method is.
    fn unsupported_operator(&self, proposal: &str, name: &str) -> Error {
        let name = name.trim_start_matches("visit_");
        Error::unsupported(format_args!("{proposal} operator {name}"), Some(self.offset))
    }

    /// The zero value of a type: initial locals, null references.
    fn zero(&mut self, ty: ValType) -> Value {
        match ty {
            ValType::I32 => self.b.ins().iconst(types::I32, 0),
            ValType::I64 => self.b.ins().iconst(types::I64, 0),
            ValType::Ref(_) => self.env.null_ref(&mut self.b),
            ValType::F32 => self.b.ins().f32const(0.0),
            ValType::F64 => self.b.ins().f64const(0.0),
            ValType::V128 => {
                let c = self.b.func.dfg.constants.insert(vec![0u8; 16].into());
                self.b.ins().vconst(types::I8X16, c)
            }
        }
    }

    fn pop1(&mut self) -> Value {
        self.stack.pop().expect("validated: operand present")
    }

    fn pop2(&mut self) -> (Value, Value) {
        let b = self.pop1();
        let a = self.pop1();
        (a, b)
    }

    fn pop3(&mut self) -> [Value; 3] {
        let c = self.pop1();
        let (a, b) = self.pop2();
        [a, b, c]
    }

    fn popn(&mut self, n: usize) -> Vec<Value> {
        let at = self.stack.len() - n;
        self.stack.split_off(at)
    }

    fn push1(&mut self, v: Value) {
        self.stack.push(v);
    }

    fn top(&self, n: usize) -> &[Value] {
        &self.stack[self.stack.len() - n..]
    }

    /// `select`: the parametric operators work on the operand stack alone.
    fn select(&mut self) {
        let [a, b, c] = self.pop3();
        let v = self.b.ins().select(c, a, b);
        self.push1(v);
    }

    /// Emits an unconditional trap; the code after it is unreachable.
    fn trap(&mut self, code: TrapCode) {
        self.b.ins().trap(code.to_clif());
        self.reachable = false;
    }
}
