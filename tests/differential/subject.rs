//! The runtime under test, cranewasm, behind the fuzzer's `Runtime` trait.

use std::cell::RefCell;

use cranewasm::*;

use super::model::{self, AnyVal, Outcome, Runtime, State, TrapKind, Ty, Value};

/// The store's data: the log of host calls.
type Log = Vec<(String, Vec<Value>)>;

pub struct Subject {
    store: Store<Log>,
    instance: Option<Instance>,
    /// Entities created for the module's imports (observed after a failed
    /// instantiation too).
    imported: Vec<(String, Extern)>,
    /// Tags by the names an exception's tag is reported by, in name order
    /// (see `model::Outcome::Exception`).
    tags: Vec<(String, Tag)>,
}

thread_local! {
    /// Engines are made once per thread: guard pages and explicit bounds
    /// checks, with Cranelift's optimiser and backtracking register
    /// allocator or with neither (no optimiser, single-pass allocator).
    static ENGINES: RefCell<Vec<Engine>> = const { RefCell::new(Vec::new()) };
}

/// Wasm stack for fuzzed calls: far more than the fuel-bounded recursion
/// of a generated module can use (see `fuzz_differential.rs`).
pub const MAX_WASM_STACK: usize = 32 << 20;

fn engine(config_seed: u64) -> Engine {
    ENGINES.with(|engines| {
        let mut engines = engines.borrow_mut();
        if engines.is_empty() {
            for i in 0..4 {
                let mut config = Config::new();
                config.max_wasm_stack(MAX_WASM_STACK);
                config.bounds_checks(if i & 1 == 0 { BoundsChecks::GuardPages } else { BoundsChecks::Explicit });
                config.cranelift_optimize(i & 2 == 0);
                config.cranelift_regalloc(if i & 2 == 0 { Regalloc::Backtracking } else { Regalloc::SinglePass });
                // Fuzzing runs several workers already.
                config.parallel_compilation(false);
                // What tests/fuzz_wasmtime.rs generates (2.0 modules use
                // none of it).
                config.wasm_function_references(true);
                config.wasm_exceptions(true);
                config.wasm_memory64(true);
                config.wasm_wide_arithmetic(true);
                config.wasm_custom_page_sizes(true);
                config.wasm_gc(true);
                engines.push(Engine::new(&config).expect("engine"));
            }
        }
        engines[(config_seed % 4) as usize].clone()
    })
}

/// The description of an engine chosen by `config_seed`, for failure reports
/// ("unoptimised" engines also use the single-pass register allocator).
pub fn engine_name(config_seed: u64) -> &'static str {
    ["guard pages, optimised", "explicit checks, optimised", "guard pages, unoptimised", "explicit checks, unoptimised"]
        [(config_seed % 4) as usize]
}

fn ty(t: ValType) -> Ty {
    match t {
        ValType::I32 => Ty::I32,
        ValType::I64 => Ty::I64,
        ValType::F32 => Ty::F32,
        ValType::F64 => Ty::F64,
        ValType::V128 => Ty::V128,
        ValType::Ref(r) if !r.is_nullable() => Ty::NonNull,
        // Before `top`, which takes every concrete type for a function type.
        ValType::Ref(r)
            if matches!(
                r.heap_type(),
                HeapType::Concrete(_) | HeapType::NoFunc | HeapType::NoExtern | HeapType::None | HeapType::NoExn
            ) =>
        {
            Ty::NullOnly
        }
        ValType::Ref(r) => match r.heap_type().top() {
            HeapType::Func => Ty::FuncRef,
            HeapType::Extern => Ty::ExternRef,
            HeapType::Exn => Ty::ExnRef,
            HeapType::Any => Ty::AnyRef { i31: matches!(r.heap_type(), HeapType::Any | HeapType::Eq | HeapType::I31) },
            _ => panic!("a reference of no hierarchy the fuzzer knows: {r}"),
        },
    }
}

