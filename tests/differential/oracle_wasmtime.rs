//! The reference for WebAssembly 3.0 features, wasmtime, behind the
//! fuzzer's `Runtime` trait (tests/fuzz_wasmtime.rs). wasmi, the 2.0
//! oracle, has no exceptions, 64-bit memories or typed function
//! references; wasmtime runs them all. It shares Cranelift with us (the
//! same 0.137, which is why this version), but not the translation from
//! wasm, the runtime or the exception machinery, which is what the
//! comparison is about.

use std::sync::OnceLock;

use wasmtime::{
    AnyRef, AsContextMut, Collector, Engine, Extern, ExternRef, ExternType, Func, Global, HeapTopType, HeapType,
    Instance, Memory, Module, Ref, Store, Table, Tag, Trap, Val, ValType, I31,
};

use super::model::{self, AnyVal, Outcome, Runtime, State, TrapKind, Ty, Value};
use super::subject::MAX_WASM_STACK;

type Log = Vec<(String, Vec<Value>)>;

pub struct Wasmtime {
    store: Store<Log>,
    instance: Option<Instance>,
    imported: Vec<(String, Extern)>,
    /// Tags by name, in name order, as `subject.rs` names them.
    tags: Vec<(String, Tag)>,
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut config = wasmtime::Config::new();
        config
            .wasm_simd(true)
            .wasm_relaxed_simd(false)
            .wasm_tail_call(true)
            .wasm_multi_memory(true)
            .wasm_memory64(true)
            .wasm_custom_page_sizes(true)
            .wasm_wide_arithmetic(true)
            .wasm_function_references(true)
            .wasm_exceptions(true)
            .wasm_gc(true)
            // exnref and GC objects need a GC heap. Nothing is collected:
            // cranewasm has no collector yet either, and a fuzzed call
            // allocates little (fuel bounds it); what does not fit is
            // compared as `TrapKind::OutOfMemory`.
            .collector(Collector::Null)
            // Both runtimes install fault handlers (wasmtime's own traps
            // are `ud2` either way), and each passes a fault outside its
            // code to the handler installed before it.
            .signals_based_traps(true)
            .max_wasm_stack(MAX_WASM_STACK)
            // Unused (no async), but checked to be at least the above.
            .async_stack_size(MAX_WASM_STACK);
        Engine::new(&config).expect("wasmtime engine")
    })
}

fn ty(t: &ValType) -> Ty {
    match t {
        ValType::I32 => Ty::I32,
        ValType::I64 => Ty::I64,
        ValType::F32 => Ty::F32,
        ValType::F64 => Ty::F64,
        ValType::V128 => Ty::V128,
        ValType::Ref(r) if !r.is_nullable() => Ty::NonNull,
        ValType::Ref(r) if r.heap_type().is_concrete() || r.heap_type().is_bottom() => Ty::NullOnly,
        ValType::Ref(r) => match r.heap_type().top() {
            HeapTopType::Func => Ty::FuncRef,
            HeapTopType::Extern => Ty::ExternRef,
            HeapTopType::Exn => Ty::ExnRef,
            HeapTopType::Any => {
                Ty::AnyRef { i31: matches!(r.heap_type(), HeapType::Any | HeapType::Eq | HeapType::I31) }
            }
            HeapTopType::Cont => panic!("the fuzzer makes no continuation references: {r}"),
        },
    }
}

/// Maps wasmtime's trap codes to the fuzzer's kinds.
fn trap_kind(trap: Trap) -> Option<TrapKind> {
    Some(match trap {
        Trap::StackOverflow => TrapKind::StackOverflow,
        Trap::MemoryOutOfBounds => TrapKind::MemoryOutOfBounds,
        Trap::TableOutOfBounds => TrapKind::TableOutOfBounds,
        Trap::IndirectCallToNull => TrapKind::IndirectCallToNull,
        Trap::BadSignature => TrapKind::BadSignature,
        Trap::IntegerOverflow => TrapKind::IntegerOverflow,
        Trap::IntegerDivisionByZero => TrapKind::IntegerDivisionByZero,
        Trap::BadConversionToInteger => TrapKind::BadConversionToInteger,
        Trap::UnreachableCodeReached => TrapKind::Unreachable,
        Trap::NullReference => TrapKind::NullReference,
        Trap::CastFailure => TrapKind::CastFailure,
        Trap::ArrayOutOfBounds => TrapKind::ArrayOutOfBounds,
        Trap::AllocationTooLarge => TrapKind::OutOfMemory,
        // Threads, fuel and the component model are off.
        _ => return None,
    })
}

