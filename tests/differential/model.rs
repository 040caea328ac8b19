//! What both runtimes are compared on: values, trap kinds, call outcomes
//! and observable state, in one runtime-neutral form; plus the behaviour of
//! the host functions both runtimes provide for a module's imports.

use std::fmt;

/// A value in runtime-neutral form. Floats are bit patterns; references
/// are compared by what both runtimes can tell: a funcref (of any function
/// type) by null-ness, an externref by the number the test put in it, an
/// exnref by its `exn_id` (tag and payload), a reference of the `any`
/// hierarchy by what `AnyVal` keeps of it. A null of any type is `Null`
/// when a runtime reports it (`canonical`): the type that says which null
/// it is is the module's, which both runtimes share, and a runtime's API
/// may not tell (cranewasm's `HeapType::top` takes every concrete type
/// for a function type, so a null `(ref null $struct)` reads as a null
/// funcref). The other forms of null are what the harness passes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    V128(u128),
    FuncRef {
        null: bool,
    },
    ExternRef(Option<u32>),
    ExnRef(Option<u64>),
    AnyRef(Option<AnyVal>),
    /// An externref made from an `any` reference (`extern.convert_any`)
    /// that is not host data made internal.
    ExternOfAny(AnyVal),
    Null,
}

impl Value {
    /// Whether this is a null reference, of whatever form.
    pub fn is_null(&self) -> bool {
        matches!(
            self,
            Value::Null
                | Value::FuncRef { null: true }
                | Value::ExternRef(None)
                | Value::ExnRef(None)
                | Value::AnyRef(None)
        )
    }

    /// The value as runtimes report it: every null is `Null`.
    pub fn canonical(self) -> Value {
        if self.is_null() {
            Value::Null
        } else {
            self
        }
    }
}

/// A non-null reference of the `any` hierarchy (`anyref`, `eqref`,
/// `i31ref`, `structref`, `(ref null $t)`...), as far as two runtimes can
/// compare it: heap addresses differ between them, so an object is
/// compared by its being one. (Whether it is a struct or an array is not
/// told yet: cranewasm's API has no way to ask, on main.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyVal {
    /// An i31, zero-extended.
    I31(u32),
    /// Host data made internal (`any.convert_extern`): the number the test
    /// put in the externref.
    Host(u32),
    /// A struct or array object.
    Object,
}

/// Value types of the features the fuzzer enables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    I32,
    I64,
    F32,
    F64,
    V128,
    FuncRef,
    ExternRef,
    ExnRef,
    /// A nullable reference of the `any` hierarchy; `i31` says whether an
    /// i31 is of the type (heap type `any`, `eq` or `i31`), so that the
    /// harness may pass one; otherwise it passes only null.
    AnyRef {
        i31: bool,
    },
    /// A nullable reference to a type of the module's (a function, struct
    /// or array type) or to a bottom type (`nofunc`, `noextern`, `none`,
    /// `noexn`): the harness passes only null.
    NullOnly,
    /// A non-nullable reference type (`(ref func)`, `(ref $t)`,
    /// `(ref exn)`...): the harness cannot make such a value, so it calls
    /// no export that takes one and makes no import that holds one.
    NonNull,
}

/// Trap kinds both runtimes can raise. Each runtime maps its own codes here
/// (see `subject::trap_kind` and `oracle::trap_kind`); where one runtime
/// distinguishes two cases the other merges, the kind is the merged one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrapKind {
    Unreachable,
    MemoryOutOfBounds,
    /// Table access out of bounds, including `call_indirect` past the end
    /// of the table (our "undefined element"; wasmi folds both together).
    TableOutOfBounds,
    /// `call_indirect` of a null entry (our "uninitialized element").
    IndirectCallToNull,
    BadSignature,
    IntegerOverflow,
    IntegerDivisionByZero,
    BadConversionToInteger,
    /// A null reference where a value is needed: `call_ref`,
    /// `ref.as_non_null`, `throw_ref` (we say which, as `NullFunctionReference`
    /// or `NullReference`; wasmtime does not).
    NullReference,
    StackOverflow,
    /// `ref.cast` of a reference not of the type.
    CastFailure,
    /// An array index or range out of bounds.
    ArrayOutOfBounds,
    /// A GC allocation that does not fit (neither runtime collects here:
    /// cranewasm has no collector yet, wasmtime's oracle uses its null
    /// collector; sizes differ, so this is compared by kind only).
    OutOfMemory,
    /// A trap raised by one of the test's host functions.
    Host,
}