/// Maps our trap codes to the fuzzer's kinds.
pub fn trap_kind(trap: &TrapError) -> TrapKind {
    match trap.code() {
        None => {
            assert_eq!(trap.message(), model::HOST_TRAP, "only the test's host functions raise traps without a code");
            TrapKind::Host
        }
        Some(code) => match code {
            Trap::StackOverflow => TrapKind::StackOverflow,
            Trap::MemoryOutOfBounds => TrapKind::MemoryOutOfBounds,
            Trap::TableOutOfBounds | Trap::UndefinedElement => TrapKind::TableOutOfBounds,
            Trap::IndirectCallToNull => TrapKind::IndirectCallToNull,
            Trap::BadSignature => TrapKind::BadSignature,
            Trap::IntegerOverflow => TrapKind::IntegerOverflow,
            Trap::IntegerDivisionByZero => TrapKind::IntegerDivisionByZero,
            Trap::BadConversionToInteger => TrapKind::BadConversionToInteger,
            Trap::UnreachableCodeReached => TrapKind::Unreachable,
            Trap::UnlinkedFunction => panic!("every import is provided, yet: {trap}"),
            // The generator leaves the threads proposal off (see generate.rs).
            Trap::HeapMisaligned | Trap::AtomicWaitNonSharedMemory => {
                panic!("a threads trap from a module generated without threads: {trap}")
            }
            // wasmtime says which null it met no more precisely.
            Trap::NullReference
            | Trap::NullFunctionReference
            | Trap::NullI31Reference
            | Trap::NullStructReference
            | Trap::NullArrayReference => TrapKind::NullReference,
            Trap::CastFailure => TrapKind::CastFailure,
            Trap::ArrayOutOfBounds => TrapKind::ArrayOutOfBounds,
            Trap::OutOfMemory => TrapKind::OutOfMemory,
            Trap::Interrupt | Trap::OutOfFuel | Trap::EpochDeadline => {
                panic!("nothing interrupts, counts fuel or sets deadlines here, yet: {trap}")
            }
        },
    }
}

fn outcome_of_error(store: &Store<Log>, tags: &[(String, Tag)], e: Error) -> Outcome {
    if let Some(exn) = Exn::from_error(store, &e) {
        let (tag, payload) = exception(store, tags, exn);
        return Outcome::Exception { tag, payload };
    }
    match e.as_trap() {
        Some(trap) => Outcome::Trapped(trap_kind(trap)),
        None => Outcome::Failed(e.to_string()),
    }
}

/// An exception's tag, by name, and its payload.
fn exception(store: &Store<Log>, tags: &[(String, Tag)], exn: Exn) -> (String, Vec<Value>) {
    let tag = exn.tag(store);
    let name = tags.iter().find(|(_, t)| *t == tag).map_or("a tag of no name", |(n, _)| n.as_str());
    (name.to_string(), exn.values(store).iter().map(|v| to_value(store, tags, v)).collect())
}

fn to_value(store: &Store<Log>, tags: &[(String, Tag)], v: &Val) -> Value {
    let value = match *v {
        Val::I32(x) => Value::I32(x),
        Val::I64(x) => Value::I64(x),
        Val::F32(x) => Value::F32(x),
        Val::F64(x) => Value::F64(x),
        Val::V128(x) => Value::V128(x.as_u128()),
        Val::FuncRef(f) => Value::FuncRef { null: f.is_none() },
        Val::ExternRef(r) => r.map_or(Value::ExternRef(None), |r| extern_val(store, r)),
        Val::ExnRef(e) => Value::ExnRef(e.map(|e| {
            let (tag, payload) = exception(store, tags, e);
            model::exn_id(&tag, &payload)
        })),
        Val::AnyRef(a) => Value::AnyRef(a.map(|a| any_val(store, a))),
    };
    value.canonical()
}

/// A non-null externref: the number in host data the test made, or what
/// an `any` reference made external is.
fn extern_val<'a>(store: impl Into<StoreContext<'a, Log>>, r: ExternRef) -> Value {
    match r.data(store).downcast_ref::<u32>() {
        Some(x) => Value::ExternRef(Some(*x)),
        None => Value::ExternOfAny(eq_val(AnyRef::convert_extern(r)).expect("not host data")),
    }
}