fn exception(
    store: &mut Store<Log>,
    tags: &[(String, Tag)],
    exn: &wasmtime::Rooted<wasmtime::ExnRef>,
) -> (String, Vec<Value>) {
    let tag = exn.tag(&mut *store).expect("an exception has a tag");
    let name = tags.iter().find(|(_, t)| Tag::eq(t, &tag, &*store)).map_or("a tag of no name", |(n, _)| n.as_str());
    let fields = exn.ty(&*store).expect("typed").fields().len();
    let payload = (0..fields)
        .map(|i| {
            let v = exn.field(&mut *store, i).expect("field in range");
            to_value(store, tags, &v)
        })
        .collect();
    (name.to_string(), payload)
}

fn outcome_of_error(store: &mut Store<Log>, tags: &[(String, Tag)], e: wasmtime::Error) -> Outcome {
    if e.is::<wasmtime::ThrownException>() {
        let exn = store.take_pending_exception().expect("a thrown exception is pending");
        let (tag, payload) = exception(store, tags, &exn);
        return Outcome::Exception { tag, payload };
    }
    if let Some(kind) = e.downcast_ref::<Trap>().and_then(|t| trap_kind(*t)) {
        return Outcome::Trapped(kind);
    }
    if e.is::<wasmtime::GcHeapOutOfMemory<()>>() {
        return Outcome::Trapped(TrapKind::OutOfMemory);
    }
    if e.root_cause().to_string() == model::HOST_TRAP {
        return Outcome::Trapped(TrapKind::Host);
    }
    Outcome::Failed(format!("{e:?}"))
}

fn to_value(store: &mut Store<Log>, tags: &[(String, Tag)], v: &Val) -> Value {
    if let Val::ExnRef(Some(e)) = v {
        let (tag, payload) = exception(store, tags, e);
        return Value::ExnRef(Some(model::exn_id(&tag, &payload)));
    }
    value_of(store, v).canonical()
}

/// `v` in the fuzzer's form, an exception by null-ness only: what a host
/// function sees of its arguments, as `subject.rs` reads them (tag names
/// are not at hand there).
fn value_of(mut cx: impl AsContextMut<Data = Log>, v: &Val) -> Value {
    match v {
        Val::I32(x) => Value::I32(*x),
        Val::I64(x) => Value::I64(*x),
        Val::F32(x) => Value::F32(*x),
        Val::F64(x) => Value::F64(*x),
        Val::V128(x) => Value::V128(x.as_u128()),
        Val::FuncRef(f) => Value::FuncRef { null: f.is_none() },
        Val::ExternRef(None) => Value::ExternRef(None),
        Val::ExternRef(Some(r)) => {
            let data = r.data(cx.as_context()).expect("live");
            match data.map(|d| *d.downcast_ref::<u32>().expect("our externrefs hold u32")) {
                Some(x) => Value::ExternRef(Some(x)),
                // An `any` reference made external.
                None => {
                    let a = AnyRef::convert_extern(&mut cx, *r).expect("any.convert_extern");
                    Value::ExternOfAny(any_val(&mut cx, &a))
                }
            }
        }
        Val::ExnRef(e) => Value::ExnRef(e.as_ref().map(|_| 0)),
        Val::AnyRef(r) => Value::AnyRef(r.as_ref().map(|r| any_val(cx.as_context_mut(), r))),
        Val::ContRef(_) => panic!("stack switching is off, yet: {v:?}"),
    }
}

/// What the fuzzer compares of a non-null `any` reference: an i31's value,
/// an object's being one, or the host data of an externref made internal
/// (the only references of `any` outside `eq`).
fn any_val(mut cx: impl AsContextMut<Data = Log>, r: &wasmtime::Rooted<AnyRef>) -> AnyVal {
    if let Some(i) = r.as_i31(&cx).expect("live") {
        return AnyVal::I31(i.get_u32());
    }
    if r.is_eqref(&cx).expect("live") {
        return AnyVal::Object;
    }
    let e = ExternRef::convert_any(&mut cx, *r).expect("extern.convert_any");
    let data = e.data(&cx).expect("live").expect("host data");
    AnyVal::Host(*data.downcast_ref::<u32>().expect("our externrefs hold u32"))
}