/// How a call (or an instantiation) ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Returned(Vec<Value>),
    Trapped(TrapKind),
    /// An exception no handler caught: its tag (the export name or import
    /// key it is known by) and payload.
    Exception {
        tag: String,
        payload: Vec<Value>,
    },
    /// Any other error (link or resource errors), with the runtime's text.
    /// Two `Failed` outcomes agree whatever their texts.
    Failed(String),
}

impl Outcome {
    /// Whether two outcomes agree: the same values or trap kind, or both a
    /// non-trap failure.
    pub fn agrees(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Failed(_), Outcome::Failed(_)) => true,
            _ => self == other,
        }
    }

    pub fn is_stack_overflow(&self) -> bool {
        matches!(self, Outcome::Trapped(TrapKind::StackOverflow))
    }

    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, Outcome::Trapped(TrapKind::OutOfMemory))
    }
}

/// The trap message of the test's host functions.
pub const HOST_TRAP: &str = "host function trapped on purpose";

/// The state one can observe from outside an instance: exported globals,
/// memories and tables, then the entities the test created for imports.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct State {
    pub globals: Vec<(String, Value)>,
    /// Memory contents (their length gives the size).
    pub memories: Vec<(String, Vec<u8>)>,
    /// Table elements.
    pub tables: Vec<(String, Vec<Value>)>,
    /// Calls of host functions so far: import key and arguments.
    pub host_calls: Vec<(String, Vec<Value>)>,
}

impl State {
    /// Puts entities in name order: the runtimes list exports (wasmi) and
    /// imports (both) in different orders.
    pub fn sort(&mut self) {
        self.globals.sort_by(|a, b| a.0.cmp(&b.0));
        self.memories.sort_by(|a, b| a.0.cmp(&b.0));
        self.tables.sort_by(|a, b| a.0.cmp(&b.0));
    }

    /// A short description of the first difference from `other`.
    pub fn difference(&self, other: &State) -> Option<String> {
        fn list<T: PartialEq + fmt::Debug>(what: &str, a: &[(String, T)], b: &[(String, T)]) -> Option<String> {
            if a.len() != b.len() {
                return Some(format!("{what}: {} vs {} entries", a.len(), b.len()));
            }
            a.iter()
                .zip(b)
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("{what} {:?}: {:?} vs {:?} {:?}", x.0, x.1, y.0, y.1))
        }
        if let Some(d) = list("global", &self.globals, &other.globals) {
            return Some(d);
        }
        if self.memories.len() != other.memories.len() {
            return Some(format!("{} vs {} memories", self.memories.len(), other.memories.len()));
        }
        for ((name, a), (_, b)) in self.memories.iter().zip(&other.memories) {
            if a.len() != b.len() {
                return Some(format!("memory {name:?}: {} vs {} bytes", a.len(), b.len()));
            }
            if let Some(at) = a.iter().zip(b).position(|(x, y)| x != y) {
                let end = (at + 16).min(a.len());
                return Some(format!("memory {name:?} at {at:#x}: {:02x?} vs {:02x?}", &a[at..end], &b[at..end]));
            }
        }
        if self.tables.len() != other.tables.len() {
            return Some(format!("{} vs {} tables", self.tables.len(), other.tables.len()));
        }
        for ((name, a), (other_name, b)) in self.tables.iter().zip(&other.tables) {
            if name != other_name {
                return Some(format!("table {name:?} vs table {other_name:?}"));
            }
            if a.len() != b.len() {
                return Some(format!("table {name:?}: {} vs {} elements", a.len(), b.len()));
            }
            if let Some(at) = a.iter().zip(b).position(|(x, y)| x != y) {
                return Some(format!("table {name:?} element {at}: {:?} vs {:?}", a[at], b[at]));
            }
        }
        if self.host_calls != other.host_calls {
            let at = self.host_calls.iter().zip(&other.host_calls).position(|(a, b)| a != b);
            return Some(format!(
                "host calls differ (at call {at:?}; {} vs {} calls): {:?} vs {:?}",
                self.host_calls.len(),
                other.host_calls.len(),
                at.map(|i| &self.host_calls[i]),
                at.map(|i| &other.host_calls[i]),
            ));
        }
        None
    }
}

