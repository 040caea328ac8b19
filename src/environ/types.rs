//! The types of WebAssembly values and entities, as an embedder sees them.

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

/// The type of a WebAssembly value.
///
/// The discriminants are those of the C API's `wasm_valkind_t`, so the C
/// layer (and the raw value slots shared with it) converts by a plain cast.
#[repr(u8)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValType {
    /// 32-bit integer.
    I32 = 0,
    /// 64-bit integer.
    I64 = 1,
    /// 32-bit IEEE 754 float.
    F32 = 2,
    /// 64-bit IEEE 754 float.
    F64 = 3,
    /// 128-bit vector.
    V128 = 4,
    /// Reference to host data.
    ExternRef = 128,
    /// Reference to a function.
    FuncRef = 129,
}

impl ValType {
    /// The value type whose C API kind code is `kind`, if any.
    pub fn from_kind(kind: u8) -> Option<ValType> {
        Some(match kind {
            0 => ValType::I32,
            1 => ValType::I64,
            2 => ValType::F32,
            3 => ValType::F64,
            4 => ValType::V128,
            128 => ValType::ExternRef,
            129 => ValType::FuncRef,
            _ => return None,
        })
    }

    /// The C API kind code of this type.
    pub fn kind(self) -> u8 {
        self as u8
    }

    /// Whether this is a numeric (or vector) type rather than a reference.
    pub fn is_num(self) -> bool {
        !self.is_ref()
    }

    /// Whether this is a reference type.
    pub fn is_ref(self) -> bool {
        matches!(self, ValType::ExternRef | ValType::FuncRef)
    }

    pub(crate) fn from_wasmparser(ty: wasmparser::ValType) -> Option<ValType> {
        use wasmparser::ValType as W;
        Some(match ty {
            W::I32 => ValType::I32,
            W::I64 => ValType::I64,
            W::F32 => ValType::F32,
            W::F64 => ValType::F64,
            W::V128 => ValType::V128,
            W::Ref(r) => ValType::from_ref_type(r)?,
        })
    }

    pub(crate) fn from_ref_type(r: wasmparser::RefType) -> Option<ValType> {
        if !r.is_nullable() {
            return None;
        }
        match r.heap_type() {
            wasmparser::HeapType::Abstract { shared: false, ty: wasmparser::AbstractHeapType::Func } => {
                Some(ValType::FuncRef)
            }
            wasmparser::HeapType::Abstract { shared: false, ty: wasmparser::AbstractHeapType::Extern } => {
                Some(ValType::ExternRef)
            }
            _ => None,
        }
    }
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValType::I32 => "i32",
            ValType::I64 => "i64",
            ValType::F32 => "f32",
            ValType::F64 => "f64",
            ValType::V128 => "v128",
            ValType::ExternRef => "externref",
            ValType::FuncRef => "funcref",
        })
    }
}

/// Whether a global may be written after instantiation.
#[repr(u8)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mutability {
    /// Immutable.
    Const = 0,
    /// Mutable.
    Var = 1,
}

/// Size bounds of a memory (in 64 KiB pages) or a table (in elements).
///
/// A memory's `shared` flag (the threads proposal) travels here too, as it
/// does in the binary format's limits byte; [`MemoryType::shared`] and
/// [`MemoryType::is_shared`] are its interface. It is private so that a
/// table's limits can never claim it, and so that `Limits::new` (and the
/// `MemoryType { limits }` literal C-API code writes) stays unshared.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Minimum size.
    pub min: u32,
    /// Maximum size, if any.
    pub max: Option<u32>,
    shared: bool,
}

impl Limits {
    /// Limits from a minimum and an optional maximum.
    pub fn new(min: u32, max: Option<u32>) -> Limits {
        Limits { min, max, shared: false }
    }

    /// Import matching: `self` (the provided entity's current limits) fits
    /// where `required` is declared. Sharedness must agree exactly: code
    /// compiled for one kind of memory cannot run on the other.
    pub(crate) fn matches(&self, required: &Limits) -> bool {
        self.shared == required.shared
            && self.min >= required.min
            && match (self.max, required.max) {
                (_, None) => true,
                (Some(have), Some(want)) => have <= want,
                (None, Some(_)) => false,
            }
    }
}