/// `v` as a value of type `ty` (which a null needs: wasmtime checks that
/// a null's heap type matches).
fn from_value(mut store: impl AsContextMut<Data = Log>, v: Value, ty: &ValType) -> Val {
    if v.is_null() {
        return Ref::null(ty.as_ref().expect("a reference type").heap_type()).into();
    }
    match v {
        Value::I32(x) => Val::I32(x),
        Value::I64(x) => Val::I64(x),
        Value::F32(x) => Val::F32(x),
        Value::F64(x) => Val::F64(x),
        Value::V128(x) => Val::V128(x.into()),
        Value::ExternRef(x) => Val::ExternRef(x.map(|x| ExternRef::new(&mut store, x).expect("externref allocation"))),
        Value::FuncRef { .. } | Value::ExnRef(_) | Value::AnyRef(None) | Value::ExternOfAny(_) | Value::Null => {
            unreachable!("the fuzzer makes only null funcrefs and exnrefs")
        }
        Value::AnyRef(Some(AnyVal::I31(x))) => Val::AnyRef(Some(AnyRef::from_i31(&mut store, I31::wrapping_u32(x)))),
        Value::AnyRef(Some(v)) => panic!("the fuzzer makes only null and i31 anyrefs, yet: {v:?}"),
    }
}

/// The host entity for one import, if the harness can make it.
fn import(store: &mut Store<Log>, key: &str, ty_: &ExternType) -> Option<Extern> {
    Some(match ty_ {
        ExternType::Func(ft) => {
            let results: Vec<Ty> = ft.results().map(|t| ty(&t)).collect();
            let result_types: Vec<ValType> = ft.results().collect();
            let key = key.to_string();
            Func::new(&mut *store, ft.clone(), move |mut caller, params, out| {
                let args: Vec<Value> = params.iter().map(|p| value_of(&mut caller, p).canonical()).collect();
                let behaviour = model::host_behaviour(&key, &args, &results);
                caller.data_mut().push((key.clone(), args));
                let values = behaviour.map_err(|()| wasmtime::Error::msg(model::HOST_TRAP))?;
                for ((slot, v), t) in out.iter_mut().zip(values).zip(&result_types) {
                    *slot = from_value(&mut caller, v, t);
                }
                Ok(())
            })
            .into()
        }
        ExternType::Global(g) if ty(g.content()) == Ty::NonNull => return None,
        ExternType::Global(g) => {
            let init = from_value(&mut *store, model::import_global_value(key, ty(g.content())), g.content());
            Global::new(&mut *store, g.clone(), init).expect("global").into()
        }
        ExternType::Table(t) if !t.element().is_nullable() => return None,
        ExternType::Table(t) => {
            let init = Ref::null(t.element().heap_type());
            Table::new(&mut *store, t.clone(), init).expect("table").into()
        }
        ExternType::Memory(m) => Memory::new(&mut *store, m.clone()).expect("memory").into(),
        ExternType::Tag(t) => Tag::new(&mut *store, t).expect("tag").into(),
    })
}

impl Wasmtime {
    fn observe(&mut self, name: &str, ext: &Extern, state: &mut State) {
        let (store, tags) = (&mut self.store, &self.tags[..]);
        match ext {
            Extern::Global(g) => {
                let v = g.get(&mut *store);
                state.globals.push((name.to_string(), to_value(store, tags, &v)))
            }
            Extern::Memory(m) => state.memories.push((name.to_string(), m.data(&*store).to_vec())),
            Extern::Table(t) => {
                let elems = (0..t.size(&*store))
                    .map(|i| {
                        let r = t.get(&mut *store, i).expect("in bounds");
                        to_value(store, tags, &r.into())
                    })
                    .collect();
                state.tables.push((name.to_string(), elems))
            }
            _ => {}
        }
    }

    fn exports(&mut self) -> Vec<(String, Extern)> {
        let Some(instance) = self.instance else { return Vec::new() };
        instance.exports(&mut self.store).map(|e| (e.name().to_string(), e.into_extern())).collect()
    }
}

impl Runtime for Wasmtime {
    const NAME: &'static str = "wasmtime";