/// Names imports the same way in both runtimes, which list them in
/// different orders (wasmi groups them by kind): kind, module, name, and
/// how many imports of that kind and name came before.
#[derive(Default)]
pub struct ImportKeys(std::collections::HashMap<String, usize>);

impl ImportKeys {
    pub fn key(&mut self, kind: &str, module: &str, name: &str) -> String {
        let base = format!("import {kind} {module:?}.{name:?}");
        let n = self.0.entry(base.clone()).or_default();
        *n += 1;
        format!("{base} #{n}")
    }
}

/// What an exnref is compared by: its tag's name and its payload.
pub fn exn_id(tag: &str, payload: &[Value]) -> u64 {
    key_hash(&format!("{tag} {payload:?}"))
}

/// A hash of an import key, to derive host behaviour from.
pub fn key_hash(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The initial value of an imported global, the same in both runtimes.
pub fn import_global_value(key: &str, ty: Ty) -> Value {
    let x = key_hash(key);
    match ty {
        Ty::I32 => Value::I32(x as i32),
        Ty::I64 => Value::I64(x as i64),
        Ty::F32 => Value::F32(((x % 1000) as f32 * 1.5).to_bits()),
        Ty::F64 => Value::F64(((x % 1000) as f64 * -2.25).to_bits()),
        Ty::V128 => Value::V128((x as u128) << 64 | x as u128),
        Ty::FuncRef => Value::FuncRef { null: true },
        Ty::ExternRef => Value::ExternRef(Some(x as u32 % 1000)),
        Ty::ExnRef => Value::ExnRef(None),
        Ty::AnyRef { i31 } => Value::AnyRef((i31 && !x.is_multiple_of(3)).then_some(AnyVal::I31(x as u32 >> 1))),
        Ty::NullOnly => Value::Null,
        Ty::NonNull => panic!("imports of non-nullable globals are refused before"),
    }
}

/// What the host function for the import named `key` returns when called
/// with `args`: a deterministic function of both, or a trap now and then so
/// traps cross the host boundary too.
pub fn host_behaviour(key: &str, args: &[Value], results: &[Ty]) -> Result<Vec<Value>, ()> {
    let mut h: u64 = key_hash(key);
    let mut mix = |x: u64| {
        h ^= x;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        h ^= h >> 29;
    };
    for a in args {
        match *a {
            Value::I32(v) => mix(v as u32 as u64),
            Value::I64(v) => mix(v as u64),
            Value::F32(v) => mix(v as u64),
            Value::F64(v) => mix(v),
            Value::V128(v) => {
                mix(v as u64);
                mix((v >> 64) as u64)
            }
            Value::FuncRef { null } => mix(null as u64),
            Value::Null => mix(1 << 34),
            Value::ExternOfAny(_) => mix(1 << 35),
            Value::ExternRef(v) => mix(v.map_or(u64::MAX, u64::from)),
            Value::ExnRef(v) => mix(v.unwrap_or(u64::MAX)),
            Value::AnyRef(v) => mix(match v {
                None => u64::MAX,
                Some(AnyVal::I31(x)) => x as u64,
                Some(AnyVal::Host(x)) => 1 << 32 | x as u64,
                Some(AnyVal::Object) => 1 << 33,
            }),
        }
    }
    // The host cannot make a non-null reference of a module's type, so a
    // function returning one always traps.
    if h.is_multiple_of(23) || results.contains(&Ty::NonNull) {
        return Err(());
    }
    Ok(results
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            let x = h.rotate_left(7 * i as u32 + 3);
            match ty {
                Ty::I32 => Value::I32(x as i32),
                Ty::I64 => Value::I64(x as i64),
                // Ordinary numbers only: NaN payloads are not what is tested here.
                Ty::F32 => Value::F32((((x as u32) % 100_000) as f32).to_bits()),
                Ty::F64 => Value::F64(((x % 1_000_000) as f64).to_bits()),
                Ty::V128 => Value::V128(((x as u128) << 64) | h as u128),
                Ty::FuncRef => Value::FuncRef { null: true },
                Ty::ExternRef => Value::ExternRef((!x.is_multiple_of(3)).then_some(x as u32 % 1000)),
                Ty::ExnRef => Value::ExnRef(None),
                Ty::AnyRef { i31 } => {
                    Value::AnyRef((*i31 && !x.is_multiple_of(3)).then_some(AnyVal::I31(x as u32 & 0x7fff_ffff)))
                }
                Ty::NullOnly => Value::Null,
                Ty::NonNull => unreachable!("refused above"),
            }
        })
        .collect())
}