/// A function signature.
///
/// Every distinct signature is interned once per process, so comparing two
/// `FuncType`s (and checking a `call_indirect`) is a pointer comparison.
#[derive(Copy, Clone)]
pub struct FuncType(&'static FuncTypeInner);

#[derive(PartialEq, Eq, Hash)]
struct FuncTypeInner {
    params: Box<[ValType]>,
    results: Box<[ValType]>,
}

fn interned() -> &'static Mutex<HashSet<&'static FuncTypeInner>> {
    static SET: OnceLock<Mutex<HashSet<&'static FuncTypeInner>>> = OnceLock::new();
    SET.get_or_init(Default::default)
}

impl FuncType {
    /// The signature `params -> results`.
    pub fn new(params: impl IntoIterator<Item = ValType>, results: impl IntoIterator<Item = ValType>) -> FuncType {
        let inner = FuncTypeInner { params: params.into_iter().collect(), results: results.into_iter().collect() };
        let mut set = interned().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = set.get(&inner) {
            return FuncType(existing);
        }
        // Signatures are few and small; keeping each for the life of the
        // process lets compiled code embed its address as the type's id.
        let leaked: &'static FuncTypeInner = Box::leak(Box::new(inner));
        set.insert(leaked);
        FuncType(leaked)
    }

    /// Parameter types.
    pub fn params(&self) -> &'static [ValType] {
        &self.0.params
    }

    /// Result types.
    pub fn results(&self) -> &'static [ValType] {
        &self.0.results
    }

    /// The process-wide identity of this signature, as compiled code sees
    /// it (`VMFuncRef::sig`, compared by `call_indirect`).
    ///
    /// A signature of at most [`SMALL_SIG_ARITY`] values has an id that is
    /// a pure function of its types, below 2^31: `call_indirect` compares
    /// it as a 32-bit immediate, and it is the same in every process, so
    /// code saved by the compiled-code cache needs no relocation for it.
    /// A larger one is its interned address with the top bit set (so it
    /// never equals a small id), which compiled code gets by relocation.
    pub(crate) fn sig_id(&self) -> usize {
        small_sig_id(self.params(), self.results())
            .unwrap_or(self.0 as *const FuncTypeInner as usize | LARGE_SIG_ID_TAG)
    }

    /// Whether [`sig_id`](Self::sig_id) is a 32-bit constant, the same in
    /// every process.
    pub(crate) fn has_small_sig_id(&self) -> bool {
        small_sig_id(self.params(), self.results()).is_some()
    }
}

/// The most values (parameters plus results) a signature may have for a
/// small, process-independent id.
pub(crate) const SMALL_SIG_ARITY: usize = 8;

/// Marks the id of a signature too large for [`small_sig_id`]: user-space
/// addresses never have the top bit set.
const LARGE_SIG_ID_TAG: usize = 1 << 63;

/// The id of `params -> results` if it has at most [`SMALL_SIG_ARITY`]
/// values: bit 30 set (no small id is 0, which null-filled memory holds),
/// the parameter count in bits 0-3, and a 3-bit code per value (1-7, 0 for
/// none), parameters then results, from bit 4. The count and the codes
/// determine the signature, so two signatures share an id only if equal.
fn small_sig_id(params: &[ValType], results: &[ValType]) -> Option<usize> {
    if params.len() + results.len() > SMALL_SIG_ARITY {
        return None;
    }
    let code = |t: &ValType| match t {
        ValType::I32 => 1,
        ValType::I64 => 2,
        ValType::F32 => 3,
        ValType::F64 => 4,
        ValType::V128 => 5,
        ValType::ExternRef => 6,
        ValType::FuncRef => 7,
    };
    let codes = params.iter().chain(results).enumerate().fold(0, |acc, (i, t)| acc | code(t) << (4 + 3 * i));
    Some(1 << 30 | codes | params.len())
}

impl PartialEq for FuncType {
    fn eq(&self, other: &FuncType) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for FuncType {}
impl Hash for FuncType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.0, state)
    }
}

impl fmt::Debug for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, tys: &[ValType]| -> fmt::Result {
            f.write_str("[")?;
            for (i, t) in tys.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{t}")?;
            }
            f.write_str("]")
        };
        list(f, self.params())?;
        f.write_str(" -> ")?;
        list(f, self.results())
    }
}

/// The type of a global: its content and whether it is mutable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalType {
    /// Type of the value.
    pub content: ValType,
    /// Whether the value may change.
    pub mutability: Mutability,
}

impl GlobalType {
    /// A global type.
    pub fn new(content: ValType, mutability: Mutability) -> GlobalType {
        GlobalType { content, mutability }
    }
}

/// The type of a table: its element type and limits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableType {
    /// Type of the elements (a reference type).
    pub element: ValType,
    /// Size bounds in elements.
    pub limits: Limits,
}

impl TableType {
    /// A table type.
    pub fn new(element: ValType, limits: Limits) -> TableType {
        TableType { element, limits }
    }
}

/// The type of a linear memory: its limits in 64 KiB pages, and whether it
/// is shared between threads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryType {
    /// Size bounds in 64 KiB pages (and the shared flag, see
    /// [`is_shared`](Self::is_shared)).
    pub limits: Limits,
}

impl MemoryType {
    /// An unshared memory type of `min` pages, at most `max`.
    pub fn new(min: u32, max: Option<u32>) -> MemoryType {
        MemoryType { limits: Limits::new(min, max) }
    }

    /// A shared memory type (the threads proposal) of `min` pages, at most
    /// `max`: shared memories must declare their maximum, and are reserved
    /// at it so that they never move.
    pub fn shared(min: u32, max: u32) -> MemoryType {
        MemoryType { limits: Limits { min, max: Some(max), shared: true } }
    }

    /// Whether memories of this type are shared between threads.
    pub fn is_shared(&self) -> bool {
        self.limits.shared
    }

