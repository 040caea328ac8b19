//! Value types: numbers, the vector, and references of WebAssembly 3.0's
//! type hierarchy.

use std::fmt;

use crate::environ::index::TypeIndex;

/// The type of a WebAssembly value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValType {
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// 32-bit IEEE 754 float.
    F32,
    /// 64-bit IEEE 754 float.
    F64,
    /// 128-bit vector.
    V128,
    /// A reference.
    Ref(RefType),
}

impl ValType {
    /// `funcref`: a nullable reference to any function.
    pub const FUNCREF: ValType = ValType::Ref(RefType::FUNCREF);
    /// `externref`: a nullable reference to host data.
    pub const EXTERNREF: ValType = ValType::Ref(RefType::EXTERNREF);
    /// `exnref`: a nullable reference to an exception.
    pub const EXNREF: ValType = ValType::Ref(RefType::EXNREF);
    /// `anyref`: a nullable reference to any internal (GC) value.
    pub const ANYREF: ValType = ValType::Ref(RefType::ANYREF);

    /// Whether this is a numeric (or vector) type rather than a reference.
    pub fn is_num(self) -> bool {
        !self.is_ref()
    }

    /// Whether this is a reference type.
    pub fn is_ref(self) -> bool {
        matches!(self, ValType::Ref(_))
    }

    /// The reference type, if this is one.
    pub fn as_ref(self) -> Option<RefType> {
        match self {
            ValType::Ref(r) => Some(r),
            _ => None,
        }
    }

    /// Whether this is `funcref` exactly.
    pub fn is_funcref(self) -> bool {
        self == ValType::FUNCREF
    }

    /// Whether this is `externref` exactly.
    pub fn is_externref(self) -> bool {
        self == ValType::EXTERNREF
    }

    /// Whether values of this type have a default (zero, or null), so that
    /// locals and table slots of it need no initialiser.
    pub fn is_defaultable(self) -> bool {
        self.as_ref().is_none_or(|r| r.nullable)
    }

    /// Whether this type is one of WebAssembly 2.0's: numbers, `v128`,
    /// `funcref` and `externref`. The runtime runs these; the rest of the
    /// model is parsed and refused until its proposal lands.
    pub fn is_wasm2(self) -> bool {
        match self {
            ValType::Ref(r) => r == RefType::FUNCREF || r == RefType::EXTERNREF,
            _ => true,
        }
    }

    /// Whether a value of this type may be used where `other` is
    /// expected: the same type, or a reference type that is a subtype of
    /// it (concrete types in canonical form, as modules hold them).
    pub fn matches(self, other: ValType) -> bool {
        match (self, other) {
            (ValType::Ref(a), ValType::Ref(b)) => a == b || a.matches_abstract(&b),
            _ => self == other,
        }
    }

    pub(crate) fn from_wasmparser(ty: wasmparser::ValType) -> ValType {
        use wasmparser::ValType as W;
        match ty {
            W::I32 => ValType::I32,
            W::I64 => ValType::I64,
            W::F32 => ValType::F32,
            W::F64 => ValType::F64,
            W::V128 => ValType::V128,
            W::Ref(r) => ValType::Ref(RefType::from_wasmparser(r)),
        }
    }
}

impl fmt::Display for ValType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValType::I32 => f.write_str("i32"),
            ValType::I64 => f.write_str("i64"),
            ValType::F32 => f.write_str("f32"),
            ValType::F64 => f.write_str("f64"),
            ValType::V128 => f.write_str("v128"),
            ValType::Ref(r) => r.fmt(f),
        }
    }
}

impl From<RefType> for ValType {
    fn from(r: RefType) -> ValType {
        ValType::Ref(r)
    }
}

/// The type of a reference: what it may point at, and whether it may be
/// null.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RefType {
    nullable: bool,
    heap: HeapType,
}

