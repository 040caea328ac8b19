//! The reference: the wasmi interpreter, behind the fuzzer's `Runtime`
//! trait. It shares no code with cranewasm (its own parser and validator
//! too), so agreeing with it means something.
//!
//! wasmi 1.x, not 2.0.0: the fuzzer found 2.0.0 unfit as an oracle — it
//! jumps to a wild address (SIGSEGV, killing the test process) on
//! `v128.store16_lane` with a 2^16 offset, panics in its translator on
//! some stores, and picks the wrong `select` operand after
//! `local.get x; i32.eqz; select; local.set x`. 1.1 runs all of those
//! right; their reproducers are in `tests/regressions/`.

use std::sync::OnceLock;

use wasmi::{
    AsContext, AsContextMut, Engine, Extern, ExternRef, ExternType, Func, Global, Instance, Memory, Module, Ref, Store,
    Table, TrapCode, Val, ValType,
};

use super::model::{self, Outcome, Runtime, State, TrapKind, Ty, Value};

type Log = Vec<(String, Vec<Value>)>;

pub struct Oracle {
    store: Store<Log>,
    instance: Option<Instance>,
    imported: Vec<(String, Extern)>,
}

/// Recursion allowed in wasmi: more than the fuel bound lets a generated
/// module use, like our wasm stack.
const MAX_RECURSION: usize = 100_000;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut config = wasmi::Config::default();
        config
            .wasm_simd(true)
            .wasm_relaxed_simd(false)
            .wasm_tail_call(true)
            .wasm_extended_const(true)
            .wasm_multi_memory(true)
            .wasm_memory64(false)
            .wasm_custom_page_sizes(false)
            .wasm_wide_arithmetic(false)
            .set_max_recursion_depth(MAX_RECURSION)
            .set_max_stack_height(256 << 20);
        Engine::new(&config)
    })
}

fn ty(t: ValType) -> Ty {
    match t {
        ValType::I32 => Ty::I32,
        ValType::I64 => Ty::I64,
        ValType::F32 => Ty::F32,
        ValType::F64 => Ty::F64,
        ValType::V128 => Ty::V128,
        ValType::FuncRef => Ty::FuncRef,
        ValType::ExternRef => Ty::ExternRef,
    }
}

/// Maps wasmi's trap codes to the fuzzer's kinds.
pub fn trap_kind(code: TrapCode) -> Option<TrapKind> {
    Some(match code {
        TrapCode::UnreachableCodeReached => TrapKind::Unreachable,
        TrapCode::MemoryOutOfBounds => TrapKind::MemoryOutOfBounds,
        TrapCode::TableOutOfBounds => TrapKind::TableOutOfBounds,
        TrapCode::IndirectCallToNull => TrapKind::IndirectCallToNull,
        TrapCode::IntegerDivisionByZero => TrapKind::IntegerDivisionByZero,
        TrapCode::IntegerOverflow => TrapKind::IntegerOverflow,
        TrapCode::BadConversionToInteger => TrapKind::BadConversionToInteger,
        TrapCode::StackOverflow => TrapKind::StackOverflow,
        TrapCode::BadSignature => TrapKind::BadSignature,
        // Fuel is off and no limiter is set; these are resource failures.
        TrapCode::OutOfFuel | TrapCode::GrowthOperationLimited => return None,
    })
}

fn outcome_of_error(e: wasmi::Error) -> Outcome {
    if let Some(kind) = e.as_trap_code().and_then(trap_kind) {
        return Outcome::Trapped(kind);
    }
    // Errors wasmi does not classify as traps though the spec does: an
    // element segment out of bounds at instantiation, `table.copy` out of
    // bounds.
    use wasmi::errors::{ErrorKind, InstantiationError, TableError};
    if let ErrorKind::Instantiation(InstantiationError::ElementSegmentDoesNotFit { .. })
    | ErrorKind::Table(TableError::CopyOutOfBounds) = e.kind()
    {
        return Outcome::Trapped(TrapKind::TableOutOfBounds);
    }
    if e.to_string().contains(model::HOST_TRAP) {
        return Outcome::Trapped(TrapKind::Host);
    }
    Outcome::Failed(e.to_string())
}

fn to_value(store: impl AsContext<Data = Log>, v: &Val) -> Value {
    let value = match v {
        Val::I32(x) => Value::I32(*x),
        Val::I64(x) => Value::I64(*x),
        Val::F32(x) => Value::F32(x.to_bits()),
        Val::F64(x) => Value::F64(x.to_bits()),
        Val::V128(x) => Value::V128(x.as_u128()),
        Val::FuncRef(f) => Value::FuncRef { null: f.is_null() },
        Val::ExternRef(r) => Value::ExternRef(
            r.val().map(|r| *r.data(store.as_context()).downcast_ref::<u32>().expect("our externrefs hold u32")),
        ),
    };
    value.canonical()
}

/// `v` as a value of type `ty` (which a null needs).
fn from_value(mut store: impl AsContextMut<Data = Log>, v: Value, ty: ValType) -> Val {
    if v.is_null() {
        return Val::default(ty);
    }
    match v {
        Value::I32(x) => Val::I32(x),
        Value::I64(x) => Val::I64(x),
        Value::F32(x) => Val::F32(wasmi::F32::from_bits(x)),
        Value::F64(x) => Val::F64(wasmi::F64::from_bits(x)),
        Value::V128(x) => Val::V128(x.into()),
        Value::ExternRef(Some(x)) => Val::ExternRef(Ref::Val(ExternRef::new(&mut store, x))),
        Value::ExnRef(_) => panic!("wasmi has no exnref"),
        Value::AnyRef(_) | Value::ExternOfAny(_) => panic!("wasmi has no GC"),
        Value::FuncRef { .. } | Value::ExternRef(None) | Value::Null => {
            unreachable!("the fuzzer makes only null funcrefs")
        }
    }
}