    /// This type with `min` as its minimum (a memory's current size).
    pub(crate) fn with_min(self, min: u32) -> MemoryType {
        MemoryType { limits: Limits { min, ..self.limits } }
    }
}

/// Bytes in a WebAssembly page.
pub const WASM_PAGE_SIZE: usize = 65536;
/// Pages addressable with a 32-bit index.
pub const MAX_PAGES: u32 = 65536;
/// The most pages a memory declared smaller than 4 GiB grows to: it stops
/// 64 KiB short, so that compiled code may step an index it has accessed
/// by less than 64 KiB without a 32-bit wrap (`compile::address_steps`).
/// The spec lets `memory.grow` fail; a memory declared with 65536 pages
/// has them.
pub const GROWN_MAX_PAGES: u32 = MAX_PAGES - 1;
/// The largest size memories of type `ty` may grow to, in pages (see
/// [`GROWN_MAX_PAGES`]).
pub fn max_pages(ty: &MemoryType) -> u32 {
    let declared = ty.limits.max.unwrap_or(MAX_PAGES).min(MAX_PAGES);
    match ty.limits.min >= MAX_PAGES {
        true => declared,
        false => declared.min(GROWN_MAX_PAGES),
    }
}

/// The type of anything a module imports or exports.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExternType {
    /// A function of this signature.
    Func(FuncType),
    /// A global of this type.
    Global(GlobalType),
    /// A table of this type.
    Table(TableType),
    /// A memory of this type.
    Memory(MemoryType),
}

impl ExternType {
    /// A short name of the kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ExternType::Func(_) => "function",
            ExternType::Global(_) => "global",
            ExternType::Table(_) => "table",
            ExternType::Memory(_) => "memory",
        }
    }
}

/// One import of a module: where it comes from and what it must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportType {
    /// Module name.
    pub module: String,
    /// Field name.
    pub name: String,
    /// Required type.
    pub ty: ExternType,
}

/// One export of a module: its name and type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportType {
    /// Export name.
    pub name: String,
    /// Type of the exported entity.
    pub ty: ExternType,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn func_types_are_interned() {
        let a = FuncType::new([ValType::I32, ValType::F64], [ValType::I64]);
        let b = FuncType::new(vec![ValType::I32, ValType::F64], vec![ValType::I64]);
        let c = FuncType::new([ValType::I32], [ValType::I64]);
        assert_eq!(a, b);
        assert_eq!(a.sig_id(), b.sig_id());
        assert_ne!(a, c);
        assert_eq!(a.to_string(), "[i32 f64] -> [i64]");
    }

    #[test]
    fn signature_ids_are_distinct_and_small_ones_fixed() {
        use ValType::*;
        let all = [I32, I64, F32, F64, V128, ExternRef, FuncRef];
        // Every signature of up to 3 values, split every way between
        // parameters and results: no two share an id.
        let mut seqs: Vec<Vec<ValType>> = vec![vec![]];
        let mut last = seqs.clone();
        for _ in 0..3 {
            last = last.iter().flat_map(|s| all.iter().map(move |t| [s.clone(), vec![*t]].concat())).collect();
            seqs.extend(last.iter().cloned());
        }
        let mut ids = HashSet::new();
        let mut count = 0;
        for s in &seqs {
            for split in 0..=s.len() {
                let ty = FuncType::new(s[..split].to_vec(), s[split..].to_vec());
                assert!(ty.has_small_sig_id());
                assert!(ty.sig_id() < 1 << 31 && ty.sig_id() != 0, "{ty}: {:#x}", ty.sig_id());
                ids.insert(ty.sig_id());
                count += 1;
            }
        }
        assert_eq!(ids.len(), count);
        // The encoding is fixed: saved code compares against these.
        assert_eq!(FuncType::new([I32], [I32]).sig_id(), 1 << 30 | 1 | 1 << 4 | 1 << 7);
        assert_eq!(FuncType::new([], []).sig_id(), 1 << 30);
        let big = FuncType::new([I32; 5], [I64; 4]);
        assert!(!big.has_small_sig_id());
        assert_eq!(big.sig_id() >> 63, 1);
        assert_eq!(big.sig_id(), FuncType::new([I32; 5], [I64; 4]).sig_id());
        assert_ne!(big.sig_id(), FuncType::new([I32; 4], [I64; 5]).sig_id());
    }

    #[test]
    fn limits_match_as_imports_require() {
        let decl = Limits::new(1, Some(4));
        assert!(Limits::new(2, Some(3)).matches(&decl));
        assert!(!Limits::new(0, Some(3)).matches(&decl));
        assert!(!Limits::new(2, None).matches(&decl));
        assert!(Limits::new(2, None).matches(&Limits::new(1, None)));
        let shared = MemoryType::shared(1, 4).limits;
        assert!(shared.matches(&MemoryType::shared(1, 4).limits));
        assert!(!shared.matches(&decl), "a shared memory where an unshared one is imported");
        assert!(!decl.matches(&shared), "an unshared memory where a shared one is imported");
    }
}