    fn instantiate(wasm: &[u8], _config_seed: u64) -> (Wasmtime, Outcome) {
        let engine = engine();
        let mut store = Store::new(engine, Log::new());
        let module = match Module::new(engine, wasm) {
            Ok(m) => m,
            Err(e) => {
                let oracle = Wasmtime { store, instance: None, imported: Vec::new(), tags: Vec::new() };
                return (oracle, Outcome::Failed(format!("{}: wasmtime: {e:?}", super::ORACLE_REJECTS)));
            }
        };
        let mut imported = Vec::new();
        let mut externs = Vec::new();
        let mut keys = model::ImportKeys::default();
        for imp in module.imports() {
            let ty_ = imp.ty();
            let kind = match ty_ {
                ExternType::Func(_) => "function",
                ExternType::Global(_) => "global",
                ExternType::Table(_) => "table",
                ExternType::Memory(_) => "memory",
                ExternType::Tag(_) => "tag",
            };
            let key = keys.key(kind, imp.module(), imp.name());
            let Some(ext) = import(&mut store, &key, &ty_) else {
                let oracle = Wasmtime { store, instance: None, imported, tags: Vec::new() };
                return (oracle, Outcome::Failed(model::CANNOT_IMPORT.into()));
            };
            imported.push((key, ext.clone()));
            externs.push(ext);
        }
        let mut tags: Vec<(String, Tag)> =
            imported.iter().filter_map(|(key, e)| Some((key.clone(), e.clone().into_tag()?))).collect();
        tags.sort_by(|a, b| a.0.cmp(&b.0));
        let (instance, outcome) = match Instance::new(&mut store, &module, &externs) {
            Ok(i) => (Some(i), Outcome::Returned(Vec::new())),
            Err(e) => (None, outcome_of_error(&mut store, &tags, e)),
        };
        let mut oracle = Wasmtime { store, instance, imported, tags };
        let exported: Vec<_> = oracle.exports().into_iter().filter_map(|(n, e)| Some((n, e.into_tag()?))).collect();
        oracle.tags.extend(exported);
        oracle.tags.sort_by(|a, b| a.0.cmp(&b.0));
        (oracle, outcome)
    }

    fn exported_funcs(&self) -> Vec<(String, Vec<Ty>, Vec<Ty>)> {
        let Some(instance) = self.instance else { return Vec::new() };
        let module = instance.module(&self.store).clone();
        let mut funcs: Vec<_> = module
            .exports()
            .filter_map(|e| {
                let ExternType::Func(ft) = e.ty() else { return None };
                Some((
                    e.name().to_string(),
                    ft.params().map(|t| ty(&t)).collect(),
                    ft.results().map(|t| ty(&t)).collect(),
                ))
            })
            .collect();
        funcs.sort_by(|a: &(String, _, _), b| a.0.cmp(&b.0));
        funcs
    }

    fn set_global_i32(&mut self, name: &str, value: i32) {
        let instance = self.instance.expect("instantiated");
        // Hand-written regression modules may have no fuel counter.
        if let Some(g) = instance.get_global(&mut self.store, name) {
            g.set(&mut self.store, Val::I32(value)).expect("mutable i32 global");
        }
    }

    fn call(&mut self, name: &str, args: &[Value]) -> Outcome {
        let instance = self.instance.expect("instantiated");
        let f = instance.get_func(&mut self.store, name).expect("function exported");
        let ft = f.ty(&self.store);
        let params: Vec<Val> = ft.params().zip(args).map(|(t, a)| from_value(&mut self.store, *a, &t)).collect();
        let mut results: Vec<Val> = ft.results().map(|t| Val::default_for_ty(&t).unwrap_or(Val::I32(0))).collect();
        match f.call(&mut self.store, &params, &mut results) {
            Ok(()) => Outcome::Returned(results.iter().map(|r| to_value(&mut self.store, &self.tags, r)).collect()),
            Err(e) => outcome_of_error(&mut self.store, &self.tags, e),
        }
    }

    fn snapshot(&mut self) -> State {
        let mut state = State::default();
        for (name, e) in self.exports() {
            self.observe(&name, &e, &mut state);
        }
        for (name, e) in self.imported.clone() {
            self.observe(&name, &e, &mut state);
        }
        state.host_calls = self.store.data().clone();
        state.sort();
        state
    }
}