/// Why a module's imports cannot be made (`Outcome::Failed` of both
/// runtimes): a global or table import of a non-nullable reference type
/// needs a value the harness has no way to make.
pub const CANNOT_IMPORT: &str = "the harness makes no non-null reference for an import";

/// Whether every function (and tag) the module imports has a type a host
/// function (tag) can have in cranewasm's API: `FuncType` is structural, so `Func::new`
/// makes a plain type (final, no supertype, alone in its recursion group),
/// which is not the same type as one that is not plain, however equal
/// their signatures (iso-recursive equality; wasmtime's `FuncType` carries
/// the module's type, so there such imports link).
pub fn host_funcs_makeable(wasm: &[u8]) -> bool {
    use wasmparser::{Payload, TypeRef};
    let mut plain = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm).flatten() {
        match payload {
            Payload::TypeSection(s) => {
                for group in s.into_iter().flatten() {
                    let alone = group.types().len() == 1;
                    for sub in group.into_types() {
                        plain.push(alone && sub.is_final && sub.supertype_idxs.is_empty());
                    }
                }
            }
            Payload::ImportSection(s) => {
                for import in s.into_imports().flatten() {
                    // A tag is the same: `Tag::new` registers a plain type.
                    let ty = match import.ty {
                        TypeRef::Func(t) => Some(t),
                        TypeRef::Tag(t) => Some(t.func_type_idx),
                        _ => None,
                    };
                    if ty.is_some_and(|t| !plain[t as usize]) {
                        return false;
                    }
                }
            }
            _ => {}
        }
    }
    true
}

/// One runtime under comparison.
pub trait Runtime: Sized {
    /// The runtime's name, in reports.
    const NAME: &'static str;
    /// Compiles and instantiates `wasm`, creating host entities for its
    /// imports; `Err` is how instantiation ended otherwise (the host
    /// entities stay observable through `snapshot` of the returned `Self`
    /// when instantiation fails, hence the pair).
    fn instantiate(wasm: &[u8], config_seed: u64) -> (Self, Outcome);
    /// Names and parameter/result types of the exported functions, in
    /// export order.
    fn exported_funcs(&self) -> Vec<(String, Vec<Ty>, Vec<Ty>)>;
    /// Sets the exported global `name` (the fuzzer's fuel counter), if
    /// there is one.
    fn set_global_i32(&mut self, name: &str, value: i32);
    fn call(&mut self, name: &str, args: &[Value]) -> Outcome;
    fn snapshot(&mut self) -> State;
}