/// What the fuzzer compares of a non-null `any` reference (see
/// `model::AnyVal`): an i31's value, host data made internal by the
/// number in it, and any other `eq` reference as an object.
fn any_val<'a>(store: impl Into<StoreContext<'a, Log>>, a: AnyRef) -> AnyVal {
    if let Some(v) = eq_val(a) {
        return v;
    }
    let data = ExternRef::convert_any(a).data(store);
    AnyVal::Host(*data.downcast_ref::<u32>().expect("our externrefs hold u32"))
}

/// `any_val` of an `eq` reference; `None` for host data made internal.
fn eq_val(a: AnyRef) -> Option<AnyVal> {
    if let Some(i) = a.as_i31() {
        return Some(AnyVal::I31(i.get_u32()));
    }
    a.is_eq().then_some(AnyVal::Object)
}

/// `v` as a value of type `ty` (which a null needs).
fn from_value(mut store: impl AsContextMut, v: Value, ty: ValType) -> Val {
    if v.is_null() {
        return Val::default_for(ty);
    }
    match v {
        Value::I32(x) => Val::I32(x),
        Value::I64(x) => Val::I64(x),
        Value::F32(x) => Val::F32(x),
        Value::F64(x) => Val::F64(x),
        Value::V128(x) => Val::V128(V128(x)),
        Value::ExternRef(x) => Val::ExternRef(x.map(|x| ExternRef::new(&mut store, x))),
        Value::FuncRef { .. } | Value::ExnRef(_) | Value::AnyRef(None) | Value::ExternOfAny(_) | Value::Null => {
            unreachable!("the fuzzer makes only null funcrefs and exnrefs")
        }
        Value::AnyRef(Some(AnyVal::I31(x))) => Val::AnyRef(Some(AnyRef::from_i31(I31::wrapping_u32(x)))),
        Value::AnyRef(Some(v)) => panic!("the fuzzer makes only null and i31 anyrefs, yet: {v:?}"),
    }
}

/// The host entity for one import, if the harness can make it (see
/// `model::CANNOT_IMPORT`).
fn import(store: &mut Store<Log>, key: &str, import: &ImportType) -> Option<Extern> {
    Some(match import.ty.clone() {
        ExternType::Func(ft) => {
            let results: Vec<Ty> = ft.results().iter().map(|t| ty(*t)).collect();
            let result_types = ft.results().to_vec();
            let key = key.to_string();
            Func::new(&mut *store, ft, move |mut caller, params, out| {
                let args: Vec<Value> = params
                    .iter()
                    .map(|p| match *p {
                        Val::ExternRef(Some(r)) => extern_val(caller.as_context(), r),
                        Val::FuncRef(f) => Value::FuncRef { null: f.is_none() },
                        Val::ExternRef(None) => Value::ExternRef(None),
                        // Tag names are not at hand here: an exception
                        // passed to the host is compared by null-ness.
                        Val::ExnRef(e) => Value::ExnRef(e.map(|_| 0)),
                        Val::AnyRef(a) => Value::AnyRef(a.map(|a| any_val(caller.as_context(), a))),
                        Val::I32(x) => Value::I32(x),
                        Val::I64(x) => Value::I64(x),
                        Val::F32(x) => Value::F32(x),
                        Val::F64(x) => Value::F64(x),
                        Val::V128(x) => Value::V128(x.as_u128()),
                    })
                    .map(Value::canonical)
                    .collect();
                let behaviour = model::host_behaviour(&key, &args, &results);
                caller.data_mut().push((key.clone(), args));
                let values = behaviour.map_err(|()| TrapError::new(model::HOST_TRAP))?;
                for ((slot, v), t) in out.iter_mut().zip(values).zip(&result_types) {
                    *slot = from_value(caller.reborrow(), v, *t);
                }
                Ok(())
            })
            .into()
        }
        ExternType::Global(g) if ty(g.content) == Ty::NonNull => return None,
        ExternType::Global(g) => {
            let init = from_value(&mut *store, model::import_global_value(key, ty(g.content)), g.content);
            Global::new(&mut *store, g, init).expect("global").into()
        }
        ExternType::Table(t) if !t.element().is_nullable() => return None,
        ExternType::Table(t) => {
            let init = Val::default_for(ValType::Ref(t.element()));
            Table::new(&mut *store, t, init).expect("table").into()
        }
        ExternType::Memory(m) => Memory::new(&mut *store, m).expect("memory").into(),
        ExternType::Tag(t) => Tag::new(&mut *store, &t).expect("tag").into(),
    })
}