impl RefType {
    /// `funcref`, `(ref null func)`.
    pub const FUNCREF: RefType = RefType { nullable: true, heap: HeapType::Func };
    /// `externref`, `(ref null extern)`.
    pub const EXTERNREF: RefType = RefType { nullable: true, heap: HeapType::Extern };
    /// `exnref`, `(ref null exn)`.
    pub const EXNREF: RefType = RefType { nullable: true, heap: HeapType::Exn };
    /// `anyref`, `(ref null any)`.
    pub const ANYREF: RefType = RefType { nullable: true, heap: HeapType::Any };

    /// A reference to `heap`, nullable or not.
    pub const fn new(nullable: bool, heap: HeapType) -> RefType {
        RefType { nullable, heap }
    }

    /// Whether null is a value of this type.
    pub fn is_nullable(&self) -> bool {
        self.nullable
    }

    /// What the reference points at.
    pub fn heap_type(&self) -> HeapType {
        self.heap
    }

    /// Whether references of this type point at functions (so a value is a
    /// function reference, or null): `funcref`, typed function references
    /// and `nullfuncref`.
    pub fn is_func(&self) -> bool {
        self.heap.top() == HeapType::Func
    }

    /// Whether this is a subtype of `other` among the abstract types (a
    /// concrete type matches only itself here: its supertypes need the
    /// module's or engine's type section, see `TypeRegistry`).
    pub fn matches_abstract(&self, other: &RefType) -> bool {
        (other.nullable || !self.nullable) && self.heap.matches_abstract(&other.heap)
    }

    pub(crate) fn from_wasmparser(r: wasmparser::RefType) -> RefType {
        RefType { nullable: r.is_nullable(), heap: HeapType::from_wasmparser(r.heap_type()) }
    }
}

impl fmt::Display for RefType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The shorthands of the text format where one exists.
        let short = match (self.nullable, self.heap) {
            (true, HeapType::Func) => Some("funcref"),
            (true, HeapType::Extern) => Some("externref"),
            (true, HeapType::Exn) => Some("exnref"),
            (true, HeapType::Any) => Some("anyref"),
            (true, HeapType::Eq) => Some("eqref"),
            (true, HeapType::I31) => Some("i31ref"),
            (true, HeapType::Struct) => Some("structref"),
            (true, HeapType::Array) => Some("arrayref"),
            (true, HeapType::None) => Some("nullref"),
            (true, HeapType::NoFunc) => Some("nullfuncref"),
            (true, HeapType::NoExtern) => Some("nullexternref"),
            (true, HeapType::NoExn) => Some("nullexnref"),
            _ => None,
        };
        match short {
            Some(s) => f.write_str(s),
            None if self.nullable => write!(f, "(ref null {})", self.heap),
            None => write!(f, "(ref {})", self.heap),
        }
    }
}

/// What a reference points at: one of the abstract heap types of the
/// three hierarchies (functions, external values, internal values) plus
/// exceptions, or a concrete type of the module.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeapType {
    /// Any function.
    Func,
    /// No function: the bottom of the function hierarchy.
    NoFunc,
    /// Any external (host) value.
    Extern,
    /// No external value.
    NoExtern,
    /// Any internal value: the top of the GC hierarchy.
    Any,
    /// Values comparable with `ref.eq`.
    Eq,
    /// Unboxed 31-bit integers.
    I31,
    /// Any struct.
    Struct,
    /// Any array.
    Array,
    /// No internal value: the bottom of the GC hierarchy.
    None,
    /// Any exception.
    Exn,
    /// No exception.
    NoExn,
    /// A type of the module's type section (a function, struct or array
    /// type), by index.
    Concrete(TypeIndex),
}