fn import(store: &mut Store<Log>, key: &str, ty_: &ExternType) -> Extern {
    match ty_ {
        ExternType::Func(ft) => {
            let results: Vec<Ty> = ft.results().iter().map(|t| ty(*t)).collect();
            let result_types = ft.results().to_vec();
            let key = key.to_string();
            Func::new(&mut *store, ft.clone(), move |mut caller, params, out| {
                let args: Vec<Value> = params.iter().map(|p| to_value(&caller, p)).collect();
                let behaviour = model::host_behaviour(&key, &args, &results);
                caller.data_mut().push((key.clone(), args));
                let values = behaviour.map_err(|()| wasmi::Error::new(model::HOST_TRAP))?;
                for ((slot, v), t) in out.iter_mut().zip(values).zip(&result_types) {
                    *slot = from_value(&mut caller, v, *t);
                }
                Ok(())
            })
            .into()
        }
        ExternType::Global(g) => {
            let init = from_value(&mut *store, model::import_global_value(key, ty(g.content())), g.content());
            Global::new(&mut *store, init, g.mutability()).into()
        }
        ExternType::Table(t) => {
            let init = Val::default(t.element());
            Table::new(&mut *store, *t, init).expect("table").into()
        }
        ExternType::Memory(m) => Memory::new(&mut *store, *m).expect("memory").into(),
    }
}

impl Oracle {
    fn observe(&self, name: &str, ext: &Extern, state: &mut State) {
        let store = &self.store;
        match ext {
            Extern::Func(_) => {}
            Extern::Global(g) => state.globals.push((name.to_string(), to_value(store, &g.get(store)))),
            Extern::Memory(m) => state.memories.push((name.to_string(), m.data(store).to_vec())),
            Extern::Table(t) => {
                let elems = (0..t.size(store)).map(|i| to_value(store, &t.get(store, i).expect("in bounds"))).collect();
                state.tables.push((name.to_string(), elems))
            }
        }
    }
}

impl Runtime for Oracle {
    const NAME: &'static str = "wasmi";

    fn instantiate(wasm: &[u8], _config_seed: u64) -> (Oracle, Outcome) {
        let engine = engine();
        let mut store = Store::new(engine, Log::new());
        let module = match Module::new(engine, wasm) {
            Ok(m) => m,
            Err(e) => {
                let oracle = Oracle { store, instance: None, imported: Vec::new() };
                return (oracle, Outcome::Failed(format!("{}: wasmi: {e}", super::ORACLE_REJECTS)));
            }
        };
        let mut imported = Vec::new();
        let mut externs = Vec::new();
        let mut keys = model::ImportKeys::default();
        for imp in module.imports() {
            let kind = match imp.ty() {
                ExternType::Func(_) => "function",
                ExternType::Global(_) => "global",
                ExternType::Table(_) => "table",
                ExternType::Memory(_) => "memory",
            };
            let key = keys.key(kind, imp.module(), imp.name());
            let ext = import(&mut store, &key, imp.ty());
            imported.push((key, ext));
            externs.push(ext);
        }
        let (instance, outcome) = match Instance::new(&mut store, &module, &externs) {
            Ok(i) => (Some(i), Outcome::Returned(Vec::new())),
            Err(e) => (None, outcome_of_error(e)),
        };
        (Oracle { store, instance, imported }, outcome)
    }

    fn exported_funcs(&self) -> Vec<(String, Vec<Ty>, Vec<Ty>)> {
        let Some(instance) = self.instance else { return Vec::new() };
        let mut funcs: Vec<_> = instance
            .exports(&self.store)
            .filter_map(|e| {
                let name = e.name().to_string();
                let f = e.into_func()?;
                let ft = f.ty(&self.store);
                Some((
                    name,
                    ft.params().iter().map(|t| ty(*t)).collect(),
                    ft.results().iter().map(|t| ty(*t)).collect(),
                ))
            })
            .collect();
        funcs.sort_by(|a: &(String, _, _), b| a.0.cmp(&b.0));
        funcs
    }

    fn set_global_i32(&mut self, name: &str, value: i32) {
        let instance = self.instance.expect("instantiated");
        // Hand-written regression modules may have no fuel counter.
        if let Some(g) = instance.get_global(&self.store, name) {
            g.set(&mut self.store, Val::I32(value)).expect("mutable i32 global");
        }
    }

    fn call(&mut self, name: &str, args: &[Value]) -> Outcome {
        let instance = self.instance.expect("instantiated");
        let f = instance.get_func(&self.store, name).expect("function exported");
        let ft = f.ty(&self.store);
        let params: Vec<Val> = args.iter().zip(ft.params()).map(|(a, t)| from_value(&mut self.store, *a, *t)).collect();
        let mut results: Vec<Val> = ft.results().iter().map(|t| Val::default(*t)).collect();
        match f.call(&mut self.store, &params, &mut results) {
            Ok(()) => Outcome::Returned(results.iter().map(|r| to_value(&self.store, r)).collect()),
            Err(e) => outcome_of_error(e),
        }
    }

    fn snapshot(&mut self) -> State {
        let mut state = State::default();
        if let Some(instance) = self.instance {
            for e in instance.exports(&self.store) {
                let name = e.name().to_string();
                self.observe(&name, &e.into_extern(), &mut state);
            }
        }
        for (name, e) in &self.imported {
            self.observe(name, e, &mut state);
        }
        state.host_calls = self.store.data().clone();
        state.sort();
        state
    }
}