impl Subject {
    fn observe(&self, name: &str, ext: &Extern, state: &mut State) {
        let (store, tags) = (&self.store, &self.tags[..]);
        match ext {
            Extern::Func(_) | Extern::Tag(_) => {}
            Extern::Global(g) => state.globals.push((name.to_string(), to_value(store, tags, &g.get(store)))),
            Extern::Memory(m) => state.memories.push((name.to_string(), m.data(store).to_vec())),
            Extern::Table(t) => {
                let elems =
                    (0..t.size(store)).map(|i| to_value(store, tags, &t.get(store, i).expect("in bounds"))).collect();
                state.tables.push((name.to_string(), elems))
            }
        }
    }
}

impl Runtime for Subject {
    const NAME: &'static str = "cranewasm";

    fn instantiate(wasm: &[u8], config_seed: u64) -> (Subject, Outcome) {
        let engine = engine(config_seed);
        let mut store = Store::new(&engine, Log::new());
        let module = match Module::new(&engine, wasm) {
            Ok(m) => m,
            // Counted, not compared (see `super::NEEDS_GC_HEAP`).
            Err(Error::Unsupported(why)) if why.contains("GC heap") => {
                let subject = Subject { store, instance: None, imported: Vec::new(), tags: Vec::new() };
                return (subject, Outcome::Failed(format!("{}: {why}", super::NEEDS_GC_HEAP)));
            }
            Err(e) => panic!("cranewasm rejects a module wasm-smith generated: {e}"),
        };
        let mut imported = Vec::new();
        let mut externs = Vec::new();
        let mut keys = model::ImportKeys::default();
        for imp in module.imports() {
            let key = keys.key(imp.ty.kind_name(), &imp.module, &imp.name);
            let Some(ext) = import(&mut store, &key, &imp) else {
                let subject = Subject { store, instance: None, imported, tags: Vec::new() };
                return (subject, Outcome::Failed(model::CANNOT_IMPORT.into()));
            };
            imported.push((key, ext));
            externs.push(ext);
        }
        let mut tags: Vec<(String, Tag)> =
            imported.iter().filter_map(|(key, e)| Some((key.clone(), e.into_tag()?))).collect();
        let (instance, outcome) = match Instance::new(&mut store, &module, &externs) {
            Ok(i) => (Some(i), Outcome::Returned(Vec::new())),
            Err(e) => (None, outcome_of_error(&store, &tags, e)),
        };
        if let Some(i) = instance {
            tags.extend(i.exports(&store).into_iter().filter_map(|(name, e)| Some((name, e.into_tag()?))));
        }
        tags.sort_by(|a, b| a.0.cmp(&b.0));
        (Subject { store, instance, imported, tags }, outcome)
    }

    fn exported_funcs(&self) -> Vec<(String, Vec<Ty>, Vec<Ty>)> {
        let Some(instance) = self.instance else { return Vec::new() };
        let mut funcs: Vec<_> = instance
            .exports(&self.store)
            .into_iter()
            .filter_map(|(name, e)| {
                let f = e.into_func()?;
                let ft = f.ty(&self.store);
                Some((
                    name,
                    ft.params().iter().map(|t| ty(*t)).collect(),
                    ft.results().iter().map(|t| ty(*t)).collect(),
                ))
            })
            .collect();
        // In name order, as the oracle lists them.
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
        let mut results: Vec<Val> = ft.results().iter().map(|t| Val::default_for(*t)).collect();
        match f.call(&mut self.store, &params, &mut results) {
            Ok(()) => Outcome::Returned(results.iter().map(|r| to_value(&self.store, &self.tags, r)).collect()),
            Err(e) => outcome_of_error(&self.store, &self.tags, e),
        }
    }

    fn snapshot(&mut self) -> State {
        let mut state = State::default();
        if let Some(instance) = self.instance {
            for (name, e) in instance.exports(&self.store) {
                self.observe(&name, &e, &mut state);
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