impl HeapType {
    /// The top of this type's hierarchy: `func`, `extern`, `any` or `exn`.
    /// A concrete type is taken for a function type here; the type
    /// section knows better (see `SubType`).
    pub fn top(&self) -> HeapType {
        match self {
            HeapType::Func | HeapType::NoFunc | HeapType::Concrete(_) => HeapType::Func,
            HeapType::Extern | HeapType::NoExtern => HeapType::Extern,
            HeapType::Exn | HeapType::NoExn => HeapType::Exn,
            _ => HeapType::Any,
        }
    }

    /// Whether this is a subtype of `other` among the abstract types (see
    /// [`RefType::matches_abstract`]).
    pub fn matches_abstract(&self, other: &HeapType) -> bool {
        use HeapType::*;
        if self == other {
            return true;
        }
        match (self, other) {
            (NoFunc, Func | Concrete(_)) | (NoExtern, Extern) | (NoExn, Exn) => true,
            (Concrete(_), Func) => true,
            (None, Any | Eq | I31 | Struct | Array) => true,
            (Eq | I31 | Struct | Array, Any) => true,
            (I31 | Struct | Array, Eq) => true,
            _ => false,
        }
    }

    pub(crate) fn from_wasmparser(h: wasmparser::HeapType) -> HeapType {
        use wasmparser::AbstractHeapType as A;
        match h {
            // Shared references (the shared-everything-threads proposal)
            // are not in 3.0; the validator refuses them first.
            wasmparser::HeapType::Abstract { ty, .. } => match ty {
                A::Func => HeapType::Func,
                A::NoFunc => HeapType::NoFunc,
                A::Extern => HeapType::Extern,
                A::NoExtern => HeapType::NoExtern,
                A::Any => HeapType::Any,
                A::Eq => HeapType::Eq,
                A::I31 => HeapType::I31,
                A::Struct => HeapType::Struct,
                A::Array => HeapType::Array,
                A::None => HeapType::None,
                A::Exn => HeapType::Exn,
                A::NoExn => HeapType::NoExn,
                // Stack switching, not in 3.0 either.
                A::Cont | A::NoCont => HeapType::None,
            },
            wasmparser::HeapType::Concrete(i) | wasmparser::HeapType::Exact(i) => {
                HeapType::Concrete(TypeIndex::from_u32(i.as_module_index().unwrap_or(u32::MAX)))
            }
        }
    }
}

impl fmt::Display for HeapType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            HeapType::Func => "func",
            HeapType::NoFunc => "nofunc",
            HeapType::Extern => "extern",
            HeapType::NoExtern => "noextern",
            HeapType::Any => "any",
            HeapType::Eq => "eq",
            HeapType::I31 => "i31",
            HeapType::Struct => "struct",
            HeapType::Array => "array",
            HeapType::None => "none",
            HeapType::Exn => "exn",
            HeapType::NoExn => "noexn",
            HeapType::Concrete(t) => return write!(f, "{}", t.as_u32()),
        };
        f.write_str(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorthands_and_subtyping() {
        assert_eq!(ValType::FUNCREF.to_string(), "funcref");
        assert_eq!(ValType::Ref(RefType::new(false, HeapType::Func)).to_string(), "(ref func)");
        assert_eq!(
            ValType::Ref(RefType::new(true, HeapType::Concrete(TypeIndex::from_u32(3)))).to_string(),
            "(ref null 3)"
        );
        let nonnull_func = RefType::new(false, HeapType::Func);
        assert!(nonnull_func.matches_abstract(&RefType::FUNCREF));
        assert!(!RefType::FUNCREF.matches_abstract(&nonnull_func));
        assert!(RefType::new(true, HeapType::NoFunc).matches_abstract(&RefType::FUNCREF));
        assert!(RefType::new(true, HeapType::I31).matches_abstract(&RefType::ANYREF));
        assert!(!RefType::EXTERNREF.matches_abstract(&RefType::ANYREF));
        assert!(ValType::FUNCREF.is_wasm2() && !ValType::EXNREF.is_wasm2());
        assert!(!ValType::Ref(nonnull_func).is_defaultable());
    }
}
